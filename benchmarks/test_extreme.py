"""pytest-benchmark timings of the sparse top-k measures (extreme classification)
against the vectorised NumPy reference of ``compare_extreme.py``.

Run for real with ``python -m pytest benchmarks --benchmark-enable``; the default test
run executes each once as a smoke test, after checking the numbers agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from compare_extreme import KS, make, numpy_reference

import fastrank

_GROUP = "P/nDCG/PSP/PSnDCG@1,3,5, 2,000 x 100,000, 50 stored per row"


def _data():
    S, Y, train = make(2_000, labels=100_000, per=50, seed=3)
    p = fastrank.propensity(train, int(train.sum()) // 20)
    return S, Y, p


def test_fastrank_top_k_metrics(benchmark) -> None:  # type: ignore[no-untyped-def]
    S, Y, p = _data()
    benchmark.group = _GROUP
    ours = fastrank.top_k_metrics(Y, S, list(KS), propensity=p)
    ref = numpy_reference(S, Y, 1.0 / p, 50)
    assert all(abs(ours[key] - v) < 1e-9 for key, v in ref.items())
    benchmark(fastrank.top_k_metrics, Y, S, list(KS), propensity=p)


def test_numpy_reference(benchmark) -> None:  # type: ignore[no-untyped-def]
    S, Y, p = _data()
    benchmark.group = _GROUP
    benchmark(numpy_reference, S, Y, 1.0 / p, 50)
