"""Every task of a batch: results or tie tables, the tasks spread over the threads.

Tasks are spread over the threads in units (blocks of columns of a C-ordered
matrix, runs of segments otherwise); small tasks are computed inside one
kernel call per unit (fastrank's own sort, no Python step per task), large
ones each through the one-task engine. A batch of few tasks runs every task
as a one-task call. Both give the same numbers.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .._kernels.batch import BLOCK, LAB_CSC, LAB_SAME, SHARE_UNIT, run_segments, transpose_block
from .._kernels.sort import HIST_SHAPE
from .._kernels.sweep import CHUNK, K_SIZE, OUT_SIZE, S_SIZE
from . import first_calls, sorting, workers
from .batch_tasks import raise_batch, scaled_task, segment_task, task_parts
from .by_class import NonFinite, swept
from .engine import in_caller_units, task_row
from .inputs import SAMPLE_MAJOR, SPECS, Batch, Task, readonly, task_of
from .tie_tables import RUNS_ROOM, cumulative_runs_raw, runs_scratch
from .workspace import EMPTY_F, EMPTY_FW, EMPTY_I, EMPTY_IW, EMPTY_UW, carve, scratch

SMALL_TASK = 4096  # batch tasks up to this size are always sorted inside the kernel
# Batch tasks up to BATCH_TASK are computed inside the batch kernel too (fastrank's
# radix sort, no Python step per task) where the radix sort is the faster sort at
# their size on this machine (:func:`in_kernel`); otherwise each takes the one-task
# engine's steps with numpy's sort (about five kernel calls and a hash try for
# repeated scores, some 10-20 us). The kernel's per-thread scratch is a block of 16
# columns (5 bytes per float32 score, 9 per float64) and three class buffers: 42 MB
# per thread at the limit for float64. Measured with benchmarks/compare_floor.py
# (AMD Zen 4, 2 threads, AP of 50,000 x 300 float32 at 2% positives): 1.3x the
# floor kernel's time against 3.0x when every column took the one-task steps.
BATCH_TASK = 1 << 18
COLUMN_STEPS = 10e-6  # what a batch task's one-task steps from Python cost, at the least
FEW_TASKS = 64  # ... when the batch has more tasks than this (else one call per task)
# Batch tasks whose tie tables (batch_tables) the kernel writes: a larger task's table
# takes Python steps that hold the GIL, which cost more than the kernel's radix sort
# (10,000 x 1,000 float32, sensitivity at 95% specificity, AMD Zen 3: 284 -> 186 ms).
TABLE_TASK = 4 * SMALL_TASK


def batch_metrics(b: Batch, max_fpr: float, what: int) -> tuple[np.ndarray, np.ndarray]:
    """Every task's ``OUT_*`` row (totals in the caller's units: each task has
    its own weight unit) and break-even score bits.

    Tasks are spread over the threads in units (blocks of columns of a
    C-ordered matrix, runs of segments otherwise); small tasks are computed
    inside one kernel call per unit, large ones each as a one-task call. A
    batch of at most :data:`FEW_TASKS` tasks runs every task as a one-task
    call: a Python call per task costs it little, and it does not wait for the
    batch kernel's compilation (the largest of all) on first use; so does a
    small batch while no kernel of the way is compiled
    (:func:`~.first_calls.batch_by_numpy`). Both give the same numbers.
    """
    out = np.empty((b.t, OUT_SIZE), np.float64)
    prbe = np.zeros(b.t, np.uint64)
    if b.t == 0:
        return out, prbe
    nthreads = workers.threads() if int(b.sizes.sum()) >= workers.PARALLEL_MIN else 1
    share = _positive_share(b)
    together = b.t > FEW_TASKS and not first_calls.batch_by_numpy(b)
    if b.layout == SAMPLE_MAJOR:
        inside = together and bool(in_kernel(b.sizes[:1], b.values.itemsize,
                                             b.weights is not None, share)[0])
        units = column_units(b, nthreads, inside)
        run = _block_runner(b, max_fpr, what, out, prbe, inside)
    else:
        inside_mask = in_kernel(b.sizes, b.values.itemsize, b.weights is not None, share)
        units = _segment_units(b, nthreads, BATCH_TASK if bool(
            (inside_mask & (b.sizes > SMALL_TASK)).any()) else SMALL_TASK)
        run = _segment_runner(b, max_fpr, what, out, prbe, together, inside_mask)
    try:
        workers.parallel_map(run, units, nthreads)
    except _BatchNonFinite as exc:
        raise_batch(b, exc.task)
    return out, prbe


class Tables(NamedTuple):
    """Where a batch kernel call writes its tasks' tie tables: one after another
    from the start of ``pos``/``neg``/``key`` (TP and FP at or above each entry,
    cumulated counts, and its score bits), task ``j`` given room for
    ``ptr[j + 1] - ptr[j]`` entries and its number of entries in ``filled[j]``."""

    ptr: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    key: np.ndarray
    filled: np.ndarray


# visit(tasks, fp, tp, key, starts, sizes): the tables of ``tasks`` (batch task numbers, in
# order), table ``i`` the ``sizes[i]`` entries of ``fp``/``tp``/``key`` from ``starts[i]``
Visit = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


def batch_tables(b: Batch, visit: Visit | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every task's tie table of an unweighted batch, runs of negative-only groups as
    one entry (as :func:`task_table` with ``runs``), cumulated and laid end to end:
    FP, TP (float64 counts), score bits (uint64) and the ``t + 1`` offsets.

    With ``visit``, the tables are handed to it instead, a unit of tasks at a time,
    by the thread that made them (in that thread's kept buffer, side by side, while
    they are in cache; valid during the call only), and four empty arrays are
    returned. Calls come from several threads at once, each task in one call.

    Units of work as in :func:`batch_metrics`: tasks of up to :data:`TABLE_TASK`
    samples inside one kernel call per unit (no Python step per task); larger ones
    each through :func:`cumulative_runs` (the steps of a one-task call). A NaN or
    infinite score raises the error naming it (row and task).
    """
    assert b.weights is None
    if visit is None:  # the units' tables copied, then put in task order
        pieces: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []

        def keep(js: np.ndarray, fp: np.ndarray, tp: np.ndarray, key: np.ndarray,
                 starts: np.ndarray, sizes: np.ndarray) -> None:
            hi = int(starts[-1] + sizes[-1])
            pieces.append((int(js[0]), fp[:hi].copy(), tp[:hi].copy(), key[:hi].copy()))

        filled = _tables(b, keep)
        pieces.sort(key=lambda x: x[0])
        offsets = np.zeros(b.t + 1, np.int64)
        np.cumsum(filled, out=offsets[1:])
        parts = [np.concatenate([x[i] for x in pieces]) if pieces else np.empty(0)
                 for i in (1, 2, 3)]
        return parts[0], parts[1], parts[2].astype(np.uint64, copy=False), offsets
    _tables(b, visit)
    return EMPTY_FW, EMPTY_FW, EMPTY_UW, EMPTY_IW


def _tables(b: Batch, visit: Visit) -> np.ndarray:
    """:func:`batch_tables` with ``visit``; returns each task's number of entries."""
    sizes = b.sizes.astype(np.int64)
    small = sizes <= TABLE_TASK if b.t > FEW_TASKS else np.zeros(b.t, bool)
    ptr = np.zeros(b.t + 1, np.int64)  # each small task's room
    np.cumsum(np.where(small, sizes + RUNS_ROOM, 0), out=ptr[1:])
    filled = np.zeros(b.t, np.int64)
    nthreads = workers.threads() if int(sizes.sum()) >= workers.PARALLEL_MIN else 1
    # (a large task, above TABLE_TASK, is past THREADED_TASK too: its steps run on threads)
    dummy = np.empty((b.t, OUT_SIZE), np.float64), np.zeros(b.t, np.uint64)

    def large(t: Task, j: int) -> None:
        try:
            key, fp, tp = cumulative_runs_raw(t, runs_scratch(t.values.shape[0]))
        except NonFinite:
            raise _BatchNonFinite(j) from None
        filled[j] = key.shape[0]
        visit(np.array([j]), fp, tp, key, np.zeros(1, np.int64), filled[j:j + 1])

    def buffers(j0: int, j1: int) -> Tables:
        """This thread's kept buffer, with room for tasks ``j0 .. j1``'s tables."""
        room = int(ptr[j1] - ptr[j0])
        buf = scratch("tables", 24 * room + 192)
        pos, at = carve(buf, 0, room, np.float64)
        neg, at = carve(buf, at, room, np.float64)
        key, _ = carve(buf, at, room, np.uint64)
        return Tables(ptr, pos, neg, key, filled)

    def show(tabs: Tables, js: np.ndarray) -> None:
        sizes_ = filled[js]
        starts = np.zeros(js.shape[0], np.int64)
        np.cumsum(sizes_[:-1], out=starts[1:])
        visit(js, tabs.neg, tabs.pos, tabs.key, starts, sizes_)

    if b.layout == SAMPLE_MAJOR:
        n = b.n

        def run(unit: tuple[int, int]) -> None:
            j0, j1 = unit
            bw = j1 - j0
            vals, lb = _block(b, j0, bw)
            if small[j0]:  # (every column one size)
                tabs = buffers(j0, j1)
                sub = tabs._replace(ptr=ptr[j0:j1 + 1], filled=filled[j0:j1])
                _run_small(b, vals, lb, LAB_SAME, True, np.arange(bw + 1, dtype=np.int64) * n,
                           np.arange(bw, dtype=np.int64), n, 1.0, 0, dummy[0][:bw],
                           dummy[1][:bw], j0, sub)
                show(tabs, np.arange(j0, j1))
                return
            for jj in range(bw):
                lab = lb[jj * n:(jj + 1) * n]
                large(task_of(vals[jj * n:(jj + 1) * n], b.dtype, lab, None), j0 + jj)

        units = column_units(b, nthreads, bool(small.any()))
    else:
        def run(unit: tuple[int, int]) -> None:
            j0, j1 = unit
            inside = np.flatnonzero(small[j0:j1]) + j0
            if inside.shape[0]:
                tabs = buffers(j0, j1)
                _run_small(b, b.values, b.labels, b.lab_mode, b.wshared, b.offsets,
                           inside.astype(np.int64), int(b.sizes[inside].max()), 1.0, 0,
                           dummy[0], dummy[1], 0, tabs)
                show(tabs, inside)
            for jj in (np.flatnonzero(~small[j0:j1]) + j0).tolist():  # (after the small ones)
                large(segment_task(b, jj), jj)

        units = _segment_units(b, nthreads, TABLE_TASK)
    try:
        workers.parallel_map(run, units, nthreads)
    except _BatchNonFinite as exc:
        raise_batch(b, exc.task)
    return filled


class _BatchNonFinite(Exception):
    def __init__(self, task: int) -> None:
        self.task = task


def _positive_share(b: Batch) -> float:
    """The share of positives over a batch's unweighted float32 tasks (what decides
    whether they take the item sort; -1 for any other batch)."""
    if b.weights is not None or b.values.itemsize != 4 or b.values.shape[0] == 0 \
            or int(b.sizes.max()) <= SMALL_TASK:
        return -1.0
    if b.lab_mode == LAB_SAME:
        return float(np.count_nonzero(b.labels) / b.labels.shape[0])
    if b.lab_mode == LAB_CSC:
        return float(b.lab_idx.shape[0] / b.values.shape[0])
    return 1.0 / b.t  # class codes: one class against the rest


def in_kernel(sizes: np.ndarray, itemsize: int, weighted: bool,
              share: float = -1.0) -> np.ndarray:
    """Which tasks of these sizes a batch computes inside its kernel: every one up
    to :data:`SMALL_TASK` samples, and up to :data:`BATCH_TASK` those where the
    radix sort is the faster at their size here (:func:`~.sorting.sort_choice`,
    timed per size bucket; ``FASTRANK_SORT`` forces it) or that are weighted (the
    one-task engine sorts weighted classes with the radix sort too), or that have
    float32 scores with a ``share`` of positives at which the item sort inside the
    kernel is faster than each class's numpy sort outside it (:func:`items_inside`)."""
    sizes = np.asarray(sizes, np.int64)
    inside = sizes <= SMALL_TASK
    mid = ~inside & (sizes <= BATCH_TASK)
    if not mid.any():
        return inside
    if weighted:
        return inside | mid
    bucket = np.frexp(sizes.astype(np.float64))[1]  # each size's bit length
    for bl in np.unique(bucket[mid]).tolist():
        c = sorting.sort_choice(itemsize, 1 << (int(bl) - 1))
        # the radix sort where it is the faster, or slower by less than a task's
        # steps from Python cost (at the bucket's largest size)
        if c.path == "radix" or (c.n and (c.radix_s - c.numpy_s) * ((2 << (int(bl) - 1)) - 1)
                                 / c.n < COLUMN_STEPS) \
                or (itemsize == 4 and share >= 0.0 and items_inside(1 << (int(bl) - 1), share)):
            inside |= mid & (bucket == bl)
    return inside


def items_inside(n: int, share: float) -> bool:
    """Whether tasks of ``n`` float32 scores with this share of positives are faster
    inside the batch kernel by the item sort than through the one-task engine with
    numpy's sort, from the timings of :func:`items_choice` (at the largest share
    timed not above this one) and :func:`~.sorting.sort_choice`: the classes'
    time inside the kernel, less what numpy's sort saves on the task's keys, plus
    the steps of a call from Python (:data:`COLUMN_STEPS`)."""
    c = items_choice(n)
    units = share * SHARE_UNIT
    rows = [r for r in c.timings if r[0] <= units]
    if units < c.share or not rows:
        return False
    _, classes_s, items_s = rows[-1]  # seconds per score
    s = sorting.sort_choice(4, n)
    saved = (s.radix_s - s.numpy_s) / s.n if s.n else 0.0
    return items_s < classes_s - saved + COLUMN_STEPS / max(n, 1)


def _segment_units(b: Batch, nthreads: int, alone: int = SMALL_TASK) -> list[tuple[int, int]]:
    """Tasks in runs of about equal work, several runs per thread; a task of more
    than ``alone`` samples ends its run."""
    sizes = b.sizes
    target = max(int(sizes.sum()) // (8 * nthreads), SMALL_TASK)
    reach = np.cumsum(sizes) // target  # a run ends where the running total passes a target
    ends = np.flatnonzero((np.diff(reach, prepend=0) > 0) | (sizes > alone)) + 1
    edges = np.unique(np.concatenate(([0], ends, [b.t]))).tolist()
    return list(itertools.pairwise(edges))


def _run_small(b: Batch, values: np.ndarray, labels: np.ndarray, lab_mode: int, wshared: bool,
               offsets: np.ndarray, tasks: np.ndarray, nmax: int, max_fpr: float, what: int,
               out: np.ndarray, prbe: np.ndarray, first: int = 0,
               tables: Tables | None = None) -> None:
    """Small tasks inside one kernel call (fastrank's own sort, no call per task).
    ``nmax`` is the largest of the tasks; the kernel's scratch is sized from it,
    so it is checked here (the kernel runs without bounds checks). With
    ``tables`` (unweighted), the tasks' tie tables are written there instead of
    their results (``tables.ptr``/``tables.filled`` indexed as ``out`` is)."""
    spec = SPECS[values.dtype]
    w = EMPTY_F if b.weights is None else readonly(b.weights)
    if tasks.shape[0] and int((offsets[tasks + 1] - offsets[tasks]).max()) > nmax:
        raise RuntimeError("a batch task is larger than its kernel's scratch")  # pragma: no cover
    ptr, idx = (EMPTY_I, EMPTY_I) if lab_mode == LAB_SAME else (readonly(b.lab_ptr),
                                                                  readonly(b.lab_idx))
    bits = readonly(values.view(spec.bits))
    scratch_ = segment_scratch(nmax, values.dtype, b.weights is not None)
    bad = np.full(2, -1, np.int64)
    many = NEVER  # (tables: never the items; the kernel writes the tables instead)
    if tables is not None:
        room = tables.ptr[tasks + 1] - tables.ptr[tasks]
        if int(room.min(initial=RUNS_ROOM)) < RUNS_ROOM \
                or int(room.sum()) > min(x.shape[0] for x in tables[1:4]):
            raise RuntimeError("a batch table has no room for its task")  # pragma: no cover
        touts = (readonly(tables.ptr), tables.pos, tables.neg, tables.key, tables.filled)
    else:
        many = items_choice(nmax).share if b.weights is None and spec.bits.itemsize == 4 else NEVER
        items = EMPTY_UW if many == NEVER else scratch("items", 16 * (nmax + 1) + 64)[
            :16 * (nmax + 1)].view(np.uint64)
        touts = (EMPTY_I, EMPTY_FW, EMPTY_FW, items, EMPTY_IW)
    while tasks.shape[0]:
        run_segments(bits, spec.kind, spec.sign, spec.ones, spec.exp, readonly(labels), lab_mode,
                     ptr, idx, w, wshared, readonly(offsets), readonly(tasks), max_fpr, what,
                     sorting.count_choice().limit, many, *scratch_, out, prbe, bad, *touts)
        if bad[0] < 0:
            return
        j = int(bad[0])
        if bad[1] != 1 or tables is not None:  # (tables: unweighted, so a bad score)
            raise _BatchNonFinite(first + j)
        # Classes too far apart for one unit: this task through the one-task engine,
        # which gives each class its own; then the tasks after it.
        lab, tw = task_parts(b, first + j)
        s0, s1 = int(offsets[j]), int(offsets[j + 1])
        t = scaled_task(values[s0:s1], b.dtype, np.ascontiguousarray(lab),
                         int(np.count_nonzero(lab)), tw, first + j)
        out[j], prbe[j] = _task_out(t, max_fpr, what, first + j)
        tasks = tasks[int(np.flatnonzero(tasks == j)[0]) + 1:]
        bad[:] = -1


NEVER = SHARE_UNIT + 1  # a share of positives no task reaches (the item path unused)
# The shares of positives at which the two ways of a batch task are timed (per
# SHARE_UNIT samples): its classes each sorted and merged, or one sort of its items.
ITEM_SHARES = (16, 32, 64, 128, 256, 512)


class ItemsChoice(NamedTuple):
    share: int  # a task with at least this many positives per SHARE_UNIT takes the items
    reason: str
    # (share, seconds per score with the classes, with the items) at each share timed
    timings: tuple[tuple[int, float, float], ...] = ()


_items: dict[int, ItemsChoice] = {}
_items_lock = threading.Lock()


def items_choice(n: int) -> ItemsChoice:
    """From how many positives per :data:`~fastrank._kernels.batch.SHARE_UNIT`
    samples a batch task of ``n`` float32 scores sorts its samples once as items
    (:func:`~fastrank._kernels.batch.item_sweep`) instead of sorting each class.

    Timed once per process and size bucket (:func:`~.sorting.size_bucket`), on
    tasks of the bucket's middle size inside the batch kernel, both ways at each
    share of :data:`ITEM_SHARES`: from the smallest share at which the items are
    the faster at that share and every larger one, or, where they are not at the
    share below it, from where the two timings' straight lines cross between the
    two shares (:data:`NEVER` where the items are not faster at the largest).
    The crossover near a quarter of positives, taken at the grid's shares alone,
    fell on 256 or 512 by the machine's noise (AMD Zen 4: the items 3-5% faster
    or slower at 256, 30-40% faster at 512), and tasks of 30% positives took
    the classes, 8-11% slower there (100,000 x 200 float32 scores, C and Fortran
    order, the two ways alternated in one process: 148 against 160 ms and 172
    against 191 ms). ``FASTRANK_ITEMS=on|off`` forces them for every task
    or for none. Both ways give the same numbers, bit for bit.
    """
    forced = sorting.env_setting("FASTRANK_ITEMS")
    if forced in ("on", "off"):
        return ItemsChoice(0 if forced == "on" else NEVER, "set by FASTRANK_ITEMS")
    bucket = sorting.size_bucket(n)
    got = _items.get(bucket)
    if got is not None:
        return got
    with _items_lock:
        if bucket not in _items:
            _items[bucket] = _time_items(bucket)
        return _items[bucket]


def _time_items(bucket: int) -> ItemsChoice:
    # the bucket's middle size, at least 2 (tasks of one sample: bucket 1, where the
    # shift alone would be negative)
    n = sorting.CALIBRATE_N if bucket >= sorting.LARGE_BUCKET else \
        (3 << (bucket - 2) if bucket >= 2 else 2)
    t = max(2, (1 << 15) // n)
    rng = np.random.default_rng(12345)
    spec = SPECS[np.dtype(np.float32)]
    draws = rng.random(n * t)
    vals = rng.standard_normal(n * t).astype(np.float32)
    offsets = readonly(np.arange(t + 1, dtype=np.int64) * n)
    tasks = readonly(np.arange(t, dtype=np.int64))
    out = np.empty((t, OUT_SIZE), np.float64)
    prbe = np.empty(t, np.uint64)
    bad = np.full(2, -1, np.int64)
    scratch_ = segment_scratch(n, np.dtype(np.float32), False)
    items = np.empty(2 * (n + 1), np.uint64)
    count = sorting.count_choice().limit
    times: list[list[float]] = []
    for share in ITEM_SHARES:
        labels = readonly((draws < share / SHARE_UNIT).view(np.uint8))
        bits = readonly((vals + labels).view(spec.bits))  # informative scores

        def run(bits: np.ndarray, labels: np.ndarray, scr: np.ndarray, many: int) -> None:
            run_segments(bits, spec.kind, spec.sign, spec.ones, spec.exp, labels, LAB_SAME,
                         EMPTY_I, EMPTY_I, EMPTY_F, True, offsets, tasks, 1.0, 0, count, many,
                         *scratch_, out, prbe, bad, EMPTY_I, EMPTY_FW, EMPTY_FW, scr, EMPTY_IW)

        best = [np.inf, np.inf]
        for _ in range(3):  # alternating, so that a busy machine hits both
            for way, (scr, many) in enumerate(((EMPTY_UW, NEVER), (items, 0))):
                t0 = time.perf_counter()
                run(bits, labels, scr, many)
                best[way] = min(best[way], time.perf_counter() - t0)
        times.append(best)
    share = crossover(times)
    shown = ", ".join(f"{s}: {a / (n * t) * 1e9:.1f}/{b / (n * t) * 1e9:.1f}"
                      for s, (a, b) in zip(ITEM_SHARES, times, strict=True))
    return ItemsChoice(share, f"timed on {t} x {n:,} float32 scores, ns per score by positives "
                              f"per {SHARE_UNIT} (classes/items): {shown}",
                       tuple((x, a / (n * t), b / (n * t))
                             for x, (a, b) in zip(ITEM_SHARES, times, strict=True)))


def crossover(times: list[list[float]]) -> int:
    """The share from which the items are taken (see :func:`items_choice`), from the
    ``[classes, items]`` seconds timed at each share of :data:`ITEM_SHARES`."""
    share = NEVER
    for i in range(len(ITEM_SHARES) - 1, -1, -1):
        (c0, i0) = times[i]
        if i0 >= c0:  # the items not the faster here
            if share != NEVER:  # the crossover: on the straight line between the two
                c1, i1 = times[i + 1]
                lo, hi = ITEM_SHARES[i], ITEM_SHARES[i + 1]
                cut = lo + (hi - lo) * (i0 - c0) / ((i0 - c0) - (i1 - c1))
                share = min(hi, max(lo + 1, math.ceil(cut)))
            break
        share = ITEM_SHARES[i]
    return share


def segment_scratch(nmax: int, dtype: np.dtype[Any], weighted: bool, slot: str = "segments"
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                               np.ndarray, np.ndarray]:
    """:func:`run_segments`' typed scratch for tasks of up to ``nmax`` samples, carved
    from this thread's buffer of ``slot``: the sort's counts, the state and chunk
    buffers (floats, then keys), three buffers of score bits (and the same memory
    as scores), three of weights when ``weighted``, and the labels."""
    cap = nmax + 1  # the split's slack slot
    bits = SPECS[dtype].bits
    nw = 3 * cap if weighted else 0
    sizes = (HIST_SHAPE[0] * HIST_SHAPE[1] * 8, 8 * (S_SIZE + 2 * CHUNK), 8 * (K_SIZE + CHUNK),
             3 * cap * bits.itemsize, 8 * nw, cap)
    buf = scratch(slot, sum(sizes) + 64 * len(sizes))
    hist, at = carve(buf, 0, HIST_SHAPE[0] * HIST_SHAPE[1], np.int64)
    fw, at = carve(buf, at, S_SIZE + 2 * CHUNK, np.float64)
    uw, at = carve(buf, at, K_SIZE + CHUNK, np.uint64)
    kbits, at = carve(buf, at, 3 * cap, bits)
    ww, at = carve(buf, at, nw, np.float64)
    lrow, _ = carve(buf, at, cap, np.uint8)
    return hist.reshape(HIST_SHAPE), fw, uw, kbits, kbits.view(swept(dtype)), ww, lrow


def _segment_runner(b: Batch, max_fpr: float, what: int, out: np.ndarray,
                    prbe: np.ndarray, together: bool,
                    inside: np.ndarray) -> Callable[[tuple[int, int]], None]:
    """Runs of segments; with ``together``, their tasks marked ``inside`` (see
    :func:`in_kernel`) in one kernel call."""

    def run(unit: tuple[int, int]) -> None:
        j0, j1 = unit
        ins = inside[j0:j1] if together else np.zeros(j1 - j0, bool)
        small = np.flatnonzero(ins) + j0
        if small.shape[0]:
            _run_small(b, b.values, b.labels, b.lab_mode, b.wshared, b.offsets,
                       small.astype(np.int64), int(b.sizes[small].max()), max_fpr, what, out,
                       prbe)
        for jj in (np.flatnonzero(~ins) + j0).tolist():
            out[jj], prbe[jj] = _task_out(segment_task(b, jj), max_fpr, what, jj)

    return run


def _task_out(t: Task, max_fpr: float, what: int, j: int) -> tuple[np.ndarray, int]:
    """A batch's large task ``j`` through the one-task engine, totals in the
    caller's units."""
    try:
        out, key = task_row(t, max_fpr, what)
    except NonFinite:
        raise _BatchNonFinite(j) from None
    return in_caller_units(out, t), key


def _block(b: Batch, j0: int, bw: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``j0 .. j0 + bw`` of a C-ordered batch made task-major in this thread's
    kept buffer: their scores (column ``jj`` at ``jj * n``) and 0/1 labels."""
    spec = SPECS[b.values.dtype]
    n = b.n
    buf = scratch("block", bw * n * (spec.bits.itemsize + 1) + 128)
    tb, at = carve(buf, 0, bw * n, spec.bits)
    lb, _ = carve(buf, at, bw * n, np.uint8)
    transpose_block(readonly(b.values.view(spec.bits)), n, b.t, j0, bw, readonly(b.labels),
                    b.lab_mode, readonly(b.lab_ptr), readonly(b.lab_idx), tb, lb)
    return tb.view(b.values.dtype), lb


UNIT_SAMPLES = 1 << 16  # a unit of a C-ordered batch's small columns holds about this many


def column_units(b: Batch, nthreads: int, small: bool) -> list[tuple[int, int]]:
    """A C-ordered batch's columns in units ``(j0, j1)``: a block (the transposition's
    unit) each, or when the columns are ``small`` (computed inside the kernel),
    several blocks' worth up to about :data:`UNIT_SAMPLES` samples (fewer Python
    steps), still leaving several units per thread."""
    per = BLOCK
    if small:
        per *= max(1, min(-(-UNIT_SAMPLES // (BLOCK * b.n)), b.t // (BLOCK * 4 * nthreads)))
    return [(j0, min(j0 + per, b.t)) for j0 in range(0, b.t, per)]


def _block_runner(b: Batch, max_fpr: float, what: int, out: np.ndarray,
                  prbe: np.ndarray, together: bool) -> Callable[[tuple[int, int]], None]:
    """Blocks of neighbouring columns of a C-ordered matrix, made task-major first;
    with ``together``, a block's tasks in one kernel call (see :func:`in_kernel`)."""
    n = b.n

    def run(unit: tuple[int, int]) -> None:
        j0, j1 = unit
        bw = j1 - j0
        vals, lb = _block(b, j0, bw)
        if together:
            offsets = np.arange(bw + 1, dtype=np.int64) * n
            sub_out = np.empty((bw, OUT_SIZE), np.float64)
            sub_prbe = np.empty(bw, np.uint64)
            _run_small(b, vals, lb, LAB_SAME, True, offsets, np.arange(bw, dtype=np.int64), n,
                       max_fpr, what, sub_out, sub_prbe, j0)
            out[j0:j0 + bw] = sub_out
            prbe[j0:j0 + bw] = sub_prbe
            return
        for jj in range(bw):
            lab = lb[jj * n:(jj + 1) * n]
            npos = int(np.count_nonzero(lab))
            t = scaled_task(vals[jj * n:(jj + 1) * n], b.dtype, lab, npos, b.weights, j0 + jj)
            out[j0 + jj], prbe[j0 + jj] = _task_out(t, max_fpr, what, j0 + jj)

    return run
