"""One incoming batch of the streaming objects, checked and put in canonical form.

:class:`fastrank.Accumulator` and :class:`fastrank.BinnedSummary` take batches
one at a time, 1-D (one task) or ``(n_samples, n_tasks)``, possibly empty.
These helpers turn a batch into flat, row-major canonical arrays and raise,
naming the row and task, before anything is stored.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kernels.batch import SAMPLE_MAJOR
from ._kernels.keys import first_nonfinite
from ._validation import KEYS, WIDEN, as_array, check_labels, native
from .batch import _dense_labels, _is_sparse, _sparse_labels


def where(i: int, ndim: int, t: int) -> str:
    if ndim == 1:
        return f"index {i}"
    row, task = divmod(i, t)
    return f"row {row}, task {task}"


def check_finite(v: np.ndarray, ndim: int, t: int) -> None:
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"y_score contains a non-finite value ({v[i]!r} at {where(i, ndim, t)}); "
            "scores must be finite"
        )


def canonical_scores(s: np.ndarray, name: str) -> np.ndarray:
    """Scores as a flat, row-major array of a canonical dtype (exact widening)."""
    dtype = s.dtype
    if dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers (float, int or bool); got dtype {dtype}")
    a = native(s)
    if a.dtype not in KEYS:
        wide = a.astype(WIDEN.get(a.dtype.char, np.dtype(np.float64)))
        if dtype.kind == "f" and dtype.itemsize > 8 and not np.array_equal(wide, a):
            raise TypeError(
                f"{name} has dtype {dtype}, whose values do not all fit float64 exactly; "
                "convert them to float64 yourself"
            )
        a = wide
    return np.ascontiguousarray(a).reshape(-1)


def first_nonfinite_score(flat: np.ndarray) -> int:
    """Index of the first NaN or infinite value of canonical scores, or -1."""
    spec = KEYS[flat.dtype]
    if not spec[4]:
        return -1
    return int(first_nonfinite(flat.view(spec[0]), spec[4]))


def batch_labels(y_true: Any, ndim: int, n: int, t: int, pos_label: Any) -> np.ndarray:
    """0/1 uint8 labels, flat in row-major order (2-D: a dense or sparse label matrix)."""
    if ndim == 1:
        labels, _ = check_labels(y_true, n, pos_label)
        return labels
    if _is_sparse(y_true):
        ptr, idx = _sparse_labels(y_true, n, t, pos_label)
        dense = np.zeros((n, t), np.uint8)
        cols = np.repeat(np.arange(t), np.diff(ptr))
        dense[idx, cols] = 1
        return dense.reshape(-1)
    y = as_array(y_true, "y_true")
    if y.ndim != 2:
        raise ValueError(f"y_true must have the shape of y_score {(n, t)}; got shape {y.shape}")
    if n == 0:
        if y.shape != (0, t):
            raise ValueError(f"y_true and y_score have different shapes: {y.shape} and {(n, t)}")
        return np.zeros(0, np.uint8)
    return _dense_labels(y, n, t, pos_label, SAMPLE_MAJOR)
