"""Tie tables: a task's tie groups, highest score first, and each sample's group.

A task's table (score bits, positive and negative totals per group) is
counted by hashing when its scores take few values, and otherwise built by the
sweep from its classes sorted (score ranges in parallel). The runs table keeps
each run of negative-only groups as one entry (readouts need no more).
:func:`group_index` names each sample's group (bootstrap, DeLong placements).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._kernels.sort import sort_pairs
from .._kernels.sweep import (
    MODE_CUMULATIVE,
    MODE_RUNS,
    MODE_RUNS_REST,
    MODE_TABLE,
    new_state,
    range_state,
    sweep_split,
)
from .._kernels.tasks import (
    HASH_MAX_DISTINCT,
    HASH_SLOTS,
    MAX_PIVOTS,
    count_ties,
    placements,
    tie_groups,
)
from . import first_calls, workers
from .by_class import NonFinite, raise_nonfinite, sort_classes, split_classes
from .codec import bits_of_keys, keys_of
from .inputs import Task, lost_weight_error, readonly
from .score_ranges import RANGES_PER_THREAD, base_state, range_parts
from .workspace import EMPTY_F, EMPTY_FW, buffers, carve, scratch

HASH_MIN = 1 << 15  # tasks from this size on try counting their ties first


RUNS_ROOM = 16  # a task's table may hold this many entries more than its samples (MODE_RUNS)


def count_table(t: Task, nthreads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The tie table of an unweighted task whose scores take few values, or None."""
    values = t.values
    n = values.shape[0]
    spec = t.spec
    bits = readonly(values.view(spec.bits))
    labels = readonly(t.labels)
    bounds = np.linspace(0, n, max(1, nthreads) + 1).astype(np.int64)

    def count(k: int) -> tuple[Any, ...] | None:
        tkey = np.empty(HASH_SLOTS, np.uint64)
        tpos = np.zeros(HASH_SLOTS, np.float64)
        tneg = np.zeros(HASH_SLOTS, np.float64)
        used = np.zeros(HASH_SLOTS, np.uint8)
        d = count_ties(bits, spec.kind, spec.sign, spec.ones, labels, int(bounds[k]),
                       int(bounds[k + 1]), tkey, tpos, tneg, used)
        if d < 0:
            return None
        keep = used.view(bool)
        return tkey[keep], tpos[keep], tneg[keep]

    parts = workers.parallel_map(count, list(range(bounds.shape[0] - 1)), nthreads)
    if any(p is None for p in parts):
        return None
    keys = np.concatenate([p[0] for p in parts])
    pos = np.concatenate([p[1] for p in parts])
    neg = np.concatenate([p[2] for p in parts])
    uniq, inv = np.unique(keys, return_inverse=True)
    if uniq.shape[0] > HASH_MAX_DISTINCT:
        return None
    gpos = np.bincount(inv, weights=pos, minlength=uniq.shape[0])[::-1].copy()
    gneg = np.bincount(inv, weights=neg, minlength=uniq.shape[0])[::-1].copy()
    gkey = bits_of_keys(uniq[::-1], spec)
    if spec.kind == 0 and ((gkey & spec.exp) == spec.exp).any():
        raise NonFinite
    return gkey, gpos, gneg


def task_table(t: Task, runs: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task's tie groups, highest score first: score bits (uint64), positive and
    negative totals (float64, kernel units; weighted sums exact, then rounded).

    With ``runs``, an unweighted task whose positives are the fewer may have each
    run of negative-only groups below the first group as one entry (keyed by its
    lowest score; :data:`~fastrank._kernels.sweep.MODE_RUNS`): the cumulative
    counts at every other entry are the full table's, and so is every readout
    whose best cutoff ends a group with positives or is the first.

    A task with a weight its units lose (:func:`~.inputs.lost_weights`) is refused:
    a table's totals read at each threshold would count it as 0.
    """
    if t.lost:
        raise lost_weight_error(t.lost)
    n = t.values.shape[0]
    # A first call: nothing to compile (with runs, only below HASH_MIN, where the runs
    # table is what the kernel gives; from there counted ties may give every group).
    if (not runs or n < HASH_MIN) and first_calls.table_by_numpy(t):
        try:
            return first_calls.tie_table(t, runs)
        except NonFinite:
            raise_nonfinite(t.values)
    if first_calls.weighted_by_python(t):
        try:
            got = first_calls.weighted_table(t)
        except NonFinite:
            raise_nonfinite(t.values)
        if got is not None:
            return got
    if t.weights is None and n >= HASH_MIN:
        try:
            table = count_table(t, workers.threads() if n >= workers.PARALLEL_MIN else 1)
        except NonFinite:
            raise_nonfinite(t.values)
        if table is not None:
            return table
    spec = t.spec
    weighted = t.weights is not None
    parts, nthreads = range_parts(t)
    st, _ = base_state(t, 1.0, 0)

    runs = runs and not weighted
    room = 16 if runs else 0
    # The range holding the task's first group (the highest range with samples).
    first = next((r for r, c in enumerate(parts) if c.p.shape[0] + c.q.shape[0]), 0)

    def build(r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = sort_classes(parts[r], spec, weighted)
        m = c.p.shape[0] + c.q.shape[0] + room
        # Room for every sample in this thread's kept buffer (fresh memory for it would
        # cost page faults on every call); the groups written are copied out.
        buf = scratch("table", 24 * m + 192)
        gpos, at = carve(buf, 0, m, np.float64)
        gneg, at = carve(buf, at, m, np.float64)
        gkey, _ = carve(buf, at, m, np.uint64)
        s, k = range_state(st, 0.0, 0.0)
        mode = (MODE_RUNS if r == first else MODE_RUNS_REST) if runs else MODE_TABLE
        g = sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw,
                        weighted, s, k, mode, gpos, gneg, gkey, c.flip)
        return gkey[:g].copy(), gpos[:g].copy(), gneg[:g].copy()

    try:
        tables = workers.parallel_map(build, list(range(len(parts))), nthreads)
    except NonFinite:
        raise_nonfinite(t.values)
        raise  # unreachable
    if len(tables) == 1:
        return tables[0]  # type: ignore[no-any-return]
    if runs:  # a run of negatives across a range boundary is one entry, as on one thread
        tables = _join_runs(tables)
    return tuple(np.concatenate([tb[k] for tb in tables]) for k in range(3))  # type: ignore[return-value]


def cumulative_runs(t: Task, into: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cumulative_runs_raw`, a NaN or infinite score raising the error naming it."""
    try:
        return cumulative_runs_raw(t, into)
    except NonFinite:
        raise_nonfinite(t.values)
        raise  # unreachable


def _placed(gkey: np.ndarray, gpos: np.ndarray, gneg: np.ndarray,
            into: tuple[np.ndarray, np.ndarray, np.ndarray] | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A table's keys and running totals (FP, TP), in ``into`` where it has room."""
    g = gkey.shape[0]
    key, fp, tp = into if into is not None and min(a.shape[0] for a in into) >= g else \
        (np.empty(g, np.uint64), np.empty(g), np.empty(g))
    key[:g] = gkey
    np.cumsum(gneg, out=fp[:g])
    np.cumsum(gpos, out=tp[:g])
    return key[:g], fp[:g], tp[:g]


def cumulative_runs_raw(t: Task, into: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An unweighted task's runs table (:func:`task_table` with ``runs``) as running
    totals: score bits (uint64), cumulative FP and TP (float64 counts), highest score
    first, without the start.

    The kernel cumulates each score range's table while it writes it
    (:data:`~fastrank._kernels.sweep.MODE_CUMULATIVE`); the ranges' tables are then
    moved down to one another, each raised by the totals above it, and a run of
    negatives across a boundary made one entry (as :func:`_join_runs` does). Counts
    are exact integers, so every entry equals ``np.cumsum`` of :func:`task_table`'s.
    ``into`` (key, FP, TP), when each holds at least :func:`runs_room` entries,
    receives the table (the views returned); else fresh arrays do.
    """
    assert t.weights is None
    n = t.values.shape[0]
    if n < HASH_MIN and first_calls.table_by_numpy(t):  # a first call: nothing to compile
        gkey, gpos, gneg = first_calls.tie_table(t, runs=True)
        return _placed(gkey, gpos, gneg, into)
    if n >= HASH_MIN:
        table = count_table(t, workers.threads() if n >= workers.PARALLEL_MIN else 1)
        if table is not None:
            return _placed(*table, into)
    spec = t.spec
    if (n < workers.PARALLEL_MIN or workers.threads() <= 1) and into is not None and \
            min(a.shape[0] for a in into) >= n + RUNS_ROOM:
        # One range, written in place: the steps of _one_range (a batch's large tasks
        # are many of these; each Python step holds the GIL).
        c = sort_classes(split_classes(t.values, t.labels, None, t.npos, "classes"), spec, False)
        st, sk = buffers.state
        st[:] = _runs_state()
        sk[:] = 0
        key, fp, tp = into
        g = int(sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), EMPTY_FW,
                            EMPTY_FW, False, st, sk, MODE_RUNS + MODE_CUMULATIVE, tp, fp, key,
                            c.flip))
        return key[:g], fp[:g], tp[:g]
    parts, nthreads = range_parts(t)
    room = sum(c.p.shape[0] + c.q.shape[0] + RUNS_ROOM for c in parts)
    if into is not None and min(a.shape[0] for a in into) >= room:
        key, fp, tp = into
    else:
        key, fp, tp = np.empty(room, np.uint64), np.empty(room), np.empty(room)
    st, _ = base_state(t, 1.0, 0)
    first = next((r for r, c in enumerate(parts) if c.p.shape[0] + c.q.shape[0]), 0)
    starts = [0]
    for c in parts:
        starts.append(starts[-1] + c.p.shape[0] + c.q.shape[0] + RUNS_ROOM)

    def build(r: int) -> int:
        c = sort_classes(parts[r], spec, False)
        lo, hi = starts[r], starts[r + 1]
        s, k = range_state(st, 0.0, 0.0)
        mode = (MODE_RUNS if r == first else MODE_RUNS_REST) + MODE_CUMULATIVE
        return int(sweep_split(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), EMPTY_FW,
                               EMPTY_FW, False, s, k, mode, tp[lo:hi], fp[lo:hi],
                               key[lo:hi], c.flip))

    counts = workers.parallel_map(build, list(range(len(parts))), nthreads)
    end = 0  # entries placed
    for r, g in enumerate(counts):
        if g == 0:
            continue
        s0 = starts[r]
        if end:
            fp_above, tp_above = fp[end - 1], tp[end - 1]  # the totals above this range
            # Its first entry continues a run of negatives from above (the task's first
            # entry apart): the entry above is dropped, this one, raised by the
            # totals, stands for both.
            if end >= 2 and tp[s0] == 0.0 and tp[end - 1] == tp[end - 2]:
                end -= 1
            key[end:end + g] = key[s0:s0 + g]
            fp[end:end + g] = fp[s0:s0 + g] + fp_above
            tp[end:end + g] = tp[s0:s0 + g] + tp_above
        elif s0:
            key[:g], fp[:g], tp[:g] = key[s0:s0 + g], fp[s0:s0 + g], tp[s0:s0 + g]
        end += g
    return key[:end], fp[:end], tp[:end]


@functools.cache
def _runs_state() -> np.ndarray:
    """The state a runs table starts from (only its zero totals and flags are read)."""
    return new_state(0.0, 0.0, 1.0, 0)[0]


def runs_scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's kept buffers (key, FP, TP) for :func:`cumulative_runs` of a task
    of ``n`` samples: views of them live until the thread's next call (the caller
    copies what it keeps). Kept memory, so no page faults on every call."""
    m = runs_room(n)
    buf = scratch("runs", 24 * m + 192)
    key, at = carve(buf, 0, m, np.uint64)
    fp, at = carve(buf, at, m, np.float64)
    tp, _ = carve(buf, at, m, np.float64)
    return key, fp, tp


def runs_room(n: int) -> int:
    """Entries :func:`cumulative_runs` needs to write a task of ``n`` samples in place."""
    nthreads = workers.threads()
    nranges = 1 if n < workers.PARALLEL_MIN or nthreads <= 1 else \
        min(MAX_PIVOTS + 1, RANGES_PER_THREAD * nthreads)
    return n + RUNS_ROOM * nranges


def _join_runs(tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
               ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Score ranges' run tables (highest range first; each range's own buffers) with
    each run of negative-only entries that crosses a boundary made one entry, keyed
    by its lowest score; the task's first entry stays alone."""
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    entries = 0
    for key, pos, neg in tables:
        if out and key.shape[0] and pos[0] == 0.0 and out[-1][1][-1] == 0.0 and entries >= 2:
            out[-1][2][-1] += neg[0]  # counts: exact
            out[-1][0][-1] = key[0]
            key, pos, neg = key[1:], pos[1:], neg[1:]
        if key.shape[0]:
            out.append((key, pos, neg))
            entries += key.shape[0]
    return out


ROWS_RADIX_MIN = 1 << 15  # tasks from this size on sort their rows with the radix sort


def _sorted_rows(t: Task) -> tuple[np.ndarray, np.ndarray]:
    """A task's score bits sorted ascending (a zero of either sign as +0.0), as
    uint64 whatever the scores' width, with their sample indices (float64),
    equal scores in sample order.

    Large tasks use the radix sort with the indices as payload (several times
    faster than numpy's stable argsort); small ones numpy's argsort, which
    costs them little and spares a first call the radix sort's compilation.
    The bits of 4-byte scores are widened after the sort, so that the kernels
    reading them (:func:`tie_groups`, :func:`placements`: equality and order
    only) have one variant each, not one per key width: one pass over the
    sorted bits buys two compiled variants fewer.
    """
    spec = t.spec
    n = t.values.shape[0]
    if n < ROWS_RADIX_MIN:
        keys = keys_of(t.values, spec)
        order = np.argsort(keys, kind="stable")
        return readonly(bits_of_keys(keys[order], spec)), readonly(order.astype(np.float64))
    bits = t.values.view(spec.bits).copy()
    rows = np.arange(n, dtype=np.float64)  # exact below 2**53
    sort_pairs(bits, np.empty_like(bits), rows, np.empty_like(rows), spec.kind, spec.sign,
               spec.ones, buffers.hist)
    if bits.dtype != np.uint64:
        bits = bits.astype(np.uint64)
    return readonly(bits), readonly(rows)


def sample_placements(t: Task) -> np.ndarray:
    """DeLong's placement of each sample of an unweighted task with both classes
    (:func:`~fastrank._kernels.tasks.placements`)."""
    if first_calls.groups_by_numpy(t, placements):  # a first call: nothing to compile
        return first_calls.placements_of(t)
    bits, rows = _sorted_rows(t)
    v = np.empty(bits.shape[0], np.float64)
    placements(bits, rows, readonly(t.labels), v)
    return v


def group_index(t: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each sample's tie group (0 = highest score) and the table ``(gkey, gpos, gneg)``.

    The scores are sorted with their sample indices (:func:`_sorted_rows`), then
    one kernel pass names the groups. Weighted group sums here are formed in sample order
    (these tables serve resampling and placements, not the exact one-shot sums).
    """
    n = t.values.shape[0]
    if first_calls.groups_by_numpy(t, tie_groups):  # a first call: nothing to compile
        return first_calls.group_index(t)
    bits, rows = _sorted_rows(t)
    gid = np.empty(n, np.int64)
    gpos = np.zeros(n, np.float64)
    gneg = np.zeros(n, np.float64)
    gkey = np.empty(n, np.uint64)
    w = EMPTY_F if t.weights is None else readonly(t.weights)
    ngroups = tie_groups(bits, rows, readonly(t.labels), w, gid, gpos, gneg, gkey)
    return gid, gkey[:ngroups], gpos[:ngroups], gneg[:ngroups]
