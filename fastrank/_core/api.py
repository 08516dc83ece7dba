"""The one path of a metric call: inputs -> engine -> reduce.

Every public metric function (and the accumulators, the Dask layer and the
command line) computes through :func:`compute`; the batched and grouped
forms, ``average="micro"`` and the one-task form differ only in which
canonical input :mod:`.inputs` builds and which engine entry runs it.
:func:`compute_tables` is the same call for rows already counted into each
task's tie table (what :mod:`fastrank.torch` keeps of tied scores): the
engine's sweep of each table, then the same results and :func:`~.reduce.finish`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._kernels.sweep import OUT_POS
from . import batch_tasks, batches, codec, engine, inputs, one_call, reduce, registry
from .registry import Request


def task_results(t: inputs.Task, req: Request, mode: str = "one",
                 threshold: bool = True) -> reduce.Results:
    """One canonical task through the engine, totals in the caller's units
    (the break-even score left NaN unless ``threshold``)."""
    out, key = one_call.task_metrics(t, req.max_fpr, req.what)
    return one_result(out, key, t.values.dtype, t.dtype, t.values.shape[0], mode, threshold)


def one_result(out: np.ndarray, key: int, canonical: np.dtype[Any], dtype: np.dtype[Any],
               size: int, mode: str = "one", threshold: bool = True) -> reduce.Results:
    """One task's ``OUT_*`` row and break-even score bits (from the engine) as the
    results :func:`~.reduce.finish` reads: the break-even score of the caller's
    ``dtype`` where ``threshold`` and the task has positives, else NaN."""
    if threshold and out[OUT_POS] > 0:
        value = threshold_of(key, canonical, dtype)
        thresholds = np.empty(1, object if isinstance(value, int) else np.float64)
        thresholds[0] = value
    else:
        thresholds = _NO_THRESHOLD
    return reduce.Results(out[None, :], thresholds, np.array([size]), None, mode)


_NO_THRESHOLD = np.full(1, np.nan)  # a task's threshold, when not asked or undefined
_NO_THRESHOLD.flags.writeable = False


def batch_results(b: inputs.Batch, req: Request) -> reduce.Results:
    """Every task of a canonical batch through the engine, totals in the caller's units."""
    out, keys = batches.batch_metrics(b, req.max_fpr, req.what)
    return many_results(out, keys, b.values.dtype, b.sizes, b.ids, b.mode)


def many_results(out: np.ndarray, keys: np.ndarray, canonical: np.dtype[Any],
                 sizes: np.ndarray, ids: np.ndarray | None, mode: str) -> reduce.Results:
    """Many tasks' ``OUT_*`` rows and break-even score bits as the results
    :func:`~.reduce.finish` reads (float64 thresholds, NaN for a task without
    positives)."""
    thresholds = np.asarray(codec.decode(keys, canonical, canonical), dtype=np.float64)
    thresholds[out[:, OUT_POS] == 0] = np.nan
    return reduce.Results(out, thresholds, sizes, ids, mode)


def threshold_of(key: int, canonical: np.dtype[Any], dtype: np.dtype[Any]) -> Any:
    """A break-even score (from its bits) as a Python scalar of the caller's kind:
    an exact int for integer scores, a float otherwise (bool scores as 0.0/1.0)."""
    if dtype == canonical:  # the caller's dtype is canonical: no numpy steps
        return codec.decode_key(key, canonical)
    value = codec.decode(np.array([key], np.uint64), canonical, dtype)[0].item()
    return float(value) if isinstance(value, bool) else value


def check_batch_average(average: Any, return_threshold: bool) -> None:
    """The checks of ``average`` (and ``return_threshold``) for a batched call."""
    inputs.check_average(average)
    if return_threshold and average not in (None, "micro"):
        raise ValueError("return_threshold=True gives one threshold per task: use average=None "
                         f"(or 'micro'), not average={average!r}")


def sample_inputs(y_true: Any, s: np.ndarray, sample_weight: Any, groups: Any = None,
                  labels: Any = None, what: str = "average='samples' (each sample's labels "
                  "ranked)") -> tuple[Any, np.ndarray | None]:
    """The checks of a call that ranks each sample's labels (``average="samples"``,
    :mod:`fastrank.rankings`): the label matrix (an array, or sparse) and the
    samples' weights, which weigh the average over samples, not the labels. The
    scores are checked finite here, so that a bad one is named where the caller put
    it."""
    if groups is not None or labels is not None:
        raise ValueError(f"{what} takes a 2-D label matrix, not groups= or labels=")
    if s.ndim != 2:
        raise ValueError(f"{what} needs 2-D scores (n_samples, n_labels); y_score has shape "
                         f"{s.shape}")
    if 0 in s.shape:
        what = "samples" if s.shape[0] == 0 else "labels"
        raise ValueError(f"y_score has no {what} (shape {s.shape}); at least one is needed")
    if inputs.is_sparse(y_true):
        inputs.sparse_in_shape(y_true, s.shape)
    else:
        y = inputs.as_array(y_true, "y_true")
        if y.ndim != 2:
            raise ValueError(f"{what} needs a 2-D label matrix (n_samples, n_labels); y_true "
                             f"has shape {y.shape}")
        if y.shape != s.shape:
            raise ValueError(f"y_true and y_score have different shapes: {y.shape} and "
                             f"{s.shape}")
        y_true = y
    w = inputs.weights(sample_weight, s.shape[0])
    inputs.check_finite(inputs.canonical_scores(s))
    return y_true, w


def sample_batch(y_true: Any, s: np.ndarray, sample_weight: Any, pos_label: Any,
                 groups: Any = None, labels: Any = None,
                 what: str = "average='samples' (each sample's labels ranked)",
                 ) -> tuple[inputs.Batch, np.ndarray | None]:
    """Each sample's labels as one task: the batch of the transposed label and score
    matrices, and the samples' weights (see :func:`sample_inputs`)."""
    y_true, w = sample_inputs(y_true, s, sample_weight, groups, labels, what)
    b = inputs.batch(y_true.T, s.T, None, pos_label, None, None)
    return b._replace(mode="samples"), w


def compute(name: str, y_true: Any, y_score: Any, *, sample_weight: Any = None,
            pos_label: Any = None, average: Any = "macro", groups: Any = None,
            labels: Any = None, ties: str = "grouped", max_fpr: Any = None,
            return_threshold: bool = False, stacklevel: int = 2) -> Any:
    """The value of metric ``name`` (or ``"all_metrics"``) for a call's arguments.

    ``stacklevel`` counts from the caller of this function, so that the one
    undefined-metric warning names the user's line.
    """
    req = registry.request(name, weighted=sample_weight is not None, ties=ties,
                           max_fpr=max_fpr)
    s = inputs.as_array(y_score, "y_score")
    level = stacklevel + 1
    if groups is None and s.ndim == 1:
        t = inputs.task(y_true, s, sample_weight, pos_label)
        if t.lost_precision and req.mixes_classes:
            raise inputs.lost_weight_error(t.lost_precision)
        wanted = return_threshold or req.metric is None  # the break-even score is returned
        return reduce.finish(req, task_results(t, req, threshold=wanted), None,
                             return_threshold=return_threshold, stacklevel=level)
    check_batch_average(average, return_threshold)
    if average == "samples":
        b, rows = sample_batch(y_true, s, sample_weight, pos_label, groups, labels)
        return reduce.finish(req, batch_results(b, req), "samples", stacklevel=level,
                             weights=rows)
    b = inputs.batch(y_true, s, sample_weight, pos_label, groups, labels)
    if req.mixes_classes:
        batch_tasks.refuse_lost_weights(b, average == "micro")
    if average == "micro":
        res = task_results(batch_tasks.pooled(b), req, "micro")
    else:
        res = batch_results(b, req)
    return reduce.finish(req, res, average, return_threshold=return_threshold, stacklevel=level)


# A task's tie table: its distinct scores (ascending, float32 or float64) with the
# positive and negative counts (int64) of each.
Table = tuple[np.ndarray, np.ndarray, np.ndarray]
# compute()'s keywords that compute_tables() takes too (the others need the rows)
TABLE_OPTIONS = frozenset({"average", "ties", "max_fpr", "return_threshold"})


def compute_tables(name: str, tables: Sequence[Table], one_d: bool, *, average: Any = "macro",
                   ties: str = "grouped", max_fpr: Any = None, return_threshold: bool = False,
                   stacklevel: int = 2) -> Any:
    """What :func:`compute` returns for unweighted rows whose tasks have these tie
    tables (``one_d``: 1-D scores, one table; else one column per table), the
    same bit for bit.

    The engine's sum over a task's tie groups is exact, so :func:`compute`'s value
    depends only on the groups, whatever path it takes to them (hashed counts,
    sorted classes, score ranges); here each table is swept as a hashed count is
    (:func:`~.engine.table_metrics`), then read out as :func:`compute` reads its
    own. ``average="samples"`` ranks each row's labels and needs the rows.

    Examples
    --------
    >>> import numpy as np, fastrank
    >>> table = (np.array([0.2, 0.5, 0.9]), np.array([0, 1, 2]), np.array([2, 1, 0]))
    >>> compute_tables("average_precision", [table], True)
    0.9166666666666666
    >>> fastrank.average_precision([0, 0, 1, 0, 1, 1], [0.2, 0.2, 0.5, 0.5, 0.9, 0.9])
    0.9166666666666666
    """
    if not tables or (one_d and len(tables) != 1):
        raise ValueError(f"compute_tables needs the table of at least one task (one for 1-D "
                         f"scores); got {len(tables)}")
    dtype = tables[0][0].dtype
    if dtype not in (np.float32, np.float64) or any(v.dtype != dtype for v, _, _ in tables):
        raise TypeError("compute_tables needs the scores of every table in one canonical float "
                        f"dtype (float32 or float64); got {[str(v.dtype) for v, _, _ in tables]}")
    req = registry.request(name, weighted=False, ties=ties, max_fpr=max_fpr)
    tables = [(v + v.dtype.type(0.0), p, q) for v, p, q in tables]  # -0.0 as the engine: +0.0
    n = int(tables[0][1].sum() + tables[0][2].sum())  # every task has every row
    level = stacklevel + 1
    if one_d:
        out, key = engine.table_metrics(engine_table(tables[0]), req.max_fpr, req.what)
        res = one_result(out, key, dtype, dtype, n,
                         threshold=return_threshold or req.metric is None)
        return reduce.finish(req, res, None, return_threshold=return_threshold,
                             stacklevel=level)
    check_batch_average(average, return_threshold)
    if average == "samples":
        raise ValueError("average='samples' ranks each sample's labels: it needs the rows, "
                         "not each column's tie counts")
    if average == "micro":
        out, key = engine.table_metrics(engine_table(fold_tables(tables)), req.max_fpr,
                                        req.what)
        res = one_result(out, key, dtype, dtype, n * len(tables), "micro")
    else:
        rows = [engine.table_metrics(engine_table(tb), req.max_fpr, req.what) for tb in tables]
        res = many_results(np.stack([r[0] for r in rows]),
                           np.array([r[1] for r in rows], np.uint64), dtype,
                           np.full(len(tables), n, np.int64), None, "tasks")
    return reduce.finish(req, res, average, return_threshold=return_threshold, stacklevel=level)


def engine_table(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task's table as the engine's hashed count gives it: score bits (uint64),
    highest score first, and float64 counts."""
    v, p, q = table
    bits = inputs.SPECS[v.dtype].bits
    return (v[::-1].view(bits).astype(np.uint64), p[::-1].astype(np.float64),
            q[::-1].astype(np.float64))


def fold_tables(tables: Sequence[Table]) -> Table:
    """Tables as one (new arrays): of one task's rows counted apart, or of every
    task (``average="micro"``: every cell one task)."""
    distinct, at = np.unique(np.concatenate([v for v, _, _ in tables]), return_inverse=True)
    pos, neg = (np.bincount(at, np.concatenate([tb[k] for tb in tables]).astype(np.float64),
                            distinct.size).astype(np.int64) for k in (1, 2))
    return distinct, pos, neg  # exact: counts below 2**53
