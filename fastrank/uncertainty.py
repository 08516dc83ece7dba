"""How sure is the number: DeLong intervals and tests for ROC AUC, bootstrap for any metric.

DeLong's method (as pROC implements it) estimates the variance of an AUC from
the placements of each sample: the share of the other class it outranks, ties
counting half. For one task every sample of a tie group has the same
placement, so the variance comes from the same sort as the AUC (its tie
table). Comparing models on the same samples needs the placements sample by
sample; columns of a batch run in parallel. The formulas live in
``fastrank._core.delong``.

The bootstrap resamples the samples (by default within each class), sorting
only once: a resample changes how often each sample counts, not the order of
the scores (``fastrank._kernels.bootstrap``).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import readouts
from ._core import (
    batch_tasks,
    codec,
    delong,
    engine,
    first_calls,
    inputs,
    registry,
    tie_tables,
    workers,
)
from ._core.arith import gram
from ._core.inputs import Task, as_array
from ._core.options import check_count, check_flag, check_seed, rate_range
from ._kernels.bootstrap import resample_sweeps
from ._kernels.sweep import OUT_NEG, OUT_POS, OUT_SIZE
from .curves import tie_table
from .exceptions import UndefinedMetricWarning
from .metrics import average_precision, d_prime, pr_auc, prbe, roc_auc
from .stats import check_level, critical_value, two_sided_p

__all__ = [
    "Comparison",
    "Interval",
    "bootstrap_ci",
    "delong_covariance",
    "delong_test",
    "delong_test_unpaired",
    "partial_roc_auc_ci",
    "roc_auc_ci",
]

Number = float | np.ndarray


@dataclass(frozen=True)
class Interval:
    """A metric with its confidence interval.

    Fields are floats for one task and float64 arrays (one entry per task)
    for a batch.

    Attributes
    ----------
    estimate : float or ndarray
        The metric on the data (exactly what the metric function returns).
    low, high : float or ndarray
        The interval at ``level``. DeLong bounds are clipped to [0, 1], as in
        pROC's ``ci.auc``.
    level : float
    method : str
        ``"delong"`` or ``"bootstrap"``.
    se : float or ndarray
        Standard error: the square root of the DeLong variance, or the standard
        deviation of the bootstrap values.
    variance : float or ndarray
        The DeLong variance of the AUC (NaN for the bootstrap).
    n_resamples : int
        Bootstrap resamples used (0 for DeLong).
    """

    estimate: Number
    low: Number
    high: Number
    level: float
    method: str
    se: Number
    variance: Number
    n_resamples: int = 0


@dataclass(frozen=True)
class Comparison:
    """A test of the difference of two AUCs, ``auc_a - auc_b``.

    Attributes
    ----------
    estimate : float or ndarray
        The difference ``auc_a - auc_b``.
    se : float or ndarray
        Its standard error.
    z : float or ndarray
        The test statistic ``estimate / se`` (normal for the paired test,
        Student t with ``df`` degrees of freedom for the unpaired one). Equal
        AUCs with no variance of the difference (identical predictors) give 0.
    p_value : float or ndarray
        Two-sided.
    low, high : float or ndarray
        The interval of the difference at ``level`` (not clipped).
    level : float
    auc_a, auc_b : float or ndarray
    df : float or ndarray
        ``inf`` for the paired test; Welch-Satterthwaite degrees of freedom for
        the unpaired one.
    method : str
        ``"delong paired"`` or ``"delong unpaired"``.
    """

    estimate: Number
    se: Number
    z: Number
    p_value: Number
    low: Number
    high: Number
    level: float
    auc_a: Number
    auc_b: Number
    df: Number
    method: str


def _scalar(x: Any) -> Any:
    return float(x) if np.ndim(x) == 0 else x


def _warn_few(few: np.ndarray | bool, total: int, what: str) -> None:
    count = int(np.count_nonzero(few))
    if count:
        where = "" if total == 1 else f" for {count} of {total} tasks"
        warnings.warn(
            f"{what} undefined{where}: it needs at least two positive and two negative "
            "samples; returning NaN",
            UndefinedMetricWarning, stacklevel=3,
        )


# -- DeLong -------------------------------------------------------------------------------


def _columns(y_true: Any, s: np.ndarray, pos_label: Any, name: str = "y_score") -> list[Task]:
    """One task per column of 2-D scores (2-D labels of the same shape), or one task."""
    if s.ndim == 1:
        return [inputs.task(y_true, s, None, pos_label, check=True)]
    return batch_tasks.split_batch(inputs.batch(y_true, s, None, pos_label, None, None))


def _pairs(y_true: Any, a: np.ndarray, b: np.ndarray | None, pos_label: Any
           ) -> list[delong.PairSums]:
    """DeLong sums of every column of one or two score matrices (columns in parallel)."""
    ta = _columns(y_true, a, pos_label)
    tb = None if b is None else _columns(y_true, b, pos_label)
    if not ta:  # no columns: nothing to sum (the callers' results are empty)
        return []
    n = ta[0].values.shape[0] * len(ta)
    nthreads = workers.threads() if n >= workers.PARALLEL_MIN else 1
    return workers.parallel_map(
        lambda j: delong.pair_sums(ta[j], None if tb is None else tb[j]),
        list(range(len(ta))), nthreads)


def _interval(estimate: Any, variance: Any, level: float) -> Interval:
    z = critical_value(level)
    se = np.sqrt(variance)
    low = np.clip(estimate - z * se, 0.0, 1.0)
    high = np.clip(estimate + z * se, 0.0, 1.0)
    return Interval(_scalar(estimate), _scalar(low), _scalar(high), level, "delong",
                    _scalar(se), _scalar(variance), 0)


def roc_auc_ci(
    y_true: Any,
    y_score: Any,
    *,
    method: str = "delong",
    level: float = 0.95,
    n_resamples: int = 2000,
    stratified: bool = True,
    seed: int | None = None,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> Interval:
    """ROC AUC with a confidence interval: DeLong's (default) or the bootstrap's.

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`fastrank.roc_auc`; 2-D ``(n_samples, n_tasks)`` input
        gives one interval per column.
    method : {"delong", "bootstrap"}
        DeLong: ``AUC -+ z * sqrt(var)`` with the DeLong variance (Sun & Xu's
        midrank form, ties counting half), bounds clipped to [0, 1] as pROC's
        ``ci.auc(method="delong")`` does. Bootstrap: :func:`bootstrap_ci`.
    level : float in (0, 1), default 0.95
    n_resamples, stratified, seed, sample_weight
        For the bootstrap (DeLong is defined for unweighted samples only).

    Returns
    -------
    Interval
        NaN variance and bounds, with one :class:`~fastrank.UndefinedMetricWarning`,
        for a task with fewer than two positives or two negatives.

    Examples
    --------
    >>> import fastrank
    >>> ci = fastrank.roc_auc_ci([0, 0, 1, 1, 0, 1, 1, 0], [.1, .4, .35, .8, .2, .9, .7, .5])
    >>> ci.estimate, round(ci.low, 4), round(ci.high, 4)
    (0.875, 0.5921, 1.0)
    """
    level = check_level(level)
    if method == "bootstrap":
        return bootstrap_ci(roc_auc, y_true, y_score, n_resamples=n_resamples, level=level,
                            stratified=stratified, seed=seed, sample_weight=sample_weight,
                            pos_label=pos_label)
    if method != "delong":
        raise ValueError(f"method must be 'delong' or 'bootstrap'; got {method!r}")
    s = as_array(y_score, "y_score")
    _refuse_weights(y_true, s, sample_weight, pos_label)
    if s.ndim == 2:
        sums = _pairs(y_true, s, None, pos_label)
        variance = np.array([p.variances()[0] for p in sums], np.float64)
        few = np.array([p.m < 2 or p.k < 2 for p in sums], bool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            estimate = np.asarray(roc_auc(y_true, s, average=None, pos_label=pos_label),
                                  dtype=np.float64)
        _warn_few(few, len(few), "the DeLong variance is")
        return _interval(estimate, variance, level)
    task = inputs.task(y_true, s, None, pos_label)
    table = tie_tables.task_table(task)
    one = delong.table_sums(table[1], table[2])
    req = registry.request("roc_auc", weighted=False)
    assert req.metric is not None
    out, _ = engine.table_metrics(table, req.max_fpr, req.what)
    auc = float(out[req.metric.column]) if out[OUT_POS] > 0 and out[OUT_NEG] > 0 else math.nan
    _warn_few(one.m < 2 or one.k < 2, 1, "the DeLong variance is")
    return _interval(auc, one.variance, level)


def _refuse_weights(y_true: Any, s: np.ndarray, sample_weight: Any, pos_label: Any) -> None:
    """DeLong is defined for unweighted samples: bad input first gets the message every
    function gives it, then weights are refused."""
    if sample_weight is None:
        return
    if s.ndim == 2:
        inputs.batch(y_true, s, sample_weight, pos_label, None, None)
    else:
        inputs.task(y_true, s, sample_weight, pos_label)
    raise ValueError("sample_weight is not supported by the DeLong method, which is "
                     "defined for unweighted samples; use method='bootstrap'")


def partial_roc_auc_ci(
    y_true: Any,
    y_score: Any,
    *,
    fpr: tuple[float, float] | None = None,
    tpr: tuple[float, float] | None = None,
    correct: bool = False,
    method: str = "delong",
    level: float = 0.95,
    n_resamples: int = 2000,
    stratified: bool = True,
    seed: int | None = None,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> Interval:
    """A partial ROC area with a confidence interval: DeLong-type (default) or bootstrap.

    Parameters
    ----------
    y_true, y_score, pos_label
        As in :func:`fastrank.roc_auc`; 2-D ``(n_samples, n_tasks)`` input
        gives one interval per column.
    fpr, tpr, correct
        The box and McClish's standardisation, as in
        :func:`fastrank.partial_roc_auc` (an FPR range, a TPR range, or both).
    method : {"delong", "bootstrap"}
        DeLong: ``area -+ z * se``, with DeLong's structural components carried
        over to the partial area (see Notes), the raw area's bounds clipped to
        ``[0, box area]`` (then standardised, with ``correct``). Bootstrap:
        :func:`bootstrap_ci` of ``partial_roc_auc``. With ``correct``, an area
        below chance is undefined (pROC's rule): such a task is NaN, and such
        resamples are left out of the bootstrap; near chance, the raw area's
        interval is the one to read.
    level : float in (0, 1), default 0.95
    n_resamples, stratified, seed, sample_weight
        For the bootstrap (the DeLong method is for unweighted samples only).

    Returns
    -------
    Interval
        ``estimate`` is exactly :func:`fastrank.partial_roc_auc`'s value. NaN
        variance and bounds, with one :class:`~fastrank.UndefinedMetricWarning`,
        for a task with fewer than two positives or two negatives.

    Notes
    -----
    The box's area equals the curve's area over the FPR band where the curve
    runs inside the box's TPR range (plus constants), and to first order it
    varies as that band's area with the band's ends held fixed (where the
    curve crosses a TPR edge its height is that edge, so moving the crossing
    changes nothing). Over a band ``[x1, x2]`` the area is the positives' mean
    of ``clip(x2 - U, 0, x2 - x1)``, ``U`` being a positive's FPR placement
    (the share of negatives above it, ties counting half): each positive's
    component is that term, and each negative's is minus the share of
    positives below it among those whose placement lies inside the band.
    The variance is ``S10 / m + S01 / n`` of those components, as in DeLong's
    method; over the full box it is DeLong's variance of the AUC. A box the
    curve does not cross gets variance 0: use the bootstrap there.

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1]
    >>> s = [.1, .4, .35, .8, .2, .9, .7, .5, .45, .3, .6, .55]
    >>> ci = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.5))      # raw area, FPR <= 0.5
    >>> round(ci.estimate, 6), round(ci.low, 4), round(ci.high, 4)
    (0.333333, 0.0948, 0.5)
    >>> ci = fastrank.partial_roc_auc_ci(y, s, fpr=(0, 0.2), correct=True)   # McClish
    >>> round(ci.estimate, 6), round(ci.low, 4), round(ci.high, 4)
    (0.737654, 0.4611, 1.0)
    """
    level = check_level(level)
    box_x = rate_range((0.0, 1.0) if fpr is None else fpr, "fpr")
    box_y = rate_range((0.0, 1.0) if tpr is None else tpr, "tpr")
    correct = check_flag(correct, "correct")
    if method == "bootstrap":
        return bootstrap_ci("partial_roc_auc", y_true, y_score, n_resamples=n_resamples,
                            level=level, stratified=stratified, seed=seed,
                            sample_weight=sample_weight, pos_label=pos_label,
                            metric_options={"fpr": box_x, "tpr": box_y, "correct": correct})
    if method != "delong":
        raise ValueError(f"method must be 'delong' or 'bootstrap'; got {method!r}")
    s = as_array(y_score, "y_score")
    _refuse_weights(y_true, s, sample_weight, pos_label)
    tasks = _columns(y_true, s, pos_label)
    diagonal, full = readouts.mcclish_scale(box_x, box_y)
    if correct and diagonal == full:
        raise ValueError("the box lies under the chance diagonal, which fills it: McClish's "
                         "standardisation is undefined there")
    z = critical_value(level)

    below: list[bool] = []

    def one(t: Task) -> tuple[float, float, float, float, bool]:
        """(raw area, its variance, low, high) of one task, and whether it is too small."""
        gpos, gneg, _ = tie_table(t, runs=True)  # the table partial_roc_auc reads
        fps, tps = np.cumsum(gneg), np.cumsum(gpos)
        m, k = float(tps[-1]), float(fps[-1])
        if m == 0 or k == 0:
            return math.nan, math.nan, math.nan, math.nan, True
        box = {"box_x": box_x, "box_y": box_y, "correct": correct}
        if readouts.table_readout("partial_roc_auc", box, fps, tps, gpos) == \
                readouts.BELOW_CHANCE:
            below.append(True)  # pROC's rule: no standardised area below chance
            return math.nan, math.nan, math.nan, math.nan, False
        area = readouts.table_readout("partial_roc_auc", {**box, "correct": False}, fps, tps,
                                      gpos)
        assert isinstance(area, float)  # both classes: a value
        x1, x2, closed = readouts.roc_band(fps, tps, box_x, box_y)
        var = delong.band_sums(gpos, gneg, x1, x2, closed).variance
        se = math.sqrt(var) if var == var else math.nan
        return (area, var, min(max(area - z * se, 0.0), full), min(max(area + z * se, 0.0), full),
                m < 2 or k < 2)

    size = sum(t.values.shape[0] for t in tasks)
    nthreads = workers.threads() if len(tasks) > 1 and size >= workers.PARALLEL_MIN else 1
    rows = np.array(workers.parallel_map(one, tasks, nthreads), np.float64).reshape(-1, 5)
    area, var, low, high, few = rows[0] if s.ndim == 1 else rows.T
    _warn_few(few.astype(bool), len(tasks), "the DeLong variance is")
    if below:
        where = "" if len(tasks) == 1 else f" for {len(below)} of {len(tasks)} tasks"
        warnings.warn(f"{readouts.BELOW_CHANCE}{where}; returning NaN", UndefinedMetricWarning,
                      stacklevel=2)
    if correct:  # a linear map: the standard error scales with it
        scale = 0.5 / (full - diagonal)
        area, low, high = (0.5 * (1.0 + (v - diagonal) / (full - diagonal))
                           for v in (area, low, high))
        var = var * scale * scale
    return Interval(_scalar(area), _scalar(low), _scalar(high), level, "delong",
                    _scalar(np.sqrt(var)), _scalar(var), 0)


def delong_covariance(y_true: Any, y_scores: Any, *, pos_label: Any = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The AUCs of several models on the same samples and their DeLong covariance.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_scores : array of shape (n_samples, n_models), or a list of score vectors

    Returns
    -------
    aucs : ndarray of shape (n_models,)
        Each model's :func:`fastrank.roc_auc`.
    cov : ndarray of shape (n_models, n_models)
        ``S10 / m + S01 / n`` from the placements; the diagonal holds each
        model's DeLong variance. NaN with fewer than two samples of a class.

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 0, 1, 1, 0, 1, 1, 0]
    >>> a = [.1, .4, .35, .8, .2, .9, .7, .5]
    >>> b = [.2, .1, .6, .7, .3, .4, .8, .5]
    >>> aucs, cov = fastrank.delong_covariance(y, [a, b])
    >>> aucs.tolist(), cov.shape, bool(cov[0, 1] == cov[1, 0])
    ([0.875, 0.9375], (2, 2), True)
    """
    if isinstance(y_scores, list | tuple):
        columns = [as_array(s, "y_scores") for s in y_scores]
    else:
        matrix = as_array(y_scores, "y_scores")
        if matrix.ndim != 2:
            raise ValueError(f"y_scores must be 2-D (n_samples, n_models) or a list of score "
                             f"vectors; got shape {matrix.shape}")
        columns = [matrix[:, j] for j in range(matrix.shape[1])]
    if not columns:
        raise ValueError("y_scores holds no models")
    tasks = [inputs.task(y_true, s, None, pos_label, check=True) for s in columns]
    n = tasks[0].values.shape[0]
    if any(t.values.shape[0] != n for t in tasks):
        raise ValueError("every model in y_scores must score the same samples")
    labels = tasks[0].labels
    m = float(tasks[0].npos)
    k = float(n - m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        aucs = np.array([float(roc_auc(y_true, c, pos_label=pos_label)) for c in columns])  # type: ignore[arg-type]
    if m < 2 or k < 2:
        _warn_few(True, 1, "the DeLong covariance is")
        return aucs, np.full((len(tasks), len(tasks)), np.nan)
    v = np.array(workers.parallel_map(delong.placements, tasks,
                                     workers.threads() if n * len(tasks) >= workers.PARALLEL_MIN
                                     else 1))
    is_pos = labels.astype(bool)
    x = v[:, is_pos]
    y = v[:, ~is_pos]
    theta = x.mean(axis=1, keepdims=True)
    dx = x - theta
    dy = y - theta
    cov = gram(dx) / (m - 1) / m + gram(dy) / (k - 1) / k
    return aucs, cov


def _compare(d: Any, var_diff: Any, level: float, auc_a: Any, auc_b: Any, df: Any,
             method: str) -> Comparison:
    se = np.sqrt(np.maximum(var_diff, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((np.asarray(d) == 0) & (se == 0), 0.0, np.asarray(d) / se)
    df_arr = np.broadcast_to(np.asarray(df, dtype=np.float64), np.shape(z))
    p = np.array([two_sided_p(float(zi), float(dfi))
                  for zi, dfi in zip(np.ravel(z), np.ravel(df_arr), strict=True)])
    crit = np.array([critical_value(level, float(dfi)) if dfi > 0 else math.nan
                     for dfi in np.ravel(df_arr)])
    p = p.reshape(np.shape(z))
    crit = crit.reshape(np.shape(z))
    return Comparison(
        estimate=_scalar(d), se=_scalar(se), z=_scalar(z), p_value=_scalar(p),
        low=_scalar(d - crit * se), high=_scalar(d + crit * se), level=level,
        auc_a=_scalar(auc_a), auc_b=_scalar(auc_b), df=_scalar(df), method=method,
    )


def delong_test(
    y_true: Any, score_a: Any, score_b: Any, *, level: float = 0.95, pos_label: Any = None
) -> Comparison:
    """DeLong's paired test of two correlated AUCs (two models, same samples).

    The difference ``d = AUC_a - AUC_b``, its standard error from the DeLong
    covariance, ``z = d / se``, the two-sided normal p-value and the ``level``
    interval ``d -+ z_crit * se``, as pROC's ``roc.test(method="delong",
    paired=TRUE)``. Identical predictors give ``z = 0`` and ``p = 1``. With 2-D
    scores ``(n_samples, n_tasks)`` (and labels), one test per column, run in
    parallel.

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 0, 1, 1, 0, 1, 1, 0, 1, 0]
    >>> a = [.1, .4, .35, .8, .2, .9, .7, .5, .6, .3]
    >>> b = [.2, .1, .6, .7, .3, .4, .8, .5, .9, .6]
    >>> t = fastrank.delong_test(y, a, b)
    >>> round(t.estimate, 4), round(t.z, 4), round(t.p_value, 4)
    (0.02, 0.1459, 0.884)
    """
    level = check_level(level)
    a = as_array(score_a, "score_a")
    b = as_array(score_b, "score_b")
    if a.shape != b.shape:
        raise ValueError(f"score_a and score_b must have the same shape; got {a.shape} "
                         f"and {b.shape}")
    sums = _pairs(y_true, a, b, pos_label)
    # The AUCs as the mean placements (pROC's theta), rounded once from their exact
    # sum: the floats roc_auc returns, and the same number for identical predictors.
    auc_a = np.array([p.theta_a for p in sums])
    auc_b = np.array([p.theta_b for p in sums])
    var = np.array([p.variances() for p in sums]).reshape(len(sums), 3)  # (no columns: 0 x 3)
    few = np.array([p.m < 2 or p.k < 2 for p in sums], bool)
    _warn_few(few, len(few), "the DeLong test is")
    d = auc_a - auc_b
    result = _compare(d, var[:, 0] + var[:, 1] - 2.0 * var[:, 2], level, auc_a, auc_b,
                      np.full(d.shape, math.inf), "delong paired")
    if a.ndim == 1:
        first = {f: (float(v[0]) if isinstance(v, np.ndarray) else v)
                 for f, v in result.__dict__.items()}
        return Comparison(**first)  # type: ignore[arg-type]
    return result


def delong_test_unpaired(
    y_true_a: Any, score_a: Any, y_true_b: Any, score_b: Any, *, level: float = 0.95,
    pos_label: Any = None,
) -> Comparison:
    """Compare two AUCs measured on different samples (pROC's unpaired DeLong test).

    ``z = (AUC_a - AUC_b) / sqrt(var_a + var_b)`` with each DeLong variance,
    referred to Student's t with Welch-Satterthwaite degrees of freedom
    ``(var_a + var_b)**2 / (var_a**2 / (N_a - 1) + var_b**2 / (N_b - 1))``
    (``N`` the sample sizes).

    Examples
    --------
    >>> import fastrank
    >>> t = fastrank.delong_test_unpaired([0, 1, 0, 1, 1, 0], [.2, .8, .3, .6, .4, .5],
    ...                                   [1, 0, 0, 1, 0, 1], [.9, .1, .3, .5, .6, .7])
    >>> round(t.estimate, 4), round(t.p_value, 4)
    (0.0, 1.0)
    """
    level = check_level(level)
    results = []
    for y, sc in ((y_true_a, score_a), (y_true_b, score_b)):
        t = inputs.task(y, sc, None, pos_label)
        table = tie_tables.task_table(t)
        sums = delong.table_sums(table[1], table[2])
        req = registry.request("roc_auc", weighted=False)
        assert req.metric is not None
        out, _ = engine.table_metrics(table, req.max_fpr, req.what)
        auc = float(out[req.metric.column]) if sums.m > 0 and sums.k > 0 else math.nan
        results.append((auc, sums.variance, sums.m, sums.k))
    (auc_a, var_a, ma, ka), (auc_b, var_b, mb, kb) = results
    _warn_few(np.array([min(ma, ka) < 2 or min(mb, kb) < 2]), 1, "the unpaired DeLong test is")
    total = var_a + var_b
    # Welch-Satterthwaite's df, in numpy's floats: Python's raise ZeroDivisionError
    # where both variances are 0 (perfectly separated or all tied samples); where
    # their squares underflow (variances near 1e-200), on the variances over the
    # larger one
    va, vb = np.float64(var_a), np.float64(var_b)
    with np.errstate(all="ignore"):
        df = float(total * total / (va * va / (ma + ka - 1) + vb * vb / (mb + kb - 1)))
        top = max(va, vb)
        if not df > 0 and top > 0:
            a, b = va / top, vb / top
            df = float((a + b) ** 2 / (a * a / (ma + ka - 1) + b * b / (mb + kb - 1)))
    if not df > 0:
        df = math.inf if total == 0 else math.nan
    return _compare(auc_a - auc_b, total, level, auc_a, auc_b, df, "delong unpaired")


# -- bootstrap --------------------------------------------------------------------------------

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "average_precision": average_precision,
    "roc_auc": roc_auc,
    "pr_auc": pr_auc,
    "prbe": prbe,
    "d_prime": d_prime,
}
# name -> (function, OUT_* column), as the registry describes each metric
_METRICS: dict[str, tuple[Callable[..., Any], int]] = {
    name: (func, registry.METRICS[name].column) for name, func in _FUNCTIONS.items()
}


def _metric(metric: Any) -> tuple[str, Callable[..., Any], int]:
    for name, (func, column) in _METRICS.items():
        if metric == name or metric is func:
            return name, func, column
    raise ValueError(f"bootstrap_ci supports the metrics {sorted(_METRICS)} (as names or "
                     f"the fastrank functions); got {metric!r}")


def _readout_function(name: str) -> Callable[..., Any]:
    return getattr(readouts, name)  # type: ignore[no-any-return]


def _readout_name(metric: Any) -> str | None:
    """The readout ``metric`` names (by name or function), or None."""
    for name in readouts.BOOTSTRAP_READOUTS:
        if metric == name or (callable(metric) and metric is _readout_function(name)):
            return name
    return None


def _resample_readout(task: Task, name: str, options: dict[str, Any], n_resamples: int,
                      stratified: bool, seed: int) -> np.ndarray:
    """A readout on every resample of one task (NaN where undefined).

    The scores are sorted once (the tie groups); each resample's draws are
    counted into the groups, whose cumulative counts the readout reads. Resample
    ``r`` draws from numpy's PCG64 seeded with ``(seed, r)``, so a seed gives the
    same values however the resamples are run.
    """
    gid, gkey, _, _ = tie_tables.group_index(task)
    thresholds = np.asarray(codec.decode(gkey, task.values.dtype, task.dtype), np.float64)
    ngroups = gkey.shape[0]
    labels = task.labels.astype(bool)
    pos_rows, neg_rows = np.flatnonzero(labels), np.flatnonzero(~labels)
    n = labels.shape[0]
    w = task.weights
    opts = readouts.check_options(name, options)
    values = np.empty(n_resamples, np.float64)
    for r in range(n_resamples):
        rng = np.random.default_rng([seed, r])
        if stratified:
            dp = pos_rows[rng.integers(0, pos_rows.shape[0], pos_rows.shape[0])]
            dn = neg_rows[rng.integers(0, neg_rows.shape[0], neg_rows.shape[0])]
        else:
            drawn = np.asarray(rng.integers(0, n, n), dtype=np.intp)
            dp, dn = drawn[labels[drawn]], drawn[~labels[drawn]]
        gp = np.bincount(gid[dp], None if w is None else w[dp], ngroups).astype(np.float64)
        gn = np.bincount(gid[dn], None if w is None else w[dn], ngroups).astype(np.float64)
        if task.shift:  # classes in units of their own: the caller's units (exact)
            gp, gn = task.in_caller_units(gp, gn)
        values[r] = readouts.table_value(name, opts, np.cumsum(gn), np.cumsum(gp), thresholds)
    return values


def _resample_values(task: Task, column: int, name: str, n_resamples: int, stratified: bool,
                     seed: int, progress: bool) -> np.ndarray:
    """The metric of every resample of one task (NaN where undefined)."""
    metric = registry.METRICS[name]
    n = task.values.shape[0]
    gid, gkey, _, _ = tie_tables.group_index(task)
    is_pos = task.labels.astype(bool)
    pos_gid = np.ascontiguousarray(gid[is_pos])
    neg_gid = np.ascontiguousarray(gid[~is_pos])
    weighted = task.weights is not None
    weights: np.ndarray = task.weights if task.weights is not None else np.empty(0)
    pos_w = weights[is_pos] if weighted else weights
    neg_w = weights[~is_pos] if weighted else weights
    pos_bound = neg_bound = 0.0
    if weighted:  # a resample draws each class at most this many times
        pos_draws, neg_draws = (pos_w.shape[0], neg_w.shape[0]) if stratified else (n, n)
        pos_bound = float(pos_w.max()) * pos_draws if pos_w.shape[0] else 0.0
        neg_bound = float(neg_w.max()) * neg_draws if neg_w.shape[0] else 0.0
    codes = (gid << 1) | task.labels
    out = np.empty((n_resamples, OUT_SIZE), np.float64)
    nthreads = workers.threads() if n_resamples * n >= workers.PARALLEL_MIN else 1
    nchunks = max(20 if progress and n_resamples >= 20 else 1, min(n_resamples, 4 * nthreads))
    bounds = np.linspace(0, n_resamples, nchunks + 1).astype(np.int64)
    ro = inputs.readonly
    args = (ro(gkey.astype(np.uint64)), int(gkey.shape[0]), ro(pos_gid), ro(neg_gid), ro(pos_w),
            ro(neg_w), ro(codes.astype(np.int64)), ro(weights), weighted, stratified,
            np.uint64(seed))
    done = [0]

    def chunk(c: int) -> None:
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        resample_sweeps(*args, lo, metric.wants, hi - lo, pos_bound, neg_bound, task.shift,
                        out[lo:hi])
        if progress:
            done[0] += hi - lo
            print(f"\rfastrank: bootstrap {done[0]:,}/{n_resamples:,} resamples", end="",
                  file=sys.stderr, flush=True)

    if not progress and first_calls.resamples_by_numpy(weighted, n_resamples * n):
        first_calls.resample_rows(int(gkey.shape[0]), pos_gid, neg_gid, codes.astype(np.int64),
                                  stratified, seed, metric.wants, out)  # a first call
    else:
        workers.parallel_map(chunk, list(range(nchunks)), nthreads)
    if progress:
        print(file=sys.stderr, flush=True)
    values = metric.values(out)
    values[metric.undefined(out[:, OUT_POS], out[:, OUT_NEG])] = np.nan
    return values


def bootstrap_ci(
    metric: Any,
    y_true: Any,
    y_score: Any,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
    stratified: bool = True,
    seed: int | None = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    progress: bool = False,
    metric_options: dict[str, Any] | None = None,
) -> Interval:
    """Percentile bootstrap interval of any fastrank metric.

    Parameters
    ----------
    metric : str or function
        ``average_precision``, ``roc_auc``, ``pr_auc``, ``prbe`` or
        ``d_prime`` (the function or its name); or a readout of
        :mod:`fastrank.readouts`: ``partial_roc_auc``, ``partial_pr_auc``, or
        an operating point (``sensitivity_at_specificity``,
        ``specificity_at_sensitivity``, ``recall_at_precision``,
        ``precision_at_recall``: the interval of its rate), or ``best_cutoff``
        (of the best criterion's value), with its keywords in
        ``metric_options``.
    y_true, y_score, sample_weight, pos_label
        As in the metric; 2-D ``(n_samples, n_tasks)`` input gives one interval
        per column.
    n_resamples : int, default 1000
    level : float in (0, 1), default 0.95
    stratified : bool, default True
        Resample the positives and the negatives separately, keeping the class
        counts (so every resample has both classes).
    seed : int, optional
        From 0 to 2**64 - 1 (the resamples' 64-bit streams). Equal seeds give equal
        intervals, whatever the number of threads.
    progress : bool, default False
        Report progress on stderr.
    metric_options : dict, optional
        A readout's keywords, e.g. ``{"min_specificity": 0.95}`` or
        ``{"fpr": (0, 0.1), "correct": True}`` (pROC's ``ci.se``, ``ci.sp``,
        ``ci.coords`` and partial-AUC intervals).

    Returns
    -------
    Interval
        ``estimate`` is the metric on the data; ``low``/``high`` the
        percentiles ``(1 -+ level) / 2`` of the resampled values (linear
        interpolation, as ``numpy.percentile``; next to an infinite value, as
        d' of a perfectly separated resample, that infinity); ``se`` their
        standard deviation (infinite where they hold infinities that differ).
        Resamples where the metric is undefined are left out with one
        :class:`~fastrank.UndefinedMetricWarning`.

    Notes
    -----
    The scores are sorted once. Each resample draws its samples with a
    counter-based generator (SplitMix64, one stream per resample), counts them
    into the tie groups and sweeps those: its metric is exactly the metric of
    the resampled data. Resamples run in parallel on Numba's threads.

    Examples
    --------
    >>> import fastrank
    >>> y = [0, 0, 1, 1, 0, 1, 1, 0, 1, 0]
    >>> s = [.1, .4, .35, .8, .2, .9, .7, .5, .6, .3]
    >>> ci = fastrank.bootstrap_ci("average_precision", y, s, n_resamples=500, seed=7)
    >>> ci.estimate == fastrank.average_precision(y, s), ci.low <= ci.high, ci.n_resamples
    (True, True, 500)
    >>> se = fastrank.bootstrap_ci("sensitivity_at_specificity", y, s, n_resamples=500, seed=7,
    ...                            metric_options={"min_specificity": 0.8})
    >>> se.estimate, se.low <= se.estimate <= se.high
    (0.8, True)
    """
    readout = _readout_name(metric)
    if readout is None:
        if metric_options:
            raise TypeError("metric_options are the keywords of a readout "
                            f"({', '.join(readouts.BOOTSTRAP_READOUTS)}); {metric!r} takes none")
        name, func, column = _metric(metric)
    else:
        name, func, column = readout, _readout_function(readout), -1
        if metric_options is not None and not isinstance(metric_options, dict):
            raise TypeError(f"metric_options must be a dict; got {metric_options!r}")
    n_resamples = check_count(n_resamples, "n_resamples", item_bytes=8 * OUT_SIZE)  # a row each
    level = check_level(level)
    seed = check_seed(seed, below=1 << 64)  # (the resamples' 64-bit streams)
    s = as_array(y_score, "y_score")
    if s.ndim == 2:
        y = as_array(y_true, "y_true")
        if y.shape != s.shape:
            raise ValueError(f"2-D y_score needs y_true of the same shape; got {y.shape} "
                             f"and {s.shape}")
        results = [bootstrap_ci(func, y[:, j], s[:, j], n_resamples=n_resamples, level=level,
                                stratified=stratified, seed=seed, sample_weight=sample_weight,
                                pos_label=pos_label, progress=progress,
                                metric_options=metric_options)
                   for j in range(s.shape[1])]

        def stack(field: str) -> np.ndarray:
            return np.array([getattr(r, field) for r in results], dtype=np.float64)

        return Interval(stack("estimate"), stack("low"), stack("high"), level, "bootstrap",
                        stack("se"), stack("variance"), n_resamples)
    task = inputs.task(y_true, s, sample_weight, pos_label, check=True)
    options = dict(metric_options or {})
    if readout is not None:
        readouts.check_options(readout, options)  # a wrong option names the readout's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = func(y_true, s, sample_weight=sample_weight, pos_label=pos_label, **options)
    estimate = float(value[0] if isinstance(value, tuple) else value)  # an OperatingPoint
    if readout is None:
        values = _resample_values(task, column, name, n_resamples, stratified, seed, progress)
    else:
        values = _resample_readout(task, name, options, n_resamples, stratified, seed)
    ok = ~np.isnan(values)
    left_out = n_resamples - int(np.count_nonzero(ok))
    if left_out:
        why = "a class is missing"
        if name == "partial_roc_auc" and options.get("correct"):
            why += ", or the standardised area is below chance"
        warnings.warn(
            f"{name} is undefined on {left_out} of {n_resamples} resamples ({why}); they "
            "are left out of the interval", UndefinedMetricWarning, stacklevel=2,
        )
    kept = values[ok]
    if kept.shape[0] == 0:
        low = high = se = math.nan
    else:
        low, high = _percentiles(kept, (50 * (1 - level), 50 * (1 + level)))
        if kept.shape[0] < 2:
            se = math.nan
        elif bool(np.isfinite(kept).all()):
            se = float(np.std(kept, ddof=1))
        else:  # infinite values (d' of a separated resample): no finite spread
            se = 0.0 if bool((kept == kept[0]).all()) else math.inf
    return Interval(estimate, low, high, level, "bootstrap", se, math.nan, n_resamples)


def _percentiles(values: np.ndarray, qs: tuple[float, float]) -> tuple[float, float]:
    """``numpy.percentile``'s linear interpolation, where an infinite value (d' of a
    perfectly separated resample) is a limit, not ``inf - inf``: between two equal
    values it is that value, next to an infinity that infinity (numpy gives NaN)."""
    if bool(np.isfinite(values).all()):
        low, high = np.percentile(values, list(qs))
        return float(low), float(high)
    x = np.sort(values)
    out = []
    for q in qs:
        h = (x.shape[0] - 1) * q / 100
        i = min(math.floor(h), x.shape[0] - 1)
        a, b, f = float(x[i]), float(x[min(i + 1, x.shape[0] - 1)]), h - math.floor(h)
        if a == b or f == 0.0 or math.isinf(a):
            out.append(a)
        elif math.isinf(b):
            out.append(b)
        else:
            out.append(a + (b - a) * f)
    return out[0], out[1]

