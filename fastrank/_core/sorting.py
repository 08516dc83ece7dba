"""Which sort runs on this machine, and the sorts of one class's scores.

Which sort runs is decided per machine, once per process, by timing both on
the same keys (:func:`sort_choice`): numpy's SIMD sort where it is the faster
(most AVX2 and AVX-512 CPUs), fastrank's radix sort where numpy's is slow (AMD
Zen 4's AVX-512 path, numpy builds without SIMD dispatch). Small tasks inside a
batch are always sorted inside the kernel, where a call from Python per task
would cost more than the task; up to how many positives such a task counts its
negatives instead of sorting them is :func:`count_choice`, from the vector
width the kernels are compiled for.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import warnings
from typing import NamedTuple

import numba
import numpy as np

from .._kernels.sort import sort_pairs, sort_values
from .inputs import SPECS, Spec
from .workspace import buffers


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
    hist = buffers.hist

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


def sort_class(vals: np.ndarray, spec: Spec) -> None:
    """Sort one class's scores ascending in place, by the machine's faster sort."""
    n = vals.shape[0]
    if n < 2:
        return
    if n < CALIBRATE_N // 2 or sort_choice(vals.itemsize).path == "numpy":
        vals.sort()
    else:
        b = vals.view(spec.bits)
        sort_values(b, np.empty_like(b), spec.kind, spec.sign, spec.ones, buffers.hist)


def sort_weighted(vals: np.ndarray, w: np.ndarray, spec: Spec) -> None:
    """Sort scores with their weights, by fastrank's sort (numpy's cannot carry them)."""
    if vals.shape[0] < 2:
        return
    b = vals.view(spec.bits)
    sort_pairs(b, np.empty_like(b), w, np.empty_like(w), spec.kind, spec.sign, spec.ones,
               buffers.hist)
