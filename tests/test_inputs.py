"""Every input form gives the same result as the plain float64 numpy call."""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
from sklearn_ref import confusion_matrix_at_thresholds as sk_confusion

RNG = np.random.default_rng(20240611)
N = 240
# labels {0, 1} as int64: the reference form
Y = (RNG.random(N) < 0.35).astype(np.int64)
Y[:2] = [0, 1]
# integer-valued scores with many ties: exact in every numeric dtype
S_INT = RNG.integers(0, 101, N).astype(np.float64)
# fractional, negative, tied scores: exact in float16/32/64
S_FRAC = RNG.integers(-60, 61, N) / 8.0
W = RNG.integers(1, 5, N) / 4.0  # exact weights


def _ap(y, s, **kw):
    return fastrank.average_precision(y, s, **kw)


def _ap_expected(y, s, **kw):
    return fastrank.average_precision(y, s, ties="expected", **kw)


def _roc_partial(y, s, **kw):
    return fastrank.roc_auc(y, s, max_fpr=0.3, **kw)


def _prbe_thr(y, s, **kw):
    return fastrank.prbe(y, s, return_threshold=True, **kw)


def _all_partial(y, s, **kw):
    return fastrank.all_metrics(y, s, max_fpr=0.25, **kw)


def _roc_all_points(y, s, **kw):
    return fastrank.roc_curve(y, s, drop_intermediate=False, **kw)


def _pr_dropped(y, s, **kw):
    return fastrank.precision_recall_curve(y, s, drop_intermediate=True, **kw)


def _interp_grid(y, s, **kw):
    return fastrank.interpolated_precision_recall_curve(y, s, recall=np.linspace(0, 1, 11), **kw)


CALLS = {
    "average_precision": _ap,
    "average_precision[expected]": _ap_expected,
    "roc_auc": fastrank.roc_auc,
    "roc_auc[max_fpr]": _roc_partial,
    "pr_auc": fastrank.pr_auc,
    "d_prime": fastrank.d_prime,
    "prbe": fastrank.prbe,
    "prbe[threshold]": _prbe_thr,
    "all_metrics": fastrank.all_metrics,
    "all_metrics[max_fpr]": _all_partial,
    "roc_curve": fastrank.roc_curve,
    "roc_curve[all]": _roc_all_points,
    "precision_recall_curve": fastrank.precision_recall_curve,
    "precision_recall_curve[drop]": _pr_dropped,
    "det_curve": fastrank.det_curve,
    "confusion_matrix_at_thresholds": fastrank.confusion_matrix_at_thresholds,
    "interpolated_precision_recall_curve": fastrank.interpolated_precision_recall_curve,
    "interpolated_precision_recall_curve[grid]": _interp_grid,
}
# calls whose results do not include score values (thresholds)
SCALAR_CALLS = {
    k: v
    for k, v in CALLS.items()
    if k not in ("prbe[threshold]", "all_metrics", "all_metrics[max_fpr]")
    and "curve" not in k
    and "confusion" not in k
}
WEIGHTED_CALLS = {k: v for k, v in CALLS.items() if k != "average_precision[expected]"}


def assert_same(got, want, path="result"):
    """Equal values (NaN equal to NaN); array dtypes may differ."""
    if dataclasses.is_dataclass(want):
        assert type(got) is type(want), path
        assert_same(got.as_dict(), want.as_dict(), path)
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), path
        for k in want:
            assert_same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), path
        np.testing.assert_array_equal(got, want, err_msg=path)
    elif want is None:
        assert got is None, path
    else:
        # floats; a threshold of integer scores may come back as an exact Python int
        assert isinstance(got, float | int) and not isinstance(got, bool), (path, type(got))
        assert got == want or (math.isnan(got) and math.isnan(want)), (path, got, want)


def check_all(y, s, y_ref=Y, s_ref=None, weights=None, w_ref=None, calls=None):
    """Every call on (y, s[, weights]) equals the call on the reference arrays."""
    if s_ref is None:
        s_ref = np.asarray(s, dtype=np.float64)
    if calls is None:
        calls = CALLS if weights is None else WEIGHTED_CALLS
    for name, call in calls.items():
        kw = {} if weights is None else {"sample_weight": weights}
        kw_ref = {} if weights is None else {"sample_weight": w_ref}
        try:
            want = call(y_ref, s_ref, **kw_ref)
            got = call(y, s, **kw)
        except AssertionError:
            raise
        except Exception as exc:  # name the call that failed
            raise AssertionError(f"{name}: {type(exc).__name__}: {exc}") from exc
        assert_same(got, want, name)


# --------------------------------------------------------------------------- containers


@pytest.mark.parametrize("scores", [S_INT, S_FRAC], ids=["int-valued", "fractional"])
def test_python_lists(scores):
    check_all(Y.tolist(), scores.tolist(), s_ref=scores)


@pytest.mark.parametrize("scores", [S_INT, S_FRAC], ids=["int-valued", "fractional"])
def test_python_tuples(scores):
    check_all(tuple(Y.tolist()), tuple(scores.tolist()), s_ref=scores)


def test_python_int_list_scores():
    check_all(Y.tolist(), [int(v) for v in S_INT], s_ref=S_INT)


def test_list_of_numpy_scalars():
    check_all(list(Y), list(S_FRAC.astype(np.float32)), s_ref=S_FRAC)


# --------------------------------------------------------------------------- score dtypes

FLOAT_DTYPES = [np.float16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_score_dtypes_int_valued(dtype):
    s = S_INT.astype(dtype)
    assert np.array_equal(s.astype(np.float64), S_INT)  # exactly representable
    check_all(Y, s, s_ref=S_INT)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_score_dtypes_fractional(dtype):
    s = S_FRAC.astype(dtype)
    assert np.array_equal(s.astype(np.float64), S_FRAC)
    check_all(Y, s, s_ref=S_FRAC)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_negative_integer_scores(dtype):
    s = (S_INT - 50).astype(dtype)
    check_all(Y, s, s_ref=S_INT - 50)


def test_bool_scores():
    s = S_INT > 50
    check_all(Y, s, s_ref=s.astype(np.float64))


def test_long_double_scores_that_fit_float64():
    s = S_FRAC.astype(np.longdouble)
    with_threshold = ("prbe[threshold]", "all_metrics", "all_metrics[max_fpr]")
    check_all(Y, s, s_ref=S_FRAC, calls={k: v for k, v in CALLS.items() if k not in with_threshold})
    # the threshold keeps the caller's dtype (a long double scalar): compare values
    assert fastrank.prbe(Y, s, return_threshold=True)[1] == _prbe_thr(Y, S_FRAC)[1]
    got = fastrank.all_metrics(Y, s).as_dict()
    want = fastrank.all_metrics(Y, S_FRAC).as_dict()
    assert got.pop("prbe_threshold") == want.pop("prbe_threshold")
    assert_same(got, want)


def _rank_oracle(values):
    """float64 ranks with the same order and ties as ``values`` (exact for any int)."""
    uniq, inverse = np.unique(values, return_inverse=True)
    return uniq, inverse.astype(np.float64)


def _pairwise_auc(y, s):
    """Exact AUC by counting pairs with Python integers (ties count 1/2)."""
    pos = [int(v) for v, t in zip(s, y, strict=True) if t]
    neg = [int(v) for v, t in zip(s, y, strict=True) if not t]
    wins = sum(2 * (p > q) + (p == q) for p in pos for q in neg)
    return float(Fraction(wins, 2 * len(pos) * len(neg)))


@pytest.mark.parametrize(
    "make",
    [
        lambda r: np.int64(2**60) + r.integers(0, 40, N),  # ties exist only beyond 2**53
        lambda r: np.int64(2**53) + r.integers(-20, 20, N),
        lambda r: r.choice(
            np.array(
                [
                    np.iinfo(np.int64).min,
                    -1,
                    0,
                    1,
                    np.iinfo(np.int64).max,
                    np.iinfo(np.int64).max - 1,
                    np.iinfo(np.int64).min + 1,
                ]
            ),
            N,
        ),
        lambda r: np.uint64(2**64 - 1) - r.integers(0, 40, N).astype(np.uint64),
        lambda r: r.choice(np.array([0, 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1], np.uint64), N),
    ],
    ids=["int64-2**60", "int64-2**53", "int64-extremes", "uint64-top", "uint64-sign-bit"],
)
def test_wide_integers_beyond_float64_precision(make):
    r = np.random.default_rng(7)
    s = make(r)
    y = Y
    uniq, ranks = _rank_oracle(s)
    assert len(np.unique(s.astype(np.float64))) < len(uniq) or len(uniq) < 10
    # scalar metrics: the same as on exact ranks
    check_all(y, s, s_ref=ranks, calls=SCALAR_CALLS)
    assert fastrank.roc_auc(y, s) == pytest.approx(_pairwise_auc(y, s), abs=1e-15)
    assert fastrank.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, ranks), abs=1e-15)
    assert fastrank.average_precision(y, s) == pytest.approx(
        skm.average_precision_score(y, ranks), abs=1e-12
    )
    # curves: the same rates; thresholds are the exact integers
    p, rc, thr = fastrank.precision_recall_curve(y, s)
    p2, rc2, thr2 = skm.precision_recall_curve(y, ranks)
    np.testing.assert_allclose(p, p2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(rc, rc2, rtol=0, atol=1e-15)
    assert thr.dtype == s.dtype
    np.testing.assert_array_equal(thr, uniq[thr2.astype(np.intp)])
    tns, fps, fns, tps, thr = fastrank.confusion_matrix_at_thresholds(y, s)
    assert thr.dtype == s.dtype
    np.testing.assert_array_equal(thr, uniq[::-1])
    tns2, fps2, fns2, tps2, _ = sk_confusion(y, ranks)
    for got, want in ((tns, tns2), (fps, fps2), (fns, fns2), (tps, tps2)):
        np.testing.assert_array_equal(got, want)
    fpr, tpr, _ = fastrank.roc_curve(y, s)
    fpr2, tpr2, _ = skm.roc_curve(y, ranks)
    np.testing.assert_allclose(fpr, fpr2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, tpr2, rtol=0, atol=1e-15)
    # prbe threshold is one of the exact scores
    _, t = fastrank.prbe(y, s, return_threshold=True)
    assert t in set(uniq.tolist())
    assert type(t) is int


def test_extreme_floats_order():
    tiny = np.finfo(np.float64).smallest_subnormal
    big = np.finfo(np.float64).max
    values = np.array([-big, -1.0, -tiny, -0.0, 0.0, tiny, 1e-300, 1.0, big])
    s = np.random.default_rng(3).choice(values, N)
    uniq, ranks = _rank_oracle(s)  # -0.0 and 0.0 are one value here
    assert len(uniq) == len(values) - 1
    check_all(Y, s, s_ref=ranks, calls=SCALAR_CALLS)
    fpr, tpr, thr = fastrank.roc_curve(Y, s, drop_intermediate=False)
    fpr2, tpr2, thr2 = skm.roc_curve(Y, ranks, drop_intermediate=False)
    np.testing.assert_array_equal(thr[1:], uniq[thr2[1:].astype(np.intp)])
    np.testing.assert_allclose(fpr, fpr2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, tpr2, rtol=0, atol=1e-15)
    for dtype in (np.float32, np.float16):
        info = np.finfo(dtype)
        v = np.array(
            [-info.max, -info.smallest_subnormal, -0.0, 0.0, info.smallest_subnormal, info.max],
            dtype,
        )
        s = np.random.default_rng(4).choice(v, N)
        uniq, ranks = _rank_oracle(s)
        check_all(Y, s, s_ref=ranks, calls=SCALAR_CALLS)


def test_negative_zero_and_zero_are_one_tie_group():
    y = np.array([0, 1, 1, 0, 1, 0])
    s = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, -1.0])
    s_pos = s + 0.0  # the same values, every zero +0.0
    assert not np.signbit(s_pos[s == 0]).any()
    check_all(y, s, y_ref=y, s_ref=s_pos)
    *_, thr = fastrank.confusion_matrix_at_thresholds(y, s)
    assert len(thr) == 3
    assert fastrank.roc_auc([0, 1], [-0.0, 0.0]) == 0.5
    assert fastrank.roc_auc([1, 0], [-0.0, 0.0]) == 0.5
    for dtype in (np.float16, np.float32):
        assert fastrank.roc_auc([0, 1], np.array([-0.0, 0.0], dtype)) == 0.5
    *_, thr = fastrank.confusion_matrix_at_thresholds([0, 1, 1], [-0.0, 0.0, -0.0])
    assert len(thr) == 1 and thr[0] == 0.0


# --------------------------------------------------------------------------- layouts


def test_non_contiguous_views():
    big_s = np.repeat(S_FRAC, 2)
    big_y = np.repeat(Y, 2)
    check_all(big_y[::2], big_s[::2], y_ref=Y, s_ref=S_FRAC)
    check_all(Y[::-1], S_FRAC[::-1], y_ref=Y[::-1].copy(), s_ref=S_FRAC[::-1].copy())
    w = np.repeat(W, 3)[::3]
    check_all(big_y[::2], big_s[::2], y_ref=Y, s_ref=S_FRAC, weights=w, w_ref=W)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, bool])
def test_non_contiguous_other_dtypes(dtype):
    s = np.repeat(S_INT.astype(dtype), 3)[1::3]
    check_all(Y, s, s_ref=S_INT.astype(dtype).astype(np.float64))


def test_fortran_ordered_slices():
    cols = np.asfortranarray(np.stack([S_INT, S_FRAC, -S_FRAC], axis=1))
    assert not cols.flags.c_contiguous
    check_all(Y, cols[:, 1], s_ref=S_FRAC)  # a contiguous column
    rows = np.asfortranarray(np.stack([S_INT, S_FRAC, -S_FRAC], axis=0))
    assert not rows[1, :].flags.c_contiguous
    check_all(Y, rows[1, :], s_ref=S_FRAC)  # a strided row
    ycols = np.asfortranarray(np.stack([Y, 1 - Y], axis=0))
    check_all(ycols[0, :], rows[2, :], s_ref=-S_FRAC)
    wrows = np.asfortranarray(np.stack([W, W], axis=0))
    check_all(ycols[0, :], rows[1, :], s_ref=S_FRAC, weights=wrows[1, :], w_ref=W)


@pytest.mark.parametrize("dtype", [">f8", ">f4", ">f2", ">i4", ">i8", ">u2", ">u8", "<f8"])
def test_big_endian_scores(dtype):
    s = S_INT.astype(dtype)
    check_all(Y, s, s_ref=S_INT)


def test_big_endian_labels_and_weights():
    check_all(Y.astype(">i4"), S_FRAC.astype(">f8"), s_ref=S_FRAC)
    check_all(Y.astype(">i8"), S_FRAC, s_ref=S_FRAC, weights=W.astype(">f8"), w_ref=W)
    check_all(Y.astype(">f4"), S_FRAC, s_ref=S_FRAC, weights=W.astype(">f4"), w_ref=W)


def test_read_only_arrays():
    y = Y.copy()
    s = S_FRAC.copy()
    w = W.copy()
    for a in (y, s, w):
        a.flags.writeable = False
    check_all(y, s, s_ref=S_FRAC)
    check_all(y, s, s_ref=S_FRAC, weights=w, w_ref=W)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint16])
def test_read_only_memory(dtype):
    s = np.frombuffer(S_INT.astype(dtype).tobytes(), dtype=dtype)
    y = np.frombuffer(Y.tobytes(), dtype=Y.dtype)
    w = np.frombuffer(W.tobytes(), dtype=np.float64)
    assert not s.flags.writeable
    check_all(y, s, s_ref=S_INT)
    check_all(y, s, s_ref=S_INT, weights=w, w_ref=W)


def _unaligned(a):
    buf = bytearray(a.nbytes + 1)
    out = np.ndarray(a.shape, a.dtype, buffer=buf, offset=1)
    out[...] = a
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint64])
def test_unaligned_arrays(dtype):
    s = _unaligned(S_INT.astype(dtype))
    y = _unaligned(Y)
    w = _unaligned(W)
    if s.flags.aligned:
        pytest.skip("could not construct an unaligned array")
    assert not y.flags.aligned and not w.flags.aligned
    check_all(y, s, s_ref=S_INT)
    check_all(y, s, s_ref=S_INT, weights=w, w_ref=W)


def test_unaligned_read_only_memory():
    raw = b"\x00" + S_FRAC.tobytes()
    s = np.frombuffer(raw, dtype=np.float64, offset=1)
    if s.flags.aligned:
        pytest.skip("could not construct an unaligned array")
    assert not s.flags.writeable
    check_all(Y, s, s_ref=S_FRAC)


def test_unaligned_non_finite_is_found():
    s = S_FRAC.copy()
    s[-1] = np.nan
    with pytest.raises(ValueError, match=r"y_score.*non-finite"):
        fastrank.roc_auc(Y, _unaligned(s))


# --------------------------------------------------------------------------- foreign objects


class ArrayOnly:
    """Exposes only ``__array__``."""

    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


class DLPackOnly:
    """Exposes only ``__dlpack__`` and ``__dlpack_device__``."""

    def __init__(self, a, device=(1, 0)):
        self._a = a
        self._device = device

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._device


def test_array_protocol_objects():
    check_all(ArrayOnly(Y), ArrayOnly(S_FRAC), s_ref=S_FRAC)
    check_all(ArrayOnly(Y), ArrayOnly(S_FRAC), s_ref=S_FRAC, weights=ArrayOnly(W), w_ref=W)
    check_all(ArrayOnly(Y.astype(bool)), ArrayOnly(S_INT.astype(np.int16)), s_ref=S_INT)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.uint8])
def test_dlpack_objects(dtype):
    s = S_INT.astype(dtype)
    check_all(DLPackOnly(Y), DLPackOnly(s), s_ref=S_INT)
    # numpy < 1.25 cannot export or import bool arrays through DLPack.
    bool_ok = np.lib.NumpyVersion(np.__version__) >= "1.25.0"
    labels = Y.astype(bool) if bool_ok else Y.astype(np.int8)
    check_all(DLPackOnly(labels), DLPackOnly(s), s_ref=S_INT, weights=DLPackOnly(W), w_ref=W)


def test_dlpack_strided_and_read_only():
    s = np.repeat(S_FRAC, 2)[::2]
    check_all(DLPackOnly(Y), DLPackOnly(s), s_ref=S_FRAC)
    if np.lib.NumpyVersion(np.__version__) < "1.25.0":
        return  # numpy < 1.25 cannot export read-only arrays through DLPack
    ro = S_FRAC.copy()
    ro.flags.writeable = False
    check_all(DLPackOnly(Y), DLPackOnly(ro), s_ref=S_FRAC)


def test_dlpack_thresholds_keep_dtype():
    *_, thr = fastrank.precision_recall_curve(DLPackOnly(Y), DLPackOnly(S_FRAC.astype(np.float32)))
    assert thr.dtype == np.float32


@pytest.mark.parametrize("device", [(2, 0), (13, 1), (4, 0)], ids=["cuda", "oneapi", "opencl"])
@pytest.mark.parametrize("which", ["y_true", "y_score", "sample_weight"])
def test_dlpack_non_cpu_device(device, which):
    args = {"y_true": Y, "y_score": S_FRAC, "sample_weight": W}
    args[which] = DLPackOnly(args[which], device=device)
    with pytest.raises(TypeError, match=rf"{which}.*(device|CPU)"):
        fastrank.roc_auc(args["y_true"], args["y_score"], sample_weight=args["sample_weight"])


def test_dlpack_export_failure_is_a_clear_type_error():
    # numpy cannot export non-native byte order through DLPack
    with pytest.raises(TypeError, match=r"y_score.*DLPack"):
        fastrank.roc_auc(Y, DLPackOnly(S_FRAC.astype(">f8")))


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    y = torch.tensor(Y)
    s = torch.tensor(S_FRAC)
    check_all(y, s, s_ref=S_FRAC)
    check_all(y.bool(), s.float(), s_ref=S_FRAC)
    check_all(y, s, s_ref=S_FRAC, weights=torch.tensor(W), w_ref=W)
    g = torch.tensor(S_FRAC, requires_grad=True)
    check_all(y, g, s_ref=S_FRAC)
    check_all(y[::2], g[::2], y_ref=Y[::2], s_ref=S_FRAC[::2].copy())
    *_, thr = fastrank.precision_recall_curve(y, s.float())
    assert isinstance(thr, np.ndarray) and thr.dtype == np.float32


@pytest.fixture
def pd():
    return pytest.importorskip("pandas")


def test_pandas_series(pd):
    check_all(pd.Series(Y), pd.Series(S_FRAC), s_ref=S_FRAC)
    check_all(pd.Series(Y), pd.Series(S_FRAC), s_ref=S_FRAC, weights=pd.Series(W), w_ref=W)
    check_all(pd.Series(Y.astype(bool)), pd.Series(S_INT.astype(np.int32)), s_ref=S_INT)


def test_pandas_series_non_default_index_is_positional(pd):
    r = np.random.default_rng(11)
    y = pd.Series(Y, index=r.permutation(N) + 1000)
    s = pd.Series(S_FRAC, index=r.permutation(N))  # a different index: no alignment
    w = pd.Series(W, index=[f"row{i}" for i in range(N)])
    check_all(y, s, s_ref=S_FRAC)
    check_all(y, s, s_ref=S_FRAC, weights=w, w_ref=W)
    # a slice of a frame keeps its original index
    frame = pd.DataFrame({"y": Y, "s": S_FRAC, "w": W}).iloc[::-1]
    check_all(frame["y"], frame["s"], y_ref=Y[::-1].copy(), s_ref=S_FRAC[::-1].copy())


@pytest.mark.parametrize(
    "dtype, values",
    [("boolean", Y.astype(bool)), ("Int64", Y), ("Int8", Y), ("Float64", Y.astype(float))],
)
def test_pandas_nullable_labels(pd, dtype, values):
    check_all(pd.Series(values, dtype=dtype), S_FRAC, s_ref=S_FRAC)


@pytest.mark.parametrize("dtype", ["Float64", "Float32", "Int64", "UInt16"])
def test_pandas_nullable_scores(pd, dtype):
    check_all(Y, pd.Series(S_INT, dtype=dtype), s_ref=S_INT)


@pytest.mark.parametrize("dtype", ["boolean", "Int64", "Float64"])
def test_pandas_labels_with_missing_values(pd, dtype):
    values = pd.array([*Y[:-1].tolist(), None], dtype=dtype)
    with pytest.raises((ValueError, TypeError), match=r"y_true.*(nan|NA|missing)"):
        fastrank.roc_auc(pd.Series(values), S_FRAC)


@pytest.mark.parametrize("dtype", ["Float64", "Int64"])
def test_pandas_scores_with_missing_values(pd, dtype):
    values = pd.array([*S_INT[:-1].tolist(), None], dtype=dtype)
    with pytest.raises((ValueError, TypeError), match=r"y_score.*(non-finite|nan|NA|missing)"):
        fastrank.roc_auc(Y, pd.Series(values))


def test_pandas_string_and_categorical_labels(pd):
    names = np.where(Y == 1, "spam", "ham")
    check_all(pd.Series(names), S_FRAC, s_ref=S_FRAC, calls=_with_pos_label("spam"))
    check_all(
        pd.Series(names, dtype="category"), S_FRAC, s_ref=S_FRAC, calls=_with_pos_label("spam")
    )


# --------------------------------------------------------------------------- label forms


def _with_pos_label(pos_label, calls=CALLS):
    """The calls, passing ``pos_label`` except for the reference labels ``Y``."""

    def bind(call):
        def bound(y, s, **kw):
            if y is Y:
                return call(y, s, **kw)
            return call(y, s, pos_label=pos_label, **kw)

        return bound

    return {name: bind(call) for name, call in calls.items()}


@pytest.mark.parametrize(
    "labels",
    [
        Y.astype(bool),
        Y.astype(np.int8),
        Y.astype(np.uint8),
        Y.astype(np.int32),
        Y.astype(np.uint64),
        Y.astype(np.float16),
        Y.astype(np.float32),
        Y.astype(np.float64),
        2 * Y - 1,
        (2 * Y - 1).astype(np.float32),
        (2 * Y - 1).astype(np.int8),
        Y.tolist(),
        Y.astype(bool).tolist(),
        Y.astype(float).tolist(),
        (2 * Y - 1).tolist(),
    ],
    ids=[
        "bool",
        "int8",
        "uint8",
        "int32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "-1/1",
        "-1/1-float32",
        "-1/1-int8",
        "list",
        "bool-list",
        "float-list",
        "-1/1-list",
    ],
)
def test_label_forms(labels):
    check_all(labels, S_FRAC, s_ref=S_FRAC)


def test_label_forms_all_one_value():
    for labels in ([1] * 4, [True] * 4, [1.0] * 4):
        assert fastrank.average_precision(labels, [0.1, 0.2, 0.3, 0.4]) == 1.0
    for labels in ([-1] * 4, [False] * 4, [0.0] * 4):
        with pytest.warns(fastrank.UndefinedMetricWarning):
            assert math.isnan(fastrank.average_precision(labels, [0.1, 0.2, 0.3, 0.4]))


@pytest.mark.parametrize(
    "labels, pos_label",
    [
        (np.where(Y == 1, "pos", "neg"), "pos"),
        (np.where(Y == 1, "neg", "pos"), "neg"),
        (np.where(Y == 1, "b", "a").tolist(), "b"),
        (np.where(Y == 1, 7, 3), 7),
        (np.where(Y == 1, 2.5, -2.5), 2.5),
        (np.where(Y == 1, 0, 1), 0),
        (np.where(Y == 1, -1, 1), -1),
        (np.where(Y == 1, 1, 2), 1),
        (np.where(Y == 1, 1, 0), 1),
        (np.where(Y == 1, 1, 0), np.int64(1)),
        (np.where(Y == 1, 1.0, 0.0), 1),
        (~Y.astype(bool), False),
        (Y.astype(bool), True),
    ],
    ids=[
        "str",
        "str-swapped",
        "str-list",
        "7-3",
        "float",
        "0-is-positive",
        "-1-is-positive",
        "1-2",
        "1-0",
        "np.int64",
        "float-int-pos",
        "bool-False",
        "bool-True",
    ],
)
def test_pos_label(labels, pos_label):
    check_all(labels, S_FRAC, s_ref=S_FRAC, calls=_with_pos_label(pos_label))


@pytest.mark.parametrize("pos_label", [None, b"y", "y"])
def test_bytes_labels_raise_type_error(pos_label):
    """Bytes labels are refused with a TypeError (as in scikit-learn), pos_label or not."""
    labels = np.where(Y == 1, b"y", b"n")
    for name in ("average_precision", "roc_auc", "all_metrics", "roc_curve"):
        with pytest.raises(TypeError, match="bytes"):
            getattr(fastrank, name)(labels, S_FRAC, pos_label=pos_label)


def test_pos_label_false_means_false_entries_are_positive():
    b = Y.astype(bool)
    assert fastrank.roc_auc(b, S_FRAC, pos_label=False) == pytest.approx(
        1.0 - fastrank.roc_auc(b, S_FRAC), abs=1e-15
    )
    assert fastrank.average_precision(b, S_FRAC, pos_label=False) == (
        fastrank.average_precision(~b, S_FRAC)
    )
    m = fastrank.all_metrics(b, S_FRAC, pos_label=False)
    assert m.positives == float((~b).sum())


def test_object_labels_zero_one():
    # {0, 1} held in an object array (e.g. a pandas object column) are {0, 1} labels
    labels = np.array(Y.tolist(), dtype=object)
    check_all(labels, S_FRAC, s_ref=S_FRAC)


# --------------------------------------------------------------------------- weight forms


@pytest.mark.parametrize(
    "weights",
    [
        W.tolist(),
        tuple(W.tolist()),
        W.astype(np.float32),
        W.astype(np.float16),
        (W * 4).astype(np.int64) / 4,
        np.repeat(W, 2)[::2],
        W.astype(">f8"),
    ],
    ids=["list", "tuple", "float32", "float16", "float64", "strided", "big-endian"],
)
def test_weight_forms(weights):
    check_all(Y, S_FRAC, s_ref=S_FRAC, weights=weights, w_ref=W)


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, bool])
def test_integer_and_bool_weights(dtype):
    w = (W * 4).astype(dtype)
    check_all(Y, S_FRAC, s_ref=S_FRAC, weights=w, w_ref=w.astype(np.float64))


def test_unit_weights_equal_unweighted():
    for name, call in WEIGHTED_CALLS.items():
        got = call(Y, S_FRAC, sample_weight=np.ones(N))
        want = call(Y, S_FRAC)
        if isinstance(want, fastrank.BinaryMetrics):
            assert got.average_precision_expected is None  # not defined with weights
            want = dataclasses.replace(want, average_precision_expected=None)
        assert_same(got, want, name)


# --------------------------------------------------------------------------- no side effects


def test_caller_arrays_are_not_modified():
    y = Y.copy()
    forms = [
        S_FRAC.copy(),
        S_FRAC.astype(np.float32),
        S_FRAC.astype(np.float16),
        S_INT.astype(np.int16),
        S_INT.astype(np.uint64),
        S_FRAC.astype(">f8"),
        np.repeat(S_FRAC, 2)[::2],
        _unaligned(S_FRAC),
        S_FRAC.copy()[::-1],
    ]
    w = W.copy()
    yb = Y.astype(bool)
    y_neg = 2 * Y - 1
    for s in forms:
        snapshot = [(a, a.copy(), a.flags.writeable) for a in (y, s, w, yb, y_neg)]
        for call in CALLS.values():
            call(y, s)
            call(yb, s)
            call(y_neg, s)
        for call in WEIGHTED_CALLS.values():
            call(y, s, sample_weight=w)
        for a, before, writeable in snapshot:
            np.testing.assert_array_equal(a, before)
            assert a.dtype == before.dtype
            assert a.flags.writeable == writeable


def test_results_do_not_share_memory_with_inputs():
    s = S_FRAC.copy()
    for call in (
        fastrank.precision_recall_curve,
        fastrank.roc_curve,
        fastrank.det_curve,
        fastrank.confusion_matrix_at_thresholds,
        fastrank.interpolated_precision_recall_curve,
    ):
        for out in call(Y, s):
            assert not np.shares_memory(out, s)
            assert not np.shares_memory(out, Y)
    grid = np.linspace(0, 1, 5)
    _, r = fastrank.interpolated_precision_recall_curve(Y, s, recall=grid)
    assert not np.shares_memory(r, grid)


def test_results_are_writeable():
    for out in fastrank.precision_recall_curve(Y, S_FRAC):
        out[...] = 0  # a caller may modify what it gets back
    for out in fastrank.roc_curve(Y, S_FRAC):
        out[...] = 0


# --------------------------------------------------------------------------- threshold dtypes


@pytest.mark.parametrize(
    "dtype", FLOAT_DTYPES + INT_DTYPES + [bool], ids=lambda d: np.dtype(d).name
)
def test_threshold_dtypes(dtype):
    s = S_INT.astype(dtype)
    *_, thr = fastrank.precision_recall_curve(Y, s)
    assert thr.dtype == np.dtype(dtype)  # scikit-learn's convention: the caller's dtype
    *_, thr = fastrank.confusion_matrix_at_thresholds(Y, s)
    assert thr.dtype == np.dtype(dtype)
    *_, thr = fastrank.roc_curve(Y, s)
    assert thr.dtype == np.float64
    *_, thr = fastrank.det_curve(Y, s)
    assert thr.dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_threshold_values_match_sklearn(dtype):
    s = S_FRAC.astype(dtype)
    p, r, thr = fastrank.precision_recall_curve(Y, s)
    p2, r2, thr2 = skm.precision_recall_curve(Y, s)
    assert thr.dtype == thr2.dtype
    np.testing.assert_array_equal(thr, thr2)
    np.testing.assert_allclose(p, p2, atol=1e-15)
    np.testing.assert_allclose(r, r2, atol=1e-15)
    fpr, tpr, thr = fastrank.roc_curve(Y, s)
    fpr2, tpr2, thr2 = skm.roc_curve(Y, s)
    np.testing.assert_array_equal(thr, thr2.astype(np.float64))
    np.testing.assert_allclose(fpr, fpr2, atol=1e-15)
    np.testing.assert_allclose(tpr, tpr2, atol=1e-15)


def test_list_scores_give_float64_thresholds():
    *_, thr = fastrank.precision_recall_curve(Y.tolist(), S_FRAC.tolist())
    assert thr.dtype == np.float64


def test_prbe_threshold_is_a_python_float_for_floats():
    for dtype in FLOAT_DTYPES:
        _, t = fastrank.prbe(Y, S_FRAC.astype(dtype), return_threshold=True)
        assert type(t) is float
        assert t in set(S_FRAC.tolist())
    _, t = fastrank.prbe(Y, S_INT > 50, return_threshold=True)
    assert type(t) is float and t in (0.0, 1.0)


def test_no_warnings_on_ordinary_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_all(Y, S_FRAC.astype(np.float32), s_ref=S_FRAC)


# ------------------------------------------------ array subclasses and tensor views

MASKED_CALLS = {
    "roc_auc": lambda y, s, w: fastrank.roc_auc(y, s, sample_weight=w),
    "roc_auc_ci": lambda y, s, w: fastrank.roc_auc_ci(y, s),
    "label_ranking_average_precision":
        lambda y, s, w: fastrank.label_ranking_average_precision(y, s, sample_weight=w),
    "dcg": lambda y, s, w: fastrank.dcg(y, s, sample_weight=w),
    "precision_at_k": lambda y, s, w: fastrank.precision_at_k(y, s, 1, average=None),
    "coverage_error": lambda y, s, w: fastrank.coverage_error(y, s, sample_weight=w),
    "average_precision samples":
        lambda y, s, w: fastrank.average_precision(y, s, average="samples", sample_weight=w),
}


@pytest.mark.parametrize("call", sorted(MASKED_CALLS))
@pytest.mark.parametrize("which", ["y_true", "y_score", "sample_weight"])
def test_a_masked_array_is_refused_by_name(call: str, which: str) -> None:
    """A masked array's hidden values were read (a masked NaN ranked first, a masked
    negative weight or grade used), or reached a kernel (NumbaTypeError): refused, for
    labels, scores and weights alike, naming the argument."""
    y = np.array([[1, 0, 1], [0, 1, 0]])
    s = np.array([[0.1, 0.2, 0.3], [0.3, np.nan, 0.1]])
    w = np.array([1.0, -5.0])
    one_d = call in ("roc_auc", "roc_auc_ci")
    if one_d:
        y, s, w = y.reshape(-1), s.reshape(-1), np.repeat(w, 3)
    args = {"y_true": y, "y_score": np.where(np.isnan(s), 0.5, s), "sample_weight": None}
    hidden = {"y_true": y, "y_score": s, "sample_weight": w}[which]
    mask = ~np.isfinite(hidden) | (hidden < 0) if hidden.dtype.kind == "f" else hidden > 5
    args[which] = np.ma.masked_array(hidden, mask=mask)
    if which == "sample_weight" and call in ("roc_auc_ci", "precision_at_k"):
        pytest.skip("no sample_weight")
    with pytest.raises(TypeError, match=f"{which} is a numpy masked array"):
        MASKED_CALLS[call](args["y_true"], args["y_score"], args["sample_weight"])


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # (np.asmatrix's own)
def test_np_matrix_scores_equal_the_plain_array() -> None:
    """np.matrix (``sparse.todense()``) is read as the array it holds: it reached the
    kernels (TypingError, IndexError) or numpy calls a matrix refuses (keepdims)."""
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    s = np.array([[0.1, 0.2, 0.3], [0.3, 0.4, 0.1], [0.5, 0.5, 0.2]])
    for f in (fastrank.label_ranking_average_precision, fastrank.label_ranking_loss,
              fastrank.coverage_error, fastrank.average_precision, fastrank.dcg,
              lambda a, b: fastrank.roc_auc(a, b, average="samples")):
        assert f(y, np.asmatrix(s)) == f(y, s)
    assert fastrank.ndcg(np.asmatrix(y), s) == fastrank.ndcg(y, s)
    assert fastrank.label_ranking_average_precision(y, np.asmatrix(s)) == \
        skm.label_ranking_average_precision_score(y, s)


def test_a_lazily_negated_tensor_keeps_its_sign() -> None:
    """torch's negative bit (``.conj().imag`` of a complex tensor) is dropped by
    DLPack: such scores were read without their sign (AUC 0.92 for 0.08)."""
    torch = pytest.importorskip("torch")
    y = torch.tensor([0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
    s = torch.tensor([.1, .4, .35, .8, .2, .9, .7, .5, .6, .3], dtype=torch.float64)
    neg = torch.complex(torch.zeros(10, dtype=torch.float64), s).conj().imag
    assert neg.is_neg()
    want = fastrank.roc_auc(y.numpy(), -s.numpy())
    assert want == pytest.approx(skm.roc_auc_score(y.numpy(), -s.numpy()), abs=1e-12)
    assert want < 0.5 and fastrank.roc_auc(y, neg) == want == fastrank.roc_auc(y, neg.clone())
    acc = fastrank.Accumulator()
    acc.update(y, neg)
    assert acc.compute("roc_auc") == want


def test_bfloat16_tensors_are_read_as_the_float32_that_holds_them() -> None:
    """numpy has no bfloat16, so DLPack and ``__array__`` refused such tensors at the
    top level (TypeError) while ``fastrank.torch`` took them; each value widened to
    float32 is exact, so the numbers are those of the float32 tensor."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    y = torch.tensor(rng.integers(0, 2, 200))
    s = torch.tensor(rng.random(200) * 8 + 8, dtype=torch.bfloat16)  # ties: 8 bits in [8, 16)
    wide = s.float().numpy()
    assert np.unique(wide).shape[0] <= 128
    for f in (fastrank.roc_auc, fastrank.average_precision, fastrank.pr_auc, fastrank.prbe):
        assert f(y, s) == f(y.numpy(), wide) == f(y, s.clone().requires_grad_())
    assert fastrank.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y.numpy(), wide), abs=1e-12)
    thr = fastrank.roc_curve(y, s)[2]
    assert np.array_equal(thr, fastrank.roc_curve(y, wide)[2])
    grid = torch.stack([s, s.flip(0)], 1)
    both = torch.stack([y, y], 1)
    assert np.array_equal(fastrank.roc_auc(both, grid, average=None),
                          fastrank.roc_auc(both.numpy(), grid.float().numpy(), average=None))


@pytest.mark.parametrize("f", [
    fastrank.label_ranking_average_precision, fastrank.coverage_error, fastrank.ndcg,
    fastrank.dcg, lambda y, s, **kw: fastrank.average_precision(y, s, average="samples", **kw),
    lambda y, s, **kw: fastrank.top_k_accuracy([0, 1], s, 1, labels=[0, 1, 2], **kw),
])
def test_sample_weights_summing_past_float64_give_the_same_mean(f) -> None:
    """The samples' weighted mean does not change when every weight is scaled; weights
    whose sum overflows gave 0.0 (or NaN)."""
    y, s = [[1, 0, 1], [0, 1, 0]], [[0.9, 0.1, 0.4], [0.9, 0.1, 0.5]]
    want = f(y, s, sample_weight=[1.0, 3.0])
    assert f(y, s, sample_weight=[5e307, 1.5e308]) == pytest.approx(want, rel=1e-15)  # sum: inf


def test_exponential_gains_past_float64_are_refused() -> None:
    """2**1024 - 1 is inf in float64: nDCG was NaN, with a warning of no relevant items."""
    with pytest.raises(ValueError, match="overflows float64"):
        fastrank.ndcg_at_k([[1024, 0]], [[0.1, 0.2]], 2, gain="exponential")
    assert fastrank.ndcg_at_k([[1023, 0]], [[0.1, 0.2]], 2, gain="exponential") == \
        pytest.approx(1 / math.log2(3))


def test_weights_held_as_objects_are_read_as_numbers() -> None:
    """A pandas object column of numbers is read as the numbers it holds, for weights as
    for scores (weights were refused by dtype); missing values and text still refused."""
    y, s = [0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8]
    w = np.array([1, 2.5, 3, 1], dtype=object)
    assert fastrank.average_precision(y, s, sample_weight=w) == \
        fastrank.average_precision(y, s, sample_weight=w.astype(float))
    assert fastrank.label_ranking_average_precision(
        [[1, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]], sample_weight=np.array([1, 3], object)) == \
        fastrank.label_ranking_average_precision([[1, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]],
                                                 sample_weight=[1.0, 3.0])
    for bad, match in ((np.array([1, None, 3, 1], object), "missing"),
                       (np.array([1, "a", 3, 1], object), "real numbers")):
        with pytest.raises(TypeError, match=match):
            fastrank.roc_auc(y, s, sample_weight=bad)
