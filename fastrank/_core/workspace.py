"""Each thread's kept scratch memory: the buffers every call of a thread reuses.

Fresh memory costs page faults (a third of a one-task call at a million
samples), so each thread keeps its buffers between calls: fixed ones for the
sweep and the sort (:data:`buffers`) and byte buffers by slot
(:func:`scratch`), carved into typed arrays (:func:`carve`).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .._kernels.sort import HIST_SHAPE
from .._kernels.sweep import CHUNK, K_SIZE, S_SIZE
from .inputs import readonly


class Buffers(threading.local):
    def __init__(self) -> None:
        self.chunk = (np.empty(CHUNK, np.float64), np.empty(CHUNK, np.float64),
                      np.empty(CHUNK, np.uint64))
        self.hist = np.empty(HIST_SHAPE, np.int64)
        self.counts = np.empty(2, np.int64)
        self.state = (np.empty(S_SIZE, np.float64), np.empty(K_SIZE, np.uint64))
        self.slots: dict[str, np.ndarray] = {}


buffers = Buffers()
RETAIN_BYTES = 64 << 20  # the largest scratch buffer a thread keeps between calls


def scratch(slot: str, nbytes: int) -> np.ndarray:
    """A byte buffer of at least ``nbytes`` for this thread, kept between calls.

    Fresh memory costs page faults (a third of a one-task call at a million
    samples), so each thread keeps its buffer of each ``slot`` up to
    :data:`RETAIN_BYTES`. A slot is used by one step of a call at a time.
    """
    buf = buffers.slots.get(slot)
    if buf is not None and buf.shape[0] >= nbytes:
        return buf
    buf = np.empty(max(nbytes, 1 << 12), np.uint8)
    if nbytes <= RETAIN_BYTES:
        buffers.slots[slot] = buf
    return buf


def release_scratch() -> None:
    """Drop this thread's retained scratch buffers."""
    buffers.slots.clear()


def carve(buf: np.ndarray, at: int, n: int, dtype: Any) -> tuple[np.ndarray, int]:
    """``n`` items of ``dtype`` from byte buffer ``buf`` at ``at`` (64-byte aligned)."""
    size = n * np.dtype(dtype).itemsize
    return buf[at:at + size].view(dtype), at + (size + 63) // 64 * 64


EMPTY_F = readonly(np.empty(0, np.float64))
EMPTY_FW = np.empty(0, np.float64)
EMPTY_U = readonly(np.empty(0, np.uint64))
EMPTY_I = readonly(np.empty(0, np.int64))
EMPTY_IW = np.empty(0, np.int64)
EMPTY_UW = np.empty(0, np.uint64)
EMPTY_U8 = np.empty(0, np.uint8)  # an unused writable label output
