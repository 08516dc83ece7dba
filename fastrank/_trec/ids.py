"""Query and document ids of runs and qrels: the three arrays of either, ids as
sortable keys and integer codes (and :class:`CodedIds`, the files' ids held as
codes), pairs listed twice refused, judged documents retrieved."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import codec, sorting


class CodedIds:
    """Text ids held as integer codes into their distinct values, sorted: what
    :func:`~fastrank.read_run` and :func:`~fastrank.read_qrels` return for the
    query and document columns, so that a file's ids are never one string per row.

    It reads as a one-dimensional array of ``str``: ``len``, indexing (an integer
    gives a numpy ``str_``, a slice or an index array another ``CodedIds``),
    iteration, ``tolist()``, comparison with ``==``, and ``np.asarray(ids)``,
    which builds the whole array of strings.

    Attributes
    ----------
    codes : ndarray of int64
        Each row's id as its place in ``distinct`` (``np.unique``'s inverse).
    distinct : ndarray of str
        The distinct ids in numpy's order of ``str`` (code point order, which is
        strcmp's order of their UTF-8 bytes).

    Examples
    --------
    >>> import numpy as np
    >>> ids = CodedIds(np.array([1, 0, 1]), np.array(["a", "b"]))
    >>> len(ids), ids[0], ids.tolist(), np.asarray(ids)
    (3, np.str_('b'), ['b', 'a', 'b'], array(['b', 'a', 'b'], dtype='<U1'))
    >>> (ids == "b").tolist(), ids[1:].tolist()
    ([True, False, True], ['a', 'b'])
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, codes: np.ndarray | None, distinct: np.ndarray | None = None,
                 raw: np.ndarray | None = None,
                 runs: tuple[np.ndarray, np.ndarray, int] | None = None) -> None:
        if distinct is None and raw is None:
            raise TypeError("CodedIds needs the distinct ids, as str or as UTF-8 bytes")
        if codes is None and runs is None:
            raise TypeError("CodedIds needs each row's code, or the runs of one code")
        self._codes = codes
        # (where each run of rows of one code starts, its code, the rows): a file's
        # queries, whose rows come query by query; each row's code is made from them
        # only when asked for (10 M rows: 80 MB that scoring a run never reads)
        self.runs = runs
        self._rows = int(codes.shape[0]) if codes is not None else int(runs[2])  # type: ignore[index]
        self._distinct = distinct
        self.raw = raw  # the distinct ids' UTF-8 bytes (sorted alike), where known
        # the ids of a file's other column (its queries) with which each row's pair was
        # found distinct as the file was read, so that the pairs are not checked again
        self._pairs_checked_with: CodedIds | None = None

    @property
    def codes(self) -> np.ndarray:
        """Each row's code (made from the runs on first use, where held as runs)."""
        if self._codes is None:
            assert self.runs is not None
            starts, run_codes, n = self.runs
            self._codes = np.repeat(run_codes, np.diff(starts, append=n))
        return self._codes

    @property
    def distinct(self) -> np.ndarray:
        """The distinct ids as ``str`` (made from their bytes on first use)."""
        if self._distinct is None:
            assert self.raw is not None
            if int(self.raw.view(np.uint8).max(initial=0)) < 0x80:
                self._distinct = self.raw.astype(f"U{max(1, self.raw.dtype.itemsize)}")
            else:
                self._distinct = np.array([b.decode("utf-8") for b in self.raw.tolist()])
        return self._distinct

    def sorted_bytes(self) -> np.ndarray:
        """The distinct ids in order, as bytes where known (they sort alike), else str."""
        return self.raw if self.raw is not None else self.distinct

    @property
    def shape(self) -> tuple[int]:
        return (self._rows,)

    @property
    def dtype(self) -> np.dtype[Any]:
        if self._distinct is None and self.raw is not None:  # ASCII or not: U of its width
            return np.dtype(f"U{max(1, self.raw.dtype.itemsize)}")
        return self.distinct.dtype

    @property
    def ndim(self) -> int:
        return 1

    @property
    def size(self) -> int:
        return self._rows

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, index: Any) -> Any:
        picked = self.codes[index]
        if isinstance(picked, np.ndarray):
            return CodedIds(picked, self._distinct, self.raw)
        return self.distinct[picked]

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out: np.ndarray = self.distinct[self.codes]
        return out if dtype is None else out.astype(dtype)

    def __eq__(self, other: Any) -> Any:
        if np.ndim(other) == 0:
            return (self.distinct == other)[self.codes]
        return np.asarray(self) == np.asarray(other)

    def __ne__(self, other: Any) -> Any:
        return ~self.__eq__(other)

    def astype(self, dtype: Any) -> Any:
        """The ids as ``dtype``: ``str`` keeps them coded; others build the array."""
        if np.dtype(dtype).kind == "U":
            return self
        return np.asarray(self).astype(dtype)

    def tolist(self) -> list[Any]:
        words = self.distinct.tolist()
        return [words[c] for c in self.codes.tolist()]

    def __repr__(self) -> str:
        return f"CodedIds({np.asarray(self[:6])!r}{', ...' if len(self) > 6 else ''}, " \
               f"{len(self)} rows, {self.distinct.shape[0]} distinct)"


def triple(x: Any, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query ids, document ids and values from three arrays, ``{qid: {docid: value}}``
    or a three-column table."""
    if isinstance(x, dict):
        q: list[Any] = []
        d: list[Any] = []
        v: list[Any] = []
        for qid, docs in x.items():
            if not isinstance(docs, dict):
                raise TypeError(f"the {what} dict maps each query to a dict {{docid: value}}; "
                                f"query {qid!r} maps to {type(docs).__name__}")
            q.extend([qid] * len(docs))
            d.extend(docs.keys())
            v.extend(docs.values())
        return np.asarray(q), np.asarray(d), np.asarray(v, dtype=np.float64)
    columns = getattr(x, "columns", None)
    if columns is not None and hasattr(x, "iloc"):
        if len(columns) != 3:
            raise ValueError(f"a {what} table needs three columns (query, document, value); "
                             f"got {len(columns)}: {list(columns)}")
        return tuple(np.asarray(x.iloc[:, j]) for j in range(3))  # type: ignore[return-value]
    try:
        parts = list(x)
    except TypeError as exc:
        raise TypeError(f"the {what} must be three arrays, a dict or a table") from exc
    if len(parts) != 3:
        raise ValueError(f"the {what} needs three arrays (query ids, document ids, values); "
                         f"got {len(parts)}")
    return (*(p if isinstance(p, CodedIds) else np.asarray(p) for p in parts[:2]),
            np.asarray(parts[2]))  # type: ignore[return-value]


SMALL_ROWS = 100_000  # fewer text ids are coded by numpy alone: a first call compiles nothing


def sortable(ids: np.ndarray, pack: bool = True) -> np.ndarray:
    """Keys that sort and compare as the ids do, cheaper to sort: text ids of at most
    8 characters, each below 256, as one big-endian uint64 each (a kernel packs
    them, from ``SMALL_ROWS`` ids on; ``pack`` False when it is known not to fit);
    longer text (or fewer ids) whose characters
    all lie below 256 as fixed-width bytes (a quarter of numpy's 4 bytes per
    character); other ids as they are."""
    if ids.dtype.kind != "U" or ids.shape[0] == 0 or ids.dtype.itemsize == 0:
        return ids
    keys = codec.text_keys(ids) if pack and ids.shape[0] >= SMALL_ROWS else None
    if keys is not None:
        return keys
    width = ids.dtype.itemsize // 4
    points = np.ascontiguousarray(ids).view(np.uint32).reshape(ids.shape[0], width)
    top = points.max(axis=0)  # each place's largest code point
    if int(top.max()) >= 256:
        return ids
    used = np.flatnonzero(top)  # places no id reaches are dropped (a wide dtype's padding)
    width = int(used[-1]) + 1 if used.shape[0] else 1
    return points[:, :width].astype(np.uint8).view(f"S{width}").reshape(-1)


def codes(*parts: np.ndarray) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The sorted distinct ids of all ``parts`` together, and each part as runs of one
    id: where each run starts, and its id's code (``np.unique``'s inverse, run by run).
    Ids that come in runs (a run file lists its queries one by one) are coded by
    their runs' first ids only: one comparison per id, and a sort of the runs;
    otherwise each id is a run of its own. Text ids sort as :func:`sortable` keys,
    made part by part (long text arrays are not copied into one)."""
    ends = np.cumsum([0] + [p.shape[0] for p in parts])
    n = int(ends[-1])
    keys: np.ndarray | None = None
    text = bool(parts) and all(p.dtype.kind == "U" for p in parts)
    if text and n >= SMALL_ROWS:
        keys = np.empty(n, np.uint64)
        for p, lo, hi in zip(parts, ends[:-1], ends[1:], strict=True):
            if codec.text_keys(p, keys[lo:hi]) is None:
                keys = None
                break
    if keys is not None:
        pick = picker(parts)
    elif text:  # each part as bytes (no copy of the wider text), if all are below 256
        each = [sortable(p, pack=False) for p in parts]  # (packing failed part by part)
        if all(k.dtype.kind == "S" for k in each):
            keys, pick = np.concatenate(each), picker(parts)
    if keys is None:
        ids = np.concatenate(parts)
        keys = sortable(ids, pack=not text)
        pick = ids.__getitem__
    new = np.ones(n, bool)
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    new[ends[:-1][ends[:-1] < n]] = True  # no run crosses from one part to the next
    starts = np.flatnonzero(new)
    if starts.shape[0] * 4 > n:
        starts = np.arange(n)
    first, inv = unique_keys(keys[starts])
    heads = pick(starts[first])  # only the distinct ids' text gathered
    cut = np.searchsorted(starts, ends)
    return heads, [(starts[i:j] - lo, inv[i:j])
                   for i, j, lo in zip(cut[:-1], cut[1:], ends[:-1], strict=True)]


def rows(runs: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
    """Each of ``n`` ids' code, from its part's runs (:func:`codes`)."""
    starts, codes = runs
    return np.repeat(codes, np.diff(np.append(starts, n)))


def picker(parts: tuple[np.ndarray, ...]) -> Any:
    """``np.concatenate(parts)[index]``, without the concatenation."""
    dtype = np.result_type(*parts)
    ends = np.cumsum([0] + [p.shape[0] for p in parts])

    def pick(index: np.ndarray) -> np.ndarray:
        out = np.empty(index.shape[0], dtype)
        for part, lo, hi in zip(parts, ends[:-1], ends[1:], strict=True):
            mine = (index >= lo) & (index < hi)
            out[mine] = part[index[mine] - lo]
        return out

    return pick


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct key's first place, in the keys' sorted order, and each key's
    place among the distinct ones (``np.unique``'s inverse); fixed-width bytes sorted
    as packed integers (:func:`bytes_order`: 2.3 M document ids of 13 bytes 0.3 s
    against 2.4 s for numpy's sort of the bytes, AMD Zen 4)."""
    if keys.dtype.kind == "S" and keys.shape[0] > 1:
        order = bytes_order(keys)
        ordered = keys[order]
        new = np.ones(keys.shape[0], bool)
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        inv = np.empty(keys.shape[0], np.int64)
        inv[order] = np.cumsum(new) - 1
        return order[new], inv  # (stable: each one's first place)
    distinct, inv = np.unique(keys, return_inverse=True)
    inv = inv.reshape(-1)
    first = np.empty(distinct.shape[0], np.int64)
    first[inv[::-1]] = np.arange(keys.shape[0] - 1, -1, -1)  # each one's first place
    return first, inv


def bytes_order(raw: np.ndarray) -> np.ndarray:
    """The stable order of fixed-width bytes (``S``) as numpy sorts them (bytewise,
    zero padded). Each byte place is replaced by its rank among the values found
    there (a place every string shares drops out; ten digits take four bits), the
    ranks packed into one integer per string, most significant first, with the
    string's index below them (so that equal strings keep their order), and those
    integers sorted once (by the sort timed faster here,
    :func:`~fastrank._core.sorting.sorted_keys`): a sort of numbers, not of
    strings. Where that takes
    more than 64 bits, up to 16 bytes are packed into two integers each and
    sorted by both; longer strings are left to numpy's sort of the bytes."""
    n, width = raw.shape[0], raw.dtype.itemsize
    if n < 2:
        return np.arange(n)
    places = np.ascontiguousarray(raw.view(np.uint8).reshape(n, width).T)
    index_bits = (n - 1).bit_length()
    key = np.zeros(n, np.uint64)
    used = 0
    for col in places:
        if col.min() == col.max():
            continue
        present = np.zeros(256, np.bool_)
        present[col] = True
        rank = np.cumsum(present, dtype=np.uint64) - np.uint64(1)
        bits = int(rank[-1]).bit_length()
        used += bits
        if used + index_bits > 64:
            break
        key <<= np.uint64(bits)
        key |= rank[col]
    else:
        key <<= np.uint64(index_bits)
        key |= np.arange(n, dtype=np.uint64)
        key = sorting.sorted_keys(key)
        key &= np.uint64((1 << index_bits) - 1)
        return key.astype(np.int64)
    if width > 16:
        return np.argsort(raw, kind="stable")
    words = 1 if width <= 8 else 2
    packed = np.zeros((raw.shape[0], 8 * words), np.uint8)
    packed[:, :width] = raw.view(np.uint8).reshape(raw.shape[0], width)
    keys = packed.view(">u8")
    if words == 1:
        return np.argsort(keys.reshape(-1), kind="stable")
    return np.lexsort((keys[:, 1], keys[:, 0]))


def doc_keys(jd: np.ndarray, rd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Document ids of the qrels and the run as int64 keys, equal where the ids are:
    integers as they are, text of up to 8 characters below 256 as its packed bytes,
    other ids as codes."""
    if jd.dtype.kind in "iu":
        return tuple(x.view(np.int64) if x.dtype == np.uint64 else x.astype(np.int64)
                     for x in (jd, rd))  # type: ignore[return-value]
    keyed = [sortable(x) for x in (jd, rd)]
    if not all(k.dtype == np.uint64 for k in keyed):
        keyed = [rows(runs, x.shape[0]) for runs, x in zip(codes(jd, rd)[1], (jd, rd),
                                                           strict=True)]
    return tuple(k.view(np.int64) if k.dtype == np.uint64 else k.astype(np.int64)
                 for k in keyed)  # type: ignore[return-value]


def repeated(qcodes: np.ndarray, dkeys: np.ndarray) -> int | None:
    """The first place that repeats a (query, document) pair of an earlier place
    (as the file reader's kernel finds it), or None when every pair is distinct:
    the pairs as integers, sorted by the sort timed faster here
    (:func:`~fastrank._core.sorting.sorted_keys`; numpy's hash-based unique was
    slower than its sort by 20x)."""
    lo, hi = (int(dkeys.min()), int(dkeys.max())) if dkeys.shape[0] else (0, 0)
    if (hi - lo + 1) * (int(qcodes.max(initial=0)) + 1) < 2**62:  # the keys as they are
        dcodes = dkeys.astype(np.int64) - lo
    else:
        dcodes = np.unique(dkeys, return_inverse=True)[1].reshape(-1)
    key = qcodes.astype(np.int64) * (int(dcodes.max(initial=0)) + 1) + dcodes
    ordered = sorting.sorted_keys(key)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        return None
    by = np.argsort(key, kind="stable")
    return int(by[1:][key[by][1:] == key[by][:-1]].min())


def unjudged_repeats(rq: np.ndarray, rd: np.ndarray, rdk: np.ndarray, codes: np.ndarray,
                      starts: np.ndarray, ends: np.ndarray) -> None:
    """Refuse a (query, document) pair listed twice among the run's rows of queries
    without judgments (blocks ``starts``/``ends`` of query ``codes``): those rows are
    not ranked, so this is their only check, at the cost of those rows alone."""
    span = ends - starts
    rows = np.arange(int(span.sum())) + np.repeat(starts - (np.cumsum(span) - span), span)
    twice = repeated(np.repeat(codes, span), rdk[rows])
    if twice is not None:
        listed_twice("run", rq[rows[twice]], rd[rows[twice]])


def listed_twice(name: str, query: Any, doc: Any) -> None:
    raise ValueError(f"the {name} lists query {query.item()!r}, document {doc.item()!r} more "
                     "than once; give each pair once")


def judged_retrieved(jq: np.ndarray, jd: np.ndarray, rq: np.ndarray, rd: np.ndarray,
                      n: int) -> np.ndarray:
    """Per evaluated query (codes 0 .. n-1; -1 for the others), how many documents
    the run retrieves that the qrels judge (grade 0 or more): the qrels' pairs ``jq``,
    ``jd`` and the run's ``rq``, ``rd`` (document keys comparable)."""
    jk, rk = jq >= 0, rq >= 0
    jq, jd, rq, rd = jq[jk], jd[jk], rq[rk], rd[rk]
    docs = np.unique(np.concatenate((jd, rd)), return_inverse=True)[1].reshape(-1)
    width = int(docs.max(initial=0)) + 1
    judged = jq.astype(np.int64) * width + docs[:jd.shape[0]]
    hit = np.isin(rq.astype(np.int64) * width + docs[jd.shape[0]:], judged)
    return np.bincount(rq[hit], minlength=n).astype(np.float64)
