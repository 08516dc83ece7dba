"""One task too large for one machine, swept in score ranges.

The scores are split into disjoint score ranges (a tie group never spans
two), each range is grouped on its own worker, and :func:`range_sweep` sweeps
its tie groups starting from the true-positive and false-positive totals of
all higher ranges. Every sum the sweep keeps (AP, AUC, partial AUC, PR AUC,
tie-expected AP) is additive over consecutive stretches of groups, so the
ranges' states combine into the state of one sweep over the whole task
(:func:`fastrank.distributed.combine_ranges`), which :func:`.sweep.sweep_finish`
then turns into the metrics.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel
from .sweep import (
    ST_FP,
    ST_PARTIAL_OPEN,
    ST_RUN_TP0,
    ST_TP,
    sweep_groups,
    sweep_start,
)


@kernel
def range_sweep(gkey: np.ndarray, gpos: np.ndarray, gneg: np.ndarray, tp0: float, fp0: float,
                pos: float, neg: float, max_fpr: float, what: int, st: np.ndarray,
                sk: np.ndarray) -> None:
    """Sweep one range's tie groups (descending keys) below ``tp0`` positives and
    ``fp0`` negatives; ``pos``/``neg`` are the whole task's totals."""
    sweep_start(st, sk, max_fpr)
    st[ST_TP] = tp0
    st[ST_FP] = fp0
    st[ST_RUN_TP0] = tp0  # a run of negative-free groups starts at the range's top
    if max_fpr < 1.0 and fp0 > max_fpr * neg:
        st[ST_PARTIAL_OPEN] = 0.0
    d = gkey.shape[0]
    if d:
        sweep_groups((gkey, gpos, gneg), 0, d, pos, neg, max_fpr, what, st, sk)


LINEAR_BOUNDS = 32  # up to this many bounds, a linear count beats a binary search


@kernel
def range_partition(values: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                    bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of one chunk grouped by score range, in input order within each range.

    Range ``r`` holds the scores ``v`` with ``bounds[r - 1] <= v < bounds[r]``
    (compared as float64). Returns the row order, the start of each range in
    it (``len(bounds) + 2`` entries), and each range's negative and positive
    totals (``weights`` per row, or 1 when it is empty).
    """
    n = values.shape[0]
    nb = bounds.shape[0]
    nr = nb + 1
    weighted = weights.shape[0] > 0
    which = np.empty(n, np.int64)
    starts = np.zeros(nr + 1, np.int64)
    counts = np.zeros((nr, 2), np.float64)
    for i in range(n):
        v = np.float64(values[i])
        if nb <= LINEAR_BOUNDS:  # few bounds: count them without branches
            lo = 0
            for k in range(nb):
                lo += bounds[k] <= v
        else:
            lo = 0
            hi = nb
            while lo < hi:  # the number of bounds at or below v
                mid = (lo + hi) >> 1
                if bounds[mid] <= v:
                    lo = mid + 1
                else:
                    hi = mid
        which[i] = lo
        starts[lo + 1] += 1
        counts[lo, labels[i]] += weights[i] if weighted else 1.0
    for r in range(nr):
        starts[r + 1] += starts[r]
    order = np.empty(n, np.int64)
    fill = starts[:nr].copy()
    for i in range(n):
        r = which[i]
        order[fill[r]] = i
        fill[r] += 1
    return order, starts, counts
