"""Checks of option values several public functions share: flags, rate ranges,
depth shares (each error message worded once)."""

from __future__ import annotations

from typing import Any

import numpy as np

FloatArray = np.ndarray


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def rate_range(value: Any, name: str) -> tuple[float, float]:
    """``(low, high)`` with ``0 <= low < high <= 1``, or ``ValueError``."""
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high) of rates; got {value!r}") from None
    if not (0.0 <= low < high <= 1.0):
        raise ValueError(f"{name} must satisfy 0 <= low < high <= 1; got ({low!r}, {high!r})")
    return low, high


def depth_shares(depth: Any) -> tuple[FloatArray, bool]:
    """``depth`` as a float64 array of shares in [0, 1], and whether it was a scalar."""
    d = np.asarray(depth, dtype=np.float64) if not isinstance(depth, np.ndarray) \
        else depth.astype(np.float64)
    if d.ndim > 1:
        raise ValueError(f"depth must be a number or a 1-D sequence; got shape {d.shape}")
    bad = np.flatnonzero(~((d >= 0.0) & (d <= 1.0)))
    if bad.size:
        raise ValueError(f"depth must lie in [0, 1] (a share of the samples); got "
                         f"{d.reshape(-1)[bad[0]]!r}")
    return d, d.ndim == 0
