"""Cumulative gain and lift: against brute force over every order of tied samples.

The gain at depth ``k / n`` must be the expected share of the positives among
the first ``k`` samples when ties are broken at random: the mean over every
ranking consistent with the scores (all permutations, for small inputs).
Integer weights must give what repeating each sample that many times gives.
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS

DTYPES = (np.float64, np.float32, np.int64, np.uint8, np.bool_)


def expected_positives_in_top(y: list[int], s: list[float], k: int) -> Fraction:
    """Mean number of positives among the first k over every order consistent with s."""
    total, count = Fraction(0), 0
    for order in itertools.permutations(range(len(y))):
        if any(s[order[i]] < s[order[i + 1]] for i in range(len(y) - 1)):
            continue  # not a ranking by score
        total += sum(y[i] for i in order[:k])
        count += 1
    return total / count


small = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n),  # three values: ties galore
))


@PROPERTY_SETTINGS
@given(small)
def test_gain_at_every_depth_is_the_expectation_over_tie_orders(case) -> None:
    y, s = case
    if sum(y) == 0:
        y[0] = 1
    n, pos = len(y), sum(y)
    for dtype in DTYPES:
        scores = np.array(s).astype(dtype)
        ranked = scores.astype(np.float64).tolist()  # bool merges 1 and 2
        got = fastrank.gain_at_depth(y, scores, [k / n for k in range(n + 1)])
        for k in range(n + 1):
            want = expected_positives_in_top(y, ranked, k) / pos
            assert math.isclose(got[k], float(want), rel_tol=1e-14, abs_tol=1e-15), (k, dtype)
            if k:
                lift = fastrank.lift_at_depth(y, scores, k / n)
                assert math.isclose(lift, float(want * n / k), rel_tol=1e-14)


@PROPERTY_SETTINGS
@given(small, st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_integer_weights_are_repeated_samples(case, w) -> None:
    y, s = case
    w = w[:len(y)]
    if sum(wi for wi, yi in zip(w, y, strict=True) if yi) == 0 or sum(w) == 0:
        return
    rep_y = [yi for yi, wi in zip(y, w, strict=True) for _ in range(wi)]
    rep_s = [si for si, wi in zip(s, w, strict=True) for _ in range(wi)]
    depths = np.linspace(0, 1, 13)
    np.testing.assert_allclose(
        fastrank.gain_at_depth(y, s, depths, sample_weight=w),
        fastrank.gain_at_depth(rep_y, rep_s, depths), rtol=1e-14, atol=1e-15)
    d1, g1, t1 = fastrank.cumulative_gain_curve(y, s, sample_weight=w)
    d2, g2, t2 = fastrank.cumulative_gain_curve(rep_y, rep_s)
    np.testing.assert_array_equal(t1, t2)  # zero-weight samples are no cutoffs
    np.testing.assert_allclose(d1, d2, rtol=1e-15)
    np.testing.assert_allclose(g1, g2, rtol=1e-15)


def test_curves_by_hand() -> None:
    y, s = [1, 0, 1, 0, 0, 1], [.9, .8, .8, .3, .3, .1]
    depth, gain, thr = fastrank.cumulative_gain_curve(y, s)
    assert depth.tolist() == [0.0, 1 / 6, 0.5, 5 / 6, 1.0]
    assert gain.tolist() == [0.0, 1 / 3, 2 / 3, 2 / 3, 1.0]
    assert thr.tolist() == [math.inf, .9, .8, .3, .1]
    d, lift, t = fastrank.lift_curve(y, s)
    np.testing.assert_allclose(lift, [2.0, 4 / 3, 0.8, 1.0], rtol=1e-15)
    assert t.tolist() == [.9, .8, .3, .1] and d.tolist() == depth[1:].tolist()
    assert fastrank.lift_at_depth(y, s, 0.0) == 2.0  # the top group's lift
    assert fastrank.gain_at_depth(y, s, 1 / 3) == pytest.approx(0.5, rel=1e-15)


def test_the_curve_does_not_depend_on_the_input_order() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(size=500), 1)
    perm = rng.permutation(500)
    for a, b in zip(fastrank.cumulative_gain_curve(y, s),
                    fastrank.cumulative_gain_curve(y[perm], s[perm]), strict=True):
        np.testing.assert_array_equal(a, b)
    depths = rng.random(50)
    np.testing.assert_array_equal(fastrank.gain_at_depth(y, s, depths),
                                  fastrank.gain_at_depth(y[perm], s[perm], depths))


def test_pos_label_and_no_negatives() -> None:
    y = ["a", "b", "a", "b"]
    s = [.4, .3, .2, .1]
    assert fastrank.gain_at_depth(y, s, 0.5, pos_label="a") == 0.5
    assert fastrank.gain_at_depth(y, s, 0.5, pos_label="b") == 0.5
    depth, gain, _ = fastrank.cumulative_gain_curve([1, 1, 1], [.3, .2, .2])
    np.testing.assert_array_equal(depth, gain)  # every sample positive: gain = depth
    assert fastrank.lift_at_depth([1, 1, 1], [.3, .2, .2], 0.4) == 1.0


def test_no_positives_is_nan_with_one_warning() -> None:
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no positive samples") as rec:
        assert math.isnan(fastrank.gain_at_depth([0, 0, 0], [.1, .2, .3], 0.5))
    assert len(rec) == 1
    with pytest.warns(fastrank.UndefinedMetricWarning):
        _, gain, _ = fastrank.cumulative_gain_curve([0, 0], [.1, .2])
    assert np.isnan(gain).all()


@pytest.mark.parametrize("depth", [-0.1, 1.5, math.nan, math.inf, [0.2, 2.0]])
def test_depth_outside_zero_one_is_refused(depth) -> None:
    with pytest.raises(ValueError, match=r"depth must lie in \[0, 1\]"):
        fastrank.gain_at_depth([1, 0], [.2, .1], depth)


def test_bad_input_is_refused_as_by_every_curve() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        fastrank.cumulative_gain_curve([1, 0], [math.nan, .1])
    with pytest.raises(ValueError):
        fastrank.lift_curve([1, 0, 1], [.1, .2])
    with pytest.raises(ValueError, match="1-D"):
        fastrank.gain_at_depth([1, 0], [.2, .1], [[0.5]])


ZERO_WEIGHT_REPRODUCER = """
import warnings
import numpy as np
import fastrank
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    for y, s, w in (([1], [0.5], [0.0]), ([1, 0], [0.5, 0.2], [0, 0])):
        depth, gain, thr = fastrank.cumulative_gain_curve(y, s, sample_weight=w)
        assert depth.tolist() == [0.0] and np.isnan(gain).all() and thr.tolist() == [np.inf]
        depth, lift, thr = fastrank.lift_curve(y, s, sample_weight=w)
        assert depth.size == lift.size == thr.size == 0
        assert np.isnan(fastrank.gain_at_depth(y, s, 0.5, sample_weight=w))
        assert np.isnan(fastrank.lift_at_depth(y, s, [0.0, 0.5], sample_weight=w)).all()
    ev = fastrank.evaluate({"m": np.array([0.5, 0.2])}, np.array([1, 0]),
                           sample_weight=np.array([0.0, 0.0]))
    assert np.isnan(ev.gains([0.25, 0.5], as_frame=False)["lift"]).all()
assert seen and all(issubclass(x.category, fastrank.UndefinedMetricWarning) for x in seen)
print("ok")
"""


def test_every_weight_zero_is_nan_with_a_warning_not_a_crash() -> None:
    """All weights zero left no distinct score: the gain and lift curves indexed the
    last of none (IndexError). Run where a crash cannot take the test process."""
    import subprocess

    proc = subprocess.run([sys.executable, "-c", ZERO_WEIGHT_REPRODUCER], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
