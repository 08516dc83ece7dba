"""Input validation: every user array passes through here before any kernel.

The path of data is *validate -> canonical arrays -> kernel -> result*. This
module owns the first two steps. Its output, :class:`Task`, holds only arrays
that the kernels may read without bounds checks or further tests:

* scores as the raw bits of a native, aligned, C-contiguous, finite array of
  one of four canonical dtypes (float32, float64, int64, uint64), viewed as
  ``uint32``/``uint64`` and marked read-only (one compiled kernel per width);
* labels as a writable ``uint8`` array of 0/1 (1 = positive) and the
  positive count;
* weights as a finite, non-negative, native float64 array, or ``None``.

Scores are never transformed: narrow dtypes are widened exactly (float16,
bool and 8/16-bit integers to float32, 32-bit integers to float64), which
keeps every tie and every order.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np

from ._kernels.keys import (
    KIND_FLOAT,
    KIND_SIGNED,
    KIND_UNSIGNED,
    first_nonfinite,
    label_counts,
)

_DLPACK_CPU = 1

# canonical score dtype -> (bits dtype, kind, sign bit, all ones, exponent mask)
_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
KEYS: dict[np.dtype[Any], tuple[np.dtype[Any], int, np.uint64, np.uint64, np.uint64]] = {
    np.dtype(np.float32): (_U32, KIND_FLOAT, np.uint64(1 << 31), np.uint64(0xFFFFFFFF),
                           np.uint64(0x7F800000)),
    np.dtype(np.float64): (_U64, KIND_FLOAT, np.uint64(1 << 63), np.uint64((1 << 64) - 1),
                           np.uint64(0x7FF0000000000000)),
    np.dtype(np.int64): (_U64, KIND_SIGNED, np.uint64(1 << 63), np.uint64((1 << 64) - 1),
                         np.uint64(0)),
    np.dtype(np.uint64): (_U64, KIND_UNSIGNED, np.uint64(1 << 63), np.uint64((1 << 64) - 1),
                          np.uint64(0)),
}
# dtypes widened exactly before keys are formed
WIDEN: dict[str, np.dtype[Any]] = {
    "?": np.dtype(np.float32),
    "e": np.dtype(np.float32),
    "b": np.dtype(np.float32),
    "B": np.dtype(np.float32),
    "h": np.dtype(np.float32),
    "H": np.dtype(np.float32),
    "i": np.dtype(np.float64),
    "I": np.dtype(np.float64),
}


_WEIGHT_EXPONENT_RANGE = 64  # weights beyond 2**+-64 are rescaled (exactly)


class Task(NamedTuple):
    """One validated task, ready for the kernels."""

    bits: np.ndarray  # uint32/uint64 read-only view of the canonical scores
    kind: int
    sign: np.uint64
    ones: np.uint64
    score_dtype: np.dtype[Any]  # the caller's score dtype (for thresholds)
    canon_dtype: np.dtype[Any]  # the dtype whose bits ``bits`` holds
    labels: np.ndarray  # uint8, 1 = positive
    npos: int
    weights: np.ndarray | None  # float64, finite, >= 0
    weight_unit: float  # weight totals in the caller's units = kernel totals * this


def as_array(x: Any, name: str) -> np.ndarray:
    """Turn anything array-like into a numpy array without copying when possible.

    Accepts numpy arrays, lists, pandas objects and anything with ``__array__``,
    and DLPack producers on the CPU (a torch tensor, detached if it requires
    grad) without importing their libraries.
    """
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        device = x.__dlpack_device__()
        if int(device[0]) != _DLPACK_CPU:
            raise TypeError(
                f"{name} lives on a non-CPU device (DLPack device {tuple(device)}); "
                "move it to the CPU first, e.g. tensor.cpu()"
            )
        if getattr(x, "requires_grad", False) and hasattr(x, "detach"):
            x = x.detach()
        try:
            return np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError) as exc:
            if not hasattr(x, "__array__"):
                raise TypeError(f"{name} could not be read through DLPack: {exc}") from exc
    is_iterator = hasattr(x, "__next__") and not hasattr(x, "__len__")
    if isinstance(x, (str, bytes)) or x is None or is_iterator:
        raise TypeError(
            f"{name} must be array-like (a list, array or tensor), got {type(x).__name__}"
        )
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} could not be converted to an array: {exc}") from exc


def _one_d(a: np.ndarray, name: str) -> None:
    if a.ndim != 1:
        if a.ndim == 2 and name == "y_true":
            raise ValueError(
                f"y_true has shape {a.shape} but y_score is 1-D: one task needs 1-D labels. "
                "The metric functions score 2-D labels against 2-D scores of the same shape."
            )
        if a.ndim == 2:
            raise ValueError(
                f"{name} must be 1-D (one task); got shape {a.shape}. "
                "Pass one score vector and one label vector per call."
            )
        raise ValueError(f"{name} must be 1-D; got {a.ndim}-D input with shape {a.shape}")


def native(a: np.ndarray) -> np.ndarray:
    """Native byte order, aligned and C-contiguous (copies only when needed)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = np.array(a, order="C", copy=True)
    return a


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view: kernels are compiled once, for read-only arrays."""
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def check_scores(
    y_score: Any, name: str = "y_score"
) -> tuple[np.ndarray, np.dtype[Any], np.dtype[Any]]:
    """Validate scores.

    Returns the read-only bits view of the canonical scores, the canonical
    dtype and the caller's dtype.
    """
    s = as_array(y_score, name)
    if s.ndim != 1:
        _one_d(s, name)
    if s.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed")
    dtype = s.dtype
    if dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers (float, int or bool); got dtype {dtype}"
            + (" (are there missing values?)" if dtype.kind == "O" else "")
        )
    s = native(s)
    spec = KEYS.get(s.dtype)
    if spec is None:
        if dtype.char in WIDEN:
            s = s.astype(WIDEN[dtype.char])
        else:  # long double
            wide = s.astype(np.float64)
            if not np.array_equal(wide, s):
                raise TypeError(
                    f"{name} has dtype {dtype}, whose values do not all fit float64 exactly; "
                    "convert them to float64 yourself"
                )
            s = wide
        spec = KEYS[s.dtype]
    bits = s.view(spec[0])
    bits.flags.writeable = False  # kernels are compiled once, for read-only scores
    if spec[4]:
        bad = first_nonfinite(bits, spec[4])
        if bad >= 0:
            raise ValueError(
                f"{name} contains a non-finite value ({s[bad]!r} at index {bad}); "
                "scores must be finite"
            )
    return bits, s.dtype, dtype


def check_labels(y_true: Any, n: int, pos_label: Any) -> tuple[np.ndarray, int]:
    """Validate labels; return a uint8 positive indicator and the positive count."""
    y = as_array(y_true, "y_true")
    _one_d(y, "y_true")
    if y.shape[0] != n:
        raise ValueError(
            f"y_true and y_score have different lengths: {y.shape[0]} and {n}"
        )
    if pos_label is None:
        if y.dtype == np.bool_:
            labels = native(y).view(np.uint8)
            if not labels.flags.writeable:  # kernels take writable labels
                labels = labels.copy()
            return labels, int(np.count_nonzero(labels))
        if y.dtype.kind in "iuf":
            if y.dtype.char == "e":  # compiled code has no float16
                y = y.astype(np.float32)
            labels = np.empty(n, np.uint8)
            n_one, n_zero, n_minus = label_counts(native(y), labels)
        elif y.dtype.kind == "O":  # objects: compare elementwise
            one = _equal(y, 1)
            labels = one.view(np.uint8)
            n_one = int(np.count_nonzero(one))
            n_zero = int(np.count_nonzero(_equal(y, 0)))
            n_minus = int(np.count_nonzero(_equal(y, -1)))
        else:  # strings and the like are never {0, 1}
            _bad_labels(y)
        if n_one + n_zero != n and (n_zero or n_one + n_minus != n):
            _bad_labels(y)
        return labels, n_one
    pos = _equal(y, pos_label)
    rest = y[~pos]
    if rest.shape[0] and not bool(np.all(_equal(rest, rest[0]))):
        found = _distinct(y)
        raise ValueError(
            f"y_true must hold two classes; it holds {found}"
            + ("" if pos_label in found else f", and pos_label={pos_label!r} is not one of them")
        )
    labels = pos.view(np.uint8)
    return labels, int(np.count_nonzero(labels))


def _equal(y: np.ndarray, value: Any) -> np.ndarray:
    """``y == value`` elementwise as a bool array, for any label dtype.

    Incomparable types (text labels against a number) match nothing; values
    that cannot be compared at all (pandas' NA) are a clear error.
    """
    try:
        with warnings.catch_warnings():  # numpy < 2 warns, then returns a scalar
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            eq = np.asarray(y == value, dtype=bool)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"y_true holds values that cannot be compared with {value!r} ({exc}); "
            "are there missing values (None, NA)?"
        ) from exc
    if eq.shape != y.shape:
        return np.zeros(y.shape, dtype=bool)
    return eq


def _distinct(y: np.ndarray, limit: int = 10) -> list[Any]:
    try:
        values = np.unique(y)
    except TypeError:  # unorderable objects
        values = np.array(list(dict.fromkeys(y.tolist())), dtype=object)
    out: list[Any] = values[:limit].tolist()
    if values.shape[0] > limit:
        out.append("...")
    return out


def _bad_labels(y: np.ndarray) -> None:
    if y.dtype.kind == "f" and np.isnan(y).any():
        i = int(np.flatnonzero(np.isnan(y))[0])
        raise ValueError(
            f"y_true must hold two classes; it contains a missing value (NaN at index {i})"
        )
    found = _distinct(y)
    if len(found) > 2:
        raise ValueError(f"y_true must hold two classes; it holds {found}")
    raise ValueError(
        f"y_true holds {found}; without pos_label the labels must be "
        "{0, 1}, {-1, 1} or bool. Pass pos_label to say which value is positive."
    )


def check_weights(sample_weight: Any, n: int) -> tuple[np.ndarray | None, float]:
    """Validate sample weights: 1-D, length ``n``, finite and non-negative.

    Returns the weights and a power of two ``unit``: weights far from 1 (whose
    sums or products could overflow or underflow) are divided by it, which is
    exact and changes no metric; weight totals reported to the user are
    multiplied back by it.
    """
    if sample_weight is None:
        return None, 1.0
    w = as_array(sample_weight, "sample_weight")
    _one_d(w, "sample_weight")
    if w.shape[0] != n:
        raise ValueError(
            f"sample_weight has length {w.shape[0]} but y_score has length {n}"
        )
    if w.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight must hold real numbers; got dtype {w.dtype}")
    w = native(w.astype(np.float64, copy=False))
    if n == 0:  # an empty batch of a streaming object
        return _readonly(w), 1.0
    lo = w.min()
    hi = w.max()
    if not (lo >= 0.0 and hi < math.inf):
        if np.isnan(lo):
            i = int(np.flatnonzero(np.isnan(w))[0])
            raise ValueError(f"sample_weight contains NaN (at index {i})")
        if lo < 0.0:
            i = int(np.argmin(w))
            raise ValueError(f"sample_weight must be non-negative; found {w[i]!r} at index {i}")
        i = int(np.flatnonzero(np.isinf(w))[0])
        raise ValueError(f"sample_weight must be finite; found {w[i]!r} at index {i}")
    unit = 1.0
    if hi > 0.0:
        exponent = math.frexp(hi)[1]
        if not -_WEIGHT_EXPONENT_RANGE < exponent < _WEIGHT_EXPONENT_RANGE:
            unit = math.ldexp(1.0, exponent)
            w = w / unit
    return _readonly(w), unit


def check_max_fpr(max_fpr: Any) -> float:
    """``None`` -> 1.0 (the full AUC); otherwise a float in (0, 1]."""
    if max_fpr is None:
        return 1.0
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, numbers.Real):
        raise TypeError(f"max_fpr must be a number in (0, 1] or None; got {max_fpr!r}")
    value = float(max_fpr)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"max_fpr must be in (0, 1]; got {max_fpr!r}")
    return value


def prepare(y_true: Any, y_score: Any, sample_weight: Any = None, pos_label: Any = None) -> Task:
    """Validate one task's inputs and return them in canonical form."""
    bits, canon_dtype, score_dtype = check_scores(y_score)
    n = bits.shape[0]
    labels, npos = check_labels(y_true, n, pos_label)
    weights, unit = check_weights(sample_weight, n)
    _, kind, sign, ones, _ = KEYS[canon_dtype]
    return Task(bits, kind, sign, ones, score_dtype, canon_dtype, labels, npos, weights, unit)


def score_from_bits(bits: int, task: Task) -> Any:
    """The score (a Python scalar of the caller's dtype) whose raw bits are ``bits``."""
    item = scores_from_bits(np.array([bits], dtype=task.bits.dtype), task)[0].item()
    return float(item) if isinstance(item, np.floating) else item  # long double


def scores_from_bits(bits: np.ndarray, task: Task) -> np.ndarray:
    """Score values (in the caller's dtype) from canonical bits."""
    values = bits.view(task.canon_dtype)
    if task.score_dtype != task.canon_dtype:
        values = values.astype(task.score_dtype)
    return values
