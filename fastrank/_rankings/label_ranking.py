"""Ranking each sample's labels against each other: label ranking average precision,
coverage error, label ranking loss, and the tie-aware DCG and nDCG of label rows
(public in :mod:`fastrank.rankings`)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._core import api, batches, inputs, registry
from .._core.arith import matvec
from ..exceptions import UndefinedMetricWarning
from . import lists
from .common import WHAT, sample_mean, sample_rows


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
    b, w = sample_rows(y_true, y_score, sample_weight)
    req = registry.request("average_precision", weighted=False)
    res = api.batch_results(b, req)
    values = req.metric.values(res.out) if req.metric is not None else None
    assert values is not None
    npos = res.positives
    values = np.where((npos == 0) | (npos == b.n), 1.0, values)
    return sample_mean(values, w)


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
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=WHAT)
    values = inputs.canonical_scores(s)  # the scores' order, in a sortable dtype
    relevant = _dense_labels(y_true, values.shape)  # checks the labels
    if values.dtype.kind == "f":
        top = np.inf
    else:
        top = np.iinfo(values.dtype).max
    lowest = np.where(relevant, values, top).min(axis=1)  # each sample's lowest relevant
    cover = np.count_nonzero(values >= lowest[:, None], axis=1).astype(np.float64)
    cover[~relevant.any(axis=1)] = 0.0
    return sample_mean(cover, w)


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
    b, w = sample_rows(y_true, y_score, sample_weight)
    # Every sample's tie table (runs of irrelevant labels as one entry: the counts at
    # the entries holding relevant labels are the full table's), laid end to end.
    fp, tp, _, offsets = batches.batch_tables(b)
    starts, ends = offsets[:-1], offsets[1:]
    gpos = np.diff(tp, prepend=0.0)
    has = ends > starts
    gpos[starts[has]] = tp[starts[has]]  # each table's first entry
    # Irrelevant labels at or above each relevant one: integer counts, so the sums are
    # exact whatever their order.
    wrong = np.zeros(b.t)
    if fp.shape[0]:
        wrong[has] = np.add.reduceat(gpos * fp, starts[has])
    pos = np.where(has, tp[np.maximum(ends - 1, 0)], 0.0) if tp.shape[0] else np.zeros(b.t)
    neg = np.where(has, fp[np.maximum(ends - 1, 0)], 0.0) if fp.shape[0] else np.zeros(b.t)
    both = (pos > 0) & (neg > 0)
    loss = np.zeros(b.t)
    loss[both] = wrong[both] / (pos[both] * neg[both])
    return sample_mean(loss, w)


def _gains(y_true: Any, shape: tuple[int, int]) -> np.ndarray:
    """Graded relevance as a float64 matrix (dense or sparse input), checked finite."""
    if inputs.is_sparse(y_true):
        y = inputs.sparse_dense(y_true, shape)
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
        return matvec(np.sort(gains, axis=1)[:, ::-1], discount)
    # Descending; with ties averaged their order inside a group does not matter.
    order = np.argsort(values, axis=1, kind="stable" if ignore_ties else None)[:, ::-1]
    g = np.take_along_axis(gains, order, axis=1)
    if ignore_ties:  # ties by decreasing index
        return matvec(g, discount)
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
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=WHAT)
    k, log_base = _check_k_base(k, log_base)
    values = inputs.canonical_scores(s)
    gains = _gains(y_true, values.shape)
    return sample_mean(_dcg_rows(gains, values, k, log_base, bool(ignore_ties)), w)


NO_RELEVANT = ("nan", "zero")


def ndcg(y_true: Any, y_score: Any, *, k: int | None = None, sample_weight: Any = None,
         ignore_ties: bool = False, no_relevant: str = "nan") -> float:
    """Normalised DCG: each sample's :func:`dcg` divided by its best possible DCG
    (labels ranked by their own relevance), averaged over the samples, as
    scikit-learn's ``ndcg_score``.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        Graded relevance, non-negative.
    y_score, k, sample_weight, ignore_ties
        As in :func:`dcg`. ``y_score`` needs at least two labels per sample
        (one label has nothing to be ranked against: ValueError, as in
        scikit-learn).
    no_relevant : {"nan", "zero"}, default "nan"
        A sample without relevant labels (all of its ``y_true`` 0) has no best
        DCG to divide by. ``"nan"``: it has no nDCG, and the mean leaves it out,
        with one :class:`~fastrank.UndefinedMetricWarning` for the call.
        ``"zero"``: it counts as 0 in the mean, silently, which is
        scikit-learn's ``ndcg_score`` (the same mean, to rounding).

    Returns
    -------
    float
        In [0, 1]; NaN when no sample has a defined nDCG (``no_relevant="nan"``)
        or the weights of those that do sum to 0.

    Examples
    --------
    >>> import fastrank
    >>> fastrank.ndcg([[3, 2, 0, 1]], [[0.9, 0.8, 0.1, 0.5]])          # the best order
    1.0
    >>> round(fastrank.ndcg([[3, 2, 0, 1]], [[0.9, 0.8, 0.5, 0.1]]), 6)
    0.985442
    >>> fastrank.ndcg([[1, 0, 0]], [[0.5, 0.5, 0.5]], k=1)   # one tie: 1/3 of the gain
    0.3333333333333333

    A sample without relevant labels: left out of the mean by default, or
    counted as 0 (scikit-learn's ``ndcg_score``):

    >>> y, s = [[1, 0, 0], [0, 0, 0]], [[0.9, 0.2, 0.1], [0.3, 0.2, 0.1]]
    >>> fastrank.ndcg(y, s, no_relevant="zero")
    0.5
    """
    if not isinstance(no_relevant, str) or no_relevant not in NO_RELEVANT:
        raise ValueError(f"no_relevant must be one of {', '.join(map(repr, NO_RELEVANT))}; "
                         f"got {no_relevant!r}")
    s = inputs.as_array(y_score, "y_score")
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=WHAT)
    k, _ = _check_k_base(k, 2)
    values = inputs.canonical_scores(s)
    if values.shape[1] < 2:
        raise ValueError("ndcg ranks each sample's labels, so it needs more than one label "
                         f"(document) per sample; got {values.shape[1]}")
    gains = _gains(y_true, values.shape)
    if (gains < 0).any():
        raise ValueError("ndcg needs non-negative relevance (y_true); got a negative value")
    if ignore_ties or values.size < lists.DENSE_KERNEL_MIN:
        got = _dcg_rows(gains, values, k, 2.0, bool(ignore_ties))
        best = _dcg_rows(gains, gains, k, 2.0, True)
    else:  # large: the ranked lists of the top-k measures (no row sorted as a whole)
        ranked = lists.RankedLists(gains, values, None, None, depth=k)
        got = ranked.dcg(ranked.item_grade, k, "expected")
        best = ranked.ideal(ranked.item_grade, [k])[:, 0]
    none = best == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        per = got / best
    per[none] = np.nan if no_relevant == "nan" else 0.0
    said: list[str] = []  # what the mean has to say, in the call's one warning
    mean = sample_mean(per, w, said)
    if none.any() and no_relevant == "nan":
        said.insert(0, f"ndcg is undefined for {int(none.sum())} of {per.shape[0]} samples "
                       "(no relevant labels); they are NaN and left out of the mean")
    if said:
        warnings.warn("; ".join(said), UndefinedMetricWarning, stacklevel=2)
    return mean
