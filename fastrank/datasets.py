"""Built-in example data: simulated scores of classifiers of known quality."""

from __future__ import annotations

import numpy as np

from ._core.options import check_count

__all__ = ["simulated_scores"]


def simulated_scores(
    n_samples: int = 100_000,
    *,
    prevalence: float = 0.1,
    separations: tuple[float, ...] = (0.5, 1.0, 2.0),
    round_decimals: int | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Labels and the scores of several simulated models, deterministically.

    Each model scores negatives from N(0, 1) and positives from N(d, 1) for
    its separation ``d``, so its true d' is ``d`` and its true ROC AUC is
    ``Phi(d / sqrt(2))``: a check that the metrics recover what was simulated.

    Parameters
    ----------
    n_samples : int, default 100_000
        Number of samples (shared by all models).
    prevalence : float, default 0.1
        Expected fraction of positives.
    separations : tuple of float, default (0.5, 1.0, 2.0)
        One model per separation, named ``"d=<value>"``.
    round_decimals : int, optional
        Round every model's scores to this many decimals (heavy ties).
    seed : int, default 0
        Seed of the random generator; equal seeds give equal data.

    Returns
    -------
    y_true : ndarray of bool, shape (n_samples,)
    scores : dict of str to ndarray of float64, shape (n_samples,)

    Examples
    --------
    >>> from fastrank.datasets import simulated_scores
    >>> y, scores = simulated_scores(1000, seed=1)
    >>> sorted(scores), y.shape
    (['d=0.5', 'd=1.0', 'd=2.0'], (1000,))
    """
    n_samples = check_count(n_samples, "n_samples", item_bytes=9 * len(separations))
    if not 0.0 < prevalence < 1.0:
        raise ValueError(f"prevalence must be in (0, 1); got {prevalence}")
    rng = np.random.default_rng(seed)
    y_true = rng.random(n_samples) < prevalence
    noise = rng.standard_normal((len(separations), n_samples))
    scores = {}
    for d, z in zip(separations, noise, strict=True):
        s = z + d * y_true
        if round_decimals is not None:
            s = np.round(s, round_decimals)
        scores[f"d={d}"] = s
    return y_true, scores
