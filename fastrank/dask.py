"""fastrank on Dask: the metrics of data larger than one machine, exact by default.

The functions carry the names and keywords of the top-level ones, plus
``compute`` (``False``: a lazy ``dask.delayed`` result), ``threads`` (the
Numba threads each task may use inside a worker; default 1) and, for data
frames, ``data``. Three layouts, chosen by the input:

* **Per task**: ``y_score`` a dask array ``(n_samples, n_tasks)`` and
  ``y_true`` one of the same shape and chunks (or a numpy array). A block
  must hold every sample of its tasks: when the samples are split into
  several chunks, the arrays are rechunked to whole columns first (all to
  all: a :class:`RechunkWarning` gives the bytes moved). Each block then goes
  through the batched kernel once.
* **Per group**: ``data`` a dask DataFrame, and ``y_true``, ``y_score``,
  ``groups`` (and ``sample_weight``) its column names. The frame is shuffled
  by group, so that every group lies in one partition, and each partition
  goes through the grouped (segmented) kernel once.
* **One huge task**: ``y_score`` a 1-D dask array (or a column of ``data``
  without ``groups``). A first pass samples each chunk's scores and chooses
  score ranges; a second cuts every chunk by range and counts each range's
  positives and negatives; each range then gathers its rows from every chunk
  (a shuffle by score range: ties never span two ranges), is grouped and
  swept on its own from the counts of the ranges above it, and the ranges'
  sweeps add up to the sweep of the whole task.

:func:`binned_summary` is the approximate path: a
:class:`~fastrank.BinnedSummary` per chunk, reduced as a tree, with
certified bounds and no shuffle.

Results equal the in-process call's: bit for bit for the per-task and
per-group layouts, and up to float64 rounding of the sums (1e-12) for one
huge task, whose sums are added range by range.

Inside workers every kernel runs on ``threads`` Numba threads (1 unless
given), set for the calling thread only and restored afterwards: Dask's own
threads and processes provide the parallelism, and nothing is oversubscribed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import distributed as dist
from ._optional import require
from .batch import check_average
from .metrics import batch_options, batch_result, check_prbe_average
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


def _finish(dask: Any, result: Any, compute: bool, finish: Callable[[Any], Any]) -> Any:
    if compute:
        return finish(dask.compute(result)[0])
    return dask.delayed(finish)(result)


# ------------------------------------------------------------------ layouts


def _per_task(name: str, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
              average: Any, options: dict[str, Any], compute: bool, threads: int | None,
              ) -> Any:
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
            stacklevel=3,
        )
        s = s.rechunk({0: -1, 1: "auto"})
        y = y.rechunk(s.chunks)
    m, what = options["_m"], options["_what"]
    sb = s.to_delayed().ravel()
    yb = y.to_delayed().ravel()
    # one key for the weights, shared by every block (not a copy in each task)
    wd = w.to_delayed().ravel()[0] if _is_dask_array(w) else (
        None if w is None else dask.delayed(w))
    starts = np.concatenate([[0], np.cumsum(s.chunks[1])])
    blocks = [
        dask.delayed(dist.block_results)(
            f"tasks {starts[j]}..{starts[j + 1] - 1}", yb[j], sb[j], wd, pos_label=pos_label,
            max_fpr=m, what=what, threads=threads,
        )
        for j in range(len(sb))
    ]
    joined = dask.delayed(dist.concat_results)(blocks, "tasks")
    return _finish(dask, joined, compute,
                   lambda res: batch_result(name, res, average, stacklevel=5, **options["_kw"]))


def _per_group(name: str, data: Any, y_true: str, y_score: str, groups: str,
               sample_weight: str | None, pos_label: Any, average: Any,
               options: dict[str, Any], compute: bool, threads: int | None) -> Any:
    dask, _ = _dask()
    cols = [groups, y_true, y_score] + ([sample_weight] if sample_weight is not None else [])
    frame = data[cols].shuffle(on=groups)
    m, what = options["_m"], options["_what"]
    parts = frame.to_delayed()
    blocks = [
        dask.delayed(_group_block)(
            f"partition {i}", part, cols, pos_label, m, what, threads
        )
        for i, part in enumerate(parts)
    ]
    joined = dask.delayed(dist.concat_results)(blocks, "groups")
    return _finish(dask, joined, compute,
                   lambda res: batch_result(name, res, average, stacklevel=5, **options["_kw"]))


def _check_columns(data: Any, cols: list[str], y_score: str, sample_weight: str | None) -> None:
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise ValueError(f"data has no column(s) {missing}; it has {list(data.columns)}")
    _numeric(data.dtypes[y_score], f"column {y_score!r}")
    if sample_weight is not None:
        _numeric(data.dtypes[sample_weight], f"column {sample_weight!r}")


def _group_block(where: str, part: Any, cols: list[str], pos_label: Any, m: float, what: int,
                 threads: int | None) -> Any:
    if len(cols) > 3:
        # Weighted sums depend on the order of a group's rows: the shuffle moved
        # them, and the index puts them back in the order of the input.
        part = part.sort_index(kind="stable")
    g, y, s = (part[c].to_numpy() for c in cols[:3])
    w = part[cols[3]].to_numpy() if len(cols) > 3 else None
    return dist.block_results(where, y, s, w, pos_label=pos_label, groups=g, max_fpr=m,
                              what=what, threads=threads)


def _one_task(name: str, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
              options: dict[str, Any], compute: bool, threads: int | None,
              ranges: int | None) -> Any:
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
    sb = list(y_score.to_delayed().ravel())
    yb = list(y.to_delayed().ravel())
    wb = list(w.to_delayed().ravel()) if w is not None else None
    return _ranges_graph(name, yb, sb, wb, pos_label, options, compute, threads, ranges)


def _ranges_graph(name: str, yb: list[Any], sb: list[Any], wb: list[Any] | None,
                  pos_label: Any, options: dict[str, Any], compute: bool, threads: int | None,
                  ranges: int | None) -> Any:
    """The range-shuffle graph of one task given as delayed chunks (labels, scores, weights)."""
    dask, _ = _dask()
    m, what = options["_m"], options["_what"]
    weighted = wb is not None
    wb = wb if wb is not None else [None] * len(sb)
    nr = ranges or len(sb)
    delayed = dask.delayed
    samples = [delayed(dist.chunk_sample)(f"chunk {i}", c) for i, c in enumerate(sb)]
    n = delayed(_rows)(samples)
    bounds = delayed(dist.range_bounds)(samples, nr)
    splits = [
        delayed(dist.split_ranges, nout=2)(f"chunk {i}", yc, sc, wc, pos_label, bounds)
        for i, (yc, sc, wc) in enumerate(zip(yb, sb, wb, strict=True))
    ]
    counts = [c for c, _ in splits]
    offsets = delayed(dist.range_offsets, nout=3)(counts)
    above, pos, neg = offsets[0], offsets[1], offsets[2]
    states = []
    for r in range(nr - 1, -1, -1):  # ranges past the number of bounds are empty
        pieces = [delayed(_piece)(parts, r) for _, parts in splits]
        states.append(delayed(_sweep_at)(pieces, above, r, pos, neg, m, what,
                                                     weighted, threads))
    combined = delayed(dist.combine_ranges)(states, m, what, n)
    return _finish(dask, combined, compute,
                   lambda res: batch_result(name, res, None, stacklevel=5, **options["_kw"]))


def _rows(samples: list[tuple[np.ndarray, int]]) -> int:
    return sum(size for _, size in samples)


def _column(part: Any, col: str) -> np.ndarray:
    values: np.ndarray = part[col].to_numpy()
    return values


def _piece(parts: list[Any], r: int) -> Any:
    if r < len(parts):
        return parts[r]
    return parts[0][0][:0], parts[0][1][:0], None


def _sweep_at(pieces: Any, above: np.ndarray, r: int, pos: float, neg: float, m: float,
              what: int, weighted: bool, threads: int | None) -> Any:
    tp0, fp0 = (above[r, 1], above[r, 0]) if r < above.shape[0] else (0.0, 0.0)
    with dist.thread_budget(threads):
        return dist.sweep_range(pieces, tp0, fp0, pos, neg, m, what, weighted)


# ------------------------------------------------------------------ dispatch


def _run(name: str, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
         average: Any, groups: Any, data: Any, compute: bool, threads: int | None,
         ranges: int | None, options: dict[str, Any]) -> Any:
    batched = groups is not None or getattr(y_score, "ndim", 1) == 2
    if name == "prbe" and batched:  # one huge task ignores average, as a 1-D call does
        check_prbe_average(average, options["_kw"].get("return_threshold", False))
    if ranges is not None and (isinstance(ranges, bool) or not isinstance(ranges, int)
                               or ranges < 1):
        raise ValueError(f"ranges must be a positive integer or None; got {ranges!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a positive integer or None; got {threads!r}")
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
            dask, _ = _dask()
            parts = data[cols].to_delayed()
            yb = [dask.delayed(_column)(p, y_true) for p in parts]
            sb = [dask.delayed(_column)(p, y_score) for p in parts]
            wb = (None if sample_weight is None
                  else [dask.delayed(_column)(p, sample_weight) for p in parts])
            return _ranges_graph(name, yb, sb, wb, pos_label, options, compute, threads, ranges)
        return _per_group(name, data, y_true, y_score, groups, sample_weight, pos_label,
                          average, options, compute, threads)
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
        return _per_task(name, y_true, y_score, sample_weight, pos_label, average, options,
                         compute, threads)
    if y_score.ndim == 1:
        return _one_task(name, y_true, y_score, sample_weight, pos_label, options, compute,
                         threads, ranges)
    raise ValueError(f"y_score must be 1-D or 2-D; got shape {y_score.shape}")


def _options(name: str, weighted: bool, average: Any, **kw: Any) -> dict[str, Any]:
    check_average(average)
    m, what = batch_options(name, weighted, max_fpr=kw.get("max_fpr"),
                            ties=kw.get("ties", "grouped"))
    if name == "all_metrics":
        kw["unweighted"] = not weighted
    return {"_m": m, "_what": what, "_kw": kw}


def average_precision(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    ties: str = "grouped", average: Any = "macro", groups: Any = None, data: Any = None,
    compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.average_precision` over dask arrays or a dask DataFrame.

    Parameters as the in-process function, plus:

    data : dask DataFrame, optional
        Then ``y_true``, ``y_score``, ``groups`` and ``sample_weight`` are
        its column names.
    compute : bool, default True
        ``False`` returns a ``dask.delayed`` object; ``.compute()`` gives the
        result.
    threads : int or None, default 1
        Numba threads each Dask task may use (``None``: Numba's setting).
    ranges : int, optional
        One huge task only: the number of score ranges (default: one per
        chunk of ``y_score``).

    Examples
    --------
    >>> import dask.array as da, numpy as np, fastrank, fastrank.dask
    >>> rng = np.random.default_rng(0)
    >>> y, s = rng.random((1000, 6)) < 0.3, rng.random((1000, 6))
    >>> ys, ss = da.from_array(y, chunks=(1000, 2)), da.from_array(s, chunks=(1000, 2))
    >>> fastrank.dask.average_precision(ys, ss) == fastrank.average_precision(y, s)
    True
    """
    opts = _options("average_precision", sample_weight is not None, average, ties=ties)
    return _run("average_precision", y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges, opts)


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
    >>> y, s = rng.random(10_000) < 0.3, rng.random(10_000)   # one task, 4 chunks
    >>> auc = fastrank.dask.roc_auc(da.from_array(y, chunks=2500), da.from_array(s, chunks=2500))
    >>> abs(auc - fastrank.roc_auc(y, s)) < 1e-12
    True
    """
    opts = _options("roc_auc", sample_weight is not None, average, max_fpr=max_fpr)
    return _run("roc_auc", y_true, y_score, sample_weight, pos_label, average, groups, data,
                compute, threads, ranges, opts)


def pr_auc(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    average: Any = "macro", groups: Any = None, data: Any = None, compute: bool = True,
    threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.pr_auc` over dask arrays or a dask DataFrame (see
    :func:`average_precision`)."""
    opts = _options("pr_auc", sample_weight is not None, average)
    return _run("pr_auc", y_true, y_score, sample_weight, pos_label, average, groups, data,
                compute, threads, ranges, opts)


def d_prime(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    average: Any = "macro", groups: Any = None, data: Any = None, compute: bool = True,
    threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.d_prime` over dask arrays or a dask DataFrame (see
    :func:`average_precision`)."""
    opts = _options("d_prime", sample_weight is not None, average)
    return _run("d_prime", y_true, y_score, sample_weight, pos_label, average, groups, data,
                compute, threads, ranges, opts)


def prbe(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    return_threshold: bool = False, average: Any = "macro", groups: Any = None,
    data: Any = None, compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.prbe` over dask arrays or a dask DataFrame (see
    :func:`average_precision`)."""
    opts = _options("prbe", sample_weight is not None, average,
                    return_threshold=return_threshold)
    return _run("prbe", y_true, y_score, sample_weight, pos_label, average, groups, data,
                compute, threads, ranges, opts)


def all_metrics(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None,
    max_fpr: float | None = None, average: Any = "macro", groups: Any = None, data: Any = None,
    compute: bool = True, threads: int | None = 1, ranges: int | None = None,
) -> Any:
    """:func:`fastrank.all_metrics` over dask arrays or a dask DataFrame (see
    :func:`average_precision`)."""
    opts = _options("all_metrics", sample_weight is not None, average, max_fpr=max_fpr)
    return _run("all_metrics", y_true, y_score, sample_weight, pos_label, average, groups,
                data, compute, threads, ranges, opts)


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
    dask, da = _dask()
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
    sb = s.to_delayed().ravel()
    yb = y.to_delayed().ravel()
    wb = w.to_delayed().ravel() if w is not None else [None] * len(sb)
    level = [
        dask.delayed(_summarize)(f"chunk {i}", template, yc, sc, wc)
        for i, (yc, sc, wc) in enumerate(zip(yb, sb, wb, strict=True))
    ]
    while len(level) > 1:
        level = [dask.delayed(_add_all)(level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    return dask.compute(level[0])[0] if compute else level[0]


def _summarize(where: str, template: BinnedSummary, y: Any, s: Any, w: Any) -> BinnedSummary:
    out = template.empty_like()
    try:
        with dist.thread_budget(1):
            out.update(y, s, w)
    except (ValueError, TypeError) as exc:
        raise dist._located(exc, where) from exc
    return out


def _add_all(parts: list[BinnedSummary]) -> BinnedSummary:
    total = parts[0].copy()
    for p in parts[1:]:
        total.merge(p)
    return total
