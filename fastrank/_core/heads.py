"""The top of each ranked row: its tie groups that hold a label.

For rows of a sparse score matrix and a query's documents: each row's tie
groups that start within the top ranks and hold a label, labels joined by
merge, hash table or place, no row sorted (:mod:`fastrank._kernels.topk`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernels.jit import SIGNATURES
from .._kernels.topk import JOIN_HASH, JOIN_MERGE, JOIN_PLACE, heads_room
from .._kernels.topk import row_heads as _row_heads
from . import first_calls, workers
from .codec import keys_of
from .inputs import SPECS, readonly
from .sorting import compiled_or_cached


class Heads(NamedTuple):
    """Each row's tie groups that start within the top ``depth`` ranks and hold a
    label, and its first group (:func:`~fastrank._kernels.topk.row_heads`):
    ``first``, ``size`` and ``hits``, row ``i``'s from ``offsets[i]`` on (room for
    ``min(depth, stored, labels + 1) + 1``: one spare, for the caller's own group
    after them),
    and ``groups`` per row; each label's group (``label_slot``: -1 stored below the
    cut, -2 not stored), each row's relevant labels not stored (``tail_hits``) and,
    for hashed rows, the place of a column stored twice (``repeat``, -1 if none)."""

    offsets: np.ndarray
    first: np.ndarray
    size: np.ndarray
    hits: np.ndarray
    groups: np.ndarray
    label_slot: np.ndarray
    tail_hits: np.ndarray
    repeat: np.ndarray


_JOINS = {"merge": JOIN_MERGE, "hash": JOIN_HASH, "place": JOIN_PLACE}


def row_heads(starts: np.ndarray, ends: np.ndarray, cols: np.ndarray, values: np.ndarray,
              lptr: np.ndarray, lcols: np.ndarray, lrel: np.ndarray, depth: int,
              join: str = "merge") -> Heads:
    """The top of each row of a sparse score matrix (row ``i``'s entries
    ``starts[i] .. ends[i]``, canonical ``values``) and where its labels (``lptr``,
    ``lcols``, ``lrel`` 1.0 or 0.0) stand, rows split across the threads when there
    are many entries. ``join``: ``"merge"``, column ids increase within a row
    (``cols`` and ``lcols``); ``"hash"``, they come in any order (a run's document
    ids) and are matched through a hash table; ``"place"``, every column of a row is
    stored, at its own place (``lcols`` below the row's length; ``cols`` unused)."""
    n = starts.shape[0]
    spec = SPECS[values.dtype]
    bits = readonly(values.view(spec.bits))
    stored = ends - starts
    room = np.minimum(np.minimum(stored, depth), np.diff(lptr) + 1) + 1
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(room, out=offsets[1:])
    first = np.zeros(int(offsets[-1]), np.int64)
    size = np.zeros(int(offsets[-1]), np.int64)
    hits = np.zeros(int(offsets[-1]), np.float64)
    groups = np.zeros(n, np.int64)
    label_slot = np.empty(lcols.shape[0], np.int64)
    tail_hits = np.zeros(n, np.float64)
    repeat = np.full(n, -1, np.int64)
    lo, hi, lp, c, lc = (readonly(np.ascontiguousarray(x, dtype=np.int64))
                         for x in (starts, ends, lptr, cols, lcols))
    rel = readonly(np.ascontiguousarray(lrel, dtype=np.float64))
    nthreads = workers.threads() if values.shape[0] >= workers.PARALLEL_MIN else 1
    ptr = np.concatenate(([0], np.cumsum(stored)))  # rows cut into spans of equal entries
    cuts = np.searchsorted(ptr, np.linspace(0, ptr[-1], 4 * nthreads + 1)[1:-1])
    bounds = np.unique(np.concatenate(([0], cuts, [n])))
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))

    code = _JOINS[join]
    if by_numpy(int(stored.sum()) + lcols.shape[0], spec.bits):
        with first_calls.spending("heads"):
            numpy_heads(lo, stored, c, keys_of(values, spec), lp, lc, rel, depth, code,
                        offsets, first, size, hits, groups, label_slot, tail_hits,
                        repeat)  # the kernel's ints
        return Heads(offsets, first, size, hits, groups, label_slot, tail_hits, repeat)
    nu, ni, nf = heads_room(int(stored.max()) if n else 0, int(np.diff(lptr).max()) if n else 0,
                            code)

    def run(span: tuple[int, int]) -> None:
        wu = np.empty(nu, np.uint64)  # workspaces, one set per span
        wi = np.empty(ni, np.int64)
        wf = np.empty(nf, np.float64)
        if not _row_heads(lo, hi, c, bits, spec.kind, spec.sign, spec.ones, lp, lc, rel, depth,
                          span[0], span[1], code, readonly(offsets), first, size, hits, groups,
                          label_slot, tail_hits, repeat, wu, wi, wf):
            raise RuntimeError("row_heads: workspace too small")  # heads_room is its bound

    workers.parallel_map(run, spans, nthreads)
    return Heads(offsets, first, size, hits, groups, label_slot, tail_hits, repeat)


# Fewer entries and labels: numpy, while the kernel is not compiled, for at most
# first_calls.BUDGET seconds: numpy is 40-65x slower than the compiled kernel (24 ms
# against 0.6 ms on 100,000 entries), but a first call of 10,000 queries x 100 documents
# took 0.69 s so against 2.83 s compiling the kernel (about 1.8 s; AMD Zen 4), and
# `fastrank trec` on 2,000 x 1,000 (2.4 million entries and labels) 8.7 against 9.4 s,
# at the same peak memory (578 against 561 MB).
NUMPY_ENTRIES = 1 << 22


def by_numpy(entries: int, bits: np.dtype[Any]) -> bool:
    """Whether rows of ``entries`` stored entries and labels in all, scores read as
    ``bits``, take :func:`numpy_heads`: under :data:`NUMPY_ENTRIES`, until the
    kernel runs without compiling (compiled in this process or cached) or the
    numpy calls have taken :data:`.first_calls.BUDGET` seconds, so that a first small
    call compiles nothing (the kernel's compile is most of it) and many small
    calls still end on the kernel."""
    if entries >= NUMPY_ENTRIES:
        return False
    variant = 0 if bits == np.dtype(np.uint32) else 1  # topk's signatures: KEYS' order
    return not compiled_or_cached(_row_heads, tuple(SIGNATURES[_row_heads][variant])) and \
        first_calls.within_budget("heads")


def numpy_heads(starts: np.ndarray, stored: np.ndarray, cols: np.ndarray, keys: np.ndarray,
                lptr: np.ndarray, lcols: np.ndarray, lrel: np.ndarray, depth: int, code: int,
                offsets: np.ndarray, first: np.ndarray, size: np.ndarray, hits: np.ndarray,
                groups: np.ndarray, label_slot: np.ndarray, tail_hits: np.ndarray,
                repeat: np.ndarray) -> None:
    """What the kernel writes (:func:`~fastrank._kernels.topk.row_heads`), by numpy
    on all rows at once, from the scores' order ``keys`` (:func:`.codec.keys_of`),
    into the same arrays: each label's entry (its row's first entry of its column,
    or its column as the place), the distinct labelled keys of each row highest
    first with the entries above and equal to each, the row's first group when
    no label holds its top score, and the groups past ``depth`` dropped."""
    n = starts.shape[0]
    total = int(stored.sum())
    before = np.cumsum(stored) - stored  # each row's first place in the rows laid end to end
    erow = np.repeat(np.arange(n), stored)
    eat = np.arange(total) - before[erow]  # each entry's place in its row
    eidx = starts[erow] + eat  # and in ``cols`` / ``keys``
    lrow = np.repeat(np.arange(n), np.diff(lptr))
    if code == JOIN_PLACE:
        slot = lcols.astype(np.int64)
    else:  # a label's entry: its row's first of its column
        ids, inv = np.unique(np.concatenate((cols[eidx], lcols)), return_inverse=True)
        inv = inv.reshape(-1)
        width = max(1, ids.shape[0])
        pair = erow * width + inv[:total]
        order = np.argsort(pair, kind="stable")
        sorted_pair = pair[order]
        want = lrow * width + inv[total:]
        if total:
            at = np.minimum(np.searchsorted(sorted_pair, want), total - 1)
            slot = np.where(sorted_pair[at] == want, eat[order[at]], -2)
        else:
            slot = np.full(want.shape[0], -2, np.int64)
        if code == JOIN_HASH and total:
            again = np.flatnonzero(sorted_pair[1:] == sorted_pair[:-1]) + 1
            twice = order[again]  # a later entry of a column its row holds already
            none = np.iinfo(np.int64).max
            least = np.full(n, none)
            np.minimum.at(least, erow[twice], eidx[twice])
            hit = least < none
            repeat[hit] = least[hit]
    label_slot[:] = -2
    held = np.flatnonzero(slot >= 0)
    distinct, ekey = np.unique(keys[eidx], return_inverse=True)  # keys ranked, lowest 0
    ekey = ekey.reshape(-1)
    nk = max(1, distinct.shape[0])
    ranked = np.sort(erow * nk + ekey)  # each row's entries by key, rows one after another
    row_end = before + stored
    hrow = lrow[held]
    hkey = ekey[before[hrow] + slot[held]]
    groups_of, which = np.unique(hrow * nk + (nk - 1 - hkey), return_inverse=True)
    which = which.reshape(-1)
    drow = groups_of // nk  # each row's distinct labelled keys, highest first
    dkey = nk - 1 - groups_of % nk
    dhits = np.bincount(which, weights=lrel[held], minlength=groups_of.shape[0])
    lo = np.searchsorted(ranked, drow * nk + dkey, side="left")
    hi = np.searchsorted(ranked, drow * nk + dkey, side="right")
    above = row_end[drow] - hi
    lead = np.ones(drow.shape[0], bool)  # each row's highest labelled key
    lead[1:] = drow[1:] != drow[:-1]
    top = np.full(n, -1, np.int64)
    full = stored > 0
    top[full] = ranked[row_end[full] - 1] - np.flatnonzero(full) * nk
    labelled_top = np.zeros(n, bool)
    labelled_top[drow[lead]] = dkey[lead] == top[drow[lead]]
    own = full & ~labelled_top  # the row's first group, holding no label
    rows = np.flatnonzero(own)
    first[offsets[rows]] = 0
    size[offsets[rows]] = row_end[rows] - np.searchsorted(ranked, rows * nk + top[rows])
    hits[offsets[rows]] = 0.0
    keep = above < depth  # (a prefix of each row's distinct keys: ``above`` grows)
    lead_at = np.flatnonzero(lead)
    rank = np.arange(drow.shape[0]) - np.repeat(lead_at, np.diff(np.append(lead_at,
                                                                           drow.shape[0])))
    g = own[drow] + rank
    at_g = offsets[drow[keep]] + g[keep]
    first[at_g] = above[keep]
    size[at_g] = hi[keep] - lo[keep]
    hits[at_g] = dhits[keep]
    groups[:] = own + np.bincount(drow[keep], minlength=n)
    label_slot[held] = np.where(keep, g, -1)[which]
    unheld = slot < 0
    tail_hits[:] = np.bincount(lrow[unheld], weights=lrel[unheld], minlength=n)
