"""Multilabel batches: 2-D ``y_true`` and ``y_score``, one task per column.

The contract: with ``average=None`` every per-task value is *bit for bit* the
single-task function on that column (same weights, same keywords), whatever
the memory order, score dtype, label encoding, sparse labels, the number of
Numba threads or concurrent Python threads. Undefined tasks are NaN and are
announced by exactly one UndefinedMetricWarning per call, whose message holds
their number. Averages: against scikit-learn 1.9.1 (AP and ROC AUC, every
task defined, 1e-12) and against averages computed by hand from the per-task
values (tests/oracles.py ``task_mean``, exact Fractions rounded once).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import UndefinedMetricWarning

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import assert_fields_close, assert_warned, call, close, quiet, same_float
from strategies import (
    ALL_DTYPES,
    DYADIC_WEIGHTS,
    INT_WEIGHTS,
    POOLS,
    PROPERTY_SETTINGS,
    REAL_WEIGHTS,
)

TOL = 1e-12
SCALAR = ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe")
NEEDS_POSITIVES = ("average_precision", "pr_auc", "prbe")  # undefined without positives
FIELDS = tuple(f.name for f in dataclasses.fields(fastrank.BinaryMetrics))
# Fields that are metric values (averaged like the functions' results).
METRIC_FIELDS = (
    "average_precision",
    "average_precision_expected",
    "roc_auc",
    "roc_auc_partial",
    "pr_auc",
    "d_prime",
    "prbe",
)
AVERAGES = ("macro", "weighted", "size", "pairs")


# --------------------------------------------------------------------- helpers


def as_float_array(values: list[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def assert_task_values(got: Any, want: list[Any]) -> None:
    """A float64 array equal bit for bit (NaN == NaN) to the single-task values."""
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == np.float64, got.dtype
    assert got.shape == (len(want),), (got.shape, len(want))
    want_arr = as_float_array(want)
    np.testing.assert_array_equal(got, want_arr)
    # -0.0 vs 0.0 and NaN payloads aside, the bits of finite values agree
    finite = np.isfinite(want_arr)
    np.testing.assert_array_equal(got[finite].view(np.uint64), want_arr[finite].view(np.uint64))


def to01(y: np.ndarray, pos_label: Any = None) -> np.ndarray:
    """A label matrix in any accepted encoding as 0/1 int64."""
    y = np.asarray(y)
    if pos_label is not None:
        return (y == pos_label).astype(np.int64)
    if y.dtype == bool:
        return y.astype(np.int64)
    return (y == 1).astype(np.int64)


def class_totals(y01: np.ndarray, w: np.ndarray | None) -> tuple[list[float], list[float]]:
    """Per-column positive and negative totals (exact sums, rounded once)."""
    n, t = y01.shape
    weights = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    pos = [math.fsum(weights[y01[:, k] == 1]) for k in range(t)]
    neg = [math.fsum(weights[y01[:, k] == 0]) for k in range(t)]
    return pos, neg


def n_undefined(name: str, pos: list[float], neg: list[float]) -> int:
    if name in NEEDS_POSITIVES:
        return sum(p == 0 for p in pos)
    return sum(p == 0 or q == 0 for p, q in zip(pos, neg, strict=True))


def binary_metrics_fields_equal(got: Any, singles: list[fastrank.BinaryMetrics]) -> None:
    """A BatchMetrics equals, field by field, the single-task BinaryMetrics per task."""
    assert type(got).__name__ == "BatchMetrics"
    assert isinstance(got, fastrank.BatchMetrics)
    for name in FIELDS:
        want = [getattr(m, name) for m in singles]
        value = getattr(got, name)
        if all(v is None for v in want):
            assert value is None, (name, value)
        elif name == "max_fpr":
            # one number for the call: accepted as a scalar or one entry per task
            assert np.all(np.asarray(value, dtype=np.float64) == want[0]), (value, want[0])
        else:
            try:
                assert_task_values(value, want)
            except AssertionError as exc:
                raise AssertionError(f"field {name}: {exc}") from exc


def check_every_function(
    y: Any,
    s: Any,
    *,
    w: np.ndarray | None = None,
    pos_label: Any = None,
    y_ref: np.ndarray | None = None,
) -> None:
    """Every function with average=None against the single-task function per column.

    ``y_ref``: dense labels for the reference calls (when ``y`` is sparse).
    """
    y_ref = np.asarray(y) if y_ref is None else y_ref
    s_ref = np.asarray(s)
    t = s_ref.shape[1]
    pos, neg = class_totals(to01(y_ref, pos_label), w)
    kw = {"sample_weight": w, "pos_label": pos_label}

    def columns(func: Any, **extra: Any) -> list[Any]:
        return [quiet(func, y_ref[:, k], s_ref[:, k], **kw, **extra) for k in range(t)]

    for name in SCALAR:
        func = getattr(fastrank, name)
        got, rec = call(func, y, s, average=None, **kw)
        assert_task_values(got, columns(func))
        assert_warned(rec, n_undefined(name, pos, neg))

    got, rec = call(fastrank.roc_auc, y, s, average=None, max_fpr=0.3, **kw)
    assert_task_values(got, columns(fastrank.roc_auc, max_fpr=0.3))
    assert_warned(rec, n_undefined("roc_auc", pos, neg))

    if w is None:
        got, rec = call(fastrank.average_precision, y, s, average=None, ties="expected", **kw)
        assert_task_values(got, columns(fastrank.average_precision, ties="expected"))
        assert_warned(rec, n_undefined("average_precision", pos, neg))

    got, rec = call(fastrank.prbe, y, s, average=None, return_threshold=True, **kw)
    assert isinstance(got, tuple) and len(got) == 2
    want = columns(fastrank.prbe, return_threshold=True)
    assert_task_values(got[0], [v for v, _ in want])
    assert_task_values(got[1], [thr for _, thr in want])
    assert_warned(rec, n_undefined("prbe", pos, neg))

    any_undefined = n_undefined("roc_auc", pos, neg) > 0
    for max_fpr in (None, 0.3):
        got, rec = call(fastrank.all_metrics, y, s, average=None, max_fpr=max_fpr, **kw)
        binary_metrics_fields_equal(got, columns(fastrank.all_metrics, max_fpr=max_fpr))
        assert got.groups is None
        assert len(rec) == (1 if any_undefined else 0), [str(r.message) for r in rec]


def label_matrix(rng: np.random.Generator, n: int, t: int, *, one_class: bool) -> np.ndarray:
    """0/1 labels; with ``one_class`` column 0 has no positives, the last no negatives."""
    y = (rng.random((n, t)) < rng.uniform(0.2, 0.6, t)).astype(np.int64)
    y[0, :] = 1  # every column has both classes unless forced below
    y[1, :] = 0
    if one_class:
        y[:, 0] = 0
        y[:, -1] = 1
    return y


def score_matrix(rng: np.random.Generator, y01: np.ndarray, dtype: str) -> np.ndarray:
    """Scores that depend on the labels, with heavy ties (few distinct values)."""
    shape = y01.shape
    if dtype == "bool":
        return rng.random(shape) < 0.3 + 0.4 * y01
    if dtype == "int64":
        return rng.integers(-3, 4, shape) + y01
    return (np.round(2 * (rng.standard_normal(shape) + y01)) / 2).astype(dtype)  # ~12 values


def real_weights(rng: np.random.Generator, n: int) -> np.ndarray:
    w = rng.uniform(0.0, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    return w


def layout(a: np.ndarray, order: str) -> np.ndarray:
    out = np.asfortranarray(a) if order == "F" else np.ascontiguousarray(a)
    if order == "F" and a.shape[0] > 1 and a.shape[1] > 1:
        assert not out.flags.c_contiguous
    return out


# ----------------------------------------------------------- per task == single


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_per_task_equals_single_task(order, dtype, weighted):
    seed = 100 * "CF".index(order) + 10 * ["float32", "float64", "int64", "bool"].index(dtype)
    rng = np.random.default_rng(seed + weighted)
    n, t = 70, 5
    y = label_matrix(rng, n, t, one_class=True)
    s = score_matrix(rng, y, dtype)
    w = real_weights(rng, n) if weighted else None
    check_every_function(layout(y, order), layout(s, order), w=w)


@pytest.mark.parametrize(
    "encoding", ["int01", "bool", "pm1", "float01", "str_pos_label", "pos_label_0", "int8"]
)
def test_label_encodings(encoding):
    rng = np.random.default_rng(5)
    y01 = label_matrix(rng, 40, 4, one_class=True)
    s = score_matrix(rng, y01, "float64")
    pos_label = None
    if encoding == "int01":
        y = y01
    elif encoding == "bool":
        y = y01.astype(bool)
    elif encoding == "pm1":
        y = np.where(y01 == 1, 1, -1)
    elif encoding == "float01":
        y = y01.astype(np.float64)
    elif encoding == "str_pos_label":
        y, pos_label = np.where(y01 == 1, "yes", "no"), "yes"
    elif encoding == "pos_label_0":
        # a 0/1 label matrix is multilabel indicators: its positive class is 1 (as in
        # scikit-learn); pos_label=0 is refused rather than flipping every column
        for name in SCALAR:
            with pytest.raises(ValueError, match="pos_label=0"):
                getattr(fastrank, name)(1 - y01, s, average=None, pos_label=0)
        return
    else:
        y = y01.astype(np.int8)
    check_every_function(y, s, pos_label=pos_label)
    # and the same numbers as the plain 0/1 encoding
    for name in SCALAR:
        func = getattr(fastrank, name)
        want = quiet(func, y01, s, average=None)
        got = quiet(func, y, s, average=None, pos_label=pos_label)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [32768, 40000])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_large_tasks(n, weighted):
    """Past 32768 samples the engine switches algorithms; per-task values must not move."""
    rng = np.random.default_rng(n + weighted)
    t = 3
    y = (rng.random((n, t)) < [0.05, 0.3, 0.6]).astype(np.int64)
    s = np.round(rng.standard_normal((n, t)) + y, 2)  # a few hundred distinct values
    s[:, 1] = np.round(s[:, 1], 0)  # one column with a handful of huge tie groups
    w = real_weights(rng, n) if weighted else None
    check_every_function(y, s, w=w)


def test_many_tasks_few_samples():
    rng = np.random.default_rng(11)
    y = label_matrix(rng, 6, 50, one_class=False)
    y[:, 10:13] = 0  # three tasks without positives
    s = rng.integers(0, 3, y.shape).astype(np.float64)
    check_every_function(y, s)
    check_every_function(y, s, w=rng.integers(0, 3, 6).astype(np.float64))


def test_single_sample_and_single_task():
    y = np.array([[1, 0, 1]])
    s = np.array([[0.5, 0.5, 0.1]])
    check_every_function(y, s)
    rng = np.random.default_rng(2)
    y1 = label_matrix(rng, 30, 1, one_class=False)
    s1 = score_matrix(rng, y1, "float64")
    check_every_function(y1, s1)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a[:, ::-1],
        lambda a: np.repeat(a, 2, axis=0)[::2],
        lambda a: np.repeat(a, 2, axis=1)[:, ::2],
        lambda a: np.asfortranarray(a)[::-1],
        lambda a: a.astype(a.dtype.newbyteorder(">")) if a.dtype.itemsize > 1 else a,
        lambda a: a.copy(),
        lambda a: a.tolist(),
    ],
    ids=[
        "reversed-columns",
        "strided-rows",
        "strided-columns",
        "F-reversed",
        "big-endian",
        "read-only",
        "lists",
    ],
)
def test_awkward_layouts_equal_contiguous_copies(make):
    """Views (sliced probability columns, reversed, big-endian, read-only) and plain lists."""
    rng = np.random.default_rng(12)
    y = label_matrix(rng, 30, 4, one_class=True)
    s = score_matrix(rng, y, "float64")
    w = real_weights(rng, 30)
    y_l, s_l = make(y), make(s)
    for a in (y_l, s_l):
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    y_c, s_c = np.array(y_l), np.array(s_l)
    for name in SCALAR:
        func = getattr(fastrank, name)
        got = quiet(func, y_l, s_l, sample_weight=w, average=None)
        np.testing.assert_array_equal(got, quiet(func, y_c, s_c, sample_weight=w, average=None))
    check_every_function(y_l, s_l, w=w, y_ref=y_c)


# ----------------------------------------------------------- undefined tasks


def test_one_class_tasks_are_nan_with_one_warning_giving_the_count():
    rng = np.random.default_rng(3)
    y = label_matrix(rng, 50, 7, one_class=False)
    y[:, 1] = 0
    y[:, 4] = 0  # two tasks without positives
    y[:, 5] = 1  # one without negatives
    s = score_matrix(rng, y, "float64")
    for name in SCALAR:
        func = getattr(fastrank, name)
        expected_nan = [1, 4] if name in NEEDS_POSITIVES else [1, 4, 5]
        values, rec = call(func, y, s, average=None)
        assert np.flatnonzero(np.isnan(values)).tolist() == expected_nan, name
        assert_warned(rec, len(expected_nan))
        for average in AVERAGES:
            value, rec = call(func, y, s, average=average)
            assert isinstance(value, float), (name, average, type(value))
            assert not math.isnan(value)
            assert_warned(rec, len(expected_nan))
    # AP of a task without negatives is defined (1), as for one task
    assert quiet(fastrank.average_precision, y, s, average=None)[5] == 1.0


@pytest.mark.parametrize("name", SCALAR)
def test_no_task_defined_gives_nan(name):
    y = np.zeros((20, 3), dtype=np.int64)
    s = np.random.default_rng(0).standard_normal((20, 3))
    func = getattr(fastrank, name)
    for average in AVERAGES:
        value, rec = call(func, y, s, average=average)
        assert math.isnan(value)
        assert_warned(rec, 3)
    values, rec = call(func, y, s, average=None)
    assert values.shape == (3,) and np.isnan(values).all()
    assert_warned(rec, 3)


def test_zero_weights_make_a_task_undefined():
    rng = np.random.default_rng(4)
    y = label_matrix(rng, 30, 3, one_class=False)
    s = score_matrix(rng, y, "float64")
    w = np.ones(30)
    w[y[:, 0] == 1] = 0.0  # no positive weight in task 0 (and also none elsewhere there)
    check_every_function(y, s, w=w)
    values = quiet(fastrank.average_precision, y, s, sample_weight=w, average=None)
    assert math.isnan(values[0])


MODES = {
    "multilabel": lambda: (np.array([[0, 1], [0, 0], [0, 1], [0, 0]]), np.eye(4)[:, :2], {}),
    "multiclass": lambda: (
        np.array([0, 1, 0, 1]),
        np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5], [0.1, 0.9]]),
        {"labels": [0, 1]},
    ),
    "grouped": lambda: (
        np.array([0, 1, 0, 0]),
        np.array([0.1, 0.2, 0.3, 0.4]),
        {"groups": np.array([1, 1, 2, 2])},
    ),
}


@pytest.mark.parametrize("average", [None, "macro"])
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", [*SCALAR, "all_metrics"])
def test_warning_points_at_the_callers_line(name, mode, average):
    y, s, kw = MODES[mode]()
    if mode == "multiclass":
        y = np.array([1, 1, 1, 1])  # class 0 absent: its task has no positives
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        getattr(fastrank, name)(y, s, average=average, **kw)
    assert len(rec) == 1, [str(r.message) for r in rec]
    assert issubclass(rec[0].category, UndefinedMetricWarning)
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)


# ------------------------------------------------------------- against sklearn


def all_defined_inputs(seed: int, order: str = "C") -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = label_matrix(rng, 120, 5, one_class=False)
    s = np.round(rng.standard_normal(y.shape) + y, 1)
    return layout(y, order), layout(s, order)


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(
    "name, sk",
    [
        ("average_precision", skm.average_precision_score),
        ("roc_auc", skm.roc_auc_score),
    ],
)
def test_against_sklearn(name, sk, average, weighted, order):
    y, s = all_defined_inputs(17, order)
    w = np.random.default_rng(1).uniform(0.1, 2.0, y.shape[0]) if weighted else None
    got = getattr(fastrank, name)(y, s, sample_weight=w, average=average)
    want = sk(y, s, sample_weight=w, average=average)
    if average is None:
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
    else:
        assert isinstance(got, float)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


@pytest.mark.parametrize("average", [None, "macro", "weighted"])
@pytest.mark.parametrize("max_fpr", [0.1, 0.5])
def test_partial_roc_auc_against_sklearn(average, max_fpr):
    y, s = all_defined_inputs(23)
    w = np.random.default_rng(2).uniform(0.1, 2.0, y.shape[0])
    got = fastrank.roc_auc(y, s, sample_weight=w, average=average, max_fpr=max_fpr)
    want = skm.roc_auc_score(y, s, sample_weight=w, average=average, max_fpr=max_fpr)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


# --------------------------------------------------------------- averages by hand


def averaging_inputs(weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(31 + weighted)
    y = label_matrix(rng, 60, 6, one_class=True)  # undefined tasks must be left out
    # tasks of different prevalence, so that the weightings differ
    y[:, 2] = (rng.random(60) < 0.1).astype(np.int64)
    y[0, 2] = 1
    s = score_matrix(rng, y, "float64")
    w = real_weights(rng, 60) if weighted else None
    return y, s, w


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", SCALAR)
def test_averages_by_hand(name, average, weighted):
    y, s, w = averaging_inputs(weighted)
    func = getattr(fastrank, name)
    values = quiet(func, y, s, sample_weight=w, average=None)
    pos, neg = class_totals(y, w)
    want = oracles.task_mean(values, pos, neg, average)
    assert want is not None
    got, rec = call(func, y, s, sample_weight=w, average=average)
    assert isinstance(got, float)
    assert close(got, want), (got, want)
    assert_warned(rec, n_undefined(name, pos, neg))
    if average == "macro":  # the default
        assert same_float(got, quiet(func, y, s, sample_weight=w))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_partial_auc_and_expected_ap_averages_by_hand(weighted):
    y, s, w = averaging_inputs(weighted)
    pos, neg = class_totals(y, w)
    calls = [(fastrank.roc_auc, {"max_fpr": 0.25})]
    if not weighted:
        calls.append((fastrank.average_precision, {"ties": "expected"}))
    for func, kw in calls:
        values = quiet(func, y, s, sample_weight=w, average=None, **kw)
        for average in AVERAGES:
            want = oracles.task_mean(values, pos, neg, average)
            got = quiet(func, y, s, sample_weight=w, average=average, **kw)
            assert close(got, want), (func.__name__, average, got, want)


def test_size_average_equals_macro_for_a_label_matrix():
    """Every column holds every sample, so the size weighting is uniform."""
    y, s, w = averaging_inputs(True)
    for name in SCALAR:
        func = getattr(fastrank, name)
        assert close(
            quiet(func, y, s, sample_weight=w, average="size"),
            quiet(func, y, s, sample_weight=w, average="macro"),
        )


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", [*SCALAR, "all_metrics"])
def test_micro_pools_every_cell(name, weighted, order):
    rng = np.random.default_rng(41)
    y = label_matrix(rng, 40, 4, one_class=True)
    s = score_matrix(rng, y, "float64")
    w = real_weights(rng, 40) if weighted else None
    func = getattr(fastrank, name)
    got, rec = call(func, layout(y, order), layout(s, order), sample_weight=w, average="micro")
    assert rec == []  # the pooled task has both classes: nothing is undefined
    w_cells = None if w is None else np.repeat(w, y.shape[1])
    want = func(y.ravel(), s.ravel(), sample_weight=w_cells)
    tol = TOL if weighted else 0.0
    if name == "all_metrics":
        assert isinstance(got, fastrank.BinaryMetrics)
        assert_fields_close(got, want, tol)
    else:
        assert isinstance(got, float)
        assert close(got, want, tol), (got, want)
    if name == "prbe":
        got = fastrank.prbe(y, s, sample_weight=w, average="micro", return_threshold=True)
        want = fastrank.prbe(y.ravel(), s.ravel(), sample_weight=w_cells, return_threshold=True)
        assert close(got[0], want[0], tol) and got[1] == want[1]


def test_one_dimensional_input_ignores_average():
    rng = np.random.default_rng(6)
    y = rng.random(50) < 0.4
    s = np.round(rng.standard_normal(50), 1)
    for name in SCALAR:
        func = getattr(fastrank, name)
        want = func(y, s)
        for average in (None, *AVERAGES, "micro"):
            got = func(y, s, average=average)
            assert isinstance(got, float) and same_float(got, want), (name, average)
    want = fastrank.all_metrics(y, s)
    for average in (None, "weighted"):
        assert fastrank.all_metrics(y, s, average=average) == want


# ----------------------------------------------------------------- all_metrics


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_all_metrics_averages(average, weighted):
    y, s, w = averaging_inputs(weighted)
    batch = quiet(fastrank.all_metrics, y, s, sample_weight=w, max_fpr=0.4, average=None)
    averaged, rec = call(fastrank.all_metrics, y, s, sample_weight=w, max_fpr=0.4, average=average)
    assert len(rec) == 1
    assert isinstance(averaged, fastrank.BinaryMetrics)
    mean = quiet(batch.mean, average)
    assert isinstance(mean, fastrank.BinaryMetrics)
    pos, neg = class_totals(y, w)
    functions = {
        "average_precision": lambda: fastrank.average_precision(
            y, s, sample_weight=w, average=average
        ),
        "average_precision_expected": lambda: fastrank.average_precision(
            y, s, average=average, ties="expected"
        ),
        "roc_auc": lambda: fastrank.roc_auc(y, s, sample_weight=w, average=average),
        "roc_auc_partial": lambda: fastrank.roc_auc(
            y, s, sample_weight=w, average=average, max_fpr=0.4
        ),
        "pr_auc": lambda: fastrank.pr_auc(y, s, sample_weight=w, average=average),
        "d_prime": lambda: fastrank.d_prime(y, s, sample_weight=w, average=average),
        "prbe": lambda: fastrank.prbe(y, s, sample_weight=w, average=average),
    }
    for field in METRIC_FIELDS:
        per_task = getattr(batch, field)
        if per_task is None:
            assert field == "average_precision_expected" and weighted
            assert getattr(averaged, field) is None and getattr(mean, field) is None
            continue
        want = oracles.task_mean(per_task, pos, neg, average)
        assert close(getattr(averaged, field), want), (field, getattr(averaged, field), want)
        assert close(getattr(mean, field), want), (field, getattr(mean, field), want)
        assert close(quiet(functions[field]), want), field
    assert averaged.max_fpr == 0.4


def test_batch_metrics_mean_defaults_to_macro():
    y, s, _ = averaging_inputs(False)
    batch = quiet(fastrank.all_metrics, y, s, average=None)
    a, b = quiet(batch.mean), quiet(batch.mean, "macro")
    for field in METRIC_FIELDS:
        if getattr(a, field) is not None:
            assert same_float(getattr(a, field), getattr(b, field))
    default = quiet(fastrank.all_metrics, y, s)  # average="macro" is the default
    assert isinstance(default, fastrank.BinaryMetrics)
    for field in ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe"):
        want = quiet(getattr(fastrank, field), y, s)
        assert close(getattr(a, field), want), field
        assert close(getattr(default, field), want), field


# ---------------------------------------------------------------- sparse labels


SPARSE_FORMATS = {
    "csr_matrix": sp.csr_matrix,
    "csc_matrix": sp.csc_matrix,
    "coo_matrix": sp.coo_matrix,
    "lil_matrix": sp.lil_matrix,
    "dok_matrix": sp.dok_matrix,
    "bsr_matrix": sp.bsr_matrix,
    "dia_matrix": sp.dia_matrix,
    "csr_array": sp.csr_array,
    "coo_array": sp.coo_array,
}


@pytest.mark.parametrize("fmt", list(SPARSE_FORMATS))
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_sparse_labels_equal_dense(fmt, weighted):
    rng = np.random.default_rng(7)
    y = label_matrix(rng, 50, 4, one_class=True)
    s = score_matrix(rng, y, "float64")
    w = real_weights(rng, 50) if weighted else None
    y_sparse = SPARSE_FORMATS[fmt](y)
    check_every_function(y_sparse, s, w=w, y_ref=y)
    for name in SCALAR:
        func = getattr(fastrank, name)
        for average in ("macro", "weighted", "micro"):
            got = quiet(func, y_sparse, s, sample_weight=w, average=average)
            want = quiet(func, y, s, sample_weight=w, average=average)
            assert same_float(got, want), (name, average, got, want)


def test_sparse_bool_labels():
    rng = np.random.default_rng(8)
    y = label_matrix(rng, 30, 3, one_class=False)
    s = score_matrix(rng, y, "float32")
    check_every_function(sp.csr_matrix(y.astype(bool)), s, y_ref=y)


# --------------------------------------------------------------------- threads


def run_everything(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in SCALAR:
        out[name] = getattr(fastrank, name)(y, s, sample_weight=w, average=None)
        out[name + "_macro"] = getattr(fastrank, name)(y, s, sample_weight=w)
    out["partial"] = fastrank.roc_auc(y, s, sample_weight=w, average=None, max_fpr=0.2)
    out["prbe_with_thresholds"] = fastrank.prbe(
        y, s, sample_weight=w, average=None, return_threshold=True
    )
    if w is None:
        out["expected"] = fastrank.average_precision(y, s, average=None, ties="expected")
    batch = fastrank.all_metrics(y, s, sample_weight=w, average=None, max_fpr=0.3)
    for field in FIELDS:
        out["all_" + field] = getattr(batch, field)
    return out


def assert_same_results(got: dict[str, Any], want: dict[str, Any], where: str) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if value is None:
            assert got[key] is None, (where, key)
        elif isinstance(value, tuple):
            for i, part in enumerate(value):
                np.testing.assert_array_equal(got[key][i], part, err_msg=f"{where} {key}")
        elif isinstance(value, np.ndarray):
            assert got[key].dtype == value.dtype, (where, key)
            np.testing.assert_array_equal(got[key], value, err_msg=f"{where} {key}")
        else:
            assert same_float(got[key], value), (where, key)


def thread_inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    n, t = 3000, 24
    y = label_matrix(rng, n, t, one_class=False)  # every task defined: no warnings
    kind = seed % 3
    if kind == 0:
        s = np.round(rng.standard_normal((n, t)) + y, 1).astype(np.float32)
    elif kind == 1:
        s = rng.standard_normal((n, t)) + 0.5 * y
    else:
        s = rng.integers(0, 40, (n, t)) + 5 * y
    if seed % 2:
        s = np.asfortranarray(s)
    w = real_weights(rng, n) if seed % 4 == 1 else None
    return y, s, w


def test_numba_thread_count_does_not_change_results():
    y, s, w = thread_inputs(1)
    y_big = (np.random.default_rng(9).random((40_000, 3)) < 0.3).astype(np.int64)
    s_big = np.round(np.random.default_rng(10).standard_normal((40_000, 3)) + y_big, 1)
    before = numba.get_num_threads()
    most = numba.config.NUMBA_NUM_THREADS
    counts = sorted({1, max(1, most // 2), most})
    results = {}
    try:
        for k in counts:
            numba.set_num_threads(k)
            results[k] = (
                run_everything(y, s, w),
                run_everything(y, s, None),
                run_everything(y_big, s_big, None),
            )
            assert numba.get_num_threads() == k  # the caller's setting is untouched
    finally:
        numba.set_num_threads(before)
    assert numba.get_num_threads() == before
    for k in counts[1:]:
        for got, want in zip(results[k], results[counts[0]], strict=True):
            assert_same_results(got, want, f"{k} threads")


def test_calls_from_several_python_threads():
    seeds = list(range(8))
    serial = [run_everything(*thread_inputs(seed)) for seed in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(2):  # twice, in different orders, to vary the interleaving
            parallel = list(pool.map(lambda seed: run_everything(*thread_inputs(seed)), seeds))
            for seed, got, want in zip(seeds, parallel, serial, strict=True):
                assert_same_results(got, want, f"seed {seed}")
            seeds = seeds[::-1]
            serial = serial[::-1]


def test_shared_input_from_several_python_threads():
    y, s, w = thread_inputs(2)
    s = np.asfortranarray(s)
    s.flags.writeable = False
    want = run_everything(y, s, w)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: run_everything(y, s, w), range(8)))
    for got in results:
        assert_same_results(got, want, "shared")


# ------------------------------------------------------------------- properties


@st.composite
def label_and_score_matrices(draw: st.DrawFn) -> dict[str, Any]:
    """A tiny label matrix and a score matrix from at most three pool values."""
    dtype = draw(st.sampled_from(ALL_DTYPES))
    pool = POOLS[dtype]
    k = draw(st.integers(min_value=1, max_value=min(3, len(pool))))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    values = [pool[i] for i in picks]
    n = draw(st.integers(min_value=1, max_value=10))
    t = draw(st.integers(min_value=1, max_value=4))
    cells = n * t
    s = np.array(
        draw(st.lists(st.sampled_from(values), min_size=cells, max_size=cells)), dtype=dtype
    ).reshape(n, t)
    y01 = np.array(
        draw(st.lists(st.integers(0, 1), min_size=cells, max_size=cells)), dtype=np.int64
    ).reshape(n, t)
    weight_kind = draw(st.sampled_from(["none", "int", "dyadic", "real"]))
    w = None
    if weight_kind != "none":
        strategy = {"int": INT_WEIGHTS, "dyadic": DYADIC_WEIGHTS, "real": REAL_WEIGHTS}[weight_kind]
        w = np.array(draw(st.lists(strategy, min_size=n, max_size=n)), dtype=np.float64)
    encoding = draw(st.sampled_from(["int01", "bool", "pm1"]))
    y = {"int01": y01, "bool": y01.astype(bool), "pm1": np.where(y01 == 1, 1, -1)}[encoding]
    order = draw(st.sampled_from("CF"))
    return {"y": layout(y, order), "s": layout(s, order), "w": w}


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(data=label_and_score_matrices())
def test_property_per_task_equals_single_task(data):
    check_every_function(data["y"], data["s"], w=data["w"])


def test_worker_threads_keep_their_own_numba_thread_count():
    """Numba's thread count is per Python thread: each worker's setting must survive calls."""
    y, s, w = thread_inputs(3)
    want = run_everything(y, s, w)
    most = numba.config.NUMBA_NUM_THREADS

    def work(k: int) -> tuple[int, int, dict[str, Any]]:
        before = numba.get_num_threads()
        try:
            numba.set_num_threads(k)
            out = run_everything(y, s, w)
            return k, numba.get_num_threads(), out
        finally:
            numba.set_num_threads(before)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, [1 + i % most for i in range(8)]))
    for k, after, got in results:
        assert after == k
        assert_same_results(got, want, f"worker with {k} threads")


# ------------------------------------------------------------------ no aliasing


def test_results_are_not_overwritten_by_later_calls():
    """Returned arrays are the caller's: a later call must not reuse them as scratch."""
    first = thread_inputs(0)
    second = thread_inputs(2)
    kept = run_everything(*first)
    snapshot = {
        k: (tuple(np.copy(p) for p in v) if isinstance(v, tuple) else np.copy(v))
        for k, v in kept.items()
        if v is not None
    }
    run_everything(*second)
    run_everything(*first)
    for key, value in snapshot.items():
        if isinstance(value, tuple):
            for got, want in zip(kept[key], value, strict=True):
                np.testing.assert_array_equal(got, want, err_msg=key)
        else:
            np.testing.assert_array_equal(kept[key], value, err_msg=key)


@pytest.mark.parametrize("order", ["C", "F"])
def test_inputs_are_not_modified(order):
    rng = np.random.default_rng(13)
    y = layout(label_matrix(rng, 50, 4, one_class=True), order)
    s = layout(score_matrix(rng, y, "float64"), order)
    w = real_weights(rng, 50)
    copies = [np.copy(a, order="K") for a in (y, s, w)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        run_everything(y, s, w)
        for name in SCALAR:
            for average in (*AVERAGES, "micro"):
                getattr(fastrank, name)(y, s, sample_weight=w, average=average)
    for a, c in zip((y, s, w), copies, strict=True):
        np.testing.assert_array_equal(a, c)
        assert a.flags.f_contiguous == c.flags.f_contiguous
