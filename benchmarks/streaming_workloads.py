"""Workloads of the streaming layer (accumulators and bounded-memory summaries).

S1: a stream of float32 probabilities for one task, batches of 1,000,000 rows,
    about 30% positives: ``BinnedSummary.update`` throughput in rows per second.
S2: a multilabel stream, batches of 10,000 rows x 1,000 tasks (float32, 2%
    positives): summary update cost per (row x task).
S3: a training loop's evaluation, 1,000 batches of 1,000 rows (one task, and
    1,000 x 100 rows x 100 tasks): ``Accumulator`` updates plus ``compute()``
    against the one-shot call on the concatenated arrays.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def probabilities(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """S1: bool labels and float32 probabilities of one task."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    logits = rng.standard_normal(n, dtype=np.float32) + np.float32(1.2) * y
    return y, (1 / (1 + np.exp(-logits))).astype(np.float32)


def multilabel(n: int, tasks: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """S2: bool labels and float32 probabilities of shape (n, tasks)."""
    rng = np.random.default_rng(seed)
    y = rng.random((n, tasks)) < 0.02
    logits = rng.standard_normal((n, tasks), dtype=np.float32) + np.float32(1.5) * y
    return y, (1 / (1 + np.exp(-logits))).astype(np.float32)


def batches(count: int, rows: int, tasks: int = 0,
            seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """S3: ``count`` batches of ``rows`` (1-D when ``tasks == 0``), as a loader yields them."""
    for k in range(count):
        if tasks:
            yield multilabel(rows, tasks, seed + k)
        else:
            yield probabilities(rows, seed + k)


def materialise(count: int, rows: int, tasks: int = 0,
                seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """The batches of :func:`batches`, kept in memory so that timing excludes making them."""
    return list(batches(count, rows, tasks, seed))


def concatenated(data: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([y for y, _ in data]), np.concatenate([s for _, s in data])


def numpy_histogram(y: np.ndarray, s: np.ndarray, bins: int) -> np.ndarray:
    """The plain NumPy way to count labels per uniform bin of [0, 1] (a peer of S1)."""
    idx = np.minimum((s * bins).astype(np.int64), bins - 1) + bins * y
    return np.bincount(idx, minlength=2 * bins).reshape(2, bins)
