"""The one entry to the kernels for one task: its ``OUT_*`` row.

Everything the public modules compute from canonical inputs
(:mod:`fastrank._core.inputs`) goes through the engine's modules:

* :func:`task_metrics` (here): the ``OUT_*`` results of one task;
  :func:`table_metrics`: the results of a stored tie table;
* :mod:`~fastrank._core.one_call`: a one-task call's task in one kernel call
  (the batch kernel on a batch of one) where that is the faster way;
* :mod:`~fastrank._core.first_calls`: a process's first small tasks (and tie
  tables) by numpy, with the kernels' numbers, while those are not compiled;
* :mod:`~fastrank._core.batches`: every task of a batch, and their tie tables;
* :mod:`~fastrank._core.ties`: a task's tie-group table (curves, tables,
  DeLong), each sample's tie group (bootstrap, paired DeLong);
* :mod:`~fastrank._core.ranges`: a task swept in score ranges, here or on
  other machines;
* :mod:`~fastrank._core.classes`, :mod:`~fastrank._core.sorting`: the split
  by class and the sort; :mod:`~fastrank._core.workers`,
  :mod:`~fastrank._core.workspace`: threads and their scratch memory.

How a task is computed: its scores are split by class, each class is sorted,
and the sweep merges the two from the top. Scores taking few distinct values
are counted instead of sorted (no sort at all). One large task is cut into
score ranges that are sorted in parallel and swept in order. Every result is
the same, bit for bit, on any number of threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.keys import KIND_SIGNED
from .._kernels.sweep import (
    K_PRBE,
    OUT_NEG,
    OUT_POS,
    OUT_SIZE,
    combine,
    new_state,
    range_state,
    set_totals,
    sweep_one,
    sweep_table,
)
from .._kernels.tasks import split
from . import first_calls, workers
from .by_class import NO_FLIP, NonFinite, for_sweep, raise_nonfinite
from .inputs import SPECS, Task, readonly
from .score_ranges import range_parts, sweep_parts, weighted_state
from .sorting import sort_class
from .tie_tables import HASH_MIN, count_table
from .workspace import EMPTY_F, EMPTY_FW, buffers, scratch


def task_metrics(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """One task's ``OUT_*`` row (totals in the caller's units) and its break-even
    score bits.

    A NaN or infinite score raises the :func:`~.inputs.nonfinite_error` naming it.
    """
    try:
        out, key = task_row(t, max_fpr, what)
    except NonFinite:
        raise_nonfinite(t.values)
        raise  # unreachable
    return in_caller_units(out, t), key


def in_caller_units(out: np.ndarray, t: Task) -> np.ndarray:
    """An ``OUT_*`` row's class totals turned from kernel units into the caller's."""
    if t.unit != 1.0 or t.shift:
        out[OUT_POS] *= t.unit
        out[OUT_NEG] *= t.neg_unit
    return out


def task_row(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    n = t.values.shape[0]
    if first_calls.sweep_by_numpy(t, what):  # a first call: nothing to compile
        return first_calls.sweep_row(t, max_fpr, what)
    if first_calls.weighted_by_python(t):
        got = first_calls.weighted_row(t, max_fpr, what)
        if got is not None:
            return got
    if t.weights is None and n >= HASH_MIN:
        nthreads = workers.threads() if n >= workers.PARALLEL_MIN else 1
        table = count_table(t, nthreads)
        if table is not None:
            return table_metrics(table, max_fpr, what)
    if t.weights is None and (n < workers.PARALLEL_MIN or workers.threads() <= 1):
        return _one_range(t, max_fpr, what)
    parts, nthreads = range_parts(t)
    return sweep_parts(parts, t, max_fpr, what, nthreads)


def _one_range(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """An unweighted task on one thread: split, the machine's sort of each class,
    then state, sweep and results in one kernel call
    (:func:`~fastrank._kernels.sweep.sweep_one`). Small tasks are what this
    saves for: the steps of a multi-range sweep cost them more than the task,
    and at n = 1,000 each Python step here is a few percent of the call."""
    values = t.values
    spec = SPECS[values.dtype]
    n = values.shape[0]
    m = t.npos
    size = values.itemsize
    at = ((m + 1) * size + 63) // 64 * 64
    buf = scratch("classes", at + (n - m + 1) * size)
    pb = buf[:(m + 1) * size].view(spec.bits)  # + 1: the split's slack slot
    qb = buf[at:at + (n - m + 1) * size].view(spec.bits)
    bits = values.view(spec.bits)
    bits.flags.writeable = False  # a fresh view: the kernels take inputs read-only
    split(bits, readonly(t.labels), EMPTY_F, 0, n, pb, qb, EMPTY_FW, EMPTY_FW, buffers.counts)
    pb = pb[:m]  # unweighted: m positives, n - m negatives
    qb = qb[:n - m]
    p = pb.view(values.dtype)
    q = qb.view(values.dtype)
    sort_class(p, spec)
    sort_class(q, spec)
    flip = NO_FLIP
    if spec.kind == KIND_SIGNED:
        (p, flip), (q, _) = for_sweep(p), for_sweep(q)
    st, sk = buffers.state
    out = np.empty(OUT_SIZE, np.float64)
    if not sweep_one(p, pb, q, qb, spec.exp, flip, max_fpr, what, st, sk, *buffers.chunk,
                     out, EMPTY_FW):
        raise NonFinite
    return out, int(sk[K_PRBE])


def table_metrics(table: tuple[np.ndarray, np.ndarray, np.ndarray], max_fpr: float, what: int,
                  bounds: tuple[float, float] | None = None, shift: int = 0
                  ) -> tuple[np.ndarray, int]:
    """The ``OUT_*`` row of a stored tie table ``(gkey, gpos, gneg)``, keys descending.

    Unweighted tables (``bounds`` None) hold counts. Weighted ones keep their
    running totals in fixed point as a weighted task's sweep does, in the
    units the task's class ``bounds`` imply, so the result is bit for bit
    that of the task the table came from (``shift``: the task's, see
    :func:`weighted_state`).
    """
    gkey, gpos, gneg = (_writable(table[0], np.uint64), _writable(table[1]),
                        _writable(table[2]))
    if bounds is None and first_calls.table_row_by_numpy((gkey, gpos, gneg)):  # a first call
        return first_calls.table_row((gkey, gpos, gneg), max_fpr, what)
    count = gpos.shape[0]
    if bounds is None:
        st, sk = new_state(float(gpos.sum()), float(gneg.sum()), max_fpr, what)
    else:
        st, sk = weighted_state(bounds, max_fpr, what, shift)
        s, k = range_state(st, 0.0, 0.0)
        sweep_table(gpos, gneg, gkey, count, s, k)  # a first pass for the exact totals
        set_totals(st, float(s[0]), float(s[1]))
    s, k = range_state(st, 0.0, 0.0)
    sweep_table(gpos, gneg, gkey, count, s, k)
    out = np.empty(OUT_SIZE, np.float64)
    combine(s[None, :].copy(), k[None, :].copy(), st, sk, out)
    return out, int(sk[K_PRBE])


def _writable(a: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    if a.dtype != dtype or not a.flags.writeable or not a.flags.c_contiguous:
        return np.array(a, dtype=dtype)
    return a

