"""A batch task of float32 scores with many positives may sort its samples once, as
``key << 1 | label`` items, and sweep them once (``_kernels.batch.item_sweep``),
instead of sorting each class and merging them. The choice is timed per size
bucket (``batches.items_choice``); ``FASTRANK_ITEMS=on|off`` forces it. Every
path must give the same numbers, bit for bit, and the definitions' numbers
(tests/oracles.py, exact fractions)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank._core import batches
from tests import oracles
from tests.strategies import PROPERTY_SETTINGS


def _calls(y: np.ndarray, s: np.ndarray) -> list[np.ndarray]:
    """The batched entry points that reach the batch kernel's results."""
    with np.errstate(all="ignore"), _quiet():
        got = [fastrank.average_precision(y, s, average=None),
               fastrank.roc_auc(y, s, average=None),
               fastrank.roc_auc(y, s, average=None, max_fpr=0.3),
               fastrank.pr_auc(y, s, average=None),
               *fastrank.prbe(y, s, average=None, return_threshold=True)]
    return [np.asarray(x, dtype=np.float64) for x in got]


def _quiet() -> warnings.catch_warnings[None]:
    """Undefined tasks (no positives or no negatives) warn; not the point here."""
    return warnings.catch_warnings(action="ignore")


def _matrix(rng: np.random.Generator, n: int, t: int, share: float, ties: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    y = rng.random((n, t)) < share
    s = rng.standard_normal((n, t)).astype(np.float32) + y
    if ties:
        s = np.round(s * 2) / 2
        s[rng.random((n, t)) < 0.1] = -0.0
        s[rng.random((n, t)) < 0.1] = 0.0
    return y, s.astype(np.float32)


CASES = [  # n, t, share of positives, ties
    (30, 80, 0.4, True),  # insertion sort of the items
    (700, 70, 0.3, True),
    (5000, 70, 0.5, False),
    (5000, 66, 0.9, True),  # positives the more numerous
    (3000, 70, 0.0, False),  # no positives: every task NaN for AP
    (3000, 70, 1.0, True),  # no negatives
    (9000, 66, 0.02, True),  # few positives (the counted path when items are off)
    (40_000, 65, 0.3, False),
]


def _all(monkeypatch: pytest.MonkeyPatch, items: str, sort: str) -> list[np.ndarray]:
    monkeypatch.setenv("FASTRANK_ITEMS", items)
    monkeypatch.setenv("FASTRANK_SORT", sort)
    rng = np.random.default_rng(45)
    got: list[np.ndarray] = []
    for n, t, share, ties in CASES:
        y, s = _matrix(rng, n, t, share, ties)
        for order in ("C", "F"):
            got += _calls(np.asarray(y, order=order), np.asarray(s, order=order))
    # groups (segments of one array) and sparse labels
    g = rng.integers(0, 70, 200_000)
    y = rng.random(g.shape[0]) < 0.3
    s = np.round(rng.standard_normal(g.shape[0]), 2).astype(np.float32) + y
    with _quiet():
        got.append(np.asarray(fastrank.average_precision(y, s, groups=g, average=None).values))
        got.append(np.asarray(fastrank.roc_auc(y, s, groups=g, average=None).values))
    sp = pytest.importorskip("scipy.sparse")
    y2, s2 = _matrix(rng, 3000, 80, 0.3, True)
    got += _calls(sp.csc_matrix(y2.astype(np.int8)), s2)
    return got


def test_items_and_classes_give_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _all(monkeypatch, "off", "radix")
    for items, sort in (("on", "radix"), ("on", "numpy"), ("", "radix")):
        got = _all(monkeypatch, items, sort)
        for a, b in zip(got, base, strict=True):
            assert np.array_equal(a.view(np.uint64) if a.dtype == np.float64 else a,
                                  b.view(np.uint64) if b.dtype == np.float64 else b), (items, sort)


def test_the_item_path_is_what_the_kernel_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel gets item scratch and the share for float32 unweighted batches only."""
    seen: list[tuple[int, int]] = []
    real = batches.run_segments

    def spy(*args: Any) -> Any:
        seen.append((int(args[16]), int(args[-2].shape[0])))  # many, item scratch
        return real(*args)

    monkeypatch.setattr(batches, "run_segments", spy)
    monkeypatch.setenv("FASTRANK_SORT", "radix")
    rng = np.random.default_rng(1)
    y, s = _matrix(rng, 2000, 70, 0.3, False)
    for items, many in (("on", 0), ("off", batches.NEVER)):
        monkeypatch.setenv("FASTRANK_ITEMS", items)
        seen.clear()
        fastrank.average_precision(y, s, average=None)
        assert seen and all(m == many for m, _ in seen)
        assert all((size >= 2 * 2001) == (items == "on") for _, size in seen)
        seen.clear()  # float64 keys, weights: never the items
        fastrank.average_precision(y, s.astype(np.float64), average=None)
        fastrank.roc_auc(y, s, sample_weight=np.ones(2000), average=None)
        assert seen and all(m == batches.NEVER and size == 0 for m, size in seen)


def test_a_nonfinite_score_is_named_on_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASTRANK_SORT", "radix")
    rng = np.random.default_rng(3)
    for bad in (np.nan, np.inf, -np.inf, -np.nan):
        y, s = _matrix(rng, 3000, 70, 0.4, True)
        s[1234, 41] = bad
        msgs = []
        for items in ("on", "off"):
            monkeypatch.setenv("FASTRANK_ITEMS", items)
            with pytest.raises(ValueError) as exc:
                fastrank.average_precision(y, s, average=None)
            msgs.append(str(exc.value))
        assert msgs[0] == msgs[1] and "1234" in msgs[0]


@PROPERTY_SETTINGS
@given(n=st.integers(1, 60), t=st.integers(65, 70), share=st.sampled_from([0.2, 0.5, 0.8]),
       levels=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_items_equal_the_definitions(n: int, t: int, share: float, levels: int, seed: int) -> None:
    """Heavily tied scores (signed zeros among them) through the items, against the
    oracles' exact AP, ROC AUC and break-even point."""
    import os

    rng = np.random.default_rng(seed)
    y = rng.random((n, t)) < share
    s = (rng.integers(-levels, levels + 1, (n, t)) * 0.5).astype(np.float32)
    s[rng.random((n, t)) < 0.2] = -0.0
    before = os.environ.get("FASTRANK_ITEMS")
    os.environ["FASTRANK_ITEMS"] = "on"
    try:
        with _quiet():
            ap = np.asarray(fastrank.average_precision(y, s, average=None), np.float64)
            auc = np.asarray(fastrank.roc_auc(y, s, average=None), np.float64)
            be, at = (np.asarray(x, np.float64)
                      for x in fastrank.prbe(y, s, average=None, return_threshold=True))
    finally:
        if before is None:
            del os.environ["FASTRANK_ITEMS"]
        else:
            os.environ["FASTRANK_ITEMS"] = before
    for j in range(t):
        yj, sj = y[:, j].astype(int).tolist(), s[:, j].astype(float).tolist()
        want = oracles.average_precision(yj, sj)
        if isinstance(want, float) and math.isnan(want):
            assert math.isnan(ap[j])
        else:
            assert ap[j] == pytest.approx(float(want), rel=1e-12, abs=1e-15)
        want_auc = oracles.roc_auc_pairwise(yj, sj)
        if isinstance(want_auc, float) and math.isnan(want_auc):
            assert math.isnan(auc[j])
        else:
            assert auc[j] == pytest.approx(float(want_auc), rel=1e-12, abs=1e-15)
        want_be, want_at = oracles.prbe(yj, sj)
        if not (isinstance(want_be, float) and math.isnan(want_be)):
            assert be[j] == pytest.approx(float(want_be), rel=1e-12, abs=1e-15)
            assert at[j] == float(want_at)  # the break-even group's score


def test_the_share_is_timed_once_per_size_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FASTRANK_ITEMS", raising=False)
    monkeypatch.setattr(batches, "_items", {})
    c = batches.items_choice(3000)
    assert c.share == batches.crossover([[a, b] for _, a, b in c.timings])
    assert 0 < c.share <= batches.NEVER
    assert "timed on" in c.reason and "3,072" in c.reason
    assert batches.items_choice(2048) is c  # one bucket: 2,048 .. 4,095
    assert batches.items_choice(4096) is not c
    monkeypatch.setenv("FASTRANK_ITEMS", "on")
    assert batches.items_choice(3000).share == 0
    monkeypatch.setenv("FASTRANK_ITEMS", "off")
    assert batches.items_choice(3000).share == batches.NEVER


def test_the_share_is_where_the_timings_cross() -> None:
    """The items from the smallest share timed where they win at every share above;
    where they lose at the share below that, from where the two ways' straight
    lines cross between the two shares; never where they lose at the largest."""
    shares = batches.ITEM_SHARES
    assert shares == (16, 32, 64, 128, 256, 512)

    def cut(items: list[float]) -> int:
        return batches.crossover([[10.0, x] for x in items])

    assert cut([9.0] * 6) == 16  # the items win everywhere
    assert cut([11.0] * 6) == batches.NEVER  # nowhere
    assert cut([11.0, 11.0, 11.0, 11.0, 9.0, 9.0]) == 192  # halfway from 128 to 256
    assert cut([11.0, 11.0, 11.0, 11.0, 10.5, 9.0]) == 342  # 256 + 256 * 0.5 / 1.5, up
    assert cut([11.0, 11.0, 11.0, 10.0, 9.0, 8.0]) == 129  # a tie at 128: just above
    assert cut([11.0, 11.0, 11.0, 11.0, 11.0, 9.999]) == 512  # barely: at the top
    assert cut([9.0, 11.0, 9.0, 9.0, 9.0, 9.0]) == 48  # from the run of wins at the top
    # the rule on timings from the machine: always within the crossing's interval
    rng = np.random.default_rng(7)
    for _ in range(200):
        items = list(rng.uniform(8.0, 12.0, 6))
        got = cut(items)
        wins = [x < 10.0 for x in items]
        if not wins[-1]:
            assert got == batches.NEVER
            continue
        top = max(i for i in range(6) if not all(wins[i:])) + 1 if not all(wins) else 0
        assert (got == shares[0]) if top == 0 else shares[top - 1] < got <= shares[top]


def test_columns_go_inside_for_the_items_where_that_is_faster(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where numpy's sort wins, a column of many positives still goes inside the kernel
    when the item sort there beats the classes' numpy sorts outside, by the timings."""
    timings = ((128, 10e-9, 11e-9), (256, 13e-9, 12e-9), (512, 20e-9, 14e-9))
    monkeypatch.setattr(batches, "items_choice",
                        lambda n: batches.ItemsChoice(256, "test", timings))

    def numpy_faster(width: int, n: int = 1 << 17, compile: bool = True) -> Any:
        from fastrank._core import sorting
        return sorting.SortChoice("numpy", "test", 49152, 49152 * 3e-9, 49152 * 6e-9)

    monkeypatch.setattr(batches.sorting, "sort_choice", numpy_faster)
    sizes = np.array([50_000])
    # 3 ns per score saved by numpy's sort, 0.2 ns of Python steps per score:
    assert not batches.in_kernel(sizes, 4, False).any()  # no share: as before
    assert not batches.in_kernel(sizes, 4, False, 0.2).any()  # below the share
    assert not batches.in_kernel(sizes, 4, False, 0.3).any()  # 12 > 13 - 3 + 0.2
    assert batches.in_kernel(sizes, 4, False, 0.6).all()  # 14 < 20 - 3 + 0.2
    assert not batches.in_kernel(sizes, 8, False, 0.6).any()  # float64: never the items
