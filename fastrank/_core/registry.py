"""The metric registry: one description per metric, read by every layer.

A :class:`Metric` says what the sweep must compute for it (its ``OUT_*``
column and ``WANT_*`` flags), when it is undefined, its display name, its
column in the streaming summaries' bounds table, and how its value is
mapped (d' from the AUC). The public functions, the batched results, the
intervals, the summaries, the accumulators, the command line, the
evaluation tables and the Dask wrappers all look metrics up here; a new
metric is one entry here plus its sweep code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels.histogram import B_AP, B_AUC, B_PR_AUC, B_PRBE
from .._kernels.sweep import (
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
from .options import check_max_fpr

POSITIVES = "positives"  # undefined without positives
BOTH = "both"  # undefined without positives or without negatives


@dataclass(frozen=True)
class Metric:
    """What every layer needs to know about one scalar metric."""

    name: str
    display: str  # short header of text tables
    column: int  # OUT_* column of the sweep's results
    wants: int  # WANT_* flags the sweep needs for it
    needs: str  # POSITIVES or BOTH
    bound: int | None  # B_* column of the summaries' bounds (None: no certified bound)
    d_prime: bool = False  # the value is sqrt(2) * Phi^-1 of the column
    threshold: bool = False  # comes with a cutoff score (PRBE)
    unweighted_only: bool = False
    family: str = ""  # the public function whose value this is (default: the name)
    # the value adds one class's totals to the other's (precision: TP + FP), so that a
    # weight lost within its class (inputs.lost_weights) may move it; AUC and d' take
    # each class's totals apart, where such a weight is at most 2**-184 of its class
    mixes_classes: bool = False

    @property
    def function(self) -> str:
        return self.family or self.name

    def undefined(self, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        """Which tasks (by their class totals) have no value."""
        mask: np.ndarray = pos == 0
        if self.needs == BOTH:
            mask = mask | (neg == 0)
        return mask

    def value_of(self, row: Sequence[float]) -> float:
        """This metric of one task from its ``OUT_*`` row (an array or a list),
        NaN where undefined."""
        pos, neg = row[OUT_POS], row[OUT_NEG]
        if pos == 0 or (self.needs == BOTH and neg == 0):
            return math.nan
        v = float(row[self.column])
        return float(d_prime_of(v)) if self.d_prime else v

    def values(self, out: np.ndarray) -> np.ndarray:
        """This metric from ``OUT_*`` rows (``(n_tasks, OUT_SIZE)``), undefined left as is."""
        v = np.array(out[..., self.column], dtype=np.float64)
        return d_prime_of(v) if self.d_prime else v


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("average_precision", "AP", OUT_AP, 0, POSITIVES, B_AP, mixes_classes=True),
        Metric("average_precision_expected", "AP(exp.)", OUT_AP_EXPECTED, WANT_EXPECTED_AP,
               POSITIVES, None, unweighted_only=True, family="average_precision"),
        Metric("roc_auc", "ROC AUC", OUT_AUC, 0, BOTH, B_AUC),
        Metric("roc_auc_partial", "pAUC", OUT_AUC_PARTIAL, 0, BOTH, None, family="roc_auc"),
        Metric("pr_auc", "PR AUC", OUT_PR_AUC, WANT_PR_AUC, POSITIVES, B_PR_AUC,
               mixes_classes=True),
        Metric("d_prime", "d'", OUT_AUC, 0, BOTH, B_AUC, d_prime=True),
        Metric("prbe", "PRBE", OUT_PRBE, 0, POSITIVES, B_PRBE, threshold=True,
               mixes_classes=True),
    )
}
# The metrics a caller may ask for by name (the others are variants chosen by options).
PUBLIC = ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe")
# Names accepted where metrics are chosen by name (command line, summaries).
ALIASES = {"ap": "average_precision", "auc": "roc_auc",
           "ap_expected": "average_precision_expected"}


def get(name: str) -> Metric:
    """The registry entry of ``name`` (or an alias), or a ValueError listing the names."""
    key = ALIASES.get(name, name)
    if key not in METRICS:
        raise ValueError(f"unknown metric {name!r}; choose from {', '.join(PUBLIC)}")
    return METRICS[key]


@dataclass(frozen=True)
class Request:
    """One call's metric with its options resolved: what to ask the engine for."""

    metric: Metric | None  # None: every metric (all_metrics)
    max_fpr: float  # 1.0: the full AUC
    what: int  # WANT_* flags
    weighted: bool
    partial: bool  # max_fpr was given (all_metrics reports the partial AUC)

    @property
    def name(self) -> str:
        return "all_metrics" if self.metric is None else self.metric.name

    @property
    def mixes_classes(self) -> bool:
        """Whether a value asked for adds the classes' totals (see :class:`Metric`)."""
        return self.metric is None or self.metric.mixes_classes


_REQUESTS: dict[tuple[Any, ...], Request] = {}


def request(name: str, *, weighted: bool, ties: str = "grouped",
            max_fpr: Any = None) -> Request:
    """Check a call's options and resolve what it asks of the engine (cached)."""
    # the option types are part of the key: True == 1 and 1 == 1.0 hash alike, and
    # max_fpr=True must still be refused after a call with max_fpr=1
    key = (name, weighted, ties, type(ties), max_fpr, type(max_fpr))
    try:
        return _REQUESTS[key]
    except (KeyError, TypeError):  # TypeError: an unhashable option, checked below
        pass
    req = _request(name, weighted=weighted, ties=ties, max_fpr=max_fpr)
    if len(_REQUESTS) < 1024:
        try:
            _REQUESTS[key] = req
        except TypeError:
            pass
    return req


def _request(name: str, *, weighted: bool, ties: str, max_fpr: Any) -> Request:
    if ties not in ("grouped", "expected"):
        raise ValueError(f"ties must be 'grouped' or 'expected'; got {ties!r}")
    m = check_max_fpr(max_fpr)
    partial = max_fpr is not None
    if name == "all_metrics":
        what = WANT_PR_AUC | (0 if weighted else WANT_EXPECTED_AP)
        return Request(None, m, what, weighted, partial)
    metric = get(name)
    if name == "average_precision" and ties == "expected":
        if weighted:
            raise ValueError("ties='expected' is defined for unweighted samples only; "
                             "drop sample_weight or use ties='grouped'")
        metric = METRICS["average_precision_expected"]
    if name == "roc_auc" and m < 1.0:
        metric = METRICS["roc_auc_partial"]
    return Request(metric, m if name == "roc_auc" else 1.0, metric.wants, weighted, partial)


# ------------------------------------------------------------------ d' without scipy

# Wichura's AS 241 (PPND16, Applied Statistics 37(3), 1988), about 1e-16 relative:
# a rational function for |p - 0.5| <= 0.425, two tail ones in r = sqrt(-log(min(p, 1-p))).
_A = (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
      1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
      3.3430575583588128105e4, 2.5090809287301226727e3)
_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
      2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
      5.2264952788528545610e3)
_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
      3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
      2.27238449892691845833e-2, 7.74545014278341407640e-4)
_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
      1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
      1.05075007164441684324e-9)
_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
      2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
      2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
      7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
      2.04426310338993978564e-15)


def _ratio(num: tuple[float, ...], den: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    top = np.zeros_like(x)
    bottom = np.zeros_like(x)
    for i in range(7, -1, -1):
        top = top * x + num[i]
        bottom = bottom * x + den[i]
    ratio: np.ndarray = top / bottom
    return ratio


def _ratio1(num: tuple[float, ...], den: tuple[float, ...], x: float) -> float:
    """:func:`_ratio` of one number, with the same operations in the same order
    (``x`` is finite, so the first step ``0 * x + c`` is ``c`` itself)."""
    n0, n1, n2, n3, n4, n5, n6, n7 = num
    d0, d1, d2, d3, d4, d5, d6, d7 = den
    top = ((((((n7 * x + n6) * x + n5) * x + n4) * x + n3) * x + n2) * x + n1) * x + n0
    bottom = ((((((d7 * x + d6) * x + d5) * x + d4) * x + d3) * x + d2) * x + d1) * x + d0
    return top / bottom


def _ndtri1(p: float) -> float:
    """:func:`ndtri` of one number, without arrays: the same operations in the same
    order, and numpy's ``log`` (so the same float as the array form)."""
    if not 0.0 <= p <= 1.0:  # NaN too
        return math.nan
    q = p - 0.5
    if abs(q) <= 0.425:
        return q * _ratio1(_A, _B, 0.180625 - q * q)
    t = p if q < 0.0 else 1.0 - p
    if t == 0.0:
        z = math.inf
    else:
        r = math.sqrt(-float(np.log(np.float64(t))))
        z = _ratio1(_C, _D, r - 1.6) if r <= 5.0 else _ratio1(_E, _F, r - 5.0)
    return -z if q < 0.0 else z


def ndtri(p: Any) -> Any:
    """The standard normal quantile, ``Phi(ndtri(p)) == p``, elementwise.

    ``ndtri(0) == -inf``, ``ndtri(1) == inf``, NaN outside ``[0, 1]``.
    """
    if isinstance(p, float):
        return _ndtri1(p)
    arr = np.asarray(p, dtype=np.float64)
    x = np.atleast_1d(arr)
    out = np.full(x.shape, math.nan)
    q = x - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        central = np.abs(q) <= 0.425
        if central.any():
            qc = q[central]
            out[central] = qc * _ratio(_A, _B, 0.180625 - qc * qc)
        tail = ~central & (x >= 0.0) & (x <= 1.0)
        if tail.any():
            pt = x[tail]
            qt = q[tail]
            t = np.where(qt < 0.0, pt, 1.0 - pt)  # 1 - p is exact for p >= 0.5
            r = np.sqrt(-np.log(t))
            z = np.where(r <= 5.0, _ratio(_C, _D, r - 1.6), _ratio(_E, _F, r - 5.0))
            z = np.where(t == 0.0, np.inf, z)
            out[tail] = np.where(qt < 0.0, -z, z)
    return float(out[0]) if arr.ndim == 0 else out.reshape(arr.shape)


def d_prime_of(auc: Any) -> Any:
    """``sqrt(2) * Phi^-1(AUC)``, elementwise (NaN stays NaN)."""
    return math.sqrt(2.0) * ndtri(auc)
