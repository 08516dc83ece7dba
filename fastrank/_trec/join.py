"""The qrels' and the run's ids joined as integer codes, once per call, and the
run's rows put in trec_eval's order of ties, with integer keys.

Query ids become codes into their sorted union (the run's as runs of one query);
document ids become int64 keys that are equal where the ids are, and, for
trec_eval's order, each key's rank among the distinct ids as strcmp orders them
(numpy's order of ``str`` is the same code point order). A file's ids arrive as
codes into their sorted distinct values (:class:`CodedIds`), so only distinct
ids are compared: the qrels' found among the run's by a binary search.

Large arrays of ``str`` ids are coded in the kernel's mode -1 (:func:`records`):
the qrels' and the run's column through one hash table, read as fixed-width
records of code points (no bytes or Python strings made), the distinct ids
numbered by first occurrence; large columns of document ids of at most 16
characters by group, a table a group, on several threads (:func:`grouped_records`).
The query ids of a run and of its qrels come in runs of one query, so only each
run's first row is coded (:func:`run_starts`). Only
the distinct ids are then sorted: the few query ids by numpy, the document ids
only for trec_eval's order (under the other tie rules equal keys suffice), from
the 16 bytes the kernel keeps of each (:func:`word_order`). Document ids of at
most 8 characters are packed into integers that already sort as the text does.
Integer document ids are their own keys; for trec_eval's order the distinct ones
are ranked as their decimal text sorts (:func:`int_text_order`: 10 before 7),
found through a table of their range or the hash table. The queries and the
documents are coded on two threads. Each query's rows are then ordered by
(score, rank) in a kernel, not by one sort of every row.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import codec, first_calls, sorting, workers
from .._core.inputs import readonly
from .._kernels import id_groups
from .._kernels import text as kernel
from .._kernels.jit import SIGNATURES
from . import ids, numpy_reader
from .files import NO_REALS
from .ids import CodedIds, bytes_order, codes, doc_keys, rows, sortable

SIGN = np.int64(-(2**63))


def native(ids: np.ndarray) -> np.ndarray:
    """Ids as the kernel reads them: contiguous, in native byte order; ``str`` as
    they are, integers as int64 (uint64 kept, its bits read alike)."""
    if ids.dtype.kind == "U":
        return np.ascontiguousarray(ids, dtype=ids.dtype.newbyteorder("="))
    if ids.dtype == np.uint64:
        return np.ascontiguousarray(ids, dtype=np.uint64)
    return np.ascontiguousarray(ids, dtype=np.int64)


def as_reals(ids: np.ndarray) -> np.ndarray:
    """The bytes of ``ids`` (native, contiguous) as float64, the kernel's second
    input: a view where they fill whole aligned 8-byte words, else a zero-padded
    copy."""
    raw = ids.view(np.uint8).reshape(-1)
    if raw.shape[0] % 8 == 0 and raw.ctypes.data % 8 == 0:
        return raw.view(np.float64)
    out = np.zeros((raw.shape[0] + 7) // 8, np.float64)
    out.view(np.uint8)[:raw.shape[0]] = raw
    return out


TABLE_SLOTS = 1 << 22  # the most slots of a first hash table (128 MB), grown past that
# coded ids: each row's code in each array, each distinct id's first row, its words, and
# how many are not whole in them (records, grouped_records)
Coded = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, int]


def records(a: np.ndarray, b: np.ndarray | None = None, words: bool = False) -> Coded:
    """Ids of one or two arrays (``str`` of any widths, or int64) coded together
    through one hash table in the kernel (mode -1): each row's code in each array
    (the distinct ids numbered by first occurrence, ``a``'s rows first), each
    distinct id's first row (``b``'s rows numbered after ``a``'s), with ``words``
    each one's two words (uint64; its code points as little-endian bytes where
    every distinct id is at most 16 characters below 256), and how many are not."""
    a = native(a)
    b = a[:0] if b is None else native(b)
    na, nb = a.shape[0], b.shape[0]
    total = na + nb
    iout = np.empty(kernel.HEAD + (4 if words else 2) * total, np.int64)
    ints = readonly(np.array([a.dtype.itemsize, na, b.dtype.itemsize, nb,
                              2 * int(words)], np.int64))
    slots = 1024  # about a third of the rows
    while 3 * slots < total and slots < TABLE_SLOTS:
        slots *= 2
    # the table made here, where numpy asks the system for larger pages (fewer
    # misses of the translation cache), and only grown in the kernel
    table = np.full(4 * slots, -1, np.int64).view(np.float64) if slots > 1024 else \
        np.empty(0, np.float64)
    kernel.trec_arrays(-1, readonly(a.view(np.uint8).reshape(-1)), ints, readonly(as_reals(b)),
                       iout, table)
    nd = int(iout[kernel.H_ND])
    head = kernel.HEAD
    first = iout[head + total:head + total + nd]
    kept = iout[head + 2 * total:head + 2 * total + 2 * nd].view(np.uint64).reshape(nd, 2) \
        if words else None
    return (iout[head:head + na], iout[head + na:head + total], first, kept,
            int(iout[kernel.H_WIDE]))


GROUPED_ROWS = 1 << 20  # document ids from which they are coded by group (id_groups)
GROUPED_PART = 1 << 18  # the fewest rows a thread takes in those passes


def grouped_records(a: np.ndarray, b: np.ndarray) -> Coded | None:
    """:func:`records` of two ``str`` arrays with ``words``, coded by group
    (:func:`~fastrank._kernels.id_groups.trec_groups`) on every thread
    of the call: the same partition of the rows into distinct ids, each distinct
    id's first row and words, numbered by group (not by first occurrence). None
    where an id is not whole in two words (beyond 16 characters, or one from 256
    on): :func:`records` then codes them through one table."""
    a, b = native(a), native(b)
    na, nb = a.shape[0], b.shape[0]
    total = na + nb
    groups = id_groups.ID_GROUPS
    parts = max(1, min(workers.threads(), total // GROUPED_PART))
    cuts = [total * k // parts for k in range(parts + 1)]
    data = readonly(a.view(np.uint8).reshape(-1))
    reals = readonly(as_reals(b))
    head = [a.dtype.itemsize, na, b.dtype.itemsize, nb]
    iout = np.empty(kernel.HEAD + 3 * total, np.int64)  # codes, then the words region
    counts = np.zeros((parts, groups), np.int64)

    def call(mode: int, ints: list[Any] | np.ndarray, fout: np.ndarray) -> int:
        return int(id_groups.trec_groups(mode, data, readonly(np.asarray(ints, np.int64)),
                                         reals, iout, fout))

    def span(k: int) -> list[int]:
        return [*head, cuts[k], cuts[k + 1]]

    misfit = workers.parallel_map(
        lambda k: call(id_groups.GROUP, span(k), counts[k].view(np.float64)), range(parts), parts)
    if max(misfit) >= 0:
        return None
    sizes = counts.sum(axis=0)
    starts = np.zeros(groups + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    at = starts[:-1] + np.cumsum(counts, axis=0) - counts  # each part's first place per group
    workers.parallel_map(
        lambda k: call(id_groups.SCATTER, np.concatenate([span(k), at[k]]), NO_REALS),
        range(parts), parts)
    local = np.empty((total + groups + 1) // 2, np.float64)  # int32 bits (see CODE)
    bounds = np.linspace(0, groups, min(groups, 4 * parts) + 1).astype(np.int64)
    workers.parallel_map(
        lambda k: call(id_groups.CODE, np.concatenate([head, bounds[k:k + 2], starts]),
                       local), range(bounds.shape[0] - 1), parts)
    found = local.view(np.int32)[total:total + groups].astype(np.int64)
    first_code = np.zeros(groups + 1, np.int64)
    np.cumsum(found, out=first_code[1:])
    nd = int(first_code[-1])
    head_at = kernel.HEAD
    held = iout[head_at + total:].reshape(total, 2)
    words = np.empty((nd, 2), np.int64)  # each group's distinct ids' words, by code
    for g in range(groups):
        words[first_code[g]:first_code[g + 1]] = held[starts[g]:starts[g] + found[g]]
    workers.parallel_map(
        lambda k: call(id_groups.NUMBER, np.concatenate([span(k), at[k], first_code[:-1]]),
                       local), range(parts), parts)
    codes = iout[head_at:head_at + total].copy()  # so that the work buffer goes now
    return (codes[:na], codes[na:], iout[head_at + total:head_at + total + nd].copy(),
            words.view(np.uint64), 0)


def gathered(a: np.ndarray, b: np.ndarray | None, first: np.ndarray) -> np.ndarray:
    """The ids at rows ``first`` of ``a`` followed by ``b`` (``str`` arrays: in the
    wider of their widths)."""
    if b is None or b.shape[0] == 0:
        out: np.ndarray = a[first]
        return out
    na = a.shape[0]
    out = np.empty(first.shape[0], np.result_type(a.dtype, b.dtype))
    mine = first < na
    out[mine] = a[first[mine]]
    out[~mine] = b[first[~mine] - na]
    return out


def word_keys(words: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Keys of distinct ids of at most 16 characters below 256 from their two
    little-endian words of bytes (:func:`records`) that sort as strcmp sorts the
    ids (their words read big-endian), as one uint64 each, or two (sorted by the
    first, then the second) where one does not hold them: the leading bits every
    id shares are dropped, so that ids that differ only in their last 8 bytes (or
    fewer) are one integer each."""
    hi = words[:, 0].byteswap()
    lo = words[:, 1].byteswap()
    if hi.shape[0] == 0:
        return hi, None
    spread = int(np.bitwise_or.reduce(hi ^ hi[0]))
    if spread == 0:  # the first 8 bytes shared: the rest alone
        return lo, None
    s = 64 - spread.bit_length()  # bits every id shares, from the top
    if s:
        hi = (hi << np.uint64(s)) | (lo >> np.uint64(64 - s))
        lo = lo << np.uint64(s)
    return (hi, None) if not lo.any() else (hi, lo)


def word_order(words: np.ndarray) -> np.ndarray:
    """The order of distinct ids by strcmp from the kernel's words (:func:`word_keys`)."""
    hi, lo = word_keys(words)
    if lo is None:
        return np.argsort(hi)  # distinct ids: distinct keys, any sort
    return np.lexsort((lo, hi))


POW10 = np.array([10 ** k for k in range(20)], np.uint64)  # 1 .. 10**19


def int_text_keys(values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Keys of integers (signed or unsigned) that sort as their decimal text sorts
    by strcmp, trec_eval's order: a minus sign before every digit, a prefix before
    the longer ids (10 before 7, -1 before -10). Each id's digits are read as a
    number left-aligned to 19 digits, then by its length (20-digit ids: the 19
    first, then the last). One uint64 each where every id is from 0 to 10**17
    (17 digits, shifted up, and the length); else keys for ``np.lexsort``."""
    if values.dtype.kind == "u":
        mag = values.astype(np.uint64)
        neg = None
    else:
        v = values.astype(np.int64)
        neg = v < 0
        mag = np.where(neg, (~v).view(np.uint64) + np.uint64(1), v.view(np.uint64))
        if not neg.any():
            neg = None
    digits = np.maximum(np.searchsorted(POW10, mag, side="right"), 1)
    if neg is None and (mag.shape[0] == 0 or int(mag.max()) < 10 ** 17):
        return ((mag * POW10[17 - digits]) << np.uint64(7) | digits.astype(np.uint64),)
    long = digits == 20
    aligned = np.where(long, mag // np.uint64(10), mag * POW10[np.where(long, 0, 19 - digits)])
    tie = np.where(long, 20 + (mag % np.uint64(10)).astype(np.int64), digits)
    return (tie, aligned) if neg is None else (tie, aligned, ~neg)


def int_text_order(values: np.ndarray) -> np.ndarray:
    """The order of distinct integers as their decimal text sorts (:func:`int_text_keys`)."""
    keys = int_text_keys(values)
    return np.argsort(keys[0]) if len(keys) == 1 else np.lexsort(keys)


def text_ranks(values: np.ndarray) -> np.ndarray:
    """int64 values of distinct integers in the order of their decimal text: their
    one key (the sign bit flipped, so that int64 compares as the uint64 keys do),
    else their rank."""
    keys = int_text_keys(values)
    if len(keys) == 1:
        out: np.ndarray = keys[0].view(np.int64) ^ SIGN
        return out
    rank = np.empty(values.shape[0], np.int64)
    rank[np.lexsort(keys)] = np.arange(values.shape[0])
    return rank


def int_ranks(keys: np.ndarray, unsigned: bool) -> np.ndarray:
    """int64 values of integer keys that order them as their decimal text sorts
    (:func:`text_ranks`; ``unsigned``: the keys are uint64 bits), made for the
    distinct keys only: found through a table of the keys' range where it is
    narrow, else through the hash table."""
    vals = keys.view(np.uint64) if unsigned else keys
    if keys.shape[0] == 0:
        return np.zeros(0, np.int64)
    lo, hi = vals.min(), vals.max()
    span = int(hi) - int(lo) + 1
    if span <= 2 * keys.shape[0] + 1024:
        at = (vals - lo).astype(np.int64)
        present = np.zeros(span, bool)
        present[at] = True
        held = np.flatnonzero(present)
        table = np.zeros(span, np.int64)
        table[held] = text_ranks(held.astype(vals.dtype) + lo)
        ranks: np.ndarray = workers.take(table, at)
        return ranks
    codes, _, first, _, _ = records(vals)
    ranked: np.ndarray = workers.take(text_ranks(vals[first]), codes)
    return ranked


def hashed(ids: np.ndarray) -> CodedIds | None:
    """Text ids coded through the kernel's hash table, read as the array's
    fixed-width records of code points (no bytes made first), and only the
    distinct ids sorted: codes as ``np.unique``'s inverse, and the sorted ids'
    bytes where all are ASCII (as a file's). None for arrays not of ``str`` or
    empty (coded otherwise)."""
    n = ids.shape[0]
    if ids.dtype.kind != "U" or n == 0 or ids.dtype.itemsize == 0:
        return None
    arr = native(ids)
    w = arr.dtype.itemsize
    codes, _, first, _, _ = records(arr)
    distinct = arr[first]
    keys = sortable(distinct)
    order = text_order(distinct, keys)
    place = np.empty(first.shape[0], np.int64)
    place[order] = np.arange(first.shape[0])
    codes = place[codes]
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


def union(a: CodedIds, b: CodedIds, b_codes: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted distinct ids of two coded columns, and each one's rows' codes in
    them (the distinct values alone are sorted); ``b_codes``: codes of ``b`` to map
    in place of its rows'."""
    both, (ra, rb) = codes(a.distinct, b.distinct)
    ma = rows(ra, a.distinct.shape[0])
    mb = rows(rb, b.distinct.shape[0])
    return both, ma[a.codes], mb[b.codes if b_codes is None else b_codes]


def joined(a: CodedIds, b: CodedIds) -> tuple[np.ndarray, np.ndarray]:
    """Keys of two coded columns, equal where the ids are: ``b``'s codes as they are
    (their order is the ids' order), and ``a``'s ids found in ``b``'s distinct ids
    by a binary search of the sorted distinct values (no row's id is compared);
    those not found numbered from ``b``'s count on."""
    x, y = a.sorted_bytes(), b.sorted_bytes()
    if x.dtype.kind != y.dtype.kind:
        x, y = a.distinct, b.distinct
    if x.dtype.kind == "S" and x.shape[0] + y.shape[0] >= ids.SMALL_ROWS and \
            min(x.dtype.itemsize, y.dtype.itemsize) > 0 and numpy_reader.reader_ready():
        # one merge of the two sorted columns in the reader's kernel (a file's ids: loaded
        # already, unless numpy read the files): 1.3 M qrels ids into 2 M run ids, this
        # function 0.075-0.097 against 0.16-0.17 s with numpy's binary searches, each a
        # chain of misses
        at = np.empty(x.shape[0], np.int64)
        y = np.ascontiguousarray(y)
        kernel.trec_pass(-7, readonly(y.view(np.uint8).reshape(-1)),
                         readonly(np.array([y.dtype.itemsize, y.shape[0], x.dtype.itemsize,
                                            x.shape[0]], np.int64)),
                         readonly(as_reals(np.ascontiguousarray(x))), at, NO_REALS)
        found = at >= 0
    else:
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


RUN_PART = 1 << 18  # the fewest rows a thread compares in run_starts


def run_starts(ids: np.ndarray) -> np.ndarray:
    """Where each run of equal ids of ``ids`` starts: numpy's comparison of each row
    with the one before, a part a thread (it lets go of the GIL; 10 M ``<U26`` query
    ids 0.08-0.12 against 0.16-0.17 s on one thread, AMD Zen 4): the rows the hash
    table then codes are the runs' first, not every row (a run and its qrels list
    their queries one by one)."""
    n = ids.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    parts = max(1, min(workers.threads(), n // RUN_PART))
    cuts = [max(1, n * k // parts) for k in range(parts + 1)]

    def part(k: int) -> np.ndarray:
        lo, hi = cuts[k], cuts[k + 1]
        found: np.ndarray = np.flatnonzero(ids[lo:hi] != ids[lo - 1:hi - 1]) + lo
        return found

    found = workers.parallel_map(part, range(parts), parts)
    return np.concatenate([np.zeros(1, np.int64), *found]).astype(np.int64, copy=False)


def queries(jq: Any, rq: Any) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The judged and run query ids' sorted union, each qrels row's code in it, and
    the run as runs of one query (where each starts, its code)."""
    if isinstance(jq, CodedIds) and isinstance(rq, CodedIds):
        if rq.runs is not None:  # a run file's queries: their runs mapped, not each row
            q_all, jqc, run_codes = union(jq, rq, rq.runs[1])
            return q_all, jqc, (rq.runs[0], run_codes)
        q_all, jqc, rqc = union(jq, rq)
        return q_all, jqc, runs_of(rqc)
    if text_arrays(jq, rq):  # each column's runs found, only their first rows coded
        rq, jq = np.asarray(rq), np.asarray(jq)
        starts, jstarts = run_starts(rq), run_starts(jq)
        heads, jheads = rq[starts], jq[jstarts]
        hc, jc, first, _, _ = records(heads, jheads)
        distinct = native(gathered(heads, jheads, first))
        order = np.argsort(distinct, kind="stable")  # a few: numpy's order of str
        place = np.empty(first.shape[0], np.int64)
        place[order] = np.arange(first.shape[0])
        return distinct[order], rows((jstarts, place[jc]), jq.shape[0]), (starts, place[hc])
    jq, rq = (np.asarray(x) for x in (jq, rq))
    q_all, (jruns, rruns) = codes(jq, rq)
    return q_all, rows(jruns, jq.shape[0]), rruns


def coded(jq: Any, rq: Any, jd: Any, rd: Any, trec: bool) -> tuple[
        tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
        tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]]:
    """:func:`queries` and :func:`documents` of the qrels and the run, on two
    threads where both read large text arrays in a kernel (each its own pass over
    its own columns) and the documents go through one table (on one thread); else
    one after the other, each on every thread (documents coded by group: 12.2 M of
    them and 10 M query ids 0.47 s one after the other, 0.55 s side by side, AMD
    Zen 4)."""
    if text_arrays(jq, rq) and text_arrays(jd, rd) and workers.threads() > 1 and \
            not by_group(jd, rd):
        q, d = workers.parallel_map(lambda task: task(), [lambda: queries(jq, rq),
                                                          lambda: documents(jd, rd, trec)], 2)
        return q, d
    if not stand_in(jd, rd):
        return queries(jq, rq), documents(jd, rd, trec)
    with first_calls.spending("coding"):
        return queries(jq, rq), documents(jd, rd, trec)


def by_group(jd: Any, rd: Any) -> bool:
    """Whether :func:`documents` codes these by group (:func:`grouped_records`): large
    ``str`` arrays, the wider's dtype holding more than 8 characters and at most 16
    (ids of 8 or fewer are packed into integers where every character is below 256,
    and are not whole in two words where one is not; each below 256 is checked by
    the first pass), and its kernel ready (:func:`grouped_ready`). Only dtypes are
    read: the call decides before any pass."""
    return text_arrays(jd, rd) and jd.shape[0] + rd.shape[0] >= GROUPED_ROWS and \
        32 < max(jd.dtype.itemsize, rd.dtype.itemsize) <= 64 and grouped_ready()


def grouped_ready() -> bool:
    """Whether the coding by group runs without compiling its kernel: compiled in this
    process, or cached (``fastrank compile`` builds it with every other variant). A
    call never compiles it for itself, as the engine's one-call kernel and the radix
    sort of keys are not: that compile would come on top of the first call's
    (10,000 x 1,000 ``str`` ids from an empty cache, 13.5-13.7 against 10.2-10.6 s,
    AMD Zen 4), where each later call gains 0.3-0.5 s."""
    kernel = id_groups.trec_groups
    return sorting.compiled_or_cached(kernel, tuple(SIGNATURES[kernel][0]))


def text_arrays(jd: Any, rd: Any) -> bool:
    """Whether both are arrays of ``str`` (of some width), ``ids.SMALL_ROWS`` or more
    in all: coded by :func:`records` (fewer by numpy's sort: a first call compiles
    nothing; more too, while :func:`stand_in`)."""
    return large_text(jd, rd) and not stand_in(jd, rd)


def large_text(jd: Any, rd: Any) -> bool:
    """Whether both are arrays of ``str`` (of some width), ``ids.SMALL_ROWS`` or more
    in all."""
    return not isinstance(jd, CodedIds) and not isinstance(rd, CodedIds) and \
        jd.dtype.kind == "U" and rd.dtype.kind == "U" and jd.dtype.itemsize > 0 and \
        rd.dtype.itemsize > 0 and jd.shape[0] + rd.shape[0] >= ids.SMALL_ROWS


# Text ids of both arrays up to which numpy codes them (ids.codes: sorts of packed
# bytes) while the array passes' kernel is neither compiled nor cached, for
# first_calls.BUDGET seconds: a first evaluate_run of 2,000 x 1,000 str ids (2.3 M
# document ids of 13 characters) 1.6-2.6 s in all, against 6.5-6.9 s compiling (AMD Zen 4).
CODING_ROWS = 1 << 23


def stand_in(jd: Any, rd: Any) -> bool:
    """Whether large text ids (:func:`large_text`) are coded by numpy: at most
    :data:`CODING_ROWS`, while the kernel is not compiled and within the budget."""
    return large_text(jd, rd) and jd.shape[0] + rd.shape[0] <= CODING_ROWS and \
        not codec.arrays_ready() and first_calls.within_budget("coding")


def documents(jd: Any, rd: Any, trec: bool) -> tuple[np.ndarray, np.ndarray,
                                                       Callable[[np.ndarray], np.ndarray]]:
    """Document keys of the qrels and the run (int64, equal where the ids are), and a
    function from keys to their ids' rank in strcmp's order (``trec``: only then is
    it meaningful; otherwise the keys need only be equal where the ids are)."""
    if long_text(jd, rd) and text_arrays(jd, rd):  # one hash table for both
        return joint(jd, rd, trec)
    if trec and not isinstance(jd, CodedIds) and not isinstance(rd, CodedIds) and \
            jd.dtype.kind in "iu" and jd.dtype.kind == rd.dtype.kind and \
            jd.shape[0] + rd.shape[0] >= ids.SMALL_ROWS:  # integers as they are, ranked
        jdk, rdk = doc_keys(jd, rd)  # as text where they are ranked
        unsigned = jd.dtype.kind == "u"
        return jdk, rdk, lambda keys: int_ranks(keys, unsigned)
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


def joint(jd: np.ndarray, rd: np.ndarray, trec: bool) -> tuple[
        np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Document keys of two ``str`` arrays coded through one hash table (codes by
    first occurrence, the run's first), and with ``trec`` a function from keys to
    int64 values in strcmp's order of their ids: where every id is at most 16
    characters below 256, from the words the kernel kept (one integer each where
    they fit, unsorted; else their ranks), else the ranks of the distinct ids."""
    got = grouped_records(rd, jd) if by_group(jd, rd) else None
    rdk, jdk, first, words, wide = records(rd, jd, words=trec) if got is None else got
    if not trec:
        return jdk, rdk, same
    if words is not None and wide == 0:
        hi, lo = word_keys(words)
        if lo is None:  # one integer each, in strcmp's order: the keys themselves, unsorted
            ranks = hi.view(np.int64) ^ SIGN
            return jdk, rdk, lambda keys: workers.take(ranks, keys)
        order = np.lexsort((lo, hi))
    else:
        order = text_order(native(gathered(np.asarray(rd), np.asarray(jd), first)))
    place = np.empty(first.shape[0], np.int64)
    place[order] = np.arange(first.shape[0])
    return jdk, rdk, lambda keys: workers.take(place, keys)


def long_text(jd: Any, rd: Any) -> bool:
    """Whether both are arrays of ``str`` of which one is wider than 8 characters
    (its dtype's width), or holds a character from 256 on: not packed into one
    integer each (:func:`sortable`), so coded by :func:`hashed`; not under
    ``ids.SMALL_ROWS`` ids in all (numpy's sort: a first call compiles nothing), nor
    while numpy codes them (:func:`stand_in`)."""
    if isinstance(jd, CodedIds) or isinstance(rd, CodedIds) or jd.dtype.kind != "U" or \
            rd.dtype.kind != "U" or jd.shape[0] + rd.shape[0] < ids.SMALL_ROWS or \
            stand_in(jd, rd):
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
# Up to this many rows numpy orders them too while the kernel is neither compiled nor
# cached, for first_calls.BUDGET seconds (2 M rows: 0.62 s, against 5-6 s compiling the
# array passes, AMD Zen 4).
NUMPY_ORDER_ROWS = 1 << 22


def order_by_numpy(n: int, kernel_rows: int = KERNEL_ROWS) -> bool:
    """Whether :func:`trec_order` orders ``n`` rows, ``kernel_rows`` or more, by
    numpy's sort while the kernel is not compiled (see above)."""
    return kernel_rows == KERNEL_ROWS and n <= NUMPY_ORDER_ROWS and \
        not codec.arrays_ready() and first_calls.within_budget("order")


def trec_order(starts: np.ndarray, ends: np.ndarray, keys: np.ndarray, scores: np.ndarray,
               kernel_rows: int = KERNEL_ROWS) -> np.ndarray:
    """Each run row's place when every query's rows (``starts[i]:ends[i]``) are
    ordered by score, then by document rank ``keys`` (trec_eval's order read from
    the bottom: it ranks by score decreasing, then docid decreasing), as float64
    values with no ties within a query. From ``kernel_rows`` rows on, query by
    query in a kernel (the queries shared among threads); below (and while the
    kernel is not compiled: :func:`order_by_numpy`), by one numpy sort of all the
    rows (the same order within each query)."""
    n = scores.shape[0]
    if n < kernel_rows or order_by_numpy(n, kernel_rows):
        out = np.zeros(n, np.float64)
        began = time.perf_counter()
        out[np.lexsort((keys, scores))] = np.arange(n, dtype=np.float64)
        if n >= kernel_rows:  # (the stand-in's time)
            first_calls.spend("order", time.perf_counter() - began)
        return out
    out = np.zeros(n, np.float64)  # rows of no query listed stay 0 (and are not read)
    scratch = np.empty(n, np.int64)
    reals = readonly(np.ascontiguousarray(scores, np.float64))
    nb = starts.shape[0]
    parts = max(1, min(workers.threads(), nb // 64))
    cuts = np.linspace(0, nb, parts + 1).astype(np.int64)
    ints = readonly(np.concatenate([[nb, parts], cuts, starts, ends]).astype(np.int64))
    data = readonly(np.ascontiguousarray(keys, np.int64).view(np.uint8))  # (not copied)

    def part(j: int) -> None:
        kernel.trec_arrays(1 + j, data, ints, reals, scratch, out)

    workers.parallel_map(part, range(parts), parts)
    return out


__all__ = ["CodedIds", "coded", "documents", "hashed", "queries", "records", "trec_order"]
