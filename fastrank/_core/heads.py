"""The top of each ranked row: its tie groups that hold a label.

For rows of a sparse score matrix and a query's documents: each row's tie
groups that start within the top ranks and hold a label, labels joined by
merge, hash table or place, no row sorted (:mod:`fastrank._kernels.topk`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels.topk import JOIN_HASH, JOIN_MERGE, JOIN_PLACE, heads_room
from .._kernels.topk import row_heads as _row_heads
from . import workers
from .inputs import SPECS, readonly


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
