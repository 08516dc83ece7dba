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
        sort,
        sweep,
        tasks,
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


def _cached_variants(folder: str) -> int:
    """How many compiled kernel variants the cache folder holds (index files' entries)."""
    import pickle

    total = 0
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if not (name.endswith(".nbi") and name.split(".")[0] in _KERNEL_FILES):
                continue
            try:
                with open(os.path.join(dirpath, name), "rb") as fh:
                    pickle.load(fh)
                    _, overloads = pickle.loads(fh.read())
                total += len(overloads)
            except Exception:
                continue
    return total


_KERNEL_FILES = ("batch", "bootstrap", "histogram", "keys", "sort", "sweep", "tasks")


def config() -> dict[str, Any]:
    """What :func:`show_config` prints, as a dict."""
    import numba
    import numpy as np
    from numba.np.ufunc import parallel

    from . import __version__
    from ._core import engine

    started = bool(getattr(parallel, "_is_initialized", False))
    kernels = _kernels()
    declared = sum(len(sigs) for sigs in _signatures().values())
    folder = _cache_dir()
    sorts = {}
    for width, name in ((4, "float32 (and narrower)"), (8, "float64, int64, uint64")):
        choice = engine.sort_choice(width)
        sorts[name] = f"{choice.path}: {choice.reason}"
    return {
        "fastrank": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cores": os.cpu_count(),
        "numpy": np.__version__,
        "numpy SIMD": _simd(),
        "numba": numba.__version__,
        "threads": engine.threads(),
        "threads from": ("numba.get_num_threads() of this thread" if started
                         else "NUMBA_NUM_THREADS (Numba's threading layer is not started)"),
        "numba threading layer": (numba.threading_layer() if started  # type: ignore[attr-defined]
                                  else "not started (fastrank never starts it)"),
        "sort": sorts,
        "kernels": len(kernels),
        "declared variants": declared,
        "cache folder": folder,
        "cached variants": _cached_variants(folder),
    }


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


def compile_kernels(progress: TextIO | Literal["stderr"] | None = "stderr") -> int:
    """Compile every declared kernel variant now (those not cached yet), so that no
    later call waits for the compiler; returns the number of variants.

    Progress lines go to ``progress`` (``sys.stderr`` as it is at the call, by
    default; ``None`` for silence).
    The compiled code lands in Numba's cache folder (``NUMBA_CACHE_DIR``, or
    next to the package), where every later process finds it.
    """
    if isinstance(progress, str):
        progress = sys.stderr
    sigs = _signatures()
    total = sum(len(v) for v in sigs.values())
    done = 0
    t0 = time.perf_counter()
    for kernel, signatures in sigs.items():
        for sig in signatures:
            kernel.compile(sig)
            done += 1
            if progress is not None:
                print(f"fastrank: compiled {done}/{total} kernel variants "
                      f"({kernel.__name__}) in {time.perf_counter() - t0:.1f} s",
                      file=progress, flush=True)
    return done
