"""From per-task results to what a call returns: NaN, one warning, averages, result types.

The engine returns raw per-task rows (:class:`Results`); this module is the
one place that marks undefined tasks NaN (by the registry's rule), emits the
one :class:`~fastrank.UndefinedMetricWarning` of a call, averages over tasks,
and builds the public result types (:class:`BinaryMetrics`,
:class:`BatchMetrics`, :class:`GroupResult`).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from .._kernels.sweep import OUT_NEG, OUT_POS
from ..exceptions import UndefinedMetricWarning
from .arith import exact_dot, exact_sum, near_one
from .inputs import check_average
from .registry import METRICS, Metric, Request

MEANS = ("macro", "weighted", "size", "pairs", "samples")


class Results(NamedTuple):
    """Raw per-task results; class totals in the caller's units."""

    out: np.ndarray  # (n_tasks, OUT_SIZE)
    thresholds: np.ndarray  # break-even score per task (float64; NaN without positives)
    sizes: np.ndarray  # samples per task
    ids: np.ndarray | None  # group ids or classes
    mode: str  # "tasks", "classes", "groups" or "micro" (every cell as one task)

    @property
    def positives(self) -> np.ndarray:
        return self.out[:, OUT_POS]

    @property
    def negatives(self) -> np.ndarray:
        return self.out[:, OUT_NEG]


# ------------------------------------------------------------------ warnings


def warn_undefined(what: str, mode: str, pos: np.ndarray, neg: np.ndarray,
                   undefined: np.ndarray, average: Any = None, *, stacklevel: int = 2,
                   extra: str = "") -> None:
    """The one warning of a call whose tasks (of kind ``mode``) are partly undefined.

    ``what`` names the metrics ("roc_auc is"); ``pos``/``neg`` are the per-task
    totals and ``undefined`` the mask of NaN tasks. A single task is worded as
    such. ``stacklevel`` counts from the caller of this function. ``extra``: what
    the average had to say (see :func:`average`), in the same warning, or alone.
    """
    total = len(pos)
    level = stacklevel + 1
    tail = "; " + extra if extra else ""
    if total == 0:
        if average is not None:
            warnings.warn(f"{what} undefined: there are no {mode} to average; returning "
                          f"NaN{tail}", UndefinedMetricWarning, stacklevel=level)
        return
    count = int(np.count_nonzero(undefined))
    if count == 0:
        if extra:
            warnings.warn(extra, UndefinedMetricWarning, stacklevel=level)
        return
    if mode == "one":
        p, n = pos[0], neg[0]
        missing = "positive" if p == 0 else "negative"
        if p == 0 and n == 0:
            missing = "positive or negative (all weights are zero)"
        warnings.warn(f"{what} undefined for 1 of 1 task(s): no {missing} samples; "
                      f"returning NaN{tail}", UndefinedMetricWarning, stacklevel=level)
        return
    no_pos = int(np.count_nonzero(undefined & (pos == 0)))
    parts = []
    unit = "labels" if mode == "samples" else "samples"  # a sample's task is its labels
    if no_pos:
        parts.append(f"{no_pos} without positive {unit}")
    if count - no_pos:
        parts.append(f"{count - no_pos} without negative {unit}")
    left_out = "" if average is None else f" and left out of the {average!r} average"
    warnings.warn(f"{what} undefined for {count} of {total} {mode} ({', '.join(parts)}); "
                  f"they are NaN{left_out}{tail}", UndefinedMetricWarning, stacklevel=level)


# ------------------------------------------------------------------ averages


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_caller(message: str) -> None:
    """An :class:`UndefinedMetricWarning` that names the line outside fastrank that
    led here, however many of fastrank's frames lie between (the ``stacklevel`` of
    the first frame not in the package)."""
    frame = sys._getframe(1)
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, UndefinedMetricWarning, stacklevel=level if frame else 2)


def _say(message: str, said: list[str] | None) -> None:
    if said is None:
        warn_caller(message)
    elif message not in said:
        said.append(message)


def average(values: np.ndarray, pos: np.ndarray, neg: np.ndarray, how: Any,
            weights: np.ndarray | None = None, said: list[str] | None = None) -> float:
    """The mean of the defined (non-NaN) values; NaN when none is defined.

    ``how``: ``"macro"`` (plain mean), ``"weighted"`` (by positives), ``"size"``
    (by samples, or weight), ``"pairs"`` (by positives x negatives), ``"samples"``
    (each task a sample's labels: the plain mean, or by ``weights``, the samples'
    weights). An undefined average warns, or, given ``said``, adds its message there
    (for a caller that averages several metrics and warns once).
    """
    if how not in MEANS:
        check_average(how, MEANS)
    ok = ~np.isnan(values)
    if not ok.any():
        return math.nan
    v = values[ok]
    infinite = v[np.isinf(v)]
    if infinite.size and infinite.max() > 0 > infinite.min():
        # d' is +inf for a task ranked perfectly and -inf for one ranked perfectly
        # backwards; a mean of both has no value (numpy would say so with a RuntimeWarning).
        _say("the average is undefined: the values include both +inf and -inf (d' of "
             "tasks ranked perfectly and perfectly backwards); it is NaN", said)
        return math.nan
    if how == "macro" or (how == "samples" and weights is None):
        # a correctly rounded sum: no mean depends on the order of its tasks or samples
        return float(exact_sum(v) / v.shape[0])
    if how == "samples":
        w = weights[ok]  # type: ignore[index]
    elif how == "weighted":
        w = pos[ok]
    elif how == "size":
        w = pos[ok] + neg[ok]
    else:
        w = pos[ok] * neg[ok]
    total = exact_sum(w)  # (a sum past float64's range: rescaled below)
    if total == 0:
        _say("the 'samples' average is undefined: the weights of the samples with a value "
             "sum to 0; it is NaN" if how == "samples" else
             f"the {how!r} average is undefined: every task with a value has weight 0 in it "
             "(one class only); it is NaN", said)
        return math.nan
    mean = exact_dot(w, v) / float(total)
    if not (math.isfinite(mean) and math.isfinite(float(total))) and not infinite.size:
        # weights whose sum (or products with the values) pass float64's range: the same
        # mean from the weights scaled by a power of two (exact, but for any the scaling
        # takes below the normal range), where it gave 0.0 or NaN
        scaled = near_one(w)
        mean = exact_dot(scaled, v) / exact_sum(scaled)
    return mean


# ------------------------------------------------------------------ result types


@dataclass(frozen=True, slots=True, eq=False)
class GroupResult:
    """Per-group values of a grouped call (``groups=...``, ``average=None``).

    Attributes
    ----------
    groups : ndarray
        The distinct group ids, in increasing order (as ``np.unique`` gives).
    values : ndarray of float64
        The metric of each group; NaN where it is undefined.
    positives, negatives : ndarray of float64
        Positive and negative totals of each group (counts, or weight sums).
    sizes : ndarray of int64
        Number of samples in each group.

    Examples
    --------
    >>> import fastrank
    >>> r = fastrank.roc_auc([1, 0, 1, 0, 1], [.9, .1, .4, .6, .7], groups=[0, 0, 1, 1, 1],
    ...                      average=None)
    >>> r.groups, r.values, r.mean()
    (array([0, 1]), array([1. , 0.5]), 0.75)
    """

    groups: np.ndarray
    values: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    sizes: np.ndarray

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def mean(self, average: str = "macro") -> float:
        """The average of the defined groups' values: ``"macro"``, ``"weighted"``,
        ``"size"`` or ``"pairs"`` (see :func:`fastrank.roc_auc`)."""
        return _average(self.values, self.positives, self.negatives, average)

    def to_pandas(self) -> Any:
        """The groups as a pandas DataFrame indexed by group id (needs pandas)."""
        from .._optional import require

        pd = require("pandas", "GroupResult.to_pandas")
        return pd.DataFrame(
            {"value": self.values, "positives": self.positives, "negatives": self.negatives,
             "size": self.sizes},
            index=pd.Index(self.groups, name="group"),
        )


_average = average


@dataclass(frozen=True, slots=True)
class BinaryMetrics:
    """Every scalar metric of one task, from one sort and one sweep.

    Attributes
    ----------
    average_precision : float
        AP with grouped ties (:func:`~fastrank.average_precision`).
    average_precision_expected : float or None
        Tie-expected AP; ``None`` when the call had sample weights.
    roc_auc : float
        Full ROC AUC (:func:`~fastrank.roc_auc`).
    roc_auc_partial : float or None
        McClish-standardised partial AUC; ``None`` unless ``max_fpr`` was given.
    max_fpr : float or None
        The ``max_fpr`` of the call.
    pr_auc : float
        Area under the interpolated PR curve (:func:`~fastrank.pr_auc`).
    d_prime : float
        sqrt(2) * Phi^-1(roc_auc) (:func:`~fastrank.d_prime`).
    prbe : float
        Precision-recall break-even point (:func:`~fastrank.prbe`).
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

    def mean(self, average: str = "macro", weights: np.ndarray | None = None,
             said: list[str] | None = None) -> BinaryMetrics:
        """Each metric averaged over the tasks where it is defined (``weights``: the
        samples' weights of ``average="samples"``).

        ``average`` is ``"macro"``, ``"weighted"``, ``"size"``, ``"pairs"`` or
        ``"samples"`` (as in :func:`~fastrank.roc_auc`). ``prbe_threshold`` has no
        average and is NaN; ``positives`` and ``negatives`` are the totals over all
        tasks. An undefined average warns once for all the metrics (or, given
        ``said``, adds its message there).
        """
        pos, neg = self.positives, self.negatives
        quiet = said is not None
        said = [] if said is None else said

        def avg(values: np.ndarray | None) -> Any:
            return None if values is None else _average(values, pos, neg, average, weights,
                                                        said)

        out = BinaryMetrics(
            average_precision=avg(self.average_precision),
            average_precision_expected=avg(self.average_precision_expected),
            roc_auc=avg(self.roc_auc),
            roc_auc_partial=avg(self.roc_auc_partial),
            max_fpr=self.max_fpr,
            pr_auc=avg(self.pr_auc),
            d_prime=avg(self.d_prime),
            prbe=avg(self.prbe),
            prbe_threshold=math.nan,
            positives=float(pos.sum()),
            negatives=float(neg.sum()),
        )
        if said and not quiet:
            warn_caller(" ".join(said))
        return out

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain ``dict`` (for tables)."""
        return asdict(self)


# ------------------------------------------------------------------ finishing


ALL_NAMES = "average_precision, pr_auc, prbe, roc_auc and d_prime are"
AUC_NAMES = "roc_auc and d_prime are"


def _column(req: Request, res: Results, metric: Metric) -> np.ndarray:
    values = metric.values(res.out)
    values[metric.undefined(res.positives, res.negatives)] = math.nan
    return values


def finish(req: Request, res: Results, average: Any, *, return_threshold: bool = False,
           stacklevel: int = 2, weights: np.ndarray | None = None) -> Any:
    """What a call of ``req`` returns, from its raw per-task results.

    One task (``mode`` "one") or every cell pooled ("micro") gives scalars; a
    batch gives per-task values, a :class:`GroupResult` (groups), one average,
    or for ``all_metrics`` a :class:`BatchMetrics`/:class:`BinaryMetrics`.
    ``stacklevel`` counts from the caller of this function (the warning is
    attributed to whoever called the public function).
    """
    level = stacklevel + 1
    scalar = res.mode in ("one", "micro")
    metric = req.metric
    if scalar and metric is not None:
        row = res.out[0].tolist()  # Python floats: cheaper to read than numpy scalars
        if row[OUT_POS] > 0 and row[OUT_NEG] > 0:  # defined: no masks, no warning
            value = metric.value_of(row)
            return (value, _scalar(res.thresholds[0])) if return_threshold else value
    pos, neg = res.positives, res.negatives
    if metric is None:
        told: list[str] = []  # what the average has to say, in the one warning
        means: BatchMetrics | BinaryMetrics | None = None
        if not scalar:
            per = batch_metrics(res, req)
            means = per if average is None else per.mean(average, weights, told)
        if not (scalar and float(pos[0]) > 0 and float(neg[0]) > 0):  # else nothing to say
            _warn_all(res, None if scalar else average, level, " ".join(told))
        if scalar:
            return binary_metrics(res.out[0], _scalar(res.thresholds[0]), req)
        return means
    values = _column(req, res, metric)
    undefined = np.isnan(values) & metric.undefined(pos, neg)
    mode = "one" if scalar else res.mode
    said: list[str] = []
    mean = None if scalar or average is None else _average(values, pos, neg, average, weights,
                                                           said)
    warn_undefined(f"{metric.function} is", mode, pos, neg, undefined,
                   None if scalar else average, stacklevel=level, extra=" ".join(said))
    if scalar:
        value = float(values[0])
        if return_threshold:
            return value, _scalar(res.thresholds[0])
        return value
    if average is None:
        result: Any = values
        if res.mode == "groups":
            assert res.ids is not None
            result = GroupResult(res.ids, values, pos.copy(), neg.copy(), res.sizes)
    else:
        result = mean
    if return_threshold:
        return result, res.thresholds
    return result


def _scalar(x: Any) -> Any:
    """A one-task break-even score as a Python number (float, or int for int scores)."""
    return x.item() if isinstance(x, np.generic) else x


def _warn_all(res: Results, average: Any, level: int, extra: str = "") -> None:
    """The one warning of an ``all_metrics`` call with undefined tasks (``extra``:
    what the average had to say)."""
    no_pos = res.positives == 0
    one_class = no_pos | (res.negatives == 0)
    mode = "one" if res.mode in ("one", "micro") else res.mode
    mixed = int(np.count_nonzero(no_pos)), int(np.count_nonzero(one_class & ~no_pos))
    if mode != "one" and mixed[0] and mixed[1]:
        # Tasks of both kinds: say which metrics each kind lacks.
        count, total = mixed[0] + mixed[1], len(res.positives)
        left_out = "" if average is None else f" and left out of the {average!r} average"
        warnings.warn(
            f"metrics undefined for {count} of {total} {mode}: average_precision, pr_auc "
            f"and prbe for the {mixed[0]} without positive samples, roc_auc and d_prime "
            f"for those and the {mixed[1]} without negative samples; they are NaN{left_out}"
            + ("; " + extra if extra else ""), UndefinedMetricWarning, stacklevel=level + 1)
        return
    names = ALL_NAMES if (no_pos.any() or not one_class.any()) else AUC_NAMES
    warn_undefined(names, mode, res.positives, res.negatives, one_class, average,
                   stacklevel=level + 1, extra=extra)


def _metric_fields(value: Callable[[str], Any], req: Request) -> dict[str, Any]:
    """The metric fields of :class:`BinaryMetrics` / :class:`BatchMetrics`, each
    read by ``value(name)``; the ones ``req`` did not compute are None."""
    return {
        "average_precision": value("average_precision"),
        "average_precision_expected": None if req.weighted
        else value("average_precision_expected"),
        "roc_auc": value("roc_auc"),
        "roc_auc_partial": value("roc_auc_partial") if req.partial else None,
        "max_fpr": req.max_fpr if req.partial else None,
        "pr_auc": value("pr_auc"),
        "d_prime": value("d_prime"),
        "prbe": value("prbe"),
    }


def binary_metrics(out: np.ndarray, threshold: Any, req: Request) -> BinaryMetrics:
    """A :class:`BinaryMetrics` from one task's ``OUT_*`` row (totals in caller units)."""
    row = out.tolist()  # Python floats: each field reads them without numpy scalars
    return BinaryMetrics(
        **_metric_fields(lambda name: METRICS[name].value_of(row), req),
        prbe_threshold=threshold,
        positives=float(out[OUT_POS]),
        negatives=float(out[OUT_NEG]),
    )


def batch_metrics(res: Results, req: Request) -> BatchMetrics:
    """A :class:`BatchMetrics` of every task of a batch."""
    return BatchMetrics(
        **_metric_fields(lambda name: _column(req, res, METRICS[name]), req),
        prbe_threshold=res.thresholds,
        positives=res.positives.copy(),
        negatives=res.negatives.copy(),
        groups=res.ids,
    )
