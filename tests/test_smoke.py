"""The README example and the worked blog case, end to end."""

import pytest

import fastrank


def test_blog_example_all_metrics() -> None:
    y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    y_score = [0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.4, 0.3]
    m = fastrank.all_metrics(y_true, y_score)
    assert m.average_precision == 0.775
    assert m.roc_auc == 0.725
    assert abs(m.pr_auc - 0.7733952088608519) < 1e-12
    assert m.prbe == 0.625
    assert m.prbe_threshold == 0.6
    assert abs(m.average_precision_expected - 0.79375) < 1e-12


def test_lazy_exports_name_every_public_object_and_module() -> None:
    """``import fastrank`` imports nothing heavy; its three lists of names agree."""
    import importlib
    import importlib.util
    import pkgutil

    exports = fastrank._EXPORTS  # type: ignore[attr-defined]
    assert sorted(fastrank.__all__) == sorted([*exports, "__version__"])
    for name, module in exports.items():
        defined = getattr(importlib.import_module(f"fastrank.{module}"), name)
        assert defined is getattr(fastrank, name)
    public = {m.name for m in pkgutil.iter_modules(fastrank.__path__) if not m.name.startswith("_")}
    assert public == set(fastrank._SUBMODULES)  # type: ignore[attr-defined]
    for name in public:
        if name == "torch" and importlib.util.find_spec("torch") is None:
            continue  # an optional extra; tests/test_torch.py checks it where installed
        assert getattr(fastrank, name) is importlib.import_module(f"fastrank.{name}")
    assert {n for n in dir(fastrank) if not n.startswith("__")} == {*exports, *public}
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fastrank.nope  # noqa: B018


def test_import_fastrank_loads_no_numpy_or_numba() -> None:
    import subprocess
    import sys

    code = ("import sys, fastrank; fastrank.__version__; "
            "print(sorted(m for m in ('numpy', 'numba', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_fastrank_never_imports_torch() -> None:
    """torch is an optional extra (fastrank.torch): the package and its lazy names load
    without it, and ``import fastrank.torch`` without torch says how to install it."""
    import subprocess
    import sys

    code = ("import sys, fastrank; fastrank.__version__; fastrank.roc_auc([0, 1], [0.1, 0.9]); "
            "fastrank.Accumulator; fastrank.BinnedSummary; dir(fastrank); "
            "print(sorted(m for m in ('torch', 'torchmetrics', 'lightning') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    code = "import sys; sys.modules['torch'] = None; import fastrank.torch"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: fastrank.torch's metric objects need torch, which is not installed: "
        "pip install torch (or pip install 'fastrank-metrics[torch]')")


def test_a_missing_dependency_is_one_clear_import_error() -> None:
    """Names load lazily, so a missing numba would otherwise surface only inside the
    first call; ``import fastrank`` says so at once."""
    import subprocess
    import sys

    code = "import sys; sys.modules['numba'] = None; import fastrank"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: fastrank needs numba, not installed here: pip install fastrank-metrics "
        "(or pip install numpy numba)")
