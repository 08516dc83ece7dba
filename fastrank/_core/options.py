"""Checks of option values several public functions share: flags, counts, rate
ranges, depth shares, max_fpr, seeds (each error message worded once)."""

from __future__ import annotations

import numbers
import os
import secrets
from typing import Any

import numpy as np

from .ids import plain

FloatArray = np.ndarray


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def machine_memory() -> int | None:
    """The machine's physical memory in bytes, where the system says (else None)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows), or no such name
        return None


def _bytes(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError  # (unreachable)


def check_count(value: object, name: str, least: int = 1, item_bytes: int = 0) -> int:
    """An integer of at least ``least``, or ``TypeError``/``ValueError`` naming
    ``name``; with ``item_bytes`` (what each unit of the count holds at the least),
    a count whose arrays could not fit in the machine's memory is refused here,
    by name, rather than by numpy's ``MemoryError`` once allocated."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        kind = "a positive integer" if least == 1 else f"an integer of at least {least}"
        raise TypeError(f"{name} must be {kind}; got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}; got {value}")
    count = int(value)
    memory = machine_memory() if item_bytes else None
    if memory is not None and count * item_bytes > memory:
        raise ValueError(f"{name}={count:,} needs at least {_bytes(count * item_bytes)} of "
                         f"memory; this machine has {_bytes(memory)}")
    return count


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


def check_max_fpr(max_fpr: Any) -> float:
    """``None`` -> 1.0 (the full AUC); otherwise a float in (0, 1]."""
    if max_fpr is None:
        return 1.0
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, numbers.Real):
        raise TypeError(f"max_fpr must be a number in (0, 1] or None; got {max_fpr!r}")
    value = float(max_fpr)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"max_fpr must be in (0, 1]; got {plain(max_fpr)!r}")
    return value


def check_seed(seed: object, below: int | None = None) -> int:
    """A non-negative integer seed (under ``below`` where given: a 64-bit generator's
    seeds are below 2**64, and a larger one would wrap onto a smaller one's stream);
    None draws one (kept, so the result can be redone)."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be a non-negative integer or None; got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative; got {seed}")
    if below is not None and seed >= below:
        raise ValueError(f"seed must be below {below:,}; got {seed}")
    return int(seed)
