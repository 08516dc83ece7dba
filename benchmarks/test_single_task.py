"""pytest-benchmark timings of one task against the peers, in one run.

Run for real with ``python -m pytest benchmarks --benchmark-enable``; the
default test run executes each benchmark once as a smoke test. Results are
checked against scikit-learn outside the timed region. Compare within a
group (same workload): the machine is shared and absolute times drift.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score
from workloads import workload

import fastrank

LARGE = ["W1", "W2", "W3"]


@pytest.fixture(scope="module", params=LARGE)
def large(request: pytest.FixtureRequest) -> tuple[str, np.ndarray, np.ndarray]:
    y, s = workload(request.param)
    return request.param, y, s


def _check(y: np.ndarray, s: np.ndarray) -> fastrank.BinaryMetrics:
    m = fastrank.all_metrics(y, s)
    assert abs(m.average_precision - average_precision_score(y, s)) < 1e-12
    assert abs(m.roc_auc - roc_auc_score(y, s)) < 1e-12
    return m


def test_fastrank_all_metrics(benchmark, large) -> None:  # type: ignore[no-untyped-def]
    name, y, s = large
    benchmark.group = name
    _check(y, s)  # warm-up (compiles or loads the cache) and oracle check
    benchmark(fastrank.all_metrics, y, s)


def test_fastrank_average_precision(benchmark, large) -> None:  # type: ignore[no-untyped-def]
    name, y, s = large
    benchmark.group = name
    fastrank.average_precision(y, s)
    benchmark(fastrank.average_precision, y, s)


def test_numpy_sort(benchmark, large) -> None:  # type: ignore[no-untyped-def]
    name, _, s = large
    benchmark.group = name
    benchmark(np.sort, s)


def test_sklearn_ap_plus_auc(benchmark, large) -> None:  # type: ignore[no-untyped-def]
    name, y, s = large
    benchmark.group = name
    benchmark.pedantic(
        lambda: (average_precision_score(y, s), roc_auc_score(y, s)), rounds=3, iterations=1
    )


def test_fastrank_small_calls(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W5")
    benchmark.group = "W5"
    _check(y, s)
    benchmark(fastrank.average_precision, y, s)


def test_fastrank_small_all_metrics(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W5")
    benchmark.group = "W5"
    benchmark(fastrank.all_metrics, y, s)


def test_sklearn_small_calls(benchmark) -> None:  # type: ignore[no-untyped-def]
    y, s = workload("W5")
    benchmark.group = "W5"
    benchmark(average_precision_score, y, s)
