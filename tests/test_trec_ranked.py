"""trec_eval's rank-based measures in :func:`fastrank.evaluate_run`: ``num_q``,
``gm_map``, ``iprec_at_recall_*``, ``11pt_avg``, ``relative_P_k``, ``binG``, ``G``,
``ndcg_rel`` and ``Rndcg``, and trec_eval's ``-m`` syntax (``P.5,10``, root names at
their default cut-offs, ``all_trec``, ``official``).

Oracles: trec_eval 10's own output (``-q -m all_trec``) on the 14 runs of the TREC
2003 Robust track and on trec_eval's test collection (with ``out.test.meas_params``
for cut-offs given by ``root.params``), read from ``../shared/data`` (skipped, saying
why, where absent); and, on small random runs with heavy ties and grades -1 .. 3,
trec_eval's loops written out in Python over every order of the tied documents (the
tie-expected value is their mean; relevant first or last for the other rules).
"""

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
from fastrank._trec.measures import expand

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data
from strategies import PROPERTY_SETTINGS

NEW = ["num_q", "gm_map", "iprec_at_recall", "11pt_avg", "relative_P", "binG", "G",
       "ndcg_rel", "Rndcg"]
PER_QUERY = 11 + 1 + 9 + 4  # iprec_at_recall, 11pt_avg, relative_P, binG G ndcg_rel Rndcg


@data.NEEDS_ROBUST
def test_every_robust2003_run_matches_trec_eval_10(tmp_path) -> None:
    """All 14 runs, each of their 100 queries and the all row, in trec_eval's order of
    ties; and relative_P, whose expectation is linear, equal under every tie rule
    where a run has no ties."""
    assert len(data.RUNS) == 14
    compared = 0
    for name, qrels, run in data.robust_runs(tmp_path):
        want = data.printed(data.robust_printed(name))
        got = fastrank.evaluate_run(qrels, run, NEW, ties="trec_eval")
        compared += data.compare(got, want, got.per_query)
        if name in ("humR03dc", "uic0301"):  # no tied scores: every rule gives one order
            for ties in ("expected", "optimistic", "pessimistic"):
                same = fastrank.evaluate_run(qrels, run, NEW, ties=ties)
                for m, v in got.per_query.items():
                    np.testing.assert_allclose(same.per_query[m], v, rtol=1e-10, atol=1e-14)
    assert compared == 14 * (101 * PER_QUERY + 2)


@data.NEEDS_ROBUST
def test_every_robust2003_run_under_every_tie_rule(tmp_path) -> None:
    """The heavily tied runs (MU03rob01 ties 90% of its rows) under the other rules:
    every value defined and within [0, 1]; where relevant documents first (last) is
    the best (worst) order, binG, relative_P and AP (gm_map) lie between them, with
    the expectation and trec_eval's order."""
    names = [n for n in NEW if n != "G"]
    bounded = ["binG", "gm_map", *expand("relative_P")]
    for name, qrels, run in data.robust_runs(tmp_path):
        got = {t: fastrank.evaluate_run(qrels, run, names, ties=t)
               for t in ("expected", "optimistic", "pessimistic", "trec_eval")}
        for t, r in got.items():
            for m, v in r.per_query.items():
                if m != "num_q":
                    assert np.isfinite(v).all() and (v >= 0).all() and (v <= 1).all(), (t, m)
        for m in bounded:
            low, high = got["pessimistic"].per_query[m], got["optimistic"].per_query[m]
            for t in ("expected", "trec_eval"):
                v = got[t].per_query[m]
                assert (low <= v + 1e-12).all() and (v <= high + 1e-12).all(), (name, t, m)
        for m in got["trec_eval"].per_query:  # without ties all four are one order
            if name in ("humR03dc", "uic0301"):
                np.testing.assert_allclose(got["pessimistic"].per_query[m],
                                           got["optimistic"].per_query[m], rtol=1e-10)


@data.NEEDS_TEST
def test_trec_evals_own_test_collection() -> None:
    """``out.test.aq`` (``-q -m all_trec``), ``out.test.a`` (its all rows, which name
    every measure in the order of ``all_trec``) and ``out.test.meas_params`` (cut-offs
    given as ``root.params``: names and values)."""
    qrels, run = data.collection()
    got = fastrank.evaluate_run(qrels, run, NEW, ties="trec_eval")
    assert data.compare(got, data.printed(data.collection_printed("out.test.aq")), got.per_query) \
        == 3 * PER_QUERY + PER_QUERY + 2
    means = data.printed(data.collection_printed("out.test.a"))
    for name, v in got.mean.items():
        assert abs(v - float(means[name]["all"])) <= 0.5e-4 + 1e-12, name
    # trec_eval's all row names all_trec's measures in its order (runid is no measure)
    assert [n for n in means if n != "runid"] == expand("all_trec")
    params = data.printed(data.collection_printed("out.test.meas_params"))
    asked = ["iprec_at_recall.0.1,0.20,.25,0.5,0.75", "P.7,3,5", "recall.20,2000",
             "Rprec_mult.0.2,0.35,5.0", "ndcg_cut.10,20,23", "success.2,5,20"]
    got = fastrank.evaluate_run(qrels, run, asked, ties="trec_eval")
    shown = [n for n in params if "," not in n]  # utility_2,-1,0,0 etc. are not taken
    assert list(got.per_query) == shown
    compared = 0
    for name in shown:
        for q, v in [*zip(got.queries.tolist(), got.per_query[name].tolist(), strict=True),
                     ("all", got.mean[name])]:
            assert abs(v - float(params[name][str(q)])) <= 0.5e-4 + 1e-12, (name, q)
            compared += 1
    assert compared == 4 * 19


# --- trec_eval's loops, written out in Python, on one ranking ---------------------

def _gains(judged: list[int]) -> list[tuple[int, int]]:
    """trec_eval's gain levels: (gain, documents judged at it) for every grade from 0
    to the highest, by gain increasing."""
    top = max(g for g in judged if g >= 0)
    return [(lvl, sum(g == lvl for g in judged)) for lvl in range(top + 1)]


def _ideal(judged: list[int]):
    """trec_eval's walk down the ideal ranking: yields the ideal gain at each rank."""
    levels = _gains(judged)
    cur = len(levels) - 1
    gain, at = levels[cur][0], 0
    while True:
        at += 1
        while cur >= 0 and at > levels[cur][1]:
            at, cur = 1, cur - 1
            gain = levels[cur][0] if cur >= 0 else 0.0
        yield gain


def _te(rels: list[int], judged: list[int], cuts, levels) -> dict[str, float]:
    """The measures of one ranking (the grade of each retrieved document, -1 when not
    judged) as trec_eval's code computes them; ``judged``: every judged grade."""
    R = sum(g >= 1 for g in judged)
    if R == 0:
        return {}
    ret = len(rels)
    out: dict[str, float] = {}
    hit = [g >= 1 for g in rels]
    for k in cuts:
        out[f"relative_P_{k}"] = sum(hit[:k]) / min(k, R)
    rel_ret = sum(hit)
    cutoffs = [math.floor(x * R + 0.5) for x in levels]  # C's lround, for x R >= 0
    iprec = [0.0] * len(levels)
    cur = len(levels) - 1
    while cur >= 0 and cutoffs[cur] > rel_ret:
        cur -= 1
    int_p = rel_ret / ret
    so_far = rel_ret
    for i in range(ret, 0, -1):
        if so_far <= 0:
            break
        int_p = max(int_p, so_far / i)
        if hit[i - 1]:
            while cur >= 0 and so_far == cutoffs[cur]:
                iprec[cur] = int_p
                cur -= 1
            so_far -= 1
    while cur >= 0:
        iprec[cur] = int_p
        cur -= 1
    for x, v in zip(levels, iprec, strict=True):
        out[f"iprec_at_recall_{x:.2f}"] = v
    out["11pt_avg"] = sum(iprec) / len(iprec)
    found, s = 0, 0.0
    for i, h in enumerate(hit):
        if h:
            found += 1
            s += 1 / math.log2(3 + i - found)
    out["binG"] = s / R
    found, ap = 0, 0.0
    for i, h in enumerate(hit, 1):
        if h:
            found += 1
            ap += found / i
    out["gm_map"] = ap / R
    gain = [max(g, 0) for g in rels]  # unjudged and negative grades gain nothing
    # G
    ideal = _ideal(judged)
    res_g = sum_res = sum_ideal = sum_cost = 0.0
    for i in range(ret):
        ig = next(ideal)
        sum_res += gain[i]
        sum_ideal += ig if ig > 0 else 0.0
        sum_cost += ig if ig >= 1 else 1.0
        if gain[i]:
            res_g += gain[i] / math.log2(2 + sum_cost - sum_res)
    total = sum(g for g in judged if g > 0)
    out["G"] = res_g / total
    # ndcg_rel: nDCG at each retrieved document of positive gain, the full nDCG for
    # each one not retrieved
    best_order = sorted((g for g in judged if g > 0), reverse=True)
    n_pos = len(best_order)

    def idcg(k):
        return sum(g / math.log2(j + 2) for j, g in enumerate(best_order[:k]))

    dcg, s, n_ret = 0.0, 0.0, 0
    for i in range(ret):
        dcg += gain[i] / math.log2(i + 2)
        if gain[i] > 0:
            s += dcg / idcg(i + 1)
            n_ret += 1
    out["ndcg_rel"] = (s + (n_pos - n_ret) * dcg / idcg(n_pos)) / n_pos

    # Rndcg: trec_eval's three loops, as written
    ideal = _ideal(judged)
    ideal_gain = old = float(_gains(judged)[-1][0])
    res_dcg = ideal_dcg = s = 0.0
    n, i = 0, 0
    while i < ret and ideal_gain > 0:
        ideal_gain = next(ideal)
        if old != ideal_gain:
            if ideal_dcg > 0:
                s, n = s + res_dcg / ideal_dcg, n + 1
            old = ideal_gain
        res_dcg += gain[i] / math.log2(i + 2)
        ideal_dcg += ideal_gain / math.log2(i + 2) if ideal_gain > 0 else 0.0
        i += 1
    if i < ret:
        while i < ret:
            res_dcg += gain[i] / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0:
            s, n = s + res_dcg / ideal_dcg, n + 1
    while ideal_gain > 0:
        ideal_gain = next(ideal)
        if old != ideal_gain:
            if ideal_dcg > 0:
                s, n = s + res_dcg / ideal_dcg, n + 1
            old = ideal_gain
        ideal_dcg += ideal_gain / math.log2(i + 2) if ideal_gain > 0 else 0.0
        i += 1
    out["Rndcg"] = s / n
    return out


def _orders(docs, scores, key):
    seen = set()
    for perm in itertools.permutations(range(len(docs))):
        ranked = tuple(docs[i] for i in sorted(range(len(docs)),
                                               key=lambda i: (-scores[i], key(i, perm))))
        if ranked not in seen:
            seen.add(ranked)
            yield ranked


def _group_ends(docs, scores, grades, levels):
    """iprec_at_recall under ties="expected": the interpolated precision of the points
    at the ends of the tie groups."""
    R = sum(g >= 1 for g in grades.values())
    points, found, rank = [], 0, 0
    for s in sorted(set(scores), reverse=True):
        group = [d for d, x in zip(docs, scores, strict=True) if x == s]
        rank += len(group)
        found += sum(grades.get(d, -1) >= 1 for d in group)
        points.append((found, rank))
    out = {}
    for x in levels:
        c = math.floor(x * R + 0.5)
        out[f"iprec_at_recall_{x:.2f}"] = \
            max([f / r for f, r in points if f >= c] + [0.0]) if c <= found else 0.0
    out["11pt_avg"] = float(np.mean(list(out.values())))
    return out


LEVELS = [i / 10 for i in range(11)]


@pytest.mark.parametrize("seed", range(40))
def test_small_runs_match_trec_evals_loops(seed) -> None:
    """Random small runs with heavy ties, grades -1 .. 3 and judged documents not
    retrieved: trec_eval's order, relevant first and last (by grade), and the mean
    over every order of the ties for the measures with a closed form."""
    rng = np.random.default_rng(seed)
    cuts = sorted({int(rng.integers(1, 4)), int(rng.integers(1, 8))})
    qrels: tuple[list, list, list] = ([], [], [])
    run: tuple[list, list, list] = ([], [], [])
    cases = {}
    for q in range(4):
        n = int(rng.integers(1, 7))
        docs = [f"d{i}" for i in range(n)]
        scores = rng.integers(0, 3, n).astype(float).tolist()
        grades = {d: int(g) for d in docs if (g := rng.integers(-1, 5)) != 4}
        grades.update({f"u{i}": int(rng.integers(0, 4)) for i in range(int(rng.integers(0, 3)))})
        if not any(g >= 0 for g in grades.values()):
            grades["u9"] = int(rng.integers(0, 3))
        for d, g in grades.items():
            qrels[0].append(f"q{q}"), qrels[1].append(d), qrels[2].append(g)
        for d, s in zip(docs, scores, strict=True):
            run[0].append(f"q{q}"), run[1].append(d), run[2].append(s)
        cases[f"q{q}"] = (docs, scores, grades)
    names = [f"relative_P.{','.join(map(str, cuts))}", "iprec_at_recall", "11pt_avg", "binG",
             "G", "ndcg_rel", "Rndcg", "gm_map", "num_q"]
    rules = {
        "trec_eval": lambda docs, grades: (lambda i, perm: tuple(-ord(c) for c in docs[i])),
        "optimistic": lambda docs, grades: (lambda i, perm: -grades.get(docs[i], 0)),
        "pessimistic": lambda docs, grades: (lambda i, perm: grades.get(docs[i], 0)),
        "expected": lambda docs, grades: (lambda i, perm: perm.index(i)),
    }
    tied = any(len(set(s)) < len(s) for _, s, _ in cases.values())
    for ties, rule in rules.items():
        asked = names if ties != "expected" or not tied else [n for n in names if n != "G"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            got = fastrank.evaluate_run(qrels, run, asked, ties=ties)
            if ties == "expected" and tied:
                with pytest.raises(ValueError, match=r"G has no closed form.*'trec_eval'"):
                    fastrank.evaluate_run(qrels, run, ["G"], ties=ties)
        assert got.mean["num_q"] == len(cases) and set(got.per_query["num_q"]) == {1.0}
        for j, q in enumerate(got.queries.tolist()):
            docs, scores, grades = cases[q]
            judged = list(grades.values())
            vals = [_te([grades.get(d, -1) for d in order], judged, cuts, LEVELS)
                    for order in _orders(docs, scores, rule(docs, grades))]
            if ties == "expected":
                assert len(vals) >= 1
            for m in got.per_query:
                if m == "num_q":
                    continue
                if not vals[0]:  # no relevant document: trec_eval's 0, else undefined
                    if ties == "trec_eval":
                        assert got.per_query[m][j] == 0.0, (seed, ties, q, m)
                    else:
                        assert math.isnan(got.per_query[m][j]), (seed, ties, q, m)
                    continue
                if ties == "expected" and (m.startswith("iprec") or m == "11pt_avg"):
                    want = _group_ends(docs, scores, grades, LEVELS)[m]
                else:
                    want = float(np.mean([v[m] for v in vals]))
                assert got.per_query[m][j] == pytest.approx(want, rel=1e-12, abs=1e-12), \
                    (seed, ties, q, m)
        ap = got.per_query["gm_map"]
        ap = ap[~np.isnan(ap)]
        if ap.shape[0]:  # trec_eval's all row: a geometric mean, each AP at least 1e-5
            assert got.mean["gm_map"] == pytest.approx(
                math.exp(sum(math.log(max(v, 1e-5)) for v in ap) / ap.shape[0]), rel=1e-12)


def test_expand_writes_trec_evals_names() -> None:
    assert expand("P") == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert expand(["success", "P.10,5"]) == ["success_1", "success_5", "success_10", "P_5",
                                             "P_10"]
    assert expand("iprec_at_recall")[::5] == ["iprec_at_recall_0.00", "iprec_at_recall_0.50",
                                              "iprec_at_recall_1.00"]
    assert expand("Rprec_mult")[0] == "Rprec_mult_0.20" and len(expand("Rprec_mult")) == 10
    assert expand(["ndcg_cut.5", "map_cut.1", "relative_P.7", "recall.3"]) == [
        "ndcg_cut_5", "map_cut_1", "relative_P_7", "recall_3"]
    assert expand(["Rprec_mult.0.5", "iprec_at_recall.0.333"]) == [
        "Rprec_mult_0.50", "iprec_at_recall_0.333"]  # a name says the number it computes
    assert expand(["map", "P@5", "P_5", "P.5", "map"]) == ["map", "P@5", "P_5"]
    assert expand("official") == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                                  "Rprec", "bpref", "recip_rank", *expand("iprec_at_recall"),
                                  *expand("P")]
    everything = expand("all_trec")
    assert len(everything) == len(set(everything)) == 98
    assert set(expand("official")) <= set(everything)
    qrels = (["q"] * 3, ["a", "b", "c"], [1, 2, 0])
    run = (["q"] * 4, ["a", "b", "c", "d"], [4.0, 3.0, 2.0, 1.0])
    got = fastrank.evaluate_run(qrels, run, ["P.1,2", "relative_P_2", "relative_P@2",
                                             "iprec_at_recall_0.5", "iprec_at_recall.0.5"])
    assert got.mean == {"P_1": 1.0, "P_2": 1.0, "relative_P_2": 1.0, "relative_P@2": 1.0,
                        "iprec_at_recall_0.5": 1.0, "iprec_at_recall_0.50": 1.0}


@pytest.mark.parametrize("name, match", [
    ("P.0", "must be positive integers"), ("P.x", "must be positive integers"),
    ("P.5,5", "must differ"), ("P.", "must be positive integers"),
    ("iprec_at_recall.1.5", "from 0 to 1"), ("iprec_at_recall_1.5", "from 0 to 1"),
    ("iprec_at_recall.x", "must be numbers"), ("Rprec_mult.-1", "must be numbers"),
    ("relative_P_0", "at least 1"), ("G.1=3", "without parameters"),
    ("11pt_avg.0.2,0.5", "without parameters"), ("ndcg_rel.1=2", "without parameters"),
    ("gm_ap", "unknown measure"), ("iprec", "unknown measure"), ("all", "unknown measure"),
])
def test_bad_names_are_refused(name, match) -> None:
    qrels = (["q"], ["a"], [1])
    run = (["q", "q"], ["a", "b"], [1.0, 0.5])
    with pytest.raises(ValueError, match=match) as err:
        fastrank.evaluate_run(qrels, run, ["map", name])
    if match == "unknown measure":  # the choices listed
        assert all(w in str(err.value) for w in ("ndcg_rel", "iprec_at_recall_r", "all_trec",
                                                 "Rprec_mult"))
    with pytest.raises(TypeError, match="must be str"):
        fastrank.evaluate_run(qrels, run, ["map", 5])


@pytest.mark.parametrize("seed", range(30))
def test_random_runs_match_pytrec_eval(seed) -> None:
    """A third oracle, trec_eval 9's C code through pytrec_eval (the same as trec_eval
    10 on these measures), on random runs with tied scores (float32-exact), grades -1
    .. 3 and judged documents not retrieved, in trec_eval's order of ties."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(1000 + seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(1, 6))):
        n = int(rng.integers(1, 40))
        docs = [f"d{i}" for i in rng.permutation(60)[:n]]
        run[f"q{q}"] = {d: float(rng.integers(0, 8)) for d in docs}
        judged = [d for d in docs if rng.random() < 0.7] + [f"u{i}" for i in range(5)]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in judged}
        qrels[f"q{q}"]["u0"] = max(qrels[f"q{q}"]["u0"], 0)  # one judged at 0 or above
    names = {"relative_P_5": "relative_P_5", "relative_P_10": "relative_P_10",
             "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
             "gm_map": "gm_map"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"relative_P", "binG", "G", "ndcg_rel",
                                                 "Rndcg", "gm_map"}).evaluate(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = fastrank.evaluate_run(qrels, run, list(names), ties="trec_eval")
    compared = 0
    for j, q in enumerate(got.queries.tolist()):  # those without relevant documents too
        for ours, theirs in names.items():
            want = ref[q][theirs]
            value = got.per_query[ours][j]
            if ours == "gm_map":  # trec_eval keeps log(max(AP, 1e-5)) per query
                value = math.log(max(value, 1e-5))
            assert value == pytest.approx(want, rel=1e-12, abs=1e-12), (seed, q, ours)
            compared += 1
    assert compared == len(names) * len(qrels)


def test_running_sums_are_each_lists_own() -> None:
    """The running sums within lists give the same bits from the padded matrix and
    from the loop over lists (one long list among short ones), and equal np.cumsum of
    each list alone."""
    from fastrank._trec.ranked import seg_cumsum
    rng = np.random.default_rng(7)
    for owner in (np.sort(rng.integers(0, 50, 300)), np.r_[np.zeros(9000, np.int64),
                                                          np.arange(1, 4000)]):
        n = int(owner.max()) + 1
        v = rng.random(owner.shape[0])
        got = seg_cumsum(v, owner, n)
        for q in np.unique(owner)[:60].tolist():
            assert np.array_equal(got[owner == q], np.cumsum(v[owner == q])), q


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["expected", "optimistic", "pessimistic",
                                                   "trec_eval"]))
def test_each_query_alone_and_rows_in_any_order(seed, ties) -> None:
    """Each query's values are the same bits evaluated with the others or alone, and
    with the rows of the run and the qrels in any order."""
    rng = np.random.default_rng(seed)
    qrels: tuple[list, list, list] = ([], [], [])
    run: tuple[list, list, list] = ([], [], [])
    for q in range(int(rng.integers(1, 5))):
        n = int(rng.integers(1, 30))
        for i in range(n):
            run[0].append(f"q{q}"), run[1].append(f"d{i}"), run[2].append(float(rng.integers(0, 4)))
        for i in range(int(rng.integers(1, n + 5))):
            qrels[0].append(f"q{q}"), qrels[1].append(f"d{i}")
            qrels[2].append(int(rng.integers(-1, 4)) if i else int(rng.integers(1, 4)))
    names = [*NEW, "iprec_at_recall.0.3"] if ties != "expected" else \
        ["num_q", "gm_map", "iprec_at_recall.0.3", "11pt_avg", "relative_P.2,9", "binG",
         "ndcg_rel", "Rndcg"]
    whole = fastrank.evaluate_run(qrels, run, names, ties=ties)
    pr, pq = rng.permutation(len(run[0])), rng.permutation(len(qrels[0]))
    shuffled = fastrank.evaluate_run(tuple(np.asarray(c)[pq] for c in qrels),
                                     tuple(np.asarray(c)[pr] for c in run), names, ties=ties)
    for m, v in whole.per_query.items():
        assert np.array_equal(v, shuffled.per_query[m], equal_nan=True), m
    for j, q in enumerate(whole.queries.tolist()):
        one = [tuple(np.asarray(c)[np.asarray(x[0]) == q] for c in x) for x in (qrels, run)]
        alone = fastrank.evaluate_run(one[0], one[1], names, ties=ties)
        for m, v in alone.per_query.items():
            assert v[0] == whole.per_query[m][j], (q, m)


@pytest.mark.parametrize("qrels, run", [
    ({"q1": {"a": 0}}, {"q1": {"a": 1.0, "b": 2.0}}),
    ({"q1": {"a": -1}, "q2": {"b": 0}}, {"q1": {"a": 1.0}, "q2": {"b": 1.0, "c": 0.5}}),
    ({"q1": {"a": 1}, "q2": {"b": 0}}, {"q2": {"b": 1.0}}),
])
def test_rndcg_where_no_query_has_a_positive_grade(qrels, run) -> None:
    """No evaluated query with a document of positive grade: Rndcg (and all_trec,
    which holds it) is trec_eval's 0 under ties="trec_eval" and NaN under the
    others; it was an IndexError from inside (a mask built one longer than the
    ideal rankings' empty levels)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        for ties in ("trec_eval", "expected", "optimistic"):
            got = fastrank.evaluate_run(qrels, run, ["Rndcg", "ndcg_rel"], ties=ties)
            for values in got.per_query.values():
                if ties == "trec_eval":
                    assert values.tolist() == [0.0] * values.shape[0]
                else:
                    assert np.isnan(values).all()
            every = fastrank.evaluate_run(qrels, run, ["all_trec"], ties=ties)
            assert every.mean["num_q"] == len(set(qrels) & set(run))
