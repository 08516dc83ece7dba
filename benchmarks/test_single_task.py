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


# One-task calls at 100 to 10,000 scores (compare.py --per-call prints the same
# grid as a table): fastrank and scikit-learn per group, each result checked.
PER_CALL = [(n, dt, weighted) for n in (100, 1000, 10_000) for dt in ("float64", "float32")
            for weighted in (False, True)]


@pytest.fixture(scope="module", params=PER_CALL,
                ids=[f"{n}-{dt}-{'weighted' if w else 'unweighted'}" for n, dt, w in PER_CALL])
def per_call(request: pytest.FixtureRequest) -> tuple[str, np.ndarray, np.ndarray,
                                                      np.ndarray | None]:
    n, dt, weighted = request.param
    rng = np.random.default_rng(n)
    y = rng.random(n) < 0.3
    s = rng.random(n).astype(dt)
    w = rng.random(n) if weighted else None
    # the batch kernel, which a one-task call of up to 4,096 scores reuses once compiled
    fastrank.average_precision(rng.random((64, 100)) < 0.3,
                               rng.random((64, 100)).astype(dt), average=None)
    return f"per call {n} {dt} {'weighted' if weighted else 'unweighted'}", y, s, w


def test_fastrank_per_call(benchmark, per_call) -> None:  # type: ignore[no-untyped-def]
    name, y, s, w = per_call
    benchmark.group = name
    m = fastrank.all_metrics(y, s, sample_weight=w)
    assert abs(m.average_precision - average_precision_score(y, s, sample_weight=w)) < 1e-12
    assert abs(m.roc_auc - roc_auc_score(y, s, sample_weight=w)) < 1e-12
    benchmark(lambda: fastrank.average_precision(y, s, sample_weight=w))


def test_sklearn_per_call(benchmark, per_call) -> None:  # type: ignore[no-untyped-def]
    name, y, s, w = per_call
    benchmark.group = name
    benchmark(lambda: average_precision_score(y, s, sample_weight=w))
