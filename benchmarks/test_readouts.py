"""pytest-benchmark timings of operating points and partial areas against the
scikit-learn curve-and-search a user writes, on the W2 workload (heavy ties).

Run for real with ``python -m pytest benchmarks --benchmark-enable``; the default test
run executes each once as a smoke test, after checking the numbers agree.
"""

from __future__ import annotations

from compare_readouts import sk_recall_at_precision, sk_sens_at_spec
from sklearn.metrics import roc_auc_score
from workloads import workload

import fastrank


def test_fastrank_sensitivity_at_specificity(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W2")
    benchmark.group = "sensitivity at 95% specificity, W2"
    assert abs(fastrank.sensitivity_at_specificity(y, s, 0.95).value
               - sk_sens_at_spec(y, s, 0.95)) < 1e-12
    benchmark(fastrank.sensitivity_at_specificity, y, s, 0.95)


def test_sklearn_sensitivity_at_specificity(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W2")
    benchmark.group = "sensitivity at 95% specificity, W2"
    benchmark.pedantic(sk_sens_at_spec, (y, s, 0.95), rounds=3, iterations=1)


def test_fastrank_recall_at_precision(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W2")
    benchmark.group = "recall at 50% precision, W2"
    assert abs(fastrank.recall_at_precision(y, s, 0.5).value
               - sk_recall_at_precision(y, s, 0.5)) < 1e-12
    benchmark(fastrank.recall_at_precision, y, s, 0.5)


def test_fastrank_partial_roc_auc(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W2")
    benchmark.group = "ROC area over FPR <= 0.1, W2"
    assert abs(fastrank.partial_roc_auc(y, s, fpr=(0, 0.1), correct=True)
               - roc_auc_score(y, s, max_fpr=0.1)) < 1e-12
    benchmark(fastrank.partial_roc_auc, y, s, fpr=(0, 0.1), correct=True)
