"""What the label-ranking and top-k modules share: each sample's labels as one task,
and the mean over the samples (or lists) where a value is defined."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import api, inputs, reduce

WHAT = "ranking each sample's labels"


def sample_rows(y_true: Any, y_score: Any, sample_weight: Any
          ) -> tuple[inputs.Batch, np.ndarray | None]:
    """One task per sample (its labels), checked, and the samples' weights."""
    s = inputs.as_array(y_score, "y_score")
    return api.sample_batch(y_true, s, sample_weight, None, what=WHAT)


def sample_mean(values: np.ndarray, weights: np.ndarray | None, said: list[str] | None = None
          ) -> float:
    """The (weighted) mean over the samples (or lists) where ``values`` is defined; NaN
    when none is, or their weights sum to 0 (the class totals do not enter it; see
    :func:`~fastrank._core.reduce.average` for ``said``)."""
    return reduce.average(values, values, values, "samples", weights, said)
