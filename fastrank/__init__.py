"""fastrank: exact, tie-aware ranking and binary-classifier metrics.

Scalar metrics of one task (:mod:`fastrank.metrics`)::

    average_precision, roc_auc, pr_auc, d_prime, prbe, all_metrics

Curves (:mod:`fastrank.curves`), with scikit-learn's conventions::

    roc_curve, precision_recall_curve, det_curve,
    confusion_matrix_at_thresholds, interpolated_precision_recall_curve

Many models on many datasets, as tables, averaged curves and figures
(:mod:`fastrank.evaluation`, :mod:`fastrank.plots`)::

    evaluate -> Evaluation

Batches and streams (:mod:`fastrank.accumulator`, :mod:`fastrank.summaries`)::

    Accumulator (exact), BinnedSummary -> Bounds (fixed memory, certified bounds)

Uncertainty (:mod:`fastrank.uncertainty`)::

    roc_auc_ci, delong_covariance, delong_test, delong_test_unpaired, bootstrap_ci

Configuration and first-call costs (:mod:`fastrank.config`)::

    show_config (what a bug report needs), compile_kernels (ahead of time)

Every function sorts the scores once, treats equal scores as one cutoff,
and returns NaN with an :class:`UndefinedMetricWarning` for a task that lacks
a class. Definitions: METRICS.md in the source repository.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .accumulator import Accumulator
from .batch import GroupResult
from .config import compile_kernels, show_config
from .curves import (
    confusion_matrix_at_thresholds,
    det_curve,
    interpolated_precision_recall_curve,
    precision_recall_curve,
    roc_curve,
)
from .evaluation import Entry, Evaluation, MeanCurve, evaluate
from .exceptions import UndefinedMetricWarning, UnsupportedOptionError
from .metrics import (
    BatchMetrics,
    BinaryMetrics,
    all_metrics,
    average_precision,
    d_prime,
    pr_auc,
    prbe,
    roc_auc,
)
from .summaries import BinnedSummary, Bounds
from .uncertainty import (
    Comparison,
    Interval,
    bootstrap_ci,
    delong_covariance,
    delong_test,
    delong_test_unpaired,
    roc_auc_ci,
)

try:
    __version__ = version("fastrank")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Accumulator",
    "BatchMetrics",
    "BinaryMetrics",
    "BinnedSummary",
    "Bounds",
    "Comparison",
    "Entry",
    "Evaluation",
    "GroupResult",
    "Interval",
    "MeanCurve",
    "UndefinedMetricWarning",
    "UnsupportedOptionError",
    "__version__",
    "all_metrics",
    "average_precision",
    "bootstrap_ci",
    "compile_kernels",
    "confusion_matrix_at_thresholds",
    "d_prime",
    "delong_covariance",
    "delong_test",
    "delong_test_unpaired",
    "det_curve",
    "evaluate",
    "interpolated_precision_recall_curve",
    "pr_auc",
    "prbe",
    "precision_recall_curve",
    "roc_auc",
    "roc_auc_ci",
    "roc_curve",
    "show_config",
]
