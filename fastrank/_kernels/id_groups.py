"""Text ids coded by group: the document ids of a run and its qrels (numpy ``str``
arrays) on several threads, by :func:`trec_groups`.

One hash table for every distinct id (mode -1) is larger than the caches, so
nearly every row's probe waits on a miss. Here the rows are first cut into
:data:`ID_GROUPS` groups by the top bits of their ids' hash; each group is then
coded through a table of its own, small enough to stay in the cache, by one
thread, while the rows of other groups go to the others. Four passes (the
kernel's modes), each cut into parts that share nothing (the caller hands them
to its threads):

* :data:`GROUP` (:func:`group_rows`): each row's group, and the rows per group
  of a part;
* :data:`SCATTER` (:func:`group_rows` too): each row's two words, stored group
  by group (rows in their order within a group);
* :data:`CODE` (:func:`code_groups`): each group's rows through its own table:
  each a code numbered within its group, and the group's distinct ids' words;
* :data:`NUMBER` (:func:`row_codes`): each row's code among all (the groups'
  codes one after the other) and each distinct id's first row.

Only ids whole in two words are coded so (at most 16 characters, each below
256, as the document ids of the TREC newswire collections are, such as
``FBIS3-10082`` or ``LA010189-0001``; not ClueWeb's 25): the words are then the
id itself, so the groups compare words and never go back to the rows.
"""

from __future__ import annotations

import numpy as np

from .jit import f64, helper, i64, kernel, ro, rw, u8

GROUP, SCATTER, CODE, NUMBER = range(4)  # the kernel's modes, in the order they run
GROUP_BITS = 8
ID_GROUPS = 1 << GROUP_BITS  # groups of ids, each coded through a table of its own
HEAD = 16  # the header of every mode's ``iout`` (see text), then a region of N rows per use
_MUL0 = 0xFF51AFD7ED558CCD  # murmur3's finaliser constants
_MUL1 = 0xC4CEB9FE1A85EC53


@helper
def id_words(points, lo, m):
    """The record ``points[lo:lo + m]`` (UCS4 code points, zero padded) as its units'
    bytes in two little-endian words, and an OR of its units (those past the 16th
    shifted up a byte): below 256 exactly when the words hold the whole id. The
    first 8 units are 8 loads at fixed places (see text's mode -1)."""
    acc = np.uint64(0)
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    if m >= 8:
        u0 = np.uint64(points[lo])
        u1 = np.uint64(points[lo + 1])
        u2 = np.uint64(points[lo + 2])
        u3 = np.uint64(points[lo + 3])
        u4 = np.uint64(points[lo + 4])
        u5 = np.uint64(points[lo + 5])
        u6 = np.uint64(points[lo + 6])
        u7 = np.uint64(points[lo + 7])
        acc = (u0 | u1) | (u2 | u3) | ((u4 | u5) | (u6 | u7))
        w0 = (u0 | (u1 << np.uint64(8)) | (u2 << np.uint64(16)) | (u3 << np.uint64(24))) | (
            (u4 << np.uint64(32)) | (u5 << np.uint64(40)) | (u6 << np.uint64(48))
            | (u7 << np.uint64(56)))
    else:
        for k in range(m):
            u = np.uint64(points[lo + k])
            acc |= u
            w0 |= u << np.uint64(8 * k)
    for k in range(8, min(m, 16)):
        u = np.uint64(points[lo + k])
        acc |= u
        w1 |= u << np.uint64(8 * (k - 8))
    for k in range(16, m):
        acc |= np.uint64(points[lo + k]) << np.uint64(8)
    return w0, w1, acc


@helper
def mix(w0, w1, n):
    """A hash of an id of ``n`` bytes whose first 16 are the words ``w0``, ``w1``
    (zero padded): the words multiplied apart, then murmur's finaliser, so that
    a difference in any byte reaches the top bits (text's first slot, a group
    here). Text's mode -1 hashes its records' words (and tag) by the same."""
    h = np.uint64(w0) * np.uint64(_MUL0) ^ (np.uint64(w1) + np.uint64(n)) * np.uint64(_MUL1)
    h ^= h >> np.uint64(33)
    h *= np.uint64(_MUL0)
    h ^= h >> np.uint64(29)
    return h


@helper
def group_rows(scatter, data, ints, reals, iout, fout):
    """Modes :data:`GROUP` and :data:`SCATTER`: ``ints`` = (bytes a record of
    ``data``, its records, the same of ``reals``, rows ``lo``, ``hi``, then, for
    :data:`SCATTER` (``scatter``), where each group's next row of this part goes)
    of ``N`` rows in all (``data``'s first).
    :data:`GROUP` writes each of rows ``lo .. hi``'s group at ``iout[HEAD + r]`` and
    counts them per group into ``fout`` (int64 bits, :data:`ID_GROUPS` slots,
    zero), and returns the first row not whole in two words (-1: none).
    :data:`SCATTER` writes the rows' words, row by row, into the words region
    ``iout[HEAD + N:HEAD + 3 N]`` (two slots a row) at their group's next place."""
    n0 = ints[1]
    n = n0 + ints[3]
    lo, hi = ints[4], ints[5]
    at = np.empty(ID_GROUPS, np.int64)
    if scatter:
        for g in range(ID_GROUPS):
            at[g] = ints[6 + g]
    else:
        at = fout.view(np.int64)
    words = iout[HEAD + n:HEAD + 3 * n]
    got = _rows(scatter, data.view(np.uint32), ints[0] >> 2, lo, min(hi, n0), 0, iout, at,
                words)
    if got >= 0:
        return got
    return _rows(scatter, reals.view(np.uint32), ints[2] >> 2, max(lo, n0) - n0, hi - n0, n0,
                 iout, at, words)


@helper
def _rows(scatter, points, m, lo, hi, base, iout, at, words):
    """:func:`group_rows` of one array's records ``lo .. hi`` (rows from ``base``): a
    loop for each array, so that each reads one array (one loop for both, choosing
    the array per row, took 26 against 10 ns a row, AMD Zen 4)."""
    for r in range(lo, hi):
        w0, w1, acc = id_words(points, r * m, m)
        if scatter:
            x = at[iout[HEAD + base + r]]
            at[iout[HEAD + base + r]] = x + 1
            words[2 * x] = np.int64(w0)
            words[2 * x + 1] = np.int64(w1)
            continue
        if acc >= np.uint64(256):
            return base + r
        g = np.int64(mix(w0, w1, 0) >> np.uint64(64 - GROUP_BITS))
        iout[HEAD + base + r] = g
        at[g] += 1
    return -1


@helper
def code_groups(ints, iout, fout):
    """Mode :data:`CODE`: ``ints`` = (four as :data:`GROUP`'s, groups ``g0``, ``g1``, then the
    :data:`ID_GROUPS` + 1 starts of the groups' rows in the words region). Codes
    each group's rows through a table of its own: ``fout`` (int32 bits, a slot a
    row in the words region's order, then one a group) receives each row's code
    within its group, as ``~code`` at the row that met the id first, and each
    group's number of distinct ids at ``N + g``; each group's distinct ids' words
    go to the start of its part of the words region (its rows' words are read by
    then)."""
    n = ints[1] + ints[3]
    words = iout[HEAD + n:HEAD + 3 * n]
    local = fout.view(np.int32)
    for g in range(ints[4], ints[5]):
        lo = ints[6 + g]
        hi = ints[7 + g]
        slots = 64
        while 2 * slots < hi - lo:  # half a slot a row (grown at half full where most ids differ)
            slots *= 2
        bits = 0
        while (1 << bits) < slots:
            bits += 1
        table = np.full(3 * slots, -1, np.int64)  # (word, word, code) a slot
        nd = 0
        for x in range(lo, hi):
            w0 = words[2 * x]
            w1 = words[2 * x + 1]
            s = np.int64((mix(w0, w1, 0) << np.uint64(GROUP_BITS))
                         >> np.uint64(64 - bits))
            mask = slots - 1
            while True:
                c = table[3 * s + 2]
                if c < 0 or (table[3 * s] == w0 and table[3 * s + 1] == w1):
                    break
                s = (s + 1) & mask
            if c >= 0:
                local[x] = np.int32(c)
                continue
            table[3 * s] = w0
            table[3 * s + 1] = w1
            table[3 * s + 2] = nd
            local[x] = np.int32(~nd)
            nd += 1
            if 2 * nd > slots:  # half full: twice the slots, every id placed again
                slots *= 2
                bits += 1
                mask = slots - 1
                bigger = np.full(3 * slots, -1, np.int64)
                for j in range(slots >> 1):
                    if table[3 * j + 2] >= 0:
                        a = table[3 * j]
                        b = table[3 * j + 1]
                        t = np.int64((mix(a, b, 0) << np.uint64(GROUP_BITS))
                                     >> np.uint64(64 - bits))
                        while bigger[3 * t + 2] >= 0:
                            t = (t + 1) & mask
                        bigger[3 * t] = a
                        bigger[3 * t + 1] = b
                        bigger[3 * t + 2] = table[3 * j + 2]
                table = bigger
        for j in range(slots):  # the distinct ids' words, by code (their rows are read)
            c = table[3 * j + 2]
            if c >= 0:
                words[2 * (lo + c)] = table[3 * j]
                words[2 * (lo + c) + 1] = table[3 * j + 1]
        local[n + g] = np.int32(nd)
    return -1


@helper
def row_codes(ints, iout, fout):
    """Mode :data:`NUMBER`: ``ints`` as :data:`SCATTER`'s (where this part's rows of
    each group are in the words region), then the first code of each group; writes
    each row's code among all at ``iout[HEAD + r]`` (its group until then) and, at
    the row that met an id first, that row at ``iout[HEAD + N + code]`` (the words
    region's start: the caller has taken the distinct ids' words from it)."""
    n = ints[1] + ints[3]
    at = np.empty(ID_GROUPS, np.int64)
    for g in range(ID_GROUPS):
        at[g] = ints[6 + g]
    base = 6 + ID_GROUPS
    local = fout.view(np.int32)
    for r in range(ints[4], ints[5]):
        g = iout[HEAD + r]
        x = at[g]
        at[g] = x + 1
        c = np.int64(local[x])
        if c < 0:
            c = ints[base + g] + ~c
            iout[HEAD + n + c] = r
        else:
            c += ints[base + g]
        iout[HEAD + r] = c
    return -1


# One signature, so one compiled variant, and a kernel of its own, so that only a
# call with this many document ids compiles it: in text's trec_arrays these passes
# added 1.5-1.9 s to every first evaluate_run from arrays (4.8-5.1 against 6.6-6.7 s
# for that kernel from an empty cache, three alternating runs, AMD Zen 4).
@kernel([(i64, ro(u8), ro(i64), ro(f64), rw(i64), rw(f64))])
def trec_groups(mode, data, ints, reals, iout, fout):
    """The passes of the coding by group (see the module's notes), one per ``mode``,
    over ``data``'s records and then ``reals``' (as bytes): :func:`group_rows`
    (:data:`GROUP` and :data:`SCATTER`), :func:`code_groups` (:data:`CODE`) and
    :func:`row_codes` (:data:`NUMBER`)."""
    if mode == GROUP or mode == SCATTER:
        return group_rows(mode == SCATTER, data, ints, reals, iout, fout)
    if mode == CODE:
        return code_groups(ints, iout, fout)
    return row_codes(ints, iout, fout)


__all__ = ["CODE", "GROUP", "GROUP_BITS", "ID_GROUPS", "NUMBER", "SCATTER", "code_groups",
           "group_rows", "id_words", "mix", "row_codes", "trec_groups"]
