"""One-task calls in one kernel call (``fastrank._core.one_call``): the batch kernel
as a batch of one gives the engine's row, bit for bit, and the oracles' numbers.

The kernel is compiled here first (a batch call of each score width), so that
the one-call path is taken; each task is then computed both ways, through the
one call and through the engine's steps (split, numpy's or the radix sort,
the sweep), and every ``OUT_*`` column and the break-even score's bits must be
the same. Tied scores over float32/float64/int/bool, weighted (zeros, far
apart scales) and not, partial AUC and tie-expected AP; the values against
the pairwise-count and per-cutoff oracles, and scikit-learn.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from sklearn.metrics import average_precision_score, roc_auc_score

import fastrank
from fastrank._core import batches, engine, first_calls, inputs, one_call, registry, sorting
from fastrank._kernels import tasks
from fastrank._kernels.batch import run_segments
from fastrank._kernels.jit import SIGNATURES

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from strategies import PROPERTY_SETTINGS, Case, cases

CANONICAL = (np.float32, np.float64, np.int64, np.uint64)


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """The batch kernel compiled (or loaded) for every score width: a batch call of
    more tasks than a batch runs one by one."""
    rng = np.random.default_rng(7)
    y = rng.random((40, 70)) < 0.3
    for dt in (np.float32, np.float64, np.int64):
        fastrank.average_precision(y, (rng.random((40, 70)) * 9).astype(dt), average=None)
    for dt in CANONICAL:
        assert one_call.ready(np.dtype(dt))


def _rows(t: inputs.Task, name: str = "all_metrics", ties: str = "grouped",
          max_fpr: float | None = None) -> tuple[tuple[bytes, int], tuple[bytes, int]]:
    """(one call, engine steps): each the OUT_* row's bytes and the break-even bits."""
    req = registry.request(name, weighted=t.weights is not None, ties=ties, max_fpr=max_fpr)
    assert one_call.wanted(t)
    a, ka = one_call.task_metrics(t, req.max_fpr, req.what)
    b, kb = engine.task_metrics(t, req.max_fpr, req.what)
    return (a.tobytes(), ka), (b.tobytes(), kb)


def _same_both_ways(t: inputs.Task) -> None:
    for ties, max_fpr in (("grouped", None), ("grouped", 0.3)):
        one, steps = _rows(t, "all_metrics" if max_fpr is None else "roc_auc", ties, max_fpr)
        assert one == steps
    if t.weights is None:
        one, steps = _rows(t, "average_precision", "expected")
        assert one == steps


@given(case=cases(weight_kinds=("none", "int", "dyadic", "real")))
@PROPERTY_SETTINGS
def test_tied_tasks_match_the_engine_and_the_oracles(case: Case) -> None:
    t = inputs.task(case.y_true, case.y_score, case.sample_weight, case.pos_label)
    _same_both_ways(t)
    got = fastrank.all_metrics(case.y_true, case.y_score, **case.kwargs())
    y, s, w = case.oracle_args
    assert got.roc_auc == pytest.approx(float(oracles.roc_auc_pairwise(y, s, w)), abs=1e-12)
    assert got.average_precision == pytest.approx(float(oracles.average_precision(y, s, w)),
                                                  abs=1e-12)


@given(case=cases(weight_kinds=("none",), max_size=9))
@PROPERTY_SETTINGS
def test_tie_expected_ap_matches_every_order(case: Case) -> None:
    """The one call's tie-expected AP against the mean over every order of the ties."""
    t = inputs.task(case.y_true, case.y_score, None, case.pos_label)
    one, steps = _rows(t, "average_precision", "expected")
    assert one == steps
    y, s, _ = case.oracle_args
    got = fastrank.average_precision(case.y_true, case.y_score, pos_label=case.pos_label,
                                     ties="expected")
    assert got == pytest.approx(float(oracles.expected_ap_brute_force(y, s)), rel=1e-12)


SIZES = (1, 2, 3, 47, 48, 49, 100, 1000, 4096, 5000, 20_000)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint64", "bool", "int8"])
def test_larger_tasks_match_the_engine_and_sklearn(dtype: str) -> None:
    rng = np.random.default_rng(sum(map(ord, dtype)))
    compared = 0
    for n in SIZES:
        for share in (0.0, 0.01, 0.3, 0.9, 1.0):
            for distinct in (2, 30, n):
                y = rng.random(n) < share
                s = rng.integers(0, distinct, n)
                s = s.astype(dtype) if dtype != "float64" else rng.standard_normal(distinct)[s]
                for w in (None, rng.integers(0, 3, n).astype(float),
                          rng.random(n) * 1e-200):
                    t = inputs.task(y, s, w)
                    if not one_call.wanted(t):
                        continue
                    _same_both_ways(t)
                    compared += 1
                    if 0 < y.sum() < n and (w is None or (w[y].sum() and w[~y].sum())):
                        ap = fastrank.average_precision(y, s, sample_weight=w)
                        auc = fastrank.roc_auc(y, s, sample_weight=w)
                        ws = None if w is None else w * 1e200 if w.max() < 1e-100 else w
                        assert ap == pytest.approx(average_precision_score(y, s, sample_weight=ws),
                                                   abs=1e-12)
                        assert auc == pytest.approx(roc_auc_score(y, s, sample_weight=ws),
                                                    abs=1e-12)
    assert compared >= 100  # (every task up to SMALL_TASK samples takes the one call)


def test_which_tasks_take_the_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Weighted tasks up to SMALL_TASK, unweighted ones up to ALWAYS, and larger ones
    up to SMALL_TASK where the one call was timed the faster way at their size."""
    rng = np.random.default_rng(3)
    for n in (1, 100, one_call.ALWAYS, one_call.ALWAYS + 1, 4096, 4097):
        for dt in CANONICAL:
            y = rng.random(n) < 0.3
            s = (rng.random(n) * 50).astype(dt)
            small = n <= batches.SMALL_TASK
            got = one_call.wanted(inputs.task(y, s))
            key = (np.dtype(dt), sorting.size_bucket(n))
            timed = n > one_call.ALWAYS and small
            assert (key in one_call._faster) or not timed
            assert got == (n <= one_call.ALWAYS or (timed and one_call._faster[key]))
            assert one_call.wanted(inputs.task(y, s, np.ones(n))) == small
    # the record decides (each way forced), and FASTRANK_SORT overrides it
    key = (np.dtype(np.float64), sorting.size_bucket(1000))
    for faster in (False, True):
        monkeypatch.setitem(one_call._faster, key, faster)
        assert one_call.wanted(inputs.task(np.arange(1000) % 2, np.arange(1000.0))) == faster
    monkeypatch.setenv("FASTRANK_SORT", "numpy")
    assert not one_call.wanted(inputs.task(np.arange(1000) % 2, np.arange(1000.0)))
    monkeypatch.setenv("FASTRANK_SORT", "radix")
    monkeypatch.setitem(one_call._faster, key, False)
    assert one_call.wanted(inputs.task(np.arange(1000) % 2, np.arange(1000.0)))


def test_the_timing_needs_no_sort_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The choice times the two ways themselves: it never asks for (or compiles) the
    radix sort's own kernel, which a process without it in the cache would compile
    for seconds (and which, not compiled, kept every such task on the engine's
    steps). Both ways give the same numbers, bit for bit."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the radix sort's kernel was called")

    monkeypatch.setattr(sorting, "sort_values", refuse)  # as if neither compiled nor cached:
    monkeypatch.setattr(sorting, "_radix_ready", lambda width: False)
    monkeypatch.setattr(sorting, "_choices", {})  # the engine's steps sort with numpy's
    monkeypatch.setattr(one_call, "_faster", {})
    rng = np.random.default_rng(5)
    for dt in CANONICAL:
        n = 700
        y = rng.random(n) < 0.3
        s = rng.integers(0, 300, n).astype(dt)  # ties
        t = inputs.task(y, s)
        choice = one_call.wanted(t)
        assert one_call._faster[(np.dtype(dt), sorting.size_bucket(n))] is choice
        a, ka = one_call._one(t, 1.0, 0)
        b, kb = engine.task_metrics(t, 1.0, 0)
        assert a.tobytes() == b.tobytes() and ka == kb


def test_no_timing_where_the_steps_would_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the engine's kernels are neither compiled nor cached, the one call is
    taken untimed: timing the steps would compile them first."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the engine's steps ran")

    def compiled_or_cached(kernel: object, signature: object) -> bool:
        return kernel is not tasks.split  # as if the split had never been compiled

    monkeypatch.setattr(sorting, "compiled_or_cached", compiled_or_cached)
    monkeypatch.setattr(first_calls, "_found", set())  # (kernels found ready before)
    monkeypatch.setattr(engine, "task_metrics", refuse)
    monkeypatch.setattr(one_call, "_faster", {})
    monkeypatch.setattr(one_call, "_ready", set(one_call._ready))
    for dt in CANONICAL:
        one_call._ready.add(np.dtype(dt))  # (the batch kernel itself: ready)
        assert one_call.wanted(inputs.task(np.arange(700) % 3 == 0,
                                           np.arange(700).astype(dt)))


def test_classes_far_apart_take_the_engine() -> None:
    """Weights whose classes need a unit each (scaled_weights' shift): the engine's steps."""
    rng = np.random.default_rng(4)
    n = 60
    y = rng.random(n) < 0.4
    s = rng.integers(0, 8, n).astype(np.float64)
    w = np.where(y, 1e-300, 1e300) * (rng.random(n) + 0.5)
    t = inputs.task(y, s, w)
    assert t.shift != 0 and not one_call.wanted(t)
    got = fastrank.roc_auc(y, s, sample_weight=w)
    assert got == pytest.approx(float(oracles.roc_auc_pairwise(y.astype(int), s, w)),
                                abs=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_nonfinite_score_is_named_as_the_engine_names_it(
        bad: float, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASTRANK_SORT", "radix")  # (3,000 scores: the one call)
    for n, at in ((10, 0), (10, 9), (3000, 1234)):
        for w in (None, np.ones(n)):
            s = np.linspace(0.0, 1.0, n)
            s[at] = bad
            y = np.arange(n) % 3 == 0
            t = inputs.task(y, s, w)
            assert one_call.wanted(t)
            with pytest.raises(ValueError, match=f"at index {at}") as one:
                one_call.task_metrics(t, 1.0, 0)
            with pytest.raises(ValueError) as steps:
                engine.task_metrics(t, 1.0, 0)
            assert str(one.value) == str(steps.value)


def test_the_kernel_found_compiled_or_cached() -> None:
    kernel = run_segments
    for sig in SIGNATURES[kernel]:
        assert sorting.compiled_or_cached(kernel, tuple(sig))
    assert not sorting.compiled_or_cached(kernel, ("not", "a", "signature"))


def test_a_setting_is_read_again_when_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FASTRANK_SORT", raising=False)
    assert sorting.env_setting("FASTRANK_SORT") == ""
    monkeypatch.setenv("FASTRANK_SORT", " Radix ")
    assert sorting.env_setting("FASTRANK_SORT") == "radix"
    assert sorting.sort_choice(8, 100).path == "radix"
    monkeypatch.setenv("FASTRANK_SORT", "numpy")
    assert sorting.sort_choice(8, 100_000).path == "numpy"
    os.environ["FASTRANK_SORT"] = "radix"
    assert sorting.sort_choice(4, 100).path == "radix"
    monkeypatch.delenv("FASTRANK_SORT")
    assert sorting.env_setting("FASTRANK_SORT") == ""
    assert sorting.sort_choice(4, 100).reason != "set by FASTRANK_SORT"


@pytest.mark.parametrize("n", [1, 7, 1024, 1025, 5000])
def test_bool_labels_of_any_bytes_are_read_as_numpy_reads_them(n: int) -> None:
    """Bool labels are checked and counted as bytes up to BYTES_CHECK, by numpy beyond:
    a mask whose true bytes are not 1 (a 0/255 view) counts every nonzero byte."""
    rng = np.random.default_rng(n)
    y = rng.random(n) < 0.4
    raw = y.view(np.uint8).copy()
    raw[raw == 1] = rng.integers(1, 256, int(y.sum()))
    for labels in (y, raw.view(bool), y[::-1], raw.view(bool)[::-1]):
        got, count = inputs.binary_labels(labels, None)
        assert count == int(np.count_nonzero(labels))
        assert got.dtype == np.uint8 and not got.flags.writeable
        assert np.array_equal(got, labels.astype(np.uint8))
    if 0 < y.sum() < n:
        s = rng.random(n)
        assert fastrank.roc_auc(raw.view(bool), s) == fastrank.roc_auc(y, s)
