"""The numpy sweep a first call takes while the sweep kernel is not compiled
(:mod:`fastrank._core.first_calls`) against that kernel: the same ``OUT_*`` row,
bit for bit, and the same break-even score bits, on tasks full of ties in every
canonical dtype (signed zeros, integer extremes), with and without a partial
AUC's budget, one class or both."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastrank._core import carried, engine, first_calls, inputs, tie_tables

sys.path.insert(0, str(Path(__file__).parent))
from fresh import assert_prints_ok
from strategies import PROPERTY_SETTINGS, cases

MAX_FPRS = [1.0, 0.5, 0.3, 0.1, 1e-3, 0.999999]


def _same(t: inputs.Task, max_fpr: float) -> None:
    for what in (0, 1, 2, 3):  # WANT_PR_AUC, WANT_EXPECTED_AP, both
        got, got_key = first_calls.sweep_row(t, max_fpr, what)
        want, want_key = engine._one_range(t, max_fpr, what)
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), (what, got, want)
        assert got_key == want_key
    if max_fpr == 1.0:  # the tie tables, against the table kernel's
        chosen = first_calls.table_by_numpy
        ways = []
        try:
            for numpy_way in (False, True):
                first_calls.table_by_numpy = lambda t, way=numpy_way: way  # type: ignore[misc]
                ways.append([tie_tables.task_table(t, runs) for runs in (False, True)]
                            + [tie_tables.cumulative_runs(t)])
        finally:
            first_calls.table_by_numpy = chosen  # type: ignore[assignment]
        kernel, tables = ways
        for table, want in zip(tables, kernel, strict=True):
            for a, b in zip(table, want, strict=True):
                assert a.dtype == b.dtype
                assert np.array_equal(a, b), (table, want)
    for table in (first_calls.tie_table(t), first_calls.tie_table(t, runs=True)):
        _same_table_row(table, max_fpr)


@contextlib.contextmanager
def _kernels_only() -> Iterator[None]:
    """Every stand-in off: the kernels compute (compiling here if need be)."""
    chosen = {name: getattr(first_calls, name) for name in _CHOOSERS}
    try:
        for name in _CHOOSERS:
            setattr(first_calls, name, lambda *args: False)
        yield
    finally:
        for name, f in chosen.items():
            setattr(first_calls, name, f)


_CHOOSERS = ("sweep_by_numpy", "batch_by_numpy", "table_by_numpy", "table_row_by_numpy",
             "groups_by_numpy", "resamples_by_numpy", "read_by_python", "weighted_by_python")


def _same_table_row(table: tuple, max_fpr: float) -> None:
    """A stored table's row by numpy against the table kernels' (engine.table_metrics)."""
    for what in (0, 1, 2, 3):
        got, got_key = first_calls.table_row(table, max_fpr, what)
        with _kernels_only():
            want, want_key = engine.table_metrics(table, max_fpr, what)
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), (what, got, want)
        assert got_key == want_key


@PROPERTY_SETTINGS
@given(entries=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30),
       max_fpr=st.sampled_from(MAX_FPRS))
def test_numpy_table_row_equals_the_kernel(entries: list, max_fpr: float) -> None:
    """Tables as stored (empty entries, runs of either class), not only a task's."""
    gpos = np.array([p for p, _ in entries], np.float64)
    gneg = np.array([q for _, q in entries], np.float64)
    gkey = np.arange(len(entries), 0, -1).astype(np.uint64) * np.uint64(2**40)
    _same_table_row((gkey, gpos, gneg), max_fpr)


@PROPERTY_SETTINGS
@given(case=cases(weight_kinds=("none",), classes="any", max_size=60, max_distinct=6),
       max_fpr=st.sampled_from(MAX_FPRS))
def test_numpy_sweep_equals_the_kernel(case, max_fpr: float) -> None:
    _same(inputs.task(case.y_true, case.y_score, None, case.pos_label), max_fpr)


def _same_weighted(t: inputs.Task, max_fpr: float) -> int:
    """A weighted task's row by the kernels' code as Python against the kernels'
    (the engine's path, one range); how many rows the stand-in gave (0: weights
    with bits below their class's unit, left to the kernels)."""
    given = 0
    for what in (0, 1, 2, 3):
        got = first_calls.weighted_row(t, max_fpr, what)
        with _kernels_only():
            want, want_key = engine.task_row(t, max_fpr, what)
        if got is None:
            continue
        given += 1
        assert np.array_equal(got[0].view(np.uint64), want.view(np.uint64)), (what, got, want)
        assert got[1] == want_key
    table = first_calls.weighted_table(t)
    assert table is not None or given == 0  # (a table needs no mixed units' arithmetic)
    if table is not None:
        with _kernels_only():
            want_table = tie_tables.task_table(t)
        for a, b in zip(table, want_table, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b), (table, want_table)
    return given


@PROPERTY_SETTINGS
@given(case=cases(weight_kinds=("int", "real", "dyadic"), classes="any", max_size=60,
                  max_distinct=6), max_fpr=st.sampled_from(MAX_FPRS))
def test_weighted_rows_in_python_equal_the_kernels(case, max_fpr: float) -> None:
    t = inputs.task(case.y_true, case.y_score, case.sample_weight, case.pos_label)
    if t.weights is not None:
        assert _same_weighted(t, max_fpr) == 4  # ordinary weights: the stand-in's


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_weighted_nonfinite_scores_raise_as_the_kernel_path(
        bad: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """A NaN or infinite score of a weighted task: the error naming it, stand-in or not
    (each class is checked before its sort, as the kernels' sort checks its ends)."""
    import fastrank
    from fastrank._core import one_call

    monkeypatch.setattr(one_call, "wanted", lambda t: False)  # the engine's way, as cold
    y, s, w = [1, 0, 1, 0], [0.4, bad, 0.2, 0.1], [1.0, 2.0, 0.5, 1.0]
    errors, used = [], []
    for force in (True, False):
        monkeypatch.setattr(first_calls, "weighted_by_python",
                            lambda t, f=force: used.append(f) or (f and t.weights is not None))
        for call in (fastrank.roc_auc, fastrank.roc_curve):
            with pytest.raises(ValueError) as info:
                call(y, s, sample_weight=w)
            errors.append(str(info.value))
    assert errors[:2] == errors[2:] and "index 1" in errors[0], errors
    assert used.count(True) == 2  # both calls asked for the stand-in


@pytest.mark.parametrize("w", [[1e-300, 1e300, 1e300, 1e300], [1e300, 1e-300, 1e-300, 1e-300],
                               [1e-300, 1.0, 2.0, 1e-300], [5e-324, 1.0, 1.0, 1.0]])
def test_extreme_weights_in_python_equal_the_kernels(w: list[float]) -> None:
    """Weights far apart (each class in its own unit; a subnormal weight): the stand-in
    gives the kernels' numbers or leaves the task to them, and never raises (Python's
    math.ldexp raised OverflowError where compiled code gives inf)."""
    import fastrank

    y, s = [1, 0, 0, 0], [0.9, 0.1, 0.5, 0.3]
    t = inputs.task(y, s, w)
    for max_fpr in (1.0, 0.5):
        _same_weighted(t, max_fpr)
    chosen = first_calls.weighted_by_python
    try:
        first_calls.weighted_by_python = lambda t: t.weights is not None  # type: ignore
        got = [fastrank.roc_auc(y, s, sample_weight=w), fastrank.all_metrics(y, s,
                                                                             sample_weight=w)]
    finally:
        first_calls.weighted_by_python = chosen  # type: ignore[assignment]
    with _kernels_only():
        want = [fastrank.roc_auc(y, s, sample_weight=w), fastrank.all_metrics(y, s,
                                                                              sample_weight=w)]
    assert repr(got) == repr(want)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3000),
       levels=st.sampled_from([2, 40, 0]), share=st.sampled_from([0.0, 0.02, 0.3, 1.0]),
       dtype=st.sampled_from(["float64", "float32", "int64"]),
       spread=st.sampled_from([1.0, 1e-30, 1e30, 0.0]), max_fpr=st.sampled_from(MAX_FPRS))
def test_weighted_rows_in_python_at_size(seed: int, n: int, levels: int, share: float,
                                         dtype: str, spread: float, max_fpr: float) -> None:
    """Larger weighted tasks, weights of one scale or spread over 2**+-100 (some then
    below their class's unit: left to the kernels), zero weights among them."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    s = (rng.integers(0, levels, n) if levels else rng.standard_normal(n) * 1e3).astype(dtype)
    w = rng.random(n) * (spread or 1.0)
    if spread == 0.0:
        w *= np.ldexp(1.0, rng.integers(-100, 100, n))
    w[rng.random(n) < 0.1] = 0.0
    if not w.any():
        return
    _same_weighted(inputs.task(y, s, w), max_fpr)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5000),
       levels=st.sampled_from([2, 5, 40, 1000, 0]),
       share=st.sampled_from([0.0, 0.02, 0.3, 0.7, 1.0]),
       dtype=st.sampled_from(["float64", "float32", "int64", "uint64"]),
       max_fpr=st.sampled_from(MAX_FPRS))
def test_numpy_sweep_equals_the_kernel_at_size(seed: int, n: int, levels: int, share: float,
                                               dtype: str, max_fpr: float) -> None:
    """Long runs of one class (the kernel hands those over in bulk, cutting out the
    break-even group and the group where the partial AUC's budget runs out)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    if levels:
        s = rng.integers(0, levels, n) - levels // 2
        s = s.astype(dtype) if dtype != "uint64" else (s + levels).astype(dtype)
    else:
        s = rng.standard_normal(n).astype(dtype) if dtype.startswith("float") else \
            rng.integers(0, 2**62, n).astype(dtype)
    _same(inputs.task(y, s), max_fpr)


def _outputs(x: object) -> list[np.ndarray]:
    """Every array of a result (dicts of arrays, tuples, arrays), as uint64 bits."""
    if hasattr(x, "as_dict"):  # all_metrics' BatchMetrics
        x = x.as_dict()
    elif hasattr(x, "groups"):  # a per-group result
        x = x.values  # type: ignore[attr-defined]
    if isinstance(x, dict):
        return [a for k in sorted(x) if isinstance(x[k], np.ndarray) for a in _outputs(x[k])]
    if isinstance(x, tuple | list):
        return [a for v in x for a in _outputs(v)]
    a = np.asarray(x, dtype=np.float64)
    return [a.view(np.uint64)]


@pytest.mark.filterwarnings("ignore::fastrank.exceptions.UndefinedMetricWarning")
@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), t=st.integers(65, 140),
       levels=st.sampled_from([2, 7, 0]), share=st.sampled_from([0.02, 0.3, 0.9]),
       dtype=st.sampled_from(["float64", "float32", "int64"]),
       form=st.sampled_from(["columns", "fortran", "groups", "classes"]))
def test_a_small_batch_by_numpy_equals_the_batch_kernel(seed: int, n: int, t: int, levels: int,
                                                        share: float, dtype: str,
                                                        form: str) -> None:
    """A batch's tasks one by one through the numpy sweep (a first call's way while no
    kernel is compiled) against the batch kernel: every number and threshold."""
    import fastrank

    rng = np.random.default_rng(seed)
    shape = (n, t) if form in ("columns", "fortran") else (n * t // 10 + 1,)
    raw = rng.integers(0, levels, shape) if levels else rng.standard_normal(shape) * 1e3
    s = raw.astype(dtype)
    if form == "fortran":
        s = np.asfortranarray(s)
    y = rng.random(shape) < share
    if form == "columns" or form == "fortran":
        def call(metric: str) -> object:
            return getattr(fastrank, metric)(y, s, average=None)
    elif form == "groups":
        g = rng.integers(0, t, shape[0])

        def call(metric: str) -> object:
            return getattr(fastrank, metric)(y, s, groups=g, average=None)
    else:
        k = rng.integers(0, t, shape[0])
        scores = rng.random((shape[0], t)).round(1).astype(dtype)

        def call(metric: str) -> object:
            return getattr(fastrank, metric)(k, scores, labels=np.arange(t), average=None)
    metrics = ["average_precision", "roc_auc", "all_metrics"]
    with _kernels_only():
        want = [_outputs(call(m)) for m in metrics]
    saved = (first_calls.batch_by_numpy, first_calls.steps_ready, first_calls.BUDGET)
    count = [0]
    row = first_calls.sweep_row

    def counted(*args: object) -> object:
        count[0] += 1
        return row(*args)  # type: ignore[arg-type]

    try:
        first_calls.batch_by_numpy = lambda b: True  # type: ignore[assignment]
        first_calls.steps_ready = lambda dtype: False  # type: ignore[assignment]
        first_calls.BUDGET = float("inf")
        first_calls.sweep_row = counted  # type: ignore[assignment]
        got = [_outputs(call(m)) for m in metrics]
    finally:
        first_calls.batch_by_numpy, first_calls.steps_ready, first_calls.BUDGET = saved
        first_calls.sweep_row = row  # type: ignore[assignment]
    assert count[0] > 0
    for g, w in zip(got, want, strict=True):
        assert len(g) == len(w)
        for a, b in zip(g, w, strict=True):
            assert np.array_equal(a, b)


def _readouts(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, bound: float) -> list:
    import fastrank as fr

    calls = [lambda: fr.partial_roc_auc(y, s, fpr=(0, bound), sample_weight=w),
             lambda: fr.partial_roc_auc(y, s, tpr=(bound, 1.0), correct=True, sample_weight=w),
             lambda: fr.partial_roc_auc(y, s, fpr=(0.1, 0.6), tpr=(0.2, 0.9), sample_weight=w),
             lambda: fr.partial_pr_auc(y, s, recall=(0.2, bound), sample_weight=w)]
    for interp in (False, True):
        for f in (fr.sensitivity_at_specificity, fr.specificity_at_sensitivity,
                  fr.recall_at_precision, fr.precision_at_recall):
            calls.append(lambda f=f, i=interp: f(y, s, bound, interpolate=i, sample_weight=w))
    for crit in ("youden", "closest_topleft", "f1", "mcc", "f_beta"):
        calls.append(lambda c=crit: fr.best_cutoff(y, s, c, sample_weight=w))
    got = []
    for c in calls:
        try:
            got.append(repr(c()))
        except ValueError as e:
            got.append(str(e))
    return got


@pytest.mark.filterwarnings("ignore::fastrank.exceptions.UndefinedMetricWarning")
@PROPERTY_SETTINGS
@given(case=cases(classes="any", max_size=40, max_distinct=6,
                  dtypes=("float64", "float32", "int64", "uint64", "bool")),
       bound=st.sampled_from([0.0, 0.05, 0.5, 0.8, 1.0]))
def test_readouts_in_python_equal_the_kernel(case, bound: float) -> None:
    """The readouts kernel's code run as Python (a first call's way) against the
    kernel: every value, threshold and refusal, weighted too."""
    y, s = np.asarray(case.y01), case.score_array()
    w = case.weight_array()
    chosen = first_calls.read_by_python
    ways = []
    try:
        for python in (False, True):
            first_calls.read_by_python = lambda e, p=python: p  # type: ignore[misc]
            ways.append(_readouts(y, s, w, bound))
    finally:
        first_calls.read_by_python = chosen  # type: ignore[assignment]
    assert ways[0] == ways[1]


@pytest.mark.filterwarnings("ignore::fastrank.exceptions.UndefinedMetricWarning")
@PROPERTY_SETTINGS
@given(case=cases(weight_kinds=("none",), classes="any", max_size=40, max_distinct=6,
                  dtypes=("float64", "float32", "int64", "bool")),
       metric=st.sampled_from(["roc_auc", "average_precision", "pr_auc", "d_prime", "prbe"]),
       stratified=st.booleans(), seed=st.integers(0, 2**64 - 1))
def test_bootstrap_by_numpy_equals_the_kernel(case, metric: str, stratified: bool,
                                              seed: int) -> None:
    """A bootstrap's resamples by numpy (the kernel's SplitMix64 streams, vectorised)
    against the resampling kernel: every resample's value, so the same interval."""
    import fastrank
    from fastrank import uncertainty

    y, s = np.asarray(case.y01), case.score_array()
    chosen = first_calls.resamples_by_numpy
    ways = []
    try:
        for numpy_way in (False, True):
            first_calls.resamples_by_numpy = lambda w, d, u=numpy_way: u  # type: ignore[misc]
            t = inputs.task(y, s)
            ways.append(uncertainty._resample_values(t, 0, metric, 37, stratified, seed, False))
            ways.append(repr(fastrank.bootstrap_ci(metric, y, s, n_resamples=25, seed=seed,
                                                   stratified=stratified)))
    finally:
        first_calls.resamples_by_numpy = chosen  # type: ignore[assignment]
    assert np.array_equal(ways[0].view(np.uint64), ways[2].view(np.uint64))
    assert ways[1] == ways[3]


@PROPERTY_SETTINGS
@given(case=cases(classes="any", max_size=50, max_distinct=6,
                  dtypes=("float64", "float32", "int64", "uint64", "bool")))
def test_sample_groups_by_numpy_equal_the_kernels(case) -> None:
    """Each sample's tie group (weighted sums too) and DeLong's placements by numpy
    against the kernels (tie_groups, placements)."""
    t = inputs.task(case.y_true, case.y_score, case.sample_weight, case.pos_label)
    both = t.weights is None and 0 < t.npos < t.values.shape[0]
    with _kernels_only():
        want = tie_tables.group_index(t)
        want_v = tie_tables.sample_placements(t) if both else None
    got = first_calls.group_index(t)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b), (got, want)
    if want_v is not None:
        got_v = first_calls.placements_of(t)
        assert np.array_equal(got_v.view(np.uint64), want_v.view(np.uint64))


def test_nonfinite_scores_raise_as_the_kernel_path() -> None:
    t = inputs.task([0, 1, 1], np.array([0.5, np.inf, 0.1]))
    with pytest.raises(first_calls.NonFinite):
        first_calls.sweep_row(t, 1.0, 3)
    with pytest.raises(first_calls.NonFinite):
        first_calls.tie_table(t)


def test_a_table_beyond_exact_counts_keeps_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """One class only, its count past 2**53 (a summary's table): not by numpy, whose
    int64 running counts would be wrong there; nor fractions, negatives, 2**52 pairs."""
    monkeypatch.setattr(first_calls, "_compiled", lambda kernel, variant: False)
    monkeypatch.setattr(first_calls, "_spent", {})
    key = np.array([2, 1], np.uint64)
    assert first_calls.table_row_by_numpy((key, np.array([3.0, 1.0]), np.array([1.0, 2.0])))
    for gpos, gneg in (([1e30, 1.0], [0.0, 0.0]), ([0.0, 0.0], [3.0, 2.0**60]),
                       ([2.0**30, 0.0], [0.0, 2.0**30]), ([0.5, 1.0], [1.0, 0.0]),
                       ([1.0, -1.0], [1.0, 1.0])):
        assert not first_calls.table_row_by_numpy((key, np.array(gpos), np.array(gneg)))


def test_the_budget_ends_each_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no kernel compiled, each stand-in is chosen until its own budget is spent."""
    monkeypatch.setattr(first_calls, "_compiled", lambda kernel, variant: False)
    monkeypatch.setattr(first_calls, "_spent", {})
    t = inputs.task([0, 1], [0.25, 0.5])
    b = inputs.batch(np.array([[0, 1]] * 3), np.array([[0.25, 0.5]] * 3), None, None, None,
                     None)
    table = (np.array([2, 1], np.uint64), np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    chosen = {"sweep": lambda: first_calls.sweep_by_numpy(t, 0)
              and first_calls.batch_by_numpy(b) and first_calls.table_row_by_numpy(table),
              "table": lambda: first_calls.table_by_numpy(t),
              "groups": lambda: first_calls.groups_by_numpy(t, None),
              "resample": lambda: first_calls.resamples_by_numpy(False, 10),
              "readout": lambda: first_calls.read_by_python(10)}
    for name, asked in chosen.items():
        assert asked(), name
        first_calls._spent[name] = first_calls.BUDGET
        assert not asked(), name
        del first_calls._spent[name]


def test_a_first_call_compiles_nothing_and_matches_the_kernel(tmp_path: Path) -> None:
    """From an empty kernel cache the first calls compile no kernel; once the budget is
    spent the kernels compile and give the same numbers, errors, thresholds and curves."""
    code = """
import numpy as np, fastrank
from fastrank._kernels.sweep import sweep_one
from fastrank._kernels.tasks import split
from fastrank._core import first_calls
rng = np.random.default_rng(0)
y = rng.random(5000) < 0.3
s = np.round(rng.normal(size=5000) + y, 2)
Y = rng.random((2000, 100)) < 0.3
S = np.round(rng.random((2000, 100)), 3)
G = rng.integers(0, 100, 5000)
W = rng.random(5000) * (rng.random(5000) < 0.9)
calls = [lambda: fastrank.roc_auc(y, s), lambda: fastrank.average_precision(y, s),
         lambda: fastrank.roc_auc(y, s, max_fpr=0.1),
         lambda: fastrank.prbe(y, s, return_threshold=True),
         lambda: fastrank.roc_auc(y, s.astype(np.float32)), lambda: fastrank.all_metrics(y, s),
         lambda: fastrank.average_precision(y, s, ties="expected"),
         lambda: fastrank.average_precision(y, (s * 100).astype(np.int64)),
         lambda: [a.tolist() for a in fastrank.roc_curve(y, s)],
         lambda: [a.tolist() for a in fastrank.precision_recall_curve(y, s.astype(np.float32))],
         lambda: fastrank.average_precision(Y, S, average=None).tolist(),
         lambda: fastrank.sensitivity_at_specificity(y, s, 0.9),
         lambda: fastrank.best_cutoff(y, s), lambda: fastrank.partial_roc_auc(y, s, fpr=(0, 0.2)),
         lambda: fastrank.evaluate(s, y).summary(as_frame=False),
         lambda: fastrank.bootstrap_ci("average_precision", y, s, n_resamples=50, seed=3),
         lambda: fastrank.delong_test(y, s, s ** 2),
         lambda: fastrank.roc_auc(y, s, groups=G, average=None).values.tolist(),
         lambda: fastrank.all_metrics(y, s, sample_weight=W),
         lambda: fastrank.roc_auc(y, s.astype(np.float32), sample_weight=W, max_fpr=0.2),
         lambda: [a.tolist() for a in fastrank.roc_curve(y, s, sample_weight=W)],
         lambda: fastrank.recall_at_precision(y, s, 0.5, sample_weight=W)]
def error():
    try:
        fastrank.roc_auc([0, 1, 1], [0.5, np.nan, 0.1])
    except ValueError as e:
        return str(e)
first = [c() for c in calls] + [error()]
from fastrank._kernels.sweep import combine, sweep_split, sweep_table
from fastrank._kernels.batch import run_segments
from fastrank._kernels.readout import read_tables
from fastrank._kernels.bootstrap import resample_sweeps
from fastrank._kernels.tasks import placements, tie_groups
from fastrank._kernels.sort import sort_pairs
kernels = (sweep_one, split, sweep_split, run_segments, read_tables, sweep_table, combine,
           sort_pairs, resample_sweeps, tie_groups, placements)
assert not any(k.overloads for k in kernels), [k for k in kernels if k.overloads]
for name in ("sweep", "table", "readout", "resample", "groups", "weighted"):
    first_calls._spent[name] = first_calls.BUDGET
again = [c() for c in calls] + [error()]
assert all(k.overloads for k in kernels)
assert repr(first) == repr(again), (first, again)
print("ok")
"""
    assert_prints_ok(code, cache_dir=tmp_path)


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A record of stand-in seconds in a folder of its own, nothing carried yet."""
    path = tmp_path / "cache" / "fastrank-first-calls-test.json"
    monkeypatch.setattr(carried, "path", lambda: str(path))
    monkeypatch.setattr(carried, "LOAD", 0.0)  # (counted whole: see the LOAD test)
    monkeypatch.setattr(first_calls, "_carried", None)
    monkeypatch.setattr(first_calls, "_spent", {})
    monkeypatch.setattr(first_calls.atexit, "register", lambda *args: None)
    monkeypatch.setattr(first_calls, "CARRIED", 4.0 * first_calls.BUDGET)
    return path


def test_the_budget_counts_earlier_processes(record: Path) -> None:
    """A stand-in's budget is spent by this process (:data:`BUDGET`) and by it with the
    earlier ones (:data:`CARRIED`): the record's seconds are read once, this process's
    added to what the file then holds."""
    unit = first_calls.BUDGET  # (CARRIED: 4 units here)
    assert first_calls.within_budget("sweep")
    first_calls.spend("sweep", 0.875 * unit)
    for _ in range(4):  # (four processes that spent the same)
        first_calls.save(str(record))
    assert json.loads(record.read_text()) == {"sweep": 3.5 * unit}
    first_calls.spend("sweep", 0.125 * unit)  # this process: its own budget spent
    assert not first_calls.within_budget("sweep") and first_calls.within_budget("table")
    first_calls._carried = None  # the next process
    first_calls._spent.clear()
    assert first_calls.within_budget("sweep") and first_calls.within_budget("table")
    assert first_calls._carried == {"sweep": 3.5 * unit}
    first_calls.spend("sweep", 0.25 * unit)
    assert first_calls.within_budget("sweep")
    first_calls.spend("sweep", 0.25 * unit)  # 4 units with the earlier processes
    assert not first_calls.within_budget("sweep")
    assert first_calls.within_budget("sweep", 6.0 * unit)  # (a budget above CARRIED)
    first_calls.save(str(record))
    assert json.loads(record.read_text()) == {"sweep": 4.0 * unit}
    assert sorted(p.name for p in record.parent.iterdir()) == [record.name,
                                                               record.name + ".lock"]


@pytest.mark.parametrize("text", ["", "[1, 2]", "{", '{"sweep": "x", "table": -1}',
                                  '{"sweep": NaN, "table": Infinity}', "\xff\xfe",
                                  '{"sweep": 1' + "0" * 400 + "}", "[" * 100_000,
                                  '{"sweep": true}'])
def test_a_record_that_is_not_one_carries_nothing(record: Path, text: str) -> None:
    record.parent.mkdir()
    record.write_bytes(text.encode("latin-1"))
    assert first_calls.within_budget("sweep") and first_calls._carried == {}
    first_calls.spend("sweep", 0.125)
    first_calls.save(str(record))
    assert json.loads(record.read_text()) == {"sweep": 0.125}


def test_a_folder_that_cannot_be_written_keeps_no_record(record: Path) -> None:
    record.parent.write_text("a file where the cache's folder would be")
    first_calls.spend("sweep", 0.125)
    first_calls.save(str(record))  # no error: the budget then counts per process
    assert record.parent.read_text().startswith("a file")
    assert carried.read(str(record)) == {}


def test_the_record_is_one_per_version_sources_and_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the kernel cache's folder, named by what makes Numba's own entries stale."""
    import fastrank
    from fastrank._kernels.sweep import sweep_one

    path = carried.path()
    assert path is not None and Path(path).parent == Path(sweep_one._cache._cache_path)
    assert Path(path).name.startswith("fastrank-first-calls-") and path.endswith(".json")
    assert carried.path() == path
    monkeypatch.setattr(fastrank, "__version__", fastrank.__version__ + "+1")
    assert carried.path() != path


def test_a_kernel_compiles_once_processes_spent_its_budget(tmp_path: Path) -> None:
    """Processes that each make one small call: the first takes the stand-in and writes
    its seconds beside the (empty) kernel cache; the one that finds them over the budget
    compiles the kernels, which the cache then gives the next; the same numbers."""
    code = """
import numpy as np, fastrank
from fastrank._core import carried, first_calls
from fastrank._kernels.sweep import sweep_one
first_calls.BUDGET = first_calls.CARRIED = {budget}
carried.LOAD = 0.0  # (every second counted: a small call costs far less than LOAD)
y, s = [0, 1, 1, 0, 1], [0.5, 0.25, 0.5, 0.125, 1.0]
value = fastrank.roc_auc(y, s)
assert value == 0.75, value
ran = (bool(sweep_one._cache_misses), bool(sweep_one._cache_hits))  # (compiled, from cache)
assert ran == {ran}, ran
print("ok")
"""
    assert_prints_ok(code.format(budget=1.0, ran=(False, False)), cache_dir=tmp_path)
    path = next(tmp_path.rglob("fastrank-first-calls-*.json"))
    spent = json.loads(path.read_text())["sweep"]
    assert 0.0 < spent < 1.0
    assert_prints_ok(code.format(budget=spent, ran=(True, False)), cache_dir=tmp_path)
    assert_prints_ok(code.format(budget=spent, ran=(False, True)), cache_dir=tmp_path)
    assert json.loads(path.read_text())["sweep"] == spent  # (nothing spent since)


def test_info_shows_what_the_stand_ins_spent(record: Path) -> None:
    """``fastrank info``'s line: the budgets, the record's path and seconds by
    stand-in, and this process's (not in the record before its exit)."""
    import fastrank

    line = fastrank.config.config()["first calls"]
    assert "0.5 s a process and 2 s over the processes" in line  # (CARRIED: 4 x 0.5 here)
    assert f"record {record}: none; this process: none" in line
    first_calls.spend("sweep", 0.25)
    first_calls.save(str(record))
    first_calls.spend("heads", 0.125)
    line = fastrank.config.config()["first calls"]
    assert f"record {record}: sweep 0.25 s; this process: heads 0.12 s, sweep 0.25 s" in line


def test_a_process_whose_kernels_run_never_reads_the_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stand-in asks first whether its kernel runs without compiling, then its
    budget: a process with its kernels compiled (or cached) never reads the record."""
    import fastrank

    rng = np.random.default_rng(5)
    y = rng.random(300) < 0.3
    s = np.round(rng.random(300), 2)
    w = rng.random(300)
    calls = [lambda: fastrank.roc_auc(y, s), lambda: fastrank.all_metrics(y, s),
             lambda: fastrank.average_precision(np.stack([y, ~y], 1), np.stack([s, s], 1),
                                                average=None),
             lambda: fastrank.roc_curve(y, s), lambda: fastrank.roc_auc(y, s, sample_weight=w),
             lambda: fastrank.precision_recall_curve(y, s, sample_weight=w),
             lambda: fastrank.sensitivity_at_specificity(y, s, 0.8),
             lambda: fastrank.bootstrap_ci("roc_auc", y, s, n_resamples=20, seed=1),
             lambda: fastrank.delong_test(y, s, s ** 2),
             lambda: fastrank.evaluate_run((np.zeros(4, int), np.arange(4), [1, 0, 2, 0]),
                                           (np.zeros(6, int), np.arange(6), s[:6]),
                                           ["map", "ndcg@3", "P@2"])]
    monkeypatch.setattr(first_calls, "BUDGET", 0.0)  # every kernel compiled, or loaded
    first = [repr(c()) for c in calls]

    def read() -> dict[str, float]:
        raise AssertionError("the record was read")

    monkeypatch.setattr(first_calls, "_carried", None)
    monkeypatch.setattr(first_calls, "_load", read)
    monkeypatch.setattr(first_calls, "BUDGET", 0.5)
    assert [repr(c()) for c in calls] == first



def test_a_process_counts_what_its_stand_ins_cost_beyond_loading_kernels(
        record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stand-in's seconds beyond carried.LOAD (what a fresh process pays to load
    cached kernels): a script of a few small calls, faster by the stand-ins than by
    cached kernels, never tips the budget; a file read by numpy slower than by the
    kernel counts what it cost more."""
    monkeypatch.setattr(carried, "LOAD", 0.25)
    first_calls.spend("sweep", 0.125)
    first_calls.spend("reader", 1.0)
    first_calls.save(str(record))
    assert json.loads(record.read_text()) == {"reader": 0.75}
    first_calls.save(str(record), pid=-1)  # a forked child: its parent's seconds, not again
    assert json.loads(record.read_text()) == {"reader": 0.75}


@pytest.mark.parametrize("kind", ["fifo", "zero", "large", "folder"])
def test_a_record_that_is_not_a_small_file_is_not_waited_on(tmp_path: Path, kind: str) -> None:
    """A pipe, an endless device, a large file or a folder where the record would be:
    read as nothing, at once."""
    import os

    where = tmp_path / "record.json"
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "zero":
        where.symlink_to("/dev/zero")
    elif kind == "large":
        where.write_text('{"sweep": 1.0' + " " * carried.MAX_BYTES + "}")
    else:
        where.mkdir()
    assert carried.read(str(where)) == {}


def test_a_record_is_written_readable_to_all_the_umask_lets(record: Path) -> None:
    """Numba's cache files are 0644 under the usual umask; the record too, so that
    users sharing a cache read each other's seconds."""
    import os
    import stat

    first_calls.spend("sweep", 0.25)
    old = os.umask(0o022)
    try:
        first_calls.save(str(record))
    finally:
        os.umask(old)
    assert stat.S_IMODE(record.stat().st_mode) == 0o644


def test_processes_adding_at_once_lose_no_seconds(tmp_path: Path) -> None:
    """Processes ending at the same moment each add their seconds under the record's
    lock (where the system has fcntl): none is lost."""
    import subprocess
    import sys

    pytest.importorskip("fcntl")
    where = tmp_path / "record.json"
    code = ("import sys, time; from fastrank._core import carried; "
            "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); "
            "[carried.add(sys.argv[1], {'sweep': 0.125}) for _ in range(20)]")
    start = __import__("time").time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", code, str(where), str(start)])
             for _ in range(6)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    assert json.loads(where.read_text()) == {"sweep": 6 * 20 * 0.125}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json", "record.json.lock"]
