"""Single-task entry kernels: validated arrays in, tie groups or metrics out.

Both entries take a byte buffer ``work`` of at least :func:`work_bytes`
bytes from the caller (the per-thread scratch of :mod:`fastrank._workspace`,
or one worker's slice of it in :mod:`.batch`) and carve every array they use
out of it, so :func:`task_core` allocates nothing. Layout of ``work``:

* ``[0, FIXED_BYTES)``: the radix histogram and the sweep state;
* from ``FIXED_BYTES``: either the counting table of :func:`.groups.hash_groups`
  or the sort buffers of :func:`.groups.sorted_keys` (never both at once).
"""

from __future__ import annotations

import numpy as np

from .groups import (
    HASH_BYTES,
    HASH_MIN_SAMPLES,
    align,
    count_zeros,
    hash_groups,
    scan_groups,
    sort_bytes,
    sorted_keys,
    split_payload,
)
from .jit import kernel
from .keys import from_key
from .sort import HIST_SHAPE
from .sweep import SK_PRBE, SK_SIZE, ST_SIZE, sweep_finish, sweep_groups, sweep_start

_HIST_BYTES = HIST_SHAPE[0] * HIST_SHAPE[1] * 8
_ST_AT = _HIST_BYTES
_SK_AT = _ST_AT + 8 * ST_SIZE
FIXED_BYTES = align(_SK_AT + 8 * SK_SIZE)


def work_bytes(n: int, key_size: int, weighted: bool) -> int:
    """Size of the ``work`` buffer for a task of ``n`` samples."""
    grouping = sort_bytes(n, key_size, weighted)
    if n >= HASH_MIN_SAMPLES:
        grouping = max(grouping, HASH_BYTES)
    return FIXED_BYTES + grouping


@kernel
def _hist(work):
    return work[:_HIST_BYTES].view(np.int64).reshape(HIST_SHAPE)


@kernel
def _totals(pay, m):
    pos = 0.0
    neg = 0.0
    for i in range(m):
        p, q = split_payload(pay[i])
        pos += p
        neg += q
    return pos, neg


@kernel
def task_core(bits, kind, sign, ones, labels, npos, weights, max_fpr, what, work, out):
    """Group and sweep one task; allocates nothing.

    Writes the ``OUT_*`` results into ``out`` and returns the bits of the
    score of the group holding the precision-recall break-even point
    (meaningless without positives).
    """
    n = bits.shape[0]
    hist = _hist(work)
    st = work[_ST_AT : _ST_AT + 8 * ST_SIZE].view(np.float64)
    sk = work[_SK_AT : _SK_AT + 8 * SK_SIZE].view(np.uint64)
    sweep_start(st, sk, max_fpr)
    if n >= HASH_MIN_SAMPLES:
        d, gkey, gpos, gneg = hash_groups(
            bits, kind, sign, ones, labels, weights, work, FIXED_BYTES, hist
        )
        if d >= 0:
            pos = 0.0
            neg = 0.0
            for g in range(d):
                pos += gpos[g]
                neg += gneg[g]
            sweep_groups((gkey, gpos, gneg), 0, d, pos, neg, max_fpr, what, st, sk)
            sweep_finish(st, sk, max_fpr, what, out)
            return from_key(sk[SK_PRBE], kind, sign, ones)
    keys, pay, m = sorted_keys(bits, kind, sign, ones, labels, weights, work, FIXED_BYTES, hist)
    if weights is None:
        pos = float(npos)
        neg = float(n - npos)
    else:
        pos, neg = _totals(pay, m)
    # The sorted keys are the group table: the sweep reads groups off them.
    sweep_groups((keys, pay), m, 0, pos, neg, max_fpr, what, st, sk)
    sweep_finish(st, sk, max_fpr, what, out)
    return from_key(sk[SK_PRBE], kind, sign, ones)


@kernel
def task_metrics(bits, kind, sign, ones, labels, npos, weights, max_fpr, what, work, out):
    """:func:`task_core` as called from Python for one task."""
    return task_core(bits, kind, sign, ones, labels, npos, weights, max_fpr, what, work, out)


@kernel
def task_groups(bits, kind, sign, ones, labels, weights, work):
    """The whole tie-group table of one task: ``(keys, pos, neg)``, descending keys."""
    n = bits.shape[0]
    hist = _hist(work)
    if n >= HASH_MIN_SAMPLES:
        d, gkey, gpos, gneg = hash_groups(
            bits, kind, sign, ones, labels, weights, work, FIXED_BYTES, hist
        )
        if d >= 0:
            return gkey[:d].copy(), gpos[:d].copy(), gneg[:d].copy()
    keys, pay, m = sorted_keys(bits, kind, sign, ones, labels, weights, work, FIXED_BYTES, hist)
    gkey = np.empty(m, bits.dtype)
    gpos = count_zeros(m, weights)
    gneg = count_zeros(m, weights)
    g = scan_groups((keys, pay), m, 0, gkey, gpos, gneg)
    return gkey[:g].copy(), gpos[:g].copy(), gneg[:g].copy()
