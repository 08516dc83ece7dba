"""Ranking each sample's labels: label-ranking metrics of multilabel outputs.

Every function takes a label matrix (dense, or ``scipy.sparse``) and scores of
shape ``(n_samples, n_labels)`` and ranks each sample's labels against each
other, ties included exactly as scikit-learn defines each number:

* :func:`label_ranking_average_precision`: for each relevant label, the share of
  relevant labels among those scored at least as high; averaged over a sample's
  relevant labels, then over samples. Per sample it is the average precision of
  the sample's labels with tied scores as one cutoff (:func:`fastrank.average_precision`
  on the row), so it runs on the batched engine, one task per sample.
* :func:`coverage_error`: how far down a sample's ranking one must go to cover
  all its relevant labels (tied labels all count).
* :func:`label_ranking_loss`: the share of (relevant, irrelevant) label pairs of
  a sample ordered wrongly, a tie counting as wrong.

``average="samples"`` of :func:`fastrank.average_precision`,
:func:`fastrank.roc_auc` and the other metrics is the same per-sample view of a
metric. Sample weights weigh the samples in the average, not the labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core import api, engine, inputs, reduce, registry

__all__ = ["coverage_error", "label_ranking_average_precision", "label_ranking_loss"]


def _rows(y_true: Any, y_score: Any, sample_weight: Any
          ) -> tuple[inputs.Batch, np.ndarray | None]:
    """One task per sample (its labels), checked, and the samples' weights."""
    s = inputs.as_array(y_score, "y_score")
    return api.sample_batch(y_true, s, sample_weight, None)


def _mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    """The (weighted) mean over samples; NaN when there is no weight at all."""
    return reduce.average(values, values, values, "samples", weights)


def label_ranking_average_precision(y_true: Any, y_score: Any, *,
                                    sample_weight: Any = None) -> float:
    """Label ranking average precision (LRAP), as scikit-learn's
    ``label_ranking_average_precision_score``.

    For each sample and each relevant label ``j``: the number of relevant labels
    scored at least ``s_j``, divided by the number of labels scored at least
    ``s_j``; averaged over the sample's relevant labels, then over the samples.
    A sample whose labels are all relevant, or none, scores 1 (scikit-learn's
    rule).

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Relevant labels: 0/1 or bool (a 0/1 ``scipy.sparse`` matrix too).
    y_score : array-like of shape (n_samples, n_labels)
        Scores (higher ranks first); NaN and infinities are refused.
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the samples in the average.

    Returns
    -------
    float

    Examples
    --------
    >>> import fastrank
    >>> y = [[1, 0, 0], [0, 0, 1]]
    >>> s = [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]]
    >>> round(fastrank.label_ranking_average_precision(y, s), 6)
    0.416667
    """
    b, w = _rows(y_true, y_score, sample_weight)
    req = registry.request("average_precision", weighted=False)
    res = api.batch_results(b, req)
    values = req.metric.values(res.out) if req.metric is not None else None
    assert values is not None
    npos = res.positives
    values = np.where((npos == 0) | (npos == b.n), 1.0, values)
    return _mean(values, w)


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Coverage error, as scikit-learn's ``coverage_error``: how many of a sample's
    top-scored labels one must take to include all its relevant labels.

    A sample's coverage is the number of its labels scored at least its lowest
    relevant label's score (so tied labels all count); 0 for a sample without
    relevant labels. Averaged over the samples.

    Parameters
    ----------
    y_true, y_score, sample_weight
        As in :func:`label_ranking_average_precision`.

    Returns
    -------
    float
        Between 1 and ``n_labels`` (1 when every sample's relevant labels are
        its top ones, with no other label tied with them).

    Examples
    --------
    >>> import fastrank
    >>> fastrank.coverage_error([[1, 0, 0], [0, 1, 1]], [[1.0, 0.5, 0.2], [0.2, 0.9, 0.2]])
    2.0
    """
    s = inputs.as_array(y_score, "y_score")
    y_true, w = api.sample_inputs(y_true, s, sample_weight)
    values = inputs.canonical_scores(s)  # the scores' order, in a sortable dtype
    relevant = _dense_labels(y_true, values.shape)  # checks the labels
    if values.dtype.kind == "f":
        top = np.inf
    else:
        top = np.iinfo(values.dtype).max
    lowest = np.where(relevant, values, top).min(axis=1)  # each sample's lowest relevant
    cover = np.count_nonzero(values >= lowest[:, None], axis=1).astype(np.float64)
    cover[~relevant.any(axis=1)] = 0.0
    return _mean(cover, w)


def _dense_labels(y_true: Any, shape: tuple[int, int]) -> np.ndarray:
    """The label matrix (already checked) as a dense bool array."""
    if inputs.is_sparse(y_true):
        ptr, idx = inputs.sparse_labels(y_true, shape, None)
        out = np.zeros(shape, bool)
        cols = np.repeat(np.arange(shape[1]), np.diff(ptr))
        out[idx, cols] = True
        return out
    labels = inputs.label_matrix(y_true, shape, None, True)
    return labels.reshape(shape).view(bool)


def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Label ranking loss, as scikit-learn's ``label_ranking_loss``: the share of a
    sample's (relevant, irrelevant) label pairs in which the irrelevant label is
    scored at least as high, averaged over the samples.

    A sample whose labels are all relevant, or none, has loss 0 (scikit-learn's
    rule). Computed from each sample's tie groups: the pairs of a tie count as
    wrong, the pairs of different scores by their order.

    Parameters
    ----------
    y_true, y_score, sample_weight
        As in :func:`label_ranking_average_precision`.

    Returns
    -------
    float

    Examples
    --------
    >>> import fastrank
    >>> fastrank.label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
    0.75
    """
    b, w = _rows(y_true, y_score, sample_weight)
    tasks = engine.split_batch(b)

    def one(t: inputs.Task) -> float:
        pos = t.npos
        neg = t.values.shape[0] - pos
        if pos == 0 or neg == 0:
            return 0.0
        _, gpos, gneg = engine.task_table(t)
        wrong = float(np.dot(gpos, np.cumsum(gneg)))  # negatives at or above each positive
        return wrong / (float(pos) * float(neg))

    loss = np.array(engine.parallel_map(one, tasks, engine.task_threads(tasks)), np.float64)
    return _mean(loss, w)
