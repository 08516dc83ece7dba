"""Partial ROC areas over FPR, TPR and two-way boxes, against independent oracles.

- An exact oracle in rational arithmetic: the ROC points as fractions, each
  piece integrated over the box by its own loop (solving where the line meets
  each edge), for small tied inputs and boxes with rational edges.
- scikit-learn's ``roc_auc_score(max_fpr=m)`` is the McClish-standardised FPR
  box ``(0, m)``; the whole square is the AUC.
- The TPR band of a task is the FPR range ``(1 - b, 1 - a)`` of the task with
  its classes swapped and its scores negated (the curve mirrored).
- Integer weights are repeated samples.
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS

DTYPES = (np.float64, np.float32, np.int32, np.uint8)


def roc_points(y: list[int], s: list[float]) -> list[tuple[Fraction, Fraction]]:
    """(FPR, TPR) at every distinct score, highest first, from (0, 0), exactly."""
    pos, neg = sum(y), len(y) - sum(y)
    points = [(Fraction(0), Fraction(0))]
    tp = fp = 0
    for v in sorted(set(s), reverse=True):
        tp += sum(1 for yi, si in zip(y, s, strict=True) if si == v and yi)
        fp += sum(1 for yi, si in zip(y, s, strict=True) if si == v and not yi)
        points.append((Fraction(fp, neg), Fraction(tp, pos)))
    return points


def exact_box_area(points, fpr, tpr) -> Fraction:
    """Area under the polyline inside the box, piece by piece in rationals."""
    (a, b), (lo, hi) = fpr, tpr
    total = Fraction(0)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x1 == x0:
            continue
        slope = (y1 - y0) / (x1 - x0)

        def y_at(x, x0=x0, y0=y0, slope=slope):
            return y0 + slope * (x - x0)

        left, right = max(x0, a), min(x1, b)
        if left >= right:
            continue
        # Where the line crosses the box's bottom and top, inside [left, right].
        stops = {left, right}
        if slope != 0:
            for level in (lo, hi):
                x = x0 + (level - y0) / slope
                if left < x < right:
                    stops.add(x)
        for u, v in itertools.pairwise(sorted(stops)):
            mid = y_at((u + v) / 2)
            if mid <= lo:
                continue
            if mid >= hi:
                total += (v - u) * (hi - lo)
            else:
                total += (v - u) * ((y_at(u) + y_at(v)) / 2 - lo)
    return total


edge = st.integers(0, 8).map(lambda k: Fraction(k, 8))
box = st.tuples(edge, edge).filter(lambda p: p[0] < p[1])

small = st.integers(3, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
))


@PROPERTY_SETTINGS
@given(small, box, box, st.sampled_from(DTYPES))
def test_exact_rational_oracle(case, fpr, tpr, dtype) -> None:
    y, s = case
    y[:2] = [0, 1]
    exact = exact_box_area(roc_points(y, s), fpr, tpr)
    got = fastrank.partial_roc_auc(y, np.array(s, dtype=dtype), fpr=tuple(map(float, fpr)),
                                   tpr=tuple(map(float, tpr)))
    assert math.isclose(got, float(exact), rel_tol=1e-14, abs_tol=1e-15)


@PROPERTY_SETTINGS
@given(small, st.sampled_from([0.05, 0.1, 0.25, 1 / 3, 0.5, 0.8, 1.0]))
def test_mcclish_fpr_box_is_sklearn_max_fpr(case, m) -> None:
    y, s = case
    y[:2] = [0, 1]
    want = skm.roc_auc_score(y, s, max_fpr=m)
    assert math.isclose(fastrank.roc_auc(y, s, max_fpr=m), want, rel_tol=0, abs_tol=1e-12)
    if want < 0.5 - 1e-12:  # below chance: pROC's NaN (max_fpr keeps scikit-learn's value)
        with pytest.warns(fastrank.UndefinedMetricWarning, match="below the chance diagonal"):
            assert math.isnan(fastrank.partial_roc_auc(y, s, fpr=(0, m), correct=True))
        return
    got = fastrank.partial_roc_auc(y, s, fpr=(0, m), correct=True)
    assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12)
    assert math.isclose(got, fastrank.roc_auc(y, s, max_fpr=m), rel_tol=0, abs_tol=1e-14)


def test_whole_square_is_the_auc_and_ranges_add_up() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(20, 2000))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = np.round(y + rng.normal(size=n), int(rng.integers(0, 3)))
        assert math.isclose(fastrank.partial_roc_auc(y, s), fastrank.roc_auc(y, s),
                            rel_tol=1e-14)
        a, b = np.sort(rng.random(2))
        for kw in ("fpr", "tpr"):
            whole = fastrank.partial_roc_auc(y, s, **{kw: (0, b)})
            parts = (fastrank.partial_roc_auc(y, s, **{kw: (0, a)})
                     + fastrank.partial_roc_auc(y, s, **{kw: (a, b)}))
            assert math.isclose(whole, parts, rel_tol=1e-13, abs_tol=1e-15)


def test_tpr_band_is_the_mirrored_tasks_fpr_range() -> None:
    rng = np.random.default_rng(12)
    for _ in range(20):
        n = int(rng.integers(20, 2000))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = np.round(y + rng.normal(size=n), 1)
        a, b = np.sort(rng.random(2))
        band = fastrank.partial_roc_auc(y, s, tpr=(a, b))
        mirrored = fastrank.partial_roc_auc(1 - y, -s, fpr=(1 - b, 1 - a))
        assert math.isclose(band, mirrored, rel_tol=1e-13, abs_tol=1e-15)
        assert math.isclose(
            fastrank.partial_roc_auc(y, s, tpr=(a, b), correct=True),
            fastrank.partial_roc_auc(1 - y, -s, fpr=(1 - b, 1 - a), correct=True),
            rel_tol=1e-13)


def test_perfect_and_reversed_rankings() -> None:
    y = np.array([0] * 50 + [1] * 50)
    s = np.arange(100.0)
    for fpr, tpr in (((0, .1), (0, 1)), ((0, 1), (.9, 1)), ((0, .2), (.7, 1)),
                     ((.3, .6), (.2, .5))):
        box = (fpr[1] - fpr[0]) * (tpr[1] - tpr[0])
        assert fastrank.partial_roc_auc(y, s, fpr=fpr, tpr=tpr) == pytest.approx(box, rel=1e-15)
        assert fastrank.partial_roc_auc(y, s, fpr=fpr, tpr=tpr, correct=True) == 1.0
        assert fastrank.partial_roc_auc(y, -s, fpr=fpr, tpr=tpr) == 0.0
    # All scores tied: the curve is the diagonal, McClish gives 0.5.
    assert fastrank.partial_roc_auc(y, np.zeros(100), fpr=(0, .3), correct=True) == 0.5
    assert fastrank.partial_roc_auc(y, np.zeros(100), tpr=(.6, 1), correct=True) == 0.5


@PROPERTY_SETTINGS
@given(small, st.lists(st.integers(0, 3), min_size=12, max_size=12), box, box)
def test_integer_weights_are_repeated_samples(case, w, fpr, tpr) -> None:
    y, s = case
    w = w[:len(y)]
    y[:2] = [0, 1]
    w[:2] = [1, 1]
    rep_y = [yi for yi, wi in zip(y, w, strict=True) for _ in range(wi)]
    rep_s = [si for si, wi in zip(s, w, strict=True) for _ in range(wi)]
    kw = {"fpr": tuple(map(float, fpr)), "tpr": tuple(map(float, tpr))}
    assert math.isclose(fastrank.partial_roc_auc(y, s, sample_weight=w, **kw),
                        fastrank.partial_roc_auc(rep_y, rep_s, **kw), rel_tol=1e-13,
                        abs_tol=1e-15)


def test_one_class_is_nan_with_one_warning() -> None:
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no negative samples") as rec:
        assert math.isnan(fastrank.partial_roc_auc([1, 1], [.2, .3], fpr=(0, .5)))
    assert len(rec) == 1


def test_mcclish_under_the_diagonal_is_undefined() -> None:
    y, s = [0, 1, 0, 1], [.1, .9, .4, .3]
    with pytest.warns(fastrank.UndefinedMetricWarning, match="chance diagonal"):
        assert math.isnan(fastrank.partial_roc_auc(y, s, fpr=(.5, 1), tpr=(0, .5),
                                                   correct=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fastrank.partial_roc_auc(y, s, fpr=(.5, 1), tpr=(0, .5)) == 0.25


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"fpr": (0.5, 0.5)}, r"fpr must satisfy 0 <= low < high <= 1"),
    ({"fpr": (-0.1, 0.5)}, r"fpr must satisfy"),
    ({"tpr": (0.2, 1.5)}, r"tpr must satisfy"),
    ({"tpr": (0.2, math.nan)}, r"tpr must satisfy"),
    ({"fpr": 0.1}, r"fpr must be a pair \(low, high\)"),
    ({"fpr": (0, 0.1, 0.2)}, r"fpr must be a pair"),
])
def test_bad_ranges(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        fastrank.partial_roc_auc([0, 1], [.1, .2], **kwargs)


def test_bad_correct_and_bad_input() -> None:
    with pytest.raises(TypeError, match="correct must be True or False"):
        fastrank.partial_roc_auc([0, 1], [.1, .2], correct="yes")
    with pytest.raises(ValueError, match="non-finite"):
        fastrank.partial_roc_auc([0, 1], [math.inf, .2])
