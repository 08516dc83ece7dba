"""Scores of exact bins (quantized dtypes, declared values) as bin indices:
declared values looked up exactly, 16-bit floats as order keys, integers checked
against float64."""

from __future__ import annotations

import numpy as np

from .._core.inputs import plain

_TWO63 = 2.0**63
_TWO64 = 2.0**64


def int_as_float64(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64/uint64 values as float64, and which of them float64 holds exactly."""
    f = flat.astype(np.float64)
    inside = f < (_TWO63 if flat.dtype == np.int64 else _TWO64)
    back = np.where(inside, f, 0.0).astype(flat.dtype)
    return f, inside & (back == flat)


def lookup(declared: np.ndarray, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each score among the sorted ``declared`` values, and whether it is one.

    Compared exactly: integers with integers in their own dtype, floats with
    floats in float64, and across kinds only where one side holds the other's
    value exactly (never by rounding an integer beyond ``2**53``).
    """
    ok: np.ndarray | None = None
    if declared.dtype.kind == "f":
        if flat.dtype.kind == "f":
            a = flat.astype(np.float64, copy=False)
        else:
            a, ok = int_as_float64(flat)
    elif flat.dtype.kind == "f":
        x = flat.astype(np.float64, copy=False)
        lo, hi = (-_TWO63, _TWO63) if declared.dtype == np.int64 else (0.0, _TWO64)
        ok = (x >= lo) & (x < hi) & (x == np.floor(x))
        a = np.where(ok, x, 0.0).astype(declared.dtype)
    elif flat.dtype == declared.dtype:
        a = flat
    elif declared.dtype == np.int64:  # uint64 scores
        ok = flat <= np.uint64(2**63 - 1)
        a = np.where(ok, flat, 0).astype(np.int64)
    else:  # int64 scores, uint64 values
        ok = flat >= 0
        a = np.where(ok, flat, 0).astype(np.uint64)
    at = np.minimum(np.searchsorted(declared, a), declared.shape[0] - 1)
    found = declared[at] == a
    if ok is not None:
        found &= ok
    return at.astype(np.int64), found


def key_bits(key: np.ndarray) -> np.ndarray:
    """16-bit float bits from order keys (inverse of the key map in :func:`float_keys`)."""
    k = key.astype(np.uint32)
    return np.where(k & 0x8000, k ^ 0x8000, k ^ 0xFFFF).astype(np.uint32)


def float_keys(flat: np.ndarray, q: str, shape: tuple[int, ...]) -> np.ndarray:
    """Order keys (bin indices) of float16 or bfloat16 values, from canonical (finite)
    scores, flat row-major."""
    if flat.dtype.kind != "f":
        flat, exact = int_as_float64(flat)
        if not exact.all():
            i = int(np.flatnonzero(~exact)[0])
            raise ValueError(f"y_score holds an integer at {index_text(i, shape)} that is not a "
                             f"{q} value (quantized={q!r})")
    if q == "float16":
        with np.errstate(over="ignore", invalid="ignore"):  # too large: inf, caught below
            h = flat.astype(np.float16)
        bad = h.astype(flat.dtype) != flat
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which float16 "
                "does not hold exactly (quantized='float16')"
            )
        bits = h.view(np.uint16).astype(np.uint32)
        exp = 0x7C00
    else:  # bfloat16 values given as float32 (or anything float32 holds exactly)
        if flat.dtype == np.float32:
            f32 = flat
        else:
            with np.errstate(over="ignore", invalid="ignore"):  # too large: inf, caught below
                f32 = flat.astype(np.float32)
            bad = f32.astype(flat.dtype) != flat
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which float32, "
                    "let alone bfloat16, does not hold exactly (quantized='bfloat16')"
                )
        b32 = np.ascontiguousarray(f32).view(np.uint32)
        low = (b32 & 0xFFFF) != 0
        if low.any():
            i = int(np.flatnonzero(low)[0])
            raise ValueError(
                f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which is not a "
                "bfloat16 value (quantized='bfloat16'); round the scores to bfloat16 first"
            )
        bits = (b32 >> 16).astype(np.uint32)
        exp = 0x7F80
    nonfinite = (bits & exp) == exp
    if nonfinite.any():  # scores were checked finite: only an overflow could get here
        i = int(np.flatnonzero(nonfinite)[0])
        raise ValueError(f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which is "
                         f"not a finite {q} value (quantized={q!r})")
    bits[bits == 0x8000] = 0  # -0.0 shares the bin of +0.0
    key = np.where(bits & 0x8000, bits ^ 0xFFFF, bits ^ 0x8000)
    return key.astype(np.int64)

def index_text(i: int, shape: tuple[int, ...]) -> str:
    """Where flat (row-major) index ``i`` of scores of ``shape`` is, for messages."""
    if len(shape) == 1:
        return f"index {i}"
    row, task = divmod(i, shape[1])
    return f"row {row}, task {task}"
