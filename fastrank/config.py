"""What fastrank runs on, and its compiled kernels ahead of time.

:func:`show_config` prints what a bug report needs: the CPU, numpy's SIMD
targets, the sort each score width gets on this machine and why, the number
of threads fastrank uses and where they come from, Numba's threading layer
(if anything started it), and the kernel cache: its folder and how many of
the declared kernel variants it holds. :func:`compile_kernels` compiles every
declared variant ahead of time (``fastrank compile``), for container images
and CI jobs that should not pay the first call's compile.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from typing import Any, Literal, TextIO

__all__ = ["compile_kernels", "config", "show_config"]


def _kernels() -> list[Any]:
    """Every compiled kernel (importing each kernel module registers its signatures)."""
    from ._kernels import (  # noqa: F401
        batch,
        bootstrap,
        histogram,
        keys,
        readout,
        sort,
        sweep,
        tasks,
        text,
        topk,
    )
    from ._kernels.jit import SIGNATURES

    return list(SIGNATURES)


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            info = fh.read()
        fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        model = fields.get("model name", "")
        family = fields.get("cpu family")
        if family:
            model += f" (family {family}, model {fields.get('model', '?')})"
        return model or platform.processor() or platform.machine()
    except OSError:
        return platform.processor() or platform.machine()


def _simd() -> dict[str, list[str]]:
    import importlib

    try:
        umath: Any = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # numpy < 2
        umath = importlib.import_module("numpy.core._multiarray_umath")
    __cpu_baseline__ = umath.__cpu_baseline__
    __cpu_dispatch__ = umath.__cpu_dispatch__
    __cpu_features__ = umath.__cpu_features__
    return {
        "baseline": list(__cpu_baseline__),
        "dispatched": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
        "not available": [f for f in __cpu_dispatch__ if not __cpu_features__.get(f)],
    }


def _cache_dir() -> str:
    import numba

    folder = numba.config.CACHE_DIR  # type: ignore[attr-defined]
    if folder:
        return str(folder)
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels", "__pycache__")


def _cached_variants() -> int:
    """How many compiled kernel variants the cache holds for this machine and these
    kernel sources (entries of each kernel's index, read as Numba reads it: an
    index from other sources counts nothing, nor do entries for another CPU)."""
    total = 0
    for kernel in _kernels():
        try:
            index = kernel._cache._cache_file._load_index()
            magic = kernel.targetctx.codegen().magic_tuple()
        except Exception:  # pragma: no cover - an unreadable index holds nothing usable
            continue
        total += sum(1 for key in index if key[1] == magic)
    return total


def config() -> dict[str, Any]:
    """What :func:`show_config` prints, as a dict."""
    import numba
    import numpy as np
    from numba.np.ufunc import parallel

    from . import __version__
    from ._core import sorting, workers

    started = bool(getattr(parallel, "_is_initialized", False))
    kernels = _kernels()
    declared = sum(len(sigs) for sigs in _signatures().values())
    folder = _cache_dir()
    sorts = {}
    for width, name in ((4, "float32 (and narrower)"), (8, "float64, int64, uint64")):
        sorts[name] = _sort_sizes(width)
    counted = sorting.count_choice()
    return {
        "fastrank": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cores": os.cpu_count(),
        "numpy": np.__version__,
        "numpy SIMD": _simd(),
        "numba": numba.__version__,
        "threads": workers.threads(),
        "threads from": ("numba.get_num_threads() of this thread" if started
                         else "NUMBA_NUM_THREADS (Numba's threading layer is not started)"),
        "numba threading layer": (numba.threading_layer() if started  # type: ignore[attr-defined]
                                  else "not started (fastrank never starts it)"),
        "sort": sorts,
        "unsorted negatives": (f"batch tasks with at most {counted.limit} positives count their "
                               f"negatives instead of sorting them ({counted.reason})"),
        "many positives": _items_line(),
        "kernels": len(kernels),
        "declared variants": declared,
        "cache folder": folder,
        "cached variants": _cached_variants(),
        "first calls": _stand_ins_line(),
    }


def _stand_ins_line() -> str:
    """The stand-ins' budgets and what the processes sharing this cache spent."""
    from ._core import carried, first_calls

    where, earlier, here = first_calls.spent_here()

    def shown(spent: dict[str, float]) -> str:
        return ", ".join(f"{k} {v:.2f} s" for k, v in sorted(spent.items()) if v > 0.0) or "none"

    return (f"until a kernel is compiled or cached, small calls take stand-ins with the "
            f"kernel's numbers, each for {first_calls.BUDGET:g} s a process and "
            f"{first_calls.CARRIED:g} s over the processes sharing this cache (each counting "
            f"what it spent beyond {carried.LOAD:g} s); record {where or 'none (no cache)'}: "
            f"{shown(earlier)}; this process: {shown(here)}")


def _items_line() -> str:
    """From which share of positives a float32 batch task of 49,152 scores sorts its
    samples once as items (timed here, or set by ``FASTRANK_ITEMS``)."""
    from ._core import batches
    from ._kernels.batch import SHARE_UNIT as unit

    c = batches.items_choice(49_152)
    if c.share > unit:
        return f"float32 batch tasks of 49,152 scores never sort key/label items ({c.reason})"
    return (f"float32 batch tasks of 49,152 scores with at least {c.share / unit:.1%} positives "
            f"sort key/label items once instead of each class ({c.reason or 'timed here'})")


def _sort_sizes(width: int) -> str:
    """The sort each size of ``width``-byte scores gets: the runs of sizes with one
    choice, then each size bucket's timings (numpy/radix, microseconds)."""
    from ._core import sorting

    choices = sorting.sort_choices(width)
    timed = [(lo, c) for lo, c in choices if c.n]
    if not timed:  # forced, or the radix sort failed: one reason for every size
        return f"{choices[0][1].path}: {choices[0][1].reason}"
    runs: list[list[Any]] = [["numpy", 1, sorting.SMALL_SORT]]
    for i, (lo, c) in enumerate(choices):
        hi = choices[i + 1][0] - 1 if i + 1 < len(choices) else 0
        if runs[-1][0] == c.path:
            runs[-1][2] = hi
        else:
            runs.append([c.path, lo, hi])
    shown = ", ".join(f"{p} {lo:,}-{hi:,}" if hi else f"{p} {lo:,}+" for p, lo, hi in runs)
    times = ", ".join(f"{c.n:,}: {c.numpy_s * 1e6:,.1f}/{c.radix_s * 1e6:,.1f}"
                      for _, c in timed)
    return f"{shown} keys (timed here, numpy/radix us per sort of n keys: {times})"


def _signatures() -> dict[Any, list[tuple[Any, ...]]]:
    _kernels()
    from ._kernels.jit import SIGNATURES

    return SIGNATURES


def show_config(file: TextIO | None = None) -> None:
    """Print the machine, numpy's SIMD dispatch, the sort chosen per score width,
    the threads, and the state of the kernel cache: what a bug report needs.

    Examples
    --------
    >>> import fastrank, io
    >>> out = io.StringIO()
    >>> fastrank.show_config(file=out)
    >>> "sort" in out.getvalue() and "threads" in out.getvalue()
    True
    """
    stream = file if file is not None else sys.stdout
    for key, value in config().items():
        if isinstance(value, dict):
            print(f"{key}:", file=stream)
            for k, v in value.items():
                shown = ", ".join(v) if isinstance(v, list) else v
                print(f"  {k}: {shown}", file=stream)
        else:
            print(f"{key}: {value}", file=stream)


def compile_kernels(progress: TextIO | Literal["stderr"] | None = "stderr",
                    jobs: int | None = None) -> int:
    """Compile every declared kernel variant now (those not cached yet), so that no
    later call waits for the compiler; returns the number of variants.

    ``jobs`` worker processes compile side by side (default: one per core this
    process may run on, at most ``DEFAULT_JOBS`` (8); ``jobs=1`` compiles here,
    in this process). Each kernel is compiled whole by one worker, the longest
    chain of kernels first, and a kernel that calls another is only handed out
    once that one is in the cache, so no two processes ever write one kernel's
    cache entries. This process then loads every variant from the cache (or
    compiles what a worker could not).

    Progress lines go to ``progress`` (``sys.stderr`` as it is at the call, by
    default; ``None`` for silence).
    The compiled code lands in Numba's cache folder (``NUMBA_CACHE_DIR``, or
    next to the package), where every later process finds it.

    Examples
    --------
    >>> import fastrank
    >>> count = fastrank.compile_kernels(progress=None)  # doctest: +SKIP
    """
    if isinstance(progress, str):
        progress = sys.stderr
    if jobs is None:  # past a few workers the longest kernel alone sets the time
        jobs = min(_cores(), DEFAULT_JOBS)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    return _compile(_signatures(), jobs, progress)


DEFAULT_JOBS = 8  # worker processes by default, at most (each holds a Numba of its own)
WORKER_SILENCE_S = 900.0  # no word from any worker for this long: they are stopped


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _compile(kernels: dict[Any, list[tuple[Any, ...]]], jobs: int,
             progress: TextIO | None) -> int:
    """Compile ``kernels`` (dispatcher -> signatures) on ``jobs`` processes."""
    total = sum(len(v) for v in kernels.values())
    done = 0
    reported: dict[Any, int] = dict.fromkeys(kernels, 0)
    t0 = time.perf_counter()

    def report(kernel: Any) -> None:
        nonlocal done
        done += 1
        reported[kernel] += 1
        if progress is not None:
            print(f"fastrank: compiled {done}/{total} kernel variants "
                  f"({kernel.__name__}) in {time.perf_counter() - t0:.1f} s",
                  file=progress, flush=True)

    if jobs > 1 and len(kernels) > 1:
        _compile_in_workers(kernels, jobs, report)
    for kernel, signatures in kernels.items():  # here: load what the workers cached
        for i, sig in enumerate(signatures):
            kernel.compile(sig)
            if i >= reported[kernel]:  # a worker did not get to it
                report(kernel)
    return total


def _callees(fn: Any, kernels: Any, seen: set[int] | None = None) -> set[Any]:
    """The kernels ``fn`` calls, directly or through helpers (read from the names
    its code uses: globals, and attributes of modules it uses)."""
    import types as pytypes

    from numba.core.dispatcher import Dispatcher

    seen = set() if seen is None else seen
    code_names: set[str] = set()
    stack = [fn.py_func.__code__]
    while stack:
        code = stack.pop()
        code_names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, pytypes.CodeType))
    found: set[Any] = set()
    scope = fn.py_func.__globals__
    objects = [scope[n] for n in code_names if n in scope]
    objects += [getattr(m, n) for m in list(objects) if isinstance(m, pytypes.ModuleType)
                for n in code_names if isinstance(getattr(m, n, None), Dispatcher)]
    for obj in objects:
        if isinstance(obj, Dispatcher) and id(obj) not in seen:
            seen.add(id(obj))
            if obj in kernels:
                found.add(obj)
            else:
                found |= _callees(obj, kernels, seen)
    return found


def _plan(kernels: dict[Any, list[tuple[Any, ...]]]) -> tuple[dict[Any, set[Any]], dict[Any, int]]:
    """For each kernel, the kernels it calls (to be in the cache before it is
    compiled: it would compile and cache them itself otherwise), and its rank:
    the source lines it compiles times its variants, plus the largest rank of
    the kernels that wait for it, so the longest chain starts first."""
    import inspect

    calls = {k: _callees(k, kernels) - {k} for k in kernels}
    waiting: dict[Any, set[Any]] = {k: set() for k in kernels}
    for k, cs in calls.items():
        for c in cs:
            waiting[c].add(k)
    rank: dict[Any, int] = {}

    def cost(k: Any) -> int:
        try:
            lines = len(inspect.getsource(k.py_func).splitlines())
        except (OSError, TypeError):  # pragma: no cover - no source
            lines = 1
        return lines * len(kernels[k])

    def rank_of(k: Any, path: tuple[Any, ...] = ()) -> int:
        if k not in rank:
            if k in path:
                raise RuntimeError(f"kernels call each other in a cycle: {k.__name__}")
            rank[k] = cost(k) + max((rank_of(w, (*path, k)) for w in waiting[k]), default=0)
        return rank[k]

    for k in kernels:
        rank_of(k)
    return calls, rank


def _compile_in_workers(kernels: dict[Any, list[tuple[Any, ...]]], jobs: int,
                        report: Any) -> None:
    """Hand ``kernels`` out to ``jobs`` worker processes, calling
    ``report(kernel)`` per variant compiled. A kernel goes out once every kernel
    it calls is done, highest rank first. A kernel whose worker fails is left
    to the caller, as is everything once no worker is left. Each worker's
    answers are read by a thread of this call (pipes cannot be polled on every
    platform); the threads end with the workers."""
    import queue
    import subprocess
    import threading

    import numba

    env = dict(os.environ)
    if numba.config.CACHE_DIR:  # type: ignore[attr-defined]
        env["NUMBA_CACHE_DIR"] = str(numba.config.CACHE_DIR)  # type: ignore[attr-defined]
    calls, rank = _plan(kernels)
    todo = sorted(kernels, key=lambda k: rank[k], reverse=True)
    command = [sys.executable, "-c", "from fastrank.config import _worker; _worker()"]
    workers = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
               for _ in range(min(jobs, len(kernels)))]
    answers: queue.Queue[tuple[Any, bytes | None]] = queue.Queue()

    def read(w: subprocess.Popen[bytes]) -> None:
        assert w.stdout is not None
        for line in w.stdout:
            answers.put((w, line.strip()))
        answers.put((w, None))  # it ended

    readers = [threading.Thread(target=read, args=(w,), daemon=True) for w in workers]
    for t in readers:
        t.start()
    finished: set[Any] = set()
    alive = set(workers)
    busy: dict[Any, Any] = {}
    try:
        while todo or busy:
            for w in [w for w in workers if w in alive and w not in busy]:
                ready = [k for k in todo if calls[k] <= finished]
                if not ready:
                    break
                busy[w] = k = ready[0]  # the highest rank among the ready
                todo.remove(k)
                assert w.stdin is not None
                try:
                    w.stdin.write(f"{k.py_func.__module__} {k.py_func.__qualname__}\n".encode())
                    w.stdin.flush()
                except OSError:  # it is gone; its reader says so
                    pass
            if not busy:  # no worker left, or nothing ready (a callee failed):
                return  # the caller compiles the rest
            try:
                w, answer = answers.get(timeout=WORKER_SILENCE_S)
            except queue.Empty:  # a worker hangs: stop them all, the caller does the rest
                for w in alive:
                    w.kill()
                return
            if answer == b"variant":
                report(busy[w])
            elif answer == b"done":
                finished.add(busy.pop(w))
            elif answer is None:  # it ended (its error is on stderr): its kernel is
                busy.pop(w, None)  # compiled by the caller
                alive.discard(w)
    finally:
        for w in workers:
            try:
                if w.stdin is not None:
                    w.stdin.close()
            except OSError:  # pragma: no cover
                pass
        for w in workers:
            try:
                w.wait(timeout=60)
            except subprocess.TimeoutExpired:  # pragma: no cover
                w.kill()
                w.wait()
        for t in readers:
            t.join(timeout=10)
        for w in workers:
            if w.stdout is not None:
                w.stdout.close()


def _worker() -> None:
    """A compile worker: reads ``module qualname`` lines, compiles that kernel's
    declared variants, and answers ``variant`` per variant and ``done`` after
    the last one."""
    import importlib

    from ._kernels.jit import SIGNATURES

    for line in sys.stdin:
        module, name = line.split()
        kernel = importlib.import_module(module)
        for part in name.split("."):
            kernel = getattr(kernel, part)
        for sig in SIGNATURES[kernel]:
            kernel.compile(sig)
            print("variant", flush=True)
        print("done", flush=True)
