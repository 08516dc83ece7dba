"""One large task on several threads: bit for bit the one-thread result.

A task of at least ``workers.PARALLEL_MIN`` samples is cut into score ranges
(split by class in the same pass) that are sorted and swept side by side; the
ranges' states are then combined exactly. Any cut must give the one-thread
numbers, for every score dtype, with ties, signed zeros and zero weights.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

import fastrank
from fastrank._core import workers

N = workers.PARALLEL_MIN + 4099
FIELDS = ("average_precision", "roc_auc", "pr_auc", "prbe", "prbe_threshold", "d_prime",
          "positives", "negatives")


def _scores(rng: np.random.Generator, y: np.ndarray, dtype: str, ties: bool) -> np.ndarray:
    s = rng.normal(size=y.shape[0]) + y
    if ties:
        s = np.round(s * 3)
    if dtype in ("int64", "int32"):
        return (s * 100).astype(dtype)
    if dtype == "uint64":
        return ((s - s.min()) * 100).astype(dtype)
    if dtype == "bool":
        return s > 0.5
    out = s.astype(dtype)
    out[rng.random(y.shape[0]) < 0.01] = -0.0
    return out


def _same(a: object, b: object) -> None:
    for name in FIELDS:
        x, z = getattr(a, name), getattr(b, name)
        assert x == z or (math.isnan(x) and math.isnan(z)), (name, x, z)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint64", "int32", "bool"])
@pytest.mark.parametrize("weights", [None, "positive", "with zeros"])
def test_threads_give_the_one_thread_numbers(dtype: str, weights: str | None) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{dtype}-{weights}".encode()))
    for prevalence, ties in ((0.02, False), (0.5, True), (0.9, False)):
        y = (rng.random(N) < prevalence).astype(np.int64)
        s = _scores(rng, y, dtype, ties)
        w = None
        if weights is not None:
            w = rng.random(N) * 3
            if weights == "with zeros":
                w[rng.random(N) < 0.3] = 0.0
        with workers.thread_limit(1):
            one = fastrank.all_metrics(y, s, sample_weight=w)
            curve = fastrank.roc_curve(y, s, sample_weight=w)
        with workers.thread_limit(2):
            two = fastrank.all_metrics(y, s, sample_weight=w)
            curve2 = fastrank.roc_curve(y, s, sample_weight=w)
        _same(one, two)
        for a, b in zip(curve, curve2, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("where", [0, 77_777, N - 1])
@pytest.mark.parametrize("bad", [np.nan, -np.nan, np.inf, -np.inf])
def test_nonfinite_score_in_a_large_task_is_named(where: int, bad: float) -> None:
    rng = np.random.default_rng(where)
    y = (rng.random(N) < 0.1).astype(np.int64)
    s = rng.normal(size=N)
    s[where] = bad
    with workers.thread_limit(2):
        with pytest.raises(ValueError, match=rf"non-finite value \(-?(nan|inf) at index {where}\)"):
            fastrank.all_metrics(y, s)
