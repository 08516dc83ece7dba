"""pytest-benchmark timings of the uncertainty layer against its baselines.

``python -m pytest benchmarks --benchmark-enable`` times the full workloads
(U1: DeLong on 1,000,000 samples; U2: paired DeLong on 100,000 x 1,000 labels;
U3: 1,000 bootstrap resamples of AP on 100,000 samples). The default test run
executes each once at a small scale, as a smoke test that also checks the
numbers against the baselines.
"""

from __future__ import annotations

import numpy as np
import pytest
from uncertainty_workloads import (
    bootstrap_sklearn,
    fast_delong_numpy,
    one_task,
    paired_numpy,
    two_models,
)

import fastrank


@pytest.fixture(scope="module")
def scale(request: pytest.FixtureRequest) -> float:
    return 1.0 if request.config.getoption("benchmark_enable") else 0.02


def test_u1_roc_auc(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = one_task(int(1_000_000 * scale))
    benchmark.group = "U1"
    benchmark(fastrank.roc_auc, y, s)


def test_u1_delong_variance(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = one_task(int(1_000_000 * scale))
    benchmark.group = "U1"
    ci = fastrank.roc_auc_ci(y, s)
    _, cov = fast_delong_numpy(y, s[None, :])
    assert abs(ci.variance - cov[0, 0]) < 1e-15
    benchmark(fastrank.roc_auc_ci, y, s)


def test_u2_fastrank_paired(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, a, b = two_models(scale)
    benchmark.group = "U2"
    t = fastrank.delong_test(y, a, b)
    z = paired_numpy(y, a, b, range(0, y.shape[1], max(1, y.shape[1] // 4)))
    assert np.allclose(t.z[:: max(1, y.shape[1] // 4)], z, rtol=1e-9, atol=1e-12)
    benchmark(fastrank.delong_test, y, a, b)


def test_u2_numpy_fast_delong_20_labels(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, a, b = two_models(scale)
    benchmark.group = "U2"
    benchmark.pedantic(paired_numpy, args=(y, a, b, range(20)), rounds=1, iterations=1)


def test_u3_bootstrap_ap(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = one_task(max(int(100_000 * scale), 2000))
    benchmark.group = "U3"
    ci = fastrank.bootstrap_ci("average_precision", y, s, n_resamples=1000, seed=0)
    reference = bootstrap_sklearn(y, s, 200, seed=0)
    # Different generators: the intervals agree to Monte Carlo error.
    assert abs(ci.se - reference.std(ddof=1)) < 0.3 * ci.se
    benchmark(fastrank.bootstrap_ci, "average_precision", y, s, n_resamples=1000, seed=0)


def test_u3_sklearn_20_resamples(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    y, s = one_task(max(int(100_000 * scale), 2000))
    benchmark.group = "U3"
    benchmark.pedantic(bootstrap_sklearn, args=(y, s, 20, 0), rounds=1, iterations=1)
