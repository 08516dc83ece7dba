"""Scalar metrics of one task: AP, ROC AUC, PR AUC, d', PRBE, and all at once.

Every function here validates its input (:mod:`fastrank._validation`), runs one
compiled kernel that sorts the scores once and sweeps the tie groups once
(:mod:`fastrank._kernels.task`), and returns plain Python floats. The exact
definitions are in METRICS.md; the Notes of each function restate the formula.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal, cast, overload

import numpy as np

from ._kernels.special import ndtri
from ._kernels.sweep import (
    OUT_AP,
    OUT_AP_EXPECTED,
    OUT_AUC,
    OUT_AUC_PARTIAL,
    OUT_NEG,
    OUT_POS,
    OUT_PR_AUC,
    OUT_PRBE,
    WANT_EXPECTED_AP,
    WANT_PR_AUC,
)
from ._validation import Task, as_array, check_max_fpr, prepare, score_from_bits
from .batch import (
    GroupResult,
    TaskResults,
    average_values,
    check_average,
    d_prime_of,
    evaluate_tasks,
    is_batched,
    ovo_roc_auc,
    sweep_task,
)
from .exceptions import warn_undefined, warn_undefined_tasks

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

_SQRT2 = math.sqrt(2.0)


Average = Literal["macro", "weighted", "size", "pairs", "micro"] | None
# What a batched metric returns: one number (an average), one per task, or per group.
Batched = float | np.ndarray | GroupResult


def _finish(
    name: str, res: TaskResults, values: np.ndarray, undefined: np.ndarray, average: Average,
    stacklevel: int = 3,
) -> Batched:
    """Mark undefined tasks NaN, warn once, and return per-task values or their average."""
    values = np.array(values, dtype=np.float64)
    values[undefined] = math.nan
    pos = res.positives
    neg = res.negatives
    if res.mode == "micro":
        if undefined[0]:
            warn_undefined(f"{name} is", pos[0], neg[0], stacklevel=stacklevel)
        return float(values[0])
    warn_undefined_tasks(f"{name} is", res.mode, pos, neg, undefined, average,
                         stacklevel=stacklevel)
    if average is None:
        if res.mode == "groups":
            assert res.ids is not None
            return GroupResult(res.ids, values, pos.copy(), neg.copy(), res.sizes)
        return values
    return average_values(values, pos, neg, average)


def _one_class(res: TaskResults) -> np.ndarray:
    mask: np.ndarray = (res.positives == 0) | (res.negatives == 0)
    return mask


def _no_positives(res: TaskResults) -> np.ndarray:
    mask: np.ndarray = res.positives == 0
    return mask


def _threshold(task: Task, bits: int) -> float:
    """The cutoff score with raw bits ``bits`` (bool scores are reported as 0.0/1.0)."""
    value = score_from_bits(bits, task)
    return float(value) if isinstance(value, bool) else value


def _d_prime(auc: float) -> float:
    return _SQRT2 * float(ndtri(auc))


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
    y_true : array-like of shape (n_samples,)
        Labels: {0, 1}, {-1, 1} or bool, or any two values with ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive; any real dtype. Never
        transformed: only their order and ties matter.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative finite weights.
    pos_label : scalar, optional
        The label of the positive class (required unless labels are
        {0, 1}, {-1, 1} or bool).
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
        Multiclass (1-D ``y_true`` with 2-D ``y_score``): the class of each
        score column; default the sorted distinct values of ``y_true``.

    Returns
    -------
    float, ndarray or GroupResult
        One task: AP in [0, 1]; NaN (with an
        :class:`~fastrank.UndefinedMetricWarning`) when there are no
        positives. A batch: the average, or per-task values (an array of
        ``n_tasks``, or a ``GroupResult`` with ``groups``).

    Notes
    -----
    ``y_true`` and ``y_score`` of shape ``(n_samples, n_tasks)`` (C or F
    order; ``y_true`` may be ``scipy.sparse``) score each column; 1-D class
    labels with ``(n_samples, n_classes)`` scores score each class against
    the rest; ``groups`` scores each group. ``sample_weight`` stays one
    weight per sample. Each task's value equals the one-task call's, bit for
    bit; the tasks run on all of Numba's threads.

    With ``TP_k``, ``FP_k`` the (weighted) counts at or above the k-th
    distinct score and ``P`` the positive total,
    ``AP = sum_k (TP_k - TP_{k-1}) / P * TP_k / (TP_k + FP_k)``: a tie group
    with several positives contributes the precision below the whole group
    once per positive. Equals scikit-learn's ``average_precision_score``
    (to 1e-12), except that no positives gives NaN rather than 0.

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
    m, what = batch_options("average_precision", sample_weight is not None, ties=ties)
    index = OUT_AP_EXPECTED if ties == "expected" else OUT_AP
    s = as_array(y_score, "y_score")
    if is_batched(s, groups):
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=m, what=what,
        )
        return cast(Batched, batch_result("average_precision", res, average, ties=ties))
    task = prepare(y_true, s, sample_weight, pos_label)
    out, _ = sweep_task(task, 1.0, what)
    if out[OUT_POS] == 0:
        warn_undefined("average_precision is", out[OUT_POS], out[OUT_NEG])
    return float(out[index])


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
        For batches, as in :func:`average_precision`; a task missing either
        class is undefined. ``average="pairs"`` over groups is the share of
        all within-group positive-negative pairs ranked right.
    multi_class : {"ovr", "ovo"}, default "ovr"
        Multiclass only: one class against the rest, or Hand & Till's mean
        over pairs of classes (scikit-learn's ``multi_class="ovo"``; average
        ``"macro"`` or ``"weighted"`` by the pair's share of samples, no
        ``sample_weight``, no ``max_fpr``).

    Returns
    -------
    float, ndarray or GroupResult
        NaN (with a warning) when either class is missing; batches as in
        :func:`average_precision`.

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
    m = check_max_fpr(max_fpr)
    if multi_class not in ("ovr", "ovo"):
        raise ValueError(f"multi_class must be 'ovr' or 'ovo'; got {multi_class!r}")
    index = OUT_AUC_PARTIAL if m < 1.0 else OUT_AUC
    s = as_array(y_score, "y_score")
    if multi_class == "ovo":
        return ovo_roc_auc(y_true, s, sample_weight, labels, average, max_fpr)
    if is_batched(s, groups):
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=m, what=0,
        )
        return cast(Batched, batch_result("roc_auc", res, average, max_fpr=max_fpr))
    task = prepare(y_true, s, sample_weight, pos_label)
    out, _ = sweep_task(task, m, 0)
    if out[OUT_POS] == 0 or out[OUT_NEG] == 0:
        warn_undefined("roc_auc is", out[OUT_POS], out[OUT_NEG])
    return float(out[index])


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

    Returns
    -------
    float
        NaN (with a warning) when there are no positives.

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
    s = as_array(y_score, "y_score")
    if is_batched(s, groups):
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=1.0, what=WANT_PR_AUC,
        )
        return cast(Batched, batch_result("pr_auc", res, average))
    task = prepare(y_true, s, sample_weight, pos_label)
    out, _ = sweep_task(task, 1.0, WANT_PR_AUC)
    if out[OUT_POS] == 0:
        warn_undefined("pr_auc is", out[OUT_POS], out[OUT_NEG])
    return float(out[OUT_PR_AUC])


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

    Returns
    -------
    float
        The separation, in standard deviations, of two equal-variance Gaussian
        score distributions with this AUC: +inf at AUC 1, -inf at AUC 0, NaN
        (with a warning) when either class is missing.

    Notes
    -----
    ``Phi^-1`` is computed with Wichura's AS 241 (about 1e-16 relative), so
    no scipy is needed.

    Examples
    --------
    >>> import fastrank
    >>> y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> y_score = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> round(fastrank.d_prime(y_true, y_score), 6)
    0.84536
    """
    s = as_array(y_score, "y_score")
    if is_batched(s, groups):
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=1.0, what=0,
        )
        return cast(Batched, batch_result("d_prime", res, average))
    task = prepare(y_true, s, sample_weight, pos_label)
    out, _ = sweep_task(task, 1.0, 0)
    if out[OUT_POS] == 0 or out[OUT_NEG] == 0:
        warn_undefined("d_prime is", out[OUT_POS], out[OUT_NEG])
        return math.nan
    return _d_prime(float(out[OUT_AUC]))


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
        least this much reaches or passes the break-even point).

    Returns
    -------
    float, or (float, threshold) with ``return_threshold=True``
        NaN (and a NaN threshold), with a warning, when there are no positives.

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
    s = as_array(y_score, "y_score")
    if is_batched(s, groups):
        check_prbe_average(average, return_threshold)
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=1.0, what=0,
        )
        result = batch_result("prbe", res, average, return_threshold=return_threshold)
        return cast("Batched | tuple[Any, Any]", result)
    task = prepare(y_true, s, sample_weight, pos_label)
    out, prbe_bits = sweep_task(task, 1.0, 0)
    if out[OUT_POS] == 0:
        warn_undefined("prbe is", out[OUT_POS], out[OUT_NEG])
        return (math.nan, math.nan) if return_threshold else math.nan
    value = float(out[OUT_PRBE])
    if return_threshold:
        return value, _threshold(task, prbe_bits)
    return value


@dataclass(frozen=True, slots=True)
class BinaryMetrics:
    """Every scalar metric of one task, from one sort and one sweep.

    Attributes
    ----------
    average_precision : float
        AP with grouped ties (:func:`average_precision`).
    average_precision_expected : float or None
        Tie-expected AP; ``None`` when the call had sample weights.
    roc_auc : float
        Full ROC AUC (:func:`roc_auc`).
    roc_auc_partial : float or None
        McClish-standardised partial AUC; ``None`` unless ``max_fpr`` was given.
    max_fpr : float or None
        The ``max_fpr`` of the call.
    pr_auc : float
        Area under the interpolated PR curve (:func:`pr_auc`).
    d_prime : float
        sqrt(2) * Phi^-1(roc_auc) (:func:`d_prime`).
    prbe : float
        Precision-recall break-even point (:func:`prbe`).
    prbe_threshold : float
        The score of the tie group where precision meets recall.
    positives, negatives : float
        Positive and negative totals (counts, or weight sums when weighted).
    """

    average_precision: float
    average_precision_expected: float | None
    roc_auc: float
    roc_auc_partial: float | None
    max_fpr: float | None
    pr_auc: float
    d_prime: float
    prbe: float
    prbe_threshold: float
    positives: float
    negatives: float

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain ``dict`` (for tables, JSON and logging)."""
        return asdict(self)


@dataclass(frozen=True, slots=True, eq=False)
class BatchMetrics:
    """Every metric of every task of a batch (``all_metrics(..., average=None)``).

    The fields of :class:`BinaryMetrics`, each a float64 array with one entry
    per task (column, class or group; NaN where undefined), plus ``groups``:
    the group ids of a grouped call, the classes of a multiclass call, or
    ``None`` for a multilabel matrix.
    """

    average_precision: np.ndarray
    average_precision_expected: np.ndarray | None
    roc_auc: np.ndarray
    roc_auc_partial: np.ndarray | None
    max_fpr: float | None
    pr_auc: np.ndarray
    d_prime: np.ndarray
    prbe: np.ndarray
    prbe_threshold: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    groups: np.ndarray | None

    def __len__(self) -> int:
        return int(self.roc_auc.shape[0])

    def mean(self, average: str = "macro") -> BinaryMetrics:
        """Each metric averaged over the tasks where it is defined.

        ``average`` is ``"macro"``, ``"weighted"``, ``"size"`` or ``"pairs"``
        (as in :func:`roc_auc`). ``prbe_threshold`` has no average and is NaN;
        ``positives`` and ``negatives`` are the totals over all tasks.
        """
        pos, neg = self.positives, self.negatives

        def avg(values: np.ndarray | None) -> float | None:
            return None if values is None else average_values(values, pos, neg, average)

        return BinaryMetrics(
            average_precision=average_values(self.average_precision, pos, neg, average),
            average_precision_expected=avg(self.average_precision_expected),
            roc_auc=average_values(self.roc_auc, pos, neg, average),
            roc_auc_partial=avg(self.roc_auc_partial),
            max_fpr=self.max_fpr,
            pr_auc=average_values(self.pr_auc, pos, neg, average),
            d_prime=average_values(self.d_prime, pos, neg, average),
            prbe=average_values(self.prbe, pos, neg, average),
            prbe_threshold=math.nan,
            positives=float(pos.sum()),
            negatives=float(neg.sum()),
        )

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain ``dict`` (for tables)."""
        return asdict(self)


def batch_options(
    name: str, weighted: bool, *, max_fpr: float | None = None, ties: str = "grouped"
) -> tuple[float, int]:
    """Check a batched metric's options; its ``max_fpr`` (1.0 when full) and ``WANT_*`` flags."""
    if name == "average_precision":
        if ties not in ("grouped", "expected"):
            raise ValueError(f"ties must be 'grouped' or 'expected'; got {ties!r}")
        if ties == "expected" and weighted:
            raise ValueError(
                "ties='expected' is defined for unweighted samples only; "
                "drop sample_weight or use ties='grouped'"
            )
        return 1.0, WANT_EXPECTED_AP if ties == "expected" else 0
    m = check_max_fpr(max_fpr) if name in ("roc_auc", "all_metrics") else 1.0
    if name == "pr_auc":
        return m, WANT_PR_AUC
    if name == "all_metrics":
        return m, WANT_PR_AUC | (0 if weighted else WANT_EXPECTED_AP)
    return m, 0


def check_prbe_average(average: Any, return_threshold: bool) -> None:
    check_average(average)
    if return_threshold and average not in (None, "micro"):
        raise ValueError(
            "return_threshold=True gives one threshold per task: use average=None "
            f"(or 'micro'), not average={average!r}"
        )


def batch_result(
    name: str,
    res: TaskResults,
    average: Average,
    *,
    max_fpr: float | None = None,
    ties: str = "grouped",
    return_threshold: bool = False,
    unweighted: bool = True,
    stacklevel: int = 4,
) -> Any:
    """What the batched call of metric ``name`` returns, from its raw per-task results.

    The one place that turns :class:`TaskResults` (of :func:`evaluate_tasks`,
    or assembled from the blocks of a distributed run) into per-task values,
    a :class:`GroupResult`, an average or :class:`BatchMetrics`, with the one
    warning for undefined tasks. ``stacklevel`` attributes that warning to
    the caller of the public function that calls this.
    """
    out = res.out
    if name == "all_metrics":
        m = check_max_fpr(max_fpr)
        _warn_all(res, stacklevel=stacklevel)
        if res.mode == "micro":
            return _binary_metrics(out[0], res.thresholds[0], unweighted, max_fpr, m)
        per = _batch_metrics(res, unweighted, max_fpr, m)
        return per if average is None else per.mean(average)
    if name == "average_precision":
        index = OUT_AP_EXPECTED if ties == "expected" else OUT_AP
        return _finish(name, res, out[:, index], _no_positives(res), average, stacklevel)
    if name == "roc_auc":
        index = OUT_AUC_PARTIAL if check_max_fpr(max_fpr) < 1.0 else OUT_AUC
        return _finish(name, res, out[:, index], _one_class(res), average, stacklevel)
    if name == "pr_auc":
        return _finish(name, res, out[:, OUT_PR_AUC], _no_positives(res), average, stacklevel)
    if name == "d_prime":
        return _finish(name, res, d_prime_of(out[:, OUT_AUC]), _one_class(res), average,
                       stacklevel)
    if name == "prbe":
        values = _finish(name, res, out[:, OUT_PRBE], _no_positives(res), average, stacklevel)
        if not return_threshold:
            return values
        if res.mode == "micro":
            return values, float(res.thresholds[0])
        return values, res.thresholds
    raise ValueError(f"not a batched metric: {name!r}")


def _warn_all(res: TaskResults, stacklevel: int = 3) -> None:
    """The one warning of an ``all_metrics`` call with undefined tasks."""
    no_pos = res.positives == 0
    one_class = no_pos | (res.negatives == 0)
    if res.mode == "micro":
        if no_pos[0]:
            names = "average_precision, pr_auc, prbe, roc_auc and d_prime are"
            warn_undefined(names, res.positives[0], res.negatives[0], stacklevel=stacklevel)
        elif one_class[0]:
            warn_undefined("roc_auc and d_prime are", res.positives[0], res.negatives[0],
                           stacklevel=stacklevel)
        return
    if no_pos.any() or not one_class.any():
        names = "average_precision, pr_auc, prbe, roc_auc and d_prime are"
    else:
        names = "roc_auc and d_prime are"
    warn_undefined_tasks(
        names, res.mode, res.positives, res.negatives, one_class, None, stacklevel=stacklevel
    )


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
    """All scalar metrics of one task from a single sort and sweep.

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
    m, what = batch_options("all_metrics", sample_weight is not None, max_fpr=max_fpr)
    s = as_array(y_score, "y_score")
    if is_batched(s, groups):
        check_average(average)
        res = evaluate_tasks(
            y_true, s, sample_weight=sample_weight, pos_label=pos_label, groups=groups,
            labels=labels, average=average, max_fpr=m, what=what,
        )
        result = batch_result("all_metrics", res, average, max_fpr=max_fpr,
                              unweighted=sample_weight is None)
        return cast("BinaryMetrics | BatchMetrics", result)
    result = task_metrics(prepare(y_true, s, sample_weight, pos_label), max_fpr)
    pos, neg = result.positives, result.negatives
    if pos == 0:
        warn_undefined(
            "average_precision, pr_auc, prbe, roc_auc and d_prime are", pos, neg
        )
    elif neg == 0:
        warn_undefined("roc_auc and d_prime are", pos, neg)
    return result


def task_metrics(task: Task, max_fpr: float | None = None) -> BinaryMetrics:
    """Every metric of one validated task, without the undefined-task warning.

    The single-task body of :func:`all_metrics`, for callers that score many
    tasks and announce undefined ones once (:mod:`fastrank.evaluation`).
    """
    m = check_max_fpr(max_fpr)
    unweighted = task.weights is None
    what = WANT_PR_AUC | (WANT_EXPECTED_AP if unweighted else 0)
    out, prbe_bits = sweep_task(task, m, what)
    out[OUT_POS] *= task.weight_unit
    out[OUT_NEG] *= task.weight_unit
    threshold = _threshold(task, prbe_bits) if out[OUT_POS] > 0 else math.nan
    return _binary_metrics(out, threshold, unweighted, max_fpr, m)


def _binary_metrics(
    out: np.ndarray, threshold: Any, unweighted: bool, max_fpr: float | None, m: float
) -> BinaryMetrics:
    """A :class:`BinaryMetrics` from one task's ``OUT_*`` row (totals in caller units)."""
    auc = float(out[OUT_AUC])
    return BinaryMetrics(
        average_precision=float(out[OUT_AP]),
        average_precision_expected=float(out[OUT_AP_EXPECTED]) if unweighted else None,
        roc_auc=auc,
        roc_auc_partial=float(out[OUT_AUC_PARTIAL]) if max_fpr is not None else None,
        max_fpr=m if max_fpr is not None else None,
        pr_auc=float(out[OUT_PR_AUC]),
        d_prime=_d_prime(auc) if not math.isnan(auc) else math.nan,
        prbe=float(out[OUT_PRBE]),
        prbe_threshold=float(threshold) if isinstance(threshold, np.floating) else threshold,
        positives=float(out[OUT_POS]),
        negatives=float(out[OUT_NEG]),
    )


def _batch_metrics(
    res: TaskResults, unweighted: bool, max_fpr: float | None, m: float
) -> BatchMetrics:
    out = res.out
    no_pos = res.positives == 0
    one_class = no_pos | (res.negatives == 0)

    def col(index: int, undefined: np.ndarray) -> np.ndarray:
        values = out[:, index].copy()
        values[undefined] = math.nan
        return values

    auc = col(OUT_AUC, one_class)
    return BatchMetrics(
        average_precision=col(OUT_AP, no_pos),
        average_precision_expected=col(OUT_AP_EXPECTED, no_pos) if unweighted else None,
        roc_auc=auc,
        roc_auc_partial=col(OUT_AUC_PARTIAL, one_class) if max_fpr is not None else None,
        max_fpr=m if max_fpr is not None else None,
        pr_auc=col(OUT_PR_AUC, no_pos),
        d_prime=d_prime_of(auc),
        prbe=col(OUT_PRBE, no_pos),
        prbe_threshold=res.thresholds,
        positives=res.positives.copy(),
        negatives=res.negatives.copy(),
        groups=res.ids,
    )
