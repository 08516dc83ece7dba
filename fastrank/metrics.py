"""Scalar metrics: AP, ROC AUC, PR AUC, d', PRBE, and all at once.

Each function takes one task (1-D labels and scores) or a batch of tasks
(2-D ``(n_samples, n_tasks)`` input, 1-D class labels with 2-D scores, or
``groups``), and computes through the one path of ``fastrank._core``:
validation, one split and sort per task, one sweep of its tie groups. The
exact definitions are in METRICS.md; the Notes of each function restate the
formula.
"""

from __future__ import annotations

from typing import Any, Literal, overload

from ._core import api
from ._core.multiclass import ovo_roc_auc
from ._core.reduce import BatchMetrics, BinaryMetrics, GroupResult

__all__ = [
    "BatchMetrics",
    "BinaryMetrics",
    "all_metrics",
    "average_precision",
    "d_prime",
    "pr_auc",
    "prbe",
    "roc_auc",
]

Average = Literal["macro", "weighted", "size", "pairs", "micro"] | None
# What a batched metric returns: one number (an average), one per task, or per group.
Batched = float | Any | GroupResult

def average_precision(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    ties: Literal["grouped", "expected"] = "grouped",
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
) -> Batched:
    """Average precision (AP): the step-sum area under the precision-recall curve.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_tasks)
        Labels: {0, 1}, {-1, 1} or bool, or any two values with ``pos_label``;
        a 2-D label matrix (dense or ``scipy.sparse``) with 2-D scores; 1-D
        class labels with 2-D scores (one class against the rest per column).
    y_score : array-like of shape (n_samples,) or (n_samples, n_tasks)
        Scores, higher meaning more likely positive; any real dtype. Never
        transformed: only their order and ties matter.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative finite weights, one per sample (shared by every task).
    pos_label : scalar, optional
        The label of the positive class (required unless labels are
        {0, 1}, {-1, 1} or bool). Fixed to 1 for label matrices and class labels.
    ties : {"grouped", "expected"}, default "grouped"
        ``"grouped"``: samples with equal scores form one cutoff, as in
        scikit-learn. ``"expected"``: the expected AP over all orders of the
        samples inside each tie group (unweighted only).
    average : {"macro", "weighted", "size", "pairs", "micro"} or None, default "macro"
        For a batch of tasks (2-D ``y_score``, or ``groups``); ignored for one
        task. ``None``: one value per task. ``"macro"``: the mean over tasks
        (the mAP). ``"weighted"``: weighted by each task's positive total.
        ``"size"``: by each task's sample count (weight sum when weighted).
        ``"pairs"``: by positives x negatives. ``"micro"``: every cell pooled
        into one task. Undefined tasks (here: without positives) are NaN per
        task and left out of every average; one warning counts them (for the
        mean that propagates NaN, take ``np.mean`` of ``average=None``).
    groups : array-like of shape (n_samples,), optional
        One group id per sample (integers or strings, any order): each group
        is one task. With ``average=None`` the result is a
        :class:`~fastrank.GroupResult`.
    labels : array-like, optional
        Multiclass (1-D class labels with 2-D ``y_score``): the class of each
        score column; default the sorted distinct values of ``y_true``.

    Returns
    -------
    float, ndarray or GroupResult
        One task: AP in [0, 1]; NaN (with an
        :class:`~fastrank.UndefinedMetricWarning`) when there are no
        positives. A batch: the average (float), per-task values (an ndarray
        of ``n_tasks``), or a :class:`~fastrank.GroupResult` with ``groups``.

    Notes
    -----
    With ``TP_k``, ``FP_k`` the (weighted) counts at or above the k-th
    distinct score and ``P`` the positive total,
    ``AP = sum_k (TP_k - TP_{k-1}) / P * TP_k / (TP_k + FP_k)``: a tie group
    with several positives contributes the precision below the whole group
    once per positive. Equals scikit-learn's ``average_precision_score``
    (to 1e-12), except that no positives gives NaN rather than 0. Each task
    of a batch equals the one-task call on it, bit for bit, on any number of
    threads.

    See Also
    --------
    sklearn.metrics.average_precision_score : the same number, slower.
    pr_auc : the area under the interpolated PR curve.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> round(fastrank.average_precision(y_true, y_score), 6)
    0.775
    >>> round(fastrank.average_precision(y_true, y_score, ties="expected"), 6)
    0.79375
    """
    return api.compute("average_precision", y_true, y_score, sample_weight=sample_weight,
                       pos_label=pos_label, average=average, groups=groups, labels=labels,
                       ties=ties)


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    max_fpr: float | None = None,
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
    multi_class: Literal["ovr", "ovo"] = "ovr",
) -> Batched:
    """Area under the ROC curve, or its standardised part up to ``max_fpr``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`average_precision`.
    max_fpr : float in (0, 1], optional
        When given (and below 1), the area for false-positive rates up to
        ``max_fpr``, McClish-standardised as in scikit-learn's
        ``roc_auc_score(max_fpr=...)``: 0.5 for a random and 1 for a perfect
        ranking.
    average, groups, labels
        As in :func:`average_precision`; a task missing either class is
        undefined. ``average="pairs"`` over groups is the share of all
        within-group positive-negative pairs ranked right.
    multi_class : {"ovr", "ovo"}, default "ovr"
        Class labels only: one class against the rest, or Hand & Till's mean
        over pairs of classes (scikit-learn's ``multi_class="ovo"``; average
        ``"macro"`` or ``"weighted"`` by the pair's share of samples, no
        ``sample_weight``, no ``max_fpr``, no ``average=None``).

    Returns
    -------
    float, ndarray or GroupResult
        One task: the AUC; NaN (with a warning) when either class is missing.
        A batch as in :func:`average_precision`.

    Notes
    -----
    ``AUC = sum_k (FPR_k - FPR_{k-1}) (TPR_k + TPR_{k-1}) / 2``, the trapezoid
    over the ROC points, which equals the probability that a positive
    outscores a negative with ties counting 1/2. Unweighted counts are exact
    integers. The partial area cuts the last segment by linear interpolation
    at ``max_fpr`` and is mapped by ``0.5 * (1 + (A - m^2/2) / (m - m^2/2))``.

    See Also
    --------
    sklearn.metrics.roc_auc_score : the same number, slower.
    d_prime : the same information on the Gaussian-separation scale.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> fastrank.roc_auc(y_true, y_score)
    0.725
    >>> round(fastrank.roc_auc(y_true, y_score, max_fpr=0.5), 6)
    0.733333
    """
    if multi_class not in ("ovr", "ovo"):
        raise ValueError(f"multi_class must be 'ovr' or 'ovo'; got {multi_class!r}")
    if multi_class == "ovo":
        return ovo_roc_auc(y_true, y_score, sample_weight, labels, average, max_fpr, pos_label)
    return api.compute("roc_auc", y_true, y_score, sample_weight=sample_weight,
                       pos_label=pos_label, average=average, groups=groups, labels=labels,
                       max_fpr=max_fpr)


def pr_auc(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
) -> Batched:
    """Exact area under the Davis-Goadrich interpolated precision-recall curve.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`average_precision`.
    average, groups, labels
        As in :func:`average_precision`; a task without positives is undefined.

    Returns
    -------
    float, ndarray or GroupResult
        One task: the area in [0, 1]; NaN (with a warning) when there are no
        positives. A batch as in :func:`average_precision`.

    Notes
    -----
    Between consecutive cutoffs TP and FP grow linearly together, so precision
    along a segment is ``t / (t + FP_{k-1} + h (t - TP_{k-1}))`` with
    ``h = dFP / dTP``. Each segment's area has the closed form
    ``(1/P) [dTP/a - (b/a^2) log((a TP_k + b) / (a TP_{k-1} + b))]`` with
    ``a = 1 + h`` and ``b = FP_{k-1} - h TP_{k-1}``, evaluated with ``log1p``.
    This is PRROC's ``auc.integral`` (to 1e-9) and the integral that precrec's
    ``auc()`` approximates on a grid.

    See Also
    --------
    average_precision : the step-sum (uninterpolated) area.
    interpolated_precision_recall_curve : the curve whose area this is.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> round(fastrank.pr_auc(y_true, y_score), 10)
    0.7733952089
    """
    return api.compute("pr_auc", y_true, y_score, sample_weight=sample_weight,
                       pos_label=pos_label, average=average, groups=groups, labels=labels)


def d_prime(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
) -> Batched:
    """Sensitivity index d' = sqrt(2) * Phi^-1(ROC AUC).

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`average_precision`.
    average, groups, labels
        As in :func:`average_precision`; a task missing either class is
        undefined. Averages are of the per-task d' values.

    Returns
    -------
    float, ndarray or GroupResult
        One task: the separation, in standard deviations, of two
        equal-variance Gaussian score distributions with this AUC: +inf at
        AUC 1, -inf at AUC 0, NaN (with a warning) when either class is
        missing. A batch as in :func:`average_precision`.

    Notes
    -----
    ``Phi^-1`` is Wichura's AS 241 (about 1e-16 relative), so no scipy is needed.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> round(fastrank.d_prime(y_true, y_score), 6)
    0.84536
    """
    return api.compute("d_prime", y_true, y_score, sample_weight=sample_weight,
                       pos_label=pos_label, average=average, groups=groups, labels=labels)


@overload
def prbe(
    y_true: Any, y_score: Any, *, sample_weight: Any = ..., pos_label: Any = ...,
    return_threshold: Literal[False] = ..., average: Average = ..., groups: Any = ...,
    labels: Any = ...,
) -> Batched: ...
@overload
def prbe(
    y_true: Any, y_score: Any, *, sample_weight: Any = ..., pos_label: Any = ...,
    return_threshold: Literal[True], average: Average = ..., groups: Any = ...,
    labels: Any = ...,
) -> tuple[Any, Any]: ...
def prbe(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    return_threshold: bool = False,
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
) -> Batched | tuple[Any, Any]:
    """Precision-recall break-even point: where precision equals recall.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`average_precision`.
    return_threshold : bool, default False
        Also return the cutoff score: the score of the tie group inside which
        precision meets recall (predicting positive every sample scoring at
        least this much reaches or passes the break-even point). With a batch
        it needs ``average=None`` (or ``"micro"``).
    average, groups, labels
        As in :func:`average_precision`; a task without positives is undefined.

    Returns
    -------
    float, ndarray or GroupResult, or a pair ``(value, threshold)``
        One task: PRBE in [0, 1]; with ``return_threshold=True`` the pair
        ``(prbe, threshold)``, the threshold being the score itself (an
        exact ``int`` for integer scores, as the curves' thresholds). NaN
        (and a NaN threshold), with a warning, when there are no positives.
        A batch as in
        :func:`average_precision`; with ``return_threshold=True`` the pair of
        per-task values and a float64 array of thresholds.

    Notes
    -----
    Along the interpolated PR curve TP + FP grows linearly, and precision
    equals recall exactly where ``TP + FP = P``. PRBE is the interpolated TP
    at predicted mass P, over P; it is unique. Without ties or weights it is
    the R-precision, the precision among the top P samples.
    :func:`all_metrics` returns it together with its threshold too.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> fastrank.prbe(y_true, y_score)
    0.625
    >>> fastrank.prbe(y_true, y_score, return_threshold=True)
    (0.625, 0.6)
    """
    return api.compute("prbe", y_true, y_score, sample_weight=sample_weight,
                       pos_label=pos_label, average=average, groups=groups, labels=labels,
                       return_threshold=return_threshold)


def all_metrics(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    max_fpr: float | None = None,
    average: Average = "macro",
    groups: Any = None,
    labels: Any = None,
) -> BinaryMetrics | BatchMetrics:
    """All scalar metrics from a single sort and sweep per task.

    The fast path when several numbers are wanted: the cost is that of one
    :func:`average_precision` call, not the sum of the calls.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`average_precision`.
    max_fpr : float in (0, 1], optional
        Also compute the partial ROC AUC up to this false-positive rate.
    average, groups, labels
        As in :func:`average_precision`, for a batch of tasks.

    Returns
    -------
    BinaryMetrics or BatchMetrics
        One task, an average or ``average="micro"``: a :class:`BinaryMetrics`
        (an average's ``prbe_threshold`` is NaN and its totals are sums over
        tasks). A batch with ``average=None``: a :class:`BatchMetrics` of
        per-task arrays. Undefined entries are NaN, announced by one warning.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> m = fastrank.all_metrics(y_true, y_score)
    >>> m.average_precision, m.roc_auc, m.prbe, m.prbe_threshold
    (0.775, 0.725, 0.625, 0.6)
    >>> round(m.pr_auc, 6), round(m.d_prime, 6), m.positives, m.negatives
    (0.773395, 0.84536, 4.0, 5.0)

    Per group, then the group mean:

    >>> per = fastrank.all_metrics(y_true, y_score, groups=[1, 1, 1, 1, 2, 2, 2, 2, 2],
    ...                            average=None)
    >>> per.groups, per.roc_auc.round(4)
    (array([1, 2]), array([0.6667, 0.25  ]))
    >>> round(per.mean().roc_auc, 6)
    0.458333
    """
    return api.compute("all_metrics", y_true, y_score, sample_weight=sample_weight,  # type: ignore[no-any-return]
                       pos_label=pos_label, average=average, groups=groups, labels=labels,
                       max_fpr=max_fpr)
