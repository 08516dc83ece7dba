"""The pieces a distributed run is made of, free of any scheduler.

:mod:`fastrank.dask` builds task graphs out of these functions; each runs on
a worker on plain numpy (and pandas) data and returns small results:

* :func:`block_results`: the raw per-task results of one block of a batched
  call (all samples of some tasks, or whole groups), under a thread budget;
  :func:`concat_results` joins the blocks' results in task order, and
  :func:`fastrank.metrics.batch_result` turns them into what the in-process
  call returns.
* One task larger than a worker: :func:`chunk_sample` and :func:`range_bounds`
  choose score ranges, :func:`split_ranges` cuts each chunk by range and counts
  each range's positives and negatives, :func:`sweep_range` sweeps one range's
  rows from the totals above it, and :func:`combine_ranges` adds the ranges'
  sweep states into the state of a single sweep over the whole task.

Errors name the block, partition or chunk they come from.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

from ._kernels.keys import from_key
from ._kernels.ranges import range_partition, range_sweep
from ._kernels.sweep import (
    OUT_POS,
    OUT_SIZE,
    SK_LAST,
    SK_PRBE,
    SK_SIZE,
    ST_AP,
    ST_AUC,
    ST_DN_FIRST_POS,
    ST_DP_FIRST_NEG,
    ST_EXPECTED,
    ST_FP,
    ST_FP_FIRST_POS,
    ST_PARTIAL,
    ST_PR,
    ST_PRBE_FOUND,
    ST_PRBE_TP,
    ST_RUN_TP0,
    ST_SIZE,
    ST_TP,
    ST_TP_FIRST_NEG,
    WANT_PR_AUC,
    pr_run_area,
    sweep_finish,
)
from ._kernels.task import task_groups, work_bytes
from ._validation import KEYS, check_labels, check_scores, check_weights
from ._workspace import scratch
from .batch import TaskResults, evaluate_tasks, thresholds_of

__all__ = [
    "block_results",
    "chunk_sample",
    "combine_ranges",
    "concat_results",
    "range_bounds",
    "split_ranges",
    "sweep_range",
    "thread_budget",
]

SAMPLE_POINTS = 256  # score quantiles each chunk contributes to the choice of ranges
_NO_WEIGHTS = np.empty(0, np.float64)


@contextmanager
def thread_budget(threads: int | None) -> Iterator[None]:
    """Run the enclosed kernels on at most ``threads`` of Numba's threads.

    Numba's thread count is per calling thread; it is restored on exit, so a
    worker thread of a scheduler never keeps a changed setting. ``None``
    leaves it as it is.
    """
    if threads is None:
        yield
        return
    before = numba.get_num_threads()
    limit = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    numba.set_num_threads(max(1, min(int(threads), limit)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _located(exc: Exception, where: str) -> Exception:
    """The same kind of error, its message prefixed with where it happened."""
    try:
        return type(exc)(f"{where}: {exc}")
    except Exception:  # an exception type with another signature
        return exc


def block_results(
    where: str,
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    *,
    pos_label: Any = None,
    groups: Any = None,
    max_fpr: float = 1.0,
    what: int = 0,
    threads: int | None = 1,
) -> TaskResults | None:
    """The raw per-task results of one block (``None`` for an empty block of groups)."""
    if groups is not None and np.shape(y_score)[0] == 0:
        return None
    try:
        with thread_budget(threads):
            return evaluate_tasks(
                y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                groups=groups, labels=None, average=None, max_fpr=max_fpr, what=what,
            )
    except (ValueError, TypeError) as exc:
        raise _located(exc, where) from exc


def concat_results(parts: Sequence[TaskResults | None], mode: str) -> TaskResults:
    """The blocks' results as one, tasks in block order (groups: sorted by id)."""
    done = [p for p in parts if p is not None]
    if not done:
        return TaskResults(np.empty((0, OUT_SIZE)), np.empty(0), np.empty(0, np.int64),
                           np.empty(0) if mode == "groups" else None, mode)
    out = np.concatenate([p.out for p in done])
    thresholds = np.concatenate([p.thresholds for p in done])
    sizes = np.concatenate([p.sizes for p in done])
    ids = None
    if mode == "groups":
        ids = np.concatenate([np.asarray(p.ids) for p in done])
        order = np.argsort(ids, kind="stable")
        out, thresholds, sizes, ids = out[order], thresholds[order], sizes[order], ids[order]
    return TaskResults(out, thresholds, sizes, ids, mode)


# ------------------------------------------------------------------ one huge task


def _checked(where: str, y_true: Any, y_score: Any, sample_weight: Any,
             pos_label: Any) -> tuple[np.ndarray, np.dtype[Any], np.ndarray, np.ndarray | None]:
    """A chunk's canonical score bits, canonical dtype, 0/1 labels and raw weights."""
    try:
        bits, canon, _ = check_scores(y_score)
        labels, _ = check_labels(y_true, bits.shape[0], pos_label)
        w, unit = check_weights(sample_weight, bits.shape[0])
    except (ValueError, TypeError) as exc:
        raise _located(exc, where) from exc
    return bits, canon, labels, None if w is None else w * unit


def chunk_sample(where: str, y_score: Any) -> tuple[np.ndarray, int]:
    """Order statistics of a strided subsample of one chunk's scores (as float64), and
    the chunk's size.

    They only balance the ranges; any choice of ranges gives the exact result.
    Non-finite scores are left out here and reported by :func:`split_ranges`.
    """
    s = np.asarray(y_score)
    n = int(s.shape[0]) if s.ndim else 0
    if n == 0:
        return np.empty(0), 0
    step = max(1, n // (16 * SAMPLE_POINTS))
    try:
        values = np.sort(s[::step].astype(np.float64))
    except (TypeError, ValueError) as exc:
        raise _located(TypeError(f"y_score must hold real numbers: {exc}"), where) from exc
    values = values[np.isfinite(values)]
    if values.shape[0] == 0:
        return values, n
    at = np.linspace(0, values.shape[0] - 1, min(SAMPLE_POINTS, values.shape[0]))
    return values[at.astype(np.int64)], n


def range_bounds(samples: Sequence[tuple[np.ndarray, int]], ranges: int) -> np.ndarray:
    """Score boundaries cutting the task into about ``ranges`` ranges of equal size.

    Each chunk's sample points stand for equal shares of its rows. Range
    ``r`` holds the scores ``s`` with ``bounds[r - 1] <= s < bounds[r]`` (as
    float64), so equal scores always share a range.
    """
    points = [p for p, n in samples if n]
    if not points:
        return np.empty(0)
    values = np.concatenate(points)
    weights = np.concatenate([np.full(p.shape[0], n / p.shape[0]) for p, n in samples if n])
    order = np.argsort(values, kind="stable")
    values, cum = values[order], np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, max(ranges, 1)) / max(ranges, 1)
    at = np.minimum(np.searchsorted(cum, targets, side="right"), values.shape[0] - 1)
    bounds = np.unique(values[at])
    above: np.ndarray = bounds[bounds > values[0]]
    return above


def split_ranges(
    where: str, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
    bounds: np.ndarray,
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]]:
    """Cut one chunk by score range.

    Returns the positive and negative totals of every range (shape
    ``(len(bounds) + 1, 2)``) and, per range, the chunk's rows in it: score
    values (canonical dtype), 0/1 labels and weights.
    """
    nr = bounds.shape[0] + 1
    s = np.asarray(y_score)
    if s.shape[0] == 0:
        return np.zeros((nr, 2)), [(s[:0], np.empty(0, np.uint8), None)] * nr
    bits, canon, labels, w = _checked(where, y_true, s, sample_weight, pos_label)
    values = bits.view(canon)
    order, starts, counts = range_partition(values, labels, _NO_WEIGHTS if w is None else w,
                                            np.ascontiguousarray(bounds, np.float64))
    values, labels = values[order], labels[order]
    w = None if w is None else w[order]
    parts = []
    for r in range(nr):
        a, b = int(starts[r]), int(starts[r + 1])
        parts.append((values[a:b], labels[a:b], None if w is None else w[a:b]))
    return counts, parts


def range_offsets(counts: Sequence[np.ndarray]) -> tuple[np.ndarray, float, float]:
    """Positive and negative totals above each range, and the task's totals."""
    total = np.sum(np.stack(counts), axis=0) if counts else np.zeros((1, 2))
    nr = total.shape[0]
    above = np.zeros((nr, 2))
    run = np.zeros(2)
    for r in range(nr - 1, -1, -1):  # from the highest range down
        above[r] = run
        run = run + total[r]
    return above, float(run[1]), float(run[0])


def sweep_range(
    pieces: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray | None]], tp0: float, fp0: float,
    pos: float, neg: float, max_fpr: float, what: int, weighted: bool,
) -> tuple[np.ndarray, np.ndarray, np.dtype[Any] | None]:
    """The sweep state of one range: its rows grouped and swept below ``tp0``/``fp0``."""
    st = np.zeros(ST_SIZE)
    sk = np.zeros(SK_SIZE, np.uint64)
    nonempty = [p for p in pieces if p[0].shape[0]]
    if not nonempty:
        st[ST_TP], st[ST_FP], st[ST_RUN_TP0] = tp0, fp0, tp0
        st[ST_TP_FIRST_NEG] = st[ST_FP_FIRST_POS] = -1.0
        return st, sk, None
    values = np.concatenate([p[0] for p in nonempty])
    labels = np.concatenate([p[1] for p in nonempty])
    weights = None
    if weighted:
        weights = np.concatenate([np.ones(p[0].shape[0]) if p[2] is None else p[2]
                                  for p in nonempty])
    spec = KEYS[values.dtype]
    bits = values.view(spec[0])
    bits.flags.writeable = False
    if weights is not None:
        weights.flags.writeable = False
    work = scratch(work_bytes(bits.shape[0], bits.itemsize, weights is not None))
    gkey, gpos, gneg = task_groups(bits, spec[1], spec[2], spec[3], labels, weights, work)
    range_sweep(gkey, gpos.astype(np.float64), gneg.astype(np.float64), tp0, fp0, pos, neg,
                max_fpr, what, st, sk)
    return st, sk, values.dtype


def combine_ranges(
    states: Sequence[tuple[np.ndarray, np.ndarray, np.dtype[Any] | None]],
    max_fpr: float, what: int, n: int,
) -> TaskResults:
    """One task's results from its ranges' sweep states, highest range first."""
    want_pr = (what & WANT_PR_AUC) != 0
    st = np.zeros(ST_SIZE)
    sk = np.zeros(SK_SIZE, np.uint64)
    st[ST_TP_FIRST_NEG] = st[ST_FP_FIRST_POS] = -1.0
    sums: dict[int, list[float]] = {ST_AP: [], ST_EXPECTED: [], ST_AUC: [], ST_PARTIAL: [],
                                    ST_PR: []}
    dtype = None
    for part, keys, part_dtype in states:
        dtype = dtype or part_dtype
        for k, terms in sums.items():
            terms += [part[k], part[k + 1]]
        if want_pr and part[ST_TP] > part[ST_RUN_TP0]:  # close the range's last run
            sums[ST_PR].append(pr_run_area(part[ST_RUN_TP0], part[ST_TP], part[ST_FP]))
        if st[ST_PRBE_FOUND] == 0.0 and part[ST_PRBE_FOUND] != 0.0:
            st[ST_PRBE_FOUND] = 1.0
            st[ST_PRBE_TP] = part[ST_PRBE_TP]
            sk[SK_PRBE] = keys[SK_PRBE]
        if st[ST_TP_FIRST_NEG] < 0.0 <= part[ST_TP_FIRST_NEG]:
            st[ST_TP_FIRST_NEG] = part[ST_TP_FIRST_NEG]
            st[ST_DP_FIRST_NEG] = part[ST_DP_FIRST_NEG]
        if st[ST_FP_FIRST_POS] < 0.0 <= part[ST_FP_FIRST_POS]:
            st[ST_FP_FIRST_POS] = part[ST_FP_FIRST_POS]
            st[ST_DN_FIRST_POS] = part[ST_DN_FIRST_POS]
        if part_dtype is not None:
            st[ST_TP], st[ST_FP] = part[ST_TP], part[ST_FP]
            sk[SK_LAST] = keys[SK_LAST]
    for k, terms in sums.items():
        st[k] = math.fsum(terms)
    st[ST_RUN_TP0] = st[ST_TP]  # every run is closed
    out = np.empty(OUT_SIZE)
    sweep_finish(st, sk, max_fpr, what, out)
    if dtype is None:
        raise ValueError("y_score is empty; at least one sample is needed")
    spec = KEYS[np.dtype(dtype)]
    prbe_bits = from_key(sk[SK_PRBE], spec[1], spec[2], spec[3])
    thresholds = thresholds_of(np.array([prbe_bits], np.uint64), out[None, OUT_POS],
                               np.dtype(dtype))
    return TaskResults(out[None, :], thresholds, np.array([n], np.int64), None, "micro")
