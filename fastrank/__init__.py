"""fastrank: exact, tie-aware ranking and binary-classifier metrics.

Scalar metrics of one task (:mod:`fastrank.metrics`)::

    average_precision, roc_auc, pr_auc, d_prime, prbe, all_metrics

Curves (:mod:`fastrank.curves`), with scikit-learn's conventions::

    roc_curve, precision_recall_curve, det_curve,
    confusion_matrix_at_thresholds, interpolated_precision_recall_curve,
    cumulative_gain_curve, lift_curve, gain_at_depth, lift_at_depth

Each sample's labels or each query's items ranked (:mod:`fastrank.rankings`;
``average="samples"``)::

    label_ranking_average_precision, coverage_error, label_ranking_loss, dcg, ndcg,
    precision_at_k, recall_at_k, f1_at_k, hit_rate_at_k, reciprocal_rank, r_precision,
    average_precision_at_k, ndcg_at_k (graded); dense or sparse (top-k) scores;
    psprecision_at_k, psndcg_at_k, propensity (extreme classification),
    top_k_metrics (several measures and k from one ranking), top_k_accuracy (multiclass)

Retrieval runs against relevance judgments (:mod:`fastrank.trec`)::

    read_run, read_qrels, evaluate_run -> RunScores; compare_runs -> RunComparison

Many models on many datasets, as tables, averaged curves and figures
(:mod:`fastrank.evaluation`, :mod:`fastrank.plots`)::

    evaluate -> Evaluation

Batches and streams (:mod:`fastrank.accumulator`, :mod:`fastrank.summaries`)::

    Accumulator (exact), BinnedSummary -> Bounds (fixed memory, certified bounds)

Training loops with torch tensors, synced by torch.distributed (:mod:`fastrank.torch`,
an optional extra; ``import fastrank`` never imports torch)::

    BinaryMetric, GroupedMetric, MultilabelMetric, MulticlassMetric, TorchMetric

Uncertainty (:mod:`fastrank.uncertainty`)::

    roc_auc_ci, partial_roc_auc_ci, delong_covariance, delong_test, delong_test_unpaired,
    bootstrap_ci

Configuration and first-call costs (:mod:`fastrank.config`)::

    show_config (what a bug report needs), compile_kernels (ahead of time)

Every function sorts the scores once, treats equal scores as one cutoff,
and returns NaN with an :class:`UndefinedMetricWarning` for a task that lacks
a class. Definitions: METRICS.md in the source repository.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

# The names below load on first use, so check now, without importing them, that the
# two dependencies are there: a missing one is one clear ImportError at import time,
# not a ModuleNotFoundError from deep inside the first call.
_missing = [m for m in ("numpy", "numba") if importlib.util.find_spec(m) is None]
if _missing:
    raise ImportError(f"fastrank needs {' and '.join(_missing)}, not installed here: "
                      "pip install fastrank-metrics (or pip install numpy numba)")
del _missing

# Every public name and the module that defines it. They are imported on first use
# (PEP 562), so that ``import fastrank`` (and ``fastrank --version``, ``--help``) costs
# no numpy, numba or kernel import; ``from fastrank import roc_auc`` works as before.
_EXPORTS = {
    "Accumulator": "accumulator",
    "GroupResult": "batch",
    "compile_kernels": "config",
    "show_config": "config",
    "confusion_matrix_at_thresholds": "curves",
    "cumulative_gain_curve": "curves",
    "gain_at_depth": "curves",
    "lift_at_depth": "curves",
    "lift_curve": "curves",
    "det_curve": "curves",
    "interpolated_precision_recall_curve": "curves",
    "precision_recall_curve": "curves",
    "roc_curve": "curves",
    "Entry": "evaluation",
    "Evaluation": "evaluation",
    "MeanCurve": "evaluation",
    "evaluate": "evaluation",
    "UndefinedMetricWarning": "exceptions",
    "UnsupportedOptionError": "exceptions",
    "BatchMetrics": "metrics",
    "BinaryMetrics": "metrics",
    "all_metrics": "metrics",
    "average_precision": "metrics",
    "d_prime": "metrics",
    "pr_auc": "metrics",
    "prbe": "metrics",
    "roc_auc": "metrics",
    "coverage_error": "rankings",
    "average_precision_at_k": "rankings",
    "ndcg_at_k": "rankings",
    "propensity": "rankings",
    "psndcg_at_k": "rankings",
    "psprecision_at_k": "rankings",
    "top_k_accuracy": "rankings",
    "top_k_metrics": "rankings",
    "CodedIds": "trec",
    "RunComparison": "trec",
    "RunScores": "trec",
    "compare_runs": "trec",
    "evaluate_run": "trec",
    "read_qrels": "trec",
    "read_run": "trec",
    "dcg": "rankings",
    "f1_at_k": "rankings",
    "hit_rate_at_k": "rankings",
    "precision_at_k": "rankings",
    "r_precision": "rankings",
    "recall_at_k": "rankings",
    "reciprocal_rank": "rankings",
    "ndcg": "rankings",
    "label_ranking_average_precision": "rankings",
    "label_ranking_loss": "rankings",
    "OperatingPoint": "readouts",
    "best_cutoff": "readouts",
    "partial_pr_auc": "readouts",
    "partial_roc_auc": "readouts",
    "precision_at_recall": "readouts",
    "recall_at_precision": "readouts",
    "sensitivity_at_specificity": "readouts",
    "specificity_at_sensitivity": "readouts",
    "BinnedSummary": "summaries",
    "Bounds": "summaries",
    "Comparison": "uncertainty",
    "Interval": "uncertainty",
    "bootstrap_ci": "uncertainty",
    "delong_covariance": "uncertainty",
    "delong_test": "uncertainty",
    "delong_test_unpaired": "uncertainty",
    "roc_auc_ci": "uncertainty",
    "partial_roc_auc_ci": "uncertainty",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        # The distribution is "fastrank-metrics" (the PyPI name "fastrank" is another
        # project's); the import name is fastrank.
        return version("fastrank-metrics")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


# Submodules reachable as attributes (``fastrank.metrics.roc_auc``) without an import.
_SUBMODULES = frozenset({
    "accumulator", "batch", "cli", "config", "curves", "dask", "datasets", "distributed",
    "evaluation", "exceptions", "metrics", "plots", "rankings", "readers", "readouts", "stats",
    "summaries", "trec",
    "tables", "torch", "uncertainty",
})


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    # The public names and the module's own dunders, not this file's helpers.
    dunders = {n for n in globals() if n.startswith("__") and n != "__getattr__"}
    return sorted({*_EXPORTS, *_SUBMODULES, "__version__", *dunders})


if TYPE_CHECKING:  # pragma: no cover
    from .accumulator import Accumulator
    from .batch import GroupResult
    from .config import compile_kernels, show_config
    from .curves import (
        confusion_matrix_at_thresholds,
        cumulative_gain_curve,
        det_curve,
        gain_at_depth,
        interpolated_precision_recall_curve,
        lift_at_depth,
        lift_curve,
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
    from .rankings import (
        average_precision_at_k,
        coverage_error,
        dcg,
        f1_at_k,
        hit_rate_at_k,
        label_ranking_average_precision,
        label_ranking_loss,
        ndcg,
        ndcg_at_k,
        precision_at_k,
        propensity,
        psndcg_at_k,
        psprecision_at_k,
        r_precision,
        recall_at_k,
        reciprocal_rank,
        top_k_accuracy,
        top_k_metrics,
    )
    from .readouts import (
        OperatingPoint,
        best_cutoff,
        partial_pr_auc,
        partial_roc_auc,
        precision_at_recall,
        recall_at_precision,
        sensitivity_at_specificity,
        specificity_at_sensitivity,
    )
    from .summaries import BinnedSummary, Bounds
    from .trec import RunComparison, RunScores, compare_runs, evaluate_run, read_qrels, read_run
    from .uncertainty import (
        Comparison,
        Interval,
        bootstrap_ci,
        delong_covariance,
        delong_test,
        delong_test_unpaired,
        partial_roc_auc_ci,
        roc_auc_ci,
    )

    __version__: str

__all__ = [
    "Accumulator",
    "BatchMetrics",
    "BinaryMetrics",
    "BinnedSummary",
    "Bounds",
    "CodedIds",
    "Comparison",
    "Entry",
    "Evaluation",
    "GroupResult",
    "Interval",
    "MeanCurve",
    "OperatingPoint",
    "RunComparison",
    "RunScores",
    "UndefinedMetricWarning",
    "UnsupportedOptionError",
    "__version__",
    "all_metrics",
    "average_precision",
    "average_precision_at_k",
    "best_cutoff",
    "bootstrap_ci",
    "compare_runs",
    "compile_kernels",
    "confusion_matrix_at_thresholds",
    "coverage_error",
    "cumulative_gain_curve",
    "d_prime",
    "dcg",
    "delong_covariance",
    "delong_test",
    "delong_test_unpaired",
    "det_curve",
    "evaluate",
    "evaluate_run",
    "f1_at_k",
    "gain_at_depth",
    "hit_rate_at_k",
    "interpolated_precision_recall_curve",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "lift_at_depth",
    "lift_curve",
    "ndcg",
    "ndcg_at_k",
    "partial_pr_auc",
    "partial_roc_auc",
    "partial_roc_auc_ci",
    "pr_auc",
    "prbe",
    "precision_at_k",
    "precision_at_recall",
    "precision_recall_curve",
    "propensity",
    "psndcg_at_k",
    "psprecision_at_k",
    "r_precision",
    "read_qrels",
    "read_run",
    "recall_at_k",
    "recall_at_precision",
    "reciprocal_rank",
    "roc_auc",
    "roc_auc_ci",
    "roc_curve",
    "sensitivity_at_specificity",
    "show_config",
    "specificity_at_sensitivity",
    "top_k_accuracy",
    "top_k_metrics",
]
