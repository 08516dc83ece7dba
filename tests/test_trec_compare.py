"""Runs compared: the paired tests of fastrank.stats, compare_runs and ``fastrank trec`` with
several runs.

Oracles: scipy.stats (``ttest_rel``, ``wilcoxon`` with its defaults, ``permutation_test``
with ``permutation_type="samples"`` for the exact randomization test), every sign pattern
enumerated by hand for small cases, a hand-written Holm and Bonferroni (and statsmodels'
``multipletests`` where it is installed), evaluate_run for the per-query values, and
trec_eval 10's own per-query output on the TREC 2003 Robust runs.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank import stats
from fastrank._trec import cli as trec_cli
from fastrank._trec import compare as trec_compare
from fastrank.cli import main

sys.path.insert(0, __import__("os").path.dirname(__file__))
from strategies import PROPERTY_SETTINGS

scipy_stats = pytest.importorskip("scipy.stats")

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
ROBUST = DATA / "trec_robust2003"


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _scipy_t(d):
    return float(_quiet(scipy_stats.ttest_rel, d, np.zeros_like(d)).pvalue)


def _scipy_wilcoxon(d):
    return float(_quiet(scipy_stats.wilcoxon, d).pvalue)


def _scipy_exact_randomization(d):
    d = np.asarray(d, np.float64)
    res = scipy_stats.permutation_test(
        (d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples", vectorized=True, n_resamples=2 ** d.shape[0])
    return float(res.pvalue)


def _differences(kind, n, rng):
    """Per-query differences: continuous, or on a grid of eighths (ties and zeros;
    every sum exact in binary, so every order of summing agrees)."""
    if kind == "continuous":
        return rng.normal(0.03, 0.2, n)
    return rng.integers(-4, 5, n) / 8.0


# -- the tests against scipy -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["continuous", "tied"])
def test_paired_t_against_scipy(kind):
    rng = np.random.default_rng(1)
    compared = 0
    for n in (2, 3, 5, 10, 31, 100, 400):
        for _ in range(10):
            d = _differences(kind, n, rng)
            if np.all(d == d[0]):
                continue
            assert stats.paired_t_p(d) == pytest.approx(_scipy_t(d), rel=1e-9, abs=1e-300)
            compared += 1
    assert compared >= 60


def test_paired_t_degenerate_cases():
    assert stats.paired_t_p([0.0, 0.0, 0.0]) == 1.0  # scipy: NaN; no difference at all
    assert stats.paired_t_p([0.25, 0.25, 0.25]) == 0.0 == _scipy_t(np.array([0.25] * 3))
    assert math.isnan(stats.paired_t_p([0.5]))


@pytest.mark.parametrize("kind", ["continuous", "tied"])
def test_wilcoxon_against_scipy(kind):
    # n up to 13 with ties or zeros: scipy's exact permutation distribution; no ties
    # up to 50: the exact distribution; otherwise the normal approximation.
    rng = np.random.default_rng(2)
    compared = 0
    for n in (1, 2, 4, 7, 10, 13, 14, 20, 35, 50, 51, 80, 300):
        # scipy's permutation distribution of tied values takes about a second at
        # n = 13 (0.15 s at 10): fewer draws there keep the test quick
        for _ in range(2 if kind == "tied" and n >= 10 else 8):
            d = _differences(kind, n, rng)
            if not d.any():
                continue
            assert stats.wilcoxon_p(d) == pytest.approx(_scipy_wilcoxon(d), rel=1e-10)
            compared += 1
    assert compared >= (90 if kind == "continuous" else 45)


@given(st.lists(st.sampled_from([-0.5, -0.25, 0.0, 0.125, 0.25, 0.5, 1.0]), min_size=1,
                max_size=60))
@PROPERTY_SETTINGS
def test_wilcoxon_against_scipy_on_tied_values(values):
    d = np.array(values)
    if not d.any():
        assert stats.wilcoxon_p(d) == 1.0  # scipy: NaN
        return
    assert stats.wilcoxon_p(d) == pytest.approx(_scipy_wilcoxon(d), rel=1e-10)


@pytest.mark.parametrize("kind", ["continuous", "tied"])
def test_exact_randomization_against_scipy(kind):
    rng = np.random.default_rng(3)
    compared = 0
    for n in (2, 3, 6, 9, 12):  # scipy needs two
        for _ in range(6):
            d = _differences(kind, n, rng)
            expected = _scipy_exact_randomization(d)
            assert stats.sign_flip_p(d, n_permutations=2**n) == pytest.approx(expected,
                                                                              rel=1e-12)
            compared += 1
    assert compared == 30
    assert stats.sign_flip_p([0.5]) == 1.0  # both patterns reach |0.5|


@given(st.lists(st.sampled_from([-1.0, -0.375, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5]),
                min_size=2, max_size=10))
@PROPERTY_SETTINGS
def test_exact_randomization_against_scipy_on_tied_values(values):
    d = np.array(values)
    assert stats.sign_flip_p(d) == pytest.approx(_scipy_exact_randomization(d), rel=1e-12)


def test_randomization_of_differences_whose_sum_overflows():
    """Differences near 1e308: their sum is infinite, so every pattern's threshold was
    inf - inf and no pattern reached it (p = 0, not even the observed one). The test
    is the same at any scale: the p-value of the same differences over 2**1024."""
    assert stats.sign_flip_p([1e308, 1e308]) == stats.sign_flip_p([1.0, 1.0]) == 0.5
    d = np.array([[1e308, 0.5], [1e308, 0.5], [-1e308, -0.25]])
    small = np.ldexp(d[:, 0], -1024)[:, None]
    got = stats.sign_flip_p(d)
    assert got[0] == stats.sign_flip_p(small)[0] and got[1] == stats.sign_flip_p(d[:, 1])


def test_exact_randomization_by_hand_and_on_many_columns():
    # Every sign pattern written out; the columns of a 2-D input tested alike.
    rng = np.random.default_rng(4)
    d = np.column_stack([rng.integers(-3, 4, 8) / 4.0 for _ in range(5)])
    p = stats.sign_flip_p(d, n_permutations=256)
    for j in range(5):
        observed = abs(d[:, j].sum())
        hits = sum(abs(sum(s * x for s, x in zip(signs, d[:, j], strict=True))) >= observed
                   for signs in itertools.product((1, -1), repeat=8))
        assert p[j] == hits / 256
        assert stats.sign_flip_p(d[:, j], n_permutations=256) == p[j]
    assert stats.sign_flip_p(np.zeros(6)) == 1.0


def test_random_randomization_is_seeded_and_near_the_exact_value():
    rng = np.random.default_rng(5)
    d = _differences("continuous", 16, rng)
    exact = stats.sign_flip_p(d, n_permutations=2**16)
    assert exact == pytest.approx(_scipy_exact_randomization(d), rel=1e-12)
    drawn = [stats.sign_flip_p(d, n_permutations=20_000, seed=s) for s in (7, 7, 8)]
    assert drawn[0] == drawn[1] != drawn[2]
    for p in drawn:  # (1 + hits) / (1 + B): within 5 standard errors of the exact value
        assert abs(p - exact) < 5 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4
        assert round(p * 20_001) == p * 20_001
    strong = stats.sign_flip_p(np.full(40, 0.1), n_permutations=99, seed=0)
    assert strong == 1 / 100  # never 0: the observed pattern counts as a draw


# -- adjustments -------------------------------------------------------------------------------


def _holm_by_hand(p):
    valid = [i for i, x in enumerate(p) if not math.isnan(x)]
    m = len(valid)
    order = sorted(valid, key=lambda i: p[i])
    out = list(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_holm_and_bonferroni_against_a_reference():
    rng = np.random.default_rng(6)
    for _ in range(200):
        m = int(rng.integers(1, 12))
        p = rng.choice([0.001, 0.01, 0.02, 0.04, 0.3, 0.9, float("nan")], m).tolist()
        p = [x if rng.random() < 0.5 else float(rng.random()) / 10 for x in p]
        valid = sum(not math.isnan(x) for x in p)
        holm = stats.adjust_p(p, "holm")
        bonf = stats.adjust_p(p, "bonferroni")
        np.testing.assert_allclose(holm, _holm_by_hand(p), rtol=1e-15)
        np.testing.assert_allclose(bonf, [min(1.0, x * valid) if not math.isnan(x) else x
                                          for x in p], rtol=1e-15)
        np.testing.assert_array_equal(stats.adjust_p(p, None), p)
    with pytest.raises(ValueError, match="correction must be one of"):
        stats.adjust_p([0.1], "sidak")
    for bad in (-0.5, 1.5, float("inf")):  # not p-values: refused, not scaled
        with pytest.raises(ValueError, match=r"p_values must lie in \[0, 1\]"):
            stats.adjust_p([0.2, bad], "holm")


def test_holm_and_bonferroni_against_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(7)
    for _ in range(50):
        p = rng.random(int(rng.integers(1, 20))) ** 3
        for method in ("holm", "bonferroni"):
            np.testing.assert_allclose(stats.adjust_p(p, method),
                                       multitest.multipletests(p, method=method)[1], rtol=1e-12)


# -- compare_runs ------------------------------------------------------------------------------


def _collection(seed, n_queries=30, n_runs=3, skip=None):
    """Random qrels and runs with tied scores; ``skip``: a run without some queries."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {}
    for q in range(n_queries):
        docs = [f"d{j}" for j in range(12)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:8]}
        qrels[f"q{q}"]["d0"] = 1  # every query has a relevant document
    for r in range(n_runs):
        bias = 0.3 * r
        runs[f"r{r}"] = {q: {d: float(np.round(rng.random() + bias * (qrels[q].get(d, 0) > 0), 1))
                             for d in (f"d{j}" for j in range(12))}
                         for q in qrels if not (skip and r == skip[0] and q in skip[1])}
    return qrels, runs


@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon"])
def test_compare_runs_pairs_evaluate_run_and_tests_the_differences(test):
    qrels, runs = _collection(11)
    measures = ["map", "P@5", "ndcg@10", "recip_rank", "num_rel_ret"]
    c = fastrank.compare_runs(qrels, runs, measures, test=test, seed=3, n_permutations=2000)
    assert c.runs == ("r0", "r1", "r2") and c.measures == tuple(measures)
    assert c.pairs == (("r0", "r1"), ("r0", "r2"), ("r1", "r2"))
    single = {name: fastrank.evaluate_run(qrels, run, measures) for name, run in runs.items()}
    for name in runs:
        assert c.queries.tolist() == single[name].queries.tolist()
        for m in measures:
            np.testing.assert_array_equal(c.per_query[name][m], single[name].per_query[m])
            assert c.mean[name][m] == single[name].mean[m]  # bit for bit, sums of counts too
    for m in measures:
        diffs = [single[a].per_query[m] - single[b].per_query[m] for a, b in c.pairs]
        if test == "t":
            expected = [_scipy_t(d) for d in diffs]
        elif test == "wilcoxon":
            expected = [_scipy_wilcoxon(d) for d in diffs]
        else:
            expected = [stats.sign_flip_p(d, 2000, 3) for d in diffs]
        # every run retrieves every relevant document: num_rel_ret never differs, where
        # scipy's t and Wilcoxon give NaN and fastrank 1
        expected = [1.0 if not d.any() else p for d, p in zip(diffs, expected, strict=True)]
        assert (m == "num_rel_ret") == all(not d.any() for d in diffs)
        np.testing.assert_allclose(c.p_value[m], expected, rtol=1e-9)
        np.testing.assert_array_equal(c.p_corrected[m], stats.adjust_p(c.p_value[m], "holm"))
        np.testing.assert_array_equal(c.significant[m], c.p_corrected[m] <= 0.05)
        assert c.n_queries[m] == 30
    assert any(c.significant[m].any() for m in measures)  # the runs differ by design


def test_the_randomization_test_is_reproducible_and_the_seed_is_kept():
    qrels, runs = _collection(12, n_queries=40)
    a = fastrank.compare_runs(qrels, runs, ["map", "P@5"], seed=5)
    b = fastrank.compare_runs(qrels, runs, ["map", "P@5"], seed=5)
    c = fastrank.compare_runs(qrels, runs, ["map", "P@5"])
    assert a.seed == 5 and isinstance(c.seed, int)
    for m in ("map", "P@5"):
        np.testing.assert_array_equal(a.p_value[m], b.p_value[m])
        again = fastrank.compare_runs(qrels, runs, [m], seed=c.seed)
        np.testing.assert_array_equal(again.p_value[m], c.p_value[m])
        assert (a.p_value[m] * 10_001 == np.round(a.p_value[m] * 10_001)).all()


def test_exact_randomization_through_compare_runs_against_scipy():
    qrels, runs = _collection(13, n_queries=10)
    c = fastrank.compare_runs(qrels, runs, ["P@5", "recip_rank"], correction=None)
    for m in ("P@5", "recip_rank"):
        for j, (a, b) in enumerate(c.pairs):
            d = c.per_query[a][m] - c.per_query[b][m]
            assert c.p_value[m][j] == pytest.approx(_scipy_exact_randomization(d), rel=1e-9)
        np.testing.assert_array_equal(c.p_value[m], c.p_corrected[m])
    assert "every sign pattern" in c.describe()


def test_baseline_bonferroni_and_ranx_names():
    qrels, runs = _collection(14)
    c = fastrank.compare_runs(qrels, runs, ["map"], test="student", correction="bonferroni",
                              baseline="r2", alpha=0.01)
    assert c.test == "t" and c.pairs == (("r2", "r0"), ("r2", "r1"))
    raw = [_scipy_t(c.per_query["r2"]["map"] - c.per_query[o]["map"]) for o in ("r0", "r1")]
    np.testing.assert_allclose(c.p_value["map"], raw, rtol=1e-9)
    np.testing.assert_allclose(c.p_corrected["map"], np.minimum(1, 2 * np.array(raw)),
                               rtol=1e-9)
    assert fastrank.compare_runs(qrels, runs, ["map"], test="fisher").test == "randomization"


def test_runs_over_different_queries_are_paired_on_the_common_ones():
    qrels, runs = _collection(15, skip=(1, {"q3", "q7"}))
    with pytest.warns(UserWarning, match="pairs the 28 every run has"):
        c = fastrank.compare_runs(qrels, runs, ["map"], test="t")
    assert len(c.queries) == 28 and "q3" not in c.queries.tolist()
    full = fastrank.evaluate_run(qrels, runs["r0"], ["map"])
    keep = np.isin(full.queries, c.queries)
    np.testing.assert_array_equal(c.per_query["r0"]["map"], full.per_query["map"][keep])
    assert c.mean["r0"]["map"] == pytest.approx(full.per_query["map"][keep].mean(), rel=1e-15)


def test_identical_runs_are_never_different():
    qrels, runs = _collection(16, n_runs=1)
    same = {"a": runs["r0"], "b": dict(runs["r0"])}
    for test in ("randomization", "t", "wilcoxon"):
        c = fastrank.compare_runs(qrels, same, ["map", "P@5"], test=test)
        for m in ("map", "P@5"):
            assert c.p_value[m].tolist() == [1.0] and not c.significant[m].any()


def test_a_measure_undefined_on_a_query_leaves_it_out():
    qrels, runs = _collection(17, n_queries=12)
    qrels["q0"] = {d: 0 for d in qrels["q0"]}  # no relevant document: map is NaN
    with pytest.warns(fastrank.UndefinedMetricWarning):
        c = fastrank.compare_runs(qrels, runs, ["map", "num_ret"], test="wilcoxon")
    assert c.n_queries == {"map": 11, "num_ret": 12}
    d = c.per_query["r0"]["map"][1:] - c.per_query["r1"]["map"][1:]
    assert c.p_value["map"][0] == pytest.approx(_scipy_wilcoxon(d), rel=1e-12)


def test_the_table_marks_what_the_adjusted_p_values_say():
    for seed in (20, 21, 22):
        qrels, runs = _collection(seed, n_queries=25, n_runs=4)
        c = fastrank.compare_runs(qrels, runs, ["map", "P@5", "recip_rank"], test="t", seed=1)
        lines = c.table().splitlines()
        assert lines[0].split() == ["#", "run", "map", "P@5", "recip_rank"]
        labels = dict(zip("abcd", c.runs, strict=True))
        for line in lines[1:5]:
            label, run, *cells = line.split()
            assert labels[label] == run
            for m, cell in zip(c.measures, cells, strict=True):
                value, _, marks = cell.partition("^")
                assert float(value) == pytest.approx(c.mean[run][m], abs=5e-5)
                expected = set()
                for (a, b), sig in zip(c.pairs, c.significant[m], strict=True):
                    if sig and run in (a, b):
                        other = b if run == a else a
                        if c.mean[run][m] > c.mean[other][m]:
                            expected.add(other)
                assert {labels[x] for x in marks} == expected
        assert "Holm-adjusted p <= 0.05 across the 6 comparisons" in " ".join(lines[5:])
    assert any("^" in line for line in lines[1:5])


def test_rows_dict_and_frame():
    qrels, runs = _collection(23)
    c = fastrank.compare_runs(qrels, runs, ["map", "P@5"], test="t")
    rows = c.rows()
    assert len(rows) == 2 * 3 and tuple(rows[0]) == trec_cli.COMPARISON_COLUMNS
    for row in rows:
        a, b, m = row["run_a"], row["run_b"], row["measure"]
        va, vb = c.per_query[a][m], c.per_query[b][m]
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((va > vb).sum()), int((va == vb).sum()), int((va < vb).sum()))
        assert row["difference"] == row["mean_a"] - row["mean_b"]
    data = json.loads(json.dumps(c.to_dict()))
    assert data["comparisons"] == rows and data["runs"] == ["r0", "r1", "r2"]
    pytest.importorskip("pandas")
    frame = c.to_frame()
    assert frame.shape == (6, len(trec_cli.COMPARISON_COLUMNS))
    assert frame["p_value"].tolist() == [r["p_value"] for r in rows]


def test_plot_draws_one_bar_per_query_sorted():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    qrels, runs = _collection(24, n_queries=17)
    c = fastrank.compare_runs(qrels, runs, ["map"], test="t")
    fig = c.plot("map", "r2", "r0")
    (ax,) = fig.axes
    heights = [bar.get_height() for bar in ax.patches]
    expected = np.sort(c.per_query["r2"]["map"] - c.per_query["r0"]["map"])[::-1]
    assert len(heights) == 17
    np.testing.assert_array_equal(heights, expected)
    assert fig.axes[0].get_title().startswith("map: r2 - r0")
    assert len(c.plot("map").axes[0].patches) == 17  # the first pair by default
    with pytest.raises(ValueError, match="unknown run"):
        c.plot("map", "r0", "zz")
    with pytest.raises(ValueError, match="unknown measure"):
        c.plot("P@5")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"test": "sign"}, ValueError, "test must be one of"),
    ({"correction": "sidak"}, ValueError, "correction must be one of"),
    ({"alpha": 0.0}, ValueError, r"alpha must be in \(0, 1\)"),
    ({"alpha": 1.0}, ValueError, r"alpha must be in \(0, 1\)"),
    ({"alpha": True}, TypeError, "alpha must be a number"),
    ({"n_permutations": 0}, ValueError, "n_permutations must be at least 1"),
    ({"n_permutations": 10.0}, TypeError, "n_permutations must be a positive integer"),
    ({"seed": -1}, ValueError, "seed must be non-negative"),
    ({"baseline": "nope"}, ValueError, "baseline 'nope' is not one of the runs"),
    ({"ties": "random"}, ValueError, "run 'r0': ties must be one of"),
])
def test_bad_options_are_refused(kwargs, error, match):
    qrels, runs = _collection(25, n_queries=4, n_runs=2)
    with pytest.raises(error, match=match):
        fastrank.compare_runs(qrels, runs, ["map"], **kwargs)


def test_bad_runs_are_refused():
    qrels, runs = _collection(26, n_queries=4, n_runs=2)
    with pytest.raises(ValueError, match="at least two runs; got 1"):
        fastrank.compare_runs(qrels, {"only": runs["r0"]}, ["map"])
    with pytest.raises(ValueError, match="at least two runs; got 1"):
        fastrank.compare_runs(qrels, [runs["r0"]], ["map"])
    triple = (["q0", "q0"], ["d0", "d1"], [1.0, 0.5])  # one run, not a list of runs
    with pytest.raises(TypeError, match="is not a run"):
        fastrank.compare_runs(qrels, triple, ["map"])
    with pytest.raises(TypeError, match="dict name -> run or a list"):
        fastrank.compare_runs(qrels, "run.txt", ["map"])
    with pytest.raises(ValueError, match="distinct as text"):
        fastrank.compare_runs(qrels, {1: runs["r0"], "1": runs["r1"]}, ["map"])
    other = {"z1": {"d0": 1.0}}
    qrels["z1"] = {"d0": 1}
    with pytest.raises(ValueError, match="no evaluated query in common"):
        fastrank.compare_runs(qrels, [{"q0": runs["r0"]["q0"]}, other], ["map"])
    with pytest.raises(ValueError, match="run 'run2': no query of the run has judgments"):
        fastrank.compare_runs(qrels, [runs["r0"], {"zz": {"d0": 1.0}}], ["map"])
    c = fastrank.compare_runs(qrels, [runs["r0"], runs["r1"]], "map", test="t")
    assert c.runs == ("run1", "run2")


# -- the TREC 2003 Robust runs, against trec_eval 10 and scipy ---------------------------------


def _unzipped(path, folder):
    out = folder / path.name[:-len(".gz")]
    out.write_bytes(gzip.decompress(path.read_bytes()))
    return str(out)


def _trec_eval_values(name, measure):
    out = {}
    with gzip.open(ROBUST / "trec_eval10" / f"{name}.aq.gz", "rt") as f:
        for line in f:
            m, q, v = line.split()
            if m == measure and q != "all":
                out[q] = float(v)
    return out


@pytest.mark.skipif(not ROBUST.is_dir(), reason=f"{ROBUST} is absent (real data, not shipped)")
def test_robust2003_runs_against_trec_eval_and_scipy(tmp_path):
    names = ["InexpC2", "SABIR03BASE", "humR03dc", "uwmtCR0"]
    qrels = fastrank.read_qrels(_unzipped(ROBUST / "qrels.robust2003.txt.gz", tmp_path))
    runs = {n: fastrank.read_run(_unzipped(ROBUST / "runs" / f"input.{n}.gz", tmp_path))
            for n in names}
    measures = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
    compared = 0
    for test, oracle in (("t", _scipy_t), ("wilcoxon", _scipy_wilcoxon)):
        c = fastrank.compare_runs(qrels, runs, measures, ties="trec_eval", test=test)
        assert len(c.queries) == 100
        for m in measures:
            for n in names:  # the paired values are trec_eval's, to its 4 printed decimals
                ref = _trec_eval_values(n, m)
                got = dict(zip(c.queries.tolist(), c.per_query[n][m].tolist(), strict=True))
                assert got.keys() == ref.keys()
                assert max(abs(got[q] - ref[q]) for q in ref) <= 5e-5 + 1e-12
            for j, (a, b) in enumerate(c.pairs):
                d = c.per_query[a][m] - c.per_query[b][m]
                assert c.p_value[m][j] == pytest.approx(oracle(d), rel=1e-9, abs=1e-300)
                compared += 1
    assert compared == 2 * 4 * 6


# -- the command line --------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    qrels, runs = _collection(30, n_queries=12, n_runs=3)
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                            for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                             for d, s in docs.items()))
        paths.append(str(p))
    return str(path), paths


def _run_cli(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_compares_several_runs(files, capsys):
    qrels, paths = files
    status, out, err = _run_cli(capsys, ["trec", qrels, *paths, "-m", "map", "-m", "P_5",
                                         "--test", "t", "--format", "csv"])
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    c = fastrank.compare_runs(fastrank.read_qrels(qrels),
                              {p.rsplit("/", 1)[1]: fastrank.read_run(p) for p in paths},
                              ["map", "P_5"], test="t")
    assert rows and [r["measure"] for r in rows] == ["map"] * 3 + ["P_5"] * 3
    for row, ref in zip(rows, c.rows(), strict=True):
        assert (row["run_a"], row["run_b"]) == (ref["run_a"], ref["run_b"]) == (
            row["run_a"], row["run_b"])
        assert float(row["p_value"]) == ref["p_value"]  # full precision
        assert float(row["p_corrected"]) == ref["p_corrected"]
        assert row["significant"] == str(ref["significant"])
    status, out, err = _run_cli(capsys, ["trec", qrels, *paths, "-m", "map", "--format", "json",
                                         "--seed", "4", "--baseline", "r1.run",
                                         "--correction", "none", "--permutations", "500"])
    assert status == 0, err
    data = json.loads(out)
    assert [(r["run_a"], r["run_b"]) for r in data] == [("r1.run", "r0.run"),
                                                        ("r1.run", "r2.run")]
    assert all(r["p_value"] == r["p_corrected"] for r in data)
    again = fastrank.compare_runs(
        fastrank.read_qrels(qrels), {p.rsplit("/", 1)[1]: fastrank.read_run(p) for p in paths},
        ["map"], seed=4, baseline="r1.run", correction=None, n_permutations=500)
    assert [r["p_value"] for r in data] == again.p_value["map"].tolist()
    status, out, err = _run_cli(capsys, ["trec", qrels, *paths, "-m", "map", "-m", "P_5",
                                         "--test", "t"])
    assert status == 0 and out.strip() == c.table()


@pytest.mark.parametrize(("argv", "match"), [
    (["--alpha", "1"], "is not in"),
    (["--permutations", "0"], "is not at least 1"),
    (["--test", "tukey"], "invalid choice"),
    (["--correction", "fdr"], "invalid choice"),
    (["--baseline", "nope"], "is not one of the runs"),
    (["-q"], "--per-query prints one run's values"),
])
def test_cli_usage_errors_of_a_comparison(files, capsys, argv, match):
    qrels, paths = files
    with pytest.raises(SystemExit) as exit_:
        main(["trec", qrels, *paths, "-m", "map", *argv])
    assert exit_.value.code == 2
    assert match in capsys.readouterr().err


def test_cli_names_its_choices_from_the_library(capsys):
    assert trec_cli.TESTS == trec_compare.TESTS
    assert trec_cli.CORRECTIONS == (*stats.CORRECTIONS, "none")
    with pytest.raises(SystemExit):
        main(["trec", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ", ".join(fastrank.trec.MEASURES) in text.replace("- ", "-")


def test_the_measure_help_is_not_expanded_while_the_parser_is_built():
    # argparse (3.14) expands each new argument's help in _check_help to check it: the
    # measure names are then not read (their module imports the kernels).
    help_ = trec_cli.MeasureHelp("a measure (fastrank.trec.MEASURES)")

    def _check_help(text):
        return text % {}

    assert _check_help(help_) == "a measure (fastrank.trec.MEASURES)"
    assert "num_nonrel_judged_ret" in help_ % {}


def test_the_t_test_on_one_query_says_its_p_values_are_nan():
    qrels, runs = _collection(27, n_queries=1)
    with pytest.warns(UserWarning, match="the t test needs two paired queries or more; map has 1"):
        c = fastrank.compare_runs(qrels, runs, ["map"], test="t")
    assert np.isnan(c.p_value["map"]).all() and not c.significant["map"].any()
    assert "; 1 query" in c.describe()
    assert "^" not in "".join(c.table().splitlines()[1:4])


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
def test_each_runs_means_are_its_evaluate_run_all_row(ties):
    """On the queries every run has, a comparison's means are evaluate_run's all row:
    gm_map and gm_bpref were arithmetic means (gm_map equal to map: 0.3333 where
    trec_eval and evaluate_run give 0.2887)."""
    rng = np.random.default_rng(11)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(8)} for q in range(6)}
    runs = {name: {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in range(10)}
                   for q in range(6)} for name in ("A", "B", "C")}
    names = ["map", "gm_map", "gm_bpref", "bpref", "num_rel_ret", "num_ret", "P_5", "ndcg"]
    c = fastrank.compare_runs(qrels, runs, names, ties=ties)
    for name, run in runs.items():
        want = fastrank.evaluate_run(qrels, run, names, ties=ties).mean
        assert c.mean[name] == want
    assert c.mean["A"]["gm_map"] < c.mean["A"]["map"]
