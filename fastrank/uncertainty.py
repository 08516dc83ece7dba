"""How sure is the number: DeLong intervals and tests for ROC AUC, bootstrap for any metric.

DeLong's method (as pROC implements it) estimates the variance of an AUC from
the placements of each sample: the share of the other class it outranks, ties
counting half. For one task every sample of a tie group has the same
placement, so the variance comes from the same sort as the AUC
(:func:`fastrank._kernels.delong.delong_task`). Comparing models on the same
samples needs the placements sample by sample, computed for every column of a
batch in parallel (:func:`fastrank._kernels.delong.delong_pairs`).

The bootstrap resamples the samples (by default within each class), sorting
only once: a resample changes how often each sample counts, not the order of
the scores (:mod:`fastrank._kernels.bootstrap`).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from ._kernels.batch import LAB_SAME, SAMPLE_MAJOR
from ._kernels.bootstrap import group_ids, resample_sweeps, resample_sweeps_serial
from ._kernels.delong import (
    BLOCK,
    DL_S01,
    DL_S10,
    DL_SIZE,
    DP_NEG,
    DP_POS,
    DP_S01_AA,
    DP_S01_AB,
    DP_S01_BB,
    DP_S10_AA,
    DP_S10_AB,
    DP_S10_BB,
    DP_SIZE,
    DP_THETA_A,
    DP_THETA_B,
    delong_pairs,
    delong_pairs_serial,
    delong_task,
    placement_scratch,
    placements,
)
from ._kernels.sort import HIST_SHAPE
from ._kernels.sweep import (
    OUT_AP,
    OUT_AUC,
    OUT_PR_AUC,
    OUT_PRBE,
    OUT_SIZE,
    WANT_PR_AUC,
)
from ._kernels.task import work_bytes
from ._validation import Task, as_array, prepare
from ._workspace import scratch
from .batch import Batch, d_prime_of, dense_labels, pool_slot, prepare_batch
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


def _delong_one(task: Task) -> tuple[float, float, float, float]:
    """(AUC, DeLong variance, positives, negatives) of one validated task."""
    n = task.bits.shape[0]
    out = np.full(DL_SIZE, np.nan)
    mout = np.full(OUT_SIZE, np.nan)
    if 0 < task.npos < n:
        work = scratch(work_bytes(n, task.bits.itemsize, False))
        delong_task(task.bits, task.kind, task.sign, task.ones, task.labels, task.npos, work,
                    out, mout)
    m, k = float(task.npos), float(n - task.npos)
    variance = math.nan
    if m >= 2 and k >= 2:
        variance = out[DL_S10] / (m - 1) / m + out[DL_S01] / (k - 1) / k
    return float(mout[OUT_AUC]), variance, m, k


def _columns(b: Batch) -> tuple[np.ndarray, np.ndarray]:
    """(n, t) views of a batch's score bits and of its 0/1 labels."""
    if b.layout == SAMPLE_MAJOR:
        bits = b.bits.reshape(b.n, b.t)
    else:
        bits = b.bits.reshape(b.t, b.n).T
    if b.lab_mode != LAB_SAME:
        return bits, dense_labels(b).T
    if b.layout == SAMPLE_MAJOR:
        return bits, b.labels.reshape(b.n, b.t)
    return bits, b.labels.reshape(b.t, b.n).T


def _pairs(y_true: Any, a: np.ndarray, b: np.ndarray | None, pos_label: Any) -> np.ndarray:
    """DeLong sums (``DP_*`` rows) of every column of one or two score matrices.

    1-D scores are one column, validated as the single-task functions do.
    """
    if a.ndim == 1:
        ta = prepare(y_true, a, None, pos_label)
        tb = ta if b is None else prepare(y_true, b, None, pos_label)
        n = ta.bits.shape[0]
        return _run_pairs(ta.bits.reshape(n, 1), ta, tb.bits.reshape(n, 1), tb,
                          b is not None, ta.labels.reshape(n, 1), n, 1)
    ba = prepare_batch(y_true, a, None, pos_label, None, None)
    bits_a, labels = _columns(ba)
    bits_b, kb = bits_a, ba
    if b is not None:
        kb = prepare_batch(y_true, b, None, pos_label, None, None)
        bits_b, _ = _columns(kb)
    return _run_pairs(bits_a, ba, bits_b, kb, b is not None, labels, ba.n, ba.t)


def _run_pairs(bits_a: np.ndarray, ka: Any, bits_b: np.ndarray, kb: Any, two: bool,
               labels: np.ndarray, n: int, t: int) -> np.ndarray:
    out = np.empty((t, DP_SIZE), np.float64)
    if t:
        nworkers = min(numba.get_num_threads(), -(-t // BLOCK))
        with pool_slot(nworkers, n * t) as parallel:
            if parallel:
                delong_pairs(bits_a, ka.kind, ka.sign, ka.ones, bits_b, kb.kind, kb.sign,
                             kb.ones, two, labels, nworkers, out)
            else:
                delong_pairs_serial(bits_a, ka.kind, ka.sign, ka.ones, bits_b, kb.kind,
                                    kb.sign, kb.ones, two, labels, 1, out)
    return out


def _variance(sums: np.ndarray, s10: int, s01: int) -> np.ndarray:
    m, k = sums[:, DP_POS], sums[:, DP_NEG]
    with np.errstate(divide="ignore", invalid="ignore"):
        v = sums[:, s10] / (m - 1) / m + sums[:, s01] / (k - 1) / k
    v[(m < 2) | (k < 2)] = np.nan
    result: np.ndarray = v
    return result


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
    if sample_weight is not None:
        # Bad input first gets the message every function gives it.
        if s.ndim == 2:
            prepare_batch(y_true, s, sample_weight, pos_label, None, None)
        else:
            prepare(y_true, s, sample_weight, pos_label)
        raise ValueError("sample_weight is not supported by the DeLong method, which is "
                         "defined for unweighted samples; use method='bootstrap'")
    if s.ndim == 2:
        sums = _pairs(y_true, s, None, pos_label)
        variance = _variance(sums, DP_S10_AA, DP_S01_AA)
        few = (sums[:, DP_POS] < 2) | (sums[:, DP_NEG] < 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            estimate = np.asarray(roc_auc(y_true, s, average=None, pos_label=pos_label),
                                  dtype=np.float64)
        _warn_few(few, len(few), "the DeLong variance is")
        return _interval(estimate, variance, level)
    task = prepare(y_true, s, None, pos_label)
    auc, var, m, k = _delong_one(task)
    _warn_few(m < 2 or k < 2, 1, "the DeLong variance is")
    return _interval(auc, var, level)


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
    tasks = [prepare(y_true, s, None, pos_label) for s in columns]
    n = tasks[0].bits.shape[0]
    v = np.empty((len(tasks), n), np.float64)
    aucs = np.empty(len(tasks), np.float64)
    labels = tasks[0].labels
    npos = tasks[0].npos
    m = float(npos)
    k = float(n - npos)
    work = placement_scratch(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for j, task in enumerate(tasks):
            aucs[j] = float(roc_auc(y_true, columns[j], pos_label=pos_label))  # type: ignore[arg-type]
            if m > 0 and k > 0:
                placements(task.bits, task.kind, task.sign, task.ones, labels, v[j], *work)
    if m < 2 or k < 2:
        _warn_few(True, 1, "the DeLong covariance is")
        return aucs, np.full((len(tasks), len(tasks)), np.nan)
    is_pos = labels.astype(bool)
    x = v[:, is_pos]
    y = v[:, ~is_pos]
    theta = x.mean(axis=1, keepdims=True)
    dx = x - theta
    dy = y - theta
    cov = (dx @ dx.T) / (m - 1) / m + (dy @ dy.T) / (k - 1) / k
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
    # The AUCs as the mean placements (pROC's theta): roc_auc up to rounding
    # (about 1e-16), and the same number for identical predictors.
    auc_a = sums[:, DP_THETA_A]
    auc_b = sums[:, DP_THETA_B]
    var_a = _variance(sums, DP_S10_AA, DP_S01_AA)
    var_b = _variance(sums, DP_S10_BB, DP_S01_BB)
    cov_ab = _variance(sums, DP_S10_AB, DP_S01_AB)
    few = (sums[:, DP_POS] < 2) | (sums[:, DP_NEG] < 2)
    _warn_few(few, len(few), "the DeLong test is")
    d = auc_a - auc_b
    result = _compare(d, var_a + var_b - 2.0 * cov_ab, level, auc_a, auc_b,
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
    ta = prepare(y_true_a, score_a, None, pos_label)
    tb = prepare(y_true_b, score_b, None, pos_label)
    auc_a, var_a, ma, ka = _delong_one(ta)
    auc_b, var_b, mb, kb = _delong_one(tb)
    _warn_few(np.array([min(ma, ka) < 2 or min(mb, kb) < 2]), 1, "the unpaired DeLong test is")
    total = var_a + var_b
    with np.errstate(divide="ignore", invalid="ignore"):
        df = total * total / (var_a * var_a / (ma + ka - 1) + var_b * var_b / (mb + kb - 1))
    if not df > 0:
        df = math.inf if total == 0 else math.nan
    return _compare(auc_a - auc_b, total, level, auc_a, auc_b, df, "delong unpaired")


# -- bootstrap --------------------------------------------------------------------------------

_METRICS: dict[str, tuple[Callable[..., Any], int]] = {
    "average_precision": (average_precision, OUT_AP),
    "roc_auc": (roc_auc, OUT_AUC),
    "pr_auc": (pr_auc, OUT_PR_AUC),
    "prbe": (prbe, OUT_PRBE),
    "d_prime": (d_prime, OUT_AUC),
}


def _metric(metric: Any) -> tuple[str, Callable[..., Any], int]:
    for name, (func, column) in _METRICS.items():
        if metric == name or metric is func:
            return name, func, column
    raise ValueError(f"bootstrap_ci supports the metrics {sorted(_METRICS)} (as names or "
                     f"the fastrank functions); got {metric!r}")


def _check_resamples(n_resamples: Any) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be a positive int; got {n_resamples!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive; got {n_resamples}")
    return int(n_resamples)


def _resample_values(task: Task, column: int, name: str, n_resamples: int, stratified: bool,
                     seed: int, progress: bool) -> np.ndarray:
    """The metric of every resample of one task (NaN where undefined)."""
    n = task.bits.shape[0]
    wide = task.bits.itemsize == 8
    keys = np.empty(n, np.uint64 if wide else np.uint32)
    kbuf = np.empty_like(keys)
    rows = np.empty(n, np.int32)
    rbuf = np.empty(n, np.int32)
    hist = np.empty(HIST_SHAPE, np.int64)
    gid = np.empty(n, np.int32)
    gkey = np.empty(n, keys.dtype)
    ngroups = group_ids(task.bits, task.kind, task.sign, task.ones, keys, kbuf, rows, rbuf,
                        hist, gid, gkey)
    is_pos = task.labels.astype(bool)
    pos_gid = gid[is_pos]
    neg_gid = gid[~is_pos]
    weights = task.weights  # in the engine's exact units, as every weighted metric
    pos_w = neg_w = None
    if weights is not None:
        pos_w, neg_w = weights[is_pos], weights[~is_pos]
    codes = (gid.astype(np.int64) << 1) | task.labels
    proto = np.empty(0, np.int32 if weights is None else np.float64)
    what = WANT_PR_AUC if column == OUT_PR_AUC else 0
    out = np.empty((n_resamples, OUT_SIZE), np.float64)
    chunks = 20 if progress and n_resamples >= 20 else 1
    bounds = np.linspace(0, n_resamples, chunks + 1).astype(np.int64)
    for c in range(chunks):
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        nworkers = min(numba.get_num_threads(), hi - lo)
        with pool_slot(nworkers, (hi - lo) * n) as parallel:
            args = (gkey, ngroups, pos_gid, neg_gid, pos_w, neg_w, codes, weights, stratified,
                    np.uint64(seed), lo, what)
            if parallel:
                resample_sweeps(*args, nworkers, out[lo:hi], proto)
            else:
                resample_sweeps_serial(*args, 1, out[lo:hi], proto)
        if progress:
            print(f"\rfastrank: bootstrap {hi:,}/{n_resamples:,} resamples", end="",
                  file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr, flush=True)
    values = out[:, column].copy()
    if name != "prbe" and name != "average_precision" and name != "pr_auc":
        undefined = (out[:, 0] == 0) | (out[:, 1] == 0)  # a class missing
    else:
        undefined = out[:, 0] == 0
    values[undefined] = np.nan
    if name == "d_prime":
        values = d_prime_of(values)
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
) -> Interval:
    """Percentile bootstrap interval of any fastrank metric.

    Parameters
    ----------
    metric : str or function
        ``average_precision``, ``roc_auc``, ``pr_auc``, ``prbe`` or
        ``d_prime`` (the function or its name).
    y_true, y_score, sample_weight, pos_label
        As in the metric; 2-D ``(n_samples, n_tasks)`` input gives one interval
        per column.
    n_resamples : int, default 1000
    level : float in (0, 1), default 0.95
    stratified : bool, default True
        Resample the positives and the negatives separately, keeping the class
        counts (so every resample has both classes).
    seed : int, optional
        Equal seeds give equal intervals, whatever the number of threads.
    progress : bool, default False
        Report progress on stderr.

    Returns
    -------
    Interval
        ``estimate`` is the metric on the data; ``low``/``high`` the
        percentiles ``(1 -+ level) / 2`` of the resampled values (linear
        interpolation, as ``numpy.percentile``); ``se`` their standard
        deviation. Resamples where the metric is undefined are left out with
        one :class:`~fastrank.UndefinedMetricWarning`.

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
    """
    name, func, column = _metric(metric)
    n_resamples = _check_resamples(n_resamples)
    level = check_level(level)
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little") >> 1
    elif isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int or None; got {seed!r}")
    seed = int(seed) % (1 << 64)
    s = as_array(y_score, "y_score")
    if s.ndim == 2:
        y = as_array(y_true, "y_true")
        if y.shape != s.shape:
            raise ValueError(f"2-D y_score needs y_true of the same shape; got {y.shape} "
                             f"and {s.shape}")
        results = [bootstrap_ci(func, y[:, j], s[:, j], n_resamples=n_resamples, level=level,
                                stratified=stratified, seed=seed, sample_weight=sample_weight,
                                pos_label=pos_label, progress=progress)
                   for j in range(s.shape[1])]

        def stack(field: str) -> np.ndarray:
            return np.array([getattr(r, field) for r in results], dtype=np.float64)

        return Interval(stack("estimate"), stack("low"), stack("high"), level, "bootstrap",
                        stack("se"), stack("variance"), n_resamples)
    task = prepare(y_true, s, sample_weight, pos_label)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        estimate = float(func(y_true, s, sample_weight=sample_weight, pos_label=pos_label))
    values = _resample_values(task, column, name, n_resamples, stratified, seed, progress)
    ok = ~np.isnan(values)
    left_out = n_resamples - int(np.count_nonzero(ok))
    if left_out:
        warnings.warn(
            f"{name} is undefined on {left_out} of {n_resamples} resamples (a class is "
            "missing); they are left out of the interval",
            UndefinedMetricWarning, stacklevel=2,
        )
    kept = values[ok]
    if kept.shape[0] == 0:
        low = high = se = math.nan
    else:
        low, high = (float(v) for v in np.percentile(kept, [50 * (1 - level),
                                                             50 * (1 + level)]))
        se = float(np.std(kept, ddof=1)) if kept.shape[0] > 1 else math.nan
    return Interval(estimate, low, high, level, "bootstrap", se, math.nan, n_resamples)

