"""Each sample's labels ranked: average="samples" and the label-ranking metrics, against
scikit-learn (which defines every one of these numbers, ties included) on inputs full
of ties, with and without sample weights, dense and sparse labels."""

from __future__ import annotations

import functools
import inspect
import math
import subprocess
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

RANKINGS = [
    ("label_ranking_average_precision", "label_ranking_average_precision_score"),
    ("coverage_error", "coverage_error"),
    ("label_ranking_loss", "label_ranking_loss"),
]


@st.composite
def label_matrices(draw):
    n = draw(st.integers(1, 12))
    t = draw(st.integers(2, 7))  # one column is "binary" to scikit-learn, not multilabel
    y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=t, max_size=t),
                               min_size=n, max_size=n)), dtype=np.int64)
    levels = draw(st.integers(1, 4))  # few distinct scores: heavy ties
    s = np.array(draw(st.lists(st.lists(st.integers(0, levels), min_size=t, max_size=t),
                               min_size=n, max_size=n)), dtype=np.float64) / levels
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), np.float64)
    return y, s, w



@settings(PROPERTY_SETTINGS, max_examples=300)
@given(label_matrices(), st.sampled_from(RANKINGS),
       st.sampled_from(["float64", "float32", "int", "bool", "sparse"]))
def test_rankings_equal_sklearn(case, names, kind) -> None:
    y, s, w = case
    ours, theirs = names
    scores = {"float64": s, "float32": s.astype(np.float32), "int": np.round(s * 4).astype(int),
              "bool": s > 0.5, "sparse": s}[kind]
    labels = y
    if kind == "sparse":
        sparse = pytest.importorskip("scipy.sparse")
        labels = sparse.csr_matrix(y)
    want = getattr(skm, theirs)(y, np.asarray(scores, np.float64), sample_weight=w)
    got = getattr(fastrank, ours)(labels, scores, sample_weight=w)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (y, scores, w, got, want)



@settings(PROPERTY_SETTINGS, max_examples=200)
@given(label_matrices(), st.sampled_from(["average_precision", "roc_auc"]))
def test_average_samples_equals_sklearn_where_every_sample_is_defined(case, name) -> None:
    y, s, w = case
    y[:, 0] = 1  # every sample has a relevant label ...
    if name == "roc_auc":
        if y.shape[1] < 2:
            return
        y[:, 1] = 0  # ... and an irrelevant one
    want = getattr(skm, f"{name}_score")(y, s, average="samples", sample_weight=w)
    got = getattr(fastrank, name)(y, s, average="samples", sample_weight=w)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_average_samples_is_the_mean_of_the_rows() -> None:
    rng = np.random.default_rng(2)
    Y = rng.random((40, 9)) < 0.4
    Y[:3] = False  # samples without relevant labels: NaN rows, left out with one warning
    S = np.round(rng.random((40, 9)), 1)
    w = rng.random(40)
    for name in ("average_precision", "roc_auc", "pr_auc", "prbe"):
        f = getattr(fastrank, name)
        rows = np.array([f(Y[i], S[i]) if Y[i].any() and (~Y[i]).any() else math.nan
                         for i in range(40)]) if name == "roc_auc" else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            if rows is None:
                rows = np.array([f(Y[i], S[i]) for i in range(40)])
            per = f(Y.T, S.T, average=None)  # the rows, as columns of the transpose
        assert np.array_equal(per, rows, equal_nan=True)
        with pytest.warns(fastrank.UndefinedMetricWarning, match="samples"):
            got = f(Y, S, average="samples")
        kept = rows[~np.isnan(rows)]  # a correctly rounded sum: the same in any order
        assert got == math.fsum(kept.tolist()) / kept.shape[0]
        assert got == pytest.approx(np.mean(kept), rel=1e-15)
        with pytest.warns(fastrank.UndefinedMetricWarning):
            weighted = f(Y, S, average="samples", sample_weight=w)
        ok = ~np.isnan(rows)
        assert weighted == pytest.approx(np.dot(w[ok], rows[ok]) / w[ok].sum(), rel=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        m = fastrank.all_metrics(Y, S, average="samples", sample_weight=w)
        assert m.average_precision == fastrank.average_precision(Y, S, average="samples",
                                                                 sample_weight=w)
        assert m.roc_auc == fastrank.roc_auc(Y, S, average="samples", sample_weight=w)


def test_lrap_is_the_rows_average_precision() -> None:
    rng = np.random.default_rng(7)
    Y = rng.random((200, 30)) < 0.2
    S = np.round(rng.random((200, 30)).astype(np.float32), 2)
    rows = []
    for i in range(200):
        k = int(Y[i].sum())
        rows.append(1.0 if k in (0, 30) else fastrank.average_precision(Y[i], S[i]))
    assert fastrank.label_ranking_average_precision(Y, S) == np.mean(rows)


def test_bad_input_is_refused() -> None:
    Y = np.array([[1, 0], [0, 1]])
    S = np.array([[0.5, 0.2], [0.1, 0.9]])
    for f in (fastrank.label_ranking_average_precision, fastrank.coverage_error,
              fastrank.label_ranking_loss):
        with pytest.raises(ValueError, match="different shapes"):
            f(Y, S[:, :1])
        with pytest.raises(ValueError, match=r"non-finite value \(nan at row 0, task 1\)"):
            f(Y, np.array([[0.5, np.nan], [0.1, 0.9]]))
        with pytest.raises(ValueError, match="2-D"):
            f(Y[0], S[0])
        with pytest.raises(ValueError, match="sample_weight"):
            f(Y, S, sample_weight=[1.0, -1.0])
        with pytest.raises(ValueError, match="y_true"):
            f(np.array([[2, 0], [0, 1]]), S)
        with pytest.raises(ValueError, match="sample_weight"):
            f(Y, S, sample_weight=[1.0, np.nan])
        with pytest.raises(ValueError, match="sample_weight"):
            f(Y, S, sample_weight=[1.0])
        with pytest.raises(ValueError, match="no samples"):
            f(np.zeros((0, 2)), np.zeros((0, 2)))
        with pytest.raises(ValueError, match="y_score"):
            f(Y, np.zeros((2, 2, 1)))
        with pytest.raises(TypeError, match="y_score"):
            f(Y, np.array([["a", "b"], ["c", "d"]]))
        mask = np.array([[255, 0], [0, 7]], np.uint8).view(bool)  # bytes other than 0/1
        assert f(mask, S) == f(mask.astype(int) > 0, S)
    with pytest.raises(ValueError, match="groups="):
        fastrank.roc_auc(Y[:, 0], S[:, 0], groups=[0, 1], average="samples")
    with pytest.raises(ValueError, match="2-D label matrix"):
        fastrank.roc_auc(np.array([0, 1]), S, average="samples")


def test_nan_in_a_subprocess_does_not_crash() -> None:
    code = ("import numpy as np, fastrank\n"
            "try:\n"
            "    fastrank.coverage_error([[1, 0]], np.array([[np.inf, 0.0]]))\n"
            "except ValueError as e:\n"
            "    print('refused', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0 and out.stdout.startswith("refused"), out.stderr


@st.composite
def graded(draw):
    n = draw(st.integers(1, 10))
    t = draw(st.integers(2, 8))
    y = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=t, max_size=t),
                               min_size=n, max_size=n)), dtype=np.float64)
    y[:, 0] = np.maximum(y[:, 0], 1)  # every sample has a relevant label (scikit-learn: 0)
    levels = draw(st.integers(1, 5))
    s = np.array(draw(st.lists(st.lists(st.integers(0, levels), min_size=t, max_size=t),
                               min_size=n, max_size=n)), dtype=np.float64)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), np.float64)
    k = draw(st.sampled_from([None, 1, 2, 3, 10]))
    return y, s, w, k


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(graded(), st.sampled_from(["float64", "float32", "int"]))
def test_dcg_and_ndcg_equal_sklearn_on_ties(case, kind) -> None:
    y, s, w, k = case
    scores = {"float64": s, "float32": s.astype(np.float32), "int": s.astype(np.int64)}[kind]
    assert fastrank.dcg(y, scores, k=k, sample_weight=w) == pytest.approx(
        skm.dcg_score(y, s, k=k, sample_weight=w), rel=1e-12, abs=1e-12)
    assert fastrank.ndcg(y, scores, k=k, sample_weight=w) == pytest.approx(
        skm.ndcg_score(y, s, k=k, sample_weight=w), rel=1e-12, abs=1e-12)


def _expected_dcg_brute(y, s, k):
    """The mean DCG over every order of tied labels, by enumeration."""
    import itertools

    total, count = 0.0, 0
    t = y.shape[0]
    for perm in itertools.permutations(range(t)):
        ranks = sorted(range(t), key=lambda i: (-s[i], perm.index(i)))
        total += sum(y[i] / math.log2(r + 2) for r, i in enumerate(ranks[:k]))
        count += 1
    return total / count


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(st.integers(2, 5).flatmap(lambda t: st.tuples(
    st.lists(st.integers(0, 3), min_size=t, max_size=t),
    st.lists(st.integers(0, 2), min_size=t, max_size=t))), st.sampled_from([1, 2, 3, None]))
def test_tie_aware_dcg_is_the_expected_dcg_over_every_tie_order(case, k) -> None:
    y, s = (np.array(v, np.float64) for v in case)
    want = _expected_dcg_brute(y, s, k or y.shape[0])
    assert fastrank.dcg(y[None, :], s[None, :], k=k) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_ignore_ties_equals_sklearn_without_ties() -> None:
    rng = np.random.default_rng(4)
    Y = rng.integers(0, 4, (60, 12)).astype(float)
    S = rng.random((60, 12))
    for k in (None, 1, 5):
        assert fastrank.dcg(Y, S, k=k, ignore_ties=True) == pytest.approx(
            skm.dcg_score(Y, S, k=k, ignore_ties=True), rel=1e-13)
        assert fastrank.dcg(Y, S, k=k, ignore_ties=True) == pytest.approx(
            fastrank.dcg(Y, S, k=k), rel=1e-13)


def test_ndcg_of_a_sample_without_relevant_labels_is_nan_and_left_out() -> None:
    Y = np.array([[1, 0, 0], [0, 0, 0]])
    S = np.array([[0.9, 0.2, 0.1], [0.3, 0.2, 0.1]])
    with pytest.warns(fastrank.UndefinedMetricWarning, match="1 of 2 samples"):
        assert fastrank.ndcg(Y, S) == 1.0  # scikit-learn: (1 + 0) / 2
    with pytest.raises(ValueError, match="non-negative"):
        fastrank.ndcg(-Y, S)
    with pytest.raises(ValueError, match="k must be a positive int"):
        fastrank.ndcg(Y, S, k=0)
    with pytest.raises(ValueError, match="log_base"):
        fastrank.dcg(Y, S, log_base=1)
    with pytest.raises(ValueError, match="different shapes"):
        fastrank.dcg(Y[:, :2], S)
    with pytest.raises(ValueError, match="finite"):
        fastrank.dcg(np.array([[np.nan, 0, 0], [0, 0, 0]]), S)


@st.composite
def graded_with_empty_rows(draw):
    """graded() with samples whose relevance is all 0 (no best DCG), and some
    without any other."""
    y, s, w, k = draw(graded())
    empty = np.array(draw(st.lists(st.booleans(), min_size=y.shape[0],
                                   max_size=y.shape[0])))
    y[empty] = 0
    return y, s, w, k


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(graded_with_empty_rows(), st.sampled_from(["float64", "float32", "int"]),
       st.booleans())
def test_ndcg_no_relevant_zero_is_scikit_learns_mean(case, kind, ignore_ties) -> None:
    """``no_relevant="zero"`` counts a sample without relevant labels as 0, as
    ndcg_score does; the default leaves it out (the mean of the others)."""
    y, s, w, k = case
    scores = {"float64": s, "float32": s.astype(np.float32), "int": s.astype(np.int64)}[kind]
    if ignore_ties:  # an arbitrary order of ties in both: compare without ties only
        scores = scores + np.arange(s.shape[1]) * 16
        s = np.asarray(scores, np.float64)
    want = skm.ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "zero" says nothing
        got = fastrank.ndcg(y, scores, k=k, sample_weight=w, ignore_ties=ignore_ties,
                            no_relevant="zero")
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    empty = (y == 0).all(axis=1)
    if empty.all():
        with pytest.warns(fastrank.UndefinedMetricWarning):
            assert math.isnan(fastrank.ndcg(y, scores, k=k, sample_weight=w))
        return
    keep = ~empty
    wk = None if w is None else w[keep]
    ctx = pytest.warns(fastrank.UndefinedMetricWarning, match="no relevant labels") \
        if empty.any() else warnings.catch_warnings()
    with ctx:
        default = fastrank.ndcg(y, scores, k=k, sample_weight=w, ignore_ties=ignore_ties)
    assert default == pytest.approx(
        skm.ndcg_score(y[keep], s[keep], k=k, sample_weight=wk, ignore_ties=ignore_ties),
        rel=1e-12, abs=1e-12)


def test_ndcg_of_one_label_is_refused_and_no_relevant_is_checked() -> None:
    """One label (document) per sample: nothing to rank, ValueError as in
    scikit-learn's ndcg_score; dcg keeps its value. An unknown no_relevant is named."""
    for y, s in (([[1]], [[1]]), ([[1], [0]], [[0.5], [0.2]]), ([[0]], [[3]])):
        for k in (None, 1):
            with pytest.raises(ValueError, match="more than one label"):
                fastrank.ndcg(y, s, k=k)
            with pytest.raises(ValueError, match="more than one label"):
                fastrank.ndcg(y, s, k=k, no_relevant="zero")
    assert fastrank.dcg([[2]], [[1]]) == 2.0  # (scikit-learn: a one-column y_true is "binary")
    for bad in ("Zero", "0", 0, None, "ignore", ["zero"]):
        with pytest.raises(ValueError, match="no_relevant must be one of 'nan', 'zero'"):
            fastrank.ndcg([[1, 0]], [[0.5, 0.2]], no_relevant=bad)
    # the large path (ranked lists) too
    import fastrank._rankings.lists as L

    n = L.DENSE_KERNEL_MIN // 8 + 2  # even: half the samples without relevant labels
    y = np.zeros((n, 8))
    y[::2, 3] = 2
    s = np.tile(np.arange(8.0), (n, 1))
    got = fastrank.ndcg(y, s, no_relevant="zero")
    assert got == pytest.approx(skm.ndcg_score(y, s), rel=1e-12)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no relevant labels"):
        assert fastrank.ndcg(y, s) == pytest.approx(2 * got, rel=1e-12)


def _every_ranking_function():
    """Each public function of fastrank.rankings with the arguments it needs beyond
    (y_true, y_score), and whether it takes sample_weight."""
    out = []
    for name in fastrank.rankings.__all__:
        f = getattr(fastrank.rankings, name)
        # propensity takes label counts; top_k_accuracy class labels (tested apart)
        if not callable(f) or name in ("propensity", "top_k_accuracy"):
            continue
        weighted = "sample_weight" in f.__code__.co_varnames
        if name.startswith("ps"):
            f = functools.partial(f, propensity=[0.5, 0.5, 0.5])
        extra = (2,) if name.endswith("_at_k") else ()
        out.append((name, f, extra, weighted))
    return out


@pytest.mark.parametrize(("name", "f", "extra", "weighted"), _every_ranking_function(),
                         ids=[x[0] for x in _every_ranking_function()])
def test_every_ranking_function_refuses_bad_input(name, f, extra, weighted) -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = np.array([[0.5, 0.2, 0.4], [0.1, 0.9, 0.3]])
    for bad in (np.nan, np.inf, -np.inf):
        T = S.copy()
        T[1, 2] = bad
        with pytest.raises(ValueError, match=r"row 1, task 2"):
            f(Y, T, *extra)
    with pytest.raises(ValueError, match=r"different shapes: \(2, 3\) and \(2, 2\)"):
        f(Y, S[:, :2], *extra)  # as the caller gave them, not as transposed inside
    with pytest.raises(ValueError, match=r"different shapes: \(1, 3\) and \(2, 3\)"):
        f(Y[:1], S, *extra)
    sps = pytest.importorskip("scipy.sparse")
    bad = sps.csr_matrix((np.ones(1), np.array([7]), np.array([0, 1, 1])), shape=(2, 3))
    with pytest.raises(ValueError, match=r"outside its shape \(2, 3\): column index 7"):
        f(bad, S, *extra)
    if not extra and not name.startswith(("reciprocal", "r_prec", "top_k")):
        with pytest.raises(TypeError, match=r"y_score is a scipy\.sparse matrix"):
            f(Y, sps.csr_matrix(S), *extra)  # dense scores only: named, not "shape ()"
    with pytest.raises(ValueError, match=r"no samples|no labels"):
        f(np.zeros((0, 3)), np.zeros((0, 3)), *extra)
    with pytest.raises(ValueError, match="2-D"):
        f(Y[0], S[0], *extra)
    if name in ("label_ranking_average_precision", "coverage_error", "label_ranking_loss"):
        with pytest.raises(ValueError, match="y_true"):  # 0/1 labels only
            f(np.array([[2, 0, 1], [0, 1, 0]]), S, *extra)
    elif name != "dcg":  # graded relevance, never negative (dcg takes any numbers)
        with pytest.raises(ValueError, match="y_true"):
            f(np.array([[-1, 0, 1], [0, 1, 0]]), S, *extra)
    if weighted:
        for w in ([1.0, -1.0], [1.0, np.nan], [1.0]):
            with pytest.raises(ValueError, match="sample_weight"):
                f(Y, S, *extra, sample_weight=w)


def _warned_once_here(call, line=None):
    """The value of ``call()`` (a one-line lambda), checked to warn once, naming the
    lambda's line (or ``line``): the caller's, not one inside fastrank."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        value = call()
    assert [r.category for r in rec] == [fastrank.UndefinedMetricWarning], \
        [str(r.message) for r in rec]
    where = (rec[0].filename, rec[0].lineno)
    assert where == (__file__, line or call.__code__.co_firstlineno), (where, str(rec[0].message))
    return value


@pytest.mark.parametrize(("name", "f", "extra", "weighted"), _every_ranking_function(),
                         ids=[x[0] for x in _every_ranking_function()])
@pytest.mark.parametrize("average", ["macro", None])
def test_every_ranking_functions_warning_names_the_callers_line(name, f, extra, weighted,
                                                                average) -> None:
    """A sample without relevant labels (or k beyond a row) where the measure is
    undefined there: one warning, at the line that called, however deep in fastrank
    it was raised."""
    Y = np.array([[1, 0, 0], [0, 0, 0]])
    S = np.array([[0.9, 0.2, 0.1], [0.3, 0.5, 0.0]])
    kw = {"average": average} if "average" in inspect.signature(f).parameters else {}
    if not kw and average is None:
        pytest.skip("no per-sample form")
    extra = (4,) if extra else extra  # k beyond the rows: P@k and PSP@k undefined too
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f(Y, S, *extra, **kw)
    if not rec:  # defined for every sample here (LRAP's rule, coverage, dcg, ...)
        return
    _warned_once_here(lambda: f(Y, S, *extra, **kw))


@pytest.mark.parametrize(("name", "f", "extra", "weighted"),
                         [x for x in _every_ranking_function() if x[3]],
                         ids=[x[0] for x in _every_ranking_function() if x[3]])
def test_weights_summing_to_zero_give_nan_with_one_warning(name, f, extra, weighted) -> None:
    """Every sample of weight 0: the weighted mean has no value. NaN and one warning
    saying why (not numpy's division warning, nor a silent NaN)."""
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = np.array([[0.5, 0.2, 0.4], [0.1, 0.9, 0.3]])
    assert not math.isnan(f(Y, S, *extra, sample_weight=[0.0, 1.0]))
    got = _warned_once_here(lambda: f(Y, S, *extra, sample_weight=[0.0, 0.0]))
    assert math.isnan(got)


@pytest.mark.parametrize("call", [
    lambda Y, S, w: fastrank.average_precision(Y, S, average="samples", sample_weight=w),
    lambda Y, S, w: fastrank.roc_auc(Y, S, average="samples", sample_weight=w),
    lambda Y, S, w: fastrank.all_metrics(Y, S, average="samples", sample_weight=w).roc_auc,
    lambda Y, S, w: fastrank.top_k_accuracy([0, 1], S[:, :2], 1, sample_weight=w),
], ids=["average_precision", "roc_auc", "all_metrics", "top_k_accuracy"])
def test_samples_averages_of_zero_total_weight_warn_once(call) -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = np.array([[0.5, 0.2, 0.4], [0.1, 0.9, 0.3]])
    assert not math.isnan(call(Y, S, [1.0, 0.0]))
    assert math.isnan(_warned_once_here(lambda: call(Y, S, [0.0, 0.0]),
                                        call.__code__.co_firstlineno))


@pytest.mark.parametrize("k", [2**63, np.uint64(2**64 - 1), 2**70])
def test_a_k_past_int64_is_a_k_past_every_list(k):
    """Not an OverflowError: such a k reads every list whole, as the largest int64 does."""
    rng = np.random.default_rng(3)
    Y = rng.random((6, 5)) < 0.5
    S = np.round(rng.random((6, 5)), 1)
    for f in (fastrank.recall_at_k, fastrank.ndcg_at_k, fastrank.average_precision_at_k,
              fastrank.precision_at_k):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            got, want = f(Y, S, k), f(Y, S, 2**63 - 1)
        assert np.array_equal(got, want, equal_nan=True), f.__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = fastrank.top_k_metrics(Y, S, [1, k])
        want = fastrank.top_k_metrics(Y, S, [1, 2**63 - 1])
    assert list(got) == list(want)
    y = rng.integers(0, 5, 6)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="number of classes"):
        assert fastrank.top_k_accuracy(y, S, k, labels=np.arange(5)) == 1.0
    r = fastrank.evaluate_run((["q"], ["a"], [1]), (["q", "q"], ["a", "b"], [1, 2]),
                              [f"recall@{int(k)}", f"ndcg_cut_{int(k)}"])
    assert r.mean == {f"recall@{int(k)}": 1.0, f"ndcg_cut_{int(k)}": 1 / np.log2(3)}


@pytest.mark.parametrize("k", [1, 5, 37, None])
def test_large_ndcg_is_scikit_learns_through_the_ranked_lists(k) -> None:
    """From ``DENSE_KERNEL_MIN`` scores on, nDCG is the lists' tie-expected DCG over
    their ideal DCG (the kernel's path, no row sorted): scikit-learn's value, and
    the small path's, on graded labels with heavy ties."""
    import fastrank._rankings.lists as L

    rng = np.random.default_rng(12)
    n, t = 400, 700  # 280,000 scores, past the threshold
    assert n * t >= L.DENSE_KERNEL_MIN
    y = (rng.random((n, t)) < 0.05) * rng.integers(1, 4, (n, t))
    y[:, 0] = 1
    s = np.round(rng.random((n, t)) + 0.2 * (y > 0), 2)
    want = skm.ndcg_score(y, s, k=k)
    got = fastrank.ndcg(y, s, k=k)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    old = L.DENSE_KERNEL_MIN
    L.DENSE_KERNEL_MIN = 1 << 62
    try:
        small = fastrank.ndcg(y, s, k=k)
    finally:
        L.DENSE_KERNEL_MIN = old
    assert got == pytest.approx(small, rel=1e-14, abs=1e-15)


def test_a_sparse_score_matrix_is_named_where_dense_scores_are_needed() -> None:
    """np.asarray of a scipy.sparse matrix is a 0-d object array; the refusal names
    the sparse matrix instead of a shape ()."""
    sps = pytest.importorskip("scipy.sparse")
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = sps.csr_matrix(np.array([[0.5, 0.2, 0.4], [0.1, 0.9, 0.3]]))
    for call in (lambda: fastrank.average_precision(Y, S, average="samples"),
                 lambda: fastrank.roc_auc(Y, S), lambda: fastrank.all_metrics(Y, S),
                 lambda: fastrank.roc_curve(Y[0], S)):
        with pytest.raises(TypeError, match=r"y_score is a scipy.sparse matrix.*toarray"):
            call()
