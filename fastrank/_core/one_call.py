"""One task in one kernel call: split, sort, sweep and results together.

A one-task call's canonical task (what :mod:`.inputs` makes of the caller's
arguments) is computed by the batch kernel as a batch of one
(:func:`~fastrank._kernels.batch.run_segments`): one call splits the scores
by class, sorts each class with fastrank's radix sort (or, with few
positives, counts the negatives against them; for float32 scores with many
positives, sorts key-and-label items once), sweeps the tie groups and writes
the ``OUT_*`` row. The engine's own steps (:func:`.engine.task_metrics`:
the split, numpy's sort of each class, the sweep, five calls from Python)
give the same numbers, bit for bit; each task takes the faster way:

* the kernel only once it runs without compiling: compiled in this process
  (by a batch call) or held by the kernel cache (``fastrank compile``, an
  earlier process). Compiling it takes several times a first call's wait, so
  a one-task call never starts that compile; until then the engine's steps run;
* tasks of up to :data:`~.batches.SMALL_TASK` samples (the batch kernel's own
  limit for tasks it always computes inside): weighted ones (both ways sort
  weighted classes with the radix sort), unweighted ones of up to
  :data:`ALWAYS` samples (where the steps from Python cost more than any
  sort), and larger ones where the one call was the faster way when both
  were timed at their size (:func:`_time_bucket`, once per process and size
  bucket; ``FASTRANK_SORT=numpy`` keeps the steps, ``radix`` the one call).
  Measured with ``benchmarks/compare.py --per-call`` and against the
  engine's steps in one process (AMD Zen 4, numpy's AVX-512 sort):
  1.13-1.31x at 100 scores and 1.17-1.31x at 1,000 float64 ones, 1.34-2.3x
  weighted; beyond ``SMALL_TASK`` the steps were as fast or faster
  (0.94-0.98x), so those keep them;
* not a weighted task whose classes need a unit each
  (:func:`~.inputs.scaled_weights`: its ``shift``), which the engine computes.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from .._kernels.batch import LAB_SAME, run_segments
from .._kernels.jit import SIGNATURES
from .._kernels.sort import SMALL
from .._kernels.sweep import OUT_SIZE
from . import batches, engine, sorting
from .by_class import raise_nonfinite
from .first_calls import VARIANT, steps_ready
from .inputs import SPECS, Task, readonly, task_of
from .workspace import EMPTY_F, EMPTY_FW, EMPTY_I, EMPTY_IW, EMPTY_UW, buffers

_ready: set[np.dtype[Any]] = set()
_looked: dict[np.dtype[Any], int] = {}  # the kernel's compiled variants when last not ready


def ready(dtype: np.dtype[Any]) -> bool:
    """Whether the batch kernel runs tasks of canonical ``dtype`` without compiling
    (compiled in this process or cached; asked again only after a compile)."""
    if dtype in _ready:
        return True
    kernel: Any = run_segments
    seen = len(kernel.overloads)
    if _looked.get(dtype) == seen:
        return False
    _looked[dtype] = seen
    if sorting.compiled_or_cached(kernel, tuple(SIGNATURES[kernel][VARIANT[dtype]])):
        _ready.add(dtype)
        return True
    return False


ALWAYS = 256  # unweighted tasks up to this size take the one call whatever the sort


def wanted(t: Task) -> bool:
    """Whether task ``t`` takes the one kernel call (see the module's notes)."""
    values = t.values
    n = values.shape[0]
    if n > batches.SMALL_TASK or t.shift != 0 or not ready(values.dtype):
        return False
    if n <= ALWAYS or t.weights is not None:
        return True
    forced = sorting.env_setting("FASTRANK_SORT")
    if forced in ("numpy", "radix"):  # numpy's sort: the steps; the radix sort: the one call
        return forced == "radix"
    key = (values.dtype, sorting.size_bucket(n))
    got = _faster.get(key)
    if got is None:
        with _timing:
            got = _faster.get(key)
            if got is None:
                got = _faster[key] = _time_bucket(values.dtype, key[1])
    return got


# (canonical dtype, size bucket) -> whether the one call was the faster way there
_faster: dict[tuple[np.dtype[Any], int], bool] = {}
_timing = threading.Lock()


def _time_bucket(dtype: np.dtype[Any], bucket: int) -> bool:
    """Whether the one kernel call computes an unweighted task of the size bucket's
    middle size (:func:`~.sorting.size_bucket`) faster than the engine's steps
    here: both timed on the same task (30% positives), alternating, best of five,
    once per process, dtype and bucket. Both give the same numbers, bit for bit;
    the difference is the sort (fastrank's radix sort in the kernel, or the one
    :func:`~.sorting.sort_choice` picks) and the engine's Python steps. Timing the
    two ways themselves needs no kernel the call does not run anyway (timing the
    sorts alone compiled the radix sort, 1-3 s, so that a process without it in
    the cache kept the steps and numpy's sort: 33 against 26 us per call at
    1,000 float64 scores, AMD Zen 4). Where the steps' own kernels are neither
    compiled nor cached, the one call without a timing: the steps would wait for
    a compile (seconds) that the one call does not need."""
    if not steps_ready(dtype):
        return True
    n = 3 << (bucket - 2)
    rng = np.random.default_rng(12345)
    if dtype.kind == "f":
        values = rng.standard_normal(n).astype(dtype)
    else:
        values = rng.integers(0, 1 << 40, n).astype(dtype)
    labels = readonly((rng.random(n) < 0.3).view(np.uint8))
    t = task_of(readonly(values), dtype, labels, None)
    inner = max(1, (1 << 15) // n)  # each timing some tens of microseconds
    best = [np.inf, np.inf]
    for _ in range(5):
        for way, run in enumerate((_one, engine.task_metrics)):
            t0 = time.perf_counter()
            for _ in range(inner):
                run(t, 1.0, 0)
            best[way] = min(best[way], time.perf_counter() - t0)
    return bool(best[0] <= best[1])


Scratch = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                np.ndarray]


class _Mine:
    """One thread's arguments of the call, kept between calls (a plain object: each
    attribute of a ``threading.local`` costs a lookup of its own, about 70 ns)."""

    def __init__(self) -> None:
        # (dtype, weighted) -> (largest task + 1, scratch, item buffer, the buffer carved)
        self.carved: dict[tuple[np.dtype[Any], bool],
                          tuple[int, Scratch, np.ndarray, np.ndarray]] = {}
        self.prbe = np.empty(1, np.uint64)
        self.bad = np.empty(2, np.int64)


class _Kept(threading.local):
    def __init__(self) -> None:
        self.mine = _Mine()


_kept = _Kept()
_TASKS = readonly(np.zeros(1, np.int64))  # the batch's one task
_SLOT = "one-call"
# n -> the offsets (0, n) of a task of n samples, read-only, shared by every thread
# (at most batches.SMALL_TASK of them: larger tasks never take the one call)
_OFFSETS: dict[int, np.ndarray] = {}


def _offsets(n: int) -> np.ndarray:
    got = _OFFSETS.get(n)
    if got is None:
        got = readonly(np.array([0, n], np.int64))
        if n <= batches.SMALL_TASK:
            _OFFSETS[n] = got
    return got


def _scratch(k: _Mine, n: int, dtype: np.dtype[Any], weighted: bool
             ) -> tuple[Scratch, np.ndarray]:
    """The kernel's typed scratch for a task of ``n`` samples and its item buffer
    (float32 unweighted; else empty), carved once per size class (powers of two)
    and kept while this thread's buffer stays."""
    key = (dtype, weighted)
    got = k.carved.get(key)
    if got is not None and got[0] > n and got[3] is buffers.slots.get(_SLOT):
        return got[1], got[2]
    cap = max(1 << 10, 1 << n.bit_length())  # > n: the split's slack slot
    base = batches.segment_scratch(cap, dtype, weighted, _SLOT)
    items = np.empty(2 * (cap + 1), np.uint64) if dtype.itemsize == 4 and not weighted \
        else EMPTY_UW
    k.carved[key] = (cap, base, items, buffers.slots[_SLOT])
    return base, items


def task_metrics(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """A task's ``OUT_*`` row (totals in the caller's units) and break-even score
    bits, as :func:`.engine.task_metrics` gives them, by one kernel call where
    :func:`wanted` (the engine's steps otherwise)."""
    if not wanted(t):
        return engine.task_metrics(t, max_fpr, what)
    return _one(t, max_fpr, what)


def _one(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """:func:`task_metrics` by the one kernel call (``t`` :func:`wanted` or timed)."""
    values = t.values
    n = values.shape[0]
    spec = SPECS[values.dtype]
    k = _kept.mine
    kept, items = _scratch(k, n, values.dtype, t.weights is not None)
    w = EMPTY_F if t.weights is None else readonly(t.weights)
    many = batches.NEVER
    if items.shape[0] and n > SMALL:  # (tasks of up to SMALL are sorted by insertion)
        many = batches.items_choice(n).share
    out = np.empty((1, OUT_SIZE), np.float64)
    bad = k.bad
    bits = values.view(spec.bits)
    bits.setflags(write=False)  # a fresh view: the kernels take their inputs read-only
    run_segments(bits, spec.kind, spec.sign, spec.ones, spec.exp,
                 readonly(t.labels), LAB_SAME, EMPTY_I, EMPTY_I, w, True, _offsets(n), _TASKS,
                 max_fpr, what, sorting.count_choice().limit, many, *kept, out, k.prbe, bad,
                 EMPTY_I, EMPTY_FW, EMPTY_FW, items, EMPTY_IW)
    if bad.item(0) >= 0:
        if bad.item(1) == 0:
            raise_nonfinite(values)
        return engine.task_metrics(t, max_fpr, what)  # classes too far apart: a unit each
    return engine.in_caller_units(out[0], t), k.prbe.item(0)
