"""The checks of a :class:`~fastrank.BinnedSummary`'s arguments: bins, edges,
declared values, a range; whether two summaries' bins are the same."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core import inputs
from .._core.inputs import as_array, readonly
from .._core.options import check_count
from .values import lookup


def check_bins(bins: Any, item_bytes: int = 0) -> int:
    """A number of bins; with ``item_bytes`` (what each holds), refused where they
    could not fit in memory."""
    return check_count(bins, "bins", item_bytes=item_bytes)


def check_edges(edges: Any) -> np.ndarray:
    e = np.array(as_array(edges, "edges"), dtype=np.float64, copy=True)
    if e.ndim not in (1, 2) or e.shape[-1] < 2:
        raise ValueError(
            f"edges must be 1-D (shared) or 2-D (one row per task) with at least 2 edges; "
            f"got shape {e.shape}"
        )
    if np.isnan(e).any():
        raise ValueError("edges contain NaN")
    padded = e.ndim == 2
    e = e if padded else e[None, :]
    for row in e:
        # a per-task row may end in repeated +inf: empty bins that pad it to the
        # table's width, as BinnedSummary.fit makes
        top = row.shape[0]
        while padded and top > 2 and row[top - 1] == np.inf and row[top - 2] == np.inf:
            top -= 1
        real = row[:top]
        if not np.isfinite(real[1:-1]).all():
            raise ValueError(
                "only the first and last edge may be infinite (a row of 2-D edges may end "
                "in repeated +inf, which are empty bins)"
            )
        with np.errstate(invalid="ignore"):
            if not (np.diff(real) > 0).all():
                raise ValueError("edges must be strictly increasing")
    return readonly(np.ascontiguousarray(e))


def check_values(values: Any) -> np.ndarray:
    """Declared values: sorted, distinct, finite, in a canonical dtype (float64 for
    floats and bools, int64 or uint64 for integers, kept exactly)."""
    v = as_array(values, "values")
    if v.ndim != 1 or v.shape[0] == 0:
        raise ValueError(f"values must be a non-empty 1-D list; got shape {v.shape}")
    if v.dtype.kind not in "biuf":
        raise TypeError(f"values must be real numbers; got dtype {v.dtype}")
    v = inputs.canonical_scores(v, "values")
    if v.dtype.kind == "f":
        v = v.astype(np.float64)
        if not np.isfinite(v).all():
            raise ValueError("values must be finite")
    u = np.unique(v)  # sorted; -0.0 and 0.0 are one value
    if u.shape[0] != v.shape[0]:
        raise ValueError("values must be distinct")
    return readonly(np.ascontiguousarray(u))


def same_values(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    if a.shape != b.shape:
        return False
    if a.dtype == b.dtype:
        return bool(np.array_equal(a, b))
    return bool(lookup(a, b)[1].all())  # the same values in other dtypes




def check_range(r: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in r)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"range must be two numbers (low, high); got {r!r}") from exc
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"range must be finite with low < high; got {r!r}")
    if not math.isfinite(hi - lo):
        raise ValueError(f"range {r!r} is too wide for float64 arithmetic")
    return lo, hi
