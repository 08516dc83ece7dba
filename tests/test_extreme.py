"""Sparse top-k score matrices (extreme classification) and the propensity-scored
measures, against the independent oracle of ``xc_reference`` (brute force over every
order of tied labels, and pyxclib's conventions), against the same scores made dense,
and at a label count no dense matrix could hold."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank as F
from fastrank._core import workers

sys.path.insert(0, str(Path(__file__).parent))
import xc_reference as X
from strategies import PROPERTY_SETTINGS


def _sparse(S: np.ndarray, fmt: str = "csr", dtype=np.float64):
    """A sparse matrix storing the finite cells of ``S`` (-inf: not stored)."""
    r, c = np.nonzero(np.isfinite(S))
    coo = sp.coo_matrix((S[r, c].astype(dtype), (r, c)), shape=S.shape)
    return coo.asformat(fmt)


def _ours(Y, Ssp, k, ties, p):
    kw = {"ties": ties, "average": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {
            "P": F.precision_at_k(Y, Ssp, k, **kw),
            "recall": F.recall_at_k(Y, Ssp, k, **kw),
            "nDCG": F.ndcg_at_k(Y, Ssp, k, **kw),
            "AP": F.average_precision_at_k(Y, Ssp, k, **kw),
            "AP_min": F.average_precision_at_k(Y, Ssp, k, normalize="min", **kw),
            "hit": F.hit_rate_at_k(Y, Ssp, k, **kw),
            "PSP": F.psprecision_at_k(Y, Ssp, k, propensity=p, **kw),
            "PSP_raw": F.psprecision_at_k(Y, Ssp, k, propensity=p, normalize=False, **kw),
            "PSnDCG": F.psndcg_at_k(Y, Ssp, k, propensity=p, **kw),
            "PSnDCG_raw": F.psndcg_at_k(Y, Ssp, k, propensity=p, normalize=False, **kw),
            "Rprec": F.r_precision(Y, Ssp, ties=ties, average=None),
        }
    return out


def _binary_idcg(Y, k):
    n_true = Y.sum(axis=1)
    return np.array([sum(1 / math.log2(i + 2) for i in range(min(k, int(t))))
                     for t in n_true])


def _same(got, want, what):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert np.array_equal(np.isnan(got), np.isnan(want)), what
    ok = ~np.isnan(want)
    assert np.allclose(got[ok], want[ok], rtol=1e-12, atol=1e-12), (what, got, want)


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1), st.integers(1, 7),
       st.sampled_from(("expected", "optimistic", "pessimistic")),
       st.sampled_from((1, 2, 10)))
def test_every_measure_matches_brute_force_over_tie_orders(n, L, seed, k, ties, levels):
    """Unstored labels are one tie group below every stored score; stored scores tie
    too (``levels`` distinct values). Rows without relevant labels, rows storing no
    label and rows storing every label all occur."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.4).astype(np.int64)
    S = rng.integers(0, levels, (n, L)).astype(np.float64)
    S[rng.random((n, L)) < 0.4] = -np.inf
    p = rng.uniform(0.05, 1.0, L)
    ref = X.tie_orders(Y, S, k, inv_p=1 / p)
    got = _ours(Y, _sparse(S), k, ties, p)
    for key in ("recall", "nDCG", "AP", "AP_min", "hit", "PSnDCG"):
        _same(got[key], ref[key][ties], key)
    if k <= L:  # fastrank: no P@k beyond the list (the oracle divides by k)
        for key in ("P", "PSP", "PSP_raw"):
            _same(got[key], ref[key][ties], key)
    # the paper's PSnDCG: PSDCG over the binary ideal DCG of the sample's labels
    idcg = _binary_idcg(Y, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        _same(got["PSnDCG_raw"], np.where(idcg > 0, ref["PSnDCG_raw"][ties] / idcg, np.nan),
              "PSnDCG_raw")


def test_the_means_are_pyxclibs_numbers():
    """Without ties and with k stored predictions per row (where pyxclib's convention,
    empty slots are misses, and the tie rule coincide): P@k, nDCG@k and the
    normalised PSP@k / PSnDCG@k are pyxclib's reported numbers (the PS ones a ratio of
    sums over the rows, as pyxclib's ratio of means)."""
    rng = np.random.default_rng(7)
    n, L = 400, 40
    Y = (rng.random((n, L)) < 0.08).astype(np.int64)
    Y[:5] = 0  # rows without labels
    S = np.full((n, L), -np.inf)
    for i in range(n):
        cols = rng.choice(L, 12, replace=False)
        S[i, cols] = rng.random(12)
    inv = X.inv_propensity(Y.sum(axis=0), n, a=0.55, b=1.5)
    p = F.propensity(Y.sum(axis=0), n)
    assert np.allclose(1 / p, inv, rtol=1e-13)
    Ssp = _sparse(S, dtype=np.float32)
    for k in (1, 3, 5):
        ref = X.pyxclib_means(X.pyxclib_like(Y, S.astype(np.float32), k, inv_p=inv))
        ref_valid = X.pyxclib_means(X.pyxclib_like(Y, S.astype(np.float32), k, inv_p=inv),
                                    drop_empty=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert F.precision_at_k(Y, Ssp, k) == pytest.approx(ref["P"], rel=1e-12)
            assert F.psprecision_at_k(Y, Ssp, k, propensity=p) == \
                pytest.approx(ref["PSP"], rel=1e-12)
            assert F.psndcg_at_k(Y, Ssp, k, propensity=p) == \
                pytest.approx(ref["PSnDCG"], rel=1e-12)
            # nDCG: a row without labels is NaN here, 0 in pyxclib's mean
            assert F.ndcg_at_k(Y, Ssp, k) == pytest.approx(ref_valid["nDCG"], rel=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "csr_array"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_sparse_scores_are_dense_scores_with_the_rest_below(fmt, dtype):
    """Any sparse format and score dtype; dense or sparse labels; the same numbers as
    dense scores holding every unstored label at one value below the stored ones."""
    rng = np.random.default_rng(11)
    n, L = 60, 15
    Y = (rng.random((n, L)) < 0.3).astype(np.int64)
    raw = rng.integers(0, 4, (n, L)) if dtype in (np.int64, np.bool_) else rng.random((n, L))
    S = np.where(rng.random((n, L)) < 0.5, -np.inf, raw.astype(np.float64))
    if dtype is np.bool_:
        S = np.where(np.isfinite(S), (S > 1).astype(float), -np.inf)
    if fmt == "csr_array":
        Ssp = sp.csr_array(_sparse(S, "csr", dtype))
    else:
        Ssp = _sparse(S, fmt, dtype)
    stored = S[np.isfinite(S)]
    D = np.where(np.isfinite(S), S, (stored.min() if stored.size else 0.0) - 1.0)
    p = rng.uniform(0.1, 1.0, L)
    for labels in (Y, sp.csr_matrix(Y)):
        for ties in ("expected", "pessimistic"):
            for k in (1, 4):
                got = _ours(labels, Ssp, k, ties, p)
                want = _ours(Y, D, k, ties, p)
                for key in got:
                    _same(got[key], want[key], (fmt, dtype, ties, k, key))


def test_a_billion_labels_cost_memory_in_the_stored_entries():
    """2,000 samples x 10**9 labels, 20 stored predictions each: a dense score matrix
    would take 16 TB. Peak Python-side memory stays within a few MB per 40,000 stored
    entries, and P@k equals the count of relevant stored labels in each top k (the
    unstored labels, tied below, hold a relevant one with chance ~1e-8)."""
    code = textwrap.dedent("""
        import tracemalloc, warnings
        import numpy as np, scipy.sparse as sp
        import fastrank as F
        rng = np.random.default_rng(5)
        n, L, per = 2000, 10**9, 20
        cols = np.sort(rng.choice(L, (n, per)), axis=1)
        rows = np.repeat(np.arange(n), per)
        vals = rng.random(n * per).astype(np.float32)
        S = sp.csr_matrix((vals, (rows, cols.ravel())), shape=(n, L))
        S.sum_duplicates()
        hit = rng.random(S.nnz) < 0.2
        r = np.repeat(np.arange(n), np.diff(S.indptr))
        lab_r = np.concatenate([r[hit], np.arange(n)])
        lab_c = np.concatenate([S.indices[hit], rng.integers(0, L, n)])
        Y = sp.csr_matrix((np.ones(lab_r.shape[0]), (lab_r, lab_c)), shape=(n, L))
        Y.data[:] = 1
        p = F.propensity(np.zeros(1), 10)  # warm the imports
        tracemalloc.start()
        got = F.precision_at_k(Y, S, [1, 5], average=None, ties="pessimistic")
        nd = F.ndcg_at_k(Y, S, 5)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        Yc = Y.tocsr(); Yc.sum_duplicates()
        want = np.zeros((n, 2))
        for i in range(n):
            lo, hi = S.indptr[i], S.indptr[i + 1]
            order = np.argsort(-S.data[lo:hi], kind="stable")
            top = S.indices[lo:hi][order]
            rel = set(Yc.indices[Yc.indptr[i]:Yc.indptr[i + 1]].tolist())
            for j, k in enumerate((1, 5)):
                want[i, j] = sum(c in rel for c in top[:k]) / k
        assert np.allclose(got, want, atol=1e-12), abs(got - want).max()
        assert 0 < nd < 1
        print(peak)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    peak = int(out.stdout.split()[-1])
    assert peak < 64 * 2**20, peak  # vs 16 TB dense; ~40,000 stored entries


def test_ndcg_at_k_is_scikit_learns_ndcg_score():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(2)
    Y = rng.integers(0, 4, (80, 12))
    Y[:, 0] = 1  # every row has a relevant label (scikit-learn gives 0 otherwise)
    S = np.round(rng.random((80, 12)), 1)  # ties: both average them
    for k in (1, 3, 12, None):
        want = ndcg_score(Y, S, k=k)
        got = F.ndcg_at_k(Y, S, k if k is not None else 12)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-13)
        assert F.ndcg_at_k(Y, S, k or 12) == pytest.approx(F.ndcg(Y, S, k=k), rel=1e-12)


def test_exponential_gains_and_queries():
    y = np.array([3, 2, 0, 1, 0, 2])
    s = np.array([0.9, 0.8, 0.5, 0.5, 0.2, 0.7])
    g = np.array([0, 0, 0, 0, 1, 1])
    got = F.ndcg_at_k(y, s, 2, groups=g, gain="exponential", average=None)
    first = ((2**3 - 1) + (2**2 - 1) / math.log2(3)) / ((2**3 - 1) + (2**2 - 1) / math.log2(3))
    second = (2**2 - 1) / (2**2 - 1)
    assert got.values.tolist() == pytest.approx([first, second])
    assert F.ndcg_at_k(y[None, :4], s[None, :4], 3, gain="exponential") == pytest.approx(
        (7 + 3 / math.log2(3) + 0.5 / 2) / (7 + 3 / math.log2(3) + 1 / 2))


def test_bad_sparse_input_is_refused_by_name():
    Y = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 0]]))
    good = sp.csr_matrix(np.array([[0.5, 0, 0.2], [0, 0.9, 0]]))
    dup = sp.coo_matrix((np.array([0.5, 0.1]), (np.array([0, 0]), np.array([1, 1]))),
                        shape=(2, 3))
    with pytest.raises(ValueError, match="stores row 0, column 1 twice"):
        F.precision_at_k(Y, dup, 1)
    nan = good.copy()
    nan.data[1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        F.precision_at_k(Y, nan, 1)
    bad = good.copy()
    bad.indices[0] = 7
    with pytest.raises(ValueError, match="sparse y_score has an entry outside its shape"):
        F.precision_at_k(Y, bad, 1)
    with pytest.raises(ValueError, match="different shapes"):
        F.precision_at_k(sp.csr_matrix((2, 4)), good, 1)
    with pytest.raises(ValueError, match="groups="):
        F.precision_at_k(Y, good, 1, groups=[0, 1])
    huge = sp.csr_matrix((np.array([0.5]), (np.array([0]), np.array([5]))), shape=(10, 2**60))
    with pytest.raises(ValueError, match=r"more cells than fastrank indexes"):
        F.precision_at_k(huge, huge, 1)  # cells are int64 row * labels + column
    with pytest.raises(ValueError, match="reciprocal_rank ranks every item"):
        F.reciprocal_rank(Y, good)
    with pytest.raises(ValueError, match="propensity needs one number per label"):
        F.psprecision_at_k(Y, good, 1, propensity=[0.5, 0.5])
    with pytest.raises(ValueError, match=r"propensities must lie in \(0, 1\]"):
        F.psprecision_at_k(Y, good, 1, propensity=[0.5, 0.0, 1.0])
    with pytest.raises(ValueError, match="groups="):
        F.psndcg_at_k([1, 0], [0.5, 0.2], 1, propensity=[1, 1])
    with pytest.raises(ValueError, match="normalize"):
        F.psprecision_at_k(Y, good, 1, propensity=[1, 1, 1], normalize="yes")
    with pytest.raises(ValueError, match="normalize must be"):
        F.average_precision_at_k(Y, good, 1, normalize="k")
    with pytest.raises(ValueError, match="gain must be"):
        F.ndcg_at_k(Y, good, 1, gain="log")
    with pytest.raises(ValueError, match="negative relevance"):
        F.ndcg_at_k(sp.csr_matrix(np.array([[-1, 0, 1], [0, 1, 0]])), good, 1)
    with pytest.raises(ValueError, match="graded relevance"):
        F.ndcg_at_k([[2, 0, 1]], [[0.5, 0.2, 0.1]], 1, n_relevant=[3])
    for args in (([], 10), ([1, -1], 10), ([1, 2], 2), ([[1]], 10)):
        with pytest.raises(ValueError):
            F.propensity(*args)
    with pytest.raises(ValueError, match="a must be a positive number"):
        F.propensity([1, 2], 10, a=0)


def test_a_sample_without_relevant_labels_warns_once():
    Y = np.array([[1, 0, 0], [0, 0, 0]])
    S = sp.csr_matrix(np.array([[0.9, 0.2, 0], [0.3, 0, 0]]))
    p = [0.5, 0.5, 0.5]
    for f, kw in ((F.ndcg_at_k, {}), (F.psprecision_at_k, {"propensity": p}),
                  (F.psndcg_at_k, {"propensity": p}), (F.average_precision_at_k, {})):
        with pytest.warns(F.UndefinedMetricWarning, match="1 of 2 samples") as rec:
            assert f(Y, S, 2, **kw) == 1.0
        assert len(rec) == 1
    # unnormalised PSP of a row without relevant labels is 0 (as P@k), not undefined
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = F.psprecision_at_k(Y, S, 1, propensity=p, normalize=False, average=None)
    assert got.tolist() == [2.0, 0.0]


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("average", ["macro", None])
@pytest.mark.parametrize("name", ["psprecision_at_k", "psndcg_at_k"])
def test_propensity_warnings_point_at_the_callers_line(name, normalize, average):
    """PSP@k beyond a row's labels, PSnDCG@k of a row without relevant labels: NaN in
    every form, with one warning at the line that called (not inside fastrank)."""
    Y = np.array([[1, 0, 0], [0, 0, 0]])
    S = np.array([[0.9, 0.2, 0.1], [0.3, 0.5, 0.0]])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        getattr(F, name)(Y, S, 4, propensity=[0.5] * 3, normalize=normalize, average=average)
    assert len(rec) == 1, [str(r.message) for r in rec]
    assert issubclass(rec[0].category, F.UndefinedMetricWarning)
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_large_inputs_match_dense_scores(dtype):
    """Many rows, split across the threads, in every canonical score width: the same
    numbers as the dense scores, also at k beyond most rows' stored entries."""
    rng = np.random.default_rng(4)
    n, L = 3000, 80
    Y = (rng.random((n, L)) < 0.1).astype(np.int64)
    raw = rng.integers(-5, 5, (n, L)) if dtype is np.int64 else rng.standard_normal((n, L))
    S = np.where(rng.random((n, L)) < 0.6, raw.astype(np.float64), -np.inf)
    Ssp = _sparse(S, "csr", dtype)
    assert Ssp.nnz >= workers.PARALLEL_MIN  # the rows split across the threads
    D = np.where(np.isfinite(S), S, -100.0).astype(dtype).astype(np.float64)
    for ties in ("expected", "optimistic"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for f in (F.precision_at_k, F.ndcg_at_k, F.average_precision_at_k):
                _same(f(Y, Ssp, [1, 5, 30, 45], ties=ties, average=None),
                      f(Y, D, [1, 5, 30, 45], ties=ties, average=None), (f.__name__, ties))
            _same(F.r_precision(Y, Ssp, ties=ties, average=None),
                  F.r_precision(Y, D, ties=ties, average=None), ("r_precision", ties))


@pytest.mark.parametrize("layout", ["dense", "sparse", "groups"])
def test_top_k_metrics_is_each_measures_own_call(layout):
    rng = np.random.default_rng(9)
    n, L = 40, 12
    Y = (rng.random((n, L)) < 0.25) * rng.integers(1, 3, (n, L))
    Y[:3] = 0
    S = np.round(rng.random((n, L)), 1)
    p = rng.uniform(0.1, 1.0, L)
    ks = [1, 3, 5]
    kw: dict = {}
    if layout == "sparse":
        S = np.where(rng.random((n, L)) < 0.5, S, -np.inf)
        args = (Y, _sparse(S))
    elif layout == "groups":
        g = np.repeat(np.arange(n), L)
        args = (Y.ravel(), S.ravel())
        kw = {"groups": g}
    else:
        args = (Y, S)
    names = ["P", "recall", "F1", "hit", "AP", "nDCG", "Rprec"]
    if layout != "groups":
        names += ["PSP", "PSnDCG"]
    if layout != "sparse":
        names += ["RR"]
    extra = {"propensity": p} if layout != "groups" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for average in ("macro", None):
            got = F.top_k_metrics(*args, ks, measures=names, ties="expected", average=average,
                                  **kw, **extra)
            single = {"P": F.precision_at_k, "recall": F.recall_at_k, "F1": F.f1_at_k,
                      "hit": F.hit_rate_at_k, "AP": F.average_precision_at_k,
                      "nDCG": F.ndcg_at_k}
            for m in names:
                for kk in ks if m not in ("RR", "Rprec") else [None]:
                    key = m if kk is None else f"{m}@{kk}"
                    if m in single:
                        want = single[m](*args, kk, average=average, **kw)
                    elif m == "PSP":
                        want = F.psprecision_at_k(*args, kk, propensity=p, average=average)
                    elif m == "PSnDCG":
                        want = F.psndcg_at_k(*args, kk, propensity=p, average=average)
                    elif m == "RR":
                        want = F.reciprocal_rank(*args, average=average, **kw)
                    else:
                        want = F.r_precision(*args, average=average, **kw)
                    if isinstance(want, F.GroupResult):
                        want = want.values
                    _same(got[key], want, (layout, average, key))
            keys = [m if m in ("RR", "Rprec") else f"{m}@{kk}" for m in names
                    for kk in ([None] if m in ("RR", "Rprec") else ks)]
            assert list(got) == keys


def test_top_k_metrics_with_rprec_reads_sparse_scores_to_the_largest_k():
    """Sparse scores, R-precision asked with measures at k beyond every row's relevant
    count: the lists were cut at that count (R-precision's depth), so P@k, nDCG@k and
    the rest lost the tie groups between it and k (P@2 0 for 0.5)."""
    y = np.array([[0, 1, 0]])
    S = sp.csr_matrix(np.array([[2.0, 1.0, 0.0]]))
    got = F.top_k_metrics(y, S, [2], measures=["P", "nDCG", "Rprec"])
    assert got == F.top_k_metrics(y, S.toarray(), [2], measures=["P", "nDCG", "Rprec"])
    assert got["P@2"] == 0.5
    rng = np.random.default_rng(12)
    Y = np.zeros((30, 40), int)
    Y[np.arange(30), rng.integers(0, 40, 30)] = 1  # one relevant label a row
    D = np.where(rng.random((30, 40)) < 0.3, np.round(rng.random((30, 40)), 1), -np.inf)
    names = ["P", "recall", "hit", "AP", "nDCG", "Rprec"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.top_k_metrics(Y, _sparse(D), [1, 5, 20], measures=names, average=None)
        alone = F.top_k_metrics(Y, _sparse(D), [1, 5, 20], measures=names[:-1], average=None)
    for key, values in alone.items():
        _same(got[key], values, key)


def test_top_k_metrics_refuses_what_it_cannot_compute():
    Y, S = np.array([[1, 0, 1]]), np.array([[0.3, 0.2, 0.1]])
    with pytest.raises(ValueError, match="unknown measure 'MAP'"):
        F.top_k_metrics(Y, S, measures=["MAP"])
    with pytest.raises(ValueError, match="need propensity"):
        F.top_k_metrics(Y, S, measures=["PSP"])
    with pytest.raises(ValueError, match="RR ranks every item"):
        F.top_k_metrics(Y, _sparse(S), measures=["RR"])
    with pytest.raises(ValueError, match="at least one measure"):
        F.top_k_metrics(Y, S, measures=[])
    assert list(F.top_k_metrics(Y, S, 2)) == ["P@2", "recall@2", "nDCG@2"]
    with pytest.warns(F.UndefinedMetricWarning, match="k beyond the list") as rec:
        F.top_k_metrics(Y, S, [1, 5])
    assert len(rec) == 1


def test_top_k_accuracy_is_scikit_learns_without_ties_and_expected_with_them():
    from sklearn.metrics import top_k_accuracy_score

    rng = np.random.default_rng(12)
    n, t = 300, 6
    y = rng.integers(0, t, n)
    S = rng.random((n, t))
    w = rng.random(n)
    names = np.array(list("abcdef"))
    for k in (1, 2, 5):
        want = top_k_accuracy_score(y, S, k=k, labels=np.arange(t))
        assert F.top_k_accuracy(y, S, k) == pytest.approx(want, rel=1e-12)
        assert F.top_k_accuracy(names[y], S, k, labels=names) == pytest.approx(want, rel=1e-12)
        assert F.top_k_accuracy(y, S, k, sample_weight=w) == pytest.approx(
            top_k_accuracy_score(y, S, k=k, sample_weight=w), rel=1e-12)
        assert F.top_k_accuracy(y, S, k, normalize=False) == pytest.approx(
            top_k_accuracy_score(y, S, k=k, normalize=False), rel=1e-12)
    # ties: the expectation; each sample is the hit rate of its one relevant label
    T = np.round(S, 1)
    onehot = np.eye(t, dtype=int)[y]
    for ties in ("expected", "optimistic", "pessimistic"):
        got = F.top_k_accuracy(y, T, [1, 3], ties=ties)
        want = F.hit_rate_at_k(onehot, T, [1, 3], ties=ties)
        assert np.allclose(got, want, rtol=1e-13)
    lo = F.top_k_accuracy(y, T, 2, ties="pessimistic")
    hi = F.top_k_accuracy(y, T, 2, ties="optimistic")
    assert lo <= F.top_k_accuracy(y, T, 2) <= hi and lo < hi
    with pytest.raises(ValueError, match="n_samples, n_classes"):
        F.top_k_accuracy(y, S[:, 0])
    with pytest.raises(ValueError, match="classes"):
        F.top_k_accuracy(y, S[:, :4])
    with pytest.raises(ValueError, match="normalize"):
        F.top_k_accuracy(y, S, normalize=None)
    with pytest.raises(ValueError, match="sample_weight"):
        F.top_k_accuracy(y, S, sample_weight=-w)
    with pytest.raises(ValueError, match="sample_weight"):
        F.top_k_accuracy(y, S, sample_weight=w[:-1])
    T = S.copy()
    T[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        F.top_k_accuracy(y, T)
    with pytest.raises(ValueError, match="samples"):
        F.top_k_accuracy(y[:-1], S)
    with pytest.raises(TypeError, match="dense scores"):
        F.top_k_accuracy(y, sp.csr_matrix(S))


def test_a_cut_deep_in_short_rows_stays_inside_its_room():
    """Reproducer, run in a subprocess: with k at least an eighth of a row's stored
    entries the kernel ranks the whole row, and once wrote a group for every distinct
    score, past the room it had for ``min(k, stored) + 1`` groups (heap corruption,
    the interpreter aborted). It must keep the groups that start above k only."""
    code = textwrap.dedent("""
        import numpy as np, scipy.sparse as sp, fastrank as F
        rng = np.random.default_rng(0)
        S = sp.csr_matrix(rng.permuted(np.tile(np.arange(1.0, 41.0), (300, 1)), axis=1))
        Y = sp.csr_matrix((rng.random((300, 40)) < 0.2).astype(int))
        got = [F.precision_at_k(Y, S, k, average=None) for k in (1, 2, 5)]
        D = S.toarray()
        want = [F.precision_at_k(Y.toarray(), D, k, average=None) for k in (1, 2, 5)]
        assert all(np.allclose(a, b) for a, b in zip(got, want))
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_ndcg_with_a_huge_n_relevant_reads_only_the_first_k_ideal_ranks():
    """n_relevant far above k: the ideal list is k relevant items long wherever R >= k,
    so 1e19 gives the numbers n_relevant = k gives (it built one stand-in per missing
    item: 15 GiB for 2e9, numpy's 'negative dimensions' error for 1e19)."""
    y, s = [[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]]
    ks = [1, 2, 3]
    want = F.ndcg_at_k(y, s, ks, n_relevant=[3], average=None)
    for nr in (10**8, 2 * 10**9, 10**19):
        _same(F.ndcg_at_k(y, s, ks, n_relevant=[nr], average=None), want, nr)
        got = F.top_k_metrics(y, s, ks, measures=["nDCG", "recall"], n_relevant=[nr])
        assert got["nDCG@3"] == float(want[0, 2])


def test_propensities_whose_inverses_overflow_are_refused():
    """A propensity in (0, 1] whose inverse weight is infinite (1e-310), or two whose
    inverses sum beyond float64: refused by name (PSP was NaN with a warning that
    blamed the rows, or inf unnormalised); 1e-300 still works."""
    y, s = [[1, 0, 1, 0]], [[0.9, 0.8, 1.0, 0.7]]
    for p in ([0.5, 0.9, 1e-310, 0.9], [0.5, 0.9, 1e-308, 1e-308]):
        for f in (F.psprecision_at_k, F.psndcg_at_k):
            with pytest.raises(ValueError, match="inverse weights that sum beyond float64"):
                f(y, s, [1, 2], propensity=p)
    got = F.psprecision_at_k(y, s, [1, 2, 3], propensity=[0.5, 0.9, 1e-300, 0.9])
    assert got.tolist() == [1.0, 1.0, 1.0]
