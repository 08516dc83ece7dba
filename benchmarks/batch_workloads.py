"""The batched and grouped workloads, generated deterministically.

B1  100,000 samples x 1,000 labels, float32 scores (C order), about 2%
    positives per label (bool labels): a multilabel tagging output.
G1  1,000,000 rows in 10,000 groups of varied size (log-normal, 1 to ~1,500
    rows), rows in random group order, float64 scores, 10% positives:
    a recommender log scored per user (GAUC) or per query (mAP).

``scale`` shrinks every workload (sample counts, labels and groups) for
smoke runs.
"""

from __future__ import annotations

import numpy as np

B1_SHAPE = (100_000, 1_000)
G1_ROWS = 1_000_000
G1_GROUPS = 10_000


def multilabel(scale: float = 1.0, dtype: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """B1: ``(y_true bool, y_score)`` of shape (n_samples, n_labels), C order."""
    n = max(200, int(B1_SHAPE[0] * scale))
    t = max(4, int(B1_SHAPE[1] * scale))
    rng = np.random.default_rng(11)
    prevalence = rng.uniform(0.01, 0.03, t).astype(np.float32)
    y = rng.random((n, t), dtype=np.float32) < prevalence
    s = rng.standard_normal((n, t), dtype=np.float32)
    s += y  # a model that ranks positives higher, with plenty of overlap
    return y, s.astype(dtype, copy=False)


def grouped(scale: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """G1: ``(y_true bool, y_score float64, groups int64)``, rows shuffled."""
    rows = max(1000, int(G1_ROWS * scale))
    ngroups = max(10, int(G1_GROUPS * scale))
    rng = np.random.default_rng(12)
    raw = rng.lognormal(0.0, 1.0, ngroups)
    sizes = np.maximum(1, np.floor(raw / raw.sum() * rows)).astype(np.int64)
    sizes[np.argmax(sizes)] += rows - sizes.sum()
    groups = np.repeat(rng.permutation(10 * ngroups)[:ngroups], sizes)
    rng.shuffle(groups)
    y = rng.random(rows) < 0.1
    s = rng.standard_normal(rows) + y
    return y, s, groups
