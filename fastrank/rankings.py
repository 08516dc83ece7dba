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
* :func:`dcg` and :func:`ndcg`: graded relevance discounted by rank over the top
  ``k``, tie-aware (tied labels share their group's mean gain: the expected
  value over every order of the ties, as scikit-learn computes it).

``average="samples"`` of :func:`fastrank.average_precision`,
:func:`fastrank.roc_auc` and the other metrics is the same per-sample view of a
metric. Sample weights weigh the samples in the average, not the labels.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ._core import api, engine, inputs, reduce, registry
from .exceptions import UndefinedMetricWarning

__all__ = ["coverage_error", "dcg", "label_ranking_average_precision", "label_ranking_loss",
           "ndcg"]


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


def _gains(y_true: Any, shape: tuple[int, int]) -> np.ndarray:
    """Graded relevance as a float64 matrix (dense or sparse input), checked finite."""
    if inputs.is_sparse(y_true):
        if tuple(y_true.shape) != shape:
            raise ValueError(f"y_true and y_score have different shapes: {tuple(y_true.shape)} "
                             f"and {shape}")
        y = np.asarray(y_true.toarray())
    else:
        y = inputs.as_array(y_true, "y_true")
    if y.shape != shape:
        raise ValueError(f"y_true and y_score have different shapes: {y.shape} and {shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"y_true must hold numbers (graded relevance); got dtype {y.dtype}")
    g = y.astype(np.float64)
    if not np.isfinite(g).all():
        raise ValueError("y_true holds NaN or infinite relevance; relevance must be finite")
    return g


def _dcg_rows(gains: np.ndarray, values: np.ndarray, k: int | None, log_base: float,
              ignore_ties: bool) -> np.ndarray:
    """Each sample's DCG of its labels ranked by ``values`` (tied labels share the mean
    gain of their tie group over the group's positions, cut at ``k``)."""
    n, t = gains.shape
    discount = np.log(log_base) / np.log(np.arange(t) + 2.0)
    if k is not None:
        discount[k:] = 0.0
    if values is gains:  # the best order: the gains sorted, ties no matter
        return np.asarray(np.sort(gains, axis=1)[:, ::-1] @ discount)
    # Descending; with ties averaged their order inside a group does not matter.
    order = np.argsort(values, axis=1, kind="stable" if ignore_ties else None)[:, ::-1]
    g = np.take_along_axis(gains, order, axis=1)
    if ignore_ties:  # ties by decreasing index
        return np.asarray(g @ discount)
    v = np.take_along_axis(values, order, axis=1)
    new = np.ones((n, t), bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]  # a tie group starts (every row starts one)
    starts = np.flatnonzero(new.ravel())  # tie groups, row by row
    ends = np.append(starts[1:], n * t)
    first = starts % t  # each group's ranks in its row: first .. last - 1
    last = np.where(ends // t == starts // t, ends % t, t)
    cum = np.concatenate(([0.0], np.cumsum(discount)))
    mean_gain = np.add.reduceat(g.ravel(), starts) / (last - first)
    dcg_groups = mean_gain * (cum[last] - cum[first])  # the group's share of the discounts
    return np.asarray(np.add.reduceat(dcg_groups, np.flatnonzero(first == 0)))


def _check_k_base(k: Any, log_base: Any) -> tuple[int | None, float]:
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise ValueError(f"k must be a positive int or None; got {k!r}")
        k = int(k)
    if isinstance(log_base, bool) or not isinstance(log_base, int | float | np.number) \
            or not (math.isfinite(log_base) and log_base > 1):
        raise ValueError(f"log_base must be a number above 1; got {log_base!r}")
    return k, float(log_base)


def dcg(y_true: Any, y_score: Any, *, k: int | None = None, log_base: float = 2,
        sample_weight: Any = None, ignore_ties: bool = False) -> float:
    """Discounted cumulative gain of each sample's labels, averaged over the samples,
    as scikit-learn's ``dcg_score``.

    A sample's DCG sums each label's gain (its ``y_true``) times the discount
    ``1 / log_base(rank + 1)`` of its rank, over the top ``k`` ranks. Tied scores
    are tie-aware (the expected DCG over every order of the tied labels): each tied
    label gets its group's mean gain at each of the group's ranks, so the value
    never depends on the input order.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Graded relevance (any finite numbers; 0/1 for binary relevance).
    y_score : array-like of shape (n_samples, n_labels)
    k : int, optional
        Only the top ``k`` ranks count (a tie group straddling rank ``k``
        counts with its share of ranks up to ``k``).
    log_base : float, default 2
    sample_weight : array-like of shape (n_samples,), optional
    ignore_ties : bool, default False
        True: tied labels in an arbitrary order, as scikit-learn's (whose
        order of ties depends on numpy's sort; not tie-aware). Without ties
        both are the same number.

    Returns
    -------
    float

    Examples
    --------
    >>> import fastrank
    >>> round(fastrank.dcg([[3, 2, 0, 1]], [[0.9, 0.8, 0.1, 0.5]]), 6)
    4.76186
    """
    s = inputs.as_array(y_score, "y_score")
    y_true, w = api.sample_inputs(y_true, s, sample_weight)
    k, log_base = _check_k_base(k, log_base)
    values = inputs.canonical_scores(s)
    gains = _gains(y_true, values.shape)
    return _mean(_dcg_rows(gains, values, k, log_base, bool(ignore_ties)), w)


def ndcg(y_true: Any, y_score: Any, *, k: int | None = None, sample_weight: Any = None,
         ignore_ties: bool = False) -> float:
    """Normalised DCG: each sample's :func:`dcg` divided by its best possible DCG
    (labels ranked by their own relevance), averaged over the samples, as
    scikit-learn's ``ndcg_score``.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Graded relevance, non-negative.
    y_score, k, sample_weight, ignore_ties
        As in :func:`dcg`.

    Returns
    -------
    float
        In [0, 1]. A sample without relevant labels has no nDCG: NaN for it,
        left out of the mean with one :class:`~fastrank.UndefinedMetricWarning`
        (scikit-learn counts such a sample as 0).

    Examples
    --------
    >>> import fastrank
    >>> fastrank.ndcg([[3, 2, 0, 1]], [[0.9, 0.8, 0.1, 0.5]])          # the best order
    1.0
    >>> round(fastrank.ndcg([[3, 2, 0, 1]], [[0.9, 0.8, 0.5, 0.1]]), 6)
    0.985442
    >>> fastrank.ndcg([[1, 0, 0]], [[0.5, 0.5, 0.5]], k=1)   # one tie: 1/3 of the gain
    0.3333333333333333
    """
    s = inputs.as_array(y_score, "y_score")
    y_true, w = api.sample_inputs(y_true, s, sample_weight)
    k, _ = _check_k_base(k, 2)
    values = inputs.canonical_scores(s)
    gains = _gains(y_true, values.shape)
    if (gains < 0).any():
        raise ValueError("ndcg needs non-negative relevance (y_true); got a negative value")
    got = _dcg_rows(gains, values, k, 2.0, bool(ignore_ties))
    best = _dcg_rows(gains, gains, k, 2.0, True)
    none = best == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        per = got / best
    per[none] = np.nan
    if none.any():
        warnings.warn(f"ndcg is undefined for {int(none.sum())} of {per.shape[0]} samples "
                      "(no relevant labels); they are NaN and left out of the mean",
                      UndefinedMetricWarning, stacklevel=2)
    return _mean(per, w)
