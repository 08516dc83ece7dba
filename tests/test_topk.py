"""Top-k measures of ranked lists (each sample's labels, or each query's items), against
brute force over every order of the tied items: the expected value is the mean over
those orders, the optimistic and pessimistic ones their best and worst."""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
import fastrank._rankings.lists as L
import fastrank.rankings as R

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS


def _orders(s):
    """Every ranking of the items consistent with the scores (ties in every order)."""
    n = len(s)
    seen = set()
    for perm in itertools.permutations(range(n)):
        ranked = tuple(sorted(range(n), key=lambda i: (-s[i], perm.index(i))))
        if ranked not in seen:
            seen.add(ranked)
            yield ranked


def _dcg(gains, k):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


def _measure(name, grades, k, total, gain="linear", missing=0):
    """One order's value; ``grades`` in rank order (any positive grade relevant),
    ``total`` the relevant count, ``missing`` the relevant items (grade 1) not listed."""
    n = len(grades)
    rel = [1 if g > 0 else 0 for g in grades]
    hits = sum(rel[:k])
    if name == "average_precision_at_k":
        got = sum(sum(rel[:i + 1]) / (i + 1) for i in range(min(k, n)) if rel[i])
        return got / total if total else math.nan
    if name == "ap_min":
        got = sum(sum(rel[:i + 1]) / (i + 1) for i in range(min(k, n)) if rel[i])
        return got / min(k, total) if total else math.nan
    if name == "ndcg_at_k":
        g = [float(x) if gain == "linear" else 2.0 ** x - 1 for x in grades]
        best = _dcg(sorted(g + [1.0] * missing, reverse=True), k)
        return _dcg(g, k) / best if best > 0 else math.nan
    if name == "precision_at_k":
        return hits / k if n >= k else math.nan
    if name == "recall_at_k":
        return hits / total if total else math.nan
    if name == "f1_at_k":
        p = hits / k if n >= k else math.nan
        r = hits / total if total else math.nan
        return math.nan if math.isnan(p) or math.isnan(r) else (2 * p * r / (p + r) if p + r
                                                                else 0.0)
    if name == "hit_rate_at_k":
        return float(hits > 0) if total else math.nan
    if name == "reciprocal_rank":
        if not total:
            return math.nan
        first = [i for i, v in enumerate(rel) if v]
        return 1.0 / (first[0] + 1) if first else 0.0
    if name == "r_precision":
        return sum(rel[:total]) / total if total else math.nan
    raise AssertionError(name)


def brute(name, y, s, k, ties, extra=0, gain="linear"):
    total = int(sum(1 for v in y if v > 0)) + extra
    values = [_measure(name, [y[i] for i in order], k, total, gain, extra)
              for order in _orders(s)]
    if any(math.isnan(v) for v in values):
        return math.nan
    return {"expected": float(np.mean(values)), "optimistic": max(values),
            "pessimistic": min(values)}[ties]


NAMES = ["precision_at_k", "recall_at_k", "f1_at_k", "hit_rate_at_k", "reciprocal_rank",
         "r_precision", "average_precision_at_k", "ap_min", "ndcg_at_k"]


def call(name, y, s, k, **kw):
    if name == "ap_min":
        name, kw = "average_precision_at_k", {**kw, "normalize": "min"}
    f = getattr(R, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in ("reciprocal_rank", "r_precision"):
            return f(y, s, **kw)
        return f(y, s, k, **kw)


@settings(PROPERTY_SETTINGS, max_examples=600)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))),
    st.sampled_from(NAMES), st.integers(1, 7), st.sampled_from(R.TIES), st.integers(0, 2),
    st.sampled_from(R.GAINS))
def test_each_list_matches_brute_force_over_tie_orders(case, name, k, ties, extra,
                                                       gain) -> None:
    """Graded relevance (any positive grade relevant; grades the gains of nDCG)."""
    y, s = case
    kw = {"ties": ties, "average": None}
    if name == "ndcg_at_k":
        kw["gain"] = gain
        if extra:  # the missing relevant items have grade 1: binary relevance only
            y = [min(v, 1) for v in y]
    want = brute(name, y, s, k, ties, extra, gain)
    if extra:
        kw["n_relevant"] = [sum(v > 0 for v in y) + extra]
    got = call(name, np.array([y]), np.array([s], np.float64), k, **kw)
    assert got.shape == (1,)
    if math.isnan(want):
        assert math.isnan(got[0])
    else:
        assert got[0] == pytest.approx(want, rel=1e-12, abs=1e-12), (y, s, k, ties)


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n))),
    st.sampled_from(NAMES), st.integers(1, 5), st.sampled_from(R.TIES))
def test_queries_are_the_lists_of_their_items(case, name, k, ties) -> None:
    """Graded relevance too (y in 0..2 below)."""
    y, s, g = (np.array(v) for v in case)
    got = call(name, y, s.astype(float), k, groups=g, ties=ties, average=None)
    for j, gid in enumerate(np.unique(g)):
        m = g == gid
        want = brute(name, list(y[m]), list(s[m]), k, ties) if m.sum() <= 6 else \
            call(name, y[m][None, :], s[m][None, :].astype(float), k, ties=ties,
                 average=None)[0]
        v = got.values[j]
        assert (math.isnan(v) and math.isnan(want)) or v == pytest.approx(want, abs=1e-12)
    assert np.array_equal(got.groups, np.unique(g))


def test_several_k_and_the_mean() -> None:
    rng = np.random.default_rng(3)
    Y = rng.random((50, 20)) < 0.2
    Y[:, 0] = True
    S = np.round(rng.random((50, 20)), 1)
    per = R.precision_at_k(Y, S, [1, 5, 10], average=None)
    assert per.shape == (50, 3)
    assert np.allclose(R.precision_at_k(Y, S, [1, 5, 10]), per.mean(axis=0))
    assert R.precision_at_k(Y, S, 5) == pytest.approx(per[:, 1].mean())


def test_undefined_lists_warn_once_and_are_left_out() -> None:
    Y = np.array([[1, 0, 0], [0, 0, 0]])
    S = np.array([[0.9, 0.2, 0.1], [0.3, 0.2, 0.1]])
    with pytest.warns(fastrank.UndefinedMetricWarning, match="1 of 2 samples") as rec:
        assert R.reciprocal_rank(Y, S) == 1.0
    assert len(rec) == 1
    with pytest.warns(fastrank.UndefinedMetricWarning, match="k beyond the list"):
        assert math.isnan(R.precision_at_k(Y, S, 4))


def test_bad_arguments_are_refused() -> None:
    Y = np.array([[1, 0, 0]])
    S = np.array([[0.9, 0.2, 0.1]])
    with pytest.raises(ValueError, match="k must be a positive int"):
        R.precision_at_k(Y, S, 0)
    with pytest.raises(ValueError, match="ties must be one of"):
        R.recall_at_k(Y, S, 1, ties="random")
    with pytest.raises(ValueError, match="n_relevant"):
        R.recall_at_k(Y, S, 1, n_relevant=[0])
    with pytest.raises(ValueError, match="whole counts"):
        R.r_precision(Y, S, n_relevant=[2.5])
    with pytest.raises(ValueError, match="average"):
        R.recall_at_k(Y, S, 1, average="micro")
    with pytest.raises(ValueError, match="groups"):
        R.recall_at_k([1, 0], [0.5, 0.2], 1, groups=[0])
    with pytest.raises(ValueError, match="non-finite"):
        R.recall_at_k([1, 0], [0.5, np.nan], 1, groups=[0, 0])


def test_every_list_of_four_items_with_two_score_levels() -> None:
    """Exhaustive: every relevance pattern and every two-level score pattern of four
    items (every way a tie group can straddle k), every measure, rule and k."""
    for y in itertools.product((0, 1), repeat=4):
        for s in itertools.product((0, 1), repeat=4):
            for name in NAMES:
                for ties in R.TIES:
                    for k in (1, 2, 3):
                        want = brute(name, list(y), list(s), k, ties)
                        got = call(name, np.array([y]), np.array([s], float), k, ties=ties,
                                   average=None)[0]
                        assert (math.isnan(want) and math.isnan(got)) or \
                            got == pytest.approx(want, abs=1e-12), (name, ties, k, y, s)


def test_call_errors_come_before_any_work() -> None:
    with pytest.raises(ValueError, match="give one k"):
        R.precision_at_k([1, 0], [0.5, 0.2], [1, 2], groups=[0, 0], average=None)
    with pytest.raises(ValueError, match="average must be 'macro' or None"):
        R.reciprocal_rank([1, 0], [0.5, np.nan], groups=[0, 0], average="weighted")
    got = R.recall_at_k([1, 0, 0, 1], [0.5, 0.2, 0.3, 0.1], 1, groups=[0, 0, 1, 1],
                        average=None, n_relevant=[2, 1])
    assert got.values.tolist() == [0.5, 0.0]
    assert got.positives.tolist() == [1.0, 1.0] and got.negatives.tolist() == [1.0, 1.0]


def _full_sort_lists(Y, S):
    """The oracle's ranked lists: each row sorted in full, every tie group kept (none
    of the kernel's counting), in the form the measures read."""
    lists = L.RankedLists.__new__(L.RankedLists)
    n, t = S.shape
    order = np.argsort(-S, axis=1, kind="stable")
    v = np.take_along_axis(S, order, axis=1).ravel()
    grade = np.take_along_axis(Y, order, axis=1).ravel().astype(np.float64)
    owner = np.repeat(np.arange(n), t)
    new = np.ones(v.shape[0], bool)
    new[1:] = (v[1:] != v[:-1]) | (owner[1:] != owner[:-1])
    starts = np.flatnonzero(new)
    lists.list = owner[starts]
    lists.a = starts - lists.list * t
    lists.m = np.diff(np.append(starts, v.shape[0]))
    lists.r = np.add.reduceat((grade > 0).astype(np.float64), starts)
    lists.sizes = np.full(n, t, np.int64)
    pos = np.flatnonzero(grade > 0)
    lists.item_group = np.searchsorted(starts, pos, side="right") - 1
    lists.item_list = owner[pos]
    lists.item_grade = grade[pos]
    lists.item_rel = lists.item_grade > 0
    lists.item_col = order.ravel()[pos].astype(np.int64)
    lists.min_grade = None
    lists.n_labels = t
    lists.found = np.bincount(lists.item_list, minlength=n).astype(np.float64)
    lists.first = np.flatnonzero(lists.a == 0)
    lists.relevant = lists.found
    return lists


def _on_lists(name, lists, k, ties):
    ks = np.array([k], np.int64)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")
        if name in ("precision_at_k", "recall_at_k", "f1_at_k"):
            return L.at_k(name, lists, ks, ties)[:, 0]
        if name == "hit_rate_at_k":
            return L.hit_rate(lists, ks, ties)[:, 0]
        if name == "reciprocal_rank":
            return L.reciprocal(lists, ties)
        if name == "r_precision":
            return L.r_prec(lists, ties)
        if name in ("average_precision_at_k", "ap_min"):
            return L.ap_at(lists, ks, ties, "relevant" if name != "ap_min" else "min")[:, 0]
        return L.ndcg_at(lists, ks, ties, "linear")[:, 0]


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(st.integers(17, 400), st.integers(1, 400), st.floats(0.05, 0.95), st.integers(1, 420),
       st.sampled_from(NAMES), st.sampled_from(R.TIES), st.integers(0, 2**32 - 1))
def test_long_lists_rank_as_a_full_sort_of_each_does(n, levels, share, k, name, ties,
                                                     seed) -> None:
    """Dense rows, each query's items (``groups``, in any order) and sparse rows are
    ranked by the kernel that counts every entry against the labelled scores (one
    count per score when they are few, at most its ``FEW`` distinct; a binary search
    per entry when more, up to 400 score levels here), with cuts shallow (``k`` well
    inside the list) and deep: the values of the same lists with their tie groups
    found by a full sort of each row (every group kept, no kernel)."""
    from fastrank._kernels.topk import FEW

    assert FEW < 380  # lists of 400 items can be drawn with more labelled scores than FEW
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    rows = 4
    shares = [share, 0.05, 0.5, 1.0]  # one list per regime, whatever was drawn
    Y = np.stack([(rng.random(n) < p) * rng.integers(1, 3, n) for p in shares])
    S = rng.integers(0, levels, (rows, n)).astype(np.float64)  # ties everywhere
    want = _on_lists(name, _full_sort_lists(Y, S), k, ties)
    got = call(name, Y, S, k, ties=ties, average=None)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True), name
    g = np.repeat(np.arange(rows), n)
    perm = rng.permutation(rows * n)  # each query's items anywhere
    got = call(name, Y.ravel()[perm], S.ravel()[perm], k, groups=g[perm], ties=ties,
               average=None)
    assert np.allclose(got.values, want, rtol=1e-12, atol=1e-12, equal_nan=True), name
    if name in ("reciprocal_rank",):
        return  # (sparse scores leave their unstored labels tied: no reciprocal rank)
    stored = sp.csr_matrix(S + 1.0)  # every label stored
    got = call(name, Y, stored, k, ties=ties, average=None)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True), name


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(st.integers(1, 60), st.integers(1, 40), st.integers(1, 30), st.integers(1, 45),
       st.sampled_from(R.TIES), st.integers(0, 2**32 - 1))
def test_small_dense_rows_give_the_kernels_values_to_the_bit(n, t, levels, k, ties,
                                                             seed) -> None:
    """Dense matrices below ``DENSE_KERNEL_MIN`` scores are ranked by a numpy sort of
    each row (a first small call compiles nothing), larger ones by the kernel: the
    same groups and items in the same order, so every measure is equal bit for bit
    (graded labels, exponential gains, propensity weights, -0.0 beside 0.0)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, t)) < rng.random()) * rng.integers(1, 4, (n, t))
    S = rng.integers(0, levels, (n, t)).astype(np.float64) - levels // 2
    S[S == 0] = np.where(rng.random(int((S == 0).sum())) < 0.5, -0.0, 0.0)
    p = rng.uniform(0.1, 1.0, t)

    def every() -> list:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kw = {"ties": ties, "average": None}
            return [R.precision_at_k(Y, S, [1, k], **kw), R.recall_at_k(Y, S, k, **kw),
                    R.hit_rate_at_k(Y, S, k, **kw), R.reciprocal_rank(Y, S, **kw),
                    R.r_precision(Y, S, **kw), R.average_precision_at_k(Y, S, k, **kw),
                    R.ndcg_at_k(Y, S, k, gain="exponential", **kw),
                    R.psprecision_at_k(Y > 0, S, k, propensity=p, **kw),
                    R.psndcg_at_k(Y > 0, S, k, propensity=p, **kw)]

    small = every()
    old = L.DENSE_KERNEL_MIN
    L.DENSE_KERNEL_MIN = 0
    try:
        big = every()
    finally:
        L.DENSE_KERNEL_MIN = old
    for a, b in zip(small, big, strict=True):
        assert np.array_equal(a, b, equal_nan=True)


def _exact_rr(a: int, m: int, r: int) -> float:
    """E[1 / rank] of the first of r relevant items in a tie group of m at ranks
    a+1 .. a+m, exactly (fractions), over every order of the group."""
    from fractions import Fraction

    return float(sum(Fraction(math.comb(m - x, r - 1), math.comb(m, r)) * Fraction(1, a + x)
                     for x in range(1, m - r + 2)))


def test_expected_reciprocal_rank_does_not_depend_on_a_lists_place() -> None:
    """Many identical lists give one value, the exact one: the tie-expected RR once
    drifted by up to ~1e-10 with a list's place in a large input (the running sum
    of logs was kept across lists and differenced)."""
    n = 200_000
    y = np.tile([1, 0], n)
    q = np.repeat(np.arange(n), 2)
    v = fastrank.reciprocal_rank(y, np.ones(2 * n), groups=q, average=None).values
    assert np.unique(v).tolist() == [0.75]
    row = np.array([0, 1, 0, 1, 0, 0, 1])
    s = np.array([0.0, 0, 0, 0, 0, 3, 0])
    got = fastrank.reciprocal_rank(np.tile(row, (50_000, 1)), np.tile(s, (50_000, 1)),
                                   average=None)
    assert np.unique(got).tolist() == [pytest.approx(_exact_rr(1, 6, 3), rel=1e-15)]


@pytest.mark.parametrize("m", [1, 2, 7, 64, 65, 300])
def test_expected_reciprocal_rank_is_exact_on_long_tie_groups(m: int) -> None:
    """Short and long tie groups (both sides of SHORT_SPAN) against exact fractions."""
    for r in sorted({1, 2, max(1, m // 2), m} & set(range(1, m + 1))):
        for a in (0, 5):
            y = np.r_[np.zeros(a), np.ones(r), np.zeros(m - r)]
            s = np.r_[np.full(a, 2.0), np.ones(m)]
            got = fastrank.reciprocal_rank(y[None, :], s[None, :])
            assert got == pytest.approx(_exact_rr(a, m, r), rel=1e-13), (a, m, r)


@pytest.mark.parametrize("n", [1e18, 2.0**63, 1e19, 1e300])
def test_r_precision_of_a_count_beyond_int64(n) -> None:
    """A cut at R past the list takes all of it: R of 2**63 or more wrapped as int64
    (2**-63 where the list's two relevant items give 2 / R)."""
    Y, S = [[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value encountered in cast"
        assert R.r_precision(Y, S, n_relevant=[n]) == 2 / n
        assert R.r_precision([1, 0, 1, 0], S[0], groups=[1] * 4, n_relevant=[n]) == 2 / n
    with pytest.raises(ValueError, match="n_relevant must hold counts"):
        R.r_precision(Y, S, n_relevant=["a"])


def test_harmonic_differences_and_ratio_sums_to_full_precision() -> None:
    """H(b+u) - H(b) and sum (c + (j-1) d) / (b + j) against exact fractions, short and
    long, shallow and deep (a running sum of 1/i read at two depths lost 2e-3 of
    an AP at rank 4 M)."""
    from fractions import Fraction

    rng = np.random.default_rng(4)
    cases = [(0, 1), (0, 64), (0, 65), (3, 200), (63, 1), (63, 2), (64, 100), (10**6, 1),
             (4 * 10**6, 3), (4 * 10**6, 500), (10**9, 70), (10**12, 100)]
    cases += [(int(rng.integers(0, 300)), int(rng.integers(1, 300))) for _ in range(20)]
    b = np.array([c[0] for c in cases], np.float64)
    u = np.array([c[1] for c in cases], np.float64)
    got = L.harmonic_diffs(b, u)
    c = rng.integers(1, 50, b.shape[0]).astype(np.float64)
    d = rng.choice([0.0, 0.5, 1.0, 1 / 3], b.shape[0])
    sums = L.ratio_sums(b, u, c, d)
    for i, (bi, ui) in enumerate(cases):
        if ui > 2000:
            continue
        exact = sum(Fraction(1, bi + j) for j in range(1, ui + 1))
        assert abs(got[i] - float(exact)) <= 2e-15 * float(exact), (bi, ui)
        ci, di = Fraction(c[i]), Fraction(d[i])
        want = sum((ci + (j - 1) * di) / (bi + j) for j in range(1, ui + 1))
        # term by term up to 64 terms; beyond, two sums of positive terms (the closed
        # form (c - (b+1) d) dH + u d lost 4e-12 at b = 4 M, u = 500, 1e-6 at b = 1e12)
        assert abs(sums[i] - float(want)) <= 1e-14 * float(want), (bi, ui)


def test_average_precision_deep_in_a_long_list() -> None:
    n = 4_000_010
    s = -np.arange(n, dtype=np.float64)  # distinct, decreasing
    y = np.zeros(n)
    y[[4_000_000, 4_000_003]] = 1  # ranks 4,000,001 and 4,000,004
    want = (1 / 4_000_001 + 2 / 4_000_004) / 2
    for ties in ("optimistic", "pessimistic", "expected"):
        got = R.average_precision_at_k(y, s, n, groups=np.zeros(n, np.int64), ties=ties)
        assert got == pytest.approx(want, rel=1e-14), ties
