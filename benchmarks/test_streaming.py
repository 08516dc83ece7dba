"""pytest-benchmark timings of the streaming layer against its peers.

``python -m pytest benchmarks --benchmark-enable`` times the full workloads
(S1: summary updates of 1,000,000 float32 rows; S2: 10,000 rows x 1,000
tasks; S3: an accumulator over 1,000 batches of 1,000 rows, then compute).
The default test run executes each once at a small scale, as a smoke test
that also checks the results against the one-shot calls.
"""

from __future__ import annotations

import numpy as np
import pytest
from streaming_workloads import (
    concatenated,
    materialise,
    multilabel,
    numpy_histogram,
    probabilities,
)

import fastrank


@pytest.fixture(scope="module")
def scale(request: pytest.FixtureRequest) -> float:
    return 1.0 if request.config.getoption("benchmark_enable") else 0.02


def test_s1_summary_update(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = probabilities(int(1_000_000 * scale))
    benchmark.group = "S1"
    summary = fastrank.BinnedSummary(1000)
    summary.update(y, s)
    counts = numpy_histogram(y, s, 1000)
    assert np.array_equal(summary.negatives, counts[0])
    assert np.array_equal(summary.positives, counts[1])
    exact = fastrank.roc_auc(y, s)
    bounds = summary.compute("roc_auc")
    assert bounds.low <= exact <= bounds.high
    benchmark(summary.update, y, s)


def test_s1_numpy_histogram(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = probabilities(int(1_000_000 * scale))
    benchmark.group = "S1"
    benchmark(numpy_histogram, y, s, 1000)


def test_s1_sort_floor(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    _, s = probabilities(int(1_000_000 * scale))
    benchmark.group = "S1"
    benchmark(np.sort, s)


def test_s2_summary_update_1000_tasks(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = multilabel(max(int(10_000 * scale), 1000), 1000)
    benchmark.group = "S2"
    summary = fastrank.BinnedSummary(1000)
    summary.update(y, s)
    exact = fastrank.roc_auc(y, s, average=None)
    bounds = summary.compute("roc_auc")
    assert np.all((bounds.low <= exact) & (exact <= bounds.high))
    benchmark(summary.update, y, s)


def _accumulate(data: list[tuple[np.ndarray, np.ndarray]]) -> float:
    acc = fastrank.Accumulator()
    for yb, sb in data:
        acc.update(yb, sb)
    return float(acc.compute("roc_auc"))  # type: ignore[arg-type]


def test_s3_accumulator(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    data = materialise(max(int(1000 * scale), 10), 1000)
    benchmark.group = "S3"
    y, s = concatenated(data)
    assert _accumulate(data) == fastrank.roc_auc(y, s)
    benchmark(_accumulate, data)


def test_s3_one_shot(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    data = materialise(max(int(1000 * scale), 10), 1000)
    benchmark.group = "S3"
    benchmark(fastrank.roc_auc, *concatenated(data))
