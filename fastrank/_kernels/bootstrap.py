"""Bootstrap resamples of one task without re-sorting.

A resample only changes how many times each sample is counted, never the
order of the scores. So the scores are grouped once (:func:`group_ids`: each
sample's tie group, groups in descending score order), and each resample
counts its draws into the groups and sweeps that table
(:func:`resample_sweeps`): O(n) per resample instead of a sort. The sweep is
the one every metric uses, so a resample's metrics are those of the resampled
data itself.

Draws come from a counter-based generator (SplitMix64 streams, one per
resample, seeded by ``seed`` and the resample's number), so results do not
depend on the number of threads or on the order resamples run in.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .jit import kernel, parallel_kernel
from .keys import to_key
from .sort import sort_keys
from .sweep import OUT_SIZE, SK_SIZE, ST_SIZE, sweep_finish, sweep_groups, sweep_start

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@kernel
def _mix(z):
    """The SplitMix64 output function."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel
def _draw(state, m):
    """Advance a SplitMix64 stream; return (new state, uniform index below m)."""
    state = state + _GOLDEN
    u = float(_mix(state) >> np.uint64(11)) * _TO_UNIT  # in [0, 1), 53 random bits
    return state, min(int(u * m), m - 1)


@kernel
def group_ids(bits, kind, sign, ones, keys, kbuf, rows, rbuf, hist, gid, gkey):
    """Each sample's tie group (0 = highest score) into ``gid``; group keys into
    ``gkey``. Returns the number of groups."""
    n = bits.shape[0]
    any_bits = np.uint64(0)
    all_bits = ~np.uint64(0)
    for i in range(n):
        k = to_key(np.uint64(bits[i]), kind, sign, ones)
        keys[i] = k
        rows[i] = i
        any_bits |= k
        all_bits &= k
    sort_keys(keys, kbuf, rows, rbuf, any_bits ^ all_bits, hist)
    g = -1
    prev = np.uint64(0)
    for r in range(n - 1, -1, -1):
        k = np.uint64(keys[r])
        if g < 0 or k != prev:
            g += 1
            gkey[g] = keys[r]
            prev = k
        gid[rows[r]] = g
    return g + 1


@kernel
def _resample_worker(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights,
                     stratified, seed, first, what, worker, nworkers, out, proto):
    """Metrics (layout ``OUT_*``) of resamples ``first .. first + len(out)``.

    Stratified: each resample draws ``len(pos_gid)`` positives and
    ``len(neg_gid)`` negatives with replacement, given as their tie groups
    (``pos_w``/``neg_w`` their weights, or None). Otherwise it draws
    ``len(codes)`` samples from all, each coded ``group << 1 | label`` (with
    ``weights`` or None). ``proto`` is an array of the count type (int32
    unweighted, float64 weighted). Each of ``nworkers`` workers keeps one set of
    group counts and takes every ``nworkers``-th resample; this is worker
    ``worker``.
    """
    count = out.shape[0]
    m_pos = pos_gid.shape[0]
    m_neg = neg_gid.shape[0]
    n = codes.shape[0]
    gpos = np.zeros(ngroups, proto.dtype)
    gneg = np.zeros(ngroups, proto.dtype)
    ckey = np.empty(ngroups, gkey.dtype)
    st = np.empty(ST_SIZE, np.float64)
    sk = np.empty(SK_SIZE, np.uint64)
    for r in range(worker, count, nworkers):
        state = _mix(np.uint64(seed) + _GOLDEN * np.uint64(first + r + 1))
        if stratified:
            for _ in range(m_pos):
                state, k = _draw(state, m_pos)
                gpos[pos_gid[k]] += 1 if pos_w is None else pos_w[k]
            for _ in range(m_neg):
                state, k = _draw(state, m_neg)
                gneg[neg_gid[k]] += 1 if neg_w is None else neg_w[k]
        else:
            for _ in range(n):
                state, i = _draw(state, n)
                code = codes[i]
                w = 1 if weights is None else weights[i]
                if code & 1:
                    gpos[code >> 1] += w
                else:
                    gneg[code >> 1] += w
        # Keep the groups the resample holds (a sweep expects no empty
        # group) and clear the counts for the next resample.
        c = 0
        pos = 0.0
        neg = 0.0
        for g in range(ngroups):
            p = gpos[g]
            q = gneg[g]
            if p != 0 or q != 0:
                gpos[g] = 0
                gneg[g] = 0
                ckey[c] = gkey[g]
                gpos[c] = p
                gneg[c] = q
                pos += p
                neg += q
                c += 1
        sweep_start(st, sk, 1.0)
        sweep_groups((ckey, gpos, gneg), 0, c, pos, neg, 1.0, what, st, sk)
        sweep_finish(st, sk, 1.0, what, out[r])
        for g in range(c):
            gpos[g] = 0
            gneg[g] = 0


@parallel_kernel
def resample_sweeps(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights, stratified,
                    seed, first, what, nworkers, out, proto):
    """Resamples ``first .. first + len(out)`` on ``nworkers`` of Numba's threads."""
    for worker in prange(nworkers):
        _resample_worker(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights,
                         stratified, seed, first, what, worker, nworkers, out, proto)


@kernel
def resample_sweeps_serial(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights,
                           stratified, seed, first, what, nworkers, out, proto):
    """:func:`resample_sweeps` on the calling thread (a busy or forked pool)."""
    _resample_worker(gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights,
                     stratified, seed, first, what, 0, 1, out, proto)

__all__ = ["OUT_SIZE", "group_ids", "resample_sweeps", "resample_sweeps_serial"]
