"""DeLong-type intervals for partial ROC areas (``partial_roc_auc_ci``).

Oracles: over the whole box the variance is DeLong's for the AUC
(``roc_auc_ci``); on continuous scores it agrees with the two-sample jackknife of
the public ``partial_roc_auc`` (which for the full AUC is DeLong's variance
exactly, and for partial areas the same to first order); and over repeated
binormal samples the 95% intervals cover the true partial area (integrated from
the binormal ROC curve) about 95% of the time.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest

import fastrank

BOXES = [
    {"fpr": (0, 0.2)},
    {"fpr": (0.1, 0.5)},
    {"tpr": (0.8, 1)},
    {"tpr": (0.3, 0.7)},
    {"fpr": (0, 0.3), "tpr": (0.5, 1)},
]


def _ties(seed, n=300):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.round(y + rng.normal(size=n), 1)
    return y, s


@pytest.mark.parametrize("box", [{}, {"fpr": (0, 1)}, {"tpr": (0, 1)},
                                 {"fpr": (0, 1), "tpr": (0, 1)}])
@pytest.mark.parametrize("seed", range(4))
def test_the_whole_box_is_delongs_auc_interval(box, seed) -> None:
    y, s = _ties(seed)
    got = fastrank.partial_roc_auc_ci(y, s, **box)
    want = fastrank.roc_auc_ci(y, s)
    assert got.estimate == pytest.approx(want.estimate, abs=1e-15)
    assert got.variance == pytest.approx(want.variance, rel=1e-12)
    assert (got.low, got.high) == pytest.approx((want.low, want.high), abs=1e-12)


@pytest.mark.parametrize("box", BOXES)
@pytest.mark.parametrize("correct", [False, True])
def test_the_estimate_is_the_partial_area(box, correct) -> None:
    y, s = _ties(7)
    got = fastrank.partial_roc_auc_ci(y, s, correct=correct, **box)
    assert got.estimate == fastrank.partial_roc_auc(y, s, correct=correct, **box)
    assert got.method == "delong" and got.level == 0.95
    assert got.low <= got.estimate <= got.high


@pytest.mark.parametrize("box", BOXES)
def test_mcclish_maps_the_raw_interval(box) -> None:
    y, s = _ties(3)
    raw = fastrank.partial_roc_auc_ci(y, s, **box)
    std = fastrank.partial_roc_auc_ci(y, s, correct=True, **box)
    a, b = box.get("fpr", (0, 1))
    c, d = box.get("tpr", (0, 1))
    full = (b - a) * (d - c)
    # The diagonal's area in the box: a trapezoid sum over a grid holding every kink
    # of the clipped line is exact.
    xs = np.unique(np.clip(np.r_[np.linspace(a, b, 11), c, d], a, b))
    ys = np.clip(xs, c, d) - c
    diagonal = float(np.sum((xs[1:] - xs[:-1]) * (ys[1:] + ys[:-1])) / 2)

    def mapped(v):
        return 0.5 * (1 + (v - diagonal) / (full - diagonal))

    assert std.se == pytest.approx(raw.se * 0.5 / (full - diagonal), rel=1e-12)
    assert std.low == pytest.approx(mapped(raw.low), abs=1e-12)
    assert std.high == pytest.approx(mapped(raw.high), abs=1e-12)


def _jackknife(y, s, box):
    """The two-sample jackknife variance of partial_roc_auc: leave out each positive,
    then each negative."""
    y = np.asarray(y, bool)
    out = 0.0
    for cls in (True, False):
        rows = np.flatnonzero(y == cls)
        keep = np.ones(y.shape[0], bool)
        loo = []
        for i in rows:
            keep[i] = False
            loo.append(fastrank.partial_roc_auc(y[keep], s[keep], **box))
            keep[i] = True
        loo = np.array(loo)
        k = loo.shape[0]
        out += (k - 1) / k * float(np.sum((loo - loo.mean()) ** 2))
    return out


@pytest.mark.parametrize("box", BOXES)
@pytest.mark.parametrize("seed", range(3))
def test_the_variance_agrees_with_the_jackknife(box, seed) -> None:
    rng = np.random.default_rng(100 + seed)
    n = 400
    y = rng.random(n) < 0.5
    s = y * 1.2 + rng.normal(size=n)
    got = fastrank.partial_roc_auc_ci(y, s, **box).variance
    want = _jackknife(y, s, box)
    assert 0.8 < got / want < 1.25, (got, want)


def test_the_full_auc_variance_is_the_jackknife_exactly() -> None:
    y, s = _ties(1, 120)
    got = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 1)).variance
    assert got == pytest.approx(_jackknife(y, s, {}), rel=1e-9)


_PHI = NormalDist()


def _true_area(box, mu):
    """The binormal ROC curve's area inside the box (positives N(mu, 1), negatives
    N(0, 1)), by the midpoint rule."""
    a, b = box.get("fpr", (0, 1))
    c, d = box.get("tpr", (0, 1))
    k = 20_000
    xs = a + (np.arange(k) + 0.5) * (b - a) / k
    roc = np.array([_PHI.cdf(mu + _PHI.inv_cdf(x)) for x in xs])
    return float(np.mean(np.clip(roc, c, d) - c) * (b - a))


@pytest.mark.parametrize("box", BOXES)
def test_intervals_cover_the_true_area(box) -> None:
    mu, m, reps = 1.0, 150, 300
    truth = _true_area(box, mu)
    rng = np.random.default_rng(42)
    hits = 0
    for _ in range(reps):
        y = np.r_[np.ones(m, bool), np.zeros(m, bool)]
        s = np.r_[rng.normal(mu, 1, m), rng.normal(0, 1, m)]
        ci = fastrank.partial_roc_auc_ci(y, s, **box)
        hits += ci.low <= truth <= ci.high
    assert 0.9 <= hits / reps <= 0.985, (box, hits / reps)


def test_columns_are_the_one_task_intervals() -> None:
    rng = np.random.default_rng(5)
    Y = rng.random((200, 4)) < 0.3
    S = np.round(Y + rng.normal(size=(200, 4)), 1)
    got = fastrank.partial_roc_auc_ci(Y, S, fpr=(0, 0.25))
    for j in range(4):
        one = fastrank.partial_roc_auc_ci(Y[:, j], S[:, j], fpr=(0, 0.25))
        assert (got.estimate[j], got.low[j], got.high[j], got.variance[j]) == \
            (one.estimate, one.low, one.high, one.variance)


def test_a_box_the_curve_does_not_cross_has_no_variance() -> None:
    y = [0, 0, 0, 1, 1, 1]
    s = [.1, .2, .3, .7, .8, .9]  # perfect: TPR is 1 from FPR 0 on
    ci = fastrank.partial_roc_auc_ci(y, s, fpr=(0.2, 0.6))
    assert ci.estimate == pytest.approx(0.4) and ci.variance == 0.0
    assert ci.low == ci.high == ci.estimate


def test_bootstrap_method_is_bootstrap_ci_of_the_readout() -> None:
    y, s = _ties(2, 150)
    got = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.3), method="bootstrap", n_resamples=200,
                                      seed=4)
    want = fastrank.bootstrap_ci("partial_roc_auc", y, s, n_resamples=200, seed=4,
                                 metric_options={"fpr": (0, 0.3)})
    assert got.method == "bootstrap" and (got.low, got.high) == (want.low, want.high)


def test_bad_input_is_refused() -> None:
    y, s = _ties(0, 40)
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.2), sample_weight=np.ones(40))
    with pytest.raises(ValueError, match="method"):
        fastrank.partial_roc_auc_ci(y, s, method="exact")
    with pytest.raises(ValueError, match="fpr must satisfy"):
        fastrank.partial_roc_auc_ci(y, s, fpr=(0.5, 0.2))
    with pytest.raises(ValueError, match="McClish"):
        fastrank.partial_roc_auc_ci(y, s, fpr=(0.5, 1), tpr=(0, 0.5), correct=True)
    with pytest.raises(TypeError, match="correct"):
        fastrank.partial_roc_auc_ci(y, s, correct="yes")


def test_too_few_samples_give_nan_with_one_warning() -> None:
    with pytest.warns(fastrank.UndefinedMetricWarning, match="DeLong variance") as rec:
        ci = fastrank.partial_roc_auc_ci([1, 0, 0], [.9, .1, .3], fpr=(0, 0.5))
    assert len(rec) == 1
    assert math.isnan(ci.variance) and math.isnan(ci.low) and math.isnan(ci.high)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        none = fastrank.partial_roc_auc_ci([0, 0, 0], [.9, .1, .3], fpr=(0, 0.5))
    assert math.isnan(none.estimate)


def test_a_standardised_area_below_chance_is_nan_as_in_proc() -> None:
    y = [1, 1, 1, 0, 0, 0]
    s = [.1, .2, .3, .7, .8, .9]  # every positive below every negative
    with pytest.warns(fastrank.UndefinedMetricWarning, match="below the chance diagonal"):
        ci = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.5), correct=True)
    assert math.isnan(ci.estimate) and math.isnan(ci.low) and math.isnan(ci.high)
    raw = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.5))
    assert raw.estimate == 0.0
