"""The package's shape, read from its source with ``ast`` (nothing is imported).

* No module imports another fastrank module's private name (``_x``), by a
  relative or an absolute import, nor reads one as ``module._x``: a helper two
  modules share gets a public name, in a private module where it is not for
  users (``fastrank/_core``, ``fastrank/_kernels``). Dunders (``__version__``)
  and private submodules (``from . import _optional``) are not private names.
* No module is longer than :data:`MAX_LINES` lines: a longer one holds more
  than one idea, and is split along them (``docs/architecture.md`` maps the
  modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "fastrank"
MAX_LINES = 1200


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(dotted: str, root: Path = PACKAGE) -> bool:
    """Whether ``dotted`` (``fastrank.x.y``) is a module or package of the tree."""
    rel = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    base = root / rel
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(path: Path, root: Path = PACKAGE) -> list[str]:
    """Each private name ``path`` takes from another fastrank module, as
    ``'file:line: name from module'``."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    top = root.name
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    modules: dict[str, str] = {}  # local names bound to fastrank modules -> the module
    where = path.relative_to(root.parent)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source != top and not source.startswith(top + "."):
                continue
            for alias in node.names:
                if is_module(f"{source}.{alias.name}", root):
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif private(alias.name) and source != me:
                    found.append(f"{where}:{node.lineno}: {alias.name} from {source}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == top or alias.name.startswith(top + "."):
                    name = alias.asname or alias.name.split(".")[0]
                    modules[name] = alias.name if alias.asname else top
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            value = node.value
            if isinstance(value, ast.Name) and value.id in modules:
                found.append(f"{where}:{node.lineno}: {value.id}.{node.attr}")
    return found


def sources(root: Path = PACKAGE) -> list[Path]:
    return sorted(root.rglob("*.py"))


def long_modules(root: Path = PACKAGE, limit: int = MAX_LINES) -> list[str]:
    out = []
    for path in sources(root):
        rel = path.relative_to(root).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append(f"{rel}: {lines} lines")
    return out


def test_no_private_name_crosses_modules() -> None:
    found = [x for path in sources() for x in private_imports(path)]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_modules_hold_one_idea_each() -> None:
    found = long_modules()
    assert not found, (f"modules over {MAX_LINES} lines (split them along their ideas):\n"
                       + "\n".join(found))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small package tree to check the checks against."""
    root = tmp_path / "fastrank"
    (root / "_core").mkdir(parents=True)
    (root / "__init__.py").write_text("from . import _optional\n__version__ = '1'\n")
    (root / "_optional.py").write_text("def _lazy(): pass\n")
    (root / "_core" / "__init__.py").write_text("")
    (root / "_core" / "helpers.py").write_text("def _hidden(): pass\ndef shown(): pass\n")
    return root


@pytest.mark.parametrize(("source", "bad"), [
    ("from ._core.helpers import _hidden\n", True),
    ("from fastrank._core.helpers import _hidden\n", True),
    ("from ._core.helpers import shown as _shown\n", False),
    ("from ._core import helpers\nhelpers._hidden()\n", True),
    ("import fastrank._core.helpers as h\nh._hidden()\n", True),
    ("from ._core import helpers\nhelpers.shown()\n", False),
    ("from . import _optional\nfrom ._core.helpers import shown\n", False),
    ("from .__init__ import __version__\n", False),
    ("def _mine(): pass\n_mine()\n", False),
])
def test_the_import_check_can_fail(tree: Path, source: str, bad: bool) -> None:
    path = tree / "user.py"
    path.write_text(source)
    assert bool(private_imports(path, tree)) is bad
    sub = tree / "_core" / "user.py"
    sub.write_text(source.replace("from ._core.", "from .").replace("from ._core ", "from . ")
                   .replace("from . import _optional", "from .. import _optional"))
    assert bool(private_imports(sub, tree)) is bad


def test_the_size_check_can_fail(tree: Path) -> None:
    (tree / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tree / "small.py").write_text("x = 1\n" * MAX_LINES)
    assert long_modules(tree) == [f"big.py: {MAX_LINES + 1} lines"]


def test_every_subpackage_is_in_the_distribution() -> None:
    """A wheel holds the packages pyproject.toml names: a subpackage it leaves out
    imports from a checkout (the tests' working directory) but not once installed."""
    import fnmatch
    import tomllib

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    listed = setuptools.get("packages")
    patterns = (setuptools["packages"]["find"]["include"] if isinstance(listed, dict)
                else listed)
    packages = [module_name(p, PACKAGE) for p in sorted(PACKAGE.rglob("__init__.py"))
                if "__pycache__" not in p.parts]
    assert len(packages) >= 3
    missing = [p for p in packages if not any(fnmatch.fnmatchcase(p, x) for x in patterns)]
    assert not missing, f"packages the wheel would leave out: {missing}"
