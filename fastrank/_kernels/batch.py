"""Many tasks in one call: the parallel loop over tasks.

:func:`batch_parallel` runs :func:`.task.task_core` (the single-task engine,
unchanged) on every task of a batch, on all the threads Numba may use, and
:func:`batch_serial` does the same on the calling thread. Each
worker owns one row of the ``work`` matrix and copies each of its tasks
into that scratch before grouping it, so every task is computed from the same
contiguous arrays, by the same code, as a single-task call: the results are
bit-for-bit those of the single-task functions, whatever the thread count.

Where a task's samples come from (the *layout* of the batch):

* ``SAMPLE_MAJOR``: a C-ordered ``(n_samples, n_tasks)`` matrix, read in
  blocks of ``block`` neighbouring tasks so that every cache line fetched is
  used (a column alone would touch one line per sample);
* ``SEGMENTS``: task ``j`` is ``bits[offsets[j]:offsets[j + 1]]`` (columns of
  a Fortran-ordered matrix, or groups whose samples are already together),
  or, when ``rows`` is not empty, ``bits[rows[offsets[j]:offsets[j + 1]]]``
  (groups in any order).

Where the labels come from: ``LAB_SAME`` (a 0/1 ``uint8`` array indexed
like the scores), ``LAB_CSC`` (task ``j``'s positive samples are
``lab_idx[lab_ptr[j]:lab_ptr[j + 1]]``, a compressed sparse column matrix) or
``LAB_CODES`` (a class code per sample in ``lab_idx``; task ``j`` is class
``j`` against the rest). Weights are either one per sample shared by every
task (``wshared``) or indexed like the scores.

Workers take units (blocks or tasks) round-robin from ``units``, which the
caller orders by decreasing size so that the big tasks start first.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .groups import align, align_bytes, carve
from .jit import kernel, parallel_kernel
from .keys import to_key
from .sort import sort_keys
from .task import task_core

SAMPLE_MAJOR = 0
SEGMENTS = 1

# Tasks of a C-ordered matrix are read this many at a time: one 64-byte cache
# line of float32 scores per sample.
BLOCK = 16

LAB_SAME = 0
LAB_CSC = 1
LAB_CODES = 2


def worker_bytes(nmax: int, key_size: int, block: int, weighted: bool, task_bytes: int) -> int:
    """Scratch bytes one worker needs: its task copies plus one task's ``work``."""
    total = align(block * nmax * key_size) + align(block * nmax) + task_bytes
    if weighted:
        total += align(8 * nmax)
    return total


@kernel
def _copy_weights(weights, wb, n):
    if weights is not None:
        for i in range(n):
            wb[i] = weights[i]


@kernel
def _weight_row(weights, wb, ln):
    """The task's weights as the engine sees them: ``None``, or the gathered copy."""
    if weights is None:
        return None
    return wb[:ln]


@kernel
def _gather_block(bits, labels, lab_mode, n, t, j0, bw, tb, lb):
    """Columns ``j0 .. j0 + bw`` of a C-ordered matrix into ``bw`` contiguous rows.

    A full block is copied with a constant trip count, which the compiler
    turns into one vector load per sample (five times faster than the
    general loop, which serves the last, partial block).
    """
    if bw == BLOCK:
        for i in range(n):
            at = i * t + j0
            for jj in range(BLOCK):
                tb[jj * n + i] = bits[at + jj]
        if lab_mode == LAB_SAME:
            for i in range(n):
                at = i * t + j0
                for jj in range(BLOCK):
                    lb[jj * n + i] = labels[at + jj]
        return
    for i in range(n):
        at = i * t + j0
        for jj in range(bw):
            tb[jj * n + i] = bits[at + jj]
        if lab_mode == LAB_SAME:
            for jj in range(bw):
                lb[jj * n + i] = labels[at + jj]


@kernel
def _gather_segment(bits, labels, lab_mode, weights, wshared, rows, s0, ln, tb, lb, wb):
    """One segment (direct, or through ``rows``) into contiguous scratch."""
    if rows.shape[0] == 0:
        for i in range(ln):
            tb[i] = bits[s0 + i]
        if lab_mode == LAB_SAME:
            for i in range(ln):
                lb[i] = labels[s0 + i]
        if weights is not None and not wshared:
            for i in range(ln):
                wb[i] = weights[s0 + i]
    else:
        for i in range(ln):
            r = rows[s0 + i]
            tb[i] = bits[r]
            lb[i] = labels[r]
            if weights is not None:
                wb[i] = weights[r]


@kernel
def _task_labels(lab_mode, lab_ptr, lab_idx, j, lrow):
    """Fill ``lrow`` for task ``j`` when labels are sparse or class codes; count positives."""
    ln = lrow.shape[0]
    if lab_mode == LAB_CSC:
        for i in range(ln):
            lrow[i] = 0
        for k in range(lab_ptr[j], lab_ptr[j + 1]):
            lrow[lab_idx[k]] = 1
    elif lab_mode == LAB_CODES:
        for i in range(ln):
            lrow[i] = 1 if lab_idx[i] == j else 0
    npos = 0
    for i in range(ln):
        npos += lrow[i]
    return npos


@kernel
def _worker(
    w, nworkers, bits, layout, n, t, offsets, rows, labels, lab_mode, lab_ptr, lab_idx,
    weights, wshared, kind, sign, ones, max_fpr, what, units, block, nmax, work, out, prbe,
):
    """Worker ``w`` of ``nworkers``: units ``units[w::nworkers]``, in its own scratch."""
    mine = work[w]
    kw = bits.itemsize
    lb_at = align_bytes(block * nmax * kw)
    wb_at = lb_at + align_bytes(block * nmax)
    tw_at = wb_at
    if weights is not None:
        tw_at += align_bytes(8 * nmax)
    tb = carve(mine, 0, block * nmax, bits)
    lb = mine[lb_at : lb_at + block * nmax]
    wb = mine[wb_at : wb_at + 8 * nmax].view(np.float64)
    tw = mine[tw_at:]
    if wshared:
        _copy_weights(weights, wb, n)
    for q in range(w, units.shape[0], nworkers):
        u = units[q]
        if layout == SAMPLE_MAJOR:
            j0 = u * block
            bw = min(block, t - j0)
            ln = n
            _gather_block(bits, labels, lab_mode, n, t, j0, bw, tb, lb)
        else:
            j0 = u
            bw = 1
            s0 = offsets[u]
            ln = offsets[u + 1] - s0
            _gather_segment(bits, labels, lab_mode, weights, wshared, rows, s0, ln, tb, lb, wb)
        for jj in range(bw):
            j = j0 + jj
            row = tb[jj * ln : (jj + 1) * ln]
            lrow = lb[jj * ln : (jj + 1) * ln]
            npos = _task_labels(lab_mode, lab_ptr, lab_idx, j, lrow)
            prbe[j] = task_core(
                row, kind, sign, ones, lrow, npos, _weight_row(weights, wb, ln),
                max_fpr, what, tw, out[j],
            )


@parallel_kernel
def batch_parallel(
    bits, layout, n, t, offsets, rows, labels, lab_mode, lab_ptr, lab_idx, weights, wshared,
    kind, sign, ones, max_fpr, what, units, block, nmax, work, out, prbe,
):
    """Metrics of every task, one worker per row of ``work`` on Numba's threads:
    ``out[j]`` as :func:`.task.task_metrics` writes it, and ``prbe[j]`` the
    bits of task ``j``'s break-even score."""
    nworkers = work.shape[0]
    for w in prange(nworkers):
        _worker(
            w, nworkers, bits, layout, n, t, offsets, rows, labels, lab_mode, lab_ptr,
            lab_idx, weights, wshared, kind, sign, ones, max_fpr, what, units, block, nmax,
            work, out, prbe,
        )


@kernel
def batch_serial(
    bits, layout, n, t, offsets, rows, labels, lab_mode, lab_ptr, lab_idx, weights, wshared,
    kind, sign, ones, max_fpr, what, units, block, nmax, work, out, prbe,
):
    """:func:`batch_parallel` on the calling thread only (same results, bit for bit)."""
    _worker(
        0, 1, bits, layout, n, t, offsets, rows, labels, lab_mode, lab_ptr, lab_idx, weights,
        wshared, kind, sign, ones, max_fpr, what, units, block, nmax, work, out, prbe,
    )


@kernel
def scan_ids(gbits, kind, sign, ones):
    """``(in_order, lo, hi)``: whether the id keys never decrease, and their range."""
    in_order = True
    lo = ~np.uint64(0)
    hi = np.uint64(0)
    prev = np.uint64(0)
    for i in range(gbits.shape[0]):
        k = to_key(np.uint64(gbits[i]), kind, sign, ones)
        lo = min(lo, k)
        hi = max(hi, k)
        if k < prev:
            in_order = False
        prev = k
    return in_order, lo, hi


@kernel
def runs_of_ids(gbits, kind, sign, ones):
    """Groups of ids that never decrease: ``(offsets, first)`` of the runs."""
    n = gbits.shape[0]
    count = 1
    prev = to_key(np.uint64(gbits[0]), kind, sign, ones)
    for i in range(1, n):
        k = to_key(np.uint64(gbits[i]), kind, sign, ones)
        count += k != prev
        prev = k
    offsets = np.empty(count + 1, np.int64)
    offsets[0] = 0
    g = 0
    prev = to_key(np.uint64(gbits[0]), kind, sign, ones)
    for i in range(1, n):
        k = to_key(np.uint64(gbits[i]), kind, sign, ones)
        if k != prev:
            g += 1
            offsets[g] = i
        prev = k
    offsets[count] = n
    return offsets, offsets[:count].copy()


@kernel
def _like_weights(weights):
    if weights is None:
        return None
    return np.empty_like(weights)


@kernel
def scatter_by_id(gbits, kind, sign, ones, lo, span, bits, labels, weights):
    """Samples moved group by group (ids in increasing order, input order within).

    For ids whose keys span ``span`` values from ``lo`` (``span`` at most the
    number of samples): a counting sort that moves the scores' bits, labels
    and weights themselves, so that the tasks are read sequentially later.
    Returns ``(offsets, first, bits, labels, weights)``, ``first[g]`` being
    the input index of group ``g``'s first sample.
    """
    n = gbits.shape[0]
    slot = np.zeros((span, 2), np.int64)  # per id value: next position, group number
    for i in range(n):
        slot[to_key(np.uint64(gbits[i]), kind, sign, ones) - lo, 0] += 1
    ngroups = 0
    for v in range(span):
        ngroups += slot[v, 0] > 0
    offsets = np.empty(ngroups + 1, np.int64)
    pos = 0
    g = 0
    for v in range(span):
        c = slot[v, 0]
        if c:
            offsets[g] = pos
            slot[v, 0] = pos
            slot[v, 1] = g
            pos += c
            g += 1
    offsets[ngroups] = n
    first = np.empty(ngroups, np.int64)
    sbits = np.empty_like(bits)
    slabels = np.empty_like(labels)
    sweights = _like_weights(weights)
    for i in range(n):
        v = to_key(np.uint64(gbits[i]), kind, sign, ones) - lo
        d = slot[v, 0]
        g = slot[v, 1]
        if d == offsets[g]:
            first[g] = i
        sbits[d] = bits[i]
        slabels[d] = labels[i]
        if weights is not None:
            sweights[d] = weights[i]
        slot[v, 0] = d + 1
    return offsets, first, sbits, slabels, sweights


@kernel
def sort_ids(gbits, kind, sign, ones, lo, hi):
    """Ids over a wide range: ``(rows, offsets, first)`` from a radix sort of the keys."""
    n = gbits.shape[0]
    keys = np.empty(n, np.uint64)
    for i in range(n):
        keys[i] = to_key(np.uint64(gbits[i]), kind, sign, ones)
    rows = np.arange(n)
    # Keys between lo and hi vary only in the bits at or below the top bit of lo ^ hi.
    sort_keys(keys, np.empty_like(keys), rows, np.empty_like(rows), lo ^ hi,
              np.empty((8, 256), np.int64))
    offsets = _runs(keys)
    first = np.empty(offsets.shape[0] - 1, np.int64)
    for g in range(first.shape[0]):
        first[g] = rows[offsets[g]]
    return rows, offsets, first


@kernel
def _runs(keys):
    """Offsets of the runs of equal values in sorted ``keys`` (with ``len(keys)`` last)."""
    n = keys.shape[0]
    count = 1
    for i in range(1, n):
        count += keys[i] != keys[i - 1]
    offsets = np.empty(count + 1, np.int64)
    offsets[0] = 0
    g = 0
    for i in range(1, n):
        if keys[i] != keys[i - 1]:
            g += 1
            offsets[g] = i
    offsets[count] = n
    return offsets
