"""A batch's tasks one at a time, and its samples laid out by group.

For code that works task by task (readouts, uncertainty, rankings): one task
of a batch as a :class:`~fastrank._core.inputs.Task` (with its own weight
unit), every task, or every cell pooled (``average="micro"``); the error
naming a batch's first NaN or infinite score; and the counting sort that puts
the samples of ``groups=`` group by group.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.batch import BLOCK, LAB_CSC, LAB_SAME, group_order, transpose_block
from . import workers
from .inputs import (
    LOST_RANGE,
    SAMPLE_MAJOR,
    SPECS,
    Batch,
    Task,
    check_finite,
    lost_weight_error,
    nonfinite_error,
    readonly,
    scaled_weights,
    task_of,
    weight_losses,
)
from .workspace import EMPTY_F


def task_parts(b: Batch, j: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Task ``j``'s 0/1 labels and weights, whatever the batch's layout."""
    if b.layout == SAMPLE_MAJOR:
        s0, s1 = 0, b.n
    else:
        s0, s1 = int(b.offsets[j]), int(b.offsets[j + 1])
    n = s1 - s0
    if b.lab_mode == LAB_SAME:
        lab = b.labels.reshape(b.n, b.t)[:, j] if b.layout == SAMPLE_MAJOR else b.labels[s0:s1]
    elif b.lab_mode == LAB_CSC:
        lab = np.zeros(n, np.uint8)
        lab[b.lab_idx[b.lab_ptr[j]:b.lab_ptr[j + 1]]] = 1
    else:
        lab = (b.lab_idx == j).view(np.uint8)
    w = None if b.weights is None else (b.weights[:n] if b.wshared else b.weights[s0:s1])
    return lab, w


def group_segments(codes: np.ndarray, ngroups: int, values: np.ndarray, labels: np.ndarray,
                   w: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray,
                                                  np.ndarray, np.ndarray | None]:
    """The samples group by group (input order within a group): the order that
    puts them so (None when they already were), the ``ngroups + 1`` offsets of
    the groups, and the scores, labels and weights in that order.

    A counting sort in parts, one per thread for large inputs: each part counts
    its rows per group, the counts give each part's first place in each group
    (the parts in input order, so the order is the one-thread order), and the
    parts move their rows side by side.
    """
    n = codes.shape[0]
    nparts = max(1, min(workers.threads(), n // workers.PARALLEL_MIN))
    edges = [n * p // nparts for p in range(nparts + 1)]
    bits = SPECS[values.dtype].bits
    codes = readonly(np.ascontiguousarray(codes))
    vin = readonly(values.view(bits))
    lin = readonly(labels)
    win = readonly(w) if w is not None else EMPTY_F
    order = np.empty(n, np.int64)
    vout = np.empty(n, values.dtype)
    lout = np.empty(n, np.uint8)
    wout = np.empty(n if w is not None else 0, np.float64)
    vbits = vout.view(bits)
    counts = np.zeros((nparts, ngroups), np.int64)

    def part(p: int, place: bool) -> bool:
        return bool(group_order(codes, edges[p], edges[p + 1], vin, lin, win, counts[p], place,
                                order, vbits, lout, wout))

    workers.parallel_map(lambda p: part(p, False), range(nparts), nparts)
    offsets = np.zeros(ngroups + 1, np.int64)
    np.cumsum(counts.sum(axis=0), out=offsets[1:])
    counts[:] = offsets[:-1] + (np.cumsum(counts, axis=0) - counts)  # each part's first places
    same = all(workers.parallel_map(lambda p: part(p, True), range(nparts), nparts))
    if same:
        return None, offsets, values, labels, w
    return order, offsets, vout, lout, (wout if w is not None else None)


def segment_task(b: Batch, j: int) -> Task:
    """Task ``j`` of a batch of segments as a one-task input."""
    lab, w = task_parts(b, j)
    s0, s1 = int(b.offsets[j]), int(b.offsets[j + 1])
    return scaled_task(b.values[s0:s1], b.dtype, lab, int(np.count_nonzero(lab)), w, j)


def scaled_task(values: np.ndarray, dtype: Any, lab: np.ndarray, npos: int,
                 w: np.ndarray | None, j: int) -> Task:
    """Task ``j`` of a batch with its own weight unit, as a one-task call has it."""
    given = w
    try:
        w, unit, bounds, shift = scaled_weights(given, lab, npos)
    except ValueError as exc:
        raise ValueError(f"task {j}: {exc}") from None
    return Task(values, dtype, lab, npos, w, unit, True, bounds, shift,
                *weight_losses(given, w, lab))


def _bad_task(b: Batch, at: int) -> int:
    """The task holding flat position ``at`` of ``b.values``."""
    if b.layout == SAMPLE_MAJOR:
        return at % b.t
    return int(np.searchsorted(b.offsets, at, side="right")) - 1


def raise_batch(b: Batch, j: int) -> None:
    """The error naming the first NaN or infinite score of task ``j``."""
    if b.layout == SAMPLE_MAJOR:
        column = b.values.reshape(b.n, b.t)[:, j]
    else:
        column = b.values[int(b.offsets[j]):int(b.offsets[j + 1])]
    i = int(np.flatnonzero(~np.isfinite(column))[0])
    if b.mode == "groups":
        at = int(b.offsets[j]) + i
        row = int(b.order[at]) if b.order is not None else at
        raise nonfinite_error(column[i], row, (b.n,))
    raise nonfinite_error(column[i], i * b.t + j, (b.n, b.t))


def refuse_lost_weights(b: Batch, micro: bool = False) -> None:
    """The error of :func:`~.inputs.lost_weight_error` for the first task of a weighted
    batch (``micro``: the pooled task) with a weight its units lose (looked for only
    where the weights span :data:`~.inputs.LOST_RANGE`, which any such weight needs), for the
    metrics of precision."""
    w = b.weights
    if w is None or not w.shape[0]:
        return
    top = float(w.max())
    least = w[w > 0]
    if not least.shape[0] or float(least.min()) * LOST_RANGE > top:
        return
    if micro:
        lost = pooled(b).lost_precision
        if lost:
            raise lost_weight_error(lost, "the pooled task (average='micro'): ")
        return
    for j, t in enumerate(split_batch(b)):
        if t.lost_precision:
            raise lost_weight_error(t.lost_precision, f"task {j}: ")


def split_batch(b: Batch) -> list[Task]:
    """One :class:`Task` per task of a batch (a column, a class against the rest, or a
    group), for code that works task by task; the scores are checked for NaN/inf here.

    The columns of a C-ordered matrix are made task-major a block at a time
    (:func:`~fastrank._kernels.batch.transpose_block`, as the batched sweep does):
    gathering one column at a time reads a cache line per sample and column."""
    if b.layout == SAMPLE_MAJOR:
        check_finite(b.values.reshape(b.n, b.t))
    else:
        check_finite(b.values)
    tasks = []
    if b.layout == SAMPLE_MAJOR:
        n = b.n
        spec = SPECS[b.values.dtype]
        bits = readonly(b.values.view(spec.bits))
        labels, ptr, idx = readonly(b.labels), readonly(b.lab_ptr), readonly(b.lab_idx)

        def block(j0: int) -> list[Task]:  # the kernel releases the GIL: blocks side by side
            bw = min(BLOCK, b.t - j0)
            tb = np.empty(bw * n, spec.bits)
            lb = np.empty(bw * n, np.uint8)
            transpose_block(bits, n, b.t, j0, bw, labels, b.lab_mode, ptr, idx, tb, lb)
            values = tb.view(b.values.dtype)
            return [task_of(values[jj * n:(jj + 1) * n], b.dtype, lb[jj * n:(jj + 1) * n],
                            b.weights) for jj in range(bw)]

        nthreads = workers.threads() if b.values.shape[0] >= workers.PARALLEL_MIN else 1
        for part in workers.parallel_map(block, range(0, b.t, BLOCK), nthreads):
            tasks.extend(part)
        return tasks
    for j in range(b.t):
        lo, hi = int(b.offsets[j]), int(b.offsets[j + 1])
        if b.lab_mode == LAB_SAME:
            lab = b.labels[lo:hi]
        elif b.lab_mode == LAB_CSC:
            lab = np.zeros(b.n, np.uint8)
            lab[b.lab_idx[b.lab_ptr[j]:b.lab_ptr[j + 1]]] = 1
        else:
            lab = (b.lab_idx == j).view(np.uint8)
        w = None if b.weights is None else b.weights[lo:hi] if b.mode == "groups" else b.weights
        tasks.append(task_of(np.ascontiguousarray(b.values[lo:hi]), b.dtype,
                             np.ascontiguousarray(lab), w))
    return tasks


def pooled(b: Batch) -> Task:
    """Every cell of a batch as one task (``average="micro"``). A NaN or infinite
    score is reported where the caller put it (row and task, or input index)."""
    if b.values.size == 0:  # (a matrix of no columns: samples alone are refused earlier)
        raise ValueError(f"y_score has no cells ({b.n} samples x {b.t} tasks): "
                         "average='micro' pools every cell into one task, and there are none")
    if b.values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            finite = bool(np.isfinite(b.values.min()) and np.isfinite(b.values.max()))
        if not finite:
            bad = int(np.flatnonzero(~np.isfinite(b.values))[0])
            if b.mode == "groups":
                raise nonfinite_error(b.values[bad], int(b.order[bad]) if b.order is not None
                                      else bad, (b.n,))
            j = _bad_task(b, bad)
            raise_batch(b, j)
    if b.mode == "groups":
        npos = int(np.count_nonzero(b.labels))
        w, unit, bounds, shift = scaled_weights(b.weights, b.labels, npos)
        return Task(b.values, b.dtype, b.labels, npos, w, unit, False, bounds, shift,
                    *weight_losses(b.weights, w, b.labels))
    if b.lab_mode == LAB_SAME:
        labels = b.labels
    else:
        dense = np.zeros((b.t, b.n), np.uint8)
        if b.lab_mode == 1:
            cols = np.repeat(np.arange(b.t), np.diff(b.lab_ptr))
            dense[cols, b.lab_idx] = 1
        else:
            dense[b.lab_idx, np.arange(b.n)] = 1
        labels = (dense if b.layout != SAMPLE_MAJOR else dense.T.copy()).reshape(-1)
    w = None
    if b.weights is not None:
        w = np.repeat(b.weights, b.t) if b.layout == SAMPLE_MAJOR else np.tile(b.weights, b.t)
    npos = int(np.count_nonzero(labels))
    given = w
    w, unit, bounds, shift = scaled_weights(given, labels, npos)
    return Task(b.values, b.dtype, labels, npos, w, unit, False, bounds, shift,
                *weight_losses(given, w, labels))
