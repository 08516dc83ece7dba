"""top_k_accuracy: scikit-learn's rule (``ties="sklearn"``) against scikit-learn itself
on scores full of ties, the tie-expected default against brute force over every order
of the tied classes, binary 1-D scores, the warning for a ``k`` of at least the number
of classes, and the refusals."""

from __future__ import annotations

import itertools
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

skm = pytest.importorskip("sklearn.metrics")
skx = pytest.importorskip("sklearn.exceptions")

SCORE_KINDS = ("float64", "float32", "int")


def _scores(levels: np.ndarray, kind: str) -> np.ndarray:
    """Few distinct values (heavy ties) in the dtype asked for."""
    if kind == "int":
        return levels.astype(np.int64) - 2  # negative ones too
    return (levels / 4.0).astype(kind)


@st.composite
def multiclass(draw):
    n = draw(st.integers(1, 14))
    t = draw(st.integers(3, 6))  # scikit-learn takes 2 columns for no binary task
    levels = draw(st.integers(1, 4))
    s = np.array(draw(st.lists(st.lists(st.integers(0, levels), min_size=t, max_size=t),
                               min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, t - 1), min_size=n, max_size=n)))
    w = None
    if draw(st.booleans()):  # whole and dyadic weights: every sum exact in both
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]),
                                   min_size=n, max_size=n)))
        if w.sum() == 0:
            w[0] = 1.0
    k = draw(st.integers(1, t - 1))
    return y, s, w, k


def _sklearn(y, s, k, **kw):
    with warnings.catch_warnings():  # k >= n_classes: scikit-learn's own warning
        warnings.simplefilter("ignore", skx.UndefinedMetricWarning)
        return skm.top_k_accuracy_score(y, s, k=k, **kw)


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(multiclass(), st.sampled_from(SCORE_KINDS), st.booleans())
def test_sklearn_rule_is_scikit_learns_number(case, kind, normalize) -> None:
    """The same hits as scikit-learn's argsort, so the same number, to the bit."""
    y, levels, w, k = case
    t = levels.shape[1]
    s = _scores(levels, kind)
    want = _sklearn(y, s, k, labels=np.arange(t), sample_weight=w, normalize=normalize)
    got = fastrank.top_k_accuracy(y, s, k, labels=np.arange(t), ties="sklearn",
                                  sample_weight=w, normalize=normalize)
    assert got == want, (y, s, w, k, got, want)
    # several k at once: each the one-k value
    many = fastrank.top_k_accuracy(y, s, [k, 1], labels=np.arange(t), ties="sklearn",
                                   sample_weight=w, normalize=normalize)
    assert many.tolist() == [got, fastrank.top_k_accuracy(
        y, s, 1, labels=np.arange(t), ties="sklearn", sample_weight=w, normalize=normalize)]


def _brute_expected(y, s, k):
    """Mean hit over every order of each sample's classes that keeps the scores'
    order: the tie-expected top-k accuracy, by enumeration."""
    hits = []
    for yi, si in zip(y, s, strict=True):
        t = len(si)
        total = count = 0
        for perm in itertools.permutations(range(t)):
            ranked = sorted(range(t), key=lambda j, p=perm: (-si[j], p[j]))
            total += yi in ranked[:k]
            count += 1
        hits.append(total / count)
    return float(np.mean(hits))


@settings(PROPERTY_SETTINGS, max_examples=120)
@given(st.integers(2, 5).flatmap(lambda t: st.tuples(
    st.lists(st.lists(st.integers(0, 2), min_size=t, max_size=t), min_size=1, max_size=5),
    st.integers(0, t - 1))), st.data())
def test_expected_default_is_the_mean_over_every_order_of_ties(case, data) -> None:
    rows, _ = case
    s = np.array(rows, np.float64)
    n, t = s.shape
    y = np.array(data.draw(st.lists(st.integers(0, t - 1), min_size=n, max_size=n)))
    k = data.draw(st.integers(1, t - 1))
    got = fastrank.top_k_accuracy(y, s, k, labels=np.arange(t))
    assert got == pytest.approx(_brute_expected(y, s, k), rel=1e-12, abs=1e-12)


def test_the_rules_differ_only_at_ties_and_the_sklearn_rule_takes_greater_columns() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 5, 200)
    s = rng.random((200, 5))
    for k in (1, 2, 4):
        values = {r: fastrank.top_k_accuracy(y, s, k, ties=r) for r in fastrank.rankings.TOP_K_TIES}
        assert len(set(values.values())) == 1
    # scikit-learn's own test case (test_top_k_accuracy_score_ties)
    s = np.array([[5, 5, 7, 0], [1, 5, 5, 5], [0, 0, 3, 3], [1, 1, 1, 1]])
    assert [fastrank.top_k_accuracy([0, 1, 2, 3], s, k, ties="sklearn") for k in (1, 2, 3)] \
        == [0.25, 0.5, 1.0]
    lo, hi = (fastrank.top_k_accuracy([0, 1, 2, 3], s, 2, ties=r)
              for r in ("pessimistic", "optimistic"))
    assert lo <= fastrank.top_k_accuracy([0, 1, 2, 3], s, 2, ties="sklearn") <= hi


BINARY_POOL = [-1.0, -0.0, 0.0, 0.2, 0.5, 0.7, 1.0, 2.0]


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 1), st.sampled_from(BINARY_POOL)), min_size=1,
                max_size=12),
       st.sampled_from(SCORE_KINDS), st.sampled_from([1, 2, 3]), st.booleans(),
       st.sampled_from([None, "names"]))
def test_binary_1d_scores_are_scikit_learns(pairs, kind, k, weighted, names) -> None:
    """1-D scores of the greater class: probabilities (threshold 0.5) or decision
    values (threshold 0), scikit-learn's numbers with its rule; by default a score
    at the threshold ties the two classes (1/2 at k=1)."""
    y = np.array([p[0] for p in pairs])
    s = np.array([p[1] for p in pairs])
    s = np.round(s * 2).astype(np.int64) if kind == "int" else s.astype(kind)
    if len(set(y.tolist())) < 2:
        y = np.append(y, 1 - y[0])
        s = np.append(s, s[0])
    labels = None
    if names:
        y = np.array(["no", "yes"])[y]
    w = np.arange(1.0, y.shape[0] + 1) / 2 if weighted else None
    want = _sklearn(y, s, k, sample_weight=w)
    ctx = pytest.warns(fastrank.UndefinedMetricWarning, match="number of classes") if k >= 2 \
        else warnings.catch_warnings()
    with ctx:
        got = fastrank.top_k_accuracy(y, s, k, labels=labels, ties="sklearn", sample_weight=w)
    assert got == want
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        expected = fastrank.top_k_accuracy(y, s, k, sample_weight=w)
        as_two = fastrank.top_k_accuracy(y, s.reshape(-1, 1), k, sample_weight=w)
    assert as_two == expected
    thr = 0.5 if s.min() >= 0 and s.max() <= 1 else 0
    greater = y == np.unique(y)[1]
    hit = np.where(s == thr, 0.5, (s > thr) == greater) if k == 1 else np.ones(y.shape[0])
    assert expected == pytest.approx(np.average(hit, weights=w), rel=1e-12)


def test_binary_1d_scores_of_scikit_learns_tests() -> None:
    y = [0, 0, 1, 1]
    for s, k, want in [([-1, -1, 1, 1], 1, 1.0), ([-1, 1, -1, 1], 1, 0.5),
                       ([0.2, 0.2, 0.7, 0.7], 1, 1.0), ([0.2, 0.7, 0.2, 0.7], 1, 0.5)]:
        for ties in fastrank.rankings.TOP_K_TIES:
            assert fastrank.top_k_accuracy(y, np.array(s), k, ties=ties) == want
    # labels= names the two classes; y_true may hold one of them only
    assert fastrank.top_k_accuracy(["b", "b"], [0.9, 0.1], 1, labels=["a", "b"]) == 0.5


def test_a_k_of_at_least_the_number_of_classes_warns() -> None:
    y, s = [0, 1, 2, 3], np.eye(4)[::-1]
    assert issubclass(fastrank.UndefinedMetricWarning, UserWarning)
    assert issubclass(skx.UndefinedMetricWarning, UserWarning)  # the same base category
    for k in (4, 5, [1, 4]):
        with pytest.warns(fastrank.UndefinedMetricWarning,
                          match=r"k \(\d+\) is greater than or equal to the number of classes "
                                r"\(4\)") as rec:
            got = fastrank.top_k_accuracy(y, s, k, ties="sklearn")
        assert len(rec) == 1 and rec[0].filename == __file__
        assert np.all(np.atleast_1d(got)[-1] == 1.0)
    with pytest.warns(fastrank.UndefinedMetricWarning, match=r"classes \(2\)"):
        assert fastrank.top_k_accuracy([0, 1, 1], [0.1, 0.2, 0.9], 2) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastrank.top_k_accuracy(y, s, 3)  # below the number of classes: no warning
        fastrank.top_k_accuracy([0, 1, 1], [0.1, 0.2, 0.9], 1)


def test_bad_arguments_are_refused() -> None:
    y, s = [0, 1, 2], np.eye(3)
    for ties in ("Sklearn", "scikit-learn", None, ["sklearn"]):
        with pytest.raises(ValueError, match="ties must be one of 'expected', 'optimistic', "
                                             "'pessimistic', 'sklearn'"):
            fastrank.top_k_accuracy(y, s, 1, ties=ties)
    with pytest.raises(ValueError, match=r"y_true holds 3 classes.*n_samples, n_classes"):
        fastrank.top_k_accuracy(y, [0.1, 0.5, 0.9])
    with pytest.raises(ValueError, match="1 classes"):
        fastrank.top_k_accuracy([1, 1], [0.1, 0.9])
    with pytest.raises(ValueError, match="labels"):
        fastrank.top_k_accuracy([0, 1, 1], [0.1, 0.5, 0.9], labels=[0, 1, 2])
    with pytest.raises(ValueError, match="not one of labels"):
        fastrank.top_k_accuracy([0, 1, 3], [0.1, 0.5, 0.9], labels=[0, 1])
    with pytest.raises(ValueError, match="non-finite"):
        fastrank.top_k_accuracy([0, 1], [0.1, np.nan])
    with pytest.raises(ValueError, match="non-finite"):
        fastrank.top_k_accuracy(y, [[0, 1, np.inf]] * 3, ties="sklearn")
    with pytest.raises(ValueError, match="samples"):
        fastrank.top_k_accuracy([0, 1, 1], [0.1, 0.9])
    with pytest.raises(ValueError, match="shape"):
        fastrank.top_k_accuracy(y, np.zeros((3, 3, 1)))
    with pytest.raises(ValueError, match="k must be"):
        fastrank.top_k_accuracy(y, s, 0, ties="sklearn")
    with pytest.raises(TypeError, match=r"real numbers|bytes"):
        fastrank.top_k_accuracy([0, 1], np.array(["a", "b"]))


def test_empty_input_and_bad_weights_are_refused() -> None:
    y, s = [0, 1, 2], np.eye(3)
    with pytest.raises(ValueError, match=r"no samples|is empty"):
        fastrank.top_k_accuracy([], np.empty((0, 3)), 2)
    with pytest.raises(ValueError, match=r"no samples|is empty"):
        fastrank.top_k_accuracy([], np.empty(0), 1, ties="sklearn")
    for w, match in (([1, -1, 1], "non-negative"), ([1, np.nan, 1], "sample_weight"),
                     ([1, 1], "sample_weight")):
        for ties in ("expected", "sklearn"):
            with pytest.raises(ValueError, match=match):
                fastrank.top_k_accuracy(y, s, 2, sample_weight=w, ties=ties)
