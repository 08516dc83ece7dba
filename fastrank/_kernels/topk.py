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

FEW = 128  # up to this many distinct labelled scores, a row's entries are counted per score
# how a row's labels find their entries: by a merge of increasing column ids, through a
# hash table of the row's ids (any order), or as places (label column = entry's place)
JOIN_MERGE, JOIN_HASH, JOIN_PLACE = 0, 1, 2
_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing's multiplier, 2**64 / golden ratio

_HEADS = [(ro(i64), ro(i64), ro(i64), ro(k), i64, u64, u64, ro(i64), ro(i64), ro(f64), i64,
           i64, i64, i64, ro(i64), rw(i64), rw(i64), rw(f64), rw(i64), rw(i64), rw(f64),
           rw(i64), rw(u64), rw(i64), rw(f64)) for k in KEYS]


def hash_width(widest: int) -> int:
    """The slots of the hash table for rows of up to ``widest`` entries: the least
    power of two from 2 on that is at least twice as many (as Python, and as
    :func:`_hash_width` in the kernel)."""
    width = 2
    while width < 2 * widest:
        width *= 2
    return width


_hash_width = helper(hash_width)


def heads_room(widest: int, most: int, join: int) -> tuple[int, int, int]:
    """The lengths of :func:`row_heads`'s three workspaces (uint64, int64, float64)
    for rows of up to ``widest`` entries and ``most`` labels.

    The caller allocates them (one set per thread), so that the kernel holds no
    allocation: each array allocation in a kernel is code of its own for Numba to
    compile (the kernel's first call compiled in 2.17-2.47 s with them passed in,
    2.42-4.06 s allocating them itself, in alternating runs on a 2-core Zen 3)."""
    hashed = join == JOIN_HASH
    return (widest + 2 * most, 4 * most + 2 + (hash_width(widest) + widest if hashed else 0),
            most)


@helper
def _slot(col, shift):
    """The first table slot a column id hashes to (the top bits of its product)."""
    return np.int64((np.uint64(col) * np.uint64(_GOLDEN)) >> np.uint64(shift))


@kernel(_HEADS)
def row_heads(starts, ends, cols, bits, kind, sign, ones, lptr, lcols, lrel, depth, lo_row,
              hi_row, join, goff, first, size, hits, groups, label_slot, tail_hits, repeat,
              wu, wi, wf):
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

    A label finds its entry by a merge (``join`` ``JOIN_MERGE``: both column lists
    increasing within a row, as in a canonical CSR matrix), through a hash table
    of the row's columns (``JOIN_HASH``: any order, as a run lists its documents;
    then ``repeat[i]`` is the place of a column the row holds twice, -1 when
    none), or as the entry at its column's place (``JOIN_PLACE``: every column of
    a dense row stored; ``cols`` is not read).

    No row is sorted: only its labelled entries' scores are (by insertion, with
    Shell's gaps when many), and each entry is counted against them, above or
    equal to each distinct one (with up to ``FEW`` of them, one branch-free count
    per score; beyond, a branch-free binary search per entry). A group's first
    rank is the count of the entries above it. No allocation: ``wu``, ``wi`` and
    ``wf`` are workspaces of the lengths :func:`heads_room` gives for these rows'
    widest row and most labels; the kernel computes nothing and returns False
    when they are shorter.
    """
    widest = 0
    most = 0
    for i in range(lo_row, hi_row):
        if ends[i] - starts[i] > widest:
            widest = ends[i] - starts[i]
        if lptr[i + 1] - lptr[i] > most:
            most = lptr[i + 1] - lptr[i]
    hashed = join == JOIN_HASH
    width = _hash_width(widest) if hashed else 0
    if (wu.shape[0] < widest + 2 * most or wf.shape[0] < most
            or wi.shape[0] < 4 * most + 2 + (width + widest if hashed else 0)):
        return False
    row_keys = wu[:widest]
    lab_keys = wu[widest:widest + most]  # the labelled entries' keys, highest first
    dk = wu[widest + most:widest + 2 * most]  # the distinct labelled keys, highest first
    lab_of = wi[:most]  # and their labels
    above = wi[most:2 * most + 1]  # entries above / equal to each distinct key
    equal = wi[2 * most + 1:3 * most + 2]
    slot_of = wi[3 * most + 2:4 * most + 2]  # each distinct key's group (-1: below the cut)
    dhits = wf[:most]
    shift = 64
    while (1 << (64 - shift)) < width:
        shift -= 1
    table = wi[4 * most + 2:4 * most + 2 + width]  # (hashed only)
    used = wi[4 * most + 2 + width:4 * most + 2 + width + widest]
    for j in range(width):
        table[j] = -1
    for i in range(lo_row, hi_row):
        lo = starts[i]
        hi = ends[i]
        n = hi - lo
        llo = lptr[i]
        lhi = lptr[i + 1]
        # each label's stored entry: its place, a merge of two increasing column lists,
        # or a hash table of the row's columns (linear probing; cleared after the row)
        if join == JOIN_PLACE:
            for lab in range(llo, lhi):
                label_slot[lab] = lcols[lab]
        elif hashed:
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
        for j in range(n):
            row_keys[j] = to_key(np.uint64(bits[lo + j]), kind, sign, ones)
        # the labelled entries by key, highest first (Shell's gaps, then insertion)
        h = 0
        for lab in range(llo, lhi):
            j = label_slot[lab]
            if j >= 0:
                lab_keys[h] = row_keys[j]
                lab_of[h] = lab
                h += 1
        gap = 1
        while gap * 3 + 1 < h:
            gap = gap * 3 + 1
        while gap > 0:
            for q in range(gap, h):
                key = lab_keys[q]
                lab = lab_of[q]
                at = q
                while at >= gap and lab_keys[at - gap] < key:
                    lab_keys[at] = lab_keys[at - gap]
                    lab_of[at] = lab_of[at - gap]
                    at -= gap
                lab_keys[at] = key
                lab_of[at] = lab
            gap //= 3
        v = 0
        for q in range(h):
            if q == 0 or lab_keys[q] != lab_keys[q - 1]:
                dk[v] = lab_keys[q]
                dhits[v] = 0.0
                v += 1
            dhits[v - 1] += lrel[lab_of[q]]
        # each distinct labelled key's group: the entries above it and equal to it
        if v <= FEW:
            for t in range(v):
                key = dk[t]
                a = 0
                m = 0
                for j in range(n):  # (branch-free counts; vectorised)
                    a += row_keys[j] > key
                    m += row_keys[j] == key
                above[t] = a
                equal[t] = m
        else:
            for t in range(v + 1):
                above[t] = 0
                equal[t] = 0
            for j in range(n):
                key = row_keys[j]
                at = 0  # the distinct keys above this one (a branch-free search)
                span = v
                while span > 0:
                    half = span >> 1
                    up = dk[at + half] > key
                    at = at + half + 1 if up else at
                    span = span - half - 1 if up else half
                if at < v and dk[at] == key:
                    equal[at] += 1
                else:
                    above[at] += 1
            count = 0
            for t in range(v):
                count += above[t]
                above[t] = count
                count += equal[t]
        g = -1
        if n > 0:
            top = row_keys[0]
            for j in range(1, n):
                if row_keys[j] > top:
                    top = row_keys[j]
            if v == 0 or dk[0] != top:  # the first group, unlabelled
                m = 0
                for j in range(n):
                    m += row_keys[j] == top
                g = 0
                first[goff[i]] = 0
                size[goff[i]] = m
                hits[goff[i]] = 0.0
        for t in range(v):
            if above[t] >= depth:
                slot_of[t] = -1
                continue
            g += 1
            slot_of[t] = g
            first[goff[i] + g] = above[t]
            size[goff[i] + g] = equal[t]
            hits[goff[i] + g] = dhits[t]
        groups[i] = g + 1
        t = -1
        for q in range(h):
            if q == 0 or lab_keys[q] != lab_keys[q - 1]:
                t += 1
            label_slot[lab_of[q]] = slot_of[t]
        tail = 0.0
        for lab in range(llo, lhi):
            if label_slot[lab] == -2:
                tail += lrel[lab]
        tail_hits[i] = tail
    return True
