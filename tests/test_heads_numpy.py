"""The numpy reading of each row's top (what a first small call takes, so that it
compiles nothing) against the kernel it stands in for: every output array equal,
on rows full of tied scores, in every dtype, for each way labels find entries."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank._core import first_calls, heads

sys.path.insert(0, str(Path(__file__).parent))
from fresh import assert_prints_ok
from strategies import PROPERTY_SETTINGS

DTYPES = [np.float32, np.float64, np.int64, np.uint64]


@st.composite
def rows(draw: st.DrawFn) -> tuple:
    join = draw(st.sampled_from(["merge", "hash", "place"]))
    dtype = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(0, 6))
    levels = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
    cols, vals, lcols, lrel, lens = [], [], [], [], []
    lptr = [0]
    for _ in range(n):
        m = draw(st.integers(0, 8))
        if join == "merge":
            c = sorted(draw(st.sets(st.integers(0, 12), max_size=m)))
        elif join == "hash":
            c = draw(st.lists(st.integers(-3, 9), max_size=m))  # repeats allowed
        else:
            c = list(range(m))
        v = [draw(st.sampled_from(levels)) for _ in c]
        if join == "place":
            lab = sorted(draw(st.sets(st.integers(0, max(0, len(c) - 1)), max_size=len(c))))
            lab = lab if c else []
        else:
            lab = draw(st.lists(st.integers(-3, 12), unique=True, max_size=6))
            lab = sorted(lab) if join == "merge" else lab
        cols += c
        vals += v
        lens.append(len(c))
        lcols += lab
        lrel += [float(draw(st.booleans())) for _ in lab]
        lptr.append(len(lcols))
    values = np.array(vals, np.float64)
    if dtype in (np.float32, np.float64):
        values = (values - 2.0) / 4.0  # negatives, and -0.0 beside 0.0
        values[values == 0] = np.where(np.arange(int((values == 0).sum())) % 2, -0.0, 0.0)
    values = values.astype(dtype) if dtype != np.uint64 else values.astype(np.uint64)
    # the rows laid out in a shuffled order, as a run's queries may come
    perm = draw(st.permutations(range(n)))
    ends_at = np.cumsum(lens)
    starts_at = ends_at - np.array(lens, np.int64)
    new_cols, new_vals, where = [], [], {}
    pos = 0
    for i in perm:
        where[i] = pos
        new_cols += cols[starts_at[i]:ends_at[i]]
        new_vals.append(values[starts_at[i]:ends_at[i]])
        pos += lens[i]
    starts = np.array([where[i] for i in range(n)], np.int64)
    ends = starts + np.array(lens, np.int64)
    vals_out = np.concatenate(new_vals) if new_vals else values[:0]
    depth = draw(st.integers(1, 10))
    return (starts, ends, np.array(new_cols, np.int64), vals_out, np.array(lptr, np.int64),
            np.array(lcols, np.int64), np.array(lrel, np.float64), depth, join)


def both(args: tuple) -> tuple[heads.Heads, heads.Heads]:
    """The numpy path's result and the kernel's, each forced."""
    chosen = heads.by_numpy
    try:
        heads.by_numpy = lambda entries, bits: True  # type: ignore[assignment]
        mine = heads.row_heads(*args)
        heads.by_numpy = lambda entries, bits: False  # type: ignore[assignment]
        kernel = heads.row_heads(*args)
    finally:
        heads.by_numpy = chosen  # type: ignore[assignment]
    return mine, kernel


@settings(PROPERTY_SETTINGS, max_examples=400)
@given(case=rows())
def test_numpy_heads_equal_the_kernel(case: tuple) -> None:
    mine, kernel = both(case)
    for name, a, b in zip(heads.Heads._fields, mine, kernel, strict=True):
        if name in ("first", "size", "hits"):  # slots past each row's groups are not read
            room = np.arange(a.shape[0]) - np.repeat(kernel.offsets[:-1],
                                                     np.diff(kernel.offsets))
            used = room < np.repeat(kernel.groups, np.diff(kernel.offsets))
            a, b = a[used], b[used]
        assert np.array_equal(a, b), name


def test_many_rows_of_ties_equal_the_kernel() -> None:
    rng = np.random.default_rng(7)
    for join in ("merge", "hash"):
        n, m = 300, 40
        lens = rng.integers(0, m, n)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        cols = np.concatenate([np.sort(rng.choice(100, k, replace=False)) for k in lens])
        values = rng.integers(0, 6, cols.shape[0]).astype(np.float64) / 3
        labs = [np.sort(rng.choice(100, rng.integers(0, 12), replace=False)) for _ in range(n)]
        lptr = np.concatenate(([0], np.cumsum([x.shape[0] for x in labs]))).astype(np.int64)
        lrel = (rng.random(int(lptr[-1])) < 0.7).astype(np.float64)
        for depth in (1, 3, 10, 100):
            args = (starts, starts + lens, cols.astype(np.int64), values, lptr,
                    np.concatenate(labs).astype(np.int64), lrel, depth, join)
            mine, kernel = both(args)
            assert np.array_equal(mine.groups, kernel.groups)
            assert np.array_equal(mine.label_slot, kernel.label_slot)
            assert np.array_equal(mine.tail_hits, kernel.tail_hits)
            used = np.concatenate([np.arange(o, o + g) for o, g in
                                   zip(kernel.offsets[:-1], kernel.groups, strict=True)])
            for f in ("first", "size", "hits"):
                assert np.array_equal(getattr(mine, f)[used], getattr(kernel, f)[used]), f


def test_a_first_small_call_compiles_no_kernel(tmp_path) -> None:
    """From an empty kernel cache, a small evaluate_run compiles no row kernel, and
    gives what the kernel gives once compiled, bit for bit."""
    code = """
import numpy as np, fastrank
from fastrank._kernels import topk
q = np.repeat(np.arange(50), 20); d = np.tile(np.arange(20), 50)
s = np.round(np.random.default_rng(0).random(1000), 1)
rel = (np.random.default_rng(1).random(1000) < 0.2).astype(int)
j = rel > 0
first = fastrank.evaluate_run((q[j], d[j], rel[j]), (q, d, s), ["map", "ndcg@10", "P@5"])
assert not topk.row_heads.overloads, "row_heads compiled"
from fastrank._core import heads
heads.NUMPY_ENTRIES = 0
again = fastrank.evaluate_run((q[j], d[j], rel[j]), (q, d, s), ["map", "ndcg@10", "P@5"])
assert topk.row_heads.overloads
assert first.mean == again.mean
for k in first.per_query:
    assert np.array_equal(first.per_query[k], again.per_query[k], equal_nan=True), k
print("ok")
"""
    assert_prints_ok(code, cache_dir=tmp_path)


def test_many_small_calls_end_on_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once numpy calls have taken the budget, the kernel takes over (it compiles
    once rather than every call staying on the slower numpy path)."""
    monkeypatch.setattr(heads, "compiled_or_cached", lambda kernel, signature: False)
    monkeypatch.setattr(first_calls, "_spent", {})
    for bits in (np.dtype(np.uint64), np.dtype(np.uint32)):
        assert heads.by_numpy(10, bits)
    first_calls._spent["heads"] = first_calls.BUDGET
    for bits in (np.dtype(np.uint64), np.dtype(np.uint32)):
        assert not heads.by_numpy(10, bits)
    first_calls._spent["heads"] = 0.0
    assert not heads.by_numpy(heads.NUMPY_ENTRIES, np.dtype(np.uint64))


def test_uint64_ids_are_read_as_the_kernel_reads_them() -> None:
    """Document keys past 2**63 (uint64 beside int64 labels): compared as the kernel's
    int64 values, never through a float."""
    big = np.array([2**63 + 1, 2**63 + 3, 2**63 + 2, 5], np.uint64)
    labs = np.array([2**63 + 2, 2**63 + 3], np.uint64).view(np.int64)
    args = (np.array([0], np.int64), np.array([4], np.int64), big,
            np.array([0.5, 0.5, 0.25, 0.75]), np.array([0, 2], np.int64), labs,
            np.array([1.0, 1.0]), 10, "hash")
    mine, kernel = both(args)
    assert np.array_equal(mine.label_slot, kernel.label_slot)
    assert np.array_equal(mine.groups, kernel.groups)
    assert sorted(mine.label_slot.tolist()) == [1, 2]
