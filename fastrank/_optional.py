"""Optional dependencies, imported only when a feature needs them."""

from __future__ import annotations

import importlib
from types import ModuleType

# module -> (pip requirement, fastrank extra that installs it)
_PACKAGES = {
    "pandas": ("pandas", "tables"),
    "matplotlib": ("matplotlib", "plot"),
    "pyarrow": ("pyarrow", "parquet"),
    "dask": ("'dask[array,dataframe]'", "dask"),
    "torch": ("torch", "torch"),
    "torchmetrics": ("torchmetrics", "torch"),
}


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` or raise an ``ImportError`` that says how to install it.

    ``feature`` names what needed it, e.g. ``"evaluation tables"``.
    """
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package, extra = _PACKAGES.get(top, (top, None))
        hint = f"pip install {package}"
        if extra is not None:
            hint += f" (or pip install 'fastrank-metrics[{extra}]')"
        raise ImportError(f"{feature} need {package}, which is not installed: {hint}") from exc
