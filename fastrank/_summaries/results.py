"""A summary's bins turned into results: each task's weight unit, the bounds
kernel's table, the exact rows of one-value bins, the tasks spread over the
engine's threads."""

from __future__ import annotations

import builtins
import itertools
import math
from collections.abc import Callable

import numpy as np

from .._core import engine, inputs, workers
from .._kernels.histogram import B_SIZE, bounds
from .._kernels.sweep import OUT_SIZE

# after its unit, a task's largest bins lie in [2**-_BOTTOM, 2**_TOP] (see task_units)
_TOP = 960
_BOTTOM = 850


def task_units(counts: np.ndarray) -> np.ndarray:
    """The power of two each task's counts are divided by before its metrics are formed,
    so that no sum, product or fixed-point unit of the sweep over- or underflows
    whatever the weights' scale.

    As :func:`fastrank._core.inputs.weight_units` chooses a task's unit from its
    largest weights, from the task's largest bins: the geometric mean of the two
    classes' scales, 1 within ``2**+-64`` of 1; moved, where needed, so that the
    heavier class's largest bin stays at most ``2**_TOP`` (its sums and their
    products stay finite) and the lighter one's at least ``2**-_BOTTOM`` (its
    fixed-point unit, about ``2**-124`` of its total, stays a float). Classes
    farther apart than both allow are refused, as the one-shot functions
    refuse such weights.
    """
    t = counts.shape[0]
    units = np.ones(t)
    if counts.shape[2] == 0:
        return units
    pmax = counts[:, 1, :].max(axis=1)
    nmax = counts[:, 0, :].max(axis=1)
    for j in builtins.range(t):
        exps = [math.frexp(float(v))[1] for v in (pmax[j], nmax[j]) if v > 0.0]
        if not exps:
            continue
        top, bottom = max(exps), min(exps)
        if top - bottom > _TOP + _BOTTOM:
            raise ValueError(
                "the positive and negative sample weights differ by a factor beyond "
                f"float64's range (about 2**{top - bottom}"
                + ("" if t == 1 else f", task {j}") + "); rescale one class's weights"
            )
        least, most = top - _TOP, bottom + _BOTTOM  # the units' exponents that fit
        center = min(max(sum(exps) // len(exps), least), most)
        if least <= 0 <= most and abs(center) <= inputs.UNIT_FREE:
            continue
        units[j] = math.ldexp(1.0, min(max(center, -1022), 1023))
    return units


def tasks_in_parallel(fn: Callable[[tuple[int, int]], None], t: int, cells: int) -> None:
    """``fn((t0, t1))`` over task ranges covering ``0 .. t``, on the engine's threads
    when there is enough work."""
    nthreads = workers.threads() if cells >= workers.PARALLEL_MIN and t > 1 else 1
    if nthreads <= 1:
        fn((0, t))
        return
    cuts = np.unique(np.linspace(0, t, min(t, 4 * nthreads) + 1).astype(np.int64))
    workers.parallel_map(fn, [(int(a), int(z)) for a, z in itertools.pairwise(cuts)], nthreads)


def bounds_table(scaled: np.ndarray, weighted: bool) -> np.ndarray:
    """The bounds kernel's table (``B_*`` columns) of every task."""
    t = scaled.shape[0]
    table = np.empty((t, B_SIZE), np.float64)

    def run(span: tuple[int, int]) -> None:
        a, z = span
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds(scaled[a:z], weighted, table[a:z])

    tasks_in_parallel(run, t, scaled.size)
    return table


def exact_rows(counts: np.ndarray, what: int, weighted: bool = False) -> np.ndarray:
    """Every task's ``OUT_*`` row from the engine's sweep over its bins, each bin one
    tie group, highest first, empty bins left out: unweighted counts give the
    one-shot result bit for bit, since the sweep's sums are exact; weighted bins
    (``weighted``) are swept as a weighted task's tie table is, their totals summed
    in fixed point, so that the result is the one-shot function's for rows of the
    bins' totals (a perfect ranking's AUC exactly 1, not 1 - 2**-53)."""
    t, _, nb = counts.shape
    out = np.empty((t, OUT_SIZE), np.float64)

    def run(span: tuple[int, int]) -> None:
        for j in builtins.range(*span):
            p = counts[j, 1, ::-1]
            q = counts[j, 0, ::-1]
            at = np.flatnonzero((p != 0.0) | (q != 0.0))
            gkey = (nb - 1 - at).astype(np.uint64)  # the bin (scores ascend with it)
            table = (gkey, np.ascontiguousarray(p[at]), np.ascontiguousarray(q[at]))
            bounds = None
            if weighted:  # each class's largest bin times its bins: bounds of its total
                bounds = tuple(float(c.max(initial=0.0)) * float(np.count_nonzero(c))
                               for c in (table[1], table[2]))
            out[j], _ = engine.table_metrics(table, 1.0, what, bounds)  # type: ignore[arg-type]

    tasks_in_parallel(run, t, counts.size)
    return out
