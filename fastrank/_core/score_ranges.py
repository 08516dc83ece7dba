"""Score ranges: a large task cut into ranges of equal work, swept side by side.

One large task is cut into score ranges (by pivots chosen from a sample) that
are split by class and sorted in parallel, then swept in order, each from the
totals of the ranges above it, and the ranges' states combined exactly. Any
pivots give the same results, bit for bit: the sweep sees the same groups in
the same order whatever was sorted where. The same pieces serve ranges swept
on other machines (:mod:`fastrank.distributed`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._kernels.sweep import (
    K_FP,
    K_PRBE,
    K_SIZE,
    K_TP,
    MODE_SWEEP,
    MODE_TOTALS,
    OUT_SIZE,
    S_E_FP,
    S_E_TP,
    S_SHIFT,
    S_SIZE,
    combine,
    fx_to_float,
    new_state,
    range_state,
    set_totals,
    sweep_split,
)
from .._kernels.tasks import LANES, MAX_PIVOTS, count_above, partition
from . import workers
from .by_class import Classes, sort_classes, split_classes
from .codec import keys_of
from .inputs import Spec, Task, readonly
from .workspace import EMPTY_F, EMPTY_FW, EMPTY_U8, buffers, carve, scratch

RANGES_PER_THREAD = 3  # score ranges per thread for one large task


POSITIVE_COST = 5.0  # a positive's share of a range's work, in negatives (sort + sweep)


def _pivots(t: Task, ranges: int) -> np.ndarray:
    """Keys cutting a task's scores into about ``ranges`` ranges of equal work.

    Chosen from a strided sample, in which a positive counts as
    :data:`POSITIVE_COST` negatives: sorting costs the same per sample, but
    the sweep's work is mostly per positive, and positives crowd the top
    ranges. Pivots only balance the work: any pivots give the same results,
    bit for bit.
    """
    spec = t.spec
    step = max(1, t.values.shape[0] // (64 * ranges))
    keys = keys_of(t.values[::step], spec)
    order = np.argsort(keys, kind="stable")
    sample = keys[order]
    cost = np.cumsum(np.where(t.labels[::step][order] != 0, POSITIVE_COST, 1.0))
    targets = cost[-1] * np.arange(1, ranges) / ranges
    at = np.minimum(np.searchsorted(cost, targets), sample.shape[0] - 1)
    piv = np.unique(sample[at])
    return readonly(piv[piv > sample[0]].astype(np.uint64))


class Range(NamedTuple):
    values: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None
    npos: int


def cut_ranges(t: Task, pivots: np.ndarray, nthreads: int = 1,
               slot: str | None = None) -> list[Range]:
    """A task's samples cut into the score ranges ``pivots`` (keys, ascending) define,
    highest range first, each a contiguous piece of scores, labels and weights
    (in scratch ``slot``, or fresh arrays when None)."""
    out, lout, wout, start = _cut(t, pivots, nthreads, False, slot)
    parts = []
    for r in range(start.shape[0] - 2, -1, -1):
        a, b = int(start[r]), int(start[r + 1])
        lab = lout[a:b]
        parts.append(Range(out[a:b], lab, wout[a:b] if t.weights is not None else None,
                            int(np.count_nonzero(lab))))
    return parts


def split_ranges(t: Task, nthreads: int) -> list[Classes]:
    """A large task cut into score ranges and split by class in one pass, on
    ``nthreads`` threads: each range's positives and negatives (unsorted, zero
    weights dropped), highest range first, in this thread's scratch.

    The ranges are then sorted and swept side by side (:func:`task_metrics`).
    """
    pivots = _pivots(t, min(MAX_PIVOTS + 1, RANGES_PER_THREAD * nthreads))
    out, _, wout, start = _cut(t, pivots, nthreads, True, "ranges")
    weighted = t.weights is not None
    parts = []
    for r in range((start.shape[0] - 1) // 2 - 1, -1, -1):
        a, b, c = int(start[2 * r]), int(start[2 * r + 1]), int(start[2 * r + 2])
        parts.append(Classes(out[b:c], out[a:b], wout[b:c] if weighted else EMPTY_FW,
                             wout[a:b] if weighted else EMPTY_FW))
    return parts


def _padded(pivots: np.ndarray) -> tuple[np.ndarray, int]:
    """Pivot keys padded to ``MAX_PIVOTS`` with ``2**64 - 1``, and how many are real."""
    out = np.full(MAX_PIVOTS, np.iinfo(np.uint64).max, np.uint64)
    out[:pivots.shape[0]] = pivots
    return readonly(out), int(pivots.shape[0])


def _cut(t: Task, pivots: np.ndarray, nthreads: int, by_class: bool, slot: str | None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The samples moved into their buckets (:func:`~fastrank._kernels.tasks.partition`):
    one bucket per score range, or with ``by_class`` two (negatives, then
    positives; zero weights dropped). One counting pass, then one moving pass,
    each split over ``nthreads`` threads by sample index. Returns the moved
    scores, labels (empty ``by_class``) and weights (empty unweighted), and the
    buckets' starts (one more entry than buckets). In scratch ``slot``, or
    fresh arrays when None."""
    values = t.values
    n = values.shape[0]
    spec = t.spec
    padded, npiv = _padded(np.ascontiguousarray(pivots, dtype=np.uint64))
    nr = npiv + 1
    bits = readonly(values.view(spec.bits))
    labels = readonly(t.labels)
    weighted = t.weights is not None
    w = readonly(t.weights) if t.weights is not None else EMPTY_F
    bounds = np.linspace(0, n, nthreads + 1).astype(np.int64)
    chunks = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))

    def count(chunk: tuple[int, int]) -> np.ndarray:
        ge = np.zeros((LANES, 2, nr + 1), np.int64)
        count_above(bits, labels, w, spec.kind, spec.sign, spec.ones, padded, npiv, chunk[0],
                    chunk[1], by_class, ge)
        kept = ge[:, 0, :-1] - ge[:, 0, 1:]  # (lanes, ranges)
        if not by_class:
            return np.asarray(kept)
        pos = ge[:, 1, :-1] - ge[:, 1, 1:]
        return np.stack((kept - pos, pos), axis=2).reshape(LANES, 2 * nr)  # bucket 2r + label

    sizes = np.array(workers.parallel_map(count, chunks, nthreads))  # (chunks, lanes, buckets)
    flat = sizes.reshape(-1, sizes.shape[2])
    start = np.concatenate(([0], np.cumsum(flat.sum(axis=0))))
    cursors = (start[:-1] + np.cumsum(flat, axis=0) - flat).reshape(sizes.shape)
    m = int(start[-1])
    nbytes = m * (values.itemsize + (0 if by_class else 1) + (8 if weighted else 0)) + 256
    buf = scratch(slot, nbytes) if slot is not None else np.empty(nbytes, np.uint8)
    out, at = carve(buf, 0, m, values.dtype)
    lout = EMPTY_U8
    if not by_class:
        lout, at = carve(buf, at, m, np.uint8)
    wout = carve(buf, at, m, np.float64)[0] if weighted else EMPTY_FW
    ids = scratch("bucket-ids", n)

    def write(k: int) -> None:
        partition(bits, labels, w, spec.kind, spec.sign, spec.ones, padded, npiv, chunks[k][0],
                  chunks[k][1], by_class, cursors[k].copy(), ids, out.view(spec.bits), lout,
                  wout)

    workers.parallel_map(write, list(range(len(chunks))), nthreads)
    return out, lout, wout, start


def sample_keys(t: Task, points: int) -> np.ndarray:
    """Order keys of ``points`` evenly spaced order statistics of a strided sample
    of a task's scores (they balance score ranges chosen across many chunks)."""
    n = t.values.shape[0]
    if n == 0:
        return np.empty(0, np.uint64)
    step = max(1, n // (16 * points))
    keys = np.sort(keys_of(t.values[::step], t.spec))
    at = np.linspace(0, keys.shape[0] - 1, min(points, keys.shape[0])).astype(np.int64)
    return keys[at]


def choose_pivots(samples: Sequence[tuple[np.ndarray, int]], ranges: int) -> np.ndarray:
    """Keys cutting a task into about ``ranges`` ranges of equal size, from the
    chunks' ``(sample_keys, size)``: each sample point stands for an equal
    share of its chunk's samples. Equal scores always share a range."""
    points = [k for k, size in samples if size and k.shape[0]]
    if not points or ranges <= 1:
        return np.empty(0, np.uint64)
    keys = np.concatenate(points)
    weights = np.concatenate([np.full(k.shape[0], size / k.shape[0])
                              for k, size in samples if size and k.shape[0]])
    order = np.argsort(keys, kind="stable")
    keys, cum = keys[order], np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, min(ranges, MAX_PIVOTS + 1)) / min(ranges, MAX_PIVOTS + 1)
    at = np.minimum(np.searchsorted(cum, targets, side="right"), keys.shape[0] - 1)
    piv = np.unique(keys[at])
    return np.asarray(piv[piv > keys[0]], dtype=np.uint64)


def range_parts(t: Task) -> tuple[list[Classes], int]:
    """A task's score ranges split by class (unsorted), highest first, and the
    threads to run them on."""
    n = t.values.shape[0]
    nthreads = workers.threads() if n >= workers.PARALLEL_MIN else 1
    if nthreads <= 1:
        return [split_classes(t.values, t.labels, t.weights, t.npos, "classes")], 1
    return split_ranges(t, nthreads), nthreads


def base_state(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, np.ndarray]:
    n = t.values.shape[0]
    if t.weights is None:
        return new_state(float(t.npos), float(n - t.npos), max_fpr, what)
    return weighted_state(t.bounds, max_fpr, what, t.shift)


def weighted_state(bounds: tuple[float, float], max_fpr: float, what: int, shift: int = 0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """A weighted task's state before its totals are known; ``bounds``: upper
    bounds of its positive and negative totals (:func:`inputs.scaled_weights`),
    which fix the units of the exact totals; ``shift``: the negatives' unit over
    the positives' (as a power of two)."""
    st, sk = new_state(0.0, 0.0, max_fpr, what, weighted=True, pos_bound=bounds[0],
                       neg_bound=bounds[1])
    st[S_SHIFT] = shift
    return st, sk


_MASK = (1 << 128) - 1
_LOW = (1 << 64) - 1


def _fx(sk: np.ndarray, at: int) -> int:
    return (int(sk[at]) << 64) | int(sk[at + 1])


def fixed_float(x: int, e: float) -> float:
    """A fixed-point sum (a Python int, two's complement in 128 bits) as a float."""
    x &= _MASK
    return fx_to_float(x >> 64, x & _LOW, e)


def range_totals(c: Classes, st: np.ndarray, spec: Spec, sweep: Any = sweep_split
                 ) -> tuple[int, int]:
    """A weighted range's exact class totals (fixed point, the units of ``st``);
    ``sweep``: the sweep kernel, or its Python twin (a first call's)."""
    s, k = range_state(st, 0.0, 0.0)
    sweep(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw, True, s, k,
                MODE_TOTALS, *buffers.chunk, c.flip)
    return _fx(k, K_TP), _fx(k, K_FP)


def set_weighted_totals(st: np.ndarray, ptot: int, ntot: int) -> None:
    """Give a weighted state its exact class totals (fixed point)."""
    set_totals(st, fixed_float(ptot, st[S_E_TP]), fixed_float(ntot, st[S_E_FP]))


def sweep_range(c: Classes, st: np.ndarray, spec: Spec, above: tuple[int, int],
                weighted: bool, sweep: Any = sweep_split) -> tuple[np.ndarray, np.ndarray]:
    """The sweep state of one sorted score range below the ranges above it.

    ``above``: the positive and negative totals of every range above, as
    counts (unweighted) or exact fixed-point sums (weighted).
    """
    a, b = above
    if weighted:
        a &= _MASK
        b &= _MASK
        s, k = range_state(st, fixed_float(a, st[S_E_TP]), fixed_float(b, st[S_E_FP]),
                           (a >> 64, a & _LOW), (b >> 64, b & _LOW))
    else:
        s, k = range_state(st, float(a), float(b))
    sweep(c.p, c.p.view(spec.bits), c.q, c.q.view(spec.bits), c.pw, c.qw, weighted, s, k,
                MODE_SWEEP, *buffers.chunk, c.flip)
    return s, k


def combine_states(st: np.ndarray, sk: np.ndarray, states: np.ndarray,
                   keys: np.ndarray, join: Any = combine) -> tuple[np.ndarray, int]:
    """Results of the ranges' states (highest range first) on the task's state ``st``
    (``join``: the combining kernel, or its Python twin)."""
    out = np.empty(OUT_SIZE, np.float64)
    st, sk = st.copy(), sk.copy()
    join(np.ascontiguousarray(states), np.ascontiguousarray(keys), st, sk, out)
    return out, int(sk[K_PRBE])


def sweep_parts(parts: list[Classes], t: Task, max_fpr: float, what: int,
                 nthreads: int, steps: tuple[Any, Any, Any] | None = None
                 ) -> tuple[np.ndarray, int]:
    """Sort and sweep every score range (in parallel), then combine them exactly.
    ``steps``: the sort, sweep and combine to use (a first call's stand-ins, which
    give the same numbers), the kernels' by default."""
    sort, sweep_, join = (sort_classes, sweep_split, combine) if steps is None else steps
    spec = t.spec
    weighted = t.weights is not None
    st, sk = base_state(t, max_fpr, what)
    nr = len(parts)
    states = np.empty((nr, S_SIZE), np.float64)
    keys = np.empty((nr, K_SIZE), np.uint64)
    sorted_parts: list[Classes | None] = [None] * nr
    above: list[tuple[int, int]] = []
    if weighted:
        def totals(r: int) -> tuple[int, int]:
            c = sorted_parts[r] = sort(parts[r], spec, True)
            return range_totals(c, st, spec, sweep_)

        sums = _by_size(totals, parts, nthreads)
        set_weighted_totals(st, sum(x[0] for x in sums), sum(x[1] for x in sums))
        p = q = 0
        for x in sums:
            above.append((p, q))
            p, q = p + x[0], q + x[1]
    else:
        p = q = 0
        for part in parts:
            above.append((p, q))
            p, q = p + part.p.shape[0], q + part.q.shape[0]

    def sweep(r: int) -> None:
        c = sorted_parts[r]
        if c is None:
            c = sort(parts[r], spec, False)
        states[r], keys[r] = sweep_range(c, st, spec, above[r], weighted, sweep_)

    _by_size(sweep, parts, nthreads)
    return combine_states(st, sk, states, keys, join)


def _by_size(fn: Callable[[int], Any], parts: list[Classes], nthreads: int) -> list[Any]:
    """``[fn(r) for r in range(len(parts))]``, the largest ranges started first, so
    that the threads finish together (sizes as in :func:`_pivots`)."""
    order = sorted(range(len(parts)),
                   key=lambda r: -(parts[r].q.shape[0] + POSITIVE_COST * parts[r].p.shape[0]))
    done = workers.parallel_map(fn, order, nthreads)
    out: list[Any] = [None] * len(parts)
    for r, x in zip(order, done, strict=True):
        out[r] = x
    return out
