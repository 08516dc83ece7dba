"""pytest-benchmark timings of the Dask layer against the in-process calls.

``python -m pytest benchmarks/test_dask_layer.py --benchmark-enable`` times D1
(1,000,000 x 100 per-task AUC) and D2 (one task of 4,000,000 rows) on a
LocalCluster of 2 processes x 1 thread. The default test run executes each
once at a small scale on the synchronous scheduler, as a smoke test that also
checks the results against the in-process calls.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from dask_workloads import d1_in_memory, d2_in_memory  # noqa: E402

import fastrank  # noqa: E402
import fastrank.dask as fd  # noqa: E402


@pytest.fixture(scope="module")
def full(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("benchmark_enable"))


@pytest.fixture(scope="module")
def scheduler(full: bool):  # type: ignore[no-untyped-def]
    if not full:
        with dask.config.set(scheduler="synchronous"):
            yield None
        return
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _persisted(client, *arrays):  # type: ignore[no-untyped-def]
    if client is None:
        return arrays
    out = client.persist(list(arrays))
    distributed.wait(out)
    return out


def test_d1_in_process(benchmark, full) -> None:  # type: ignore[no-untyped-def]
    y, s = d1_in_memory(1_000_000 if full else 2_000, 100)
    benchmark.group = "D1"
    benchmark(fastrank.roc_auc, y, s, average=None)


def test_d1_dask(benchmark, full, scheduler) -> None:  # type: ignore[no-untyped-def]
    n = 1_000_000 if full else 2_000
    y, s = d1_in_memory(n, 100)
    ys, ss = _persisted(scheduler, da.from_array(y, chunks=(n, 10)),
                        da.from_array(s, chunks=(n, 10)))
    benchmark.group = "D1"
    assert np.array_equal(fd.roc_auc(ys, ss, average=None), fastrank.roc_auc(y, s, average=None))
    benchmark(fd.roc_auc, ys, ss, average=None)


def test_d2_in_process(benchmark, full) -> None:  # type: ignore[no-untyped-def]
    y, s = d2_in_memory(4, 1_000_000 if full else 5_000)
    benchmark.group = "D2"
    benchmark(fastrank.roc_auc, y, s)


def test_d2_dask_exact(benchmark, full, scheduler) -> None:  # type: ignore[no-untyped-def]
    rows = 1_000_000 if full else 5_000
    y, s = d2_in_memory(4, rows)
    ys, ss = _persisted(scheduler, da.from_array(y, chunks=rows), da.from_array(s, chunks=rows))
    benchmark.group = "D2"
    assert abs(fd.roc_auc(ys, ss) - fastrank.roc_auc(y, s)) <= 1e-12
    benchmark(fd.roc_auc, ys, ss)
