"""Order-preserving unsigned keys for every score dtype.

A score array reaches the kernels as its raw bits (``uint32`` for float32,
``uint64`` for float64/int64/uint64) plus a *kind*. :func:`to_key` maps those
bits to an unsigned key whose integer order is the score order, so sorting and
grouping work on integers only and equal scores give equal keys. ``-0.0`` and
``+0.0`` are equal scores and get the same key. :func:`from_key` inverts it
(``fastrank._core.engine`` does the same with numpy for whole arrays).

All arithmetic is done in ``uint64``; for 32-bit keys the caller passes 32-bit
``sign``/``ones`` constants and the result is stored into a ``uint32`` array.

Short text ids (a run's query and document ids) get keys too, in
:func:`fastrank._kernels.text.trec_arrays` (mode -6).
"""

from __future__ import annotations

import numpy as np

from .jit import helper

KIND_FLOAT = 0
KIND_SIGNED = 1
KIND_UNSIGNED = 2


@helper
def to_key(u, kind, sign, ones):
    """Key of one score given its bits ``u`` (zero-extended to 64 bits)."""
    if kind == KIND_FLOAT:
        # Written as selects, not branches: the sign of a score is unpredictable.
        u = np.uint64(0) if u == sign else u  # -0.0 sorts and groups with +0.0
        flip = ones if (u & sign) != np.uint64(0) else sign  # negatives: reverse order
        return u ^ flip
    if kind == KIND_SIGNED:
        return u ^ sign
    return u


@helper
def from_key(k, kind, sign, ones):
    """Bits of the score whose key is ``k`` (inverse of :func:`to_key`)."""
    if kind == KIND_FLOAT:
        if k & sign:
            return k ^ sign
        return k ^ ones
    if kind == KIND_SIGNED:
        return k ^ sign
    return k


__all__ = ["KIND_FLOAT", "KIND_SIGNED", "KIND_UNSIGNED", "from_key", "to_key"]
