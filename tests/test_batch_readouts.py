"""Readouts of many tasks at once (columns, groups, sparse labels, class labels), whose
tables the batch kernels write for small tasks: each task's value and threshold are,
bit for bit, those of the one-task call on that task's samples alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastrank
from fastrank._core import batches, workers

READOUTS = [
    ("sensitivity_at_specificity", (0.8,), {}),
    ("sensitivity_at_specificity", (0.6,), {"interpolate": True}),
    ("specificity_at_sensitivity", (0.7,), {}),
    ("specificity_at_sensitivity", (0.5,), {"interpolate": True}),
    ("recall_at_precision", (0.5,), {}),
    ("recall_at_precision", (0.6,), {"interpolate": True}),
    ("precision_at_recall", (0.4,), {}),
    ("precision_at_recall", (0.8,), {"interpolate": True}),
    ("best_cutoff", (), {}),
    ("best_cutoff", ("mcc",), {}),
    ("best_cutoff", ("f_beta",), {"beta": 2.0}),
    ("partial_roc_auc", (), {"fpr": (0.0, 0.3)}),
    ("partial_roc_auc", (), {"fpr": (0.1, 0.6), "tpr": (0.2, 0.9), "correct": True}),
    ("partial_pr_auc", (), {"recall": (0.2, 0.9)}),
]
DTYPES = [np.float32, np.float64, np.int64, np.uint64, np.int8, np.bool_]


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        return f(*args, **kwargs)


def split(got):
    """(values, thresholds or None) of a readout's result."""
    if isinstance(got, fastrank.OperatingPoint):
        value, threshold = got
        value = value.values if isinstance(value, fastrank.GroupResult) else value
        return np.asarray(value, np.float64), np.asarray(threshold, np.float64)
    got = got.values if isinstance(got, fastrank.GroupResult) else got
    return np.asarray(got, np.float64), None


def assert_same(batched, singles, what):
    values, thresholds = split(batched)
    want = [split(s) for s in singles]
    wv = np.array([w[0] for w in want], np.float64).reshape(-1)
    assert np.array_equal(values.view(np.uint64), wv.view(np.uint64)), (what, values, wv)
    if thresholds is not None:
        wt = np.array([w[1] for w in want], np.float64).reshape(-1)
        assert np.array_equal(thresholds, wt, equal_nan=True), (what, thresholds, wt)


def _scores(rng, shape, dtype, levels):
    raw = rng.integers(0, levels, shape)
    if dtype == np.bool_:
        return raw % 2 == 0
    if np.dtype(dtype).kind == "f":
        return (raw / levels).astype(dtype)
    return raw.astype(dtype)


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(DTYPES), st.integers(2, 12),
       st.sampled_from(READOUTS))
def test_columns_equal_one_task_calls(seed, dtype, levels, readout):
    rng = np.random.default_rng(seed)
    name, args, kw = readout
    n, t = int(rng.integers(1, 40)), int(rng.integers(65, 90))  # > 64 columns: the kernel
    Y = rng.random((n, t)) < rng.uniform(0.05, 0.7)
    Y[:, 0] = False  # a column without positives
    if n > 1:
        Y[:, 1] = True  # and one without negatives
    S = _scores(rng, (n, t), dtype, levels)
    f = getattr(fastrank, name)
    batched = quiet(f, Y, S, *args, **kw)
    singles = [quiet(f, Y[:, j], S[:, j], *args, **kw) for j in range(t)]
    assert_same(batched, singles, name)
    sparse = quiet(f, sp.csc_matrix(Y), S, *args, **kw)  # sparse label columns
    assert_same(sparse, singles, f"{name} sparse")


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(DTYPES), st.integers(2, 12),
       st.sampled_from(READOUTS), st.booleans())
def test_groups_equal_one_task_calls(seed, dtype, levels, readout, with_large):
    rng = np.random.default_rng(seed)
    name, args, kw = readout
    ng = int(rng.integers(65, 120))
    sizes = rng.integers(1, 30, ng)
    if with_large:  # past the kernel's own sort of a metric's task, or of a table's
        sizes[int(rng.integers(0, ng))] = batches.SMALL_TASK + 904 if seed % 2 else \
            batches.TABLE_TASK + 1000
    g = rng.permutation(np.repeat(np.arange(ng) * 7 - 50, sizes))  # ids in any order
    y = rng.random(g.shape[0]) < 0.3
    s = _scores(rng, g.shape[0], dtype, levels)
    f = getattr(fastrank, name)
    batched = quiet(f, y, s, *args, groups=g, **kw)
    ids = np.unique(g)
    singles = [quiet(f, y[g == i], s[g == i], *args, **kw) for i in ids]
    assert_same(batched, singles, name)


@pytest.mark.parametrize("name,args,kw", READOUTS[::2])
@pytest.mark.parametrize("n", [batches.SMALL_TASK + 1, batches.TABLE_TASK, batches.TABLE_TASK + 1])
def test_columns_of_every_size_equal_one_task_calls(name, args, kw, n):
    """Columns the batch kernel sorts and tables itself (up to TABLE_TASK samples) and
    the ones past it give the one-task calls' bits, ties or none."""
    rng = np.random.default_rng(n)
    t = 66
    Y = rng.random((n, t)) < 0.1
    S = rng.random((n, t)).astype(np.float32)
    S[:, ::2] = np.round(S[:, ::2], 2)
    f = getattr(fastrank, name)
    batched = quiet(f, Y, S, *args, **kw)
    singles = [quiet(f, Y[:, j], S[:, j], *args, **kw) for j in range(t)]
    assert_same(batched, singles, name)


@pytest.mark.parametrize("name,args,kw", READOUTS[::3])
def test_class_labels_equal_one_vs_rest_calls(name, args, kw):
    rng = np.random.default_rng(5)
    n, t = 300, 70
    labels = np.concatenate([np.arange(t), rng.integers(0, t, n - t)])  # every class
    S = rng.integers(0, 6, (n, t)).astype(np.float32)
    f = getattr(fastrank, name)
    batched = quiet(f, labels, S, *args, **kw)
    singles = [quiet(f, labels == j, S[:, j], *args, **kw) for j in range(t)]
    assert_same(batched, singles, name)


def test_warning_counts_the_undefined_tasks():
    rng = np.random.default_rng(1)
    n, t = 20, 80
    Y = rng.random((n, t)) < 0.4
    Y[:, :3] = False
    S = rng.random((n, t))
    with pytest.warns(fastrank.UndefinedMetricWarning, match="for 3 of 80 columns") as rec:
        got = fastrank.sensitivity_at_specificity(Y, S, 0.9)
    assert len(rec) == 1
    assert np.isnan(got.value[:3]).all() and np.isnan(got.threshold[:3]).all()
    assert not np.isnan(got.value[3:]).any()


@pytest.mark.parametrize("where", ["columns", "groups"])
@pytest.mark.parametrize(("n", "bad"), [(10, np.nan), (batches.TABLE_TASK + 5, np.inf),
                                        (batches.SMALL_TASK + 5, -np.inf)])
def test_a_nan_score_is_named_as_the_batched_auc_names_it(where, n, bad):
    """Small tasks (tabled in the kernel) and large ones (one task each) alike."""
    rng = np.random.default_rng(2)
    t = 70
    Y = rng.random((n, t)) < 0.5
    S = rng.random((n, t))
    S[3, 40] = bad
    if where == "columns":
        args = (Y, S)
        kw: dict = {}
    else:
        args = (Y.T.ravel(), S.T.ravel())
        kw = {"groups": np.repeat(np.arange(t), n)}
    with pytest.raises(ValueError) as auc:
        fastrank.roc_auc(*args, average=None, **kw)
    with pytest.raises(ValueError) as readout:
        fastrank.recall_at_precision(*args, 0.5, **kw)
    assert str(readout.value) == str(auc.value)


@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_many_short_columns_in_wide_units_equal_one_task_calls(nthreads, monkeypatch):
    """Short columns go many blocks to a kernel call (a unit ending inside a block,
    too): each column's AUC, average precision and readouts are the one-task calls'."""
    monkeypatch.setattr(workers, "threads", lambda: nthreads)
    monkeypatch.setattr(workers, "PARALLEL_MIN", 1)
    rng = np.random.default_rng(nthreads)
    n, t = 40, 405  # several units per thread, the last a block and 5 columns
    units = batches.column_units(fastrank._core.inputs.batch(
        np.zeros((n, t), bool), np.zeros((n, t)), None, None, None, None), nthreads, True)
    assert max(j1 - j0 for j0, j1 in units) > batches.BLOCK  # wide units are exercised
    assert units[-1][1] - units[-1][0] == batches.BLOCK + 5
    Y = rng.random((n, t)) < 0.3
    S = np.round(rng.random((n, t)), 1).astype(np.float32)
    for f, args in ((fastrank.roc_auc, {"average": None}),
                    (fastrank.average_precision, {"average": None})):
        got = quiet(f, Y, S, **args)
        want = np.array([quiet(f, Y[:, j], S[:, j]) for j in range(t)])
        assert np.array_equal(got, want, equal_nan=True), f.__name__
    for name, a, kw in READOUTS[::2]:
        g = getattr(fastrank, name)
        assert_same(quiet(g, Y, S, *a, **kw), [quiet(g, Y[:, j], S[:, j], *a, **kw)
                                               for j in range(t)], name)
    S[7, t - 5] = np.nan
    for f, a in ((fastrank.roc_auc, ()), (fastrank.sensitivity_at_specificity, (0.9,))):
        with pytest.raises(ValueError, match=rf"nan at row 7, task {t - 5}\)"):
            f(Y, S, *a) if a else f(Y, S, average=None)
