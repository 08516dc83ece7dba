"""Per-thread scratch memory for the kernels, kept between calls.

A one-million-sample task needs about 18 MB of scratch. Allocating it fresh
on every call costs page faults (milliseconds, 15-20% of the call) whenever
the C allocator does not happen to hand back the same block, which it does
not when other large arrays come and go between calls. So each thread keeps
its largest scratch buffer, up to :data:`RETAIN_BYTES`; larger requests are
allocated per call and freed with it. Threads never share a buffer, and a
kernel never calls back into Python, so a buffer is never in use twice.
"""

from __future__ import annotations

import threading

import numpy as np

RETAIN_BYTES = 64 << 20  # largest buffer kept per thread between calls

_local = threading.local()


def scratch(nbytes: int) -> np.ndarray:
    """A uint8 buffer of at least ``nbytes`` bytes for this thread's next kernel call."""
    buf: np.ndarray | None = getattr(_local, "buf", None)
    if buf is not None and buf.shape[0] >= nbytes:
        return buf
    buf = np.empty(max(nbytes, 1 << 16), np.uint8)
    if buf.shape[0] <= RETAIN_BYTES:
        _local.buf = buf
    return buf


def release() -> None:
    """Drop this thread's kept buffer (its memory is freed once unused)."""
    _local.buf = None
