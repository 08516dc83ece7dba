"""The top of each ranked list: each row of a sparse score matrix (each sample's
stored predictions), or each query's retrieved documents.

:func:`row_heads` ranks each row's stored scores, given as order keys (highest
first), and keeps the tie groups that start within the first ``depth`` ranks and
hold a labelled entry, and always the row's first group: every measure reads
only those (a group without labelled entries adds nothing to any of them). A
group straddling the cut is kept whole (its size and relevant count enter the
tie-aware values). Rows are independent, so the engine hands disjoint row
ranges to its threads.
"""

from __future__ import annotations

import numpy as np

from .jit import KEYS, f64, helper, i64, kernel, ro, rw, u64
from .keys import to_key

SMALL = 32  # picked entries up to this many are put in order by insertion
FEW = 16  # rows with at most this many labelled entries are counted, not sorted
_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing's multiplier, 2**64 / golden ratio

_HEADS = [(ro(i64), ro(i64), ro(i64), ro(k), i64, u64, u64, ro(i64), ro(i64), ro(f64), i64,
           i64, i64, i64, ro(i64), rw(i64), rw(i64), rw(f64), rw(i64), rw(i64), rw(f64),
           rw(i64)) for k in KEYS]


@helper
def _slot(col, shift):
    """The first table slot a column id hashes to (the top bits of its product)."""
    return np.int64((np.uint64(col) * np.uint64(_GOLDEN)) >> np.uint64(shift))


@kernel(_HEADS)
def row_heads(starts, ends, cols, bits, kind, sign, ones, lptr, lcols, lrel, depth, lo_row,
              hi_row, hashed, goff, first, size, hits, groups, label_slot, tail_hits, repeat):
    """For rows ``lo_row .. hi_row`` of a sparse score matrix (row ``i``'s entries
    are ``starts[i] .. ends[i]``: in any order of the rows, as a run's queries come;
    column ids ``cols``, scores as their ``bits``, read as keys by
    :func:`~fastrank._kernels.keys.to_key`) and of its labels (``lptr``, ``lcols``
    likewise; ``lrel`` 1.0 where relevant, 0.0 for a positive grade below the
    relevance level):

    * row ``i``'s tie groups that start at ranks below ``depth`` and hold a
      labelled entry, and its first group whatever it holds, in rank order, at
      ``goff[i] + g``: ``first`` (0-based rank), ``size``, ``hits`` (the sum of
      ``lrel`` over its labels); ``groups[i]`` of them (at most ``min(depth,
      stored, labels + 1)``, the room ``goff`` must leave);
    * ``label_slot[l]``: label ``l``'s group, -1 for a stored label below the cut,
      -2 for an unstored one; ``tail_hits[i]``: the sum of ``lrel`` over row
      ``i``'s unstored labels.

    A label finds its entry by a merge when ``hashed`` is 0 (both column lists
    increasing within a row, as in a canonical CSR matrix), else through a hash
    table of the row's columns (any order, as a run lists its documents); then
    ``repeat[i]`` is the place of a column the row holds twice (-1 when none).

    A row with few labelled entries (at most ``FEW``) is not sorted: each of its
    distinct labelled keys counts the entries above and equal to it. Otherwise
    the entries scored at least the ``depth``-th highest score (counted with
    repeats) are sorted: a group starting lower begins after at least ``depth``
    entries. One pass finds that score (a small sorted buffer of the best
    ``depth`` so far; most entries fail its first comparison), a second collects
    the entries at or above it, and only those are sorted (by insertion when few;
    no allocation per row).
    """
    widest = 0
    for i in range(lo_row, hi_row):
        widest = max(widest, ends[i] - starts[i])
    best = np.empty(max(depth, 1), np.uint64)
    picked = np.empty(widest, np.int64)
    spare = np.empty(widest, np.int64)
    picked_keys = np.empty(widest, np.uint64)
    row_keys = np.empty(widest, np.uint64)
    rel = np.zeros(widest, np.float64)
    group_of = np.empty(widest, np.int64)
    labelled = np.zeros(widest, np.bool_)
    few_keys = np.empty(FEW, np.uint64)
    few_entry = np.empty(FEW, np.int64)
    width = 2
    while width < 2 * widest:
        width *= 2
    shift = 64
    while (1 << (64 - shift)) < width:
        shift -= 1
    table = np.full(width if hashed else 1, -1, np.int64)
    used = np.empty(widest if hashed else 1, np.int64)
    for i in range(lo_row, hi_row):
        lo = starts[i]
        hi = ends[i]
        n = hi - lo
        llo = lptr[i]
        lhi = lptr[i + 1]
        # each label's stored entry: a merge of two increasing column lists, or a
        # hash table of the row's columns (linear probing; cleared after the row)
        if hashed:
            repeat[i] = -1
            for j in range(n):
                c = cols[lo + j]
                s = _slot(c, shift)
                while table[s] >= 0 and cols[lo + table[s]] != c:
                    s = (s + 1) & (width - 1)
                if table[s] >= 0:
                    if repeat[i] < 0:
                        repeat[i] = lo + j
                else:
                    table[s] = j
                used[j] = s
            for lab in range(llo, lhi):
                c = lcols[lab]
                s = _slot(c, shift)
                while table[s] >= 0 and cols[lo + table[s]] != c:
                    s = (s + 1) & (width - 1)
                label_slot[lab] = table[s] if table[s] >= 0 else -2
            for j in range(n):
                table[used[j]] = -1
        else:
            e = lo
            for lab in range(llo, lhi):
                c = lcols[lab]
                while e < hi and cols[e] < c:
                    e += 1
                label_slot[lab] = e - lo if e < hi and cols[e] == c else -2  # for now: its place
        found = 0
        for lab in range(llo, lhi):
            j = label_slot[lab]
            if j >= 0:
                rel[j] = lrel[lab]
                labelled[j] = True
                found += 1
        for j in range(n):
            group_of[j] = -1
            row_keys[j] = to_key(np.uint64(bits[lo + j]), kind, sign, ones)
        g = -1
        if n > 0 and found <= FEW:
            # the labelled entries' keys, highest first (insertion: few of them)
            h = 0
            for lab in range(llo, lhi):
                j = label_slot[lab]
                if j < 0:
                    continue
                key = row_keys[j]
                at = h
                while at > 0 and few_keys[at - 1] < key:
                    few_keys[at] = few_keys[at - 1]
                    few_entry[at] = few_entry[at - 1]
                    at -= 1
                few_keys[at] = key
                few_entry[at] = j
                h += 1
            top = row_keys[0]
            for j in range(1, n):
                top = max(top, row_keys[j])
            if h == 0 or few_keys[0] != top:  # the first group, unlabelled
                count = 0
                for j in range(n):
                    count += row_keys[j] == top
                g = 0
                first[goff[i]] = 0
                size[goff[i]] = count
                hits[goff[i]] = 0.0
            q = 0
            while q < h:
                key = few_keys[q]
                above = 0
                equal = 0
                for j in range(n):  # (branch-free counts; vectorised)
                    above += row_keys[j] > key
                    equal += row_keys[j] == key
                if above >= depth:
                    break
                g += 1
                first[goff[i] + g] = above
                size[goff[i] + g] = equal
                total = 0.0
                while q < h and few_keys[q] == key:
                    total += rel[few_entry[q]]
                    group_of[few_entry[q]] = g
                    q += 1
                hits[goff[i] + g] = total
        elif n > 0:
            # the depth-th highest key (with repeats), ``best`` kept in decreasing order;
            # when the cut is deep in the row, every entry is picked (and sorted)
            filled = 0
            select = depth * 8 < n
            if select:
                for j in range(n):
                    key = row_keys[j]
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
            # each group of the picked entries, kept when it is the first or holds a
            # labelled entry (its entries take the next slot until it closes)
            start = 0
            keep = False
            prev = np.uint64(0)
            for pos in range(h + 1):
                if pos < h:
                    j = picked[pos]
                    key = row_keys[j]
                if pos == h or (pos > 0 and key != prev):
                    if keep or start == 0:
                        g += 1
                        first[goff[i] + g] = start
                        size[goff[i] + g] = pos - start
                        total = 0.0
                        for p in range(start, pos):
                            total += rel[picked[p]]
                        hits[goff[i] + g] = total
                    if pos == h or pos >= depth:  # (the rest start below the cut)
                        break
                    start = pos
                    keep = False
                prev = key
                keep = keep or labelled[j]
                group_of[j] = g + 1
        groups[i] = g + 1
        tail = 0.0
        for lab in range(llo, lhi):
            j = label_slot[lab]
            if j >= 0:
                label_slot[lab] = group_of[j]
                rel[j] = 0.0  # clean for the next row
                labelled[j] = False
            else:
                tail += lrel[lab]
        tail_hits[i] = tail
