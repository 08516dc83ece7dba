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

import math

import numpy as np

from .jit import b1, f64, helper, i64, kernel, ro, rw, u8
from .sweep import harmonic_diff

_harmonic = helper(harmonic_diff)


@helper
def _add(s, c, x):
    """Neumaier step: add ``x`` to the sum ``s`` with running compensation ``c``."""
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c

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


def uniform_edges(lo: float, hi: float, nb: int) -> np.ndarray:
    """The edges of ``nb`` uniform bins over ``[lo, hi]``: ``k * ((hi - lo) / nb) + lo``
    (numpy's ``linspace`` for a step that is not 0), ``hi`` last, as :func:`bin_of`
    computes them."""
    e = np.arange(nb + 1, dtype=np.float64) * ((hi - lo) / nb) + lo
    e[-1] = hi
    return e


@helper
def bin_of(v: float, lo: float, step: float, nb: int, edges: np.ndarray, t: int,
           mode: int) -> int:
    """The bin of score ``v`` of task ``t``; out-of-range scores go to the end bins.

    Uniform bins (``step``: the range's width over ``nb``) hold ``[edges[k],
    edges[k + 1])`` of the edges the summary reports, ``k * step + lo``
    (:func:`uniform_edges`; ``hi`` last), computed here rather than read: ``(v - lo)
    / step`` gives the bin but for some scores on or next to an edge (the roundings
    differ), which a step or so corrects, so that a score on an edge is counted where
    a threshold at that edge counts it. (A step of 0, a range of a few subnormals:
    every edge but the last is ``lo``, every score in the last bin.)
    """
    if mode == MODE_UNIFORM:
        x = (v - lo) / step if step > 0.0 else float(nb)
        if x <= 0.0:
            b = 0
        elif x >= nb:
            b = nb - 1
        else:
            b = int(x)
        while b + 1 < nb and (b + 1) * step + lo <= v:
            b += 1
        while b > 0 and b * step + lo > v:
            b -= 1
        return b
    lo_i = 0
    hi_i = nb - 1
    while lo_i < hi_i:  # the last interior edge at or below v
        mid = (lo_i + hi_i + 1) >> 1
        if edges[t, mid] <= v:
            lo_i = mid
        else:
            hi_i = mid - 1
    return lo_i


_HIST = [(ro(v), ro(u8), ro(f64), i64, i64, i64, i64, i64, i64, ro(f64), ro(f64), i64,
          ro(f64, 2), rw(f64, 3)) for v in (f64, i64)]


@kernel(_HIST)
def histogram_block(values, labels, weights, ntasks, row0, row1, t0, t1, mode, lo, width, nb,
                    edges, counts):
    """Add rows ``row0..row1`` of tasks ``t0..t1`` of a row-major batch to ``counts``.

    ``values`` holds scores (float64) or, with :data:`MODE_INDEX`, bin indices
    (int64), and ``labels`` the 0/1 labels, both flat in row-major order;
    ``weights`` one weight per row, or nothing. ``lo``/``width`` (uniform
    bins) and ``edges`` (explicit edges) hold one row per task, or a single
    row that every task shares. The caller runs it on disjoint task ranges,
    or on row ranges into separate tables, in parallel.
    """
    weighted = weights.shape[0] > 0
    shared_range = lo.shape[0] == 1
    shared_edges = edges.shape[0] == 1
    step0 = width[0] / nb if mode == MODE_UNIFORM else 0.0  # (a shared range's, once)
    for tb in range(t0, t1, TASK_BLOCK):  # a block's tables stay in cache over all rows
        te = min(tb + TASK_BLOCK, t1)
        for i in range(row0, row1):
            w = weights[i] if weighted else 1.0
            base = i * ntasks
            for t in range(tb, te):
                if mode == MODE_INDEX:
                    b = int(values[base + t])
                else:
                    r = 0 if shared_range else t
                    step = step0 if shared_range else width[r] / nb
                    b = bin_of(np.float64(values[base + t]), lo[r], step, nb, edges,
                               0 if shared_edges else t, mode)
                counts[t, labels[base + t], b] += w


@helper
def _log1p_ratio(num: float, den: float) -> float:
    """``log1p(num / den)`` for ``num, den > 0``, also where the ratio overflows."""
    x = num / den
    if x < np.inf:
        return math.log1p(x)
    return math.log(num) - math.log(den)


@helper
def _run_area(t0: float, t1: float, f: float) -> float:
    """``t1 - t0 - f * log1p((t1 - t0) / (t0 + f))``, the integral of ``t / (t + f)``
    over ``[t0, t1]`` (:func:`~fastrank._kernels.sweep.pr_run_area`), without its
    cancellation when ``f`` dwarfs the run.

    With ``c = t0 + f`` and ``x = (t1 - t0) / c`` small it is
    ``(t1 - t0) t0 / c + (t1 - t0) (f / c) (x - log1p(x)) / x``, a sum of two
    non-negative terms (the series of ``x - log1p(x)`` through ``x**7``): so a
    positive mass far below the negatives' (classes of very different weight
    scales) gives a tiny area, never its own mass.
    """
    dt = t1 - t0
    if f == 0.0:
        return dt
    c = t0 + f
    x = dt / c
    if x < 1e-3:
        tail = x * (0.5 - x * (1.0 / 3.0 - x * (0.25 - x * (0.2 - x * (1.0 / 6.0 - x / 7.0)))))
        return dt * (t0 / c) + (dt * (f / c)) * tail
    return dt - f * _log1p_ratio(dt, c)


@helper
def _segment_area(t0: float, f0: float, dp: float, dn: float) -> float:
    """:func:`~fastrank._kernels.sweep.pr_segment_area` (``dp > 0``, ``dn > 0``)
    without its cancellation when the segment is short beside what lies above it,
    and without squares of masses (which overflow where the classes' weights are
    far apart).

    With ``m0 = t0 + f0``, ``s = dp + dn`` and ``x = s / m0`` small, the area is
    ``dp t0 / m0 + dp (f0 dp - dn t0) / (s m0) * (x - log1p(x)) / x``: its two
    terms never cancel, so a positive mass far below the negatives' above it
    gives its true, tiny area.
    """
    s = dp + dn
    m0 = t0 + f0
    if m0 == 0.0:  # from the origin the precision is constant
        return dp * (dp / s)
    x = s / m0
    if x < 1e-3:
        h = x * (0.5 - x * (1.0 / 3.0 - x * (0.25 - x * (0.2 - x * (1.0 / 6.0 - x / 7.0)))))
        return dp * (t0 / m0) + dp * ((f0 / m0) * (dp / s) - (t0 / m0) * (dn / s)) * h
    # the closed form, with no product of two masses (they may be far from 1)
    return dp * (dp / s) - (f0 * (dp / s) - t0 * (dn / s)) * (dp / s) * _log1p_ratio(s, m0)


@helper
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
        return _run_area(a, a + p, f + n)
    return p - (f + n) * _harmonic(int(c), int(c + p))


@kernel([(rw(f64, 3), b1, rw(f64, 2))])
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
                # precision first, then the mass: no product of two masses to underflow
                ap[0], ap[1] = _add(ap[0], ap[1], p * ((a + p) / (a + f + p + n)))
                ap[2], ap[3] = _add(ap[2], ap[3], _ap_low(a, f, p, n, integral))
                ap[4], ap[5] = _add(ap[4], ap[5], p * ((a + p) / (a + f + p)))
                est = _segment_area(a, f, p, n) if n > 0.0 else _run_area(a, a + p, f)
                pr[0], pr[1] = _add(pr[0], pr[1], est)
                pr[2], pr[3] = _add(pr[2], pr[3], _run_area(a, a + p, f + n))
                pr[4], pr[5] = _add(pr[4], pr[5], _run_area(a, a + p, f))
            m0 = a + f
            if np.isnan(be[0]) and pos > 0.0 and m0 + p + n >= pos:
                d = pos - m0
                be[0] = a + d * (p / (p + n))
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
    "histogram_block",
]
