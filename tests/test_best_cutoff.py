"""best_cutoff against brute force over every cutoff and scikit-learn's counts, and
against Evaluation.best_cutoffs, which picks the same cutoffs."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank.readouts import CRITERIA

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS


def brute(y, s, w, criterion, beta=1.0, ratio=1.0):
    y, s = np.asarray(y), np.asarray(s, dtype=np.float64)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    best = (-math.inf, None)
    for t in sorted(set(s[w > 0]), reverse=True):  # highest first: ties keep the highest
        pred = (s >= t).astype(int)
        tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[0, 1], sample_weight=w).ravel()
        sens, spec = tp / (tp + fn), tn / (tn + fp)
        if criterion == "youden":
            v = sens + ratio * spec - 1
        elif criterion == "closest_topleft":
            v = -((1 - sens) ** 2 + ratio * (1 - spec) ** 2)
        elif criterion == "mcc":
            v = skm.matthews_corrcoef(y, pred, sample_weight=w)
        else:
            b = 1.0 if criterion == "f1" else beta
            v = skm.fbeta_score(y, pred, beta=b, sample_weight=w, zero_division=0.0)
        if v > best[0] + 1e-12:
            best = (v, t)
    return best


cases = st.integers(4, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(0, 6), min_size=n, max_size=n),
    st.lists(st.integers(1, 3), min_size=n, max_size=n),
))


@PROPERTY_SETTINGS
@given(cases, st.sampled_from(CRITERIA), st.booleans(), st.sampled_from([0.5, 2.0]),
       st.sampled_from([(1.0, 0.5), (2.0, 0.3)]))
def test_against_brute_force(case, criterion, weighted, beta, weights) -> None:
    y, s, w = case
    y[:2] = [0, 1]
    w = w if weighted else None
    cost, prevalence = weights
    ratio = (1 - prevalence) / (cost * prevalence)
    got = fastrank.best_cutoff(y, s, criterion, beta=beta, cost=cost, prevalence=prevalence,
                               sample_weight=w)
    value, threshold = brute(y, s, w, criterion, beta, ratio)
    assert got.value == pytest.approx(value, abs=1e-12)
    assert got.threshold == threshold


def test_same_cutoffs_as_evaluation_best_cutoffs() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.round(y + rng.normal(size=300), 1)
    t = fastrank.evaluate({"m": s}, y).best_cutoffs(beta=2.0, as_frame=False)
    for criterion, name in (("youden", "youden"), ("f1", "f1"), ("f_beta", "f_beta")):
        row = list(t["criterion"]).index(name)
        got = fastrank.best_cutoff(y, s, criterion, beta=2.0)
        assert got.threshold == t["threshold"][row]
        assert got.value == pytest.approx(t["value"][row], abs=1e-15)


def test_bad_options_and_undefined() -> None:
    with pytest.raises(ValueError, match="criterion must be one of"):
        fastrank.best_cutoff([0, 1], [.1, .2], "accuracy")
    for kw, match in (({"beta": 0}, "beta must be a positive"),
                      ({"cost": -1}, "cost must be a positive"),
                      ({"prevalence": 1.0}, r"prevalence must lie in \(0, 1\)")):
        with pytest.raises(ValueError, match=match):
            fastrank.best_cutoff([0, 1], [.1, .2], **kw)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no negative samples"):
        p = fastrank.best_cutoff([1, 1], [.1, .2])
    assert math.isnan(p.value) and math.isnan(p.threshold)


@PROPERTY_SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(CRITERIA), st.booleans(),
       st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from([0.25, 1.0, 3.0]))
def test_kernel_criterion_is_criterion_values_float_for_float(seed, criterion, counts, beta,
                                                              ratio) -> None:
    """The readout kernel's criterion and criterion_values (the evaluation tables')
    are one formula: on random cumulative tables, counts or weight sums, the best
    value is the largest of criterion_values bit for bit, at its first entry."""
    from fastrank.readouts import _read, criterion_values

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, 5)
    parts = []
    for m in sizes:
        steps = rng.integers(0, 4, (2, m)).astype(np.float64)
        if not counts:
            steps *= rng.random((2, m)) * 3.7
        steps[:, -1] += 1.0  # both classes present
        parts.append(np.cumsum(steps, axis=1))
    fp = np.concatenate([p[0] for p in parts])
    tp = np.concatenate([p[1] for p in parts])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    opts = {"criterion": criterion, "beta": beta, "ratio": ratio}
    values, index = _read("best_cutoff", opts, fp, tp, starts, sizes.astype(np.int64))
    for j, (a, m) in enumerate(zip(starts, sizes, strict=True)):
        f, t = fp[a:a + m], tp[a:a + m]
        c = criterion_values(f, t, criterion, beta=beta, ratio=ratio)
        assert np.float64(values[j]).tobytes() == np.float64(c.max()).tobytes()
        assert index[j] == int(np.argmax(c))
