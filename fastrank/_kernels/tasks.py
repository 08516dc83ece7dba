"""The first passes over a task's scores: cut into score ranges, split by class, count ties.

* :func:`split` copies a task's scores into the positives' and the negatives'
  arrays (with their weights, dropping zero weights), without a branch on
  the label.
* :func:`count_above` and :func:`partition` cut one large task into score
  ranges at the keys ``pivots``, so that each range is split, sorted and
  swept on its own thread; ties never straddle a range.
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

from .jit import KEYS, f64, helper, i64, kernel, ro, rw, u8, u64
from .keys import to_key

_SPLIT = [(ro(k), ro(u8), ro(f64), i64, i64, rw(k), rw(k), rw(f64), rw(f64), rw(i64))
          for k in KEYS]


@kernel(_SPLIT)
def split(bits, labels, weights, lo, hi, p, q, pw, qw, counts):
    """:func:`split_samples` as called from Python."""
    split_samples(bits, labels, weights, lo, hi, p, q, pw, qw, counts)


@helper
def split_samples(bits, labels, weights, lo, hi, p, q, pw, qw, counts):
    """Samples ``lo .. hi`` into the positives ``p`` and the negatives ``q``.

    Each sample is written to both and kept by its class's (no branch on the
    label), so ``p`` and ``q`` need one slot of slack. ``weights`` is empty
    when unweighted; otherwise ``pw``/``qw`` receive them and zero-weight
    samples are dropped. ``counts`` receives the numbers kept.
    """
    pc = np.int64(0)
    qc = np.int64(0)
    if weights.shape[0] == 0:
        for i in range(lo, hi):
            b = bits[i]
            lab = np.int64(labels[i] != 0)
            p[pc] = b
            q[qc] = b
            pc += lab
            qc += 1 - lab
    else:
        for i in range(lo, hi):
            w = weights[i]
            if w == 0.0:
                continue
            b = bits[i]
            lab = np.int64(labels[i] != 0)
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

_ABOVE = [(ro(k), i64, u64, u64, ro(u64), i64, i64, rw(i64, 2)) for k in KEYS]


@helper
def quarters(lo, hi):
    """The bounds of the four lanes of samples ``lo .. hi`` (the last takes the rest)."""
    m = (hi - lo) // LANES
    return lo, lo + m, lo + 2 * m, lo + 3 * m, hi


@kernel(_ABOVE)
def count_above(bits, kind, sign, ones, pivots, lo, hi, counts):
    """``counts[lane, t]`` += how many samples of lane ``lane`` of ``lo .. hi``
    (:func:`quarters`) have a key at or above ``pivots[t]``; the counters of
    a lane live in registers (at most :data:`MAX_PIVOTS` pivots)."""
    nr = pivots.shape[0]
    top = ~np.uint64(0)
    p0 = pivots[0] if nr > 0 else top
    p1 = pivots[1] if nr > 1 else top
    p2 = pivots[2] if nr > 2 else top
    p3 = pivots[3] if nr > 3 else top
    p4 = pivots[4] if nr > 4 else top
    p5 = pivots[5] if nr > 5 else top
    p6 = pivots[6] if nr > 6 else top
    b = quarters(lo, hi)
    for lane in range(LANES):
        c0 = c1 = c2 = c3 = c4 = c5 = c6 = 0
        for i in range(b[lane], b[lane + 1]):
            k = to_key(np.uint64(bits[i]), kind, sign, ones)
            c0 += k >= p0
            c1 += k >= p1
            c2 += k >= p2
            c3 += k >= p3
            c4 += k >= p4
            c5 += k >= p5
            c6 += k >= p6
        for t, c in enumerate((c0, c1, c2, c3, c4, c5, c6)):
            if t < nr:
                counts[lane, t] += c


_PARTITION = [(ro(k), ro(u8), ro(f64), i64, u64, u64, ro(u64), i64, i64, rw(i64, 2), rw(k),
               rw(u8), rw(f64)) for k in KEYS]


@kernel(_PARTITION)
def partition(bits, labels, weights, kind, sign, ones, pivots, lo, hi, cur, out, lout, wout):
    """Samples ``lo .. hi`` (scores, labels, weights) into their score ranges.

    Range ``r`` holds the keys ``k`` with ``pivots[r - 1] <= k < pivots[r]``.
    A sample of lane ``lane`` (:func:`quarters`) goes to slot ``cur[lane, r]``,
    which then moves on. The four lanes are walked side by side, each with its
    own cursors (the callers lay the lanes' parts out next to each other within
    each range, and give every thread its own), so that no sample waits for the
    previous one's cursor.
    """
    nr = pivots.shape[0]
    weighted = weights.shape[0] > 0
    b = quarters(lo, hi)
    m = b[1] - b[0]
    for step in range(m + (b[4] - b[3] - m)):
        for lane in range(LANES):
            if step >= m and lane < LANES - 1:
                continue
            i = b[lane] + step
            v = bits[i]
            k = to_key(np.uint64(v), kind, sign, ones)
            r = 0
            for t in range(nr):
                r += k >= pivots[t]
            at = cur[lane, r]
            cur[lane, r] = at + 1
            out[at] = v
            lout[at] = labels[i]
            if weighted:
                wout[at] = weights[i]


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
    for i in range(lo, hi):
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
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
        if labels[i]:
            tpos[h] += 1.0
        else:
            tneg[h] += 1.0
    return distinct
