"""Readouts of one task's ROC curve: partial areas over a range of FPR, of TPR, or both.

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
from typing import Any

import numpy as np

from ._core import inputs
from .curves import _cumulative, _warn

__all__ = ["partial_roc_auc"]


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

    Each piece is cut where its line crosses the box's edges (the two x bounds,
    the two y bounds); between cuts the clipped line is linear, so a trapezoid is
    its exact integral.
    """
    (a, b), (lo, hi) = fpr, tpr
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    keep = (x1 > x0) & (x1 > a) & (x0 < b)  # vertical pieces have no area
    x0, x1, y0, y1 = x0[keep], x1[keep], y0[keep], y1[keep]
    if x0.shape[0] == 0:
        return 0.0
    dx, dy = x1 - x0, y1 - y0
    with np.errstate(divide="ignore", invalid="ignore"):
        cuts = np.stack([
            np.zeros_like(dx), np.ones_like(dx),
            (a - x0) / dx, (b - x0) / dx,
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
) -> float:
    """The area under the ROC curve inside a box of FPR and TPR ranges.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
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
        random ranking scores 0.5 and a perfect one 1. With ``fpr=(0, m)``
        only, this is scikit-learn's ``roc_auc_score(max_fpr=m)`` and
        :func:`fastrank.roc_auc` ``(max_fpr=m)``.

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
    if not isinstance(correct, bool | np.bool_):
        raise TypeError(f"correct must be True or False; got {correct!r}")
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, _ = _cumulative(task)
    neg, pos = float(fps[-1]), float(tps[-1])
    if pos <= 0 or neg <= 0:
        _warn(f"no {'positive' if pos <= 0 else 'negative'} samples: the partial ROC area "
              "is undefined; returning NaN")
        return math.nan
    x = np.concatenate(([0.0], fps / neg))
    y = np.concatenate(([0.0], tps / pos))
    area = box_area_under(x, y, box_x, box_y)
    if not correct:
        return area
    diagonal = box_area_under(np.array([0.0, 1.0]), np.array([0.0, 1.0]), box_x, box_y)
    full = (box_x[1] - box_x[0]) * (box_y[1] - box_y[0])
    if full == diagonal:  # the chance diagonal fills the box: no scale to standardise on
        _warn("the box lies under the chance diagonal, which fills it: McClish's "
              "standardisation is undefined there; returning NaN")
        return math.nan
    return 0.5 * (1.0 + (area - diagonal) / (full - diagonal))
