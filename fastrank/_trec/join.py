"""The qrels' and the run's ids joined as integer codes, once per call, and the
run's rows put in trec_eval's order of ties, with integer keys.

Query ids become codes into their sorted union (the run's as runs of one query);
document ids become int64 keys that are equal where the ids are, and, for
trec_eval's order, each key's rank among the distinct ids as strcmp orders them
(numpy's order of ``str`` is the same code point order). A file's ids arrive as
codes into their sorted distinct values (:class:`CodedIds`), so only distinct
ids are compared: the qrels' found among the run's by a binary search. Arrays of
ids of at most 8 characters are packed into integers that already sort as the
text does; longer ones (and an array joined with a file's ids) are coded as a
file's are, by a hash of their code points in the file reader's kernel
(:func:`hashed`), so that again only the distinct ids are sorted. Each query's
rows are then ordered by (score, rank) in a kernel, not by one sort of every
row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import workers
from .._core.inputs import readonly
from .._kernels import text as kernel
from . import ids
from .files import bytes_order
from .ids import CodedIds, codes, doc_keys, rows, sortable

SIGN = np.int64(-(2**63))


def hashed(ids: np.ndarray) -> CodedIds | None:
    """Text ids coded through the file reader's hash tables, read as the array's
    fixed-width records of code points (no bytes made first), and only the
    distinct ids sorted: codes as ``np.unique``'s inverse, and the sorted ids'
    bytes where all are ASCII (as a file's). None for arrays not of ``str`` or
    empty (coded otherwise)."""
    n = ids.shape[0]
    if ids.dtype.kind != "U" or n == 0 or ids.dtype.itemsize == 0:
        return None
    arr = np.ascontiguousarray(ids, dtype=ids.dtype.newbyteorder("="))
    w = arr.dtype.itemsize
    iout = np.empty(kernel.HEAD + 2 * n, np.int64)
    fout = np.empty(0, np.float64)
    ints = readonly(np.array([w, n], np.int64))
    kernel.trec_pass(-1, readonly(arr.view(np.uint8).reshape(-1)), ints, readonly(fout), iout,
                     fout)
    nd = int(iout[kernel.H_ND])
    distinct = arr[iout[kernel.HEAD + n:kernel.HEAD + n + nd] // (w // 4)]
    keys = sortable(distinct)
    order = text_order(distinct, keys)
    place = np.empty(nd, np.int64)
    place[order] = np.arange(nd)
    codes = place[iout[kernel.HEAD:kernel.HEAD + n]]
    del iout
    distinct = distinct[order]
    raw = None  # ASCII ids: their bytes are their UTF-8, as a file's
    if keys.dtype.kind == "S" and int(keys.view(np.uint8).max(initial=0)) < 0x80:
        raw = keys[order]
    elif keys.dtype.kind != "S" and int(distinct.view(np.uint32).max(initial=0)) < 0x80:
        raw = distinct.view(np.uint32).astype(np.uint8).view(f"S{max(1, w // 4)}").reshape(-1)
    return CodedIds(codes, distinct, raw)


def text_order(distinct: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
    """The order of distinct ``str`` ids by code point (numpy's order of ``str``,
    strcmp's of their UTF-8 bytes), sorting the cheapest keys that keep it: one
    integer each for ids of at most 8 characters below 256 (:func:`sortable`),
    two for up to 16, else their bytes or the strings (``keys``: those of
    :func:`sortable`, when already made)."""
    keys = sortable(distinct) if keys is None else keys
    return bytes_order(keys) if keys.dtype.kind == "S" else np.argsort(keys, kind="stable")


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
    if long_text(jq, rq):  # coded by their hash, only the distinct ids sorted
        a, b = hashed(jq), hashed(rq)
        if a is not None and b is not None:
            q_all, jqc, rqc = union(a, b)
            return q_all, jqc, runs_of(rqc)
    jq, rq = (np.asarray(x) for x in (jq, rq))
    q_all, (jruns, rruns) = codes(jq, rq)
    return q_all, rows(jruns, jq.shape[0]), rruns


def documents(jd: Any, rd: Any, trec: bool) -> tuple[np.ndarray, np.ndarray,
                                                       Callable[[np.ndarray], np.ndarray]]:
    """Document keys of the qrels and the run (int64, equal where the ids are), and a
    function from keys to their ids' rank in strcmp's order (``trec``: only then is
    it meaningful; otherwise the keys need only be equal where the ids are)."""
    if isinstance(jd, CodedIds) != isinstance(rd, CodedIds) and \
            jd.shape[0] + rd.shape[0] < ids.SMALL_ROWS:  # a few: as arrays, by numpy
        jd, rd = (np.asarray(x) for x in (jd, rd))
    if isinstance(jd, CodedIds) != isinstance(rd, CodedIds) or long_text(jd, rd):
        # a file's ids and an array, or arrays of text ids longer than 8 characters:
        # coded by the hash of their code points, only the distinct ids sorted
        pair = [x if isinstance(x, CodedIds) else hashed(x) for x in (jd, rd)]
        if pair[0] is None or pair[1] is None:  # not str, or empty: as arrays
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


def long_text(jd: Any, rd: Any) -> bool:
    """Whether both are arrays of ``str`` of which one is wider than 8 characters
    (its dtype's width), or holds a character from 256 on: not packed into one
    integer each (:func:`sortable`), so coded by :func:`hashed`; not under
    ``ids.SMALL_ROWS`` ids in all (numpy's sort: a first call compiles nothing)."""
    if isinstance(jd, CodedIds) or isinstance(rd, CodedIds) or jd.dtype.kind != "U" or \
            rd.dtype.kind != "U" or jd.shape[0] + rd.shape[0] < ids.SMALL_ROWS:
        return False
    return max(jd.dtype.itemsize, rd.dtype.itemsize) > 32 or not packable(jd, rd)


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
