"""Bootstrap intervals of readouts (operating points, partial areas).

Every resample's value must be the readout of the resampled data itself: the
test replays each resample's draws (numpy's PCG64 seeded with ``(seed, r)``),
builds the resampled samples and calls the public function on them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastrank
from fastrank import uncertainty
from fastrank._core import inputs

CASES = [
    ("sensitivity_at_specificity", {"min_specificity": 0.9}),
    ("specificity_at_sensitivity", {"min_sensitivity": 0.8, "interpolate": True}),
    ("recall_at_precision", {"min_precision": 0.7}),
    ("precision_at_recall", {"min_recall": 0.5, "interpolate": True}),
    ("partial_roc_auc", {"fpr": (0, 0.2), "correct": True}),
    ("partial_roc_auc", {"tpr": (0.8, 1)}),
    ("partial_pr_auc", {"recall": (0.5, 1)}),
]


def _data(n=120, seed=3, weighted=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(y + rng.normal(size=n), 1)
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    return y, s, w


def _replay(y, s, w, seed, r, stratified):
    rng = np.random.default_rng([seed, r])
    labels = y.astype(bool)
    pos, neg = np.flatnonzero(labels), np.flatnonzero(~labels)
    if stratified:
        rows = np.concatenate((pos[rng.integers(0, pos.size, pos.size)],
                               neg[rng.integers(0, neg.size, neg.size)]))
    else:
        rows = rng.integers(0, y.size, y.size)
    return y[rows], s[rows], None if w is None else w[rows]


@pytest.mark.parametrize(("name", "options"), CASES)
@pytest.mark.parametrize("stratified", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_each_resample_is_the_readout_of_the_resampled_data(name, options, stratified, weighted):
    y, s, w = _data(weighted=weighted)
    task = inputs.task(y, s, w, None)
    values = uncertainty._resample_readout(task, name, options, 25, stratified, 99)
    func = getattr(fastrank, name)
    for r in range(25):
        ry, rs, rw = _replay(y, s, w, 99, r, stratified)
        if ry.min() == ry.max():
            assert math.isnan(values[r])
            continue
        want = func(ry, rs, sample_weight=rw, **options)
        want = want.value if isinstance(want, tuple) else want
        assert values[r] == pytest.approx(want, rel=1e-12, abs=1e-15), r


def test_interval_fields_and_seed() -> None:
    y, s, _ = _data(400)
    kw = {"n_resamples": 300, "seed": 5, "metric_options": {"min_specificity": 0.9}}
    ci = fastrank.bootstrap_ci("sensitivity_at_specificity", y, s, **kw)
    assert ci.estimate == fastrank.sensitivity_at_specificity(y, s, 0.9).value
    assert ci.low <= ci.estimate <= ci.high and ci.se > 0 and ci.method == "bootstrap"
    again = fastrank.bootstrap_ci(fastrank.sensitivity_at_specificity, y, s, **kw)
    assert (again.low, again.high, again.se) == (ci.low, ci.high, ci.se)
    area = fastrank.bootstrap_ci("partial_roc_auc", y, s, n_resamples=200, seed=1,
                                 metric_options={"fpr": (0, 0.1), "correct": True})
    assert area.estimate == fastrank.partial_roc_auc(y, s, fpr=(0, 0.1), correct=True)


def test_two_d_gives_one_interval_per_column() -> None:
    y1, s1, _ = _data(200, seed=1)
    y2, s2, _ = _data(200, seed=2)
    Y, S = np.column_stack([y1, y2]), np.column_stack([s1, s2])
    opts = {"min_precision": 0.8}
    ci = fastrank.bootstrap_ci("recall_at_precision", Y, S, n_resamples=100, seed=4,
                               metric_options=opts)
    for j, (y, s) in enumerate(((y1, s1), (y2, s2))):
        one = fastrank.bootstrap_ci("recall_at_precision", y, s, n_resamples=100, seed=4,
                                    metric_options=opts)
        assert (ci.estimate[j], ci.low[j], ci.high[j]) == (one.estimate, one.low, one.high)


def test_undefined_resamples_are_left_out_with_one_warning() -> None:
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0])
    s = np.arange(8.0)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="undefined on") as rec:
        fastrank.bootstrap_ci("sensitivity_at_specificity", y, s, n_resamples=50, seed=0,
                              stratified=False, metric_options={"min_specificity": 0.5})
    assert len(rec) == 1


def test_options_are_checked() -> None:
    y, s, _ = _data()
    with pytest.raises(TypeError, match="takes the options min_precision, interpolate; got "
                                        "'min_prec'"):
        fastrank.bootstrap_ci("recall_at_precision", y, s, metric_options={"min_prec": 0.5})
    with pytest.raises(TypeError, match="needs its bound, min_precision="):
        fastrank.bootstrap_ci("recall_at_precision", y, s)
    with pytest.raises(TypeError, match="metric_options are the keywords of a readout"):
        fastrank.bootstrap_ci("roc_auc", y, s, metric_options={"max_fpr": 0.1})
    with pytest.raises(ValueError, match="min_precision must lie in"):
        fastrank.bootstrap_ci("recall_at_precision", y, s, metric_options={"min_precision": 2})
    with pytest.raises(TypeError, match="metric_options must be a dict"):
        fastrank.bootstrap_ci("recall_at_precision", y, s, metric_options=[0.5])
