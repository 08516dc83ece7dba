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

__all__ = ["mean_interval", "t_quantile"]


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
