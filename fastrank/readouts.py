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
from functools import lru_cache, partial
from typing import Any, NamedTuple

import numpy as np

from ._core import engine, inputs
from ._core.arith import dot
from ._core.reduce import GroupResult
from .curves import _cumulative, _warn

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


def _range(value: Any, name: str) -> tuple[float, float]:
    """``(low, high)`` with ``0 <= low < high <= 1``, or ``ValueError``."""
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high) of rates; got {value!r}") from None
    if not (0.0 <= low < high <= 1.0):
        raise ValueError(f"{name} must satisfy 0 <= low < high <= 1; got ({low!r}, {high!r})")
    return low, high


def box_area_under(x: np.ndarray, y: np.ndarray, fpr: tuple[float, float],
                   tpr: tuple[float, float]) -> float:
    """The area under the polyline through ``(x, y)`` (both non-decreasing, from
    (0, 0) to (1, 1)) and inside the box ``fpr x tpr``: the integral over ``x`` in
    ``fpr`` of ``clip(y(x), tpr) - tpr[0]``.

    Both coordinates grow along the line, so the pieces that meet the box's FPR
    range fall in three runs: below the TPR range (no area), inside it, and above
    it (the box's full height: their widths add up to one difference of two
    clipped ends). Only the first and the last piece inside can cross an edge of
    the box; they are cut where their line crosses it (:func:`_cut_pieces`), and
    the pieces between them are trapezoids.
    """
    (a, b), (lo, hi) = fpr, tpr
    last = x.shape[0] - 1  # pieces 0 .. last - 1: from point i to point i + 1
    if last < 1:
        return 0.0
    i0 = max(int(np.searchsorted(x, a, "right")) - 1, 0)  # the first piece with x1 > a
    i1 = min(int(np.searchsorted(x, b, "left")), last)  # the first piece with x0 >= b
    j_lo = max(int(np.searchsorted(y, lo, "right")) - 1, 0)  # the first with y1 > lo
    j_hi = int(np.searchsorted(y, hi, "left"))  # the first with y0 >= hi
    s = min(max(i0, j_lo), i1)  # pieces i0 .. s - 1 lie below the box
    e = min(max(j_hi, s), i1)  # pieces e .. i1 - 1 lie above it
    total = 0.0
    if e < i1:
        total += (hi - lo) * (min(max(float(x[i1]), a), b) - min(max(float(x[e]), a), b))
    if s < e:
        ends = np.array([s, e - 1]) if e - s > 1 else np.array([s])
        total += _cut_pieces(x[ends], x[ends + 1], y[ends], y[ends + 1], fpr, tpr)
    if e - s > 2:  # the pieces between the two ends lie inside the box
        xs, ys = x[s + 1:e], y[s + 1:e]
        total += dot(np.diff(xs), ys[:-1] + ys[1:] - 2.0 * lo) * 0.5
    return total


def _cut_pieces(x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, y1: np.ndarray,
                fpr: tuple[float, float], tpr: tuple[float, float]) -> float:
    """The area inside the box under the pieces ``(x0, y0) -> (x1, y1)``, each cut
    where its line crosses the box's edges (the two x bounds, the two y bounds);
    between cuts the clipped line is linear, so a trapezoid is its exact integral."""
    (a, b), (lo, hi) = fpr, tpr
    dx, dy = x1 - x0, y1 - y0
    with np.errstate(divide="ignore", invalid="ignore"):
        cuts = np.stack([
            np.zeros_like(dx), np.ones_like(dx),
            np.where(dx > 0, (a - x0) / dx, 0.0), np.where(dx > 0, (b - x0) / dx, 0.0),
            np.where(dy > 0, (lo - y0) / dy, 0.0), np.where(dy > 0, (hi - y0) / dy, 0.0),
        ], axis=1)
    cuts = np.sort(np.clip(cuts, 0.0, 1.0), axis=1)
    t0, t1 = cuts[:, :-1], cuts[:, 1:]
    xs0, xs1 = x0[:, None] + t0 * dx[:, None], x0[:, None] + t1 * dx[:, None]
    # The cut points are clipped into [a, b]: a sub-piece outside it has zero width.
    xs0, xs1 = np.clip(xs0, a, b), np.clip(xs1, a, b)
    ys0 = np.clip(y0[:, None] + t0 * dy[:, None], lo, hi) - lo
    ys1 = np.clip(y0[:, None] + t1 * dy[:, None], lo, hi) - lo
    return float(np.sum((xs1 - xs0) * (ys0 + ys1)) * 0.5)


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
    box_x = _range((0.0, 1.0) if fpr is None else fpr, "fpr")
    box_y = _range((0.0, 1.0) if tpr is None else tpr, "tpr")
    one = partial(_roc_box, box_x=box_x, box_y=box_y, correct=_check_flag(correct, "correct"))
    return _each(y_true, y_score, sample_weight, pos_label, one, math.nan, groups=groups)


def _roc_box(fps: np.ndarray, tps: np.ndarray, _: np.ndarray, *, box_x: tuple[float, float],
             box_y: tuple[float, float], correct: bool) -> float | str:
    """:func:`partial_roc_auc` of one task's cumulative counts, or why it has none."""
    if tps[-1] <= 0 or fps[-1] <= 0:
        missing = "positive" if tps[-1] <= 0 else "negative"
        return f"no {missing} samples: the partial ROC area is undefined"
    if correct and _fills(box_x, box_y):
        return ("the box lies under the chance diagonal, which fills it: McClish's "
                "standardisation is undefined there")
    area = _partial_area(fps, tps, box_x, box_y, correct)
    if correct and area < 0.5 - 1e-12:  # beyond the rounding of a curve on the diagonal
        return BELOW_CHANCE
    return area


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
    low, high = _range(recall, "recall")
    one = partial(_pr_range, low=low, high=high)
    return _each(y_true, y_score, sample_weight, pos_label, one, math.nan, groups=groups)


def _pr_range(fps: np.ndarray, tps: np.ndarray, _: np.ndarray, *, low: float,
              high: float) -> float | str:
    """:func:`partial_pr_auc` of one task's cumulative counts, or why it has none."""
    pos = float(tps[-1])
    if pos <= 0:
        return "no positive samples: the partial PR area is undefined"
    return _pr_area(fps, tps, low * pos, high * pos) / pos


def _pr_area(fps: np.ndarray, tps: np.ndarray, t_lo: float, t_hi: float) -> float:
    """``P`` times the area under the interpolated PR curve for TP in ``[t_lo, t_hi]``.

    Along a group's piece (TP from ``t0`` to ``t0 + dp``, FP from ``f0`` growing
    ``h = dn / dp`` per positive) precision is ``t / (a t + b)`` with ``a = 1 + h``
    and ``b = f0 - h t0``, whose integral from ``u`` to ``v`` is
    ``(v - u) / a - (b / a^2) log((a v + b) / (a u + b))``. Groups without
    positives add no recall and no area.
    """
    t1, f1 = tps, fps
    t0 = np.concatenate(([0.0], tps[:-1]))
    f0 = np.concatenate(([0.0], fps[:-1]))
    dp, dn = t1 - t0, f1 - f0
    u, v = np.maximum(t0, t_lo), np.minimum(t1, t_hi)
    keep = (dp > 0) & (v > u)
    u, v, t0, f0, dp, dn = u[keep], v[keep], t0[keep], f0[keep], dp[keep], dn[keep]
    h = dn / dp
    a = 1.0 + h
    b = f0 - h * t0
    # log((a v + b) / (a u + b)) = log1p(a (v - u) / (a u + b)); a u + b > 0 wherever u > 0,
    # and a piece starting at TP 0 has b = 0 (the first group): constant precision 1 / a.
    base = a * u + b
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(b != 0.0, np.log1p(a * (v - u) / np.where(base > 0, base, 1.0)), 0.0)
    return float(np.sum((v - u) / a - (b / (a * a)) * logs))


def _fills(box_x: tuple[float, float], box_y: tuple[float, float]) -> bool:
    """Whether the chance diagonal's area fills the box (McClish has no scale there)."""
    diagonal, full = mcclish_scale(box_x, box_y)
    return diagonal == full


def _partial_area(fps: np.ndarray, tps: np.ndarray, box_x: tuple[float, float],
                  box_y: tuple[float, float], correct: bool) -> float:
    """:func:`partial_roc_auc` from cumulative FP and TP at the distinct scores (a task
    with both classes); NaN for McClish in a box the diagonal fills."""
    neg, pos = fps[-1], tps[-1]
    # Both rates grow along the curve, so the pieces that add area are one run of them:
    # from where FPR reaches the box and TPR its bottom, to where FPR leaves it (above
    # the box's top a piece adds the box's full height). Found on the counts, with one
    # piece more at each end for the rounding of the rates; only that run's rates are
    # formed.
    lo = max(int(np.searchsorted(fps, box_x[0] * neg, "left")),
             int(np.searchsorted(tps, box_y[0] * pos, "left"))) - 1
    hi = int(np.searchsorted(fps, box_x[1] * neg, "right")) + 1
    lo, hi = max(lo, 0), min(hi, fps.shape[0])  # points lo - 1 .. hi - 1 (-1: the start)
    if lo == 0:
        x = np.concatenate(([0.0], fps[:hi] / neg))
        y = np.concatenate(([0.0], tps[:hi] / pos))
    else:
        x, y = fps[lo - 1:hi] / neg, tps[lo - 1:hi] / pos
    area = box_area_under(x, y, box_x, box_y)
    if not correct:
        return area
    diagonal, full = mcclish_scale(box_x, box_y)
    if full == diagonal:
        return math.nan
    return 0.5 * (1.0 + (area - diagonal) / (full - diagonal))


@lru_cache(maxsize=64)  # boxes repeat across the tasks of a batch; the areas are pure
def mcclish_scale(box_x: tuple[float, float], box_y: tuple[float, float]) -> tuple[float, float]:
    """The chance diagonal's area in the box and the box's area: McClish maps a raw
    area ``A`` to ``(1 + (A - diagonal) / (full - diagonal)) / 2``."""
    diagonal = box_area_under(np.array([0.0, 1.0]), np.array([0.0, 1.0]), box_x, box_y)
    return diagonal, (box_x[1] - box_x[0]) * (box_y[1] - box_y[0])


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
    (``inf``: flag nothing). With ``interpolate=True`` the point may lie inside
    a tie group; ``threshold`` is then that group's score, and the point is
    reached by flagging the right share of the group's samples at random
    (its expected rates). Of cutoffs equal in the rate asked for, the one
    better in the other rate (e.g. the most specific of equally sensitive
    ones) is returned.
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


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def _each(y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
          one: Any, nan: Any, level: int = 4, groups: Any = None) -> Any:
    """``one(fps, tps, thresholds)`` of a task (cumulative counts at its distinct
    scores, float64 thresholds), of each column of 2-D scores (each class, for
    class labels), or of each group (``groups``), stacked into arrays. ``one``
    returns a value, or a string saying why the task has none: that task gets
    ``nan``, and the call one warning. With ``groups`` the values come as a
    :class:`~fastrank.GroupResult` (an operating point's ``value``)."""
    s = inputs.as_array(y_score, "y_score")
    batched = s.ndim == 2 or groups is not None
    if batched:
        b = inputs.batch(y_true, s, sample_weight, pos_label, groups, None)
        tasks = engine.split_batch(b)
    else:
        tasks = [inputs.task(y_true, s, sample_weight, pos_label)]

    def run(task: inputs.Task) -> Any:
        # Runs of negatives as single entries: every readout's best cutoff ends a
        # group with positives (or is the first group), so nothing changes but the work.
        fps, tps, thresholds = _cumulative(task, runs=True)
        got = one(fps, tps, thresholds.astype(np.float64))
        return got, (float(tps[-1]) if tps.shape[0] else 0.0), \
            (float(fps[-1]) if fps.shape[0] else 0.0)

    nthreads = engine.task_threads(tasks) if batched else 1
    results, reasons, pos, neg = [], [], [], []
    for got, p, q in engine.parallel_map(run, tasks, nthreads):
        if isinstance(got, str):
            reasons.append(got)
            got = nan
        results.append(got)
        pos.append(p)
        neg.append(q)
    if reasons:
        what = "groups" if groups is not None else "columns"
        where = f" for {len(reasons)} of {len(tasks)} {what}" if batched else ""
        _warn(f"{reasons[0]}{where}; returning NaN", level=level)  # at the public's caller
    if not batched:
        return results[0]
    point = isinstance(nan, OperatingPoint)
    values: Any = np.array([r.value for r in results] if point else results, np.float64)
    if groups is not None:
        assert b.ids is not None
        values = GroupResult(b.ids, values, np.array(pos, np.float64),
                             np.array(neg, np.float64), b.sizes.astype(np.int64))
    if point:
        return OperatingPoint(values, np.array([r.threshold for r in results], np.float64))
    return values


def _operating(name: str, bound: float, interpolate: Any, y_true: Any, y_score: Any,
               sample_weight: Any, pos_label: Any, groups: Any) -> OperatingPoint:
    """Operating point ``name`` of one task, or of each column of 2-D scores."""
    one = partial(_point, name, bound=bound, interpolate=_check_flag(interpolate, "interpolate"))
    point: OperatingPoint = _each(y_true, y_score, sample_weight, pos_label, one, _NAN_POINT,
                                  level=5, groups=groups)
    return point


def _point(name: str, fps: np.ndarray, tps: np.ndarray, thresholds: np.ndarray, bound: float,
           interpolate: bool) -> OperatingPoint | str:
    """Operating point ``name`` from a task's cumulative counts at its distinct scores,
    or why it has none."""
    fn, needs_negatives, _ = READOUTS[name]
    if tps[-1] <= 0 or (needs_negatives and fps[-1] <= 0):
        missing = "positive" if tps[-1] <= 0 else "negative"
        return f"no {missing} samples: the operating point is undefined"
    point: OperatingPoint = fn(np.concatenate(([0.0], fps)), np.concatenate(([0.0], tps)),
                               np.concatenate(([np.inf], thresholds)), bound, interpolate)
    return point


_NAN_POINT = OperatingPoint(math.nan, math.nan)


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


def _sens_at_spec(fp: np.ndarray, tp: np.ndarray, thr: np.ndarray, bound: float,
                  interpolate: bool) -> OperatingPoint:
    """:func:`sensitivity_at_specificity` from cumulative FP and TP from the (inf) start."""
    neg, pos = fp[-1], tp[-1]
    ok = (neg - fp) / neg >= bound  # specificity of each cutoff, as users compute it
    last = int(np.flatnonzero(ok)[-1])  # the start (flag nothing) always qualifies
    k = int(np.searchsorted(tp, tp[last]))  # of equal sensitivity, the most specific
    value = tp[k] / pos
    if interpolate and last + 1 < fp.shape[0] and fp[last + 1] > fp[last]:
        # Along the next group's line, FP grows to the bound's (1 - bound) * neg.
        share = ((1.0 - bound) * neg - fp[last]) / (fp[last + 1] - fp[last])
        inside = (tp[last] + min(max(share, 0.0), 1.0) * (tp[last + 1] - tp[last])) / pos
        if inside > value:  # the group holds positives: part of it helps
            return OperatingPoint(float(inside), float(thr[last + 1]))
    return OperatingPoint(float(value), float(thr[k]))


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


def _spec_at_sens(fp: np.ndarray, tp: np.ndarray, thr: np.ndarray, bound: float,
                  interpolate: bool) -> OperatingPoint:
    """:func:`specificity_at_sensitivity` from cumulative FP and TP from the (inf) start."""
    neg, pos = fp[-1], tp[-1]
    k = int(np.flatnonzero(tp / pos >= bound)[0])  # the last cutoff always qualifies
    if interpolate and k > 0 and tp[k] > tp[k - 1] and tp[k - 1] / pos < bound:
        share = (bound * pos - tp[k - 1]) / (tp[k] - tp[k - 1])
        fp_at = fp[k - 1] + min(max(share, 0.0), 1.0) * (fp[k] - fp[k - 1])
        if fp_at < fp[k]:  # the group holds negatives: flagging part of it spares some
            return OperatingPoint(float((neg - fp_at) / neg), float(thr[k]))
    k = int(np.searchsorted(fp, fp[k], side="right")) - 1  # of equal specificity, the most
    return OperatingPoint(float((neg - fp[k]) / neg), float(thr[k]))  # sensitive


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


def _recall_at_precision(fp: np.ndarray, tp: np.ndarray, thr: np.ndarray, bound: float,
                         interpolate: bool) -> OperatingPoint:
    """:func:`recall_at_precision` from cumulative FP and TP from the (inf) start."""
    pos = tp[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = tp / (tp + fp)
    ok = np.flatnonzero(precision[1:] >= bound) + 1
    if ok.size:  # the most recall; of equal recall, the best precision (fewest FP)
        j = int(ok[np.searchsorted(tp[ok], tp[ok[-1]])])
        best = OperatingPoint(float(tp[j] / pos), float(thr[j]))
    else:
        best = OperatingPoint(0.0, math.inf)
    if not interpolate:
        return best
    # Inside group k (between cutoffs k - 1 and k): flagging a share a of it gives
    # TP = tp0 + a dp and flagged = n0 + a g; precision is monotone in a, so where
    # the group starts at or above the bound and ends below it, the bound is met at
    # a = (bound n0 - tp0) / (dp - bound g).
    tp0, n0 = tp[:-1], tp[:-1] + fp[:-1]
    dp, g = np.diff(tp), np.diff(tp + fp)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = np.where(n0 > 0, tp0 / n0, dp / g)  # at a -> 0: the group's own precision
        crossing = (start >= bound) & (precision[1:] < bound) & (dp > 0)
        share = (bound * n0 - tp0) / (dp - bound * g)
    cand = np.flatnonzero(crossing & (share > 0))
    if cand.size:
        recalls = (tp0[cand] + np.clip(share[cand], 0.0, 1.0) * dp[cand]) / pos
        j = int(np.argmax(recalls))
        if recalls[j] > best.value:
            return OperatingPoint(float(recalls[j]), float(thr[cand[j] + 1]))
    return best


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


def _precision_at_recall(fp: np.ndarray, tp: np.ndarray, thr: np.ndarray, bound: float,
                         interpolate: bool) -> OperatingPoint:
    """:func:`precision_at_recall` from cumulative FP and TP from the (inf) start."""
    pos = tp[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = tp / (tp + fp)
    ok = np.flatnonzero((tp / pos >= bound)[1:]) + 1  # cutoffs only: the start flags none
    top = precision[ok] == precision[ok].max()  # of equal precision, the most recall
    j = int(ok[np.flatnonzero(top)[-1]])
    best = OperatingPoint(float(precision[j]), float(thr[j]))
    if not interpolate:
        return best
    k = int(ok[0])  # the group inside which TP reaches bound * pos
    need = bound * pos
    if tp[k - 1] < need < tp[k]:
        share = (need - tp[k - 1]) / (tp[k] - tp[k - 1])
        flagged = tp[k - 1] + fp[k - 1] + share * (tp[k] + fp[k] - tp[k - 1] - fp[k - 1])
        at = need / flagged
        if at > best.value:
            return OperatingPoint(float(at), float(thr[k]))
    return best


# -- the best cutoff by a criterion ------------------------------------------------------

CRITERIA = ("youden", "closest_topleft", "f1", "f_beta", "mcc")


def criterion_values(fp: np.ndarray, tp: np.ndarray, criterion: str, *, beta: float = 1.0,
                     ratio: float = 1.0, totals: tuple[float, float] | None = None
                     ) -> np.ndarray:
    """``criterion`` at each cutoff from cumulative FP and TP (larger is better): the
    one place these cutoff statistics are computed, for :func:`best_cutoff` and the
    evaluation tables. ``youden`` is ``sensitivity + ratio * specificity - 1``
    (pROC's ``best.weights`` give ``ratio``), ``closest_topleft`` minus ``(1 -
    sensitivity)^2 + ratio (1 - specificity)^2`` (both need both classes),
    ``f1``/``f_beta`` the F score (0 without true positives) and ``mcc`` Matthews'
    correlation (0 where its denominator is). ``totals``: ``(positives,
    negatives)`` when ``fp``/``tp`` are not the whole curve (default: their last
    entries)."""
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
    out = np.where(denom > 0, (tp * tn - fp * fn) / np.where(denom > 0, denom, 1.0), 0.0)
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
        highest is taken. NaN, with an :class:`~fastrank.UndefinedMetricWarning`,
        when a class is missing.

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
    one = partial(_best, **opts)
    point: OperatingPoint = _each(y_true, y_score, sample_weight, pos_label, one, _NAN_POINT,
                                  groups=groups)
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
    return {"criterion": criterion, "beta": float(beta),
            "ratio": (1.0 - prevalence) / (cost * prevalence)}


def _best(fp: np.ndarray, tp: np.ndarray, thr: np.ndarray, *, criterion: str, beta: float,
          ratio: float) -> OperatingPoint | str:
    """:func:`best_cutoff` of one task's cumulative counts, or why it has none."""
    if tp[-1] <= 0 or fp[-1] <= 0:
        missing = "positive" if tp[-1] <= 0 else "negative"
        return f"no {missing} samples: the best cutoff is undefined"
    values = criterion_values(fp, tp, criterion, beta=beta, ratio=ratio)
    k = int(np.argmax(values))  # the first: the highest of tied best cutoffs
    return OperatingPoint(float(values[k]), float(thr[k]))


# The readouts by name: (function of the cumulative counts, whether it needs negatives,
# the name of its bound). Evaluation tables and the command line look them up here.
READOUTS = {
    "sensitivity_at_specificity": (_sens_at_spec, True, "min_specificity"),
    "specificity_at_sensitivity": (_spec_at_sens, True, "min_sensitivity"),
    "recall_at_precision": (_recall_at_precision, False, "min_precision"),
    "precision_at_recall": (_precision_at_recall, False, "min_recall"),
}


def readout(name: str, fp: np.ndarray, tp: np.ndarray, thresholds: np.ndarray, bound: float,
            *, interpolate: bool = False) -> OperatingPoint:
    """Readout ``name`` from one task's cumulative counts at its distinct scores
    (highest first, without the start), as the public function gives it; NaN
    where the task lacks a class it needs (no warning: the caller warns)."""
    point = _point(name, fp, tp, thresholds.astype(np.float64),
                   _target(bound, READOUTS[name][2]), interpolate)
    return _NAN_POINT if isinstance(point, str) else point


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
        return {"box_x": _range((0.0, 1.0) if fpr is None else fpr, "fpr"),
                "box_y": _range((0.0, 1.0) if tpr is None else tpr, "tpr"),
                "correct": _check_flag(options.get("correct", False), "correct")}
    if name == "partial_pr_auc":
        low, high = _range(options.get("recall", (0.0, 1.0)), "recall")
        return {"low": low, "high": high}
    if name == "best_cutoff":
        return _criterion_options(options)
    bound = READOUTS[name][2]
    if bound not in options:
        raise TypeError(f"{name} needs its bound, {bound}=")
    return {"bound": _target(options[bound], bound),
            "interpolate": _check_flag(options.get("interpolate", False), "interpolate")}


def table_readout(name: str, opts: dict[str, Any], fp: np.ndarray, tp: np.ndarray,
                  thresholds: np.ndarray) -> Any:
    """Readout ``name`` (options from :func:`check_options`) of one task's cumulative
    counts at its distinct scores (highest first, without the start; float64
    thresholds): a float (partial areas), an :class:`OperatingPoint`, or a string
    saying why it is undefined."""
    if name == "partial_roc_auc":
        return _roc_box(fp, tp, thresholds, **opts)
    if name == "partial_pr_auc":
        return _pr_range(fp, tp, thresholds, **opts)
    if name == "best_cutoff":
        return _best(fp, tp, thresholds, **opts)
    return _point(name, fp, tp, thresholds, opts["bound"], opts["interpolate"])


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
