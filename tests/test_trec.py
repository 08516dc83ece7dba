"""TREC runs against qrels: readers, evaluate_run and ``fastrank trec``.

Oracles: brute force over every order of the tied documents (the expected value is
the mean over the orders; "trec_eval" is the order trec_eval uses, by docid
decreasing), a worked example computed by hand, and fastrank's own tie-expected
AP kernel for MAP where every relevant document was retrieved.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank._trec import ids as trec_ids
from fastrank.readers import DataError

sys.path.insert(0, __import__("os").path.dirname(__file__))
from strategies import PROPERTY_SETTINGS


def _trec_measures(ranked, grades, n_rel, ideal):
    """Measures of one ranking (list of docids), by their textbook definitions."""
    rel = [1 if grades.get(d, 0) >= 1 else 0 for d in ranked]
    out = {}
    found = 0
    ap = 0.0
    for i, r in enumerate(rel, 1):
        if r:
            found += 1
            ap += found / i
    out["map"] = ap / n_rel
    out["P@2"] = sum(rel[:2]) / 2
    out["recall@3"] = sum(rel[:3]) / n_rel
    first = next((i for i, r in enumerate(rel, 1) if r), None)
    out["recip_rank"] = 1.0 / first if first else 0.0
    out["success@1"] = float(bool(rel[:1] and rel[0]))
    out["Rprec"] = sum(rel[:n_rel]) / n_rel
    for name, k in (("ndcg", None), ("ndcg@2", 2)):
        gains = [max(grades.get(d, 0), 0) for d in ranked][:k]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        best = sorted(ideal, reverse=True)[:k]
        out[name] = dcg / sum(g / math.log2(i + 2) for i, g in enumerate(best))
    return out


MEASURES = ["map", "P@2", "recall@3", "recip_rank", "success@1", "Rprec", "ndcg", "ndcg@2"]


def _orders(docs, scores):
    seen = set()
    for perm in itertools.permutations(range(len(docs))):
        ranked = tuple(docs[i] for i in sorted(range(len(docs)),
                                               key=lambda i: (-scores[i], perm.index(i))))
        if ranked not in seen:
            seen.add(ranked)
            yield ranked


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n))), st.integers(0, 2),
    st.sampled_from(["expected", "trec_eval"]))
def test_one_query_matches_brute_force(case, unretrieved, ties) -> None:
    grades_list, scores = case
    if not any(g >= 1 for g in grades_list) and not unretrieved:
        grades_list[0] = 1
    docs = [f"d{i}" for i in range(len(scores))]
    grades = dict(zip(docs, grades_list, strict=True))
    extra = {f"u{i}": 1 for i in range(unretrieved)}  # judged relevant, not retrieved
    judged = {**grades, **extra}
    n_rel = sum(1 for g in judged.values() if g >= 1)
    ideal = [max(g, 0) for g in judged.values()]
    if ties == "trec_eval":  # by score, then docid decreasing
        orders = [tuple(sorted(docs, key=lambda d: (scores[docs.index(d)], d),
                               reverse=True))]
    else:
        orders = list(_orders(docs, scores))
    want = {m: float(np.mean([_trec_measures(o, grades, n_rel, ideal)[m] for o in orders]))
            for m in MEASURES}
    qrels = (["q"] * len(judged), list(judged), list(judged.values()))
    run = (["q"] * len(docs), docs, scores)
    got = fastrank.evaluate_run(qrels, run, MEASURES, ties=ties)
    for m in MEASURES:
        assert got.per_query[m][0] == pytest.approx(want[m], rel=1e-12, abs=1e-12), \
            (m, grades_list, scores, unretrieved, ties)


def test_map_is_the_tie_expected_average_precision_when_all_relevant_are_retrieved() -> None:
    rng = np.random.default_rng(5)
    q = np.repeat(np.arange(30), 40)
    rel = (rng.random(q.shape[0]) < 0.2).astype(int)
    rel[::40] = 1
    s = np.round(rng.random(q.shape[0]), 1)
    docs = np.array([f"d{i}" for i in range(q.shape[0])])
    qids = np.array([f"q{v:02d}" for v in q])
    got = fastrank.evaluate_run((qids, docs, rel), (qids, docs, s), ["map"]).per_query["map"]
    want = fastrank.average_precision(rel, s, groups=qids, ties="expected", average=None)
    assert np.allclose(got, want.values, rtol=1e-12, atol=1e-14)


def test_worked_example() -> None:
    qrels = (["q1", "q1", "q2"], ["a", "c", "b"], [1, 2, 1])
    run = (["q1", "q1", "q1", "q2", "q2"], ["a", "b", "c", "a", "b"], [3, 2, 2, 5, 4])
    r = fastrank.evaluate_run(qrels, run, ["map", "P@2", "ndcg"])
    # q1: a first; b and c tied at ranks 2-3, c relevant (grade 2): AP = (1 + (1 + 2/3)/2)/2
    assert r.per_query["map"].tolist() == pytest.approx([(1 + (1 + 2 / 3) / 2) / 2, 0.5])
    assert r.per_query["P@2"].tolist() == [0.75, 0.5]
    dcg = 1 + (1 / math.log2(3) + 1 / math.log2(4)) * 1.0  # the tie shares gain 2 over 2
    assert r.per_query["ndcg"][0] == pytest.approx(dcg / (2 + 1 / math.log2(3)))
    t = fastrank.evaluate_run(qrels, run, ["map"], ties="trec_eval")  # c before b
    assert t.per_query["map"].tolist() == [1.0, 0.5]


def test_files_and_the_command_line(tmp_path) -> None:
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 c 2\nq2 0 b 1\nq3 0 z 0\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 2 t\nq2 Q0 a 1 5 t\n"
                   "q2 Q0 b 2 4 t\nq3 Q0 z 1 1 t\nq9 Q0 x 1 1 t\n")
    qids, docs, rels = fastrank.read_qrels(str(qrels))
    assert qids.tolist() == ["q1", "q1", "q2", "q3"] and rels.tolist() == [1, 2, 1, 0]
    assert docs.tolist() == ["a", "c", "b", "z"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        r = fastrank.evaluate_run(fastrank.read_qrels(str(qrels)), fastrank.read_run(str(run)),
                                  ["map"])
    assert r.queries.tolist() == ["q1", "q2", "q3"]  # q9 has no judgments: skipped
    assert math.isnan(r.per_query["map"][2])  # q3 has no relevant document
    out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                          "-m", "map", "-m", "P_2", "-q"], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    # trec_eval's order: each query's measures, then the all rows
    assert [x[0].strip() for x in lines] == ["map", "P_2"] * 4
    assert [x[1] for x in lines] == ["q1", "q1", "q2", "q2", "q3", "q3", "all", "all"]
    assert lines[6][1:] == ["all", f"{r.mean['map']:.4f}"]
    assert "1 of 3 judged queries have no relevant document" in out.stderr
    out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                          "-m", "bogus"], capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 1 and "unknown measure 'bogus'" in out.stderr
    assert "Traceback" not in out.stderr
    # no -m: trec_eval's default set, official, as trec_eval prints without -m
    plain, official = (subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels),
                                       str(run), "--ties", "trec_eval", *extra],
                                      capture_output=True, text=True, timeout=120, check=True)
                       for extra in ([], ["-m", "official"]))
    assert plain.stdout == official.stdout
    lines = plain.stdout.splitlines()  # trec_eval's runid (the run's tag) leads the all rows
    assert lines[0].split() == ["runid", "all", "t"] and lines[1].startswith("num_q")
    assert len(lines) == 30
    per_query = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                                "-q", "-m", "official", "-m", "P_2"], capture_output=True,
                               text=True, timeout=120, check=True).stdout.splitlines()
    first_all = next(i for i, line in enumerate(per_query) if "\tall\t" in line)
    assert per_query[first_all].split() == ["runid", "all", "t"]
    assert sum(line.startswith("runid") for line in per_query) == 1


def test_bad_files_are_data_errors(tmp_path) -> None:
    bad = tmp_path / "bad"
    bad.write_text("q1 Q0 a 1\n")
    with pytest.raises(DataError, match="needs 5 columns"):
        fastrank.read_run(str(bad))
    bad.write_text("q1 Q0 a 1 x t\n")
    with pytest.raises(DataError, match="not a number"):
        fastrank.read_run(str(bad))
    bad.write_text("q1 Q0 a 1 nan t\n")
    with pytest.raises(DataError, match="NaN or infinite"):
        fastrank.read_run(str(bad))
    bad.write_text("q1 Q0 a 1 1 t\nq1 Q0 a 2 0.5 t\n")
    with pytest.raises(DataError, match="lists document a more than once"):
        fastrank.read_run(str(bad))
    bad.write_text("\n")
    with pytest.raises(DataError, match="no qrels lines"):
        fastrank.read_qrels(str(bad))
    with pytest.raises(ValueError, match="must be at least 1"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), ["P@0"])
    with pytest.raises(ValueError, match="unknown measure"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), ["no_such_measure"])
    with pytest.raises(ValueError, match="no query of the run has judgments"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["x"], ["a"], [1.0]), ["map"])
    with pytest.raises(ValueError, match="ties must be one of"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), ["map"], ties="x")
    with pytest.raises(ValueError, match="three arrays of one length"):
        fastrank.evaluate_run((["q"], ["a"], [1, 0]), (["q"], ["a"], [1.0]), ["map"])
    with pytest.raises(ValueError, match="finite"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [np.nan]), ["map"])
    with pytest.raises(ValueError, match="at least one measure"):
        fastrank.evaluate_run((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), [])


def test_ids_that_concatenate_alike_are_kept_apart() -> None:
    # ("q1", "a1") and ("q1a", "1") join alike as plain text; they are different pairs.
    qrels = (["q1", "q1a"], ["a1", "1"], [1, 0])
    run = (["q1", "q1", "q1a", "q1a"], ["a1", "b", "1", "c"], [2.0, 1.0, 2.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        r = fastrank.evaluate_run(qrels, run, ["P@1"])
    assert r.per_query["P@1"][0] == 1.0 and math.isnan(r.per_query["P@1"][1])


def test_integer_ids_give_what_string_ids_give() -> None:
    rng = np.random.default_rng(8)
    q = np.repeat(np.arange(50), 20)
    d = np.tile(np.arange(20), 50)
    rel = (rng.random(q.shape[0]) < 0.2) * rng.integers(1, 3, q.shape[0])
    rel[::20] = 1
    s = np.round(rng.random(q.shape[0]), 1)
    m = ["map", "ndcg@5", "P@5", "recip_rank", "Rprec", "success@3"]
    for ties in ("expected", "trec_eval"):
        a = fastrank.evaluate_run((q[rel > 0], d[rel > 0], rel[rel > 0]), (q, d, s), m, ties=ties)
        qs, ds = q.astype(str), d.astype(str)  # ties="trec_eval": docids ordered as text
        b = fastrank.evaluate_run((qs[rel > 0], ds[rel > 0], rel[rel > 0]), (qs, ds, s), m,
                                  ties=ties)
        for name in m:
            assert np.allclose(a.per_query[name],
                               b.per_query[name][np.argsort(b.queries.astype(int))],
                               equal_nan=True), (name, ties)


def test_a_pair_listed_twice_is_refused_by_name() -> None:
    """A run (or qrels) array that lists one (query, document) twice would count the
    document twice; read_run refuses it in a file, evaluate_run in arrays."""
    with pytest.raises(ValueError, match="the run lists query 'q1', document 'a' more than"):
        fastrank.evaluate_run((["q1"], ["a"], [1]), (["q1", "q1"], ["a", "a"], [0.5, 0.2]),
                              ["P@1"])
    with pytest.raises(ValueError, match="the qrels lists query 1, document 7 more than"):
        fastrank.evaluate_run(([1, 1], [7, 7], [1, 0]), ([1], [7], [1.0]), ["P@1"])


@settings(PROPERTY_SETTINGS, max_examples=200)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab09-_ Zé\u00ff\u0100\u4e2d")),
                        max_size=12), min_size=1, max_size=40),
       st.integers(1, 4))
def test_ids_are_coded_as_numpy_unique_codes_them(words, repeat) -> None:
    """Text ids are coded through cheaper keys (their bytes, packed into integers when
    short) and by runs when they come in runs: the same distinct ids and codes as
    np.unique, so the same joins and the same trec_eval (strcmp) order."""
    for ids in (np.array(words), np.repeat(np.array(words), repeat)):
        heads, (runs,) = trec_ids.codes(ids)
        codes = trec_ids.rows(runs, len(ids))
        want_heads, want_codes = np.unique(ids, return_inverse=True)
        assert heads.tolist() == want_heads.tolist()
        assert codes.tolist() == want_codes.reshape(-1).tolist()
        # in two parts of their own widths (a run's ids and the qrels' apart), keyed
        # part by part: the codes of the two together
        cut = len(ids) // 2
        a, b = np.array(ids[:cut].tolist(), dtype=str), np.array(ids[cut:].tolist(), dtype=str)
        heads, (ra, rb) = trec_ids.codes(a, b)
        assert heads.tolist() == want_heads.tolist()
        ca, cb = trec_ids.rows(ra, len(a)), trec_ids.rows(rb, len(b))
        assert ca.tolist() + cb.tolist() == want_codes.reshape(-1).tolist()
        # the text keys themselves: equal and ordered as the ids are, when they fit
        keys = trec_ids.sortable(ids)
        if keys.dtype == np.uint64:
            order = np.argsort(ids, kind="stable")
            assert (np.diff(keys[order].astype(object)) >= 0).all()
            assert np.array_equal(keys[1:] == keys[:-1], ids[1:] == ids[:-1])


def test_dicts_and_tables_give_what_arrays_give() -> None:
    """pytrec_eval's and ranx's nested dicts, and a pandas table, are the same run."""
    import pandas as pd

    qrels = (["q1", "q1", "q2"], ["a", "c", "b"], [1, 2, 1])
    run = (["q1", "q1", "q1", "q2", "q2"], ["a", "b", "c", "a", "b"], [3.0, 2.0, 2.0, 5.0, 4.0])
    m = ["map", "ndcg@2", "P@1", "recip_rank"]
    want = fastrank.evaluate_run(qrels, run, m)

    def nested(t):
        out: dict = {}
        for q, d, v in zip(*t, strict=True):
            out.setdefault(q, {})[d] = v
        return out

    for qr, rn in ((nested(qrels), nested(run)),
                   (pd.DataFrame(dict(zip("qdv", qrels, strict=True))),
                    pd.DataFrame(dict(zip("qdv", run, strict=True))))):
        got = fastrank.evaluate_run(qr, rn, m)
        assert got.queries.tolist() == want.queries.tolist()
        for name in m:
            assert np.allclose(got.per_query[name], want.per_query[name])
    with pytest.raises(TypeError, match="maps each query to a dict"):
        fastrank.evaluate_run({"q1": [1]}, nested(run), m)
    with pytest.raises(ValueError, match="three columns"):
        fastrank.evaluate_run(pd.DataFrame({"q": ["q1"], "d": ["a"]}), nested(run), m)
    with pytest.raises(ValueError, match="needs three arrays"):
        fastrank.evaluate_run((["q1"], ["a"]), run, m)


def test_text_keys_fit_eight_characters_below_256_in_any_width() -> None:
    """Text ids become one uint64 each when every id has at most 8 characters below
    256, whatever the array's width (``np.char.add`` and ``astype(str)`` give wide
    ones) and byte order; one longer id, or a character from 256 on, and they do
    not (the caller falls back to codes)."""
    from fastrank._core import codec

    ids = np.array(["d7", "abcdefgh", "", "a\x00b", "\xff\xff", "b"], dtype="U22")
    keys = codec.text_keys(ids)
    assert keys is not None
    want = [int.from_bytes(w.encode("latin-1").ljust(8, b"\0"), "big") for w in ids.tolist()]
    assert keys.tolist() == want
    assert np.array_equal(codec.text_keys(ids.astype(">U9")), keys)
    assert np.array_equal(codec.text_keys(np.array(ids.tolist())), keys)
    assert codec.text_keys(np.array(["abcdefghi", "a"])) is None
    assert codec.text_keys(np.array(["a", "\u0100"])) is None
    assert codec.text_keys(np.array(["a", "abcdefgh\x00z"])) is None  # a 10th character
    big = np.repeat(ids, 40_000)  # long enough to be cut across the threads
    assert np.array_equal(codec.text_keys(big), np.repeat(keys, 40_000))


def _shuffled_run_case(seed: int, ids: str):
    rng = np.random.default_rng(seed)
    nq, nd = 40, 30
    q = np.repeat(np.arange(nq), nd)
    d = np.tile(np.arange(nd), nq)
    rel = (rng.random(q.shape[0]) < 0.3) * rng.integers(-1, 4, q.shape[0])
    s = np.round(rng.random(q.shape[0]), 1)  # heavy ties
    if ids == "long":  # past 8 characters: coded, not packed
        qs = np.array([f"query-{v:05d}" for v in q])
        ds = np.array([f"document-{v:04d}" for v in d])
    elif ids == "wide":  # characters from 256 on
        qs = np.array([f"\u4e2d{v}" for v in q])
        ds = np.array([f"\u0100{v}" for v in d])
    elif ids == "short":
        qs, ds = np.char.add("q", q.astype(str)), np.char.add("d", d.astype(str))
    else:
        qs, ds = q, d
    judged = rel != 0
    judged[::nd] = True  # every query judged
    rel[::nd] = 1
    return (qs[judged], ds[judged], rel[judged]), (qs, ds, s)


@pytest.mark.parametrize("ids", ["int", "short", "long", "wide"])
@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec_eval"])
def test_a_run_in_any_row_order_scores_alike(ids, ties) -> None:
    """A run lists each query's documents as one block, or its rows in any order
    (queries interleaved, blocks split); the qrels in any order too: the same
    lists, so the same values (each query's documents are brought together and
    matched to its judgments by id, not by place)."""
    m = ["map", "ndcg", "ndcg@5", "P@5", "recall@10", "recip_rank", "Rprec", "success@3"]
    qrels, run = _shuffled_run_case(3, ids)
    want = fastrank.evaluate_run(qrels, run, m, ties=ties)
    rng = np.random.default_rng(4)
    for order in (rng.permutation(run[0].shape[0]),  # rows anywhere
                  np.argsort(run[2], kind="stable"),  # by score: every query split up
                  np.arange(run[0].shape[0])[::-1]):  # blocks reversed
        j = rng.permutation(qrels[0].shape[0])
        got = fastrank.evaluate_run(tuple(x[j] for x in qrels), tuple(x[order] for x in run), m,
                                    ties=ties)
        assert got.queries.tolist() == want.queries.tolist()
        for name in m:
            assert np.allclose(got.per_query[name], want.per_query[name], rtol=1e-12,
                               atol=1e-14, equal_nan=True), (name, ids, ties)


@pytest.mark.parametrize("ids", ["int", "short", "long", "wide"])
def test_ids_of_every_kind_give_the_values_of_their_codes(ids) -> None:
    """Packed text keys, integer ids and coded long or wide text join alike: the same
    values as the run with each id replaced by its code (0, 1, ... in id order)."""
    m = ["map", "ndcg@5", "P@5", "recip_rank"]
    qrels, run = _shuffled_run_case(5, ids)
    got = fastrank.evaluate_run(qrels, run, m)
    qa = np.unique(np.concatenate([qrels[0], run[0]]))
    da = np.unique(np.concatenate([qrels[1], run[1]]))
    coded = [(np.searchsorted(qa, x[0]), np.searchsorted(da, x[1]), x[2]) for x in (qrels, run)]
    want = fastrank.evaluate_run(coded[0], coded[1], m)
    assert got.queries.tolist() == qa[want.queries].tolist()
    for name in m:
        assert np.array_equal(got.per_query[name], want.per_query[name], equal_nan=True)


@pytest.mark.parametrize("ids", ["int", "short", "long"])
def test_a_pair_listed_twice_anywhere_is_named(ids) -> None:
    """The pair listed twice is found wherever its rows stand (in one block, or in two
    blocks of its query) and named by its ids."""
    qrels, run = _shuffled_run_case(6, ids)
    rq, rd, rs = run
    at = 5 * 30 + 7  # query 5, document 7, listed again at the end of the run
    for twice in ((np.append(rq, rq[at]), np.append(rd, rd[at]), np.append(rs, 0.5)),
                  (np.insert(rq, at, rq[at]), np.insert(rd, at, rd[at]), np.insert(rs, at, 0.5))):
        with pytest.raises(ValueError, match=f"the run lists query {rq[at].item()!r}, document "
                                             f"{rd[at].item()!r} more than once"):
            fastrank.evaluate_run(qrels, twice, ["P@1"])
    jq, jd, jr = qrels
    with pytest.raises(ValueError, match=f"the qrels lists query {jq[3].item()!r}, document "
                                         f"{jd[3].item()!r} more than once"):
        fastrank.evaluate_run((np.append(jq, jq[3]), np.append(jd, jd[3]), np.append(jr, 0)),
                              run, ["P@1"])


@pytest.mark.parametrize("ids", ["int", "short", "long"])
@pytest.mark.parametrize("ties", ["expected", "trec_eval"])
def test_a_pair_listed_twice_in_a_query_without_judgments_is_named(ids, ties) -> None:
    """Rows of a query the qrels do not judge are not ranked, yet a pair listed twice
    there is refused as anywhere else (in one block or in two); listed once each,
    those rows change nothing."""
    (jq, jd, jr), (rq, rd, rs) = _shuffled_run_case(7, ids)
    extra = rq[0]  # its judgments dropped: a query of the run without any
    qrels = tuple(x[jq != extra] for x in (jq, jd, jr))
    mine = rq == extra
    without = fastrank.evaluate_run(qrels, (rq[~mine], rd[~mine], rs[~mine]), ["map", "P@5"],
                                    ties=ties)
    got = fastrank.evaluate_run(qrels, (rq, rd, rs), ["map", "P@5"], ties=ties)
    assert extra not in got.queries.tolist()
    assert got.queries.tolist() == without.queries.tolist()
    for name in ("map", "P@5"):
        assert np.array_equal(got.per_query[name], without.per_query[name], equal_nan=True)
    at = 7  # the unjudged query's document 7, listed again
    for twice in ((np.append(rq, rq[at]), np.append(rd, rd[at]), np.append(rs, 0.5)),
                  (np.insert(rq, at, rq[at]), np.insert(rd, at, rd[at]), np.insert(rs, at, 0.5))):
        with pytest.raises(ValueError, match=f"the run lists query {rq[at].item()!r}, document "
                                             f"{rd[at].item()!r} more than once"):
            fastrank.evaluate_run(qrels, twice, ["map"], ties=ties)


def test_files_read_alike_with_uniform_and_ragged_lines(tmp_path) -> None:
    """A file whose lines all hold as many columns is split once; one with a line
    holding more (a tag with a space, say) line by line: the same arrays. Blank
    lines, tabs and Windows line ends are whitespace either way."""
    lines = ["q1 Q0 d1 1 0.5 tag", "", "q1\tQ0 d2 2 0.25 tag\r", "q2 Q0 d1 1 1e-3 tag"]
    uniform, ragged = tmp_path / "uniform", tmp_path / "ragged"
    uniform.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ragged.write_text("\n".join([*lines[:-1], lines[-1] + " extra words"]) + "\n",
                      encoding="utf-8")
    a, b = fastrank.read_run(str(uniform)), fastrank.read_run(str(ragged))
    for x, y in zip(a, b, strict=True):
        assert x.tolist() == y.tolist()
    assert a[0].tolist() == ["q1", "q1", "q2"] and a[2].tolist() == [0.5, 0.25, 1e-3]
    short = tmp_path / "short"
    short.write_text("q1 Q0 d1 1 0.5 tag\n\nq1 Q0 d2\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"short:3: a run line needs 5 columns; got 3"):
        fastrank.read_run(str(short))
