"""Small statistics for intervals over a few datasets (folds): Student t.

numpy has no t quantile and scipy is not a dependency, so the quantile for
the integer degrees of freedom a mean over ``n`` folds needs (``n - 1``) is
computed here from the closed form of the t distribution function for
integer degrees of freedom (Abramowitz & Stegun 26.7.3-4), inverted by
bisection on the angle ``theta = atan(t / sqrt(df))``.

Paired tests of two systems over the same queries (what
:func:`fastrank.compare_runs` runs): the paired t test, Fisher's randomization
test (sign flips, exact or drawn) and the Wilcoxon signed-rank test, and the
Holm and Bonferroni adjustments of their p-values.
"""

from __future__ import annotations

import math

import numpy as np

from ._core import arith
from ._core.options import check_count

__all__ = ["adjust_p", "mean_interval", "normal_quantile", "paired_t_p", "sign_flip_p", "t_cdf",
           "t_quantile", "two_sided_p", "wilcoxon_p"]


def _central_mass(theta: float, df: int) -> float:
    """P(|T| <= sqrt(df) * tan(theta)) for T ~ Student t with ``df`` degrees of freedom."""
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 1:
        if df == 1:
            return 2.0 * theta / math.pi
        term, total = c, c
        for k in range(3, df - 1, 2):  # cos^k theta * (2*4*...(k-1)) / (1*3*...k)
            term *= c2 * (k - 1) / k
            total += term
        return 2.0 / math.pi * (theta + s * total)
    term, total = 1.0, 1.0
    for k in range(2, df - 1, 2):  # cos^k theta * (1*3*...(k-1)) / (2*4*...k)
        term *= c2 * (k - 1) / k
        total += term
    return s * total


def _tail_mass(phi: float, df: int) -> float:
    """P(|T| > sqrt(df) / tan(phi)) for T ~ Student t with ``df`` degrees of freedom.

    ``phi = pi/2 - theta``. While the tail is at least 1e-3 it is ``1 - central
    mass``, within 1e-13 relative. Smaller tails sum the remainder of the series
    whose partial sum is the central mass, keeping their full relative
    precision (no cancellation).
    """
    rest = 1.0 - _central_mass(math.pi / 2.0 - phi, df)
    if rest >= 1e-3:
        return rest
    x = math.sin(phi) ** 2  # cos(theta)**2
    even = df % 2 == 0
    k0 = df // 2 if even else (df - 1) // 2
    # term_k: c_k x^k with c_k = (1*3*...(2k-1)) / (2*4*...2k) (even df), or
    # d_k x^k with d_k = (2*4*...2k) / (3*5*...(2k+1)) (odd df); start at k0.
    term = 1.0
    for k in range(1, k0 + 1):
        term *= x * ((2 * k - 1) / (2 * k) if even else (2 * k) / (2 * k + 1))
    total, k = 0.0, k0
    while term > 1e-17 * total and term > 0.0:
        total += term
        k += 1
        term *= x * ((2 * k - 1) / (2 * k) if even else (2 * k) / (2 * k + 1))
    if even:
        return math.cos(phi) * total  # sin(theta) * remainder
    return 2.0 / math.pi * math.cos(phi) * math.sin(phi) * total


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t distribution with integer ``df``.

    Accurate to about 1e-11 relative (1e-15 absolute), far tails included.

    Parameters
    ----------
    p : float in (0, 1)
    df : int >= 1

    Examples
    --------
    >>> from fastrank.stats import t_quantile
    >>> round(t_quantile(0.975, 4), 6)
    2.776445
    >>> t_quantile(0.5, 3)
    0.0
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1); got {p}")
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"df must be a positive integer; got {df}")
    df = int(df)
    if p == 0.5:
        return 0.0
    upper = p > 0.5
    tail = 2.0 * ((1.0 - p) if upper else p)  # P(|T| > |t|); 1 - p is exact for p > 1/2
    # Bisection on phi = pi/2 - atan(|t| / sqrt(df)), where the tail mass increases.
    lo, hi = 0.0, math.pi / 2.0
    for _ in range(1100):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _tail_mass(mid, df) < tail:
            lo = mid
        else:
            hi = mid
    phi = 0.5 * (lo + hi)
    t = math.sqrt(df) / math.tan(phi)
    return t if upper else -t


def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


def _beta_inc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with real ``df > 0``.

    Examples
    --------
    >>> from fastrank.stats import t_cdf
    >>> round(t_cdf(2.0, 7.5), 10)
    0.9585515024
    """
    if not df > 0:
        raise ValueError(f"df must be positive; got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    if math.isinf(df):
        return 0.5 * math.erfc(-t / math.sqrt(2.0))
    tail = 0.5 * _beta_inc(0.5 * df, 0.5, df / (df + t * t))  # P(T > |t|)
    return 1.0 - tail if t > 0 else tail


def two_sided_p(statistic: float, df: float = math.inf) -> float:
    """``P(|T| >= |statistic|)``: normal when ``df`` is infinite, else Student t."""
    if math.isnan(statistic):
        return math.nan
    if math.isinf(df):
        return math.erfc(abs(statistic) / math.sqrt(2.0))
    if math.isinf(statistic):
        return 0.0
    return _beta_inc(0.5 * df, 0.5, df / (df + statistic * statistic))


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal distribution."""
    from ._core.registry import ndtri

    return float(ndtri(p))


def critical_value(level: float, df: float = math.inf) -> float:
    """The two-sided critical value of a ``level`` interval: normal or Student t."""
    p = 0.5 + 0.5 * level
    if math.isinf(df):
        return normal_quantile(p)
    if float(df).is_integer() and df <= 1000:  # the closed form costs O(df)
        return t_quantile(p, int(df))
    target = 2.0 * (1.0 - p)  # bisection on the two-sided tail, decreasing in t
    lo, hi = 0.0, 1.0
    while two_sided_p(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if two_sided_p(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mean_interval(values: np.ndarray, level: float) -> tuple[float, float, float, float]:
    """Mean, sample standard deviation and the t interval of the mean.

    Returns ``(mean, sd, low, high)``; the interval is
    ``mean +- t_{n-1, (1+level)/2} * sd / sqrt(n)``, clipped to [0, 1] (every
    quantity averaged here is a rate or an area). With one value the standard
    deviation and the interval are NaN; with none, everything is NaN.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if n == 0:
        return math.nan, math.nan, math.nan, math.nan
    mean = float(np.mean(values))
    if n == 1:
        return mean, math.nan, math.nan, math.nan
    sd = float(np.std(values, ddof=1))
    half = t_quantile(0.5 + 0.5 * level, n - 1) * sd / math.sqrt(n)
    return mean, sd, min(max(mean - half, 0.0), 1.0), min(max(mean + half, 0.0), 1.0)


def check_level(level: object, name: str = "level") -> float:
    """A confidence or significance level in (0, 1) (the argument ``name``), or
    ``TypeError``/``ValueError``."""
    if isinstance(level, bool) or not isinstance(level, int | float | np.floating | np.integer):
        raise TypeError(f"{name} must be a number in (0, 1); got {level!r}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"{name} must be in (0, 1); got {level}")
    return float(level)


# -- paired tests of two systems over the same queries --------------------------------------

# Sign patterns are drawn and summed in blocks of at most this many numbers (memory bound).
BLOCK = 2**21


def _differences(d: np.ndarray, what: str = "differences") -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    if d.ndim not in (1, 2):
        raise ValueError(f"{what} must be a 1-D array (or 2-D: one column per comparison); "
                         f"got {d.ndim} dimensions")
    if not np.isfinite(d).all():
        raise ValueError(f"{what} must be finite")
    return d


def paired_t_p(differences: np.ndarray) -> float:
    """Two-sided p-value of the paired Student t test, from the paired differences.

    ``t = mean(d) / sqrt(var(d) / n)`` (``var`` with ``n - 1``) against Student t with
    ``n - 1`` degrees of freedom, as ``scipy.stats.ttest_rel``. Differences that are all
    zero give 1 (scipy: NaN); all equal and not zero, 0; fewer than two, NaN.

    Examples
    --------
    >>> from fastrank.stats import paired_t_p
    >>> round(paired_t_p([0.1, 0.2, 0.05, 0.3, -0.05]), 6)
    0.117955
    >>> paired_t_p([0.0, 0.0, 0.0])
    1.0
    """
    d = _differences(differences)
    if d.ndim != 1:
        raise ValueError("differences must be 1-D")
    n = d.shape[0]
    if n < 2:
        return math.nan
    mean = float(d.mean())
    var = float(d.var(ddof=1))
    if var == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    return two_sided_p(mean / math.sqrt(var / n), n - 1)


def sign_flip_p(differences: np.ndarray, n_permutations: int = 10_000,
                seed: int | None = None) -> np.ndarray | float:
    """Two-sided p-value of Fisher's randomization test of paired differences.

    Under the null hypothesis each query's two values are exchangeable, so each
    difference's sign is a fair coin. The statistic is ``|sum(d)|`` (the mean
    difference times ``n``); the p-value is the share of sign patterns whose
    ``|sum|`` reaches the observed one. Every one of the ``2**n`` patterns is
    enumerated when ``2**n <= n_permutations`` (the exact p-value, as
    ``scipy.stats.permutation_test`` gives it); otherwise ``n_permutations`` patterns
    are drawn at random from ``seed`` and ``p = (1 + hits) / (1 + n_permutations)``,
    which counts the observed pattern as one of the draws (never 0, a valid p-value).
    Sums that differ by less than their rounding error bound (``(n + 1) eps
    sum|d|``) count as equal.

    Parameters
    ----------
    differences : array of shape (n,) or (n, m)
        Paired differences; with 2-D input each column is tested, on the same
        sign patterns.
    n_permutations : int >= 1
    seed : int, optional
        Seed of numpy's default generator for the random patterns.

    Returns
    -------
    float, or ndarray of shape (m,) for 2-D input

    Examples
    --------
    >>> from fastrank.stats import sign_flip_p
    >>> sign_flip_p([0.5, 0.25, 0.125, -0.0625])  # exact: 4 of 16 patterns reach 0.8125
    0.25
    >>> p = sign_flip_p([0.1] * 20, n_permutations=999, seed=1)
    >>> p == 1 / 1000   # no random pattern beats all signs positive
    True
    """
    d = _differences(differences)
    one = d.ndim == 1
    if one:
        d = d[:, None]
    n_permutations = check_count(n_permutations, "n_permutations")
    n, m = d.shape
    if n == 0:
        return math.nan if one else np.full(m, math.nan)
    with np.errstate(over="ignore"):
        big = ~np.isfinite(np.abs(d).sum(axis=0))
    if big.any():  # sums past float64 (differences near 1e308): each such column over a
        # power of two (exact), as the test is the same at any scale (it gave p = 0)
        d = d.copy()
        d[:, big] = np.ldexp(d[:, big], -np.frexp(np.abs(d[:, big]).max(axis=0))[1])
    observed = np.abs(d.sum(axis=0))
    reach = observed - (n + 1) * np.finfo(np.float64).eps * np.abs(d).sum(axis=0)
    hits = np.zeros(m, np.int64)
    rows = max(1, BLOCK // n)
    exact = n < 63 and 2**n <= n_permutations
    total = 2**n if exact else n_permutations
    rng = None if exact else np.random.default_rng(seed)
    bits = np.arange(n, dtype=np.int64)
    for lo in range(0, total, rows):
        hi = min(total, lo + rows)
        if rng is None:
            patterns = (np.arange(lo, hi, dtype=np.int64)[:, None] >> bits) & 1
        else:
            patterns = rng.integers(0, 2, size=(hi - lo, n), dtype=np.int8)
        signs = patterns.astype(np.float64) * 2.0 - 1.0
        hits += (np.abs(arith.matmul(signs, d)) >= reach).sum(axis=0)
    p = hits / total if exact else (hits + 1) / (total + 1)
    return float(p[0]) if one else p


def _average_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (from 1) of ``a``, and the size of each group of equal values."""
    order = np.argsort(a, kind="stable")
    s = a[order]
    new = np.ones(s.shape[0], bool)
    new[1:] = s[1:] != s[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, s.shape[0]))
    mid = starts + (sizes + 1) / 2.0  # the average of ranks starts+1 .. starts+sizes
    ranks = np.empty(a.shape[0])
    ranks[order] = np.repeat(mid, sizes)
    return ranks, sizes


def wilcoxon_p(differences: np.ndarray) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test, as ``scipy.stats.wilcoxon``
    computes it by default (``zero_method="wilcox"``, no continuity correction,
    ``method="auto"``).

    Zero differences are dropped and the others ranked by absolute value (ties take
    their average rank); the statistic is ``R+``, the sum of the ranks of the positive
    differences. With ``n`` differences (zeros included, as scipy counts them):
    without ties or zeros and ``n <= 50``, ``R+``'s exact distribution; with ties or
    zeros and ``n <= 13``, the exact distribution of ``R+`` over every sign pattern of
    these ranks (what scipy's permutation test enumerates); otherwise the normal
    approximation, its variance corrected for ties. ``p = 2 min(P(R+ <= r),
    P(R+ >= r))``, at most 1. Differences that are all zero give 1 (scipy: NaN).

    Examples
    --------
    >>> from fastrank.stats import wilcoxon_p
    >>> wilcoxon_p([0.5, 0.25, 0.125, 0.75, -0.0625])   # exact: 2 * 2 / 32
    0.125
    """
    d = _differences(differences)
    if d.ndim != 1:
        raise ValueError("differences must be 1-D")
    n = d.shape[0]
    nz = d[d != 0.0]
    m = nz.shape[0]
    if m == 0:
        return 1.0 if n else math.nan
    ranks, sizes = _average_ranks(np.abs(nz))
    r_plus = float(ranks[nz > 0].sum())
    tied = bool((sizes > 1).any())
    if (n <= 50 and not tied and m == n) or n <= 13:
        # The count of sign patterns per value of 2 R+ (ranks doubled: integers).
        weights = np.rint(2.0 * ranks).astype(np.int64)
        counts = np.zeros(int(weights.sum()) + 1)
        counts[0] = 1.0
        top = 0
        for w in weights:  # exact in float64: every count is below 2**50
            counts[w:top + w + 1] += counts[:top + 1].copy()
            top += w
        at = round(2.0 * r_plus)
        below, above = counts[:at + 1].sum(), counts[at:].sum()
        return float(min(1.0, 2.0 * min(below, above) / 2.0**m))
    mean = m * (m + 1) / 4.0
    var = (m * (m + 1) * (2 * m + 1) - float((sizes**3 - sizes).sum()) / 2.0) / 24.0
    return two_sided_p((r_plus - mean) / math.sqrt(var))


CORRECTIONS = ("holm", "bonferroni")


def adjust_p(p_values: np.ndarray, method: str | None = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons: Holm's step-down or Bonferroni.

    Bonferroni multiplies each p-value by the number ``m`` of tests; Holm multiplies
    the ``i``-th smallest by ``m - i + 1`` (``i`` from 1) and keeps the running
    maximum, so that the adjusted values keep the order of the raw ones; both at most 1.
    ``None`` returns the p-values as they are. NaN p-values are left out of ``m`` and
    stay NaN; others outside [0, 1] are a ValueError.

    Examples
    --------
    >>> from fastrank.stats import adjust_p
    >>> adjust_p([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p([0.01, 0.04, 0.03], "bonferroni").tolist()
    [0.03, 0.12, 0.09]
    """
    p = np.array(p_values, dtype=np.float64).reshape(-1)
    outside = np.flatnonzero((p < 0.0) | (p > 1.0))
    if outside.shape[0]:
        raise ValueError(f"p_values must lie in [0, 1] (or be NaN); got "
                         f"{float(p[outside[0]])!r}")
    if method is None:
        return p
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTIONS))} "
                         f"or None; got {method!r}")
    valid = np.flatnonzero(~np.isnan(p))
    m = valid.shape[0]
    if method == "bonferroni":
        p[valid] = np.minimum(1.0, p[valid] * m)
        return p
    order = valid[np.argsort(p[valid], kind="stable")]
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    p[order] = np.minimum(1.0, stepped)
    return p
