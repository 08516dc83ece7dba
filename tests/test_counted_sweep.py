"""Batch tasks with few positives: their negatives are counted, not sorted.

A task of the batch kernel with at most ``sorting.count_choice().limit``
positives (and at least as many negatives) counts, for each positive tie
group, the negatives above it and tied with it, and cuts the two runs of
negatives that need their values (the break-even group, the partial AUC's
budget) as the sorted path cuts them. The contract is the batch contract:
every per-task value and break-even threshold is bit for bit the one-task
call's on that column, which sorts. Checked here on inputs built to reach
every branch (one positive, ties across the classes, signed zeros, int64
beyond 2**53, partial AUC budgets falling inside runs), with the limit forced
off and on, and against scikit-learn and a pairwise count for the
label-ranking functions that run through it.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank import UndefinedMetricWarning
from fastrank._core import batches, sorting

sys.path.insert(0, str(Path(__file__).parent))
from strategies import POOLS, PROPERTY_SETTINGS

N_TASKS = batches.FEW_TASKS + 6  # enough columns for the batch kernel
VALUE_FIELDS = ("average_precision", "average_precision_expected", "roc_auc",
                "roc_auc_partial", "pr_auc", "d_prime", "prbe", "prbe_threshold", "positives")


def _bits(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _matrix(rng: np.random.Generator, n: int, t: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels with 0 to ~40 positives per column (some above every limit) and tied
    scores of ``kind``."""
    per = rng.choice([1, 1, 2, 3, 5, 8, 13, 17, 31, 33, 40, 65, 70], size=t)
    y = np.zeros((n, t), bool)
    for j in range(t):
        y[rng.choice(n, size=min(int(per[j]), n // 2), replace=False), j] = True
    u = rng.random((n, t))
    if kind == "float32":
        s = np.round(u + 0.15 * y, 2).astype(np.float32)
    elif kind == "float64":
        s = np.round(u * 30 + 2 * y)  # a few dozen values: ties across the classes
    elif kind == "zeros":  # +0.0 and -0.0 in both classes
        s = np.round(u - 0.5, 1) * rng.choice([-1.0, 1.0], size=(n, t))
    elif kind == "int64":
        s = (np.round(u * 40 + 4 * y).astype(np.int64) - 20) * (1 << 40) + 1
    else:  # bool
        s = u < 0.4
    return y, s


def _limit(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    monkeypatch.setattr(sorting, "count_choice", lambda: sorting.CountChoice(limit, "test"))


def _one_task(y: np.ndarray, s: np.ndarray, max_fpr: float | None) -> list[list[float]]:
    rows = []
    for j in range(y.shape[1]):
        r = fastrank.all_metrics(y[:, j], s[:, j], max_fpr=max_fpr)
        rows.append([math.nan if getattr(r, f) is None else float(getattr(r, f))
                     for f in VALUE_FIELDS])
    return rows


def _batch(y: np.ndarray, s: np.ndarray, max_fpr: float | None) -> np.ndarray:
    r = fastrank.all_metrics(y, s, average=None, max_fpr=max_fpr)
    return np.column_stack([np.full(y.shape[1], np.nan) if getattr(r, f) is None
                            else np.asarray(getattr(r, f), dtype=np.float64)
                            for f in VALUE_FIELDS])


@pytest.mark.parametrize("kind", ["float32", "float64", "zeros", "int64", "bool"])
@pytest.mark.parametrize("max_fpr", [None, 0.05, 0.6])
def test_few_positive_tasks_are_the_one_task_calls_bit_for_bit(kind: str,
                                                               max_fpr: float | None) -> None:
    rng = np.random.default_rng(abs(hash((kind, max_fpr))) % 2**32)
    y, s = _matrix(rng, 700, N_TASKS, kind)
    assert sorting.count_choice().limit >= 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = _batch(y, s, max_fpr)
        want = np.array(_one_task(y, s, max_fpr), dtype=np.float64)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("kind", ["float32", "zeros", "int64"])
def test_the_limit_changes_no_bit(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """The same batch with the counted path off and on everywhere it may run."""
    rng = np.random.default_rng(7)
    y, s = _matrix(rng, 400, N_TASKS, kind)
    outs = []
    for limit in (0, 1 << 40):
        _limit(monkeypatch, limit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            outs.append(np.concatenate([
                _batch(y, s, None).ravel(), _batch(y, s, 0.3).ravel(),
                np.asarray(fastrank.average_precision(y.T, s.T, average="samples")).ravel(),
                np.asarray(fastrank.roc_auc(y.T, s.T, average="samples")).ravel(),
                np.asarray(fastrank.prbe(np.ascontiguousarray(y.T), np.ascontiguousarray(s.T),
                                         average=None, return_threshold=True)).ravel(),
            ]))
    np.testing.assert_array_equal(_bits(outs[0]), _bits(outs[1]))


@PROPERTY_SETTINGS
@given(data=st.data(), dtype=st.sampled_from(["float64", "float32", "int64", "bool"]),
       n=st.integers(2, 60), max_fpr=st.sampled_from([None, 0.1, 0.5]))
def test_property_few_positives(data: st.DataObject, dtype: str, n: int,
                                max_fpr: float | None) -> None:
    pool = POOLS[dtype]
    t = N_TASKS
    cols = data.draw(st.lists(st.lists(st.sampled_from(pool), min_size=n, max_size=n),
                              min_size=1, max_size=3))
    npos = data.draw(st.lists(st.integers(1, max(1, n // 2)), min_size=1, max_size=3))
    s = np.array([cols[j % len(cols)] for j in range(t)], dtype=dtype).T.copy()
    y = np.zeros((n, t), bool)
    for j in range(t):
        m = npos[j % len(npos)]
        y[(np.arange(m) * 7 + j) % n, j] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = _batch(y, s, max_fpr)
        want = np.array(_one_task(y, s, max_fpr), dtype=np.float64)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_nonfinite_negative_is_refused(bad: float, where: str) -> None:
    """Unsorted negatives are scanned whole: a NaN or infinity anywhere is found."""
    rng = np.random.default_rng(3)
    y = np.zeros((500, N_TASKS), bool)
    y[:3, :] = True  # three positives per task: the counted path
    s = rng.random((500, N_TASKS))
    row = {"first": 3, "middle": 250, "last": 499}[where]
    s[row, 41] = bad
    with pytest.raises(ValueError, match="41"):
        fastrank.roc_auc(y, s, average=None)
    with pytest.raises(ValueError):
        fastrank.label_ranking_average_precision(y.T, s.T)


def _lrap_pairwise(y: np.ndarray, s: np.ndarray) -> float:
    """LRAP by its definition, label by label (rows with no or all relevant labels: 1)."""
    total = 0.0
    for yi, si in zip(y, s, strict=True):
        rel = np.flatnonzero(yi)
        if rel.size in (0, yi.size):
            total += 1.0
            continue
        total += np.mean([np.sum(si[rel] >= si[j]) / np.sum(si >= si[j]) for j in rel])
    return total / y.shape[0]


@pytest.mark.parametrize("labels", [50, 1000])
def test_lrap_and_samples_metrics_with_few_relevant_labels(labels: int) -> None:
    rng = np.random.default_rng(labels)
    n = 300
    y = np.zeros((n, labels), bool)
    for i in range(n):
        y[i, rng.choice(labels, size=int(rng.integers(1, 6)), replace=False)] = True
    s = np.round(rng.random((n, labels)) + 0.2 * y, 2).astype(np.float32)
    got = fastrank.label_ranking_average_precision(y, s)
    assert got == pytest.approx(_lrap_pairwise(y, s), abs=1e-12)
    assert got == pytest.approx(skm.label_ranking_average_precision_score(y, s), abs=1e-12)
    assert fastrank.average_precision(y, s, average="samples") == pytest.approx(
        skm.average_precision_score(y, s, average="samples"), abs=1e-12)
    assert fastrank.roc_auc(y, s, average="samples") == pytest.approx(
        skm.roc_auc_score(y, s, average="samples"), abs=1e-12)


@pytest.mark.parametrize(("name", "features", "limit"), [
    ("znver4", "+avx2,+avx512f,+avx512bw,+sse4.2", 64),
    ("skylake-avx512", "+avx2,+avx512f,+avx512bw,+sse4.2", 32),  # 256-bit vectors there
    ("znver3", "+avx2,-avx512f,-avx512bw,+sse4.2", 32),
    ("nehalem", "+sse4.2,-avx2", 8),
    ("generic", "", 8),
])
def test_the_limit_follows_the_vector_width(monkeypatch: pytest.MonkeyPatch, name: str,
                                            features: str, limit: int) -> None:
    import numba

    sorting.count_choice.cache_clear()
    try:
        monkeypatch.setattr(numba.config, "CPU_NAME", name)
        monkeypatch.setattr(numba.config, "CPU_FEATURES", features)
        choice = sorting.count_choice()
        assert choice.limit == limit
        assert "NUMBA_CPU_FEATURES" in choice.reason
    finally:
        sorting.count_choice.cache_clear()
    monkeypatch.undo()
    assert sorting.count_choice().limit in (8, 32, 64)


def test_show_config_names_the_limit() -> None:
    from fastrank import config as cfgmod

    cfg = cfgmod.config()
    assert str(sorting.count_choice().limit) in cfg["unsorted negatives"]


def test_fields_cover_the_results() -> None:
    """Every value field of the one-task result is compared above."""
    fields = {f.name for f in dataclasses.fields(fastrank.BinaryMetrics)}
    assert set(VALUE_FIELDS) <= fields
    assert fields - set(VALUE_FIELDS) <= {"max_fpr", "negatives"}
