"""Every scalar metric against the slow oracles of tests/oracles.py.

Scores come from tiny value pools (ties everywhere) of every dtype, labels in
every encoding, weights absent / integer / real with zeros, arrays in awkward
layouts. Tolerances: 1e-12 absolute for every metric, 1e-9 for the PR AUC
(whose oracle is numerical quadrature).
"""

from __future__ import annotations

import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from strategies import ALL_DTYPES, PROPERTY_SETTINGS, Case, cases

TOL = 1e-12
PR_TOL = 1e-9
SQRT2 = math.sqrt(2.0)

MAX_FPRS = st.one_of(
    st.sampled_from([0.05, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.75, 0.9, 1.0]),
    st.floats(min_value=1e-3, max_value=1.0, allow_nan=False),
)


def close(got: float, want: Fraction | float, tol: float = TOL) -> bool:
    """``got`` equals ``want`` within ``tol`` (NaN matches NaN, infinities exactly)."""
    want_f = float(want)
    if math.isnan(want_f):
        return math.isnan(got)
    if math.isinf(want_f):
        return got == want_f
    return abs(got - want_f) <= tol


def allowed_prbe_thresholds(case: Case) -> list[Any]:
    """The oracle's break-even threshold (and its neighbour where real weights round)."""
    rel = Fraction(1, 10**12) if case.weight_kind == "real" else Fraction(0)
    return oracles.prbe_thresholds(*case.oracle_args, rel=rel)


def expected_d_prime(auc: Fraction | float) -> float:
    if auc == 1:
        return math.inf
    if auc == 0:
        return -math.inf
    return SQRT2 * float(oracles.stats.norm.ppf(float(auc)))


# ----------------------------------------------------------------- both classes


@pytest.mark.parametrize("weight_kind", ["none", "int", "dyadic", "real"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scalar_metrics_match_oracles(dtype: str, weight_kind: str) -> None:
    # Parametrized so that every dtype meets every kind of weight.
    strategy = cases(dtypes=(dtype,), weight_kinds=(weight_kind,), max_distinct=6)

    @settings(PROPERTY_SETTINGS, max_examples=30)
    @given(case=strategy, max_fpr=MAX_FPRS)
    def run(case: Case, max_fpr: float) -> None:
        check_scalar_metrics(case, max_fpr)

    run()


def check_scalar_metrics(case: Case, max_fpr: float) -> None:
    kw = case.kwargs()
    args = case.oracle_args
    ap = fastrank.average_precision(case.y_true, case.y_score, **kw)
    assert close(ap, oracles.average_precision(*args)), (
        ap,
        float(oracles.average_precision(*args)),
    )

    auc_exact = oracles.roc_auc_pairwise(*args)
    auc = fastrank.roc_auc(case.y_true, case.y_score, **kw)
    assert close(auc, auc_exact), (auc, float(auc_exact))
    assert oracles.roc_auc_partial(*args, 1.0) == auc_exact  # the two AUC oracles agree exactly

    partial = fastrank.roc_auc(case.y_true, case.y_score, max_fpr=max_fpr, **kw)
    want_partial = oracles.roc_auc_partial(*args, max_fpr)
    assert close(partial, want_partial), (partial, float(want_partial))

    pr = fastrank.pr_auc(case.y_true, case.y_score, **kw)
    want_pr = oracles.pr_auc_quadrature(*args)
    assert close(pr, want_pr, PR_TOL), (pr, want_pr)

    want_prbe, _ = oracles.prbe(*args)
    value, threshold = fastrank.prbe(case.y_true, case.y_score, return_threshold=True, **kw)
    assert close(value, want_prbe), (value, float(want_prbe))
    assert fastrank.prbe(case.y_true, case.y_score, **kw) == value
    assert any(threshold == t for t in allowed_prbe_thresholds(case)), (
        threshold,
        allowed_prbe_thresholds(case),
    )
    assert isinstance(threshold, int | float)

    # Every score of the ranking is a probability or an area in [0, 1].
    for name, v in (
        ("ap", ap),
        ("auc", auc),
        ("partial", partial),
        ("pr_auc", pr),
        ("prbe", value),
    ):
        assert 0.0 <= v <= 1.0, (name, v)

    d = fastrank.d_prime(case.y_true, case.y_score, **kw)
    assert not math.isnan(d)
    assert d == pytest.approx(expected_d_prime(auc_exact), rel=1e-12, abs=1e-12), (
        d,
        float(auc_exact),
        auc,
    )

    m = fastrank.all_metrics(case.y_true, case.y_score, max_fpr=max_fpr, **kw)
    assert close(m.average_precision, oracles.average_precision(*args))
    assert close(m.roc_auc, auc_exact)
    assert m.roc_auc_partial is not None and close(m.roc_auc_partial, want_partial)
    assert m.max_fpr == max_fpr
    assert close(m.pr_auc, want_pr, PR_TOL)
    assert close(m.prbe, want_prbe)
    assert any(m.prbe_threshold == t for t in allowed_prbe_thresholds(case))
    assert m.d_prime == pytest.approx(expected_d_prime(auc_exact), rel=1e-12, abs=1e-12)
    pos, neg = oracles.totals(*args)
    assert m.positives == pytest.approx(float(pos), rel=1e-13)
    assert m.negatives == pytest.approx(float(neg), rel=1e-13)

    if case.weights is None:
        want_expected = oracles.expected_ap_formula(*args[:2])
        expected = fastrank.average_precision(
            case.y_true, case.y_score, ties="expected", pos_label=case.pos_label
        )
        assert close(expected, want_expected), (expected, float(want_expected))
        assert m.average_precision_expected is not None
        assert close(m.average_precision_expected, want_expected)
        assert m.positives == pos and m.negatives == neg  # exact counts
    else:
        assert m.average_precision_expected is None


@PROPERTY_SETTINGS
@given(case=cases(weight_kinds=("none",), max_size=9, max_distinct=3, classes="any"))
def test_expected_ap_matches_brute_force(case: Case) -> None:
    """Tie-expected AP against the mean AP over every order inside each tie group."""
    if sum(case.y01) == 0:
        return  # undefined; covered by the one-class tests
    want = oracles.expected_ap_brute_force(case.y01, case.scores)
    assert want == oracles.expected_ap_formula(case.y01, case.scores)  # METRICS.md's closed form
    if len(case.y01) <= 7:  # literally every permutation of every tie group
        assert want == oracles.expected_ap_permutations(case.y01, case.scores)
    got = fastrank.average_precision(
        case.y_true, case.y_score, ties="expected", pos_label=case.pos_label
    )
    assert close(got, want), (got, float(want))
    if len(set(case.scores)) == len(case.scores):  # no ties: same as grouped AP
        assert got == pytest.approx(
            fastrank.average_precision(case.y_true, case.y_score, pos_label=case.pos_label),
            abs=1e-15,
        )
    if 0 < sum(case.y01) < len(case.y01):
        m = fastrank.all_metrics(case.y_true, case.y_score, pos_label=case.pos_label)
        assert m.average_precision_expected is not None
        assert close(m.average_precision_expected, want)


def test_expected_ap_brute_force_examples() -> None:
    """Hand-checkable cases: one tie group holding everything."""
    # 2 positives among 4 tied samples: average over the 6 placements.
    want = Fraction(0)
    for order in [
        (1, 1, 0, 0),
        (1, 0, 1, 0),
        (1, 0, 0, 1),
        (0, 1, 1, 0),
        (0, 1, 0, 1),
        (0, 0, 1, 1),
    ]:
        want += oracles.ap_of_order(order)
    want /= 6
    assert oracles.expected_ap_brute_force([1, 1, 0, 0], [3, 3, 3, 3]) == want
    got = fastrank.average_precision([1, 1, 0, 0], [3.0, 3.0, 3.0, 3.0], ties="expected")
    assert abs(got - float(want)) <= TOL
    # A single positive tied with m - 1 negatives: H_m / m.
    for m in (1, 2, 5, 50, 500):
        y = [1] + [0] * (m - 1)
        s = [0.5] * m
        want = sum(Fraction(1, j) for j in range(1, m + 1)) / m
        assert abs(fastrank.average_precision(y, s, ties="expected") - float(want)) <= TOL


def test_expected_ap_medium_matches_formula() -> None:
    """Large tie groups deep in the ranking (long harmonic sums), exact closed form."""
    rng = np.random.default_rng(20240611)
    s = np.concatenate([np.full(700, 3.0), np.full(1500, 2.0), rng.integers(0, 5, 300) / 4.0 - 2.0])
    y = np.concatenate(
        [rng.random(700) < 0.02, rng.random(1500) < 0.5, rng.random(300) < 0.3]
    ).astype(int)
    want = oracles.expected_ap_formula(y.tolist(), s.tolist())
    got = fastrank.average_precision(y, s, ties="expected")
    assert abs(got - float(want)) <= TOL
    perm = rng.permutation(s.shape[0])
    assert fastrank.average_precision(y[perm], s[perm], ties="expected") == got


@PROPERTY_SETTINGS
@given(case=cases(weight_kinds=("int", "real")))
def test_expected_ap_rejects_weights(case: Case) -> None:
    with pytest.raises(ValueError, match="unweighted"):
        fastrank.average_precision(case.y_true, case.y_score, ties="expected", **case.kwargs())


@PROPERTY_SETTINGS
@given(n=st.integers(min_value=2, max_value=30), data=st.data())
def test_prbe_is_r_precision_without_ties(n: int, data: st.DataObject) -> None:
    """Without ties or weights the break-even point is the precision among the top P."""
    y = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda v: 0 < sum(v)))
    order = data.draw(st.permutations(list(range(n))))
    s = np.array(order, dtype=np.float64) / 7.0
    value, threshold = fastrank.prbe(y, s, return_threshold=True)
    assert value == pytest.approx(float(oracles.r_precision(y, s.tolist())), abs=TOL)
    p = sum(y)
    assert threshold == sorted(s.tolist(), reverse=True)[p - 1]


# ----------------------------------------------------------- interpolated curve


@pytest.mark.parametrize("weight_kind", ["none", "int", "real"])
@settings(PROPERTY_SETTINGS, max_examples=50)
@given(data=st.data())
def test_interpolated_curve_at_recalls(weight_kind: str, data: st.DataObject) -> None:
    case = data.draw(cases(weight_kinds=(weight_kind,), max_distinct=6), label="case")
    extra = data.draw(st.lists(st.floats(0.0, 1.0), max_size=5), label="extra")
    cuts = oracles.cutoffs(*case.oracle_args)
    p = cuts[-1].tp
    ends = [c.tp / p for c in cuts]

    def unambiguous(r: float) -> bool:
        # Near a PR point the first-reaching segment may flip under rounding.
        return r in (0.0, 1.0) or all(abs(Fraction(r) - e) > Fraction(1, 10**9) for e in ends)

    grid = np.array(sorted({*np.linspace(0.0, 1.0, 21).tolist(), *extra}))
    grid = grid[[unambiguous(r) for r in grid]]
    precision, recall = fastrank.interpolated_precision_recall_curve(
        case.y_true, case.y_score, recall=grid, **case.kwargs()
    )
    assert np.array_equal(recall, grid)
    want = oracles.interpolated_precision_at(*case.oracle_args, grid.tolist())
    np.testing.assert_allclose(precision, want, rtol=0, atol=TOL)


@pytest.mark.parametrize("weight_kind", ["none", "int", "real"])
@settings(PROPERTY_SETTINGS, max_examples=50)
@given(data=st.data())
def test_interpolated_curve_points_lie_on_the_curve(weight_kind: str, data: st.DataObject) -> None:
    case = data.draw(cases(weight_kinds=(weight_kind,), max_distinct=6), label="case")
    points = data.draw(st.integers(0, 4), label="points")
    precision, recall = fastrank.interpolated_precision_recall_curve(
        case.y_true, case.y_score, points_per_segment=points, **case.kwargs()
    )
    assert precision.shape == recall.shape
    assert recall[0] == 0.0 and recall[-1] == pytest.approx(1.0, abs=TOL)
    assert np.all(np.diff(recall) >= -TOL)
    cuts = oracles.cutoffs(*case.oracle_args)
    p = cuts[-1].tp
    # Every exact PR point is on the returned curve.
    for c in cuts:
        if c.tp == 0:
            continue
        r, prec = float(c.tp / p), float(c.tp / (c.tp + c.fp))
        assert np.any((np.abs(recall - r) <= TOL) & (np.abs(precision - prec) <= TOL)), (r, prec)
    # Interior points follow the hyperbola of their segment.
    ends = [float(c.tp / p) for c in cuts]
    inner = [
        i for i, r in enumerate(recall) if 0.0 < r < 1.0 and min(abs(r - e) for e in ends) > 1e-9
    ]
    want = oracles.interpolated_precision_at(*case.oracle_args, [float(recall[i]) for i in inner])
    np.testing.assert_allclose(precision[inner], want, rtol=0, atol=TOL)
    # Start: recall 0 with the precision of the first segment.
    assert precision[0] == pytest.approx(
        oracles.interpolated_precision_at(*case.oracle_args, [0.0])[0], abs=TOL
    )


# -------------------------------------------------------------- one class only


def _count_undefined(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """Call ``fn``; return its result and how many UndefinedMetricWarnings it emitted.

    Any other warning is re-raised by pytest.warns / filterwarnings=error.
    """
    with pytest.warns(fastrank.UndefinedMetricWarning) as record:
        out = fn(*args, **kwargs)
    return out, len(record)


def _no_warning(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


def _zero_class(case: Case, cls: int) -> Case:
    """The case with every weight of class ``cls`` set to zero (weights as float64)."""
    w = np.array(
        case.weights if case.weights is not None else [1.0] * len(case.y01), dtype=np.float64
    )
    w[np.array(case.y01) == cls] = 0.0
    return Case(
        case.y_true,
        case.y_score,
        w,
        case.pos_label,
        case.y01,
        case.scores,
        w.tolist(),
        case.dtype,
        "real",
    )


def _check_no_positives(case: Case) -> None:
    y, s, kw = case.y_true, case.y_score, case.kwargs()
    for fn in (
        fastrank.average_precision,
        fastrank.pr_auc,
        fastrank.prbe,
        fastrank.roc_auc,
        fastrank.d_prime,
    ):
        out, count = _count_undefined(fn, y, s, **kw)
        assert math.isnan(out), fn.__name__
        assert count == 1, fn.__name__
    out, count = _count_undefined(fastrank.roc_auc, y, s, max_fpr=0.5, **kw)
    assert math.isnan(out) and count == 1
    (value, threshold), count = _count_undefined(fastrank.prbe, y, s, return_threshold=True, **kw)
    assert math.isnan(value) and math.isnan(threshold) and count == 1
    if case.weights is None:
        out, count = _count_undefined(
            fastrank.average_precision, y, s, ties="expected", pos_label=case.pos_label
        )
        assert math.isnan(out) and count == 1
    m, count = _count_undefined(fastrank.all_metrics, y, s, max_fpr=0.5, **kw)
    assert count == 1
    for name in (
        "average_precision",
        "roc_auc",
        "roc_auc_partial",
        "pr_auc",
        "d_prime",
        "prbe",
        "prbe_threshold",
    ):
        assert math.isnan(getattr(m, name)), name
    if case.weights is None:
        assert m.average_precision_expected is not None and math.isnan(m.average_precision_expected)
    else:
        assert m.average_precision_expected is None
    assert m.positives == 0.0
    assert m.negatives == pytest.approx(float(oracles.totals(*case.oracle_args)[1]), rel=1e-13)


def _check_no_negatives(case: Case) -> None:
    y, s, kw = case.y_true, case.y_score, case.kwargs()
    args = case.oracle_args
    assert _no_warning(fastrank.average_precision, y, s, **kw) == 1.0
    assert _no_warning(fastrank.pr_auc, y, s, **kw) == pytest.approx(1.0, abs=TOL)
    value, threshold = _no_warning(fastrank.prbe, y, s, return_threshold=True, **kw)
    want_value, want_threshold = oracles.prbe(*args)
    assert want_value == 1
    assert value == pytest.approx(1.0, abs=TOL)
    # The mass reaches P only with the last group (up to rounding of real weights).
    assert any(threshold == t for t in allowed_prbe_thresholds(case)), (threshold, want_threshold)
    if case.weights is None:
        assert (
            _no_warning(fastrank.average_precision, y, s, ties="expected", pos_label=case.pos_label)
            == 1.0
        )
    for fn in (fastrank.roc_auc, fastrank.d_prime):
        out, count = _count_undefined(fn, y, s, **kw)
        assert math.isnan(out) and count == 1, fn.__name__
    out, count = _count_undefined(fastrank.roc_auc, y, s, max_fpr=0.25, **kw)
    assert math.isnan(out) and count == 1
    m, count = _count_undefined(fastrank.all_metrics, y, s, max_fpr=0.25, **kw)
    assert count == 1
    assert m.average_precision == 1.0
    assert m.pr_auc == pytest.approx(1.0, abs=TOL)
    assert m.prbe == pytest.approx(1.0, abs=TOL)
    assert math.isnan(m.roc_auc) and math.isnan(m.d_prime)
    assert m.roc_auc_partial is not None and math.isnan(m.roc_auc_partial)
    assert m.negatives == 0.0
    if case.weights is None:
        assert m.average_precision_expected == 1.0


@pytest.mark.parametrize("weight_kind", ["none", "int", "real"])
@settings(PROPERTY_SETTINGS, max_examples=40)
@given(data=st.data())
def test_no_positives_gives_nan_and_one_warning(weight_kind: str, data: st.DataObject) -> None:
    _check_no_positives(data.draw(cases(classes="no_pos", weight_kinds=(weight_kind,))))


@pytest.mark.parametrize("weight_kind", ["none", "int", "real"])
@settings(PROPERTY_SETTINGS, max_examples=40)
@given(data=st.data())
def test_no_negatives(weight_kind: str, data: st.DataObject) -> None:
    _check_no_negatives(data.draw(cases(classes="no_neg", weight_kinds=(weight_kind,))))


@PROPERTY_SETTINGS
@given(case=cases(), cls=st.integers(0, 1))
def test_zero_weight_class_is_a_missing_class(case: Case, cls: int) -> None:
    zeroed = _zero_class(case, cls)
    if cls == 1:
        _check_no_positives(zeroed)
    else:
        _check_no_negatives(zeroed)


def test_all_weights_zero_is_undefined() -> None:
    y, s, w = [1, 0, 1], [0.5, 0.5, 0.25], [0.0, 0.0, 0.0]
    for fn in (
        fastrank.average_precision,
        fastrank.roc_auc,
        fastrank.pr_auc,
        fastrank.prbe,
        fastrank.d_prime,
    ):
        out, count = _count_undefined(fn, y, s, sample_weight=w)
        assert math.isnan(out) and count == 1, fn.__name__
    m, count = _count_undefined(fastrank.all_metrics, y, s, sample_weight=w)
    assert count == 1
    assert (
        math.isnan(m.average_precision) and math.isnan(m.roc_auc) and math.isnan(m.prbe_threshold)
    )


# ------------------------------------------------------- results stay in range


@pytest.mark.parametrize(
    "w", [[0.1, 0.1, 0.6], [0.1, 0.1, 0.3]], ids=["rounds_above_1", "rounds_below_1"]
)
def test_weighted_perfect_ranking_has_auc_one_and_infinite_d_prime(w: list[float]) -> None:
    """A perfect ranking: AUC is exactly 1 (a probability), d' is +inf (METRICS.md).

    The weighted area sums round one or two ulps away from 1 here (scikit-learn
    gives exactly 1.0 for both). Above 1 it used to give AUC 1.0000000000000002
    and d' = NaN (now clamped); below 1 d' comes out finite (about 11.5)
    where METRICS.md says +inf.
    """
    y, s = [1, 0, 0], [3.0, 2.0, 1.0]
    assert oracles.roc_auc_pairwise(y, s, w) == 1
    auc = fastrank.roc_auc(y, s, sample_weight=w)
    assert auc <= 1.0, auc
    assert abs(auc - 1.0) <= TOL
    m = fastrank.all_metrics(y, s, sample_weight=w, max_fpr=0.5)
    assert m.roc_auc <= 1.0 and m.roc_auc_partial is not None and m.roc_auc_partial <= 1.0
    # Reversed, the worst ranking: AUC 0 and d' = -inf.
    s_rev = [1.0, 2.0, 3.0]
    assert 0.0 <= fastrank.roc_auc(y, s_rev, sample_weight=w) <= TOL
    assert fastrank.d_prime(y, s_rev, sample_weight=w) == -math.inf
    # d' at AUC 1 is +inf.
    assert fastrank.d_prime(y, s, sample_weight=w) == math.inf
    assert m.d_prime == math.inf


def test_weighted_ap_without_negatives_is_one() -> None:
    """METRICS.md: with no negatives AP is 1. Needs more than 64 tie groups.

    Regression: the AP numerator is summed in blocks of 64 groups and the
    denominator P group by group; they round differently, and unclamped
    this gave 1.0000000000000002.
    """
    n = 66
    y = [1] * n
    s = -np.arange(n, dtype=np.float64)
    w = np.full(n, 0.1)
    ap = fastrank.average_precision(y, s, sample_weight=w)
    assert ap <= 1.0, ap
    assert ap == 1.0
    with pytest.warns(fastrank.UndefinedMetricWarning):  # ROC AUC needs negatives
        m = fastrank.all_metrics(y, s, sample_weight=w)
    assert m.average_precision == 1.0
    assert m.pr_auc == 1.0 and m.prbe == 1.0


def test_weighted_results_stay_in_unit_interval() -> None:
    """Many weighted tasks with perfect or near-perfect rankings: every area stays in [0, 1]."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(2, 100))
        k = int(rng.integers(1, n))
        y = np.r_[np.ones(k, int), np.zeros(n - k, int)]
        s = -np.arange(n, dtype=np.float64)
        if rng.random() < 0.5:
            s = np.floor(s / 3.0)
        w = rng.choice([0.1, 0.2, 0.3, 0.7, 1.0 / 3.0, 1e-3, 12.3, 1e5], n)
        m = fastrank.all_metrics(y, s, sample_weight=w, max_fpr=0.3)
        for name in ("average_precision", "roc_auc", "roc_auc_partial", "pr_auc", "prbe"):
            v = getattr(m, name)
            assert 0.0 <= v <= 1.0, (name, v, y.tolist(), s.tolist(), w.tolist())
        assert not math.isnan(m.d_prime)


# ------------------------------------------------------------- medium inputs


def _medium_scores(kind: str, rng: np.random.Generator) -> np.ndarray:
    if kind == "hash_41_groups":  # >= 32768 samples, few distinct: counted in a hash table
        return rng.integers(-20, 21, 50_000) / 7.0
    if kind == "hash_16384_groups":  # the largest table the counting path accepts
        d = 16_384
        return rng.permutation(np.concatenate([np.arange(d), rng.integers(0, d, 40_000 - d)])) * 0.5
    if kind == "sort_3000_groups":  # under 32768 samples: sorted; > 2048 groups: chunked sweep
        return rng.integers(0, 3000, 20_000).astype(np.float32) / np.float32(8.0)
    if kind == "sort_20000_groups":  # too many distinct to count: the sort takes over
        d = 20_000
        return rng.permutation(
            np.concatenate([np.arange(d), rng.integers(0, d, 40_000 - d)])
        ).astype(np.int64)
    if kind == "sort_continuous":
        return rng.normal(size=30_000)
    raise AssertionError(kind)  # pragma: no cover


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "int_weights"])
@pytest.mark.parametrize(
    "kind",
    [
        "hash_41_groups",
        "hash_16384_groups",
        "sort_3000_groups",
        "sort_20000_groups",
        "sort_continuous",
    ],
)
def test_medium_inputs_match_group_oracles(kind: str, weighted: bool) -> None:
    rng = np.random.default_rng(sum(map(ord, kind)))
    s = _medium_scores(kind, rng)
    z = (s - s.mean()) / s.std()
    y = (rng.random(s.shape[0]) < 1 / (1 + np.exp(-z))).astype(np.int64)
    w = rng.integers(0, 4, s.shape[0]).astype(np.float64) if weighted else None
    g = oracles.group_table(y, s, w)
    m = fastrank.all_metrics(y, s, sample_weight=w, max_fpr=0.2)
    assert m.positives == sum(g.pos) and m.negatives == sum(g.neg)
    assert abs(m.average_precision - oracles.ap_groups(g)) <= TOL
    assert abs(m.roc_auc - oracles.auc_groups(g)) <= TOL
    value, threshold = oracles.prbe_groups(g)
    assert abs(m.prbe - value) <= TOL
    assert m.prbe_threshold == threshold
    if len(g.scores) <= 3000:
        assert abs(m.pr_auc - oracles.pr_auc_quadrature_groups(g)) <= PR_TOL
    if not weighted:
        assert m.average_precision_expected is not None
        assert abs(m.average_precision_expected - oracles.expected_ap_groups(g)) <= TOL
    # The standalone functions agree with all_metrics.
    assert fastrank.prbe(y, s, sample_weight=w, return_threshold=True) == (m.prbe, m.prbe_threshold)
    assert abs(fastrank.pr_auc(y, s, sample_weight=w) - m.pr_auc) <= TOL
