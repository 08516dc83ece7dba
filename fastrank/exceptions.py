"""Warnings fastrank emits."""

from __future__ import annotations

import warnings


class UndefinedMetricWarning(RuntimeWarning):
    """A metric is undefined for a task (one class only) and was returned as NaN."""


def warn_undefined(metrics: str, npos: float, nneg: float, *, stacklevel: int = 2) -> None:
    """Emit the one warning of a call whose task lacks a class.

    ``stacklevel=2`` attributes it to the caller of the public function that
    calls this.
    """
    missing = "positive" if npos == 0 else "negative"
    if npos == 0 and nneg == 0:
        missing = "positive or negative (all weights are zero)"
    warnings.warn(
        f"{metrics} undefined for 1 of 1 task(s): no {missing} samples; returning NaN",
        UndefinedMetricWarning,
        stacklevel=stacklevel + 1,
    )
