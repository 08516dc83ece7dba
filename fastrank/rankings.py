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

__all__ = [
    "TIES",
    "coverage_error",
    "dcg",
    "f1_at_k",
    "hit_rate_at_k",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "ndcg",
    "precision_at_k",
    "r_precision",
    "recall_at_k",
    "reciprocal_rank",
]


_WHAT = "ranking each sample's labels"


def _rows(y_true: Any, y_score: Any, sample_weight: Any
          ) -> tuple[inputs.Batch, np.ndarray | None]:
    """One task per sample (its labels), checked, and the samples' weights."""
    s = inputs.as_array(y_score, "y_score")
    return api.sample_batch(y_true, s, sample_weight, None, what=_WHAT)


def _mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    """The (weighted) mean over the samples (or lists) where ``values`` is defined; NaN
    when none is, or their weights sum to 0 (the class totals do not enter it)."""
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
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=_WHAT)
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
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=_WHAT)
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
    y_true, w = api.sample_inputs(y_true, s, sample_weight, what=_WHAT)
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


# -- top-k measures of ranked lists: each sample's labels, or each query's items -------

TIES = ("expected", "optimistic", "pessimistic")


class _Lists:
    """Ranked lists (each sample's labels, or each group's items) sorted by score,
    highest first, as tie groups: per tie group its list, its first rank ``a`` (0-based
    within the list), its size ``m`` and its relevant count ``r``."""

    def __init__(self, y_true: Any, y_score: Any, groups: Any, n_relevant: Any) -> None:
        s = inputs.as_array(y_score, "y_score")
        if groups is None and s.ndim != 2:
            raise ValueError("y_score must be 2-D (n_samples, n_labels: each sample's labels "
                             f"ranked), or 1-D with groups= (each query's items); got shape "
                             f"{s.shape}")
        if groups is None:
            y_true, _ = api.sample_inputs(y_true, s, None, what=_WHAT)
            values = inputs.canonical_scores(s)
            rel = _dense_labels(y_true, values.shape)
            n, t = values.shape
            order = np.argsort(values, axis=1)[:, ::-1]  # ties: any order (groups below)
            v = np.take_along_axis(values, order, axis=1).ravel()
            r = np.take_along_axis(rel, order, axis=1).ravel().astype(np.float64)
            self.offsets = np.arange(n + 1, dtype=np.int64) * t
            self.ids = None
        else:
            values, _ = inputs.scores_1d(s)
            inputs.check_finite(values)
            labels, _ = inputs.labels_1d(y_true, values.shape[0], None)
            codes, self.ids = inputs.group_codes(groups, values.shape[0])
            idx = np.lexsort((values, codes))  # by group, then by score ascending
            counts = np.bincount(codes, minlength=self.ids.shape[0])
            self.offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
            seg = codes[idx]
            pos = np.arange(idx.shape[0])
            order = np.empty_like(idx)
            order[self.offsets[seg] + self.offsets[seg + 1] - 1 - pos] = idx  # descending
            v = values[order]
            r = labels[order].astype(np.float64)
        sizes = np.diff(self.offsets)
        owner = np.repeat(np.arange(sizes.shape[0]), sizes)
        new = np.ones(v.shape[0], bool)
        new[1:] = (v[1:] != v[:-1]) | (owner[1:] != owner[:-1])
        starts = np.flatnonzero(new)
        self.starts = starts  # each tie group's first item, in the sorted order
        self.list = owner[starts]
        self.a = starts - self.offsets[self.list]
        self.m = np.diff(np.append(starts, v.shape[0]))
        self.r = np.add.reduceat(r, starts)
        self.first = np.flatnonzero(self.a == 0)  # each list's first tie group
        self.sizes = sizes
        found = np.add.reduceat(self.r, self.first)
        self.found = found
        if n_relevant is None:
            self.relevant = found
        else:
            nr = np.asarray(n_relevant, dtype=np.float64)
            if nr.shape != found.shape:
                raise ValueError(f"n_relevant needs one count per list ({found.shape[0]}); got "
                                 f"shape {nr.shape}")
            whole = np.isfinite(nr) & (nr == np.floor(nr))
            if not whole.all():
                j = int(np.flatnonzero(~whole)[0])
                raise ValueError(f"n_relevant must hold whole counts; n_relevant[{j}] is "
                                 f"{nr[j]!r}")
            if (nr < found).any():
                j = int(np.flatnonzero(nr < found)[0])
                raise ValueError(f"n_relevant[{j}] = {nr[j]:g} is below the {found[j]:g} "
                                 "relevant items the list holds")
            self.relevant = nr

    def taken(self, k: np.ndarray, ties: str) -> np.ndarray:
        """Relevant items in the top ``k[list]`` of each list, under the tie rule."""
        t = np.clip(k[self.list] - self.a, 0, self.m).astype(np.float64)
        if ties == "expected":
            got = self.r * t / self.m
        elif ties == "optimistic":
            got = np.minimum(self.r, t)
        else:
            got = np.maximum(0.0, t - (self.m - self.r))
        return np.add.reduceat(got, self.first)

    def first_relevant(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per list: whether it holds a relevant item, and its first tie group holding
        one (rank ``a``, size ``m``, relevant ``r``; zeros where none)."""
        has = self.r > 0
        nl = self.first.shape[0]
        pick = np.full(nl, -1, np.int64)
        rev = np.flatnonzero(has)[::-1]
        pick[self.list[rev]] = rev  # written last: the first such group of each list
        ok = pick >= 0
        g = np.where(ok, pick, 0)
        return ok, self.a[g] * ok, self.m[g] * ok, self.r[g] * ok


def _ks(k: Any) -> tuple[np.ndarray, bool]:
    ks = np.atleast_1d(np.asarray(k, dtype=object))
    if ks.ndim != 1 or ks.shape[0] == 0:
        raise ValueError(f"k must be a positive int or a sequence of them; got {k!r}")
    for v in ks.tolist():
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"k must be a positive int or a sequence of them; got {v!r}")
    return ks.astype(np.int64), np.ndim(k) == 0


def _check_ties(ties: Any) -> str:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TIES))}; got {ties!r}")
    return str(ties)


def _check_call(k: Any, ties: Any, groups: Any, average: Any) -> tuple[np.ndarray, bool, str]:
    """A top-k call's ``k`` (as an array, and whether one was given), ``ties`` and
    ``average``, checked before any work."""
    ks, scalar_k = _ks(k)
    if average not in (None, "macro"):
        raise ValueError(f"average must be 'macro' or None; got {average!r}")
    if groups is not None and average is None and not scalar_k:
        raise ValueError("with groups= and average=None give one k (one value per query)")
    return ks, scalar_k, _check_ties(ties)


def _finish(name: str, per: np.ndarray, lists: _Lists, average: Any, scalar_k: bool) -> Any:
    """Per-list values (lists x ks) as the call asked: their mean over the defined lists
    (one warning for the others), or per list (a GroupResult for groups)."""
    bad = np.isnan(per).any(axis=1) if per.ndim == 2 else np.isnan(per)
    if bad.any():
        what = "queries" if lists.ids is not None else "samples"
        warnings.warn(f"{name} is undefined for {int(bad.sum())} of {bad.shape[0]} {what} "
                      "(no relevant items, or k beyond the list); they are NaN"
                      + ("" if average is None else " and left out of the mean"),
                      UndefinedMetricWarning, stacklevel=3)
    if average is None:
        out = per[:, 0] if scalar_k else per
        if lists.ids is not None:  # the totals: relevant and other items in each list
            return reduce.GroupResult(lists.ids, out, lists.found.copy(),
                                      lists.sizes - lists.found, lists.sizes.copy())
        return out
    means = np.array([_mean(per[:, j], None) for j in range(per.shape[1])])
    return float(means[0]) if scalar_k else means



def _at_k(name: str, y_true: Any, y_score: Any, k: Any, groups: Any, ties: Any,
          n_relevant: Any, average: Any) -> Any:
    ks, scalar_k, ties = _check_call(k, ties, groups, average)
    lists = _Lists(y_true, y_score, groups, n_relevant)
    return _finish(name, at_k(name, lists, ks, ties), lists, average, scalar_k)


def at_k(name: str, lists: _Lists, ks: np.ndarray, ties: str) -> np.ndarray:
    """``precision_at_k``, ``recall_at_k`` or ``f1_at_k`` of every list (rows) at every
    ``k`` (columns)."""
    cols = []
    for kk in ks.tolist():
        kv = np.full(lists.first.shape[0], kk, np.int64)
        hits = lists.taken(kv, ties)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(lists.sizes >= kk, hits / kk, np.nan)
            recall = np.where(lists.relevant > 0, hits / lists.relevant, np.nan)
            if name == "precision_at_k":
                col = precision
            elif name == "recall_at_k":
                col = recall
            else:
                both = precision + recall
                col = np.where(both > 0, 2 * precision * recall / np.where(both > 0, both, 1),
                               0.0)
                col[np.isnan(both)] = np.nan
        cols.append(col)
    return np.column_stack(cols)


_TOPK_DOC = """
    Parameters
    ----------
    y_true : array-like or sparse matrix
        With 2-D ``y_score``: the ``(n_samples, n_labels)`` 0/1 label matrix, each
        sample's labels one ranked list. With ``groups``: 1-D 0/1 relevance.
    y_score : array-like
        ``(n_samples, n_labels)`` scores, or 1-D scores with ``groups``.
    groups : array-like of shape (n_items,), optional
        One query id per item: each query's items one ranked list.
    ties : {"expected", "optimistic", "pessimistic"}, default "expected"
        Tied items: the expected value over every order of them (McSherry &
        Najork, 2008, in closed form), or relevant ones first, or last.
    n_relevant : array-like, optional
        The number of relevant items of each list, when the list does not hold
        them all (a run that did not return every relevant document); one per
        list, in the lists' order (samples, or sorted query ids).
    average : {"macro", None}, default "macro"
        The mean over the lists, or one value per list (a
        :class:`~fastrank.GroupResult` with ``groups``).
"""


def precision_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                   ties: str = "expected", n_relevant: Any = None,
                   average: str | None = "macro") -> Any:
    """Precision at ``k``: the share of relevant items among each list's top ``k``.

    ``k`` is an int or a sequence of them (one value per ``k``). A list shorter
    than ``k`` has no P@k: NaN, left out of the mean with one warning
    (trec_eval instead counts the missing ranks as not relevant).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]]
    >>> fastrank.precision_at_k(y, s, 2)             # one of the two tied items relevant
    0.75
    >>> fastrank.precision_at_k(y, s, [1, 2], ties="pessimistic")
    array([1. , 0.5])
    """
    return _at_k("precision_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def recall_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                ties: str = "expected", n_relevant: Any = None,
                average: str | None = "macro") -> Any:
    """Recall at ``k``: the share of each list's relevant items in its top ``k``
    (NaN for a list without relevant items; a ``k`` beyond the list takes all of it).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.recall_at_k([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.75
    """
    return _at_k("recall_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def f1_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None, ties: str = "expected",
            n_relevant: Any = None, average: str | None = "macro") -> Any:
    """F1 at ``k``: the harmonic mean of :func:`precision_at_k` and
    :func:`recall_at_k` of each list (of their tie-rule values).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.f1_at_k([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.75
    """
    return _at_k("f1_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def hit_rate_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                  ties: str = "expected", n_relevant: Any = None,
                  average: str | None = "macro") -> Any:
    """Hit rate (success) at ``k``: whether each list has a relevant item in its top
    ``k``; with ties, the probability over every order of them (hypergeometric).
    NaN for a list without relevant items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.hit_rate_at_k([[0, 1, 0, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.5
    """
    ks, scalar_k, ties = _check_call(k, ties, groups, average)
    lists = _Lists(y_true, y_score, groups, n_relevant)
    return _finish("hit_rate_at_k", hit_rate(lists, ks, ties), lists, average, scalar_k)


def hit_rate(lists: _Lists, ks: np.ndarray, ties: str) -> np.ndarray:
    """:func:`hit_rate_at_k` of every list (rows) at every ``k`` (columns)."""
    ok, a, m, r = lists.first_relevant()
    cols = []
    for kk in ks.tolist():
        slots = np.clip(kk - a, 0, m)
        if ties == "optimistic":
            hit = (a < kk).astype(np.float64)
        elif ties == "pessimistic":
            hit = (a + m - r < kk).astype(np.float64)
        else:  # 1 - P(no relevant among ``slots`` drawn from the group)
            none = np.array([_none_drawn(int(mi), int(ri), int(ti))
                             for mi, ri, ti in zip(m, r, slots, strict=True)])
            hit = 1.0 - none
        hit[~ok] = 0.0  # relevant items exist (n_relevant) but the list holds none
        hit[lists.relevant == 0] = np.nan
        cols.append(hit)
    return np.column_stack(cols)


def _none_drawn(m: int, r: int, t: int) -> float:
    """P(no relevant item among ``t`` of ``m`` items, ``r`` of them relevant)."""
    if t <= 0:
        return 1.0
    if m - r < t:
        return 0.0
    i = np.arange(t, dtype=np.float64)
    return float(np.prod((m - r - i) / (m - i)))


def reciprocal_rank(y_true: Any, y_score: Any, *, groups: Any = None, ties: str = "expected",
                    n_relevant: Any = None, average: str | None = "macro") -> Any:
    """Reciprocal rank of each list's first relevant item (its mean: MRR); with ties,
    the expectation over every order of the tied items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.reciprocal_rank([[0, 1, 0, 0]], [[0.9, 0.5, 0.5, 0.1]])  # rank 2 or 3
    0.41666666666666663
    """
    _, _, ties = _check_call(1, ties, groups, average)
    lists = _Lists(y_true, y_score, groups, n_relevant)
    return _finish("reciprocal_rank", reciprocal(lists, ties)[:, None], lists, average, True)


def reciprocal(lists: _Lists, ties: str) -> np.ndarray:
    """:func:`reciprocal_rank` of every list."""
    ok, a, m, r = lists.first_relevant()
    rr = np.where(lists.relevant > 0, 0.0, np.nan)  # 0: relevant items, none in the list
    if ties == "optimistic":
        rr[ok] = 1.0 / (a[ok] + 1)
    elif ties == "pessimistic":
        rr[ok] = 1.0 / (a[ok] + m[ok] - r[ok] + 1)
    else:
        # The first relevant item at place i of its group, 1 <= i <= m - r + 1:
        # P(1) = r / m, P(i + 1) / P(i) = (m - i - r + 1) / (m - i); every list's
        # places laid end to end, each list's terms summed.
        idx = np.flatnonzero(ok)
        span = (m[idx] - r[idx] + 1).astype(np.int64)
        owner = np.repeat(np.arange(idx.shape[0]), span)
        i = (np.arange(owner.shape[0]) - np.repeat(np.cumsum(span) - span, span) + 1).astype(
            np.float64)
        mm, rr_, aa = (np.repeat(x[idx].astype(np.float64), span) for x in (m, r, a))
        with np.errstate(invalid="ignore", divide="ignore"):
            step = np.where(i == 1, rr_ / mm, (mm - (i - 1) - rr_ + 1) / (mm - (i - 1)))
        logs = np.log(step)  # a product within each list, as a running sum of logs
        run = np.cumsum(logs)
        run -= np.repeat(run[np.cumsum(span) - span] - logs[np.cumsum(span) - span], span)
        terms = np.exp(run) / (aa + i)
        rr[idx] = np.add.reduceat(terms, np.cumsum(span) - span) if idx.size else rr[idx]
    return rr


def r_precision(y_true: Any, y_score: Any, *, groups: Any = None, ties: str = "expected",
                n_relevant: Any = None, average: str | None = "macro") -> Any:
    """R-precision: precision at rank R, R being each list's number of relevant items
    (``n_relevant`` when given; ranks beyond the list count as not relevant, as in
    trec_eval). NaN for a list without relevant items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.r_precision([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]])
    0.75
    """
    _, _, ties = _check_call(1, ties, groups, average)
    lists = _Lists(y_true, y_score, groups, n_relevant)
    return _finish("r_precision", r_prec(lists, ties)[:, None], lists, average, True)


def r_prec(lists: _Lists, ties: str) -> np.ndarray:
    """:func:`r_precision` of every list."""
    R = lists.relevant
    hits = lists.taken(R.astype(np.int64), ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, hits / R, np.nan)


for _f in (precision_at_k, recall_at_k, f1_at_k, hit_rate_at_k, reciprocal_rank, r_precision):
    _f.__doc__ = (_f.__doc__ or "").replace("{doc}", _TOPK_DOC)
