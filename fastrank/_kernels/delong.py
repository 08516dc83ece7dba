"""DeLong's variance of the ROC AUC, from tie groups and from per-sample placements.

For a positive scoring in tie group ``g`` (groups in descending score order,
``fp`` negatives strictly above it and ``dn`` tied with it) the placement is
``V10 = (N - fp - dn/2) / N``, the share of negatives it outranks (ties
counting half); for a negative, ``V01 = (tp + dp/2) / P``. Every member of a
group has the same placement, so the variance of one task needs only the
group table: :func:`delong_task` sorts once, like the AUC itself, then walks the
groups twice (the mean, then the centred squares). The covariance of several
models needs the placements sample by sample: :func:`placements` sorts the keys
with their row numbers. :func:`delong_pairs` does that for every column of one
or two score matrices in parallel (the batched variance and paired test).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .groups import HASH_MIN_SAMPLES, hash_groups, next_group, sorted_keys
from .jit import inline_kernel, kernel, parallel_kernel
from .keys import to_key
from .sort import (
    HIST_SHAPE,
    SMALL,
    WIDE_DIGIT_BITS,
    WIDE_DIGITS_MAX_N,
    highest_bit,
    insertion_sort,
    lsd_sort,
    sort_keys,
)
from .sweep import SK_SIZE, ST_SIZE, sweep_finish, sweep_groups, sweep_start
from .task import _SK_AT, _ST_AT, FIXED_BYTES, _hist

# Layout of one task's DeLong result row.
DL_POS = 0  # positives (m)
DL_NEG = 1  # negatives (n)
DL_THETA = 2  # mean placement of the positives (the AUC)
DL_S10 = 3  # sum of squared centred positive placements (not yet divided)
DL_S01 = 4  # the same over the negatives
DL_SIZE = 5

# Layout of one column's row from :func:`delong_pairs` (models a and b).
DP_POS = 0
DP_NEG = 1
DP_THETA_A = 2
DP_THETA_B = 3
DP_S10_AA = 4
DP_S10_BB = 5
DP_S10_AB = 6
DP_S01_AA = 7
DP_S01_BB = 8
DP_S01_AB = 9
DP_SIZE = 10

BLOCK = 16  # columns gathered together from a C-ordered matrix


@kernel
def group_sums(src, begin, end, pos, neg, out):
    """Both passes over the groups of one source: theta, then the squares."""
    total = 0.0
    fp = 0.0
    i = begin
    while i != end:
        _, dp, dn, i = next_group(src, i)
        total += dp * ((neg - fp - 0.5 * dn) / neg)
        fp += dn
    theta = total / pos
    s10 = 0.0
    s01 = 0.0
    tp = 0.0
    fp = 0.0
    i = begin
    while i != end:
        _, dp, dn, i = next_group(src, i)
        v10 = (neg - fp - 0.5 * dn) / neg - theta
        v01 = (tp + 0.5 * dp) / pos - theta
        s10 += dp * v10 * v10
        s01 += dn * v01 * v01
        tp += dp
        fp += dn
    out[DL_THETA] = theta
    out[DL_S10] = s10
    out[DL_S01] = s01


@kernel
def _sums_and_auc(src, begin, end, pos, neg, st, sk, out, mout):
    group_sums(src, begin, end, pos, neg, out)
    sweep_groups(src, begin, end, pos, neg, 1.0, 0, st, sk)
    sweep_finish(st, sk, 1.0, 0, mout)


@kernel
def delong_task(bits, kind, sign, ones, labels, npos, work, out, mout):
    """DeLong sums of one unweighted task with both classes (layout ``DL_*``).

    Also sweeps the same groups for the metrics (``mout``, layout ``OUT_*``),
    so the AUC is bit for bit the one :func:`.task.task_core` gives.
    """
    n = bits.shape[0]
    pos = float(npos)
    neg = float(n - npos)
    out[DL_POS] = pos
    out[DL_NEG] = neg
    hist = _hist(work)
    st = work[_ST_AT : _ST_AT + 8 * ST_SIZE].view(np.float64)
    sk = work[_SK_AT : _SK_AT + 8 * SK_SIZE].view(np.uint64)
    sweep_start(st, sk, 1.0)
    if n >= HASH_MIN_SAMPLES:
        d, gkey, gpos, gneg = hash_groups(
            bits, kind, sign, ones, labels, None, work, FIXED_BYTES, hist
        )
        if d >= 0:
            _sums_and_auc((gkey, gpos, gneg), 0, d, pos, neg, st, sk, out, mout)
            return
    keys, pay, m = sorted_keys(bits, kind, sign, ones, labels, None, work, FIXED_BYTES, hist)
    _sums_and_auc((keys, pay), m, 0, pos, neg, st, sk, out, mout)


@kernel
def sort_rows(bits, kind, sign, ones, labels, keys, kbuf, rl, rlbuf, hist):
    """Sort one column's samples by score, ascending; returns the positives.

    Each sample becomes ``row << 1 | label``. For 32-bit keys it is packed
    below the key into one ``uint64`` (``keys``; ``rl`` unused) and only the
    key's bits are radix-sorted: one array moves instead of two. 64-bit keys
    are sorted with the row-and-label word as payload in ``rl``. Either way
    equal scores form one run.

    (Tried instead: sorting only the smaller class and finding each sample of
    the larger one in it through a table on the key's high bits. Float keys
    crowd a few buckets, and it measured 3-4x slower than this.)
    """
    n = bits.shape[0]
    npos = 0
    any_bits = np.uint64(0)
    all_bits = ~np.uint64(0)
    if bits.itemsize == 4:
        for i in range(n):
            k = to_key(np.uint64(bits[i]), kind, sign, ones)
            lab = labels[i]
            keys[i] = (k << np.uint64(32)) | np.uint64((i << 1) | lab)
            any_bits |= k
            all_bits &= k
            npos += lab
        varying = any_bits ^ all_bits
        if varying != np.uint64(0) and n > 1:
            if n <= SMALL:
                insertion_sort(keys, None, 0, n)
            else:
                nbits = highest_bit(varying) + 1
                wide = n <= WIDE_DIGITS_MAX_N and nbits > 24
                lsd_sort(keys, kbuf, None, None, 0, n, 32, nbits, hist,
                         WIDE_DIGIT_BITS if wide else 8)
        return npos
    for i in range(n):
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
        lab = labels[i]
        keys[i] = k
        rl[i] = (i << 1) | lab
        any_bits |= k
        all_bits &= k
        npos += lab
    sort_keys(keys, kbuf, rl, rlbuf, any_bits ^ all_bits, hist)
    return npos


@kernel
def _key(keys, i, packed):
    """The score key of sorted entry ``i``."""
    if packed:
        return np.uint64(keys[i]) >> np.uint64(32)
    return np.uint64(keys[i])


@kernel
def _word(keys, rl, i, packed):
    """``row << 1 | label`` of sorted entry ``i``."""
    if packed:
        return np.int64(np.uint64(keys[i]) & np.uint64(0xFFFFFFFF))
    return np.int64(rl[i])


@inline_kernel
def _walk(keys, rl, n, pos, neg, packed, v):
    """One walk down a sorted column, tie group by tie group.

    Stores each sample's placement (V10 for a positive, V01 for a negative)
    in ``v`` by row and returns the positives' sum of placements (theta times
    ``pos``).
    """
    inv_neg = 1.0 / neg
    inv_pos = 1.0 / pos
    fp = 0.0
    tp = 0.0
    total = 0.0
    hi = n
    while hi > 0:
        k = _key(keys, hi - 1, packed)
        lo = hi - 1
        dp = _word(keys, rl, lo, packed) & 1
        while lo > 0 and _key(keys, lo - 1, packed) == k:
            lo -= 1
            dp += _word(keys, rl, lo, packed) & 1
        dn = (hi - lo) - dp
        v10 = (neg - fp - 0.5 * dn) * inv_neg
        v01 = (tp + 0.5 * dp) * inv_pos
        total += dp * v10
        for e in range(lo, hi):
            w = _word(keys, rl, e, packed)
            v[w >> 1] = v10 if w & 1 else v01
        tp += dp
        fp += dn
        hi = lo
    return total


@kernel
def walk_column(keys, rl, n, pos, neg, packed, v):
    """:func:`_walk`, compiled once per key layout (``packed``)."""
    if packed:
        return _walk(keys, rl, n, pos, neg, True, v)
    return _walk(keys, rl, n, pos, neg, False, v)


@kernel
def placements(bits, kind, sign, ones, labels, v, keys, kbuf, rl, rlbuf, hist):
    """Each sample's placement into ``v`` (V10 for positives, V01 for negatives).

    Scratch as :func:`placement_scratch` gives. Returns the positives' sum of
    placements (the AUC times the number of positives).
    """
    n = bits.shape[0]
    npos = sort_rows(bits, kind, sign, ones, labels, keys, kbuf, rl, rlbuf, hist)
    return walk_column(keys, rl, n, float(npos), float(n - npos), bits.itemsize == 4, v)


@kernel
def _squares(v, labels, theta):
    """Sums of ``(v - theta)**2`` over the positives and over the negatives."""
    sq_pos = 0.0
    sq_neg = 0.0
    for i in range(v.shape[0]):
        d = v[i] - theta
        if labels[i]:
            sq_pos += d * d
        else:
            sq_neg += d * d
    return sq_pos, sq_neg


@kernel
def _cross(va, theta_a, vb, theta_b, labels):
    """Per class (positives, negatives): the sums of ``(vb - theta_b)**2`` and of
    ``(va - theta_a) * (vb - theta_b)``."""
    sq_pos = 0.0
    sq_neg = 0.0
    x_pos = 0.0
    x_neg = 0.0
    for i in range(va.shape[0]):
        a = va[i] - theta_a
        b = vb[i] - theta_b
        if labels[i]:
            sq_pos += b * b
            x_pos += a * b
        else:
            sq_neg += b * b
            x_neg += a * b
    return sq_pos, sq_neg, x_pos, x_neg


@kernel
def column_sums(ca, kind_a, sign_a, ones_a, cb, kind_b, sign_b, ones_b, two, lab, va, vb,
                keys, kbuf, rl, rlbuf, hist, row):
    """DeLong sums (layout ``DP_*``) of one column of one or two models.

    Both classes are centred on theta, the positives' mean placement (the AUC),
    as pROC does. Every sum is formed the same way for either model, so
    swapping the models swaps the results exactly.
    """
    n = ca.shape[0]
    npos = sort_rows(ca, kind_a, sign_a, ones_a, lab, keys, kbuf, rl, rlbuf, hist)
    pos = float(npos)
    neg = float(n - npos)
    row[DP_POS] = pos
    row[DP_NEG] = neg
    if npos == 0 or npos == n:
        for f in range(DP_THETA_A, DP_SIZE):
            row[f] = np.nan
        return
    theta_a = walk_column(keys, rl, n, pos, neg, ca.itemsize == 4, va) / pos
    s10a, s01a = _squares(va, lab, theta_a)
    theta_b, s10b, s01b, x10, x01 = theta_a, s10a, s01a, s10a, s01a
    if two:
        sort_rows(cb, kind_b, sign_b, ones_b, lab, keys, kbuf, rl, rlbuf, hist)
        theta_b = walk_column(keys, rl, n, pos, neg, cb.itemsize == 4, vb) / pos
        s10b, s01b, x10, x01 = _cross(va, theta_a, vb, theta_b, lab)
    row[DP_THETA_A] = theta_a
    row[DP_THETA_B] = theta_b
    row[DP_S10_AA] = s10a
    row[DP_S10_BB] = s10b
    row[DP_S10_AB] = x10
    row[DP_S01_AA] = s01a
    row[DP_S01_BB] = s01b
    row[DP_S01_AB] = x01


def placement_scratch(n):
    """Scratch arrays of :func:`placements` for a column of ``n`` samples."""
    return (np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.int64),
            np.empty(n, np.int64), np.empty(HIST_SHAPE, np.int64))


@kernel
def _gather(src, j0, w, dst):
    """Columns ``j0 .. j0 + w`` of an ``(n, t)`` view into the rows of ``dst``."""
    n = src.shape[0]
    if w == BLOCK:  # a constant trip count: the inner loop unrolls
        for i in range(n):
            for c in range(BLOCK):
                dst[c, i] = src[i, j0 + c]
    else:
        for i in range(n):
            for c in range(w):
                dst[c, i] = src[i, j0 + c]


@kernel
def _pairs_worker(a, kind_a, sign_a, ones_a, b, kind_b, sign_b, ones_b, two, labels, worker,
                  nworkers, out):
    """Worker ``worker`` of ``nworkers``: every ``nworkers``-th block of columns."""
    n, t = a.shape
    nblocks = (t + BLOCK - 1) // BLOCK
    ca = np.empty((BLOCK, n), a.dtype)
    cb = np.empty((BLOCK, n if two else 1), b.dtype)
    cl = np.empty((BLOCK, n), np.uint8)
    va = np.empty(n, np.float64)
    vb = np.empty(n if two else 1, np.float64)
    wide = a.itemsize == 8 or b.itemsize == 8
    keys = np.empty(n, np.uint64)
    kbuf = np.empty(n, np.uint64)
    rl = np.empty(n if wide else 1, np.int64)
    rlbuf = np.empty(n if wide else 1, np.int64)
    hist = np.empty(HIST_SHAPE, np.int64)
    for blk in range(worker, nblocks, nworkers):
        j0 = blk * BLOCK
        w = min(BLOCK, t - j0)
        _gather(a, j0, w, ca)
        _gather(labels, j0, w, cl)
        if two:
            _gather(b, j0, w, cb)
        for c in range(w):
            column_sums(ca[c], kind_a, sign_a, ones_a, cb[c], kind_b, sign_b, ones_b, two,
                        cl[c], va, vb, keys, kbuf, rl, rlbuf, hist, out[j0 + c])


@parallel_kernel
def delong_pairs(a, kind_a, sign_a, ones_a, b, kind_b, sign_b, ones_b, two, labels, nworkers,
                 out):
    """DeLong sums (layout ``DP_*``) of every column of ``a`` (and ``b`` if ``two``).

    ``a``/``b`` are ``(n, t)`` views of the score bits and ``labels`` an ``(n, t)``
    0/1 view, in any memory order. Columns are taken in blocks of
    :data:`BLOCK`; each block is gathered into contiguous rows first, which
    reads a C-ordered matrix one cache line at a time instead of one per value.
    Each of ``nworkers`` workers allocates its scratch once and takes every
    ``nworkers``-th block.
    """
    for worker in prange(nworkers):
        _pairs_worker(a, kind_a, sign_a, ones_a, b, kind_b, sign_b, ones_b, two, labels,
                      worker, nworkers, out)


@kernel
def delong_pairs_serial(a, kind_a, sign_a, ones_a, b, kind_b, sign_b, ones_b, two, labels,
                        nworkers, out):
    """:func:`delong_pairs` on the calling thread (a busy or forked pool)."""
    _pairs_worker(a, kind_a, sign_a, ones_a, b, kind_b, sign_b, ones_b, two, labels, 0, 1, out)
