"""Top-k accuracy of a classifier: the true class among the k highest-scored,
tie-aware, or by scikit-learn's rule (public in :mod:`fastrank.rankings`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core import inputs, reduce
from .._core.arith import exact_dot, exact_sum, near_one
from .lists import TIES, RankedLists, check_ks, hit_rate

TOP_K_TIES = (*TIES, "sklearn")


def top_k_accuracy(y_true: Any, y_score: Any, k: Any = 2, *, labels: Any = None,
                   ties: str = "expected", sample_weight: Any = None,
                   normalize: bool = True) -> Any:
    """Top-k accuracy of a classifier: the share of samples whose true class is among
    their ``k`` highest-scored classes (scikit-learn's ``top_k_accuracy_score``),
    tie-aware.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Class labels; column ``j`` of ``y_score`` scores the ``j``-th class in
        sorted order, or ``labels[j]``.
    y_score : array-like of shape (n_samples, n_classes) or (n_samples,)
        Each class's score. A binary task may give 1-D scores (or one column):
        the score of the greater of its two classes, as scikit-learn takes them.
        Scores all within [0, 1] are read as its probability (the greater class
        ranks first above 0.5, the two tie at 0.5), other scores as a decision
        value (the threshold is 0).
    k : int or sequence of int, default 2
        A ``k`` of at least the number of classes makes every sample a hit: the
        call warns (:class:`~fastrank.UndefinedMetricWarning`, as scikit-learn
        warns).
    labels : array-like of shape (n_classes,), optional
        The classes, sorted (2 of them with 1-D scores).
    ties : {"expected", "optimistic", "pessimistic", "sklearn"}, default "expected"
        A true class tied with others at the cut counts by the chance that it
        falls inside (the expectation over every order of the tie), or as
        inside (outside). ``"sklearn"`` is scikit-learn's rule, to get its
        numbers: a tie ranks the class of the greater column first (its stable
        argsort, reversed), and with 1-D scores a score at the threshold
        predicts the smaller class. Without ties at the cut all four agree.
    sample_weight : array-like of shape (n_samples,), optional
    normalize : bool, default True
        The (weighted) share; False gives the (weighted) count.

    Returns
    -------
    float, or an array with one value per ``k``

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 1, 2, 2]
    >>> s = [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]]
    >>> fastrank.top_k_accuracy(y, s, 2)
    0.75
    >>> fastrank.top_k_accuracy(y, s, [1, 2], ties="optimistic")
    array([0.5 , 0.75])

    The first sample's class 0 ties with class 1 for the top place: by default
    it counts 1/2 at ``k=1``; scikit-learn ranks the greater column first:

    >>> s = [[0.4, 0.4, 0.2], [0.3, 0.4, 0.2], [0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]
    >>> fastrank.top_k_accuracy(y, s, 1), fastrank.top_k_accuracy(y, s, 1, ties="sklearn")
    (0.625, 0.5)

    Binary 1-D scores, the score of class 1 (0.5, the threshold, ties):

    >>> fastrank.top_k_accuracy([0, 1, 1, 0], [0.2, 0.9, 0.5, 0.5], 1)
    0.75
    """
    ks, scalar_k = check_ks(k)
    if not isinstance(ties, str) or ties not in TOP_K_TIES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TOP_K_TIES))}; "
                         f"got {ties!r}")
    if not isinstance(normalize, bool):
        raise ValueError(f"normalize must be True or False; got {normalize!r}")
    if inputs.is_sparse(y_score):
        raise TypeError("top_k_accuracy takes dense scores (n_samples, n_classes); for a "
                        "sparse matrix of top predictions use hit_rate_at_k with a one-hot "
                        "label matrix")
    s = inputs.as_array(y_score, "y_score")
    if s.ndim == 1 or (s.ndim == 2 and s.shape[1] == 1):
        hits = _binary_top_k(y_true, s.reshape(-1), ks, labels, ties)
        n, t = hits.shape[0], 2
    elif s.ndim == 2:
        n, t = s.shape
        if n == 0:
            raise ValueError("y_score has no samples; at least one is needed")
        if t == 2 and labels is None:
            labels = np.unique(inputs.as_array(y_true, "y_true"))
            if labels.shape[0] != 2:
                raise ValueError(f"y_true holds {labels.shape[0]} classes but y_score has 2 "
                                 "columns; pass labels= to name the class of each column")
        codes, _ = inputs.class_codes(y_true, n, t, labels)
        if ties == "sklearn":
            values = inputs.canonical_scores(s)
            inputs.check_finite(values)
            hits = _argsort_hits(values, codes, ks)
        else:
            onehot = np.zeros((n, t), np.uint8)
            onehot[np.arange(n), codes] = 1
            lists = RankedLists(onehot, s, None, None, depth=int(ks.max()))
            hits = hit_rate(lists, ks, ties)
    else:
        raise ValueError(f"top_k_accuracy needs scores of shape (n_samples, n_classes), or "
                         f"(n_samples,) for a binary task; got {s.shape}")
    w = inputs.weights(sample_weight, n)
    if int(ks.max()) >= t:
        reduce.warn_caller(f"top_k_accuracy: k ({int(ks.max())}) is greater than or equal to "
                           f"the number of classes ({t}), which makes every sample a hit: a "
                           "perfect score, and therefore meaningless")
    with np.errstate(over="ignore"):
        overflows = w is not None and normalize and n > 0 and not math.isfinite(float(w.sum()))
    if overflows and w is not None:
        # weights summing past float64 (the share of hits does not change when every
        # weight is scaled; 0.0 came out): scaled by a power of two
        w = near_one(w)
    # weighted: correctly rounded sums, so that the share is the same in any order of
    # the samples and never above 1 (a dot product's rounding gave 1 + 2**-52)
    total = float(n) if w is None else exact_sum(w)
    got = hits.sum(axis=0) if w is None else \
        np.array([exact_dot(w, hits[:, j]) for j in range(hits.shape[1])])
    if normalize and total == 0:
        reduce.warn_caller("top_k_accuracy is undefined: the sample weights sum to 0; it is "
                           "NaN")
        out = np.full(got.shape[0], np.nan)
    else:
        out = got / total if normalize else got
    return float(out[0]) if scalar_k else out


def _argsort_hits(values: np.ndarray, codes: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """scikit-learn's top-k hits (samples x ks): the classes ranked by a stable argsort
    of the scores, reversed, so that a tie ranks the greater column first. The true
    class's place is the count of the classes scored above it, plus those tied with
    it in a greater column."""
    n, t = values.shape
    mine = values[np.arange(n), codes][:, None]
    after = np.arange(t)[None, :] > codes[:, None]
    place = np.count_nonzero((values > mine) | ((values == mine) & after), axis=1)
    return np.asarray(place[:, None] < ks[None, :], dtype=np.float64)


def _binary_top_k(y_true: Any, scores: np.ndarray, ks: np.ndarray, labels: Any,
                  ties: str) -> np.ndarray:
    """Top-k hits (samples x ks) of a binary task from the scores of its greater class:
    probabilities (all within [0, 1], the threshold 0.5) or decision values
    (threshold 0), as scikit-learn reads them; at the threshold the two classes tie."""
    values, _ = inputs.scores_1d(scores)
    inputs.check_finite(values)
    n = values.shape[0]
    if labels is None:
        found = np.unique(inputs.as_array(y_true, "y_true"))
        if found.shape[0] != 2:
            raise ValueError(
                f"1-D y_score holds the scores of the greater class of a binary task, but "
                f"y_true holds {found.shape[0]} classes; give scores of shape (n_samples, "
                "n_classes), or labels= naming the two classes")
        labels = found
    codes, _ = inputs.class_codes(y_true, n, 2, labels)
    threshold = 0.5 if values.min() >= 0 and values.max() <= 1 else 0
    above = values > threshold  # the greater class ranks first
    tied = values == threshold
    top1 = np.where(above == (codes == 1), 1.0, 0.0)
    if ties == "sklearn":  # at the threshold scikit-learn predicts the smaller class
        top1[tied] = (codes[tied] == 0).astype(np.float64)
    else:  # the chance that the true class of a tie ranks first
        top1[tied] = {"expected": 0.5, "optimistic": 1.0, "pessimistic": 0.0}[ties]
    return np.where(ks[None, :] >= 2, 1.0, top1[:, None])
