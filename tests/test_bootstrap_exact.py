"""Each bootstrap resample's metric is the metric of the resampled data itself.

The resamples never re-sort: they count their draws into the tie groups of the
original scores and sweep those. To check that against the plain metric
functions, the draws are replayed here with an independent pure-Python copy of
the documented generator (SplitMix64, one stream per resample), the resampled
rows are materialised, and every resample's value is compared with the
fastrank function on them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank._core.inputs import task as prepare
from fastrank.uncertainty import _METRICS, _resample_values

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _rows(seed: int, b: int, y: np.ndarray, stratified: bool) -> np.ndarray:
    """The rows resample ``b`` draws, replayed in Python."""
    state = _mix((seed + GOLDEN * (b + 1)) & MASK)

    def draw(m: int) -> int:
        nonlocal state
        state = (state + GOLDEN) & MASK
        u = (_mix(state) >> 11) * 2.0**-53
        return min(int(u * m), m - 1)

    if stratified:
        pos = np.flatnonzero(y)
        neg = np.flatnonzero(~y)
        picked = [pos[draw(len(pos))] for _ in range(len(pos))]
        picked += [neg[draw(len(neg))] for _ in range(len(neg))]
    else:
        picked = [draw(len(y)) for _ in range(len(y))]
    return np.array(picked, dtype=np.int64)


def _values(name, y, s, w, n_resamples, stratified, seed):
    task = prepare(y, s, w, None)
    column = _METRICS[name][1]
    return _resample_values(task, column, name, n_resamples, stratified, seed, False)


@pytest.mark.parametrize("name", sorted(_METRICS))
@pytest.mark.parametrize("stratified", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_every_resample_equals_the_metric_of_its_rows(name, stratified, dtype):
    rng = np.random.default_rng(5)
    n = 60
    y = rng.random(n) < 0.35
    s = np.round(rng.normal(size=n) + y, 1)  # many ties
    s = (s * 10).astype(dtype) if dtype is np.int64 else s.astype(dtype)
    seed = 12345
    values = _values(name, y, s, None, 40, stratified, seed)
    func = _METRICS[name][0]
    for b in range(40):
        rows = _rows(seed, b, y, stratified)
        yb, sb = y[rows], s[rows]
        if yb.all() or not yb.any():
            assert math.isnan(values[b])  # a resample that lost a class
            continue
        with np.errstate(all="ignore"):
            expected = func(yb, sb)
        assert values[b] == expected or (math.isnan(values[b]) and math.isnan(expected)), b


@pytest.mark.parametrize("name", ["average_precision", "roc_auc", "pr_auc"])
def test_weighted_resamples_multiply_the_weights(name):
    rng = np.random.default_rng(8)
    n = 50
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(size=n) + y, 1)
    w = rng.integers(1, 4, n).astype(np.float64)
    values = _values(name, y, s, w, 25, True, 99)
    func = _METRICS[name][0]
    for b in range(25):
        rows = _rows(99, b, y, True)
        expected = func(y[rows], s[rows], sample_weight=w[rows])
        assert values[b] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("stratified", [True, False])
def test_weighted_resamples_exact_when_one_heavy_sample_is_drawn_often(stratified):
    """A resample may draw the heaviest sample many times, its class total far
    above the data's: the totals' units cover that, so every resample is exact."""
    y = np.array([1, 0, 0, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.1, 0.3, 0.5, 0.3])
    w = np.array([2.0**60, 1.0, 1.0, 2.0**-40, 3.0, 1.0])
    values = _values("roc_auc", y.astype(bool), s, w, 300, stratified, 7)
    for b in range(300):
        rows = _rows(7, b, y.astype(bool), stratified)
        yb = y[rows]
        if yb.all() or not yb.any():
            continue
        assert values[b] == fastrank.roc_auc(yb, s[rows], sample_weight=w[rows]), b


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(-3, 3)), min_size=4, max_size=40),
    st.integers(0, 2**63 - 1),
)
def test_property_stratified_roc_auc(rows, seed):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=np.float64)
    if y.all() or not y.any():
        return
    values = _values("roc_auc", y, s, None, 5, True, seed)
    for b in range(5):
        picked = _rows(seed, b, y, True)
        assert values[b] == fastrank.roc_auc(y[picked], s[picked])


def test_interval_is_the_percentiles_of_the_resamples():
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    s = rng.normal(size=300) + y
    ci = fastrank.bootstrap_ci("pr_auc", y, s, n_resamples=200, seed=4, level=0.9)
    values = _values("pr_auc", y, s, None, 200, True, 4)
    low, high = np.percentile(values, [5, 95])
    assert (ci.low, ci.high) == (low, high)
    assert ci.se == np.std(values, ddof=1)
    assert ci.estimate == fastrank.pr_auc(y, s)
