"""Grouped calls: 1-D ``y_true`` / ``y_score`` and ``groups=``, one task per group id.

Each group's value must be *bit for bit* the single-task function on that
group's samples (in their original order; any order when sums are exact).
``average=None`` gives a :class:`fastrank.GroupResult` whose ``groups`` are
``np.unique(ids)``; the averages are checked by hand from per-group values and
independently computed class totals (tests/oracles.py ``task_mean``), the
"pairs" ROC AUC against the exact pooled within-group pair count
(``oracles.roc_auc_within_groups``), "micro" against the ungrouped call.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import (
    assert_batch_fields,
    assert_fields_close,
    assert_task_values,
    assert_warned,
    call,
    close,
    quiet,
    same_float,
)
from fresh import assert_prints_ok
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
NEEDS_POSITIVES = ("average_precision", "pr_auc", "prbe")
FIELDS = tuple(f.name for f in dataclasses.fields(fastrank.BinaryMetrics))
AVERAGES = ("macro", "weighted", "size", "pairs")

ID_POOLS: dict[str, Any] = {
    "int": np.array([7, 3, 11, 0, 5, 2, 9]),
    "negative": np.array([-5, -1, 0, 3, -100, 8, -(2**31)]),
    "large": np.array([2**62, -(2**62), 10**15, 2**40 + 1, -7, 2**63 - 1, -(2**63)]),
    "uint8": np.array([200, 3, 255, 0, 17, 1, 99], dtype=np.uint8),
    "str": np.array(["user-10", "user-2", "b", "a", "Zeta", "alpha", "user-1"]),
    "list_int": [7, 3, 11, 0, 5, 2, 9],
    "list_str": ["user-10", "user-2", "b", "a", "Zeta", "alpha", "user-1"],
}


# --------------------------------------------------------------------- helpers


def values_of(result: Any) -> np.ndarray:
    """The per-group values of a GroupResult (or of a plain array)."""
    return result.values if isinstance(result, fastrank.GroupResult) else result


class Reference:
    """Single-task calls on every group's samples, and independent class totals."""

    def __init__(self, y: Any, s: Any, ids: Any, w: Any = None, pos_label: Any = None):
        self.y, self.s = np.asarray(y), np.asarray(s)
        self.w = None if w is None else np.asarray(w, dtype=np.float64)
        self.pos_label = pos_label
        ids_arr = np.asarray(ids)
        self.groups = np.unique(ids_arr)
        self.masks = [ids_arr == g for g in self.groups]
        y01 = (self.y == pos_label) if pos_label is not None else (self.y == 1)
        weights = np.ones(len(self.y)) if self.w is None else self.w
        self.sizes = [int(m.sum()) for m in self.masks]
        self.pos = [math.fsum(weights[m & y01]) for m in self.masks]
        self.neg = [math.fsum(weights[m & ~y01]) for m in self.masks]

    def per_group(self, func: Any, **kw: Any) -> list[Any]:
        return [
            quiet(
                func,
                self.y[m],
                self.s[m],
                sample_weight=None if self.w is None else self.w[m],
                pos_label=self.pos_label,
                **kw,
            )
            for m in self.masks
        ]

    def n_undefined(self, name: str) -> int:
        if name in NEEDS_POSITIVES:
            return sum(p == 0 for p in self.pos)
        return sum(p == 0 or q == 0 for p, q in zip(self.pos, self.neg, strict=True))


def check_group_result(res: Any, ref: Reference, want: list[Any]) -> None:
    assert isinstance(res, fastrank.GroupResult), type(res)
    np.testing.assert_array_equal(res.groups, ref.groups)
    assert len(res.groups) == len(ref.groups)
    assert_task_values(res.values, want)
    assert res.sizes.dtype == np.int64
    np.testing.assert_array_equal(res.sizes, ref.sizes)
    singles = ref.per_group(fastrank.all_metrics)
    assert_task_values(res.positives, [m.positives for m in singles])
    assert_task_values(res.negatives, [m.negatives for m in singles])
    np.testing.assert_allclose(res.positives, ref.pos, rtol=TOL, atol=0)
    np.testing.assert_allclose(res.negatives, ref.neg, rtol=TOL, atol=0)


def check_every_function(
    y: Any, s: Any, ids: Any, *, w: Any = None, pos_label: Any = None
) -> Reference:
    """Every function with groups= and average=None against per-group single-task calls."""
    ref = Reference(y, s, ids, w, pos_label)
    kw = {"sample_weight": w, "pos_label": pos_label, "groups": ids}
    for name in SCALAR:
        func = getattr(fastrank, name)
        res, rec = call(func, y, s, average=None, **kw)
        check_group_result(res, ref, ref.per_group(func))
        assert_warned(rec, ref.n_undefined(name))

    res, rec = call(fastrank.roc_auc, y, s, average=None, max_fpr=0.3, **kw)
    check_group_result(res, ref, ref.per_group(fastrank.roc_auc, max_fpr=0.3))
    assert_warned(rec, ref.n_undefined("roc_auc"))

    if w is None:
        res, rec = call(fastrank.average_precision, y, s, average=None, ties="expected", **kw)
        check_group_result(res, ref, ref.per_group(fastrank.average_precision, ties="expected"))
        assert_warned(rec, ref.n_undefined("average_precision"))

    got, rec = call(fastrank.prbe, y, s, average=None, return_threshold=True, **kw)
    assert isinstance(got, tuple) and len(got) == 2
    want = ref.per_group(fastrank.prbe, return_threshold=True)
    assert_task_values(values_of(got[0]), [v for v, _ in want])
    assert_task_values(got[1], [thr for _, thr in want])
    assert_warned(rec, ref.n_undefined("prbe"))

    for max_fpr in (None, 0.3):
        got, rec = call(fastrank.all_metrics, y, s, average=None, max_fpr=max_fpr, **kw)
        assert isinstance(got, fastrank.BatchMetrics)
        np.testing.assert_array_equal(got.groups, ref.groups)
        singles = ref.per_group(fastrank.all_metrics, max_fpr=max_fpr)
        assert_batch_fields(got, singles, max_fpr)
        assert len(rec) == (1 if ref.n_undefined("roc_auc") else 0)
    return ref


def grouped_inputs(
    seed: int, ids_kind: str = "int", *, n: int = 90, one_class: bool = True
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Labels, tied scores and shuffled group ids; group 0 lacks positives, 1 negatives."""
    rng = np.random.default_rng(seed)
    pool = ID_POOLS[ids_kind]
    k = len(pool)
    index = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    rng.shuffle(index)
    y = (rng.random(n) < rng.uniform(0.15, 0.7, k)[index]).astype(np.int64)
    for g in range(2, k):  # every other group has both classes
        where = np.flatnonzero(index == g)
        if len(where) >= 2:
            y[where[0]], y[where[1]] = 1, 0
    if one_class:
        y[index == 0] = 0
        y[index == 1] = 1
    s = np.round(rng.standard_normal(n) + y, 1)
    ids = [pool[i] for i in index] if isinstance(pool, list) else pool[index]
    return y, s, ids


def real_weights(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 1000)
    w = rng.uniform(0.0, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    return w


# ---------------------------------------------------------- per group == single


@pytest.mark.parametrize("ids_kind", list(ID_POOLS))
@pytest.mark.parametrize("weights", ["none", "int", "real"])
def test_per_group_equals_single_task(ids_kind, weights):
    y, s, ids = grouped_inputs(3, ids_kind)
    w = None
    if weights == "int":
        w = np.random.default_rng(4).integers(0, 4, len(y)).astype(np.float64)
    elif weights == "real":
        w = real_weights(5, len(y))
    ref = check_every_function(y, s, ids, w=w)
    assert ref.groups.shape == (len(set(ids.tolist() if isinstance(ids, np.ndarray) else ids)),)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint64"])
def test_score_dtypes(dtype):
    y, s, ids = grouped_inputs(6, "int")
    rng = np.random.default_rng(6)
    if dtype == "bool":
        s = rng.random(len(y)) < 0.3 + 0.4 * y
    elif dtype == "float32":
        s = s.astype(np.float32)
    elif dtype == "int64":
        s = rng.integers(-3, 3, len(y)) + y
    else:
        s = (rng.integers(0, 4, len(y)) + y).astype(np.uint64) + np.uint64(2**63)
    check_every_function(y, s, ids)


@pytest.mark.parametrize("encoding", ["bool", "pm1", "str"])
def test_label_encodings(encoding):
    y01, s, ids = grouped_inputs(7, "str")
    pos_label = None
    if encoding == "bool":
        y = y01.astype(bool)
    elif encoding == "pm1":
        y = np.where(y01 == 1, 1, -1)
    else:
        y, pos_label = np.where(y01 == 1, "hit", "miss"), "hit"
    check_every_function(y, s, ids, pos_label=pos_label)
    for name in SCALAR:
        func = getattr(fastrank, name)
        got = quiet(func, y, s, groups=ids, average=None, pos_label=pos_label)
        want = quiet(func, y01, s, groups=ids, average=None)
        np.testing.assert_array_equal(got.values, want.values)


def test_large_group_past_32768_samples():
    """One group large enough for the engine's other algorithm, next to small ones."""
    rng = np.random.default_rng(8)
    n = 40_000
    ids = np.where(rng.random(n) < 0.9, 1, rng.integers(2, 6, n))
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = np.round(rng.standard_normal(n) + y, 2)
    assert (ids == 1).sum() > 32768
    check_every_function(y, s, ids)
    check_every_function(y, s, ids, w=real_weights(8, n))


def test_many_small_groups():
    rng = np.random.default_rng(9)
    n = 3000
    ids = rng.integers(0, 700, n)  # about four samples a group, many one-class
    y = (rng.random(n) < 0.4).astype(np.int64)
    s = rng.integers(0, 3, n).astype(np.float64)
    check_every_function(y, s, ids)


def test_single_group_equals_ungrouped_call():
    y, s, _ = grouped_inputs(10, one_class=False)
    ids = np.full(len(y), 42)
    for name in SCALAR:
        func = getattr(fastrank, name)
        res = func(y, s, groups=ids, average=None)
        assert res.groups.tolist() == [42]
        assert same_float(res.values[0], func(y, s))


# ------------------------------------------------------------------ GroupResult


def test_group_result_is_a_frozen_dataclass():
    y, s, ids = grouped_inputs(11, one_class=False)
    res = fastrank.roc_auc(y, s, groups=ids, average=None)
    assert dataclasses.is_dataclass(res)
    names = {f.name for f in dataclasses.fields(res)}
    assert {"groups", "values", "positives", "negatives", "sizes"} <= names
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.values = np.zeros(3)  # type: ignore[misc]
    for field in ("values", "positives", "negatives"):
        assert getattr(res, field).dtype == np.float64
    assert res.sizes.dtype == np.int64
    assert res.sizes.sum() == len(y)


@pytest.mark.parametrize("ids_kind", ["int", "negative", "large", "str", "list_str"])
def test_group_ids_are_np_unique_of_the_ids(ids_kind):
    y, s, ids = grouped_inputs(12, ids_kind)
    res = quiet(fastrank.average_precision, y, s, groups=ids, average=None)
    want = np.unique(np.asarray(ids))
    np.testing.assert_array_equal(res.groups, want)
    assert res.groups.dtype.kind == want.dtype.kind


# ------------------------------------------------------------------- averages


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weights", ["none", "real"])
@pytest.mark.parametrize("name", SCALAR)
def test_averages_by_hand(name, average, weights):
    y, s, ids = grouped_inputs(13, "negative")
    w = real_weights(13, len(y)) if weights == "real" else None
    ref = Reference(y, s, ids, w)
    func = getattr(fastrank, name)
    res = quiet(func, y, s, groups=ids, sample_weight=w, average=None)
    want = oracles.task_mean(res.values, ref.pos, ref.neg, average)
    assert want is not None
    got, rec = call(func, y, s, groups=ids, sample_weight=w, average=average)
    assert isinstance(got, float)
    assert close(got, want), (got, want)
    assert_warned(rec, ref.n_undefined(name))
    # GroupResult.mean gives the very float of the call with that average
    assert same_float(quiet(res.mean, average), got)
    if average == "macro":
        assert same_float(quiet(res.mean), got)
        assert same_float(quiet(func, y, s, groups=ids, sample_weight=w), got)


def test_averages_differ_where_groups_differ():
    """Sanity check of the inputs: the four weightings give four different numbers."""
    y, s, ids = grouped_inputs(13, "negative")
    ref = Reference(y, s, ids)
    per_group = ref.per_group(fastrank.roc_auc)
    values = {a: oracles.task_mean(per_group, ref.pos, ref.neg, a) for a in AVERAGES}
    assert len(set(values.values())) == 4, values


@pytest.mark.parametrize("weights", ["none", "int", "real"])
@pytest.mark.parametrize("seed", [14, 15, 16])
def test_pairs_roc_auc_is_the_pooled_within_group_pair_auc(seed, weights):
    y, s, ids = grouped_inputs(seed, "int", n=60)
    w = None
    if weights == "int":
        w = np.random.default_rng(seed).integers(0, 4, len(y)).astype(np.float64)
    elif weights == "real":
        w = real_weights(seed, len(y))
    want = oracles.roc_auc_within_groups(y, s, ids, w)
    got = quiet(fastrank.roc_auc, y, s, groups=ids, sample_weight=w, average="pairs")
    assert close(got, float(want)), (got, float(want))
    # and it is not the plain ungrouped AUC (cross-group pairs are left out)
    assert not close(got, quiet(fastrank.roc_auc, y, s, sample_weight=w))


@pytest.mark.parametrize("weights", ["none", "int", "real"])
@pytest.mark.parametrize("name", [*SCALAR, "all_metrics"])
def test_micro_is_the_ungrouped_call(name, weights):
    y, s, ids = grouped_inputs(17, "str")
    w = None
    if weights == "int":
        w = np.random.default_rng(17).integers(0, 4, len(y)).astype(np.float64)
    elif weights == "real":
        w = real_weights(17, len(y))
    func = getattr(fastrank, name)
    got, rec = call(func, y, s, groups=ids, sample_weight=w, average="micro")
    assert rec == []  # the pooled task has both classes
    want = func(y, s, sample_weight=w)
    tol = TOL if weights == "real" else 0.0
    if name == "all_metrics":
        assert isinstance(got, fastrank.BinaryMetrics)
        assert_fields_close(got, want, tol)
    else:
        assert isinstance(got, float) and close(got, want, tol), (got, want)


@pytest.mark.parametrize("average", AVERAGES)
def test_all_metrics_averages(average):
    y, s, ids = grouped_inputs(18, "large")
    w = real_weights(18, len(y))
    batch = quiet(fastrank.all_metrics, y, s, groups=ids, sample_weight=w, average=None)
    averaged, rec = call(fastrank.all_metrics, y, s, groups=ids, sample_weight=w, average=average)
    assert len(rec) == 1
    mean = quiet(batch.mean, average)
    ref = Reference(y, s, ids, w)
    for field in ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe"):
        want = oracles.task_mean(getattr(batch, field), ref.pos, ref.neg, average)
        assert close(getattr(averaged, field), want), field
        assert close(getattr(mean, field), want), field
        func = getattr(fastrank, field)
        assert close(quiet(func, y, s, groups=ids, sample_weight=w, average=average), want)
    assert averaged.average_precision_expected is None  # weighted call


# ---------------------------------------------------------- undefined groups


def test_one_class_groups_are_nan_and_counted_in_the_warning():
    y, s, ids = grouped_inputs(19, "int", one_class=False)
    pool = ID_POOLS["int"]
    ids = np.asarray(ids)
    y[ids == pool[0]] = 0  # no positives
    y[ids == pool[3]] = 0  # no positives
    y[ids == pool[5]] = 1  # no negatives
    ref = Reference(y, s, ids)
    for name in SCALAR:
        func = getattr(fastrank, name)
        undefined = {pool[0], pool[3]} if name in NEEDS_POSITIVES else {pool[0], pool[3], pool[5]}
        res, rec = call(func, y, s, groups=ids, average=None)
        assert set(res.groups[np.isnan(res.values)].tolist()) == undefined, name
        assert_warned(rec, len(undefined))
        assert ref.n_undefined(name) == len(undefined)
        for average in AVERAGES:
            value, rec = call(func, y, s, groups=ids, average=average)
            assert not math.isnan(value)
            assert_warned(rec, len(undefined))


def test_zero_weight_group_is_undefined():
    y, s, ids = grouped_inputs(20, "int", one_class=False)
    ids = np.asarray(ids)
    w = np.ones(len(y))
    w[ids == ID_POOLS["int"][2]] = 0.0
    ref = check_every_function(y, s, ids, w=w)
    res = quiet(fastrank.roc_auc, y, s, groups=ids, sample_weight=w, average=None)
    k = int(np.flatnonzero(res.groups == ID_POOLS["int"][2])[0])
    assert math.isnan(res.values[k])
    assert res.positives[k] == 0 and res.negatives[k] == 0
    assert res.sizes[k] == ref.sizes[k] > 0


def test_no_group_defined():
    y = np.zeros(12, dtype=np.int64)
    s = np.arange(12.0)
    ids = np.repeat([1, 2, 3], 4)
    for name in SCALAR:
        func = getattr(fastrank, name)
        for average in AVERAGES:
            value, rec = call(func, y, s, groups=ids, average=average)
            assert math.isnan(value)
            assert_warned(rec, 3)


# ------------------------------------------------------------------- order


def results_of_every_function(y: Any, s: Any, ids: Any, w: Any) -> dict[str, Any]:
    out = {}
    for name in SCALAR:
        res = quiet(getattr(fastrank, name), y, s, groups=ids, sample_weight=w, average=None)
        for field in ("groups", "values", "positives", "negatives", "sizes"):
            out[f"{name}.{field}"] = getattr(res, field)
        for average in AVERAGES:
            out[f"{name}.{average}"] = quiet(
                getattr(fastrank, name), y, s, groups=ids, sample_weight=w, average=average
            )
    thr = quiet(
        fastrank.prbe, y, s, groups=ids, sample_weight=w, average=None, return_threshold=True
    )[1]
    out["prbe.thresholds"] = thr
    batch = quiet(fastrank.all_metrics, y, s, groups=ids, sample_weight=w, average=None)
    for field in (*FIELDS, "groups"):
        out[f"all_metrics.{field}"] = getattr(batch, field)
    return out


def assert_same_results(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if value is None:
            assert got[key] is None, key
        elif isinstance(value, np.ndarray):
            assert got[key].dtype == value.dtype, key
            np.testing.assert_array_equal(got[key], value, err_msg=key)
        else:
            assert same_float(got[key], value), (key, got[key], value)


def test_sorted_and_interleaved_groups_give_identical_results():
    """Moving groups around, keeping each group's own order: identical, even real weights."""
    y, s, ids = grouped_inputs(21, "negative")
    ids = np.asarray(ids)
    w = real_weights(21, len(y))
    order = np.argsort(ids, kind="stable")  # sorted by group, each group in its order
    base = results_of_every_function(y, s, ids, w)
    assert_same_results(results_of_every_function(y[order], s[order], ids[order], w[order]), base)


@pytest.mark.parametrize("weights", ["none", "int"])
def test_shuffled_samples_give_identical_results(weights):
    """With exact sums the order inside a group cannot matter either."""
    y, s, ids = grouped_inputs(22, "str")
    ids = np.asarray(ids)
    w = None
    if weights == "int":
        w = np.random.default_rng(22).integers(0, 4, len(y)).astype(np.float64)
    base = results_of_every_function(y, s, ids, w)
    rng = np.random.default_rng(23)
    for _ in range(3):
        p = rng.permutation(len(y))
        assert_same_results(
            results_of_every_function(y[p], s[p], ids[p], None if w is None else w[p]), base
        )
    order = np.argsort(ids, kind="stable")
    assert_same_results(
        results_of_every_function(y[order], s[order], ids[order], None if w is None else w[order]),
        base,
    )


# --------------------------------------------------------------------- threads


def thread_inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    n = 70_000  # enough samples in all for the engine to use several Numba threads
    ids = rng.integers(0, 300, n) * 7 - 1000
    ids[: n // 2] = 5  # one group past 32768 samples among many small ones
    y = (rng.random(n) < 0.4).astype(np.int64)
    s = np.round(rng.standard_normal(n) + y, 1)
    w = rng.uniform(0, 2, n) if seed % 2 else None
    return y, s, ids, w


def test_numba_thread_count_does_not_change_results():
    y, s, ids, w = thread_inputs(1)
    before = numba.get_num_threads()
    most = numba.config.NUMBA_NUM_THREADS
    counts = sorted({1, max(1, most // 2), most})
    results = {}
    try:
        for k in counts:
            numba.set_num_threads(k)
            results[k] = (
                results_of_every_function(y, s, ids, w),
                results_of_every_function(y, s, ids, None),
            )
            assert numba.get_num_threads() == k
    finally:
        numba.set_num_threads(before)
    assert numba.get_num_threads() == before
    for k in counts[1:]:
        for got, want in zip(results[k], results[counts[0]], strict=True):
            assert_same_results(got, want)


def test_calls_from_several_python_threads():
    seeds = list(range(4))
    serial = [results_of_every_function(*thread_inputs(seed)) for seed in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(2):
            parallel = list(
                pool.map(lambda seed: results_of_every_function(*thread_inputs(seed)), seeds)
            )
            for got, want in zip(parallel, serial, strict=True):
                assert_same_results(got, want)
            seeds = seeds[::-1]
            serial = serial[::-1]


# ------------------------------------------------------------------ properties


@st.composite
def grouped_cases(draw: st.DrawFn) -> dict[str, Any]:
    dtype = draw(st.sampled_from(ALL_DTYPES))
    pool = POOLS[dtype]
    k = draw(st.integers(min_value=1, max_value=min(3, len(pool))))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    values = [pool[i] for i in picks]
    n = draw(st.integers(min_value=1, max_value=16))
    s = np.array(draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)), dtype=dtype)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    id_values = draw(st.sampled_from([[-3, 0, 2**40], ["x", "y", "a b", "B"], [1, 2, 3, 4, 5, 6]]))
    ids = np.array(draw(st.lists(st.sampled_from(id_values), min_size=n, max_size=n)))
    weight_kind = draw(st.sampled_from(["none", "int", "dyadic", "real"]))
    w = None
    if weight_kind != "none":
        strategy = {"int": INT_WEIGHTS, "dyadic": DYADIC_WEIGHTS, "real": REAL_WEIGHTS}[weight_kind]
        w = np.array(draw(st.lists(strategy, min_size=n, max_size=n)), dtype=np.float64)
    return {"y": y, "s": s, "ids": ids, "w": w}


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(case=grouped_cases())
def test_property_per_group_equals_single_task(case):
    ref = check_every_function(case["y"], case["s"], case["ids"], w=case["w"])
    for average in AVERAGES:
        for name in SCALAR:
            func = getattr(fastrank, name)
            res = quiet(
                func,
                case["y"],
                case["s"],
                groups=case["ids"],
                sample_weight=case["w"],
                average=None,
            )
            want = oracles.task_mean(res.values, ref.pos, ref.neg, average)
            if want is None:
                continue  # the defined groups' weights sum to zero: nothing to compare
            got = quiet(
                func,
                case["y"],
                case["s"],
                groups=case["ids"],
                sample_weight=case["w"],
                average=average,
            )
            assert close(got, want, 1e-9), (name, average, got, want)


# ------------------------------------------------------------------ no aliasing


def test_results_and_inputs_are_left_alone():
    """Later calls must not overwrite returned arrays; calls must not modify their inputs."""
    y, s, ids, w = thread_inputs(1)
    inputs = [np.copy(a) for a in (y, s, ids, w)]
    kept = results_of_every_function(y, s, ids, w)
    snapshot = {k: np.copy(v) for k, v in kept.items() if v is not None}
    results_of_every_function(*thread_inputs(2))
    results_of_every_function(y[::-1], s[::-1], ids[::-1], w[::-1])
    for key, value in snapshot.items():
        np.testing.assert_array_equal(kept[key], value, err_msg=key)
    for a, c in zip((y, s, ids, w), inputs, strict=True):
        np.testing.assert_array_equal(a, c)


def test_group_result_to_pandas_lists_every_group():
    pd = pytest.importorskip("pandas")
    y = np.array([1, 0, 0, 1, 0, 1, 1, 0])
    s = np.array([0.9, 0.3, 0.5, 0.2, 0.4, 0.8, 0.7, 0.1])
    ids = np.array(["a", "a", "a", "b", "b", "c", "c", "c"])
    res = fastrank.roc_auc(y, s, groups=ids, average=None)
    frame = res.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.name == "group"
    assert frame.index.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(frame["value"].to_numpy(), res.values)
    np.testing.assert_array_equal(frame["size"].to_numpy(), [3, 2, 3])
    for gid in ("a", "b", "c"):
        mask = ids == gid
        assert frame.loc[gid, "value"] == fastrank.roc_auc(y[mask], s[mask])
        assert frame.loc[gid, "positives"] == y[mask].sum()


def test_mean_of_plus_and_minus_infinite_d_prime_is_nan_with_one_warning() -> None:
    """Groups ranked perfectly (d' = +inf) and perfectly backwards (-inf): their mean
    has no value. It was numpy's RuntimeWarning, an error under ``-W error``; it is NaN
    with one UndefinedMetricWarning, in a fresh interpreter as in a user's script."""

    code = (
        "import math, warnings, fastrank\n"
        "y = [1, 0, 1, 0, 1, 0]; s = [.9, .1, .1, .9, .8, .2]; g = [0, 0, 1, 1, 2, 2]\n"
        "per = fastrank.d_prime(y, s, groups=g, average=None)\n"
        "assert per.values.tolist() == [math.inf, -math.inf, math.inf], per.values\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    for how in ('macro', 'weighted', 'size', 'pairs'):\n"
        "        assert math.isnan(fastrank.d_prime(y, s, groups=g, average=how))\n"
        "    m = fastrank.all_metrics(y, s, groups=g)\n"
        "    assert math.isnan(m.d_prime) and m.roc_auc == 2 / 3\n"
        "kinds = {type(x.message).__name__ for x in w}\n"
        "assert kinds == {'UndefinedMetricWarning'}, [str(x.message) for x in w]\n"
        "assert len(w) == 5, len(w)\n"
        "print('ok')\n"
    )
    assert_prints_ok(code, flags=("-W", "error::RuntimeWarning"))


def test_one_warning_says_which_metrics_each_kind_of_group_lacks() -> None:
    """Groups without positives lack every metric; groups without negatives only
    roc_auc and d_prime. The warning used to name all five for all of them."""
    y = [1, 0, 0, 0, 1, 1, 1, 0]
    s = [.9, .3, .5, .2, .4, .8, .7, .1]
    g = ["a", "a", "b", "b", "c", "c", "d", "d"]
    with pytest.warns(fastrank.UndefinedMetricWarning) as record:
        per = fastrank.all_metrics(y, s, groups=g, average=None)
    assert len(record) == 1
    text = str(record[0].message)
    assert text.startswith("metrics undefined for 2 of 4 groups: average_precision, pr_auc "
                           "and prbe for the 1 without positive samples, roc_auc and d_prime "
                           "for those and the 1 without negative samples")
    assert np.isnan(per.average_precision[1]) and per.average_precision[2] == 1.0
    assert np.isnan(per.roc_auc[1]) and np.isnan(per.roc_auc[2])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_group_order_in_parts_is_the_one_thread_order(weighted, dtype):
    """The counting sort that orders a large grouped call runs in parts on the
    threads; the parts must put every sample where one pass would (input order
    inside each group), and report "already in order" only when it is."""
    from fastrank._core import batch_tasks, workers

    rng = np.random.default_rng(7)
    n = 3 * workers.PARALLEL_MIN + 5  # three parts on three threads
    codes = rng.integers(0, 997, n)
    values = (rng.random(n) * 50).astype(dtype)
    labels = (rng.random(n) < 0.3).astype(np.uint8)
    w = rng.random(n) if weighted else None
    with workers.thread_limit(1):
        one = batch_tasks.group_segments(codes, 997, values, labels, w)
    with workers.thread_limit(3):
        three = batch_tasks.group_segments(codes, 997, values, labels, w)
    want = np.argsort(codes, kind="stable")
    for got in (one, three):
        order, offsets, v, lab, wt = got
        np.testing.assert_array_equal(order, want)
        counts = np.bincount(codes, minlength=997)
        np.testing.assert_array_equal(offsets, np.r_[0, np.cumsum(counts)])
        np.testing.assert_array_equal(v, values[want])
        np.testing.assert_array_equal(lab, labels[want])
        if weighted:
            np.testing.assert_array_equal(wt, w[want])
        else:
            assert wt is None
    # already grouped: no order, and the inputs come back as they are
    sorted_codes = np.sort(codes)
    with workers.thread_limit(3):
        order, offsets, v, lab, _ = batch_tasks.group_segments(sorted_codes, 997, values, labels, w)
    assert order is None and v is values and lab is labels


def test_large_grouped_call_is_the_same_on_one_and_two_threads():
    from fastrank._core import workers

    rng = np.random.default_rng(3)
    n = 2 * workers.PARALLEL_MIN + 11
    g, y, s = rng.integers(0, 500, n), rng.random(n) < 0.3, rng.random(n)
    w = rng.random(n)
    with workers.thread_limit(1):
        one = fastrank.all_metrics(y, s, groups=g, sample_weight=w, average=None)
    with workers.thread_limit(2):
        two = fastrank.all_metrics(y, s, groups=g, sample_weight=w, average=None)
    for field in ("roc_auc", "average_precision", "pr_auc", "prbe", "d_prime"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))


def test_batches_of_one_sample_tasks_with_float32_scores() -> None:
    """More than 64 tasks of one sample each, unweighted float32 scores (groups of
    one row, one row of 2-D scores): the batch kernel's choice of the item sort was
    timed at the size bucket's middle size, ``3 << (bucket - 2)``, a negative shift
    for tasks of one sample (``ValueError: negative shift count``). Run in a fresh
    interpreter: the timing is made once per process and bucket."""

    code = (
        "import math, warnings, numpy as np, fastrank\n"
        "warnings.simplefilter('ignore')\n"
        "y, g = np.arange(100) % 2, np.arange(100)\n"
        "for dt in (np.float32, np.float16, np.bool_, np.float64):\n"
        "    per = fastrank.roc_auc(y, np.zeros(100, dt), groups=g, average=None)\n"
        "    assert np.isnan(per.values).all(), per.values\n"
        "    ap = fastrank.average_precision(y, np.ones(100, dt), groups=g, average=None)\n"
        "    assert ap.values[1::2].tolist() == [1.0] * 50 and np.isnan(ap.values[::2]).all()\n"
        "    row = fastrank.average_precision(np.ones((1, 65), int), np.ones((1, 65), dt),\n"
        "                                     average=None)\n"
        "    assert row.tolist() == [1.0] * 65, row\n"
        "    m = fastrank.all_metrics(y, np.zeros(100, dt), groups=g)\n"
        "    assert math.isnan(m.roc_auc)\n"
        "print('ok')\n"
    )
    assert_prints_ok(code)
