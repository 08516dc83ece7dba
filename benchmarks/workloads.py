"""The workloads every fastrank benchmark measures, generated deterministically.

W1  1,000,000 float64 scores, continuous, 10% positives
W2  the W1 scores rounded to 2 decimals (heavy ties: 101 distinct values)
W3  the W1 scores as float32
W5  1,000 float64 scores, 10% positives (one call of a training loop)
"""

from __future__ import annotations

import numpy as np

LARGE = 1_000_000
SMALL = 1_000


def _base(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.1
    scores = rng.standard_normal(n) + 1.5 * y  # a decent model, not a perfect one
    return y, scores


def workload(name: str, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, y_score)`` of workload ``name`` (W1, W2, W3 or W5)."""
    if name == "W5":
        return _base(n or SMALL, 5)
    y, s = _base(n or LARGE, 1)
    if name == "W1":
        return y, s
    if name == "W2":
        return y, np.round(1.0 / (1.0 + np.exp(-s)), 2)  # probabilities to 2 decimals
    if name == "W3":
        return y, s.astype(np.float32)
    raise ValueError(f"unknown workload {name!r}")


WORKLOADS = {
    "W1": "1e6 float64, continuous",
    "W2": "1e6 float64, rounded to 2 decimals",
    "W3": "1e6 float32, continuous",
    "W5": "1e3 float64, per call",
}
