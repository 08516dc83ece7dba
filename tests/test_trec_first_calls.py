"""What a first TREC call computes by numpy while the text kernels are not compiled,
against those kernels. Files (:mod:`fastrank._trec.numpy_reader`): the same coded
ids, the same value bits, the same repeated pair named, the same error where a
file is bad (numpy then leaves the file to the kernel), on generated files with
blank lines, comments, tabs, extra columns, ties, repeats and every form of
number, cut into chunks of a few bytes. Arrays of text ids: packed keys, the
coding by sorts of packed bytes, trec_eval's order by numpy's sort, and every
measure under every tie rule the same, bit for bit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank._core import codec, first_calls
from fastrank._trec import files, join, numpy_reader
from fastrank._trec import ids as trec_ids
from fastrank.readers import DataError

from .strategies import PROPERTY_SETTINGS
from .test_trec_files import HARD

sys.path.insert(0, str(Path(__file__).parent))
from fresh import assert_prints_ok

BAD = ["nan", "inf", "-inf", "1_000", "abc", ".", "-", "1e", "0x1p3", "1.5.2", "--1"]
SPACE = st.text(" \t", min_size=1, max_size=3)
IDS = st.text("abcAB019-_.:/", min_size=1, max_size=12)


@st.composite
def tables(draw: Any, width: int, bad: bool) -> tuple[bytes, bool]:
    """A file's bytes, and whether numpy must read it (a row at least; no bad value,
    no short line, nothing beyond ASCII)."""
    queries = draw(st.lists(IDS, min_size=1, max_size=4))
    docs = draw(st.lists(IDS, min_size=1, max_size=30))
    numbers = st.one_of(st.sampled_from(HARD),
                        st.floats(allow_nan=False, allow_infinity=False).map(repr),
                        st.integers(-10**20, 10**20).map(str),
                        st.builds(lambda m, k: f"{m / 10**k:.{k}f}", st.integers(-10**16, 10**16),
                                  st.integers(0, 17)))
    if bad:
        numbers = st.one_of(numbers, st.sampled_from(BAD))
    lines, plain, rows = [], True, 0
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(["row"] * 8 + ["blank", "comment", "short"]
                                    + (["odd"] if bad else [])))
        if kind == "blank":
            lines.append(draw(st.text(" \t", max_size=3)))
            continue
        if kind == "comment":
            lines.append("#" + draw(st.text(" abc#\t", max_size=8)))
            continue
        tokens = [draw(st.sampled_from(queries)), draw(st.sampled_from(["Q0", "0"])),
                  draw(st.sampled_from(docs))]
        rows += 1
        value = draw(numbers)
        plain = plain and value not in BAD
        tokens += [draw(st.sampled_from(["1", "7"])), value] if width == 5 else [value]
        tokens += draw(st.lists(IDS, max_size=2))
        if kind == "short":
            tokens = tokens[:draw(st.integers(1, width - 1))]
            plain = False
        if kind == "odd":
            tokens[2] += draw(st.sampled_from(["\r", "é", "\x00", "\x0b"]))
            plain = False
        line = draw(st.text(" \t", max_size=2)) + "".join(
            t + draw(SPACE) for t in tokens[:-1]) + tokens[-1] + draw(st.text(" \t", max_size=2))
        lines.append(line)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    return text.encode("utf-8"), plain and rows > 0  # (no row: the kernel names the file)


def _read(path: Path, width: int, by_numpy: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What read_run / read_qrels give (or the error's text), by numpy or by the kernel."""
    monkeypatch.setattr(files, "SMALL", 0)
    monkeypatch.setattr(numpy_reader, "wanted", lambda size: by_numpy)
    read = files.read_run if width == 5 else files.read_qrels
    try:
        q, d, v = read(str(path))
    except DataError as exc:
        return str(exc)
    return (q.codes, q.raw, d.codes, d.raw, v.view(np.uint64), d._pairs_checked_with is not None)


def _same(got: Any, want: Any) -> None:
    assert type(got) is type(want), (got, want)
    if isinstance(want, str):
        assert got == want
        return
    for a, b in zip(got, want, strict=True):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), (a, b)
        else:
            assert a == b


@pytest.mark.parametrize("width", [5, 4])
@PROPERTY_SETTINGS
@given(data=st.data(), chunk=st.sampled_from([1, 7, 64, 1 << 20]),
       rows=st.sampled_from([1, 3, 1024]))
def test_numpy_reading_equals_the_kernel(tmp_path_factory: pytest.TempPathFactory, width: int,
                                         data: st.DataObject, chunk: int, rows: int) -> None:
    raw, plain = data.draw(tables(width, bad=data.draw(st.booleans())))
    path = tmp_path_factory.mktemp("numpy_reader") / "file"
    path.write_bytes(raw)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(numpy_reader, "CHUNK_BYTES", chunk)
        mp.setattr(numpy_reader, "ROWS", rows)
        want = _read(path, width, False, mp)
        picks = (0, 2, 4) if width == 5 else (0, 2, 3)
        took = numpy_reader.read(path, raw, width, picks) is not None
        got = _read(path, width, True, mp)
    _same(got, want)
    if plain:  # a plain file is numpy's to read, a bad one the kernel's to name
        assert took, raw
    if isinstance(want, str):
        assert not took or "more than once" in want


@pytest.mark.parametrize("rows", [7, 1 << 16])
def test_decimals_are_correctly_rounded(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    """Decimals of 1 to 20 digits, the dot anywhere: the bits of Python's float (up to
    15 digits as one division, the rest by numpy's parse)."""
    monkeypatch.setattr(numpy_reader, "ROWS", rows)
    rng = np.random.default_rng(5)
    texts = []
    for _ in range(20_000):
        digits = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 21))))
        at = int(rng.integers(0, len(digits) + 1))
        sign = "-" if rng.random() < 0.3 else ""
        texts.append(sign + digits[:at] + "." * bool(rng.random() < 0.8) + digits[at:])
    fixed = np.array([t.encode() for t in texts])
    out = numpy_reader._values(fixed)
    assert out is not None
    want = np.array([float(t) for t in texts])
    assert np.array_equal(out.view(np.uint64), want.view(np.uint64))
    short = np.array([sum(c.isdigit() for c in t) <= 15 for t in texts])
    plain = np.empty(fixed.shape[0], bool)
    numpy_reader._decimals(fixed, np.empty(fixed.shape[0]), plain)
    assert np.array_equal(plain, short)


@pytest.mark.parametrize("by_numpy", [True, False])
def test_the_first_line_that_repeats_a_pair_is_named(tmp_path: Path, by_numpy: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Two pairs repeated: the error names the one repeated first in the file (not the
    one whose ids sort first), whichever way the file is read."""
    path = tmp_path / "run"
    path.write_text("qB Q0 dZ 1 3 t\nqA Q0 dA 1 2 t\nqB Q0 dZ 2 1 t\nqA Q0 dA 2 1 t\n")
    got = _read(path, 5, by_numpy, monkeypatch)
    assert got == f"{path}: query qB lists document dZ more than once"


def test_the_budget_and_the_compiled_kernel_end_numpy_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy reading is wanted while the reader's kernel is not ready and the
    budget lasts (from nothing spent: tests before this one in the same process may
    have read files by numpy and spent it)."""
    monkeypatch.setattr(first_calls, "_spent", {})
    monkeypatch.setattr(numpy_reader, "reader_ready", lambda: False)
    assert numpy_reader.wanted(1 << 20)
    assert not numpy_reader.wanted(numpy_reader.READ_MAX + 1)
    monkeypatch.setitem(first_calls._spent, "reader", numpy_reader.BUDGET)
    assert not numpy_reader.wanted(1 << 20)
    monkeypatch.setitem(first_calls._spent, "reader", 0.0)
    monkeypatch.setattr(numpy_reader, "reader_ready", lambda: True)
    assert not numpy_reader.wanted(1 << 20)


def test_a_first_trec_call_compiles_no_reader(tmp_path: Path) -> None:
    """From an empty kernel cache, files of a few MB are read and scored with no
    reader kernel compiled; the kernel's reading then gives the same numbers."""
    rng = np.random.default_rng(2)
    nq, nd = 300, 400
    q = np.repeat([f"q{i}" for i in range(nq)], nd)
    d = np.array([f"DOC-{j:07d}" for _ in range(nq) for j in rng.permutation(10**5)[:nd]])
    s = np.round(rng.random(nq * nd), 3)
    run = "\n".join(f"{a} Q0 {b} 1 {c} tag" for a, b, c in zip(q, d, s, strict=True)) + "\n"
    judged = rng.random(nq * nd) < 0.3
    qrels = "".join(f"{a} 0 {b} {int(g)}\n" for a, b, g in zip(
        q[judged], d[judged], rng.integers(-1, 3, int(judged.sum())), strict=True))
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    assert (tmp_path / "run").stat().st_size > files.SMALL
    code = f"""
import numpy as np, fastrank
from fastrank._kernels import text
from fastrank._trec import numpy_reader
measures = ["map", "ndcg_cut.10", "P.5", "recip_rank", "bpref"]
def scores():
    run = fastrank.read_run({str(tmp_path / "run")!r})
    qrels = fastrank.read_qrels({str(tmp_path / "qrels")!r})
    r = fastrank.evaluate_run(qrels, run, measures, ties="trec_eval")
    return [r.queries.tolist()] + [r.per_query[m].tolist() for m in r.per_query]
first = scores()
rng = np.random.default_rng(1)
q = np.repeat(np.array([f"q{{i}}" for i in range(100)]), 1000)
d = np.array([f"FBIS4-{{j:08d}}" for _ in range(100) for j in rng.permutation(10**5)[:1000]])
s = rng.integers(0, 50, q.shape[0]).astype(float)
judged = rng.random(q.shape[0]) < 0.3
arrays = fastrank.evaluate_run((q[judged], d[judged], s[judged] % 3), (q, d, s), measures,
                               ties="trec_eval")
assert not text.trec_pass.signatures and not text.trec_arrays.signatures
numpy_reader.wanted = lambda size: False
assert scores() == first
assert text.trec_pass.signatures
print("ok")
"""
    assert_prints_ok(code, cache_dir=tmp_path / "cache")


@PROPERTY_SETTINGS
@given(ids=st.lists(st.text(st.characters(max_codepoint=300, exclude_characters="\x00"),
                            max_size=11), min_size=1, max_size=40))
def test_numpy_text_keys_equal_the_kernel(ids: list[str]) -> None:
    arr = np.array(ids)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(codec, "arrays_ready", lambda: True)
        want = codec.text_keys(arr)
        mp.setattr(codec, "arrays_ready", lambda: False)
        mp.setitem(first_calls._spent, "keys", 0.0)
        got = codec.text_keys(arr)
    assert (got is None) == (want is None)
    if want is not None:
        assert got is not None and np.array_equal(got, want)


@PROPERTY_SETTINGS
@given(ids=st.lists(st.binary(max_size=6).map(lambda b: b.replace(b"\x00", b"z")), min_size=2,
                    max_size=60))
def test_unique_keys_of_bytes_are_numpys(ids: list[bytes]) -> None:
    keys = np.array(ids, dtype="S6" if max(map(len, ids)) else "S1")
    got = trec_ids.unique_keys(keys)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    assert np.array_equal(got[0], first) and np.array_equal(got[1], inv.reshape(-1))


def _large_runs(kind: str, seed: int) -> tuple[tuple, tuple]:
    """A run and qrels of more than ``ids.SMALL_ROWS`` text ids in all, heavy ties."""
    rng = np.random.default_rng(seed)
    nq, nd = 150, 800
    pool = {"short": [f"d{j}" for j in range(3000)],
            "long": [f"FBIS4-{j:08d}" for j in range(3000)],
            "wide": [f"d\u0394{j}" for j in range(3000)],
            "mixed": [f"d{j}" if j % 3 else f"document-{j}" for j in range(3000)],
            "padded": [f"FBIS4-{j:08d}" for j in range(3000)]}[kind]
    q = np.repeat(np.array([f"q{i}" for i in range(nq)]), nd)
    d = np.concatenate([np.array(pool)[rng.permutation(len(pool))[:nd]] for _ in range(nq)])
    if kind == "padded":  # a dtype wider than every id (as np.char.add makes them)
        q, d = q.astype("U40"), d.astype("U33")
    s = rng.integers(0, 20, q.shape[0]).astype(np.float64)
    if seed % 2:  # a query's rows not together
        order = rng.permutation(q.shape[0])
        q, d, s = q[order], d[order], s[order]
    judged = rng.random(q.shape[0]) < 0.2
    g = rng.integers(-1, 3, int(judged.sum())).astype(np.float64)
    return (q[judged], d[judged], g), (q, d, s)


@pytest.mark.parametrize("kind,seed", [("short", 0), ("long", 1), ("wide", 2), ("mixed", 3),
                                        ("long", 4), ("padded", 5), ("padded", 6)])
def test_large_text_arrays_by_numpy_equal_the_kernels(kind: str, seed: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = _large_runs(kind, seed)
    assert qrels[0].shape[0] + run[0].shape[0] >= trec_ids.SMALL_ROWS
    measures = ["map", "ndcg_cut.10", "P.5", "recip_rank", "bpref", "Rprec", "iprec_at_recall"]
    results = {}
    for numpy_way in (False, True):
        monkeypatch.setattr(codec, "arrays_ready", lambda way=numpy_way: not way)
        monkeypatch.setattr(join, "order_by_numpy", lambda n, rows=0, way=numpy_way: way)
        monkeypatch.setattr(first_calls, "_spent", {})
        chosen = [join.stand_in(qrels[1], run[1])]
        for ties in ("trec_eval", "expected", "optimistic"):
            r = fastrank.evaluate_run(qrels, run, measures, ties=ties)
            results[numpy_way, ties] = (r.queries.tolist(),
                                        {m: v.tobytes() for m, v in r.per_query.items()})
        assert chosen == [numpy_way]
    for ties in ("trec_eval", "expected", "optimistic"):
        assert results[True, ties] == results[False, ties], ties
