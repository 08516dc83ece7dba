"""Errors and warnings several modules word alike: an error located where it
happened, the one warning of an undefined curve or readout."""

from __future__ import annotations

import warnings

from ..exceptions import UndefinedMetricWarning


def located(exc: Exception, where: str) -> Exception:
    """The same kind of error, its message prefixed with where it happened."""
    try:
        return type(exc)(f"{where}: {exc}")
    except Exception:  # an exception type with another signature
        return exc


def warn_undefined(message: str, level: int = 3) -> None:
    """One UndefinedMetricWarning at the line ``level`` frames up (3: the caller of the
    public function that calls this)."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=level)
