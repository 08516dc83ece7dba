"""Sphinx configuration: the fastrank user guide and API reference.

Build (warnings are errors, so a docstring that no longer matches the code,
or a reference to a name that moved, fails the build)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The reference is generated from the numpydoc docstrings of the checkout this
file belongs to (the repository root goes first on ``sys.path``), and the
command-line pages from the ``--help`` output of that same code, run at build
time. Nothing is fetched from the network.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import fastrank  # noqa: E402

with open(ROOT / "pyproject.toml", "rb") as _f:
    _PROJECT = tomllib.load(_f)["project"]

# -- project -----------------------------------------------------------------

project = "fastrank"
author = "the fastrank contributors"
copyright = "2026, the fastrank contributors"
release = _PROJECT["version"]
version = ".".join(release.split(".")[:2])
SOURCE_URL = _PROJECT["urls"]["Source"]

# -- general -----------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",  # after autodoc
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# Every cross-reference must resolve. The only names allowed to dangle belong
# to other projects: the reference is built offline, without intersphinx, so
# e.g. the numpydoc "See Also" entry ``sklearn.metrics.roc_auc_score`` has no
# target. Only scikit-learn's names occur today; the others are listed so that
# a See Also entry naming them needs no change here.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(sklearn|scipy|numpy|pandas|matplotlib|dask)\..+"),
]

# -- autodoc, autosummary, numpydoc -------------------------------------------

autodoc_default_options = {"member-order": "bysource"}
# The numpydoc "Parameters" sections carry the types; signatures show names and
# defaults only (the annotations are for type checkers, and mostly ``Any``).
autodoc_typehints = "none"
autodoc_preserve_defaults = True
autosummary_generate = False  # tables only; every object is documented on its page

numpydoc_show_class_members = False  # autodoc's :members: lists them instead
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True
# Drift between a docstring and its signature: a documented parameter the
# function does not take (PR02), a section numpydoc does not know, e.g.
# "Note" for "Notes" (GL06), "name: type" without the space before the colon
# (PR10). Not PR01 (every parameter documented): many small helpers describe
# theirs in prose.
numpydoc_validation_checks = {"PR02", "GL06", "PR10"}

# -- MyST (the guide, the speed notes, METRICS.md and the architecture notes) ---

myst_heading_anchors = 3  # GitHub-style anchors: the guide's "#curves" links

# -- HTML --------------------------------------------------------------------

html_theme = "furo"
html_title = f"fastrank {release}"
html_static_path: list[str] = []
html_theme_options = {"source_repository": SOURCE_URL, "source_branch": "main",
                      "source_directory": "docs/"}

# -- the public names of the top-level package --------------------------------

# ``fastrank/__init__.py`` exports its names lazily (PEP 562): ``fastrank.roc_auc``
# is ``fastrank.metrics.roc_auc``. The reference documents every object once, at
# the module that defines it; references written against the top-level name
# (``:func:`fastrank.roc_auc```, ``:class:`~fastrank.GroupResult```, and the bare
# ``GroupResult`` in a module that imports it) are resolved to that page here.
# Only names in ``fastrank._EXPORTS`` are redirected (the top-level name, or the
# bare name where the current module has no such object); anything else that
# does not resolve stays an error.
_EXPORTS: dict[str, str] = dict(fastrank._EXPORTS)


def _resolve_top_level(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    name = target.removeprefix("fastrank.")
    head = name.partition(".")[0]
    if head not in _EXPORTS:
        return None
    full = f"fastrank.{_EXPORTS[head]}.{name}"
    if full == target:
        return None
    domain = env.get_domain("py")
    node = node.deepcopy()
    node["reftarget"] = full
    node["py:module"] = None
    node["py:class"] = None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], full,
                               node, contnode)


# -- links to repository files -------------------------------------------------

# Pages of these docs that stand for repository files the pages link to.
_PAGES = {"METRICS.md": "definitions.md", "CHANGELOG.md": "changes.md"}
_IMAGES = (".png", ".svg", ".jpg", ".jpeg", ".gif")
_LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def _repoint(text: str, base: Path, images: bool) -> str:
    """Point links to repository files, relative to ``base``, at the right place.

    GitHub resolves ``[changes](../CHANGELOG.md)`` in ``docs/guide.md`` (or
    ``[changes](CHANGELOG.md)`` in the README) relative to the file's folder.
    Here a link to a file these docs include as a page goes to that page; a
    link to a page inside ``docs/`` goes to that page; a link to another
    existing file goes to the file in the source repository. A link to a file
    that does not exist is left as it is, so that the build reports it, and so
    are images when ``images`` is false (the include's relative-images option
    moves those).
    """

    def repoint(m: re.Match[str]) -> str:
        target = m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return m.group(0)  # a URL
        path = (base / target).resolve()
        if not path.exists() or not path.is_relative_to(ROOT):
            return m.group(0)
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("docs/") and (path.suffix in (".md", ".rst")
                                        or (images and path.suffix in _IMAGES)):
            new = os.path.relpath(path, base).replace(os.sep, "/")
        elif rel in _PAGES:
            new = _PAGES[rel]
        elif path.suffix in _IMAGES and not images:
            return m.group(0)
        else:
            new = f"{SOURCE_URL}/blob/main/{rel}"
        if new == target:
            return m.group(0)
        return f"{m.group(1)}{new}{m.group(3)}"

    return _LINK.sub(repoint, text)


def _included_links(app: Sphinx, relative_path: Path, parent_docname: str,
                    content: list[str]) -> None:
    """Links in a repository file that a page includes (the changes, the
    definitions, the README's table of differences from scikit-learn)."""
    included = (DOCS / relative_path).resolve()
    if included.parent != ROOT:
        return
    content[0] = _repoint(content[0], ROOT, images=False)


def _page_links(app: Sphinx, docname: str, source: list[str]) -> None:
    """Links in a page of these docs (the guide's ``../METRICS.md``)."""
    path = Path(app.env.doc2path(docname))
    source[0] = _repoint(source[0], path.parent, images=True)


# -- ``fastrank ... --help``, generated at build time ---------------------------


class CommandHelp(SphinxDirective):
    """``.. command-help:: evaluate``: the ``--help`` text of a subcommand.

    Runs ``python -m fastrank [SUBCOMMAND] --help`` on the code being documented,
    80 columns wide; a failing command fails the build.
    """

    optional_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        args = [sys.executable, "-m", "fastrank", *self.arguments, "--help"]
        env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "PYTHON_COLORS": "0",
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT,
                              check=False, timeout=120)
        if proc.returncode != 0:
            raise self.error(f"{' '.join(args[1:])} exited with {proc.returncode}:\n"
                             f"{proc.stderr}")
        text = "$ fastrank " + " ".join([*self.arguments, "--help"]) + "\n" + proc.stdout
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def _skip_generated(app: Sphinx, what: str, name: str, obj: Any, skip: bool,
                    options: Any) -> bool | None:
    """Leave out the fields of NamedTuples, whose only docstring is generated
    ("Alias for field number 0"); the class signature names them."""
    doc = getattr(obj, "__doc__", None)
    if what == "class" and isinstance(doc, str) and doc.startswith("Alias for field number"):
        return True
    return None


def _no_type_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                       lines: list[str]) -> None:
    """A module constant has no docstring of its own; do not show its type's
    (``float.__doc__`` for ``SLACK = 1e-12``). The pages describe them."""
    if what in ("data", "attribute") and not isinstance(obj, type):
        own = inspect.getdoc(type(obj))
        if own and "\n".join(lines).strip() == own.strip():
            lines.clear()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-skip-member", _skip_generated)
    app.connect("autodoc-process-docstring", _no_type_docstring, priority=400)  # before numpydoc
    app.connect("missing-reference", _resolve_top_level)
    app.connect("include-read", _included_links)
    app.connect("source-read", _page_links)
    app.add_directive("command-help", CommandHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
