"""trec_eval's measures of judged documents (``bpref``, ``gm_bpref``, ``infAP``,
``rbp``, ``rbp_resid``, ``unj_k``) and its options ``-M -J -l -c`` (evaluate_run's
``depth``, ``judged_only``, ``relevance_level``, ``all_queries``).

Oracles: trec_eval 10's own output (``-q -m all_trec``) on the 14 runs of the TREC
2003 Robust track and on trec_eval's test collection, read from ``../shared/data``
(skipped, saying why, where absent); trec_eval's loops rewritten here term for term
over every order of the tied documents of small random runs (grades -1 .. 2,
documents the qrels lack, judged documents not retrieved); and each option as its
rule in trec_eval's source reads (form_res_rels.c, trec_eval.c), applied to the run
by hand before an evaluation without the option.
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data

NEW = ["bpref", "gm_bpref", "infAP", "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]


@data.NEEDS_ROBUST
def test_every_robust2003_run_matches_trec_eval_10(tmp_path) -> None:
    """All 14 runs, every query and the all row; and on the same runs the other
    tie rules: equal where no tie touches the measure, ordered optimistic >=
    expected >= pessimistic for bpref and rbp, and infAP refused under "expected"
    where a relevant document ties with another kind."""
    assert len(data.RUNS) == 14
    compared = 0
    linear = ["bpref", "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]
    for name, qrels, run in data.robust_runs(tmp_path):
        want = data.printed(data.robust_printed(name))
        got = fastrank.evaluate_run(qrels, run, NEW, ties="trec_eval")
        compared += data.compare(got, want, NEW)
        rules = {t: fastrank.evaluate_run(qrels, run, linear, ties=t)
                 for t in ("optimistic", "expected", "pessimistic")}
        for m in ("bpref", "rbp"):
            hi, mid, lo = (rules[t].per_query[m] for t in ("optimistic", "expected",
                                                            "pessimistic"))
            assert (hi >= mid - 1e-12).all() and (mid >= lo - 1e-12).all(), (name, m)
        if name in ("humR03dc", "uic0301"):  # no tied scores at all
            for t, r in rules.items():
                for m in linear:
                    assert np.allclose(r.per_query[m], got.per_query[m], rtol=1e-12,
                                       atol=1e-15), (name, t, m)
        if name == "MU03rob01":  # 90% of its rows tie
            with pytest.raises(ValueError, match="infAP depends on the order"):
                fastrank.evaluate_run(qrels, run, ["infAP"])
    assert compared == 14 * (7 * 101 + 1)


@data.NEEDS_TEST
def test_trec_evals_own_test_collection() -> None:
    got = fastrank.evaluate_run(*data.collection(), NEW, ties="trec_eval")
    want = data.printed(data.collection_printed("out.test.aq"))
    assert data.compare(got, want, NEW) == 7 * 4 + 1


# trec_eval's repository tests its options with these files too (its Makefile:
# -l2 on qrels.rel_level, grades -1 .. 4; -c and -c -M100 on results.trunc, which
# lacks a query): compared where ../shared/data holds them.
OPTION_FILES = {"out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
                "out.test.aqc": ("qrels.test", "results.trunc", {"all_queries": True}),
                "out.test.aqcM": ("qrels.test", "results.trunc",
                                  {"all_queries": True, "depth": 100})}


@pytest.mark.parametrize("out", sorted(OPTION_FILES))
def test_trec_evals_own_option_tests(out) -> None:
    qrels, run, options = OPTION_FILES[out]
    paths = [data.TEST / f for f in (out, qrels, run)]
    if not all(p.is_file() for p in paths):
        pytest.skip(f"{', '.join(str(p) for p in paths)}: not all present (trec_eval's test "
                    "files for its options)")
    want = data.printed(data.collection_printed(out))
    names = []
    for name in want:
        try:
            fastrank.trec.catalog.measure_name(name)
        except ValueError:
            continue
        names.append(name)
    assert set(NEW) <= set(names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = fastrank.evaluate_run(fastrank.read_qrels(str(paths[1])),
                                    fastrank.read_run(str(paths[2])), names, ties="trec_eval",
                                    **options)
    assert data.compare(got, want, names) == sum(len(want[n]) for n in names) > 200


# trec_eval's loops, term for term (m_bpref.c, m_infap.c, m_rbp.c, m_rbp_resid.c,
# m_unjudged.c), over one ranking: each document's grade, None where the qrels
# lack it (not pooled), negative where pooled but not judged.

EPS = 1e-5


def _oracle(grades, level, qrels_grades, p, ks, undefined=math.nan):
    """``undefined``: bpref and infAP of a query without relevant documents, which
    trec_eval leaves at 0 (its value under ties="trec_eval"); NaN under the others."""
    judged = [g for g in qrels_grades if g >= 0]
    big_r = sum(g >= level for g in judged)
    big_n = sum(g < level for g in judged)
    out = {}
    nonrel, bpref = 0, 0.0
    rel, nonrel2, unj, infap = 0, 0, 0, 0.0
    for j, g in enumerate(grades):
        if g is None:
            continue
        if g < 0:
            unj += 1
            continue
        if g < level:
            nonrel += 1
            nonrel2 += 1
            continue
        bpref += 1.0 - min(nonrel, big_r) / min(big_n, big_r) if nonrel > 0 else 1.0
        rel += 1
        if j == 0:
            infap += 1.0
        else:
            infap += 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel - 1 + nonrel2 + unj) / j) * (
                (rel - 1 + EPS) / (rel - 1 + nonrel2 + 2 * EPS))
    out["bpref"] = bpref / big_r if big_r else undefined
    out["gm_bpref"] = max(out["bpref"], 1e-5) if big_r or not math.isnan(undefined) \
        else math.nan
    out["infAP"] = infap / big_r if big_r else undefined
    levels = range(0, int(max(judged, default=-1)) + 1)  # the gains: the grades 0 .. top
    top = max(levels, default=0)
    gain = {g: (g / top if top > 1 else float(g)) for g in levels}
    total, resid, weight, any_unj = 0.0, 0.0, 1.0, False
    for g in grades:
        total += gain.get(g, 0.0) * weight
        if g is None or g < 0:
            any_unj = True
            resid += weight
        weight *= p
    out[f"rbp.p={p}"] = (1 - p) * total
    out[f"rbp_resid.p={p}"] = weight + (1 - p) * resid if any_unj else 0.0
    for k in ks:
        out[f"unj_{k}"] = sum(g is None or g < 0 for g in grades[:k]) / k
    return out


def _merit(g):  # the optimistic order within tied scores, best first when decreasing
    return -2 if g is None else -1 if g < 0 else g


def _random_case(rng, n_queries=4, most=6):
    """A run with heavy ties and its qrels: {q: (docs, scores, {doc: grade})}."""
    cases = {}
    for q in range(n_queries):
        n = int(rng.integers(1, most + 1))
        docs = [f"d{i}" for i in range(n)]
        scores = rng.integers(0, 3, n).astype(float).tolist()
        grades = {d: int(g) for d in docs if (g := rng.integers(-1, 4)) != 3}  # 3: unjudged
        grades.update({f"u{i}": int(rng.integers(-1, 3)) for i in range(int(rng.integers(0, 3)))})
        if not grades:
            grades["u9"] = 0
        cases[f"q{q}"] = (docs, scores, grades)
    return cases


def _arrays(cases):
    qrels: tuple[list, list, list] = ([], [], [])
    run: tuple[list, list, list] = ([], [], [])
    for q, (docs, scores, grades) in cases.items():
        for d, g in grades.items():
            qrels[0].append(q), qrels[1].append(d), qrels[2].append(g)
        for d, s in zip(docs, scores, strict=True):
            run[0].append(q), run[1].append(d), run[2].append(s)
    return qrels, run


def _orders(docs, scores, grades, ties):
    """The rankings a tie rule stands for: every order of the ties ("expected"),
    or the one order of the others."""
    if ties == "trec_eval":
        return [sorted(docs, key=lambda d: (scores[docs.index(d)], d), reverse=True)]
    if ties in ("optimistic", "pessimistic"):
        sign = 1 if ties == "optimistic" else -1
        return [sorted(docs, key=lambda d: (-scores[docs.index(d)],
                                            -sign * _merit(grades.get(d))))]
    groups = [[d for d in docs if scores[docs.index(d)] == s]
              for s in sorted(set(scores), reverse=True)]
    return [list(itertools.chain.from_iterable(perm)) for perm in
            itertools.product(*(itertools.permutations(g) for g in groups))]


def _mixed(docs, scores, grades, level):
    """A tie group holding a relevant document and one of another kind."""
    for s in set(scores):
        kinds = {(g := grades.get(d)) is not None and g >= 0 and g >= level
                 for d, s2 in zip(docs, scores, strict=True) if s2 == s}
        if len(kinds) == 2:
            return True
    return False


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_small_runs_match_trec_evals_loops(seed, ties) -> None:
    """Each measure per query: the mean of trec_eval's loops over the rankings of
    the tie rule (every order of each tie group under "expected"); infAP, where a
    relevant document ties with another kind under "expected", is refused."""
    rng = np.random.default_rng(seed)
    p = float(rng.choice([0.9, 0.5, 0.8]))
    level = int(rng.choice([1, 1, 2]))
    ks = sorted({int(rng.integers(1, 8)), 5})
    cases = _random_case(rng)
    qrels, run = _arrays(cases)
    names = ["bpref", "gm_bpref", f"rbp.p={p}", f"rbp_resid.p={p}", *(f"unj_{k}" for k in ks)]
    mixed = ties == "expected" and any(_mixed(*c, level) for c in cases.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = fastrank.evaluate_run(qrels, run, names, ties=ties, relevance_level=level)
        if mixed:
            with pytest.raises(ValueError, match="infAP depends on the order"):
                fastrank.evaluate_run(qrels, run, ["infAP"], ties=ties, relevance_level=level)
        else:
            names.append("infAP")
            got.per_query["infAP"] = fastrank.evaluate_run(
                qrels, run, ["infAP"], ties=ties, relevance_level=level).per_query["infAP"]
    assert got.queries.tolist() == sorted(cases)
    for j, q in enumerate(got.queries.tolist()):
        docs, scores, grades = cases[q]
        undefined = 0.0 if ties == "trec_eval" else math.nan
        values = [_oracle([grades.get(d) for d in o], level, list(grades.values()), p, ks,
                          undefined) for o in _orders(docs, scores, grades, ties)]
        for m in names:
            want = float(np.mean([v[m] for v in values]))
            if m == "gm_bpref":  # the floor of the expected bpref (not an expectation)
                want = max(float(np.mean([v["bpref"] for v in values])), 1e-5)
            assert got.per_query[m][j] == pytest.approx(want, rel=1e-12, abs=1e-13,
                                                        nan_ok=True), (seed, q, m)
            if m == "infAP":  # not refused: the same in every order
                assert np.ptp([v[m] for v in values]) <= 1e-12 or math.isnan(want)
    floored = got.per_query["gm_bpref"]
    assert got.mean["gm_bpref"] == pytest.approx(math.exp(np.nanmean(np.log(floored))),
                                                 rel=1e-12)


def _rule_cut(cases, depth, judged_only, ties):
    """The run trec_eval evaluates under -M depth then -J (form_res_rels.c: the
    first ``depth`` of its order, then the documents judged 0 or more)."""
    out = {}
    for q, (docs, scores, grades) in cases.items():
        order = _orders(docs, scores, grades, "trec_eval" if ties == "expected" else ties)[0]
        kept = order[:depth] if depth else order
        if judged_only:
            kept = [d for d in kept if grades.get(d, -1) >= 0]
        out[q] = (kept, [scores[docs.index(d)] for d in kept], grades)
    return out


ALL = ["map", "P@3", "recall@2", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel",
       "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_F", "utility", "bpref",
       "rbp", "rbp_resid", "unj_5", "unj_2"]


def _run(cases, names, **options):
    qrels, run = _arrays(cases)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        return fastrank.evaluate_run(qrels, run, names, **options)


def _empty_run(grades, name, ties):
    """What trec_eval gives a query with nothing retrieved (bogus_ranking in
    trec_eval.c, or everything thrown out by -J): 0, but num_rel; under tie rules
    other than "trec_eval", NaN where the query has no relevant document and the
    measure needs one."""
    big_r = sum(g >= 1 for g in grades.values())
    if name == "num_rel":
        return float(big_r)
    if ties == "trec_eval":
        return 0.0
    if big_r == 0 and name not in ("num_ret", "num_rel_ret", "num_nonrel_judged_ret",
                                   "utility", "rbp", "rbp_resid", "unj_5", "unj_2", "ndcg"):
        return math.nan
    if name == "ndcg" and not any(g > 0 for g in grades.values()):
        return math.nan
    return 0.0


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("ties", ["trec_eval", "optimistic", "pessimistic", "expected"])
def test_depth_and_judged_only_are_trec_evals_cut(seed, ties) -> None:
    """-M then -J: every measure equals the one of the run cut by hand; a query left
    with nothing is evaluated as an empty run; under "expected" a cut through tied
    scores is refused."""
    rng = np.random.default_rng(1000 + seed)
    cases = _random_case(rng, n_queries=5, most=7)
    depth = int(rng.integers(1, 6)) if seed % 3 else None
    judged_only = bool(seed % 2) or depth is None
    straddles = depth is not None and any(
        len(docs) > depth and sorted(scores, reverse=True)[depth - 1]
        == sorted(scores, reverse=True)[depth] for docs, scores, _ in cases.values())
    if ties == "expected" and straddles:
        with pytest.raises(ValueError, match="cuts through documents tied on score"):
            _run(cases, ALL, ties=ties, depth=depth, judged_only=judged_only)
        return
    got = _run(cases, ALL, ties=ties, depth=depth, judged_only=judged_only)
    cut = _rule_cut(cases, depth, judged_only, ties)
    left = {q: c for q, c in cut.items() if c[0]}
    want = _run(left, ALL, ties=ties) if left else None
    assert got.queries.tolist() == sorted(cases)  # every query of the run stays
    for j, q in enumerate(got.queries.tolist()):
        for m in ALL:
            if q in left:
                assert want is not None
                w = want.per_query[m][want.queries.tolist().index(q)]
            else:
                w = _empty_run(cases[q][2], m, ties)
            assert got.per_query[m][j] == pytest.approx(w, rel=1e-12, abs=1e-13,
                                                        nan_ok=True), (seed, q, m)


@pytest.mark.parametrize("seed", range(20))
def test_all_queries_scores_missing_queries_as_empty_runs(seed) -> None:
    """-c: the queries of the qrels the run lacks join with an empty run's values;
    the others are as without it, and the mean is over them all."""
    rng = np.random.default_rng(2000 + seed)
    cases = _random_case(rng, n_queries=5)
    qrels, run = _arrays(cases)
    gone = {f"q{i}" for i in range(5) if rng.random() < 0.5}
    if len(gone) == 5:
        gone.discard("q0")
    run = tuple([v for v, q in zip(col, run[0], strict=True) if q not in gone] for col in run)
    ties = str(rng.choice(["trec_eval", "expected", "optimistic"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        plain = fastrank.evaluate_run(qrels, run, ALL, ties=ties)
        got = fastrank.evaluate_run(qrels, run, ALL, ties=ties, all_queries=True)
    assert got.queries.tolist() == sorted(cases)
    for j, q in enumerate(got.queries.tolist()):
        for m in ALL:
            w = (_empty_run(cases[q][2], m, ties) if q in gone
                 else plain.per_query[m][plain.queries.tolist().index(q)])
            assert got.per_query[m][j] == pytest.approx(w, nan_ok=True, rel=0, abs=0), (q, m)
    for m in ALL:
        v = got.per_query[m]
        want = v.sum() if m.startswith("num_") else np.nanmean(v) if (~np.isnan(v)).any() \
            else math.nan
        assert got.mean[m] == pytest.approx(want, rel=1e-12, nan_ok=True)


@pytest.mark.parametrize("seed", range(20))
def test_relevance_level_is_a_binary_cut_of_the_grades(seed) -> None:
    """-l: the binary measures equal those of qrels whose grades are cut to 1 at
    the level (0 below, negative grades kept: pooled, not judged); nDCG (ndcg_rel
    too: trec_eval averages it at the documents of positive gain, whatever -l), rbp
    and the counts of unjudged documents, which read the grades themselves, do not
    change; Rndcg neither, except that it is 0 (trec_eval's rule; NaN under the
    others) where no document reaches the level."""
    rng = np.random.default_rng(3000 + seed)
    cases = _random_case(rng)
    level = float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.0]))
    binary = {q: (d, s, {k: (g if g < 0 else int(g >= level)) for k, g in gr.items()})
              for q, (d, s, gr) in cases.items()}
    ties = str(rng.choice(["trec_eval", "expected", "pessimistic"]))
    names = ["map", "P@2", "recall@3", "recip_rank", "Rprec", "num_rel", "num_rel_ret",
             "num_nonrel_judged_ret", "set_P", "set_recall", "utility", "bpref", "unj_2"]
    same = ["ndcg", "ndcg@2", "rbp", "rbp_resid", "unj_5", "ndcg_rel"]
    got = _run(cases, names + same + ["Rndcg"], ties=ties, relevance_level=level)
    want = _run(binary, names, ties=ties)
    base = _run(cases, [*same, "Rndcg"], ties=ties)
    for m in names:
        assert np.allclose(got.per_query[m], want.per_query[m], rtol=1e-12, atol=0,
                           equal_nan=True), (level, m)
    for m in same:
        assert np.array_equal(got.per_query[m], base.per_query[m], equal_nan=True), m
    none = got.per_query["num_rel"] == 0
    assert np.array_equal(got.per_query["Rndcg"][~none], base.per_query["Rndcg"][~none],
                          equal_nan=True)
    assert (got.per_query["Rndcg"][none] == 0).all() if ties == "trec_eval" else \
        np.isnan(got.per_query["Rndcg"][none]).all()


def test_rbp_names_and_bad_options() -> None:
    qrels = (["q", "q", "q"], ["a", "b", "c"], [1, 0, 2])
    run = (["q", "q", "q"], ["a", "b", "x"], [3.0, 2.0, 1.0])
    got = fastrank.evaluate_run(qrels, run, ["rbp", "rbp.p=0.5", "rbp_p=0.5", "rbp_resid",
                                             "unj_1", "unj@3", "unj_20"], ties="trec_eval")
    # gains: grade over the top grade 2 (trec_eval normalizes into 0 .. 1)
    assert got.mean["rbp"] == pytest.approx(0.1 * 0.5)
    assert got.mean["rbp.p=0.5"] == got.mean["rbp_p=0.5"] == pytest.approx(0.5 * 0.5)
    assert got.mean["rbp_resid"] == pytest.approx(0.9 ** 3 + 0.1 * 0.81)
    assert (got.mean["unj_1"], got.mean["unj@3"], got.mean["unj_20"]) == (0.0, 1 / 3, 1 / 20)
    for name in ("rbp.p=1", "rbp.p=0", "rbp_p=x", "rbp.0.8", "rbp.p=-0.5", "unj_0"):
        with pytest.raises(ValueError, match=r"must|unknown measure"):
            fastrank.evaluate_run(qrels, run, [name])
    for depth in (0, -3, 2.5, True, "5", np.nan):
        with pytest.raises(ValueError, match="depth must"):
            fastrank.evaluate_run(qrels, run, ["map"], depth=depth)
    for level in (math.nan, math.inf, -math.inf, "1", None):
        with pytest.raises(ValueError, match="relevance_level must"):
            fastrank.evaluate_run(qrels, run, ["map"], relevance_level=level)
    for flag in ("judged_only", "all_queries"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False"):
            fastrank.evaluate_run(qrels, run, ["map"], **{flag: 1})
    assert fastrank.evaluate_run(qrels, run, ["num_ret"], depth=np.int64(2)).mean == \
        {"num_ret": 2.0}


@pytest.mark.parametrize("seed", range(12))
def test_integer_ids_give_what_their_text_gives(seed) -> None:
    """Query and document ids as integers (their own keys, no text codes) score as
    the same ids written as text, under every tie rule and option: trec_eval
    orders document ids as text either way."""
    rng = np.random.default_rng(4000 + seed)
    cases = _random_case(rng, n_queries=5, most=7)
    qrels, run = _arrays(cases)
    num = {d: i for i, d in enumerate(sorted({*qrels[1], *run[1]}))}
    as_int = ([int(q[1:]) for q in qrels[0]], [num[d] for d in qrels[1]], qrels[2])
    run_int = ([int(q[1:]) for q in run[0]], [num[d] for d in run[1]], run[2])
    as_text = (as_int[0], [str(d) for d in as_int[1]], qrels[2])
    run_text = (run_int[0], [str(d) for d in run_int[1]], run[2])
    names = [*ALL, "infAP", "gm_bpref"]
    ties = str(rng.choice(["trec_eval", "optimistic", "pessimistic"]))
    options = {"judged_only": bool(seed % 2), "all_queries": bool(seed % 3),
               "depth": int(rng.integers(1, 5)) if seed % 4 else None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        a = fastrank.evaluate_run(as_int, run_int, names, ties=ties, **options)
        b = fastrank.evaluate_run(as_text, run_text, names, ties=ties, **options)
    assert a.queries.tolist() == b.queries.tolist()
    for m in names:
        assert np.array_equal(a.per_query[m], b.per_query[m], equal_nan=True), (seed, m)


def test_runs_left_with_nothing() -> None:
    """-J removing every document of the run, and -c with a run of no judged query:
    every judged query scored as an empty run (trec_eval refuses only when no query
    is left to evaluate)."""
    qrels = (["q1", "q1", "q2"], ["a", "b", "c"], [1, 0, 2])
    run = (["q1", "q2", "q9"], ["x", "y", "c"], [1.0, 2.0, 3.0])
    names = ["num_ret", "num_rel", "map", "P@5", "bpref", "infAP", "rbp", "rbp_resid",
             "unj_5", "utility", "set_P", "ndcg", "gm_bpref"]
    got = fastrank.evaluate_run(qrels, run, names, judged_only=True)
    assert got.queries.tolist() == ["q1", "q2"]
    for m in names:
        want = {"num_rel": [1.0, 1.0], "gm_bpref": [1e-5, 1e-5]}.get(m, [0.0, 0.0])
        assert got.per_query[m].tolist() == want, m
    alone = (["q9"], ["c"], [3.0])
    with pytest.raises(ValueError, match="no query of the run has judgments"):
        fastrank.evaluate_run(qrels, alone, names)
    got = fastrank.evaluate_run(qrels, alone, names, all_queries=True)
    assert got.queries.tolist() == ["q1", "q2"] and got.mean["num_rel"] == 2.0
    assert got.mean["gm_bpref"] == pytest.approx(1e-5) and got.mean["map"] == 0.0


@pytest.mark.parametrize("level", [-1, -0.5, -3.0])
def test_a_relevance_level_below_zero_is_refused(level) -> None:
    """trec_eval's -l -1 gives documents the qrels lack (its grade -1) to P, map and
    the rest as relevant, but not to num_rel_ret (P_10 1.0 where num_rel_ret is 6 of
    10): there is no one number to give."""
    with pytest.raises(ValueError, match="relevance_level must be at least 0"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), "P@1",
                              relevance_level=level)
