"""fastrank.dask: the metrics of data held in Dask arrays and DataFrames.

Written from the specification (three layouts, options, errors and
schedulers), as an independent check of :mod:`fastrank.dask`:

* **per task**: 2-D Dask arrays, one task per column; equal to the in-process
  batched call bit for bit;
* **per group**: a Dask DataFrame with a group column, groups spanning
  partitions and empty partitions; equal bit for bit (real weights too: each
  group's rows are put back in index order after the shuffle);
* **one huge task**: 1-D Dask arrays (or a frame without groups), any
  chunking and any number of score ranges; equal within 1e-12.

Most tests run on the synchronous scheduler (fast, deterministic, property
tests with hypothesis); some on the threaded scheduler; the last group on a
``LocalCluster`` of two single-threaded worker processes (module-scoped),
one on a worker with two threads, and one kills a worker mid-computation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import math
import os
import signal
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

import numba  # noqa: E402
from dask.delayed import Delayed  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fastrank  # noqa: E402
import fastrank.dask as fd  # noqa: E402
from fastrank import UndefinedMetricWarning  # noqa: E402

# Graphs that embed a few MB of NumPy data make distributed say so; harmless here.
pytestmark = pytest.mark.filterwarnings("ignore:Sending large graph:UserWarning")

DASK_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    max_examples=75,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

METRICS = ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe", "all_metrics")
AVERAGES = (None, "macro", "weighted", "size", "pairs")
# (metric, extra keyword arguments): every option the spec lists.
SPECS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("average_precision", {}),
    ("average_precision", {"ties": "expected"}),
    ("roc_auc", {}),
    ("roc_auc", {"max_fpr": 0.3}),
    ("pr_auc", {}),
    ("d_prime", {}),
    ("prbe", {}),
    ("prbe", {"return_threshold": True}),
    ("all_metrics", {}),
    ("all_metrics", {"max_fpr": 0.5}),
)
SPEC_IDS = [name + "".join(f"-{k}={v}" for k, v in kw.items()) for name, kw in SPECS]


def valid(kw: dict[str, Any], weighted: bool, average: Any) -> bool:
    """Whether the in-process call accepts this combination."""
    if kw.get("ties") == "expected" and weighted:
        return False
    return not (kw.get("return_threshold") and average is not None)


# ------------------------------------------------------------------------------ helpers


@contextlib.contextmanager
def scheduler(name: Any) -> Iterator[None]:
    with dask.config.set(scheduler=name):
        yield


def _graph_ran(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a Dask graph ran although the input was bad")


@contextlib.contextmanager
def no_graph_may_run() -> Iterator[None]:
    """A scheduler that fails loudly if anything is computed."""
    with dask.config.set(scheduler=_graph_ran):
        yield


def record(fn: Callable[[], Any]) -> tuple[Any, list[warnings.WarningMessage]]:
    """``fn()`` and every warning it emitted in this process."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, list(caught)


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b) or tol == 0.0:
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(b))


def assert_same(got: Any, want: Any, tol: float = 0.0, what: str = "result") -> None:
    """``got`` equals ``want``: exactly (tol=0) or within ``tol`` (relative above 1).

    Floats, arrays, tuples, GroupResult, BinaryMetrics and BatchMetrics; NaN
    equals NaN. Thresholds and group ids are always compared exactly.
    """
    if want is None:
        assert got is None, f"{what}: {got!r} != None"
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: {got!r} != {want!r}"
        assert_same(got[0], want[0], tol, what + "[0]")
        for i, (g, w) in enumerate(zip(got[1:], want[1:], strict=True), 1):
            assert_same(g, w, 0.0, f"{what}[{i}]")  # thresholds: exact
        return
    if isinstance(want, fastrank.GroupResult):
        assert isinstance(got, fastrank.GroupResult), f"{what}: {type(got)}"
        assert list(got.groups) == list(want.groups), f"{what}.groups"
        for field in ("values", "positives", "negatives", "sizes"):
            assert_same(getattr(got, field), getattr(want, field), tol, f"{what}.{field}")
        return
    if isinstance(want, (fastrank.BinaryMetrics, fastrank.BatchMetrics)):
        assert type(got) is type(want), f"{what}: {type(got)} != {type(want)}"
        for field in dataclasses.fields(want):
            g, w = getattr(got, field.name), getattr(want, field.name)
            if field.name == "groups":
                assert (g is None) == (w is None), f"{what}.groups"
                if w is not None:
                    assert list(g) == list(w), f"{what}.groups"
                continue
            exact = field.name == "prbe_threshold"
            assert_same(g, w, 0.0 if exact else tol, f"{what}.{field.name}")
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{what}: {type(got)} is not an ndarray"
        assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
        if tol == 0.0:
            assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), (
                f"{what}: {got!r} != {want!r}"
            )
        else:
            for i, (g, w) in enumerate(zip(got.tolist(), want.tolist(), strict=True)):
                assert _close(g, w, tol), f"{what}[{i}]: {g!r} != {w!r}"
        return
    assert isinstance(got, (int, float, np.floating, np.integer)), f"{what}: {type(got)}"
    assert _close(float(got), float(want), tol), f"{what}: {got!r} != {want!r}"


def assert_matches(
    got_fn: Callable[[], Any], want_fn: Callable[[], Any], tol: float = 0.0
) -> Any:
    """The Dask call equals the in-process call, warnings included.

    The in-process call's warnings (at most one UndefinedMetricWarning) must
    come out of the Dask call too, exactly once, with the same message; the
    Dask call may emit nothing else. When the in-process call rejects its
    arguments (ValueError), the Dask call must too, before running a graph.
    """
    try:
        want, want_w = record(want_fn)
    except ValueError:
        with no_graph_may_run(), pytest.raises(ValueError):
            got_fn()
        return None
    got, got_w = record(got_fn)
    assert_same(got, want, tol)
    assert [w.category for w in want_w] in ([], [UndefinedMetricWarning])
    assert [(w.category, str(w.message)) for w in got_w] == [
        (w.category, str(w.message)) for w in want_w
    ], [str(w.message) for w in got_w]
    return got


def call_fd(name: str, y: Any, s: Any, **kw: Any) -> Any:
    return getattr(fd, name)(y, s, **kw)


def call_ref(name: str, y: Any, s: Any, **kw: Any) -> Any:
    return getattr(fastrank, name)(y, s, **kw)


def cut_sizes(n: int, cuts: list[int]) -> tuple[int, ...]:
    """Chunk sizes from cut points in [0, n] (repeated cuts give empty chunks)."""
    edges = [0, *sorted(cuts), n]
    return tuple(b - a for a, b in itertools.pairwise(edges))


def frame(df: pd.DataFrame, sizes: tuple[int, ...]) -> Any:
    """A Dask DataFrame whose partitions hold ``sizes`` rows of ``df`` (0 allowed)."""
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    pieces = [df.iloc[a:b] for a, b in itertools.pairwise(starts)]
    return dd.from_map(lambda piece: piece, pieces, meta=df.iloc[:0])


# ------------------------------------------------------------------------------ data


def task_matrix(
    n: int = 60, t: int = 7, seed: int = 0, *, one_class: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, heavily tied scores and real weights of ``t`` tasks of ``n`` samples."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n, t)) < 0.4).astype(np.int64)
    s = rng.integers(0, 6, (n, t)).astype(np.float64) / 4
    if one_class:
        y[:, 1] = 0  # no positives
        y[:, 4] = 1  # no negatives
    w = rng.random(n) * 3
    w[::7] = 0.0
    return y, s, w


def group_frame(
    n: int = 300, n_groups: int = 9, seed: int = 1, *, real_weights: bool = False
) -> pd.DataFrame:
    """Rows of ``n_groups`` groups in no order; dyadic weights by default.

    Dyadic weights (multiples of 1/8, small) add up exactly in any order, so
    the in-process result does not depend on the order of a group's rows.
    With ``real_weights`` it does, by a few ulps: then exactness needs the
    shuffle to keep each group's rows in their input order.
    """
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n) * 3 - 5  # negative ids too, in no order
    y = (rng.random(n) < 0.35).astype(np.int64)
    s = rng.integers(0, 10, n) / 8
    w = rng.random(n) * 2 if real_weights else rng.integers(0, 24, n) / 8
    w[::5] = 0.0
    return pd.DataFrame({"y": y, "s": s, "g": g, "w": w})


def huge_task(n: int, seed: int = 2, distinct: int = 50) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.integers(0, distinct, n).astype(np.float64) / distinct + 0.5 * y
    w = rng.random(n) * 2
    w[::9] = 0.0
    return y, s, w


# ====================================================================== 1. per task


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_per_task_equals_in_process(spec: Any, average: Any, weighted: bool) -> None:
    """Also: what the in-process call rejects (weighted tie-expected AP, a threshold
    with an average), the Dask call rejects before running."""
    name, kw = spec
    y, s, w = task_matrix()
    ys = da.from_array(s, chunks=(60, 3))  # three column blocks: 3 + 3 + 1
    yt = da.from_array(y, chunks=(60, 3))
    extra = {"sample_weight": w} if weighted else {}
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, yt, ys, average=average, **extra, **kw),
            lambda: call_ref(name, y, s, average=average, **extra, **kw),
        )


@pytest.mark.parametrize("name", METRICS)
def test_per_task_variants(name: str) -> None:
    """Numpy labels, bool labels, dask weights, pos_label, one column per block."""
    y, s, w = task_matrix(n=45, t=5, seed=3)
    ds = da.from_array(s, chunks=(45, 1))
    with scheduler("synchronous"):
        # y_true as numpy: chunked like y_score.
        assert_matches(lambda: call_fd(name, y, ds, average=None),
                       lambda: call_ref(name, y, s, average=None))
        # bool labels, weights as a 1-D dask array.
        yb = y.astype(bool)
        assert_matches(
            lambda: call_fd(name, da.from_array(yb, chunks=(45, 1)), ds, average="macro",
                            sample_weight=da.from_array(w, chunks=45)),
            lambda: call_ref(name, yb, s, average="macro", sample_weight=w),
        )
        # labels {1, 2} with pos_label=2
        y12 = y + 1
        assert_matches(
            lambda: call_fd(name, da.from_array(y12, chunks=(45, 2)),
                            da.from_array(s, chunks=(45, 2)), pos_label=2, average=None),
            lambda: call_ref(name, y12, s, pos_label=2, average=None),
        )
        # one block holding every column
        assert_matches(
            lambda: call_fd(name, da.from_array(y), da.from_array(s), average="pairs",
                            sample_weight=w),
            lambda: call_ref(name, y, s, average="pairs", sample_weight=w),
        )


def test_per_task_weights_in_several_chunks() -> None:
    """A 1-D dask sample_weight of length n, itself in several chunks."""
    y, s, w = task_matrix(n=50, t=4, seed=4)
    with scheduler("synchronous"):
        got, _ = record(lambda: fd.roc_auc(da.from_array(y, chunks=(50, 2)),
                                           da.from_array(s, chunks=(50, 2)), average=None,
                                           sample_weight=da.from_array(w, chunks=20)))
    assert_same(got, fastrank.roc_auc(y, s, average=None, sample_weight=w))


@pytest.mark.parametrize("name", METRICS)
def test_per_task_micro_is_rejected(name: str) -> None:
    y, s, _ = task_matrix(n=20, t=3)
    with no_graph_may_run(), pytest.raises(ValueError):
        call_fd(name, da.from_array(y, chunks=(20, 1)), da.from_array(s, chunks=(20, 1)),
                average="micro")


@pytest.mark.parametrize("name", METRICS)
def test_samples_average_is_refused(name: str) -> None:
    """average='samples' averages each row's task in process; here the tasks are
    columns or groups, and it gave the macro average of the columns (AP 0.316 where
    the rows' mean is 0.611): refused, before any graph runs."""
    y, s, _ = task_matrix(n=20, t=3)
    with no_graph_may_run(), pytest.raises(ValueError, match="average='samples'"):
        call_fd(name, da.from_array(y, chunks=(20, 1)), da.from_array(s, chunks=(20, 1)),
                average="samples")
    with no_graph_may_run(), pytest.raises(ValueError, match="average='samples'"):
        getattr(fd, name)("y", "s", groups="g", data=frame(group_frame(n=40), (10, 30)),
                          average="samples")


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("average", [None, "macro", "weighted"])
def test_per_task_one_class_tasks(name: str, average: Any) -> None:
    """Undefined tasks: NaN, and exactly one UndefinedMetricWarning on the client."""
    y, s, _ = task_matrix(n=40, t=6, seed=5, one_class=True)
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, da.from_array(y, chunks=(40, 2)),
                            da.from_array(s, chunks=(40, 2)), average=average),
            lambda: call_ref(name, y, s, average=average),
        )
    # every task undefined
    y0 = np.zeros_like(y)
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, da.from_array(y0, chunks=(40, 4)),
                            da.from_array(s, chunks=(40, 4)), average=average),
            lambda: call_ref(name, y0, s, average=average),
        )


# ---------------------------------------------------------------------- RechunkWarning


@pytest.mark.parametrize("name", ["roc_auc", "all_metrics"])
def test_rechunk_warning_when_split_along_samples(name: str) -> None:
    y, s, w = task_matrix(n=64, t=5, seed=6)
    ys, yt = da.from_array(s, chunks=(16, 2)), da.from_array(y, chunks=(16, 2))
    assert issubclass(fd.RechunkWarning, UserWarning)
    with scheduler("synchronous"):
        got, caught = record(lambda: call_fd(name, yt, ys, average=None, sample_weight=w))
    rechunk = [c for c in caught if issubclass(c.category, fd.RechunkWarning)]
    assert len(rechunk) == 1, [str(c.message) for c in caught]
    assert "MiB" in str(rechunk[0].message)
    assert len(caught) == 1, [str(c.message) for c in caught]
    assert_same(got, call_ref(name, y, s, average=None, sample_weight=w))


def test_rechunk_warning_with_numpy_labels() -> None:
    """numpy y_true is chunked like y_score: split along samples -> one warning."""
    y, s, _ = task_matrix(n=30, t=3, seed=7)
    with scheduler("synchronous"):
        got, caught = record(lambda: fd.pr_auc(y, da.from_array(s, chunks=(10, 3)),
                                               average=None))
    assert [c.category for c in caught] == [fd.RechunkWarning]
    assert_same(got, fastrank.pr_auc(y, s, average=None))


@pytest.mark.parametrize("chunks", [(60, 1), (60, 3), (60, 7), (60, (2, 5))])
def test_no_rechunk_warning_when_split_along_tasks_only(chunks: Any) -> None:
    y, s, _ = task_matrix()
    with scheduler("synchronous"):
        got, caught = record(lambda: fd.average_precision(
            da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks), average=None))
    assert caught == [], [str(c.message) for c in caught]
    assert_same(got, fastrank.average_precision(y, s, average=None))


# ---------------------------------------------------------------------- compute=False


def test_compute_false_returns_delayed_for_every_layout() -> None:
    y, s, w = task_matrix(n=40, t=4, seed=8)
    df = group_frame(n=80)
    y1, s1, _ = huge_task(200)
    cases = [
        (lambda c: fd.roc_auc(da.from_array(y, chunks=(40, 2)), da.from_array(s, chunks=(40, 2)),
                              average=None, sample_weight=w, compute=c),
         fastrank.roc_auc(y, s, average=None, sample_weight=w), 0.0),
        (lambda c: fd.all_metrics("y", "s", groups="g", sample_weight="w",
                                  data=frame(df, (30, 0, 50)), average=None, compute=c),
         record(lambda: fastrank.all_metrics(df.y.values, df.s.values, groups=df.g.values,
                                             sample_weight=df.w.values, average=None))[0], 0.0),
        (lambda c: fd.prbe(da.from_array(y1, chunks=37), da.from_array(s1, chunks=37),
                           return_threshold=True, compute=c),
         fastrank.prbe(y1, s1, return_threshold=True), 1e-12),
        (lambda c: fd.pr_auc("y", "s", sample_weight="w", data=frame(df, (40, 40)), compute=c),
         fastrank.pr_auc(df.y.values, df.s.values, sample_weight=df.w.values), 1e-12),
    ]
    with scheduler("synchronous"):
        for fn, want, tol in cases:
            lazy = fn(False)
            assert isinstance(lazy, Delayed), type(lazy)
            assert_same(record(lazy.compute)[0], want, tol)
            assert_same(record(lambda fn=fn: fn(True))[0], want, tol)


LAZY_CALLS = [
    pytest.param(lambda: fd.roc_auc(da.from_array(np.arange(32).reshape(8, 4) % 2,
                                                  chunks=(4, 2)),
                                    da.from_array(np.ones((8, 4)), chunks=(4, 2)),
                                    average=None, compute=False), id="per task, rechunked"),
    pytest.param(lambda: fd.pr_auc("y", "s", groups="g", sample_weight="w",
                                   data=frame(group_frame(n=40), (10, 0, 30)), compute=False),
                 id="per group"),
    pytest.param(lambda: fd.all_metrics(da.from_array(np.arange(30) % 2, chunks=7),
                                        da.from_array(np.linspace(0, 1, 30), chunks=7),
                                        ranges=3, compute=False), id="one task, arrays"),
    pytest.param(lambda: fd.roc_auc("y", "s", data=frame(group_frame(n=40), (10, 0, 30)),
                                    compute=False), id="one task, frame"),
    pytest.param(lambda: fd.binned_summary(da.from_array(np.arange(30) % 2, chunks=7),
                                           da.from_array(np.linspace(0, 1, 30), chunks=7),
                                           compute=False), id="binned_summary"),
]


@pytest.mark.parametrize("make", LAZY_CALLS)
def test_compute_false_runs_nothing(make: Callable[[], Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fd.RechunkWarning)
        with no_graph_may_run():
            lazy = make()
    assert isinstance(lazy, Delayed), type(lazy)


# ====================================================================== 2. per group


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_per_group_equals_in_process(spec: Any, average: Any, weighted: bool) -> None:
    """Groups span partitions, some partitions are empty; weighted or not: exact."""
    name, kw = spec
    df = group_frame()
    data = frame(df, (0, 70, 100, 0, 0, 130))
    wkw = {"sample_weight": "w"} if weighted else {}
    ref_w = {"sample_weight": df.w.values} if weighted else {}
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, "y", "s", groups="g", data=data, average=average, **wkw, **kw),
            lambda: call_ref(name, df.y.values, df.s.values, groups=df.g.values,
                             average=average, **ref_w, **kw),
        )


def _real_weight_calls() -> Iterator[tuple[str, Any, Any]]:
    df = group_frame(real_weights=True)
    data = frame(df, (0, 70, 100, 0, 0, 130))
    with scheduler("synchronous"):
        for name in METRICS:
            for average in (None, "macro"):
                got = record(lambda name=name, a=average: call_fd(
                    name, "y", "s", groups="g", sample_weight="w", data=data, average=a))[0]
                want = record(lambda name=name, a=average: call_ref(
                    name, df.y.values, df.s.values, groups=df.g.values,
                    sample_weight=df.w.values, average=a))[0]
                yield f"{name}, average={average}", got, want


def test_per_group_real_weights_close() -> None:
    """Real (non-dyadic) weights: at least equal to 1e-12."""
    for what, got, want in _real_weight_calls():
        assert_same(got, want, 1e-12, what)


def test_per_group_real_weights_exact() -> None:
    """Spec: groups spanning partitions come out exact, weighted or not."""
    for what, got, want in _real_weight_calls():
        assert_same(got, want, 0.0, what)


def test_per_group_string_ids_and_one_class_groups() -> None:
    df = group_frame(n=120, seed=9)
    df["g"] = np.array(["b", "a", "cc", "d"], dtype=object)[np.arange(120) % 4]
    df.loc[df.g == "d", "y"] = 0  # a group without positives
    data = dd.from_pandas(df, npartitions=3)
    with scheduler("synchronous"):
        for name in METRICS:
            assert_matches(
                lambda name=name: call_fd(name, "y", "s", groups="g", data=data, average=None),
                lambda name=name: call_ref(name, df.y.values, df.s.values,
                                           groups=df.g.values.astype(object), average=None),
            )


@st.composite
def group_cases(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 36))
    pool = draw(st.sampled_from([[0.0], [0.0, 1.0], [-1.0, 0.0, 0.25, 3.0],
                                 [i / 8 for i in range(9)]]))
    s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.int64)
    g = np.array(draw(st.lists(st.integers(-2, 4), min_size=n, max_size=n)), np.int64)
    kind = draw(st.sampled_from(["none", "int", "dyadic"]))
    if kind == "int":
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.float64)
    elif kind == "dyadic":
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.5, 2.75, 8.0]),
                                   min_size=n, max_size=n)))
    else:
        w = None
    cuts = draw(st.lists(st.integers(0, n), min_size=0, max_size=5))
    spec = draw(st.sampled_from(SPECS))
    average = draw(st.sampled_from(AVERAGES))
    return {"y": y, "s": s, "g": g, "w": w, "sizes": cut_sizes(n, cuts), "spec": spec,
            "average": average}


@DASK_SETTINGS
@given(case=group_cases())
def test_per_group_property(case: dict[str, Any]) -> None:
    name, kw = case["spec"]
    w, average = case["w"], case["average"]
    if not valid(kw, w is not None, average):
        return
    cols = {"y": case["y"], "s": case["s"], "g": case["g"]}
    if w is not None:
        cols["w"] = w
    df = pd.DataFrame(cols)
    data = frame(df, case["sizes"])
    wkw = {"sample_weight": "w"} if w is not None else {}
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, "y", "s", groups="g", data=data, average=average, **wkw, **kw),
            lambda: call_ref(name, case["y"], case["s"], groups=case["g"], sample_weight=w,
                             average=average, **kw),
        )


# ====================================================================== 3. one huge task

TOL = 1e-12


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@pytest.mark.parametrize("ranges", [None, 1, 2, 100])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_one_task_equals_in_process(spec: Any, ranges: Any, weighted: bool) -> None:
    name, kw = spec
    y, s, w = huge_task(700)
    chunks = ((100, 0, 1, 250, 0, 349),)
    extra = {"sample_weight": da.from_array(w, chunks=chunks)} if weighted else {}
    with scheduler("synchronous"):
        assert_matches(
            lambda: call_fd(name, da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks),
                            ranges=ranges, **extra, **kw),
            lambda: call_ref(name, y, s, sample_weight=w if weighted else None, **kw),
            tol=TOL,
        )


def test_more_ranges_than_rows_are_as_many_as_rows() -> None:
    """ranges= beyond the task's rows (100,000 for 8): as many ranges as rows, the same
    numbers (it built a graph of 100,000 ranges a chunk: 80 s for 8 rows)."""
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    s = np.array([.3, .8, .5, .5, .9, .1, .7, .6])
    with scheduler("synchronous"):
        assert_matches(lambda: call_fd("roc_auc", da.from_array(y, chunks=3),
                                       da.from_array(s, chunks=3), ranges=100_000),
                       lambda: call_ref("roc_auc", y, s), tol=TOL)


@pytest.mark.parametrize("name", METRICS)
def test_one_task_awkward_chunkings(name: str) -> None:
    """Chunks of size 1, empty chunks from a rechunk, ties across chunk boundaries,
    all scores equal, numpy labels, data= without groups."""
    rng = np.random.default_rng(10)
    n = 24
    # sorted, heavily tied scores: every tie group straddles chunk boundaries
    s = np.sort(rng.integers(0, 6, n)).astype(np.float64)
    y = (rng.random(n) < 0.5).astype(np.int64)
    y[:2] = [0, 1]
    ds1, dy1 = da.from_array(s, chunks=1), da.from_array(y, chunks=1)
    empty = ((5, 0, 0, 11, 0, 8),)
    with scheduler("synchronous"):
        for ranges in (None, 3):
            assert_matches(lambda r=ranges: call_fd(name, dy1, ds1, ranges=r),
                           lambda: call_ref(name, y, s), tol=TOL)
        ds_e = da.from_array(s, chunks=7).rechunk(empty)
        dy_e = da.from_array(y, chunks=7).rechunk(empty)
        assert ds_e.chunks == empty
        assert_matches(lambda: call_fd(name, dy_e, ds_e, ranges=2),
                       lambda: call_ref(name, y, s), tol=TOL)
        assert_matches(lambda: call_fd(name, y, da.from_array(s, chunks=5), ranges=4),
                       lambda: call_ref(name, y, s), tol=TOL)
        flat = np.full(n, 0.25)
        assert_matches(lambda: call_fd(name, dy1[:9], da.from_array(flat[:9], chunks=1), ranges=3),
                       lambda: call_ref(name, y[:9], flat[:9]), tol=TOL)
        assert_matches(lambda: call_fd(name, dy_e, da.from_array(flat, chunks=7).rechunk(empty),
                                       ranges=100),
                       lambda: call_ref(name, y, flat), tol=TOL)
        df = pd.DataFrame({"y": y, "s": s, "w": np.arange(n) % 3 / 2})
        assert_matches(
            lambda: call_fd(name, "y", "s", sample_weight="w", data=frame(df, (10, 0, 14)),
                            ranges=2),
            lambda: call_ref(name, y, s, sample_weight=df.w.values), tol=TOL)


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("labels", ["no_pos", "no_neg"])
def test_one_task_one_class(name: str, labels: str) -> None:
    y, s, _ = huge_task(90)
    y = np.zeros_like(y) if labels == "no_pos" else np.ones_like(y)
    with scheduler("synchronous"):
        for ranges in (None, 3):
            assert_matches(
                lambda r=ranges: call_fd(name, da.from_array(y, chunks=20),
                                         da.from_array(s, chunks=20), ranges=r),
                lambda: call_ref(name, y, s), tol=TOL)


@st.composite
def huge_cases(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 40))
    dtype = draw(st.sampled_from(["float64", "float32", "int64"]))
    pool = draw(st.sampled_from([[0], [0, 1], [-3, 0, 1, 2], [0, 1, 2, 3, 4, 5, 6, 7],
                                 [-1.5, 0.25, 0.5, 1e9]]))
    if dtype == "int64":
        pool = [int(v) for v in pool]
    s = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=dtype)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.int64)
    kind = draw(st.sampled_from(["none", "int", "dyadic", "real"]))
    if kind == "int":
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.float64)
    elif kind == "dyadic":
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.5, 2.75, 8.0]),
                                   min_size=n, max_size=n)))
    elif kind == "real":
        w = np.array(draw(st.lists(st.floats(0.01, 10.0), min_size=n, max_size=n)))
    else:
        w = None
    cuts = draw(st.lists(st.integers(0, n), min_size=0, max_size=6))
    return {
        "y": y, "s": s, "w": w, "sizes": cut_sizes(n, cuts),
        "ranges": draw(st.sampled_from([None, 1, 2, 3, 100])),
        "spec": draw(st.sampled_from(SPECS)),
        "input": draw(st.sampled_from(["dask", "numpy_labels", "frame"])),
    }


@DASK_SETTINGS
@given(case=huge_cases())
def test_one_task_property(case: dict[str, Any]) -> None:
    name, kw = case["spec"]
    y, s, w, sizes = case["y"], case["s"], case["w"], case["sizes"]
    if not valid(kw, w is not None, None):
        return
    extra = dict(kw, ranges=case["ranges"])
    if case["input"] == "frame":
        cols = {"y": y, "s": s} if w is None else {"y": y, "s": s, "w": w}
        data = frame(pd.DataFrame(cols), sizes)
        wkw = {} if w is None else {"sample_weight": "w"}

        def got() -> Any:
            return call_fd(name, "y", "s", data=data, **wkw, **extra)
    else:
        chunks = (sizes,)
        yt = da.from_array(y, chunks=chunks) if case["input"] == "dask" else y
        wkw = {} if w is None else {"sample_weight": da.from_array(w, chunks=chunks)}

        def got() -> Any:
            return call_fd(name, yt, da.from_array(s, chunks=chunks), **wkw, **extra)

    with scheduler("synchronous"):
        assert_matches(got, lambda: call_ref(name, y, s, sample_weight=w, **kw), tol=TOL)


# ====================================================================== binned_summary


def _reference_summary(y: Any, s: Any, w: Any, template: Any = None,
                       **options: Any) -> fastrank.BinnedSummary:
    ref = template.empty_like() if template is not None else fastrank.BinnedSummary(**options)
    ref.update(y, s, w)
    return ref


def _check_summary(got: Any, ref: fastrank.BinnedSummary, y: Any, s: Any, w: Any,
                   weighted: bool) -> None:
    assert isinstance(got, fastrank.BinnedSummary), type(got)
    assert got.bins == ref.bins
    if weighted:
        np.testing.assert_allclose(got.positives, ref.positives, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.negatives, ref.negatives, rtol=1e-12, atol=1e-12)
    else:
        assert np.array_equal(got.positives, ref.positives)
        assert np.array_equal(got.negatives, ref.negatives)
    for metric in ("roc_auc", "average_precision", "pr_auc", "prbe"):
        bounds = got.compute(metric)
        exact = np.atleast_1d(call_ref(metric, y, s, sample_weight=w, average=None))
        low, high = np.atleast_1d(bounds.low), np.atleast_1d(bounds.high)
        assert np.all(low <= exact) and np.all(exact <= high), (metric, low, exact, high)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_binned_summary_one_d(weighted: bool) -> None:
    y, s, w = huge_task(2000, seed=11)
    s = s / 1.5
    wt = w if weighted else None
    chunks = ((300, 0, 1, 699, 1000),)
    with scheduler("synchronous"):
        got = fd.binned_summary(
            da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks),
            None if wt is None else da.from_array(wt, chunks=chunks), bins=64, split_every=2)
    _check_summary(got, _reference_summary(y, s, wt, bins=64), y, s, wt, weighted)


def test_binned_summary_two_d_and_numpy_labels() -> None:
    rng = np.random.default_rng(12)
    y = (rng.random((500, 3)) < 0.4).astype(np.int64)
    s = rng.random((500, 3))
    with scheduler("synchronous"):
        got = fd.binned_summary(da.from_array(y, chunks=(90, 3)),
                                da.from_array(s, chunks=(90, 3)), bins=32)
        got_np = fd.binned_summary(y, da.from_array(s, chunks=(120, 3)), bins=32,
                                   split_every=3)
    ref = _reference_summary(y, s, None, bins=32)
    _check_summary(got, ref, y, s, None, False)
    _check_summary(got_np, ref, y, s, None, False)


def test_binned_summary_template_and_compute_false() -> None:
    y, s, _ = huge_task(1500, seed=13)
    template = fastrank.BinnedSummary.fit(y[:400], s[:400], bins=20)
    chunks = 128
    with scheduler("synchronous"):
        lazy = fd.binned_summary(da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks),
                                 summary=template, compute=False)
        assert isinstance(lazy, Delayed), type(lazy)
        got = lazy.compute()
    ref = _reference_summary(y, s, None, template=template)
    assert np.array_equal(got.edges, template.edges)
    _check_summary(got, ref, y, s, None, False)
    # quantized: exact summaries, estimate == exact metric
    q = (s * 40).astype(np.uint8)
    with scheduler("synchronous"):
        got_q = fd.binned_summary(da.from_array(y, chunks=chunks), da.from_array(q, chunks=chunks),
                                  quantized="uint8")
    auc = got_q.compute("roc_auc")
    assert auc.exact and _close(auc.estimate, fastrank.roc_auc(y, q), 1e-12)


# ====================================================================== threads setting


def _layout_calls(threads: Any) -> list[tuple[Callable[[], Any], Any, float]]:
    y, s, w = task_matrix(n=50, t=6, seed=14)
    df = group_frame(n=120, seed=15)
    y1, s1, _ = huge_task(300, seed=16)
    return [
        (lambda: fd.roc_auc(da.from_array(y, chunks=(50, 2)), da.from_array(s, chunks=(50, 2)),
                            average=None, sample_weight=w, threads=threads),
         fastrank.roc_auc(y, s, average=None, sample_weight=w), 0.0),
        (lambda: fd.average_precision("y", "s", groups="g", data=frame(df, (50, 0, 70)),
                                      average=None, threads=threads),
         fastrank.average_precision(df.y.values, df.s.values, groups=df.g.values, average=None),
         0.0),
        (lambda: fd.all_metrics(da.from_array(y1, chunks=60), da.from_array(s1, chunks=60),
                                ranges=3, threads=threads),
         fastrank.all_metrics(y1, s1), TOL),
        (lambda: fd.binned_summary(da.from_array(y1, chunks=60), da.from_array(s1 / 1.5, chunks=60),
                                   bins=10).positives,
         _reference_summary(y1, s1 / 1.5, None, bins=10).positives, 0.0),
    ]


@pytest.mark.parametrize("sched", ["synchronous", "threads"])
@pytest.mark.parametrize("threads", [1, 2, None])
def test_numba_threads_restored(sched: str, threads: Any) -> None:
    before = numba.get_num_threads()
    calls = _layout_calls(threads)
    try:
        for setting in (before, 1):
            numba.set_num_threads(setting)
            with scheduler(sched):
                for fn, want, tol in calls:
                    assert_same(fn(), want, tol)
                    assert numba.get_num_threads() == setting
    finally:
        numba.set_num_threads(before)


def test_numba_threads_restored_after_an_error() -> None:
    before = numba.get_num_threads()
    s = np.arange(30, dtype=np.float64)
    s[17] = np.nan
    with scheduler("synchronous"), pytest.raises(ValueError):
        fd.roc_auc(np.arange(30) % 2, da.from_array(s, chunks=10), threads=2)
    assert numba.get_num_threads() == before


# ====================================================================== bad input


def _unknown_chunks() -> Any:
    x = da.from_array(np.linspace(0, 1, 40), chunks=10)
    return x[x > 0.5]


def test_the_no_graph_scheduler_fires() -> None:
    """Sanity check of the guard used below: a valid call does run a graph."""
    y, s, _ = huge_task(40)
    with no_graph_may_run(), pytest.raises(AssertionError, match="graph ran"):
        fd.roc_auc(da.from_array(y, chunks=10), da.from_array(s, chunks=10))


BAD_ARRAYS: list[tuple[str, Callable[[], tuple[tuple[Any, ...], dict[str, Any]]], Any, str]] = [
    ("unknown chunks score", lambda: ((np.ones(20), _unknown_chunks()), {}),
     ValueError, "compute_chunk_sizes"),
    ("unknown chunks labels", lambda: ((_unknown_chunks() > 0.7, _unknown_chunks()), {}),
     ValueError, "compute_chunk_sizes"),
    ("chunked differently 1-D",
     lambda: ((da.from_array(np.arange(40) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=8)), {}),
     ValueError, "chunked differently"),
    ("chunked differently 2-D",
     lambda: ((da.from_array(np.ones((20, 4), int), chunks=(20, 2)),
               da.from_array(np.ones((20, 4)), chunks=(20, 1))), {"average": None}),
     ValueError, "chunked differently"),
    ("shape mismatch 1-D",
     lambda: ((da.from_array(np.arange(30) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=10)), {}), ValueError, ""),
    ("shape mismatch numpy labels",
     lambda: ((np.arange(30) % 2, da.from_array(np.linspace(0, 1, 40), chunks=10)), {}),
     ValueError, ""),
    ("shape mismatch 2-D",
     lambda: ((np.ones((20, 3), int), da.from_array(np.ones((20, 4)), chunks=(20, 2))),
              {"average": None}), ValueError, ""),
    ("weights length",
     lambda: ((da.from_array(np.arange(40) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=10)),
              {"sample_weight": np.ones(39)}), ValueError, ""),
    ("weights length 2-D",
     lambda: ((np.ones((20, 4), int), da.from_array(np.ones((20, 4)), chunks=(20, 2))),
              {"sample_weight": da.from_array(np.ones(21), chunks=21)}), ValueError, ""),
    ("string scores",
     lambda: ((np.arange(4) % 2, da.from_array(np.array(["a", "b", "c", "d"]), chunks=2)), {}),
     TypeError, ""),
    ("object scores",
     lambda: ((np.arange(4) % 2,
               da.from_array(np.array([0.1, 0.2, 0.3, 0.4], dtype=object), chunks=2)), {}),
     TypeError, ""),
    ("numpy scores", lambda: ((np.arange(4) % 2, np.linspace(0, 1, 4)), {}), TypeError, ""),
    ("groups without data",
     lambda: ((da.from_array(np.arange(40) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=10)), {"groups": np.arange(40) % 3}),
     ValueError, ""),
    ("threads=0",
     lambda: ((da.from_array(np.arange(40) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=10)), {"threads": 0}),
     ValueError, ""),
    ("ranges=0",
     lambda: ((da.from_array(np.arange(40) % 2, chunks=10),
               da.from_array(np.linspace(0, 1, 40), chunks=10)), {"ranges": 0}),
     ValueError, ""),
]


@pytest.mark.parametrize("compute", [True, False], ids=["compute", "lazy"])
@pytest.mark.parametrize("name", ["roc_auc", "all_metrics"])
@pytest.mark.parametrize("case", BAD_ARRAYS, ids=[c[0] for c in BAD_ARRAYS])
def test_bad_arrays_raise_before_running(case: Any, name: str, compute: bool) -> None:
    _, make, exc, match = case
    args, kw = make()
    with no_graph_may_run(), pytest.raises(exc, match=match or None):
        call_fd(name, *args, compute=compute, **kw)


def _ddf() -> Any:
    df = group_frame(n=40)
    df["label"] = np.where(df.y == 1, "pos", "neg")
    return dd.from_pandas(df, npartitions=2)



BAD_FRAMES = [
    pytest.param(lambda: (("y", "nope_score"), {"data": _ddf(), "groups": "nope_group"}),
                 ValueError, "(?s)(nope_score.*nope_group|nope_group.*nope_score)",
                 id="missing columns"),
    pytest.param(lambda: (("nope_y", "s"), {"data": _ddf(), "groups": "g",
                                            "sample_weight": "nope_w"}),
                 ValueError, "(?s)(nope_y.*nope_w|nope_w.*nope_y)",
                 id="missing label and weight columns"),
    pytest.param(lambda: (("y", "nope_score"), {"data": _ddf(), "sample_weight": "nope_w"}),
                 ValueError, "(?s)(nope_score.*nope_w|nope_w.*nope_score)",
                 id="missing columns, one task"),
    pytest.param(lambda: (("y", "s"), {"data": _ddf(), "sample_weight": "nope_w"}),
                 ValueError, "nope_w", id="missing weight column, one task"),
    pytest.param(lambda: (("y", "label"), {"data": _ddf(), "groups": "g"}), TypeError, None,
                 id="string score column"),
    pytest.param(lambda: (("y", "label"), {"data": _ddf()}), TypeError, None,
                 id="string score column, one task"),
    pytest.param(lambda: (("y", "s"), {"data": _ddf().compute(), "groups": "g"}), TypeError, None,
                 id="pandas frame"),
    pytest.param(lambda: (("y", "s"), {"data": _ddf().compute()}), TypeError, None,
                 id="pandas frame, one task"),
    pytest.param(lambda: ((_ddf()["y"], "s"), {"data": _ddf(), "groups": "g"}), TypeError, None,
                 id="series as column"),
    pytest.param(lambda: (("y", da.from_array(np.ones(40), chunks=20)), {"data": _ddf()}),
                 TypeError, None, id="array as score column"),
    pytest.param(lambda: (("y", "s"), {"data": _ddf(), "groups": ["g"]}), TypeError, None,
                 id="list as groups"),
    pytest.param(lambda: (("y", "s"), {"data": _ddf(), "groups": "g", "sample_weight": 3}),
                 TypeError, None, id="int as weight column"),
]


@pytest.mark.parametrize(("name", "compute"), [("average_precision", True), ("prbe", False)])
@pytest.mark.parametrize(("make", "exc", "match"), BAD_FRAMES)
def test_bad_frames_raise_before_running(
    make: Any, exc: Any, match: Any, name: str, compute: bool
) -> None:
    args, kw = make()
    with no_graph_may_run(), pytest.raises(exc, match=match or None):
        call_fd(name, *args, compute=compute, **kw)


def test_bad_input_to_binned_summary() -> None:
    with no_graph_may_run():
        with pytest.raises(ValueError, match="compute_chunk_sizes"):
            fd.binned_summary(np.ones(20), _unknown_chunks())
        with pytest.raises(ValueError, match="chunked differently"):
            fd.binned_summary(da.from_array(np.arange(40) % 2, chunks=10),
                              da.from_array(np.linspace(0, 1, 40), chunks=8))


# ====================================================================== run-time errors


def test_runtime_errors_name_the_block() -> None:
    y, s, _ = task_matrix(n=20, t=6, seed=17)
    s = s.copy()
    s[5, 3] = np.nan
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"tasks 2\.\.[34]\b"):
        fd.roc_auc(da.from_array(y, chunks=(20, 2)), da.from_array(s, chunks=(20, 2)),
                   average=None)
    y = y.copy()
    y[7, 5] = 3  # a label outside {0, 1}
    s[5, 3] = 0.5
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"tasks 4\.\.[56]\b"):
        fd.average_precision(da.from_array(y, chunks=(20, 2)), da.from_array(s, chunks=(20, 2)),
                             average="macro")


def test_runtime_errors_name_the_partition() -> None:
    df = group_frame(n=60, seed=18)
    bad = df.copy()
    bad.loc[33, "s"] = np.nan
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"partition \d+"):
        fd.roc_auc("y", "s", groups="g", data=frame(bad, (20, 20, 20)), average=None)
    bad = df.copy()
    bad.loc[45, "y"] = 2
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"partition \d+"):
        fd.pr_auc("y", "s", groups="g", data=frame(bad, (20, 0, 40)))
    bad = df.copy()
    bad.loc[3, "w"] = -1.0
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"partition \d+"):
        fd.prbe("y", "s", groups="g", sample_weight="w", data=frame(bad, (30, 30)))


def test_runtime_errors_name_the_chunk() -> None:
    y, s, w = huge_task(100, seed=19)
    bad = s.copy()
    bad[25] = np.nan
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"chunk 2\b"):
        fd.roc_auc(da.from_array(y, chunks=10), da.from_array(bad, chunks=10))
    bad = s.copy()
    bad[95] = np.inf
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"chunk 9\b"):
        fd.all_metrics(y, da.from_array(bad, chunks=10), ranges=2)
    bady = y.copy()
    bady[12] = 5
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"chunk 1\b"):
        fd.average_precision(da.from_array(bady, chunks=10), da.from_array(s, chunks=10))
    badw = w.copy()
    badw[41] = -2.0
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"chunk 4\b"):
        fd.pr_auc(da.from_array(y, chunks=10), da.from_array(s, chunks=10),
                  sample_weight=da.from_array(badw, chunks=10))
    df = pd.DataFrame({"y": y, "s": s})
    df.loc[70, "s"] = np.nan
    with scheduler("synchronous"), pytest.raises(ValueError, match=r"chunk \d+|partition \d+"):
        fd.roc_auc("y", "s", data=frame(df, (50, 50)))


# ====================================================================== threaded scheduler


@pytest.mark.parametrize("name", METRICS)
def test_threaded_scheduler_all_layouts(name: str) -> None:
    y, s, w = task_matrix(n=200, t=12, seed=20, one_class=True)
    df = group_frame(n=400, seed=21)
    y1, s1, w1 = huge_task(3000, seed=22)
    with scheduler("threads"):
        assert_matches(
            lambda: call_fd(name, da.from_array(y, chunks=(200, 1)),
                            da.from_array(s, chunks=(200, 1)), average=None, sample_weight=w,
                            threads=None),
            lambda: call_ref(name, y, s, average=None, sample_weight=w))
        assert_matches(
            lambda: call_fd(name, "y", "s", groups="g", sample_weight="w",
                            data=frame(df, (100, 0, 150, 150)), average="weighted", threads=2),
            lambda: call_ref(name, df.y.values, df.s.values, groups=df.g.values,
                             sample_weight=df.w.values, average="weighted"))
        assert_matches(
            lambda: call_fd(name, da.from_array(y1, chunks=250), da.from_array(s1, chunks=250),
                            sample_weight=da.from_array(w1, chunks=250), ranges=5),
            lambda: call_ref(name, y1, s1, sample_weight=w1), tol=TOL)


# ====================================================================== LocalCluster


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.parametrize("name", METRICS)
def test_cluster_per_task(client: Any, name: str) -> None:
    y, s, w = task_matrix(n=3000, t=24, seed=23, one_class=True)
    ys, yt = da.from_array(s, chunks=(3000, 5)), da.from_array(y, chunks=(3000, 5))
    for average in (None, "macro", "pairs"):
        assert_matches(
            lambda a=average: call_fd(name, yt, ys, average=a, sample_weight=w),
            lambda a=average: call_ref(name, y, s, average=a, sample_weight=w))
    # split along samples: one RechunkWarning on the client, result still exact
    got, caught = record(lambda: call_fd(name, da.from_array(y, chunks=(700, 8)),
                                         da.from_array(s, chunks=(700, 8)), average=None))
    assert [c.category for c in caught].count(fd.RechunkWarning) == 1
    assert [c.category for c in caught].count(UndefinedMetricWarning) == 1
    assert_same(got, record(lambda: call_ref(name, y, s, average=None))[0])


@pytest.mark.parametrize("name", METRICS)
def test_cluster_per_group(client: Any, name: str) -> None:
    df = group_frame(n=20_000, n_groups=40, seed=24)
    df.loc[df.g == 7, "y"] = 0  # one group without positives
    data = frame(df, (5000, 0, 7000, 8000, 0))
    for average in (None, "size"):
        for weighted in (False, True):
            wkw = {"sample_weight": "w"} if weighted else {}
            ref_w = {"sample_weight": df.w.values} if weighted else {}
            assert_matches(
                lambda a=average, k=wkw: call_fd(name, "y", "s", groups="g", data=data,
                                                 average=a, **k),
                lambda a=average, k=ref_w: call_ref(name, df.y.values, df.s.values,
                                                    groups=df.g.values, average=a, **k))


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_cluster_one_task(client: Any, spec: Any) -> None:
    name, kw = spec
    y, s, w = huge_task(150_000, seed=25, distinct=997)
    chunks = ((20_000, 0, 1, 39_999, 45_000, 45_000),)
    dy, ds = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    for ranges in (None, 2, 7):
        assert_matches(lambda r=ranges: call_fd(name, dy, ds, ranges=r, **kw),
                       lambda: call_ref(name, y, s, **kw), tol=TOL)
    if kw.get("ties") != "expected":
        assert_matches(
            lambda: call_fd(name, dy, ds, sample_weight=da.from_array(w, chunks=chunks),
                            ranges=3, **kw),
            lambda: call_ref(name, y, s, sample_weight=w, **kw), tol=TOL)


def test_cluster_one_class_and_compute_false(client: Any) -> None:
    y, s, _ = huge_task(5000, seed=26)
    y0 = np.zeros_like(y)
    for name in METRICS:
        assert_matches(
            lambda name=name: call_fd(name, da.from_array(y0, chunks=900),
                                      da.from_array(s, chunks=900), ranges=3),
            lambda name=name: call_ref(name, y0, s), tol=TOL)
    lazy = fd.roc_auc(da.from_array(y, chunks=700), da.from_array(s, chunks=700), compute=False)
    assert isinstance(lazy, Delayed)
    assert_same(lazy.compute(), fastrank.roc_auc(y, s), TOL)
    assert_same(client.compute(lazy).result(), fastrank.roc_auc(y, s), TOL)


def test_cluster_binned_summary_and_errors(client: Any) -> None:
    y, s, _ = huge_task(50_000, seed=27)
    s = s / 1.5
    got = fd.binned_summary(da.from_array(y, chunks=4000), da.from_array(s, chunks=4000),
                            bins=100, split_every=3)
    _check_summary(got, _reference_summary(y, s, None, bins=100), y, s, None, False)
    bad = s.copy()
    bad[30_123] = np.nan
    with pytest.raises(ValueError, match=r"chunk 7\b"):
        fd.roc_auc(da.from_array(y, chunks=4000), da.from_array(bad, chunks=4000))
    yt, st_, _ = task_matrix(n=100, t=9, seed=28)
    st_ = st_.copy()
    st_[4, 7] = np.nan
    with pytest.raises(ValueError, match=r"tasks 6\.\.[78]\b"):
        fd.roc_auc(da.from_array(yt, chunks=(100, 3)), da.from_array(st_, chunks=(100, 3)),
                   average=None)
    df = group_frame(n=200, seed=29)
    df.loc[150, "s"] = np.inf
    with pytest.raises(ValueError, match=r"partition \d+"):
        fd.roc_auc("y", "s", groups="g", data=frame(df, (100, 100)), average=None)


def test_cluster_numba_threads_restored(client: Any) -> None:
    before = numba.get_num_threads()
    for threads in (1, 2, None):
        for fn, want, tol in _layout_calls(threads):
            assert_same(fn(), want, tol)
            assert numba.get_num_threads() == before


@pytest.mark.parametrize("layout", ["per_task", "one_task"])
def test_cluster_survives_a_killed_worker(client: Any, layout: str) -> None:
    """Kill one worker process mid-way: the nanny restarts it and the result is exact."""
    def _slow(block: np.ndarray) -> np.ndarray:  # a closure: pickled by value
        time.sleep(0.15)
        return block

    rng = np.random.default_rng(30)
    if layout == "per_task":
        y = (rng.random((4000, 24)) < 0.3).astype(np.int64)
        s = rng.integers(0, 300, (4000, 24)) / 300.0
        lazy_s = da.from_array(s, chunks=(4000, 1)).map_blocks(_slow, dtype=s.dtype)
        lazy = fd.roc_auc(da.from_array(y, chunks=(4000, 1)), lazy_s, average=None,
                          compute=False)
        want = fastrank.roc_auc(y, s, average=None)
        tol = 0.0
    else:
        y = (rng.random(240_000) < 0.3).astype(np.int64)
        s = rng.integers(0, 5000, 240_000) / 5000.0
        lazy_s = da.from_array(s, chunks=10_000).map_blocks(_slow, dtype=s.dtype)
        lazy = fd.average_precision(da.from_array(y, chunks=10_000), lazy_s, ranges=4,
                                    compute=False)
        want = fastrank.average_precision(y, s)
        tol = TOL
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    future = client.compute(lazy)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        held = client.has_what().get(victim, ())
        if len(held) >= 2 or future.done():
            break
        time.sleep(0.02)
    killed_mid_way = not future.done()
    os.kill(pids[victim], signal.SIGKILL)
    assert_same(future.result(timeout=60), want, tol)
    assert killed_mid_way, "the computation finished before the worker was killed"
    client.wait_for_workers(2, timeout=30)
    assert pids[victim] not in client.run(os.getpid).values()  # the nanny started a new one


# ---------------------------------------------------------------- two threads per worker


def test_worker_with_two_threads() -> None:
    """Both threads of one worker run Numba kernels at once: no crash, exact results."""
    rng = np.random.default_rng(31)
    n, t = 70_000, 8
    y = (rng.random((n, t)) < 0.3).astype(np.int8)
    s = rng.integers(0, 1000, (n, t)).astype(np.float32)
    y1 = y[:, :2].ravel().astype(np.int64)  # one task of 2n samples
    s1 = s[:, :2].ravel().astype(np.float64)
    df = pd.DataFrame({"y": y1, "s": s1, "g": np.arange(2 * n) % 5})
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as c2,
        c2.as_current(),
    ):
        before = numba.get_num_threads()
        for threads in (2, None, 1):
            got = fd.roc_auc(da.from_array(y, chunks=(n, 1)), da.from_array(s, chunks=(n, 1)),
                             average=None, threads=threads)
            assert_same(got, fastrank.roc_auc(y, s, average=None))
            got = fd.average_precision(da.from_array(y1, chunks=n // 2),
                                       da.from_array(s1, chunks=n // 2), ranges=4,
                                       threads=threads)
            assert_same(got, fastrank.average_precision(y1, s1), TOL)
            got = fd.pr_auc("y", "s", groups="g", data=dd.from_pandas(df, npartitions=4),
                            average=None, threads=threads)
            assert_same(got, fastrank.pr_auc(y1, s1, groups=df.g.values, average=None))
            assert numba.get_num_threads() == before
