"""Single-task entry kernels: validated arrays in, tie groups or metrics out.

Both entries take a byte buffer ``work`` of at least :func:`work_bytes`
bytes from the caller (the per-thread scratch of :mod:`fastrank._workspace`)
and carve their sort buffers out of it.
"""

from __future__ import annotations

import numpy as np

from .groups import (
    HASH_MAX_DISTINCT,
    HASH_MIN_SAMPLES,
    count_zeros,
    hash_groups,
    scan_groups,
    sorted_keys,
    split_payload,
)
from .jit import kernel
from .keys import from_key
from .sweep import SK_PRBE, SK_SIZE, ST_SIZE, sweep_finish, sweep_groups, sweep_start


def work_bytes(n: int, key_size: int, weighted: bool) -> int:
    """Size of the ``work`` buffer for a task of ``n`` samples."""
    return 2 * n * (key_size + (8 if weighted else 1))


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
def task_metrics(bits, kind, sign, ones, labels, npos, weights, max_fpr, what, work, out):
    """Group and sweep one task in a single compiled call.

    Writes the ``OUT_*`` results into ``out`` and returns the bits of the
    score of the group holding the precision-recall break-even point
    (meaningless without positives).
    """
    n = bits.shape[0]
    st = np.empty(ST_SIZE, np.float64)
    sk = np.empty(SK_SIZE, np.uint64)
    sweep_start(st, sk, max_fpr)
    if n >= HASH_MIN_SAMPLES:
        gkey = np.empty(HASH_MAX_DISTINCT, bits.dtype)
        gpos = count_zeros(HASH_MAX_DISTINCT, weights)
        gneg = count_zeros(HASH_MAX_DISTINCT, weights)
        d = hash_groups(bits, kind, sign, ones, labels, weights, gkey, gpos, gneg)
        if d >= 0:
            pos = 0.0
            neg = 0.0
            for g in range(d):
                pos += gpos[g]
                neg += gneg[g]
            sweep_groups((gkey, gpos, gneg), 0, d, pos, neg, max_fpr, what, st, sk)
            sweep_finish(st, sk, max_fpr, what, out)
            return from_key(sk[SK_PRBE], kind, sign, ones)
    keys, pay, m = sorted_keys(bits, kind, sign, ones, labels, weights, work)
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
def task_groups(bits, kind, sign, ones, labels, weights, work):
    """The whole tie-group table of one task: ``(keys, pos, neg)``, descending keys."""
    n = bits.shape[0]
    if n >= HASH_MIN_SAMPLES:
        gkey = np.empty(HASH_MAX_DISTINCT, bits.dtype)
        gpos = count_zeros(HASH_MAX_DISTINCT, weights)
        gneg = count_zeros(HASH_MAX_DISTINCT, weights)
        d = hash_groups(bits, kind, sign, ones, labels, weights, gkey, gpos, gneg)
        if d >= 0:
            return gkey[:d].copy(), gpos[:d].copy(), gneg[:d].copy()
    keys, pay, m = sorted_keys(bits, kind, sign, ones, labels, weights, work)
    gkey = np.empty(m, bits.dtype)
    gpos = count_zeros(m, weights)
    gneg = count_zeros(m, weights)
    g = scan_groups((keys, pay), m, 0, gkey, gpos, gneg)
    return gkey[:g].copy(), gpos[:g].copy(), gneg[:g].copy()
