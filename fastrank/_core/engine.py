"""The one entry to the kernels: sorting, tie groups, sweeps, threads and scratch.

Everything the public modules compute from canonical inputs
(:mod:`fastrank._core.inputs`) goes through here:

* :func:`task_metrics`, :func:`batch_metrics`: the ``OUT_*`` results of one
  task or of every task of a batch;
* :func:`task_table`: a task's tie-group table (curves, tables, DeLong);
* :func:`table_metrics`: the results of a stored table;
* :func:`group_index`: each sample's tie group (bootstrap, paired DeLong);
* the pieces of a task swept in score ranges on other machines
  (:func:`range_counts`, :func:`split_chunk`, :func:`range_state`,
  :func:`combine_states`).

How a task is computed: its scores are split by class (the split kernel,
which also checks every score), each class is sorted, and the sweep merges
the two from the top. Scores taking few distinct values are counted instead
of sorted (no sort at all). Which sort runs is decided per machine, once per
process, by timing both on the same keys (:func:`sort_choice`): numpy's SIMD
sort where it is the faster (most AVX2 and AVX-512 CPUs), fastrank's radix
sort where numpy's is slow (AMD Zen 4's AVX-512 path, numpy builds without
SIMD dispatch); small tasks inside a batch are always sorted inside the
kernel, where a call from Python per task would cost more than the task.

Threads: the kernels release the GIL and run on this module's worker
threads, never on Numba's threading layer (which fastrank neither starts nor
configures). The number of threads is :func:`threads`: Numba's setting for the
calling thread (``numba.set_num_threads``; ``NUMBA_NUM_THREADS``), or a
:func:`thread_limit` in force. One large task is cut into score ranges that
are sorted in parallel and swept in order; a batch spreads its tasks over the
threads. Every result is the same, bit for bit, on any number of threads:
the sweep sees the same groups in the same order whatever was sorted where.
"""

from __future__ import annotations

import functools
import itertools
import os
import struct
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, NamedTuple

import numba
import numpy as np

from .._kernels.batch import (
    BLOCK,
    LAB_CSC,
    LAB_SAME,
    group_order,
    run_segments,
    transpose_block,
)
from .._kernels.keys import KIND_SIGNED
from .._kernels.keys import text_keys as _text_keys
from .._kernels.sort import HIST_SHAPE, sort_pairs, sort_values
from .._kernels.sweep import (
    CHUNK,
    K_FP,
    K_PRBE,
    K_SIZE,
    K_TP,
    MODE_CUMULATIVE,
    MODE_RUNS,
    MODE_RUNS_REST,
    MODE_SWEEP,
    MODE_TABLE,
    MODE_TOTALS,
    OUT_NEG,
    OUT_POS,
    OUT_SIZE,
    S_E_FP,
    S_E_TP,
    S_SHIFT,
    S_SIZE,
    combine,
    fx_to_float,
    new_state,
    range_state,
    set_totals,
    sweep_one,
    sweep_split,
    sweep_table,
)
from .._kernels.tasks import (
    HASH_MAX_DISTINCT,
    HASH_SLOTS,
    LANES,
    MAX_PIVOTS,
    count_above,
    count_ties,
    partition,
    placements,
    split,
    tie_groups,
)
from .._kernels.topk import JOIN_HASH, JOIN_MERGE, JOIN_PLACE, heads_room
from .._kernels.topk import row_heads as _row_heads
from .inputs import (
    SAMPLE_MAJOR,
    SPECS,
    Batch,
    Spec,
    Task,
    check_finite,
    nonfinite_error,
    readonly,
    scaled_weights,
    task_of,
)

# ------------------------------------------------------------------ threads

PARALLEL_MIN = 1 << 17  # samples below which one thread does the whole call
RANGES_PER_THREAD = 3  # score ranges per thread for one large task
HASH_MIN = 1 << 15  # tasks from this size on try counting their ties first
SMALL_TASK = 4096  # batch tasks up to this size are sorted inside the kernel
FEW_TASKS = 64  # ... when the batch has more tasks than this (else one call per task)
# Batch tasks whose tie tables (batch_tables) the kernel writes: a larger task's table
# takes Python steps that hold the GIL, which cost more than the kernel's radix sort
# (10,000 x 1,000 float32, sensitivity at 95% specificity, AMD Zen 3: 284 -> 186 ms).
TABLE_TASK = 4 * SMALL_TASK

_local = threading.local()


def _numba_threads() -> int:
    """Numba's thread count for the calling thread, without starting Numba's
    threading layer when nothing has started it yet."""
    from numba.np.ufunc import parallel

    if getattr(parallel, "_is_initialized", False):
        return int(numba.get_num_threads())
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def threads() -> int:
    """How many threads a call may use now (at least 1)."""
    limit = getattr(_local, "limit", None)
    if limit is not None:
        return int(limit)
    if getattr(_local, "worker", False):
        return 1
    return max(1, _numba_threads())


@contextmanager
def thread_limit(n: int | None) -> Iterator[None]:
    """Run the enclosed calls on at most ``n`` threads (``None``: no limit).

    For the calling thread only, and restored on exit: a scheduler's worker
    thread never keeps a changed setting, and Numba's own setting is untouched.
    """
    if n is None:
        yield
        return
    before = getattr(_local, "limit", None)
    _local.limit = max(1, int(n))
    try:
        yield
    finally:
        _local.limit = before


class _Pool:
    """Worker threads, started on first use and again in a forked child."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._size = 0
        self._pid = 0

    def executor(self, size: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None or self._pid != os.getpid() or size > self._size:
                old = self._executor if self._pid == os.getpid() else None
                self._executor = ThreadPoolExecutor(
                    max_workers=size, thread_name_prefix="fastrank",
                    initializer=_mark_worker)
                self._size = size
                self._pid = os.getpid()
                if old is not None:
                    old.shutdown(wait=False)
            return self._executor

    def reset(self) -> None:  # in a forked child: the parent's threads do not exist here
        self._executor = None
        self._size = 0
        self._lock = threading.Lock()


def _mark_worker() -> None:
    _local.worker = True


_pool = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pool.reset)


THREADED_TASK = 1 << 14  # mean samples per task from which task-by-task loops use threads


def task_threads(tasks: Sequence[Task]) -> int:
    """Threads for a loop that works on ``tasks`` one Python step each (readouts,
    per-sample rankings): every thread once the batch is large and its tasks are too.
    The sorts and kernels release the GIL but the numpy steps around them hold it;
    below about 16,384 samples a task (measured on 10,000 x 1,000 float32) two threads
    contending for it are no faster than one."""
    size = sum(t.values.shape[0] for t in tasks)
    big = size >= PARALLEL_MIN and size >= THREADED_TASK * len(tasks)
    return threads() if big else 1


def parallel_map(fn: Callable[[Any], Any], items: Sequence[Any], nthreads: int) -> list[Any]:
    """``[fn(x) for x in items]`` on up to ``nthreads`` threads, the caller's among them.

    Items are handed out one at a time to whichever thread is free, so unequal
    items balance out. The first exception is raised once every thread stops.
    """
    n = len(items)
    nthreads = min(nthreads, n)
    if nthreads <= 1:
        return [fn(x) for x in items]
    results: list[Any] = [None] * n
    counter = itertools.count()
    failed: list[BaseException] = []

    def drain() -> None:
        for i in iter(counter.__next__, None):  # next() of a count is atomic under the GIL
            if i >= n or failed:
                return
            try:
                results[i] = fn(items[i])
            except BaseException as exc:
                failed.append(exc)
                return

    ex = _pool.executor(nthreads - 1)
    helpers = [ex.submit(drain) for _ in range(nthreads - 1)]
    drain()
    for h in helpers:
        h.result()
    if failed:
        raise failed[0]
    return results


def _submit(fn: Callable[..., Any], *args: Any, nthreads: int) -> Future[Any]:
    return _pool.executor(max(1, nthreads)).submit(fn, *args)


# ------------------------------------------------------------------ scratch


class _Scratch(threading.local):
    def __init__(self) -> None:
        self.chunk = (np.empty(CHUNK, np.float64), np.empty(CHUNK, np.float64),
                      np.empty(CHUNK, np.uint64))
        self.hist = np.empty(HIST_SHAPE, np.int64)
        self.counts = np.empty(2, np.int64)
        self.state = (np.empty(S_SIZE, np.float64), np.empty(K_SIZE, np.uint64))
        self.slots: dict[str, np.ndarray] = {}


_scratch = _Scratch()
RETAIN_BYTES = 64 << 20  # the largest scratch buffer a thread keeps between calls


def scratch(slot: str, nbytes: int) -> np.ndarray:
    """A byte buffer of at least ``nbytes`` for this thread, kept between calls.

    Fresh memory costs page faults (a third of a one-task call at a million
    samples), so each thread keeps its buffer of each ``slot`` up to
    :data:`RETAIN_BYTES`. A slot is used by one step of a call at a time.
    """
    buf = _scratch.slots.get(slot)
    if buf is not None and buf.shape[0] >= nbytes:
        return buf
    buf = np.empty(max(nbytes, 1 << 12), np.uint8)
    if nbytes <= RETAIN_BYTES:
        _scratch.slots[slot] = buf
    return buf


def release_scratch() -> None:
    """Drop this thread's retained scratch buffers."""
    _scratch.slots.clear()


def _carve(buf: np.ndarray, at: int, n: int, dtype: Any) -> tuple[np.ndarray, int]:
    """``n`` items of ``dtype`` from byte buffer ``buf`` at ``at`` (64-byte aligned)."""
    size = n * np.dtype(dtype).itemsize
    return buf[at:at + size].view(dtype), at + (size + 63) // 64 * 64


_EMPTY_F = readonly(np.empty(0, np.float64))
_EMPTY_FW = np.empty(0, np.float64)
_EMPTY_U = readonly(np.empty(0, np.uint64))
_EMPTY_I = readonly(np.empty(0, np.int64))
_EMPTY_IW = np.empty(0, np.int64)
_EMPTY_UW = np.empty(0, np.uint64)
_EMPTY_U8 = np.empty(0, np.uint8)  # an unused writable label output


# ------------------------------------------------------------------ counting


class CountChoice(NamedTuple):
    limit: int  # a batch task with at most this many positives counts its negatives
    reason: str


@functools.cache
def count_choice() -> CountChoice:
    """Up to how many positives a task of a batch leaves its negatives unsorted
    (:func:`~fastrank._kernels.batch.counted_sweep`), from the vector width the
    kernels are compiled for (Numba's ``NUMBA_CPU_FEATURES``, or this CPU's).

    Each positive tie group costs one vector pass over the negatives, and a
    wider vector makes it cheaper; the sort it replaces costs about the same
    everywhere. LLVM compiles for 512-bit vectors on AMD's AVX-512 CPUs (seen
    on Zen 5) but tunes Intel's for 256-bit ones, so those get AVX2's limit.
    Measured with ``benchmarks/compare_rankings.py`` (LRAP of
    10,000 x 1,000 float32 rows against relevant labels per row, counted or
    sorted, on one AMD Zen 5 with the kernels compiled for each width):
    AVX-512 1.35x faster than sorting at 64 relevant labels; AVX2 1.17x at
    32 and 0.80x at 64; SSE4 (128 bits, as NEON) 1.52x at 4 and 0.83x
    at 16.
    """
    import llvmlite.binding as ll  # type: ignore[import-untyped]

    features = numba.config.CPU_FEATURES  # type: ignore[attr-defined]
    name = numba.config.CPU_NAME or ""  # type: ignore[attr-defined]
    if features is not None:
        on = {f[1:] for f in str(features).split(",") if f.startswith("+")}
        source = "NUMBA_CPU_FEATURES"
    else:
        try:
            on = {k for k, v in ll.get_host_cpu_features().items() if v}
        except Exception:  # pragma: no cover - a CPU LLVM cannot describe
            on = set()
        source = "this CPU"
    if not name:
        try:
            name = str(ll.get_host_cpu_name())
        except Exception:  # pragma: no cover
            name = ""
    if "avx512bw" in on and name.startswith("znver"):
        return CountChoice(64, f"AVX-512, {name} ({source})")
    if "avx2" in on:  # (LLVM keeps Intel's AVX-512 CPUs to 256-bit vectors: as AVX2)
        return CountChoice(32, f"AVX2-wide vectors, {name or 'CPU'} ({source})")
    return CountChoice(8, f"128-bit vectors, {name or 'CPU'} ({source})")


# ------------------------------------------------------------------ sorting


class SortChoice(NamedTuple):
    path: str  # "numpy" or "radix"
    reason: str


_choices: dict[int, SortChoice] = {}
_choice_lock = threading.Lock()
CALIBRATE_N = 1 << 17


def sort_choice(width: int) -> SortChoice:
    """Which sort large arrays of ``width``-byte scores get on this machine.

    ``FASTRANK_SORT=numpy|radix`` forces one; otherwise both are timed once
    per process on the same ``CALIBRATE_N`` random keys, and the faster wins.
    """
    forced = os.environ.get("FASTRANK_SORT", "").strip().lower()
    if forced in ("numpy", "radix"):
        return SortChoice(forced, "set by FASTRANK_SORT")
    with _choice_lock:
        if width not in _choices:
            _choices[width] = _calibrate(width)
        return _choices[width]


_sort_failed: list[bool] = []


def _calibrate(width: int) -> SortChoice:
    rng = np.random.default_rng(12345)
    dtype = np.float32 if width == 4 else np.float64
    keys = rng.standard_normal(CALIBRATE_N).astype(dtype)
    spec = SPECS[np.dtype(dtype)]
    buf = np.empty(CALIBRATE_N, spec.bits)
    hist = _scratch.hist

    def numpy_sort() -> None:
        keys.copy().sort()

    def radix_sort() -> None:
        a = keys.copy().view(spec.bits)
        sort_values(a, buf, spec.kind, spec.sign, spec.ones, hist)

    try:
        radix_sort()  # compile or load it
    except Exception as exc:  # a compiler or machine problem: numpy's sort still works
        if not _sort_failed:
            _sort_failed.append(True)  # said once per process, whatever the width
            warnings.warn(f"fastrank: its radix sort failed on this machine ({type(exc).__name__}: "
                          f"{exc}); numpy's sort is used instead", RuntimeWarning, stacklevel=2)
        return SortChoice("numpy", f"radix sort failed ({type(exc).__name__}); numpy's sort")
    best = {}
    for name, fn in (("numpy", numpy_sort), ("radix", radix_sort)):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        best[name] = min(times)
    winner = "numpy" if best["numpy"] <= best["radix"] else "radix"
    return SortChoice(winner, f"timed on {CALIBRATE_N:,} {np.dtype(dtype).name} keys: numpy "
                              f"{best['numpy'] * 1e3:.2f} ms, radix {best['radix'] * 1e3:.2f} ms")


def _sort_class(vals: np.ndarray, spec: Spec) -> None:
    """Sort one class's scores ascending in place, by the machine's faster sort."""
    n = vals.shape[0]
    if n < 2:
        return
    if n < CALIBRATE_N // 2 or sort_choice(vals.itemsize).path == "numpy":
        vals.sort()
    else:
        b = vals.view(spec.bits)
        sort_values(b, np.empty_like(b), spec.kind, spec.sign, spec.ones, _scratch.hist)


def _sort_weighted(vals: np.ndarray, w: np.ndarray, spec: Spec) -> None:
    """Sort scores with their weights, by fastrank's sort (numpy's cannot carry them)."""
    if vals.shape[0] < 2:
        return
    b = vals.view(spec.bits)
    sort_pairs(b, np.empty_like(b), w, np.empty_like(w), spec.kind, spec.sign, spec.ones,
               _scratch.hist)


# ------------------------------------------------------------------ one task


class Classes(NamedTuple):
    """One score range of a task, split by class (each sorted ascending once sorted).

    Sorted int64 scores are held as uint64 with the sign bit flipped (the order of
    the integers, as unsigned ones): the sweep kernels then have one variant for
    every 64-bit integer, and ``flip`` is that bit (0 otherwise), which the sweep
    turns its keys back with (:func:`~fastrank._kernels.sweep.sweep_classes`).
    """

    p: np.ndarray
    q: np.ndarray
    pw: np.ndarray  # weights (empty unweighted)
    qw: np.ndarray
    flip: np.uint64 = np.uint64(0)


_SIGN = np.uint64(1 << 63)
_NO_FLIP = np.uint64(0)


def _swept(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype the sweep kernels read scores of ``dtype`` as (int64: uint64)."""
    return np.dtype(np.uint64) if dtype == np.int64 else dtype


def _for_sweep(a: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """Sorted scores as the sweep kernels read them, in place, and their ``flip``:
    int64 as uint64 with the sign bit flipped (ascending still), others as they are."""
    if a.dtype != np.int64:
        return a, np.uint64(0)
    u = a.view(np.uint64)
    u ^= _SIGN
    return u, _SIGN


def _split(values: np.ndarray, labels: np.ndarray, weights: np.ndarray | None, npos: int,
           slot: str) -> Classes:
    """Scores (with labels and weights) by class, unsorted, in scratch ``slot``."""
    n = values.shape[0]
    weighted = weights is not None
    bits_dt = SPECS[values.dtype].bits
    nbytes = (n + 2) * values.itemsize + (2 * (n + 2) * 8 if weighted else 0) + 256
    buf = scratch(slot, nbytes)
    p, at = _carve(buf, 0, npos + 1, values.dtype)  # + 1: the split's slack slot
    q, at = _carve(buf, at, n - npos + 1, values.dtype)
    pw = qw = _EMPTY_FW
    if weighted:
        pw, at = _carve(buf, at, npos + 1, np.float64)
        qw, at = _carve(buf, at, n - npos + 1, np.float64)
    counts = np.empty(2, np.int64)
    split(readonly(values.view(bits_dt)), readonly(labels),
          readonly(weights) if weights is not None else _EMPTY_F, 0, n, p.view(bits_dt),
           q.view(bits_dt),
          pw, qw, counts)
    m, k = int(counts[0]), int(counts[1])
    if weighted:
        return Classes(p[:m], q[:k], pw[:m], qw[:k])
    return Classes(p[:m], q[:k], _EMPTY_FW, _EMPTY_FW)


def _sort_classes(c: Classes, spec: Spec, weighted: bool) -> Classes:
    """Sort both classes in place; a NaN or infinity then sits at an end of its class."""
    if weighted:
        _sort_weighted(c.p, c.pw, spec)
        _sort_weighted(c.q, c.qw, spec)
    else:
        _sort_class(c.p, spec)
        _sort_class(c.q, spec)
    if spec.kind == 0:
        for a in (c.p, c.q):
            if a.shape[0] and not (np.isfinite(a[0]) and np.isfinite(a[-1])):
                raise _NonFinite
    if c.p.dtype != np.int64:
        return c
    (p, flip), (q, _) = _for_sweep(c.p), _for_sweep(c.q)
    return Classes(p, q, c.pw, c.qw, flip)


class _NonFinite(Exception):
    """A NaN or infinite score was found (the public error names its index)."""


def _raise_nonfinite(values: np.ndarray, shape: tuple[int, ...] | None = None,
                     offset: int = 0) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    i = int(bad[0])
    raise nonfinite_error(values[i], i + offset, shape or values.shape) from None


POSITIVE_COST = 5.0  # a positive's share of a range's work, in negatives (sort + sweep)


def _pivots(t: Task, ranges: int) -> np.ndarray:
    """Keys cutting a task's scores into about ``ranges`` ranges of equal work.

    Chosen from a strided sample, in which a positive counts as
    :data:`POSITIVE_COST` negatives: sorting costs the same per sample, but
    the sweep's work is mostly per positive, and positives crowd the top
    ranges. Pivots only balance the work: any pivots give the same results,
    bit for bit.
    """
    spec = t.spec
    step = max(1, t.values.shape[0] // (64 * ranges))
    keys = keys_of(t.values[::step], spec)
    order = np.argsort(keys, kind="stable")
    sample = keys[order]
    cost = np.cumsum(np.where(t.labels[::step][order] != 0, POSITIVE_COST, 1.0))
    targets = cost[-1] * np.arange(1, ranges) / ranges
    at = np.minimum(np.searchsorted(cost, targets), sample.shape[0] - 1)
    piv = np.unique(sample[at])
    return readonly(piv[piv > sample[0]].astype(np.uint64))


def keys_of(values: np.ndarray, spec: Spec) -> np.ndarray:
    """Order keys (uint64) of canonical scores, as the kernels form them."""
    u = values.view(spec.bits).astype(np.uint64)
    if spec.kind == 0:  # floats: -0.0 is +0.0; negatives reversed
        u = np.where(u == spec.sign, np.uint64(0), u)
        return u ^ np.where((u & spec.sign) != 0, spec.ones, spec.sign)
    if spec.kind == 1:
        return u ^ spec.sign
    return u


def bits_of_keys(keys: np.ndarray, spec: Spec) -> np.ndarray:
    """Score bits (uint64) from order keys; the inverse of :func:`keys_of`."""
    k = keys.astype(np.uint64)
    if spec.kind == 0:
        return np.where((k & spec.sign) != 0, k ^ spec.sign, k ^ spec.ones) & spec.ones
    if spec.kind == 1:
        return k ^ spec.sign
    return k


class _Range(NamedTuple):
    values: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None
    npos: int


def cut_ranges(t: Task, pivots: np.ndarray, nthreads: int = 1,
               slot: str | None = None) -> list[_Range]:
    """A task's samples cut into the score ranges ``pivots`` (keys, ascending) define,
    highest range first, each a contiguous piece of scores, labels and weights
    (in scratch ``slot``, or fresh arrays when None)."""
    out, lout, wout, start = _cut(t, pivots, nthreads, False, slot)
    parts = []
    for r in range(start.shape[0] - 2, -1, -1):
        a, b = int(start[r]), int(start[r + 1])
        lab = lout[a:b]
        parts.append(_Range(out[a:b], lab, wout[a:b] if t.weights is not None else None,
                            int(np.count_nonzero(lab))))
    return parts


def split_ranges(t: Task, nthreads: int) -> list[Classes]:
    """A large task cut into score ranges and split by class in one pass, on
    ``nthreads`` threads: each range's positives and negatives (unsorted, zero
    weights dropped), highest range first, in this thread's scratch.

    The ranges are then sorted and swept side by side (:func:`task_metrics`).
    """
    pivots = _pivots(t, min(MAX_PIVOTS + 1, RANGES_PER_THREAD * nthreads))
    out, _, wout, start = _cut(t, pivots, nthreads, True, "ranges")
    weighted = t.weights is not None
    parts = []
    for r in range((start.shape[0] - 1) // 2 - 1, -1, -1):
        a, b, c = int(start[2 * r]), int(start[2 * r + 1]), int(start[2 * r + 2])
        parts.append(Classes(out[b:c], out[a:b], wout[b:c] if weighted else _EMPTY_FW,
                             wout[a:b] if weighted else _EMPTY_FW))
    return parts


def _padded(pivots: np.ndarray) -> tuple[np.ndarray, int]:
    """Pivot keys padded to ``MAX_PIVOTS`` with ``2**64 - 1``, and how many are real."""
    out = np.full(MAX_PIVOTS, np.iinfo(np.uint64).max, np.uint64)
    out[:pivots.shape[0]] = pivots
    return readonly(out), int(pivots.shape[0])


def _cut(t: Task, pivots: np.ndarray, nthreads: int, by_class: bool, slot: str | None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The samples moved into their buckets (:func:`~fastrank._kernels.tasks.partition`):
    one bucket per score range, or with ``by_class`` two (negatives, then
    positives; zero weights dropped). One counting pass, then one moving pass,
    each split over ``nthreads`` threads by sample index. Returns the moved
    scores, labels (empty ``by_class``) and weights (empty unweighted), and the
    buckets' starts (one more entry than buckets). In scratch ``slot``, or
    fresh arrays when None."""
    values = t.values
    n = values.shape[0]
    spec = t.spec
    padded, npiv = _padded(np.ascontiguousarray(pivots, dtype=np.uint64))
    nr = npiv + 1
    bits = readonly(values.view(spec.bits))
    labels = readonly(t.labels)
    weighted = t.weights is not None
    w = readonly(t.weights) if t.weights is not None else _EMPTY_F
    bounds = np.linspace(0, n, nthreads + 1).astype(np.int64)
    chunks = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))

    def count(chunk: tuple[int, int]) -> np.ndarray:
        ge = np.zeros((LANES, 2, nr + 1), np.int64)
        count_above(bits, labels, w, spec.kind, spec.sign, spec.ones, padded, npiv, chunk[0],
                    chunk[1], by_class, ge)
        kept = ge[:, 0, :-1] - ge[:, 0, 1:]  # (lanes, ranges)
        if not by_class:
            return np.asarray(kept)
        pos = ge[:, 1, :-1] - ge[:, 1, 1:]
        return np.stack((kept - pos, pos), axis=2).reshape(LANES, 2 * nr)  # bucket 2r + label

    sizes = np.array(parallel_map(count, chunks, nthreads))  # (chunks, lanes, buckets)
    flat = sizes.reshape(-1, sizes.shape[2])
    start = np.concatenate(([0], np.cumsum(flat.sum(axis=0))))
    cursors = (start[:-1] + np.cumsum(flat, axis=0) - flat).reshape(sizes.shape)
    m = int(start[-1])
    nbytes = m * (values.itemsize + (0 if by_class else 1) + (8 if weighted else 0)) + 256
    buf = scratch(slot, nbytes) if slot is not None else np.empty(nbytes, np.uint8)
    out, at = _carve(buf, 0, m, values.dtype)
    lout = _EMPTY_U8
    if not by_class:
        lout, at = _carve(buf, at, m, np.uint8)
    wout = _carve(buf, at, m, np.float64)[0] if weighted else _EMPTY_FW
    ids = scratch("bucket-ids", n)

    def write(k: int) -> None:
        partition(bits, labels, w, spec.kind, spec.sign, spec.ones, padded, npiv, chunks[k][0],
                  chunks[k][1], by_class, cursors[k].copy(), ids, out.view(spec.bits), lout,
                  wout)

    parallel_map(write, list(range(len(chunks))), nthreads)
    return out, lout, wout, start


def sample_keys(t: Task, points: int) -> np.ndarray:
    """Order keys of ``points`` evenly spaced order statistics of a strided sample
    of a task's scores (they balance score ranges chosen across many chunks)."""
    n = t.values.shape[0]
    if n == 0:
        return np.empty(0, np.uint64)
    step = max(1, n // (16 * points))
    keys = np.sort(keys_of(t.values[::step], t.spec))
    at = np.linspace(0, keys.shape[0] - 1, min(points, keys.shape[0])).astype(np.int64)
    return keys[at]


def choose_pivots(samples: Sequence[tuple[np.ndarray, int]], ranges: int) -> np.ndarray:
    """Keys cutting a task into about ``ranges`` ranges of equal size, from the
    chunks' ``(sample_keys, size)``: each sample point stands for an equal
    share of its chunk's samples. Equal scores always share a range."""
    points = [k for k, size in samples if size and k.shape[0]]
    if not points or ranges <= 1:
        return np.empty(0, np.uint64)
    keys = np.concatenate(points)
    weights = np.concatenate([np.full(k.shape[0], size / k.shape[0])
                              for k, size in samples if size and k.shape[0]])
    order = np.argsort(keys, kind="stable")
    keys, cum = keys[order], np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, min(ranges, MAX_PIVOTS + 1)) / min(ranges, MAX_PIVOTS + 1)
    at = np.minimum(np.searchsorted(cum, targets, side="right"), keys.shape[0] - 1)
    piv = np.unique(keys[at])
    return np.asarray(piv[piv > keys[0]], dtype=np.uint64)


def sorted_range(values: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 npos: int) -> Classes:
    """One score range split by class and sorted, in fresh arrays (to keep, or ship)."""
    spec = SPECS[values.dtype]
    n = values.shape[0]
    weighted = weights is not None
    p = np.empty(npos + 1, values.dtype)
    q = np.empty(n - npos + 1, values.dtype)
    pw = np.empty(npos + 1 if weighted else 0)
    qw = np.empty(n - npos + 1 if weighted else 0)
    counts = np.empty(2, np.int64)
    split(readonly(values.view(spec.bits)), readonly(labels),
          readonly(weights) if weights is not None else _EMPTY_F, 0, n, p.view(spec.bits),
           q.view(spec.bits),
          pw, qw, counts)
    m, k = int(counts[0]), int(counts[1])
    c = Classes(p[:m], q[:k], pw[:m] if weighted else _EMPTY_FW,
                qw[:k] if weighted else _EMPTY_FW)
    try:
        return _sort_classes(c, spec, weighted)
    except _NonFinite:
        _raise_nonfinite(values)
        raise  # unreachable


def _parts(t: Task) -> tuple[list[Classes], int]:
    """A task's score ranges split by class (unsorted), highest first, and the
    threads to run them on."""
    n = t.values.shape[0]
    nthreads = threads() if n >= PARALLEL_MIN else 1
    if nthreads <= 1:
        return [_split(t.values, t.labels, t.weights, t.npos, "classes")], 1
    return split_ranges(t, nthreads), nthreads


def _base_state(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, np.ndarray]:
    n = t.values.shape[0]
    if t.weights is None:
        return new_state(float(t.npos), float(n - t.npos), max_fpr, what)
    return weighted_state(t.bounds, max_fpr, what, t.shift)


def weighted_state(bounds: tuple[float, float], max_fpr: float, what: int, shift: int = 0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """A weighted task's state before its totals are known; ``bounds``: upper
    bounds of its positive and negative totals (:func:`inputs.scaled_weights`),
    which fix the units of the exact totals; ``shift``: the negatives' unit over
    the positives' (as a power of two)."""
    st, sk = new_state(0.0, 0.0, max_fpr, what, weighted=True, pos_bound=bounds[0],
                       neg_bound=bounds[1])
    st[S_SHIFT] = shift
    return st, sk


_MASK = (1 << 128) - 1
_LOW = (1 << 64) - 1


def _fx(sk: np.ndarray, at: int) -> int:
    return (int(sk[at]) << 64) | int(sk[at + 1])


def fixed_float(x: int, e: float) -> float:
    """A fixed-point sum (a Python int, two's complement in 128 bits) as a float."""
    x &= _MASK
    return fx_to_float(x >> 64, x & _LOW, e)


def range_totals(c: Classes, st: np.ndarray, spec: Spec) -> tuple[int, int]:
    """A weighted range's exact class totals (fixed point, the units of ``st``)."""
    s, k = range_state(st, 0.0, 0.0)
    sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw, True, s, k,
                MODE_TOTALS, *_scratch.chunk, c.flip)
    return _fx(k, K_TP), _fx(k, K_FP)


def set_weighted_totals(st: np.ndarray, ptot: int, ntot: int) -> None:
    """Give a weighted state its exact class totals (fixed point)."""
    set_totals(st, fixed_float(ptot, st[S_E_TP]), fixed_float(ntot, st[S_E_FP]))


def sweep_range(c: Classes, st: np.ndarray, spec: Spec, above: tuple[int, int],
                weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """The sweep state of one sorted score range below the ranges above it.

    ``above``: the positive and negative totals of every range above, as
    counts (unweighted) or exact fixed-point sums (weighted).
    """
    a, b = above
    if weighted:
        a &= _MASK
        b &= _MASK
        s, k = range_state(st, fixed_float(a, st[S_E_TP]), fixed_float(b, st[S_E_FP]),
                           (a >> 64, a & _LOW), (b >> 64, b & _LOW))
    else:
        s, k = range_state(st, float(a), float(b))
    sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw, weighted, s, k,
                MODE_SWEEP, *_scratch.chunk, c.flip)
    return s, k


def combine_states(st: np.ndarray, sk: np.ndarray, states: np.ndarray,
                   keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Results of the ranges' states (highest range first) on the task's state ``st``."""
    out = np.empty(OUT_SIZE, np.float64)
    st, sk = st.copy(), sk.copy()
    combine(np.ascontiguousarray(states), np.ascontiguousarray(keys), st, sk, out)
    return out, int(sk[K_PRBE])


def _sweep_parts(parts: list[Classes], t: Task, max_fpr: float, what: int,
                 nthreads: int) -> tuple[np.ndarray, int]:
    """Sort and sweep every score range (in parallel), then combine them exactly."""
    spec = t.spec
    weighted = t.weights is not None
    st, sk = _base_state(t, max_fpr, what)
    nr = len(parts)
    states = np.empty((nr, S_SIZE), np.float64)
    keys = np.empty((nr, K_SIZE), np.uint64)
    sorted_parts: list[Classes | None] = [None] * nr
    above: list[tuple[int, int]] = []
    if weighted:
        def totals(r: int) -> tuple[int, int]:
            c = sorted_parts[r] = _sort_classes(parts[r], spec, True)
            return range_totals(c, st, spec)

        sums = _by_size(totals, parts, nthreads)
        set_weighted_totals(st, sum(x[0] for x in sums), sum(x[1] for x in sums))
        p = q = 0
        for x in sums:
            above.append((p, q))
            p, q = p + x[0], q + x[1]
    else:
        p = q = 0
        for part in parts:
            above.append((p, q))
            p, q = p + part.p.shape[0], q + part.q.shape[0]

    def sweep(r: int) -> None:
        c = sorted_parts[r]
        if c is None:
            c = _sort_classes(parts[r], spec, False)
        states[r], keys[r] = sweep_range(c, st, spec, above[r], weighted)

    _by_size(sweep, parts, nthreads)
    return combine_states(st, sk, states, keys)


def _by_size(fn: Callable[[int], Any], parts: list[Classes], nthreads: int) -> list[Any]:
    """``[fn(r) for r in range(len(parts))]``, the largest ranges started first, so
    that the threads finish together (sizes as in :func:`_pivots`)."""
    order = sorted(range(len(parts)),
                   key=lambda r: -(parts[r].q.shape[0] + POSITIVE_COST * parts[r].p.shape[0]))
    done = parallel_map(fn, order, nthreads)
    out: list[Any] = [None] * len(parts)
    for r, x in zip(order, done, strict=True):
        out[r] = x
    return out


def _ties(t: Task, nthreads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The tie table of an unweighted task whose scores take few values, or None."""
    values = t.values
    n = values.shape[0]
    spec = t.spec
    bits = readonly(values.view(spec.bits))
    labels = readonly(t.labels)
    bounds = np.linspace(0, n, max(1, nthreads) + 1).astype(np.int64)

    def count(k: int) -> tuple[Any, ...] | None:
        tkey = np.empty(HASH_SLOTS, np.uint64)
        tpos = np.zeros(HASH_SLOTS, np.float64)
        tneg = np.zeros(HASH_SLOTS, np.float64)
        used = np.zeros(HASH_SLOTS, np.uint8)
        d = count_ties(bits, spec.kind, spec.sign, spec.ones, labels, int(bounds[k]),
                       int(bounds[k + 1]), tkey, tpos, tneg, used)
        if d < 0:
            return None
        keep = used.view(bool)
        return tkey[keep], tpos[keep], tneg[keep]

    parts = parallel_map(count, list(range(bounds.shape[0] - 1)), nthreads)
    if any(p is None for p in parts):
        return None
    keys = np.concatenate([p[0] for p in parts])
    pos = np.concatenate([p[1] for p in parts])
    neg = np.concatenate([p[2] for p in parts])
    uniq, inv = np.unique(keys, return_inverse=True)
    if uniq.shape[0] > HASH_MAX_DISTINCT:
        return None
    gpos = np.bincount(inv, weights=pos, minlength=uniq.shape[0])[::-1].copy()
    gneg = np.bincount(inv, weights=neg, minlength=uniq.shape[0])[::-1].copy()
    gkey = bits_of_keys(uniq[::-1], spec)
    if spec.kind == 0 and ((gkey & spec.exp) == spec.exp).any():
        raise _NonFinite
    return gkey, gpos, gneg


def task_metrics(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """One task's ``OUT_*`` row (totals in the caller's units) and its break-even
    score bits.

    A NaN or infinite score raises the :func:`~.inputs.nonfinite_error` naming it.
    """
    try:
        out, key = _task_metrics(t, max_fpr, what)
    except _NonFinite:
        _raise_nonfinite(t.values)
        raise  # unreachable
    return _in_caller_units(out, t), key


def _in_caller_units(out: np.ndarray, t: Task) -> np.ndarray:
    """An ``OUT_*`` row's class totals turned from kernel units into the caller's."""
    if t.unit != 1.0 or t.shift:
        out[OUT_POS] *= t.unit
        out[OUT_NEG] *= t.neg_unit
    return out


def _task_metrics(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    n = t.values.shape[0]
    if t.weights is None and n >= HASH_MIN:
        nthreads = threads() if n >= PARALLEL_MIN else 1
        table = _ties(t, nthreads)
        if table is not None:
            return table_metrics(table, max_fpr, what)
    if t.weights is None and (n < PARALLEL_MIN or threads() <= 1):
        return _one_range(t, max_fpr, what)
    parts, nthreads = _parts(t)
    return _sweep_parts(parts, t, max_fpr, what, nthreads)


def _one_range(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """An unweighted task on one thread: split, the machine's sort of each class,
    then state, sweep and results in one kernel call
    (:func:`~fastrank._kernels.sweep.sweep_one`). Small tasks are what this
    saves for: the steps of a multi-range sweep cost them more than the task,
    and at n = 1,000 each Python step here is a few percent of the call."""
    values = t.values
    spec = SPECS[values.dtype]
    n = values.shape[0]
    m = t.npos
    size = values.itemsize
    at = ((m + 1) * size + 63) // 64 * 64
    buf = scratch("classes", at + (n - m + 1) * size)
    pb = buf[:(m + 1) * size].view(spec.bits)  # + 1: the split's slack slot
    qb = buf[at:at + (n - m + 1) * size].view(spec.bits)
    bits = values.view(spec.bits)
    bits.flags.writeable = False  # a fresh view: the kernels take inputs read-only
    split(bits, readonly(t.labels), _EMPTY_F, 0, n, pb, qb, _EMPTY_FW, _EMPTY_FW, _scratch.counts)
    pb = pb[:m]  # unweighted: m positives, n - m negatives
    qb = qb[:n - m]
    p = pb.view(values.dtype)
    q = qb.view(values.dtype)
    _sort_class(p, spec)
    _sort_class(q, spec)
    flip = _NO_FLIP
    if spec.kind == KIND_SIGNED:
        (p, flip), (q, _) = _for_sweep(p), _for_sweep(q)
    st, sk = _scratch.state
    out = np.empty(OUT_SIZE, np.float64)
    if not sweep_one(p, pb, q, qb, spec.exp, flip, max_fpr, what, st, sk, *_scratch.chunk,
                     out, _EMPTY_FW):
        raise _NonFinite
    return out, int(sk[K_PRBE])


def table_metrics(table: tuple[np.ndarray, np.ndarray, np.ndarray], max_fpr: float, what: int,
                  bounds: tuple[float, float] | None = None, shift: int = 0
                  ) -> tuple[np.ndarray, int]:
    """The ``OUT_*`` row of a stored tie table ``(gkey, gpos, gneg)``, keys descending.

    Unweighted tables (``bounds`` None) hold counts. Weighted ones keep their
    running totals in fixed point as a weighted task's sweep does, in the
    units the task's class ``bounds`` imply, so the result is bit for bit
    that of the task the table came from (``shift``: the task's, see
    :func:`weighted_state`).
    """
    gkey, gpos, gneg = (_writable(table[0], np.uint64), _writable(table[1]),
                        _writable(table[2]))
    count = gpos.shape[0]
    if bounds is None:
        st, sk = new_state(float(gpos.sum()), float(gneg.sum()), max_fpr, what)
    else:
        st, sk = weighted_state(bounds, max_fpr, what, shift)
        s, k = range_state(st, 0.0, 0.0)
        sweep_table(gpos, gneg, gkey, count, s, k)  # a first pass for the exact totals
        set_totals(st, float(s[0]), float(s[1]))
    s, k = range_state(st, 0.0, 0.0)
    sweep_table(gpos, gneg, gkey, count, s, k)
    out = np.empty(OUT_SIZE, np.float64)
    combine(s[None, :].copy(), k[None, :].copy(), st, sk, out)
    return out, int(sk[K_PRBE])


def _writable(a: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    if a.dtype != dtype or not a.flags.writeable or not a.flags.c_contiguous:
        return np.array(a, dtype=dtype)
    return a


def task_table(t: Task, runs: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task's tie groups, highest score first: score bits (uint64), positive and
    negative totals (float64, kernel units; weighted sums exact, then rounded).

    With ``runs``, an unweighted task whose positives are the fewer may have each
    run of negative-only groups below the first group as one entry (keyed by its
    lowest score; :data:`~fastrank._kernels.sweep.MODE_RUNS`): the cumulative
    counts at every other entry are the full table's, and so is every readout
    whose best cutoff ends a group with positives or is the first."""
    n = t.values.shape[0]
    if t.weights is None and n >= HASH_MIN:
        try:
            table = _ties(t, threads() if n >= PARALLEL_MIN else 1)
        except _NonFinite:
            _raise_nonfinite(t.values)
        if table is not None:
            return table
    spec = t.spec
    weighted = t.weights is not None
    parts, nthreads = _parts(t)
    st, _ = _base_state(t, 1.0, 0)

    runs = runs and not weighted
    room = 16 if runs else 0
    # The range holding the task's first group (the highest range with samples).
    first = next((r for r, c in enumerate(parts) if c.p.shape[0] + c.q.shape[0]), 0)

    def build(r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = _sort_classes(parts[r], spec, weighted)
        m = c.p.shape[0] + c.q.shape[0] + room
        # Room for every sample in this thread's kept buffer (fresh memory for it would
        # cost page faults on every call); the groups written are copied out.
        buf = scratch("table", 24 * m + 192)
        gpos, at = _carve(buf, 0, m, np.float64)
        gneg, at = _carve(buf, at, m, np.float64)
        gkey, _ = _carve(buf, at, m, np.uint64)
        s, k = range_state(st, 0.0, 0.0)
        mode = (MODE_RUNS if r == first else MODE_RUNS_REST) if runs else MODE_TABLE
        g = sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw,
                        weighted, s, k, mode, gpos, gneg, gkey, c.flip)
        return gkey[:g].copy(), gpos[:g].copy(), gneg[:g].copy()

    try:
        tables = parallel_map(build, list(range(len(parts))), nthreads)
    except _NonFinite:
        _raise_nonfinite(t.values)
        raise  # unreachable
    if len(tables) == 1:
        return tables[0]  # type: ignore[no-any-return]
    if runs:  # a run of negatives across a range boundary is one entry, as on one thread
        tables = _join_runs(tables)
    return tuple(np.concatenate([tb[k] for tb in tables]) for k in range(3))  # type: ignore[return-value]


def cumulative_runs(t: Task, into: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_cumulative_runs`, a NaN or infinite score raising the error naming it."""
    try:
        return _cumulative_runs(t, into)
    except _NonFinite:
        _raise_nonfinite(t.values)
        raise  # unreachable


def _cumulative_runs(t: Task, into: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An unweighted task's runs table (:func:`task_table` with ``runs``) as running
    totals: score bits (uint64), cumulative FP and TP (float64 counts), highest score
    first, without the start.

    The kernel cumulates each score range's table while it writes it
    (:data:`~fastrank._kernels.sweep.MODE_CUMULATIVE`); the ranges' tables are then
    moved down to one another, each raised by the totals above it, and a run of
    negatives across a boundary made one entry (as :func:`_join_runs` does). Counts
    are exact integers, so every entry equals ``np.cumsum`` of :func:`task_table`'s.
    ``into`` (key, FP, TP), when each holds at least :func:`runs_room` entries,
    receives the table (the views returned); else fresh arrays do.
    """
    assert t.weights is None
    n = t.values.shape[0]
    if n >= HASH_MIN:
        table = _ties(t, threads() if n >= PARALLEL_MIN else 1)
        if table is not None:
            gkey, gpos, gneg = table
            g = gkey.shape[0]
            key, fp, tp = into if into is not None and min(a.shape[0] for a in into) >= g else \
                (np.empty(g, np.uint64), np.empty(g), np.empty(g))
            key[:g] = gkey
            np.cumsum(gneg, out=fp[:g])
            np.cumsum(gpos, out=tp[:g])
            return key[:g], fp[:g], tp[:g]
    spec = t.spec
    if (n < PARALLEL_MIN or threads() <= 1) and into is not None and \
            min(a.shape[0] for a in into) >= n + RUNS_ROOM:
        # One range, written in place: the steps of _one_range (a batch's large tasks
        # are many of these; each Python step holds the GIL).
        c = _sort_classes(_split(t.values, t.labels, None, t.npos, "classes"), spec, False)
        st, sk = _scratch.state
        st[:] = _runs_state()
        sk[:] = 0
        key, fp, tp = into
        g = int(sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), _EMPTY_FW,
                            _EMPTY_FW, False, st, sk, MODE_RUNS + MODE_CUMULATIVE, tp, fp, key,
                            c.flip))
        return key[:g], fp[:g], tp[:g]
    parts, nthreads = _parts(t)
    room = sum(c.p.shape[0] + c.q.shape[0] + RUNS_ROOM for c in parts)
    if into is not None and min(a.shape[0] for a in into) >= room:
        key, fp, tp = into
    else:
        key, fp, tp = np.empty(room, np.uint64), np.empty(room), np.empty(room)
    st, _ = _base_state(t, 1.0, 0)
    first = next((r for r, c in enumerate(parts) if c.p.shape[0] + c.q.shape[0]), 0)
    starts = [0]
    for c in parts:
        starts.append(starts[-1] + c.p.shape[0] + c.q.shape[0] + RUNS_ROOM)

    def build(r: int) -> int:
        c = _sort_classes(parts[r], spec, False)
        lo, hi = starts[r], starts[r + 1]
        s, k = range_state(st, 0.0, 0.0)
        mode = (MODE_RUNS if r == first else MODE_RUNS_REST) + MODE_CUMULATIVE
        return int(sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), _EMPTY_FW,
                               _EMPTY_FW, False, s, k, mode, tp[lo:hi], fp[lo:hi],
                               key[lo:hi], c.flip))

    counts = parallel_map(build, list(range(len(parts))), nthreads)
    end = 0  # entries placed
    for r, g in enumerate(counts):
        if g == 0:
            continue
        s0 = starts[r]
        if end:
            fp_above, tp_above = fp[end - 1], tp[end - 1]  # the totals above this range
            # Its first entry continues a run of negatives from above (the task's first
            # entry apart): the entry above is dropped, this one, raised by the
            # totals, stands for both.
            if end >= 2 and tp[s0] == 0.0 and tp[end - 1] == tp[end - 2]:
                end -= 1
            key[end:end + g] = key[s0:s0 + g]
            fp[end:end + g] = fp[s0:s0 + g] + fp_above
            tp[end:end + g] = tp[s0:s0 + g] + tp_above
        elif s0:
            key[:g], fp[:g], tp[:g] = key[s0:s0 + g], fp[s0:s0 + g], tp[s0:s0 + g]
        end += g
    return key[:end], fp[:end], tp[:end]


@functools.cache
def _runs_state() -> np.ndarray:
    """The state a runs table starts from (only its zero totals and flags are read)."""
    return new_state(0.0, 0.0, 1.0, 0)[0]


def runs_scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's kept buffers (key, FP, TP) for :func:`cumulative_runs` of a task
    of ``n`` samples: views of them live until the thread's next call (the caller
    copies what it keeps). Kept memory, so no page faults on every call."""
    m = runs_room(n)
    buf = scratch("runs", 24 * m + 192)
    key, at = _carve(buf, 0, m, np.uint64)
    fp, at = _carve(buf, at, m, np.float64)
    tp, _ = _carve(buf, at, m, np.float64)
    return key, fp, tp


def runs_room(n: int) -> int:
    """Entries :func:`cumulative_runs` needs to write a task of ``n`` samples in place."""
    nthreads = threads()
    nranges = 1 if n < PARALLEL_MIN or nthreads <= 1 else \
        min(MAX_PIVOTS + 1, RANGES_PER_THREAD * nthreads)
    return n + RUNS_ROOM * nranges


def _join_runs(tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
               ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Score ranges' run tables (highest range first; each range's own buffers) with
    each run of negative-only entries that crosses a boundary made one entry, keyed
    by its lowest score; the task's first entry stays alone."""
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    entries = 0
    for key, pos, neg in tables:
        if out and key.shape[0] and pos[0] == 0.0 and out[-1][1][-1] == 0.0 and entries >= 2:
            out[-1][2][-1] += neg[0]  # counts: exact
            out[-1][0][-1] = key[0]
            key, pos, neg = key[1:], pos[1:], neg[1:]
        if key.shape[0]:
            out.append((key, pos, neg))
            entries += key.shape[0]
    return out


def decode(bits: np.ndarray | int, canonical: np.dtype[Any], dtype: np.dtype[Any]) -> Any:
    """Score values (in the caller's dtype) from uint64 score bits of ``canonical``."""
    b = np.asarray(bits, dtype=np.uint64)
    spec = SPECS[canonical]
    values = b.astype(spec.bits).view(canonical) if spec.bits.itemsize == 4 else b.view(canonical)
    if dtype != canonical:
        values = values.astype(dtype)
    return values


_KEY_FORMATS = {np.dtype(np.float64): ("=Q", "=d", (1 << 64) - 1),
                np.dtype(np.float32): ("=I", "=f", (1 << 32) - 1),
                np.dtype(np.int64): ("=Q", "=q", (1 << 64) - 1),
                np.dtype(np.uint64): ("=Q", "=Q", (1 << 64) - 1)}


def decode_key(key: int, canonical: np.dtype[Any]) -> Any:
    """One score (a Python float, or int for integer scores) from its uint64 bits
    of ``canonical``: :func:`decode` of one key, without numpy's steps."""
    packed, unpacked, mask = _KEY_FORMATS[canonical]
    return struct.unpack(unpacked, struct.pack(packed, key & mask))[0]


ROWS_RADIX_MIN = 1 << 15  # tasks from this size on sort their rows with the radix sort


def _sorted_rows(t: Task) -> tuple[np.ndarray, np.ndarray]:
    """A task's score bits sorted ascending (a zero of either sign as +0.0) with
    their sample indices (float64), equal scores in sample order.

    Large tasks use the radix sort with the indices as payload (several times
    faster than numpy's stable argsort); small ones numpy's argsort, which
    costs them little and spares a first call the radix sort's compilation.
    """
    spec = t.spec
    n = t.values.shape[0]
    if n < ROWS_RADIX_MIN:
        keys = keys_of(t.values, spec)
        order = np.argsort(keys, kind="stable")
        bits = bits_of_keys(keys[order], spec).astype(spec.bits)
        return readonly(bits), readonly(order.astype(np.float64))
    bits = t.values.view(spec.bits).copy()
    rows = np.arange(n, dtype=np.float64)  # exact below 2**53
    sort_pairs(bits, np.empty_like(bits), rows, np.empty_like(rows), spec.kind, spec.sign,
               spec.ones, _scratch.hist)
    return readonly(bits), readonly(rows)


class Heads(NamedTuple):
    """Each row's tie groups that start within the top ``depth`` ranks and hold a
    label, and its first group (:func:`~fastrank._kernels.topk.row_heads`):
    ``first``, ``size`` and ``hits``, row ``i``'s from ``offsets[i]`` on (room for
    ``min(depth, stored, labels + 1) + 1``: one spare, for the caller's own group
    after them),
    and ``groups`` per row; each label's group (``label_slot``: -1 stored below the
    cut, -2 not stored), each row's relevant labels not stored (``tail_hits``) and,
    for hashed rows, the place of a column stored twice (``repeat``, -1 if none)."""

    offsets: np.ndarray
    first: np.ndarray
    size: np.ndarray
    hits: np.ndarray
    groups: np.ndarray
    label_slot: np.ndarray
    tail_hits: np.ndarray
    repeat: np.ndarray


_JOINS = {"merge": JOIN_MERGE, "hash": JOIN_HASH, "place": JOIN_PLACE}


def row_heads(starts: np.ndarray, ends: np.ndarray, cols: np.ndarray, values: np.ndarray,
              lptr: np.ndarray, lcols: np.ndarray, lrel: np.ndarray, depth: int,
              join: str = "merge") -> Heads:
    """The top of each row of a sparse score matrix (row ``i``'s entries
    ``starts[i] .. ends[i]``, canonical ``values``) and where its labels (``lptr``,
    ``lcols``, ``lrel`` 1.0 or 0.0) stand, rows split across the threads when there
    are many entries. ``join``: ``"merge"``, column ids increase within a row
    (``cols`` and ``lcols``); ``"hash"``, they come in any order (a run's document
    ids) and are matched through a hash table; ``"place"``, every column of a row is
    stored, at its own place (``lcols`` below the row's length; ``cols`` unused)."""
    n = starts.shape[0]
    spec = SPECS[values.dtype]
    bits = readonly(values.view(spec.bits))
    stored = ends - starts
    room = np.minimum(np.minimum(stored, depth), np.diff(lptr) + 1) + 1
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(room, out=offsets[1:])
    first = np.zeros(int(offsets[-1]), np.int64)
    size = np.zeros(int(offsets[-1]), np.int64)
    hits = np.zeros(int(offsets[-1]), np.float64)
    groups = np.zeros(n, np.int64)
    label_slot = np.empty(lcols.shape[0], np.int64)
    tail_hits = np.zeros(n, np.float64)
    repeat = np.full(n, -1, np.int64)
    lo, hi, lp, c, lc = (readonly(np.ascontiguousarray(x, dtype=np.int64))
                         for x in (starts, ends, lptr, cols, lcols))
    rel = readonly(np.ascontiguousarray(lrel, dtype=np.float64))
    nthreads = threads() if values.shape[0] >= PARALLEL_MIN else 1
    ptr = np.concatenate(([0], np.cumsum(stored)))  # rows cut into spans of equal entries
    cuts = np.searchsorted(ptr, np.linspace(0, ptr[-1], 4 * nthreads + 1)[1:-1])
    bounds = np.unique(np.concatenate(([0], cuts, [n])))
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))

    code = _JOINS[join]
    nu, ni, nf = heads_room(int(stored.max()) if n else 0, int(np.diff(lptr).max()) if n else 0,
                            code)

    def run(span: tuple[int, int]) -> None:
        wu = np.empty(nu, np.uint64)  # workspaces, one set per span
        wi = np.empty(ni, np.int64)
        wf = np.empty(nf, np.float64)
        if not _row_heads(lo, hi, c, bits, spec.kind, spec.sign, spec.ones, lp, lc, rel, depth,
                          span[0], span[1], code, readonly(offsets), first, size, hits, groups,
                          label_slot, tail_hits, repeat, wu, wi, wf):
            raise RuntimeError("row_heads: workspace too small")  # heads_room is its bound

    parallel_map(run, spans, nthreads)
    return Heads(offsets, first, size, hits, groups, label_slot, tail_hits, repeat)


def text_keys(ids: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """Text ids (a 1-D ``str`` array) as uint64 keys equal and ordered as the ids
    are (:func:`~fastrank._kernels.keys.text_keys`), written to ``out`` when given,
    or None when one is longer than 8 characters or holds one from 256 on; split
    across the threads."""
    n = ids.shape[0]
    width = ids.dtype.itemsize // 4
    out = np.empty(n, np.uint64) if out is None else out
    if width == 0:
        out[:] = 0
        return out
    native = np.ascontiguousarray(ids, dtype=ids.dtype.newbyteorder("="))
    points = readonly(native.view(np.uint32).reshape(n, width))
    nthreads = threads() if n * width >= PARALLEL_MIN else 1
    cuts = np.linspace(0, n, 2 * nthreads + 1).astype(np.int64).tolist()
    spans = list(itertools.pairwise(cuts))
    misfit = parallel_map(lambda span: _text_keys(points, span[0], span[1], out), spans, nthreads)
    return None if max(misfit) >= 0 else out


def sample_placements(t: Task) -> np.ndarray:
    """DeLong's placement of each sample of an unweighted task with both classes
    (:func:`~fastrank._kernels.tasks.placements`)."""
    bits, rows = _sorted_rows(t)
    v = np.empty(bits.shape[0], np.float64)
    placements(bits, rows, readonly(t.labels), v)
    return v


def group_index(t: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each sample's tie group (0 = highest score) and the table ``(gkey, gpos, gneg)``.

    The scores are sorted with their sample indices (:func:`_sorted_rows`), then
    one kernel pass names the groups. Weighted group sums here are formed in sample order
    (these tables serve resampling and placements, not the exact one-shot sums).
    """
    n = t.values.shape[0]
    bits, rows = _sorted_rows(t)
    gid = np.empty(n, np.int64)
    gpos = np.zeros(n, np.float64)
    gneg = np.zeros(n, np.float64)
    gkey = np.empty(n, np.uint64)
    w = _EMPTY_F if t.weights is None else readonly(t.weights)
    ngroups = tie_groups(bits, rows, readonly(t.labels), w, gid, gpos, gneg, gkey)
    return gid, gkey[:ngroups], gpos[:ngroups], gneg[:ngroups]


# ------------------------------------------------------------------ batches


def batch_metrics(b: Batch, max_fpr: float, what: int) -> tuple[np.ndarray, np.ndarray]:
    """Every task's ``OUT_*`` row (totals in the caller's units: each task has
    its own weight unit) and break-even score bits.

    Tasks are spread over the threads in units (blocks of columns of a
    C-ordered matrix, runs of segments otherwise); small tasks are computed
    inside one kernel call per unit, large ones each as a one-task call. A
    batch of at most :data:`FEW_TASKS` tasks runs every task as a one-task
    call: a Python call per task costs it little, and it does not wait for the
    batch kernel's compilation (the largest of all) on first use. Both give
    the same numbers.
    """
    out = np.empty((b.t, OUT_SIZE), np.float64)
    prbe = np.zeros(b.t, np.uint64)
    if b.t == 0:
        return out, prbe
    nthreads = threads() if int(b.sizes.sum()) >= PARALLEL_MIN else 1
    if b.layout == SAMPLE_MAJOR:
        together = b.t > FEW_TASKS
        units = _column_units(b, nthreads, together and b.n <= SMALL_TASK)
        run = _block_runner(b, max_fpr, what, out, prbe, together)
    else:
        units = _segment_units(b, nthreads)
        run = _segment_runner(b, max_fpr, what, out, prbe, b.t > FEW_TASKS)
    try:
        parallel_map(run, units, nthreads)
    except _BatchNonFinite as exc:
        _raise_batch(b, exc.task)
    return out, prbe


RUNS_ROOM = 16  # a task's table may hold this many entries more than its samples (MODE_RUNS)


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
    return _EMPTY_FW, _EMPTY_FW, _EMPTY_UW, _EMPTY_IW


def _tables(b: Batch, visit: Visit) -> np.ndarray:
    """:func:`batch_tables` with ``visit``; returns each task's number of entries."""
    sizes = b.sizes.astype(np.int64)
    small = sizes <= TABLE_TASK if b.t > FEW_TASKS else np.zeros(b.t, bool)
    ptr = np.zeros(b.t + 1, np.int64)  # each small task's room
    np.cumsum(np.where(small, sizes + RUNS_ROOM, 0), out=ptr[1:])
    filled = np.zeros(b.t, np.int64)
    nthreads = threads() if int(sizes.sum()) >= PARALLEL_MIN else 1
    # (a large task, above TABLE_TASK, is past THREADED_TASK too: its steps run on threads)
    dummy = np.empty((b.t, OUT_SIZE), np.float64), np.zeros(b.t, np.uint64)

    def large(t: Task, j: int) -> None:
        try:
            key, fp, tp = _cumulative_runs(t, runs_scratch(t.values.shape[0]))
        except _NonFinite:
            raise _BatchNonFinite(j) from None
        filled[j] = key.shape[0]
        visit(np.array([j]), fp, tp, key, np.zeros(1, np.int64), filled[j:j + 1])

    def buffers(j0: int, j1: int) -> Tables:
        """This thread's kept buffer, with room for tasks ``j0 .. j1``'s tables."""
        room = int(ptr[j1] - ptr[j0])
        buf = scratch("tables", 24 * room + 192)
        pos, at = _carve(buf, 0, room, np.float64)
        neg, at = _carve(buf, at, room, np.float64)
        key, _ = _carve(buf, at, room, np.uint64)
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

        units = _column_units(b, nthreads, bool(small.any()))
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
                large(_segment_task(b, jj), jj)

        units = _segment_units(b, nthreads, TABLE_TASK)
    try:
        parallel_map(run, units, nthreads)
    except _BatchNonFinite as exc:
        _raise_batch(b, exc.task)
    return filled


class _BatchNonFinite(Exception):
    def __init__(self, task: int) -> None:
        self.task = task


def _task_parts(b: Batch, j: int) -> tuple[np.ndarray, np.ndarray | None]:
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
    w = _EMPTY_F if b.weights is None else readonly(b.weights)
    if tasks.shape[0] and int((offsets[tasks + 1] - offsets[tasks]).max()) > nmax:
        raise RuntimeError("a batch task is larger than its kernel's scratch")  # pragma: no cover
    ptr, idx = (_EMPTY_I, _EMPTY_I) if lab_mode == LAB_SAME else (readonly(b.lab_ptr),
                                                                  readonly(b.lab_idx))
    bits = readonly(values.view(spec.bits))
    scratch_ = _segment_scratch(nmax, values.dtype, b.weights is not None)
    bad = np.full(2, -1, np.int64)
    if tables is not None:
        room = tables.ptr[tasks + 1] - tables.ptr[tasks]
        if int(room.min(initial=RUNS_ROOM)) < RUNS_ROOM \
                or int(room.sum()) > min(x.shape[0] for x in tables[1:4]):
            raise RuntimeError("a batch table has no room for its task")  # pragma: no cover
        touts = (readonly(tables.ptr), tables.pos, tables.neg, tables.key, tables.filled)
    else:
        touts = (_EMPTY_I, _EMPTY_FW, _EMPTY_FW, _EMPTY_UW, _EMPTY_IW)
    while tasks.shape[0]:
        run_segments(bits, spec.kind, spec.sign, spec.ones, spec.exp, readonly(labels), lab_mode,
                     ptr, idx, w, wshared, readonly(offsets), readonly(tasks), max_fpr, what,
                     count_choice().limit, *scratch_, out, prbe, bad, *touts)
        if bad[0] < 0:
            return
        j = int(bad[0])
        if bad[1] != 1 or tables is not None:  # (tables: unweighted, so a bad score)
            raise _BatchNonFinite(first + j)
        # Classes too far apart for one unit: this task through the one-task engine,
        # which gives each class its own; then the tasks after it.
        lab, tw = _task_parts(b, first + j)
        s0, s1 = int(offsets[j]), int(offsets[j + 1])
        t = _scaled_task(values[s0:s1], b.dtype, np.ascontiguousarray(lab),
                         int(np.count_nonzero(lab)), tw, first + j)
        out[j], prbe[j] = _task_out(t, max_fpr, what, first + j)
        tasks = tasks[int(np.flatnonzero(tasks == j)[0]) + 1:]
        bad[:] = -1


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
    nparts = max(1, min(threads(), n // PARALLEL_MIN))
    edges = [n * p // nparts for p in range(nparts + 1)]
    bits = SPECS[values.dtype].bits
    codes = readonly(np.ascontiguousarray(codes))
    vin = readonly(values.view(bits))
    lin = readonly(labels)
    win = readonly(w) if w is not None else _EMPTY_F
    order = np.empty(n, np.int64)
    vout = np.empty(n, values.dtype)
    lout = np.empty(n, np.uint8)
    wout = np.empty(n if w is not None else 0, np.float64)
    vbits = vout.view(bits)
    counts = np.zeros((nparts, ngroups), np.int64)

    def part(p: int, place: bool) -> bool:
        return bool(group_order(codes, edges[p], edges[p + 1], vin, lin, win, counts[p], place,
                                order, vbits, lout, wout))

    parallel_map(lambda p: part(p, False), range(nparts), nparts)
    offsets = np.zeros(ngroups + 1, np.int64)
    np.cumsum(counts.sum(axis=0), out=offsets[1:])
    counts[:] = offsets[:-1] + (np.cumsum(counts, axis=0) - counts)  # each part's first places
    same = all(parallel_map(lambda p: part(p, True), range(nparts), nparts))
    if same:
        return None, offsets, values, labels, w
    return order, offsets, vout, lout, (wout if w is not None else None)


def _segment_scratch(nmax: int, dtype: np.dtype[Any], weighted: bool) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run_segments`' typed scratch for tasks of up to ``nmax`` samples, carved
    from this thread's buffer: the sort's counts, the state and chunk buffers
    (floats, then keys), three buffers of score bits (and the same memory as
    scores), three of weights when ``weighted``, and the labels."""
    cap = nmax + 1  # the split's slack slot
    bits = SPECS[dtype].bits
    nw = 3 * cap if weighted else 0
    sizes = (HIST_SHAPE[0] * HIST_SHAPE[1] * 8, 8 * (S_SIZE + 2 * CHUNK), 8 * (K_SIZE + CHUNK),
             3 * cap * bits.itemsize, 8 * nw, cap)
    buf = scratch("segments", sum(sizes) + 64 * len(sizes))
    hist, at = _carve(buf, 0, HIST_SHAPE[0] * HIST_SHAPE[1], np.int64)
    fw, at = _carve(buf, at, S_SIZE + 2 * CHUNK, np.float64)
    uw, at = _carve(buf, at, K_SIZE + CHUNK, np.uint64)
    kbits, at = _carve(buf, at, 3 * cap, bits)
    ww, at = _carve(buf, at, nw, np.float64)
    lrow, _ = _carve(buf, at, cap, np.uint8)
    return hist.reshape(HIST_SHAPE), fw, uw, kbits, kbits.view(_swept(dtype)), ww, lrow


def _segment_runner(b: Batch, max_fpr: float, what: int, out: np.ndarray,
                    prbe: np.ndarray, together: bool) -> Callable[[tuple[int, int]], None]:
    """Runs of segments; with ``together``, their small tasks in one kernel call."""
    limit = SMALL_TASK if together else -1

    def run(unit: tuple[int, int]) -> None:
        j0, j1 = unit
        sizes = b.sizes[j0:j1]
        small = np.flatnonzero(sizes <= limit) + j0
        if small.shape[0]:
            _run_small(b, b.values, b.labels, b.lab_mode, b.wshared, b.offsets,
                       small.astype(np.int64), int(b.sizes[small].max()), max_fpr, what, out,
                       prbe)
        for jj in (np.flatnonzero(sizes > limit) + j0).tolist():
            out[jj], prbe[jj] = _task_out(_segment_task(b, jj), max_fpr, what, jj)

    return run


def _segment_task(b: Batch, j: int) -> Task:
    """Task ``j`` of a batch of segments as a one-task input."""
    lab, w = _task_parts(b, j)
    s0, s1 = int(b.offsets[j]), int(b.offsets[j + 1])
    return _scaled_task(b.values[s0:s1], b.dtype, lab, int(np.count_nonzero(lab)), w, j)


def _scaled_task(values: np.ndarray, dtype: Any, lab: np.ndarray, npos: int,
                 w: np.ndarray | None, j: int) -> Task:
    """Task ``j`` of a batch with its own weight unit, as a one-task call has it."""
    try:
        w, unit, bounds, shift = scaled_weights(w, lab, npos)
    except ValueError as exc:
        raise ValueError(f"task {j}: {exc}") from None
    return Task(values, dtype, lab, npos, w, unit, True, bounds, shift)


def _task_out(t: Task, max_fpr: float, what: int, j: int) -> tuple[np.ndarray, int]:
    """A batch's large task ``j`` through the one-task engine, totals in the
    caller's units."""
    try:
        out, key = _task_metrics(t, max_fpr, what)
    except _NonFinite:
        raise _BatchNonFinite(j) from None
    return _in_caller_units(out, t), key


def _bad_task(b: Batch, at: int) -> int:
    """The task holding flat position ``at`` of ``b.values``."""
    if b.layout == SAMPLE_MAJOR:
        return at % b.t
    return int(np.searchsorted(b.offsets, at, side="right")) - 1


def _raise_batch(b: Batch, j: int) -> None:
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


def _block(b: Batch, j0: int, bw: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``j0 .. j0 + bw`` of a C-ordered batch made task-major in this thread's
    kept buffer: their scores (column ``jj`` at ``jj * n``) and 0/1 labels."""
    spec = SPECS[b.values.dtype]
    n = b.n
    buf = scratch("block", bw * n * (spec.bits.itemsize + 1) + 128)
    tb, at = _carve(buf, 0, bw * n, spec.bits)
    lb, _ = _carve(buf, at, bw * n, np.uint8)
    transpose_block(readonly(b.values.view(spec.bits)), n, b.t, j0, bw, readonly(b.labels),
                    b.lab_mode, readonly(b.lab_ptr), readonly(b.lab_idx), tb, lb)
    return tb.view(b.values.dtype), lb


UNIT_SAMPLES = 1 << 16  # a unit of a C-ordered batch's small columns holds about this many


def _column_units(b: Batch, nthreads: int, small: bool) -> list[tuple[int, int]]:
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
    with ``together``, a block of small tasks in one kernel call."""
    n = b.n

    def run(unit: tuple[int, int]) -> None:
        j0, j1 = unit
        bw = j1 - j0
        vals, lb = _block(b, j0, bw)
        if together and n <= SMALL_TASK:
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
            t = _scaled_task(vals[jj * n:(jj + 1) * n], b.dtype, lab, npos, b.weights, j0 + jj)
            out[j0 + jj], prbe[j0 + jj] = _task_out(t, max_fpr, what, j0 + jj)

    return run


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

        nthreads = threads() if b.values.shape[0] >= PARALLEL_MIN else 1
        for part in parallel_map(block, range(0, b.t, BLOCK), nthreads):
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
    if b.values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            finite = bool(np.isfinite(b.values.min()) and np.isfinite(b.values.max()))
        if not finite:
            bad = int(np.flatnonzero(~np.isfinite(b.values))[0])
            if b.mode == "groups":
                raise nonfinite_error(b.values[bad], int(b.order[bad]) if b.order is not None
                                      else bad, (b.n,))
            j = _bad_task(b, bad)
            _raise_batch(b, j)
    if b.mode == "groups":
        npos = int(np.count_nonzero(b.labels))
        w, unit, bounds, shift = scaled_weights(b.weights, b.labels, npos)
        return Task(b.values, b.dtype, b.labels, npos, w, unit, False, bounds, shift)
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
    w, unit, bounds, shift = scaled_weights(w, labels, npos)
    return Task(b.values, b.dtype, labels, npos, w, unit, False, bounds, shift)
