"""The engine's worker threads: how many a call may use, and work spread over them.

The kernels release the GIL and run on these threads, never on Numba's
threading layer (which fastrank neither starts nor configures). The number of
threads is :func:`threads`: Numba's setting for the calling thread
(``numba.set_num_threads``; ``NUMBA_NUM_THREADS``), or a :func:`thread_limit`
in force. Every result is the same, bit for bit, on any number of threads.
Other modules call these as ``workers.threads()``, ``workers.parallel_map``
(so that a test that patches them here patches every caller).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

from .inputs import Task

PARALLEL_MIN = 1 << 17  # samples below which one thread does the whole call


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


GATHER_MIN = 1 << 20  # indices from which take() cuts the gather into a part a thread


def take(values: np.ndarray, index: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``values.take(index, mode="clip", out=out)`` (indices outside are clipped:
    callers pass valid ones), cut into a part a thread from ``GATHER_MIN`` indices
    on: numpy's gather lets go of the GIL, and a gather of many indices into a
    table larger than the cache waits on a miss for most of them (the new output's
    first touches are shared out too). 10 M int64 from 2 M: 0.056-0.065 against
    0.094-0.127 s on two threads (AMD Zen 4)."""
    n = index.shape[0]
    got = np.empty(n, values.dtype) if out is None else out
    parts = min(threads(), n // GATHER_MIN)
    if parts < 2:
        values.take(index, mode="clip", out=got)
        return got
    cuts = [n * k // parts for k in range(parts + 1)]
    parallel_map(lambda k: values.take(index[cuts[k]:cuts[k + 1]], mode="clip",
                                       out=got[cuts[k]:cuts[k + 1]]), range(parts), parts)
    return got
