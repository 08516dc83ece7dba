"""Curves of one task: ROC, precision-recall, DET, the interpolated PR curve, and
cumulative gain and lift over the depth of a ranking.

All of them come from the same tie-group table as the scalar metrics (the
``task_table`` in ``fastrank._core.tie_tables``): one split and sort, one
walk over the groups, then cumulative sums over the (usually much shorter)
list of distinct scores.
``roc_curve``, ``precision_recall_curve``, ``det_curve`` and
``confusion_matrix_at_thresholds`` follow scikit-learn's return conventions
(order of points, the extra first ROC point at threshold ``+inf``,
``drop_intermediate``), so their results compare element for element.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ._core import codec, inputs, tie_tables
from ._core.inputs import Task
from ._core.interpolate import precision_at
from ._core.messages import warn_undefined
from ._core.options import check_count, depth_shares

__all__ = [
    "confusion_matrix_at_thresholds",
    "cumulative_gain_curve",
    "det_curve",
    "gain_at_depth",
    "interpolated_precision_recall_curve",
    "lift_at_depth",
    "lift_curve",
    "precision_recall_curve",
    "roc_curve",
]

FloatArray = np.ndarray


def tie_counts(task: Task, runs: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-group score bits and positive and negative totals (float64, caller units),
    highest score first (``runs``: see :func:`~fastrank._core.tie_tables.task_table`)."""
    gkey, gpos, gneg = tie_tables.task_table(task, runs)
    return (gkey, *task.in_caller_units(gpos, gneg))


def tie_table(task: Task, runs: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-group positive and negative totals (float64, caller units) and the
    threshold scores (in the caller's dtype), highest score first (``runs``: see
    :func:`~fastrank._core.tie_tables.task_table`)."""
    gkey, gpos, gneg = tie_counts(task, runs)
    return gpos, gneg, codec.decode(gkey, task.values.dtype, task.dtype)


def _cumulative(task: Task, runs: bool = False) -> tuple[FloatArray, FloatArray, np.ndarray]:
    """``fps``, ``tps`` (float64, at or above each threshold) and the thresholds."""
    gpos, gneg, thresholds = tie_table(task, runs)
    return np.cumsum(gneg), np.cumsum(gpos), thresholds




def confusion_matrix_at_thresholds(
    y_true: Any,
    y_score: Any,
    *positional: Any,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, np.ndarray]:
    """Confusion-matrix counts at every distinct score, highest score first.

    The sweep every other curve is built from, with scikit-learn's signature
    and return order (``sklearn.metrics.confusion_matrix_at_thresholds``).

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`. ``pos_label`` and
        ``sample_weight`` are meant to be passed by keyword; passing them by
        position still works, as in scikit-learn 1.9, with a
        ``FutureWarning``.

    Returns
    -------
    tns, fps, fns, tps : ndarray of shape (n_thresholds,)
        float64 counts (weight sums when weighted) when predicting positive
        every sample scoring at least ``thresholds[i]``.
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores in decreasing order, in the dtype of ``y_score``.
        Scores held only by zero-weight samples are not thresholds.

    Examples
    --------
    >>> import fastrank
    >>> tns, fps, fns, tps, thr = fastrank.confusion_matrix_at_thresholds(
    ...     [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> tps, fps, thr
    (array([1., 1., 2., 2.]), array([0., 1., 1., 2.]), array([0.8 , 0.4 , 0.35, 0.1 ]))
    """
    if positional:
        pos_label, sample_weight = _positional_options(positional, pos_label, sample_weight)
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, thresholds = _cumulative(task)
    if fps.shape[0] == 0:  # every weight is zero: no thresholds
        return fps, fps, tps, tps, thresholds
    return fps[-1] - fps, fps, tps[-1] - tps, tps, thresholds


_POSITIONAL_NOTE = "positional arguments after y_score are deprecated; pass them by keyword"


def _positional_options(
    positional: tuple[Any, ...], pos_label: Any, sample_weight: Any
) -> tuple[Any, Any]:
    """``pos_label`` and ``sample_weight`` by position (scikit-learn 1.9's deprecated form)."""
    names = ("pos_label", "sample_weight")
    if len(positional) > len(names):
        raise TypeError(
            "confusion_matrix_at_thresholds() takes at most 4 positional arguments "
            f"(y_true, y_score, pos_label, sample_weight); got {2 + len(positional)}"
        )
    given = dict(zip(names[: len(positional)], positional, strict=True))
    keywords = {"pos_label": pos_label, "sample_weight": sample_weight}
    for name in given:
        if keywords[name] is not None:
            raise TypeError(
                f"confusion_matrix_at_thresholds() got {name} both by position and by keyword"
            )
    shown = ", ".join(f"{name}={value!r}" for name, value in given.items())
    warnings.warn(f"Pass {shown} as keyword args: {_POSITIONAL_NOTE}", FutureWarning, stacklevel=3)
    return given.get("pos_label", pos_label), given.get("sample_weight", sample_weight)


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Receiver operating characteristic curve, as ``sklearn.metrics.roc_curve``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    drop_intermediate : bool, default True
        Drop points collinear with their neighbours (they change neither the
        plot nor the area).

    Returns
    -------
    fpr, tpr : ndarray of shape (n_points,)
        Increasing false- and true-positive rates, starting at (0, 0).
    thresholds : ndarray of shape (n_points,)
        Decreasing float64 cutoffs; ``thresholds[0]`` is ``inf``.

    Notes
    -----
    A task without negatives (positives) gets NaN ``fpr`` (``tpr``) and an
    :class:`~fastrank.UndefinedMetricWarning`, as in scikit-learn.

    Examples
    --------
    >>> import fastrank
    >>> fpr, tpr, thr = fastrank.roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    >>> thr
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, thresholds = _cumulative(task)
    thresholds = thresholds.astype(np.float64)
    if drop_intermediate and fps.shape[0] > 2:
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.flatnonzero(np.concatenate(([True], corner, [True])))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    fps = np.concatenate(([0.0], fps))
    tps = np.concatenate(([0.0], tps))
    thresholds = np.concatenate(([np.inf], thresholds))
    missing = [name for name, total in (("negative", fps[-1]), ("positive", tps[-1])) if total <= 0]
    if missing:
        warn_undefined(f"no {' or '.join(missing)} samples: the ROC curve is undefined (NaN rates)")
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return fpr, tpr, thresholds


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[FloatArray, FloatArray, np.ndarray]:
    """Precision-recall pairs, as ``sklearn.metrics.precision_recall_curve``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    drop_intermediate : bool, default False
        Keep only the first and last point of each run of equal recall.

    Returns
    -------
    precision, recall : ndarray of shape (n_thresholds + 1,)
        Recall decreasing to a final point (recall 0, precision 1).
    thresholds : ndarray of shape (n_thresholds,)
        Increasing cutoffs, in the dtype of ``y_score``.

    Notes
    -----
    Without positives recall is set to 1 everywhere and an
    :class:`~fastrank.UndefinedMetricWarning` is emitted, as in scikit-learn.
    For the curve between these points use
    :func:`interpolated_precision_recall_curve`.

    Examples
    --------
    >>> import fastrank
    >>> p, r, thr = fastrank.precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> p
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> r
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thr
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, thresholds = _cumulative(task)
    if drop_intermediate and fps.shape[0] > 2:
        edge = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        keep = np.flatnonzero(np.concatenate(([True], edge, [True])))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    predicted = tps + fps
    precision = np.zeros_like(tps)
    np.divide(tps, predicted, out=precision, where=predicted != 0)
    if tps.shape[0] == 0:  # every weight zero: no threshold, only the final point
        warn_undefined("every sample weight is zero: the curve has no thresholds, only its "
                       "final point (recall 0, precision 1)")
        recall = tps
    elif tps[-1] == 0:
        warn_undefined("no positive samples: recall is set to 1 for all thresholds")
        recall = np.ones_like(tps)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate((precision[::-1], [1.0])),
        np.concatenate((recall[::-1], [0.0])),
        thresholds[::-1],
    )


def det_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Detection error tradeoff curve, as ``sklearn.metrics.det_curve``.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    drop_intermediate : bool, default False
        Drop thresholds where the true-positive count does not change from
        the previous or next threshold.

    Returns
    -------
    fpr : ndarray of shape (n_points,)
        Decreasing false-positive rate.
    fnr : ndarray of shape (n_points,)
        Increasing false-negative rate.
    thresholds : ndarray of shape (n_points,)
        Increasing float64 cutoffs (``inf`` last when it is kept).

    Raises
    ------
    ValueError
        When ``y_true`` holds one class only (or every weight of one class is
        zero): a DET curve needs both rates, as in scikit-learn.

    Notes
    -----
    Plot on normal-deviate axes (``scipy.stats.norm.ppf`` of both rates).

    Examples
    --------
    >>> import fastrank
    >>> fpr, fnr, thr = fastrank.det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr, fnr, thr
    (array([0.5, 0.5, 0. ]), array([0. , 0.5, 0.5]), array([0.35, 0.4 , 0.8 ]))
    """
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, thresholds = _cumulative(task)
    if fps.shape[0] == 0 or fps[-1] <= 0 or tps[-1] <= 0:
        missing = "positive" if fps.shape[0] == 0 or tps[-1] <= 0 else "negative"
        raise ValueError(
            f"det_curve needs both classes, but y_true has no {missing} samples "
            "(with nonzero weight): the DET curve is undefined"
        )
    fps = np.concatenate(([0.0], fps))
    tps = np.concatenate(([0.0], tps))
    thresholds = np.concatenate(([np.inf], thresholds.astype(np.float64)))
    if drop_intermediate and fps.shape[0] > 2:
        edge = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        keep = np.flatnonzero(np.concatenate(([True], edge, [True])))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    p_count = tps[-1]
    n_count = fps[-1]
    fns = p_count - tps
    end = int(np.searchsorted(fps, fps[0], side="right"))
    first = end - 1 if end > 0 else None
    last = int(np.searchsorted(tps, tps[-1])) + 1
    part = slice(first, last)
    fpr = fps[part][::-1] / n_count
    fnr = fns[part][::-1] / p_count
    return fpr, fnr, thresholds[part][::-1]


def interpolated_precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    recall: Any = None,
    points_per_segment: int = 8,
) -> tuple[FloatArray, FloatArray]:
    """The Davis-Goadrich interpolated precision-recall curve, for plotting.

    Between consecutive cutoffs TP and FP grow linearly together, so the
    precision between two PR points follows a hyperbola, not a straight line;
    :func:`fastrank.pr_auc` is the exact area under this curve.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    recall : array-like of float in [0, 1], optional
        Evaluate the curve at these recalls instead (for example a common
        grid to average curves over folds). At a recall reached by several
        points of the curve, the first one (highest score cutoff) is used.
    points_per_segment : int, default 8
        Without ``recall``: interior points added on each segment where
        precision is not constant, on top of the exact PR points.

    Returns
    -------
    precision, recall : ndarray
        Points in order of increasing recall (from the top-scored cutoff).
        The curve starts at recall 0 with the precision of the first segment.

    Examples
    --------
    >>> import fastrank
    >>> p, r = fastrank.interpolated_precision_recall_curve(
    ...     [1, 0, 1, 0], [4, 3, 2, 1], recall=[0.0, 0.5, 0.75, 1.0])
    >>> p.round(4), r
    (array([1.    , 1.    , 0.6   , 0.6667]), array([0.  , 0.5 , 0.75, 1.  ]))
    """
    # (two floats a point, at least one segment)
    points_per_segment = check_count(points_per_segment, "points_per_segment", least=0,
                                     item_bytes=16)
    grid = None
    if recall is not None:
        grid = np.asarray(recall, dtype=np.float64)
        if grid.ndim != 1:
            raise ValueError(f"recall must be 1-D; got shape {grid.shape}")
        if not np.all((grid >= 0.0) & (grid <= 1.0)):
            raise ValueError("recall values must lie in [0, 1]")
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    gpos, gneg, _ = tie_table(task)
    tp_end = np.cumsum(gpos)
    fp_end = np.cumsum(gneg)
    pos = tp_end[-1] if tp_end.shape[0] else 0.0
    if pos <= 0:
        warn_undefined("no positive samples: the precision-recall curve is undefined (NaN)")
        size = grid.shape[0] if grid is not None else gpos.shape[0] + 1
        return np.full(size, np.nan), (grid.copy() if grid is not None else np.full(size, np.nan))
    tp_start = tp_end - gpos
    fp_start = fp_end - gneg
    if grid is not None:
        return precision_at(grid * pos, tp_start, fp_start, gpos, gneg), grid.copy()
    return interpolated_points(gpos, gneg, points_per_segment)


def interpolated_points(
    gpos: FloatArray, gneg: FloatArray, points_per_segment: int
) -> tuple[FloatArray, FloatArray]:
    """Precision and recall along the interpolated PR curve of a tie-group table.

    ``gpos``/``gneg`` are the positives and negatives of each tie group,
    highest score first (at least one positive in all).
    """
    tp_end = np.cumsum(gpos)
    tp_start = tp_end - gpos
    fp_start = np.cumsum(gneg) - gneg
    pos = tp_end[-1]
    # Rows are segments, columns points along them (start, interior..., end); the
    # start of each segment but the first is the end of the previous one.
    frac = np.arange(1, points_per_segment + 2, dtype=np.float64) / (points_per_segment + 1)
    t = np.concatenate(([0.0], (tp_start[:, None] + gpos[:, None] * frac).ravel()))
    f = np.concatenate(([0.0], (fp_start[:, None] + gneg[:, None] * frac).ravel()))
    mass = t + f
    precision = np.divide(t, mass, out=np.zeros_like(t), where=mass > 0)
    # At the origin, precision is that of the first segment (constant along it).
    precision[0] = gpos[0] / (gpos[0] + gneg[0])
    return precision, t / pos




# -- cumulative gain and lift ------------------------------------------------------------


def _gain_points(task: Task, runs: bool = False) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Depth and gain at each distinct score (highest first, after a (0, 0) start),
    and the thresholds (``inf`` first); ``runs``: the readouts' table (see
    :func:`~fastrank._core.tie_tables.task_table`), whose flat pieces are merged."""
    fps, tps, thresholds = _cumulative(task, runs)
    if tps.shape[0] == 0 or tps[-1] <= 0:
        warn_undefined("no positive samples: the gain and lift are undefined (NaN)", level=4)
    depth, gain = gain_points(fps, tps)
    return depth, gain, np.concatenate(([np.inf], thresholds.astype(np.float64)))


def gain_points(fps: FloatArray, tps: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Depth and gain after a (0, 0) start, from cumulative counts at the distinct
    scores (NaN gains without positives; only the start, its gain NaN, where no
    sample has weight)."""
    if tps.shape[0] == 0:
        return np.zeros(1), np.full(1, np.nan)
    pos, total = float(tps[-1]), float(tps[-1] + fps[-1])
    depth = np.concatenate(([0.0], (tps + fps) / total))
    gain = (np.concatenate(([0.0], tps / pos)) if pos > 0
            else np.full(depth.shape, np.nan))
    return depth, gain


def gain_lift_at(fps: FloatArray, tps: FloatArray, depth: FloatArray
                 ) -> tuple[FloatArray, FloatArray]:
    """:func:`gain_at_depth` and :func:`lift_at_depth` at each of ``depth`` (checked
    shares) from cumulative counts at the distinct scores (NaN where no sample has
    weight)."""
    if tps.shape[0] == 0:
        return np.full(depth.shape, np.nan), np.full(depth.shape, np.nan)
    xs, gain = gain_points(fps, tps)
    at = np.interp(depth, xs, gain)
    top = gain[1] / xs[1]  # the first segment's slope: its lift, at every depth inside it
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = np.where(depth > 0.0, at / np.where(depth > 0.0, depth, 1.0), top)
    return at, lift




def cumulative_gain_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Cumulative gain: the share of all positives among the top-scored samples.

    At each distinct score, ``depth`` is the share of the samples (or of the
    weight) scoring at least it and ``gain`` the share of the positives
    among them, so ``gain`` is the recall of the rule "positive when score
    >= threshold" against the share of samples it flags. Tied samples are one
    cutoff: between two points the curve is the straight line that is the
    expected gain over every order of the tied samples (:func:`gain_at_depth`
    reads it at any depth).

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.

    Returns
    -------
    depth, gain : ndarray of shape (n_points,)
        Increasing, from (0, 0) to (1, 1); a random ranking gives
        ``gain == depth`` on average.
    thresholds : ndarray of shape (n_points,)
        Decreasing float64 cutoffs; ``thresholds[0]`` is ``inf`` (no sample
        flagged).

    Notes
    -----
    Without positives the gain is NaN, with an
    :class:`~fastrank.UndefinedMetricWarning`. Samples of zero weight are not
    cutoffs, as in :func:`roc_curve`.

    Examples
    --------
    >>> import fastrank
    >>> depth, gain, thr = fastrank.cumulative_gain_curve([1, 0, 1, 0], [.9, .6, .6, .2])
    >>> depth, gain
    (array([0.  , 0.25, 0.75, 1.  ]), array([0. , 0.5, 1. , 1. ]))
    >>> thr
    array([inf, 0.9, 0.6, 0.2])
    """
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    depth, gain, thresholds = _gain_points(task)
    return depth, gain, thresholds


def lift_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Lift: how many times the prevalence the top-scored samples' share of positives is.

    ``lift = gain / depth``, the precision of the samples scoring at least
    each threshold divided by the prevalence: 1 for a random ranking, ``1 /
    prevalence`` at most.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.

    Returns
    -------
    depth, lift : ndarray of shape (n_points,)
        One point per distinct score, depth increasing to 1 (where the lift
        is 1); there is no point at depth 0.
    thresholds : ndarray of shape (n_points,)
        The distinct scores, decreasing (float64).

    Examples
    --------
    >>> import fastrank
    >>> depth, lift, thr = fastrank.lift_curve([1, 0, 1, 0], [.9, .6, .6, .2])
    >>> depth, lift.round(4)
    (array([0.25, 0.75, 1.  ]), array([2.    , 1.3333, 1.    ]))
    """
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    depth, gain, thresholds = _gain_points(task)
    return depth[1:], gain[1:] / depth[1:], thresholds[1:]


def gain_at_depth(
    y_true: Any, y_score: Any, depth: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> Any:
    """The share of all positives among the top ``depth`` share of the samples.

    Tie-aware: where the depth cuts through samples of equal score, the value
    is the expected one over every order of them (the straight line of
    :func:`cumulative_gain_curve` between its points), so it never depends
    on the input order.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    depth : float or 1-D array-like of floats in [0, 1]
        Shares of the samples (of the weight, when weighted), e.g. 0.1 for
        the top 10%.

    Returns
    -------
    float or ndarray
        One value per depth; NaN (with a warning) without positives.

    Examples
    --------
    >>> import fastrank
    >>> y, s = [1, 0, 1, 0], [.9, .6, .6, .2]
    >>> fastrank.gain_at_depth(y, s, 0.5)     # the top 2: .9, then one of the two .6
    0.75
    >>> fastrank.gain_at_depth(y, s, [0.25, 1.0])
    array([0.5, 1. ])
    """
    d, scalar = depth_shares(depth)
    out = _at_depths(y_true, y_score, sample_weight, pos_label, d)[0]
    return float(out) if scalar else out


def _at_depths(y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
               d: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Gain and lift at the depths ``d`` of one task (one warning without positives)."""
    task = inputs.task(y_true, y_score, sample_weight, pos_label)
    fps, tps, _ = _cumulative(task, runs=True)  # flat pieces merged: the same values
    if tps.shape[0] == 0 or tps[-1] <= 0:
        warn_undefined("no positive samples: the gain and lift are undefined (NaN)", level=4)
    return gain_lift_at(fps, tps, d)


def lift_at_depth(
    y_true: Any, y_score: Any, depth: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> Any:
    """The lift of the top ``depth`` share of the samples: :func:`gain_at_depth`
    divided by ``depth``, tie-aware in the same way.

    At depth 0 the value is its limit, the lift of the top-scored tie group.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`fastrank.average_precision`.
    depth : float or 1-D array-like of floats in [0, 1]
        Shares of the samples (of the weight, when weighted).

    Returns
    -------
    float or ndarray
        One value per depth; NaN (with a warning) without positives.

    Examples
    --------
    >>> import fastrank
    >>> fastrank.lift_at_depth([1, 0, 1, 0], [.9, .6, .6, .2], [0.0, 0.5])
    array([2. , 1.5])
    """
    d, scalar = depth_shares(depth)
    out = _at_depths(y_true, y_score, sample_weight, pos_label, d)[1]
    return float(out) if scalar else out
