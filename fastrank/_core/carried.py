"""The stand-ins' seconds carried from process to process (see :mod:`.first_calls`).

A stand-in runs while its kernel is neither compiled nor cached; counted per
process only, a script run over and over would never compile the kernel and
would pay the stand-in's price on every run. So each process adds what its
stand-ins cost beyond the cached kernels' own start (:data:`LOAD`) to a small
JSON record in the kernel cache's folder, ``{stand-in: seconds}``, and the
stand-ins' budgets count what earlier processes spent too.

The record only ever advises: one that is missing, unreadable, not a regular
file, too large or not a mapping of seconds holds nothing, and a folder that
cannot be written keeps none (the budgets then count per process).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from contextlib import suppress
from typing import Any

# Seconds a fresh process's first call pays to load cached kernels (Numba's start of
# compiled code and the loading itself: a first roc_auc of 5,000 scores 0.49-0.59 s
# with every kernel cached, 0.19-0.21 s by the stand-ins, import apart; AMD Zen 5).
# A stand-in's seconds in a process count in the record only beyond this: a script
# whose few small calls the stand-ins make faster than the cached kernels would is
# better off never compiling them.
LOAD = 0.3
VERSION = 1  # of the record's layout, part of its name
MAX_BYTES = 1 << 16  # a larger record is not one of these


def path() -> str | None:
    """The record for this machine and these kernel sources (None where the kernels
    have no cache): ``fastrank-first-calls-<digest>.json`` in the kernel cache's
    folder, one per fastrank and Numba version, kernel sources and CPU, as Numba
    keys its own entries, so that an upgrade or an edited kernel starts afresh."""
    from .._kernels.sweep import sweep_one

    kernel: Any = sweep_one
    try:
        folder = os.path.abspath(kernel._cache._cache_path)
        sources = os.path.dirname(os.path.abspath(kernel.py_func.__code__.co_filename))
        stamps = sorted((entry.name, entry.stat().st_mtime_ns, entry.stat().st_size)
                        for entry in os.scandir(sources) if entry.name.endswith(".py"))
        magic = kernel.targetctx.codegen().magic_tuple()
    except Exception:  # no cache for these kernels (NUMBA_DISABLE_JIT, say)
        return None
    from numba import __version__ as numba_version

    from .. import __version__
    key = repr((VERSION, __version__, numba_version, magic, stamps))
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return os.path.join(folder, f"fastrank-first-calls-{digest}.json")


def read(where: str) -> dict[str, float]:
    """The seconds by stand-in that record ``where`` holds ({} where it holds none:
    see the module's notes). Never waits on a pipe nor reads an endless file."""
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return {}
        data = json.loads(os.read(fd, MAX_BYTES + 1).decode("ascii"))
        return {str(k): float(v) for k, v in data.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v) and v > 0.0}
    except Exception:  # not JSON, not a mapping of numbers
        return {}
    finally:
        os.close(fd)


def add(where: str, spent: dict[str, float]) -> None:
    """Add ``spent`` (seconds by stand-in) to record ``where``: read again, added to,
    written whole to a file of its own and renamed into place, under a lock on
    ``<record>.lock`` where the system has ``fcntl`` (elsewhere processes ending at
    the same moment may lose each other's seconds, which only delays a compile)."""
    folder = os.path.dirname(where)
    with suppress(OSError):
        os.makedirs(folder, exist_ok=True)
        with _locked(where + ".lock"):
            total = read(where)
            for name, seconds in spent.items():
                total[name] = total.get(name, 0.0) + seconds
            part = os.path.join(folder, f".fastrank-first-calls-{os.getpid()}-"
                                        f"{os.urandom(4).hex()}")
            try:  # (created as Numba's cache files are: readable by all the umask lets)
                fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                with os.fdopen(fd, "w", encoding="ascii") as f:
                    json.dump(total, f)
                os.replace(part, where)
            finally:
                with suppress(OSError):
                    os.unlink(part)  # (gone once renamed)


class _locked:
    """An exclusive lock on file ``name`` for the block, where ``fcntl`` exists."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fd = -1

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # (Windows: no lock)
            return
        self.fd = os.open(self.name, os.O_WRONLY | os.O_CREAT, 0o666)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # (closing lets go of the lock)
