"""Workloads of the evaluation layer and of the command line.

E1: the demo's four models on 1,000,000 samples (one of them rounded to one
decimal, heavily tied), one dataset: what ``fastrank.evaluate`` computes for a
table and a figure.
E2: three models on five folds of 200,000 samples each (averaged curves).
C1: a CSV file of 1,000,000 rows with a label and two score columns, read and
evaluated by ``fastrank evaluate``.
"""

from __future__ import annotations

import numpy as np

from fastrank.datasets import simulated_scores


def demo_models(scale: float = 1.0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """E1: labels and the scores of four models (one with rounded, tied scores)."""
    n = max(int(1_000_000 * scale), 1000)
    y, scores = simulated_scores(n, seed=0)
    _, rounded = simulated_scores(n, seed=0, round_decimals=1, separations=(1.0,))
    scores["d=1.0 rounded"] = rounded["d=1.0"]
    return y, scores


def folds(scale: float = 1.0) -> list[tuple[np.ndarray, dict[str, np.ndarray]]]:
    """E2: five folds, each labels plus three models' scores."""
    n = max(int(200_000 * scale), 1000)
    return [simulated_scores(n, seed=k) for k in range(5)]


def write_csv(path: str, scale: float = 1.0) -> None:
    """C1: a CSV of labels and two score columns (``y``, ``a``, ``b``)."""
    n = max(int(1_000_000 * scale), 1000)
    y, scores = simulated_scores(n, seed=1, separations=(1.0, 2.0))
    table = np.column_stack([y.astype(np.float64), scores["d=1.0"], scores["d=2.0"]])
    np.savetxt(path, table, delimiter=",", header="y,a,b", comments="", fmt=["%d", "%.9g", "%.9g"])
