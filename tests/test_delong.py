"""DeLong confidence intervals and tests (spec of issue 5, as pROC).

``fastrank.roc_auc_ci(method="delong")``, ``delong_covariance``,
``delong_test`` (paired) and ``delong_test_unpaired`` against oracles written
here from the definitions and sharing no code with fastrank:

* a numpy oracle: the m x n matrix psi(x_i, y_j) of every positive-negative
  pair (comparisons in the scores' own dtype, so int64 beyond 2**53 is exact),
  the placements V10 / V01 as its row / column means, S10 / S01, the
  covariance matrix, and z, p and the intervals with ``scipy.stats``
  (``norm`` and, for the unpaired test, ``t`` with real df);
* an exact oracle: the same in :class:`fractions.Fraction` with pure Python
  loops, and square roots, normal tails and quantiles in 50-digit mpmath
  (tiny inputs only);
* a grouped oracle for large inputs (above 65,536 samples): psi over the
  *distinct* scores times the class counts of each, which is the pairwise sum
  with equal terms collected (cross-checked against the pairwise oracle).

Tolerances: AUCs, standard errors and bounds to 1e-12 absolute (pROC's own
tolerance is 1e-9); variances and covariances to 1e-10 relative; z to 1e-10
relative and p-values to 1e-11 absolute.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import fastrank
from fastrank import UndefinedMetricWarning

sys.path.insert(0, str(Path(__file__).parent))
from batch_helpers import call
from strategies import LABEL_ENCODINGS, POOLS, PROPERTY_SETTINGS, cases, encode_labels

PROPERTIES = settings(PROPERTY_SETTINGS, max_examples=100)

ATOL = 1e-12  # AUCs, se, bounds, differences
VAR_RTOL = 1e-10  # variances and covariances (relative; they can be ~1e-6)
Z_RTOL = 1e-10
P_ATOL = 1e-11
LEVELS = (0.5, 0.9, 0.95, 0.99)
BAD_LEVELS = (0, 1, 1.5, math.nan, -0.2)

INTERVAL_FLOATS = ("estimate", "low", "high", "level", "se", "variance")
COMPARISON_FLOATS = (
    "estimate",
    "se",
    "z",
    "p_value",
    "low",
    "high",
    "level",
    "auc_a",
    "auc_b",
    "df",
)


# =========================================================================== oracles


def _split(y01: Any, s: Any) -> tuple[np.ndarray, np.ndarray]:
    """Positives' and negatives' scores, in the scores' own dtype."""
    y = np.asarray(y01).astype(bool)
    s = np.asarray(s)
    return s[y], s[~y]


def psi_matrix(x: np.ndarray, yneg: np.ndarray) -> np.ndarray:
    """psi(x_i, y_j): 1 if x > y, 1/2 if equal, 0 otherwise (m x n, float64, exact)."""
    gt = x[:, None] > yneg[None, :]
    eq = x[:, None] == yneg[None, :]
    return gt.astype(np.float64) + 0.5 * eq.astype(np.float64)


def placements(y01: Any, s: Any) -> tuple[float, np.ndarray, np.ndarray]:
    """(theta, V10, V01) by the pairwise definition."""
    x, yn = _split(y01, s)
    psi = psi_matrix(x, yn)
    m, n = psi.shape
    v10 = psi.sum(axis=1) / n  # sums of halves: exact
    v01 = psi.sum(axis=0) / m
    theta = psi.sum() / (m * n)
    return theta, v10, v01


def placements_grouped(y01: Any, s: Any) -> tuple[float, np.ndarray, np.ndarray]:
    """(theta, V10, V01) with psi over the distinct scores (for large inputs).

    V10(i) = sum over distinct values v of psi(x_i, v) * (negatives scoring v) / n:
    the pairwise sum with equal terms collected.
    """
    x, yn = _split(y01, s)
    values, inverse = np.unique(np.concatenate([x, yn]), return_inverse=True)
    ix, iy = inverse[: x.shape[0]], inverse[x.shape[0] :]
    k = values.shape[0]
    cpos = np.bincount(ix, minlength=k).astype(np.float64)
    cneg = np.bincount(iy, minlength=k).astype(np.float64)
    psi = psi_matrix(values, values)  # psi(value_a, value_b)
    m, n = x.shape[0], yn.shape[0]
    v10_by_value = psi @ cneg / n  # integer-valued halves times counts: exact sums
    v01_by_value = cpos @ psi / m
    theta = float(cpos @ (psi @ cneg)) / (m * n)
    return theta, v10_by_value[ix], v01_by_value[iy]


def delong_cov_oracle(
    y01: Any, score_list: list[Any], grouped: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(AUCs, S = S10/m + S01/n) of several models on the same samples."""
    parts = [(placements_grouped if grouped else placements)(y01, s) for s in score_list]
    theta = np.array([p[0] for p in parts])
    v10 = np.stack([p[1] for p in parts])  # (k, m)
    v01 = np.stack([p[2] for p in parts])  # (k, n)
    m, n = v10.shape[1], v01.shape[1]
    d10 = v10 - theta[:, None]
    d01 = v01 - theta[:, None]
    s10 = d10 @ d10.T / (m - 1)
    s01 = d01 @ d01.T / (n - 1)
    return theta, s10 / m + s01 / n


def z_crit(level: float) -> float:
    return float(stats.norm.ppf(1 - (1 - level) / 2))


def interval_oracle(y01: Any, s: Any, level: float = 0.95, grouped: bool = False) -> dict:
    theta, cov = delong_cov_oracle(y01, [s], grouped)
    var = float(cov[0, 0])
    se = math.sqrt(var)
    est = float(theta[0])
    raw_low, raw_high = est - z_crit(level) * se, est + z_crit(level) * se
    return {
        "estimate": est,
        "variance": var,
        "se": se,
        "low": max(0.0, raw_low),
        "high": min(1.0, raw_high),
        "raw_low": raw_low,
        "raw_high": raw_high,
    }


def paired_oracle(y01: Any, a: Any, b: Any, level: float = 0.95, grouped: bool = False) -> dict:
    theta, cov = delong_cov_oracle(y01, [a, b], grouped)
    d = float(theta[0] - theta[1])
    var = float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    se = math.sqrt(max(var, 0.0))
    if se == 0:
        z = 0.0 if d == 0 else math.copysign(math.inf, d)
    else:
        z = d / se
    p = 1.0 if z == 0 else float(2 * stats.norm.sf(abs(z)))
    q = z_crit(level)
    return {
        "estimate": d,
        "se": se,
        "z": z,
        "p_value": p,
        "low": d - q * se,
        "high": d + q * se,
        "auc_a": float(theta[0]),
        "auc_b": float(theta[1]),
        "df": math.inf,
        "level": level,
    }


def _t_ppf(p: float, df: float) -> float:
    """Student t quantile to 40 digits (mpmath): scipy before 1.14 is off by up
    to 2e-11 relative for some degrees of freedom, too coarse for these checks."""
    with mpmath.workdps(40):
        target = mpmath.mpf(p)
        half = mpmath.mpf(df) / 2

        def cdf_minus_p(x: Any) -> Any:
            tail = mpmath.betainc(half, mpmath.mpf(1) / 2, 0, df / (df + x * x),
                                  regularized=True) / 2
            return (1 - tail if x > 0 else tail) - target

        return float(mpmath.findroot(cdf_minus_p, float(stats.t.ppf(p, df))))


def unpaired_oracle(ya: Any, a: Any, yb: Any, b: Any, level: float = 0.95) -> dict:
    ta, ca = delong_cov_oracle(ya, [a])
    tb, cb = delong_cov_oracle(yb, [b])
    var_a, var_b = float(ca[0, 0]), float(cb[0, 0])
    na, nb = len(np.asarray(ya)), len(np.asarray(yb))  # m + n of each sample
    d = float(ta[0] - tb[0])
    se = math.sqrt(var_a + var_b)
    z = d / se
    df = (var_a + var_b) ** 2 / (var_a**2 / (na - 1) + var_b**2 / (nb - 1))
    p = float(2 * stats.t.sf(abs(z), df))
    q = _t_ppf(1 - (1 - level) / 2, df)
    return {
        "estimate": d,
        "se": se,
        "z": z,
        "df": df,
        "p_value": p,
        "low": d - q * se,
        "high": d + q * se,
        "auc_a": float(ta[0]),
        "auc_b": float(tb[0]),
        "level": level,
    }


# ---------------------------------------------------------------- exact (Fraction)


def _psi_frac(x: Any, y: Any) -> Fraction:
    if x > y:
        return Fraction(1)
    if x == y:
        return Fraction(1, 2)
    return Fraction(0)


def _py(v: Any) -> Any:
    v = v.item() if hasattr(v, "item") else v
    return int(v) if isinstance(v, bool) else v


def frac_cov(
    y01: list[int], score_list: list[list[Any]]
) -> tuple[list[Fraction], list[list[Fraction]]]:
    """Exact AUCs and covariance matrix, pure Python loops."""
    v10s, v01s, thetas = [], [], []
    for s in score_list:
        pos = [_py(si) for si, yi in zip(s, y01, strict=True) if yi]
        neg = [_py(si) for si, yi in zip(s, y01, strict=True) if not yi]
        m, n = len(pos), len(neg)
        v10 = [sum((_psi_frac(xi, yj) for yj in neg), Fraction(0)) / n for xi in pos]
        v01 = [sum((_psi_frac(xi, yj) for xi in pos), Fraction(0)) / m for yj in neg]
        v10s.append(v10)
        v01s.append(v01)
        thetas.append(sum(v10, Fraction(0)) / m)
    k = len(score_list)
    m, n = len(v10s[0]), len(v01s[0])
    cov = [[Fraction(0)] * k for _ in range(k)]
    for a in range(k):
        for b in range(k):
            s10 = sum(
                ((v10s[a][i] - thetas[a]) * (v10s[b][i] - thetas[b]) for i in range(m)), Fraction(0)
            ) / (m - 1)
            s01 = sum(
                ((v01s[a][j] - thetas[a]) * (v01s[b][j] - thetas[b]) for j in range(n)), Fraction(0)
            ) / (n - 1)
            cov[a][b] = s10 / m + s01 / n
    return thetas, cov


def _mp(f: Fraction) -> mpmath.mpf:
    return mpmath.mpf(f.numerator) / f.denominator


def _mp_zcrit(level: float) -> mpmath.mpf:
    return mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(level))  # Phi^-1(1 - (1 - level)/2)


def frac_interval(y01: list[int], s: list[Any], level: float) -> dict:
    with mpmath.workdps(50):
        thetas, cov = frac_cov(y01, [s])
        est, var = thetas[0], cov[0][0]
        se = mpmath.sqrt(_mp(var))
        q = _mp_zcrit(level)
        low = max(mpmath.mpf(0), _mp(est) - q * se)
        high = min(mpmath.mpf(1), _mp(est) + q * se)
        return {
            "estimate": float(est),
            "variance": float(var),
            "se": float(se),
            "low": float(low),
            "high": float(high),
        }


def frac_paired(y01: list[int], a: list[Any], b: list[Any], level: float) -> dict:
    with mpmath.workdps(50):
        thetas, cov = frac_cov(y01, [a, b])
        d = thetas[0] - thetas[1]
        var = cov[0][0] + cov[1][1] - 2 * cov[0][1]
        assert var >= 0
        se = mpmath.sqrt(_mp(var))
        q = _mp_zcrit(level)
        if var == 0:
            z = mpmath.mpf(0) if d == 0 else mpmath.inf * (1 if d > 0 else -1)
            p = mpmath.mpf(1) if d == 0 else mpmath.mpf(0)
        else:
            z = _mp(d) / se
            p = mpmath.erfc(abs(z) / mpmath.sqrt(2))  # 2 (1 - Phi(|z|))
        return {
            "estimate": float(d),
            "se": float(se),
            "z": float(z),
            "p_value": float(p),
            "low": float(_mp(d) - q * se),
            "high": float(_mp(d) + q * se),
            "auc_a": float(thetas[0]),
            "auc_b": float(thetas[1]),
            "df": math.inf,
        }


# ======================================================================= comparisons


def _close(got: Any, want: float, atol: float = ATOL, rtol: float = 0.0) -> bool:
    got = float(got)
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def _tol(name: str) -> dict:
    if name in ("variance",):
        return {"atol": 1e-300, "rtol": VAR_RTOL}
    if name == "se":
        return {"atol": ATOL, "rtol": VAR_RTOL}
    if name == "z":
        return {"atol": 1e-300, "rtol": Z_RTOL}
    if name == "p_value":
        return {"atol": P_ATOL}
    return {"atol": ATOL}


def assert_matches(got: Any, want: dict, names: tuple[str, ...] | None = None) -> None:
    names = names or tuple(k for k in want if not k.startswith("raw_"))
    bad = []
    for name in names:
        g = getattr(got, name)
        if not _close(g, want[name], **_tol(name)):
            bad.append((name, float(g), want[name]))
    assert not bad, bad


def assert_python_floats(obj: Any, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(obj, name)
        assert type(value) is float, (name, type(value))


def undefined_only(rec: list[warnings.WarningMessage]) -> None:
    assert len(rec) == 1, [str(w.message) for w in rec]
    assert issubclass(rec[0].category, UndefinedMetricWarning)


# ============================================================================ data


def tied_data(n: int, dtype: str, seed: int, distinct: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Labels with both classes (>= 2 each) and scores from few distinct values."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2], y[2:4] = 1, 0
    base = rng.normal(size=n) + 0.8 * y
    if dtype == "bool":
        s = base > 0.4
    elif dtype in ("float64", "float32", "float16"):
        s = (np.round(base * distinct / 3) / (distinct / 3)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        if info.bits == 64:
            # 2**53 and 2**53 + 1 are one float64: a tie only if scores were rounded
            extra = [2**53 + i for i in range(max(distinct - 2, 2))]
            pool = np.array(sorted({0, 2**62, *extra}), dtype=dtype)
            distinct = pool.shape[0]
        else:
            pool = np.linspace(info.min / 2, info.max / 2, distinct).astype(dtype)
        ranks = np.clip(np.round((base + 2) / 4 * (distinct - 1)), 0, distinct - 1).astype(int)
        s = pool[ranks]
    return y, np.asarray(s)


def separable(m: int, n: int, flip: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """m positives above n negatives, except the ``flip`` lowest positives at the bottom."""
    y = np.array([1] * m + [0] * n)
    s = np.concatenate([np.arange(m, dtype=float) + n, np.arange(n, dtype=float)])
    s[:flip] = -1.0 - np.arange(flip)
    return y, s


# ======================================================================== oracle self-checks


def test_oracles_agree_with_each_other_and_with_fraction():
    y, a = tied_data(40, "float64", 1)
    _, b = tied_data(40, "float64", 2)
    t1, c1 = delong_cov_oracle(y, [a, b])
    t2, c2 = delong_cov_oracle(y, [a, b], grouped=True)
    tf, cf = frac_cov([int(v) for v in y], [a.tolist(), b.tolist()])
    np.testing.assert_allclose(t1, t2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(c1, c2, rtol=1e-13, atol=0)
    np.testing.assert_allclose(t1, [float(v) for v in tf], rtol=0, atol=1e-15)
    np.testing.assert_allclose(c1, [[float(v) for v in row] for row in cf], rtol=1e-13, atol=0)
    # theta is the Mann-Whitney AUC; diagonal is the variance
    assert abs(t1[0] - float(fastrank.roc_auc(y, a))) < 1e-15


# ============================================================================ Interval


def test_interval_is_a_frozen_dataclass_of_python_floats():
    y, s = tied_data(30, "float64", 3)
    got = fastrank.roc_auc_ci(y, s)
    assert isinstance(got, fastrank.Interval)
    assert dataclasses.is_dataclass(got)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.low = 0.0  # type: ignore[misc]
    assert_python_floats(got, INTERVAL_FLOATS)
    assert got.method == "delong"
    assert got.n_resamples == 0
    assert got.level == 0.95
    assert got.estimate == fastrank.roc_auc(y, s)
    assert got.se == pytest.approx(math.sqrt(got.variance), rel=1e-15)
    assert 0.0 <= got.low <= got.estimate <= got.high <= 1.0


@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "float16", "int64", "int8", "uint64", "bool"]
)
@pytest.mark.parametrize("n", [6, 41, 300])
def test_roc_auc_ci_against_pairwise_oracle(dtype, n):
    for seed, level in zip(range(2), (0.95, 0.9), strict=True):
        y, s = tied_data(n, dtype, seed + 10 * n)
        got = fastrank.roc_auc_ci(y, s, level=level)
        want = interval_oracle(y, s, level)
        assert got.estimate == fastrank.roc_auc(y, s)  # exactly
        assert got.level == level
        assert_matches(got, want)


@pytest.mark.parametrize("level", LEVELS)
def test_levels_use_the_normal_quantile(level):
    y, s = tied_data(120, "float64", 7, distinct=9)
    got = fastrank.roc_auc_ci(y, s, level=level)
    want = interval_oracle(y, s, level)
    assert_matches(got, want)
    assert want["raw_low"] > 0 and want["raw_high"] < 1  # no clipping in this case
    q = (got.high - got.estimate) / got.se
    assert q == pytest.approx(stats.norm.ppf(1 - (1 - level) / 2), rel=1e-12)


def test_integer_and_bool_scores_equal_their_float_copies():
    y, s = tied_data(80, "int64", 5, distinct=7)
    a = fastrank.roc_auc_ci(y, s)
    # the ranks matter only: an order-preserving float copy gives the same interval
    ranks = np.unique(s, return_inverse=True)[1].astype(np.float64)
    b = fastrank.roc_auc_ci(y, ranks)
    for name in ("estimate", "low", "high", "se", "variance"):
        assert _close(getattr(a, name), getattr(b, name), atol=1e-15), name
    yb, sb = tied_data(50, "bool", 6)
    c = fastrank.roc_auc_ci(yb, sb)
    d = fastrank.roc_auc_ci(yb, sb.astype(np.float32))
    for name in ("estimate", "low", "high", "se", "variance"):
        assert _close(getattr(c, name), getattr(d, name), atol=1e-15), name


def test_strictly_increasing_transform_changes_nothing():
    y, s = tied_data(200, "float64", 8, distinct=11)
    a = fastrank.roc_auc_ci(y, s)
    b = fastrank.roc_auc_ci(y, np.exp(s) * 3 - 7)
    for name in ("estimate", "low", "high", "se", "variance"):
        assert _close(getattr(a, name), getattr(b, name), atol=1e-15), name


@pytest.mark.parametrize("level", [0.95, 0.99])
def test_exact_fraction_oracle_on_tiny_inputs(level):
    rows = [
        ([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]),
        ([1, 0, 1, 0, 1, 0], [3, 3, 2, 2, 1, 1]),
        ([0, 1, 1, 0, 1, 0, 0], [0.5, 0.5, 0.5, 0.5, 0.7, 0.2, 0.5]),
        ([1, 1, 1, 0, 0, 0, 0, 1], [True, False, True, False, False, True, False, True]),
        ([1, 0, 0, 1, 0, 1, 1, 0, 0], [2, -1, 0, 2, 2, 7, -1, 0, 5]),
    ]
    for y, s in rows:
        got = fastrank.roc_auc_ci(np.array(y), np.array(s), level=level)
        assert_matches(got, frac_interval(y, s, level))


@PROPERTIES
@given(
    case=cases(
        min_size=4,
        max_size=16,
        weight_kinds=("none",),
        dtypes=("float64", "float32", "float16", "int64", "int8", "uint64", "bool"),
    ),
    level=st.sampled_from(LEVELS),
)
def test_roc_auc_ci_property_against_exact_oracle(case, level):
    m = sum(case.y01)
    n = len(case.y01) - m
    assume(m >= 2 and n >= 2)
    got, rec = call(
        fastrank.roc_auc_ci, case.y_true, case.y_score, level=level, pos_label=case.pos_label
    )
    assert rec == [], [str(w.message) for w in rec]
    assert got.estimate == fastrank.roc_auc(case.y_true, case.y_score, pos_label=case.pos_label)
    assert_matches(got, frac_interval(case.y01, case.scores, level))
    assert 0.0 <= got.low <= got.estimate <= got.high <= 1.0


# ---------------------------------------------------------------- clipping


def test_upper_bound_is_clipped_to_one():
    y, s = separable(4, 4, flip=1)  # AUC 3/4, se 1/4: the upper bound passes 1
    want = interval_oracle(y, s)
    assert want["raw_high"] > 1.0  # the case really exercises clipping
    got = fastrank.roc_auc_ci(y, s)
    assert got.high == 1.0
    assert _close(got.low, want["raw_low"])
    assert_matches(got, want)


def test_lower_bound_is_clipped_to_zero():
    y, s = separable(4, 4, flip=1)
    s = -s  # AUC near 0
    want = interval_oracle(y, s)
    assert want["raw_low"] < 0.0
    got = fastrank.roc_auc_ci(y, s)
    assert got.low == 0.0
    assert _close(got.high, want["raw_high"])
    assert_matches(got, want)


def test_both_bounds_clipped_at_a_high_level():
    y = np.array([1, 1, 0, 0])
    s = np.array([1.0, 0.0, 0.5, 0.5])  # AUC 1/2, large variance
    want = interval_oracle(y, s, level=0.999)
    assert want["raw_low"] < 0 and want["raw_high"] > 1
    got = fastrank.roc_auc_ci(y, s, level=0.999)
    assert (got.low, got.high) == (0.0, 1.0)
    assert _close(got.se, want["se"])


def test_perfect_separation_has_zero_variance():
    y, s = separable(5, 7, flip=0)
    got = fastrank.roc_auc_ci(y, s)
    assert got.estimate == 1.0
    assert got.variance == 0.0 and got.se == 0.0
    assert got.low == got.high == 1.0


# ---------------------------------------------------------------- undefined


@pytest.mark.parametrize(
    ("y", "s"),
    [
        ([1, 0, 0, 0, 0], [0.3, 0.1, 0.9, 0.4, 0.2]),
        ([0, 1, 1, 1, 1], [0.3, 0.1, 0.9, 0.4, 0.2]),
        ([0, 1], [0.7, 0.2]),
        ([0, 1, 0, 0], [True, True, False, True]),
    ],
    ids=["one-positive", "one-negative", "one-of-each", "bool-one-positive"],
)
def test_fewer_than_two_of_a_class_is_nan_with_one_warning(y, s):
    s = np.array(s)
    got, rec = call(fastrank.roc_auc_ci, np.array(y), s)
    undefined_only(rec)
    assert got.estimate == fastrank.roc_auc(np.array(y), s)  # defined: both classes present
    assert not math.isnan(got.estimate)
    for name in ("variance", "se", "low", "high"):
        assert math.isnan(getattr(got, name)), name
    assert_python_floats(got, INTERVAL_FLOATS)


@pytest.mark.parametrize("y", [[0, 0, 0, 0], [1, 1, 1, 1]], ids=["no-positive", "no-negative"])
def test_missing_class_is_nan_everywhere_with_one_warning(y):
    got, rec = call(fastrank.roc_auc_ci, np.array(y), np.array([0.1, 0.2, 0.3, 0.4]))
    undefined_only(rec)
    for name in ("estimate", "variance", "se", "low", "high"):
        assert math.isnan(getattr(got, name)), name


def test_delong_test_with_one_positive_is_nan_with_one_warning():
    y = np.array([1, 0, 0, 0, 0])
    a = np.array([0.9, 0.1, 0.5, 0.3, 0.2])
    b = np.array([0.4, 0.1, 0.5, 0.3, 0.2])
    got, rec = call(fastrank.delong_test, y, a, b)
    undefined_only(rec)
    for name in ("se", "z", "p_value", "low", "high"):
        assert math.isnan(getattr(got, name)), name
    assert got.auc_a == pytest.approx(fastrank.roc_auc(y, a), abs=1e-15, rel=0)
    assert got.auc_b == pytest.approx(fastrank.roc_auc(y, b), abs=1e-15, rel=0)
    assert math.isnan(got.estimate) or got.estimate == pytest.approx(got.auc_a - got.auc_b)


def test_delong_covariance_with_one_negative_is_nan_with_one_warning():
    y = np.array([1, 1, 0, 1, 1])
    a = np.array([0.9, 0.1, 0.5, 0.3, 0.2])
    b = np.array([0.4, 0.1, 0.5, 0.3, 0.2])
    (aucs, cov), rec = call(fastrank.delong_covariance, y, np.column_stack([a, b]))
    undefined_only(rec)
    np.testing.assert_allclose(
        aucs, [fastrank.roc_auc(y, a), fastrank.roc_auc(y, b)], rtol=0, atol=1e-15
    )
    assert np.asarray(cov).shape == (2, 2)
    assert np.isnan(cov).all()


def test_unpaired_with_one_positive_in_one_sample_is_nan_with_one_warning():
    ya, a = tied_data(30, "float64", 1)
    yb = np.array([0, 0, 1, 0, 0, 0])
    b = np.array([0.1, 0.2, 0.3, 0.4, 0.2, 0.0])
    got, rec = call(fastrank.delong_test_unpaired, ya, a, yb, b)
    undefined_only(rec)
    for name in ("se", "z", "p_value", "low", "high"):
        assert math.isnan(getattr(got, name)), name
    assert got.auc_a == pytest.approx(fastrank.roc_auc(ya, a), abs=1e-15, rel=0)
    assert got.auc_b == pytest.approx(fastrank.roc_auc(yb, b), abs=1e-15, rel=0)


# ============================================================================ covariance


def test_delong_covariance_matrix_and_list_input_against_oracle():
    y, a = tied_data(150, "float64", 21, distinct=6)
    _, b = tied_data(150, "float32", 22, distinct=4)
    _, c = tied_data(150, "int64", 23, distinct=5)
    b = b.astype(np.float64)  # a matrix needs one dtype; the list keeps each
    c_f = np.unique(c, return_inverse=True)[1].astype(np.float64)
    want_t, want_c = delong_cov_oracle(y, [a, b, c])
    for scores in ([a, b, c], np.column_stack([a, b, c_f])):
        aucs, cov = fastrank.delong_covariance(y, scores)
        aucs, cov = np.asarray(aucs), np.asarray(cov)
        assert aucs.shape == (3,) and cov.shape == (3, 3)
        np.testing.assert_allclose(
            aucs, [fastrank.roc_auc(y, v) for v in (a, b, c)], rtol=0, atol=1e-15
        )
        np.testing.assert_allclose(aucs, want_t, rtol=0, atol=ATOL)
        np.testing.assert_allclose(cov, want_c, rtol=VAR_RTOL, atol=0)
        np.testing.assert_allclose(cov, cov.T, rtol=0, atol=0)
        assert np.linalg.eigvalsh(cov).min() > -1e-15
        for k, v in enumerate((a, b, c)):
            assert cov[k, k] == pytest.approx(fastrank.roc_auc_ci(y, v).variance, rel=1e-12)


def test_delong_covariance_exact_on_tiny_input():
    y = [1, 0, 1, 1, 0, 0, 1]
    scores = [[3, 1, 2, 2, 2, 0, 1], [0.5, 0.5, 0.5, 0.9, 0.1, 0.5, 0.2]]
    aucs, cov = fastrank.delong_covariance(np.array(y), [np.array(v) for v in scores])
    tf, cf = frac_cov(y, scores)
    np.testing.assert_allclose(aucs, [float(t) for t in tf], rtol=0, atol=1e-15)
    np.testing.assert_allclose(cov, [[float(v) for v in r] for r in cf], rtol=1e-13, atol=0)


# ============================================================================ paired test


def test_comparison_is_a_frozen_dataclass_of_python_floats():
    y, a = tied_data(60, "float64", 31)
    _, b = tied_data(60, "float64", 32)
    got = fastrank.delong_test(y, a, b)
    assert isinstance(got, fastrank.Comparison)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.z = 0.0  # type: ignore[misc]
    assert_python_floats(got, COMPARISON_FLOATS)
    assert got.method == "delong paired"
    assert got.df == math.inf
    assert got.level == 0.95
    assert got.auc_a == pytest.approx(fastrank.roc_auc(y, a), abs=1e-15, rel=0)
    assert got.auc_b == pytest.approx(fastrank.roc_auc(y, b), abs=1e-15, rel=0)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
@pytest.mark.parametrize("n", [8, 60, 400])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_delong_test_against_pairwise_oracle(dtype, n, level):
    y, a = tied_data(n, dtype, n)
    rng = np.random.default_rng(n + 1)
    # b: a noisy copy of a (correlated models), same dtype
    b = a.copy()
    swap = rng.random(n) < 0.3
    b[swap] = rng.permutation(a)[swap]
    got = fastrank.delong_test(y, a, b, level=level)
    assert_matches(got, paired_oracle(y, a, b, level))
    back = fastrank.delong_test(y, b, a, level=level)
    assert _close(back.estimate, -got.estimate, atol=1e-15)
    assert _close(back.z, -got.z, atol=1e-300, rtol=1e-12)
    assert _close(back.p_value, got.p_value, atol=1e-12)
    assert _close(back.se, got.se, atol=1e-14)


def test_delong_test_se_is_consistent_with_covariance():
    y, a = tied_data(90, "float64", 41, distinct=8)
    _, b = tied_data(90, "float64", 42, distinct=3)
    aucs, cov = fastrank.delong_covariance(y, [a, b])
    got = fastrank.delong_test(y, a, b)
    assert got.se == pytest.approx(math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]), rel=1e-12)
    assert got.estimate == pytest.approx(aucs[0] - aucs[1], abs=1e-16)
    assert got.p_value == pytest.approx(2 * stats.norm.sf(abs(got.z)), abs=1e-14)


@st.composite
def paired_cases(draw: Any) -> tuple:
    dtype = draw(st.sampled_from(("float64", "float32", "int64", "int8", "uint64", "bool")))
    pool = POOLS[dtype]
    n = draw(st.integers(4, 14))
    y01 = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(2 <= sum(y01) <= n - 2)
    k = draw(st.integers(1, min(4, len(pool))))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    values = [pool[i] for i in idx]
    a = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    kind = draw(st.sampled_from(("independent", "identical", "perturbed")))
    if kind == "identical":
        b = list(a)
    elif kind == "perturbed":
        b = list(a)
        i = draw(st.integers(0, n - 1))
        b[i] = draw(st.sampled_from(values))
    else:
        b = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    encoding = draw(st.sampled_from(LABEL_ENCODINGS))
    y_true, pos_label = encode_labels(y01, encoding)
    sa, sb = np.array(a, dtype=dtype), np.array(b, dtype=dtype)
    level = draw(st.sampled_from(LEVELS))
    return y01, y_true, pos_label, sa, sb, level


@PROPERTIES
@given(data=paired_cases())
def test_delong_test_property_against_exact_oracle(data):
    y01, y_true, pos_label, a, b, level = data
    want = frac_paired(y01, a.tolist(), b.tolist(), level)
    # d != 0 with se == 0 is checked by test_nonzero_difference_with_zero_se
    assume(want["se"] > 0 or want["estimate"] == 0)
    got, rec = call(fastrank.delong_test, y_true, a, b, level=level, pos_label=pos_label)
    assert rec == [], [str(w.message) for w in rec]
    assert_matches(got, want)
    assert got.level == level and got.df == math.inf


def test_identical_predictors_give_z_zero_and_p_one():
    y, a = tied_data(50, "float64", 51)
    got, rec = call(fastrank.delong_test, y, a, a.copy())
    assert rec == []
    assert got.estimate == 0.0 and got.se == 0.0
    assert got.z == 0.0 and got.p_value == 1.0
    assert got.low == 0.0 and got.high == 0.0


@pytest.mark.parametrize(
    "scores",
    [
        [-2.5] * 7 + [-1e300] * 4 + [-1.0, -2.5],  # huge magnitudes: cancellation-prone
        [0.1, 0.7, 0.2, 0.2, 0.9, 0.3, 0.1, 0.4, 0.35, 0.8, 0.6, 0.05, 0.5],
    ],
)
def test_identical_predictors_have_exactly_zero_se(scores):
    """se = sqrt(S_aa + S_bb - 2 S_ab) is exactly 0 for identical placements; rounding
    the three terms separately can leave ~1e-9 (sqrt of ~1e-17), beyond pROC's 1e-9."""
    y = np.array([0] * 11 + [1, 1])
    s = np.array(scores)
    got, rec = call(fastrank.delong_test, y, s, s.copy())
    assert rec == []
    assert (got.estimate, got.se, got.z, got.p_value, got.low, got.high) == (0, 0, 0, 1, 0, 0)


def test_zero_difference_and_zero_se_without_identical_scores():
    y, s = separable(4, 5, flip=0)
    other = s * 10 + 3  # another perfect predictor: d == 0, se == 0
    got, rec = call(fastrank.delong_test, y, s, other)
    assert rec == []
    assert (got.estimate, got.se, got.z, got.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_equal_aucs_with_positive_se_give_z_zero_p_one():
    y = np.array([1, 1, 0, 0])
    a = np.array([4.0, 1.0, 2.0, 3.0])  # AUC 1/2
    b = np.array([1.0, 4.0, 3.0, 2.0])  # AUC 1/2, different placements
    want = frac_paired([1, 1, 0, 0], a.tolist(), b.tolist(), 0.95)
    assert want["estimate"] == 0 and want["se"] > 0
    got = fastrank.delong_test(y, a, b)
    assert got.z == 0.0 and got.p_value == 1.0
    assert_matches(got, want)


def test_nonzero_difference_with_zero_se():
    """A perfect model against a constant one: d = 1/2, se = 0, so z = d/se = +inf, p = 0."""
    y, s = separable(3, 3, flip=0)
    const = np.zeros(6)
    got = fastrank.delong_test(y, s, const)
    assert got.estimate == 0.5 and got.se == 0.0
    assert got.z == math.inf and got.p_value == 0.0
    assert got.low == got.high == 0.5


# ============================================================================ unpaired


@pytest.mark.parametrize("sizes", [(20, 35), (200, 90), (9, 400)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_unpaired_against_oracle(sizes, level):
    ya, a = tied_data(sizes[0], "float64", sizes[0], distinct=6)
    yb, b = tied_data(sizes[1], "float32", sizes[1] + 1, distinct=3)
    got = fastrank.delong_test_unpaired(ya, a, yb, b, level=level)
    want = unpaired_oracle(ya, a, yb, b, level)
    assert got.method == "delong unpaired"
    assert_python_floats(got, COMPARISON_FLOATS)
    assert got.auc_a == pytest.approx(fastrank.roc_auc(ya, a), abs=1e-15, rel=0)
    assert got.auc_b == pytest.approx(fastrank.roc_auc(yb, b), abs=1e-15, rel=0)
    assert _close(got.df, want["df"], atol=0, rtol=1e-10)
    assert math.isfinite(got.df) and got.df > 1
    assert_matches(got, want)


def test_unpaired_df_and_variances_by_hand():
    """df = (va + vb)^2 / (va^2/(Na - 1) + vb^2/(Nb - 1)), va, vb from roc_auc_ci."""
    ya, a = tied_data(40, "int64", 61, distinct=5)
    yb, b = tied_data(25, "float64", 62, distinct=7)
    va = interval_oracle(ya, a)["variance"]
    vb = interval_oracle(yb, b)["variance"]
    got = fastrank.delong_test_unpaired(ya, a, yb, b)
    df = (va + vb) ** 2 / (va**2 / 39 + vb**2 / 24)
    assert got.df == pytest.approx(df, rel=1e-10)
    assert got.se == pytest.approx(math.sqrt(va + vb), rel=1e-12)
    # a t statistic, not a normal one: the p-value is larger than the normal p
    assert got.p_value > 2 * stats.norm.sf(abs(got.z))


def test_unpaired_with_one_zero_variance_sample():
    ya, a = separable(5, 6, flip=0)  # variance 0
    yb, b = tied_data(30, "float64", 71)
    got = fastrank.delong_test_unpaired(ya, a, yb, b)
    want = unpaired_oracle(ya, a, yb, b)
    assert want["df"] == pytest.approx(29)  # Nb - 1
    assert_matches(got, want)


@pytest.mark.parametrize("y, s", [([0, 0, 1, 1], [0, 1, 2, 3]), ([0, 1, 0, 1], [1, 1, 1, 1])],
                         ids=["separated", "all-tied"])
def test_unpaired_with_both_variances_zero(y, s):
    """Both samples perfectly separated, or all tied: both DeLong variances are 0, and
    Welch's df (0 over 0 in Python floats) raised ZeroDivisionError; it is infinite,
    the difference 0, z 0 and p 1, as the paired test gives."""
    got = fastrank.delong_test_unpaired(y, s, y, s)
    assert got.df == math.inf and got.estimate == 0.0 and got.z == 0.0
    assert got.p_value == 1.0 and got.se == 0.0


def test_unpaired_same_sample_twice_gives_z_zero_p_one():
    y, s = tied_data(40, "float64", 81)
    got = fastrank.delong_test_unpaired(y, s, y, s)
    assert got.estimate == 0.0 and got.z == 0.0 and got.p_value == 1.0


def test_unpaired_exact_on_tiny_inputs_with_label_encodings():
    ya = np.array(["p", "n", "p", "n", "p", "n"])
    a = np.array([0.9, 0.2, 0.4, 0.4, 0.7, 0.8])
    yb = np.array(["p", "n", "p", "n", "n", "p", "n"])
    b = np.array([3, 1, 1, 2, 0, 5, 3])
    got = fastrank.delong_test_unpaired(ya, a, yb, b, pos_label="p")
    want = unpaired_oracle((ya == "p").astype(int), a, (yb == "p").astype(int), b)
    assert_matches(got, want)


# ============================================================================ 2-D batches


def _batch(n: int, tasks: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (n, tasks))
    y[:2], y[2:4] = 1, 0
    a = np.round(rng.normal(size=(n, tasks)) + y, 1)
    b = np.round(a + rng.normal(scale=0.7, size=(n, tasks)), 1)
    return y, a, b


def _per_column(got: Any, singles: list[Any], names: tuple[str, ...], exact: tuple[str, ...]):
    for name in names:
        value = getattr(got, name)
        assert isinstance(value, np.ndarray), (name, type(value))
        assert value.dtype == np.float64 and value.shape == (len(singles),), name
        want = np.array([getattr(r, name) for r in singles], dtype=np.float64)
        if name in exact:
            np.testing.assert_array_equal(value, want, err_msg=name)
        else:
            np.testing.assert_allclose(value, want, rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("order", ["C", "F"])
def test_roc_auc_ci_2d_equals_per_column_calls(order):
    y, a, _ = _batch(120, 5, 91)
    y, a = np.asarray(y, order=order), np.asarray(a, order=order)
    got, rec = call(fastrank.roc_auc_ci, y, a, level=0.9)
    assert rec == []
    singles = [fastrank.roc_auc_ci(y[:, j], a[:, j], level=0.9) for j in range(5)]
    _per_column(got, singles, ("estimate", "low", "high", "se", "variance"), ("estimate",))
    assert got.method == "delong"


def test_roc_auc_ci_2d_with_undefined_columns_warns_once():
    y, a, _ = _batch(30, 4, 92)
    y[:, 1] = 0
    y[5, 1] = 1  # one positive
    y[:, 3] = 1  # no negative
    got, rec = call(fastrank.roc_auc_ci, y, a)
    undefined_only(rec)
    singles = [call(fastrank.roc_auc_ci, y[:, j], a[:, j])[0] for j in range(4)]
    _per_column(got, singles, ("estimate", "low", "high", "se", "variance"), ("estimate",))
    assert np.isnan(got.se[[1, 3]]).all() and np.isfinite(got.se[[0, 2]]).all()


def test_delong_test_2d_equals_per_column_calls():
    y, a, b = _batch(200, 4, 93)
    b[:, 2] = a[:, 2]  # identical predictors in one column
    got, rec = call(fastrank.delong_test, y, a, b, level=0.99)
    assert rec == []
    singles = [fastrank.delong_test(y[:, j], a[:, j], b[:, j], level=0.99) for j in range(4)]
    _per_column(
        got,
        singles,
        ("estimate", "se", "z", "p_value", "low", "high", "auc_a", "auc_b"),
        (),  # within 1e-12 (spec), nothing bit for bit
    )
    assert got.z[2] == 0.0 and got.p_value[2] == 1.0
    assert np.all(np.asarray(got.df) == math.inf)
    for j in range(4):
        assert_matches(
            singles[j],
            paired_oracle(y[:, j], a[:, j], b[:, j], 0.99),
            ("estimate", "se", "z", "p_value", "low", "high"),
        )


def test_delong_test_2d_with_an_undefined_column_warns_once():
    y, a, b = _batch(40, 3, 95)
    y[:, 0] = 0
    y[7, 0] = 1  # one positive
    got, rec = call(fastrank.delong_test, y, a, b)
    undefined_only(rec)
    for name in ("se", "z", "p_value", "low", "high"):
        value = getattr(got, name)
        assert math.isnan(value[0]) and np.isfinite(value[1:]).all(), name
    singles = [fastrank.delong_test(y[:, j], a[:, j], b[:, j]) for j in (1, 2)]
    for name in ("estimate", "se", "z", "p_value", "low", "high"):
        np.testing.assert_allclose(
            getattr(got, name)[1:], [getattr(r, name) for r in singles], rtol=0, atol=1e-12
        )


def test_delong_test_shapes_must_agree():
    y, a, b = _batch(20, 3, 94)
    with pytest.raises(ValueError, match=r"(?i)shape|length"):
        fastrank.delong_test(y, a, b[:, :2])
    with pytest.raises(ValueError, match=r"(?i)shape|length"):
        fastrank.delong_test(y[:, 0], a[:, 0], b[:-1, 0])
    with pytest.raises(ValueError, match=r"(?i)shape|length|1-D|2-D"):
        fastrank.delong_test(y[:, 0], a[:, 0], b)


# ============================================================================ large input


def test_large_input_above_65536_samples():
    n = 70_001
    rng = np.random.default_rng(2024)
    y = (rng.random(n) < 0.3).astype(np.int8)
    a = np.round(rng.normal(size=n) + 0.7 * y, 2).astype(np.float32)  # ~800 distinct values
    b = np.round(a + rng.normal(scale=0.5, size=n).astype(np.float32), 1).astype(np.float32)
    got = fastrank.roc_auc_ci(y, a)
    assert got.estimate == fastrank.roc_auc(y, a)
    assert_matches(got, interval_oracle(y, a, grouped=True))
    cmp = fastrank.delong_test(y, a, b)
    assert_matches(cmp, paired_oracle(y, a, b, grouped=True))
    _, cov = fastrank.delong_covariance(y, [a, b])
    np.testing.assert_allclose(cov, delong_cov_oracle(y, [a, b], grouped=True)[1], rtol=1e-10)


# ============================================================================ bad input


def _good() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.array([0, 1, 0, 1, 1, 0])
    return y, np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4]), np.array([0.2, 0.6, 0.1, 0.3, 0.5, 0.4])


CALLS = {
    "roc_auc_ci": lambda y, a, b, **kw: fastrank.roc_auc_ci(y, a, **kw),
    "delong_test": lambda y, a, b, **kw: fastrank.delong_test(y, a, b, **kw),
    "delong_test_unpaired": lambda y, a, b, **kw: fastrank.delong_test_unpaired(y, a, y, b, **kw),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("level", BAD_LEVELS)
def test_level_outside_open_unit_interval(name, level):
    y, a, b = _good()
    with pytest.raises(ValueError, match=r"level"):
        CALLS[name](y, a, b, level=level)


def test_bootstrap_method_level_checked_too():
    y, a, _ = _good()
    with pytest.raises(ValueError, match=r"level"):
        fastrank.roc_auc_ci(y, a, method="bootstrap", level=1.0, seed=0, n_resamples=10)


def test_sample_weight_with_delong_is_rejected():
    y, a, _ = _good()
    with pytest.raises(ValueError, match=r"sample_weight"):
        fastrank.roc_auc_ci(y, a, sample_weight=np.ones(6))
    with pytest.raises(ValueError, match=r"sample_weight"):
        fastrank.roc_auc_ci(y, a, method="delong", sample_weight=np.ones(6))


@pytest.mark.parametrize(
    ("name", "which"),
    [
        ("roc_auc_ci", "a"),
        ("delong_test", "a"),
        ("delong_test", "b"),
        ("delong_test_unpaired", "a"),
        ("delong_test_unpaired", "b"),
    ],
)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_scores(name, which, bad):
    y, a, b = _good()
    (a if which == "a" else b)[3] = bad
    with pytest.raises(ValueError, match=r"non-finite.*index 3"):
        CALLS[name](y, a, b)


def test_non_finite_scores_in_covariance():
    y, a, b = _good()
    b[2] = np.nan
    with pytest.raises(ValueError, match=r"non-finite"):
        fastrank.delong_covariance(y, [a, b])
    with pytest.raises(ValueError, match=r"non-finite"):
        fastrank.delong_covariance(y, np.column_stack([a, b]))


@pytest.mark.parametrize("name", list(CALLS))
def test_labels_that_are_not_two_classes(name):
    _, a, b = _good()
    with pytest.raises(ValueError, match=r"two classes"):
        CALLS[name](np.array([0, 1, 2, 1, 0, 2]), a, b)
    with pytest.raises(ValueError, match=r"y_true"):
        CALLS[name](np.array([3, 5, 3, 5, 5, 3]), a, b)  # two classes, none positive


def test_labels_not_two_classes_in_covariance_and_second_unpaired_sample():
    y, a, b = _good()
    with pytest.raises(ValueError, match=r"two classes"):
        fastrank.delong_covariance(np.array([0, 1, 2, 1, 0, 2]), [a, b])
    with pytest.raises(ValueError, match=r"two classes"):
        fastrank.delong_test_unpaired(y, a, np.array([0, 1, 2, 1, 0, 2]), b)


@pytest.mark.parametrize("name", list(CALLS))
def test_mismatched_lengths(name):
    y, a, b = _good()
    with pytest.raises(ValueError, match=r"(?i)length|shape"):
        CALLS[name](y[:5], a, b)


def test_mismatched_lengths_in_covariance_and_unpaired():
    y, a, b = _good()
    with pytest.raises(ValueError, match=r"(?i)length|shape"):
        fastrank.delong_covariance(y[:5], [a, b])
    with pytest.raises(ValueError, match=r"(?i)length|shape"):
        fastrank.delong_covariance(y, [a, b[:5]])
    with pytest.raises(ValueError, match=r"(?i)length|shape"):
        fastrank.delong_test_unpaired(y, a, y[:5], b)


@pytest.mark.parametrize("name", list(CALLS))
def test_empty_arrays(name):
    e = np.array([], dtype=float)
    with pytest.raises(ValueError, match=r"empty"):
        CALLS[name](np.array([], dtype=int), e, e)


def test_errors_equal_those_of_roc_auc():
    """Same exception type and message text as the single-task function."""
    y, a, _ = _good()
    bad_cases = [
        (y, np.where(np.arange(6) == 2, np.nan, a)),
        (np.array([0, 1, 2, 1, 0, 2]), a),
        (y[:4], a),
        (np.array([], dtype=int), np.array([])),
        (y, np.array(list("abcdef"))),
    ]
    for yy, ss in bad_cases:
        with pytest.raises((ValueError, TypeError)) as ref:
            fastrank.roc_auc(yy, ss)
        with pytest.raises(ref.type, match=re.escape(str(ref.value))):
            fastrank.roc_auc_ci(yy, ss)


# ============================================================================ Evaluation


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_evaluation_auc_ci_equals_roc_auc_ci_per_pair(level):
    y1, a1 = tied_data(80, "float64", 101)
    _, b1 = tied_data(80, "float64", 102)
    y2, a2 = tied_data(45, "float64", 103, distinct=3)
    _, b2 = tied_data(45, "float64", 104)
    ev = fastrank.evaluate(
        [a1, b1, a2, b2],
        [y1, y1, y2, y2],
        model_names=["a", "b", "a", "b"],
        dataset_ids=["d1", "d1", "d2", "d2"],
    )
    table = ev.auc_ci(level=level, as_frame=False)
    assert list(table) == ["model", "dataset", "auc", "se", "low", "high"]
    pairs = [("a", "d1", y1, a1), ("b", "d1", y1, b1), ("a", "d2", y2, a2), ("b", "d2", y2, b2)]
    assert list(table["model"]) == [p[0] for p in pairs]
    assert list(table["dataset"]) == [p[1] for p in pairs]
    for i, (_, _, y, s) in enumerate(pairs):
        ref = fastrank.roc_auc_ci(y, s, level=level)
        want = interval_oracle(y, s, level)
        assert table["auc"][i] == ref.estimate
        for col, field in (("se", "se"), ("low", "low"), ("high", "high")):
            assert _close(table[col][i], getattr(ref, field), atol=1e-15), col
            assert _close(table[col][i], want[field]), col
    frame = ev.auc_ci(level=level)
    assert list(frame.columns) == ["model", "dataset", "auc", "se", "low", "high"]
    np.testing.assert_array_equal(frame["auc"].to_numpy(), table["auc"])
    np.testing.assert_array_equal(frame["high"].to_numpy(), table["high"])


def test_evaluation_auc_ci_level_checked():
    y, a, _ = _good()
    ev = fastrank.evaluate(a, y)
    with pytest.raises(ValueError, match=r"level"):
        ev.auc_ci(level=1.5)


@PROPERTIES
@given(st.integers(0, 2**32 - 1), st.integers(4, 400), st.integers(0, 3))
def test_delong_aucs_are_roc_auc_to_the_last_bit(seed: int, n: int, decimals: int) -> None:
    """auc_a, auc_b and delong_covariance's AUCs are the very floats roc_auc returns
    (the mean of the placements could be an ulp off the correctly rounded AUC)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:4] = [0, 1, 0, 1]  # two of each class: the test is defined
    a = np.round(y + rng.normal(size=n), decimals)
    b = np.round(2 * y + rng.normal(size=n), 2)
    t = fastrank.delong_test(y, a, b)
    assert (t.auc_a, t.auc_b) == (fastrank.roc_auc(y, a), fastrank.roc_auc(y, b))
    aucs, _ = fastrank.delong_covariance(y, [a, b])
    assert aucs.tolist() == [fastrank.roc_auc(y, a), fastrank.roc_auc(y, b)]


def test_no_columns_give_empty_results_not_a_crash() -> None:
    """2-D scores with no columns: roc_auc_ci and delong_test raised IndexError where
    roc_auc and partial_roc_auc_ci give empty arrays; now empty arrays too."""
    from fresh import assert_prints_ok

    assert_prints_ok("""
import numpy as np, fastrank
Z = np.zeros((20, 0))
iv = fastrank.roc_auc_ci(Z, Z)
c = fastrank.delong_test(Z, Z, Z)
assert iv.estimate.shape == iv.variance.shape == c.p_value.shape == c.auc_a.shape == (0,)
assert fastrank.partial_roc_auc_ci(Z, Z, fpr=(0, .5)).estimate.shape == (0,)
print("ok")
""")
