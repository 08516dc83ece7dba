"""pytest-benchmark timings of reading a TREC run file and of scoring it in
trec_eval's order of ties, from the file and from arrays of string ids.

Run for real with ``python -m pytest benchmarks --benchmark-enable``; the default test
run executes each once as a smoke test, after checking the reading against Python's.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import fastrank

MEASURES = ["map", "ndcg@10", "P@10", "recip_rank", "recall@100", "Rprec", "num_rel_ret"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """200 queries x 1,000 documents, TREC-style ids, 70% of the rows tied."""
    rng = np.random.default_rng(3)
    nq, nd = 200, 1_000
    folder: Path = tmp_path_factory.mktemp("trec")
    run, qrels = folder / "run", folder / "qrels"
    rows, judged = [], []
    for q in range(nq):
        docs = rng.choice(200_000, nd, replace=False)
        scores = -np.sort(-np.round(rng.random(nd) * 830) / 830)
        for rank, (d, s) in enumerate(zip(docs.tolist(), scores.tolist(), strict=True)):
            rows.append(f"topic{q} Q0 FBIS4-{d:07d} {rank + 1} {s:.6f} bench\n")
            if rng.random() < 0.2:
                judged.append(f"topic{q} 0 FBIS4-{d:07d} {int(rng.integers(0, 3))}\n")
    run.write_text("".join(rows))
    qrels.write_text("".join(judged))
    return str(qrels), str(run)


def test_read_run(benchmark, files) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = "TREC run, 200 x 1,000"
    q, d, s = fastrank.read_run(files[1])
    with open(files[1], encoding="utf-8") as f:
        first = f.readline().split()
    assert (q[0], d[0], s[0]) == (first[0], first[2], float(first[4]))
    benchmark(fastrank.read_run, files[1])


def test_evaluate_run_from_files(benchmark, files) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = "TREC run, 200 x 1,000"

    def go() -> fastrank.trec.RunScores:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fastrank.evaluate_run(fastrank.read_qrels(files[0]),
                                         fastrank.read_run(files[1]), MEASURES,
                                         ties="trec_eval")

    benchmark(go)


def test_evaluate_run_from_arrays(benchmark, files) -> None:  # type: ignore[no-untyped-def]
    benchmark.group = "TREC run, 200 x 1,000"
    qrels = tuple(np.asarray(x) for x in fastrank.read_qrels(files[0]))
    run = tuple(np.asarray(x) for x in fastrank.read_run(files[1]))

    def go() -> fastrank.trec.RunScores:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fastrank.evaluate_run(qrels, run, MEASURES, ties="trec_eval")

    benchmark(go)
