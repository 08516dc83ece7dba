"""The one path of a metric call: inputs -> engine -> reduce.

Every public metric function (and the accumulators, the Dask layer and the
command line) computes through :func:`compute`; the batched and grouped
forms, ``average="micro"`` and the one-task form differ only in which
canonical input :mod:`.inputs` builds and which engine entry runs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.sweep import OUT_POS
from . import batch_tasks, batches, codec, engine, inputs, reduce, registry
from .registry import Request


def task_results(t: inputs.Task, req: Request, mode: str = "one",
                 threshold: bool = True) -> reduce.Results:
    """One canonical task through the engine, totals in the caller's units
    (the break-even score left NaN unless ``threshold``)."""
    out, key = engine.task_metrics(t, req.max_fpr, req.what)
    if threshold and out[OUT_POS] > 0:
        value = threshold_of(key, t.values.dtype, t.dtype)
        thresholds = np.empty(1, object if isinstance(value, int) else np.float64)
        thresholds[0] = value
    else:
        thresholds = _NO_THRESHOLD
    return reduce.Results(out[None, :], thresholds, np.array([t.values.shape[0]]), None, mode)


_NO_THRESHOLD = np.full(1, np.nan)  # a task's threshold, when not asked or undefined
_NO_THRESHOLD.flags.writeable = False


def batch_results(b: inputs.Batch, req: Request) -> reduce.Results:
    """Every task of a canonical batch through the engine, totals in the caller's units."""
    out, keys = batches.batch_metrics(b, req.max_fpr, req.what)
    thresholds = np.asarray(codec.decode(keys, b.values.dtype, b.values.dtype),
                            dtype=np.float64)
    thresholds[out[:, OUT_POS] == 0] = np.nan
    return reduce.Results(out, thresholds, b.sizes, b.ids, b.mode)


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
        wanted = return_threshold or req.metric is None  # the break-even score is returned
        return reduce.finish(req, task_results(t, req, threshold=wanted), None,
                             return_threshold=return_threshold, stacklevel=level)
    check_batch_average(average, return_threshold)
    if average == "samples":
        b, rows = sample_batch(y_true, s, sample_weight, pos_label, groups, labels)
        return reduce.finish(req, batch_results(b, req), "samples", stacklevel=level,
                             weights=rows)
    b = inputs.batch(y_true, s, sample_weight, pos_label, groups, labels)
    if average == "micro":
        res = task_results(batch_tasks.pooled(b), req, "micro")
    else:
        res = batch_results(b, req)
    return reduce.finish(req, res, average, return_threshold=return_threshold, stacklevel=level)
