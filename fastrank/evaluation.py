"""Many models on many datasets: one call, then tables and averaged curves.

:func:`evaluate` scores every (model, dataset) pair once: one validation and
one sort give the tie-group table, and every metric, curve and cutoff
statistic is read from that table (its metrics bit for bit those of
:func:`fastrank.all_metrics` on the pair). Its :class:`Evaluation` returns pandas
tables (pandas imported only then) or plain dicts of numpy columns, averaged
curves with pointwise t intervals across datasets (cross-validation folds), and
figures (:mod:`fastrank.plots`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._core import codec, delong, engine, ids, inputs, registry, tie_tables
from ._core.api import threshold_of
from ._core.inputs import Task, as_array
from ._core.interpolate import precision_at
from ._core.options import check_flag, depth_shares
from ._core.reduce import BinaryMetrics, binary_metrics
from ._kernels.sweep import OUT_NEG, OUT_POS
from ._optional import require
from .curves import gain_lift_at
from .exceptions import UndefinedMetricWarning
from .readouts import check_options, criterion_values, table_readout
from .stats import check_level, critical_value, mean_interval, t_quantile

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["Entry", "Evaluation", "MeanCurve", "evaluate"]

Columns = dict[str, np.ndarray]

SUMMARY_COLUMNS = (
    "positives",
    "negatives",
    "average_precision",
    "average_precision_expected",
    "roc_auc",
    "pr_auc",
    "d_prime",
    "prbe",
    "prbe_threshold",
)
CUTOFF_COLUMNS = (
    "threshold", "tp", "fp", "tn", "fn", "precision", "recall", "specificity",
    "accuracy", "error_rate", "f1", "f_beta", "mcc", "youden_j",
)


@dataclass(frozen=True, eq=False)
class Entry:
    """One model scored on one dataset.

    Attributes
    ----------
    model : str
    dataset : object
        The dataset id as given (int, str, ...).
    metrics : BinaryMetrics
        Every scalar metric, equal to :func:`fastrank.all_metrics` on the pair.
    thresholds : ndarray
        The distinct scores, highest first, in the dtype of the scores.
    group_positives, group_negatives : ndarray of float64
        Positives and negatives (weight sums when weighted) scoring exactly
        each threshold.
    tp, fp : ndarray of float64
        Positives and negatives scoring at or above each threshold (the
        cumulative sums; :func:`fastrank.confusion_matrix_at_thresholds`).
    weighted : bool
        Whether the pair was scored with sample weights.
    """

    model: str
    dataset: Any
    metrics: BinaryMetrics
    thresholds: np.ndarray = field(repr=False)
    group_positives: np.ndarray = field(repr=False)
    group_negatives: np.ndarray = field(repr=False)
    tp: np.ndarray = field(repr=False)
    fp: np.ndarray = field(repr=False)
    weighted: bool = False

    @property
    def positives(self) -> float:
        """Positive total (count, or weight sum)."""
        return self.metrics.positives

    @property
    def negatives(self) -> float:
        """Negative total (count, or weight sum)."""
        return self.metrics.negatives

    def cutoffs(self, beta: float = 1.0, rows: Any = None) -> Columns:
        """Confusion counts and rates at every threshold, as numpy columns.

        The columns of :meth:`Evaluation.cutoffs`; ``beta`` weighs recall in
        ``f_beta``; ``rows`` (an index or mask) selects thresholds.
        """
        beta = _check_beta(beta)
        tp, fp, thresholds = self.tp, self.fp, self.thresholds
        if rows is not None:
            tp, fp, thresholds = tp[rows], fp[rows], thresholds[rows]
        pos, neg = self.positives, self.negatives
        tn, fn = neg - fp, pos - tp
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = tp + fp
            precision = np.where(predicted > 0, tp / np.where(predicted > 0, predicted, 1.0), 0.0)
            recall, specificity = _rates(tp, fp, pos, neg)
            total = pos + neg
            accuracy = (tp + tn) / total if total > 0 else np.full(tp.shape, math.nan)
            f1 = criterion_values(fp, tp, "f1", totals=(pos, neg))
            f_beta = f1 if beta == 1.0 else criterion_values(fp, tp, "f_beta", beta=beta,
                                                             totals=(pos, neg))
            mcc = criterion_values(fp, tp, "mcc", totals=(pos, neg))
        return {
            "threshold": thresholds,
            "tp": tp,
            "fp": fp,
            "tn": tn,
            "fn": fn,
            "precision": precision,
            "recall": recall,
            "specificity": specificity,
            "accuracy": accuracy,
            "error_rate": 1.0 - accuracy,
            "f1": f1,
            "f_beta": f_beta,
            "mcc": mcc,
            "youden_j": recall + specificity - 1.0,
        }

    def criterion(self, column: str, beta: float = 1.0) -> np.ndarray:
        """One cutoff column at every threshold (``"youden_j"``, ``"f1"`` or
        ``"f_beta"``), computed as :meth:`cutoffs` does without the others."""
        tp, fp = self.tp, self.fp
        pos, neg = self.positives, self.negatives
        if column == "youden_j":
            recall, specificity = _rates(tp, fp, pos, neg)
            j: np.ndarray = recall + specificity - 1.0
            return j
        return criterion_values(fp, tp, column, beta=beta, totals=(pos, neg))

    def delong_variance(self) -> float:
        """DeLong's variance of the ROC AUC, from the tie-group table.

        Every sample of a tie group has the same placement, so the sums run
        over groups (``fastrank._core.delong``). NaN with fewer than two
        positives or negatives; weighted entries raise ``ValueError``.
        """
        if self.weighted:
            raise ValueError("the DeLong variance is defined for unweighted samples; "
                             "this pair was evaluated with sample weights")
        return delong.table_sums(self.group_positives, self.group_negatives).variance

    def roc_defined(self) -> bool:
        """Whether both classes are present (the ROC curve exists)."""
        return self.positives > 0 and self.negatives > 0

    def pr_defined(self) -> bool:
        """Whether there are positives (the PR curve exists)."""
        return self.positives > 0

    def tpr_at(self, fpr: np.ndarray) -> np.ndarray:
        """True-positive rate at each false-positive rate (vertical averaging).

        At an FPR the ROC curve reaches exactly, the highest TPR it has there;
        between two consecutive points, the straight segment joining them.
        """
        xs = np.concatenate(([0.0], self.fp / self.negatives))
        ys = np.concatenate(([0.0], self.tp / self.positives))
        i = np.searchsorted(xs, fpr, side="right") - 1  # last point with FPR <= f
        i = np.clip(i, 0, xs.shape[0] - 1)
        j = np.minimum(i + 1, xs.shape[0] - 1)
        span = xs[j] - xs[i]
        frac = np.divide(fpr - xs[i], span, out=np.zeros_like(fpr), where=span > 0)
        tpr: np.ndarray = ys[i] + frac * (ys[j] - ys[i])
        return tpr

    def precision_at(self, recall: np.ndarray) -> np.ndarray:
        """Interpolated precision at each recall
        (:func:`fastrank.interpolated_precision_recall_curve`)."""
        gpos, gneg = self.group_positives, self.group_negatives
        tp_start = self.tp - gpos
        fp_start = self.fp - gneg
        return precision_at(recall * self.positives, tp_start, fp_start, gpos, gneg)


def _rates(
    tp: np.ndarray, fp: np.ndarray, pos: float, neg: float
) -> tuple[np.ndarray, np.ndarray]:
    """Recall (TPR) and specificity (TNR) at each cutoff; NaN without that class."""
    recall = tp / pos if pos > 0 else np.full(tp.shape, math.nan)
    specificity = (neg - fp) / neg if neg > 0 else np.full(tp.shape, math.nan)
    return recall, specificity


def _check_beta(beta: float) -> float:
    if isinstance(beta, bool) or not isinstance(beta, int | float | np.integer | np.floating):
        raise TypeError(f"beta must be a positive number; got {beta!r}")
    if not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be positive and finite; got {beta}")
    return float(beta)


@dataclass(frozen=True, eq=False)
class MeanCurve:
    """One model's curve averaged over datasets, with a pointwise interval.

    Attributes
    ----------
    model : str
    curve : str
        ``"roc"`` (x is the false-positive rate, values true-positive rates)
        or ``"pr"`` (x is recall, values interpolated precision).
    x : ndarray
        The common grid.
    mean, low, high : ndarray
        Mean over datasets and the pointwise ``level`` t interval, clipped to
        [0, 1]; NaN with a single dataset.
    curves : ndarray of shape (n_datasets, len(x))
        Each dataset's curve on the grid.
    datasets : tuple
        The ids of the datasets averaged (those where the curve is defined).
    level : float
    """

    model: str
    curve: str
    x: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)
    curves: np.ndarray = field(repr=False)
    datasets: tuple[Any, ...]
    level: float

    @property
    def n_datasets(self) -> int:
        """How many datasets were averaged."""
        return len(self.datasets)


def _frame(columns: Columns, as_frame: bool) -> Any:
    if not as_frame:
        return columns
    pd = require("pandas", "evaluation tables")
    return pd.DataFrame(columns)


def _names(values: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


class Evaluation:
    """Every metric and curve of several models on several datasets.

    Made by :func:`evaluate`. Each table method returns a pandas DataFrame
    (``as_frame=True``, pandas needed) or a ``dict`` of numpy columns.
    The per-pair numbers and arrays are in ``entries``.

    Attributes
    ----------
    entries : tuple of Entry
        One :class:`Entry` per (model, dataset) pair.
    models : tuple of str
        The models' names, in order of first appearance in ``entries``.
    datasets : tuple
        The datasets' ids, in order of first appearance in ``entries``.
    """

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.models: tuple[str, ...] = tuple(dict.fromkeys(e.model for e in self.entries))
        self.datasets: tuple[Any, ...] = tuple(dict.fromkeys(e.dataset for e in self.entries))

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return (f"Evaluation({len(self.models)} model(s) x {len(self.datasets)} dataset(s), "
                f"{len(self.entries)} entries)")

    # -- lookups -----------------------------------------------------------------

    def entry(self, model: str | None = None, dataset: Any = None) -> Entry:
        """The entry of one model on one dataset.

        Either may be omitted when there is only one model (dataset).
        """
        model = self._pick(model, self.models, "model")
        dataset = self._pick(dataset, self.datasets, "dataset")
        for e in self.entries:
            if e.model == model and e.dataset == dataset:
                return e
        raise ValueError(f"model {model!r} was not evaluated on dataset {dataset!r}")

    @staticmethod
    def _pick(value: Any, choices: tuple[Any, ...], what: str) -> Any:
        if value is None:
            if len(choices) == 1:
                return choices[0]
            raise ValueError(
                f"there are {len(choices)} {what}s; pass {what}= one of {list(choices)}"
            )
        if value not in choices:
            raise ValueError(f"unknown {what} {value!r}; the {what}s are {list(choices)}")
        return value

    def _keys(self, repeat: int = 1) -> Columns:
        return {
            "model": _names([e.model for e in self.entries for _ in range(repeat)]),
            "dataset": _names([e.dataset for e in self.entries for _ in range(repeat)]),
        }

    def _metric(self, name: str) -> np.ndarray:
        values = [getattr(e.metrics, name) for e in self.entries]
        return np.array([math.nan if v is None else v for v in values], dtype=np.float64)

    # -- tables --------------------------------------------------------------------

    def summary(self, *, as_frame: bool = True) -> Any:
        """Every metric of every pair: one row per model and dataset.

        Columns: ``model, dataset, positives, negatives, average_precision,
        average_precision_expected`` (NaN when weighted), ``roc_auc, pr_auc,
        d_prime, prbe, prbe_threshold``.
        """
        columns = self._keys()
        for name in SUMMARY_COLUMNS:
            columns[name] = self._metric(name)
        return _frame(columns, as_frame)

    def auc(self, *, as_frame: bool = True) -> Any:
        """Areas under the curves: two rows per pair, ``curve`` "ROC" then "PR".

        The PR area is the exact area under the interpolated curve
        (:func:`fastrank.pr_auc`).
        """
        columns = self._keys(2)
        columns["curve"] = _names(["ROC", "PR"] * len(self.entries))
        values = np.empty(2 * len(self.entries), dtype=np.float64)
        values[0::2] = self._metric("roc_auc")
        values[1::2] = self._metric("pr_auc")
        columns["auc"] = values
        return _frame(columns, as_frame)

    def average_precision(self, *, as_frame: bool = True) -> Any:
        """Average precision: one row per model and dataset."""
        columns = self._keys()
        columns["average_precision"] = self._metric("average_precision")
        return _frame(columns, as_frame)

    def prbe(self, *, as_frame: bool = True) -> Any:
        """Precision-recall break-even point and the score where it is reached."""
        columns = self._keys()
        columns["prbe"] = self._metric("prbe")
        columns["threshold"] = self._metric("prbe_threshold")
        return _frame(columns, as_frame)

    def cutoffs(
        self, model: str | None = None, dataset: Any = None, *, beta: float = 1.0,
        as_frame: bool = True,
    ) -> Any:
        """Confusion counts and rates at every cutoff of one model on one dataset.

        One row per distinct score, highest first, for the rule "positive when
        score >= threshold". Columns: ``threshold, tp, fp, tn, fn, precision,
        recall, specificity, accuracy, error_rate, f1, f_beta, mcc, youden_j``
        (counts are weight sums when weighted). Conventions follow
        scikit-learn's metrics with ``zero_division=0``: precision and F are 0
        when there are no true positives, MCC is 0 when its denominator is 0.
        Recall (specificity) is NaN without positives (negatives).
        """
        return _frame(self.entry(model, dataset).cutoffs(beta), as_frame)

    def best_cutoffs(self, *, beta: float = 1.0, as_frame: bool = True) -> Any:
        """The best cutoff of each pair by Youden's J and by F1 (and F-beta).

        One row per pair and ``criterion`` (``"youden"``, ``"f1"``, then
        ``"f_beta"`` when ``beta != 1``). Of tied best cutoffs the highest is
        taken. Columns: ``model, dataset, criterion, threshold, value, tp, fp,
        tn, fn, precision, recall, specificity``.
        """
        beta = _check_beta(beta)
        criteria = [("youden", "youden_j"), ("f1", "f1")]
        if beta != 1.0:
            criteria.append(("f_beta", "f_beta"))
        picked = ("tp", "fp", "tn", "fn", "precision", "recall", "specificity")
        rows: dict[str, list[Any]] = {name: [] for name in
                                      ("model", "dataset", "criterion", "threshold", "value",
                                       *picked)}
        for e in self.entries:
            for criterion, column in criteria:
                values = e.criterion(column, beta)
                ok = ~np.isnan(values)
                best = int(np.argmax(np.where(ok, values, -np.inf))) if ok.any() else -1
                row = e.cutoffs(beta, rows=[best]) if best >= 0 else None
                rows["model"].append(e.model)
                rows["dataset"].append(e.dataset)
                rows["criterion"].append(criterion)
                rows["threshold"].append(float(row["threshold"][0]) if row else math.nan)
                rows["value"].append(float(row[column][0]) if row else math.nan)
                for name in picked:
                    rows[name].append(float(row[name][0]) if row else math.nan)
        columns = {name: _names(v) if name in ("model", "dataset", "criterion")
                   else np.array(v, dtype=np.float64) for name, v in rows.items()}
        return _frame(columns, as_frame)

    def operating_points(
        self,
        *,
        min_precision: float | Sequence[float] = (),
        min_recall: float | Sequence[float] = (),
        min_specificity: float | Sequence[float] = (),
        min_sensitivity: float | Sequence[float] = (),
        interpolate: bool = False,
        as_frame: bool = True,
    ) -> Any:
        """Operating points of every pair: recall at a precision, sensitivity at a
        specificity, ..., each with its threshold.

        One row per pair and bound, bounds in the order of the keywords. Columns:
        ``model, dataset, readout`` (``"recall_at_precision"``,
        ``"precision_at_recall"``, ``"sensitivity_at_specificity"``,
        ``"specificity_at_sensitivity"``), ``bound, value, threshold``: each
        value that of :func:`fastrank.recall_at_precision` and the others on the
        pair (NaN where the pair lacks a class the readout needs).

        Examples
        --------
        >>> import fastrank
        >>> ev = fastrank.evaluate({"a": [.9, .8, .8, .7, .6, .5, .4, .3]},
        ...                        [1, 1, 0, 1, 0, 1, 0, 0])
        >>> t = ev.operating_points(min_precision=0.75, min_specificity=[0.75, 1.0],
        ...                         as_frame=False)
        >>> list(t["readout"])
        ['recall_at_precision', 'sensitivity_at_specificity', 'sensitivity_at_specificity']
        >>> t["bound"].tolist(), t["value"].tolist(), t["threshold"].tolist()
        ([0.75, 0.75, 1.0], [0.75, 0.75, 0.25], [0.7, 0.7, 0.9])
        """
        from .readouts import readout

        interpolate = check_flag(interpolate, "interpolate")
        asked: list[tuple[str, float]] = []
        for name, bounds in (("recall_at_precision", min_precision),
                             ("precision_at_recall", min_recall),
                             ("sensitivity_at_specificity", min_specificity),
                             ("specificity_at_sensitivity", min_sensitivity)):
            for bound in np.atleast_1d(np.asarray(bounds, dtype=object)).tolist():
                asked.append((name, bound))
        if not asked:
            raise ValueError("pass at least one bound: min_precision=, min_recall=, "
                             "min_specificity= or min_sensitivity=")
        rows: dict[str, list[Any]] = {k: [] for k in ("model", "dataset", "readout", "bound",
                                                      "value", "threshold")}
        for e in self.entries:
            for name, bound in asked:
                point = readout(name, e.fp, e.tp, e.thresholds, bound, interpolate=interpolate)
                for key, v in (("model", e.model), ("dataset", e.dataset), ("readout", name),
                               ("bound", float(bound)), ("value", point.value),
                               ("threshold", point.threshold)):
                    rows[key].append(v)
        columns = {k: _names(v) if k in ("model", "dataset", "readout")
                   else np.array(v, dtype=np.float64) for k, v in rows.items()}
        return _frame(columns, as_frame)

    def partial_areas(
        self,
        *,
        fpr: tuple[float, float] | None = None,
        tpr: tuple[float, float] | None = None,
        correct: bool = False,
        recall: tuple[float, float] | None = None,
        as_frame: bool = True,
    ) -> Any:
        """Partial areas of every pair: one row per model and dataset.

        Columns ``model, dataset``, then ``partial_roc_auc`` when ``fpr`` or
        ``tpr`` is given (:func:`fastrank.partial_roc_auc` with ``correct``) and
        ``partial_pr_auc`` when ``recall`` is (:func:`fastrank.partial_pr_auc`);
        NaN where the pair lacks a class the area needs.

        Examples
        --------
        >>> import fastrank
        >>> ev = fastrank.evaluate({"a": [.9, .8, .8, .7, .6, .5, .4, .3]},
        ...                        [1, 1, 0, 1, 0, 1, 0, 0])
        >>> t = ev.partial_areas(fpr=(0, 0.5), recall=(0, 0.5), as_frame=False)
        >>> float(t["partial_roc_auc"][0]), round(float(t["partial_pr_auc"][0]), 6)
        (0.28125, 0.443663)
        """
        asked = {}
        if fpr is not None or tpr is not None:
            asked["partial_roc_auc"] = check_options(
                "partial_roc_auc", {"fpr": fpr, "tpr": tpr, "correct": correct})
        elif correct:
            raise ValueError("correct= standardises the partial ROC area: give fpr= or tpr=")
        if recall is not None:
            asked["partial_pr_auc"] = check_options("partial_pr_auc", {"recall": recall})
        if not asked:
            raise ValueError("pass fpr= or tpr= (partial ROC area) or recall= (partial PR "
                             "area)")
        columns = self._keys()
        for name, opts in asked.items():
            values = []
            for e in self.entries:
                got = table_readout(name, opts, e.fp, e.tp, e.thresholds.astype(np.float64))
                values.append(math.nan if isinstance(got, str) else float(got))
            columns[name] = np.array(values, dtype=np.float64)
        return _frame(columns, as_frame)

    def gains(self, depths: Any = (0.01, 0.05, 0.1, 0.2), *, as_frame: bool = True) -> Any:
        """Cumulative gain and lift of every pair at each depth (a share of the
        samples): one row per pair and depth.

        Columns ``model, dataset, depth, gain, lift``: each value that of
        :func:`fastrank.gain_at_depth` and :func:`fastrank.lift_at_depth` on the
        pair, tie-aware (NaN for a pair without positives).

        Examples
        --------
        >>> import fastrank
        >>> ev = fastrank.evaluate({"a": [.9, .8, .8, .7, .6, .5, .4, .3]},
        ...                        [1, 1, 0, 1, 0, 1, 0, 0])
        >>> t = ev.gains([0.25, 0.5], as_frame=False)
        >>> t["gain"].tolist(), t["lift"].tolist()
        ([0.375, 0.75], [1.5, 1.5])
        """
        d, _ = depth_shares(depths)
        d = np.atleast_1d(d)
        columns = self._keys(d.shape[0])
        columns["depth"] = np.tile(d, len(self.entries))
        gains, lifts = [], []
        for e in self.entries:
            with np.errstate(invalid="ignore", divide="ignore"):
                g, lift = gain_lift_at(e.fp, e.tp, d)
            gains.append(g)
            lifts.append(lift)
        columns["gain"] = np.concatenate(gains) if gains else np.empty(0)
        columns["lift"] = np.concatenate(lifts) if lifts else np.empty(0)
        return _frame(columns, as_frame)

    def auc_ci(self, *, level: float = 0.95, as_frame: bool = True) -> Any:
        """ROC AUC with DeLong's interval, one row per model and dataset.

        Columns: ``model, dataset, auc, se, low, high`` (bounds clipped to
        [0, 1]), as :func:`fastrank.roc_auc_ci`. The DeLong variance comes from
        the tie-group table already computed; unweighted pairs only.
        """
        level = check_level(level)
        z = critical_value(level)
        se = np.empty(len(self.entries))
        for i, e in enumerate(self.entries):
            se[i] = math.sqrt(e.delong_variance())
        columns = self._keys()
        auc = self._metric("roc_auc")
        columns["auc"] = auc
        columns["se"] = se
        columns["low"] = np.clip(auc - z * se, 0.0, 1.0)
        columns["high"] = np.clip(auc + z * se, 0.0, 1.0)
        return _frame(columns, as_frame)

    # -- averages over datasets --------------------------------------------------------

    def mean_curve(
        self, model: str | None = None, curve: str = "roc", *, level: float = 0.95,
        points: int = 101,
    ) -> MeanCurve:
        """One model's ROC or PR curve averaged over the datasets (folds).

        On the grid ``np.linspace(0, 1, points)`` of false-positive rates
        (ROC, vertical averaging: the highest TPR at an FPR the curve reaches,
        linear between points) or of recalls (PR, the interpolated precision
        of :func:`fastrank.interpolated_precision_recall_curve`). The band is
        the pointwise mean +- t * sd / sqrt(n) (Student t with n - 1 degrees
        of freedom), clipped to [0, 1]. Datasets where the curve is undefined
        are left out with one :class:`~fastrank.UndefinedMetricWarning`.
        """
        model = self._pick(model, self.models, "model")
        if curve not in ("roc", "pr"):
            raise ValueError(f"curve must be 'roc' or 'pr'; got {curve!r}")
        level = check_level(level)
        if isinstance(points, bool) or not isinstance(points, int | np.integer) or points < 2:
            raise ValueError(f"points must be an integer >= 2; got {points!r}")
        grid = np.linspace(0.0, 1.0, int(points))
        mine = [e for e in self.entries if e.model == model]
        defined = [e for e in mine if (e.roc_defined() if curve == "roc" else e.pr_defined())]
        if len(defined) < len(mine):
            missing = "both classes" if curve == "roc" else "positives"
            warnings.warn(
                f"the {curve.upper()} curve of model {model!r} is undefined on "
                f"{len(mine) - len(defined)} of {len(mine)} datasets (they lack {missing}); "
                "they are left out of the average",
                UndefinedMetricWarning, stacklevel=2,
            )
        curves = np.empty((len(defined), grid.shape[0]), dtype=np.float64)
        for row, e in zip(curves, defined, strict=True):
            row[:] = e.tpr_at(grid) if curve == "roc" else e.precision_at(grid)
        mean, low, high = _bands(curves, level)
        return MeanCurve(model=model, curve=curve, x=grid, mean=mean, low=low, high=high,
                         curves=curves, datasets=tuple(e.dataset for e in defined), level=level)

    def mean_auc(self, *, level: float = 0.95, as_frame: bool = True) -> Any:
        """Each model's ROC and PR areas averaged over datasets, with t intervals.

        Columns: ``model, curve`` ("ROC"/"PR"), ``mean, sd, low, high,
        n_datasets``. Datasets where the area is NaN are left out; the interval
        is clipped to [0, 1] and NaN with fewer than two datasets.
        """
        level = check_level(level)
        rows: dict[str, list[Any]] = {k: [] for k in
                                      ("model", "curve", "mean", "sd", "low", "high", "n_datasets")}
        for model in self.models:
            for curve, name in (("ROC", "roc_auc"), ("PR", "pr_auc")):
                values = np.array([getattr(e.metrics, name) for e in self.entries
                                   if e.model == model], dtype=np.float64)
                values = values[~np.isnan(values)]
                mean, sd, low, high = mean_interval(values, level)
                for key, v in zip(("model", "curve", "mean", "sd", "low", "high", "n_datasets"),
                                  (model, curve, mean, sd, low, high, values.shape[0]),
                                  strict=True):
                    rows[key].append(v)
        columns = {k: _names(v) if k in ("model", "curve")
                   else np.array(v, dtype=np.int64 if k == "n_datasets" else np.float64)
                   for k, v in rows.items()}
        return _frame(columns, as_frame)

    # -- pictures --------------------------------------------------------------------

    def plot(self, kinds: Sequence[str] = ("roc", "pr"), **kwargs: Any) -> Figure:
        """ROC, PR and DET curves of every model in one figure.

        See :func:`fastrank.plots.plot_evaluation` for the keywords.
        """
        from .plots import plot_evaluation

        return plot_evaluation(self, kinds, **kwargs)


def _bands(curves: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, width = curves.shape
    if n == 0:
        nan = np.full(width, math.nan)
        return nan, nan.copy(), nan.copy()
    mean = curves.mean(axis=0)
    if n == 1:
        return mean, np.full(width, math.nan), np.full(width, math.nan)
    half = t_quantile(0.5 + 0.5 * level, n - 1) * curves.std(axis=0, ddof=1) / math.sqrt(n)
    return mean, np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)


# -- input ------------------------------------------------------------------------------


def _is_vector(x: Any) -> bool:
    """Whether ``x`` is one array-like vector rather than a list of vectors."""
    return np.ndim(x) != 0


def _is_vector_list(x: Any) -> bool:
    """Whether ``x`` is a non-empty list or tuple of vectors."""
    return isinstance(x, list | tuple) and len(x) > 0 and all(_is_vector(v) for v in x)


def _folds(value: Any) -> list[tuple[Any, Any]] | None:
    """A model's per-dataset scores as ``(dataset id, vector)`` pairs, or None when
    ``value`` is one score vector: a mapping dataset id -> scores, or a list of
    score vectors (dataset ids 0, 1, ...)."""
    if isinstance(value, Mapping):
        return [(ids.plain(k), v) for k, v in value.items()]
    if _is_vector_list(value):
        return list(enumerate(value))
    return None


def _score_vectors(scores: Any) -> tuple[list[Any], list[str] | None, list[Any] | None]:
    """The score vectors and, where the input names them, their models and datasets."""
    if isinstance(scores, Mapping):
        per_model = {str(k): _folds(v) for k, v in scores.items()}
        nested = [m for m, f in per_model.items() if f is not None]
        if not nested:
            return list(scores.values()), [str(k) for k in scores], None
        if len(nested) != len(per_model):
            flat = next(m for m, f in per_model.items() if f is None)
            raise ValueError(
                f"scores maps model {nested[0]!r} to per-dataset scores but model {flat!r} "
                "to one vector: give every model its scores per dataset, or none"
            )
        vectors, models, datasets = [], [], []
        for model, folds in per_model.items():
            assert folds is not None
            if not folds:
                raise ValueError(f"scores[{model!r}] holds no score vectors")
            for dataset, vector in folds:
                vectors.append(vector)
                models.append(model)
                datasets.append(dataset)
        return vectors, models, datasets
    if hasattr(scores, "columns") and hasattr(scores, "iloc") and getattr(scores, "ndim", 0) == 2:
        names = [str(c) for c in scores.columns]
        return [scores.iloc[:, j] for j in range(len(names))], names, None
    if isinstance(scores, list | tuple):
        if len(scores) == 0:
            raise ValueError("scores is empty: pass at least one score vector")
        if all(_is_vector(s) for s in scores):
            return list(scores), None, None
        if not any(_is_vector(s) for s in scores):
            return [scores], None, None
        raise ValueError("scores mixes numbers and vectors: pass one vector or a list of vectors")
    arr = as_array(scores, "scores")
    if arr.ndim == 1:
        return [arr], None, None
    if arr.ndim == 2:
        return [arr[:, j] for j in range(arr.shape[1])], None, None
    raise ValueError(f"scores must be 1-D or 2-D (n_samples, n_models); got shape {arr.shape}")


def _order(datasets: list[Any]) -> list[Any]:
    """The distinct dataset ids in order of first appearance."""
    return list(dict.fromkeys(datasets))


def _per_entry(
    value: Any, datasets: list[Any], name: str
) -> tuple[list[Any], bool]:
    """``value`` as one item per score vector; True when it was given per vector.

    ``value`` is one vector shared by all; a mapping dataset id -> vector; a
    list with one vector per score vector; or a list with one vector per
    dataset, in the order the datasets first appear.
    """
    count = len(datasets)
    distinct = _order(datasets)
    if isinstance(value, Mapping):
        keys = {ids.plain(k): v for k, v in value.items()}
        missing = [d for d in distinct if d not in keys]
        if missing:
            raise ValueError(
                f"{name} has no vector for dataset {missing[0]!r}; its keys are "
                f"{sorted(map(repr, keys))}"
            )
        extra = [k for k in keys if k not in set(distinct)]
        if extra:
            raise ValueError(
                f"{name} has a vector for dataset {extra[0]!r}, which no score vector is on"
            )
        return [keys[d] for d in datasets], False
    if _is_vector_list(value):
        if len(value) == count:
            return list(value), True
        if len(value) == len(distinct) and len(distinct) > 1:
            index = {d: k for k, d in enumerate(distinct)}
            return [value[index[d]] for d in datasets], False
        per_dataset = (f", or one per dataset ({len(distinct)}, in the order the datasets "
                       "first appear)" if len(distinct) > 1 else "")
        raise ValueError(
            f"{name} has {len(value)} vectors for {count} score vectors; pass one "
            f"{name} vector shared by all, one per score vector{per_dataset}"
        )
    return [value] * count, False


def _ids(value: Any, count: int, name: str, default: list[Any]) -> list[Any]:
    if value is None:
        return default
    if isinstance(value, str) or np.ndim(value) != 1:
        raise ValueError(f"{name} must be a sequence with one entry per score vector")
    values = list(value)
    if len(values) != count:
        raise ValueError(f"{name} has {len(values)} entries for {count} score vectors")
    return [ids.plain(v) for v in values]


# -- tables: one row per sample -------------------------------------------------------


def _columns_of(table: Any) -> list[str]:
    """The column names of a DataFrame, a mapping of columns or a structured array."""
    if hasattr(table, "columns") and hasattr(table, "iloc"):
        return [str(c) for c in table.columns]
    if isinstance(table, Mapping):
        return [str(c) for c in table]
    names = getattr(getattr(table, "dtype", None), "names", None)
    if names:
        return list(names)
    raise TypeError(
        "with labels given as a column name, scores must be a table: a pandas DataFrame, "
        f"a mapping of column names to columns, or a structured array; got {type(table).__name__}"
    )


def _column(table: Any, name: str) -> np.ndarray:
    if hasattr(table, "columns") and hasattr(table, "iloc"):
        for c in table.columns:
            if str(c) == name:
                return np.asarray(table[c].to_numpy())
    if isinstance(table, Mapping):
        for c in table:
            if str(c) == name:
                return np.asarray(table[c])
    return np.asarray(table[name])


def row_ids(values: np.ndarray, column: str) -> tuple[list[Any], np.ndarray]:
    """The distinct values of an id column in order of first appearance, and each
    row's index into them. A missing value (NaN, None) raises ``ValueError``; float
    ids that are all integers become integers."""
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"column {column!r} must be 1-D; got shape {values.shape}")
    if values.dtype.kind in "fc":
        bad = np.flatnonzero(np.isnan(values))
        if bad.size:
            raise ValueError(f"column {column!r} row {bad[0] + 1}: missing value (NaN)")
        values = ids.integral_ids(values) if values.dtype.kind == "f" else values
    if values.dtype.kind == "O":
        for i, v in enumerate(values.tolist()):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                raise ValueError(f"column {column!r} row {i + 1}: missing value ({v!r})")
    split = ids.rows_by_id(values)
    codes = np.empty(values.shape[0], dtype=np.intp)
    for k, (_, rows) in enumerate(split):
        codes[rows] = k
    return [value for value, _ in split], codes


def _from_table(
    table: Any,
    label: str,
    score_columns: str | Sequence[str] | None,
    model_names: Any,
    dataset_ids: Any,
    sample_weight: Any,
) -> tuple[list[Any], list[str], list[Any], list[Any], list[Any]]:
    """Score vectors, models, datasets, labels and weights from a table's columns."""
    names = _columns_of(table)
    named = {"labels": label}
    for arg, value in (("model_names", model_names), ("dataset_ids", dataset_ids),
                       ("sample_weight", sample_weight)):
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"with labels given as a column name, {arg} must name a column too; "
                f"got {type(value).__name__}"
            )
        if value is not None:
            named[arg] = value
    if isinstance(score_columns, str):
        score_columns = [score_columns]
    used = set(named.values())
    if score_columns is None:
        # Every other column would become a model, an id or a forgotten fold column too.
        candidates = [c for c in names if c not in used]
        raise TypeError(
            f"name the score columns: score_columns=[...] (one model each; with a model "
            f"column, the one column of scores); the other columns are {candidates}"
        )
    for arg, col in [*named.items(), *(("score_columns", c) for c in score_columns)]:
        if col not in names:
            raise ValueError(f"{arg}: no column {col!r}; the columns are {names}")
    if not score_columns:
        raise ValueError(f"no score columns: every column ({names}) is labels, ids or weights")
    if model_names is not None and len(score_columns) != 1:
        raise ValueError(
            f"with a model column ({model_names!r}) the scores are one column; "
            f"pass score_columns= naming it (candidates: {list(score_columns)})"
        )
    columns = {c: _column(table, c) for c in [*named.values(), *score_columns]}
    n = columns[label].shape[0] if columns[label].ndim == 1 else -1
    for c, values in columns.items():
        if values.ndim != 1 or values.shape[0] != n:
            raise ValueError(
                f"column {c!r} has shape {values.shape}; every column must be 1-D with "
                f"one value per row, as the label column {label!r}"
            )
    y = columns[label]
    weights = columns[sample_weight] if sample_weight is not None else None
    if dataset_ids is not None:
        datasets, dcode = row_ids(columns[dataset_ids], dataset_ids)
    else:
        datasets, dcode = ["data"], np.zeros(n, dtype=np.intp)
    # One score vector per (model, dataset), model by model: a wide table's models are
    # its score columns (every row scores each); a long one's are a column's values.
    models_rows: list[tuple[str, str, int | None]] = [(c, c, None) for c in score_columns]
    if model_names is not None:
        models, mcode = row_ids(columns[model_names], model_names)
        models_rows = [(str(m), score_columns[0], k) for k, m in enumerate(models)]
    out: tuple[list[Any], list[str], list[Any], list[Any], list[Any]] = ([], [], [], [], [])
    for model, column, code in models_rows:
        values = columns[column]
        for d, dataset in enumerate(datasets):
            take = dcode == d if code is None else (dcode == d) & (mcode == code)
            rows = np.flatnonzero(take)
            if rows.size == 0:
                continue
            out[0].append(values[rows])
            out[1].append(str(model))
            out[2].append(dataset)
            out[3].append(y[rows])
            out[4].append(None if weights is None else weights[rows])
    return out


def evaluate(
    scores: Any,
    labels: Any,
    *,
    model_names: Sequence[str] | str | None = None,
    dataset_ids: Sequence[Any] | str | None = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    score_columns: Sequence[str] | str | None = None,
) -> Evaluation:
    """Score several models on several datasets at once.

    A *dataset* is a label vector (a test set, a cross-validation fold); a
    *model* is a score vector on it. Each (model, dataset) pair is validated,
    sorted and swept once; every table, curve and figure of the result is read
    from that.

    Parameters
    ----------
    scores : array-like, mapping, DataFrame or list of vectors
        One score vector (1-D); a matrix ``(n_samples, n_models)`` with one
        model per column; a mapping or DataFrame from model name to scores;
        a mapping from model name to its scores per dataset (a mapping
        dataset id -> vector, or a list of vectors for datasets 0, 1, ...);
        or a list of score vectors (with ``model_names`` and ``dataset_ids``
        to say which is which, as precrec's ``mmdata``). With ``labels`` a
        column name: a table (DataFrame, mapping of columns or structured
        array) with one row per sample, as the command line reads.
    labels : array-like, mapping, list of vectors or str
        One label vector shared by every score vector; one per score vector;
        one per dataset (a mapping dataset id -> labels, or a list in the
        order the datasets first appear); or, with a table, the label column.
    model_names : sequence of str or str, optional
        One per score vector. Default: the mapping's keys or the DataFrame's
        columns, else ``"model1"``, ``"model2"``, ... With a table: a column
        holding each row's model (then ``score_columns`` names the one score
        column), or None for one model per score column.
    dataset_ids : sequence or str, optional
        One per score vector; vectors with equal ids share a dataset (and
        its labels, and must have its length). Default: one dataset,
        ``"data"``. With a table: the column that splits rows into datasets.
    sample_weight : array-like, mapping, list of vectors or str, optional
        As ``labels``: shared, per score vector, per dataset, or a column.
    pos_label : optional
        The positive class, as in :func:`fastrank.average_precision`.
    score_columns : sequence of str or str, optional
        With a table, required: the score columns, one model each (with a
        model column, the one column of scores). There is no default, so that
        an id column, or a fold column left out of ``dataset_ids``, never
        becomes a model.

    Returns
    -------
    Evaluation
        Datasets and models keep the order in which they first appear.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 0, 1, 1, 0, 0, 1, 0]
    >>> ev = fastrank.evaluate({"good": [.9, .2, .8, .7, .3, .1, .6, .4],
    ...                         "poor": [.5, .6, .4, .7, .3, .8, .2, .1]}, y)
    >>> t = ev.summary(as_frame=False)
    >>> list(t["model"]), t["roc_auc"].tolist()
    (['good', 'poor'], [1.0, 0.5])
    >>> best = ev.best_cutoffs(as_frame=False)
    >>> list(best["criterion"][:2]), best["threshold"][:2].tolist()
    (['youden', 'f1'], [0.6, 0.6])

    Folds: labels per fold, each model's scores per fold.

    >>> folds = {"f1": [1, 0, 1, 0], "f2": [0, 1, 1, 0]}
    >>> ev = fastrank.evaluate({"a": {"f1": [.9, .1, .8, .3], "f2": [.2, .7, .9, .4]},
    ...                         "b": {"f1": [.4, .6, .5, .1], "f2": [.6, .5, .3, .2]}}, folds)
    >>> t = ev.summary(as_frame=False)
    >>> list(zip(t["model"], t["dataset"], t["roc_auc"].tolist()))
    [('a', 'f1', 1.0), ('a', 'f2', 1.0), ('b', 'f1', 0.5), ('b', 'f2', 0.5)]

    A table with one row per sample (a DataFrame works the same way):

    >>> table = {"y": [1, 0, 1, 0, 0, 1, 1, 0], "fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...          "a": [.9, .1, .8, .3, .2, .7, .9, .4]}
    >>> ev = fastrank.evaluate(table, "y", dataset_ids="fold", score_columns=["a"])
    >>> ev.datasets, ev.models
    ((0, 1), ('a',))
    """
    if isinstance(labels, str):
        vectors, models, datasets, label_list, weight_list = _from_table(
            scores, labels, score_columns, model_names, dataset_ids, sample_weight)
        return _evaluate_vectors(vectors, models, datasets, label_list, weight_list,
                                 True, True, pos_label)
    if score_columns is not None:
        raise TypeError("score_columns names columns of a table: pass labels as a column name")
    vectors, names, nested = _score_vectors(scores)
    count = len(vectors)
    if count == 0:
        raise ValueError("scores holds no score vectors: pass at least one")
    if names is None:
        names = [f"model{i + 1}" for i in range(count)]
    if nested is not None and (model_names is not None or dataset_ids is not None):
        raise ValueError(
            "scores maps each model to its scores per dataset, which names models and "
            "datasets already: drop model_names and dataset_ids"
        )
    models = [str(m) for m in _ids(model_names, count, "model_names", names)]
    datasets = nested if nested is not None else _ids(
        dataset_ids, count, "dataset_ids", ["data"] * count)
    label_list, labels_per_entry = _per_entry(labels, datasets, "labels")
    weight_list, _ = _per_entry(sample_weight, datasets, "sample_weight")
    return _evaluate_vectors(vectors, models, datasets, label_list, weight_list,
                             labels_per_entry, dataset_ids is not None or nested is not None,
                             pos_label)


def _evaluate_vectors(
    vectors: list[Any],
    models: list[str],
    datasets: list[Any],
    label_list: list[Any],
    weight_list: list[Any],
    labels_per_entry: bool,
    ids_given: bool,
    pos_label: Any,
) -> Evaluation:
    """Check how the score vectors fit together, then score them."""
    seen: set[tuple[str, Any]] = set()
    first: dict[Any, tuple[int, np.ndarray | None]] = {}
    for i, (model, dataset) in enumerate(zip(models, datasets, strict=True)):
        if (model, dataset) in seen:
            hint = ("; pass dataset_ids to put its score vectors on different datasets"
                    if not ids_given else "")
            raise ValueError(f"model {model!r} appears twice on dataset {dataset!r}{hint}")
        seen.add((model, dataset))
        length = np.shape(vectors[i])[0] if np.ndim(vectors[i]) else 0
        if dataset not in first:
            lab = as_array(label_list[i], "labels") if labels_per_entry else None
            first[dataset] = (length, lab)
            continue
        length0, lab0 = first[dataset]
        if length != length0 and labels_per_entry and not ids_given:
            raise ValueError(
                "the label vectors differ (in length): pass dataset_ids (and model_names) "
                "to say which score vectors share a dataset"
            )
        if length != length0:
            raise ValueError(
                f"dataset {dataset!r}: model {model!r} has {length} scores, but an earlier "
                f"model on it has {length0}; models on one dataset score the same samples"
            )
        if lab0 is not None and not np.array_equal(as_array(label_list[i], "labels"), lab0):
            if not ids_given:
                raise ValueError(
                    "the label vectors differ: pass dataset_ids (and model_names) to say "
                    "which score vectors share a dataset"
                )
            raise ValueError(f"dataset {dataset!r}: models on it were given different labels")

    pairs = list(zip(models, datasets, label_list, vectors, weight_list, strict=True))
    return score_pairs(pairs, pos_label=pos_label, stacklevel=5)


def score_pairs(
    pairs: Sequence[tuple[str, Any, Any, Any, Any]],
    *,
    pos_label: Any = None,
    progress: Callable[[str, float], None] | None = None,
    stacklevel: int = 3,
) -> Evaluation:
    """Score ``(model, dataset, y_true, y_score, sample_weight)`` pairs one by one.

    The engine of :func:`evaluate` (which checks how the pairs fit together
    first) and of the command line (which reports ``progress``). Errors of the
    single-task validation name the pair when there are several; pairs with
    undefined metrics are announced by one warning.
    """
    entries = []
    for i, (model, dataset, y, s, w) in enumerate(pairs):
        if progress is not None:
            progress("computing", i / len(pairs))
        try:
            task = inputs.task(y, s, w, pos_label)
            entries.append(_entry(task, model, dataset))
        except (ValueError, TypeError) as exc:
            where = f"model {model!r} on dataset {dataset!r}: " if len(pairs) > 1 else ""
            raise type(exc)(f"{where}{exc}") from None
    if progress is not None:
        progress("computing", 1.0)
    _warn_undefined(entries, stacklevel)
    return Evaluation(entries)


def _entry(task: Task, model: str, dataset: Any) -> Entry:
    """One pair: its tie table (one sort), and every metric swept from that table."""
    weighted = task.weights is not None
    req = registry.request("all_metrics", weighted=weighted)
    table = tie_tables.task_table(task)
    out, key = engine.table_metrics(table, req.max_fpr, req.what,
                                    task.bounds if weighted else None, task.shift)
    out[OUT_POS] *= task.unit
    out[OUT_NEG] *= task.neg_unit
    threshold = threshold_of(key, task.values.dtype, task.dtype) if out[OUT_POS] > 0 \
        else math.nan
    gkey, gpos, gneg = table
    gpos, gneg = task.in_caller_units(gpos, gneg)
    thresholds = codec.decode(gkey, task.values.dtype, task.dtype)
    return Entry(model=model, dataset=dataset, metrics=binary_metrics(out, threshold, req),
                 thresholds=thresholds, group_positives=gpos, group_negatives=gneg,
                 tp=np.cumsum(gpos), fp=np.cumsum(gneg), weighted=weighted)


def _warn_undefined(entries: list[Entry], stacklevel: int) -> None:
    no_pos = [e for e in entries if e.positives == 0]
    no_neg = [e for e in entries if e.positives > 0 and e.negatives == 0]
    if not no_pos and not no_neg:
        return
    parts = []
    if no_pos:
        where = sorted({repr(e.dataset) for e in no_pos})
        parts.append(f"{len(no_pos)} without positive samples (dataset {', '.join(where)}): "
                     "every metric is NaN")
    if no_neg:
        where = sorted({repr(e.dataset) for e in no_neg})
        parts.append(f"{len(no_neg)} without negative samples (dataset {', '.join(where)}): "
                     "roc_auc and d_prime are NaN")
    warnings.warn(
        f"metrics undefined for {len(no_pos) + len(no_neg)} of {len(entries)} "
        f"model/dataset pairs; {'; '.join(parts)}",
        UndefinedMetricWarning, stacklevel=stacklevel,
    )
