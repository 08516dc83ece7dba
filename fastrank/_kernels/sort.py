"""Radix sorting of unsigned keys, optionally carrying a payload array.

numpy's sorts cannot be called from compiled code and Numba's own sort is a
scalar quicksort, so fastrank sorts its integer keys itself:

* :func:`sort_keys` runs a least-significant-digit radix sort (8-bit digits)
  over the most significant *varying* bits of the keys only (16 to 32 of
  them as the input grows), then finishes each run of keys that share those
  bits (few and short for real scores) with an insertion sort when short or a
  radix sort over the remaining low bits. Digits on which all keys agree are
  skipped, so 32-bit keys take at most four passes and 64-bit keys of
  continuous scores usually four as well.
* The payload (sample weights) moves with its key; pass ``None`` to sort keys
  alone. Numba prunes the payload code when it is ``None``.

Every function works in place on ``keys[lo:hi]`` and uses ``buf`` (same shape
as ``keys``) and ``hist`` (``int64[8, 256]``, or ``HIST_SHAPE`` to allow
11-bit digits) as scratch.
"""

from __future__ import annotations

import numpy as np

from .jit import inline_kernel, kernel

SMALL = 48  # runs up to this length are finished by insertion sort
WIDE_DIGIT_BITS = 11  # digit width of the 32-bit window on mid-sized inputs
WIDE_DIGITS_MAX_N = 1 << 18
HIST_SHAPE = (8, 1 << WIDE_DIGIT_BITS)  # the histogram the engine passes: any pass, any width


@kernel
def highest_bit(x: np.uint64) -> int:
    """Index of the highest set bit of ``x`` (``x > 0``)."""
    h = 0
    while x > np.uint64(1):
        x >>= np.uint64(1)
        h += 1
    return h


@kernel
def insertion_sort(keys, pay, lo, hi):
    for i in range(lo + 1, hi):
        k = keys[i]
        if pay is not None:
            p = pay[i]
        j = i - 1
        while j >= lo and keys[j] > k:
            keys[j + 1] = keys[j]
            if pay is not None:
                pay[j + 1] = pay[j]
            j -= 1
        keys[j + 1] = k
        if pay is not None:
            pay[j + 1] = p


@kernel
def lsd_sort(keys, buf, pay, pbuf, lo, hi, shift, nbits, hist, dbits):
    """Stable LSD radix sort of ``keys[lo:hi]`` on bits ``[shift, shift + nbits)``,
    ``dbits`` (8 or ``WIDE_DIGIT_BITS``) bits per pass (``hist`` holds
    ``2**dbits`` counters per pass).

    Each width gets its own copy of the loops with the width a constant: a
    run-time width costs 10% of a 1,000-key sort.
    """
    if dbits == 8:
        _lsd_sort(keys, buf, pay, pbuf, lo, hi, shift, nbits, hist, 8)
    else:
        _lsd_sort(keys, buf, pay, pbuf, lo, hi, shift, nbits, hist, WIDE_DIGIT_BITS)


@inline_kernel
def _lsd_sort(keys, buf, pay, pbuf, lo, hi, shift, nbits, hist, dbits):
    n = hi - lo
    nb = 1 << dbits
    mask = np.uint64(nb - 1)
    npass = (nbits + dbits - 1) // dbits
    for p in range(npass):
        for r in range(nb):
            hist[p, r] = 0
    for i in range(lo, hi):
        k = np.uint64(keys[i])
        for p in range(npass):
            hist[p, (k >> np.uint64(shift + dbits * p)) & mask] += 1
    src = keys
    dst = buf
    psrc = pay
    pdst = pbuf
    in_buf = False
    first = np.uint64(keys[lo])
    for p in range(npass):
        sh = np.uint64(shift + dbits * p)
        if hist[p, (first >> sh) & mask] == n:
            continue  # every key has the same digit here
        total = lo
        for r in range(nb):
            c = hist[p, r]
            hist[p, r] = total
            total += c
        for i in range(lo, hi):
            k = src[i]
            d = (np.uint64(k) >> sh) & mask
            pos = hist[p, d]
            dst[pos] = k
            if pay is not None:
                pdst[pos] = psrc[i]
            hist[p, d] = pos + 1
        src, dst = dst, src
        if pay is not None:
            psrc, pdst = pdst, psrc
        in_buf = not in_buf
    if in_buf:
        for i in range(lo, hi):
            keys[i] = buf[i]
            if pay is not None:
                pay[i] = pbuf[i]


@kernel
def sort_keys(keys, buf, pay, pbuf, varying, hist):
    """Sort ``keys`` ascending in place.

    ``varying`` is ``OR(keys) ^ AND(keys)``: the bits that are not the same in
    every key. Only those bits need sorting.
    """
    n = keys.shape[0]
    if n < 2 or varying == np.uint64(0):
        return
    if n <= SMALL:
        insertion_sort(keys, pay, 0, n)
        return
    # Sort on as many top varying bits as make shared prefixes rare: more
    # passes cost more than they save on small inputs. When the top bit of
    # the keys varies (scores of both signs), the sign and exponent bits carry
    # little spread, so take a wider window.
    top = highest_bit(varying)
    width = 8 * keys.itemsize
    if n <= 2048 and top < width - 1:
        window = 16
    elif n <= 65536:
        window = 24
    else:
        window = 32
    low = top + 1 - window if top >= window else 0
    # Three 11-bit passes beat four 8-bit ones on 32 bits while the counters
    # and the 2048 output streams stay in cache (measured: 10-15% faster up
    # to about 2**18 keys, slower beyond).
    wide = window == 32 and n <= WIDE_DIGITS_MAX_N and hist.shape[1] >= 1 << WIDE_DIGIT_BITS
    lsd_sort(keys, buf, pay, pbuf, 0, n, low, top - low + 1, hist,
             WIDE_DIGIT_BITS if wide else 8)
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
            insertion_sort(keys, pay, start, j)
        else:
            lsd_sort(keys, buf, pay, pbuf, start, j, 0, low, hist, 8)
        if j < n:
            prev = np.uint64(keys[j]) >> sh
            j += 1
