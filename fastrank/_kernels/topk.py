"""The top of each row of a sparse score matrix (each sample's stored predictions).

:func:`row_heads` ranks each row's stored scores, given as order keys (highest
first), and keeps the tie groups that start within the first ``depth`` ranks:
all that a measure cut at ``k <= depth`` reads. A group straddling the cut is
kept whole (its size and relevant count enter the tie-aware values). Rows are
independent, so the engine hands disjoint row ranges to its threads.
"""

from __future__ import annotations

import numpy as np

from .jit import KEYS, f64, i64, kernel, ro, rw, u64
from .keys import to_key

SMALL = 32  # picked entries up to this many are put in order by insertion

_HEADS = [(ro(i64), ro(i64), ro(k), i64, u64, u64, ro(i64), ro(i64), ro(f64), i64, i64, i64,
           ro(i64), rw(i64), rw(i64), rw(f64), rw(i64), rw(i64), rw(f64)) for k in KEYS]


@kernel(_HEADS)
def row_heads(indptr, cols, bits, kind, sign, ones, lptr, lcols, lrel, depth, lo_row, hi_row,
              goff, first, size, hits, groups, label_slot, tail_hits):
    """For rows ``lo_row .. hi_row`` of a sparse score matrix (row pointers
    ``indptr``, columns ``cols`` increasing within a row, scores as their ``bits``,
    read as keys by :func:`~fastrank._kernels.keys.to_key`) and of its relevant
    labels (``lptr``, ``lcols`` likewise; ``lrel`` 1.0 where relevant, 0.0 for a
    positive grade below the relevance level):

    * row ``i``'s tie groups starting at ranks below ``depth``, in rank order, at
      ``goff[i] + g``: ``first`` (0-based rank), ``size``, ``hits`` (the sum of
      ``lrel`` over its labels); ``groups[i]`` of them (at most ``min(depth,
      stored)``, the room ``goff`` must leave);
    * ``label_slot[l]``: label ``l``'s group, -1 for a stored label below the cut,
      -2 for an unstored one; ``tail_hits[i]``: the sum of ``lrel`` over row
      ``i``'s unstored labels.

    The entries of those groups are the ones scored at least the ``depth``-th
    highest score (counted with repeats): a group starting lower begins after at
    least ``depth`` entries. One pass finds that score (a small sorted buffer of the
    best ``depth`` so far; most entries fail its first comparison), a second
    collects the entries at or above it, and only those are sorted (by insertion
    when few; no allocation per row).
    """
    widest = 0
    for i in range(lo_row, hi_row):
        widest = max(widest, indptr[i + 1] - indptr[i])
    best = np.empty(max(depth, 1), np.uint64)
    picked = np.empty(widest, np.int64)
    spare = np.empty(widest, np.int64)
    picked_keys = np.empty(widest, np.uint64)
    row_keys = np.empty(widest, np.uint64)
    rel = np.zeros(widest, np.float64)
    group_of = np.empty(widest, np.int64)
    for i in range(lo_row, hi_row):
        lo = indptr[i]
        hi = indptr[i + 1]
        n = hi - lo
        llo = lptr[i]
        lhi = lptr[i + 1]
        # each label's stored entry: a merge of two increasing column lists
        e = lo
        for lab in range(llo, lhi):
            c = lcols[lab]
            while e < hi and cols[e] < c:
                e += 1
            if e < hi and cols[e] == c:
                label_slot[lab] = e - lo  # for now: its place in the row
                rel[e - lo] = lrel[lab]
            else:
                label_slot[lab] = -2
        for j in range(n):
            group_of[j] = -1
        g = -1
        if n > 0:
            # the depth-th highest key (with repeats), ``best`` kept in decreasing order;
            # when the cut is deep in the row, every entry is picked (and sorted)
            filled = 0
            select = depth * 8 < n
            for j in range(n):
                key = to_key(np.uint64(bits[lo + j]), kind, sign, ones)
                row_keys[j] = key
                if not select:
                    continue
                if filled == depth:
                    if key <= best[depth - 1]:
                        continue
                    at = depth - 1
                else:
                    at = filled
                    filled += 1
                while at > 0 and best[at - 1] < key:
                    best[at] = best[at - 1]
                    at -= 1
                best[at] = key
            bar = best[filled - 1] if select and filled == depth else np.uint64(0)
            h = 0
            for j in range(n):
                if row_keys[j] >= bar:
                    picked[h] = j
                    h += 1
            # the picked entries by key, highest first: few (depth, with the ties at the
            # cut), so an insertion sort, unless many
            if h <= SMALL:
                for q in range(1, h):
                    j = picked[q]
                    key = row_keys[j]
                    at = q
                    while at > 0 and row_keys[picked[at - 1]] < key:
                        picked[at] = picked[at - 1]
                        at -= 1
                    picked[at] = j
            else:
                for q in range(h):
                    picked_keys[q] = ~row_keys[picked[q]]
                order = np.argsort(picked_keys[:h])  # ascending complements: highest first
                for q in range(h):
                    spare[q] = picked[order[q]]
                for q in range(h):
                    picked[q] = spare[q]
            prev = np.uint64(0)
            for pos in range(h):
                j = picked[pos]
                key = row_keys[j]
                if pos == 0 or key != prev:
                    if pos >= depth:  # (every entry picked: the rest start below the cut)
                        break
                    g += 1
                    first[goff[i] + g] = pos
                    size[goff[i] + g] = 0
                    hits[goff[i] + g] = 0.0
                    prev = key
                size[goff[i] + g] += 1
                hits[goff[i] + g] += rel[j]
                group_of[j] = g
        groups[i] = g + 1
        tail = 0.0
        for lab in range(llo, lhi):
            j = label_slot[lab]
            if j >= 0:
                label_slot[lab] = group_of[j]
                rel[j] = 0.0  # clean for the next row
            else:
                tail += lrel[lab]
        tail_hits[i] = tail
