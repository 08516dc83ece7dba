"""Weighted sums are exact whatever the two classes' scales.

Each class keeps its running totals in fixed-point units fixed by its own
largest weight, so a light class next to a heavy one (or a light task next
to a heavy one in a batch) loses no bits. Checked against exact rational
oracles on every entry point that sums weights: one task, a 2-D batch (small
tasks in one kernel call and large tasks through the one-task engine), groups,
the evaluation entry and the bootstrap of one resample drawn as the data.
"""

from __future__ import annotations

import functools
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank._core import score_ranges

from . import fresh, oracles


def _close(got: float, want: float, rel: float = 4e-16) -> bool:
    return abs(got - float(want)) <= rel * max(1.0, abs(float(want)))


@st.composite
def scaled_classes(draw, max_n: int = 30):  # type: ignore[no-untyped-def]
    """Tied scores, positives weighted around 2**a and negatives around 2**b."""
    n = draw(st.integers(2, max_n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y[0], y[1] = 1, 0
    s = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    a = draw(st.integers(-1000, 1000))
    b = draw(st.integers(-1000, 1000))
    if abs(a - b) > 1800:
        b = a
    mant = draw(st.lists(st.integers(1, 2**20), min_size=n, max_size=n))
    w = [math.ldexp(m, (a if yi else b) - 20) for m, yi in zip(mant, y, strict=True)]
    return np.array(y), np.array(s, np.float64), np.array(w)


@settings(max_examples=150, deadline=None)
@given(scaled_classes())
def test_one_task_exact_for_any_class_scales(case):
    y, s, w = case
    assert _close(fastrank.roc_auc(y, s, sample_weight=w), oracles.roc_auc_pairwise(y, s, w))
    assert _close(fastrank.average_precision(y, s, sample_weight=w),
                  oracles.average_precision(y, s, w))
    m = fastrank.all_metrics(y, s, sample_weight=w)
    assert _close(m.roc_auc, oracles.roc_auc_pairwise(y, s, w))


@settings(max_examples=60, deadline=None)
@given(scaled_classes(), scaled_classes())
def test_batch_tasks_keep_their_own_scale(first, second):
    """Two tasks with unrelated scales in one call: each equals its own call."""
    (y1, s1, w1), (y2, s2, w2) = first, second
    n = min(len(y1), len(y2))
    y1, s1, w1, y2, s2, w2 = y1[:n], s1[:n], w1[:n], y2[:n], s2[:n], w2[:n]
    if not (y1.any() and (~y1.astype(bool)).any() and y2.any() and (~y2.astype(bool)).any()):
        return
    # Shared weights: task 2 sees task 1's weights; per-class scales still differ.
    got = fastrank.roc_auc(np.c_[y1, y2], np.c_[s1, s2], sample_weight=w1, average=None)
    assert _close(got[0], oracles.roc_auc_pairwise(y1, s1, w1))
    assert _close(got[1], oracles.roc_auc_pairwise(y2, s2, w1))
    groups = np.r_[np.zeros(n, int), np.ones(n, int)]
    g = fastrank.roc_auc(np.r_[y1, y2], np.r_[s1, s2], sample_weight=np.r_[w1, w2],
                         groups=groups, average=None)
    assert _close(g.values[0], oracles.roc_auc_pairwise(y1, s1, w1))
    assert _close(g.values[1], oracles.roc_auc_pairwise(y2, s2, w2))


def test_light_class_next_to_a_heavy_one():
    """The case that lost the positives' bits when both classes shared one unit."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(10, int), np.zeros(10, int)]
    s = rng.random(20)
    for big in (1e30, 1e38, 1e300):
        w = np.r_[1 + rng.random(10), np.full(10, big)]
        want = oracles.roc_auc_pairwise(y, s, w)
        assert _close(fastrank.roc_auc(y, s, sample_weight=w), want)
        entry = fastrank.evaluate(s, y, sample_weight=w).entries[0]
        assert _close(entry.metrics.roc_auc, want)


def test_large_tasks_in_a_batch_use_their_own_bounds():
    """Tasks above the in-kernel size go through the one-task engine."""
    rng = np.random.default_rng(1)
    n = 6000
    y = (rng.random((n, 2)) < 0.3).astype(int)
    s = rng.integers(0, 50, (n, 2)).astype(np.float64)
    w = np.where(y[:, 0] == 1, 2.0**-600, 2.0**600) * (1 + rng.integers(0, 8, n))
    got = fastrank.roc_auc(y, s, sample_weight=w, average=None)
    for j in range(2):
        assert got[j] == fastrank.roc_auc(y[:, j], s[:, j], sample_weight=w)
    # The first column's classes are 2**1200 apart: check it exactly on a sample.
    small = slice(0, 300)
    want = oracles.roc_auc_pairwise(y[small, 0], s[small, 0], w[small])
    assert _close(fastrank.roc_auc(y[small, 0], s[small, 0], sample_weight=w[small]), want)


def test_weighted_table_matches_the_sweep():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 500)
    s = rng.integers(0, 30, 500).astype(np.float32)
    w = np.where(y == 1, 1e-250, 1e250) * rng.random(500)
    one = fastrank.all_metrics(y, s, sample_weight=w)
    ev = fastrank.evaluate(s, y, sample_weight=w).entries[0].metrics
    assert one.roc_auc == ev.roc_auc
    assert one.average_precision == ev.average_precision
    assert one.pr_auc == ev.pr_auc


def test_weights_summing_beyond_float64_are_refused():
    y = np.r_[np.ones(10, int), np.zeros(10, int)]
    s = np.arange(20.0)
    w = np.r_[np.full(10, 2.0**1023), np.ones(10)]
    with pytest.raises(ValueError, match="sample_weight sums to more than float64"):
        fastrank.roc_auc(y, s, sample_weight=w)


def test_weights_near_float64_max_give_the_value_in_a_subprocess():
    code = (
        "import numpy as np, fastrank, warnings\n"
        "warnings.simplefilter('error')\n"
        "y = np.r_[1, 1, 0, 0]; s = np.array([0.9, 0.2, 0.5, 0.1])\n"
        "w = np.array([2.0**1023, 1.0, 1.0, 2.0**-1000])\n"
        "print(repr(fastrank.roc_auc(y, s, sample_weight=w)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    y = [1, 1, 0, 0]
    s = [0.9, 0.2, 0.5, 0.1]
    w = [2.0**1023, 1.0, 1.0, 2.0**-1000]
    assert _close(float(out.stdout), oracles.roc_auc_pairwise(y, s, w))


def test_bounds_are_per_class():
    y = np.r_[1, 1, 0, 0, 0]
    w = np.array([4.0, 1.0, 2.0, 8.0, 1.0])
    t = fastrank._core.inputs.task(y, np.arange(5.0), w)
    assert t.bounds == (4.0 * 2, 8.0 * 3)
    assert score_ranges.weighted_state(t.bounds, 1.0, 0)[0] is not None


@functools.cache
def _compiled_fx_value():
    """The kernels' fx_value, as kernels call it (helpers have no Python entry)."""
    import numba

    from fastrank._kernels import sweep

    return numba.njit(lambda hi, lo, e: sweep.fx_value(hi, lo, e))


@settings(max_examples=400, deadline=None)
@given(value=st.one_of(st.integers(-(2**127), 2**127 - 1),
                       st.integers(-(2**70), 2**70),
                       st.integers(0, 60).flatmap(
                           lambda k: st.integers(2**53 * 2**k - 64, 2**53 * 2**k + 64))),
       e=st.integers(-300, 300))
def test_fixed_point_to_float_is_correctly_rounded(value, e):
    """A fixed-point sum becomes the float nearest to it (ties to even), in the kernels
    and in Python alike: the rounding may not depend on how the 128 bits split into
    two words, or a sum kept in other units (another task size, another scale) would
    round differently. Near-midpoint values (2**53 * 2**k + small) are drawn on purpose."""
    from fractions import Fraction

    from fastrank._kernels import sweep

    bits = value & ((1 << 128) - 1)
    hi, lo = np.uint64(bits >> 64), np.uint64(bits & ((1 << 64) - 1))
    want = float(Fraction(value) * Fraction(2) ** e)  # correctly rounded
    assert _compiled_fx_value()(hi, lo, float(e)) == want
    assert sweep.fx_to_float(int(hi), int(lo), float(e)) == want


def test_zero_weight_samples_do_not_change_group_totals():
    """The totals of a tie group do not depend on zero-weight samples next to them
    (which change the task size, hence the units the sums are kept in): each group's
    total is its exact sum rounded once, and the curves are their running sums."""
    from fractions import Fraction

    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(4, 40))
        y = rng.random(n) < 0.5
        s = rng.integers(0, 4, n).astype(np.float64)
        w = rng.choice([0.5, 1.00001, 2.0, rng.uniform(0, 40), rng.uniform(0, 1)], n)
        w[rng.random(n) < 0.5] = 0.0
        keep = w > 0
        if not keep.any():
            continue
        levels = sorted(set(s[keep].tolist()), reverse=True)

        def group_sums(cls, yy, ss, ww, levels=levels):
            return np.array([float(sum((Fraction(x) for x, yv, sv in zip(ww, yy, ss, strict=True)
                                        if yv == cls and sv == v), Fraction(0)))
                             for v in levels])

        want_tps = np.cumsum(group_sums(True, y, s, w))
        want_fps = np.cumsum(group_sums(False, y, s, w))
        for yy, ss, ww in ((y, s, w), (y[keep], s[keep], w[keep])):
            _, fps, _, tps, thr = fastrank.confusion_matrix_at_thresholds(yy, ss, sample_weight=ww)
            np.testing.assert_array_equal(thr, levels)
            np.testing.assert_array_equal(tps, want_tps)
            np.testing.assert_array_equal(fps, want_fps)


@functools.cache
def _group_weight_both():  # type: ignore[no-untyped-def]
    import numba

    from fastrank._kernels import sweep

    def both(xs, es, fast, general):  # type: ignore[no-untyped-def]
        for i in range(xs.shape[0]):
            scale = 2.0 ** -es[i]
            fast[i] = sweep._group_weight(xs, i, i + 1, scale, es[i])
            h, low, r = sweep.fx_add_rem(np.uint64(0), np.uint64(0), xs[i], scale, es[i])
            general[i] = sweep.fx_value(h, low, es[i]) + (0.0 + r)  # the loop, for one weight

    return numba.njit(both)


def test_a_one_weight_group_is_the_general_sum_bit_for_bit():
    """A tie group of one weight skips the fixed-point loop: the float it returns must
    be the general path's, for weights anywhere in float64's range against units
    anywhere a class's largest weight can put them (a weight far below its unit,
    down to one that underflows to zero there, included), and both the weight
    itself: none is lost (they once dropped a weight that underflowed)."""
    rng = np.random.default_rng(3)
    n = 200_000
    xs = np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(-1074, 1000, n))
    xs[:1000] = np.ldexp(1.0, rng.integers(-1074, -1000, 1000))  # subnormal weights
    top = np.floor(np.log2(xs)).astype(np.int64)  # the weight's own exponent
    # the unit's exponent: from just fitting (x below 2**124 units) to far above x
    es = np.clip(top - 123 + rng.integers(0, 1300, n), -1022, 1023).astype(np.float64)
    fast, general = np.empty(n), np.empty(n)
    _group_weight_both()(xs, es, fast, general)
    assert np.array_equal(fast.view(np.uint64), general.view(np.uint64))
    assert np.array_equal(fast.view(np.uint64), xs.view(np.uint64))
    assert (xs * 2.0 ** -es == 0.0).any()  # weights that underflow in their unit were drawn


def test_a_weight_below_its_units_keeps_its_place_in_a_subprocess():
    """A negative weight whose class's fixed-point unit puts it below float64's range
    (1e-100 beside 1e300) was dropped from the running FP (its remainder taken as 0
    where ``x * scale`` underflowed): the precision at the positive's threshold was
    1.0 where scikit-learn's exact 1e-100 is right, and AP 1.0. Now the curve is
    scikit-learn's, and AP is within the fixed point's reach of the exact 1e-100.
    Run fresh, as a user's script would."""
    code = (
        "import numpy as np, fastrank\n"
        "y, s, w = np.array([1, 0, 0]), np.array([1., 2., 0.]), np.array([1e-200, 1e-100, 1e300])\n"
        "p, r, t = fastrank.precision_recall_curve(y, s, sample_weight=w)\n"
        "assert p.tolist() == [0.0, 1e-100, 0.0, 1.0] and t.tolist() == [0.0, 1.0, 2.0], p\n"
        "ap = fastrank.average_precision(y, s, sample_weight=w)\n"
        "assert abs(ap - 1e-100) < 1e-30, ap\n"
        "batch = fastrank.average_precision(np.tile(y[:, None], (1, 70)),\n"
        "                                   np.tile(s[:, None], (1, 70)), sample_weight=w,\n"
        "                                   average=None)\n"
        "assert (batch == ap).all(), batch\n"
        "print('ok')\n"
    )
    fresh.assert_prints_ok(code)


def test_curves_refuse_a_weight_their_units_lose():
    """A weight its task's units put below float64's range counts as 0 in every total;
    its class's rates move by less than 2**-184 (the AUC), but a curve point made of
    such weights alone would be wrong (a threshold gone, a precision of 0 for 0.5), so
    the curves refuse it, saying why; the metrics of precision where it is a negative
    they would read (next test)."""
    y, s, w = np.array([1, 0, 1]), np.array([3.0, 2.0, 1.0]), np.array([1e-300, 1e-300, 1e300])
    assert fastrank.roc_auc(y, s, sample_weight=w) == 0.0  # (exact: about 1e-600)
    assert fastrank.average_precision(y, s, sample_weight=w) == 1.0  # (a lost positive)
    for curve in (fastrank.precision_recall_curve, fastrank.roc_curve, fastrank.det_curve):
        with pytest.raises(ValueError, match=r"sample_weight holds 1e-300, more than "
                                             r"float64's range below"):
            curve(y, s, sample_weight=w)


def test_a_weight_lost_within_its_class_is_refused_where_precision_reads_it() -> None:
    """A negative of weight 2**-1000 next to one of 2**1000 is below its class's unit;
    precision adds it to the positives' 2**-1000 each: AP, PR AUC and PRBE were 1.0
    (exact: 0.5833, 0.4507, 0.5). Refused now, one task or a batch's; the AUC, which
    takes each class apart, keeps its value; at 2**+-900 every value is exact."""
    y, s = [1, 0, 0, 1], [0.5, 0.9, 0.1, 0.3]
    for j, ok in ((900, True), (1000, False)):
        w = [2.0**-j, 2.0**-j, 2.0**j, 2.0**-j]
        assert fastrank.roc_auc(y, s, sample_weight=w) == 1.0
        for f in (fastrank.average_precision, fastrank.pr_auc, fastrank.prbe,
                  fastrank.all_metrics):
            if ok:
                f(y, s, sample_weight=w)
            else:
                with pytest.raises(ValueError, match="precision adds it"):
                    f(y, s, sample_weight=w)
        if ok:
            assert fastrank.average_precision(y, s, sample_weight=w) == pytest.approx(7 / 12)
            assert fastrank.prbe(y, s, sample_weight=w) == 0.5
    w = [2.0**-1000, 2.0**-1000, 2.0**1000, 2.0**-1000]
    two = np.array([y, y]).T, np.array([s, s]).T
    for average in ("macro", "micro", None):
        with pytest.raises(ValueError, match="precision adds it"):
            fastrank.average_precision(*two, sample_weight=w, average=average)
    assert fastrank.roc_auc(*two, sample_weight=w, average="micro") == 1.0
