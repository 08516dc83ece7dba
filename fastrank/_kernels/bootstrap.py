"""Bootstrap resamples of one task without re-sorting.

A resample only changes how many times each sample is counted, never the
order of the scores. So the scores are grouped once (each sample's tie
group, groups in descending score order: the engine's ``group_index``), and
each resample counts its draws into the groups and sweeps that table
(:func:`resample_sweeps`): O(n) per resample instead of a sort. The sweep is
the one every metric uses, so a resample's metrics are those of the
resampled data itself.

Draws come from a counter-based generator (SplitMix64 streams, one per
resample, seeded by ``seed`` and the resample's number), so results do not
depend on the number of threads or on the order resamples run in.
"""

from __future__ import annotations

import numpy as np

from .jit import b1, f64, helper, i64, kernel, ro, rw, u64
from .sweep import (
    K_FP,
    K_SIZE,
    K_TP,
    S_E_FP,
    S_E_TP,
    S_SHIFT,
    S_SIZE,
    finish,
    fx_value,
    init_state,
    sweep_table,
)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@helper
def splitmix(z):
    """The SplitMix64 output function."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@helper
def _draw(state, m):
    """Advance a SplitMix64 stream; return (new state, uniform index below m)."""
    state = state + GOLDEN
    u = float(splitmix(state) >> np.uint64(11)) * TO_UNIT  # in [0, 1), 53 random bits
    return state, min(int(u * m), m - 1)


_RESAMPLE = [(ro(u64), i64, ro(i64), ro(i64), ro(f64), ro(f64), ro(i64), ro(f64), b1, b1, u64,
              i64, i64, i64, f64, f64, i64, rw(f64, 2))]


@kernel(_RESAMPLE)
def resample_sweeps(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights, weighted,
                    stratified, seed, first, what, count, pos_bound, neg_bound, shift, out):
    """Metrics (layout ``OUT_*``) of resamples ``first .. first + count`` into ``out``.

    Stratified: each resample draws ``len(pos_gid)`` positives and
    ``len(neg_gid)`` negatives with replacement, given as their tie groups
    (``pos_w``/``neg_w`` their weights when ``weighted``). Otherwise it draws
    ``len(codes)`` samples from all, each coded ``group << 1 | label`` (with
    ``weights``). Weighted resamples keep exact running totals in the units
    ``pos_bound``/``neg_bound`` imply: the largest total a resample's class
    can reach (its largest weight times the number of draws); ``shift`` is the
    task's (the negatives' unit over the positives', as a power of two).
    """
    m_pos = pos_gid.shape[0]
    m_neg = neg_gid.shape[0]
    n = codes.shape[0]
    gpos = np.zeros(ngroups, np.float64)
    gneg = np.zeros(ngroups, np.float64)
    ckey = np.empty(max(ngroups, 1), np.uint64)
    cpos = np.empty(max(ngroups, 1), np.float64)
    cneg = np.empty(max(ngroups, 1), np.float64)
    st = np.empty(S_SIZE, np.float64)
    sk = np.empty(K_SIZE, np.uint64)
    for r in range(count):
        state = splitmix(seed + GOLDEN * np.uint64(first + r + 1))
        if stratified:
            for _ in range(m_pos):
                state, k = _draw(state, m_pos)
                gpos[pos_gid[k]] += pos_w[k] if weighted else 1.0
            for _ in range(m_neg):
                state, k = _draw(state, m_neg)
                gneg[neg_gid[k]] += neg_w[k] if weighted else 1.0
        else:
            for _ in range(n):
                state, i = _draw(state, n)
                code = codes[i]
                w = weights[i] if weighted else 1.0
                if code & 1:
                    gpos[code >> 1] += w
                else:
                    gneg[code >> 1] += w
        # Keep the groups the resample holds (a sweep expects no empty group)
        # and clear the counts for the next resample.
        c = np.int64(0)  # not a literal: a literal count compiles sweep_table again
        pos = 0.0
        neg = 0.0
        for g in range(ngroups):
            p = gpos[g]
            q = gneg[g]
            if p != 0.0 or q != 0.0:
                ckey[c] = gkey[g]
                cpos[c] = p
                cneg[c] = q
                pos += p
                neg += q
                c += 1
                gpos[g] = 0.0
                gneg[g] = 0.0
        if weighted:  # a first pass for the exact totals
            init_state(st, sk, 1.0, 1.0, 1.0, 0, True, pos_bound, neg_bound)
            st[S_SHIFT] = shift
            sweep_table(cpos, cneg, ckey, c, st, sk)
            pos = fx_value(sk[K_TP], sk[K_TP + 1], st[S_E_TP])
            neg = fx_value(sk[K_FP], sk[K_FP + 1], st[S_E_FP])
        init_state(st, sk, pos, neg, 1.0, what, weighted, pos_bound, neg_bound)
        st[S_SHIFT] = shift
        sweep_table(cpos, cneg, ckey, c, st, sk)
        finish(st, sk, out[r])


__all__ = ["resample_sweeps"]
