"""The pieces a distributed run is made of, free of any scheduler.

:mod:`fastrank.dask` builds task graphs out of these functions; each runs on
a worker on plain numpy data and returns small results (or the pieces of
data it hands on), through the same core as the in-process calls
(``fastrank._core``):

* **Blocks** (many tasks): :func:`block_results` computes the raw per-task
  results of one block of a batched call (every sample of some tasks, or
  whole groups), as the in-process call does; :func:`concat_results` joins
  the blocks' results in task order (groups: by id), and
  ``fastrank._core.reduce.finish`` turns them into what the in-process
  call returns, bit for bit (each task's weights have their own unit, so a
  block needs nothing from the others).
* **One task larger than a worker**: :func:`chunk_task` checks one chunk and
  samples its scores; :func:`plan_ranges` checks the chunks against each
  other and chooses the score ranges (and the weights' unit, the one the
  in-process call would choose); :func:`cut_chunk` cuts a chunk by range;
  :func:`sort_range` joins one range's pieces of every chunk, splits them by
  class and sorts them; :func:`range_base` adds up the ranges' class totals;
  :func:`sweep_range` sweeps one range from the totals of the ranges above
  it; :func:`combine_ranges` joins the ranges' sweep states. Every sum the
  sweep keeps is exact, so the result is that of the in-process call on the
  whole task, bit for bit, however the task is cut into chunks and ranges.
  A task taken as one range (:func:`gather_results`) skips the cutting: its
  chunks are joined and computed as the in-process call computes them.

Errors name the block, partition or chunk they come from.

Examples
--------
One task in three chunks, cut into four score ranges, equals the in-process
call bit for bit:

>>> import numpy as np, fastrank
>>> from fastrank import distributed as dist
>>> from fastrank._core import registry
>>> rng = np.random.default_rng(0)
>>> y, s = rng.random(3000) < 0.3, np.round(rng.random(3000), 2)
>>> req = registry.request("roc_auc", weighted=False)
>>> chunks = [dist.chunk_task(f"chunk {i}", y[i::3], s[i::3], None) for i in range(3)]
>>> plan = dist.plan_ranges([stats for stats, _ in chunks], 4, 4, req, weighted=False)
>>> cuts = [dist.cut_chunk(task, plan) for _, task in chunks]
>>> ranges = [dist.sort_range([cut[r] for cut in cuts], plan) for r in range(4)]
>>> base = dist.range_base([totals for _, totals in ranges], plan)
>>> states = [dist.sweep_range(classes, base, r) for r, (classes, _) in enumerate(ranges)]
>>> res = dist.combine_ranges(states, base, plan)
>>> float(res.out[0, 4]) == fastrank.roc_auc(y, s)  # column OUT_AUC
True
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from ._core import api, by_class, inputs, reduce, score_ranges, workers
from ._core.messages import located
from ._core.registry import Request
from ._kernels.batch import LAB_SAME
from ._kernels.sweep import K_SIZE, OUT_NEG, OUT_POS, S_SIZE, new_state
from ._kernels.tasks import MAX_PIVOTS

__all__ = [
    "MAX_RANGES",
    "ROWS_PER_RANGE",
    "SAMPLE_POINTS",
    "Base",
    "Block",
    "ChunkStats",
    "Piece",
    "Plan",
    "block_results",
    "chunk_task",
    "combine_ranges",
    "concat_results",
    "cut_chunk",
    "default_ranges",
    "gather_results",
    "plan_ranges",
    "range_base",
    "sort_range",
    "sweep_range",
    "thread_budget",
]

SAMPLE_POINTS = 256  # score quantiles each chunk contributes to the choice of ranges
ROWS_PER_RANGE = 1 << 24  # the default: one score range per 16 million rows ...
MAX_RANGES = 64  # ... and at most this many


def default_ranges(n: int) -> int:
    """The default number of score ranges of a task of ``n`` rows.

    About one per :data:`ROWS_PER_RANGE` rows (2**24), at least 1 and at most
    :data:`MAX_RANGES`: it depends on the data's size only, never on how many
    chunks hold them, so the task graph stays linear in the chunks (a piece
    per chunk and range). A range of 2**24 rows is sorted by one worker in
    about a second, in a few hundred MB; fewer, larger ranges move the same
    data with fewer tasks, and below 2**24 rows one range (the whole task
    gathered into one Dask task) was the fastest on a LocalCluster.

    Examples
    --------
    >>> from fastrank.distributed import default_ranges
    >>> default_ranges(5_000), default_ranges(100_000_000), default_ranges(10**12)
    (1, 6, 64)
    """
    return max(1, min(MAX_RANGES, -(-int(n) // ROWS_PER_RANGE)))


@contextmanager
def thread_budget(threads: int | None) -> Iterator[None]:
    """Run the enclosed calls on at most ``threads`` of fastrank's worker threads.

    The limit holds for the calling thread only and is restored on exit, so a
    scheduler's worker thread never keeps it; Numba's own setting is never
    changed (``fastrank._core.workers.thread_limit``). ``None`` sets no limit.
    """
    with workers.thread_limit(threads):
        yield




# ------------------------------------------------------------------ blocks of tasks


class Block(NamedTuple):
    """The raw results of one block, and the label its negatives hold."""

    results: reduce.Results
    negative: Any  # None: no negatives


def block_results(
    where: str,
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    *,
    request: Request,
    pos_label: Any = None,
    groups: Any = None,
    threads: int | None = 1,
) -> Block | None:
    """The raw per-task results of one block (``None`` for a block without rows).

    A block is a batched call of its own: 2-D scores and labels (whole
    columns), or 1-D ones with ``groups`` (whole groups), computed as the
    in-process call computes them (``fastrank._core.api.batch_results``),
    on at most ``threads`` threads. Errors are prefixed with ``where``.
    """
    if groups is not None and np.shape(y_score)[0] == 0:
        return None
    try:
        with workers.thread_limit(threads):
            s = inputs.as_array(y_score, "y_score")
            b = inputs.batch(y_true, s, sample_weight, pos_label, groups, None)
            return Block(api.batch_results(b, request), _negative_label(b, y_true))
    except (ValueError, TypeError) as exc:
        raise located(exc, where) from exc


def _negative_label(b: inputs.Batch, y_true: Any) -> Any:
    """The label of a block's first negative cell (None: none), from its 0/1 labels."""
    lab = b.labels
    if b.lab_mode != LAB_SAME or lab.shape[0] == 0:
        return None
    k = int(np.argmin(lab))
    if lab[k] != 0:
        return None
    y = inputs.as_array(y_true, "y_true")
    if y.ndim == 1:
        return inputs.plain(y[int(b.order[k]) if b.order is not None else k])
    if b.layout == inputs.SAMPLE_MAJOR:  # labels flat in row-major order
        return inputs.plain(y[divmod(k, y.shape[1])])
    return inputs.plain(y[k % y.shape[0], k // y.shape[0]])  # column after column


def concat_results(parts: Sequence[Block | None], mode: str,
                   pos_label: Any = None) -> reduce.Results:
    """The blocks' results as one, tasks in block order (``mode="groups"``: by id).

    The blocks must agree on the label of the negatives, as the in-process
    call requires two classes across all the data.
    """
    done = [p for p in parts if p is not None]
    if not done:
        raise ValueError("y_score is empty; at least one sample is needed")
    _labels_agree([p.negative for p in done],
                  any(bool(np.any(p.results.positives > 0)) or p.negative is None
                      for p in done), pos_label, "blocks")
    res = [p.results for p in done]
    out = np.concatenate([r.out for r in res])
    thresholds = np.concatenate([r.thresholds for r in res])
    sizes = np.concatenate([r.sizes for r in res])
    ids = None
    if mode == "groups":
        ids = np.concatenate([np.asarray(r.ids) for r in res])
        order = np.argsort(ids, kind="stable")
        out, thresholds, sizes, ids = out[order], thresholds[order], sizes[order], ids[order]
    return reduce.Results(out, thresholds, sizes, ids, mode)


def _labels_agree(negatives: Sequence[Any], positives: bool, pos_label: Any,
                  what: str) -> None:
    """Two classes across the blocks or chunks (each holding one negative label, or
    None), as the in-process call requires of the whole data."""
    found: list[Any] = []
    for v in negatives:
        if v is not None and not any(v == u for u in found):
            found.append(v)
    if len(found) <= 1:
        return
    if positives:
        found.append(1 if pos_label is None else pos_label)
    try:
        found.sort()
    except TypeError:
        pass
    raise ValueError(f"y_true must hold two classes; its {what} hold {found} between them")


# ------------------------------------------------------------------ one huge task


class ChunkStats(NamedTuple):
    """What the choice of ranges needs to know of one chunk (small)."""

    where: str
    size: int
    npos: int
    pmax: float  # the largest weight of a positive and of a negative (0: none, unweighted)
    nmax: float
    canonical: np.dtype[Any] | None  # the scores' canonical dtype (None: empty chunk)
    dtype: np.dtype[Any] | None  # the caller's score dtype
    negative: Any  # the label of the negatives (None: no negatives)
    keys: np.ndarray  # order keys of sampled scores (see score_ranges.sample_keys)


class Plan(NamedTuple):
    """One task's score ranges and units, chosen from every chunk's statistics."""

    pivots: np.ndarray  # order keys (uint64, ascending) between the ranges
    slots: int  # ranges in the task graph (the ranges past the pivots are empty)
    n: int  # rows of the whole task
    npos: int
    unit: float  # weights are divided by this power of two (as the in-process call does)
    bounds: tuple[float, float]  # bounds of the class totals after the unit (class_bounds)
    canonical: np.dtype[Any]
    dtype: np.dtype[Any]
    weighted: bool
    request: Request
    shift: int = 0  # the negatives' unit is unit * 2**shift (inputs.weight_units)


class Piece(NamedTuple):
    """The rows of one chunk that fall in one score range."""

    values: np.ndarray  # canonical scores
    labels: np.ndarray  # uint8 0/1
    weights: np.ndarray | None  # divided by the plan's unit
    npos: int


class Base(NamedTuple):
    """The task's sweep state with its class totals, and the totals above each range."""

    st: np.ndarray
    sk: np.ndarray
    above: list[tuple[int, int]]  # counts, or exact fixed-point sums (weighted)
    weighted: bool


_NO_KEYS = np.empty(0, np.uint64)


def chunk_task(where: str, y_true: Any, y_score: Any, sample_weight: Any,
               pos_label: Any = None,
               points: int = SAMPLE_POINTS) -> tuple[ChunkStats, inputs.Task | None]:
    """Check one chunk and make it a canonical task; its statistics, and the task.

    Scores, labels and weights are checked as the in-process call checks them
    (scores finite); the weights are kept as given, so that the unit chosen
    for the whole task divides them exactly as in-process. ``points`` sampled
    scores (0: none) balance the score ranges. An empty chunk gives no task.
    """
    try:
        s = inputs.as_array(y_score, "y_score")
        if s.ndim == 1 and s.shape[0] == 0:
            return ChunkStats(where, 0, 0, 0.0, 0.0, None, None, None, _NO_KEYS), None
        values, dtype = inputs.scores_1d(s)
        n = values.shape[0]
        labels, npos = inputs.labels_1d(y_true, n, pos_label)
        w = inputs.weights(sample_weight, n)
        inputs.check_finite(values)
    except (ValueError, TypeError) as exc:
        raise located(exc, where) from exc
    negative = None
    if npos < n:
        first = int(np.argmin(labels))  # the first negative
        negative = inputs.plain(inputs.as_array(y_true, "y_true")[first])
    pmax, nmax = inputs.class_maxima(w, labels) if w is not None else (0.0, 0.0)
    task = inputs.Task(values, dtype, labels, npos, w, 1.0, True, (0.0, 0.0))
    keys = score_ranges.sample_keys(task, points) if points > 0 else _NO_KEYS
    return ChunkStats(where, n, npos, pmax, nmax, values.dtype, dtype, negative, keys), task


def _choose_pivots(samples: list[tuple[np.ndarray, int]], ranges: int) -> np.ndarray:
    """:func:`fastrank._core.score_ranges.choose_pivots` for any number of ranges."""
    if ranges <= MAX_PIVOTS + 1:
        return np.asarray(score_ranges.choose_pivots(samples, ranges), np.uint64)
    points = [(k, size) for k, size in samples if size and k.shape[0]]
    if not points:
        return _NO_KEYS
    keys = np.concatenate([k for k, _ in points])
    weights = np.concatenate([np.full(k.shape[0], size / k.shape[0]) for k, size in points])
    order = np.argsort(keys, kind="stable")
    keys, cum = keys[order], np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, ranges) / ranges
    at = np.minimum(np.searchsorted(cum, targets, side="right"), keys.shape[0] - 1)
    piv = np.unique(keys[at])
    above: np.ndarray = piv[piv > keys[0]].astype(np.uint64)
    return above


def plan_ranges(stats: Sequence[ChunkStats], slots: int, ranges: int | None,
                request: Request, *, weighted: bool, pos_label: Any = None) -> Plan:
    """The score ranges of one task and the units of its weights, from its chunks.

    ``slots``: the ranges the task graph has; ``ranges``: how many to use
    (``None``: :func:`default_ranges` of the task's rows, at most ``slots``).
    The weights' unit is the in-process call's (from the whole task's class
    maxima), so that the results are the same bit for bit.
    """
    n = sum(c.size for c in stats)
    if n == 0:
        raise ValueError("y_score is empty; at least one sample is needed")
    full = [c for c in stats if c.size]
    canonical = full[0].canonical
    dtype = full[0].dtype
    assert canonical is not None and dtype is not None
    for c in full:
        if c.canonical != canonical:
            raise TypeError(f"{c.where}: y_score has dtype {c.dtype}, but {full[0].where} "
                            f"has {dtype}; every chunk needs the same dtype")
    _labels_agree([c.negative for c in full], any(c.npos for c in full), pos_label, "chunks")
    npos = sum(c.npos for c in full)
    unit, bounds, shift = 1.0, (0.0, 0.0), 0
    if weighted:
        pmax = max(c.pmax for c in full)
        nmax = max(c.nmax for c in full)
        unit, shift = inputs.weight_units(pmax, nmax, n)
        bounds = (pmax / unit * npos, nmax / math.ldexp(unit, shift) * (n - npos))
    count = min(slots, default_ranges(n)) if ranges is None else ranges
    pivots = _NO_KEYS
    if count > 1:
        pivots = _choose_pivots([(c.keys, c.size) for c in full], count)
    pivots = np.ascontiguousarray(pivots[:max(0, slots - 1)], np.uint64)
    return Plan(pivots, slots, n, npos, unit, bounds, canonical, dtype, weighted, request,
                shift)


def _empty_piece(plan: Plan) -> Piece:
    return Piece(np.empty(0, plan.canonical), np.empty(0, np.uint8),
                 np.empty(0, np.float64) if plan.weighted else None, 0)


def _cut(t: inputs.Task, pivots: np.ndarray, nthreads: int) -> list[Piece]:
    """A task cut at ``pivots`` (any number), highest range first.

    :func:`fastrank._core.score_ranges.cut_ranges` cuts at up to ``MAX_PIVOTS``
    keys; more are cut in stages: into eight coarse ranges first, each of
    them then at the pivots inside it.
    """
    m = pivots.shape[0]
    if m == 0:
        return [Piece(t.values, t.labels, t.weights, t.npos)]
    if t.values.shape[0] == 0:
        return [Piece(t.values, t.labels, t.weights, 0)] * (m + 1)
    if m <= MAX_PIVOTS:
        return [Piece(p.values, p.labels, p.weights, p.npos)
                for p in score_ranges.cut_ranges(t, pivots, nthreads)]
    edges = [(m + 1) * b // 8 for b in range(9)]  # coarse range b: fine ranges edges[b]..
    coarse = pivots[[e - 1 for e in edges[1:8]]]
    out: list[Piece] = []
    for b, part in zip(range(7, -1, -1), score_ranges.cut_ranges(t, coarse, nthreads), strict=True):
        sub = t._replace(values=part.values, labels=part.labels, weights=part.weights,
                         npos=part.npos)
        out.extend(_cut(sub, pivots[edges[b]:edges[b + 1] - 1], nthreads))
    return out


def cut_chunk(task: inputs.Task | None, plan: Plan, threads: int | None = 1) -> tuple[Piece, ...]:
    """One chunk's rows by score range, highest range first: ``plan.slots`` pieces
    (weights divided by the plan's unit). Equal scores always share a range."""
    if task is None:
        return (_empty_piece(plan),) * plan.slots
    if task.weights is not None:
        task = task._replace(weights=inputs.in_units(task.weights, task.labels, plan.unit,
                                                     plan.shift))
    with workers.thread_limit(threads):
        n = task.values.shape[0]
        nthreads = workers.threads() if n >= workers.PARALLEL_MIN else 1
        pieces = _cut(task, plan.pivots, nthreads)
    pieces.extend([_empty_piece(plan)] * (plan.slots - len(pieces)))
    return tuple(pieces)


def _weighted_base(plan: Plan) -> tuple[np.ndarray, np.ndarray]:
    """A weighted task's state before its totals are known, in the in-process units."""
    return score_ranges.weighted_state(plan.bounds, plan.request.max_fpr, plan.request.what,
                                 plan.shift)


def _joined(pieces: Sequence[Piece], plan: Plan) -> tuple[Any, ...] | None:
    """The rows of ``pieces`` as one set of arrays (None: no rows)."""
    full = [p for p in pieces if p.values.shape[0]]
    if not full:
        return None
    if len(full) == 1:
        p = full[0]
        return p.values, p.labels, p.weights, p.npos
    values = np.concatenate([p.values for p in full])
    labels = np.concatenate([p.labels for p in full])
    weights = None
    if plan.weighted:
        weights = np.concatenate([p.weights for p in full if p.weights is not None])
    return values, labels, weights, sum(p.npos for p in full)


def sort_range(pieces: Sequence[Piece], plan: Plan,
               threads: int | None = 1) -> tuple[by_class.Classes | None, tuple[int, int]]:
    """One score range: its pieces from every chunk joined, split by class and
    sorted, and its class totals (counts, or exact fixed-point sums weighted)."""
    joined = _joined(pieces, plan)
    if joined is None:
        return None, (0, 0)
    values, labels, weights, npos = joined
    with workers.thread_limit(threads):
        classes = by_class.sorted_range(values, labels, weights, npos)
        if not plan.weighted:
            return classes, (npos, values.shape[0] - npos)
        st, _ = _weighted_base(plan)
        return classes, score_ranges.range_totals(classes, st, inputs.SPECS[plan.canonical])


def range_base(totals: Sequence[tuple[int, int]], plan: Plan) -> Base:
    """The task's sweep state from its ranges' totals (highest range first), and
    the totals above each range."""
    req = plan.request
    ptot = sum(int(p) for p, _ in totals)
    ntot = sum(int(q) for _, q in totals)
    if plan.weighted:
        st, sk = _weighted_base(plan)
        score_ranges.set_weighted_totals(st, ptot, ntot)
    else:
        st, sk = new_state(float(ptot), float(ntot), req.max_fpr, req.what)
    above = []
    p = q = 0
    for a, b in totals:
        above.append((p, q))
        p, q = p + int(a), q + int(b)
    return Base(st, sk, above, plan.weighted)


def sweep_range(classes: by_class.Classes | None, base: Base, r: int,
                threads: int | None = 1) -> tuple[np.ndarray, np.ndarray] | None:
    """The sweep state of range ``r`` (its sorted classes) below the ranges above
    it (``None`` for an empty range)."""
    if classes is None:
        return None
    spec = inputs.SPECS[classes.p.dtype]
    with workers.thread_limit(threads):
        return score_ranges.sweep_range(classes, base.st, spec, base.above[r], base.weighted)


def combine_ranges(states: Sequence[tuple[np.ndarray, np.ndarray] | None], base: Base,
                   plan: Plan) -> reduce.Results:
    """The task's raw results from its ranges' sweep states (highest range first),
    totals in the caller's units (as ``fastrank._core.api.task_results``)."""
    full = [s for s in states if s is not None]
    st = np.array([s[0] for s in full], np.float64).reshape(len(full), S_SIZE)
    sk = np.array([s[1] for s in full], np.uint64).reshape(len(full), K_SIZE)
    out, key = score_ranges.combine_states(base.st, base.sk, st, sk)
    return _results(out, key, plan)


def _results(out: np.ndarray, key: int, plan: Plan) -> reduce.Results:
    out[OUT_POS] *= plan.unit
    out[OUT_NEG] *= math.ldexp(plan.unit, plan.shift)
    threshold = api.threshold_of(key, plan.canonical, plan.dtype) if out[OUT_POS] > 0 else np.nan
    return reduce.Results(out[None, :], np.array([threshold]), np.array([plan.n]), None, "one")


def gather_results(prepared: Sequence[tuple[ChunkStats, inputs.Task | None]], request: Request,
                   *, weighted: bool, pos_label: Any = None,
                   threads: int | None = 1) -> reduce.Results:
    """One task taken as a single range: its checked chunks (:func:`chunk_task`)
    joined and computed as the in-process call computes the whole task."""
    plan = plan_ranges([c for c, _ in prepared], 1, 1, request, weighted=weighted,
                       pos_label=pos_label)
    tasks = [t for _, t in prepared if t is not None]
    values = np.concatenate([t.values for t in tasks]) if len(tasks) > 1 else tasks[0].values
    labels = np.concatenate([t.labels for t in tasks]) if len(tasks) > 1 else tasks[0].labels
    w = None
    if weighted:
        w = np.concatenate([t.weights for t in tasks if t.weights is not None])
        w = inputs.in_units(w, labels, plan.unit, plan.shift)
    task = inputs.Task(values, plan.dtype, labels, plan.npos, w, plan.unit, True, plan.bounds,
                       plan.shift)
    with workers.thread_limit(threads):
        return api.task_results(task, request)
