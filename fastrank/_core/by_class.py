"""A task's scores split by class and each class sorted: what the sweep reads.

A task is computed by splitting its scores by class (the split kernel, which
also checks every score), sorting each class, and merging the two from the
top (the sweep). A NaN or infinite score found on the way raises
:class:`NonFinite`, which the entry points turn into the error naming it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernels.tasks import split
from .inputs import SPECS, Spec, nonfinite_error, readonly
from .sorting import sort_class, sort_weighted
from .workspace import EMPTY_F, EMPTY_FW, carve, scratch


class Classes(NamedTuple):
    """One score range of a task, split by class (each sorted ascending once sorted).

    Sorted int64 scores are held as uint64 with the sign bit flipped (the order of
    the integers, as unsigned ones): the sweep kernels then have one variant for
    every 64-bit integer, and ``flip`` is that bit (0 otherwise), which the sweep
    turns its keys back with (:func:`~fastrank._kernels.sweep.sweep_classes`).
    """

    p: np.ndarray
    q: np.ndarray
    pw: np.ndarray  # weights (empty unweighted)
    qw: np.ndarray
    flip: np.uint64 = np.uint64(0)


_SIGN = np.uint64(1 << 63)
NO_FLIP = np.uint64(0)


def swept(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype the sweep kernels read scores of ``dtype`` as (int64: uint64)."""
    return np.dtype(np.uint64) if dtype == np.int64 else dtype


def for_sweep(a: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """Sorted scores as the sweep kernels read them, in place, and their ``flip``:
    int64 as uint64 with the sign bit flipped (ascending still), others as they are."""
    if a.dtype != np.int64:
        return a, np.uint64(0)
    u = a.view(np.uint64)
    u ^= _SIGN
    return u, _SIGN


def split_classes(values: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, npos: int,
           slot: str) -> Classes:
    """Scores (with labels and weights) by class, unsorted, in scratch ``slot``."""
    n = values.shape[0]
    weighted = weights is not None
    bits_dt = SPECS[values.dtype].bits
    nbytes = (n + 2) * values.itemsize + (2 * (n + 2) * 8 if weighted else 0) + 256
    buf = scratch(slot, nbytes)
    p, at = carve(buf, 0, npos + 1, values.dtype)  # + 1: the split's slack slot
    q, at = carve(buf, at, n - npos + 1, values.dtype)
    pw = qw = EMPTY_FW
    if weighted:
        pw, at = carve(buf, at, npos + 1, np.float64)
        qw, at = carve(buf, at, n - npos + 1, np.float64)
    counts = np.empty(2, np.int64)
    split(readonly(values.view(bits_dt)), readonly(labels),
          readonly(weights) if weights is not None else EMPTY_F, 0, n, p.view(bits_dt),
           q.view(bits_dt),
          pw, qw, counts)
    m, k = int(counts[0]), int(counts[1])
    if weighted:
        return Classes(p[:m], q[:k], pw[:m], qw[:k])
    return Classes(p[:m], q[:k], EMPTY_FW, EMPTY_FW)


def sort_classes(c: Classes, spec: Spec, weighted: bool) -> Classes:
    """Sort both classes in place; a NaN or infinity then sits at an end of its class."""
    if weighted:
        sort_weighted(c.p, c.pw, spec)
        sort_weighted(c.q, c.qw, spec)
    else:
        sort_class(c.p, spec)
        sort_class(c.q, spec)
    if spec.kind == 0:
        for a in (c.p, c.q):
            if a.shape[0] and not (np.isfinite(a[0]) and np.isfinite(a[-1])):
                raise NonFinite
    if c.p.dtype != np.int64:
        return c
    (p, flip), (q, _) = for_sweep(c.p), for_sweep(c.q)
    return Classes(p, q, c.pw, c.qw, flip)


class NonFinite(Exception):
    """A NaN or infinite score was found (the public error names its index)."""


def raise_nonfinite(values: np.ndarray, shape: tuple[int, ...] | None = None,
                     offset: int = 0) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    i = int(bad[0])
    raise nonfinite_error(values[i], i + offset, shape or values.shape) from None


def sorted_range(values: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 npos: int) -> Classes:
    """One score range split by class and sorted, in fresh arrays (to keep, or ship)."""
    spec = SPECS[values.dtype]
    n = values.shape[0]
    weighted = weights is not None
    p = np.empty(npos + 1, values.dtype)
    q = np.empty(n - npos + 1, values.dtype)
    pw = np.empty(npos + 1 if weighted else 0)
    qw = np.empty(n - npos + 1 if weighted else 0)
    counts = np.empty(2, np.int64)
    split(readonly(values.view(spec.bits)), readonly(labels),
          readonly(weights) if weights is not None else EMPTY_F, 0, n, p.view(spec.bits),
           q.view(spec.bits),
          pw, qw, counts)
    m, k = int(counts[0]), int(counts[1])
    c = Classes(p[:m], q[:k], pw[:m] if weighted else EMPTY_FW,
                qw[:k] if weighted else EMPTY_FW)
    try:
        return sort_classes(c, spec, weighted)
    except NonFinite:
        raise_nonfinite(values)
        raise  # unreachable
