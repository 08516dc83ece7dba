"""Workloads of the uncertainty layer, and the NumPy DeLong baseline it is measured against.

U1: one task of 1,000,000 samples (the W1 model): DeLong variance against the AUC.
U2: two models on a multilabel output of 100,000 samples x 1,000 labels,
    float32, about 2% positives per label: the paired DeLong test per label.
U3: average precision of one task of 100,000 samples, 1,000 bootstrap resamples.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def two_models(scale: float = 1.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """U2: labels (bool) and two models' float32 scores, shape (n, t)."""
    n = max(int(100_000 * scale), 1000)
    t = max(int(1_000 * scale), 8)
    rng = np.random.default_rng(seed)
    y = rng.random((n, t)) < 0.02
    a = (rng.standard_normal((n, t), dtype=np.float32) + y).astype(np.float32)
    b = (rng.standard_normal((n, t), dtype=np.float32) + np.float32(0.8) * y).astype(np.float32)
    return y, a, b


def fast_delong_numpy(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sun & Xu's fast DeLong for k models on one label, in NumPy/SciPy.

    ``scores`` is (k, n). Midranks within the positives, within the negatives
    and overall give every placement; returns the AUCs and their covariance.
    This is the algorithm's usual vectorised Python form (ranks by
    ``scipy.stats.rankdata``), the baseline fastrank's batched test is measured
    against.
    """
    pos = y.astype(bool)
    m = int(pos.sum())
    n = y.shape[0] - m
    x = scores[:, pos]
    z = scores[:, ~pos]
    tx = rankdata(x, axis=1)
    tz = rankdata(z, axis=1)
    tall = rankdata(np.concatenate([x, z], axis=1), axis=1)
    aucs = (tall[:, :m].sum(axis=1) / m - (m + 1) / 2) / n
    v10 = (tall[:, :m] - tx) / n  # each positive's share of negatives below it
    v01 = 1.0 - (tall[:, m:] - tz) / m  # each negative's share of positives above it
    return aucs, np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n


def paired_numpy(y: np.ndarray, a: np.ndarray, b: np.ndarray, labels: range) -> np.ndarray:
    """z of the paired test for the given labels, looping :func:`fast_delong_numpy`."""
    z = np.empty(len(labels))
    for i, j in enumerate(labels):
        aucs, cov = fast_delong_numpy(y[:, j], np.vstack([a[:, j], b[:, j]]))
        z[i] = (aucs[0] - aucs[1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    return z


def _midranks_loop(x: np.ndarray) -> np.ndarray:
    """Midranks (1-based) by a sort and a Python loop over tie runs.

    The form most published NumPy ports of fast DeLong use.
    """
    order = np.argsort(x)
    z = x[order]
    n = x.shape[0]
    t = np.zeros(n)
    i = 0
    while i < n:
        j = i
        while j < n and z[j] == z[i]:
            j += 1
        t[i:j] = 0.5 * (i + j - 1) + 1
        i = j
    out = np.empty(n)
    out[order] = t
    return out


def fast_delong_loop(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fast_delong_numpy` with the midranks of :func:`_midranks_loop`."""
    pos = y.astype(bool)
    m = int(pos.sum())
    n = y.shape[0] - m
    k = scores.shape[0]
    x = scores[:, pos]
    z = scores[:, ~pos]
    tx = np.array([_midranks_loop(x[r]) for r in range(k)])
    tz = np.array([_midranks_loop(z[r]) for r in range(k)])
    tall = np.array([_midranks_loop(np.concatenate([x[r], z[r]])) for r in range(k)])
    aucs = (tall[:, :m].sum(axis=1) / m - (m + 1) / 2) / n
    v10 = (tall[:, :m] - tx) / n
    v01 = 1.0 - (tall[:, m:] - tz) / m
    return aucs, np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n


def one_task(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """U1/U3: labels (10% positive) and scores of one Gaussian model, d' = 1."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.1
    return y, rng.standard_normal(n) + y


def bootstrap_sklearn(y: np.ndarray, s: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """The scikit-learn loop: stratified resamples, ``average_precision_score`` on each."""
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(y)
    neg = np.flatnonzero(~y)
    out = np.empty(n_resamples)
    for b in range(n_resamples):
        rows = np.concatenate([rng.choice(pos, pos.size), rng.choice(neg, neg.size)])
        out[b] = average_precision_score(y[rows], s[rows])
    return out
