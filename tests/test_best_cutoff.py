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
    # flagging nothing (threshold inf: sensitivity 0, specificity 1), where strictly better
    nothing = {"youden": ratio - 1, "closest_topleft": -1.0}.get(criterion, 0.0)
    return (nothing, math.inf) if nothing > best[0] + 1e-12 else best


cases = st.integers(4, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(0, 6), min_size=n, max_size=n),
    st.lists(st.integers(1, 3), min_size=n, max_size=n),
))


@PROPERTY_SETTINGS
@given(cases, st.sampled_from(CRITERIA), st.booleans(), st.sampled_from([0.5, 2.0]),
       st.sampled_from([(1.0, 0.5), (2.0, 0.3), (1.0, 0.2), (0.25, 0.5)]))
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
    cutoff is the first entry of criterion_values within rounding of its largest,
    with that entry's value bit for bit."""
    from fastrank._kernels.readout import TIE_ROUNDING
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
        scale = 1.0 + ratio if criterion in ("youden", "closest_topleft") else 1.0
        none = criterion_values(np.zeros(1), np.zeros(1), criterion, beta=beta, ratio=ratio,
                                totals=(t[-1], f[-1]))[0]  # flagging nothing
        if none > c.max() + TIE_ROUNDING * scale:
            assert index[j] == -1 and values[j] == none
            continue
        first = int(np.flatnonzero(c >= c.max() - TIE_ROUNDING * scale)[0])
        assert index[j] == first
        assert np.float64(values[j]).tobytes() == np.float64(c[first]).tobytes()


@pytest.mark.parametrize(("criterion", "y", "s", "want"), [
    # 1/2 + 4/6 - 1 and 1 + 1/6 - 1: both 1/6, unequal in floats
    ("youden", [1, 0, 0, 1, 0, 0, 0, 0], [3, 3, 3, 2, 2, 2, 2, 1], 3),
    ("youden", [1, 0, 0, 1, 0, 0, 0, 0], [.3, .3, .3, .2, .2, .2, .2, .1], 0.3),
])
def test_cutoffs_tied_in_exact_arithmetic_keep_the_highest(criterion, y, s, want) -> None:
    got = fastrank.best_cutoff(y, s, criterion)
    assert got.threshold == want and type(got.threshold) is type(want)
    assert got.value == pytest.approx(1 / 6, abs=1e-15)
    batched = fastrank.best_cutoff(np.array([y, y]).T, np.array([s, s]).T, criterion)
    assert batched.threshold.tolist() == [want, want]


def test_integer_scores_past_float64_get_their_exact_threshold() -> None:
    """One task: the cutoff is the int itself (float64 would round 2**53 + 1 to 2**53,
    whose rule flags the negative too)."""
    y = np.array([1, 0, 0])
    s = np.array([2**53 + 1, 2**53, 0], dtype=np.int64)
    for f, args in ((fastrank.sensitivity_at_specificity, (0.9,)),
                    (fastrank.recall_at_precision, (0.9,)), (fastrank.best_cutoff, ())):
        got = f(y, s, *args)
        assert got.threshold == 2**53 + 1 and isinstance(got.threshold, int), f.__name__
        assert ((s >= got.threshold) == (y == 1)).all()


def test_weights_past_float64_are_refused_in_a_fresh_process() -> None:
    """cost=1e-310 (or prevalence=1e-320) made r infinite: the kernel then never set
    its best, and memory never written came back (a different value each run, or the
    last call's); such options are refused, as a square of beta past float64."""
    from fresh import assert_prints_ok

    assert_prints_ok("""
import fastrank
y, s = [1, 0, 1, 0, 1, 0], [.9, .8, .5, .5, .3, .1]
for kw in ({"cost": 1e-310}, {"prevalence": 1e-320}, {"criterion": "f_beta", "beta": 1e200}):
    try:
        fastrank.best_cutoff(y, s, **kw)
    except ValueError as exc:
        assert "float64" in str(exc), exc
    else:
        raise AssertionError(kw)
assert fastrank.best_cutoff(y, s, cost=1e-308).threshold == 0.9
print("ok")
""")


@pytest.mark.parametrize("y, s, kw, want", [
    ([0, 1, 0, 1, 0], [.9, .8, .7, .6, .5], {"prevalence": 0.2}, 3.0),  # r = 4: J = r - 1
    ([1, 0], [.75, .75], {"criterion": "closest_topleft", "cost": 0.5}, -1.0),  # r = 2
])
def test_flagging_nothing_is_the_best_where_it_is(y, s, kw, want) -> None:
    """With pROC's weights (r != 1) flagging nothing can beat every cutoff: it was never
    a candidate (2.1667 at 0.8 where threshold inf gives 3)."""
    got = fastrank.best_cutoff(y, s, **kw)
    assert got.value == want and got.threshold == math.inf
