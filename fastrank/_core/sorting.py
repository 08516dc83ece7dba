"""Which sort runs on this machine, and the sorts of one class's scores.

Which sort runs is decided per machine, once per process and size bucket, by
timing both on the same keys (:func:`sort_choice`): numpy's SIMD sort where it
is the faster (most AVX2 CPUs, and small arrays), fastrank's radix sort where
numpy's is slow (AMD Zen 4's AVX-512 path past about 1,000 keys, numpy builds
without SIMD dispatch). Small tasks inside a batch are always sorted inside the
kernel, where a call from Python per task would cost more than the task, and
larger ones too where the radix sort wins at their size; up to how many
positives such a task counts its negatives instead of sorting them is
:func:`count_choice`, from the vector width the kernels are compiled for.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np

from .._kernels.sort import sort_pairs, sort_values
from .inputs import SPECS, Spec
from .workspace import buffers, scratch


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


# ------------------------------------------------------------------ settings


def _raw_reader(name: str) -> Callable[[], Any]:
    """A reader of environment variable ``name`` as the process holds it: a lookup
    in ``os.environ``'s own store (what ``os.environ[name] = ...``, ``del`` and
    pytest's ``monkeypatch`` change) where the platform keeps one, the public
    lookup otherwise."""
    data = getattr(os.environ, "_data", None)
    encode = getattr(os.environ, "encodekey", None)
    if isinstance(data, dict) and callable(encode):
        key = encode(name)
        return lambda: data.get(key)
    return lambda: os.environ.get(name)


_settings: dict[str, tuple[Callable[[], Any], Any, str]] = {}


def env_setting(name: str) -> str:
    """A ``FASTRANK_*`` environment variable, stripped and lower-cased ("" when unset).

    Read once, and again only when the variable's raw value changes: each call
    compares that value with the one last read (a dictionary lookup, where
    ``os.environ.get`` costs a few hundred nanoseconds, twice in every
    one-task call).
    """
    got = _settings.get(name)
    if got is None:
        got = _settings[name] = (_raw_reader(name), object(), "")
    read, raw, value = got
    now = read()
    if now is not raw and now != raw:
        text = os.fsdecode(now) if isinstance(now, bytes) else (now or "")
        value = text.strip().lower()
        _settings[name] = (read, now, value)
    return value


# ------------------------------------------------------------------ sorting


class SortChoice(NamedTuple):
    path: str  # "numpy" or "radix"
    reason: str
    n: int = 0  # timed on this many keys (0: not timed)
    numpy_s: float = 0.0  # the best time of each sort, seconds
    radix_s: float = 0.0


_choices: dict[tuple[int, int], SortChoice] = {}
_choice_lock = threading.Lock()
CALIBRATE_N = 1 << 17
# Arrays of up to SMALL_SORT keys are sorted by numpy's sort without a choice: both
# sorts take well under a microsecond there, and a kernel call costs about as much.
SMALL_SORT = 32
# Sizes are put in buckets of a power of two: bucket ``b`` holds the sizes of bit
# length ``b`` (``2**(b - 1) .. 2**b - 1``), each timed on its own (the two sorts'
# costs per key cross over with the size: numpy's AVX-512 sort on AMD Zen 4 is the
# faster below about 1,500 float32 keys and 2.5x slower at 100,000, while fastrank's
# radix sort passes over the keys a fixed number of times). Buckets from
# LARGE_BUCKET up share the one timing on CALIBRATE_N keys.
LARGE_BUCKET = (CALIBRATE_N // 2).bit_length()


def size_bucket(n: int) -> int:
    """The bucket of sizes ``n`` belongs to (see :data:`LARGE_BUCKET`)."""
    return min(int(n).bit_length(), LARGE_BUCKET)


def sort_choice(width: int, n: int = CALIBRATE_N, compile: bool = True) -> SortChoice:
    """Which sort arrays of ``n`` ``width``-byte scores get on this machine.

    ``FASTRANK_SORT=numpy|radix`` forces one; otherwise both are timed on the
    same random keys once per process and size bucket (:func:`size_bucket`,
    at the bucket's middle size; the first time a size of the bucket is
    sorted), and the faster wins. Without ``compile``, a size below the large
    bucket is not timed while the radix sort is neither compiled in this
    process nor in the kernel cache (:func:`_radix_ready`): numpy's sort then,
    as before sizes were timed, since compiling the radix sort (1-3 s) for a
    small task would cost more than the sort's difference could save.
    """
    forced = env_setting("FASTRANK_SORT")
    if forced in ("numpy", "radix"):
        return SortChoice(forced, "set by FASTRANK_SORT")
    key = (width, size_bucket(n))
    got = _choices.get(key)
    if got is not None:
        return got
    if not compile and key[1] < LARGE_BUCKET and not _radix_ready(width):
        return _NOT_READY
    with _choice_lock:
        if key not in _choices:
            _choices[key] = _calibrate(width, key[1])
        return _choices[key]


_NOT_READY = SortChoice("numpy", "the radix sort is not compiled yet")
_ready: set[int] = set()
_index_read: set[int] = set()


def _radix_ready(width: int) -> bool:
    """Whether the radix sort of ``width``-byte keys can be timed without compiling
    it: compiled in this process, or held by the kernel cache for this machine
    (its index read once per process)."""
    if width in _ready:
        return True
    bits = 8 * width
    kernel: Any = sort_values
    try:
        sigs = list(kernel.overloads)
        if width not in _index_read and not any(x[0].dtype.bitwidth == bits for x in sigs):
            _index_read.add(width)
            magic = kernel.targetctx.codegen().magic_tuple()
            sigs = [k[0] for k in kernel._cache._cache_file._load_index() if k[1] == magic]
        ok = any(x[0].dtype.bitwidth == bits for x in sigs)
    except Exception:  # a replaced sort, an unreadable cache: not ready
        ok = False
    if ok:
        _ready.add(width)
    return ok


_cached_sigs: dict[int, set[tuple[Any, ...]]] = {}


def compiled_or_cached(kernel: Any, signature: tuple[Any, ...]) -> bool:
    """Whether ``kernel`` runs for the argument types ``signature`` without compiling:
    compiled in this process, or held by the kernel cache for this machine (its
    index read once per process and kernel)."""
    if signature in kernel.overloads:
        return True
    sigs = _cached_sigs.get(id(kernel))
    if sigs is None:
        try:
            magic = kernel.targetctx.codegen().magic_tuple()
            sigs = {tuple(k[0]) for k in kernel._cache._cache_file._load_index()
                    if k[1] == magic}
        except Exception:  # no cache, an unreadable index: not cached
            sigs = set()
        _cached_sigs[id(kernel)] = sigs
    return signature in sigs


def sort_choices(width: int) -> list[tuple[int, SortChoice]]:
    """Every size bucket's choice for ``width``-byte scores (each timed now if it was
    not yet): ``(smallest size, choice)`` pairs, the buckets from :data:`SMALL_SORT`
    up, the last for every larger size."""
    first = (SMALL_SORT + 1).bit_length()
    sort_choice(width)  # the large bucket first: compiles the radix sort, as ever
    return [(1 << (b - 1), sort_choice(width, 1 << (b - 1)))
            for b in range(first, LARGE_BUCKET + 1)]


_sort_failed: list[bool] = []


def _calibrate(width: int, bucket: int) -> SortChoice:
    # the bucket's middle size (3 * 2**(b - 2)); CALIBRATE_N for the large ones
    n = CALIBRATE_N if bucket >= LARGE_BUCKET else 3 << (bucket - 2)
    rng = np.random.default_rng(12345)
    dtype = np.float32 if width == 4 else np.float64
    keys = rng.standard_normal(n).astype(dtype)
    spec = SPECS[np.dtype(dtype)]
    buf = np.empty(n, spec.bits)
    work = np.empty_like(keys)
    bits = work.view(spec.bits)
    hist = buffers.hist

    def numpy_sort() -> None:
        work[:] = keys
        work.sort()

    def radix_sort() -> None:
        work[:] = keys
        sort_values(bits, buf, spec.kind, spec.sign, spec.ones, hist)

    try:
        radix_sort()  # compile or load it
    except Exception as exc:  # a compiler or machine problem: numpy's sort still works
        if not _sort_failed:
            _sort_failed.append(True)  # said once per process, whatever the width
            warnings.warn(f"fastrank: its radix sort failed on this machine ({type(exc).__name__}: "
                          f"{exc}); numpy's sort is used instead", RuntimeWarning, stacklevel=2)
        return SortChoice("numpy", f"radix sort failed ({type(exc).__name__}); numpy's sort")
    # Each timing covers at least ~2**15 keys' worth of sorting (a few dozen
    # microseconds), alternating the two sorts so that a busy machine hits both.
    inner = max(1, (1 << 15) // n)
    best = {"numpy": np.inf, "radix": np.inf}
    for _ in range(5):
        for name, fn in (("numpy", numpy_sort), ("radix", radix_sort)):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / inner)
    winner = "numpy" if best["numpy"] <= best["radix"] else "radix"
    return SortChoice(winner, f"timed on {n:,} {np.dtype(dtype).name} keys: numpy "
                              f"{best['numpy'] * 1e6:,.1f} us, radix {best['radix'] * 1e6:,.1f} us",
                      n, best["numpy"], best["radix"])


def sort_class(vals: np.ndarray, spec: Spec) -> None:
    """Sort one class's scores ascending in place, by the faster sort for its size."""
    n = vals.shape[0]
    if n < 2:
        return
    if n <= SMALL_SORT or sort_choice(vals.itemsize, n, compile=False).path == "numpy":
        vals.sort()
    else:
        b = vals.view(spec.bits)
        buf = scratch("sort", n * vals.itemsize)[:n * vals.itemsize].view(spec.bits)
        sort_values(b, buf, spec.kind, spec.sign, spec.ones, buffers.hist)


def sorted_keys(keys: np.ndarray) -> np.ndarray:
    """A sorted copy of int64 or uint64 keys, by the sort timed faster for 8-byte keys
    of their size on this machine (:func:`sort_choice`); numpy's while the radix
    sort is neither compiled nor cached, so that no call compiles it for this. On
    an AMD Zen 4 (numpy's AVX-512 sort), 2.2 M int64 keys of 35 bits: 24-33 ms
    against numpy's 128-131 ms; where numpy's AVX2 sort runs it is chosen (25-32
    ms; the radix sort about the same)."""
    out = np.array(keys, copy=True)
    n = out.shape[0]
    if n > SMALL_SORT and out.dtype in (np.int64, np.uint64) and _radix_ready(8) and \
            sort_choice(8, n, compile=False).path == "radix":
        spec = SPECS[out.dtype]
        bits = out.view(np.uint64)
        sort_values(bits, np.empty_like(bits), spec.kind, spec.sign, spec.ones, buffers.hist)
    else:
        out.sort()
    return out


def sort_weighted(vals: np.ndarray, w: np.ndarray, spec: Spec) -> None:
    """Sort scores with their weights, by fastrank's sort (numpy's cannot carry them)."""
    if vals.shape[0] < 2:
        return
    b = vals.view(spec.bits)
    sort_pairs(b, np.empty_like(b), w, np.empty_like(w), spec.kind, spec.sign, spec.ones,
               buffers.hist)
