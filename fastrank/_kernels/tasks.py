"""The first passes over a task's scores: cut into score ranges, split by class, count ties.

* :func:`split` copies a task's scores into the positives' and the negatives'
  arrays (with their weights, dropping zero weights), without a branch on
  the label.
* :func:`count_above` and :func:`partition` cut one large task into score
  ranges at the keys ``pivots`` (split by class on the way, for the
  in-process engine), so that each range is sorted and swept on its own
  thread; ties never straddle a range.
* :func:`count_ties` counts each distinct score in a small hash table, for
  tasks whose scores take few values (rounded scores, uint8 outputs): no sort
  at all. It gives up beyond :data:`HASH_MAX_DISTINCT` values.

None of them checks the scores: a NaN or an infinity sorts to an end of its
class (numpy's sort and fastrank's alike), where the engine looks for it
before anything is computed from the sorted scores; the counted ties are
checked likewise. The scores are read, copied and compared, never used.
"""

from __future__ import annotations

import numpy as np

from .jit import KEYS, b1, f64, helper, i64, kernel, ro, rw, u8, u64
from .keys import to_key

_SPLIT = [(ro(k), ro(u8), ro(f64), i64, i64, rw(k), rw(k), rw(f64), rw(f64), rw(i64))
          for k in KEYS]

# NONNEGATIVE: a loop ``for i in range(lo, hi)`` over ``a[i]`` makes Numba check
# each index for a negative value (and wrap it), which keeps LLVM from
# vectorising the loop; a loop over a slice's own length, ``for i in
# range(x.shape[0])``, does not. Measured: the bucket pass of :func:`partition`
# 3.0 ms -> 1.2 ms, :func:`split` 0.83 ms -> 0.55 ms at a million samples.


@kernel(_SPLIT)
def split(bits, labels, weights, lo, hi, p, q, pw, qw, counts):
    """:func:`split_samples` as called from Python."""
    split_samples(bits, labels, weights, lo, hi, p, q, pw, qw, counts)


@helper(inputs=("bits", "labels", "weights"))
def split_samples(bits, labels, weights, lo, hi, p, q, pw, qw, counts):
    """Samples ``lo .. hi`` into the positives ``p`` and the negatives ``q``.

    Each sample is written to both and kept by its class's (no branch on the
    label), so ``p`` and ``q`` need one slot of slack. ``weights`` is empty
    when unweighted; otherwise ``pw``/``qw`` receive them and zero-weight
    samples are dropped. ``counts`` receives the numbers kept.
    """
    pc = np.int64(0)
    qc = np.int64(0)
    xb = bits[lo:hi]  # loops over a slice's own length: see NONNEGATIVE
    xl = labels[lo:hi]
    if weights.shape[0] == 0:
        for i in range(xb.shape[0]):
            b = xb[i]
            lab = np.int64(xl[i] != 0)
            p[pc] = b
            q[qc] = b
            pc += lab
            qc += 1 - lab
    else:
        xw = weights[lo:hi]
        for i in range(xb.shape[0]):
            w = xw[i]
            if w == 0.0:
                continue
            b = xb[i]
            lab = np.int64(xl[i] != 0)
            p[pc] = b
            q[qc] = b
            pw[pc] = w
            qw[qc] = w
            pc += lab
            qc += 1 - lab
    counts[0] = pc
    counts[1] = qc


MAX_PIVOTS = 7  # score ranges of one task: at most 8
LANES = 4  # each thread's samples go in four quarters, through separate cursors

_ABOVE = [(ro(k), ro(u8), ro(f64), i64, u64, u64, ro(u64), i64, i64, i64, b1, rw(i64, 3))
          for k in KEYS]


@helper
def quarters(lo, hi):
    """The bounds of the four lanes of samples ``lo .. hi`` (the last takes the rest)."""
    m = (hi - lo) // LANES
    return lo, lo + m, lo + 2 * m, lo + 3 * m, hi


@kernel(_ABOVE)
def count_above(bits, labels, weights, kind, sign, ones, pivots, npiv, lo, hi, by_class,
                counts):
    """Per lane of samples ``lo .. hi`` (:func:`quarters`), how many reach each cut.

    ``pivots``: :data:`MAX_PIVOTS` order keys, ascending, the first ``npiv``
    real and the rest ``2**64 - 1``. ``counts[lane, 0, t]`` += the samples of
    ``lane`` whose key is at or above cut ``t`` (cut 0 is below every key, cut
    ``t > 0`` is ``pivots[t - 1]``); ``counts[lane, 1, t]`` += the positives
    among them. With ``by_class``, samples of zero weight are not counted
    (:func:`partition` drops them). The counters of a lane live in registers;
    entries past cut ``npiv`` are left alone.
    """
    p0, p1, p2, p3, p4, p5, p6 = (pivots[0], pivots[1], pivots[2], pivots[3], pivots[4],
                                  pivots[5], pivots[6])
    weighted = by_class and weights.shape[0] > 0
    b = quarters(lo, hi)
    for lane in range(LANES):
        a = c0 = c1 = c2 = c3 = c4 = c5 = c6 = np.int64(0)
        pa = d0 = d1 = d2 = d3 = d4 = d5 = d6 = np.int64(0)
        xb = bits[b[lane]:b[lane + 1]]  # see NONNEGATIVE
        xl = labels[b[lane]:b[lane + 1]]
        xw = weights[b[lane]:b[lane + 1]] if weighted else weights
        for i in range(xb.shape[0]):
            k = to_key(np.uint64(xb[i]), kind, sign, ones)
            keep = np.int64(1)
            if weighted:
                keep = np.int64(xw[i] != 0.0)
            lab = np.int64(xl[i] != 0) & keep
            e0 = np.int64(k >= p0) & keep
            e1 = np.int64(k >= p1) & keep
            e2 = np.int64(k >= p2) & keep
            e3 = np.int64(k >= p3) & keep
            e4 = np.int64(k >= p4) & keep
            e5 = np.int64(k >= p5) & keep
            e6 = np.int64(k >= p6) & keep
            a += keep
            c0 += e0
            c1 += e1
            c2 += e2
            c3 += e3
            c4 += e4
            c5 += e5
            c6 += e6
            pa += lab
            d0 += e0 & lab
            d1 += e1 & lab
            d2 += e2 & lab
            d3 += e3 & lab
            d4 += e4 & lab
            d5 += e5 & lab
            d6 += e6 & lab
        counts[lane, 0, 0] += a
        counts[lane, 1, 0] += pa
        for t, (c, d) in enumerate(((c0, d0), (c1, d1), (c2, d2), (c3, d3), (c4, d4), (c5, d5),
                                    (c6, d6))):
            if t < npiv:
                counts[lane, 0, t + 1] += c
                counts[lane, 1, t + 1] += d


_PARTITION = [(ro(k), ro(u8), ro(f64), i64, u64, u64, ro(u64), i64, i64, i64, b1, rw(i64, 2),
               rw(u8), rw(k), rw(u8), rw(f64)) for k in KEYS]
DROPPED = 255  # the bucket of a sample left out (zero weight, by class)


@kernel(_PARTITION)
def partition(bits, labels, weights, kind, sign, ones, pivots, npiv, lo, hi, by_class, cur, ids,
              out, lout, wout):
    """Samples ``lo .. hi`` (scores, labels, weights) into their score ranges.

    Range ``r`` holds the keys ``k`` with ``pivots[r - 1] <= k < pivots[r]``
    (``pivots``, ``npiv`` as in :func:`count_above`). Without ``by_class``
    bucket ``r`` is range ``r``, with the labels copied to ``lout``; with it,
    buckets ``2 r`` and ``2 r + 1`` hold the range's negatives and positives,
    zero-weight samples are dropped and ``lout`` is not used. A sample of lane
    ``lane`` (:func:`quarters`) goes to slot ``cur[lane, bucket]``, which then
    moves on (the callers lay the lanes' parts out next to each other within
    each bucket, and give every thread its own cursors).

    Two passes: every sample's bucket into ``ids[lo:hi]`` (scratch; the pass
    vectorises), then the moves. Moving while finding the buckets measured
    2.5 times slower: each move's cursor then waits on a key computation.
    """
    p0, p1, p2, p3, p4, p5, p6 = (pivots[0], pivots[1], pivots[2], pivots[3], pivots[4],
                                  pivots[5], pivots[6])
    weighted = weights.shape[0] > 0
    xb = bits[lo:hi]  # see NONNEGATIVE
    xl = labels[lo:hi]
    xi = ids[lo:hi]
    for i in range(xb.shape[0]):
        k = to_key(np.uint64(xb[i]), kind, sign, ones)
        r = (np.int64(k >= p0) + np.int64(k >= p1) + np.int64(k >= p2) + np.int64(k >= p3)
             + np.int64(k >= p4) + np.int64(k >= p5) + np.int64(k >= p6))
        r = min(r, npiv)  # a key at the padding value (2**64 - 1) is in the top range
        if by_class:
            r = 2 * r + np.int64(xl[i] != 0)
        xi[i] = r
    if by_class and weighted:
        xw = weights[lo:hi]
        for i in range(xb.shape[0]):
            if xw[i] == 0.0:
                xi[i] = DROPPED
    b = quarters(lo, hi)
    for lane in range(LANES):
        c = cur[lane]
        s = b[lane]
        xb = bits[s:b[lane + 1]]
        xl = labels[s:b[lane + 1]]
        xi = ids[s:b[lane + 1]]
        if by_class and not weighted:
            for i in range(xb.shape[0]):
                r = np.int64(xi[i])
                at = c[r]
                c[r] = at + 1
                out[at] = xb[i]
        elif by_class:
            xw = weights[s:b[lane + 1]]
            for i in range(xb.shape[0]):
                r = np.int64(xi[i])
                if r == DROPPED:
                    continue
                at = c[r]
                c[r] = at + 1
                out[at] = xb[i]
                wout[at] = xw[i]
        else:
            xw = weights[s:b[lane + 1]] if weighted else weights
            for i in range(xb.shape[0]):
                r = np.int64(xi[i])
                at = c[r]
                c[r] = at + 1
                out[at] = xb[i]
                lout[at] = xl[i]
                if weighted:
                    wout[at] = xw[i]


HASH_LOG2_SLOTS = 12  # a table that stays in cache and costs little to give up on
HASH_SLOTS = 1 << HASH_LOG2_SLOTS
HASH_MAX_DISTINCT = HASH_SLOTS // 2
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

_COUNT = [(ro(k), i64, u64, u64, ro(u8), i64, i64, rw(u64), rw(f64), rw(f64), rw(u8))
          for k in KEYS]


@kernel(_COUNT)
def count_ties(bits, kind, sign, ones, labels, lo, hi, tkey, tpos, tneg, used):
    """Count the positives and negatives of each distinct score of samples
    ``lo .. hi`` into an open-addressing table (``HASH_SLOTS`` slots of keys,
    counts, used flags; zeroed by the caller, or holding an earlier part).

    Returns the number of distinct keys in the table, or -1 once it would
    pass :data:`HASH_MAX_DISTINCT` (give up).
    """
    mask = np.uint64(HASH_SLOTS - 1)
    shift = np.uint64(64 - HASH_LOG2_SLOTS)
    distinct = 0
    for t in range(HASH_SLOTS):
        distinct += used[t]
    xb = bits[lo:hi]  # see NONNEGATIVE
    xl = labels[lo:hi]
    for i in range(xb.shape[0]):
        k = to_key(np.uint64(xb[i]), kind, sign, ones)
        h = (k * _GOLDEN) >> shift
        while True:
            if not used[h]:
                if distinct == HASH_MAX_DISTINCT:
                    return -1
                used[h] = 1
                tkey[h] = k
                distinct += 1
                break
            if tkey[h] == k:
                break
            h = (h + np.uint64(1)) & mask
        if xl[i]:
            tpos[h] += 1.0
        else:
            tneg[h] += 1.0
    return distinct


# uint64 bits only: 4-byte scores' bits come widened (tie_tables._sorted_rows)
_TIE_GROUPS = [(ro(u64), ro(f64), ro(u8), ro(f64), rw(i64), rw(f64), rw(f64), rw(u64))]


@kernel(_TIE_GROUPS)
def tie_groups(bits, rows, labels, weights, gid, gpos, gneg, gkey):
    """Each sample's tie group (0 = the highest score) and the groups' class totals.

    ``bits``: the scores' bits sorted ascending (a zero of either sign as +0.0;
    4-byte scores' widened to uint64), ``rows``: each one's sample index (a
    float64 payload moved by the sort, stably, so equal scores keep their
    sample order). ``gid[row]`` receives
    the group, ``gpos``/``gneg`` (zeroed by the caller) each group's positive
    and negative count, or weight sum when ``weights`` is not empty, summed
    in sample order; ``gkey`` each group's score bits. Returns the number of
    groups.
    """
    n = bits.shape[0]
    weighted = weights.shape[0] > 0
    g = 0
    hi = n  # bits[lo:hi] is the next group down
    while hi > 0:
        v = bits[hi - 1]
        lo = hi - 1
        while lo > 0 and bits[lo - 1] == v:
            lo -= 1
        members = rows[lo:hi]  # in sample order
        dp = 0.0
        dn = 0.0
        for i in range(members.shape[0]):
            row = np.int64(members[i])
            gid[row] = g
            w = weights[row] if weighted else 1.0
            if labels[row] != 0:
                dp += w
            else:
                dn += w
        gpos[g] = dp
        gneg[g] = dn
        gkey[g] = np.uint64(v)
        g += 1
        hi = lo
    return g


_PLACEMENTS = [(ro(u64), ro(f64), ro(u8), rw(f64))]  # as _TIE_GROUPS


@kernel(_PLACEMENTS)
def placements(bits, rows, labels, v):
    """DeLong's placement of every sample of an unweighted task with both classes.

    ``bits``/``rows`` as in :func:`tie_groups`. ``v[row]`` receives
    ``(N - fp - dn / 2) / N`` for a positive and ``(tp + dp / 2) / P`` for a
    negative, where ``fp``/``tp`` count the other class strictly above the
    sample's tie group and ``dn``/``dp`` within it (the same operations as
    :func:`fastrank._core.delong.group_placements`, on exact counts).
    """
    n = bits.shape[0]
    npos = 0
    for i in range(n):
        npos += labels[i] != 0
    pos = float(npos)
    neg = float(n - npos)
    tp = 0.0
    fp = 0.0
    hi = n
    while hi > 0:
        x = bits[hi - 1]
        lo = hi - 1
        while lo > 0 and bits[lo - 1] == x:
            lo -= 1
        members = rows[lo:hi]
        dp = 0.0
        for i in range(members.shape[0]):
            dp += labels[np.int64(members[i])] != 0
        dn = float(members.shape[0]) - dp
        v10 = (neg - fp - 0.5 * dn) / neg
        v01 = (tp + 0.5 * dp) / pos
        for i in range(members.shape[0]):
            row = np.int64(members[i])
            v[row] = v10 if labels[row] != 0 else v01
        tp += dp
        fp += dn
        hi = lo

