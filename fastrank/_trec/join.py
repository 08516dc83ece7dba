"""The qrels' and the run's ids joined as integer codes, once per call, and the
run's rows put in trec_eval's order of ties, with integer keys.

Query ids become codes into their sorted union (the run's as runs of one query);
document ids become int64 keys that are equal where the ids are, and, for
trec_eval's order, each key's rank among the distinct ids as strcmp orders them
(numpy's order of ``str`` is the same code point order). A file's ids arrive as
codes into their sorted distinct values (:class:`CodedIds`), so only distinct
ids are compared: the qrels' found among the run's by a binary search. Arrays of
ids of at most 8 characters are packed into integers that already sort as the
text does; longer ones are coded by numpy's sort of their bytes (hashing them as
a file's ids are, :func:`hashed`, measured slower from numpy's 4 bytes a
character, and serves to join a file's ids with an array's). Each query's rows
are then ordered by (score, rank) in a kernel, not by one sort of every row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import workers
from .._core.inputs import readonly
from .._kernels import text as kernel
from .ids import CodedIds, codes, doc_keys, rows, sortable

SIGN = np.int64(-(2**63))
BLANK = 32  # a space: what pads ids handed to the file reader as one id a line


def hashed(ids: np.ndarray) -> CodedIds | None:
    """Text ids coded through the file reader's hash of their bytes (one id a line,
    padded with spaces): None where that cannot read them as they are (an id
    holding whitespace or NUL, an empty id, or characters beyond ASCII, whose
    UTF-8 bytes would first have to be made)."""
    n = ids.shape[0]
    if ids.dtype.kind != "U" or n == 0 or ids.dtype.itemsize == 0:
        return None
    width = ids.dtype.itemsize // 4
    points = np.ascontiguousarray(ids).view(np.uint32).reshape(n, width)
    table = np.empty((n, width + 1), np.uint8)
    bad = False
    for lo in range(0, n, 1 << 18):  # by parts: no n x width temporary beyond the table
        p = points[lo:lo + (1 << 18)]
        if int(p.max(initial=0)) >= 0x80 or bool((p[:, 0] == 0).any()):
            bad = True
            break
        b = p.astype(np.uint8)
        if bool(((b <= 32) & (b != 0)).any()) or bool(((b[:, :-1] == 0) & (b[:, 1:] != 0)).any()):
            bad = True  # whitespace, control characters or NUL inside an id
            break
        b[b == 0] = BLANK
        table[lo:lo + (1 << 18), :width] = b
    if bad:
        return None
    table[:, width] = 10
    data = readonly(table.reshape(-1))
    cap = n + 1
    iout = np.empty(kernel.HEAD + 9 * cap, np.int64)
    fout = np.empty(cap, np.float64)
    ints = readonly(np.array([1, 0, 0, 0, cap, 3], np.int64))  # ids alone: no values, queries
    status = kernel.trec_pass(0, data, ints, readonly(fout[:0]), iout, fout)
    if status != kernel.TEXT_OK or int(iout[kernel.H_ROWS]) != n:
        return None
    from .files import decoded  # the files module reads with this module's codes

    nd = int(iout[kernel.H_ND])
    base = kernel.HEAD
    raw, place, _ = decoded("ids", data, iout[base + 7 * cap:base + 7 * cap + nd],
                            iout[base + 8 * cap:base + 8 * cap + nd])
    return CodedIds(place[iout[base + cap:base + cap + n]], raw.astype(ids.dtype), raw)


def union(a: CodedIds, b: CodedIds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted distinct ids of two coded columns, and each one's rows' codes in
    them (the distinct values alone are sorted)."""
    both, (ra, rb) = codes(a.distinct, b.distinct)
    ma = rows(ra, a.distinct.shape[0])
    mb = rows(rb, b.distinct.shape[0])
    return both, ma[a.codes], mb[b.codes]


def joined(a: CodedIds, b: CodedIds) -> tuple[np.ndarray, np.ndarray]:
    """Keys of two coded columns, equal where the ids are: ``b``'s codes as they are
    (their order is the ids' order), and ``a``'s ids found in ``b``'s distinct ids
    by a binary search of the sorted distinct values (no row's id is compared);
    those not found numbered from ``b``'s count on."""
    x, y = a.sorted_bytes(), b.sorted_bytes()
    if x.dtype.kind != y.dtype.kind:
        x, y = a.distinct, b.distinct
    at = np.searchsorted(y, x)
    found = y[np.minimum(at, max(0, y.shape[0] - 1))] == x if y.shape[0] else \
        np.zeros(x.shape[0], bool)
    code = np.where(found, at, y.shape[0] + np.cumsum(~found) - 1)
    return code[a.codes], b.codes


def runs_of(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes as runs of one code: where each starts, and its code."""
    new = np.ones(c.shape[0], bool)
    np.not_equal(c[1:], c[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    return starts, c[starts]


def queries(jq: Any, rq: Any) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The judged and run query ids' sorted union, each qrels row's code in it, and
    the run as runs of one query (where each starts, its code)."""
    if isinstance(jq, CodedIds) and isinstance(rq, CodedIds):
        q_all, jqc, rqc = union(jq, rq)
        return q_all, jqc, runs_of(rqc)
    jq, rq = (np.asarray(x) for x in (jq, rq))
    q_all, (jruns, rruns) = codes(jq, rq)
    return q_all, rows(jruns, jq.shape[0]), rruns


def documents(jd: Any, rd: Any, trec: bool) -> tuple[np.ndarray, np.ndarray,
                                                       Callable[[np.ndarray], np.ndarray]]:
    """Document keys of the qrels and the run (int64, equal where the ids are), and a
    function from keys to their ids' rank in strcmp's order (``trec``: only then is
    it meaningful; otherwise the keys need only be equal where the ids are)."""
    if isinstance(jd, CodedIds) != isinstance(rd, CodedIds):  # a file's ids and an array
        # (arrays of both are coded by numpy's sort of their keys: on 10 M ids of 13
        # characters that took 7.3 s where hashing them took 11.6 s, most of it
        # making their bytes from numpy's 4 bytes a character)
        pair = [x if isinstance(x, CodedIds) else hashed(x) for x in (jd, rd)]
        if pair[0] is None or pair[1] is None:  # not hashed as they are: as arrays
            jd, rd = (np.asarray(x) for x in (jd, rd))
        else:
            jd, rd = pair
    if isinstance(jd, CodedIds) and isinstance(rd, CodedIds):
        jdk, rdk = joined(jd, rd)
        return jdk, rdk, same  # the run's codes: ranks already
    if not trec:
        jdk, rdk = doc_keys(jd, rd)
        return jdk, rdk, same
    if jd.dtype.kind == "U" and rd.dtype.kind == "U" and packable(jd, rd):
        jdk, rdk = doc_keys(jd, rd)
        return jdk, rdk, flip  # packed text: the unsigned order of the bits is strcmp's
    return coded_ranks(jd, rd)


def packable(jd: np.ndarray, rd: np.ndarray) -> bool:
    """Whether both text columns pack into uint64 keys (at most 8 characters, each
    below 256)."""
    return all(sortable(x).dtype == np.uint64 for x in (jd, rd) if x.shape[0])


def coded_ranks(jd: np.ndarray, rd: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                         Callable[[np.ndarray], np.ndarray]]:
    """Codes of the sorted distinct ids (integers too, whose text order trec_eval
    uses: 10 before 7), and their ranks as text."""
    d_all, druns = codes(jd, rd)
    jdk, rdk = (rows(runs, x.shape[0]) for runs, x in zip(druns, (jd, rd), strict=True))
    if d_all.dtype.kind in "US":
        return jdk, rdk, same
    by_text = np.empty(d_all.shape[0], np.int64)
    by_text[np.argsort(d_all.astype(str), kind="stable")] = np.arange(d_all.shape[0])
    return jdk, rdk, by_text.__getitem__


def same(keys: np.ndarray) -> np.ndarray:
    return keys


def flip(keys: np.ndarray) -> np.ndarray:
    """int64 views of uint64 keys, in the keys' unsigned order."""
    return keys ^ SIGN


KERNEL_ROWS = 100_000  # fewer rows are ordered by numpy: a first small call compiles nothing


def trec_order(starts: np.ndarray, ends: np.ndarray, keys: np.ndarray, scores: np.ndarray,
               kernel_rows: int = KERNEL_ROWS) -> np.ndarray:
    """Each run row's place when every query's rows (``starts[i]:ends[i]``) are
    ordered by score, then by document rank ``keys`` (trec_eval's order read from
    the bottom: it ranks by score decreasing, then docid decreasing), as float64
    values with no ties within a query. From ``kernel_rows`` rows on, query by
    query in a kernel (the queries shared among threads); below, by one numpy
    sort of all the rows (the same order within each query)."""
    n = scores.shape[0]
    if n < kernel_rows:
        out = np.zeros(n, np.float64)
        out[np.lexsort((keys, scores))] = np.arange(n, dtype=np.float64)
        return out
    out = np.zeros(n, np.float64)  # rows of no query listed stay 0 (and are not read)
    scratch = np.empty(n, np.int64)
    reals = readonly(np.ascontiguousarray(scores, np.float64))
    nb = starts.shape[0]
    parts = max(1, min(workers.threads(), nb // 64))
    cuts = np.linspace(0, nb, parts + 1).astype(np.int64)
    ints = readonly(np.concatenate(([nb, parts], cuts, starts, ends, keys)).astype(np.int64))
    data = ints[:0].view(np.uint8)

    def part(j: int) -> None:
        kernel.trec_pass(1 + j, data, ints, reals, scratch, out)

    workers.parallel_map(part, range(parts), parts)
    return out


__all__ = ["CodedIds", "documents", "hashed", "queries", "trec_order"]
