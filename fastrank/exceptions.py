"""Warnings fastrank emits."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np


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


def warn_undefined_tasks(
    metrics: str,
    mode: str,
    pos: Any,
    neg: Any,
    undefined: Any,
    average: str | None,
    *,
    stacklevel: int = 2,
) -> None:
    """Emit the one warning of a batched call some of whose tasks are undefined.

    ``pos``/``neg`` are the per-task totals and ``undefined`` the mask of
    tasks whose value is NaN; ``mode`` names the tasks (tasks, classes, groups).
    """
    total = len(pos)
    left_out = "" if average is None else f" and left out of the {average!r} average"
    if total == 0:
        if average is not None:
            warnings.warn(
                f"{metrics} undefined: there are no {mode} to average; returning NaN",
                UndefinedMetricWarning,
                stacklevel=stacklevel + 1,
            )
        return
    count = int(np.count_nonzero(undefined))
    if count == 0:
        return
    no_pos = int(np.count_nonzero(undefined & (pos == 0)))
    no_neg = count - no_pos
    parts = []
    if no_pos:
        parts.append(f"{no_pos} without positive samples")
    if no_neg:
        parts.append(f"{no_neg} without negative samples")
    warnings.warn(
        f"{metrics} undefined for {count} of {total} {mode} ({', '.join(parts)}); "
        f"they are NaN{left_out}",
        UndefinedMetricWarning,
        stacklevel=stacklevel + 1,
    )
