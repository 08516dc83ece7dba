"""int64 scores reach the sweep kernels as uint64 with the sign bit flipped (one
kernel variant for every 64-bit integer; the sweep turns its keys back). Every
path that sweeps sorted classes is checked here against an oracle that never
sees an int64 sweep: the same task with each score replaced by its rank among
the distinct scores (float64, exact below 2**53), whose thresholds map back to
the integers through that rank. Scores sit at and around both ends of int64,
around zero (whose flipped form is the sign bit) and past 2**53, full of ties.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastrank
from fastrank._core import tie_tables, workers

_EDGES = np.array([-(2**63), -(2**63) + 1, -(2**53) - 1, -1, 0, 1, 2**53 + 1, 2**63 - 2,
                   2**63 - 1], np.int64)


def _scores(rng: np.random.Generator, n: int, distinct: int) -> np.ndarray:
    """``n`` int64 scores over about ``distinct`` values, the edges among them."""
    pool = np.unique(np.concatenate([_EDGES, rng.integers(-(2**63), 2**63 - 1, distinct,
                                                          dtype=np.int64)]))
    return rng.choice(pool, n)


def _ranked(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, inv = np.unique(s, return_inverse=True)
    return distinct, inv.astype(np.float64)


def _same(a: object, b: object) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool(np.array_equal(a, b, equal_nan=True))


# sizes: one kernel call (sweep_one), many distinct values past the tie-counting
# bound (sorted and swept), and past the bound where a task is cut into score
# ranges swept on several threads
@pytest.mark.parametrize("n", [40, 5_000, tie_tables.HASH_MIN + 7, workers.PARALLEL_MIN + 1_000])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_task_equals_its_ranks(n: int, weighted: bool) -> None:
    rng = np.random.default_rng(n + weighted)
    s = _scores(rng, n, max(8, n // 3))
    y = rng.random(n) < 0.3
    y[:2] = (True, False)
    w = rng.random(n) + 0.5 if weighted else None
    distinct, f = _ranked(s)
    got = fastrank.all_metrics(y, s, sample_weight=w).as_dict()
    want = fastrank.all_metrics(y, f, sample_weight=w).as_dict()
    assert got.pop("prbe_threshold") == distinct[int(want.pop("prbe_threshold"))]
    for name, value in want.items():
        assert _same(got[name], value), name
    # the curves' thresholds are the integers themselves
    fpr, tpr, thr = fastrank.roc_curve(y, s, sample_weight=w)
    fpr2, tpr2, thr2 = fastrank.roc_curve(y, f, sample_weight=w)
    assert _same(fpr, fpr2) and _same(tpr, tpr2)
    assert np.array_equal(thr[1:], distinct[thr2[1:].astype(np.int64)])
    # a readout's threshold: the exact int, flagging what the ranks flag
    r = fastrank.sensitivity_at_specificity(y, s, 0.8, sample_weight=w)
    r2 = fastrank.sensitivity_at_specificity(y, f, 0.8, sample_weight=w)
    assert r.value == r2.value
    assert r.threshold == distinct[int(r2.threshold)] and isinstance(r.threshold, int)


@pytest.mark.parametrize("shape", [(30, 200), (3_000, 70)])
def test_batched_columns_equal_their_ranks(shape: tuple[int, int]) -> None:
    """Many small columns: the batch kernel (its own sort, then the flip inside)."""
    rng = np.random.default_rng(shape[0])
    n, t = shape
    S = _scores(rng, n * t, 40).reshape(n, t)
    Y = rng.random((n, t)) < 0.25
    Y[0], Y[1] = True, False
    F = np.empty((n, t))
    for j in range(t):
        F[:, j] = _ranked(S[:, j])[1]
    for fn in (fastrank.average_precision, fastrank.roc_auc, fastrank.pr_auc):
        assert _same(fn(Y, S, average=None), fn(Y, F, average=None)), fn.__name__
    got = fastrank.sensitivity_at_specificity(Y, S, 0.7)
    want = fastrank.sensitivity_at_specificity(Y, F, 0.7)
    assert _same(got.value, want.value)
    for j in range(t):  # batched thresholds come as float64: compare them as such
        if np.isinf(want.threshold[j]):  # (flag nothing)
            assert got.threshold[j] == want.threshold[j]
            continue
        distinct = np.unique(S[:, j])
        assert got.threshold[j] == np.float64(distinct[int(want.threshold[j])])


def test_groups_equal_their_ranks() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    g = rng.integers(0, 300, n)
    s = _scores(rng, n, 500)
    y = rng.random(n) < 0.3
    _, f = _ranked(s)
    got = fastrank.roc_auc(y, s, groups=g, average=None)
    want = fastrank.roc_auc(y, f, groups=g, average=None)
    assert _same(got.values, want.values)
