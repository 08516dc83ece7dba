"""The compiled reading of TREC files and the join of their ids: scores read as
Python's float (C's strtod) reads them, ids coded as numpy's unique codes them,
every bad line named, and trec_eval's order of ties made per query as a sort by
(score, docid as text) makes it."""

from __future__ import annotations

import gzip
import math
import os
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank._core.inputs import readonly
from fastrank._kernels import text as kernel
from fastrank._trec import files, join
from fastrank._trec import ids as trec_ids
from fastrank._trec.ids import CodedIds
from fastrank.readers import DataError

from .strategies import PROPERTY_SETTINGS

HARD = ["0", "-0", "+0", "0.0", "-0.0", ".5", "5.", "+.5", "-5.", "1e308", "1.7976931348623157e308",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9406564584124654e-324",
        "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400", "0e999999",
        "0.1", "0.3", "0.30000000000000004", "9007199254740993", "9007199254740992",
        "123456789012345678901234567890", "0.000000000000000000000000000001",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.000000000000000111022302462515654042363166809082031250001", "1E5", "1e+05",
        "1e-05", "-1.5E-3", "100000000000000000000000", "1e22", "1e23", "8.98846567431158e307",
        "4.35679e-10", "0.1234567890123456789", "12345678901234567890", "1234567890123456789",
        "99999999999999999", "231.000000", "-7.0000000001", "00000000000000000001",
        "0.00000000000000000000000000000000000000000000000000000001"]


@pytest.fixture(autouse=True, params=["kernel", "parts", "python"])
def reader(request, monkeypatch) -> str:
    """Every test three times: files read by the compiled pass, by the compiled
    pass in parts of a few bytes each on up to seven threads (a query's rows cut
    between parts, ids found in several; ids copied out by the kernel), and split
    by Python (the path of files
    under files.SMALL bytes), which must all give the same."""
    monkeypatch.setattr(files, "SMALL", 1 << 62 if request.param == "python" else 0)
    if request.param == "parts":
        monkeypatch.setattr(files, "GATHER_ROWS", 0)  # ids copied by the kernel
        monkeypatch.setattr(files, "PART_BYTES", 5)
        monkeypatch.setattr(files.workers, "threads", lambda: 7)
    return str(request.param)


def write(path, text: str) -> str:
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def python_read(text: str, width: int, picks: tuple[int, int, int]):
    """The reference: lines split as trec_eval splits them, on C's whitespace (space,
    tab, vertical tab, form feed: bytes.split's), never on characters beyond ASCII."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    rows = [[t.decode() for t in line.encode().split()] for line in text.split("\n")
            if line.encode().split()]
    assert all(len(r) >= width for r in rows)
    return ([r[picks[0]] for r in rows], [r[picks[1]] for r in rows],
            [float(r[picks[2]]) for r in rows])


def same_bits(a, b) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def test_hard_scores_are_read_as_python_reads_them(tmp_path) -> None:
    lines = "".join(f"q{i % 3} Q0 d{i} {i} {s} tag\n" for i, s in enumerate(HARD))
    q, d, s = fastrank.read_run(write(tmp_path / "run", lines))
    assert same_bits(s, [float(x) for x in HARD])
    assert q.tolist() == [f"q{i % 3}" for i in range(len(HARD))]
    assert d.tolist() == [f"d{i}" for i in range(len(HARD))]


numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda x: f"{x:.9g}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
    st.tuples(st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=0, max_size=25),
              st.sampled_from(["", "."]), st.text("0123456789", min_size=0, max_size=25),
              st.sampled_from(["", "e", "E", "e-", "e+"]),
              st.integers(0, 400).map(str)).map(
        lambda t: t[0] + (t[1] or "0") + t[2] + t[3] + (t[4] + t[5] if t[4] else "")))


@PROPERTY_SETTINGS
@given(values=st.lists(numbers, min_size=1, max_size=40))
def test_any_decimal_is_read_as_python_reads_it(tmp_path_factory, values) -> None:
    path = tmp_path_factory.mktemp("run") / "run"
    text = "".join(f"q Q0 d{i} {i} {v} t\n" for i, v in enumerate(values))
    finite = all(math.isfinite(float(v)) for v in values)
    if not finite:
        with pytest.raises(DataError, match="NaN or infinite"):
            fastrank.read_run(write(path, text))
        return
    assert same_bits(fastrank.read_run(write(path, text))[2], [float(v) for v in values])


ids = st.text(st.sampled_from([*"abcAB-_.:09", "é", "Ω", "ß", "中", "\U0001f600"]),
              min_size=1, max_size=20)


@PROPERTY_SETTINGS
@given(rows=st.lists(st.tuples(st.integers(0, 3), ids, st.integers(-2, 3)), min_size=1,
                     max_size=60),
       sep=st.sampled_from([" ", "\t", "  \t ", "\x0b", "\x0c"]),
       end=st.sampled_from(["\n", "\r\n", "\r", "\n\n", "\n \n"]))
def test_ids_are_coded_as_numpy_unique_codes_them(tmp_path_factory, rows, sep, end) -> None:
    path = tmp_path_factory.mktemp("qrels") / "qrels"
    text = end.join(sep.join([f"q{a}", "0", b, str(c)]) for a, b, c in rows)
    q, d, g = fastrank.read_qrels(write(path, text))
    want_q, want_d, want_g = python_read(text, 4, (0, 2, 3))
    for got, want in ((q, want_q), (d, want_d)):
        assert isinstance(got, CodedIds)
        distinct, inverse = np.unique(np.array(want), return_inverse=True)
        assert got.distinct.tolist() == distinct.tolist()
        assert got.codes.tolist() == inverse.reshape(-1).tolist()
        assert np.asarray(got).tolist() == want and got.tolist() == want
        assert np.asarray(got).dtype == np.array(want).dtype
    assert same_bits(g, want_g)


@pytest.mark.parametrize("inside", ["\u00a0", "\u3000", "\u0085", "\u2028", "\x1c", "\x1f"])
def test_whitespace_beyond_c_isspace_is_part_of_an_id_as_in_trec_eval(tmp_path, inside) -> None:
    """trec_eval splits lines on C's isspace: a no-break space (or U+3000, U+0085,
    U+2028, or the ASCII separators 0x1C-0x1F, which Python's str.split splits on)
    is part of an id. Split as Python splits, ``a<NBSP>b`` was read as document
    ``a`` with the rank as its score: num_rel_ret 1 and map 0.5 where trec_eval
    gives 0 and 0."""
    run = write(tmp_path / "run", f"q1 Q0 a{inside}b 1 2 t\nq1 Q0 c 2 1 t\n")
    q, d, s = fastrank.read_run(run)
    assert q.tolist() == ["q1", "q1"] and d.tolist() == [f"a{inside}b", "c"]
    assert s.tolist() == [2.0, 1.0]
    qrels = write(tmp_path / "qrels", f"q1 0 a 1\nq1 0 x{inside}y 1\n")
    assert fastrank.read_qrels(qrels)[1].tolist() == ["a", f"x{inside}y"]
    got = fastrank.evaluate_run(fastrank.read_qrels(qrels), (q, d, s),
                                ["num_rel_ret", "map"], ties="trec_eval")
    assert got.mean == {"num_rel_ret": 0.0, "map": 0.0}
    with pytest.raises(DataError, match="a run line needs 5 columns; got 4"):
        fastrank.read_run(write(tmp_path / "short", f"q1 Q0 d1 1{inside}0.5\n"))


def test_gzipped_files_read_as_plain_ones(tmp_path) -> None:
    text = "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\nq2 Q0 d1 1 3 t\n"
    plain = write(tmp_path / "run", text)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    for x, y in zip(fastrank.read_run(plain), fastrank.read_run(str(packed)), strict=True):
        assert np.asarray(x).tolist() == np.asarray(y).tolist()
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(text.encode())[:-12])
    with pytest.raises(DataError, match=r"broken.gz: not a readable gzip file"):
        fastrank.read_run(str(broken))


@pytest.mark.parametrize(("text", "message"), [
    ("q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2\n", r"run:3: a run line needs 5 columns; got 3: 'q1 Q0 d2'"),
    ("q1 Q0 d1 1 0.5 t\r\nq1 Q0 d2 2 x t\n", r"run:2: a score is not a number: 'x'"),
    ("q1 Q0 d1 1 0.5 t\rq1 Q0 d2 2 nan t\n", r"run:2: a score is NaN or infinite: 'nan'"),
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 -inf t\n", r"run:2: a score is NaN or infinite: '-inf'"),
    ("q1 Q0 d1 1 1e309 t\n", r"run:1: a score is NaN or infinite: '1e309'"),
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d\x002 2 1 t\n", r"run:2: a NUL byte"),
    ("q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 1 t\nq1 Q0 d1 2 0.25 t\n",
     r"query q1 lists document d1 more than once"),
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 1 t\nq1 Q0 d1 2 0.25 t\n",
     r"query q1 lists document d1 more than once"),
    (" \n\t\n", r"run: no run lines"),
    ("", r"run: no run lines"),
])
def test_bad_lines_are_named_by_file_and_line(tmp_path, text, message) -> None:
    with pytest.raises(DataError, match=message):
        fastrank.read_run(write(tmp_path / "run", text))


def test_ids_that_are_not_utf8_are_refused(tmp_path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d\xff 1 0.5 t\n")
    with pytest.raises(DataError, match="not UTF-8"):
        fastrank.read_run(str(path))


def test_long_ids_share_no_code_unless_equal(tmp_path) -> None:
    """Ids past the 16 bytes kept in the hash table are told apart by their bytes."""
    base = "clueweb09-en0000-00-"
    docs = [base + f"{i:05d}" for i in range(300)] + [base + "00007"] * 2
    qids = [f"q{i % 7}" for i in range(len(docs) - 2)] + ["q8", "q9"]
    text = "".join(f"{q} Q0 {d} 1 {i} t\n" for i, (q, d) in enumerate(zip(qids, docs,
                                                                           strict=True)))
    _, d, _ = fastrank.read_run(write(tmp_path / "run", text))
    assert d.tolist() == docs and d.distinct.shape[0] == 300


@PROPERTY_SETTINGS
@given(words=st.lists(st.text(st.sampled_from("abz019- \x00\téΩ😀ÿ"), max_size=24),
                      min_size=1, max_size=80),
       layout=st.sampled_from(["as is", "wider", "swapped"]))
def test_text_arrays_are_hashed_to_numpy_unique_codes(words, layout) -> None:
    """Any str array (NUL, whitespace, characters beyond ASCII and 256, ids past
    16 characters, a wider dtype, the other byte order) is coded as numpy's unique
    codes it; its ASCII ids also as their bytes."""
    arr = np.array(words)
    if arr.dtype.itemsize == 0:
        assert join.hashed(arr) is None
        return
    if layout == "wider":
        arr = arr.astype(f"U{arr.dtype.itemsize // 4 + 5}")
    elif layout == "swapped":
        arr = arr.astype(arr.dtype.newbyteorder(">"))
    coded = join.hashed(arr)
    assert coded is not None
    distinct, inverse = np.unique(arr, return_inverse=True)
    assert coded.distinct.tolist() == distinct.tolist()
    assert coded.codes.tolist() == inverse.reshape(-1).tolist()
    if all(ord(c) < 0x80 for w in words for c in w):
        assert coded.raw is not None
        assert coded.raw.tolist() == [w.encode() for w in distinct.tolist()]
    else:
        assert coded.raw is None


def test_text_arrays_of_many_ids_grow_the_hash_table() -> None:
    """Past the table's first size (grown as it fills), and ids sharing their first
    16 characters, told apart by the rest."""
    n = 200_000
    tails = np.random.default_rng(3).integers(0, 70_000, n).astype(str)
    for head in ("d", "clueweb09-en0000-00-", "Ω-"):
        arr = np.char.add(head, tails)
        coded = join.hashed(arr)
        distinct, inverse = np.unique(arr, return_inverse=True)
        assert coded.distinct.tolist() == distinct.tolist()
        assert np.array_equal(coded.codes, inverse.reshape(-1))


def test_text_arrays_of_nothing_are_left_to_numpy() -> None:
    for arr in (np.array([], "U3"), np.array([1, 2])):
        assert join.hashed(arr) is None
    assert join.hashed(np.array(["", "a", ""])).codes.tolist() == [0, 1, 0]


@PROPERTY_SETTINGS
@given(data=st.data())
def test_trec_order_is_a_sort_by_score_then_rank(data) -> None:
    sizes = data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=8))
    n = sum(sizes)
    scores = np.array(data.draw(st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e300]),
                                         min_size=n, max_size=n)), np.float64)
    layout = data.draw(st.sampled_from(["any", "up", "down"]))
    ends = np.cumsum(sizes).astype(np.int64)
    starts = ends - np.array(sizes, np.int64)
    for s, e in zip(starts, ends, strict=True):
        if layout != "any":
            scores[s:e] = np.sort(scores[s:e])[::-1 if layout == "down" else 1]
    keys = np.array(data.draw(st.permutations(range(n))), np.int64) - n // 2
    for kernel_rows in (0, join.KERNEL_ROWS):  # the kernel, and numpy's sort
        got = join.trec_order(starts, ends, keys, scores, kernel_rows)
        for s, e in zip(starts, ends, strict=True):
            want = np.lexsort((keys[s:e], scores[s:e]))
            assert np.argsort(got[s:e]).tolist() == want.tolist()
            assert np.unique(got[s:e]).shape[0] == e - s


@pytest.mark.parametrize("pattern", ["random", "few scores", "one score", "up", "down",
                                     "organ pipe", "sawtooth"])
def test_trec_order_of_long_queries_in_any_order(pattern) -> None:
    """Queries of up to 5,000 rows in no order by score go through the kernel's
    quicksort (cut after cut, the smaller side first) whatever their pattern:
    the order numpy's lexsort gives."""
    rng = np.random.default_rng(11)
    sizes = np.array([17, 5000, 1, 1234, 64, 3000, 0, 999])
    n = int(sizes.sum())
    ends = np.cumsum(sizes).astype(np.int64)
    starts = ends - sizes
    i = np.arange(n)
    scores = {"random": rng.random(n), "few scores": rng.integers(0, 7, n) / 7,
              "one score": np.zeros(n), "up": i / n, "down": -i / n,
              "organ pipe": -np.abs(i % 2000 - 1000.0), "sawtooth": (i % 37) * 1.0}[pattern]
    keys = rng.permutation(n).astype(np.int64)
    got = join.trec_order(starts, ends, keys, scores, 0)
    for s, e in zip(starts, ends, strict=True):
        want = np.lexsort((keys[s:e], scores[s:e]))
        assert np.argsort(got[s:e]).tolist() == want.tolist()


def trec_eval_reference(qrels, run, k: int) -> dict[str, tuple[float, float]]:
    """P@k and average precision per query, documents ranked as trec_eval ranks them:
    by score decreasing, ties by docid as text (strcmp), decreasing."""
    rel: dict[str, set[str]] = {}
    for q, d, g in zip(*qrels, strict=True):
        rel.setdefault(str(q), set())
        if g >= 1:
            rel[str(q)].add(str(d))
    by: dict[str, list[tuple[float, bytes, str]]] = {}
    for q, d, s in zip(*run, strict=True):
        by.setdefault(str(q), []).append((float(s), str(d).encode(), str(d)))
    out = {}
    for q, docs in by.items():
        if q not in rel or not rel[q]:
            continue
        docs.sort(reverse=True)
        hits = [d in rel[q] for _, _, d in docs]
        ap = sum(sum(hits[:i + 1]) / (i + 1) for i, h in enumerate(hits) if h) / len(rel[q])
        out[q] = (sum(hits[:k]) / k, ap)
    return out


@pytest.mark.parametrize("small_rows", [0, trec_ids.SMALL_ROWS])  # hashed or packed, numpy's sort
@pytest.mark.parametrize("kind", ["short", "long", "int", "non-ascii", "file"])
def test_trec_eval_order_from_every_id_kind_matches_a_sort(tmp_path, kind, small_rows,
                                                           monkeypatch) -> None:
    monkeypatch.setattr(trec_ids, "SMALL_ROWS", small_rows)
    rng = np.random.default_rng(7)
    nq, nd = 12, 50
    q = np.repeat(np.arange(nq), nd)
    d = np.concatenate([rng.permutation(300)[:nd] for _ in range(nq)])
    s = np.round(rng.random(q.shape[0]) * 4) / 4
    g = rng.integers(0, 3, q.shape[0])
    if kind == "int":
        qq, dd = q + 100, d * 13
    elif kind == "short":
        qq, dd = np.char.add("q", q.astype(str)), np.char.add("d", d.astype(str))
    elif kind == "non-ascii":
        qq = np.char.add("q", q.astype(str))
        dd = np.char.add(np.array(["é", "z", "Ω", "a"])[d % 4], (d * 7919).astype(str))
    else:
        qq = np.char.add("topic-", q.astype(str))
        dd = np.char.add("LA0412-", np.char.zfill((d * 7919).astype(str), 9))
    judged = rng.random(q.shape[0]) < 0.5
    qrels, run = (qq[judged], dd[judged], g[judged]), (qq, dd, s)
    if kind == "file":
        qf, rf = tmp_path / "qrels", tmp_path / "run"
        qf.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in zip(*(x.tolist() for x in qrels),
                                                                       strict=True)))
        rf.write_text("".join(f"{a} Q0 {b} 0 {c!r} t\n" for a, b, c in
                              zip(*(x.tolist() for x in run), strict=True)))
        qrels, run = fastrank.read_qrels(str(qf)), fastrank.read_run(str(rf))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = fastrank.evaluate_run(qrels, run, ["P@5", "map"], ties="trec_eval")
    want = trec_eval_reference(tuple(np.asarray(x) for x in qrels),
                               tuple(np.asarray(x) for x in run), 5)
    queries = [str(x) for x in got.queries.tolist()]
    for i, qid in enumerate(queries):
        if qid in want:
            assert got.per_query["P@5"][i] == pytest.approx(want[qid][0], abs=1e-12)
            assert got.per_query["map"][i] == pytest.approx(want[qid][1], abs=1e-12)
    assert len(want) >= nq - 1


def test_the_kernel_refuses_nothing_it_reads_and_counts_rows() -> None:
    data = readonly(np.frombuffer(b"a b c d\n\n e f g h \r\n", np.uint8))
    none, no_ints = readonly(np.empty(0)), np.empty(0, np.int64)
    ends = kernel.trec_pass(-3, data, readonly(np.array([0, data.shape[0]], np.int64)), none,
                            no_ints, np.empty(0))
    assert ends == 3
    cap = ends + 1
    base = kernel.LOADS + 2 * cap
    iout = np.empty(base + kernel.HEAD + kernel.REGIONS * cap + 1, np.int64)
    fout = np.empty(cap)
    status = kernel.trec_pass(0, data, readonly(np.array([4, 0, 2, 3, cap, 1, 0, data.shape[0], 1],
                                                         np.int64)), none, iout[base:], fout)
    assert status == kernel.TEXT_OK
    assert iout[base + kernel.H_ROWS] == 2 and iout[base + kernel.H_NQ] == 2
    assert iout[base + kernel.HEAD + kernel.REGIONS * cap] == 2  # the one group's rows
    found = kernel.trec_pass(-2, data, readonly(np.array([1, 0, 1, 0, 2, cap, base, cap],
                                                         np.int64)), none, iout, fout[:0])
    assert found == 2
    status = kernel.trec_pass(-4, data, readonly(np.array([1, 2, 2, 1, base, cap, 0], np.int64)),
                              none, iout, fout[:0])
    assert status == kernel.TEXT_OK
    assert iout[kernel.H_ND] == 2 and iout[kernel.H_TWICE] == -1


@pytest.mark.parametrize(("text", "want"), [
    (b"", 0), (b"a", 0), (b"a\n", 1), (b"a\r\nb\rc\n\r", 4), (b"\r\r\n\n", 3),
    (b"x" * 100 + b"\r", 1)])
def test_the_kernel_counts_line_ends_as_python_does(text, want) -> None:
    data = readonly(np.frombuffer(text, np.uint8))
    for lo in range(len(text) + 1):
        got = kernel.trec_pass(-3, data, readonly(np.array([lo, len(text)], np.int64)),
                               readonly(np.empty(0)), np.empty(0, np.int64), np.empty(0))
        rest = text[lo:].decode()
        assert got == len(rest.splitlines()) - (1 if rest and not rest.endswith(("\n", "\r"))
                                                else 0)
    assert want == len(text.decode().splitlines()) - (
        1 if text and not text.endswith((b"\n", b"\r")) else 0)


@pytest.mark.parametrize("ties", ["expected", "trec_eval"])
def test_a_file_and_arrays_join_as_two_arrays_do(tmp_path, ties) -> None:
    """Qrels read from a file (ids as codes) and a run given as arrays, either way
    round: the values of both given as arrays."""
    rng = np.random.default_rng(11)
    q = np.repeat(np.arange(6), 30)
    d = np.concatenate([rng.permutation(90)[:30] for _ in range(6)])
    qq, dd = np.char.add("topic-", q.astype(str)), np.char.add("WSJ870101-", d.astype(str))
    s = np.round(rng.random(q.shape[0]) * 3) / 3
    g = rng.integers(0, 3, q.shape[0])
    qrels, run = (qq[::2], dd[::2], g[::2]), (qq, dd, s)
    (tmp_path / "qrels").write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in
                                            zip(*(x.tolist() for x in qrels), strict=True)))
    (tmp_path / "run").write_text("".join(f"{a} Q0 {b} 0 {c!r} t\n" for a, b, c in
                                          zip(*(x.tolist() for x in run), strict=True)))
    measures = ["map", "P@5", "ndcg@10", "num_rel_ret"]
    want = fastrank.evaluate_run(qrels, run, measures, ties=ties)
    for pair in ((fastrank.read_qrels(str(tmp_path / "qrels")), run),
                 (qrels, fastrank.read_run(str(tmp_path / "run")))):
        got = fastrank.evaluate_run(*pair, measures, ties=ties)
        assert got.queries.tolist() == want.queries.tolist()
        for m in measures:
            assert got.per_query[m].tobytes() == want.per_query[m].tobytes()


def test_bytes_that_are_not_utf8_outside_the_ids_are_not_read(tmp_path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 0.5 t\xff\nq1 Q0 d2 2 0.25 \xfe\xff\n")
    q, d, s = fastrank.read_run(str(path))
    assert q.tolist() == ["q1", "q1"] and d.tolist() == ["d1", "d2"]
    assert s.tolist() == [0.5, 0.25]
    path.write_bytes(b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.2\xff t\n")
    with pytest.raises(DataError, match=r"run:2: a score is not a number"):
        fastrank.read_run(str(path))


def test_small_files_compile_no_kernel_and_read_as_large_ones(tmp_path) -> None:
    """Files under files.SMALL bytes are split by Python: their ids as CodedIds with
    the same codes, bytes and values the compiled pass gives."""
    text = "".join(f"topic-{i % 4} Q0 DOC-{(i * 37) % 50:04d}é 0 {i / 7!r} t\n"
                   for i in range(60))
    path = write(tmp_path / "run", text)
    small = files.read_table(path, 5, "run", (0, 2, 4), "score", small=1 << 20)
    large = files.read_table(path, 5, "run", (0, 2, 4), "score", small=0)
    for a, b in zip(small[:2], large[:2], strict=True):
        assert isinstance(a, CodedIds) and isinstance(b, CodedIds)
        assert a.codes.tolist() == b.codes.tolist()
        assert a.distinct.tolist() == b.distinct.tolist()
        assert a.raw.tolist() == b.raw.tolist()
    assert same_bits(small[2], large[2])


@PROPERTY_SETTINGS
@given(strings=st.lists(st.binary(min_size=0, max_size=20).map(lambda b: b.replace(b"\x00", b"")),
                        min_size=0, max_size=60),
       prefix=st.sampled_from([b"", b"FBIS4-", b"clueweb09-en0000-"]),
       repeat=st.booleans())
def test_bytes_order_is_numpys_stable_sort_of_the_bytes(strings, prefix, repeat) -> None:
    """The distinct ids' order: as numpy's stable argsort of the bytes, whether the
    places that differ fit one integer (ranks of few values) or not (any byte,
    many places: the two-word and numpy fallbacks), equal strings kept in order."""
    values = [prefix + s for s in strings] * (2 if repeat else 1)
    width = max([len(v) for v in values] + [1])
    arr = np.array(values, dtype=f"S{width}")
    assert trec_ids.bytes_order(arr).tolist() == np.argsort(arr, kind="stable").tolist()


def test_bytes_order_of_many_ids_sharing_a_prefix() -> None:
    rng = np.random.default_rng(5)
    for head, width in (("FBIS4-", 7), ("LA0412-", 9), ("x", 12), ("é-", 3)):
        tails = np.char.zfill(rng.integers(0, 10 ** min(width, 12), 50_000).astype(str), width)
        arr = np.char.encode(np.char.add(head, tails), "utf-8")
        assert trec_ids.bytes_order(arr).tolist() == np.argsort(arr, kind="stable").tolist()


@pytest.mark.parametrize("newline", ["\n", ""])
def test_ids_of_every_length_near_the_end_of_the_file(tmp_path, newline) -> None:
    """Ids of 1 to 20 bytes, equal but for their last byte, some on the file's last
    lines (fewer than 16 bytes after them): coded as numpy's unique codes them."""
    docs = [("d" * (k - 1)) + c for k in range(1, 21) for c in "ab"]
    rows = [(f"q{i % 3}", d) for i, d in enumerate(docs + docs[::-1][:6])]
    text = "\n".join(f"{q} 0 {d} {i % 3}" for i, (q, d) in enumerate(rows)) + newline
    _, d, g = fastrank.read_qrels(write(tmp_path / "qrels", text))
    want = [r[1] for r in rows]
    distinct, inverse = np.unique(np.array(want), return_inverse=True)
    assert d.distinct.tolist() == distinct.tolist()
    assert d.codes.tolist() == inverse.reshape(-1).tolist()
    assert g.tolist() == [float(i % 3) for i in range(len(rows))]


@pytest.mark.parametrize("rows", [63, 64, 65, 130, 1000])
def test_documents_coded_across_blocks_of_rows(tmp_path, rows) -> None:
    """Documents are coded 64 rows at a time: codes across the blocks, a block that
    is not full, and a document a query lists twice across a block's end."""
    rng = np.random.default_rng(rows)
    docs = [f"doc-{int(x)}" for x in rng.integers(0, rows // 2 + 1, rows)]
    text = "".join(f"q{i} Q0 {d} 1 {i / 3!r} t\n" for i, d in enumerate(docs))
    _, d, s = fastrank.read_run(write(tmp_path / "run", text))
    distinct, inverse = np.unique(np.array(docs), return_inverse=True)
    assert d.distinct.tolist() == distinct.tolist()
    assert d.codes.tolist() == inverse.reshape(-1).tolist()
    assert same_bits(s, [i / 3 for i in range(rows)])
    lines = [f"q1 Q0 d{i} {i} 1.5 t\n" for i in range(rows)]
    lines[rows - 1] = f"q1 Q0 d{rows - 2} 1 1.5 t\n"
    with pytest.raises(DataError, match=f"query q1 lists document d{rows - 2} more than once"):
        fastrank.read_run(write(tmp_path / "twice", "".join(lines)))


@pytest.mark.parametrize("value", [
    "1234567890123456789", "12345678901234567890", "9007199254740991", "9007199254740992",
    "9007199254740993", "900719925474099.3", "0.0000000000000000000001",
    "0.00000000000000000000001", "1.000000000000000000", "-0.000", "+.5", "-5.",
    "00000000000000000000.5",
    "0.1234567890123456789", "123.456", "-98.76543", "7", "+0", ".", "-", "+", "1..2", "1.2.3",
    "0x10", "1e5", "١٢"])
def test_plain_decimals_read_as_python_reads_them(tmp_path, value) -> None:
    """The fast path of plain decimals (digits, a point, digits) and its limits: the
    same bits as Python's float, or an error where float or C's strtod does not read
    the whole token (digits beyond ASCII: test_scores_read_as_c_reads_them)."""
    text = f"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 {value} t\n"
    try:
        if not value.isascii() or "_" in value:
            raise ValueError(value)
        want = float(value)
    except ValueError:
        with pytest.raises(DataError, match=r"run:2: a score is not a number"):
            fastrank.read_run(write(tmp_path / "run", text))
        return
    assert same_bits(fastrank.read_run(write(tmp_path / "run", text))[2], [0.5, want])


@pytest.mark.parametrize(("lines", "twice"), [
    (["q1 d1", "q1 d2", "q2 d1", "q2 d3"], -1),
    (["q1 d1", "q1 d2", "q2 d1", "q2 d2", "q2 d1"], 4),
    (["q1 d1", "q2 d1", "q1 d2"], -1),
    (["q1 d1", "q2 d1", "q2 d1", "q1 d2"], 2),  # the repeat comes before q1 comes back
    (["q1 d1", "q2 d2", "q3 d3", "q2 d2"], 3),
    (["q2 d1", "q1 d5", "q1 d5", "q2 d1"], 2),  # q1's repeat first in the file, q2's first met
    (["q1 a", "q2 b", "q1 c", "q1 c", "q2 b"], 3),
    (["q1 a", "q2 b", "q1 c", "q2 a", "q1 a"], 4),
])
def test_queries_by_runs_of_rows_check_repeats_as_row_by_row(tmp_path, lines, twice) -> None:
    """The query codes (held as runs of rows) of every row, and the first row that
    repeats a (query, document) pair, whether or not each query's rows are
    consecutive."""
    path = write(tmp_path / "run", "".join(f"{x.split()[0]} Q0 {x.split()[1]} 1 2 t\n"
                                           for x in lines))
    q, d, _, got = files.read_table(path, 5, "run", (0, 2, 4), "score", small=0)
    assert got == twice
    assert q.tolist() == [x.split()[0] for x in lines]
    assert d.tolist() == [x.split()[1] for x in lines]


@pytest.mark.parametrize(("qrels", "run", "shown"), [
    ("q1 0 d1\n", "q1 Q0 d1 1 x t\n", "qrels:1: a qrels line needs 4 columns"),
    ("q1 0 d1 1\n", "q1 Q0 d1 1 x t\n", "run:2: a score is not a number"),
    ("q1 0 d1 1\n", None, "run: No such file"),
    (None, None, "qrels: No such file"),
    (None, "q1 Q0 d1 1 1 t\n", "qrels: No such file"),
    ("q1 0 d1 1\n", "q1 Q0 d1 1 1 t\n", "map                   \tall\t0.5000"),
])
def test_the_command_reads_the_runs_first_and_shows_a_bad_qrels_first(tmp_path, capsys, qrels,
                                                                        run, shown) -> None:
    """``fastrank trec`` reads the runs before the qrels (its peak memory is then the
    largest file's alone); with both bad, the qrels' error is the one shown."""
    from fastrank.cli import main

    if qrels is not None:
        write(tmp_path / "qrels", qrels)
    if run is not None:
        write(tmp_path / "run", "q1 Q0 d0 1 2 t\n" + run)
    status = main(["trec", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "map"])
    out, err = capsys.readouterr()
    assert shown in (out if status == 0 else err)
    assert status == (0 if shown.startswith("map") else 1)


def _read_whole_and_in_parts(path: str, reader_fn, part_bytes: int, threads: int):
    """``reader_fn(path)`` read as one part, then in parts of ``part_bytes`` on
    ``threads`` threads: each result, or the error's message."""
    out = []
    for size, n in ((1 << 62, 1), (part_bytes, threads)):
        saved = files.PART_BYTES, files.workers.threads
        files.PART_BYTES, files.workers.threads = size, (lambda n=n: n)
        try:
            out.append(reader_fn(path))
        except DataError as exc:
            out.append(str(exc))
        finally:
            files.PART_BYTES, files.workers.threads = saved
    return out


@PROPERTY_SETTINGS
@given(rows=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 12), st.sampled_from(
    ["1", "0.5", "-2.25", "1e-3", "7", "0.1000000000000000055511151231257827"])),
    min_size=1, max_size=60),
    queries_in_runs=st.booleans(), ends=st.sampled_from(["\n", "\r\n", "\n\n", " \n"]),
    part_bytes=st.integers(1, 40), threads=st.integers(2, 9), twice=st.booleans())
def test_a_file_read_in_parts_reads_as_one(tmp_path_factory, rows, queries_in_runs, ends,
                                           part_bytes, threads, twice) -> None:
    """Parts cut anywhere between lines (a query's rows split between parts, one
    document in several parts, queries out of order, documents listed twice,
    blank lines, CRLF) give the same ids, codes, values and errors as one part."""
    if not twice:  # each (query, document) once
        rows = list({(q, d): (q, d, v) for q, d, v in rows}.values())
    if queries_in_runs:
        rows = sorted(rows, key=lambda r: r[0])
    text = "".join(f"q{q:02d} Q0 {'doc' * (d % 3)}{d} 1 {v} tag{ends}" for q, d, v in rows)
    path = tmp_path_factory.mktemp("parts") / "run"
    path.write_bytes(text.encode())
    whole, parts = _read_whole_and_in_parts(str(path), fastrank.read_run, part_bytes, threads)
    if isinstance(whole, str):
        assert parts == whole
        assert twice and "more than once" in whole
        return
    assert not isinstance(parts, str)
    for a, b in zip(whole, parts, strict=True):
        if isinstance(a, CodedIds):
            assert isinstance(b, CodedIds)
            np.testing.assert_array_equal(a.codes, b.codes)
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
            np.testing.assert_array_equal(a.sorted_bytes(), b.sorted_bytes())
        else:
            np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("bad", ["q1 Q0 d1 1\n", "q1 Q0 d\x001 1 0.5 t\n"])
def test_a_bad_line_in_a_later_part_is_named_by_its_line_in_the_file(tmp_path, bad) -> None:
    text = "".join(f"q{i // 7} Q0 d{i} 1 0.5 t\n" for i in range(60)) + bad + "q9 Q0 d 1 1 t\n"
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    whole, parts = _read_whole_and_in_parts(str(path), fastrank.read_run, 64, 8)
    assert isinstance(whole, str) and parts == whole and ":61:" in whole


@pytest.mark.parametrize("order", ["runs", "scattered"])
@pytest.mark.parametrize("twice", [False, True])
def test_qrels_pairs_the_reader_checked_are_not_checked_again(tmp_path, reader, order,
                                                             twice) -> None:
    """A qrels file whose (query, document) pairs the reader found distinct is
    marked so, and evaluate_run skips its own check; a repeated pair (its query's
    rows together or not) is still refused by name."""
    lines = [(f"q{i % 4}", f"d{i}", i % 3) for i in range(40)]
    if twice:
        lines.append(lines[9])
    if order == "runs":
        lines.sort(key=lambda x: x[0])
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in lines))
    run_path = tmp_path / "run"
    run_path.write_text("".join(f"q{i % 4} Q0 d{i} 1 {i / 7} t\n" for i in range(60)))
    qrels = fastrank.read_qrels(str(qrels_path))
    run = fastrank.read_run(str(run_path))
    marked = isinstance(qrels[1], CodedIds) and qrels[1]._pairs_checked_with is qrels[0]
    if twice:
        assert not marked
        with pytest.raises(ValueError, match="the qrels lists query 'q1', document 'd9' more "
                                             "than once"):
            fastrank.evaluate_run(qrels, run, "map")
        return
    # checked by the compiled reader (each query's runs of rows walked together)
    assert marked == (reader != "python")
    got = fastrank.evaluate_run(qrels, run, ["map", "P@5"], ties="trec_eval")
    arrays = tuple(np.asarray(x) for x in qrels)
    want = fastrank.evaluate_run(arrays, run, ["map", "P@5"], ties="trec_eval")
    for m in ("map", "P@5"):
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])


@PROPERTY_SETTINGS
@given(text=st.binary(min_size=1, max_size=64), picks=st.lists(st.tuples(
    st.integers(0, 63), st.integers(0, 20)), max_size=30))
def test_ids_copied_by_the_kernel_are_numpys_copies(text, picks) -> None:
    """fixed_width's kernel copy (mode -5) against its numpy path, ids anywhere up
    to the last byte, of any length from 0."""
    data = readonly(np.frombuffer(text.replace(b"\x00", b"a"), np.uint8))
    first = np.array([min(f, len(text) - 1) for f, _ in picks], np.int64)
    size = np.array([min(n, len(text) - f) for f, (_, n) in zip(first.tolist(), picks,
                                                                strict=True)], np.int64)
    saved = files.GATHER_ROWS
    try:
        files.GATHER_ROWS = 1 << 62
        want = files.fixed_width(data, first, size)
        files.GATHER_ROWS = 0
        got = files.fixed_width(data, first, size)
    finally:
        files.GATHER_ROWS = saved
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX's")
def test_a_run_read_from_a_pipe_reads_as_from_a_file(tmp_path) -> None:
    """A file that cannot be mapped (a named pipe) is read: the same run."""
    text = "".join(f"q{i % 3} Q0 d{i} 1 {i / 8} t\n" for i in range(40))
    path = write(tmp_path / "run", text)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    try:
        got = fastrank.read_run(str(fifo))
    finally:
        writer.join()
    want = fastrank.read_run(path)
    for a, b in zip(got, want, strict=True):
        assert np.asarray(a).tolist() == np.asarray(b).tolist()


@pytest.mark.parametrize("token", ["1_000", "1_0.5", "\uff11", "\u0661.5", "0x1p3"])
def test_scores_read_as_c_reads_them(tmp_path, reader, token) -> None:
    """Python's float (and numpy's, from bytes) reads `1_000` as 1000 and digits
    beyond ASCII as digits; C's strtod, which trec_eval reads scores with, reads
    neither as the whole token. Refused, by file and line, by both readers (they
    were read as Python reads them); hex, which strtod reads, stays refused."""
    text = f"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 {token} t\n"
    with pytest.raises(DataError, match=r"run:2: a score is not a number"):
        fastrank.read_run(write(tmp_path / "run", text))
    ok = fastrank.read_run(write(tmp_path / "ok", "q1 Q0 d1 1 1e1 t\nq1 Q0 d2 2 +.5 t\n"))
    assert ok[2].tolist() == [10.0, 0.5]


def test_comment_lines_are_skipped_as_trec_eval_skips_them(tmp_path, reader) -> None:
    """trec_eval 10 skips each line whose first byte is "#", in qrels and runs alike
    (its own test qrels.test.with-comments); a "#" elsewhere is text (MS MARCO's
    document ids hold one). Both readers skip the same lines; a line numbered in an
    error counts the comments."""
    run = write(tmp_path / "run", "# a comment: not 6 columns\nq1 Q0 doc#1 1 0.5 t\n#\n"
                                  "#q1 Q0 d9 1 9 t\nq1 Q0 d2 2 0.25 t\r\n# last, unended")
    q, d, s = fastrank.read_run(run)
    assert q.tolist() == ["q1", "q1"] and d.tolist() == ["doc#1", "d2"]
    assert s.tolist() == [0.5, 0.25]
    qrels = write(tmp_path / "qrels", "# judged by hand\nq1 0 doc#1 1\n#q1 0 d2 1\nq1 0 d2 0\n")
    jq, jd, jg = fastrank.read_qrels(qrels)
    assert jd.tolist() == ["doc#1", "d2"] and jg.tolist() == [1.0, 0.0]
    got = fastrank.evaluate_run((jq, jd, jg), (q, d, s), ["P@1"], ties="trec_eval")
    assert got.mean["P@1"] == 1.0
    with pytest.raises(DataError, match=r"bad:3: a score is not a number: 'x'"):
        fastrank.read_run(write(tmp_path / "bad", "# one\n# two\nq1 Q0 d1 1 x t\n"))
    with pytest.raises(DataError, match=r"a NUL byte"):
        fastrank.read_run(write(tmp_path / "nul", "q1 Q0 d1 1 1 t\n# a \x00 here\n"))


def test_qrels_grades_are_read_as_trec_eval_reads_them(tmp_path, reader) -> None:
    """trec_eval reads a grade with C's atol, the integer the token starts with: a
    qrels file of fractional grades scores (every measure, per query) as the same
    file with those integers, and the grades come back as them (no -0.0)."""
    lines = [("q1", "d1", "1.5", "1"), ("q1", "d2", "0.5", "0"), ("q1", "d3", "2.99", "2"),
             ("q1", "d4", "-1.5", "-1"), ("q1", "d5", "-0.5", "0"), ("q2", "d1", "+3.0", "3"),
             ("q2", "d6", "10.25", "10"), ("q2", "d7", "0.999", "0")]
    frac = write(tmp_path / "frac", "".join(f"{q} 0 {d} {g}\n" for q, d, g, _ in lines))
    whole = write(tmp_path / "whole", "".join(f"{q} 0 {d} {w}\n" for q, d, _, w in lines))
    got = fastrank.read_qrels(frac)
    assert got[2].tolist() == [float(w) for *_, w in lines]
    assert not np.signbit(got[2][[1, 4, 7]]).any()
    run = write(tmp_path / "run", "".join(f"{q} Q0 d{k} {k} {1.0 / k} t\n" for q in ("q1", "q2")
                                          for k in range(1, 8)))
    measures = ["map", "ndcg", "ndcg@3", "P@5", "Rprec", "recip_rank", "bpref", "infAP",
                "num_rel", "num_rel_ret"]
    a = fastrank.evaluate_run(got, fastrank.read_run(run), measures, ties="trec_eval")
    b = fastrank.evaluate_run(fastrank.read_qrels(whole), fastrank.read_run(run), measures,
                              ties="trec_eval")
    for m in measures:
        assert same_bits(a.per_query[m], b.per_query[m]), m


@pytest.mark.parametrize("depth", [None, 4])
def test_a_runs_queries_are_held_as_runs_and_scored_from_them(tmp_path, reader, depth) -> None:
    """The compiled reader keeps a run file's query ids as runs of rows, each row's
    code made only when asked for (10 M rows: 80 MB that scoring never reads): in
    runs of any length, a query coming back after others, runs cut between parts;
    the codes and every score are those of the same ids as arrays."""
    rng = np.random.default_rng(5)
    order = np.repeat(rng.integers(0, 6, 40), rng.integers(1, 9, 40))
    text = "".join(f"q{q} Q0 d{i} {i} {rng.integers(0, 4) / 4} t\n" for i, q in enumerate(order))
    run = fastrank.read_run(write(tmp_path / "run", text))
    want = np.array([f"q{q}" for q in order])
    distinct, inverse = np.unique(want, return_inverse=True)
    q = run[0]
    assert isinstance(q, CodedIds) and len(q) == q.shape[0] == q.size == order.shape[0]
    if reader == "python":
        assert q.runs is None  # (split by Python: each row's code made as it is read)
    judged = rng.choice(order.shape[0], 60, replace=False)
    qrels = fastrank.read_qrels(write(tmp_path / "qrels", "".join(
        f"q{order[k]} 0 d{k} {k % 3}\n" for k in judged)))
    arrays = (want, np.asarray(run[1]), run[2])
    for ties in ("trec_eval", "optimistic"):
        got = fastrank.evaluate_run(qrels, run, ["map", "P@5", "num_ret", "recip_rank"],
                                    ties=ties, depth=depth)
        if depth is None and q.runs is not None:
            assert q._codes is None  # scored from the runs
        same = fastrank.evaluate_run(qrels, arrays, ["map", "P@5", "num_ret", "recip_rank"],
                                     ties=ties, depth=depth)
        assert got.queries.tolist() == same.queries.tolist()
        for name, v in got.per_query.items():
            assert same_bits(v, same.per_query[name])
    assert q.distinct.tolist() == distinct.tolist()
    assert q.codes.tolist() == inverse.reshape(-1).tolist()
    assert q.tolist() == want.tolist() and q[3:9].tolist() == want[3:9].tolist()
