"""``python -m fastrank`` runs the ``fastrank`` command."""

import sys

from .cli import main

sys.exit(main())
