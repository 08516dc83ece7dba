"""The sort is chosen per size bucket (timed on first use) and a batch's columns go
inside its kernel or through the one-task engine by that choice: every path gives
the same numbers, bit for bit, so a wrong or noisy timing can cost speed only.

Each path is forced in turn (``FASTRANK_SORT``, and a patched choice that takes
the radix sort in some buckets only) and compared with the others."""

from __future__ import annotations

import io

import numpy as np
import pytest

import fastrank
from fastrank._core import batches, sorting

SIZES = (30, 40, 700, 1500, 5000, 40_000, 70_000)


def _one_task(rng: np.random.Generator) -> list[float]:
    got = []
    for n in SIZES:
        for dt in (np.float32, np.float64, np.int64):
            y = rng.random(n) < 0.3
            s = (rng.standard_normal(n) * 1e3).astype(dt) + y
            got.append(float(fastrank.average_precision(y, s)))
            got.append(float(fastrank.roc_auc(y, s)))
    return got


def _values(x: object) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _batches(rng: np.random.Generator) -> list[np.ndarray]:
    got = []
    for n, t, share in ((5000, 70, 0.02), (9000, 66, 0.3), (40_000, 65, 0.05)):
        y = rng.random((n, t)) < share
        s = rng.standard_normal((n, t)).astype(np.float32) + y
        s[::7] = np.round(s[::7], 1)  # ties
        for order in ("C", "F"):
            yy, ss = np.asarray(y, order=order), np.asarray(s, order=order)
            got.append(_values(fastrank.average_precision(yy, ss, average=None)))
            got.append(_values(fastrank.roc_auc(yy, ss.astype(np.float64), average=None)))
        w = rng.integers(1, 4, n).astype(np.float64)
        got.append(_values(fastrank.roc_auc(y, s, sample_weight=w, average=None)))
    g = rng.integers(0, 70, 400_000)
    y = rng.random(g.shape[0]) < 0.1
    s = rng.standard_normal(g.shape[0]) + y
    with np.errstate(all="ignore"):
        got.append(fastrank.average_precision(y, s, groups=g, average=None).values)
    return got


def _run(monkeypatch: pytest.MonkeyPatch, sort: str) -> tuple[list[float], list[np.ndarray]]:
    monkeypatch.setenv("FASTRANK_SORT", sort)
    rng = np.random.default_rng(7)
    return _one_task(rng), _batches(rng)


def test_every_sort_path_gives_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = [_run(monkeypatch, sort) for sort in ("numpy", "radix", "")]

    # the radix sort in every other size bucket, numpy's in the rest
    def mixed(width: int, n: int = sorting.CALIBRATE_N, compile: bool = True) -> sorting.SortChoice:
        path = "radix" if sorting.size_bucket(n) % 2 else "numpy"
        return sorting.SortChoice(path, "test")

    monkeypatch.setattr(sorting, "sort_choice", mixed)
    runs.append(_run(monkeypatch, ""))
    first_tasks, first_batches = runs[0]
    for tasks, bats in runs[1:]:
        assert np.array_equal(np.array(tasks), np.array(first_tasks), equal_nan=True)
        for a, b in zip(bats, first_batches, strict=True):
            assert np.array_equal(a, b, equal_nan=True)


def test_columns_go_inside_the_kernel_by_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = np.array([10, 4096, 4097, 9000, 40_000, batches.BATCH_TASK, batches.BATCH_TASK + 1])
    monkeypatch.setenv("FASTRANK_SORT", "numpy")
    assert batches.in_kernel(sizes, 4, False).tolist() == [True, True] + [False] * 5
    assert batches.in_kernel(sizes, 4, True).tolist() == [True] * 6 + [False]
    monkeypatch.setenv("FASTRANK_SORT", "radix")
    assert batches.in_kernel(sizes, 8, False).tolist() == [True] * 6 + [False]


def test_each_size_bucket_is_timed_once_and_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FASTRANK_SORT", raising=False)
    c = sorting.sort_choice(4, 3000)
    assert c.path in ("numpy", "radix") and c.n == 3072 and c.numpy_s > 0 and c.radix_s > 0
    assert sorting.sort_choice(4, 2048) is c  # one bucket: 2,048 .. 4,095
    assert sorting.sort_choice(4, 1 << 20).n == sorting.CALIBRATE_N
    out = io.StringIO()
    fastrank.show_config(file=out)
    line = next(x for x in out.getvalue().splitlines() if x.strip().startswith("float32"))
    assert "3,072:" in line and "131,072:" in line
    runs = line.split(": ", 1)[1].split(" keys (timed here")[0].split(", ")
    # from 1 key up, in runs of one sort each (one run where one sort wins at every size)
    assert runs[0].startswith("numpy 1") and runs[-1].endswith("+"), runs
    assert all(r.split()[0] in ("numpy", "radix") for r in runs), runs
    monkeypatch.setenv("FASTRANK_SORT", "radix")
    out = io.StringIO()
    fastrank.show_config(file=out)
    assert "radix: set by FASTRANK_SORT" in out.getvalue()


def test_small_sizes_wait_for_a_compiled_radix_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small task's sort does not compile the radix sort to time it (a first call
    would wait seconds for it): numpy's sort until the radix sort is compiled."""
    monkeypatch.delenv("FASTRANK_SORT", raising=False)
    monkeypatch.setattr(sorting, "_choices", {})
    monkeypatch.setattr(sorting, "_radix_ready", lambda width: False)
    assert sorting.sort_choice(8, 3000, compile=False) is sorting._NOT_READY
    assert not sorting._choices  # not stored: timed once the radix sort is there
    assert sorting.sort_choice(8, 3000).n == 3072  # the batch path times it (compiling)
    assert sorting.sort_choice(8, 3000, compile=False).n == 3072
    big = sorting.sort_choice(8, 1 << 20, compile=False)  # large sizes: timed, as ever
    assert big.n == sorting.CALIBRATE_N


def test_a_slightly_slower_radix_sort_still_keeps_columns_inside(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A column leaves the kernel only where numpy's sort saves more than the steps
    of a one-task call from Python cost (batches.COLUMN_STEPS)."""
    def timed(width: int, n: int = sorting.CALIBRATE_N, compile: bool = True
              ) -> sorting.SortChoice:
        if sorting.size_bucket(n) == 13:  # 4,096 .. 8,191: radix 2 us slower at 6,144
            return sorting.SortChoice("numpy", "t", 6144, 30e-6, 32e-6)
        return sorting.SortChoice("numpy", "t", 49152, 200e-6, 280e-6)  # 80 us slower

    monkeypatch.setattr(sorting, "sort_choice", timed)
    sizes = np.array([5000, 8191, 8192, 50_000])
    assert batches.in_kernel(sizes, 4, False).tolist() == [True, True, False, False]


@pytest.mark.parametrize("sort", ["numpy", "radix", ""])
def test_sorted_keys_is_numpys_sort_by_either_path(monkeypatch: pytest.MonkeyPatch,
                                                   sort: str) -> None:
    """``sorted_keys`` (the TREC pairs' check of repeats) gives numpy's sorted copy of
    int64 keys of either sign and of uint64 keys, by whichever sort runs, and leaves
    its input as it was."""
    monkeypatch.setenv("FASTRANK_SORT", sort)
    if sort == "radix":  # as on a machine whose cache holds the radix sort
        monkeypatch.setattr(sorting, "_radix_ready", lambda width: True)
    rng = np.random.default_rng(7)
    for n in (0, 1, 33, 1000, 70_000):
        for keys in (rng.integers(-2**62, 2**62, n), rng.integers(0, 50, n),
                     rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True),
                     np.repeat(rng.integers(-5, 5, max(n // 10, 1)), 10)[:n]):
            before = keys.copy()
            got = sorting.sorted_keys(keys)
            assert got.dtype == keys.dtype
            np.testing.assert_array_equal(got, np.sort(keys))
            np.testing.assert_array_equal(keys, before)


def test_sorted_keys_compiles_no_radix_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the radix sort is neither compiled nor cached, numpy's sort runs and no
    choice is timed (timing it would compile the radix sort)."""
    monkeypatch.delenv("FASTRANK_SORT", raising=False)
    monkeypatch.setattr(sorting, "_radix_ready", lambda width: False)

    def no_timing(*args: object, **kwargs: object) -> object:
        raise AssertionError("sort_choice called")

    monkeypatch.setattr(sorting, "sort_choice", no_timing)
    keys = np.random.default_rng(1).integers(0, 10**9, 200_000)
    np.testing.assert_array_equal(sorting.sorted_keys(keys), np.sort(keys))


@pytest.mark.parametrize("sort", ["numpy", "radix"])
def test_repeated_pairs_are_found_by_either_sort(monkeypatch: pytest.MonkeyPatch,
                                                 sort: str) -> None:
    """The qrels' check of a (query, document) pair listed twice names the second
    occurrence whichever sort orders the pairs."""
    from fastrank._trec import ids

    monkeypatch.setenv("FASTRANK_SORT", sort)
    if sort == "radix":
        monkeypatch.setattr(sorting, "_radix_ready", lambda width: True)
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(300), 200)
    d = np.concatenate([rng.permutation(10**6)[:200] for _ in range(300)])
    assert ids.repeated(q, d) is None
    d[12_345] = d[12_300]  # the same query's document again, later
    assert ids.repeated(q, d) == 12_345
    d2 = d.copy()
    d2[12_345] = d[12_345] + 1
    d2[50_001] = d2[50_000]
    assert ids.repeated(q, d2) == 50_001
