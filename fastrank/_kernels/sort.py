"""fastrank's own sort: a radix sort of unsigned keys, optionally carrying a payload.

The engine sorts with numpy's sort where that is fastest (large arrays on
CPUs with a fast SIMD sort) and with this one where numpy's is slow or where
a call from Python would cost more than the sort (small tasks, tasks inside a
batch kernel, keys with a payload). See :mod:`fastrank._core.engine`.

:func:`sort_keys` runs a least-significant-digit radix sort (8-bit digits, or
11-bit ones while the counters and output streams stay in cache) over the
most significant *varying* bits of the keys only (16 to 32 of them as the
input grows), then finishes each run of keys that share those bits (few and
short for real scores) with an insertion sort when short or a radix sort over
the remaining low bits. Digits on which all keys agree are skipped, so 32-bit
keys take at most four passes and 64-bit keys of continuous scores usually
four as well. :func:`sort_pairs` does the same moving a float64 payload (the
signed sample weights) with each key.

``varying`` is any superset of the bits in which the keys differ
(``OR(keys) ^ AND(keys)`` of these keys or of a larger set holding them);
``hist`` is an ``int64[8, 2048]`` scratch table.
"""

from __future__ import annotations

import numpy as np

from .jit import KEYS, f64, helper, i64, kernel, rw, u64
from .keys import from_key, to_key

SMALL = 48  # runs up to this length are finished by insertion sort
WIDE_DIGIT_BITS = 11  # digit width of the 32-bit window on mid-sized inputs
WIDE_DIGITS_MAX_N = 1 << 18
HIST_SHAPE = (8, 1 << WIDE_DIGIT_BITS)


@helper
def highest_bit(x):
    """Index of the highest set bit of ``x`` (``x > 0``)."""
    h = 0
    while x > np.uint64(1):
        x >>= np.uint64(1)
        h += 1
    return h


# The radix digit loop works on whole arrays (a caller passes a slice) and is
# compiled per digit width (jit._typed_calls): with the start of its range and
# the width as plain arguments the radix sort ran 35-40% slower (100,000 float32
# keys: 0.50 against 0.37 ms, AMD Zen 5). The payload flag is a plain argument:
# LLVM unswitches the loops on it, while a variant per flag compiled the sort
# twice into the batch kernel (import plus the first ``average_precision`` of
# 2,000 x 100 scores, empty cache, AMD Zen 5, four alternating runs: 9.6-10.1 s
# against 10.4-12.5 s with the flag constant) for sorts within a few percent of
# each other (the same 100,000 keys: 0.36-0.38 ms either way; 0.54-0.61 against
# 0.54-0.58 ms with a payload).
# A slice costs its view's reference counting, so the short runs finished after
# the top bits (the common ones) go to the insertion sort by index instead.
@helper
def _insertion(keys, pay, lo, hi, has_pay):
    for i in range(lo + 1, hi):
        k = keys[i]
        p = pay[i] if has_pay else 0.0
        j = i - 1
        while j >= lo and keys[j] > k:
            keys[j + 1] = keys[j]
            if has_pay:
                pay[j + 1] = pay[j]
            j -= 1
        keys[j + 1] = k
        if has_pay:
            pay[j + 1] = p


@helper(literals=("dbits",))
def _lsd(keys, buf, pay, pbuf, shift, nbits, hist, dbits, has_pay):
    """Stable LSD radix sort of ``keys`` on bits ``[shift, shift + nbits)``,
    ``dbits`` bits per pass (a constant at every call site); ``buf`` as long,
    and ``pay``/``pbuf`` too when ``has_pay``."""
    n = keys.shape[0]
    nb = 1 << dbits
    mask = np.uint64(nb - 1)
    npass = (nbits + dbits - 1) // dbits
    for p in range(npass):
        for r in range(nb):
            hist[p, r] = 0
    if npass == 3:  # the common case, unrolled: the three counts of a key side by side
        s0 = np.uint64(shift)
        s1 = np.uint64(shift + dbits)
        s2 = np.uint64(shift + 2 * dbits)
        for i in range(n):
            k = np.uint64(keys[i])
            hist[0, (k >> s0) & mask] += 1
            hist[1, (k >> s1) & mask] += 1
            hist[2, (k >> s2) & mask] += 1
    else:
        for i in range(n):
            k = np.uint64(keys[i])
            for p in range(npass):
                hist[p, (k >> np.uint64(shift + dbits * p)) & mask] += 1
    src = keys
    dst = buf
    psrc = pay
    pdst = pbuf
    in_buf = False
    first = np.uint64(keys[0])
    for p in range(npass):
        sh = np.uint64(shift + dbits * p)
        if hist[p, (first >> sh) & mask] == n:
            continue  # every key has the same digit here
        total = 0
        for r in range(nb):
            c = hist[p, r]
            hist[p, r] = total
            total += c
        # two keys per turn: the second's load and digit do not wait for the first's
        # store (a stable order still: the first is placed first)
        for i in range(0, n - 1, 2):
            k0 = src[i]
            k1 = src[i + 1]
            d0 = (np.uint64(k0) >> sh) & mask
            d1 = (np.uint64(k1) >> sh) & mask
            at0 = hist[p, d0]
            hist[p, d0] = at0 + 1
            dst[at0] = k0
            if has_pay:
                pdst[at0] = psrc[i]
            at1 = hist[p, d1]
            hist[p, d1] = at1 + 1
            dst[at1] = k1
            if has_pay:
                pdst[at1] = psrc[i + 1]
        if n & 1:
            k = src[n - 1]
            d = (np.uint64(k) >> sh) & mask
            at = hist[p, d]
            dst[at] = k
            if has_pay:
                pdst[at] = psrc[n - 1]
            hist[p, d] = at + 1
        src, dst = dst, src
        if has_pay:
            psrc, pdst = pdst, psrc
        in_buf = not in_buf
    if in_buf:
        for i in range(n):
            keys[i] = buf[i]
            if has_pay:
                pay[i] = pbuf[i]


@helper
def lsd_pass_sort(keys, buf, shift, nbits, hist, wide):
    """Sort unsigned ``keys`` ascending on their bits ``[shift, shift + nbits)`` only
    (the bits below ``shift`` ride along unsorted), by the LSD passes of the radix
    sort: 11-bit digits when ``wide``, 8-bit ones otherwise (see :data:`WIDE_DIGITS_MAX_N`).
    ``keys`` is not empty; ``buf`` is as long."""
    none = np.empty(0, np.float64)
    if wide:
        _lsd(keys, buf, none, none, shift, nbits, hist, WIDE_DIGIT_BITS, False)
    else:
        _lsd(keys, buf, none, none, shift, nbits, hist, 8, False)


@helper
def _radix(keys, buf, pay, pbuf, varying, hist, has_pay):
    n = keys.shape[0]
    if n < 2 or varying == np.uint64(0):
        return
    if n <= SMALL:
        _insertion(keys, pay, 0, n, has_pay)
        return
    # Sort on as many top varying bits as make shared prefixes rare: more
    # passes cost more than they save on small inputs. When the top bit of
    # the keys varies (scores of both signs), the sign and exponent bits carry
    # little spread, so take a wider window.
    top = highest_bit(varying)
    width = 8 * keys.itemsize
    # 32-bit keys past 2,048 take every bit in three 11-bit passes and no finishing
    # scan (float32, AMD Zen 4: 5.7-6.8 against 6.4-7.0 ns/key from 4,096 to
    # 49,000 keys); 64-bit ones keep 24 bits up to 32,768 keys (49,000 float64 keys:
    # 7.2 against 12.7 ns/key with 32).
    if n <= 2048 and top < width - 1:
        window = 16
    elif n <= 2048 or (width == 64 and n <= 32768):
        window = 24
    else:
        window = 32
    low = top + 1 - window if top >= window else 0
    # Three 11-bit passes beat four 8-bit ones on 32 bits while the counters
    # and the 2048 output streams stay in cache (measured: 10-15% faster up
    # to about 2**18 keys, slower beyond).
    if window == 32 and n <= WIDE_DIGITS_MAX_N:
        _lsd(keys, buf, pay, pbuf, low, top - low + 1, hist, WIDE_DIGIT_BITS, has_pay)
    else:
        _lsd(keys, buf, pay, pbuf, low, top - low + 1, hist, 8, has_pay)
    if low == 0:
        return
    # Keys now ordered by bits [low, top]; finish the runs that share them.
    sh = np.uint64(low)
    j = 1
    prev = np.uint64(keys[0]) >> sh
    while j < n:
        cur = np.uint64(keys[j]) >> sh
        if cur != prev:  # the common case: no run here
            prev = cur
            j += 1
            continue
        start = j - 1
        j += 1
        while j < n and (np.uint64(keys[j]) >> sh) == prev:
            j += 1
        if j - start <= SMALL:
            _insertion(keys, pay, start, j, has_pay)
        else:  # pay and pbuf are empty without a payload: their slices stay empty
            _lsd(keys[start:j], buf[start:j], pay[start:j], pbuf[start:j], 0, low, hist, 8,
                 has_pay)
        if j < n:
            prev = np.uint64(keys[j]) >> sh
            j += 1


@helper
def _keys_in_place(bits, kind, sign, ones):
    """Turn score bits into order keys in place; return the bits in which they vary."""
    any_bits = np.uint64(0)
    all_bits = ~np.uint64(0)
    for i in range(bits.shape[0]):
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
        bits[i] = k
        any_bits |= k
        all_bits &= k
    return any_bits ^ all_bits


@helper
def _bits_in_place(keys, kind, sign, ones):
    """The inverse of :func:`_keys_in_place` (a zero of either sign becomes +0.0)."""
    for i in range(keys.shape[0]):
        keys[i] = from_key(np.uint64(keys[i]), kind, sign, ones)


_SORT = [(rw(k), rw(k), i64, u64, u64, rw(i64, 2)) for k in KEYS]


@kernel(_SORT)
def sort_values(bits, buf, kind, sign, ones, hist):
    """:func:`sort_bits` as called from Python."""
    sort_bits(bits, buf, kind, sign, ones, hist)


@helper
def sort_bits(bits, buf, kind, sign, ones, hist):
    """Sort scores, given as their bits, ascending in place (``buf``: scratch)."""
    varying = _keys_in_place(bits, kind, sign, ones)
    none = np.empty(0, np.float64)
    _radix(bits, buf, none, none, varying, hist, False)
    _bits_in_place(bits, kind, sign, ones)


_PAIRS = [(rw(k), rw(k), rw(f64), rw(f64), i64, u64, u64, rw(i64, 2)) for k in KEYS]


@kernel(_PAIRS)
def sort_pairs(bits, buf, w, wbuf, kind, sign, ones, hist):
    """:func:`sort_bits_weighted` as called from Python."""
    sort_bits_weighted(bits, buf, w, wbuf, kind, sign, ones, hist)


@helper
def sort_bits_weighted(bits, buf, w, wbuf, kind, sign, ones, hist):
    """Sort scores (as bits) ascending in place, moving their weights ``w`` with them."""
    varying = _keys_in_place(bits, kind, sign, ones)
    _radix(bits, buf, w, wbuf, varying, hist, True)
    _bits_in_place(bits, kind, sign, ones)


def sort_keys(keys: np.ndarray, buf: np.ndarray, pay: np.ndarray | None = None,
              pbuf: np.ndarray | None = None, varying: object = None,
              hist: np.ndarray | None = None) -> None:
    """Sort unsigned keys (uint32 or uint64) ascending in place with the radix sort,
    moving ``pay`` (any numbers a float64 holds exactly) with them, stably.

    Unsigned keys are their own order keys; ``varying`` and ``pbuf`` are
    recomputed and allocated by the kernels, and accepted for symmetry with
    the sort's internals.
    """
    kind = 2  # keys.KIND_UNSIGNED: the identity map
    ones = np.uint64((1 << (8 * keys.itemsize)) - 1)
    sign = np.uint64(1 << (8 * keys.itemsize - 1))
    h = np.empty(HIST_SHAPE, np.int64) if hist is None or hist.shape != HIST_SHAPE else hist
    if pay is None:
        sort_values(keys, buf, kind, sign, ones, h)
        return
    w = pay.astype(np.float64)
    sort_pairs(keys, buf, w, np.empty_like(w), kind, sign, ones, h)
    pay[:] = w.astype(pay.dtype)
