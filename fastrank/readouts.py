"""Readouts of one task's curves: partial ROC and PR areas, operating points, the
best cutoff.

Partial ROC areas are taken over a range of FPR, of TPR, or both, and partial
PR areas over a range of recall; operating points answer "what recall at 99%
precision", "what sensitivity at 95% specificity", and :func:`best_cutoff` "which
cutoff maximises Youden's J (or F1, MCC)", each with the threshold that gives it.
With 2-D scores ``(n_samples, n_tasks)`` (a label matrix, dense or sparse, or
class labels for one class against the rest) every readout gives one value per
column: an array, or an :class:`OperatingPoint` of arrays.

The curve is the one :func:`fastrank.roc_curve` returns (one sort; equal scores
are one cutoff, joined to the next by a straight line, the expected curve over
every order of the tied samples). A partial area is the area of the part of the
unit square under that curve and inside a box ``fpr x tpr``: with an FPR range
only, pROC's ``partial.auc.focus="specificity"``; with a TPR range only, its
``focus="sensitivity"`` (the area to the right of the curve within the TPR
band); with both, the two-way partial AUC (FPR at most a bound and TPR at least
one, Yang et al. 2019). Each linear piece of the curve is cut where it crosses
the box's edges and integrated exactly, so the result is the area up to the
rounding of a few float operations per piece.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ._core import api, batch_tasks, batches, codec, first_calls, inputs, tie_tables, workers
from ._core.inputs import readonly
from ._core.messages import warn_undefined
from ._core.options import check_flag, rate_range
from ._core.reduce import GroupResult
from ._kernels.readout import (
    BELOW_CHANCE as BELOW,
)
from ._kernels.readout import (
    CR_F,
    CR_MCC,
    CR_TOPLEFT,
    CR_YOUDEN,
    NO_NEGATIVES,
    NO_POSITIVES,
    P_BETA2,
    P_BOUND,
    P_CORRECT,
    P_CRITERION,
    P_DIAGONAL,
    P_FULL,
    P_HIGH,
    P_INTERPOLATE,
    P_RATIO,
    P_SIZE,
    P_X0,
    P_X1,
    P_Y0,
    P_Y1,
    RD_BEST,
    RD_PR_RANGE,
    RD_PRECISION_AT_RECALL,
    RD_RECALL_AT_PRECISION,
    RD_ROC_BOX,
    RD_SENS_AT_SPEC,
    RD_SPEC_AT_SENS,
    read_tables,
)
from ._kernels.tasks import HASH_MAX_DISTINCT
from .curves import tie_counts

__all__ = [
    "CRITERIA",
    "OperatingPoint",
    "best_cutoff",
    "partial_pr_auc",
    "partial_roc_auc",
    "precision_at_recall",
    "recall_at_precision",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
]




def partial_roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    fpr: tuple[float, float] | None = None,
    tpr: tuple[float, float] | None = None,
    correct: bool = False,
    sample_weight: Any = None,
    pos_label: Any = None,
    groups: Any = None,
) -> Any:
    """The area under the ROC curve inside a box of FPR and TPR ranges.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult`.
    fpr : (low, high), optional
        The false-positive-rate range (default ``(0, 1)``); ``(0, 0.1)`` is
        the area over the low false-positive end (pROC's ``partial.auc =
        c(1, 0.9)`` with ``partial.auc.focus = "specificity"``).
    tpr : (low, high), optional
        The true-positive-rate range (default ``(0, 1)``); ``(0.9, 1)`` alone
        is the area right of the curve over the high-sensitivity band (pROC's
        ``focus = "sensitivity"``). With ``fpr`` too, the two-way partial
        AUC: ``fpr=(0, a), tpr=(b, 1)`` is the area where FPR <= a and TPR >= b.
    correct : bool, default False
        McClish's standardisation, as pROC's ``partial.auc.correct``:
        ``(1 + (A - min) / (max - min)) / 2``, where ``min`` is the area the
        chance diagonal has in the box and ``max`` the box's area, so that a
        random ranking scores 0.5 and a perfect one 1. As in pROC, an area
        below the diagonal's (a standardised value under 0.5) is undefined:
        NaN with a warning. With ``fpr=(0, m)`` only, this is scikit-learn's
        ``roc_auc_score(max_fpr=m)`` and :func:`fastrank.roc_auc`
        ``(max_fpr=m)``, which keep values under 0.5 (scikit-learn's rule).

    Returns
    -------
    float
        The raw area (between 0 and the box's area), or the standardised one.
        NaN, with an :class:`~fastrank.UndefinedMetricWarning`, when a class
        is missing.

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 0, 1, 1, 0, 1, 1, 0]
    >>> s = [.1, .4, .35, .8, .3, .9, .7, .2]
    >>> fastrank.roc_auc(y, s)
    0.9375
    >>> fastrank.partial_roc_auc(y, s, fpr=(0, 0.5))            # raw area, FPR <= 0.5
    0.4375
    >>> round(fastrank.partial_roc_auc(y, s, fpr=(0, 0.5), correct=True), 6)  # = max_fpr=0.5
    0.916667
    >>> fastrank.partial_roc_auc(y, s, tpr=(0.5, 1))      # right of the curve, TPR >= 0.5
    0.4375
    >>> fastrank.partial_roc_auc(y, s, fpr=(0, 0.25), tpr=(0.5, 1))   # two-way
    0.0625
    """
    opts = check_options("partial_roc_auc", {"fpr": fpr, "tpr": tpr, "correct": correct})
    return _each("partial_roc_auc", opts, y_true, y_score, sample_weight, pos_label,
                 groups=groups)


# pROC's rule (its auc(partial.auc.correct=TRUE)): no standardised area below chance.
BELOW_CHANCE = ("the partial ROC area lies below the chance diagonal's, where McClish's "
                "standardisation is undefined")


def partial_pr_auc(
    y_true: Any,
    y_score: Any,
    *,
    recall: tuple[float, float] = (0.0, 1.0),
    sample_weight: Any = None,
    pos_label: Any = None,
    groups: Any = None,
) -> Any:
    """The area under the interpolated precision-recall curve over a recall range.

    The curve is the one whose whole area is :func:`fastrank.pr_auc`: between
    cutoffs TP and FP grow together (Davis and Goadrich), so precision follows
    a hyperbola. Each piece is integrated in closed form between the range's
    ends, so ``recall=(0, 1)`` gives :func:`fastrank.pr_auc` (to rounding).

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult`.
    recall : (low, high), default (0, 1)
        The recall range, e.g. ``(0.9, 1)`` for the high-recall end. The area
        is at most ``high - low``; divide by it for the mean precision there.

    Returns
    -------
    float
        NaN, with an :class:`~fastrank.UndefinedMetricWarning`, without
        positives.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    >>> s = [.9, .8, .7, .6, .6, .5, .5, .4, .3]
    >>> round(fastrank.partial_pr_auc(y, s), 10) == round(fastrank.pr_auc(y, s), 10)
    True
    >>> round(fastrank.partial_pr_auc(y, s, recall=(0, 0.5)), 6)      # the first two positives
    0.5
    """
    opts = check_options("partial_pr_auc", {"recall": recall})
    return _each("partial_pr_auc", opts, y_true, y_score, sample_weight, pos_label,
                 groups=groups)


def _fills(box_x: tuple[float, float], box_y: tuple[float, float]) -> bool:
    """Whether the chance diagonal's area fills the box (McClish has no scale there)."""
    diagonal, full = mcclish_scale(box_x, box_y)
    return diagonal == full


@lru_cache(maxsize=64)  # boxes repeat across the tasks of a batch; the areas are pure
def mcclish_scale(box_x: tuple[float, float], box_y: tuple[float, float]) -> tuple[float, float]:
    """The chance diagonal's area in the box and the box's area: McClish maps a raw
    area ``A`` to ``(1 + (A - diagonal) / (full - diagonal)) / 2``."""
    params = _params("partial_roc_auc", {"box_x": box_x, "box_y": box_y, "correct": False})
    value = np.empty(1)
    index = np.empty(1, np.int64)
    one = readonly(np.ones(1))  # the diagonal: one piece from (0, 0) to (1, 1)
    args = (one, one, readonly(np.zeros(1, np.int64)), readonly(np.ones(1, np.int64)), 0, 1,
            RD_ROC_BOX, readonly(params), value, index)
    if not first_calls.read_in_python(*args):  # (a first call's)
        read_tables(*args)
    return float(value[0]), (box_x[1] - box_x[0]) * (box_y[1] - box_y[0])


def roc_band(fps: np.ndarray, tps: np.ndarray, box_x: tuple[float, float],
             box_y: tuple[float, float]) -> tuple[float, float, tuple[bool, bool]]:
    """The FPR band ``[x1, x2]`` over which the ROC curve (cumulative counts of a task
    with both classes) runs inside the box's TPR range, within its FPR range, and
    whether each end is a natural one (FPR 0; the curve reaching TPR 1).

    The box's area is the curve's area over that band plus constants (the full
    height where the curve is above the box, nothing where below), and the band's
    ends move with the data only where the curve crosses the TPR range's edges, so
    to first order the area varies as the band's area with the ends held fixed.
    """
    x = np.concatenate(([0.0], fps / fps[-1]))
    y = np.concatenate(([0.0], tps / tps[-1]))

    def fpr_at(level: float) -> float:  # where the curve first reaches TPR ``level``
        i = int(np.searchsorted(y, level, "left"))
        if i == 0:
            return 0.0
        i = min(i, y.shape[0] - 1)
        return float(x[i - 1] + (level - y[i - 1]) / (y[i] - y[i - 1]) * (x[i] - x[i - 1]))

    (a1, a2), (b1, b2) = box_x, box_y
    x1 = max(a1, fpr_at(b1)) if b1 > 0.0 else a1
    top = fpr_at(b2)
    x2 = min(a2, top)
    return x1, x2, (x1 == 0.0, b2 == 1.0 and top <= a2)


# -- operating points ------------------------------------------------------------------


class OperatingPoint(NamedTuple):
    """One operating point of a task: the rate asked for and the cutoff giving it.

    ``threshold`` is the score of the rule "positive when score >= threshold"
    (``inf``: flag nothing): for one task a float, or for integer scores the
    exact int; with 2-D scores or groups a float64 array (integer scores beyond
    2**53 in magnitude round there, as every batched threshold does). With
    ``interpolate=True`` the point may lie inside a tie group; ``threshold``
    is then that group's score, and the point is reached by flagging the
    right share of the group's samples at random (its expected rates). Of
    cutoffs equal in the rate asked for, the one better in the other rate
    (e.g. the most specific of equally sensitive ones) is returned.
    """

    value: Any  # float; with 2-D scores, an array with one value per column
    threshold: Any


def _target(value: Any, name: str) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise TypeError(f"{name} must be a number in [0, 1]; got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1]; got {v!r}")
    return v




def _each(name: str, opts: dict[str, Any], y_true: Any, y_score: Any, sample_weight: Any,
          pos_label: Any, level: int = 4, groups: Any = None) -> Any:
    """Readout ``name`` (options from :func:`check_options`) of a task, of each column
    of 2-D scores (each class, for class labels), or of each group (``groups``). A
    task without a value gets NaN, and the call one warning. With ``groups`` the
    values come as a :class:`~fastrank.GroupResult` (an operating point's ``value``).
    """
    s = inputs.as_array(y_score, "y_score")
    batched = s.ndim == 2 or groups is not None
    if batched:
        b = inputs.batch(y_true, s, sample_weight, pos_label, groups, None)
        tasks = batch_tasks.split_batch(b) if b.weights is not None else []
    else:
        tasks = [inputs.task(y_true, s, sample_weight, pos_label)]

    units: np.ndarray | None = None  # (weighted tasks: their totals' units, see below)
    if batched and b.weights is None:  # each unit of tasks read as the batch kernel tables it
        values, index, kbits, pos, neg = _read_batch(name, opts, b)
    elif not batched and tasks[0].weights is None:  # cumulated by the kernel as it is written
        keys, fp, tp = tie_tables.cumulative_runs(  # read below, before this thread's next call
            tasks[0], tie_tables.runs_scratch(tasks[0].values.shape[0]))
        offsets = np.array([0, keys.shape[0]], np.int64)
    else:
        # Runs of negatives as single entries: every readout's best cutoff ends a group
        # with positives (or is the first group), so nothing changes but the work.
        # Each task's totals in its kernel units where one unit serves both classes (the
        # readouts are ratios of them; the caller's units are those times a power of two,
        # which made subnormal ones of uniform weights of 5e-324: a partial PR area of 1.0
        # where it is 0.388), turned into the caller's below.
        parts = workers.parallel_map(
            lambda t: tie_tables.task_table(t, True) if t.shift == 0 else tie_counts(t, True),
            tasks, workers.task_threads(tasks) if batched else 1)
        units = np.array([t.unit if t.shift == 0 else 1.0 for t in tasks])
        offsets = np.zeros(len(parts) + 1, np.int64)
        np.cumsum([k.shape[0] for k, _, _ in parts], out=offsets[1:])
        if len(parts) == 1:
            keys, gpos, gneg = parts[0]
        else:
            keys, gpos, gneg = (np.concatenate([x[i] for x in parts]) for i in range(3))
        fp, tp = _cumsums(gneg, offsets), _cumsums(gpos, offsets)
    if not (batched and b.weights is None):
        values, index = _read(name, opts, fp, tp, offsets[:-1], np.diff(offsets))
        kbits, pos, neg = _at_index(keys, tp, fp, offsets[:-1], np.diff(offsets), index)
        if units is not None:
            pos, neg = pos * units, neg * units
    thresholds: np.ndarray | None = None
    if name not in ("partial_roc_auc", "partial_pr_auc"):
        canonical, dtype = (b.values.dtype, b.dtype) if batched else \
            (tasks[0].values.dtype, tasks[0].dtype)
        thresholds = np.asarray(codec.decode(kbits, canonical, dtype), np.float64)
        thresholds[index == -1] = math.inf
        thresholds[index < -1] = math.nan
    first = None
    if not batched and thresholds is not None and index[0] >= 0:
        # the exact score, an int for integer scores (float64 rounds them)
        first = api.threshold_of(int(kbits[0]), tasks[0].values.dtype, tasks[0].dtype)
    shown = None
    if groups is not None:
        assert b.ids is not None
        shown = GroupResult(b.ids, values, pos, neg, b.sizes.astype(np.int64))
    return _answer(values, thresholds, _reasons(name, index), batched=batched,
                   units="columns" if groups is None else "groups", level=level + 1,
                   first=first, shown=shown)


def _answer(values: np.ndarray, thresholds: np.ndarray | None, reasons: list[str], *,
            batched: bool, level: int, units: str = "columns", first: Any = None,
            shown: Any = None) -> Any:
    """A readout call's result from each task's value and threshold (None for the
    partial areas): for one task a float or an :class:`OperatingPoint` (``first``
    its exact threshold where given), else the array (or ``shown``: the groups'
    :class:`~fastrank.GroupResult`) alone or in an operating point. One warning
    (``level`` frames up, :func:`~._core.messages.warn_undefined`'s count) for the
    tasks without a value."""
    if reasons:
        if batched:  # each reason with its own count (a group without positives and one
            # without negatives are not both "no negative samples")
            counts = {r: reasons.count(r) for r in dict.fromkeys(reasons)}
            said = "; ".join(f"{r} for {k} of {values.shape[0]} {units}"
                             for r, k in counts.items())
        else:
            said = reasons[0]
        warn_undefined(f"{said}; returning NaN", level=level)
    if not batched:
        value = float(values[0])
        if thresholds is None:
            return value
        return OperatingPoint(value, float(thresholds[0]) if first is None else first)
    out = values if shown is None else shown
    return out if thresholds is None else OperatingPoint(out, thresholds)


def reads_whole_tables(tables: Sequence[api.Table]) -> bool:
    """Whether the one-shot call of a readout reads these tasks' whole tie tables
    (the engine counts each task's ties by hashing: at least ``HASH_MIN`` rows and
    at most ``HASH_MAX_DISTINCT`` scores), so that :func:`from_tables` gives its
    result bit for bit. Elsewhere it merges runs of negatives first, and the
    caller computes from the rows."""
    if not tables:
        return False
    n = int(tables[0][1].sum() + tables[0][2].sum())  # every task has every row
    return n >= tie_tables.HASH_MIN and all(v.shape[0] <= HASH_MAX_DISTINCT
                                            for v, _, _ in tables)


def from_tables(name: str, options: dict[str, Any], tables: Sequence[api.Table], one_d: bool,
                *, stacklevel: int = 2) -> Any:
    """What readout ``name`` returns with these keyword ``options`` for unweighted
    rows whose tasks have these tie tables (``one_d``: 1-D scores, one table; else
    one column per table), where :func:`reads_whole_tables`: the same kernel read
    of the same cumulative counts. ``stacklevel`` counts from the caller of this
    function (as :func:`fastrank._core.api.compute`'s).

    Examples
    --------
    >>> import numpy as np, fastrank
    >>> table = (np.array([0.1, 0.6]), np.array([5000, 15000]), np.array([15000, 5000]))
    >>> reads_whole_tables([table])  # 40,000 rows of two scores
    True
    >>> from_tables("sensitivity_at_specificity", {"min_specificity": 0.7}, [table], True)
    OperatingPoint(value=0.75, threshold=0.6)
    >>> y = np.repeat([1, 0, 1, 0], [5000, 15000, 15000, 5000])
    >>> s = np.repeat([0.1, 0.1, 0.6, 0.6], [5000, 15000, 15000, 5000])
    >>> fastrank.sensitivity_at_specificity(y, s, min_specificity=0.7)
    OperatingPoint(value=0.75, threshold=0.6)
    """
    opts = check_options(name, options)
    cum = [(np.cumsum(q[::-1].astype(np.float64)), np.cumsum(p[::-1].astype(np.float64)),
            (v + v.dtype.type(0.0))[::-1].astype(np.float64))  # -0.0 as the engine: +0.0
           for v, p, q in tables]
    values, thresholds, reasons = read_many(name, opts, cum)
    return _answer(values, thresholds, reasons, batched=not one_d, level=stacklevel + 3)


def _at_index(keys: np.ndarray, tp: np.ndarray, fp: np.ndarray, starts: np.ndarray,
              sizes: np.ndarray, index: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per table (``sizes[j]`` entries from ``starts[j]``): the score bits of entry
    ``index[j]`` (0 where that is not an entry), and its totals TP and FP (its
    last entry's; 0 for an empty table)."""
    t = sizes.shape[0]
    if not keys.shape[0]:
        return np.zeros(t, np.uint64), np.zeros(t), np.zeros(t)
    has = sizes > 0
    # (an empty table at the end starts past the last entry: its reads are masked, but
    # np.where reads them all, so every read stays within the entries)
    last = np.minimum(starts + np.maximum(sizes - 1, 0), keys.shape[0] - 1)
    at = np.minimum(starts + np.maximum(index, 0), keys.shape[0] - 1)
    return (np.where(index >= 0, keys[at], np.uint64(0)), np.where(has, tp[last], 0.0),
            np.where(has, fp[last], 0.0))


def _read_batch(name: str, opts: dict[str, Any], b: inputs.Batch
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Readout ``name`` of every task of an unweighted batch, each unit of tasks
    read as soon as the engine has tabled it (in that thread's kept buffer, while
    it is in cache; no table of the whole batch is built): values and entries as
    :func:`_read`, with :func:`_at_index`'s score bits and totals."""
    t = b.t
    values, index = np.empty(t), np.empty(t, np.int64)
    kbits, pos, neg = np.zeros(t, np.uint64), np.zeros(t), np.zeros(t)

    def visit(js: np.ndarray, fp: np.ndarray, tp: np.ndarray, keys: np.ndarray,
              starts: np.ndarray, sizes: np.ndarray) -> None:
        v, i = _read(name, opts, fp, tp, starts, sizes, threaded=False)
        values[js], index[js] = v, i
        kbits[js], pos[js], neg[js] = _at_index(keys, tp, fp, starts, sizes, i)

    batches.batch_tables(b, visit)
    return values, index, kbits, pos, neg


def _params(name: str, opts: dict[str, Any]) -> np.ndarray:
    """The kernel's ``params`` of readout ``name`` (options from :func:`check_options`)."""
    p = np.zeros(P_SIZE, np.float64)
    if name == "partial_roc_auc":
        (p[P_X0], p[P_X1]), (p[P_Y0], p[P_Y1]) = opts["box_x"], opts["box_y"]
        p[P_CORRECT] = 1.0 if opts["correct"] else 0.0
        if opts["correct"]:
            p[P_DIAGONAL], p[P_FULL] = mcclish_scale(opts["box_x"], opts["box_y"])
    elif name == "partial_pr_auc":
        p[P_BOUND], p[P_HIGH] = opts["low"], opts["high"]
    elif name == "best_cutoff":
        p[P_CRITERION] = _CRITERION_CODES[opts["criterion"]]
        p[P_BETA2] = 1.0 if opts["criterion"] == "f1" else opts["beta"] * opts["beta"]
        p[P_RATIO] = opts["ratio"]
    else:
        p[P_BOUND] = opts["bound"]
        p[P_INTERPOLATE] = 1.0 if opts["interpolate"] else 0.0
    return p


_KINDS = {"sensitivity_at_specificity": RD_SENS_AT_SPEC,
          "specificity_at_sensitivity": RD_SPEC_AT_SENS,
          "recall_at_precision": RD_RECALL_AT_PRECISION,
          "precision_at_recall": RD_PRECISION_AT_RECALL,
          "partial_roc_auc": RD_ROC_BOX, "partial_pr_auc": RD_PR_RANGE, "best_cutoff": RD_BEST}
_CRITERION_CODES = {"youden": CR_YOUDEN, "closest_topleft": CR_TOPLEFT, "f1": CR_F,
                    "f_beta": CR_F, "mcc": CR_MCC}
_WHAT = {"partial_roc_auc": "partial ROC area", "partial_pr_auc": "partial PR area",
         "best_cutoff": "best cutoff"}
_READ_MIN = 1 << 16  # table entries from which a readout call uses every thread


def read_many(name: str, opts: dict[str, Any],
              tables: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]
              ) -> tuple[np.ndarray, np.ndarray | None, list[str]]:
    """Readout ``name`` of many tasks' cumulative tables ``(fp, tp, thresholds)``
    (distinct scores, highest first, without the start): the values, the thresholds
    (operating points and best cutoffs; ``None`` for partial areas), and why each
    task without a value has none (its value NaN)."""
    t = len(tables)
    offsets = np.zeros(t + 1, np.int64)
    np.cumsum(np.fromiter((tb[0].shape[0] for tb in tables), np.int64, t), out=offsets[1:])
    fp = np.concatenate([tb[0] for tb in tables]).astype(np.float64, copy=False) if t \
        else np.empty(0)
    tp = np.concatenate([tb[1] for tb in tables]).astype(np.float64, copy=False) if t \
        else np.empty(0)
    values, index = _read(name, opts, fp, tp, offsets[:-1], np.diff(offsets))
    reasons = _reasons(name, index)
    if name in ("partial_roc_auc", "partial_pr_auc"):
        return values, None, reasons
    thresholds = np.full(t, math.nan)
    for j in np.flatnonzero(index >= -1).tolist():
        k = int(index[j])
        thresholds[j] = math.inf if k < 0 else float(tables[j][2][k])
    return values, thresholds, reasons


def _read(name: str, opts: dict[str, Any], fp: np.ndarray, tp: np.ndarray,
          starts: np.ndarray, sizes: np.ndarray, *, threaded: bool = True
          ) -> tuple[np.ndarray, np.ndarray]:
    """Readout ``name`` of the cumulative tables in ``fp``/``tp`` (table ``j`` the
    ``sizes[j]`` entries from ``starts[j]``): each value and the entry it goes with
    (-1: the start, threshold ``inf``), or a code below -1 saying why the task has
    none. ``threaded``: large inputs use every thread (a caller already on one of
    the engine's threads says False)."""
    t = sizes.shape[0]
    starts = np.asarray(starts, np.int64)
    sizes = np.asarray(sizes, np.int64)
    values = np.empty(t, np.float64)
    index = np.empty(t, np.int64)
    params = readonly(_params(name, opts))
    kind = _KINDS[name]
    ro_fp, ro_tp, ro_at, ro_n = readonly(fp), readonly(tp), readonly(starts), readonly(sizes)
    nthreads = workers.threads() if threaded and fp.shape[0] >= _READ_MIN and t > 1 else 1
    edges = np.linspace(0, t, min(t, 4 * nthreads) + 1).astype(np.int64).tolist()

    def part(c: int) -> None:
        read_tables(ro_fp, ro_tp, ro_at, ro_n, edges[c], edges[c + 1], kind, params, values,
                    index)

    if not first_calls.read_in_python(ro_fp, ro_tp, ro_at, ro_n, 0, t, kind, params, values,
                                      index):  # (a first call's small tables)
        workers.parallel_map(part, range(len(edges) - 1), nthreads)
    if name == "partial_roc_auc" and opts["correct"] and _fills(opts["box_x"], opts["box_y"]):
        index[index >= -1] = DIAGONAL_FILLS
        values[:] = math.nan
    return values, index


def _cumsums(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each table's running sums of ``x`` (tables laid end to end at ``offsets``), each
    summed from its own start, in order, as ``np.cumsum`` of that table alone sums."""
    out = np.empty(x.shape[0], np.float64)
    for j in range(offsets.shape[0] - 1):
        lo, hi = int(offsets[j]), int(offsets[j + 1])
        np.cumsum(x[lo:hi], out=out[lo:hi])
    return out


def _reasons(name: str, index: np.ndarray) -> list[str]:
    """Why each task without a value has none, in task order."""
    what = _WHAT.get(name, "operating point")
    return [_why(int(code), what) for code in index[index < -1].tolist()]


DIAGONAL_FILLS = -100  # McClish in a box the chance diagonal fills (decided here, per box)


def _why(code: int, what: str) -> str:
    """The message of a task without a value (its code from :func:`read_many`)."""
    if code == NO_POSITIVES:
        return f"no positive samples: the {what} is undefined"
    if code == NO_NEGATIVES:
        return f"no negative samples: the {what} is undefined"
    if code == BELOW:
        return BELOW_CHANCE
    return ("the box lies under the chance diagonal, which fills it: McClish's "
            "standardisation is undefined there")


def _operating(name: str, bound: float, interpolate: Any, y_true: Any, y_score: Any,
               sample_weight: Any, pos_label: Any, groups: Any) -> OperatingPoint:
    """Operating point ``name`` of one task, or of each column of 2-D scores."""
    opts = {"bound": bound, "interpolate": check_flag(interpolate, "interpolate")}
    point: OperatingPoint = _each(name, opts, y_true, y_score, sample_weight, pos_label,
                                  level=5, groups=groups)
    return point


def sensitivity_at_specificity(
    y_true: Any, y_score: Any, min_specificity: float, *, interpolate: bool = False,
    sample_weight: Any = None, pos_label: Any = None, groups: Any = None,
) -> OperatingPoint:
    """The highest sensitivity (TPR, recall) with specificity at least ``min_specificity``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult` (the point's ``value``; ``threshold`` an array).
    min_specificity : float in [0, 1]
        E.g. 0.95: at most 5% of the negatives flagged.
    interpolate : bool, default False
        False: the best cutoff that meets the bound (a cutoff flags a whole
        tie group or none of it, so the specificity reached may exceed the
        bound). True: the ROC curve's point at exactly the bound, on the
        straight line through a tie group, reached by flagging a random share
        of that group; its sensitivity is at least the cutoff's.

    Returns
    -------
    OperatingPoint
        ``(value, threshold)``: the sensitivity and the cutoff score. NaN,
        with an :class:`~fastrank.UndefinedMetricWarning`, when a class is
        missing.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    >>> s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    >>> fastrank.sensitivity_at_specificity(y, s, 0.8)
    OperatingPoint(value=0.75, threshold=0.7)
    >>> p = fastrank.sensitivity_at_specificity(y, s, 0.9, interpolate=True)
    >>> round(p.value, 12), p.threshold      # 60% of the group at 0.8 flagged
    (0.4, 0.8)
    """
    bound = _target(min_specificity, "min_specificity")
    return _operating("sensitivity_at_specificity", bound, interpolate, y_true, y_score,
                      sample_weight, pos_label, groups)


def specificity_at_sensitivity(
    y_true: Any, y_score: Any, min_sensitivity: float, *, interpolate: bool = False,
    sample_weight: Any = None, pos_label: Any = None, groups: Any = None,
) -> OperatingPoint:
    """The highest specificity with sensitivity (TPR) at least ``min_sensitivity``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult` (the point's ``value``; ``threshold`` an array).
    min_sensitivity : float in [0, 1]
        E.g. 0.95: at least 95% of the positives flagged.
    interpolate : bool, default False
        As in :func:`sensitivity_at_specificity`: the best cutoff, or the
        ROC curve's point at exactly the bound.

    Returns
    -------
    OperatingPoint
        ``(value, threshold)``: the specificity and the cutoff score.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    >>> s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    >>> fastrank.specificity_at_sensitivity(y, s, 1.0)
    OperatingPoint(value=0.6666666666666666, threshold=0.5)
    >>> fastrank.specificity_at_sensitivity(y, s, 0.25, interpolate=True)
    OperatingPoint(value=1.0, threshold=0.9)
    """
    bound = _target(min_sensitivity, "min_sensitivity")
    return _operating("specificity_at_sensitivity", bound, interpolate, y_true, y_score,
                      sample_weight, pos_label, groups)


def recall_at_precision(
    y_true: Any, y_score: Any, min_precision: float, *, interpolate: bool = False,
    sample_weight: Any = None, pos_label: Any = None, groups: Any = None,
) -> OperatingPoint:
    """The highest recall with precision at least ``min_precision``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult` (the point's ``value``; ``threshold`` an array).
    min_precision : float in [0, 1]
        E.g. 0.99.
    interpolate : bool, default False
        False: the best cutoff whose precision meets the bound. True: also
        the points inside tie groups, flagging a random share of a group
        (Davis and Goadrich's interpolation, which :func:`fastrank.pr_auc`
        integrates), where the precision reaches the bound exactly.

    Returns
    -------
    OperatingPoint
        ``(value, threshold)``: the recall and the cutoff score. When no
        cutoff reaches the precision, recall 0 at threshold ``inf`` (flag
        nothing). NaN, with an :class:`~fastrank.UndefinedMetricWarning`,
        without positives.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    >>> s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    >>> fastrank.recall_at_precision(y, s, 0.75)
    OperatingPoint(value=0.75, threshold=0.7)
    >>> fastrank.recall_at_precision(y, s, 0.99)
    OperatingPoint(value=0.25, threshold=0.9)
    """
    bound = _target(min_precision, "min_precision")
    return _operating("recall_at_precision", bound, interpolate, y_true, y_score,
                      sample_weight, pos_label, groups)


def precision_at_recall(
    y_true: Any, y_score: Any, min_recall: float, *, interpolate: bool = False,
    sample_weight: Any = None, pos_label: Any = None, groups: Any = None,
) -> OperatingPoint:
    """The highest precision with recall at least ``min_recall``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult` (the point's ``value``; ``threshold`` an array).
    min_recall : float in [0, 1]
        E.g. 0.9.
    interpolate : bool, default False
        False: the best cutoff whose recall meets the bound. True: also the
        point inside a tie group where the recall reaches the bound exactly
        (flagging a random share of the group; Davis and Goadrich's
        interpolated precision there).

    Returns
    -------
    OperatingPoint
        ``(value, threshold)``: the precision and the cutoff score. NaN,
        with an :class:`~fastrank.UndefinedMetricWarning`, without positives.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    >>> s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    >>> fastrank.precision_at_recall(y, s, 1.0)
    OperatingPoint(value=0.6666666666666666, threshold=0.5)
    >>> fastrank.precision_at_recall(y, s, 0.3)
    OperatingPoint(value=0.75, threshold=0.7)
    >>> p = fastrank.precision_at_recall(y, s, 0.3, interpolate=True)  # 20% of the 0.8 group
    >>> round(p.value, 12), p.threshold
    (0.857142857143, 0.8)
    """
    bound = _target(min_recall, "min_recall")
    return _operating("precision_at_recall", bound, interpolate, y_true, y_score,
                      sample_weight, pos_label, groups)


# -- the best cutoff by a criterion ------------------------------------------------------

CRITERIA = ("youden", "closest_topleft", "f1", "f_beta", "mcc")


def criterion_values(fp: np.ndarray, tp: np.ndarray, criterion: str, *, beta: float = 1.0,
                     ratio: float = 1.0, totals: tuple[Any, Any] | None = None
                     ) -> np.ndarray:
    """``criterion`` at each cutoff from cumulative FP and TP (larger is better), for
    the evaluation tables; :func:`best_cutoff`'s kernel
    (:func:`~fastrank._kernels.readout.criterion`) computes the same formulas,
    operation for operation (a test holds the two to the same floats). ``youden``
    is ``sensitivity + ratio * specificity - 1`` (pROC's ``best.weights`` give
    ``ratio``), ``closest_topleft`` minus ``(1 - sensitivity)^2 + ratio (1 -
    specificity)^2`` (both need both classes),
    ``f1``/``f_beta`` the F score (0 without true positives) and ``mcc`` Matthews'
    correlation (0 where its denominator is). ``totals``: ``(positives,
    negatives)`` when ``fp``/``tp`` are not the whole curve (default: their last
    entries; or arrays, one pair per entry)."""
    pos, neg = totals if totals is not None else (tp[-1], fp[-1])
    if criterion in ("youden", "closest_topleft"):
        sens, spec = tp / pos, (neg - fp) / neg
    if criterion == "youden":
        out: np.ndarray = sens + ratio * spec - 1.0
        return out
    if criterion == "closest_topleft":
        out = -((1.0 - sens) ** 2 + ratio * (1.0 - spec) ** 2)
        return out
    fn, tn = pos - tp, neg - fp
    if criterion in ("f1", "f_beta"):
        b2 = 1.0 if criterion == "f1" else beta * beta
        out = np.where(tp > 0, (1.0 + b2) * tp / np.where(tp > 0, (1.0 + b2) * tp + b2 * fn + fp,
                                                          1.0), 0.0)
        return out
    # Each square root of a pair product: no overflow for large weight sums.
    denom = np.sqrt((tp + fp) * (tn + fn)) * np.sqrt((tp + fn) * (tn + fp))
    out = np.where(denom > 0, np.clip((tp * tn - fp * fn) / np.where(denom > 0, denom, 1.0),
                                      -1.0, 1.0), 0.0)
    return out


def best_cutoff(
    y_true: Any, y_score: Any, criterion: str = "youden", *, beta: float = 1.0,
    cost: float = 1.0, prevalence: float = 0.5, sample_weight: Any = None,
    pos_label: Any = None, groups: Any = None,
) -> OperatingPoint:
    """The cutoff that maximises a criterion, with the criterion's value there.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    groups : array-like of shape (n_samples,), optional
        One group id per sample (e.g. a user or query id): one value per
        group, as a :class:`~fastrank.GroupResult` (the point's ``value``; ``threshold`` an array).
    criterion : {"youden", "closest_topleft", "f1", "f_beta", "mcc"}, default "youden"
        ``youden``: Youden's J, ``sensitivity + r * specificity - 1``;
        ``closest_topleft``: the point nearest to (0, 1), the value returned
        being ``-((1 - sensitivity)^2 + r (1 - specificity)^2)``; ``f1`` and
        ``f_beta``: the F score (``beta`` weighs recall); ``mcc``: Matthews'
        correlation coefficient.
    beta : float, default 1
        For ``f_beta``.
    cost, prevalence : float, default 1 and 0.5
        pROC's ``best.weights``: the cost of a false negative relative to a
        false positive, and the prevalence, giving ``r = (1 - prevalence) /
        (cost * prevalence)`` (1 by default: the plain criteria).

    Returns
    -------
    OperatingPoint
        ``(value, threshold)``: the criterion's value and the cutoff score
        (rule: positive when score >= threshold). Of tied best cutoffs the
        highest is taken, ties counted up to rounding (criteria within
        ``2**-48``, times ``1 + r`` for ``youden`` and ``closest_topleft``, of
        the best: values equal in exact arithmetic), and ``value`` is its own.
        Flagging nothing (threshold ``inf``, as pROC's ``Inf``) is the answer
        where it is better than every cutoff beyond that (with ``r != 1``:
        ``youden`` gives ``r - 1`` there, ``closest_topleft`` ``-1``).
        NaN, with an :class:`~fastrank.UndefinedMetricWarning`, when a class is
        missing.

    Examples
    --------
    >>> import fastrank
    >>> y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    >>> s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    >>> p = fastrank.best_cutoff(y, s)                     # Youden's J
    >>> round(p.value, 6), p.threshold
    (0.666667, 0.5)
    >>> p = fastrank.best_cutoff(y, s, "mcc")
    >>> round(p.value, 6), p.threshold
    (0.666667, 0.5)
    """
    opts = _criterion_options({"criterion": criterion, "beta": beta, "cost": cost,
                               "prevalence": prevalence})
    point: OperatingPoint = _each("best_cutoff", opts, y_true, y_score, sample_weight,
                                  pos_label, groups=groups)
    return point


def _criterion_options(options: dict[str, Any]) -> dict[str, Any]:
    """:func:`best_cutoff`'s options, checked: ``criterion``, ``beta`` and pROC's
    weights as their ratio ``r``."""
    criterion = options.get("criterion", "youden")
    beta, cost = options.get("beta", 1.0), options.get("cost", 1.0)
    prevalence = options.get("prevalence", 0.5)
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {', '.join(map(repr, CRITERIA))}; "
                         f"got {criterion!r}")
    for name, value in (("beta", beta), ("cost", cost)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.number) \
                or not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number; got {value!r}")
    if isinstance(prevalence, bool) or not isinstance(prevalence, int | float | np.number) \
            or not 0.0 < prevalence < 1.0:
        raise ValueError(f"prevalence must lie in (0, 1); got {prevalence!r}")
    ratio = (1.0 - prevalence) / (cost * prevalence)
    if not (math.isfinite(ratio) and ratio > 0.0):
        # (an infinite r left the kernel's best unset: memory never written came back)
        raise ValueError(
            f"cost={cost!r} and prevalence={prevalence!r} give r = (1 - prevalence) / (cost "
            f"* prevalence) = {ratio!r}, outside float64's positive finite range"
        )
    if not math.isfinite(float(beta) * float(beta)):
        raise ValueError(f"beta={beta!r}: its square passes float64's range")
    return {"criterion": criterion, "beta": float(beta), "ratio": ratio}




# The readouts by name: (function of the cumulative counts, whether it needs negatives,
# the name of its bound). Evaluation tables and the command line look them up here.
READOUTS = {
    "sensitivity_at_specificity": (RD_SENS_AT_SPEC, True, "min_specificity"),
    "specificity_at_sensitivity": (RD_SPEC_AT_SENS, True, "min_sensitivity"),
    "recall_at_precision": (RD_RECALL_AT_PRECISION, False, "min_precision"),
    "precision_at_recall": (RD_PRECISION_AT_RECALL, False, "min_recall"),
}


def readout(name: str, fp: np.ndarray, tp: np.ndarray, thresholds: np.ndarray, bound: float,
            *, interpolate: bool = False) -> OperatingPoint:
    """Readout ``name`` from one task's cumulative counts at its distinct scores
    (highest first, without the start), as the public function gives it; NaN
    where the task lacks a class it needs (no warning: the caller warns)."""
    opts = {"bound": _target(bound, READOUTS[name][2]), "interpolate": interpolate}
    values, thr, _ = read_many(name, opts, [(fp, tp, thresholds)])
    assert thr is not None
    return OperatingPoint(float(values[0]), float(thr[0]))


# The readouts bootstrap_ci and BinnedSummary take (by name), with their options.
BOOTSTRAP_READOUTS = ("partial_roc_auc", "partial_pr_auc", *READOUTS, "best_cutoff")
OPTIONS = {
    "partial_roc_auc": ("fpr", "tpr", "correct"),
    "partial_pr_auc": ("recall",),
    **{name: (bound, "interpolate") for name, (_, _, bound) in READOUTS.items()},
    "best_cutoff": ("criterion", "beta", "cost", "prevalence"),
}


def check_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """Readout ``name``'s keyword ``options`` (as its public function takes them),
    checked as that function checks them, in the form :func:`table_readout` reads."""
    unknown = sorted(set(options) - set(OPTIONS[name]))
    if unknown:
        raise TypeError(f"{name} takes the options {', '.join(OPTIONS[name])}; got "
                        f"{', '.join(map(repr, unknown))}")
    if name == "partial_roc_auc":
        fpr, tpr = options.get("fpr"), options.get("tpr")
        return {"box_x": rate_range((0.0, 1.0) if fpr is None else fpr, "fpr"),
                "box_y": rate_range((0.0, 1.0) if tpr is None else tpr, "tpr"),
                "correct": check_flag(options.get("correct", False), "correct")}
    if name == "partial_pr_auc":
        low, high = rate_range(options.get("recall", (0.0, 1.0)), "recall")
        return {"low": low, "high": high}
    if name == "best_cutoff":
        return _criterion_options(options)
    bound = READOUTS[name][2]
    if bound not in options:
        raise TypeError(f"{name} needs its bound, {bound}=")
    return {"bound": _target(options[bound], bound),
            "interpolate": check_flag(options.get("interpolate", False), "interpolate")}


def table_readout(name: str, opts: dict[str, Any], fp: np.ndarray, tp: np.ndarray,
                  thresholds: np.ndarray) -> Any:
    """Readout ``name`` (options from :func:`check_options`) of one task's cumulative
    counts at its distinct scores (highest first, without the start; float64
    thresholds): a float (partial areas), an :class:`OperatingPoint`, or a string
    saying why it is undefined."""
    values, thr, reasons = read_many(name, opts, [(fp, tp, thresholds)])
    if reasons:
        return reasons[0]
    if thr is None:
        return float(values[0])
    return OperatingPoint(float(values[0]), float(thr[0]))


def table_value(name: str, opts: dict[str, Any], fp: np.ndarray, tp: np.ndarray,
                thresholds: np.ndarray) -> float:
    """The value of readout ``name`` of :data:`BOOTSTRAP_READOUTS` (an operating
    point's rate, a best cutoff's criterion, or a partial area; options from
    :func:`check_options`), from cumulative counts at the distinct scores; NaN where
    it is undefined. For the bootstrap, which recounts the tie groups of each
    resample."""
    got = table_readout(name, opts, fp, tp, thresholds)
    if isinstance(got, str):
        return math.nan
    return float(got.value if isinstance(got, OperatingPoint) else got)
