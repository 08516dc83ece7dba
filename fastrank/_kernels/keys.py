"""Order-preserving unsigned keys for every score dtype.

A score array reaches the kernels as its raw bits (``uint32`` for float32,
``uint64`` for float64/int64/uint64) plus a *kind*. :func:`to_key` maps those
bits to an unsigned key whose integer order is the score order, so sorting and
grouping work on integers only and equal scores give equal keys. ``-0.0`` and
``+0.0`` are equal scores and get the same key. :func:`from_key` inverts it.

All arithmetic is done in ``uint64``; for 32-bit keys the caller passes 32-bit
``sign``/``ones`` constants and the result is stored into a ``uint32`` array.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

KIND_FLOAT = 0
KIND_SIGNED = 1
KIND_UNSIGNED = 2


@kernel
def to_key(u: np.uint64, kind: int, sign: np.uint64, ones: np.uint64) -> np.uint64:
    """Key of one score given its bits ``u`` (zero-extended to 64 bits)."""
    if kind == KIND_FLOAT:
        # Written as selects, not branches: the sign of a score is unpredictable.
        u = np.uint64(0) if u == sign else u  # -0.0 sorts and groups with +0.0
        flip = ones if (u & sign) != np.uint64(0) else sign  # negatives: reverse order
        return u ^ flip
    if kind == KIND_SIGNED:
        return u ^ sign
    return u


@kernel
def from_key(k: np.uint64, kind: int, sign: np.uint64, ones: np.uint64) -> np.uint64:
    """Bits of the score whose key is ``k`` (inverse of :func:`to_key`)."""
    if kind == KIND_FLOAT:
        if k & sign:
            return k ^ sign
        return k ^ ones
    if kind == KIND_SIGNED:
        return k ^ sign
    return k


@kernel
def decode_keys(keys: np.ndarray, kind: int, sign: np.uint64, ones: np.uint64) -> np.ndarray:
    """Score bits for an array of keys, in the keys' own width."""
    out = np.empty(keys.shape[0], keys.dtype)
    for i in range(keys.shape[0]):
        out[i] = from_key(np.uint64(keys[i]), kind, sign, ones)
    return out


@kernel
def first_nonfinite(bits: np.ndarray, exp_mask: np.uint64) -> int:
    """Index of the first NaN or infinite float (exponent all ones), or -1."""
    for i in range(bits.shape[0]):
        if (np.uint64(bits[i]) & exp_mask) == exp_mask:
            return i
    return -1


@kernel
def label_counts(y: np.ndarray, out: np.ndarray) -> tuple[int, int, int]:
    """Write ``y == 1`` to ``out`` (uint8) and count the values 1, 0 and -1."""
    n_one = 0
    n_zero = 0
    n_minus = 0
    for i in range(y.shape[0]):
        v = y[i]
        one = v == 1
        out[i] = one
        n_one += one
        n_zero += v == 0
        n_minus += v == -1
    return n_one, n_zero, n_minus
