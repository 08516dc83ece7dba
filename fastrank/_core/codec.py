"""Order keys and score bits: canonical scores as uint64 keys and back.

The kernels compare scores as order-preserving uint64 keys
(:mod:`fastrank._kernels.keys`); here the same with numpy for whole arrays,
the decoding of score bits back to the caller's values, and short text ids
packed into keys.
"""

from __future__ import annotations

import itertools
import struct
from typing import Any

import numpy as np

from .._kernels.jit import SIGNATURES
from .._kernels.text import trec_arrays
from . import sorting, workers
from .inputs import SPECS, Spec, readonly


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


_NO_REALS = readonly(np.empty(0, np.float64))
_NO_OUT = np.empty(0, np.float64)


def text_keys(ids: np.ndarray, out: np.ndarray | None = None) -> np.ndarray | None:
    """Text ids (a 1-D ``str`` array) as uint64 keys equal and ordered as the ids
    are (:func:`~fastrank._kernels.text.trec_arrays` mode -6), written to ``out`` when given,
    or None when one is longer than 8 characters or holds one from 256 on; split
    across the threads."""
    n = ids.shape[0]
    width = ids.dtype.itemsize // 4
    out = np.empty(n, np.uint64) if out is None else out
    if width == 0:
        out[:] = 0
        return out
    native = np.ascontiguousarray(ids, dtype=ids.dtype.newbyteorder("="))
    from . import first_calls  # (which imports the engine's modules, and they this one)

    if not arrays_ready() and first_calls.within_budget("keys"):
        with first_calls.spending("keys"):
            return _numpy_text_keys(native.view(np.uint32).reshape(n, width), out)
    points = readonly(native.view(np.uint8).reshape(-1))
    words = out.view(np.int64)
    nthreads = workers.threads() if n * width >= workers.PARALLEL_MIN else 1
    cuts = np.linspace(0, n, 2 * nthreads + 1).astype(np.int64).tolist()
    spans = list(itertools.pairwise(cuts))
    misfit = workers.parallel_map(lambda span: int(trec_arrays(
        -6, points, readonly(np.array([width, span[0], span[1]], np.int64)), _NO_REALS, words,
        _NO_OUT)), spans, nthreads)
    return None if max(misfit) >= 0 else out


def arrays_ready() -> bool:
    """Whether the array passes' kernel (:func:`~fastrank._kernels.text.trec_arrays`)
    runs without compiling: compiled in this process, or cached."""
    return sorting.compiled_or_cached(trec_arrays, tuple(SIGNATURES[trec_arrays][0]))


def _numpy_text_keys(points: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    """:func:`text_keys` by numpy from each id's code points (a row each), while the
    kernel is not compiled: the same keys, or None where an id does not fit."""
    head = min(points.shape[1], 8)
    if points.shape[1] > 8 and bool(points[:, 8:].any()):
        return None
    if int(points[:, :head].max(initial=0)) > 255:
        return None
    out[:] = 0
    for c in range(head):
        out <<= np.uint64(8)
        out |= points[:, c]
    out <<= np.uint64(8 * (8 - head))
    return out
