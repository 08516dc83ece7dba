"""Kernels of the bounded-memory summaries: per-bin label counts and certified bounds.

A summary keeps, for every task ``t`` and bin ``b``, the negative and positive
totals ``counts[t, 0, b]`` and ``counts[t, 1, b]`` (float64: counts or weight
sums). Bins are in increasing score order. Scores reach a bin either through
uniform edges (one multiply) or through explicit edges (a binary search); both
maps are non-decreasing in the score, which is all the bounds rely on.

:func:`bounds` sweeps the bins of each task from the highest down and computes,
for ROC AUC, AP, PR AUC and PRBE, the value that the bins give when each bin is
one tie group (the estimate), and the least and greatest value that any data
with the same per-bin counts can have (the certified bounds). METRICS.md and
:mod:`fastrank.summaries` state the formulas.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .jit import inline_kernel, kernel, parallel_kernel
from .sweep import _add, harmonic_diff, pr_run_area, pr_segment_area

MODE_UNIFORM = 0  # bin = floor((score - lo) * nb / width), clamped to [0, nb - 1]
MODE_EDGES = 1  # bin = the last b with edges[t, b] <= score, clamped to [0, nb - 1]
MODE_INDEX = 2  # the caller passes bin indices (quantized scores, declared values)

TASK_BLOCK = 4  # tasks counted together, row after row

# columns of the bounds table, one row per task
B_POS = 0
B_NEG = 1
B_AUC = 2  # estimate, low, high
B_AP = 5
B_PR_AUC = 8
B_PRBE = 11
B_SIZE = 14


@inline_kernel
def bin_of(v: float, lo: float, width: float, nb: int, edges: np.ndarray, t: int,
           mode: int) -> int:
    """The bin of score ``v`` of task ``t``; out-of-range scores go to the end bins.

    Uniform bins divide by the range's ``width`` rather than multiply by its
    inverse, so that a score on an edge ``lo + k * width / nb`` that is exact
    in float64 lands in bin ``k``.
    """
    if mode == MODE_UNIFORM:
        x = (v - lo) * nb / width
        if x <= 0.0:
            return 0
        if x >= nb:
            return nb - 1
        return int(x)
    lo_i = 0
    hi_i = nb - 1
    while lo_i < hi_i:  # the last interior edge at or below v
        mid = (lo_i + hi_i + 1) >> 1
        if edges[t, mid] <= v:
            lo_i = mid
        else:
            hi_i = mid - 1
    return lo_i


@kernel
def range_scan(values: np.ndarray, ntasks: int, lo: np.ndarray, hi: np.ndarray,
               outside: np.ndarray) -> tuple[int, int]:
    """Check a flat, row-major batch of scores against each task's range.

    Returns the flat index of the first non-finite score and of the first
    score outside ``[lo[t], hi[t]]`` (-1 when none) and adds the number of
    scores outside to ``outside[t]``.
    """
    first_bad = -1
    first_out = -1
    n = values.shape[0] // ntasks
    for i in range(n):
        base = i * ntasks
        for t in range(ntasks):
            v = np.float64(values[base + t])
            if v - v != 0.0:  # NaN or infinite
                return base + t, first_out
            if v < lo[t] or v > hi[t]:
                outside[t] += 1
                if first_out < 0:
                    first_out = base + t
    return first_bad, first_out


@kernel
def histogram_block(values: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                    ntasks: int, row0: int, row1: int, t0: int, t1: int, mode: int,
                    lo: np.ndarray, width: np.ndarray, nb: int, edges: np.ndarray,
                    counts: np.ndarray) -> None:
    """Add rows ``row0..row1`` of tasks ``t0..t1`` of a row-major batch to ``counts``.

    ``values`` holds scores (or bin indices with :data:`MODE_INDEX`) and
    ``labels`` the 0/1 labels, both flat in row-major order; ``weights`` one
    weight per row, or nothing.
    """
    weighted = weights.shape[0] > 0
    for tb in range(t0, t1, TASK_BLOCK):  # a block's tables stay in cache over all rows
        te = min(tb + TASK_BLOCK, t1)
        for i in range(row0, row1):
            w = weights[i] if weighted else 1.0
            base = i * ntasks
            for t in range(tb, te):
                if mode == MODE_INDEX:
                    b = int(values[base + t])
                else:
                    b = bin_of(np.float64(values[base + t]), lo[t], width[t], nb, edges, t,
                               mode)
                counts[t, labels[base + t], b] += w


@kernel
def histogram_serial(values: np.ndarray, labels: np.ndarray, weights: np.ndarray, n: int,
                     ntasks: int, mode: int, lo: np.ndarray, width: np.ndarray, nb: int,
                     edges: np.ndarray, counts: np.ndarray, nchunks: int) -> None:
    """:func:`histogram_parallel` on the calling thread (same counts when unweighted)."""
    histogram_block(values, labels, weights, ntasks, 0, n, 0, ntasks, mode, lo, width, nb,
                    edges, counts)


@parallel_kernel
def histogram_parallel(values: np.ndarray, labels: np.ndarray, weights: np.ndarray, n: int,
                       ntasks: int, mode: int, lo: np.ndarray, width: np.ndarray, nb: int,
                       edges: np.ndarray, counts: np.ndarray, nchunks: int) -> None:
    """Add a batch to ``counts`` on ``nchunks`` threads.

    With at least as many tasks as chunks, each chunk owns a range of tasks
    and adds to ``counts`` directly. With fewer (one task, say), each chunk
    counts a range of rows into its own table, and the tables are summed in
    chunk order.
    """
    if ntasks >= nchunks:
        for c in prange(nchunks):
            histogram_block(values, labels, weights, ntasks, 0, n, c * ntasks // nchunks,
                            (c + 1) * ntasks // nchunks, mode, lo, width, nb, edges, counts)
        return
    private = np.zeros((nchunks, ntasks, 2, nb), np.float64)
    for c in prange(nchunks):
        histogram_block(values, labels, weights, ntasks, c * n // nchunks,
                        (c + 1) * n // nchunks, 0, ntasks, mode, lo, width, nb, edges,
                        private[c])
    for c in range(nchunks):
        for t in range(ntasks):
            for k in range(2):
                for b in range(nb):
                    counts[t, k, b] += private[c, t, k, b]


@kernel
def _ap_low(a: float, f: float, p: float, n: float, integral: bool) -> float:
    """The least sum of precisions of ``p`` positives in a bin with ``n`` negatives.

    ``a`` positives and ``f`` negatives rank above the bin. Every positive's
    precision is at least ``(a + x) / (a + f + n + x)`` with ``x`` the
    positive mass up to it, which the negatives-first, untied order attains:
    a harmonic sum for unit counts, an integral (a lower bound of any
    weighting) otherwise.
    """
    c = a + f + n
    if f + n == 0.0:
        return p
    if integral:
        return pr_run_area(a, a + p, f + n)
    return p - (f + n) * harmonic_diff(int(c), int(c + p))


@kernel
def bounds(counts: np.ndarray, integral: bool, out: np.ndarray) -> None:
    """Estimate and certified bounds of every metric of every task (one row per task).

    Sweeping the bins from the highest, with ``a`` positives and ``f``
    negatives above a bin holding ``p`` positives and ``n`` negatives:

    * ROC AUC: the bin's pairs count 1/2 in the estimate, 0 in the low and 1
      in the high bound;
    * AP: the estimate gives each positive the precision below the whole bin;
      the high bound ``p (a + p) / (a + f + p)`` is all positives tied above
      the negatives; the low bound is :func:`_ap_low`;
    * PR AUC: the path through the bin lies between FP = f (positives first)
      and FP = f + n (negatives first), which bound the precision pointwise;
    * PRBE: TP at predicted mass P, when that mass falls in the bin, lies
      between negatives-first and positives-first.
    """
    ntasks = counts.shape[0]
    nb = counts.shape[2]
    for t in range(ntasks):
        pos = 0.0  # summed in the sweep's order, so the sweep ends at exactly P
        neg = 0.0
        for b in range(nb - 1, -1, -1):
            neg += counts[t, 0, b]
            pos += counts[t, 1, b]
        a = 0.0
        f = 0.0
        below = 0.0  # sum n * a: pairs ranked right for sure
        below_c = 0.0
        tied = 0.0  # sum n * p: pairs inside a bin
        tied_c = 0.0
        ap = np.zeros(6)  # estimate, low, high, each with its compensation
        pr = np.zeros(6)
        be = np.full(3, np.nan)
        for b in range(nb - 1, -1, -1):
            p = counts[t, 1, b]
            n = counts[t, 0, b]
            if p == 0.0 and n == 0.0:
                continue
            below, below_c = _add(below, below_c, n * a)
            tied, tied_c = _add(tied, tied_c, n * p)
            if p > 0.0:
                ap[0], ap[1] = _add(ap[0], ap[1], p * (a + p) / (a + f + p + n))
                ap[2], ap[3] = _add(ap[2], ap[3], _ap_low(a, f, p, n, integral))
                ap[4], ap[5] = _add(ap[4], ap[5], p * (a + p) / (a + f + p))
                est = pr_segment_area(a, f, p, n) if n > 0.0 else pr_run_area(a, a + p, f)
                pr[0], pr[1] = _add(pr[0], pr[1], est)
                pr[2], pr[3] = _add(pr[2], pr[3], pr_run_area(a, a + p, f + n))
                pr[4], pr[5] = _add(pr[4], pr[5], pr_run_area(a, a + p, f))
            m0 = a + f
            if np.isnan(be[0]) and pos > 0.0 and m0 + p + n >= pos:
                d = pos - m0
                be[0] = a + p * d / (p + n)
                be[1] = a + max(0.0, d - n)
                be[2] = a + min(p, d)
            a += p
            f += n
        if np.isnan(be[0]) and pos > 0.0:  # rounding kept the mass just below P
            be[:] = a
        row = out[t]
        row[B_POS] = pos
        row[B_NEG] = neg
        pairs = pos * neg
        lo_pairs = below + below_c
        in_bins = tied + tied_c
        row[B_AUC] = (lo_pairs + 0.5 * in_bins) / pairs
        row[B_AUC + 1] = lo_pairs / pairs
        row[B_AUC + 2] = (lo_pairs + in_bins) / pairs
        for k in range(3):
            row[B_AP + k] = (ap[2 * k] + ap[2 * k + 1]) / pos
            row[B_PR_AUC + k] = (pr[2 * k] + pr[2 * k + 1]) / pos
            row[B_PRBE + k] = be[k] / pos


__all__ = [
    "B_AP",
    "B_AUC",
    "B_NEG",
    "B_POS",
    "B_PRBE",
    "B_PR_AUC",
    "B_SIZE",
    "MODE_EDGES",
    "MODE_INDEX",
    "MODE_UNIFORM",
    "bounds",
    "histogram_parallel",
    "histogram_serial",
    "range_scan",
]
