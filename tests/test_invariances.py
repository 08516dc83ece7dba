"""Invariances every metric must respect (METRICS.md: only order and ties matter).

Monotone maps of the scores, permutations of the samples, duplication versus
weight 2, integer weights versus repetition, zero weight versus removal,
negated scores and swapped classes, the same values in another dtype, signed
zeros, array layouts, and threads. Unweighted (and exactly summed) results
must be *identical*; where real weights are summed in another order, 1e-12.
"""

from __future__ import annotations

import math
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from strategies import (
    ALL_DTYPES,
    LAYOUTS,
    PROPERTY_SETTINGS,
    Case,
    apply_layout,
    cases,
)

TOL = 1e-12
WEIGHT_KINDS = ["none", "int", "dyadic", "real"]
FIELDS = (
    "average_precision",
    "average_precision_expected",
    "roc_auc",
    "roc_auc_partial",
    "pr_auc",
    "d_prime",
    "prbe",
    "positives",
    "negatives",
)
# Dyadic values: 3 s + 1, s - 100 and s * 2**-30 are exact, exp keeps them apart.
SMALL_POOL = [-2.5, -1.0, -0.0, 0.0, 0.125, 0.5, 1.0, 3.0, 7.75]

SETTINGS = settings(PROPERTY_SETTINGS, max_examples=40)


def metrics(y: Any, s: Any, w: Any = None, pos_label: Any = None) -> fastrank.BinaryMetrics:
    return fastrank.all_metrics(y, s, sample_weight=w, pos_label=pos_label, max_fpr=0.3)


def case_metrics(case: Case) -> fastrank.BinaryMetrics:
    return metrics(case.y_true, case.y_score, case.sample_weight, case.pos_label)


def assert_same(
    a: fastrank.BinaryMetrics, b: fastrank.BinaryMetrics, *, exact: bool, skip: tuple[str, ...] = ()
) -> None:
    """Field by field: identical (exact) or within 1e-12 (relative for the totals)."""
    for name in FIELDS:
        if name in skip:
            continue
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
        elif math.isnan(x):
            assert math.isnan(y), name
        elif exact:
            assert x == y, (name, x, y)
        elif name == "d_prime":
            continue  # a steep function of roc_auc, which is compared
        else:
            assert abs(x - y) <= TOL * max(1.0, abs(x)), (name, x, y)


def exact_sums(case: Case) -> bool:
    """Whether every weighted sum is exact whatever the order of summation."""
    return case.weight_kind != "real"


def thresholds_ok(case: Case, got: Any, mapped: Any = None) -> bool:
    """The break-even threshold is the oracle's (mapped through ``mapped``)."""
    rel = Fraction(0) if exact_sums(case) else Fraction(1, 10**12)
    allowed = oracles.prbe_thresholds(*case.oracle_args, rel=rel)
    if mapped is not None:
        allowed = [mapped(t) for t in allowed]
    return any(got == t for t in allowed)


# ---------------------------------------------------------------- monotone maps


def _float(v: Any) -> float:
    return float(v)


MONOTONE = {
    "affine": (lambda s: 3.0 * s + 1.0, lambda t: 3.0 * _float(t) + 1.0),
    "shift": (lambda s: s - 100.0, lambda t: _float(t) - 100.0),
    "scale": (lambda s: s * 2.0**-30, lambda t: _float(t) * 2.0**-30),
    "exp": (np.exp, lambda t: float(np.exp(np.float64(t)))),
}


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@pytest.mark.parametrize("transform", sorted(MONOTONE))
def test_monotone_transforms(transform: str, weight_kind: str) -> None:
    fn, on_threshold = MONOTONE[transform]

    @SETTINGS
    @given(
        case=cases(
            dtypes=("float64",), pool=SMALL_POOL, weight_kinds=(weight_kind,), max_distinct=6
        )
    )
    def run(case: Case) -> None:
        base = case_metrics(case)
        s2 = fn(case.score_array())
        assert np.unique(s2).shape[0] == np.unique(case.score_array()).shape[0]
        moved = metrics(case.y_true, s2, case.sample_weight, case.pos_label)
        assert_same(base, moved, exact=True)
        assert moved.prbe_threshold == on_threshold(base.prbe_threshold)
        assert thresholds_ok(case, base.prbe_threshold)

    run()


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_rank_transform(dtype: str, weight_kind: str) -> None:
    @settings(SETTINGS, max_examples=15)
    @given(case=cases(dtypes=(dtype,), weight_kinds=(weight_kind,), max_distinct=6))
    def run(case: Case) -> None:
        s = case.score_array()
        ranks = stats.rankdata(s, method="dense").astype(np.float64)
        rank_of = {v: r for v, r in zip(s.tolist(), ranks.tolist(), strict=True)}
        base = case_metrics(case)
        moved = metrics(case.y_true, ranks, case.sample_weight, case.pos_label)
        assert_same(base, moved, exact=True)
        assert moved.prbe_threshold == rank_of[base.prbe_threshold]

    run()


# ----------------------------------------------------------------- permutation


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@SETTINGS
@given(data=st.data())
def test_permutation_of_samples(weight_kind: str, data: st.DataObject) -> None:
    case = data.draw(cases(weight_kinds=(weight_kind,), max_distinct=6, max_size=40), label="case")
    n = len(case.y01)
    perm = np.array(data.draw(st.permutations(list(range(n))), label="perm"))
    base = case_metrics(case)
    y = np.asarray(case.y_true)[perm]
    s = case.score_array()[perm]
    w = None if case.weights is None else case.weight_array()[perm]
    moved = metrics(y, s, w, case.pos_label)
    assert_same(base, moved, exact=exact_sums(case))
    assert thresholds_ok(case, base.prbe_threshold)
    assert thresholds_ok(case, moved.prbe_threshold)
    # Curves too: same points, same thresholds.
    for fn in (fastrank.roc_curve, fastrank.precision_recall_curve):
        a = fn(
            case.y_true,
            case.y_score,
            sample_weight=case.sample_weight,
            pos_label=case.pos_label,
            drop_intermediate=False,
        )
        b = fn(y, s, sample_weight=w, pos_label=case.pos_label, drop_intermediate=False)
        np.testing.assert_array_equal(a[2], b[2])
        for u, v in zip(a[:2], b[:2], strict=True):
            np.testing.assert_allclose(u, v, rtol=0, atol=0 if exact_sums(case) else TOL)


# -------------------------------------------------- duplication and repetition


@settings(SETTINGS, max_examples=100)
@given(case=cases(weight_kinds=("none",), max_distinct=6))
def test_duplicating_every_sample_equals_weight_two(case: Case) -> None:
    s = case.score_array()
    y = np.asarray(case.y_true)
    doubled = metrics(np.concatenate([y, y]), np.concatenate([s, s]), None, case.pos_label)
    weighted = metrics(case.y_true, case.y_score, np.full(len(case.y01), 2.0), case.pos_label)
    assert_same(doubled, weighted, exact=False, skip=("average_precision_expected",))
    assert weighted.average_precision_expected is None
    assert doubled.prbe_threshold == weighted.prbe_threshold
    assert doubled.positives == 2 * sum(case.y01)


@settings(SETTINGS, max_examples=100)
@given(case=cases(weight_kinds=("int",), max_distinct=6))
def test_integer_weights_equal_repetition(case: Case) -> None:
    w = np.array(case.weights, dtype=np.int64)
    y = np.repeat(np.asarray(case.y_true), w)
    s = np.repeat(case.score_array(), w)
    repeated = metrics(y, s, None, case.pos_label)
    weighted = case_metrics(case)
    assert_same(repeated, weighted, exact=False, skip=("average_precision_expected",))
    assert repeated.prbe_threshold == weighted.prbe_threshold
    # Unweighted, ties="expected" is defined; it must match its own oracle.
    want = oracles.expected_ap_formula((np.asarray(case.y01).repeat(w)).tolist(), s.tolist())
    assert repeated.average_precision_expected is not None
    assert abs(repeated.average_precision_expected - float(want)) <= TOL


@pytest.mark.parametrize("weight_kind", ["int", "dyadic", "real"])
@SETTINGS
@given(data=st.data())
def test_zero_weight_equals_removal(weight_kind: str, data: st.DataObject) -> None:
    case = data.draw(cases(weight_kinds=(weight_kind,), max_distinct=6, max_size=30), label="case")
    w = case.weight_array()
    keep = w > 0
    y = np.asarray(case.y_true)[keep]
    s = case.score_array()[keep]
    full = case_metrics(case)
    kept = metrics(y, s, w[keep], case.pos_label)
    assert_same(full, kept, exact=exact_sums(case))
    assert thresholds_ok(case, full.prbe_threshold)
    assert thresholds_ok(case, kept.prbe_threshold)
    for fn in (fastrank.roc_curve, fastrank.precision_recall_curve, fastrank.det_curve):
        for drop in (False, True):
            a = fn(
                case.y_true,
                case.y_score,
                sample_weight=case.sample_weight,
                pos_label=case.pos_label,
                drop_intermediate=drop,
            )
            b = fn(y, s, sample_weight=w[keep], pos_label=case.pos_label, drop_intermediate=drop)
            for u, v in zip(a, b, strict=True):
                np.testing.assert_array_equal(u, v)
    a = fastrank.confusion_matrix_at_thresholds(
        case.y_true, case.y_score, sample_weight=case.sample_weight, pos_label=case.pos_label
    )
    b = fastrank.confusion_matrix_at_thresholds(
        y, s, sample_weight=w[keep], pos_label=case.pos_label
    )
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


# --------------------------------------------------- negation and class swaps


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@SETTINGS
@given(data=st.data())
def test_negated_scores_and_swapped_classes(weight_kind: str, data: st.DataObject) -> None:
    case = data.draw(cases(weight_kinds=(weight_kind,), max_distinct=6), label="case")
    s = case.score_array()
    s64 = s.astype(np.float64)  # the pools map to float64 without merging values
    assert np.unique(s64).shape[0] == np.unique(s).shape[0]
    y01 = np.array(case.y01)
    w = case.sample_weight
    auc = fastrank.roc_auc(y01, s, sample_weight=w)
    # Negated scores reverse the ranking.
    assert abs(fastrank.roc_auc(y01, -s64, sample_weight=w) - (1.0 - auc)) <= TOL
    # Swapped classes, by labels and by pos_label.
    assert abs(fastrank.roc_auc(1 - y01, s, sample_weight=w) - (1.0 - auc)) <= TOL
    assert abs(fastrank.roc_auc(y01, s, sample_weight=w, pos_label=0) - (1.0 - auc)) <= TOL
    # Both at once give the original AUC back.
    assert abs(fastrank.roc_auc(1 - y01, -s64, sample_weight=w) - auc) <= TOL
    # d' is odd under either.
    d = fastrank.d_prime(y01, s, sample_weight=w)
    d_neg = fastrank.d_prime(y01, -s64, sample_weight=w)
    if math.isinf(d):
        assert d_neg == -d
    else:
        assert abs(d + d_neg) <= 1e-9 * max(1.0, abs(d))


# ------------------------------------------------------- dtypes and signed zeros


def _lossless_float64(s: np.ndarray) -> bool:
    """Every value is exactly a float64 (Python compares int and float exactly)."""
    return all(float(v) == v for v in s.tolist())


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != "float64"])
def test_same_values_in_another_dtype_give_identical_results(dtype: str, weight_kind: str) -> None:
    @settings(SETTINGS, max_examples=15)
    @given(case=cases(dtypes=(dtype,), weight_kinds=(weight_kind,), max_distinct=6))
    def run(case: Case) -> None:
        s = case.score_array()
        base = case_metrics(case)
        others = [np.float64]
        if s.dtype.kind in "biu" and s.dtype != np.uint64:
            others.append(np.int64)
        if s.dtype in (np.float16, np.bool_, np.int8, np.uint8):
            others.append(np.float32)
        for other in others:
            wide = s.astype(other)
            if not _lossless_float64(s) and other == np.float64:
                continue  # int64/uint64 beyond 2**53 do not fit float64
            got = metrics(case.y_true, wide, case.sample_weight, case.pos_label)
            assert_same(base, got, exact=True)
            assert float(got.prbe_threshold) == float(base.prbe_threshold)
            a = fastrank.roc_curve(
                case.y_true,
                case.y_score,
                sample_weight=case.sample_weight,
                pos_label=case.pos_label,
            )
            b = fastrank.roc_curve(
                case.y_true, wide, sample_weight=case.sample_weight, pos_label=case.pos_label
            )
            for u, v in zip(a, b, strict=True):
                np.testing.assert_array_equal(u, v)

    run()


def test_float32_and_float64_of_the_same_values_are_identical() -> None:
    rng = np.random.default_rng(3)
    for n in (10, 1000, 40_000):
        s32 = (rng.integers(-300, 300, n) / 64.0).astype(np.float32)  # exact in float32
        y = (rng.random(n) < 0.4).astype(int)
        w = rng.integers(0, 3, n).astype(np.float64)
        for weights in (None, w):
            a = metrics(y, s32, weights)
            b = metrics(y, s32.astype(np.float64), weights)
            assert_same(a, b, exact=True)
            assert a.prbe_threshold == b.prbe_threshold


@pytest.mark.parametrize("weight_kind", WEIGHT_KINDS)
@SETTINGS
@given(data=st.data())
def test_signed_zeros_are_one_tie_group(weight_kind: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(["float64", "float32", "float16"]), label="dtype")
    case = data.draw(
        cases(dtypes=(dtype,), weight_kinds=(weight_kind,), max_distinct=5), label="case"
    )
    n = len(case.y01)
    zero = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="zero")
    negative = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="negative")
    s = case.score_array()
    s[np.array(zero)] = 0.0
    plus = s.copy()
    plus[plus == 0] = 0.0
    mixed = plus.copy()
    mixed[(plus == 0) & np.array(negative)] = -0.0
    w = case.sample_weight
    a = metrics(case.y_true, plus, w, case.pos_label)
    b = metrics(case.y_true, mixed, w, case.pos_label)
    assert_same(a, b, exact=True)
    assert a.prbe_threshold == b.prbe_threshold
    for fn in (
        fastrank.roc_curve,
        fastrank.precision_recall_curve,
        fastrank.confusion_matrix_at_thresholds,
    ):
        u = fn(case.y_true, plus, sample_weight=w, pos_label=case.pos_label)
        v = fn(case.y_true, mixed, sample_weight=w, pos_label=case.pos_label)
        for p, q in zip(u, v, strict=True):
            np.testing.assert_array_equal(p, q)  # 0.0 == -0.0, and no extra threshold


@pytest.mark.parametrize("n", [1000, 40_000], ids=["sorted", "counted"])
def test_signed_zeros_medium(n: int) -> None:
    """Both grouping paths merge -0.0 and 0.0.

    (Radix sort below 32768 samples, hash counting above.)
    """
    rng = np.random.default_rng(n)
    for dtype in (np.float64, np.float32):
        plus = (rng.integers(-5, 6, n) / 4.0).astype(dtype)
        mixed = plus.copy()
        zeros = np.flatnonzero(plus == 0)
        mixed[zeros[rng.random(zeros.shape[0]) < 0.5]] = -0.0
        assert np.signbit(mixed).sum() > np.signbit(plus).sum()
        y = (rng.random(n) < 0.4).astype(int)
        for w in (None, rng.random(n)):
            a = metrics(y, plus, w)
            b = metrics(y, mixed, w)
            assert_same(a, b, exact=True)
            u = fastrank.confusion_matrix_at_thresholds(y, plus, sample_weight=w)
            v = fastrank.confusion_matrix_at_thresholds(y, mixed, sample_weight=w)
            assert v[4].shape == (11,)
            for p, q in zip(u, v, strict=True):
                np.testing.assert_array_equal(p, q)


def test_signed_zeros_minimal() -> None:
    for s in (
        [0.0, -0.0],
        [-0.0, 0.0],
        np.array([0.0, -0.0], np.float32),
        np.array([-0.0, 0.0], np.float16),
    ):
        assert fastrank.roc_auc([1, 0], s) == 0.5
        assert fastrank.average_precision([1, 0], s) == 0.5
        assert fastrank.average_precision([1, 0], s, ties="expected") == 0.75
        assert fastrank.prbe([1, 0], s) == 0.5
        assert fastrank.confusion_matrix_at_thresholds([1, 0], s)[4].shape == (1,)
        assert fastrank.roc_curve([1, 0], s)[2].shape == (2,)


# -------------------------------------------------------------------- layouts


@pytest.mark.parametrize("layout", LAYOUTS)
@settings(SETTINGS, max_examples=30)
@given(case=cases(layouts=("contiguous",), max_distinct=6))
def test_array_layouts_give_identical_results(layout: str, case: Case) -> None:
    base = case_metrics(case)
    s = case.score_array()
    if layout == "list" and s.dtype != np.float64:
        return  # a list would not keep the dtype
    y = case.y_true
    if isinstance(y, np.ndarray) and y.dtype.kind != "U" and layout != "list":
        y = apply_layout(y, layout)
    w = None if case.weights is None else apply_layout(case.weight_array(), layout)
    got = metrics(y, apply_layout(s, layout), w, case.pos_label)
    assert_same(base, got, exact=True)
    assert got.prbe_threshold == base.prbe_threshold


# -------------------------------------------------------------------- threads


def test_threads_give_the_same_results() -> None:
    """Kernels release the GIL: concurrent calls must not share scratch state."""
    rng = np.random.default_rng(11)
    tasks = []
    for i in range(8):
        n = 20_000 + 1000 * i
        s = rng.normal(size=n) if i % 2 else rng.integers(0, 30, n).astype(np.float64)
        y = (rng.random(n) < 0.3).astype(int)
        w = rng.random(n) if i % 3 == 0 else None
        tasks.append((y, s, w))
    sequential = [metrics(*t) for t in tasks]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda t: metrics(*t), tasks * 2))
    for i, m in enumerate(parallel):
        assert_same(sequential[i % len(tasks)], m, exact=True)


# ------------------------------------------------------------- weight scaling


@pytest.mark.parametrize(
    "scale", [2.0**-600, 2.0**-300, 2.0**300, 2.0**600], ids=lambda v: f"2^{math.log2(v):+.0f}"
)
@settings(SETTINGS, max_examples=30)
@given(case=cases(weight_kinds=("none", "int", "dyadic", "real"), max_distinct=6))
def test_scaling_all_weights_changes_nothing(scale: float, case: Case) -> None:
    """Weights are relative: multiplying all of them by a power of two (exact) changes no metric.

    ``sample_weight`` may be any non-negative finite numbers; METRICS.md
    defines every metric from ratios of weighted sums.
    """
    w = np.ones(len(case.y01)) if case.weights is None else case.weight_array().astype(np.float64)
    base = metrics(case.y_true, case.y_score, w, case.pos_label)
    scaled = metrics(case.y_true, case.y_score, w * scale, case.pos_label)
    assert_same(base, scaled, exact=False, skip=("positives", "negatives", "d_prime"))
    assert scaled.positives == base.positives * scale
    assert scaled.negatives == base.negatives * scale
    assert scaled.prbe_threshold == base.prbe_threshold


def test_huge_and_tiny_uniform_weights_minimal() -> None:
    """Minimal case: two samples, equal weights. Any positive constant weight is 'unweighted'."""
    for c in (1e-200, 1e-160, 1e160, 1e200, 1e300):
        w = [c, c]
        assert fastrank.roc_auc([1, 0], [1.0, 0.0], sample_weight=w) == 1.0, c
        assert fastrank.roc_auc([1, 0], [1.0, 0.0], sample_weight=w, max_fpr=0.5) == 1.0, c
        assert fastrank.d_prime([1, 0], [1.0, 0.0], sample_weight=w) == math.inf, c
    y = [1, 0, 1, 0, 0, 1]
    s = [0.9, 0.8, 0.7, 0.6, 0.6, 0.1]
    want = metrics(y, s)
    for c in (1e-200, 1e200):
        got = metrics(y, s, [c] * 6)
        assert_same(
            want, got, exact=False, skip=("positives", "negatives", "average_precision_expected")
        )


@pytest.mark.filterwarnings("ignore::fastrank.UndefinedMetricWarning")  # k >= classes
def test_weighted_and_macro_means_do_not_depend_on_the_order() -> None:
    """Means over samples (weighted or not) and over tasks are correctly rounded sums:
    permuting the samples or the columns gives the same bits (a dot product's
    rounding changed weighted LRAP, nDCG and top-k accuracy with the order in
    nearly every case, and gave a weighted top-k accuracy of 1 + 2**-52 where every
    sample is a hit)."""
    rng = np.random.default_rng(21)
    n, t = 200, 6
    y = (rng.random((n, t)) < 0.3).astype(int)
    y[np.arange(n), rng.integers(0, t, n)] = 1
    s = np.round(rng.random((n, t)), 2)
    w = rng.random(n) * 10.0 ** rng.integers(-3, 3, n)
    labels = rng.integers(0, t, n)
    funcs = {
        "lrap": lambda a, b, c: fastrank.label_ranking_average_precision(a, b, sample_weight=c),
        "coverage": lambda a, b, c: fastrank.coverage_error(a, b, sample_weight=c),
        "loss": lambda a, b, c: fastrank.label_ranking_loss(a, b, sample_weight=c),
        "ndcg": lambda a, b, c: fastrank.ndcg(a, b, sample_weight=c),
        "dcg": lambda a, b, c: fastrank.dcg(a, b, sample_weight=c),
        "ap_samples": lambda a, b, c: fastrank.average_precision(a, b, sample_weight=c,
                                                                 average="samples"),
    }
    for _ in range(5):
        p = rng.permutation(n)
        for name, f in funcs.items():
            assert f(y[p], s[p], w[p]) == f(y, s, w), name
        for k in (1, 2, t):
            assert fastrank.top_k_accuracy(labels[p], s[p], k, sample_weight=w[p],
                                           labels=list(range(t))) == \
                fastrank.top_k_accuracy(labels, s, k, sample_weight=w, labels=list(range(t)))
        c = rng.permutation(t)
        for avg in ("macro", "weighted"):
            assert fastrank.roc_auc(y[:, c], s[:, c], average=avg) == \
                fastrank.roc_auc(y, s, average=avg)
            assert fastrank.average_precision(y[:, c], s[:, c], average=avg) == \
                fastrank.average_precision(y, s, average=avg)
    for _ in range(50):
        ww = rng.random(7)
        assert fastrank.top_k_accuracy(rng.integers(0, 3, 7), rng.random((7, 3)), 3,
                                       sample_weight=ww, labels=[0, 1, 2]) == 1.0
