"""Workloads of the Dask layer, generated block by block so that workers can make
their own share and the in-process baseline can make the same data whole.

D1: a multilabel output of 1,000,000 samples x 100 tasks, float32 scores,
    about 5% positives per task, in blocks of 10 tasks (whole columns).
D2: one task of n samples (float32 scores, 10% positives), in chunks of
    1,000,000, for n from 2 to 16 million: the exact range-shuffle path and the
    binned summary against the in-process call.
D3: a log of 2,000,000 rows from 20,000 users (per-user AUC), in 8 partitions
    that split users across partitions.
"""

from __future__ import annotations

import numpy as np


def task_block(j: int, n: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (bool) and float32 scores of tasks ``j*width ..`` of D1."""
    rng = np.random.default_rng(1000 + j)
    y = rng.random((n, width)) < 0.05
    s = (rng.standard_normal((n, width), dtype=np.float32) + np.float32(1.0) * y)
    return y, s.astype(np.float32)


def labels_block(j: int, n: int, width: int) -> np.ndarray:
    return task_block(j, n, width)[0]


def scores_block(j: int, n: int, width: int) -> np.ndarray:
    return task_block(j, n, width)[1]


def d1_in_memory(n: int = 1_000_000, tasks: int = 100,
                 width: int = 10) -> tuple[np.ndarray, np.ndarray]:
    blocks = [task_block(j, n, width) for j in range(tasks // width)]
    return np.hstack([b[0] for b in blocks]), np.hstack([b[1] for b in blocks])


def chunk(i: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Chunk ``i`` of the one big task of D2: labels and float32 scores (rounded: ties)."""
    rng = np.random.default_rng(2000 + i)
    y = rng.random(rows) < 0.1
    s = np.round(rng.standard_normal(rows) + 1.2 * y, 4).astype(np.float32)
    return y, s


def chunk_labels(i: int, rows: int) -> np.ndarray:
    return chunk(i, rows)[0]


def chunk_scores(i: int, rows: int) -> np.ndarray:
    return chunk(i, rows)[1]


def d2_in_memory(chunks: int, rows: int = 1_000_000) -> tuple[np.ndarray, np.ndarray]:
    parts = [chunk(i, rows) for i in range(chunks)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def log_frame(rows: int = 2_000_000, users: int = 20_000, seed: int = 3) -> object:
    """D3 as a pandas DataFrame: user, label, score."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, rows)
    label = rng.random(rows) < 0.2
    score = (rng.standard_normal(rows) + label).astype(np.float32)
    return pd.DataFrame({"user": user, "label": label, "score": score})
