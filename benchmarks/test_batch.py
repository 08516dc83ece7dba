"""pytest-benchmark timings of the batched and grouped calls against their peers.

``python -m pytest benchmarks --benchmark-enable`` times the full workloads
(B1: 100,000 x 1,000 float32; G1: 1,000,000 rows in 10,000 groups). The
default test run executes each benchmark once on a 5% scale model of the
workload, as a smoke test that also checks fastrank against scikit-learn.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from batch_workloads import grouped, multilabel
from sklearn.metrics import average_precision_score, roc_auc_score

import fastrank


@pytest.fixture(scope="module")
def scale(request: pytest.FixtureRequest) -> float:
    return 1.0 if request.config.getoption("benchmark_enable") else 0.05


@pytest.fixture(scope="module")
def b1(scale: float) -> tuple[np.ndarray, np.ndarray]:
    return multilabel(scale)


@pytest.fixture(scope="module")
def g1(scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return grouped(scale)


def test_b1_fastrank_all_metrics(benchmark, b1) -> None:  # type: ignore[no-untyped-def]
    y, s = b1
    benchmark.group = "B1"
    m = fastrank.all_metrics(y, s, average=None)  # warm-up, then check a few labels
    for j in range(0, y.shape[1], max(1, y.shape[1] // 5)):
        assert abs(m.average_precision[j] - average_precision_score(y[:, j], s[:, j])) < 1e-12
        assert abs(m.roc_auc[j] - roc_auc_score(y[:, j], s[:, j])) < 1e-12
    benchmark(fastrank.all_metrics, y, s, average=None)


def test_b1_numpy_sort_axis0(benchmark, b1) -> None:  # type: ignore[no-untyped-def]
    _, s = b1
    benchmark.group = "B1"
    benchmark.pedantic(np.sort, args=(s,), kwargs={"axis": 0}, rounds=1, iterations=1)


def test_b1_sklearn_ap(benchmark, b1) -> None:  # type: ignore[no-untyped-def]
    y, s = b1
    benchmark.group = "B1"
    benchmark.pedantic(
        average_precision_score, args=(y, s), kwargs={"average": None}, rounds=1, iterations=1
    )


def _sklearn_groups(y: np.ndarray, s: np.ndarray, g: np.ndarray, metric) -> list[float]:  # type: ignore[no-untyped-def]
    order = np.argsort(g, kind="stable")
    cuts = np.flatnonzero(np.diff(g[order])) + 1
    out = []
    for rows in np.split(order, cuts):
        if 0 < y[rows].sum() < rows.shape[0]:
            out.append(metric(y[rows], s[rows]))
    return out


def test_g1_fastrank_roc_auc(benchmark, g1) -> None:  # type: ignore[no-untyped-def]
    y, s, g = g1
    benchmark.group = "G1"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        r = fastrank.roc_auc(y, s, groups=g, average=None)
        defined = r.values[~np.isnan(r.values)]
        np.testing.assert_allclose(defined, _sklearn_groups(y, s, g, roc_auc_score), atol=1e-12)
        benchmark(fastrank.roc_auc, y, s, groups=g, average=None)


def test_g1_fastrank_average_precision(benchmark, g1) -> None:  # type: ignore[no-untyped-def]
    y, s, g = g1
    benchmark.group = "G1"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        fastrank.average_precision(y, s, groups=g, average=None)
        benchmark(fastrank.average_precision, y, s, groups=g, average=None)


def test_g1_sklearn_loop_auc(benchmark, g1) -> None:  # type: ignore[no-untyped-def]
    y, s, g = g1
    benchmark.group = "G1"
    benchmark.pedantic(_sklearn_groups, args=(y, s, g, roc_auc_score), rounds=1, iterations=1)
