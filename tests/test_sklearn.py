"""fastrank against scikit-learn (1.7 and newer), element for element.

Scalars (AP, ROC AUC, partial AUC) to 1e-12; curves (ROC, PR, DET and the
confusion counts) point by point to 1e-12 with identical thresholds (values
and dtype), with ``drop_intermediate`` both ways. Small tied cases come from
hypothesis; medium random cases exercise both grouping paths of fastrank
(hash counting for few distinct scores, radix sorting otherwise).

Where point *dropping* depends on exact equality of float sums, weights are
restricted to values whose sums are exact (integers, dyadic fractions):
scikit-learn sums sample by sample and fastrank group by group, so with
arbitrary real weights the two legitimately round differently.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn
import sklearn.exceptions
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
from sklearn_ref import SKLEARN_VERSION, needs_sklearn
from sklearn_ref import confusion_matrix_at_thresholds as sk_confusion
from strategies import ALL_DTYPES, PROPERTY_SETTINGS, Case, cases

TOL = 1e-12
MAX_FPRS = (0.05, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.8, 1.0)


# ----------------------------------------------------------------- comparisons


def assert_thresholds_equal(got: np.ndarray, want: np.ndarray) -> None:
    # fastrank's threshold dtypes are scikit-learn 1.9's; older releases keep float32
    # thresholds of roc_curve and det_curve where 1.9 widens them: values only there.
    if SKLEARN_VERSION >= (1, 9):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got, want)
    assert np.array_equal(got, want), (got, want)


def assert_values_close(
    got: np.ndarray, want: np.ndarray, *, exact: bool, scale: float = 1.0
) -> None:
    assert got.shape == want.shape, (got, want)
    assert got.dtype == np.float64
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL * scale)


def compare_curves(y: Any, s: Any, *, exact: bool, drop_exact: bool, **kw: Any) -> None:
    """Every curve function of fastrank against scikit-learn's on one input.

    ``exact``: counts are exact (unweighted or integer weights): compare
    the confusion counts with ``==``. ``drop_exact``: sums are exact, so
    ``drop_intermediate=True`` must drop the very same points.
    """
    got = fastrank.confusion_matrix_at_thresholds(y, s, **kw)
    want = sk_confusion(y, s, **kw)
    total = float(want[1][-1] + want[3][-1])
    for g, w in zip(got[:4], want[:4], strict=True):
        assert_values_close(g, w, exact=exact, scale=total)
    assert_thresholds_equal(got[4], want[4])

    drops = (False, True) if drop_exact else (False,)
    for drop in drops:
        fpr, tpr, thr = fastrank.roc_curve(y, s, drop_intermediate=drop, **kw)
        sk_fpr, sk_tpr, sk_thr = skm.roc_curve(y, s, drop_intermediate=drop, **kw)
        assert_thresholds_equal(thr, sk_thr)
        assert_values_close(fpr, sk_fpr, exact=False)
        assert_values_close(tpr, sk_tpr, exact=False)

        prec, rec, thr = fastrank.precision_recall_curve(y, s, drop_intermediate=drop, **kw)
        sk_prec, sk_rec, sk_thr = skm.precision_recall_curve(y, s, drop_intermediate=drop, **kw)
        assert_thresholds_equal(thr, sk_thr)
        assert_values_close(prec, sk_prec, exact=False)
        assert_values_close(rec, sk_rec, exact=False)

        fpr, fnr, thr = fastrank.det_curve(y, s, drop_intermediate=drop, **kw)
        sk_fpr, sk_fnr, sk_thr = skm.det_curve(y, s, drop_intermediate=drop, **kw)
        assert_thresholds_equal(thr, sk_thr)
        assert_values_close(fpr, sk_fpr, exact=False)
        assert_values_close(fnr, sk_fnr, exact=False)
    # The default of each function is scikit-learn's default.
    if drop_exact:
        assert_thresholds_equal(fastrank.roc_curve(y, s, **kw)[2], skm.roc_curve(y, s, **kw)[2])
    assert_thresholds_equal(
        fastrank.precision_recall_curve(y, s, **kw)[2], skm.precision_recall_curve(y, s, **kw)[2]
    )
    assert_thresholds_equal(fastrank.det_curve(y, s, **kw)[2], skm.det_curve(y, s, **kw)[2])


def compare_scalars(y01: Any, s: Any, w: Any, *, max_fprs: tuple[float, ...] = MAX_FPRS) -> None:
    """AP, ROC AUC and partial AUCs (labels given as the 0/1 indicator)."""
    ap = fastrank.average_precision(y01, s, sample_weight=w)
    assert abs(ap - skm.average_precision_score(y01, s, sample_weight=w)) <= TOL
    auc = fastrank.roc_auc(y01, s, sample_weight=w)
    assert abs(auc - skm.roc_auc_score(y01, s, sample_weight=w)) <= TOL
    for m in max_fprs:
        got = fastrank.roc_auc(y01, s, sample_weight=w, max_fpr=m)
        want = skm.roc_auc_score(y01, s, sample_weight=w, max_fpr=m)
        assert abs(got - want) <= TOL, (m, got, want)
    allm = fastrank.all_metrics(y01, s, sample_weight=w, max_fpr=max_fprs[0])
    assert abs(allm.average_precision - ap) <= TOL
    assert abs(allm.roc_auc - auc) <= TOL
    assert allm.roc_auc_partial is not None
    assert (
        abs(allm.roc_auc_partial - skm.roc_auc_score(y01, s, sample_weight=w, max_fpr=max_fprs[0]))
        <= TOL
    )


# ------------------------------------------------------- small tied (hypothesis)


@pytest.mark.parametrize("weight_kind", ["none", "int", "dyadic", "real"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_small_tied_cases_match_sklearn(dtype: str, weight_kind: str) -> None:
    strategy = cases(dtypes=(dtype,), weight_kinds=(weight_kind,), max_distinct=6, max_size=30)

    @settings(PROPERTY_SETTINGS, max_examples=20)
    @given(case=strategy, m=st.sampled_from(MAX_FPRS))
    def run(case: Case, m: float) -> None:
        check_case(case, m)

    run()


def check_case(case: Case, m: float) -> None:
    s = case.score_array()
    w = case.weight_array()
    compare_scalars(np.array(case.y01), s, w, max_fprs=(m,))
    # Curves with the drawn label encoding (pos_label where it is needed).
    y = case.y_true if not isinstance(case.y_true, list) else np.array(case.y_true)
    y = np.ascontiguousarray(y).astype(y.dtype.newbyteorder("="))
    exact = case.weight_kind in ("none", "int")
    compare_curves(
        y,
        s,
        exact=exact,
        drop_exact=case.weight_kind != "real",
        sample_weight=w,
        pos_label=case.pos_label,
    )


# ----------------------------------------------------------- labels explicitly


def test_string_labels_with_pos_label() -> None:
    rng = np.random.default_rng(7)
    n = 300
    s = rng.integers(0, 12, n) / 4.0
    y = np.where(rng.random(n) < 0.3 + 0.04 * s, "spam", "ham")
    w = rng.integers(0, 4, n).astype(np.float64)
    for pos in ("spam", "ham"):
        for weights in (None, w):
            got = fastrank.average_precision(y, s, pos_label=pos, sample_weight=weights)
            want = skm.average_precision_score(y, s, pos_label=pos, sample_weight=weights)
            assert abs(got - want) <= TOL
            got = fastrank.roc_auc(y, s, pos_label=pos, sample_weight=weights)
            want = skm.roc_auc_score(y == pos, s, sample_weight=weights)
            assert abs(got - want) <= TOL
            compare_curves(y, s, exact=True, drop_exact=True, pos_label=pos, sample_weight=weights)
    # scikit-learn's roc_auc_score takes the larger string as positive.
    assert abs(fastrank.roc_auc(y, s, pos_label="spam") - skm.roc_auc_score(y, s)) <= TOL


def test_minus_one_plus_one_labels() -> None:
    rng = np.random.default_rng(8)
    n = 500
    s = np.round(rng.normal(size=n), 1)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * s)), 1, -1)
    compare_scalars(y, s, None)
    compare_curves(y, s, exact=True, drop_exact=True)
    assert fastrank.average_precision(y, s) == fastrank.average_precision(y == 1, s)
    assert fastrank.roc_auc(y, s) == fastrank.roc_auc((y == 1).astype(int), s)


def test_pos_label_zero_swaps_classes() -> None:
    y = np.array([1, 0, 0, 1, 0, 1, 1, 0, 0, 0])
    s = np.array([0.2, 0.2, 0.9, 0.5, 0.1, 0.5, 0.7, 0.7, 0.3, 0.2])
    got = fastrank.average_precision(y, s, pos_label=0)
    assert abs(got - skm.average_precision_score(y, s, pos_label=0)) <= TOL
    assert abs(fastrank.roc_auc(y, s, pos_label=0) - skm.roc_auc_score(1 - y, s)) <= TOL
    compare_curves(y, s, exact=True, drop_exact=True, pos_label=0)


def test_blog_example_curves() -> None:
    y = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.4, 0.3]
    compare_curves(y, s, exact=True, drop_exact=True)
    compare_scalars(y, s, None)


# --------------------------------------------------------------- one class only


def test_det_curve_one_class_raises_as_sklearn() -> None:
    s = [0.3, 0.1, 0.3, 0.8]
    for y in ([0, 0, 0, 0], [1, 1, 1, 1]):
        with pytest.raises(ValueError, match="Only one class"):
            skm.det_curve(y, s)
        with pytest.raises(ValueError, match="needs both classes"):
            fastrank.det_curve(y, s)


@needs_sklearn(1, 9, "positional options of confusion_matrix_at_thresholds warn from 1.9")
def test_confusion_matrix_positional_options_as_sklearn() -> None:
    y, s, w = [0, 1, 1, 0, 1], [0.2, 0.1, 0.7, 0.7, 0.1], [1.0, 2.0, 0.5, 1.0, 3.0]
    for args in ((None,), (1,), (1, w)):
        with pytest.warns(FutureWarning, match="keyword"):
            sk = skm.confusion_matrix_at_thresholds(y, s, *args)
        with pytest.warns(FutureWarning, match="as keyword args"):
            got = fastrank.confusion_matrix_at_thresholds(y, s, *args)
        for a, b in zip(got, sk, strict=True):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="both by position and by keyword"):
        fastrank.confusion_matrix_at_thresholds(y, s, 1, pos_label=1)
    with pytest.raises(TypeError, match="at most 4 positional"):
        fastrank.confusion_matrix_at_thresholds(y, s, 1, w, 3)


@pytest.mark.parametrize("y", [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
def test_roc_curve_one_class_matches_sklearn(y: list[int]) -> None:
    s = [0.3, 0.1, 0.3, 0.8, 0.1]
    with pytest.warns(sklearn.exceptions.UndefinedMetricWarning):
        want = skm.roc_curve(y, s)
    with pytest.warns(fastrank.UndefinedMetricWarning) as record:
        got = fastrank.roc_curve(y, s)
    assert len(record) == 1
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)  # NaN == NaN here
        assert g.dtype == w.dtype


def test_precision_recall_curve_without_positives_matches_sklearn() -> None:
    y = [0, 0, 0, 0]
    s = [0.3, 0.1, 0.3, 0.8]
    with pytest.warns(UserWarning, match="No positive class"):
        want = skm.precision_recall_curve(y, s)
    with pytest.warns(fastrank.UndefinedMetricWarning) as record:
        got = fastrank.precision_recall_curve(y, s)
    assert len(record) == 1
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_precision_recall_curve_without_negatives_matches_sklearn() -> None:
    y = [1, 1, 1, 1]
    s = [0.3, 0.1, 0.3, 0.8]
    for drop in (False, True):
        got = fastrank.precision_recall_curve(y, s, drop_intermediate=drop)
        want = skm.precision_recall_curve(y, s, drop_intermediate=drop)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    got = fastrank.confusion_matrix_at_thresholds(y, s)
    want = sk_confusion(y, s)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_ap_without_positives_is_nan_not_zero() -> None:
    """The documented difference: scikit-learn returns 0.0, fastrank NaN."""
    y = [0, 0, 0]
    s = [0.1, 0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns (UserWarning) here
        assert skm.average_precision_score(y, s) == 0.0
    with pytest.warns(fastrank.UndefinedMetricWarning) as record:
        assert math.isnan(fastrank.average_precision(y, s))
    assert len(record) == 1


def test_zero_weight_samples_are_not_thresholds() -> None:
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    w = [1.0, 0.0, 2.0, 0.0, 1.0, 3.0]
    compare_curves(y, s, exact=True, drop_exact=True, sample_weight=w)
    thr = fastrank.confusion_matrix_at_thresholds(y, s, sample_weight=w)[4]
    assert thr.tolist() == [0.9, 0.7, 0.5, 0.4]


# ------------------------------------------------------------------- medium size


def _labels_for(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    z = (scores - scores.mean()) / (scores.std() + 1e-300)
    return (rng.random(scores.shape[0]) < 1.0 / (1.0 + np.exp(-1.5 * z))).astype(np.int64)


MEDIUM_KINDS = [
    "ties50k",  # 50 000 samples, 41 distinct values: the counting (hash) path
    "continuous50k",  # 50 000 distinct normal scores: the sorting path
    "few_distinct_40k",  # 40 000 samples, 500 distinct
    "distinct20000_40k",  # 40 000 samples, exactly 20 000 distinct: too many to count, sorted
    "distinct16384_40k",  # exactly the most distinct values the counting table takes
    "distinct16385_40k",  # one more: the counting table gives up, the sort takes over
    "float32_50k",
    "int64_50k",
    "uint64_few_50k",  # huge unsigned values, 60 distinct: counted
    "uint64_many_50k",  # huge unsigned values, ~25 000 distinct: sorted
    "float16_50k",  # float16 normals: a few thousand distinct values, counted
    "bool_50k",  # two distinct scores
]


def _medium(kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(map(ord, kind)))  # a fixed seed per case
    if kind == "ties50k":
        s = (rng.integers(-20, 21, 50_000) / 7.0).astype(np.float64)
    elif kind == "continuous50k":
        s = rng.normal(size=50_000)
    elif kind == "few_distinct_40k":
        s = rng.integers(0, 500, 40_000).astype(np.float64) * 0.001 - 0.25
    elif kind.startswith("distinct"):
        d = int(kind[len("distinct") : kind.index("_")])
        s = np.concatenate([np.arange(d), rng.integers(0, d, 40_000 - d)]).astype(np.float64) / 3.0
        s = rng.permutation(s)
        assert np.unique(s).shape[0] == d
    elif kind == "float32_50k":
        s = rng.normal(size=50_000).astype(np.float32)
        s[rng.random(50_000) < 0.3] = np.float32(0.5)  # a big tie group as well
    elif kind == "int64_50k":
        s = rng.integers(-(2**62), 2**62, 50_000)
        s[::3] = s[::3] % 1000  # many ties among the small ones
    elif kind == "uint64_few_50k":
        values = rng.integers(0, 2**64 - 1, 60, dtype=np.uint64, endpoint=True)
        s = values[rng.integers(0, 60, 50_000)]
    elif kind == "uint64_many_50k":
        s = rng.integers(0, 2**64 - 1, 50_000, dtype=np.uint64, endpoint=True)
        s[::2] = s[::2] % np.uint64(100)
    elif kind == "float16_50k":
        s = rng.normal(size=50_000).astype(np.float16)
    elif kind == "bool_50k":
        s = rng.random(50_000) < 0.3
    else:  # pragma: no cover
        raise AssertionError(kind)
    return _labels_for(s.astype(np.float64), rng), s


@pytest.mark.slow
@pytest.mark.parametrize("kind", MEDIUM_KINDS)
def test_medium_cases_match_sklearn(kind: str) -> None:
    y, s = _medium(kind)
    rng = np.random.default_rng(99)
    compare_scalars(y, s, None)
    compare_curves(y, s, exact=True, drop_exact=True)
    # Integer weights (with zeros): exact sums, dropping must agree too.
    w_int = rng.integers(0, 4, s.shape[0]).astype(np.float64)
    compare_scalars(y, s, w_int)
    compare_curves(y, s, exact=True, drop_exact=True, sample_weight=w_int)
    # Real weights (with zeros): values to 1e-12; sums round differently.
    w_real = rng.exponential(size=s.shape[0])
    w_real[rng.random(s.shape[0]) < 0.1] = 0.0
    compare_scalars(y, s, w_real)
    compare_curves(y, s, exact=False, drop_exact=False, sample_weight=w_real)
