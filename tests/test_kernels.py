"""The compiled building blocks, each against an independent reference.

* ``sort.sort_keys``: the radix sort of uint32/uint64 keys (with an optional
  payload) against ``np.sort`` on adversarial distributions and sizes around
  every switch of the algorithm (insertion-sort cutoff 48, window widths at
  2048 and 65536 keys).
* ``sweep.harmonic_diff``: against exact Fractions (short ranges) and a
  50-digit digamma difference (long ranges), to 1e-15 relative.
* ``special.ndtri``: against ``scipy.special.ndtri`` to 1e-14 relative.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.special

from fastrank._core.registry import ndtri
from fastrank._kernels.sort import HIST_SHAPE, sort_keys
from fastrank._kernels.sweep import harmonic_diff

# ------------------------------------------------------------------------ sort

# Every switch of the sort: insertion (48), window widths (2048, 65536) and
# 11-bit digits (up to 2**18 keys).
SIZES = [0, 1, 2, 3, 47, 48, 49, 50, 97, 1000, 2048, 2049, 65536, 65537, 70000, 262144, 262145]
KEY_DTYPES = [np.uint32, np.uint64]


def varying_bits(keys: np.ndarray) -> np.uint64:
    """OR(keys) ^ AND(keys): the bits that differ between keys."""
    if keys.shape[0] == 0:
        return np.uint64(0)
    return np.uint64(np.bitwise_or.reduce(keys)) ^ np.uint64(np.bitwise_and.reduce(keys))


def _top(dtype: type) -> int:
    return int(np.iinfo(dtype).max)


def _uniform(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    return rng.integers(0, _top(dtype), n, dtype=dtype, endpoint=True)


def _all_equal(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    return np.full(n, _top(dtype) // 3, dtype=dtype)


def _two_values_far(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    # explicit dtypes: numpy < 2 would pass 2**64 - 1 through float64
    return np.where(rng.random(n) < 0.5, dtype(0), dtype(_top(dtype))).astype(dtype)


def _two_values_adjacent(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    base = _top(dtype) // 2  # 0x7ff..f and 0x800..0: differ in every bit
    return np.where(rng.random(n) < 0.3, base, base + 1).astype(dtype)


def _clustered_with_outlier(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    base = (_top(dtype) + 1) // 4
    keys = (base + rng.integers(0, 1000, n)).astype(dtype)
    if n:
        keys[rng.integers(0, n)] = _top(dtype)  # far above the cluster
    if n > 1:
        keys[rng.integers(0, n)] = 0  # and far below
    return keys


def _low_bits_only(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    high = _top(dtype) & ~0xF & 0xA5A5A5A5A5A5A5A5
    return (np.full(n, high, dtype=dtype) | rng.integers(0, 16, n).astype(dtype)).astype(dtype)


def _shared_prefix_runs(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    """Runs of keys equal in all but a few low bits, of lengths around the insertion cutoff.

    The 12 high bits pick the run; only the lowest 4 (uint32) or 20 (uint64)
    bits vary inside it, below the window of bits the first radix pass
    sorts, so the sort must finish each run (insertion sort up to 48 keys,
    a radix sort over the low bits beyond).
    """
    bits = 8 * np.dtype(dtype).itemsize
    shift = bits - 12
    low_bits = 4 if dtype == np.uint32 else 20
    sizes = rng.choice([1, 2, 47, 48, 49, 200, 3000], size=max(n, 1))
    ids = rng.integers(0, 4096, sizes.shape[0], dtype=np.uint64)
    run = rng.permutation(np.repeat(ids, sizes)[:n])
    low = rng.integers(0, 1 << low_bits, n, dtype=np.uint64)
    return ((run << np.uint64(shift)) | low).astype(dtype)


def _sorted(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    return np.sort(_uniform(rng, n, dtype))


def _reversed(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    return np.sort(_uniform(rng, n, dtype))[::-1].copy()


def _float_like(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    """Keys as fastrank forms them from rounded scores of both signs (sign bit varies)."""
    f = np.round(rng.normal(size=n), 2).astype(np.float32 if dtype == np.uint32 else np.float64)
    u = f.view(dtype).copy()
    sign = dtype(1 << (8 * np.dtype(dtype).itemsize - 1))
    neg = (u & sign) != 0
    u[neg] = ~u[neg]
    u[~neg] |= sign
    return u


def _small_ints(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    """Few distinct small keys: top varying bit low, every digit above it equal."""
    return rng.integers(0, 300, n).astype(dtype)


DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, int, type], np.ndarray]] = {
    "uniform": _uniform,
    "all_equal": _all_equal,
    "two_values_far": _two_values_far,
    "two_values_adjacent": _two_values_adjacent,
    "clustered_with_outlier": _clustered_with_outlier,
    "low_bits_only": _low_bits_only,
    "shared_prefix_runs": _shared_prefix_runs,
    "sorted": _sorted,
    "reversed": _reversed,
    "float_like": _float_like,
    "small_ints": _small_ints,
}


def run_sort(
    keys: np.ndarray, pay: np.ndarray | None, hist_shape: tuple[int, int] = HIST_SHAPE
) -> tuple[np.ndarray, np.ndarray | None]:
    keys = keys.copy()
    buf = np.empty_like(keys)
    pbuf = None if pay is None else np.empty_like(pay)
    pay = None if pay is None else pay.copy()
    sort_keys(keys, buf, pay, pbuf, varying_bits(keys), np.empty(hist_shape, np.int64))
    return keys, pay


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dist", sorted(DISTRIBUTIONS))
def test_sort_keys_matches_numpy(dist: str, dtype: type) -> None:
    rng = np.random.default_rng(sum(map(ord, dist)) + np.dtype(dtype).itemsize)
    for n in SIZES:
        original = DISTRIBUTIONS[dist](rng, n, dtype)
        assert original.dtype == dtype and original.shape == (n,)
        for hist_shape in (HIST_SHAPE, (8, 256)):  # with and without 11-bit digits
            got, _ = run_sort(original, None, hist_shape)
            np.testing.assert_array_equal(got, np.sort(original), err_msg=f"{dist} n={n}")


def _pairs(keys: np.ndarray, pay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(key, payload) pairs in a canonical order, for multiset comparison."""
    order = np.lexsort((pay, keys))
    return keys[order], pay[order]


@pytest.mark.parametrize(
    "pay_dtype", [np.float64, np.uint8, np.int64], ids=lambda d: np.dtype(d).name
)
@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dist", sorted(DISTRIBUTIONS))
def test_sort_keys_payload_follows_its_key(dist: str, dtype: type, pay_dtype: type) -> None:
    rng = np.random.default_rng(1000 + sum(map(ord, dist)))
    for n in SIZES:
        original = DISTRIBUTIONS[dist](rng, n, dtype)
        if pay_dtype == np.uint8:
            pay = rng.integers(0, 2, n).astype(np.uint8)  # labels, as fastrank carries them
        elif pay_dtype == np.float64:
            pay = rng.permutation(n).astype(np.float64) - n / 2  # distinct, both signs
        else:
            pay = rng.permutation(n).astype(np.int64)  # distinct slot indices
        keys, moved = run_sort(original, pay)
        assert moved is not None
        np.testing.assert_array_equal(keys, np.sort(original), err_msg=f"{dist} n={n}")
        want_keys, want_pay = _pairs(original, pay)
        got_keys, got_pay = _pairs(keys, moved)
        np.testing.assert_array_equal(got_keys, want_keys)
        np.testing.assert_array_equal(
            got_pay, want_pay, err_msg=f"{dist} n={n}: payload left its key"
        )


def test_sort_keys_extremes() -> None:
    for dtype in KEY_DTYPES:
        top = _top(dtype)
        for keys in (
            [top, 0],
            [0, top, top, 0, 1, top - 1],
            [top] * 100 + [0],
            [1 << (8 * np.dtype(dtype).itemsize - 1)] * 60
            + [(1 << (8 * np.dtype(dtype).itemsize - 1)) - 1] * 60,
        ):
            a = np.array(keys, dtype=dtype)
            got, pay = run_sort(a, np.arange(a.shape[0], dtype=np.float64))
            np.testing.assert_array_equal(got, np.sort(a))
            assert pay is not None
            np.testing.assert_array_equal(a[pay.astype(np.int64)], got)


# ------------------------------------------------------------------- harmonic


def harmonic_exact(a: int, b: int) -> mpmath.mpf:
    """sum_{j=a+1}^{b} 1/j: an exact Fraction when short, else a 50-digit digamma difference."""
    if b - a <= 400:
        exact = sum((Fraction(1, j) for j in range(a + 1, b + 1)), Fraction(0))
        return mpmath.mpf(exact.numerator) / exact.denominator
    return mpmath.psi(0, b + 1) - mpmath.psi(0, a + 1)


STARTS = [0, 1, 2, 5, 40, 63, 64, 65, 100, 1000, 12345, 10**5, 10**6, 2**31 - 1, 2**31, 10**9]
LENGTHS = [1, 2, 3, 10, 63, 64, 65, 66, 100, 129, 400, 401, 1000, 10**4, 10**6, 10**9]


def test_harmonic_diff_against_exact() -> None:
    with mpmath.workdps(50):
        for a in STARTS:
            for d in LENGTHS:
                b = a + d
                want = harmonic_exact(a, b)
                got = harmonic_diff(a, b)
                rel = abs((mpmath.mpf(got) - want) / want)
                assert rel <= 1e-15, (a, b, got, float(want), float(rel))


def test_harmonic_diff_fraction_spot_checks() -> None:
    """Exact Fractions, including ranges just past the direct-summation cutoff."""
    for a, b in [
        (0, 1),
        (0, 2),
        (3, 4),
        (0, 64),
        (0, 65),
        (1, 66),
        (64, 129),
        (10**9, 10**9 + 1),
        (10**9, 10**9 + 65),
        (10**9 - 1, 10**9 + 300),
        (2**40, 2**40 + 70),
    ]:
        exact = sum((Fraction(1, j) for j in range(a + 1, b + 1)), Fraction(0))
        got = harmonic_diff(a, b)
        assert abs(Fraction(got) - exact) <= Fraction(1, 10**15) * exact, (a, b)


def test_harmonic_diff_empty_range() -> None:
    assert harmonic_diff(7, 7) == 0.0
    assert harmonic_diff(0, 0) == 0.0


# ---------------------------------------------------------------------- ndtri


def _ndtri_grid() -> np.ndarray:
    return np.concatenate(
        [
            np.logspace(-300, -1, 600),
            1.0 - np.logspace(-16, -1, 300),
            np.linspace(0.001, 0.999, 999),
            np.linspace(0.5 - 1e-6, 0.5 + 1e-6, 21),
            [
                5e-324,
                1e-310,
                1e-300,
                1e-100,
                1e-20,
                1e-10,
                0.02425,
                0.07499999999999999,
                0.075,
                0.0750000000000001,
                0.925,
                0.9249999999999999,
                0.5,
                0.4999999999999999,
                0.5000000000000001,
                1 - 1e-16,
                1 - 2**-53,
                np.nextafter(1.0, 0.0),
                np.exp(-25.0),
                np.exp(-25.0) * 1.0000001,
                np.exp(-25.0) * 0.9999999,
            ],
        ]
    )


def test_ndtri_matches_scipy() -> None:
    ps = _ndtri_grid()
    got = np.array([ndtri(float(p)) for p in ps])
    want = scipy.special.ndtri(ps)
    assert np.all(np.isfinite(got))
    zero = want == 0.0
    assert np.all(got[zero] == 0.0)
    rel = np.abs(got[~zero] - want[~zero]) / np.abs(want[~zero])
    worst = int(np.argmax(rel))
    assert rel[worst] <= 1e-14, (ps[~zero][worst], got[~zero][worst], want[~zero][worst])


def test_ndtri_symmetry_and_endpoints() -> None:
    assert ndtri(0.0) == -math.inf
    assert ndtri(1.0) == math.inf
    assert ndtri(0.5) == 0.0
    for p in (0.01, 0.2, 0.4, 0.49):  # 1 - p rounds (by < 1e-16 absolute), hence the tolerance
        assert ndtri(1.0 - p) == pytest.approx(-ndtri(p), rel=1e-9)
    for p in (2.0**-20, 0.125, 0.25, 0.375):  # 1 - p exact
        assert ndtri(1.0 - p) == pytest.approx(-ndtri(p), rel=1e-15)
    for p in (-0.1, 1.1, math.nan):
        assert math.isnan(ndtri(p))


def test_ndtri_scalar_equals_array_form_bit_for_bit() -> None:
    # d_prime of one task uses the scalar form, of a batch the array form: one number
    ps = np.concatenate([_ndtri_grid(), np.random.default_rng(3).random(20_000),
                         np.linspace(0.0, 1.0, 20_001)])
    scalar = np.array([ndtri(float(p)) for p in ps])
    assert np.array_equal(scalar.view(np.uint64), ndtri(ps).view(np.uint64))


# ---------------------------------------------------------------------- score keys


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint64])
def test_decode_key_equals_decode(dtype: type) -> None:
    # a one-task threshold is decoded without numpy: the same value and type as decode's
    from fastrank._core.codec import decode, decode_key
    from fastrank._core.inputs import SPECS

    dt = np.dtype(dtype)
    rng = np.random.default_rng(7)
    if dt.kind == "f":
        info = np.finfo(dt)
        vals = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0, info.max, -info.max, info.tiny,
                                         info.smallest_subnormal], dt),
                               rng.normal(size=500).astype(dt)])
    else:
        info = np.iinfo(dt)
        vals = np.concatenate([np.array([0, 1, info.min, info.max, info.max - 1], dt),
                               rng.integers(info.min, info.max, 500, dtype=dt)])
    keys = vals.view(SPECS[dt].bits).astype(np.uint64)
    for k in keys:
        got = decode_key(int(k), dt)
        want = decode(np.array([k], np.uint64), dt, dt)[0].item()
        assert type(got) is type(want)
        assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


# ---------------------------------------------------------------------- transposition


@pytest.mark.parametrize("n", [1, 5, 127, 128, 129, 300])
def test_transpose_block_equals_numpy(n: int) -> None:
    # a C-ordered batch's columns, made task-major in tiles of rows: every column,
    # block width and row count (partial tiles too) against numpy's transposition
    from fastrank._core.inputs import readonly
    from fastrank._kernels.batch import LAB_CSC, LAB_SAME, TILE_ROWS, transpose_block

    assert TILE_ROWS == 128  # the n above straddle one tile
    rng = np.random.default_rng(n)
    t = 37
    scores = rng.random((n, t)).astype(np.float32)
    labels = rng.random((n, t)) < 0.3
    bits = readonly(scores.reshape(-1).view(np.uint32))
    flat = readonly(labels.reshape(-1).view(np.uint8))
    empty = readonly(np.empty(0, np.int64))
    # the same labels as CSC column pointers and positive rows
    ptr = readonly(np.concatenate([[0], np.cumsum(labels.sum(axis=0))]).astype(np.int64))
    idx = readonly(np.concatenate([np.flatnonzero(labels[:, j]) for j in range(t)])
                   .astype(np.int64))
    for j0, bw in ((0, 16), (16, 16), (32, 5), (3, 1), (20, 17)):
        for mode, lp, li in ((LAB_SAME, empty, empty), (LAB_CSC, ptr, idx)):
            tb = np.full(bw * n, 7, np.uint32)
            lb = np.full(bw * n, 9, np.uint8)
            transpose_block(bits, n, t, j0, bw, flat, mode, lp, li, tb, lb)
            want = scores[:, j0:j0 + bw].T.reshape(-1)
            assert np.array_equal(tb.view(np.float32), want), (j0, bw, mode)
            assert np.array_equal(lb, labels[:, j0:j0 + bw].T.reshape(-1).astype(np.uint8))
