"""TREC run and qrels files read into arrays, each bad line named with its file
and line.

A file (plain or gzipped) is read as bytes and handed whole to a compiled pass
(:func:`fastrank._kernels.text.trec_pass`) that splits its lines, codes the query
and document ids by their bytes (each distinct id kept once) and reads the
scores that one exact operation gives; the ids come back as
:class:`~fastrank.trec.CodedIds`, never one string per row. Scores outside
that fast path are parsed by numpy from their bytes, as C's ``strtod`` reads a
whole token (Python's ``float`` without what it alone reads: ``_`` between
digits, digits beyond ASCII). Columns are split as trec_eval splits them, on C's
whitespace (space, tab, vertical tab, form feed): a no-break space or another
character beyond ASCII, or a byte such as 0x1C, is part of an id. Small files are
split in Python by the same rule.
"""

from __future__ import annotations

import gzip
import itertools
import mmap
import os
import stat
import zlib
from typing import Any, NoReturn

import numpy as np

from .._core import workers
from .._core.inputs import readonly
from .._kernels import text as kernel
from ..readers import DataError
from . import numpy_reader  # (which reads this module's helpers at call time)
from .ids import CodedIds, bytes_order, codes, repeated, rows

Raw = bytes | mmap.mmap  # a file's bytes: read, or mapped (slices of either are bytes)
CHUNK = 1 << 16  # ids and scores gathered into fixed-width bytes this many at a time


def raw_bytes(path: Any, least: int | None = None) -> Raw:
    """The bytes of a file, gunzipped when it starts with gzip's magic number. A
    plain regular file of ``least`` bytes or more is mapped rather than read:
    its pages are the operating system's cached pages (no copy, and far fewer
    page faults, each mapping the pages around it)."""
    with open(path, "rb") as f:
        if least is not None:
            try:
                info = os.fstat(f.fileno())
                if stat.S_ISREG(info.st_mode) and info.st_size >= max(least, 1):
                    mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                    if mapped[:2] != b"\x1f\x8b":
                        return mapped
                    mapped.close()
            except (OSError, ValueError):  # not mappable here: read
                pass
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(f"{path}: not a readable gzip file ({exc})") from None
    return raw


def line_of(raw: Raw, at: int) -> int:
    """The 1-based line number of byte ``at`` (\\n, \\r\\n and a lone \\r end lines)."""
    head = raw[:at]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def fixed_width(data: np.ndarray, first: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The byte strings ``data[first[i]:first[i] + size[i]]`` as one fixed-width
    bytes array (``S`` dtype; no NUL byte inside any of them): copied by the
    kernel's mode -5 from ``GATHER_ROWS`` strings on (fewer by numpy, so that a
    first small call compiles nothing)."""
    width = max(1, int(size.max(initial=1)))
    if first.shape[0] >= GATHER_ROWS:
        n = first.shape[0]
        words = np.zeros((n * width + 7) // 8, np.int64)
        # in a part a thread (each from a multiple of 8 strings: whole words), as the
        # strings lie all over the file: 2 M of a run's ids 0.055-0.068 against
        # 0.14-0.29 s on one thread
        parts = max(1, min(workers.threads(), n // max(GATHER_ROWS, 1)))
        cuts = [n * k // parts // 8 * 8 for k in range(parts)] + [n]

        def part(k: int) -> None:
            lo, hi = cuts[k], cuts[k + 1]
            kernel.trec_pass(-5, data, readonly(np.concatenate([[width, hi - lo], first[lo:hi],
                                                                size[lo:hi]])),
                             NONE, words[lo * width // 8:], NO_REALS)

        workers.parallel_map(part, range(parts), parts)
        return words.view(np.uint8)[:n * width].view(f"S{width}")
    out = np.zeros((first.shape[0], width), np.uint8)
    span = np.arange(width)
    last = data.shape[0] - 1
    for lo in range(0, first.shape[0], CHUNK):
        f, s = first[lo:lo + CHUNK], size[lo:lo + CHUNK]
        take = data[np.minimum(f[:, None] + span, last)]
        take[span >= s[:, None]] = 0
        out[lo:lo + CHUNK] = take
    return out.view(f"S{width}").reshape(-1)


GATHER_ROWS = 1 << 14  # strings from which fixed_width copies them in the kernel


def decoded(path: Any, raw: np.ndarray, distinct: bool = False) -> tuple[
        np.ndarray, np.ndarray, np.ndarray | None]:
    """Distinct ids (their bytes, fixed width: :func:`fixed_width`) sorted as bytes (strcmp's
    order, which for UTF-8 is the order of code points), each one's place in that
    order, and the ids as ``str`` when they are not all ASCII (decoded now, so
    that bytes that are not UTF-8 are refused here; ASCII ids are decoded when
    first asked for). ``distinct``: the ids may repeat (several parts' ids),
    each kept once, the places of equal ones the same."""
    order = bytes_order(raw)
    raw = raw[order]
    place = np.empty(order.shape[0], np.int64)
    if distinct and raw.shape[0] > 1:  # (no id holds a NUL: equal padded bytes, equal ids)
        new = np.ones(raw.shape[0], bool)
        np.not_equal(raw[1:], raw[:-1], out=new[1:])
        place[order] = np.cumsum(new) - 1
        raw = raw[new]
    else:
        place[order] = np.arange(order.shape[0])
    text = None
    if int(raw.view(np.uint8).max(initial=0)) >= 0x80:
        try:
            text = np.array([b.decode("utf-8") for b in raw.tolist()])
        except UnicodeDecodeError as exc:
            raise DataError(f"{path}: an id is not UTF-8 text ({exc})") from None
    return raw, place, text


def values(path: Any, raw: Raw, data: np.ndarray, out: np.ndarray, slow: np.ndarray,
           what: str) -> None:
    """Parse the values the kernel left (``slow``: row, first byte, end) into ``out``
    as C's ``strtod`` reads a whole token (Python's ``float``, less what it reads
    beyond C: digits other than ASCII's, ``_`` between digits); refuse what is not
    a finite number, by line."""
    if slow.shape[0]:
        at, lo, hi = slow[:, 0], slow[:, 1], slow[:, 2]
        texts = fixed_width(data, lo, hi - lo)
        odd = np.flatnonzero(np.char.find(texts, b"_") >= 0)  # numpy's float reads 1_000
        if odd.shape[0]:
            j = int(odd[0])
            t = raw[int(lo[j]):int(hi[j])].decode("utf-8", "replace")
            raise DataError(f"{path}:{line_of(raw, int(lo[j]))}: a {what} is not a number: "
                            f"{t!r}")
        try:
            out[at] = texts.astype(np.float64)
        except ValueError:  # bytes beyond ASCII, say: each read as text, to name it
            for j, (a, b) in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
                t = raw[a:b].decode("utf-8", "replace")
                try:
                    out[at[j]] = c_float(t)
                except ValueError:
                    raise DataError(f"{path}:{line_of(raw, a)}: a {what} is not a "
                                    f"number: {t!r}") from None
        bad = np.flatnonzero(~np.isfinite(out[at]))
        if bad.shape[0]:
            j = int(bad[0])
            t = raw[int(lo[j]):int(hi[j])].decode("utf-8", "replace")
            raise DataError(f"{path}:{line_of(raw, int(lo[j]))}: a {what} is NaN or infinite: "
                            f"{t!r}")


def c_float(text: str) -> float:
    """``text`` read as a number as C's ``strtod`` reads a whole token: Python's
    ``float``, refusing the digits beyond ASCII and the ``_`` between digits that
    it alone reads (ValueError)."""
    if not text.isascii() or "_" in text:
        raise ValueError(text)
    return float(text)


def columns(path: str, width: int, what: str, picks: tuple[int, ...],
            raw: Raw | None = None) -> tuple[list[list[str]], list[int]]:
    """The columns ``picks`` of a whitespace-separated file whose lines hold at least
    ``width`` columns (blank lines and comments, lines from ``#``, skipped), split by
    Python, and each row's line number: the reader of small files. Lines split on C's
    whitespace as trec_eval's do (``bytes.split``: space, tab, vertical tab, form
    feed; not on characters beyond ASCII, as ``str.split`` would).
    Bytes that are not UTF-8 are kept as surrogates (refused where they are read)."""
    data = bytes((raw_bytes(path) if raw is None else raw)[:])
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    counts = np.fromiter((0 if line[:1] == b"#" else len(line.split()) for line in lines),
                         np.int64, len(lines))  # a line from "#": a comment, as in trec_eval
    short = np.flatnonzero((counts > 0) & (counts < width))
    if short.shape[0]:
        i = int(short[0])
        shown = lines[i].strip().decode("utf-8", "replace")
        raise DataError(f"{path}:{i + 1}: a {what} line needs {width} columns; got "
                        f"{counts[i]}: {shown!r}")
    if not (counts > 0).any():
        raise DataError(f"{path}: no {what} lines")
    split = [line.split() for line, c in zip(lines, counts.tolist(), strict=True) if c]
    at = (np.flatnonzero(counts > 0) + 1).tolist()
    return [[r[p].decode("utf-8", "surrogateescape") for r in split] for p in picks], at


def number(path: str, values: list[str], what: str, at: list[int] | None = None) -> np.ndarray:
    """Values read as C's ``strtod`` reads a whole token (:func:`c_float`); what is
    not a finite number refused, by line where ``at`` gives each one's."""
    out = np.empty(len(values), np.float64)
    for j, v in enumerate(values):
        try:
            out[j] = c_float(v)
        except ValueError:
            where = f"{path}:{at[j]}" if at is not None else path
            shown = v.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise DataError(f"{where}: a {what} is not a number: {shown!r}") from None
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.shape[0]:
        j = int(bad[0])
        where = f"{path}:{at[j]}" if at is not None else path
        raise DataError(f"{where}: a {what} is NaN or infinite: {values[j]!r}")
    return out


def coded_text(path: Any, ids: list[str]) -> CodedIds:
    """Ids split by Python as :class:`CodedIds` (numpy's unique codes, their UTF-8
    bytes sorted alike), as the compiled reader gives them."""
    distinct, inverse = np.unique(np.array(ids), return_inverse=True)
    try:
        raw = np.array([t.encode("utf-8") for t in distinct.tolist()], dtype=bytes)
    except UnicodeEncodeError as exc:
        raise DataError(f"{path}: an id is not UTF-8 text ({exc})") from None
    return CodedIds(inverse.reshape(-1).astype(np.int64), distinct, raw)


SMALL = 1 << 20  # files of fewer bytes are split by Python, not by the kernel


def read_table(path: Any, width: int, what: str, picks: tuple[int, int, int],
               value: str, small: int | None = None) -> tuple[Any, Any, np.ndarray, int]:
    """The query ids, document ids (as :class:`CodedIds`) and values (float64) of a
    file whose lines hold ``width`` or more tokens, those three being tokens
    ``picks``; and the first row that lists a document its query listed before
    (-1 when none; -2 when not checked: a file split by Python, or one whose
    queries come back in more runs of rows than twice their number and a few).
    ``what`` and ``value`` name the file's kind and its values in errors. Files
    under ``small`` bytes (default :data:`SMALL`) are split by Python (the same
    results), so that a first call on one compiles no kernel."""
    least = SMALL if small is None else small
    raw = raw_bytes(path, least)
    if len(raw) < least:  # a first small call compiles nothing
        nul = raw.find(b"\x00")
        if nul >= 0:
            raise DataError(f"{path}:{line_of(raw, nul)}: a NUL byte; a {what} file is text")
        (q, d, v), lines = columns(os.fspath(path), width, what, picks, raw)
        del raw
        return coded_text(path, q), coded_text(path, d), number(os.fspath(path), v, value,
                                                                  lines), -2
    if len(raw) >= 1 << 40:  # the kernel keeps byte offsets in 40 bits
        raise DataError(f"{path}: files of a terabyte or more are not read")
    if numpy_reader.wanted(len(raw)):  # a first call compiles no reader
        got = numpy_reader.read(path, raw, width, picks)
        if got is not None:
            return got
    data = np.frombuffer(raw, np.uint8)
    iout, fout, bases, caps, statuses, groups = read_parts(data, width, picks)
    total, starts = fout.shape[0], np.cumsum([0, *caps])
    blocks = [iout[bases[k]:bases[k + 1]] for k in range(len(caps))]
    bad = next((k for k, st in enumerate(statuses) if st != kernel.TEXT_OK), None)
    if bad is not None:
        refuse(path, raw, what, width, statuses[bad], blocks[bad])
    rows = [int(blk[kernel.H_ROWS]) for blk in blocks]
    n = sum(rows)
    if n == 0:
        raise DataError(f"{path}: no {what} lines")
    offsets = np.cumsum([0, *rows])
    region = [lambda r, blk=blk, c=c: blk[kernel.HEAD + r * c:kernel.HEAD + (r + 1) * c]
              for blk, c in zip(blocks, caps, strict=True)]
    # the queries: each part's distinct ones found among all (a query may be in two)
    nqs = [int(blk[kernel.H_NQ]) for blk in blocks]
    qraw, qplace, qtext = decoded(path, fixed_width(
        data, np.concatenate([region[k](kernel.R_QFIRST)[:nqs[k]] for k in range(len(nqs))]),
        np.concatenate([region[k](kernel.R_QSIZE)[:nqs[k]] for k in range(len(nqs))])),
        distinct=len(nqs) > 1)
    qoff = np.cumsum([0, *nqs])
    heads, firsts = [], []
    for k, blk in enumerate(blocks):
        runs = int(blk[kernel.H_RUNS])
        codes_k = region[k](kernel.R_QRUNS)[:runs]
        codes_k[:] = qplace[qoff[k] + codes_k]  # the whole file's codes, for mode -4
        heads.append(codes_k)
        firsts.append(region[k](kernel.R_QSTART)[:runs] + offsets[k])
    # each query's runs together (by code; in the file's order where there are more
    # runs than a run a query and a few), so that one walk checks every query's pairs
    run_codes = np.concatenate(heads)
    walk = np.column_stack([np.repeat(np.arange(len(heads)), [h.shape[0] for h in heads]),
                            np.concatenate([np.arange(h.shape[0]) for h in heads])])
    if run_codes.shape[0] <= 2 * qraw.shape[0] + 64:
        walk = walk[np.argsort(run_codes, kind="stable")]
    first, size = code_documents(data, iout, bases, caps, groups, qraw.shape[0],
                                 walk.reshape(-1))
    twice = int(iout[kernel.H_TWICE])
    dfixed = fixed_width(data, first, size)
    nslow = [int(blk[kernel.H_SLOW]) for blk in blocks]
    slow = np.concatenate([blk[kernel.HEAD + kernel.R_SLOW * c:][:3 * m].reshape(-1, 3)
                           for blk, c, m in zip(blocks, caps, nslow, strict=True)])
    slow[:, 0] += np.repeat(offsets[:-1], nslow)
    if all(rows[k] == caps[k] for k in range(len(blocks) - 1)):  # no blank line: no gaps
        out = fout[:n] if 2 * n >= total else fout[:n].copy()  # (no copy of a file's values)
    else:
        out = np.concatenate([fout[starts[k]:starts[k] + rows[k]] for k in range(len(rows))])
    del fout
    values(path, raw, data, out, slow, value)
    del data, raw  # (a mapped file unmapped before the documents are sorted)
    draw, dplace, dtext = decoded(path, dfixed)
    del dfixed
    dcodes = np.empty(n, np.int64)  # new arrays, so that the scratch goes
    for k in range(len(blocks)):  # each part's gather on every thread
        workers.take(dplace, region[k](kernel.R_DOCS)[:rows[k]],
                     out=dcodes[offsets[k]:offsets[k + 1]])
    runs_q, runs_at = np.concatenate(heads), np.concatenate(firsts)
    keep = np.ones(runs_q.shape[0], bool)  # a query's run cut between two parts is one run
    np.not_equal(runs_q[1:], runs_q[:-1], out=keep[1:])
    runs_q, runs_at = runs_q[keep], runs_at[keep]
    del iout, blocks, region
    queries = CodedIds(None, qtext, qraw, runs=(runs_at, runs_q, n))  # rows' codes made if asked
    return queries, CodedIds(dcodes, dtext, draw), out, twice


PART_BYTES = 1 << 24  # a file is read in parts of this many bytes at least, one per thread
NONE = readonly(np.empty(0, np.float64))
NO_INTS = np.empty(0, np.int64)
NO_REALS = np.empty(0, np.float64)


def read_parts(data: np.ndarray, width: int, picks: tuple[int, int, int]) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, list[int], list[int], int]:
    """A file's bytes read in parts (:func:`parts_of`), one thread each, by the
    kernel's modes -3 and 0: the scratch for modes -2 and -4 (their header and
    regions, then the parts' blocks), the values, where each part's block starts
    (and the end), each part's ``cap`` (lines at most) and its status, and the
    number of groups its documents fall in (one a part)."""
    spans = list(itertools.pairwise(parts_of(data, workers.threads())))
    groups = min(len(spans), kernel.GROUPS)
    caps = workers.parallel_map(  # each part's lines at most (the last may end unended)
        lambda s: int(kernel.trec_pass(-3, data, readonly(np.array(s, np.int64)), NONE,
                                       NO_INTS, NO_REALS)) + int(s[1] == data.shape[0]),
        spans, len(spans))
    total = sum(caps)
    bases = np.cumsum([kernel.LOADS + 2 * total] + [kernel.HEAD + kernel.REGIONS * c + groups
                                                    for c in caps])
    iout = np.empty(int(bases[-1]), np.int64)
    fout = np.empty(total, np.float64)
    starts = np.cumsum([0, *caps])
    blocks = [iout[bases[k]:bases[k + 1]] for k in range(len(spans))]

    def part(k: int) -> int:
        ints = readonly(np.array([width, *picks, caps[k], 0, *spans[k], groups], np.int64))
        return int(kernel.trec_pass(0, data, ints, NONE, blocks[k],
                                    fout[starts[k]:starts[k + 1]]))

    statuses = workers.parallel_map(part, range(len(spans)), len(spans))
    return iout, fout, bases, caps, statuses, groups


def code_documents(data: np.ndarray, iout: np.ndarray, bases: np.ndarray, caps: list[int],
                   groups: int, nq: int, walk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The documents of the parts :func:`read_parts` read, coded by group, one
    thread each (the kernel's mode -2), then as codes among all (mode -4, which
    also writes whether a query lists a document twice, walking the runs of one
    query in the order ``walk`` gives as (part, run) pairs): each distinct
    document's first byte and length."""
    parts, total = len(caps), int(bases[0] - kernel.LOADS) // 2
    layout = np.column_stack([bases[:-1], caps]).reshape(-1)
    sizes = np.zeros(groups, np.int64)
    for k in range(parts):
        at = int(bases[k]) + kernel.HEAD + kernel.REGIONS * caps[k]
        sizes += iout[at:at + groups]
    starts = np.cumsum(sizes) - sizes
    found = workers.parallel_map(lambda g: int(kernel.trec_pass(
        -2, data, readonly(np.array([parts, g, groups, starts[g], sizes[g], total, *layout],
                                    np.int64)), NONE, iout, NO_REALS)), range(groups), groups)
    nd = np.array(found, np.int64)
    first = np.cumsum(nd) - nd
    kernel.trec_pass(-4, data, readonly(np.concatenate([[parts, nq, int(nd.sum()), groups],
                                                        layout, first, walk])),
                     NONE, iout, NO_REALS)
    head = kernel.LOADS
    return (np.concatenate([iout[head + s:head + s + m] for s, m in zip(starts, nd,
                                                                          strict=True)]),
            np.concatenate([iout[head + total + s:head + total + s + m]
                            for s, m in zip(starts, nd, strict=True)]))


def parts_of(raw: np.ndarray, threads: int) -> list[int]:
    """Where the parts of a file start, and its end: up to ``threads`` parts of
    about equal size, each of whole lines (cut after a line feed), none under
    :data:`PART_BYTES`."""
    size = raw.shape[0]
    parts = max(1, min(threads, size // PART_BYTES))
    cuts = [0]
    for k in range(1, parts):
        at = size * k // parts
        ends = np.flatnonzero(raw[at:at + (1 << 20)] == 10)  # the next line end within 1 MB
        if ends.shape[0] and cuts[-1] < at + int(ends[0]) + 1 < size:
            cuts.append(at + int(ends[0]) + 1)
    cuts.append(size)
    return cuts


def refuse(path: Any, raw: Raw, what: str, width: int, status: int,
           block: np.ndarray) -> NoReturn:
    """Raise the data error of a part's bad status."""
    if status == kernel.TEXT_NUL:
        raise DataError(f"{path}:{line_of(raw, int(block[kernel.H_AT]))}: a NUL byte; a "
                        f"{what} file is text")
    if status == kernel.TEXT_SHORT:
        at = int(block[kernel.H_AT])
        end = min((j for j in (raw.find(b"\n", at), raw.find(b"\r", at)) if j >= 0),
                  default=len(raw))
        line = raw[at:end].decode("utf-8", "replace").strip()
        raise DataError(f"{path}:{line_of(raw, at)}: a {what} line needs {width} "
                        f"columns; got {block[kernel.H_COLS]}: {line!r}")
    raise AssertionError(f"the reader's status {status}")  # (it has no other)


def read_run(path: str) -> tuple[Any, Any, np.ndarray]:
    """A TREC run file (plain or gzipped) as ``(qids, docids, scores)``.

    Each line: ``qid Q0 docid rank score tag``. The ids come as
    :class:`~fastrank.trec.CodedIds` (arrays of ``str`` held as codes), the
    scores as float64, each decimal token correctly rounded as C's ``strtod``
    reads it (a token that is not wholly a decimal number, such as ``0x10`` or
    ``1.5abc``, which trec_eval's ``atof`` reads in part, is refused, naming its
    line). A line whose first byte is ``#`` is a comment, skipped as trec_eval
    10 skips it (in qrels too). Columns are split on C's whitespace, as trec_eval
    splits them (a no-break space is part of an id). A
    document listed twice for one query is a data error, named by the first line
    that repeats it.

    A plain file of 1 MB or more is mapped into memory while it is read (in
    parts, one per thread, as many as Numba is set to): it must not be truncated
    meanwhile.
    """
    qids, docs, scores, twice = read_table(path, 5, "run", (0, 2, 4), "score")
    if twice == -2:
        if isinstance(qids, CodedIds):
            qc, dc = qids.codes, docs.codes
        else:
            qc = rows(codes(qids)[1][0], qids.shape[0])
            dc = rows(codes(docs)[1][0], docs.shape[0])
        found = repeated(qc, dc)
        twice = -1 if found is None else found
    if twice >= 0:
        raise DataError(f"{path}: query {qids[twice]} lists document {docs[twice]} more than "
                        "once")
    return qids, docs, scores


def read_qrels(path: str) -> tuple[Any, Any, np.ndarray]:
    """A TREC qrels file (plain or gzipped) as ``(qids, docids, relevance)``.

    Each line: ``qid iter docid relevance``; relevance 1 and above is relevant
    (0 and negative grades are judged not relevant). The ids come as
    :class:`~fastrank.trec.CodedIds`, the grades as float64 integers, read as
    trec_eval reads them (C's ``atol``): the integer each starts with, so that
    1.5 is 1 and -1.5 is -1, and every measure and relstring is trec_eval's on
    such files (a grade in exponent notation is the one difference: 1e1 is 10,
    where ``atol`` stops at the ``e``). Lines from ``#`` are comments, skipped.
    """
    qids, docs, rel, twice = read_table(path, 4, "qrels", (0, 2, 3), "relevance")
    if twice == -1 and isinstance(docs, CodedIds):  # checked by the reader: not again
        docs._pairs_checked_with = qids
    np.trunc(rel, out=rel)
    rel += 0.0  # (-0.5 is 0, not -0.0)
    return qids, docs, rel
