"""fastrank on Dask: the metrics of data larger than one machine, exact.

The functions carry the names and keywords of the top-level ones, plus
``compute`` (``False``: a lazy ``dask.delayed`` result), ``threads`` (the
threads fastrank may use inside each Dask task; default 1), ``ranges`` (one
huge task: how many score ranges) and, for data frames, ``data``. Three
layouts, chosen by the input:

* **Per task**: ``y_score`` a dask array ``(n_samples, n_tasks)`` and
  ``y_true`` one of the same shape and chunks (or a numpy array). A block
  must hold every sample of its tasks: when the samples are split into
  several chunks, the arrays are rechunked to whole columns first (all to
  all: a :class:`RechunkWarning` gives the bytes moved). Each block then goes
  through the batched call once.
* **Per group**: ``data`` a dask DataFrame, and ``y_true``, ``y_score``,
  ``groups`` (and ``sample_weight``) its column names. The frame is shuffled
  by group, so that every group lies in one partition, and each partition
  goes through the grouped call once.
* **One huge task**: ``y_score`` a 1-D dask array (or a column of ``data``
  without ``groups``). Each chunk is checked and its scores sampled; the
  samples choose score ranges; every chunk is cut by range, and each range
  gathers its rows from every chunk (a shuffle by score range: ties never
  span two ranges), is split by class, sorted and swept on its own from the
  class totals of the ranges above it; the ranges' sweeps are then combined.
  The number of ranges depends on the data's size, not on the number of
  chunks (about one per 16 million rows, at most 64; ``ranges=`` sets it), so
  the task graph grows linearly with the chunks. A task taken as one range
  is gathered whole into one Dask task.

:func:`binned_summary` is the approximate path: a
:class:`~fastrank.BinnedSummary` per chunk, reduced as a tree, with
certified bounds and no shuffle.

Results equal the in-process call's bit for bit, in every layout and with
any chunking, number of ranges and weights: every sum fastrank's sweep keeps
is exact, so a task cut into blocks, chunks or score ranges gives the sums
of one sweep over it, and the weights are scaled by the unit the in-process
call would choose for the whole data.

Inside workers fastrank runs on at most ``threads`` of its own threads (1
unless given), for the calling thread only: Dask's own threads and
processes provide the parallelism, nothing is oversubscribed, and Numba's
thread setting is never changed.
"""

from __future__ import annotations

import math
import operator
import os
import sys
import uuid
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import distributed as dist
from ._core import api, reduce, registry
from ._core.messages import located
from ._core.registry import Request
from ._optional import require
from .summaries import BinnedSummary

__all__ = [
    "RechunkWarning",
    "all_metrics",
    "average_precision",
    "binned_summary",
    "d_prime",
    "pr_auc",
    "prbe",
    "roc_auc",
]


class RechunkWarning(UserWarning):
    """A rechunk that moves (nearly) all the data between workers."""


def _dask() -> tuple[Any, Any]:
    dask = require("dask", "fastrank.dask")
    da = require("dask.array", "fastrank.dask")
    return dask, da


def _is_dask_array(x: Any) -> bool:
    return type(x).__module__.startswith("dask.array") and hasattr(x, "chunks")


def _is_dask_frame(x: Any) -> bool:
    mod = type(x).__module__
    return (mod.startswith("dask.dataframe") or mod.startswith("dask_expr")) and hasattr(
        x, "npartitions"
    )


# ------------------------------------------------------------------ checks


def _known_chunks(x: Any, name: str) -> None:
    if any(math.isnan(c) for dim in x.chunks for c in dim):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first "
            "(or build it with known lengths)"
        )


def _numeric(dtype: Any, name: str) -> None:
    try:
        kind = np.dtype(dtype).kind
    except TypeError:  # a pandas extension dtype (strings, nullable numbers)
        kind = "O"
    if kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers (float, int or bool); got dtype {dtype}")


def _as_dask(x: Any, like: Any, name: str, da: Any) -> Any:
    """``x`` as a dask array chunked like ``like`` (numpy input), or checked (dask input)."""
    if _is_dask_array(x):
        _known_chunks(x, name)
        if tuple(x.shape) != tuple(like.shape[: x.ndim]):
            raise ValueError(f"{name} has shape {x.shape} but y_score has shape {like.shape}")
        if x.ndim == like.ndim and x.chunks != like.chunks:
            raise ValueError(
                f"{name} and y_score are chunked differently ({x.chunks} and {like.chunks}); "
                f"rechunk one like the other, e.g. {name}.rechunk(y_score.chunks)"
            )
        return x
    a = np.asarray(x)
    if tuple(a.shape) != tuple(like.shape[: a.ndim]):
        raise ValueError(f"{name} has shape {a.shape} but y_score has shape {like.shape}")
    return da.from_array(a, chunks=like.chunks[: a.ndim])


def _weights_vector(sample_weight: Any, n: int) -> Any:
    """The weights as one numpy vector or a one-chunk dask array (every block needs them all)."""
    if sample_weight is None:
        return None
    if _is_dask_array(sample_weight):
        _known_chunks(sample_weight, "sample_weight")
        if sample_weight.ndim != 1 or sample_weight.shape[0] != n:
            raise ValueError(
                f"sample_weight must be 1-D with one weight per sample ({n}); "
                f"got shape {sample_weight.shape}"
            )
        return sample_weight.rechunk(-1)
    w = np.asarray(sample_weight)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"sample_weight must be 1-D with one weight per sample ({n}); got shape {w.shape}"
        )
    return w


# ------------------------------------------------------------------ results


class _Call(NamedTuple):
    """One call's metric with its options resolved."""

    request: Request
    return_threshold: bool


def _call(name: str, weighted: bool, *, ties: str = "grouped", max_fpr: Any = None,
          return_threshold: bool = False) -> _Call:
    return _Call(registry.request(name, weighted=weighted, ties=ties, max_fpr=max_fpr),
                 return_threshold)


def _internal_dirs() -> tuple[str, ...]:
    dirs = []
    for name in ("fastrank", "dask", "distributed", "toolz", "tlz"):
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            dirs.append(os.path.dirname(os.path.abspath(file)) + os.sep)
    return tuple(dirs)


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside fastrank and Dask, counted from
    the caller of this function (1), so that a warning names the user's line."""
    dirs = _internal_dirs()
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(dirs):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level if frame is not None else 1


def _finisher(call: _Call, average: Any) -> Callable[[reduce.Results], Any]:
    """What the call returns, from its raw results (run on the client, or in the
    graph for ``compute=False``); the one warning names the caller's line."""
    def finish(res: reduce.Results) -> Any:
        return reduce.finish(call.request, res, average,
                             return_threshold=call.return_threshold, stacklevel=_caller_level())

    return finish


class _Graph:
    """The tasks of one call, all in one layer of a Dask high-level graph.

    Every ``dask.delayed`` call is a layer of its own, and Dask's graph
    optimisation costs about layers x tasks: the 35,000 tasks of one huge
    task in 500 partitions took 32 s that way, 5.5 s in one layer, where the
    cost stays linear in the tasks. Tasks are Dask's task specs, whose
    references to other tasks (and to persisted inputs) are explicit.
    """

    def __init__(self, label: str, inputs: Sequence[Any]) -> None:
        self.layer = f"fastrank-{label}-{uuid.uuid4().hex}"
        self.tasks: dict[Any, Any] = {}
        self.inputs = [x for x in inputs if x is not None]

    def add(self, func: Callable[..., Any], *args: Any, **static: Any) -> Any:
        """A task ``func(*args, **static)`` and the reference to its value: ``args``
        may hold references (:func:`_ref`, or from ``add``), in lists too."""
        from dask._task_spec import Task, TaskRef, parse_input

        key = (self.layer, len(self.tasks))
        self.tasks[key] = Task(key, func, *(parse_input(a) for a in args), **static)
        return TaskRef(key)

    def item(self, ref: Any, i: int) -> Any:
        return self.add(operator.getitem, ref, i)

    def result(self, ref: Any, compute: bool, finish: Callable[[Any], Any]) -> Any:
        """``finish`` of the value of task ``ref``: computed now, or a delayed object."""
        dask, _ = _dask()
        from dask.delayed import Delayed
        from dask.highlevelgraph import HighLevelGraph

        if not compute:
            ref = self.add(finish, ref)
        graph = HighLevelGraph.from_collections(self.layer, self.tasks,
                                                dependencies=self.inputs)
        out = Delayed(ref.key, graph, layer=self.layer)  # type: ignore[no-untyped-call]
        return finish(dask.compute(out)[0]) if compute else out


def _ref(x: Any) -> Any:
    """A reference to a delayed object's value (None stays None)."""
    from dask._task_spec import TaskRef

    return None if x is None else TaskRef(x.key)


# ------------------------------------------------------------------ layouts


def _per_task(call: _Call, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
              average: Any, compute: bool, threads: int | None) -> Any:
    dask, da = _dask()
    _known_chunks(y_score, "y_score")
    _numeric(y_score.dtype, "y_score")
    n, t = y_score.shape
    if n == 0 or t == 0:
        raise ValueError(f"y_score has shape {y_score.shape}; at least one sample and task needed")
    if np.ndim(y_true) != 2:
        raise ValueError(
            "fastrank.dask scores (n_samples, n_tasks) dask arrays against labels of the same "
            f"shape; got y_true of shape {np.shape(y_true)}"
        )
    y = _as_dask(y_true, y_score, "y_true", da)
    w = _weights_vector(sample_weight, n)
    s = y_score
    if s.numblocks[0] > 1:  # a block must hold every sample of its tasks
        moved = s.nbytes + y.nbytes
        warnings.warn(
            f"y_score and y_true are split along the samples into {s.numblocks[0]} chunks; "
            f"rechunking them to whole columns moves about {moved / 2**20:,.1f} MiB between "
            "workers (all to all). Chunk only along the tasks to avoid it.",
            RechunkWarning,
            stacklevel=4,
        )
        s = s.rechunk({0: -1, 1: "auto"})
        y = y.rechunk(s.chunks)
    sb = list(s.to_delayed().ravel())
    yb = list(y.to_delayed().ravel())
    # one key for the weights, shared by every block (not a copy in each task)
    wd = w.to_delayed().ravel()[0] if _is_dask_array(w) else (
        None if w is None else dask.delayed(w))
    g = _Graph("tasks", [*sb, *yb, wd])
    starts = np.concatenate([[0], np.cumsum(s.chunks[1])])
    where = [f"tasks {starts[j]}..{starts[j + 1] - 1}" for j in range(len(sb))]
    blocks = [
        g.add(dist.block_results, where[j], _ref(yb[j]), _ref(sb[j]), _ref(wd),
              request=call.request, pos_label=pos_label, threads=threads)
        for j in range(len(sb))
    ]
    joined = g.add(dist.concat_results, blocks, "tasks", pos_label=pos_label)
    return g.result(joined, compute, _finisher(call, average))


def _per_group(call: _Call, data: Any, y_true: str, y_score: str, groups: str,
               sample_weight: str | None, pos_label: Any, average: Any, compute: bool,
               threads: int | None) -> Any:
    cols = [groups, y_true, y_score] + ([sample_weight] if sample_weight is not None else [])
    parts = list(data[cols].shuffle(on=groups).to_delayed())
    g = _Graph("groups", parts)
    blocks = [
        g.add(_group_block, f"partition {i}", _ref(part), cols=cols, pos_label=pos_label,
              request=call.request, threads=threads)
        for i, part in enumerate(parts)
    ]
    joined = g.add(dist.concat_results, blocks, "groups", pos_label=pos_label)
    return g.result(joined, compute, _finisher(call, average))


def _check_columns(data: Any, cols: list[str], y_score: str, sample_weight: str | None) -> None:
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise ValueError(f"data has no column(s) {missing}; it has {list(data.columns)}")
    _numeric(data.dtypes[y_score], f"column {y_score!r}")
    if sample_weight is not None:
        _numeric(data.dtypes[sample_weight], f"column {sample_weight!r}")


def _group_block(where: str, part: Any, *, cols: list[str],
                 pos_label: Any, request: Request,
                 threads: int | None) -> dist.Block | None:
    # The order of a group's rows after the shuffle does not matter: every sum
    # is exact, weighted ones too.
    g, y, s = (part[c].to_numpy() for c in cols[:3])
    w = part[cols[3]].to_numpy() if len(cols) > 3 else None
    return dist.block_results(where, y, s, w, request=request, pos_label=pos_label, groups=g,
                              threads=threads)


def _one_task(call: _Call, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
              compute: bool, threads: int | None, ranges: int | None) -> Any:
    _, da = _dask()
    _known_chunks(y_score, "y_score")
    _numeric(y_score.dtype, "y_score")
    n = y_score.shape[0]
    if n == 0:
        raise ValueError("y_score is empty; at least one sample is needed")
    y = _as_dask(y_true, y_score, "y_true", da)
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D like y_score; got shape {y.shape}")
    w = sample_weight
    if w is not None:
        w = _as_dask(w, y_score, "sample_weight", da)
    if ranges is not None:
        ranges = min(ranges, n)  # (more ranges than rows: a graph of empty ranges, no gain)
    slots = ranges or dist.default_ranges(n)
    sb = list(y_score.to_delayed().ravel())
    yb = list(y.to_delayed().ravel())
    wb = list(w.to_delayed().ravel()) if w is not None else [None] * len(sb)
    g = _Graph("task", [*sb, *yb, *wb])
    starts = np.concatenate([[0], np.cumsum(y_score.chunks[0])]).astype(np.int64)
    points = dist.SAMPLE_POINTS if slots > 1 else 0
    prepared = [
        g.add(dist.chunk_task, f"chunk {i} (rows {starts[i]}..{starts[i + 1] - 1})", _ref(yc),
              _ref(sc), _ref(wc), pos_label=pos_label, points=points)
        for i, (yc, sc, wc) in enumerate(zip(yb, sb, wb, strict=True))
    ]
    return _ranges_graph(g, call, prepared, slots, ranges, w is not None, pos_label, compute,
                         threads)


def _frame_task(call: _Call, data: Any, y_true: str, y_score: str, sample_weight: str | None,
                pos_label: Any, compute: bool, threads: int | None, ranges: int | None) -> Any:
    """One huge task from columns of a frame. Its size is only known once it is
    read, so the graph has a range per partition (at most ``MAX_RANGES``) and
    uses as many as :func:`~fastrank.distributed.default_ranges` of its rows."""
    cols = [c for c in (y_true, y_score, sample_weight) if c is not None]
    parts = list(data[cols].to_delayed())
    g = _Graph("task", parts)
    slots = ranges or min(dist.MAX_RANGES, max(1, len(parts)))
    points = dist.SAMPLE_POINTS if slots > 1 else 0
    prepared = [
        g.add(_frame_chunk, f"partition {i}", _ref(part), y_true=y_true, y_score=y_score,
              sample_weight=sample_weight, pos_label=pos_label, points=points)
        for i, part in enumerate(parts)
    ]
    return _ranges_graph(g, call, prepared, slots, ranges, sample_weight is not None, pos_label,
                         compute, threads)


def _frame_chunk(where: str, part: Any, *, y_true: str, y_score: str, sample_weight: str | None,
                 pos_label: Any, points: int) -> tuple[dist.ChunkStats, Any]:
    w = None if sample_weight is None else part[sample_weight].to_numpy()
    return dist.chunk_task(where, part[y_true].to_numpy(), part[y_score].to_numpy(), w,
                           pos_label, points)


def _ranges_graph(g: _Graph, call: _Call, prepared: list[Any], slots: int, ranges: int | None,
                  weighted: bool, pos_label: Any, compute: bool, threads: int | None) -> Any:
    """The graph of one task given as checked chunks (tasks of ``g`` giving
    :func:`~fastrank.distributed.chunk_task` results), cut into ``slots`` score ranges.

    Its size is linear in the chunks: a few tasks per chunk, a piece per chunk
    and range (``slots`` is bounded), a few per range.
    """
    req = call.request
    if slots == 1:  # one range: the chunks are joined and computed as one task
        result = g.add(dist.gather_results, prepared, req, weighted=weighted,
                       pos_label=pos_label, threads=threads)
        return g.result(result, compute, _finisher(call, None))
    stats = [g.item(p, 0) for p in prepared]
    tasks = [g.item(p, 1) for p in prepared]
    plan = g.add(dist.plan_ranges, stats, slots, ranges, req, weighted=weighted,
                 pos_label=pos_label)
    cuts = [g.add(dist.cut_chunk, task, plan, threads) for task in tasks]
    pieces = [[g.item(cut, r) for cut in cuts] for r in range(slots)]
    sorted_ = [g.add(dist.sort_range, pieces[r], plan, threads) for r in range(slots)]
    totals = [g.item(rg, 1) for rg in sorted_]
    base = g.add(dist.range_base, totals, plan)
    states = [g.add(dist.sweep_range, g.item(rg, 0), base, r, threads)
              for r, rg in enumerate(sorted_)]
    result = g.add(dist.combine_ranges, states, base, plan)
    return g.result(result, compute, _finisher(call, None))


# ------------------------------------------------------------------ dispatch


def _run(name: str, call: _Call, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
         average: Any, groups: Any, data: Any, compute: bool, threads: int | None,
         ranges: int | None) -> Any:
    if ranges is not None and (isinstance(ranges, bool) or not isinstance(ranges, int)
                               or ranges < 1):
        raise ValueError(f"ranges must be a positive integer or None; got {ranges!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a positive integer or None; got {threads!r}")
    batched = groups is not None or getattr(y_score, "ndim", 1) == 2
    if batched:  # one task ignores average, as a 1-D in-process call does
        api.check_batch_average(average, call.return_threshold)
        if average == "samples":  # (the tasks here are columns or groups, never rows)
            raise ValueError(
                "average='samples' scores each sample's row as a task, which fastrank.dask "
                "does not compute: its tasks are the columns (or the groups); compute it in "
                "memory (fastrank's own functions), or pick another average"
            )
    if data is not None:
        if not _is_dask_frame(data):
            raise TypeError(f"data must be a dask DataFrame; got {type(data).__name__}")
        for what, col in (("y_true", y_true), ("y_score", y_score), ("groups", groups),
                          ("sample_weight", sample_weight)):
            if col is not None and not isinstance(col, str):
                raise TypeError(f"with data=, {what} must be a column name; got {col!r}")
        cols = [c for c in (groups, y_true, y_score, sample_weight) if c is not None]
        _check_columns(data, cols, y_score, sample_weight)
        if groups is None:
            return _frame_task(call, data, y_true, y_score, sample_weight, pos_label, compute,
                               threads, ranges)
        if average == "micro":
            raise ValueError(
                "average='micro' pools every row into one task: leave out groups= to compute "
                "it as one huge task"
            )
        return _per_group(call, data, y_true, y_score, groups, sample_weight, pos_label,
                          average, compute, threads)
    if _is_dask_frame(y_score) or _is_dask_frame(y_true):
        raise TypeError(
            "pass a dask DataFrame as data= and the columns by name, e.g. "
            "roc_auc('label', 'score', groups='user', data=frame)"
        )
    if not _is_dask_array(y_score):
        raise TypeError(
            f"y_score must be a dask array (or a column of data=); got {type(y_score).__name__}. "
            "For in-memory arrays use fastrank." + name
        )
    if groups is not None:
        raise ValueError(
            "groups= takes a dask DataFrame: pass data=frame and the column names"
        )
    if y_score.ndim == 2:
        if average == "micro":
            raise ValueError(
                "average='micro' pools every cell into one task: pass the flattened arrays "
                "(y_score.ravel(), y_true.ravel()) as one huge task instead"
            )
        return _per_task(call, y_true, y_score, sample_weight, pos_label, average, compute,
                         threads)
    if y_score.ndim == 1:
        return _one_task(call, y_true, y_score, sample_weight, pos_label, compute, threads,
                         ranges)
    raise ValueError(f"y_score must be 1-D or 2-D; got shape {y_score.shape}")


def average_precision(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    ties: str = "grouped", average: Any = "macro", groups: Any = None, data: Any = None,
    compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.average_precision` over dask arrays or a dask DataFrame.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label, ties, average, groups
        As in :func:`fastrank.average_precision`; ``y_score`` a dask array
        (1-D: one huge task; 2-D: one task per column), or with ``data`` the
        names of its columns. ``average`` is ignored for one task, as in
        process; ``"micro"`` is for one huge task only, and ``"samples"`` is
        refused (a ValueError): the tasks here are columns or groups.
    data : dask DataFrame, optional
        Then ``y_true``, ``y_score``, ``groups`` and ``sample_weight`` are
        its column names (``groups``: one task per group; without it the
        rows are one huge task).
    compute : bool, default True
        ``False`` returns a ``dask.delayed`` object; ``.compute()`` gives the
        result.
    threads : int or None, default 1
        The threads fastrank may use inside each Dask task (``None``: Numba's
        setting, ``numba.set_num_threads``).
    ranges : int, optional
        One huge task only: the number of score ranges it is cut into. The
        default depends on the data's size only (about one per 16 million
        rows, at most 64: :func:`fastrank.distributed.default_ranges`); any
        number gives the same result, bit for bit.

    Returns
    -------
    float, ndarray, GroupResult or dask.delayed
        What :func:`fastrank.average_precision` returns for the same data,
        bit for bit (or a delayed object giving it).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(0)
    >>> y, s = rng.random((1000, 6)) < 0.3, rng.random((1000, 6))
    >>> ys, ss = da.from_array(y, chunks=(1000, 2)), da.from_array(s, chunks=(1000, 2))
    >>> fastrank.dask.average_precision(ys, ss) == fastrank.average_precision(y, s)
    True
    >>> y1, s1 = y.ravel(), s.ravel()                      # one task in 6 chunks, 3 ranges
    >>> ap = fastrank.dask.average_precision(da.from_array(y1, chunks=1000),
    ...                                      da.from_array(s1, chunks=1000), ranges=3)
    >>> ap == fastrank.average_precision(y1, s1)
    True
    """
    call = _call("average_precision", sample_weight is not None, ties=ties)
    return _run("average_precision", call, y_true, y_score, sample_weight, pos_label, average,
                groups, data, compute, threads, ranges)


def roc_auc(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    max_fpr: float | None = None, average: Any = "macro", groups: Any = None, data: Any = None,
    compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.roc_auc` over dask arrays or a dask DataFrame (see
    :func:`average_precision` for ``data``, ``compute``, ``threads`` and ``ranges``).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(0)
    >>> y, s, w = rng.random(10_000) < 0.3, rng.random(10_000), rng.random(10_000)
    >>> dy, ds = da.from_array(y, chunks=2500), da.from_array(s, chunks=2500)  # 4 chunks
    >>> fastrank.dask.roc_auc(dy, ds) == fastrank.roc_auc(y, s)                # bit for bit
    True
    >>> auc = fastrank.dask.roc_auc(dy, ds, sample_weight=da.from_array(w, chunks=2500),
    ...                             ranges=5)
    >>> auc == fastrank.roc_auc(y, s, sample_weight=w)
    True
    """
    call = _call("roc_auc", sample_weight is not None, max_fpr=max_fpr)
    return _run("roc_auc", call, y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges)


def pr_auc(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    average: Any = "macro", groups: Any = None, data: Any = None, compute: bool = True,
    threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.pr_auc` over dask arrays or a dask DataFrame (see
    :func:`average_precision`).

    Examples
    --------
    >>> import dask.dataframe as dd, numpy as np, pandas as pd, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(0)
    >>> log = pd.DataFrame({"user": rng.integers(0, 50, 2000), "y": rng.random(2000) < 0.3,
    ...                     "s": rng.random(2000)})
    >>> frame = dd.from_pandas(log, npartitions=3)
    >>> got = fastrank.dask.pr_auc("y", "s", groups="user", data=frame, average=None)
    >>> want = fastrank.pr_auc(log.y, log.s, groups=log.user, average=None)
    >>> bool(np.array_equal(got.values, want.values) and np.array_equal(got.groups, want.groups))
    True
    """
    call = _call("pr_auc", sample_weight is not None)
    return _run("pr_auc", call, y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges)


def d_prime(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    average: Any = "macro", groups: Any = None, data: Any = None, compute: bool = True,
    threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.d_prime` over dask arrays or a dask DataFrame (see
    :func:`average_precision`).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(1)
    >>> y, s = rng.random(3000) < 0.5, rng.standard_normal(3000)
    >>> lazy = fastrank.dask.d_prime(da.from_array(y, chunks=1000),
    ...                              da.from_array(s, chunks=1000), compute=False)
    >>> lazy.compute() == fastrank.d_prime(y, s)
    True
    """
    call = _call("d_prime", sample_weight is not None)
    return _run("d_prime", call, y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges)


def prbe(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    return_threshold: bool = False, average: Any = "macro", groups: Any = None,
    data: Any = None, compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.prbe` over dask arrays or a dask DataFrame (see
    :func:`average_precision`).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(2)
    >>> y, s = rng.random(4000) < 0.2, np.round(rng.random(4000), 2)
    >>> got = fastrank.dask.prbe(da.from_array(y, chunks=1000), da.from_array(s, chunks=1000),
    ...                          return_threshold=True, ranges=4)
    >>> got == fastrank.prbe(y, s, return_threshold=True)
    True
    """
    call = _call("prbe", sample_weight is not None, return_threshold=return_threshold)
    return _run("prbe", call, y_true, y_score, sample_weight, pos_label, average, groups, data,
                compute, threads, ranges)


def all_metrics(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    max_fpr: float | None = None, average: Any = "macro", groups: Any = None, data: Any = None,
    compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.all_metrics` over dask arrays or a dask DataFrame (see
    :func:`average_precision`).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(3)
    >>> y, s = rng.random(5000) < 0.3, rng.random(5000).astype(np.float32)
    >>> m = fastrank.dask.all_metrics(da.from_array(y, chunks=500), da.from_array(s, chunks=500),
    ...                               max_fpr=0.1, ranges=8)
    >>> m == fastrank.all_metrics(y, s, max_fpr=0.1)
    True
    """
    call = _call("all_metrics", sample_weight is not None, max_fpr=max_fpr)
    return _run("all_metrics", call, y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges)


# ------------------------------------------------------------------ approximate


def binned_summary(
    y_true: Any, y_score: Any, sample_weight: Any = None, *, summary: BinnedSummary | None = None,
    compute: bool = True, split_every: int = 8, **options: Any,
) -> Any:
    """A :class:`~fastrank.BinnedSummary` of dask arrays, reduced as a tree; no shuffle.

    Each chunk of rows is summarised where it lies (1-D, or ``(n_samples,
    n_tasks)`` chunked along the samples only), and the summaries are added
    ``split_every`` at a time. ``summary`` gives the bins (an empty summary,
    e.g. fitted on a sample); otherwise ``options`` are the
    :class:`~fastrank.BinnedSummary` constructor's. ``compute()`` on the
    result gives the estimate and certified bounds.

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(0)
    >>> y, s = rng.random(100_000) < 0.3, rng.random(100_000)
    >>> merged = fastrank.dask.binned_summary(da.from_array(y, chunks=10_000),
    ...                                       da.from_array(s, chunks=10_000), bins=500)
    >>> b = merged.compute("roc_auc")
    >>> bool(b.low <= fastrank.roc_auc(y, s) <= b.high), merged.rows
    (True, 100000)
    """
    _, da = _dask()
    if not _is_dask_array(y_score):
        raise TypeError(f"y_score must be a dask array; got {type(y_score).__name__}")
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every!r}")
    _known_chunks(y_score, "y_score")
    _numeric(y_score.dtype, "y_score")
    template = summary.empty_like() if summary is not None else BinnedSummary(**options)
    s = y_score if y_score.ndim == 1 else y_score.rechunk({1: -1})
    y = _as_dask(y_true, s, "y_true", da)
    w = None if sample_weight is None else _as_dask(sample_weight, s, "sample_weight", da)
    sb = list(s.to_delayed().ravel())
    yb = list(y.to_delayed().ravel())
    wb = list(w.to_delayed().ravel()) if w is not None else [None] * len(sb)
    g = _Graph("summary", [*sb, *yb, *wb])
    level = [
        g.add(_summarize, f"chunk {i}", _ref(yc), _ref(sc), _ref(wc), template=template)
        for i, (yc, sc, wc) in enumerate(zip(yb, sb, wb, strict=True))
    ]
    while len(level) > 1:
        level = [g.add(_add_all, level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    return g.result(level[0], compute, _same)


def _same(x: Any) -> Any:
    return x


def _summarize(where: str, y: Any, s: Any, w: Any, *, template: BinnedSummary) -> BinnedSummary:
    out = template.empty_like()
    try:
        with dist.thread_budget(1):
            out.update(y, s, w)
    except (ValueError, TypeError) as exc:
        raise located(exc, where) from exc
    return out


def _add_all(parts: list[BinnedSummary]) -> BinnedSummary:
    total = parts[0].copy()
    for p in parts[1:]:
        total.merge(p)
    return total
