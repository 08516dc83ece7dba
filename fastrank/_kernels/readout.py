"""Readouts of tie tables: operating points and partial areas.

An operating point or a partial area reads one task's cumulative counts at
its distinct scores (FP and TP at or above each threshold, highest score
first; float64, any units): the tables the curves are drawn from.
:func:`read_tables` computes one readout for every task of a list of such
tables laid end to end, in one call: a batch of a thousand tasks costs one
call, not a thousand rounds of numpy.

Each readout's rule (which cutoff wins ties, how a target inside a tie group
is met) is documented with its public function in :mod:`fastrank.readouts`.
The arithmetic here is that function's formula, operation for operation.
Where a table has a start point, it is the virtual point before the first
threshold (FP = TP = 0, threshold ``+inf``): index 0 below, and table entry
``i - 1`` is point ``i``.
"""

from __future__ import annotations

import math

from .jit import f64, helper, i64, kernel, ro, rw

# What to read (``kind``)
RD_SENS_AT_SPEC = 0
RD_SPEC_AT_SENS = 1
RD_RECALL_AT_PRECISION = 2
RD_PRECISION_AT_RECALL = 3
RD_ROC_BOX = 4
RD_PR_RANGE = 5
RD_BEST = 6  # the best cutoff by a criterion

# Criteria of RD_BEST (``params[P_CRITERION]``)
CR_YOUDEN = 0
CR_TOPLEFT = 1
CR_F = 2  # F-beta, beta squared in params[P_BETA2]
CR_MCC = 3

# Parameters (``params``), by position
P_BOUND = 0  # operating points: the bound; PR range: its low end
P_INTERPOLATE = 1  # operating points: 1.0 to interpolate inside tie groups
P_X0 = 2  # ROC box: FPR range, TPR range
P_X1 = 3
P_Y0 = 4
P_Y1 = 5
P_CORRECT = 6  # ROC box: 1.0 for McClish's standardisation
P_DIAGONAL = 7  # ... the chance diagonal's area in the box and the box's area
P_FULL = 8
P_HIGH = 9  # PR range: its high end
P_CRITERION = 10  # best cutoff: the criterion (CR_*), beta squared, pROC's weight ratio
P_BETA2 = 11
P_RATIO = 12
P_SIZE = 13

# Why a task has no value (``index`` below -1; -1 is the start point, threshold inf)
NO_POSITIVES = -2
NO_NEGATIVES = -3
BELOW_CHANCE = -4  # McClish: the area lies below the diagonal's

_BELOW = 0.5 - 1e-12  # beyond the rounding of a curve on the diagonal


@helper
def _at(a, base, i):
    """Point ``i`` (0: the start) of the table at ``a[base:]``."""
    return 0.0 if i == 0 else a[base + i - 1]


@helper
def _sens_at_spec(fp, tp, base, m, bound, interpolate, value, index, j):
    neg = _at(fp, base, m)
    pos = _at(tp, base, m)
    last = 0  # the start (flag nothing) always qualifies; specificity falls along the table
    while last < m and (neg - _at(fp, base, last + 1)) / neg >= bound:
        last += 1
    t_last = _at(tp, base, last)
    k = last  # of equal sensitivity, the most specific
    while k > 0 and _at(tp, base, k - 1) >= t_last:
        k -= 1
    best = _at(tp, base, k) / pos
    if interpolate and last + 1 <= m:
        f0 = _at(fp, base, last)
        f1 = _at(fp, base, last + 1)
        if f1 > f0:  # along the next group's line FP grows to (1 - bound) * neg
            share = ((1.0 - bound) * neg - f0) / (f1 - f0)
            inside = (t_last + min(max(share, 0.0), 1.0) * (_at(tp, base, last + 1) - t_last)) \
                / pos
            if inside > best:
                value[j] = inside
                index[j] = last
                return
    value[j] = best
    index[j] = k - 1


@helper
def _spec_at_sens(fp, tp, base, m, bound, interpolate, value, index, j):
    neg = _at(fp, base, m)
    pos = _at(tp, base, m)
    k = 0
    while k < m and not _at(tp, base, k) / pos >= bound:  # the last point always qualifies
        k += 1
    if interpolate and k > 0:
        t0 = _at(tp, base, k - 1)
        t1 = _at(tp, base, k)
        if t1 > t0 and t0 / pos < bound:
            share = (bound * pos - t0) / (t1 - t0)
            f0 = _at(fp, base, k - 1)
            f1 = _at(fp, base, k)
            fp_at = f0 + min(max(share, 0.0), 1.0) * (f1 - f0)
            if fp_at < f1:  # the group holds negatives: flagging part of it spares some
                value[j] = (neg - fp_at) / neg
                index[j] = k - 1
                return
    f_k = _at(fp, base, k)
    while k < m and _at(fp, base, k + 1) <= f_k:  # of equal specificity, the most sensitive
        k += 1
    value[j] = (neg - _at(fp, base, k)) / neg
    index[j] = k - 1


@helper
def _recall_at_precision(fp, tp, base, m, bound, interpolate, value, index, j):
    pos = _at(tp, base, m)
    last = -1  # the last cutoff whose precision meets the bound
    for i in range(1, m + 1):
        t = _at(tp, base, i)
        if t / (t + _at(fp, base, i)) >= bound:
            last = i
    best = 0.0
    at = -1  # none: recall 0, flag nothing
    if last > 0:  # the most recall; of equal recall, the best precision (fewest FP)
        t_last = _at(tp, base, last)
        k = last
        while k > 1 and _at(tp, base, k - 1) >= t_last:
            k -= 1
        best = _at(tp, base, k) / pos
        at = k - 1
    if interpolate:
        # Inside group k, flagging a share a of it: TP = tp0 + a dp of n0 + a g flagged;
        # precision is monotone in a, so where the group starts at or above the bound
        # and ends below it, the bound is met at a = (bound n0 - tp0) / (dp - bound g).
        top = -1.0
        top_k = -1
        for k in range(1, m + 1):
            tp0 = _at(tp, base, k - 1)
            n0 = tp0 + _at(fp, base, k - 1)
            t1 = _at(tp, base, k)
            n1 = t1 + _at(fp, base, k)
            dp = t1 - tp0
            g = n1 - n0
            start = tp0 / n0 if n0 > 0 else dp / g  # at a -> 0: the group's own precision
            if start >= bound and t1 / n1 < bound and dp > 0:
                share = (bound * n0 - tp0) / (dp - bound * g)
                if share > 0:
                    r = (tp0 + min(max(share, 0.0), 1.0) * dp) / pos
                    if r > top:
                        top = r
                        top_k = k
        if top_k > 0 and top > best:
            value[j] = top
            index[j] = top_k - 1
            return
    value[j] = best
    index[j] = at


@helper
def _precision_at_recall(fp, tp, base, m, bound, interpolate, value, index, j):
    pos = _at(tp, base, m)
    first = m  # the first cutoff whose recall meets the bound (the last always does)
    while first > 1 and _at(tp, base, first - 1) / pos >= bound:
        first -= 1
    best = -1.0
    k_best = first
    for i in range(first, m + 1):  # of equal precision, the most recall
        t = _at(tp, base, i)
        p = t / (t + _at(fp, base, i))
        if p >= best:
            best = p
            k_best = i
    if interpolate:
        need = bound * pos
        t0 = _at(tp, base, first - 1)
        t1 = _at(tp, base, first)
        if t0 < need < t1:  # TP reaches bound * pos inside group ``first``
            f0 = _at(fp, base, first - 1)
            f1 = _at(fp, base, first)
            share = (need - t0) / (t1 - t0)
            # TP there is ``need`` itself: FP alone interpolated, so that a group without
            # negatives keeps precision 1 (t0 + share (t1 - t0) rounded past need: 1 + 2**-52)
            at = need / (need + (f0 + share * (f1 - f0)))
            if at > best:
                value[j] = at
                index[j] = first - 1
                return
    value[j] = best
    index[j] = k_best - 1


@helper
def _cut_piece(x0, x1, y0, y1, a, b, lo, hi):
    """The area inside the box under the piece (x0, y0) -> (x1, y1), cut where its line
    crosses the box's edges; between cuts the clipped line is linear."""
    dx = x1 - x0
    dy = y1 - y0
    c0 = 0.0
    c1 = 1.0
    c2 = (a - x0) / dx if dx > 0 else 0.0
    c3 = (b - x0) / dx if dx > 0 else 0.0
    c4 = (lo - y0) / dy if dy > 0 else 0.0
    c5 = (hi - y0) / dy if dy > 0 else 0.0
    # The six cuts clipped into [0, 1] and put in order (insertion by hand: no
    # containers, which cost compile time), then five sub-pieces.
    s0 = min(max(c0, 0.0), 1.0)
    s1 = min(max(c1, 0.0), 1.0)
    s2 = min(max(c2, 0.0), 1.0)
    s3 = min(max(c3, 0.0), 1.0)
    s4 = min(max(c4, 0.0), 1.0)
    s5 = min(max(c5, 0.0), 1.0)
    s0, s1 = min(s0, s1), max(s0, s1)
    s2, s3 = min(s2, s3), max(s2, s3)
    s4, s5 = min(s4, s5), max(s4, s5)
    s0, s2 = min(s0, s2), max(s0, s2)
    s1, s3 = min(s1, s3), max(s1, s3)
    s0, s4 = min(s0, s4), max(s0, s4)
    s1, s5 = min(s1, s5), max(s1, s5)
    s2, s4 = min(s2, s4), max(s2, s4)
    s3, s5 = min(s3, s5), max(s3, s5)
    s1, s2 = min(s1, s2), max(s1, s2)
    s3, s4 = min(s3, s4), max(s3, s4)
    s2, s3 = min(s2, s3), max(s2, s3)
    return (_sub_piece(x0, dx, y0, dy, s0, s1, a, b, lo, hi)
            + _sub_piece(x0, dx, y0, dy, s1, s2, a, b, lo, hi)
            + _sub_piece(x0, dx, y0, dy, s2, s3, a, b, lo, hi)
            + _sub_piece(x0, dx, y0, dy, s3, s4, a, b, lo, hi)
            + _sub_piece(x0, dx, y0, dy, s4, s5, a, b, lo, hi))


@helper
def _sub_piece(x0, dx, y0, dy, t0, t1, a, b, lo, hi):
    """The trapezoid of the piece between fractions ``t0`` and ``t1`` of it, clipped."""
    xa = min(max(x0 + t0 * dx, a), b)  # clipped into [a, b]: outside, zero width
    xb = min(max(x0 + t1 * dx, a), b)
    ya = min(max(y0 + t0 * dy, lo), hi) - lo
    yb = min(max(y0 + t1 * dy, lo), hi) - lo
    return (xb - xa) * (ya + yb) * 0.5


@helper
def _first(a, base, lo, hi, den, bound, strict):
    """The first point ``k`` of ``lo .. hi - 1`` whose ``a / den`` is above ``bound``
    (``strict``) or at least it, ``hi`` when none is (the points' values rise)."""
    while lo < hi:
        mid = (lo + hi) // 2
        v = _at(a, base, mid) / den
        if v > bound or (not strict and v == bound):
            hi = mid
        else:
            lo = mid + 1
    return lo


@helper
def _roc_box(fp, tp, base, m, params, value, index, j):
    """The ROC area inside the box, raw or McClish-standardised (the pieces of the
    polyline that meet the box's FPR range: a run below the TPR range, a run inside
    it, a run above it; only the two ends of the run inside can cross an edge)."""
    neg = fp[base + m - 1]
    pos = tp[base + m - 1]
    a = params[P_X0]
    b = params[P_X1]
    lo = params[P_Y0]
    hi = params[P_Y1]
    # Points 0 .. m: x = FP / neg, y = TP / pos (point 0 the start), pieces 0 .. m - 1;
    # x and y rise with the point, so each edge is found by bisection.
    i0 = _first(fp, base, 1, m, neg, a, True) - 1  # the first piece with x1 > a (or m - 1)
    i1 = _first(fp, base, i0, m, neg, b, False)  # the first piece with x0 >= b (or m)
    j_lo = _first(tp, base, 1, m, pos, lo, True) - 1  # the first piece with y1 > lo
    s = min(max(i0, j_lo), i1)  # pieces i0 .. s - 1 lie below the box
    e = _first(tp, base, s, i1, pos, hi, False)  # pieces e .. i1 - 1 lie above it
    total = 0.0
    if e < i1:
        xe = min(max(_at(fp, base, e) / neg, a), b)
        xi = min(max(_at(fp, base, i1) / neg, a), b)
        total += (hi - lo) * (xi - xe)
    if s < e:
        total += _cut_piece(_at(fp, base, s) / neg, _at(fp, base, s + 1) / neg,
                            _at(tp, base, s) / pos, _at(tp, base, s + 1) / pos, a, b, lo, hi)
    if e - s > 1:
        total += _cut_piece(_at(fp, base, e - 1) / neg, _at(fp, base, e) / neg,
                            _at(tp, base, e - 1) / pos, _at(tp, base, e) / pos, a, b, lo, hi)
    if s + 1 < e - 1:  # the pieces between the two ends lie inside the box
        x0 = _at(fp, base, s + 1) / neg  # each point's x and y formed once
        y0 = _at(tp, base, s + 1) / pos
        for i in range(s + 1, e - 1):
            x1 = _at(fp, base, i + 1) / neg
            y1 = _at(tp, base, i + 1) / pos
            total += (x1 - x0) * (y0 + y1 - 2.0 * lo) * 0.5
            x0 = x1
            y0 = y1
    index[j] = -1
    if params[P_CORRECT] == 0.0:
        value[j] = total
        return
    diagonal = params[P_DIAGONAL]
    full = params[P_FULL]
    area = 0.5 * (1.0 + (total - diagonal) / (full - diagonal))
    value[j] = area
    if area < _BELOW:
        index[j] = BELOW_CHANCE


@helper
def _pr_range(fp, tp, base, m, params, value, index, j):
    """P times the area under the interpolated PR curve for TP in [low P, high P], over P.

    Along a group's piece (TP from t0 to t0 + dp, FP from f0 growing h = dn / dp per
    positive) precision is t / (a t + b) with a = 1 + h and b = f0 - h t0, whose
    integral from u to v is (v - u) / a - (b / a^2) log((a v + b) / (a u + b)).
    """
    pos = tp[base + m - 1]
    t_lo = params[P_BOUND] * pos
    t_hi = params[P_HIGH] * pos
    total = 0.0
    for k in range(1, m + 1):
        t0 = _at(tp, base, k - 1)
        f0 = _at(fp, base, k - 1)
        t1 = _at(tp, base, k)
        dp = t1 - t0
        u = max(t0, t_lo)
        v = min(t1, t_hi)
        if not (dp > 0 and v > u):
            continue  # groups without positives add no recall and no area
        h = (_at(fp, base, k) - f0) / dp
        a = 1.0 + h
        b = f0 - h * t0
        # a piece starting at TP 0 has b = 0 (the first group): constant precision 1 / a
        base_ = a * u + b
        lg = math.log1p(a * (v - u) / (base_ if base_ > 0 else 1.0)) if b != 0.0 else 0.0
        total += (v - u) / a - (b / (a * a)) * lg
    value[j] = total / pos
    index[j] = -1


@helper
def criterion(f, t, pos, neg, crit, beta2, ratio):
    """Criterion ``crit`` at a cutoff with ``f`` FP and ``t`` TP at or above it, of
    ``pos`` positives and ``neg`` negatives (larger is better): the formulas of
    :func:`fastrank.readouts.criterion_values`, operation for operation, so the
    same floats."""
    if crit == CR_YOUDEN or crit == CR_TOPLEFT:
        sens = t / pos
        spec = (neg - f) / neg
        if crit == CR_YOUDEN:
            return sens + ratio * spec - 1.0
        a = 1.0 - sens
        c = 1.0 - spec
        return -(a * a + ratio * (c * c))
    fn = pos - t
    tn = neg - f
    if crit == CR_F:
        return (1.0 + beta2) * t / ((1.0 + beta2) * t + beta2 * fn + f) if t > 0 else 0.0
    denom = math.sqrt((t + f) * (tn + fn)) * math.sqrt((t + fn) * (tn + f))
    # (the two roots' product may round below |t tn - f fn|: held to [-1, 1])
    return min(max((t * tn - f * fn) / denom, -1.0), 1.0) if denom > 0 else 0.0


TIE_ROUNDING = 2.0 ** -48  # criteria this close (times 1 + r for Youden's) count as tied


@helper
def _best_cut(fp, tp, base, m, params, value, index, j):
    """The entry where the criterion is largest and its value there. Cutoffs whose
    values differ by rounding only (:data:`TIE_ROUNDING`; equal in exact arithmetic,
    e.g. 1/2 + 4/6 - 1 and 1 + 1/6 - 1) are tied, and the first (highest) wins.
    Flagging nothing (index -1, threshold inf) wins where it is better beyond that
    (Youden's J with pROC's weights giving r > 1: r - 1, where each cutoff gave
    less; the corner's with r < 1)."""
    pos = tp[base + m - 1]
    neg = fp[base + m - 1]
    crit = int(params[P_CRITERION])
    beta2 = params[P_BETA2]
    ratio = params[P_RATIO]
    best = criterion(fp[base], tp[base], pos, neg, crit, beta2, ratio)
    for k in range(1, m):
        best = max(best, criterion(fp[base + k], tp[base + k], pos, neg, crit, beta2, ratio))
    scale = 1.0 + ratio if crit == CR_YOUDEN or crit == CR_TOPLEFT else 1.0
    none = criterion(0.0, 0.0, pos, neg, crit, beta2, ratio)  # flag nothing: threshold inf
    if none > best + TIE_ROUNDING * scale:  # (Youden's J and the corner's with r != 1 only)
        value[j] = none
        index[j] = -1
        return
    floor = best - TIE_ROUNDING * scale
    for k in range(m):
        c = criterion(fp[base + k], tp[base + k], pos, neg, crit, beta2, ratio)
        if c >= floor:
            value[j] = c
            index[j] = k
            return


_READ = [(ro(f64), ro(f64), ro(i64), ro(i64), i64, i64, i64, ro(f64), rw(f64), rw(i64))]


@kernel(_READ)
def read_tables(fp, tp, starts, sizes, lo, hi, kind, params, value, index):
    """Readout ``kind`` (``RD_*``, options in ``params``) of tables ``lo .. hi``: table
    ``j`` is ``fp[starts[j]:starts[j] + sizes[j]]`` (cumulative FP) with its TP
    (tables may lie apart, as a batch kernel leaves them). Writes
    ``value[j]`` and ``index[j]``: the table entry whose threshold goes with the
    value (-1: the start, threshold ``+inf``; partial areas: -1), or why the task
    has none (``NO_POSITIVES``, ``NO_NEGATIVES``, ``BELOW_CHANCE``; ``value`` NaN).
    """
    needs_negatives = kind != RD_RECALL_AT_PRECISION and kind != RD_PRECISION_AT_RECALL \
        and kind != RD_PR_RANGE
    bound = params[P_BOUND]
    interpolate = params[P_INTERPOLATE] != 0.0
    for j in range(lo, hi):
        base = starts[j]
        m = sizes[j]
        if m == 0 or not tp[base + m - 1] > 0:
            value[j] = math.nan
            index[j] = NO_POSITIVES
            continue
        if needs_negatives and not fp[base + m - 1] > 0:
            value[j] = math.nan
            index[j] = NO_NEGATIVES
            continue
        if kind == RD_SENS_AT_SPEC:
            _sens_at_spec(fp, tp, base, m, bound, interpolate, value, index, j)
        elif kind == RD_SPEC_AT_SENS:
            _spec_at_sens(fp, tp, base, m, bound, interpolate, value, index, j)
        elif kind == RD_RECALL_AT_PRECISION:
            _recall_at_precision(fp, tp, base, m, bound, interpolate, value, index, j)
        elif kind == RD_PRECISION_AT_RECALL:
            _precision_at_recall(fp, tp, base, m, bound, interpolate, value, index, j)
        elif kind == RD_ROC_BOX:
            _roc_box(fp, tp, base, m, params, value, index, j)
        elif kind == RD_BEST:
            _best_cut(fp, tp, base, m, params, value, index, j)
        else:
            _pr_range(fp, tp, base, m, params, value, index, j)
        if index[j] < -1:
            value[j] = math.nan


__all__ = ["read_tables"]
