"""The tie-group table: the one representation every metric and curve uses.

For one task the groups are the distinct scores in *descending* order (as
keys) with, for each, the positive and negative count (``int64``) or weight
(``float64``) that holds that score. Cutoff ``k`` of METRICS.md is group
``k``: samples with equal scores always form one group, whatever the input
order. Zero-weight samples are left out (scikit-learn removes them before it
forms thresholds), so no group has zero total weight.

Two ways to build it, chosen at run time:

* **counting** (:func:`hash_groups`): when a task has few distinct scores
  (rounded or quantised scores, uint8 outputs, labels used as scores), an
  open-addressing table counts each score in one pass and only the distinct
  values are sorted. It gives up as soon as the table would pass
  ``HASH_MAX_DISTINCT`` entries, which bounds the cost of trying.
* **sorting**: :func:`build_keys` writes every sample's key with its label
  (or its weight, signed by its label) as payload and :func:`.sort.sort_keys`
  sorts them. The sorted keys *are* the table: :func:`next_group` walks them
  from the top, summing the payload of equal keys, so a sweep consumes the
  groups as it goes and the table is never stored (:func:`scan_groups`
  stores it when a caller wants it, for curves).

A *group source* is either ``(gkey, gpos, gneg)`` (a stored table, walked
from index 0 up) or ``(keys, payload)`` (sorted keys, walked from the top
index down); :func:`next_group` reads one group from either.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from .jit import kernel
from .keys import to_key
from .sort import sort_keys

HASH_MIN_SAMPLES = 1 << 15  # below this the sort is cheap; do not try counting
HASH_LOG2_SLOTS = 12  # a table that stays in cache and costs nothing to give up on
HASH_MAX_DISTINCT = 1 << (HASH_LOG2_SLOTS - 1)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def count_zeros(n, weights):
    """Zeroed counts: int64 when ``weights`` is ``None``, float64 otherwise."""
    raise NotImplementedError("only callable from compiled code")


@overload(count_zeros)
def _count_zeros(n, weights):
    if isinstance(weights, types.NoneType):
        return lambda n, weights: np.zeros(n, np.int64)
    return lambda n, weights: np.zeros(n, np.float64)


def carve(work, start, n, like):
    """``n`` items of ``like``'s dtype viewed from byte buffer ``work`` at ``start``."""
    raise NotImplementedError("only callable from compiled code")


@overload(carve)
def _carve(work, start, n, like):
    dtype = as_dtype(like.dtype)
    size = dtype.itemsize
    return lambda work, start, n, like: work[start : start + n * size].view(dtype)


def carve_pay(work, start, n, weights):
    """``n`` payload items (uint8 labels, or float64 signed weights) viewed from ``work``."""
    raise NotImplementedError("only callable from compiled code")


@overload(carve_pay)
def _carve_pay(work, start, n, weights):
    dtype = np.uint8 if isinstance(weights, types.NoneType) else np.float64
    size = np.dtype(dtype).itemsize
    return lambda work, start, n, weights: work[start : start + n * size].view(dtype)


def carve_counts(work, start, n, weights):
    """``n`` counts (int64, or float64 when weighted) viewed from ``work``."""
    raise NotImplementedError("only callable from compiled code")


@overload(carve_counts)
def _carve_counts(work, start, n, weights):
    dtype = np.int64 if isinstance(weights, types.NoneType) else np.float64
    return lambda work, start, n, weights: work[start : start + n * 8].view(dtype)


def align(nbytes: int) -> int:
    """``nbytes`` rounded up to a whole cache line (64 bytes)."""
    return (nbytes + 63) // 64 * 64


align_bytes = kernel(align)

# Byte size of each region that :func:`hash_groups` carves from its scratch.
_NSLOTS = 1 << HASH_LOG2_SLOTS
HASH_BYTES = align(3 * 8 * _NSLOTS + _NSLOTS + 7 * 8 * HASH_MAX_DISTINCT)


def sort_bytes(n: int, key_size: int, weighted: bool) -> int:
    """Scratch bytes of :func:`sorted_keys` for ``n`` keys of ``key_size`` bytes."""
    return 2 * align(n * key_size) + 2 * align(n * (8 if weighted else 1))


def split_payload(v):
    """``(positive part, negative part)`` of one payload entry."""
    raise NotImplementedError("only callable from compiled code")


@overload(split_payload)
def _split_payload(v):
    if isinstance(v, types.Float):
        return lambda v: (max(v, 0.0), max(-v, 0.0))
    return lambda v: (np.int64(v), np.int64(1) - np.int64(v))


@kernel
def build_keys(bits, kind, sign, ones, labels, weights, keys, pay):
    """Write each sample's key to ``keys`` and its class to ``pay``.

    Unweighted, ``pay`` holds the 0/1 label. Weighted, it holds the weight,
    negated for negatives; zero-weight samples are skipped. Returns the number
    of entries written and the varying-bit mask ``OR(keys) ^ AND(keys)``.
    """
    any_bits = np.uint64(0)
    all_bits = ~np.uint64(0)
    m = 0
    for i in range(bits.shape[0]):
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
        if weights is None:
            keys[i] = k
            pay[i] = labels[i]
        else:
            w = weights[i]
            if w == 0.0:
                continue
            keys[m] = k
            pay[m] = w if labels[i] else -w
        m += 1
        any_bits |= k
        all_bits &= k
    return m, any_bits ^ all_bits


def next_group(src, i):
    """``(key, positives, negatives, next i)`` of the group at ``i`` of a source.

    A stored table ``(gkey, gpos, gneg)`` is walked from 0 up; sorted keys
    with payload ``(keys, pay)`` from ``len(keys)`` down, ``i`` being the
    number of keys not yet read. Either way the walk ends at a known ``i``.
    """
    raise NotImplementedError("only callable from compiled code")


@overload(next_group)
def _next_group(src, i):
    if len(src) == 3:  # a stored table, walked upwards

        def table(src, i):
            return src[0][i], src[1][i], src[2][i], i + 1

        return table

    def sorted_keys_down(src, i):
        keys, pay = src
        j = i - 1
        k = keys[j]
        dp, dn = split_payload(pay[j])
        j -= 1
        while j >= 0 and keys[j] == k:
            p, q = split_payload(pay[j])
            dp += p
            dn += q
            j -= 1
        return k, dp, dn, j + 1

    return sorted_keys_down


@kernel
def scan_groups(src, i, end, gkey, gpos, gneg):
    """Store the groups of a source from position ``i`` to ``end``; return their number."""
    g = 0
    while i != end:
        k, dp, dn, i = next_group(src, i)
        gkey[g] = k
        gpos[g] = dp
        gneg[g] = dn
        g += 1
    return g


@kernel
def hash_groups(bits, kind, sign, ones, labels, weights, work, base, hist):
    """Count each distinct score in a hash table; ``d = -1`` if there are too many.

    Every array it uses is carved from ``work`` at byte ``base`` (``HASH_BYTES``
    bytes) and ``hist``, so it allocates nothing. Returns ``(d, gkey, gpos,
    gneg)``: the first ``d`` entries are the groups, keys descending.
    """
    nslots = 1 << HASH_LOG2_SLOTS
    slot_mask = np.uint64(nslots - 1)
    shift = np.uint64(64 - HASH_LOG2_SLOTS)
    cap = HASH_MAX_DISTINCT
    tkey = work[base : base + 8 * nslots].view(np.uint64)
    off = base + 8 * nslots
    tpos = carve_counts(work, off, nslots, weights)
    tneg = carve_counts(work, off + 8 * nslots, nslots, weights)
    used = work[off + 16 * nslots : off + 17 * nslots]
    off += 17 * nslots
    keys = work[off : off + 8 * cap].view(np.uint64)
    kbuf = work[off + 8 * cap : off + 16 * cap].view(np.uint64)
    slot = work[off + 16 * cap : off + 24 * cap].view(np.int64)
    sbuf = work[off + 24 * cap : off + 32 * cap].view(np.int64)
    gkey = carve(work, off + 32 * cap, cap, bits)
    gpos = carve_counts(work, off + 40 * cap, cap, weights)
    gneg = carve_counts(work, off + 48 * cap, cap, weights)
    for t in range(nslots):
        used[t] = 0
        tpos[t] = 0
        tneg[t] = 0
    distinct = 0
    for i in range(bits.shape[0]):
        if weights is not None and weights[i] == 0.0:
            continue
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
        h = (k * _GOLDEN) >> shift
        while True:
            if not used[h]:
                if distinct == cap:
                    return -1, gkey, gpos, gneg
                used[h] = 1
                tkey[h] = k
                distinct += 1
                break
            if tkey[h] == k:
                break
            h = (h + np.uint64(1)) & slot_mask
        if weights is None:
            if labels[i]:
                tpos[h] += 1
            else:
                tneg[h] += 1
        elif labels[i]:
            tpos[h] += weights[i]
        else:
            tneg[h] += weights[i]
    # Sort the distinct keys, carrying their slot, and emit them top down.
    d = 0
    any_bits = np.uint64(0)
    all_bits = ~np.uint64(0)
    for t in range(nslots):
        if used[t]:
            keys[d] = tkey[t]
            slot[d] = t
            any_bits |= tkey[t]
            all_bits &= tkey[t]
            d += 1
    sort_keys(keys[:d], kbuf[:d], slot[:d], sbuf[:d], any_bits ^ all_bits, hist)
    for g in range(d):
        t = slot[d - 1 - g]
        gkey[g] = keys[d - 1 - g]
        gpos[g] = tpos[t]
        gneg[g] = tneg[t]
    return d, gkey, gpos, gneg


@kernel
def sorted_keys(bits, kind, sign, ones, labels, weights, work, base, hist):
    """Keys and payload of one task, sorted ascending, carved out of ``work``.

    Uses :func:`sort_bytes` bytes of ``work`` from byte ``base`` (a multiple
    of 64) and ``hist`` (``int64[8, 256]``). Returns ``(keys, payload,
    count)``; only the first ``count`` entries are valid.
    """
    n = bits.shape[0]
    keys = carve(work, base, n, bits)
    buf = carve(work, base + align_bytes(n * bits.itemsize), n, bits)
    base += 2 * align_bytes(n * bits.itemsize)
    pay = carve_pay(work, base, n, weights)
    pbuf = carve_pay(work, base + align_bytes(n * pay.itemsize), n, weights)
    m, varying = build_keys(bits, kind, sign, ones, labels, weights, keys, pay)
    sort_keys(keys[:m], buf[:m], pay[:m], pbuf[:m], varying, hist)
    return keys, pay, m
