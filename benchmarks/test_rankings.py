"""pytest-benchmark timings of the label-ranking functions against scikit-learn's, and
of a TREC-shaped evaluation.

Run for real with ``python -m pytest benchmarks --benchmark-enable``; the default test
run executes each once as a smoke test, after checking the numbers agree.
"""

from __future__ import annotations

import numpy as np
import sklearn.metrics as skm

import fastrank


def _matrix(n: int = 2_000, t: int = 200):
    rng = np.random.default_rng(1)
    Y = rng.random((n, t)) < 0.05
    Y[:, 0] = True
    S = np.round(rng.random((n, t)) + 0.3 * Y, 2).astype(np.float32)
    return Y, S


def test_fastrank_lrap(benchmark) -> None:  # type: ignore[no-untyped-def]
    Y, S = _matrix()
    benchmark.group = "label ranking average precision, 2,000 x 200"
    assert abs(fastrank.label_ranking_average_precision(Y, S)
               - skm.label_ranking_average_precision_score(Y, S)) < 1e-12
    benchmark(fastrank.label_ranking_average_precision, Y, S)


def test_sklearn_lrap(benchmark) -> None:  # type: ignore[no-untyped-def]
    Y, S = _matrix()
    benchmark.group = "label ranking average precision, 2,000 x 200"
    benchmark.pedantic(skm.label_ranking_average_precision_score, (Y, S), rounds=3,
                       iterations=1)


def test_fastrank_ndcg_at_10(benchmark) -> None:  # type: ignore[no-untyped-def]
    Y, S = _matrix()
    benchmark.group = "nDCG@10, 2,000 x 200"
    assert abs(fastrank.ndcg(Y, S, k=10) - skm.ndcg_score(Y, S, k=10)) < 1e-12
    benchmark(fastrank.ndcg, Y, S, k=10)


def test_fastrank_evaluate_run(benchmark) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2)
    q = np.repeat(np.arange(1_000), 100)
    d = np.tile(np.arange(100), 1_000)
    rel = (rng.random(q.shape[0]) < 0.1).astype(int)
    rel[::100] = 1
    s = np.round(rng.random(q.shape[0]), 3)
    benchmark.group = "TREC run, 1,000 queries x 100 documents"
    benchmark(fastrank.evaluate_run, (q[rel > 0], d[rel > 0], rel[rel > 0]), (q, d, s),
              ["map", "ndcg@10", "P@10", "recip_rank"])
