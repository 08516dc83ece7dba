"""``python -m fastrank`` runs the ``fastrank`` command."""

from .cli import run

run()
