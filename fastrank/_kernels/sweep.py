"""One pass over the tie-group table computes every scalar metric.

Groups arrive in descending score order with their positive count ``dp`` and
negative count ``dn`` (int64) or weights (float64), read from a group source
(:func:`.groups.next_group`: a stored table or the sorted keys themselves).
:func:`sweep_groups` keeps its running state in a small array, so a sweep can
also be fed in parts, and :func:`sweep_finish` turns the state into results. Running totals
``TP``/``FP`` are plain running sums, like scikit-learn's cumulative sums
(exact integers when unweighted); every area is accumulated with Neumaier's
compensated summation in float64. The formulas are those of METRICS.md:

* AP     = sum_k dTP_k * TP_k / (TP_k + FP_k) / P
* AUC    = sum_k dFP_k * (TP_{k-1} + TP_k) / (2 P N)   (trapezoid = Mann-Whitney)
* pAUC   = the same area for FPR <= max_fpr, cut by linear interpolation,
  then McClish-standardised
* PR AUC = exact area under the Davis-Goadrich interpolated PR curve, in closed
  form per segment (one ``log1p`` per segment; consecutive groups without
  negatives are one segment, because interpolation at constant FP does not
  depend on the points in between)
* PRBE   = interpolated TP where TP + FP reaches P, over P
* tie-expected AP: each group's expected contribution over random orders
  inside the group, with harmonic sums in closed form (O(1) per group).
"""

from __future__ import annotations

import math

from .groups import next_group
from .jit import kernel

# Layout of the result vector written by :func:`sweep_metrics`.
OUT_POS = 0
OUT_NEG = 1
OUT_AP = 2
OUT_AP_EXPECTED = 3
OUT_AUC = 4
OUT_AUC_PARTIAL = 5
OUT_PR_AUC = 6
OUT_PRBE = 7
OUT_SIZE = 8

# Optional parts of the sweep (bit flags of its ``what`` argument).
WANT_PR_AUC = 1
WANT_EXPECTED_AP = 2

# Layout of the sweep state carried between chunks.
ST_TP = 0
ST_FP = 1
ST_AP = 2  # sum, compensation
ST_EXPECTED = 4
ST_AUC = 6
ST_PARTIAL = 8
ST_PARTIAL_OPEN = 10
ST_PR = 11
ST_RUN_TP0 = 13
ST_PRBE_FOUND = 14
ST_PRBE_TP = 15
ST_TP_FIRST_NEG = 16  # TP above the first group holding a negative (-1: none yet)
ST_DP_FIRST_NEG = 17  # positives in that group
ST_FP_FIRST_POS = 18  # FP above the first group holding a positive (-1: none yet)
ST_DN_FIRST_POS = 19  # negatives in that group
ST_SIZE = 20
# Keys carried in the uint64 state: the PRBE group and the last group seen.
SK_PRBE = 0
SK_LAST = 1
SK_SIZE = 2

_DIRECT_HARMONIC = 64
BLOCK = 64  # groups summed plainly before a compensated addition
DENSE_POSITIVES = 0.25  # from this share of positives on, no branch around the AP term


@kernel
def _add(s: float, c: float, x: float) -> tuple[float, float]:
    """Neumaier step: add ``x`` to the sum ``s`` with running compensation ``c``."""
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@kernel
def _unit(x: float) -> float:
    """Clamp to [0, 1]."""
    return min(max(x, 0.0), 1.0)


@kernel
def log1p(x: float) -> float:
    """``log(1 + x)`` for ``x >= 0``; a short series where ``math.log1p`` is overkill.

    Late in a sweep most PR segments are short relative to what lies above
    them, so ``x`` is tiny; below 1e-3 the series through ``x^6`` is exact to
    a relative 1.5e-19.
    """
    if x < 1e-3:
        return x * (1.0 - x * (0.5 - x * (1.0 / 3.0 - x * (0.25 - x * (0.2 - x / 6.0)))))
    return math.log1p(x)


@kernel
def harmonic_diff(a: int, b: int) -> float:
    """``sum(1 / j for j in a+1 .. b)`` for integers ``0 <= a < b``, to full precision.

    Short ranges are summed directly (smallest terms first); long ones use the
    digamma difference ``psi(b + 1) - psi(a + 1)`` from its asymptotic series,
    written as differences so that nothing cancels.
    """
    if b - a <= _DIRECT_HARMONIC:
        s = 0.0
        for j in range(b, a, -1):
            s += 1.0 / j
        return s
    s = 0.0
    lo = a
    if a < _DIRECT_HARMONIC:
        for j in range(_DIRECT_HARMONIC, a, -1):
            s += 1.0 / j
        lo = _DIRECT_HARMONIC
    x = lo + 1.0
    y = b + 1.0
    d = float(b - lo)
    x2 = 1.0 / (x * x)
    y2 = 1.0 / (y * y)
    series = (
        d / (2.0 * x * y)
        + (x2 - y2) / 12.0
        - (x2 * x2 - y2 * y2) / 120.0
        + (x2 * x2 * x2 - y2 * y2 * y2) / 252.0
        - (x2 * x2 * x2 * x2 - y2 * y2 * y2 * y2) / 240.0
    )
    return s + (math.log1p(d / x) + series)


@kernel
def expected_ap_group(p0: float, r0: float, q: float, m: float) -> float:
    """Expected sum of precisions at the ``q`` positives of a tie group of ``m``.

    ``r0`` samples, ``p0`` of them positive, rank above the group. Averaged over
    all orders inside the group, the j-th sample of the group is positive with
    probability q/m and, if so, has ``p0 + 1 + (j-1)(q-1)/(m-1)`` positives
    among the ``r0 + j`` samples up to it.
    """
    if m == 1.0:
        return (p0 + 1.0) / (r0 + 1.0)
    c = (q - 1.0) / (m - 1.0)
    h = harmonic_diff(int(r0), int(r0 + m))
    return (q / m) * ((p0 + 1.0 - c * (1.0 + r0)) * h + c * m)


@kernel
def pr_run_area(t0: float, t1: float, f: float) -> float:
    """P times the PR area while TP grows from ``t0`` to ``t1`` at constant FP ``f``.

    Precision along the way is ``t / (t + f)``; its integral over t is
    ``(t1 - t0) - f * log((t1 + f) / (t0 + f))``.
    """
    if f == 0.0:
        return t1 - t0
    return (t1 - t0) - f * log1p((t1 - t0) / (t0 + f))


@kernel
def pr_segment_area(t0: float, f0: float, dp: float, dn: float) -> float:
    """P times the PR area of one interpolated segment with ``dp > 0`` and ``dn > 0``.

    From (TP, FP) = (t0, f0), TP and FP grow together by (dp, dn). With
    ``s = dp + dn`` the integral of ``t / (t + f0 + (dn/dp)(t - t0))`` is
    ``dp^2/s - (f0 dp - dn t0) dp / s^2 * log1p(s / (t0 + f0))``; from the
    origin the precision is constant, ``dp / s``.
    """
    s = dp + dn
    m0 = t0 + f0
    if m0 == 0.0:
        return dp * dp / s
    return dp * dp / s - (f0 * dp - dn * t0) * dp / (s * s) * log1p(s / m0)


@kernel
def sweep_start(st, sk, max_fpr):
    """Reset the state for a new task."""
    st[:] = 0.0
    sk[:] = 0
    st[ST_PARTIAL_OPEN] = 1.0 if max_fpr < 1.0 else 0.0
    st[ST_TP_FIRST_NEG] = -1.0
    st[ST_FP_FIRST_POS] = -1.0


@kernel
def sweep_groups(src, begin, end, pos, neg, max_fpr, what, st, sk):
    """Advance the sweep over the groups of ``src`` from ``begin`` to ``end``.

    ``pos``/``neg`` are the task's positive and negative totals (needed up
    front by the break-even point and the partial AUC). ``what`` holds
    ``WANT_*`` flags for the optional parts: the PR AUC (one ``log1p`` per
    segment) and the tie-expected AP (unweighted counts only).
    """
    want_pr = (what & WANT_PR_AUC) != 0
    expected = (what & WANT_EXPECTED_AP) != 0
    fp_stop = max_fpr * neg  # partial AUC: FP budget on the count scale
    every_term = pos >= DENSE_POSITIVES * (pos + neg)
    tp = st[ST_TP]
    fp = st[ST_FP]
    ap_s = st[ST_AP]
    ap_c = st[ST_AP + 1]
    ex_s = st[ST_EXPECTED]
    ex_c = st[ST_EXPECTED + 1]
    auc_s = st[ST_AUC]
    auc_c = st[ST_AUC + 1]
    pa_s = st[ST_PARTIAL]
    pa_c = st[ST_PARTIAL + 1]
    pa_open = st[ST_PARTIAL_OPEN] != 0.0
    pr_s = st[ST_PR]
    pr_c = st[ST_PR + 1]
    run_tp0 = st[ST_RUN_TP0]  # TP where the current run of negative-free groups began
    prbe_found = st[ST_PRBE_FOUND] != 0.0
    tp_first_neg = st[ST_TP_FIRST_NEG]
    dp_first_neg = st[ST_DP_FIRST_NEG]
    fp_first_pos = st[ST_FP_FIRST_POS]
    dn_first_pos = st[ST_DN_FIRST_POS]
    # Terms are summed plainly within blocks of BLOCK groups and each block
    # sum is added to the compensated total: the accuracy of compensated
    # summation at the cost of plain summation.
    i = begin
    k = sk[SK_LAST]
    while i != end:
        ap_blk = 0.0
        auc_blk = 0.0
        ex_blk = 0.0
        pa_blk = 0.0
        pr_blk = 0.0
        for _ in range(BLOCK):
            if i == end:
                break
            k, gp, gn, i = next_group(src, i)
            dp = float(gp)
            dn = float(gn)
            tp1 = tp + dp
            fp1 = fp + dn
            auc_blk += dn * (tp + tp1)  # zero for a group without negatives
            # The AP term is zero for a group without positives. When positives
            # are rare, skipping its division pays; when they are common, the
            # branch would be unpredictable, so every group computes it.
            if every_term or dp > 0.0:
                term = dp * (tp1 / (tp1 + fp1))
                ap_blk += term
                if expected:
                    if dp + dn == 1.0:  # no tie: the expectation is the AP term itself
                        ex_blk += term
                    elif dp > 0.0:
                        ex_blk += expected_ap_group(tp, tp + fp, dp, dp + dn)
            if pa_open and dn > 0.0:
                if fp1 <= fp_stop:
                    pa_blk += dn * (tp + tp1)
                else:
                    width = fp_stop - fp
                    tp_cut = tp + dp * (width / dn)
                    pa_blk += width * (tp + tp_cut)
                    pa_open = False
            if want_pr and dn > 0.0:
                if tp > run_tp0:
                    pr_blk += pr_run_area(run_tp0, tp, fp)
                if dp > 0.0:
                    pr_blk += pr_segment_area(tp, fp, dp, dn)
                run_tp0 = tp1
            if tp_first_neg < 0.0 and dn > 0.0:
                tp_first_neg = tp
                dp_first_neg = dp
            if fp_first_pos < 0.0 and dp > 0.0:
                fp_first_pos = fp
                dn_first_pos = dn
            if not prbe_found and tp1 + fp1 >= pos and pos > 0.0:
                prbe_found = True
                st[ST_PRBE_TP] = tp + (pos - (tp + fp)) * (dp / (dp + dn))
                sk[SK_PRBE] = k
            tp = tp1
            fp = fp1
        ap_s, ap_c = _add(ap_s, ap_c, ap_blk)
        auc_s, auc_c = _add(auc_s, auc_c, auc_blk)
        ex_s, ex_c = _add(ex_s, ex_c, ex_blk)
        pa_s, pa_c = _add(pa_s, pa_c, pa_blk)
        pr_s, pr_c = _add(pr_s, pr_c, pr_blk)
    sk[SK_LAST] = k
    st[ST_TP] = tp
    st[ST_FP] = fp
    st[ST_AP] = ap_s
    st[ST_AP + 1] = ap_c
    st[ST_EXPECTED] = ex_s
    st[ST_EXPECTED + 1] = ex_c
    st[ST_AUC] = auc_s
    st[ST_AUC + 1] = auc_c
    st[ST_PARTIAL] = pa_s
    st[ST_PARTIAL + 1] = pa_c
    st[ST_PARTIAL_OPEN] = 1.0 if pa_open else 0.0
    st[ST_PR] = pr_s
    st[ST_PR + 1] = pr_c
    st[ST_RUN_TP0] = run_tp0
    st[ST_PRBE_FOUND] = 1.0 if prbe_found else 0.0
    st[ST_TP_FIRST_NEG] = tp_first_neg
    st[ST_DP_FIRST_NEG] = dp_first_neg
    st[ST_FP_FIRST_POS] = fp_first_pos
    st[ST_DN_FIRST_POS] = dn_first_pos


@kernel
def sweep_finish(st, sk, max_fpr, what, out):
    """Write the results (layout ``OUT_*``) of a finished sweep into ``out``.

    Areas are normalised by the final running totals, as scikit-learn does.
    """
    tp = st[ST_TP]
    fp = st[ST_FP]
    pr = st[ST_PR] + st[ST_PR + 1]
    run_tp0 = st[ST_RUN_TP0]
    want_pr = (what & WANT_PR_AUC) != 0
    if want_pr and tp > run_tp0:
        pr += pr_run_area(run_tp0, tp, fp)
    if st[ST_PRBE_FOUND] == 0.0:
        # Rounding of weighted totals only: the break-even is at the very end.
        st[ST_PRBE_TP] = tp
        sk[SK_PRBE] = sk[SK_LAST]
    nan = math.nan
    has_pos = tp > 0.0
    has_both = has_pos and fp > 0.0
    expected = (what & WANT_EXPECTED_AP) != 0
    # Perfect and reversed separation are decided exactly, not by rounded
    # sums: every positive above every negative (or the other way round).
    # (``tp`` stops growing after the last positive, so the equality is exact.)
    perfect = has_pos and (
        fp == 0.0 or (st[ST_TP_FIRST_NEG] == tp and st[ST_DP_FIRST_NEG] == 0.0)
    )
    reversed_ = has_both and st[ST_FP_FIRST_POS] == fp and st[ST_DN_FIRST_POS] == 0.0
    # Otherwise every metric lies in [0, 1]; weighted sums can round one ulp past it.
    out[OUT_POS] = tp
    out[OUT_NEG] = fp
    if not has_pos:
        out[OUT_AP] = nan
        out[OUT_AP_EXPECTED] = nan
        out[OUT_PR_AUC] = nan
        out[OUT_PRBE] = nan
    elif perfect:
        out[OUT_AP] = 1.0
        out[OUT_AP_EXPECTED] = 1.0 if expected else nan
        out[OUT_PR_AUC] = 1.0 if want_pr else nan
        out[OUT_PRBE] = 1.0
    else:
        out[OUT_AP] = _unit((st[ST_AP] + st[ST_AP + 1]) / tp)
        ex = st[ST_EXPECTED] + st[ST_EXPECTED + 1]
        out[OUT_AP_EXPECTED] = _unit(ex / tp) if expected else nan
        out[OUT_PR_AUC] = _unit(pr / tp) if want_pr else nan
        out[OUT_PRBE] = _unit(st[ST_PRBE_TP] / tp)
    if not has_both:
        auc = nan
    elif perfect:
        auc = 1.0
    elif reversed_:
        auc = 0.0
    else:
        auc = _unit((st[ST_AUC] + st[ST_AUC + 1]) / (2.0 * tp * fp))
    out[OUT_AUC] = auc
    if max_fpr < 1.0 and has_both:
        if perfect:
            area = max_fpr
        elif reversed_:
            area = 0.0
        else:
            area = (st[ST_PARTIAL] + st[ST_PARTIAL + 1]) / (2.0 * tp * fp)
        min_area = 0.5 * max_fpr * max_fpr
        out[OUT_AUC_PARTIAL] = _unit(0.5 * (1.0 + (area - min_area) / (max_fpr - min_area)))
    else:
        out[OUT_AUC_PARTIAL] = auc
