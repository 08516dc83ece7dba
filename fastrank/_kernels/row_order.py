"""trec_eval's order of each query's rows, for :func:`~fastrank._kernels.text.trec_arrays`:
by score, then by document rank (trec_eval's order read from the bottom), every
row given its place. A run lists each query's rows by score already, so mostly
only its tie groups are sorted (by insertion); rows in no order by score go
through a quicksort that falls back to a heap sort past a depth bound."""

from __future__ import annotations

import numpy as np

from .jit import helper


@helper
def _before(a, b, scores, keys):
    """Row ``a`` before row ``b``: a lower score, or an equal one and a lower rank."""
    return scores[a] < scores[b] or (scores[a] == scores[b] and keys[a] < keys[b])


@helper
def _sift(idx, lo, root, end, scores, keys):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _before(idx[lo + child], idx[lo + child + 1], scores, keys):
            child += 1
        if _before(idx[lo + root], idx[lo + child], scores, keys):
            idx[lo + root], idx[lo + child] = idx[lo + child], idx[lo + root]
            root = child
        else:
            return


@helper
def _heap_rows(idx, lo, hi, scores, keys):
    """Heap sort of the rows ``idx[lo:hi]`` by :func:`_before` (n log n whatever
    the rows: :func:`_sort_rows`' guard)."""
    m = hi - lo
    for root in range(m // 2 - 1, -1, -1):
        _sift(idx, lo, root, m, scores, keys)
    for end in range(m - 1, 0, -1):
        idx[lo], idx[lo + end] = idx[lo + end], idx[lo]
        _sift(idx, lo, 0, end, scores, keys)


@helper
def _insert_rows(idx, lo, hi, scores, keys):
    """Insertion sort of the rows ``idx[lo:hi]`` by :func:`_before`."""
    for i in range(lo + 1, hi):
        r = idx[i]
        j = i
        while j > lo and _before(r, idx[j - 1], scores, keys):
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = r


@helper
def _sort_rows(idx, lo, hi, scores, keys):
    """Sort the rows ``idx[lo:hi]`` by :func:`_before`: a quicksort (the median of
    three as pivot, insertion below 17 rows, the larger side of each cut kept on
    a stack of its own, so at most 64 deep), a range cut more than twice its
    size's bits deep heap sorted (so n log n whatever the rows). On queries of 100
    rows in no order, 62 against 107-141 ns a row for the heap sort alone (AMD Zen
    4); rows in order by score, as runs list them, sort only their ties
    (:func:`order_queries`)."""
    if hi - lo <= 16:  # (a tie group, most often: no stack made)
        _insert_rows(idx, lo, hi, scores, keys)
        return
    stack = np.empty(3 * 64, np.int64)
    top = 0
    a, b = lo, hi
    depth = 0
    limit = 2 * _bits(hi - lo)
    while True:
        while b - a > 16:
            if depth > limit:
                _heap_rows(idx, a, b, scores, keys)
                a = b
                break
            depth += 1
            mid = a + ((b - a) >> 1)
            x, y, z = idx[a], idx[mid], idx[b - 1]
            if _before(y, x, scores, keys):
                x, y = y, x
            if _before(z, y, scores, keys):
                y, z = z, y
                if _before(y, x, scores, keys):
                    x, y = y, x
            idx[a], idx[b - 1] = x, z  # x and z: each side's sentinel
            idx[mid] = idx[b - 2]
            idx[b - 2] = y  # the pivot, out of the way
            i = a + 1
            j = b - 3
            while True:
                while _before(idx[i], y, scores, keys):
                    i += 1
                while _before(y, idx[j], scores, keys):
                    j -= 1
                if i >= j:
                    break
                idx[i], idx[j] = idx[j], idx[i]
                i += 1
                j -= 1
            idx[b - 2] = idx[i]
            idx[i] = y
            if i - a < b - i - 1:  # the smaller side next, the larger one kept
                stack[top], stack[top + 1], stack[top + 2] = i + 1, b, depth
                b = i
            else:
                stack[top], stack[top + 1], stack[top + 2] = a, i, depth
                a = i + 1
            top += 3
        if b - a > 1:
            _insert_rows(idx, a, b, scores, keys)
        if top == 0:
            return
        top -= 3
        a, b, depth = stack[top], stack[top + 1], stack[top + 2]


@helper
def _bits(n):
    """The number of bits of ``n`` (``n >= 0``)."""
    k = 0
    while n > 0:
        n >>= 1
        k += 1
    return k


@helper
def order_queries(part, data, ints, scores, scratch, out):
    """:func:`~fastrank._kernels.text.trec_arrays`' mode 1 + ``part`` (see there):
    each query's rows of the part placed by score, then document rank. Returns 0."""
    nb, parts = ints[0], ints[1]
    starts = ints[2 + parts + 1:]
    ends = starts[nb:]
    keys = data.view(np.int64)
    for b in range(ints[2 + part], ints[2 + part + 1]):
        s, e = starts[b], ends[b]
        down = True
        up = True
        for r in range(s + 1, e):
            if scores[r] > scores[r - 1]:
                down = False
            elif scores[r] < scores[r - 1]:
                up = False
        for j in range(e - s):
            scratch[s + j] = e - 1 - j if down and not up else s + j
        if up or down:  # sorted by score already (a run lists its best first): each
            j = s  # run of equal scores by document rank
            while j < e:
                k = j + 1
                while k < e and scores[scratch[k]] == scores[scratch[j]]:
                    k += 1
                if k - j > 16:
                    _sort_rows(scratch, j, k, scores, keys)
                elif k - j > 1:  # (the common case, as a small helper that inlines)
                    _insert_rows(scratch, j, k, scores, keys)
                j = k
        else:
            _sort_rows(scratch, s, e, scores, keys)
        for j in range(s, e):
            out[scratch[j]] = np.float64(j)
    return 0


__all__ = ["order_queries"]
