"""pytest-benchmark timings of the evaluation layer against what a user writes today.

``python -m pytest benchmarks --benchmark-enable`` times the full workloads
(E1: four models on 1,000,000 samples; E2: three models on five folds of
200,000). The default test run executes each once on a 5% scale model, as a
smoke test that also checks the tables against scikit-learn.
"""

from __future__ import annotations

import numpy as np
import pytest
from evaluation_workloads import demo_models, folds
from sklearn.metrics import (
    average_precision_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

import fastrank


@pytest.fixture(scope="module")
def scale(request: pytest.FixtureRequest) -> float:
    return 1.0 if request.config.getoption("benchmark_enable") else 0.05


@pytest.fixture(scope="module")
def e1(scale: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    return demo_models(scale)


def _fastrank_tables(y: np.ndarray, scores: dict[str, np.ndarray]) -> fastrank.Evaluation:
    ev = fastrank.evaluate(scores, y)
    ev.summary(as_frame=False)
    ev.best_cutoffs(as_frame=False)
    return ev


def _sklearn_tables(y: np.ndarray, scores: dict[str, np.ndarray]) -> list[float]:
    """The same numbers from scikit-learn: AP, AUC, and both curves per model."""
    out = []
    for s in scores.values():
        out.append(average_precision_score(y, s))
        out.append(roc_auc_score(y, s))
        fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
        p, r, _ = precision_recall_curve(y, s)
        out.append(float(np.max(tpr - fpr)))  # Youden's J
        f1 = np.divide(2 * p * r, p + r, out=np.zeros_like(p), where=p + r > 0)
        out.append(float(f1.max()))
    return out


def test_e1_fastrank_evaluate(benchmark, e1) -> None:  # type: ignore[no-untyped-def]
    y, scores = e1
    benchmark.group = "E1"
    ev = _fastrank_tables(y, scores)
    reference = _sklearn_tables(y, scores)
    summary = ev.summary(as_frame=False)
    best = ev.best_cutoffs(as_frame=False)
    for i in range(len(scores)):
        assert abs(summary["average_precision"][i] - reference[4 * i]) < 1e-12
        assert abs(summary["roc_auc"][i] - reference[4 * i + 1]) < 1e-12
        assert abs(best["value"][2 * i] - reference[4 * i + 2]) < 1e-12
        assert abs(best["value"][2 * i + 1] - reference[4 * i + 3]) < 1e-12
    benchmark(_fastrank_tables, y, scores)


def test_e1_fastrank_all_metrics_loop(benchmark, e1) -> None:  # type: ignore[no-untyped-def]
    y, scores = e1
    benchmark.group = "E1"
    benchmark(lambda: [fastrank.all_metrics(y, s) for s in scores.values()])


def test_e1_sklearn(benchmark, e1) -> None:  # type: ignore[no-untyped-def]
    y, scores = e1
    benchmark.group = "E1"
    benchmark.pedantic(_sklearn_tables, args=(y, scores), rounds=1, iterations=1)


def test_e1_numpy_sort(benchmark, e1) -> None:  # type: ignore[no-untyped-def]
    _, scores = e1
    benchmark.group = "E1"
    benchmark(lambda: [np.sort(s) for s in scores.values()])


def test_e2_mean_curves(benchmark, scale) -> None:  # type: ignore[no-untyped-def]
    data = folds(scale)
    scores = [s for _, models in data for s in models.values()]
    labels = [y for y, models in data for _ in models]
    names = [m for _, models in data for m in models]
    ids = [k for k, (_, models) in enumerate(data) for _ in models]
    benchmark.group = "E2"

    def run() -> fastrank.Evaluation:
        ev = fastrank.evaluate(scores, labels, model_names=names, dataset_ids=ids)
        for model in ev.models:
            ev.mean_curve(model, "roc")
            ev.mean_curve(model, "pr")
        ev.mean_auc(as_frame=False)
        return ev

    ev = run()
    table = ev.mean_auc(as_frame=False)
    for row, model in enumerate(table["model"]):
        if table["curve"][row] != "ROC":
            continue
        aucs = [roc_auc_score(y, models[model]) for y, models in data]
        assert abs(table["mean"][row] - np.mean(aucs)) < 1e-12
    benchmark(run)
