"""Helpers shared by the batched-call tests (test_batch, test_grouped, test_multiclass).

Calling a function with its warnings silenced or recorded, checking the
UndefinedMetricWarning of a call, and comparing results with single-task
values, bit for bit or to a tolerance.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from typing import Any

import numpy as np

from fastrank import UndefinedMetricWarning

TOL = 1e-12  # default tolerance of ``close``


def quiet(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``func`` with UndefinedMetricWarning silenced (reference calls)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


def call(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    """Call ``func``; return its result and the UndefinedMetricWarnings it emitted."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = func(*args, **kwargs)
    others = [w for w in rec if not issubclass(w.category, UndefinedMetricWarning)]
    assert not others, [str(w.message) for w in others]
    return out, list(rec)


def assert_warned(rec: list[warnings.WarningMessage], n_undefined: int) -> None:
    """No warning when every task is defined, else exactly one that gives the count."""
    if n_undefined == 0:
        assert rec == [], [str(w.message) for w in rec]
        return
    assert len(rec) == 1, [str(w.message) for w in rec]
    message = str(rec[0].message)
    assert re.search(rf"\b{n_undefined}\b", message), (n_undefined, message)


def assert_task_values(got: Any, want: list[Any]) -> None:
    """A float64 array equal bit for bit (NaN == NaN) to the single-task values."""
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == np.float64, got.dtype
    want_arr = np.array([np.nan if v is None else float(v) for v in want], dtype=np.float64)
    assert got.shape == want_arr.shape, (got.shape, want_arr.shape)
    np.testing.assert_array_equal(got, want_arr)
    finite = np.isfinite(want_arr)
    np.testing.assert_array_equal(got[finite].view(np.uint64), want_arr[finite].view(np.uint64))


def close(got: Any, want: float | None, tol: float = TOL) -> bool:
    """``got`` is a float within ``tol`` of ``want`` (NaN matches NaN, inf exactly)."""
    assert want is not None
    got = float(got)
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= tol


def same_float(got: Any, want: Any) -> bool:
    """Bit-for-bit equality of two floats, NaN equal to NaN."""
    got, want = float(got), float(want)
    if math.isnan(want):
        return math.isnan(got)
    return got == want


def assert_fields_close(got: Any, want: Any, tol: float) -> None:
    """Every field of two ``BinaryMetrics`` agrees: both ``None``, or ``close`` within ``tol``."""
    for field in dataclasses.fields(want):
        g, v = getattr(got, field.name), getattr(want, field.name)
        assert (g is None) == (v is None), field.name
        if v is not None:
            assert close(g, v, tol), (field.name, g, v)


def assert_batch_fields(got: Any, singles: list[Any], max_fpr: float | None) -> None:
    """Each field of a ``BatchMetrics`` equals, bit for bit, the per-task ``BinaryMetrics``."""
    for field in dataclasses.fields(singles[0]):
        want = [getattr(m, field.name) for m in singles]
        value = getattr(got, field.name)
        if all(v is None for v in want):
            assert value is None, field.name
        elif field.name == "max_fpr":
            assert np.all(np.asarray(value, dtype=np.float64) == max_fpr)
        else:
            try:
                assert_task_values(value, want)
            except AssertionError as exc:
                raise AssertionError(f"field {field.name}: {exc}") from exc
