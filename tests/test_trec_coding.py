"""Ids of large arrays coded through the hash table of the kernel's mode -1: the
codes tell ids apart exactly as the strings (or integers) do, whatever their
widths; distinct ids are put in strcmp's order (integers as their decimal text:
10 before 7); and evaluate_run gives, bit for bit, what numpy's coding of the
same ids gives (the paths forced by a small size threshold)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank._core import workers
from fastrank._trec import ids as trec_ids
from fastrank._trec import join

from .strategies import PROPERTY_SETTINGS

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data

ALPHABET = "abz019- \x00\téΩ😀ÿĀ"
TIES = ("expected", "optimistic", "pessimistic", "trec_eval")
MEASURES = ["map", "P@5", "P@10", "recall@20", "recip_rank", "Rprec", "ndcg", "ndcg@10",
            "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "bpref", "set_F"]


def first_numbering(values: list) -> list[int]:
    """Each value's code when the distinct values are numbered by first occurrence."""
    seen: dict = {}
    return [seen.setdefault(v, len(seen)) for v in values]


def check_records(a: np.ndarray, b: np.ndarray | None) -> None:
    ca, cb, first, words, wide = join.records(a, b, words=True)
    values = a.tolist() + ([] if b is None else b.tolist())
    want = first_numbering(values)
    assert ca.tolist() + cb.tolist() == want
    assert first.tolist() == [want.index(c) for c in range(len(set(values)))]
    distinct = [values[i] for i in first.tolist()]
    if a.dtype.kind == "U":
        short = [all(ord(c) < 256 for c in v) and len(v) <= 16 for v in distinct]
        assert wide == short.count(False)
        if wide == 0:  # the words: the code points as little-endian bytes
            packed = [bytes(ord(c) for c in v).ljust(16, b"\0") for v in distinct]
            assert words.tobytes() == b"".join(packed)


def two_columns(arr: np.ndarray, split: int, widen: int) -> tuple[np.ndarray, np.ndarray]:
    """``arr`` cut in two at ``split``, the second part ``widen`` units wider."""
    a, b = arr[:split], arr[split:]
    if widen:
        b = b.astype(f"U{b.dtype.itemsize // 4 + widen}")
    return a, b


@PROPERTY_SETTINGS
@given(words=st.lists(st.text(st.sampled_from(ALPHABET), max_size=22), min_size=1, max_size=60),
       split=st.integers(0, 60), widen=st.integers(0, 6), runs=st.booleans())
def test_text_records_are_coded_as_the_strings_compare(words, split, widen, runs) -> None:
    """NUL inside an id, characters from 256 on, ids past 16 characters, empty
    strings, and two arrays of different widths (trailing NULs are padding)."""
    if runs:  # runs of one id, as a run lists its queries
        words = [w for w in words for _ in range(1 + len(w) % 3)]
    arr = np.array(words)
    if arr.dtype.itemsize == 0:
        return
    a, b = two_columns(arr, split, widen)
    check_records(arr, None)
    if a.shape[0]:
        check_records(a, b)
        check_records(b.astype(">U" + str(b.dtype.itemsize // 4)), a)  # byte order


@PROPERTY_SETTINGS
@given(values=st.lists(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-300, 300)),
                       min_size=1, max_size=80))
def test_integer_records_are_coded_as_the_integers_compare(values) -> None:
    check_records(np.array(values, np.int64), None)
    check_records(np.array(values, np.int64), np.array(values[::-1], np.int64))


def test_many_records_grow_the_table_and_tell_long_ids_apart() -> None:
    """Past the first table (grown in the kernel), ids sharing their first 16
    characters, and a second array numbered after the first."""
    rng = np.random.default_rng(5)
    tails = rng.integers(0, 9_000, 30_000).astype(str)
    for head in ("d", "clueweb09-en0000-00-", "Ω-", ""):
        a = np.char.add(head, tails)
        b = np.char.add(head, rng.integers(5_000, 12_000, 7_000).astype(str))
        ca, cb, first, _, _ = join.records(a, b)
        values = a.tolist() + b.tolist()
        assert ca.tolist() + cb.tolist() == first_numbering(values)
        assert first.shape[0] == len(set(values))
    ints = rng.integers(-(2**62), 2**62, 20_000)
    ints = ints[rng.integers(0, 20_000, 50_000)]
    (codes, _, first, _, _) = join.records(ints)
    assert codes.tolist() == first_numbering(ints.tolist())


def check_grouped(a: np.ndarray, b: np.ndarray) -> None:
    """The documents coded by group: each distinct id one code (numbered by group,
    not by first occurrence), its first row and its words; None where an id is not
    whole in two words (past 16 characters, or one from 256 on)."""
    got = join.grouped_records(a, b)
    values = a.tolist() + b.tolist()
    if not all(len(v) <= 16 and all(ord(c) < 256 for c in v) for v in values):
        assert got is None
        return
    assert got is not None
    ca, cb, first, words, wide = got
    codes = ca.tolist() + cb.tolist()
    distinct = len(set(values))
    assert wide == 0 and first.shape[0] == distinct and sorted(set(codes)) == list(range(distinct))
    assert [codes[i] for i in first.tolist()] == list(range(distinct))
    seen: dict = {}
    for row, (v, c) in enumerate(zip(values, codes, strict=True)):
        assert seen.setdefault(v, (c, row))[0] == c  # one code an id
    assert all(first[c] == row for c, row in seen.values())  # its first row
    assert len({c for c, _ in seen.values()}) == distinct  # one id a code
    packed = [bytes(ord(c) for c in values[i]).ljust(16, b"\0") for i in first.tolist()]
    assert words.tobytes() == b"".join(packed)


@PROPERTY_SETTINGS
@given(words=st.lists(st.text(st.sampled_from(ALPHABET), max_size=18), min_size=1, max_size=60),
       split=st.integers(0, 60), widen=st.integers(0, 6), threads=st.integers(1, 3),
       part=st.integers(1, 9))
def test_documents_coded_by_group_as_the_strings_compare(words, split, widen, threads,
                                                         part) -> None:
    arr = np.array(words)
    if arr.dtype.itemsize == 0:
        return
    a, b = two_columns(arr, split, widen)
    with pytest.MonkeyPatch.context() as mp, workers.thread_limit(threads):
        mp.setattr(join, "GROUPED_PART", part)
        check_grouped(a, b)
        check_grouped(b.astype(">U" + str(b.dtype.itemsize // 4)), a)  # byte order


@PROPERTY_SETTINGS
@given(words=st.lists(st.sampled_from(["q1", "q1\x00", "q2", "", "Ω", "q10"]), max_size=40),
       threads=st.integers(1, 3), part=st.integers(1, 6))
def test_runs_start_where_an_id_differs_from_the_one_before(words, threads, part) -> None:
    ids = np.array(words, dtype="U4")
    want = [i for i in range(len(words)) if i == 0 or ids[i] != ids[i - 1]]
    with pytest.MonkeyPatch.context() as mp, workers.thread_limit(threads):
        mp.setattr(join, "RUN_PART", part)
        got = join.run_starts(ids)
    assert got.dtype == np.int64 and got.tolist() == want


def test_documents_are_coded_by_group_only_where_its_kernel_is_ready(monkeypatch) -> None:
    """No call compiles the grouping's kernel for itself: where it is neither
    compiled nor cached, the documents go through one table."""
    rd = np.char.add("document-", np.arange(40).astype(str)).astype("U12")
    jd = rd[::3]
    monkeypatch.setattr(trec_ids, "SMALL_ROWS", 0)
    monkeypatch.setattr(join, "GROUPED_ROWS", 0)
    monkeypatch.setattr(join, "grouped_ready", lambda: False)
    assert not join.by_group(jd, rd)
    monkeypatch.setattr(join, "grouped_ready", lambda: True)
    assert join.by_group(jd, rd)
    monkeypatch.undo()
    join.grouped_records(rd, jd)  # compiled here, so ready from now on
    assert join.grouped_ready()


def test_many_documents_by_group_grow_their_tables(monkeypatch) -> None:
    """Groups whose tables grow several times over, on three threads."""
    rng = np.random.default_rng(6)
    a = np.char.add("d-", rng.integers(0, 60_000, 200_000).astype(str))
    b = np.char.add("d-", rng.integers(50_000, 90_000, 30_000).astype(str)).astype("U12")
    monkeypatch.setattr(join, "GROUPED_PART", 10_000)
    with workers.thread_limit(3):
        check_grouped(a, b)


def strcmp_order(texts: list[str]) -> list[int]:
    return sorted(range(len(texts)), key=lambda i: texts[i].encode())


@PROPERTY_SETTINGS
@given(words=st.sets(st.text(st.sampled_from("abz019-~\x01ÿ"), max_size=16), min_size=1,
                     max_size=60))
def test_words_sort_as_strcmp(words) -> None:
    """Distinct ids of at most 16 characters below 256, from the kernel's words."""
    arr = np.array(sorted(words, key=len))
    _, _, first, kept, wide = join.records(arr, words=True)
    assert wide == 0 and first.tolist() == list(range(arr.shape[0]))
    order = join.word_order(kept)
    texts = arr.tolist()
    assert [texts[i] for i in order] == [texts[i] for i in strcmp_order(texts)]


def test_words_sort_when_all_share_a_prefix() -> None:
    for texts in (["FBIS4-0000007", "FBIS4-0000010", "FBIS4-1999999", "FBIS4-"],
                  ["abcdefgh1", "abcdefgh", "abcdefgh10", "abcdefgh2"],
                  ["x", "xa"], ["same"], ["abcdefghijklmnop", "abcdefghijklmnoo"],
                  ["a" + "x" * 15, "a" + "x" * 14 + "y", "b", "bx", "a" + "x" * 14 + "\x01"]):
        arr = np.array(texts)
        order = join.word_order(join.records(arr, words=True)[3])
        assert [texts[i] for i in order] == sorted(texts)


INT_EDGES = [0, 1, 7, 10, 9, 99, 100, 101, -1, -10, -7, -2**63, 2**63 - 1, 10**17, 10**17 - 1,
             10**18, 10**18 + 5, -10**18, 123456789012345678]


@PROPERTY_SETTINGS
@given(values=st.sets(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-120, 120),
                                st.sampled_from(INT_EDGES)), min_size=1, max_size=60))
def test_integers_sort_as_their_decimal_text(values) -> None:
    """trec_eval compares document ids as text: 10 before 7, -1 before -10 before 0."""
    arr = np.array(sorted(values), np.int64)
    texts = [str(v) for v in arr.tolist()]
    order = join.int_text_order(arr)
    assert [texts[i] for i in order] == sorted(texts)


@PROPERTY_SETTINGS
@given(values=st.sets(st.one_of(st.integers(0, 2**64 - 1), st.integers(0, 120),
                                st.sampled_from([10**19, 10**19 + 3, 2**64 - 1, 10**19 - 1,
                                                 1844674407370955161, 18446744073709551610])),
                      min_size=1, max_size=60))
def test_unsigned_integers_sort_as_their_decimal_text(values) -> None:
    arr = np.array(sorted(values), np.uint64)
    texts = [str(v) for v in arr.tolist()]
    order = join.int_text_order(arr)
    assert [texts[i] for i in order] == sorted(texts)


@pytest.mark.parametrize("spread", ["narrow", "wide"])  # a table of the range, or the hash
@pytest.mark.parametrize(("unsigned", "shift"), [(False, 0), (False, -1_500), (True, 0)])
def test_integer_keys_are_ranked_as_text(spread, unsigned, shift) -> None:
    """One key each (ids from 0 to 10**17) or ranks (negative or longer ids)."""
    rng = np.random.default_rng(11)
    base = rng.integers(0, 3_000, 10_000) if spread == "narrow" else \
        rng.integers(0, 2**62, 3_000)[rng.integers(0, 3_000, 10_000)]
    keys = base.astype(np.int64) if not unsigned else (base.astype(np.uint64) * np.uint64(3))
    keys = keys + shift if shift else keys
    as_int64 = keys.view(np.int64) if unsigned else keys
    got = join.int_ranks(as_int64, unsigned)
    texts = [str(v) for v in keys.tolist()]
    for i, j in zip(rng.integers(0, keys.shape[0], 3_000), rng.integers(0, keys.shape[0], 3_000),
                    strict=True):  # the values compare as the texts do
        a, b = texts[i].encode(), texts[j].encode()
        assert (got[i] < got[j]) == (a < b) and (got[i] == got[j]) == (a == b)


def id_columns(kind: str, q: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Query and document ids of one kind from integer codes."""
    if kind == "int":
        return q * 7 + 3, d * 13 - 1_000
    if kind == "int wide":
        return q + 10**15, d * 7_919_000_000_013 % (2**62)
    if kind == "uint":
        return (q + 5).astype(np.uint64), d.astype(np.uint64) * np.uint64(10) + np.uint64(2**63)
    if kind == "long":
        return np.char.add("topic-", q.astype(str)), \
            np.char.add("LA0412-", np.char.zfill(d.astype(str), 9))
    if kind == "two words":  # differing in the first byte and past the eighth
        return np.char.add("q", q.astype(str)), \
            np.char.add(np.array(["FT9", "LA0", "FBIS"])[d % 3],
                        np.char.zfill((d * 7919).astype(str), 11))
    if kind == "past 16":
        return np.char.add("q", q.astype(str)), \
            np.char.add("clueweb09-en0000-", np.char.zfill(d.astype(str), 6))
    if kind == "non-ascii":
        return np.char.add("q", q.astype(str)), \
            np.char.add(np.array(["é", "z", "Ω", "a", "😀", ""])[d % 6], (d * 7).astype(str))
    # short ids and empty strings
    return np.char.add("q", q.astype(str)), np.where(d == 0, "", np.char.add("d", d.astype(str)))


def evaluate_both_ways(qrels, run, monkeypatch) -> None:
    """evaluate_run with the ids coded by the hash table (every size from 0 rows on;
    the run's query ids as runs, a part a thread from 5 rows), the documents also by
    group (one table a group, from 0 rows on, a part a thread from 7 rows), and by
    numpy alone: the same queries, values and means, bit for bit."""
    got = []
    for small, grouped in ((0, 10**12), (0, 0), (10**12, 10**12)):
        monkeypatch.setattr(trec_ids, "SMALL_ROWS", small)
        monkeypatch.setattr(join, "GROUPED_ROWS", grouped)
        monkeypatch.setattr(join, "grouped_ready", lambda: True)  # (compiled by then anyway)
        monkeypatch.setattr(join, "GROUPED_PART", 7)
        monkeypatch.setattr(join, "RUN_PART", 5)
        side = {}
        for ties in TIES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = fastrank.evaluate_run(qrels, run, MEASURES, ties=ties)
            side[ties] = (np.asarray(res.queries).tolist(),
                          {m: v.tobytes() for m, v in res.per_query.items()},
                          {m: np.float64(v).tobytes() for m, v in res.mean.items()})
        got.append(side)
    assert got[0] == got[1] == got[2]


@pytest.mark.parametrize("kind", ["int", "int wide", "uint", "long", "two words", "past 16",
                                  "non-ascii", "short"])
@pytest.mark.parametrize("layout", ["by query", "shuffled", "big-endian"])
def test_evaluate_run_is_the_same_through_the_hash_table(kind, layout, monkeypatch) -> None:
    rng = np.random.default_rng(44)
    nq, nd = 20, 60
    q = np.repeat(np.arange(nq), nd)
    d = np.concatenate([rng.permutation(400)[:nd] for _ in range(nq)])
    s = np.round(rng.random(q.shape[0]) * 4) / 4  # heavy ties
    qq, dd = id_columns(kind, q, d)
    judged = (rng.random(q.shape[0]) < 0.5) & ~np.isin(q, [4, 9])  # unjudged queries too
    extra = rng.integers(0, 400, 200)  # judged, not retrieved
    eq, ed = id_columns(kind, np.repeat(np.arange(nq), 10), extra)
    keep = ~np.isin(np.repeat(np.arange(nq), 10) * 1000 + extra, q * 1000 + d)
    _, once = np.unique((np.repeat(np.arange(nq), 10) * 1000 + extra)[keep], return_index=True)
    jq = np.concatenate((qq[judged], eq[keep][once]))
    jd = np.concatenate((dd[judged], ed[keep][once]))
    jg = np.concatenate((rng.integers(-1, 3, int(judged.sum())), rng.integers(0, 2, once.shape[0])))
    run = (qq, dd, s)
    if layout == "big-endian":  # the other byte order, ids and scores
        def swapped(x):
            return x.astype(x.dtype.newbyteorder(">")) if x.dtype.kind in "Uif" else x
        jq, jd, run = swapped(jq), swapped(jd), tuple(swapped(x) for x in run)
    if layout == "shuffled":
        order = rng.permutation(q.shape[0])
        run = (qq[order], dd[order], s[order])
    evaluate_both_ways((jq, jd, jg), run, monkeypatch)


def test_mixed_widths_between_qrels_and_run(monkeypatch) -> None:
    """The qrels' ids wider (as a dtype) than the run's, and the other way round."""
    rng = np.random.default_rng(8)
    q = np.repeat(np.arange(15), 40)
    d = rng.integers(0, 200, q.shape[0])
    _, once = np.unique(q * 1000 + d, return_index=True)
    q, d = q[np.sort(once)], d[np.sort(once)]
    qq = np.char.add("topic-", q.astype(str))
    dd = np.char.add("document-", d.astype(str))
    s = np.round(rng.random(q.shape[0]) * 3) / 3
    g = rng.integers(0, 3, q.shape[0])
    judged = rng.random(q.shape[0]) < 0.6
    for widen in ("qrels", "run"):
        jq, jd = qq[judged], dd[judged]
        rq, rd = qq, dd
        if widen == "qrels":
            jq, jd = jq.astype("U40"), jd.astype("U33")
        else:
            rq, rd = rq.astype("U40"), rd.astype("U33")
        evaluate_both_ways((jq, jd, g[judged]), (rq, rd, s), monkeypatch)


@pytest.mark.parametrize("grouped", [0, 10**12])
def test_a_document_listed_twice_is_refused_through_the_hash_table(grouped, monkeypatch) -> None:
    monkeypatch.setattr(trec_ids, "SMALL_ROWS", 0)
    monkeypatch.setattr(join, "GROUPED_ROWS", grouped)
    monkeypatch.setattr(join, "grouped_ready", lambda: True)
    run = (np.array(["q1"] * 3), np.array(["document-1", "document-2", "document-1"]),
           np.array([3.0, 2.0, 1.0]))
    qrels = (np.array(["q1"]), np.array(["document-1"]), np.array([1]))
    with pytest.raises(ValueError, match="document-1"):
        fastrank.evaluate_run(qrels, run, "map")
    with pytest.raises(ValueError, match="qrels lists query 'q1', document 'document-1'"):
        fastrank.evaluate_run((np.array(["q1", "q1"]), np.array(["document-1"] * 2),
                               np.array([1, 1])), run, "map")


@pytest.mark.parametrize("grouped", [0, 10**12])
def test_queries_and_documents_on_two_threads_give_what_one_gives(grouped, monkeypatch) -> None:
    monkeypatch.setattr(trec_ids, "SMALL_ROWS", 0)
    monkeypatch.setattr(join, "GROUPED_ROWS", grouped)
    monkeypatch.setattr(join, "grouped_ready", lambda: True)
    rng = np.random.default_rng(2)
    rq = np.char.add("topic-", np.repeat(np.arange(30), 50).astype(str))
    rd = np.char.add("FBIS3-", rng.integers(0, 900, rq.shape[0]).astype(str).astype("U12"))
    jq, jd = rq[::3], rd[::3]
    both = join.coded(jq, rq, jd, rd, True)
    q, d = join.queries(jq, rq), join.documents(jd, rd, True)
    assert both[0][0].tolist() == q[0].tolist()
    for x, y in zip(both[0][1:2] + both[0][2], q[1:2] + q[2], strict=True):
        assert np.array_equal(x, y)
    assert np.array_equal(both[1][0], d[0]) and np.array_equal(both[1][1], d[1])
    assert np.array_equal(both[1][2](both[1][1]), d[2](d[1]))


@data.NEEDS_ROBUST
@pytest.mark.parametrize("name", data.RUNS[:3])
def test_robust2003_runs_from_string_arrays_match_trec_eval_10(tmp_path, name) -> None:
    """Real runs (100,000 rows and the 128,000 judgments: past ``ids.SMALL_ROWS``,
    so coded through the hash table) given as numpy ``str`` arrays: every
    all_trec value trec_eval 10 prints, per query and in its all row."""
    qrels = tuple(np.asarray(x) for x in fastrank.read_qrels(data.robust_qrels(tmp_path)))
    run = tuple(np.asarray(x) for x in fastrank.read_run(data.robust_run(name, tmp_path)))
    assert run[1].dtype.kind == "U" and qrels[0].shape[0] + run[0].shape[0] >= \
        trec_ids.SMALL_ROWS
    got = fastrank.evaluate_run(qrels, run, "all_trec", ties="trec_eval")
    names, values = data.printed_in_order(data.robust_printed(name))
    assert list(got.mean) == names
    queries = got.queries.tolist()
    for (m, q), v in values.items():
        mine = got.mean[m] if q == "all" else got.per_query[m][queries.index(q)]
        if "." in v:  # printed with %.4f
            assert abs(mine - float(v)) <= 0.5e-4 + 1e-12, (m, q, mine, v)
        else:
            assert mine == int(v), (m, q, mine, v)
    assert len(values) == 95 * 101 + 3


ID_BYTES = st.binary(min_size=1, max_size=6).filter(lambda b: b"\x00" not in b)


@PROPERTY_SETTINGS
@given(st.lists(ID_BYTES, max_size=60), st.lists(ID_BYTES, max_size=60),
       st.integers(0, 3), st.integers(0, 3))
def test_two_files_ids_join_by_one_merge_as_by_binary_search(xs, ys, padx, pady) -> None:
    """Two coded columns' sorted distinct bytes (of any widths, any byte from 1 to 255:
    prefixes of one another, UTF-8 lead bytes) joined by the reader kernel's merge
    (mode -7) give the keys numpy's binary searches give."""
    def coded(values: list[bytes], pad: int) -> trec_ids.CodedIds:
        width = max([len(v) for v in values] + [1]) + pad
        raw = np.unique(np.array(values, dtype=f"S{width}"))
        return trec_ids.CodedIds(np.arange(raw.shape[0])[::-1].copy(), None, raw)

    a, b = coded(xs, padx), coded(ys, pady)
    saved = trec_ids.SMALL_ROWS
    try:
        trec_ids.SMALL_ROWS = 0  # the merge
        merged = join.joined(a, b)
        trec_ids.SMALL_ROWS = 10**12  # numpy's searchsorted
        searched = join.joined(a, b)
    finally:
        trec_ids.SMALL_ROWS = saved
    for m, s in zip(merged, searched, strict=True):
        np.testing.assert_array_equal(m, s)
    both = set(xs) & set(ys)  # a shared id takes the run's code
    assert int((merged[0] < b.sorted_bytes().shape[0]).sum()) == len(both)
