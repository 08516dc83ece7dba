"""Small statistics for intervals over a few datasets (folds): Student t.

numpy has no t quantile and scipy is not a dependency, so the quantile for
the integer degrees of freedom a mean over ``n`` folds needs (``n - 1``) is
computed here from the closed form of the t distribution function for
integer degrees of freedom (Abramowitz & Stegun 26.7.3-4), inverted by
bisection on the angle ``theta = atan(t / sqrt(df))``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["mean_interval", "normal_quantile", "t_cdf", "t_quantile", "two_sided_p"]


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


def check_level(level: float) -> float:
    """A confidence level in (0, 1), or ``ValueError``."""
    if isinstance(level, bool) or not isinstance(level, int | float | np.floating | np.integer):
        raise TypeError(f"level must be a float in (0, 1); got {level!r}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level}")
    return float(level)
