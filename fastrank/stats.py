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


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t distribution with integer ``df``.

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
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    target = 2.0 * (p - 0.5)  # the central mass P(|T| <= t); p - 0.5 is exact
    lo, hi = 0.0, math.pi / 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _central_mass(mid, df) < target:
            lo = mid
        else:
            hi = mid
    theta = 0.5 * (lo + hi)
    return math.sqrt(df) * math.tan(theta)


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
