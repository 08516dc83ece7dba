"""The one sweep: every scalar metric from the tie groups, highest score first.

A task's tie groups (METRICS.md: a group is one distinct score with the
positives ``dp`` and negatives ``dn`` that hold it) come from a *builder*,
:func:`sweep_split` (the task's two classes, each sorted), or from a stored
table (counted ties, resamples, summaries, evaluation tables); both feed
:func:`sweep_table`, the only code that does metric arithmetic.

Exact sums, any order
---------------------
Every sum the sweep keeps is exact, so its value depends only on the groups,
never on how they were cut into calls, score ranges or threads:

* unweighted running totals ``TP``/``FP`` are integers; so are the ROC AUC's
  terms ``dFP * (TP_{k-1} + TP_k)``, summed in float64 while their total stays
  below 2**53, in fixed point beyond;
* every other term (the AP's ``dTP * TP / (TP + FP)``, the PR segments' closed
  forms, the tie-expected AP's group expectations, weighted AUC terms) is
  rounded to float64 once, from exact inputs, and added to a 128-bit
  fixed-point accumulator whose unit is 2**-124 of the largest value the sum
  can reach (:func:`fx_add`): integer additions, exact and associative;
* weighted, each group's weight is summed by the builder (in the order the
  sort left it) and the running totals ``TP``/``FP`` are fixed-point sums of
  the groups' weights, so they too depend on the groups only.

So a task may be swept in score ranges, each on its own thread, and the
ranges' states added (:func:`combine`): the result is bit for bit that of
one sweep over the whole task. The only quantity that crosses a range
boundary, the PR area of a run of negative-free groups, is handed to the
combine step (the *lead* and *run* fields of the state).

Arithmetic (the formulas of METRICS.md): AP = sum_k dTP_k TP_k / (TP_k + FP_k)
/ P; AUC = sum_k dFP_k (TP_{k-1} + TP_k) / (2 P N); pAUC the same area for
FPR <= max_fpr, cut by linear interpolation and McClish-standardised; PR AUC
the exact area under the Davis-Goadrich interpolated curve, in closed form per
segment (a run of negative-free groups is one segment); PRBE the interpolated
TP where TP + FP reaches P, over P; the tie-expected AP each group's expected
contribution over the orders inside it, harmonic sums in closed form.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import VALUES, b1, f64, helper, i64, kernel, rw, u64

# ---------------------------------------------------------------- state layout
# st (float64)
S_TP = 0  # running totals (weighted: the rounded fixed-point totals)
S_FP = 1
S_AUC = 2  # unweighted AUC and partial-AUC sums of exact integers
S_PA = 3
S_POS = 4  # the task's totals, known before the sweep
S_NEG = 5
S_MAX_FPR = 6
S_WHAT = 7  # WANT_* flags
S_WEIGHTED = 8
S_E_AREA = 9  # exponent of the unit of the AP, tie-expected AP and PR accumulators
S_E_AUC = 10  # ... of the fixed-point AUC and partial-AUC accumulators
S_E_TP = 11  # ... of the weighted running totals
S_E_FP = 12
S_FX_AUC = 13  # 1: the AUC sums go to the fixed-point accumulators
S_PA_OPEN = 14  # the partial AUC's FP budget is not used up
S_RUN = 15  # TP where the current run of negative-free groups began
S_LEAD_OPEN = 16  # no group with negatives yet in this range
S_LEAD_TP = 17  # TP where this range's first run ended (a group with negatives came)
S_LEAD_FP = 18  # FP along that run
S_PRBE_FOUND = 19
S_PRBE_TP = 20
S_TP_FIRST_NEG = 21  # TP above the first group holding a negative (-1: none yet)
S_DP_FIRST_NEG = 22  # positives in that group
S_FP_FIRST_POS = 23  # FP above the first group holding a positive (-1: none yet)
S_DN_FIRST_POS = 24  # negatives in that group
S_GROUPS = 25  # groups seen
S_PA_CUT = 26  # the partial AUC's term of the group where its budget runs out
S_TP_REM = 27  # weighted: what the fixed-point running totals truncated (caller units),
S_FP_REM = 28  # nonzero only for weights far below their class's largest (fx_add_rem)
S_SHIFT = 29  # weighted: negatives are in units 2**S_SHIFT times the positives' (see MIXED_CAP)
S_SIZE = 30
# sk (uint64): break-even key, last key, then fixed-point accumulators (hi, lo)
K_PRBE = 0
K_LAST = 1
K_AP = 2
K_EX = 4
K_PR = 6
K_AUC = 8
K_PA = 10
K_TP = 12
K_FP = 14
K_SIZE = 16

# Layout of the result vector written by :func:`finish`.
OUT_POS = 0
OUT_NEG = 1
OUT_AP = 2
OUT_AP_EXPECTED = 3
OUT_AUC = 4
OUT_AUC_PARTIAL = 5
OUT_PR_AUC = 6
OUT_PRBE = 7
OUT_SIZE = 8

# Optional parts of the sweep (bit flags).
WANT_PR_AUC = 1
WANT_EXPECTED_AP = 2

CHUNK = 1024  # groups a builder hands to the sweep at a time
FX_BITS = 124  # the largest value a fixed-point sum can reach is below 2**FX_BITS units
_EXACT_FLOAT = 2.0**53
_TWO64 = 2.0**64
_INV64 = 2.0**-64
_DIRECT_HARMONIC = 64


UNIT_FREE = 64  # weights whose scale is within 2**+-64 of 1 are used as they are
SCALE_TOP = 1016  # after its unit a class's bound (largest weight x count) stays below 2**this
SCALE_BOTTOM = -890  # ... and its largest weight at or above 2**(this - 1)
BEYOND_RANGE = 1 << 20  # :func:`weight_shift`'s answer when the classes are too far apart


def weight_shift(pos_max: float, neg_max: float, n: int) -> int:
    """The exponent ``e`` of the power of two a task's weights are divided by
    before any sum (exact), from its largest positive and negative weight and
    its size; ``BEYOND_RANGE`` when the classes' scales are too far apart.

    The unit sits between the two classes' scales (their geometric mean), so
    the products the metrics form (TP x FP, one class's weight times the
    other's) stay within float64, moved where needed so that the heavier
    class's totals stay finite and the lighter class's fixed-point unit
    (2**-124 of its bound) stays a normal float. Weights within 2**+-64 of 1
    are not scaled. Runs as Python and, as :func:`weight_shift_k`, in kernels.
    """
    nbits = math.frexp(float(n))[1] if n > 0 else 0  # n's bit length
    if pos_max > 0.0 and neg_max > 0.0:
        ep = math.frexp(pos_max)[1]
        en = math.frexp(neg_max)[1]
    elif pos_max > 0.0:
        ep = en = math.frexp(pos_max)[1]
    elif neg_max > 0.0:
        ep = en = math.frexp(neg_max)[1]
    else:
        return 0
    top = max(ep, en)
    bottom = min(ep, en)
    least = top + nbits - SCALE_TOP  # the shifts that keep both classes in range
    most = bottom - SCALE_BOTTOM
    if least > most:
        return BEYOND_RANGE
    center = min(max((ep + en) // 2, least), most)
    if least <= 0 <= most and abs(center) <= UNIT_FREE:
        return 0
    return min(max(center, -1021), 1023)  # 2**center itself a normal float


weight_shift_k = helper(weight_shift)


def class_shifts(pos_max: float, neg_max: float, n: int) -> tuple[int, int]:
    """``(e, shift)``: the positives' weights are divided by ``2**e``, the negatives'
    by ``2**(e + shift)``. ``shift`` is 0 (one unit, :func:`weight_shift`) unless the
    classes' scales are too far apart for one; then each class gets the unit it
    would have alone, and the sweep brings FP to the positives' unit where the two
    classes are added (:func:`in_pos_units`)."""
    e = weight_shift(pos_max, neg_max, n)
    if e != BEYOND_RANGE:
        return e, 0
    ep = weight_shift(pos_max, 0.0, n)
    return ep, weight_shift(0.0, neg_max, n) - ep


def new_state(pos: float, neg: float, max_fpr: float, what: int, *, weighted: bool = False,
              pos_bound: float = 0.0, neg_bound: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A fresh sweep state.

    Unweighted, ``pos``/``neg`` are the task's class counts. Weighted, they are
    its class totals once known (0 for a first pass that computes them), and
    ``pos_bound``/``neg_bound`` bound them from above (the largest weight times
    the count), which fixes the units of the running totals.
    """
    st = np.empty(S_SIZE, np.float64)
    sk = np.empty(K_SIZE, np.uint64)
    start_state(st, sk, max_fpr, what, weighted, pos_bound, neg_bound)
    set_totals(st, pos, neg)
    return st, sk


def start_state(st, sk, max_fpr, what, weighted, pos_bound, neg_bound):
    """Everything of a fresh state but its class totals, on existing arrays (as
    Python, and as :func:`start_state_k` in kernels: one definition for both)."""
    st[:] = 0.0
    sk[:] = 0
    st[S_MAX_FPR] = max_fpr
    st[S_WHAT] = what
    st[S_WEIGHTED] = 1.0 if weighted else 0.0
    st[S_PA_OPEN] = 1.0 if max_fpr < 1.0 else 0.0
    st[S_LEAD_OPEN] = 1.0
    st[S_TP_FIRST_NEG] = -1.0
    st[S_FP_FIRST_POS] = -1.0
    if weighted:  # the units of the running totals: sums up to the bound fit FX_BITS
        st[S_E_TP] = math.frexp(pos_bound)[1] - FX_BITS if pos_bound > 0.0 else 0
        st[S_E_FP] = math.frexp(neg_bound)[1] - FX_BITS if neg_bound > 0.0 else 0


def set_totals(st, pos, neg):
    """Record the task's class totals and the units they imply (as Python, and as
    :func:`set_totals_k` in kernels)."""
    st[S_POS] = pos
    st[S_NEG] = neg
    st[S_E_AREA] = math.frexp(pos)[1] - FX_BITS if pos > 0.0 else 0
    pairs = 2.0 * pos * neg
    st[S_E_AUC] = math.frexp(pairs)[1] - FX_BITS if pairs > 0.0 else 0
    st[S_FX_AUC] = 1.0 if st[S_WEIGHTED] != 0.0 or pairs >= _EXACT_FLOAT else 0.0


start_state_k = helper(start_state)
set_totals_k = helper(set_totals)


@helper
def init_state(st, sk, pos, neg, max_fpr, what, weighted, pos_bound, neg_bound):
    """:func:`new_state` inside a kernel, on existing arrays."""
    start_state_k(st, sk, max_fpr, what, weighted, pos_bound, neg_bound)
    set_totals_k(st, pos, neg)


def range_state(st: np.ndarray, tp0: float, fp0: float, sk_tp: tuple[int, int] | None = None,
                sk_fp: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A state for the score range below ``tp0`` positives and ``fp0`` negatives
    (weighted: with the exact fixed-point totals above it)."""
    s = st.copy()
    s[S_TP] = tp0
    s[S_FP] = fp0
    s[S_RUN] = tp0
    if s[S_MAX_FPR] < 1.0 and fp0 > s[S_MAX_FPR] * s[S_NEG]:
        s[S_PA_OPEN] = 0.0
    k = np.zeros(K_SIZE, np.uint64)
    if sk_tp is not None and sk_fp is not None:
        k[K_TP], k[K_TP + 1] = sk_tp
        k[K_FP], k[K_FP + 1] = sk_fp
    return s, k


# ---------------------------------------------------------------- fixed point


@helper
def fx_add(hi, lo, x, scale):
    """Add ``x * scale`` (``scale`` a power of two, ``|x * scale| < 2**FX_BITS``),
    truncated to an integer, to the 128-bit two's complement sum ``(hi, lo)``."""
    y = x * scale
    if y >= 0.0:
        h = np.int64(y * _INV64)
        lu = np.uint64(y - float(h) * _TWO64)
        s = lo + lu
        return hi + np.uint64(h) + (np.uint64(1) if s < lo else np.uint64(0)), s
    y = -y
    h = np.int64(y * _INV64)
    lu = np.uint64(y - float(h) * _TWO64)
    # subtract (h, lu)
    s = lo - lu
    return hi - np.uint64(h) - (np.uint64(1) if lo < lu else np.uint64(0)), s


@helper
def fx_add_rem(hi, lo, x, scale, e):
    """:func:`fx_add` for ``x >= 0`` (``scale == 2**-e``), also returning what it
    truncated, in ``x``'s units (exact, even where ``x * scale`` underflows).

    A weight more than about 2**70 below its class's largest has bits below the
    fixed-point unit; the caller keeps those remainders in a float so that a
    running total made of such weights is not rounded to zero.
    """
    y = x * scale
    h = np.int64(y * _INV64)
    lu = np.uint64(y - float(h) * _TWO64)
    s = lo + lu
    whole = float(h) * _TWO64 + float(lu)  # trunc(y): a float, so the sum is exact
    # (y == 0.0 < x: x * scale fell below float64's range, and the whole of x remains)
    rem = x - math.ldexp(whole, int(e)) if whole != y or (y == 0.0 and x > 0.0) else 0.0
    return hi + np.uint64(h) + (np.uint64(1) if s < lo else np.uint64(0)), s, rem


@helper
def fx_value(hi, lo, e):
    """The float64 nearest to a 128-bit fixed-point sum (times ``2**e``), correctly
    rounded: the same float whatever the units the sum was kept in.

    The magnitude's top 64 bits are converted in one rounding, with every bit
    below them folded into the lowest (a sticky bit), so that a value just
    above a rounding midpoint is not mistaken for the midpoint.
    """
    neg = (hi >> np.uint64(63)) != np.uint64(0)
    if neg:
        hi = ~hi
        lo = ~lo + np.uint64(1)
        if lo == np.uint64(0):
            hi += np.uint64(1)
    if hi == np.uint64(0):
        v = float(lo)
    else:
        n = 1  # the bit length of hi
        x = hi
        for step in (32, 16, 8, 4, 2, 1):
            if x >> np.uint64(step) != np.uint64(0):
                x >>= np.uint64(step)
                n += step
        if n == 64:
            top = hi
            rest = lo
        else:
            top = (hi << np.uint64(64 - n)) | (lo >> np.uint64(n))
            rest = lo & ((np.uint64(1) << np.uint64(n)) - np.uint64(1))
        if rest != np.uint64(0):
            top |= np.uint64(1)
        v = math.ldexp(float(top), n)
    v = math.ldexp(v, int(e))
    return -v if neg else v


@helper
def fx_merge(hi, lo, hi2, lo2):
    """The sum of two fixed-point sums."""
    s = lo + lo2
    return hi + hi2 + (np.uint64(1) if s < lo else np.uint64(0)), s


# ---------------------------------------------------------------- terms


@helper
def _log1p(x):
    """``log(1 + x)`` for ``x >= 0``; a short series where ``math.log1p`` is overkill.

    Late in a sweep most PR segments are short relative to what lies above
    them, so ``x`` is tiny; below 1e-3 the series through ``x^6`` is exact to
    a relative 1.5e-19.
    """
    if x < 1e-3:
        return x * (1.0 - x * (0.5 - x * (1.0 / 3.0 - x * (0.25 - x * (0.2 - x / 6.0)))))
    return math.log1p(x)


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


_harmonic = helper(harmonic_diff)


@helper
def expected_ap_group(p0, r0, q, m):
    """Expected sum of precisions at the ``q`` positives of a tie group of ``m``.

    ``r0`` samples, ``p0`` of them positive, rank above the group. Averaged over
    all orders inside the group, the j-th sample of the group is positive with
    probability q/m and, if so, has ``p0 + 1 + (j-1)(q-1)/(m-1)`` positives
    among the ``r0 + j`` samples up to it.
    """
    if m == 1.0:
        return (p0 + 1.0) / (r0 + 1.0)
    c = (q - 1.0) / (m - 1.0)
    h = _harmonic(int(r0), int(r0 + m))
    return (q / m) * ((p0 + 1.0 - c * (1.0 + r0)) * h + c * m)


@helper
def pr_run_area(t0, t1, f):
    """P times the PR area while TP grows from ``t0`` to ``t1`` at constant FP ``f``.

    Precision along the way is ``t / (t + f)``; its integral over t is
    ``(t1 - t0) - f * log((t1 + f) / (t0 + f))``.
    """
    if f == 0.0:
        return t1 - t0
    return (t1 - t0) - f * _log1p((t1 - t0) / (t0 + f))


@helper
def pr_segment_area(t0, f0, dp, dn):
    """P times the PR area of one interpolated segment with ``dp > 0`` and ``dn > 0``.

    From (TP, FP) = (t0, f0), TP and FP grow together by (dp, dn). With
    ``s = dp + dn`` the integral of ``t / (t + f0 + (dn/dp)(t - t0))`` is
    ``dp^2/s - (f0 dp - dn t0) dp / s^2 * log1p(s / (t0 + f0))`` (formed without
    squaring a weight, so masses near 2**+-1000 do not overflow); from the
    origin the precision is constant, ``dp / s``.
    """
    s = dp + dn
    m0 = t0 + f0
    share = dp / s  # no square of a weight: weights near 2**+-1000 do not overflow
    if m0 == 0.0:
        return dp * share
    return dp * share - ((f0 * dp - dn * t0) / s) * share * _log1p(s / m0)


# A task whose classes' weights are too far apart for one unit (more than about
# 2**1900: :func:`weight_shift`) keeps each class in a unit of its own, the
# negatives' ``2**shift`` times the positives'. Only the terms that add the two
# classes (precision's TP + FP, the PR areas, the break-even's TP + FP = P) see
# the shift: FP is brought to the positives' unit there, capped at MIXED_CAP,
# where precision is below 2**-850 (every product those terms form stays finite).
MIXED_CAP = 2.0**900


@helper
def in_pos_units(x, shift):
    """Negatives' weight ``x`` in the positives' unit (capped at :data:`MIXED_CAP`)."""
    if shift == 0:
        return x
    return min(math.ldexp(x, shift), MIXED_CAP)


# ---------------------------------------------------------------- the sweep

@helper
def record_first(st, at, total, group):
    """Record the first group with positives (``at`` = :data:`S_FP_FIRST_POS`: FP
    above it and its negatives) or with negatives (:data:`S_TP_FIRST_NEG`: TP
    above it and its positives). Returns True (recorded)."""
    st[at] = total
    st[at + 1] = group
    return True


@helper
def record_prbe(st, sk, key, tp, fp, dp, dn, pos):
    """Record the break-even group (where TP + FP reaches the positives' total
    ``pos``; its score bits ``key``): TP there along the group's straight line,
    the group adding ``dp`` and ``dn`` to ``tp`` and ``fp`` (the positives' unit).
    Returns True (found)."""
    st[S_PRBE_FOUND] = 1.0
    st[S_PRBE_TP] = tp + (pos - (tp + fp)) * (dp / (dp + dn))
    sk[K_PRBE] = key
    return True


_TABLE = (rw(f64), rw(f64), rw(u64), i64, rw(f64), rw(u64))


@kernel([_TABLE])
def sweep_table(gpos, gneg, gkey, count, st, sk):
    """Advance the sweep over groups ``0 .. count`` of a table (keys descending).

    ``gkey`` holds each group's score bits (reported for the break-even
    point). :func:`combine` turns the state into results at the end.
    """
    pos = st[S_POS]
    fp_stop = st[S_MAX_FPR] * st[S_NEG]  # partial AUC: FP budget on the count scale
    what = int(st[S_WHAT])
    want_pr = (what & WANT_PR_AUC) != 0
    expected = (what & WANT_EXPECTED_AP) != 0
    weighted = st[S_WEIGHTED] != 0.0
    fx_auc = st[S_FX_AUC] != 0.0
    sc_area = math.ldexp(1.0, -int(st[S_E_AREA]))
    sc_auc = math.ldexp(1.0, -int(st[S_E_AUC]))
    sc_tp = math.ldexp(1.0, -int(st[S_E_TP]))
    sc_fp = math.ldexp(1.0, -int(st[S_E_FP]))
    e_tp = st[S_E_TP]
    e_fp = st[S_E_FP]
    tp = st[S_TP]
    fp = st[S_FP]
    auc = st[S_AUC]
    pa = st[S_PA]
    pa_open = st[S_PA_OPEN] != 0.0
    run = st[S_RUN]
    lead_open = st[S_LEAD_OPEN] != 0.0
    first_neg = st[S_TP_FIRST_NEG] >= 0.0
    first_pos = st[S_FP_FIRST_POS] >= 0.0
    prbe_found = st[S_PRBE_FOUND] != 0.0
    ap_h, ap_l = sk[K_AP], sk[K_AP + 1]
    ex_h, ex_l = sk[K_EX], sk[K_EX + 1]
    pr_h, pr_l = sk[K_PR], sk[K_PR + 1]
    auc_h, auc_l = sk[K_AUC], sk[K_AUC + 1]
    pa_h, pa_l = sk[K_PA], sk[K_PA + 1]
    tp_h, tp_l = sk[K_TP], sk[K_TP + 1]
    fp_h, fp_l = sk[K_FP], sk[K_FP + 1]
    tp_rem = st[S_TP_REM]
    fp_rem = st[S_FP_REM]
    shift = int(st[S_SHIFT])
    # Counts without the partial AUC, the PR area or the expected AP (what AP,
    # AUC and the break-even point ask): the loop's few sums stay in registers,
    # each group's AUC term is added whether or not it has negatives (0 then),
    # and the one-time records (the first groups with negatives and with
    # positives, the break-even group) are branches taken once. The sums and
    # records are those of the general loop below, bit for bit, at 2.1, 2.4 and
    # 5.0 against 3.7, 4.7 and 6.3 ns per group (tables of 50,000 samples with
    # 2%, 30% and 60% positives, AMD Zen 4), where the general loop's many sums
    # spill and its branches on the data mispredict.
    lean = not (weighted or fx_auc or want_pr or expected or pa_open) and shift == 0
    for g in range(count if lean else 0):
        dp = gpos[g]
        dn = gneg[g]
        tp1 = tp + dp
        fp1 = fp + dn
        auc += dn * (tp + tp1)
        if dp > 0.0:
            ap_h, ap_l = fx_add(ap_h, ap_l, dp * (tp1 / (tp1 + fp1)), sc_area)
            if not first_pos:
                first_pos = record_first(st, S_FP_FIRST_POS, fp, dn)
        if (lead_open or not first_neg) and dn > 0.0:
            lead_open = False
            if not first_neg:
                first_neg = record_first(st, S_TP_FIRST_NEG, tp, dp)
        if not prbe_found and pos > 0.0 and tp1 + fp1 >= pos:
            prbe_found = record_prbe(st, sk, gkey[g], tp, fp, dp, dn, pos)
        tp = tp1
        fp = fp1
    for g in range(0 if lean else count):
        dp = gpos[g]
        dn = gneg[g]
        if weighted:
            tp_h, tp_l, r = fx_add_rem(tp_h, tp_l, dp, sc_tp, e_tp)
            tp_rem += r
            fp_h, fp_l, r = fx_add_rem(fp_h, fp_l, dn, sc_fp, e_fp)
            fp_rem += r
            tp1 = fx_value(tp_h, tp_l, e_tp) + tp_rem
            fp1 = fx_value(fp_h, fp_l, e_fp) + fp_rem
        else:
            tp1 = tp + dp
            fp1 = fp + dn
        # FP and the group's negatives in the positives' unit, where the classes are added
        xf = in_pos_units(fp, shift)
        xf1 = in_pos_units(fp1, shift)
        xn = in_pos_units(dn, shift)
        if dn > 0.0:
            term = dn * (tp + tp1)
            if fx_auc:
                auc_h, auc_l = fx_add(auc_h, auc_l, term, sc_auc)
            else:
                auc += term
            if pa_open:
                if fp1 > fp_stop:  # the budget runs out inside this group: kept apart,
                    width = fp_stop - fp  # so that the other terms stay exact sums
                    st[S_PA_CUT] = width * (tp + (tp + dp * (width / dn)))
                    pa_open = False
                elif fx_auc:
                    pa_h, pa_l = fx_add(pa_h, pa_l, term, sc_auc)
                else:
                    pa += term
            if want_pr:
                if lead_open:  # the range's first run ends here; its area is combined later
                    st[S_LEAD_TP] = tp
                    st[S_LEAD_FP] = xf  # in the positives' unit
                elif tp > run:
                    pr_h, pr_l = fx_add(pr_h, pr_l, pr_run_area(run, tp, xf), sc_area)
                if dp > 0.0:
                    pr_h, pr_l = fx_add(pr_h, pr_l, pr_segment_area(tp, xf, dp, xn), sc_area)
                run = tp1
            lead_open = False
            if not first_neg:
                first_neg = record_first(st, S_TP_FIRST_NEG, tp, dp)
        if dp > 0.0:
            term = dp * (tp1 / (tp1 + xf1))
            ap_h, ap_l = fx_add(ap_h, ap_l, term, sc_area)
            if expected:  # counts only (unweighted): no shift
                if dp + dn != 1.0:  # a tie: the expectation over its orders
                    term = expected_ap_group(tp, tp + fp, dp, dp + dn)
                ex_h, ex_l = fx_add(ex_h, ex_l, term, sc_area)
            if not first_pos:
                first_pos = record_first(st, S_FP_FIRST_POS, fp, dn)
        if not prbe_found and pos > 0.0 and tp1 + xf1 >= pos:
            prbe_found = record_prbe(st, sk, gkey[g], tp, xf, dp, xn, pos)
        tp = tp1
        fp = fp1
    if count > 0:
        sk[K_LAST] = gkey[count - 1]
    st[S_GROUPS] += count
    st[S_TP] = tp
    st[S_FP] = fp
    st[S_AUC] = auc
    st[S_PA] = pa
    st[S_PA_OPEN] = 1.0 if pa_open else 0.0
    st[S_RUN] = run
    st[S_LEAD_OPEN] = 1.0 if lead_open else 0.0
    sk[K_AP], sk[K_AP + 1] = ap_h, ap_l
    sk[K_EX], sk[K_EX + 1] = ex_h, ex_l
    sk[K_PR], sk[K_PR + 1] = pr_h, pr_l
    sk[K_AUC], sk[K_AUC + 1] = auc_h, auc_l
    sk[K_PA], sk[K_PA + 1] = pa_h, pa_l
    sk[K_TP], sk[K_TP + 1] = tp_h, tp_l
    sk[K_FP], sk[K_FP + 1] = fp_h, fp_l
    st[S_TP_REM] = tp_rem
    st[S_FP_REM] = fp_rem


_COMBINE = (rw(f64, 2), rw(u64, 2), rw(f64), rw(u64), rw(f64))


@kernel([_COMBINE])
def combine(states, keys, st, sk, out):
    """Join the states of consecutive score ranges (highest first) into ``st``/``sk``
    and write the results (layout ``OUT_*``) into ``out``.

    ``st``/``sk`` start as the task's fresh state. Every sum is exact, so the
    result is that of one sweep over all the groups; the PR area of each run
    of negative-free groups that crosses a range boundary is formed here,
    once, from where it began to where it ended.
    """
    want_pr = (int(st[S_WHAT]) & WANT_PR_AUC) != 0
    run = 0.0  # TP where the current run (across ranges) began
    for r in range(states.shape[0]):
        s = states[r]
        k = keys[r]
        if s[S_GROUPS] == 0.0:
            continue
        for at in (K_AP, K_EX, K_PR, K_AUC, K_PA):
            sk[at], sk[at + 1] = fx_merge(sk[at], sk[at + 1], k[at], k[at + 1])
        st[S_AUC] += s[S_AUC]
        st[S_PA] += s[S_PA]
        st[S_PA_CUT] += s[S_PA_CUT]
        if s[S_LEAD_OPEN] == 0.0:  # the run from above ended inside this range
            if want_pr and s[S_LEAD_TP] > run:
                ph, pl = fx_add(sk[K_PR], sk[K_PR + 1],
                                pr_run_area(run, s[S_LEAD_TP], s[S_LEAD_FP]),
                                math.ldexp(1.0, -int(st[S_E_AREA])))
                sk[K_PR], sk[K_PR + 1] = ph, pl
            run = s[S_RUN]
        if st[S_TP_FIRST_NEG] < 0.0 <= s[S_TP_FIRST_NEG]:
            st[S_TP_FIRST_NEG] = s[S_TP_FIRST_NEG]
            st[S_DP_FIRST_NEG] = s[S_DP_FIRST_NEG]
        if st[S_FP_FIRST_POS] < 0.0 <= s[S_FP_FIRST_POS]:
            st[S_FP_FIRST_POS] = s[S_FP_FIRST_POS]
            st[S_DN_FIRST_POS] = s[S_DN_FIRST_POS]
        if st[S_PRBE_FOUND] == 0.0 and s[S_PRBE_FOUND] != 0.0:
            st[S_PRBE_FOUND] = 1.0
            st[S_PRBE_TP] = s[S_PRBE_TP]
            sk[K_PRBE] = k[K_PRBE]
        st[S_TP] = s[S_TP]
        st[S_FP] = s[S_FP]
        sk[K_LAST] = k[K_LAST]
        sk[K_TP], sk[K_TP + 1] = k[K_TP], k[K_TP + 1]
        sk[K_FP], sk[K_FP + 1] = k[K_FP], k[K_FP + 1]
        st[S_GROUPS] += s[S_GROUPS]
    st[S_RUN] = run
    st[S_LEAD_OPEN] = 0.0
    st[S_LEAD_TP] = 0.0  # every first run is accounted for above
    finish(st, sk, out)


@helper
def finish(st, sk, out):
    """Write the results (layout ``OUT_*``) of a whole task's sweep into ``out``.

    Areas are normalised by the final running totals, as scikit-learn does.
    """
    max_fpr = st[S_MAX_FPR]
    what = int(st[S_WHAT])
    want_pr = (what & WANT_PR_AUC) != 0
    expected = (what & WANT_EXPECTED_AP) != 0
    e_area = st[S_E_AREA]
    sc_area = math.ldexp(1.0, -int(e_area))
    tp = st[S_TP]
    fp = st[S_FP]
    pr_h, pr_l = sk[K_PR], sk[K_PR + 1]
    if want_pr:
        if st[S_LEAD_OPEN] == 0.0 and st[S_LEAD_TP] > 0.0:  # the first run (one sweep)
            pr_h, pr_l = fx_add(pr_h, pr_l, pr_run_area(0.0, st[S_LEAD_TP], st[S_LEAD_FP]),
                                sc_area)
        run = 0.0 if st[S_LEAD_OPEN] != 0.0 else st[S_RUN]
        if tp > run:  # the last run of negative-free groups
            pr_h, pr_l = fx_add(pr_h, pr_l, pr_run_area(run, tp,
                                                        in_pos_units(fp, int(st[S_SHIFT]))),
                                sc_area)
    if st[S_FX_AUC] != 0.0:
        auc_sum = fx_value(sk[K_AUC], sk[K_AUC + 1], st[S_E_AUC])
        pa_sum = fx_value(sk[K_PA], sk[K_PA + 1], st[S_E_AUC]) + st[S_PA_CUT]
    else:
        auc_sum = st[S_AUC]
        pa_sum = st[S_PA] + st[S_PA_CUT]
    if st[S_PRBE_FOUND] == 0.0:
        # Rounding of weighted totals only: the break-even is at the very end.
        st[S_PRBE_TP] = tp
        sk[K_PRBE] = sk[K_LAST]
    nan = math.nan
    has_pos = tp > 0.0
    has_both = has_pos and fp > 0.0
    # Perfect and reversed separation are decided exactly, not by rounded
    # sums: every positive above every negative (or the other way round).
    perfect = has_pos and (
        fp == 0.0 or (st[S_TP_FIRST_NEG] == tp and st[S_DP_FIRST_NEG] == 0.0)
    )
    reversed_ = has_both and st[S_FP_FIRST_POS] == fp and st[S_DN_FIRST_POS] == 0.0
    # Otherwise every metric lies in [0, 1]; rounding can put one an ulp past it.
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
        ap = fx_value(sk[K_AP], sk[K_AP + 1], e_area) / tp
        out[OUT_AP] = min(max(ap, 0.0), 1.0)
        ex = fx_value(sk[K_EX], sk[K_EX + 1], e_area) / tp
        out[OUT_AP_EXPECTED] = min(max(ex, 0.0), 1.0) if expected else nan
        pr = fx_value(pr_h, pr_l, e_area) / tp
        out[OUT_PR_AUC] = min(max(pr, 0.0), 1.0) if want_pr else nan
        out[OUT_PRBE] = min(max(st[S_PRBE_TP] / tp, 0.0), 1.0)
    if not has_both:
        auc = nan
    elif perfect:
        auc = 1.0
    elif reversed_:
        auc = 0.0
    else:
        auc = min(max(auc_sum / (2.0 * tp * fp), 0.0), 1.0)
    out[OUT_AUC] = auc
    if max_fpr < 1.0 and has_both:
        if perfect:
            area = max_fpr
        elif reversed_:
            area = 0.0
        else:
            area = pa_sum / (2.0 * tp * fp)
        min_area = 0.5 * max_fpr * max_fpr
        partial = 0.5 * (1.0 + (area - min_area) / (max_fpr - min_area))
        out[OUT_AUC_PARTIAL] = min(max(partial, 0.0), 1.0)
    else:
        out[OUT_AUC_PARTIAL] = auc


# ---------------------------------------------------------------- the builder
#
# The builder's inner loop fills the chunk buffer and makes no call: a call
# that takes arrays costs reference counting on every iteration of the loop
# around it, executed or not. The buffer goes to :func:`sweep_table` between
# inner loops.

MODE_SWEEP = 0  # sweep the groups (``gpos``.. are the chunk buffers)
MODE_TOTALS = 1  # weighted: add the groups' totals to st[S_POS], st[S_NEG] (exactly)
MODE_TABLE = 2  # write every group into ``gpos``.. and return their number
# As MODE_TABLE, except that unweighted, each run of negative-only groups is one
# entry (keyed by its lowest score), the task's first group apart: the table the
# readouts need, whose every cutoff of interest ends a group with positives (or is
# the first group). MODE_RUNS for the range holding the first group, MODE_RUNS_REST
# for the others (whose first entry may continue the run before them).
MODE_RUNS = 3
MODE_RUNS_REST = 4
# Added to MODE_TABLE, MODE_RUNS or MODE_RUNS_REST (unweighted): the table's counts are
# written as running totals from the range's start, in the kernel, while the table is
# still in cache (counts: exact, so the same numbers as a cumulative sum afterwards).
MODE_CUMULATIVE = 8

_SPLIT = [(rw(t), rw(b), rw(t), rw(b), rw(f64), rw(f64), b1, rw(f64), rw(u64), i64, rw(f64),
           rw(f64), rw(u64), u64) for t, b in VALUES]


@kernel(_SPLIT)
def sweep_split(p, pb, q, qb, pw, qw, weighted, st, sk, mode, gpos, gneg, gkey, flip):
    """:func:`sweep_classes` as called from Python (with :data:`MODE_CUMULATIVE`:
    the table written cumulated)."""
    cumulate = mode >= MODE_CUMULATIVE
    if cumulate:
        mode -= MODE_CUMULATIVE
    total = sweep_classes(p, pb, q, qb, pw, qw, weighted, st, sk, mode, gpos, gneg, gkey, flip)
    if cumulate:
        tp = 0.0
        fp = 0.0
        for g in range(total):
            tp += gpos[g]
            fp += gneg[g]
            gpos[g] = tp
            gneg[g] = fp
    return total


_ONE = [(rw(t), rw(b), rw(t), rw(b), u64, u64, f64, i64, rw(f64), rw(u64), rw(f64), rw(f64),
         rw(u64), rw(f64), rw(f64)) for t, b in VALUES]


@kernel(_ONE)
def sweep_one(p, pb, q, qb, exp_mask, flip, max_fpr, what, st, sk, gpos, gneg, gkey, out,
              none):
    """An unweighted task's results from its two sorted classes, in one call.

    The task's state is made, swept and finished here (``st``/``sk``: scratch
    state, ``gpos/gneg/gkey``: the chunk buffers); ``out`` receives the
    ``OUT_*`` row and ``sk[K_PRBE]`` the break-even score bits. A one-range
    task from Python otherwise takes a dozen steps, which cost more than the
    sweep of a small task. Returns False, computing nothing, when a class
    starts or ends with a NaN or infinity (``exp_mask``: the exponent mask of
    float scores, 0 for integers; both sorts put those at an end). ``flip``: see
    :func:`sweep_classes`. ``none``: an empty float64 array (the weights of an
    unweighted task), passed in because an allocation in a kernel is one more
    function for Numba to compile on a first call.
    """
    m = p.shape[0]
    k = q.shape[0]
    if exp_mask != np.uint64(0):
        for x in (pb, qb):
            n = x.shape[0]
            if n > 0 and ((np.uint64(x[0]) & exp_mask) == exp_mask
                          or (np.uint64(x[n - 1]) & exp_mask) == exp_mask):
                return False
    init_state(st, sk, float(m), float(k), max_fpr, what, False, 0.0, 0.0)
    sweep_classes(p, pb, q, qb, none, none, False, st, sk, MODE_SWEEP, gpos, gneg, gkey, flip)
    finish(st, sk, out)
    return True


# The one-task kernel passes constants here: its sweep is compiled with the
# weighted code and the other modes pruned, which its first call waits for (import
# plus 5,000 samples, empty cache, AMD Zen 5: 3.7-3.8 s, against 4.1-4.7 s for the
# general sweep). The batch kernel passes plain values and gets the general one.
@helper(literals=("weighted", "mode"))
def sweep_classes(p, pb, q, qb, pw, qw, weighted, st, sk, mode, gpos, gneg, gkey, flip):
    """The tie groups of a task (or of one score range of it).

    ``p``/``q``: the scores of the positives and of the negatives, each sorted
    ascending (``pb``/``qb``: their bits); weighted (``weighted``), ``pw``/``qw``
    are their weights in the same order (no zero weights). The groups are
    merged from the top and handed to :func:`sweep_table` through the chunk
    buffers ``gpos/gneg/gkey``, each group keyed by its score's bits XOR ``flip``:
    int64 scores come as uint64 with their sign bit flipped (which orders them
    as the integers; see :data:`~fastrank._kernels.jit.VALUES`) and ``flip`` is
    that bit, so that a key is the int64's own bits; 0 for every other dtype.
    Modes: :data:`MODE_SWEEP`, :data:`MODE_TOTALS` (the class totals, summed
    exactly group by group, into ``st``), :data:`MODE_TABLE` (returns the number
    of groups written).

    Unweighted, when the positives are the fewer, the negatives between two
    positive groups go over in bulk: a run of negative-only groups is one
    entry (every sum it touches changes by exact integers), except the group
    where the partial AUC's budget runs out and the group where TP + FP
    reaches P, which go exactly. The sums are those of a group-by-group
    sweep, bit for bit.
    """
    runs = (mode == MODE_RUNS or mode == MODE_RUNS_REST) and not weighted
    if (mode == MODE_SWEEP or runs) and not weighted and p.shape[0] <= q.shape[0]:
        return bulk_sweep(p, pb, q, qb, st, sk, gpos, gneg, gkey, runs, mode == MODE_RUNS, flip)
    keep = 1 if mode == MODE_RUNS else 0  # runs: entries below this never absorb a group
    e_tp = st[S_E_TP]
    e_fp = st[S_E_FP]
    sc_tp = math.ldexp(1.0, -int(e_tp))
    sc_fp = math.ldexp(1.0, -int(e_fp))
    tot_ph, tot_pl = sk[K_TP], sk[K_TP + 1]  # MODE_TOTALS: exact running totals
    tot_nh, tot_nl = sk[K_FP], sk[K_FP + 1]
    limit = gpos.shape[0]
    i = p.shape[0]  # p[:i] and q[:j] are not handed over yet
    j = q.shape[0]
    done = i == 0 and j == 0  # nothing to hand over (a chunk buffer may be empty too)
    total = np.int64(0)
    while not done:
        c = np.int64(0)
        while c < limit:
            if i == 0 and j == 0:
                done = True
                break
            # the next group: the highest score left in either class
            if i > 0 and (j == 0 or p[i - 1] >= q[j - 1]):
                v = p[i - 1]
                key = (np.uint64(0) if v == 0 else np.uint64(pb[i - 1])) ^ flip
            else:
                v = q[j - 1]
                key = (np.uint64(0) if v == 0 else np.uint64(qb[j - 1])) ^ flip
            lo = i
            while lo > 0 and p[lo - 1] == v:
                lo -= 1
            lo_q = j
            while lo_q > 0 and q[lo_q - 1] == v:
                lo_q -= 1
            if weighted:  # each class's weights of the group, summed exactly
                dp = _group_weight(pw, lo, i, sc_tp, e_tp)
                dn = _group_weight(qw, lo_q, j, sc_fp, e_fp)
            else:
                dp = float(i - lo)
                dn = float(j - lo_q)
            i = lo
            j = lo_q
            if mode == MODE_TOTALS:
                tot_ph, tot_pl = fx_add(tot_ph, tot_pl, dp, sc_tp)
                tot_nh, tot_nl = fx_add(tot_nh, tot_nl, dn, sc_fp)
                continue
            if runs and dp == 0.0 and c > keep and gpos[c - 1] == 0.0:
                gneg[c - 1] += dn  # a run of negatives: counts, so exact
                gkey[c - 1] = key
                continue
            gpos[c] = dp
            gneg[c] = dn
            gkey[c] = key
            c += 1
        total += c
        if mode == MODE_SWEEP:
            sweep_table(gpos, gneg, gkey, c, st, sk)
    if mode == MODE_TOTALS:
        sk[K_TP], sk[K_TP + 1] = tot_ph, tot_pl
        sk[K_FP], sk[K_FP + 1] = tot_nh, tot_nl
    return total


@helper
def _group_weight(w, lo, hi, scale, e):
    """The exact sum of one tie group's weights ``w[lo:hi]`` of one class, as a float:
    fixed point in the class's units (``scale == 2**-e``), with the truncated
    remainders kept apart (:func:`fx_add_rem`).

    Continuous scores make every group one weight ``x`` in one class and none
    in the other. The general path gives ``x`` itself there: its fixed-point
    part is ``trunc(x * scale)`` in the class's unit, exact as a float, and its
    remainder the bits of ``x`` below that unit, exact too, so their sum is
    ``x``; and no weight gives 0.0, not even one so small against its class's
    unit that ``x * scale`` underflows to zero: its remainder is the whole of it
    (both paths once dropped it, and a precision's FP with it: an AP of 1.0 where
    1e-100 was right). tests/test_weighted_exact.py checks the two paths agree
    bit for bit. The group comes as ``lo, hi``, not as a slice:
    a slice passed to a call costs its view's atomic reference counting, which
    made the class totals of a weighted million scores 4x slower (a
    167,000-score range: 5.2 ms against 1.3 ms). Weighted W3 (1e6 float32,
    all_metrics, AMD Zen 5): 70-87 ms before both changes, 45-48 ms after.
    """
    if hi - lo <= 1:
        return w[lo] if hi > lo else 0.0
    h = np.uint64(0)
    low = np.uint64(0)
    rem = 0.0
    for t in range(lo, hi):
        h, low, r = fx_add_rem(h, low, w[t], scale, e)
        rem += r
    return fx_value(h, low, e) + rem


def fx_to_float(hi: int, lo: int, e: float) -> float:
    """:func:`fx_value` in Python (both correctly rounded, so the same float)."""
    value = (int(hi) << 64) | int(lo)
    neg = value >> 127 != 0
    if neg:
        value = (1 << 128) - value
    v = math.ldexp(float(value), int(e))
    return -v if neg else v


@helper
def bulk_sweep(p, pb, q, qb, st, sk, gpos, gneg, gkey, runs, split_first, flip):
    """:func:`sweep_classes` of an unweighted sweep whose positives are the fewer.

    Per positive group: the negatives above it are counted sixteen at a time
    (a vector compare: they are sorted) and go over as one entry, then the
    group itself. The two groups that must go exactly (see
    :func:`sweep_classes`) are cut out of their run of negatives. With
    ``runs`` (:data:`MODE_RUNS`) the entries are the table itself, written
    once into buffers at least 16 longer than the scores; with
    ``split_first`` the first group goes alone.
    """
    pos = st[S_POS]
    fp_stop = st[S_MAX_FPR] * st[S_NEG]
    tp = st[S_TP]
    fp = st[S_FP]
    pa_open = st[S_PA_OPEN] != 0.0 and not runs
    prbe_left = pos > 0.0 and tp + fp < pos and not runs  # the break-even group is not met
    limit = gpos.shape[0] - 8  # a step hands over at most 6 entries
    i = p.shape[0]
    j = q.shape[0]
    total = np.int64(0)
    first = np.int64(0)
    if split_first and j > 0 and (i == 0 or q[j - 1] > p[i - 1]):  # a negative first group
        v = q[j - 1]
        lo = j - 1
        while lo > 0 and q[lo - 1] == v:
            lo -= 1
        gpos[0] = 0.0
        gneg[0] = float(j - lo)
        gkey[0] = (np.uint64(0) if v == 0 else np.uint64(qb[lo])) ^ flip
        j = lo
        first = np.int64(1)
    done = False
    while not done:
        c = first
        first = np.int64(0)
        while c < limit:
            if i == 0 and j == 0:
                done = True
                break
            hi = j
            if i > 0:  # the negatives above the next positive group
                target = p[i - 1]
                while True:
                    if j >= 16:
                        cnt = 0
                        for k in range(1, 17):
                            cnt += q[j - k] > target
                        j -= cnt
                        if cnt < 16:
                            break
                    else:
                        while j > 0 and q[j - 1] > target:
                            j -= 1
                        break
            else:
                j = 0
            top = hi
            while top > j:  # q[j:top]: negatives only, as few entries as possible
                d = float(top - j)
                cut = -1  # the highest index that starts a group to go exactly
                if pa_open and fp + d > fp_stop:
                    cut = top - 1 - int(fp_stop - fp)
                if prbe_left and tp + fp + d >= pos:
                    x = top - int(math.ceil(pos - tp - fp))  # noqa: RUF046 (an int64 in Numba)
                    if x > cut:
                        cut = x
                lo = j
                if cut >= 0:
                    v = q[cut]
                    ghi = cut + 1
                    while ghi < top and q[ghi] == v:
                        ghi += 1
                    lo = cut
                    while lo > j and q[lo - 1] == v:
                        lo -= 1
                    if ghi < top:  # first the groups above it, as one entry
                        lo = ghi
                dn = float(top - lo)
                if pa_open and fp + dn > fp_stop:
                    pa_open = False
                if prbe_left and tp + fp + dn >= pos:
                    prbe_left = False
                fp += dn
                gpos[c] = 0.0
                gneg[c] = dn
                gkey[c] = (np.uint64(0) if q[lo] == 0 else np.uint64(qb[lo])) ^ flip
                c += 1
                top = lo
            if i == 0:
                continue
            v = p[i - 1]
            lo = i - 1
            while lo > 0 and p[lo - 1] == v:
                lo -= 1
            lo_q = j
            while lo_q > 0 and q[lo_q - 1] == v:
                lo_q -= 1
            dp = float(i - lo)
            dn = float(j - lo_q)
            gpos[c] = dp
            gneg[c] = dn
            gkey[c] = (np.uint64(0) if v == 0 else np.uint64(pb[lo])) ^ flip
            c += 1
            i = lo
            j = lo_q
            tp += dp
            if pa_open and fp + dn > fp_stop:
                pa_open = False
            fp += dn
            if prbe_left and tp + fp >= pos:
                prbe_left = False
        total += c
        if not runs:
            sweep_table(gpos, gneg, gkey, c, st, sk)
    return total

