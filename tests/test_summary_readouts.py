"""Readouts (operating points, best cutoffs, partial areas) from a BinnedSummary.

Oracles: the one-shot readout of the rows that went in must lie within the
certified bounds, whatever the bins, ties and weights; the estimate's cutoff is
checked against the rows directly (the rate the rule "score >= threshold"
gives); with one bin per value (quantized, declared values) the result is the
one-shot readout itself.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS

CASES = [
    ("sensitivity_at_specificity", {"min_specificity": 0.9}),
    ("sensitivity_at_specificity", {"min_specificity": 0.7, "interpolate": True}),
    ("specificity_at_sensitivity", {"min_sensitivity": 0.8}),
    ("specificity_at_sensitivity", {"min_sensitivity": 0.5, "interpolate": True}),
    ("recall_at_precision", {"min_precision": 0.6}),
    ("recall_at_precision", {"min_precision": 0.4, "interpolate": True}),
    ("precision_at_recall", {"min_recall": 0.5}),
    ("precision_at_recall", {"min_recall": 0.3, "interpolate": True}),
    ("best_cutoff", {}),
    ("best_cutoff", {"criterion": "mcc"}),
    ("best_cutoff", {"criterion": "closest_topleft", "cost": 2.0, "prevalence": 0.3}),
    ("partial_roc_auc", {"fpr": (0, 0.3)}),
    ("partial_roc_auc", {"tpr": (0.6, 1), "correct": True}),
    ("partial_roc_auc", {"fpr": (0, 0.4), "tpr": (0.5, 1)}),
    ("partial_pr_auc", {"recall": (0.2, 0.9)}),
]
BOUND = {"sensitivity_at_specificity": "min_specificity",
         "specificity_at_sensitivity": "min_sensitivity",
         "recall_at_precision": "min_precision", "precision_at_recall": "min_recall"}


def one_shot(name, y, s, w, options):
    """The readout's value and threshold (None for areas) from the one-shot function."""
    kw = dict(options)
    args = (kw.pop(BOUND[name]),) if name in BOUND else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = getattr(fastrank, name)(y, s, *args, sample_weight=w, **kw)
    if isinstance(got, tuple):
        return float(got.value), float(got.threshold)
    return float(got), None


def rule_rate(name, y, s, w, threshold, options):
    """The rate (or criterion) the rule ``s >= threshold`` gives on the rows."""
    y = np.asarray(y, bool)
    w = np.ones(y.shape[0]) if w is None else np.asarray(w, np.float64)
    flagged = np.asarray(s, np.float64) >= threshold
    tp, fp = float(w[flagged & y].sum()), float(w[flagged & ~y].sum())
    pos, neg = float(w[y].sum()), float(w[~y].sum())
    if name == "sensitivity_at_specificity":
        return tp / pos
    if name == "specificity_at_sensitivity":
        return (neg - fp) / neg
    if name == "recall_at_precision":
        return tp / pos
    if name == "precision_at_recall":
        return tp / (tp + fp)
    from fastrank.readouts import _criterion_options, criterion_values

    o = _criterion_options(options)
    return float(criterion_values(np.array([fp]), np.array([tp]), o["criterion"], beta=o["beta"],
                                  ratio=o["ratio"], totals=(pos, neg))[0])


def summary(y, s, w, **kw):
    b = fastrank.BinnedSummary(**kw)
    b.update(y, s, sample_weight=w)
    return b


def _quiet(b, name, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        return b.compute(name, **options)


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(st.data())
def test_the_rows_readout_lies_within_the_bounds(data) -> None:
    n = data.draw(st.integers(2, 120))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), bool)
    y[:2] = [True, False]
    s = np.array(data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))) / 40.0
    w = None
    if data.draw(st.booleans()):
        w = np.array(data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), float)
    bins = data.draw(st.sampled_from([1, 2, 3, 7, 16, 41]))
    name, options = data.draw(st.sampled_from(CASES))
    b = summary(y, s, w, bins=bins)
    got = _quiet(b, name, options)
    want, _ = one_shot(name, y, s, w, options)
    if math.isnan(want) and options.get("correct"):  # the rows' area is below chance
        assert got.low <= 0.5 or math.isnan(got.estimate)
        return
    if math.isnan(want):
        assert math.isnan(got.estimate)
        return
    assert got.low <= want <= got.high, (name, options, bins, got, want)
    assert got.low <= got.estimate <= got.high
    if (name in BOUND and not options.get("interpolate")) or name == "best_cutoff":
        # the estimate is what its cutoff gives the rows, exactly (up to rounding)
        rate = rule_rate(name, y, s, w, got.threshold, options)
        assert abs(rate - got.estimate) <= 1e-12, (got, rate)


@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("mode", ["quantized", "values"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_bin_per_value_is_the_one_shot_readout(name, options, mode, weighted) -> None:
    rng = np.random.default_rng(3)
    n = 3000
    y = rng.random(n) < 0.3
    s = np.clip(np.round(rng.normal(size=n) * 20 + 30 * y), -128, 127).astype(np.int8)
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    kw = {"quantized": "int8"} if mode == "quantized" else {"values": np.unique(s)}
    got = _quiet(summary(y, s, w, **kw), name, options)
    want, threshold = one_shot(name, y, s, w, options)
    assert got.exact and got.low == got.estimate == got.high
    if name.startswith("partial_") or weighted:
        assert got.estimate == pytest.approx(want, rel=1e-13, abs=1e-15)
    else:
        assert got.estimate == want
    assert got.threshold == threshold


@pytest.mark.parametrize(("name", "options"), CASES)
def test_columns_and_averages(name, options) -> None:
    rng = np.random.default_rng(9)
    Y = rng.random((2000, 3)) < 0.25
    S = np.clip(rng.random((2000, 3)) * 0.6 + 0.4 * Y, 0, 1)
    b = summary(Y, S, None, bins=64)
    got = _quiet(b, name, options)
    for j in range(3):
        one = _quiet(summary(Y[:, j], S[:, j], None, bins=64), name, options)
        assert (got.estimate[j], got.low[j], got.high[j]) == (one.estimate, one.low, one.high)
        if one.threshold is not None:
            assert got.threshold[j] == one.threshold
    mean = _quiet(b, name, dict(options, average="macro"))
    assert mean.estimate == pytest.approx(np.mean(got.estimate))
    assert mean.low == pytest.approx(np.mean(got.low))
    assert mean.threshold is None


def test_many_bins_give_narrow_bounds() -> None:
    rng = np.random.default_rng(1)
    n = 200_000
    y = rng.random(n) < 0.2
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y)))
    b = summary(y, s, None, bins=4000)
    got = b.compute("sensitivity_at_specificity", min_specificity=0.95)
    want, _ = one_shot("sensitivity_at_specificity", y, s, None, {"min_specificity": 0.95})
    assert got.low <= want <= got.high and got.width < 2e-3
    area = b.compute("partial_roc_auc", fpr=(0, 0.1), correct=True)
    assert area.width < 2e-3


def test_clipped_rows_keep_the_cutoff_honest() -> None:
    y = np.array([1, 1, 0, 1, 0, 0])
    s = np.array([1.5, 0.8, 0.3, -0.5, 0.9, 0.1])  # two scores outside [0, 1]
    b = summary(y, s, None, bins=4, clip=True)
    got = b.compute("sensitivity_at_specificity", min_specificity=0.0)
    # Full sensitivity flags the lowest bin, which holds the clipped -0.5: everything.
    assert got.estimate == 1.0 and got.threshold == -math.inf
    assert got.clipped == 2


def test_undefined_tasks_are_nan_with_one_warning() -> None:
    Y = np.array([[1, 1], [0, 1], [1, 1], [0, 1]], bool)
    S = np.array([[.9, .2], [.1, .4], [.8, .6], [.3, .8]])
    b = summary(Y, S, None, bins=4)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="for 1 of 2 tasks") as rec:
        got = b.compute("sensitivity_at_specificity", min_specificity=0.5)
    assert len(rec) == 1
    assert got.estimate[0] == 1.0 and math.isnan(got.estimate[1]) and math.isnan(got.low[1])


def test_options_are_checked() -> None:
    b = summary([1, 0], [0.9, 0.1], None, bins=4)
    with pytest.raises(TypeError, match="needs its bound, min_specificity="):
        b.compute("sensitivity_at_specificity")
    with pytest.raises(TypeError, match="takes the options"):
        b.compute("recall_at_precision", min_recall=0.5)
    with pytest.raises(ValueError, match="min_precision must lie in"):
        b.compute("recall_at_precision", min_precision=1.5)
    with pytest.raises(TypeError, match="roc_auc takes no options"):
        b.compute("roc_auc", min_precision=0.5)
    with pytest.raises(ValueError, match="metric must be one of"):
        b.compute("lift")


@pytest.mark.parametrize(("name", "options"), CASES)
def test_both_bounds_are_reached_by_rows_with_those_counts(name, options) -> None:
    """Rows placed inside their bins positives first (negatives first) give the high
    (low) bound: the bounds cannot be tightened from the counts alone."""
    rng = np.random.default_rng(21)
    bins, n = 12, 600
    y = rng.random(n) < 0.35
    k = np.clip((rng.random(n) * 0.7 + 0.3 * y) * bins, 0, bins - 1).astype(int)
    got = summary(y, (k + 0.5) / bins, None, bins=bins).compute(name, **options)
    for first, bound in ((0.75, got.high), (0.25, got.low)):
        s = (k + np.where(y, first, 1.0 - first)) / bins  # the same bin, either order
        want, _ = one_shot(name, y, s, None, options)
        if not math.isnan(want):
            assert abs(want - bound) <= 2e-12, (name, options, first, want, got)


def test_binned_mcclish_area_below_chance_only_in_the_bins_keeps_its_bounds() -> None:
    """16 bins put the one positive's row among its negatives, whose area is then
    below chance; the rows' own area is not. The summary returned NaN bounds; they
    must hold the one-shot value (found by the property test above)."""
    y = np.zeros(43, bool)
    y[0] = True
    s = np.zeros(43)
    s[0], s[-1] = 1 / 40, 3 / 40
    b = summary(y, s, None, bins=16)
    for options in ({"tpr": (0.6, 1.0), "correct": True}, {"fpr": (0.0, 0.5), "correct": True}):
        want, _ = one_shot("partial_roc_auc", y, s, None, options)
        got = _quiet(b, "partial_roc_auc", options)
        assert got.low <= got.estimate <= got.high and got.low <= want <= got.high, got
        assert got.low == 0.5
    # Every order of the bins' rows below chance: NaN with one warning, as one-shot.
    y = np.array([0, 0, 1, 1], bool)
    s = np.array([0.9, 0.8, 0.1, 0.0])
    b = summary(y, s, None, bins=4)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="below the chance"):
        got = b.compute("partial_roc_auc", fpr=(0.0, 0.5), correct=True)
    assert math.isnan(got.estimate) and math.isnan(got.low) and math.isnan(got.high)
