"""fastrank.torch: metric objects for training loops, torch tensors, torch.distributed.

* exact mode equals the one-shot function of the concatenated batches bit for
  bit (every kind of task, float dtypes from bfloat16 to float64, tensors that
  require grad, weights), bounded mode equals a BinnedSummary of them;
* state_dict round-trips through ``torch.save`` / ``torch.load(weights_only=True)``;
* a rejected update (shapes, labels, NaN, groups) leaves the state as it was;
* real ``torch.distributed`` processes (gloo, 2 and 4 on localhost): every
  rank gets what one process gets over all the data, with uneven batches, an
  empty rank and a rank of one class;
* the torchmetrics adapter under Lightning's CPU trainer;
* the CUDA path where a GPU exists.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip(
    "torch", reason="torch is not installed (pip install 'fastrank-metrics[torch]')")

import fastrank  # noqa: E402
from fastrank import _torch_state as torch_state  # noqa: E402
from fastrank.torch import (  # noqa: E402
    BinaryAveragePrecision,
    BinaryMetric,
    GroupedMetric,
    MulticlassAUROC,
    MulticlassMetric,
    MultilabelAveragePrecision,
    MultilabelMetric,
)

sys.path.insert(0, str(Path(__file__).parent))
import fresh  # noqa: E402
import oracles  # noqa: E402
import torch_workers  # noqa: E402
from strategies import PROPERTY_SETTINGS  # noqa: E402

# lists without a relevant item, tasks of one class: the one-shot call warns the same way
pytestmark = pytest.mark.filterwarnings("ignore::fastrank.exceptions.UndefinedMetricWarning")
RNG = np.random.default_rng(7)


def batches(n: int = 300, t: int | None = None, cuts: tuple[int, ...] = (0, 1, 90, 91, 200)):
    shape = (n,) if t is None else (n, t)
    y = RNG.random(shape) < 0.4
    s = np.round(RNG.random(shape), 2)  # ties
    edges = [*cuts, n]
    return y, s, list(itertools.pairwise(edges))


def same(a, b) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# ---------------------------------------------------------------------- exact = one-shot


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("metric,options", [
    ("average_precision", {}),
    ("roc_auc", {}),
    ("roc_auc", {"max_fpr": 0.2}),
    ("pr_auc", {}),
    ("prbe", {}),
    ("d_prime", {}),
    ("partial_roc_auc", {"fpr": (0.0, 0.4)}),
    ("sensitivity_at_specificity", {"min_specificity": 0.8}),
    ("precision_at_recall", {"min_recall": 0.5}),
    ("best_cutoff", {"criterion": "f1"}),
])
def test_binary_equals_one_shot(dtype, metric, options):
    y, s, parts = batches()
    m = BinaryMetric(metric, **options)
    for a, b in parts:
        p = torch.tensor(s[a:b], dtype=dtype, requires_grad=dtype.is_floating_point)
        m.update(p * 1, torch.tensor(y[a:b]).long())  # a tensor with a graph behind it
    ref_s = torch.tensor(s, dtype=dtype)
    ref_s = (ref_s.float() if dtype == torch.bfloat16 else ref_s).numpy()
    want = getattr(fastrank, metric)(y, ref_s, **options)
    assert same(m.compute().numpy(), getattr(want, "value", want))
    got = m.result()
    assert type(got) is type(want)
    assert m.compute().dtype == torch.float64


def test_binary_flattens_any_shape_and_weights():
    y, s, parts = batches()
    w = RNG.random(300)
    m = BinaryAveragePrecision()
    for a, b in parts:  # (k, 1) shaped batches, as a model's head gives them
        m.update(torch.tensor(s[a:b, None]), torch.tensor(y[a:b, None]).float(),
                 weight=torch.tensor(w[a:b]))
    assert m.compute().item() == fastrank.average_precision(y, s, sample_weight=w)


@pytest.mark.parametrize("metric,options", [
    ("average_precision", {"average": None}),
    ("average_precision", {"average": "micro"}),
    ("roc_auc", {}),
    ("pr_auc", {"average": "weighted"}),
    ("partial_roc_auc", {"fpr": (0.0, 0.5)}),
    ("precision_at_k", {"k": 2}),
    ("ndcg_at_k", {"k": 3}),
    ("reciprocal_rank", {}),
])
def test_multilabel_equals_one_shot(metric, options):
    y, s, parts = batches(t=5)
    m = MultilabelMetric(metric, num_labels=5, **options)
    for a, b in parts:
        m.update(torch.tensor(s[a:b], dtype=torch.float32), torch.tensor(y[a:b]))
    want = getattr(fastrank, metric)(y, s.astype(np.float32), **options)
    assert same(m.compute().numpy(), want)


@pytest.mark.parametrize("metric,options", [
    ("average_precision", {}),
    ("roc_auc", {"average": None}),
    ("top_k_accuracy", {"k": 2}),
])
def test_multiclass_equals_one_shot(metric, options):
    _, s, parts = batches(t=4)
    c = RNG.integers(0, 4, 300)
    m = MulticlassMetric(metric, num_classes=4, **options)
    for a, b in parts:
        m.update(torch.tensor(s[a:b]), torch.tensor(c[a:b]))
    want = getattr(fastrank, metric)(c, s, labels=np.arange(4), **options)
    assert same(m.compute().numpy(), want)
    alias = MulticlassAUROC(num_classes=4)
    alias.update(torch.tensor(s), torch.tensor(c))
    assert alias.compute().item() == fastrank.roc_auc(c, s, labels=np.arange(4))


@pytest.mark.parametrize("metric,options", [
    ("average_precision", {}),
    ("roc_auc", {"average": None}),
    ("precision_at_k", {"k": 3}),
    ("ndcg_at_k", {"k": 2}),
    ("r_precision", {}),
    ("sensitivity_at_specificity", {"min_specificity": 0.5}),
])
def test_grouped_equals_one_shot(metric, options):
    y, s, parts = batches()
    g = RNG.integers(0, 30, 300)
    m = GroupedMetric(metric, **options)
    for a, b in parts:
        m.update(torch.tensor(s[a:b]), torch.tensor(y[a:b]), groups=torch.tensor(g[a:b]))
    want = getattr(fastrank, metric)(y, s, groups=g, **options)
    want = getattr(want, "value", want)
    assert same(m.compute().numpy(), getattr(want, "values", want))


def test_chunked_rows_equal_one_shot_and_stay_compact():
    """Large batches are chunks of their own, small ones collect in an open chunk
    closed at about 1 MiB: every mix of them, with weights on some batches, groups,
    a dtype that changes, and merges, gives the one-shot value on the concatenation."""
    sizes = [1500, 10, 140_000, 5, 5, 1100, *[700] * 200, 3, 140_000]
    n = sum(sizes)
    y, s = RNG.random(n) < 0.3, RNG.random(n)
    g = RNG.integers(0, 50, n)
    w = np.ones(n)
    m, grouped = BinaryMetric("average_precision"), GroupedMetric("average_precision")
    other = BinaryMetric("average_precision")
    at = 0
    for i, k in enumerate(sizes):
        sl = slice(at, at + k)
        weight = None
        if i % 3 == 0:
            w[sl] = RNG.random(k)
            weight = torch.tensor(w[sl])
        target = other if i >= len(sizes) - 2 else m
        target.update(torch.tensor(s[sl]), torch.tensor(y[sl]), weight=weight)
        grouped.update(torch.tensor(s[sl]), torch.tensor(y[sl]), groups=torch.tensor(g[sl]))
        at += k
    assert len(m.state_dict()["rows"]["y_score"]) == n - 140_003
    assert m.merge(other).compute().item() == fastrank.average_precision(y, s, sample_weight=w)
    assert grouped.compute().item() == fastrank.average_precision(y, s, groups=g)
    rows_bytes = n * (8 + 1 + 8)  # float64 score, label, weight
    assert m.nbytes <= rows_bytes + 2 * 2**20  # no doubling: the open chunk at most
    mixed = BinaryMetric("roc_auc")  # float32 chunks, then float64 ones: promoted exactly
    for a in range(0, n, 2500):
        mixed.update(torch.tensor(s[a:a + 2500], dtype=torch.float32 if a % 5000 else
                                  torch.float64), torch.tensor(y[a:a + 2500]))
    ref = np.concatenate([s[a:a + 2500].astype(np.float32 if a % 5000 else np.float64)
                          .astype(np.float64) for a in range(0, n, 2500)])
    assert mixed.compute().item() == fastrank.roc_auc(y, ref)


@pytest.mark.parametrize("tasks", [None, 3])
def test_tied_scores_fold_into_counts_with_the_same_values(tasks):
    """Chunks of mostly repeated scores become each task's distinct scores with
    their counts: far fewer bytes, the same values bit for bit (per-task metrics;
    merged, pickled as torch.distributed gathers them, and through state_dict)."""
    import pickle

    width = 1 if tasks is None else tasks
    sizes = [360_000 // width, *[9_000 // width] * 40, 300_000 // width, 50]
    n = sum(sizes)
    shape = (n,) if tasks is None else (n, tasks)
    y = RNG.random(shape) < 0.3
    s = np.round(RNG.random(shape), 2).astype(np.float32)
    s[-50:] = RNG.random((50, *shape[1:]))  # distinct scores, left as rows
    names = {"average_precision": {}, "roc_auc": {}, "pr_auc": {}, "prbe": {},
             "partial_roc_auc": {"fpr": (0.0, 0.3)},
             "sensitivity_at_specificity": {"min_specificity": 0.7},
             "best_cutoff": {"criterion": "f1"}}
    cls = BinaryMetric if tasks is None else MultilabelMetric
    for name, options in names.items():
        m, second = cls(name, **options), cls(name, **options)
        at = 0
        for i, k in enumerate(sizes):
            (m if i < 30 else second).update(torch.tensor(s[at:at + k]),
                                             torch.tensor(y[at:at + k]))
            at += k
        # the open chunk (under 1 MiB) and 101 distinct scores a task, 24 bytes each
        assert m._state.ties is not None and m._state.ties.rows >= 360_000 // width
        assert m.nbytes <= 2**20 + 101 * 24 * width
        m.merge(pickle.loads(pickle.dumps(second)))
        want = getattr(fastrank, name)(y, s, **options)
        got = m.result()
        assert same(getattr(got, "value", got), getattr(want, "value", want))
        assert same(getattr(got, "threshold", 0), getattr(want, "threshold", 0))
        if name == "average_precision":
            loaded = cls(name, **options)
            state = roundtrip(m.state_dict())
            assert state["ties"] is not None and len(state["rows"]["y_score"]) < 2**20
            loaded.load_state_dict(state)
            loaded_value = loaded.compute().numpy()
            assert same(loaded_value, m.compute().numpy())
            assert loaded.nbytes <= 2**20 + 101 * 24 * width
            w = RNG.random(10)  # weights after the counts: rows with counts weigh 1
            m.update(torch.tensor(s[:10]), torch.tensor(y[:10]), weight=torch.tensor(w))
            ref = fastrank.average_precision(np.concatenate([y, y[:10]]),
                                             np.concatenate([s, s[:10]]),
                                             sample_weight=np.r_[np.ones(n), w])
            assert np.array_equal(m.compute().numpy(), ref)  # the same rows: bit for bit
    top = MultilabelMetric("precision_at_k", k=2) if tasks else GroupedMetric("r_precision")
    assert not top._state.compactable  # rankings of rows keep their rows
    with pytest.raises(ValueError, match="keeps rows, not tie counts"):
        top.load_state_dict({**state, "metric": top.metric})
    flipped = [v.flip(0) for v in state["ties"]["values"]]
    with pytest.raises(ValueError, match="increasing finite scores"):
        loaded.load_state_dict({**state, "ties": {**state["ties"], "values": flipped}})
    assert same(loaded.compute().numpy(), loaded_value)  # unchanged


# Every metric the exact classes compute from tie counts (the per-task scalars with each
# option the table path reads, and every readout), as (name, options).
SCALAR_CASES = [
    ("average_precision", {}), ("average_precision", {"ties": "expected"}),
    ("roc_auc", {}), ("roc_auc", {"max_fpr": 0.3}), ("pr_auc", {}), ("d_prime", {}),
    ("prbe", {}), ("prbe", {"return_threshold": True}),
]
READOUT_CASES = [
    ("partial_roc_auc", {"fpr": (0.0, 0.3)}),
    ("partial_roc_auc", {"fpr": (0.1, 0.6), "correct": True}),
    ("partial_roc_auc", {"tpr": (0.5, 1.0)}),
    ("partial_pr_auc", {"recall": (0.2, 0.9)}),
    ("sensitivity_at_specificity", {"min_specificity": 0.7}),
    ("sensitivity_at_specificity", {"min_specificity": 0.7, "interpolate": True}),
    ("specificity_at_sensitivity", {"min_sensitivity": 0.6}),
    ("recall_at_precision", {"min_precision": 0.3}),
    ("precision_at_recall", {"min_recall": 0.5, "interpolate": True}),
    ("best_cutoff", {"criterion": "youden"}),
    ("best_cutoff", {"criterion": "mcc"}),
    ("best_cutoff", {"criterion": "f_beta", "beta": 2.0}),
]
AVERAGES = [None, "macro", "weighted", "micro"]
DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
          "bfloat16": torch.bfloat16}
# awkward values of each dtype (signed zeros, subnormals, the extremes): heavy ties
TIE_POOLS = {"float64": [-1e300, -2.5, -0.0, 0.0, 5e-324, 0.1, 0.125, 7.75, 1e300],
             "float32": [-3e38, -2.5, -0.0, 0.0, 1e-40, 0.1, 0.125, 7.75],
             "float16": [-65504.0, -2.5, -0.0, 0.0, 6e-8, 0.1, 7.75],
             "bfloat16": [-3e38, -2.5, -0.0, 0.0, 1e-30, 0.1, 0.125, 7.75]}


def same_result(got, want) -> bool:
    """Bit for bit: the same type, the same numbers (NaN where NaN), thresholds too."""
    if type(got) is not type(want):
        return False
    if isinstance(want, tuple):  # an OperatingPoint, or (value, threshold)
        return all(same_result(a, b) for a, b in zip(got, want, strict=True))
    if isinstance(want, fastrank.GroupResult):  # the groups' values, ids and counts
        return all(same_result(np.asarray(getattr(got, k)), np.asarray(getattr(want, k)))
                   for k in ("values", "positives", "negatives", "sizes")) \
            and np.array_equal(got.groups, want.groups)
    a, b = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return a.shape == b.shape and bool(np.all(
        (a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))))


def fed(make, y, s, cuts, w=None):
    """A metric updated batch by batch (``cuts``), its one-shot reference scores."""
    m = make()
    for a, b in itertools.pairwise(cuts):
        m.update(s[a:b], torch.from_numpy(y[a:b]),
                 weight=None if w is None else torch.from_numpy(w[a:b]))
    return m


def tie_data(rng, n, tasks, dtype, distinct, pool_size):
    shape = (n,) if tasks is None else (n, tasks)
    if distinct:
        s = torch.from_numpy(rng.standard_normal(shape)).to(DTYPES[dtype])
    else:
        pool = np.array(TIE_POOLS[dtype][:pool_size])
        s = torch.from_numpy(rng.choice(pool, size=shape)).to(DTYPES[dtype])
    # each task's share of positives, now and then none or all (undefined metrics)
    share = rng.choice([0.0, 1.0, *rng.uniform(0.05, 0.7, 6)], size=shape[1:])
    y = rng.random(shape) < share
    ref = (s.float() if dtype == "bfloat16" else s).numpy()  # bf16 widened exactly
    return y, s, ref


def check_against_one_shot(m, metric, options, y, ref, w, counted):
    """``m``'s result is the one-shot call's, bit for bit; ``counted``: it came from the
    tie counts (so that this test sees the path it proves)."""
    import fastrank.torch as ft

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            want = getattr(fastrank, metric)(y, ref, sample_weight=w, **options)
        except ValueError as exc:  # e.g. average="weighted" of tasks that all lack a class
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                m.result()
            return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (m._from_counts(m._synced()) is not ft._ROWS) == counted
    with warnings.catch_warnings(record=True) as told:
        warnings.simplefilter("always")
        got = m.result()
    assert same_result(got, want), (got, want)
    assert [str(x.message) for x in told] == [str(x.message) for x in said]  # the same warning


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(seed=st.integers(0, 2**32 - 1), tasks=st.sampled_from([None, 1, 3]),
       dtype=st.sampled_from(list(DTYPES)), distinct=st.sampled_from([False, False, True]),
       pool_size=st.integers(2, 8), weighted=st.sampled_from([False, False, True]),
       case=st.sampled_from(SCALAR_CASES + READOUT_CASES), average=st.sampled_from(AVERAGES))
def test_counted_results_equal_the_one_shot_bit_for_bit(seed, tasks, dtype, distinct, pool_size,
                                                        weighted, case, average):
    """Tied chunks folded into counts give the one-shot call's result bit for bit:
    every metric the table path computes (scalars with their options, readouts),
    float64/float32/half/bf16 scores, weights or none, heavy ties or none, one
    task or several (each average). Tiny chunks, so that small batches fold."""
    from unittest import mock

    import fastrank.torch as ft

    metric, options = case
    options = dict(options)
    if tasks is not None and metric in ft._SCALARS:
        options["average"] = average
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400))
    y, s, ref = tie_data(rng, n, tasks, dtype, distinct, pool_size)
    w = rng.integers(0, 4, n).astype(np.float64) if weighted else None
    cuts = [0, *sorted(rng.choice(np.arange(1, n), size=4, replace=False).tolist()), n]
    make = (lambda: ft.BinaryMetric(metric, **options)) if tasks is None else \
        (lambda: ft.MultilabelMetric(metric, **options))
    with mock.patch.object(torch_state, "OPEN_BYTES", 64):
        m = fed(make, y, s, cuts, w)
    counted = m._state.ties is not None and not weighted and (metric in ft._SCALARS)
    event(f"from counts: {counted}")
    check_against_one_shot(m, metric, options, y, ref, w, counted)


TOP_K_CASES = [("precision_at_k", {"k": 2}), ("ndcg_at_k", {"k": 3}), ("reciprocal_rank", {}),
               ("average_precision_at_k", {"k": 2}), ("r_precision", {})]


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["multilabel", "multiclass", "grouped"]),
       dtype=st.sampled_from(list(DTYPES)), distinct=st.booleans(), pool_size=st.integers(2, 8),
       weighted=st.booleans(), case=st.sampled_from(SCALAR_CASES + READOUT_CASES + TOP_K_CASES
                                                   + [("top_k_accuracy", {"k": 2})]),
       average=st.sampled_from([*AVERAGES, "samples"]))
def test_every_class_equals_the_one_shot_bit_for_bit(seed, kind, dtype, distinct, pool_size,
                                                     weighted, case, average):
    """The other metrics of the exact classes (the top-k measures, each row's labels
    ranked, per-group and per-class metrics) keep their rows, chunked as tiny as
    above: the one-shot call's result bit for bit, each dtype, with weights or
    without, tied or not."""
    from unittest import mock

    import fastrank.torch as ft

    metric, options = case
    options = dict(options)
    allowed = {"multilabel": ft._SCALARS.keys() | ft._READOUTS.keys() | ft._TOP_K.keys(),
               "multiclass": ft._SCALARS.keys() | {"top_k_accuracy"},
               "grouped": ft._SCALARS.keys() | ft._READOUTS.keys() | ft._TOP_K.keys()}[kind]
    assume(metric in allowed)
    if metric in ft._SCALARS and kind != "grouped":
        options["average"] = average
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 300))
    y, s, ref = tie_data(rng, n, 4, dtype, distinct, pool_size)
    w = rng.integers(0, 4, n).astype(np.float64) if weighted else None
    cuts = [0, *sorted(rng.choice(np.arange(1, n), size=4, replace=False).tolist()), n]
    extra, target = {}, y
    if kind == "multiclass":
        target = rng.integers(0, 4, n)
        extra = {"labels": np.arange(4)}
        make = lambda: ft.MulticlassMetric(metric, num_classes=4, **options)  # noqa: E731
    elif kind == "grouped":
        groups = rng.integers(0, 6, n)
        y, s, ref, target = y[:, 0], s[:, 0], ref[:, 0], y[:, 0]
        extra = {"groups": groups}
        make = lambda: ft.GroupedMetric(metric, **options)  # noqa: E731
    else:
        make = lambda: ft.MultilabelMetric(metric, **options)  # noqa: E731
    m = make()
    with mock.patch.object(torch_state, "OPEN_BYTES", 64):
        for a, b in itertools.pairwise(cuts):
            m.update(s[a:b], torch.from_numpy(target[a:b]),
                     groups=None if kind != "grouped" else torch.from_numpy(groups[a:b]),
                     weight=None if w is None else torch.from_numpy(w[a:b]))
    assert m._state.ties is None or (kind == "multilabel" and m._order_free())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if w is not None:
                extra["sample_weight"] = w
            want = getattr(fastrank, metric)(target, ref, **extra, **options)
        except (ValueError, TypeError) as exc:  # an option the call refuses for these rows
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                m.result()
            return
        got = m.result()
    assert same_result(got, want), (got, want)


@pytest.mark.parametrize("tasks", [None, 3])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_counted_readouts_equal_the_one_shot_bit_for_bit(tasks, dtype):
    """Readouts come from the counts where the one-shot call counts the ties too (at
    least HASH_MIN rows a task): bit for bit its results, every readout; with fewer
    rows they take the rows."""
    from unittest import mock

    import fastrank.torch as ft

    rng = np.random.default_rng(11)
    n = 40_000
    y, s, ref = tie_data(rng, n, tasks, dtype, False, 8)
    cuts = [0, 5_000, 20_000, 20_003, n]
    for metric, options in READOUT_CASES:
        make = (lambda: ft.BinaryMetric(metric, **options)) if tasks is None else \
            (lambda: ft.MultilabelMetric(metric, **options))  # noqa: B023
        with mock.patch.object(torch_state, "OPEN_BYTES", 4096):
            m = fed(make, y, s, cuts)
        with mock.patch.object(torch_state, "OPEN_BYTES", 64):
            small = fed(make, y[:1000], s[:1000], [0, 300, 1000])
        assert m._state.ties is not None and small._state.ties is not None
        check_against_one_shot(m, metric, options, y, ref, None, True)
        check_against_one_shot(small, metric, options, y[:1000], ref[:1000], None, False)


def test_counts_with_rows_of_another_dtype_come_back_as_rows():
    """Tie counts of float32 scores, then float64 rows: the one-shot call promotes the
    float32 scores, so compute() gives the counts back as rows and joins them as it
    does; the same results, bit for bit."""
    from unittest import mock

    y, s = RNG.random(50_000) < 0.3, np.round(RNG.random(50_000), 2)
    ref = np.concatenate([s[:40_000].astype(np.float32).astype(np.float64), s[40_000:]])
    for metric, options in [*SCALAR_CASES, *READOUT_CASES]:
        m = BinaryMetric(metric, **options)
        with mock.patch.object(torch_state, "OPEN_BYTES", 4096):
            m.update(torch.tensor(s[:40_000], dtype=torch.float32), torch.tensor(y[:40_000]))
            m.update(torch.tensor(s[40_000:]), torch.tensor(y[40_000:]))
        assert m._state.ties is not None
        check_against_one_shot(m, metric, options, y, ref, None, False)


def test_samples_average_keeps_the_rows():
    """average="samples" ranks each row's labels: tied columns are never folded into
    counts (which would break the rows' pairing), so the value is the one-shot's."""
    from unittest import mock

    y = RNG.random((3000, 3)) < 0.3
    s = np.round(RNG.random((3000, 3)), 1).astype(np.float32)
    m = MultilabelMetric("average_precision", average="samples")
    with mock.patch.object(torch_state, "OPEN_BYTES", 64):
        for a in range(0, 3000, 500):
            m.update(torch.tensor(s[a:a + 500]), torch.tensor(y[a:a + 500]))
    assert m._state.ties is None
    assert m.compute().item() == fastrank.average_precision(y, s, average="samples")


# The reproducer of a silently wrong number: each label's column of these large tied
# batches was folded into tie counts, which broke the rows' pairing that
# average="samples" ranks (0.6524 where the one-shot call gives 0.6317).
SAMPLES_REPRODUCER = """
import sys
import numpy as np
import torch
import fastrank
from fastrank.torch import MultilabelMetric

d = np.load(sys.argv[1])
y, s = d["y"], d["s"]
m = MultilabelMetric("average_precision", average="samples")
for a in range(0, y.shape[0], 100_000):  # 1.2 MB of scores: each batch a chunk of its own
    m.update(torch.from_numpy(s[a:a + 100_000]), torch.from_numpy(y[a:a + 100_000]))
one_shot = fastrank.average_precision(y, s, average="samples")
print(m.compute().item().hex(), one_shot.hex(), m._state.ties is None)
"""


def test_samples_average_of_large_tied_batches_in_a_subprocess(tmp_path):
    """MultilabelMetric("average_precision", average="samples") over four large batches
    of scores taking 11 values: equal to the one-shot call bit for bit, and to the
    mean of each row's AP counted by brute force (every row holds a positive);
    the rows are kept, not folded into counts. Run where a crash cannot take the
    test process."""
    rng = np.random.default_rng(2024)
    n = 400_000
    y = rng.random((n, 3)) < 0.3
    y[~y.any(axis=1), 0] = True
    s = (rng.integers(0, 11, (n, 3)) / 10).astype(np.float32)
    np.savez(tmp_path / "rows.npz", y=y, s=s)
    proc = subprocess.run([sys.executable, "-c", SAMPLES_REPRODUCER, str(tmp_path / "rows.npz")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got, one_shot, kept_rows = proc.stdout.split()
    assert got == one_shot and kept_rows == "True", proc.stdout
    rows, counts = np.unique(np.concatenate([y, s], axis=1), axis=0, return_counts=True)
    exact = sum(int(c) * oracles.average_precision(r[:3].astype(int), r[3:].tolist())
                for r, c in zip(rows, counts, strict=True)) / n
    assert abs(float.fromhex(got) - float(exact)) <= 1e-12


def test_large_batches_are_checked_and_joined_as_accumulators_are():
    """A batch of 1 MiB or more is stored on its own (checked as an Accumulator
    checks a batch): a NaN or inf is named by row and task and nothing is stored;
    float32 and float64 batches join exactly, as the one-shot call promotes them."""
    n = 300_000  # float32: 1.2 MB
    y = RNG.random((n, 2)) < 0.2
    s = RNG.random((n, 2)).astype(np.float32)
    m = MultilabelMetric("roc_auc", average=None)
    m.update(torch.tensor(s), torch.tensor(y))
    bad = s.copy()
    bad[123_456, 1] = np.inf
    with pytest.raises(ValueError, match=r"non-finite value \(inf at row 123456, task 1\)"):
        m.update(torch.tensor(bad), torch.tensor(y))
    assert m.rows == n
    s64 = RNG.random((n, 2))
    m.update(torch.tensor(s64), torch.tensor(y).long())
    ref = np.concatenate([s.astype(np.float64), s64])
    assert same(m.compute().numpy(), fastrank.roc_auc(np.concatenate([y, y]), ref, average=None))
    b = BinaryMetric("average_precision")
    with pytest.raises(ValueError, match=r"non-finite value \(nan at index 0\)"):
        b.update(torch.full((n,), float("nan")), torch.zeros(n, dtype=torch.long))
    assert b.rows == 0


def test_merge_equals_one_process():
    y, s, _ = batches(t=3)
    a, b = MultilabelAveragePrecision(), MultilabelAveragePrecision()
    a.update(torch.tensor(s[:100]), torch.tensor(y[:100]))
    b.update(torch.tensor(s[100:]), torch.tensor(y[100:]))
    assert a.merge(b).compute().item() == fastrank.average_precision(y, s)
    with pytest.raises(TypeError, match="can only merge"):
        a.merge(BinaryMetric("average_precision"))
    with pytest.raises(TypeError, match="can only merge"):
        a.merge(MultilabelMetric("average_precision", average=None))
    c = MultilabelMetric("average_precision")  # the alias is the same metric
    c.update(torch.tensor(s[:10]), torch.tensor(y[:10]))
    assert a.merge(c).rows == 310
    import pickle  # the named classes travel (as torch.distributed pickles them)
    assert pickle.loads(pickle.dumps(a)).compute().item() == a.compute().item()


# ---------------------------------------------------------------------- bounded memory


def test_bounded_equals_the_summary_of_the_batches():
    y, s, parts = batches(t=3)
    m = MultilabelMetric("roc_auc", summary=fastrank.BinnedSummary(bins=20), average=None)
    for a, b in parts:
        m.update(torch.tensor(s[a:b]), torch.tensor(y[a:b]))
    ref = fastrank.BinnedSummary(bins=20)
    ref.update(y, s)
    got, want = m.result(), ref.compute("roc_auc")
    for field in ("estimate", "low", "high"):
        assert same(getattr(got, field), getattr(want, field))
    exact = fastrank.roc_auc(y, s, average=None)
    assert np.all((got.low <= exact) & (exact <= got.high))
    assert same(m.compute().numpy(), want.estimate)
    assert m.nbytes == ref.nbytes  # fixed memory, whatever the rows


def test_bounded_quantized_is_exact():
    y, s, parts = batches()
    m = BinaryMetric("average_precision", summary=fastrank.BinnedSummary(quantized="bfloat16"))
    for a, b in parts:
        m.update(torch.tensor(s[a:b], dtype=torch.bfloat16), torch.tensor(y[a:b]))
    ref = torch.tensor(s, dtype=torch.bfloat16).float().numpy()
    assert m.result().exact
    assert m.compute().item() == fastrank.average_precision(y, ref)


def test_bounded_rejects_what_bins_cannot_give():
    with pytest.raises(ValueError, match="bounded mode must be one of"):
        BinaryMetric("precision_at_k", summary=fastrank.BinnedSummary(), k=2)
    with pytest.raises(ValueError, match="grouped task in bounded mode"):
        GroupedMetric("average_precision", summary=fastrank.BinnedSummary())
    s = fastrank.BinnedSummary(bins=4)
    s.update([0, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="must be empty"):
        BinaryMetric("roc_auc", summary=s)


# ---------------------------------------------------------------------- checkpoints


def roundtrip(state):
    buf = io.BytesIO()
    torch.save(state, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


@pytest.mark.parametrize("make", [
    lambda: BinaryMetric("average_precision"),
    lambda: GroupedMetric("ndcg_at_k", k=2),
    lambda: MultilabelMetric("roc_auc", average=None),
    lambda: MulticlassMetric("average_precision", num_classes=3),
    lambda: MultilabelMetric("roc_auc", summary=fastrank.BinnedSummary(bins=10), average=None),
    lambda: BinaryMetric("pr_auc", summary=fastrank.BinnedSummary(quantized="float16")),
])
def test_state_dict_round_trips(make):
    m = make()
    n = 200
    s = torch.rand(n, 3, generator=torch.Generator().manual_seed(1))
    y = torch.rand(n, 3, generator=torch.Generator().manual_seed(2)) < 0.5
    g = torch.arange(n) % 7
    w = torch.rand(n, dtype=torch.float64)

    def step(metric, a, b):
        if isinstance(metric, MulticlassMetric):
            metric.update(s[a:b], y[a:b].long().sum(1) % 3, weight=w[a:b])
        elif isinstance(metric, MultilabelMetric):
            metric.update(s[a:b], y[a:b])
        elif isinstance(metric, GroupedMetric):
            metric.update(s[a:b, 0], y[a:b, 0], groups=g[a:b])
        else:
            metric.update(s[a:b, 0].half(), y[a:b, 0])

    empty = make()
    empty.load_state_dict(roundtrip(m.state_dict()))  # an empty state too
    step(m, 0, 120)
    loaded = make()
    loaded.load_state_dict(roundtrip(m.state_dict()))
    for metric in (m, loaded):
        step(metric, 120, n)
    assert same(loaded.compute().numpy(), m.compute().numpy())
    if m.bounded:
        assert same(loaded.result().high, m.result().high)
    with pytest.raises(ValueError, match="this state_dict is of metric"):
        BinaryMetric("prbe").load_state_dict(m.state_dict())


@pytest.mark.parametrize("make", [lambda: BinaryMetric("roc_auc"),
                                  lambda: MultilabelMetric("average_precision", average=None)])
def test_state_dict_of_a_state_folded_into_tie_counts(make):
    """A batch of 1 MiB or more whose scores take few values is kept as tie counts,
    whose scores came as a reversed view: state_dict() raised torch's error on
    negative strides (and so did a Lightning checkpoint)."""
    g = torch.Generator().manual_seed(0)
    one = isinstance(make(), BinaryMetric) and not isinstance(make(), MultilabelMetric)
    shape = (200_000,) if one else (100_000, 2)
    p = (torch.randint(0, 10, shape, generator=g) / 10).double()
    t = torch.randint(0, 2, shape, generator=g)
    m = make()
    m.update(p, t)
    assert m._state.ties is not None  # folded
    loaded = make()
    loaded.load_state_dict(roundtrip(m.state_dict()))
    assert same(loaded.compute().numpy(), m.compute().numpy())
    f = fastrank.roc_auc if one else (lambda a, b: fastrank.average_precision(a, b, average=None))
    assert same(m.compute().numpy(), np.asarray(f(t.numpy(), p.numpy())))


def test_a_metric_merged_with_itself_counts_its_rows_twice():
    """merge(self) appended to the list of chunks it was reading, so it never ended
    and its memory grew without bound (a fresh process, with a time limit)."""
    fresh.assert_prints_ok(
        "import torch, numpy as np, fastrank\n"
        "from fastrank.torch import BinaryMetric\n"
        "for summary in (None, fastrank.BinnedSummary(bins=8)):\n"
        "    m = BinaryMetric('roc_auc', summary=summary)\n"
        "    p, t = torch.tensor([0.2, 0.6, 0.4, 0.4]), torch.tensor([0, 1, 1, 0])\n"
        "    m.update(p, t)\n"
        "    m.merge(m)\n"
        "    m.merge(m)\n"
        "    want = fastrank.roc_auc(np.tile(t.numpy(), 4), np.tile(p.numpy(), 4))\n"
        "    assert float(m.compute()) == want, (float(m.compute()), want)\n"
        "    if summary is None:\n"
        "        assert len(m._state) == 16\n"
        "print('ok')\n", timeout=120)


def test_a_state_dict_lacking_parts_or_of_a_foreign_dtype_is_refused():
    with pytest.raises(ValueError, match="lacks 'rows', 'ties'"):
        BinaryMetric("roc_auc").load_state_dict({"metric": "roc_auc", "bounded": False})
    with pytest.raises(ValueError, match="lacks 'summary'"):
        BinaryMetric("roc_auc", summary=fastrank.BinnedSummary(bins=4)).load_state_dict(
            {"metric": "roc_auc", "bounded": True})
    ties = {"one_d": True, "values": [torch.tensor([.1, .2], dtype=torch.float16)],
            "pos": [torch.tensor([0, 1])], "neg": [torch.tensor([1, 0])]}
    m = BinaryMetric("roc_auc")
    with pytest.raises(ValueError, match="holds scores of dtype float16"):
        m.load_state_dict({"metric": "roc_auc", "bounded": False, "rows": {}, "ties": ties})
    with pytest.raises(ValueError, match=r"lacks 'ties\.neg'"):
        m.load_state_dict({"metric": "roc_auc", "bounded": False, "rows": {},
                           "ties": {k: v for k, v in ties.items() if k != "neg"}})
    assert len(m._state) == 0  # nothing changed


@pytest.mark.parametrize("dtype", [d for d in (getattr(torch, "float8_e4m3fn", None),
                                               getattr(torch, "float8_e5m2", None)) if d])
def test_float8_scores_are_widened_exactly(dtype):
    s = torch.tensor([0.1, 0.2, 0.2, 0.5, 0.75, 0.1]).to(dtype)
    y = torch.tensor([0, 1, 0, 1, 1, 0])
    m = BinaryMetric("average_precision")
    m.update(s, y)
    want = fastrank.average_precision(y.numpy(), s.float().numpy())
    assert float(m.compute()) == want == fastrank.average_precision(y, s)


# ---------------------------------------------------------------------- bad input


def snapshot(m):
    return {k: (v.clone() if isinstance(v, torch.Tensor) else v)
            for k, v in m.state_dict()["rows"].items()}


@pytest.mark.parametrize("bounded", [False, True])
def test_bad_updates_raise_and_change_nothing(bounded):
    def make(cls=BinaryMetric, **kw):
        if bounded:
            kw["summary"] = fastrank.BinnedSummary(bins=8)
        return cls("roc_auc", **kw)

    m = make()
    m.update(torch.tensor([0.1, 0.9, 0.5]), torch.tensor([0, 1, 1]))
    before = m.state_dict()
    bad = [
        ((torch.tensor([0.2, 0.3]), torch.tensor([1, 0, 1])), "same shape"),
        ((torch.tensor([0.2, 0.3]), torch.tensor([2, 0])), "0/1 labels; got 2"),
        ((torch.tensor([0.2, 0.3]), torch.tensor([-1, 1])), "0/1 labels; got -1"),
        ((torch.tensor([0.2, 0.3]), torch.tensor([0.5, 1.0])), "0/1 labels; got 0.5"),
        ((torch.tensor([0.2, float("nan")]), torch.tensor([1, 0])), "NaN|finite"),
        ((torch.tensor([0.2, 0.3]), torch.tensor([1, 0]), torch.tensor([1, 2])),
         "groups" if not bounded else "takes no groups"),
    ]
    for args, match in bad:
        with pytest.raises(ValueError, match=match):
            m.update(*args)
        after = m.state_dict()
        if bounded:
            assert same(after["summary"]["_counts"], before["summary"]["_counts"])
        else:
            assert all(torch.equal(after["rows"][k], before["rows"][k])
                       for k in before["rows"] if before["rows"][k] is not None)

    ml = make(MultilabelMetric)
    ml.update(torch.rand(4, 3), torch.ones(4, 3))
    with pytest.raises(ValueError, match=r"3 task"):
        ml.update(torch.rand(4, 2), torch.ones(4, 2))  # another shape than before
    assert ml.rows == 4

    if not bounded:  # groups with some batches only
        g = GroupedMetric("average_precision")
        with pytest.raises(ValueError, match="needs groups"):
            g.update(torch.tensor([0.1]), torch.tensor([1]))
        b = BinaryMetric("average_precision")
        b.update(torch.tensor([0.1, 0.2]), torch.tensor([1, 0]), groups=torch.tensor([1, 1]))
        with pytest.raises(ValueError, match="earlier batches came with groups"):
            b.update(torch.tensor([0.4]), torch.tensor([1]))
        assert b.rows == 2
        mc = MulticlassMetric("roc_auc", num_classes=3)
        with pytest.raises(ValueError, match=r"outside 0 \.\. 2"):
            mc.update(torch.rand(2, 3), torch.tensor([0, 3]))
        assert mc.rows == 0


def test_bad_construction():
    with pytest.raises(ValueError, match="must be one of"):
        BinaryMetric("accuracy")
    with pytest.raises(TypeError, match="options for 'roc_auc'"):
        BinaryMetric("roc_auc", k=3)
    with pytest.raises(TypeError, match="cannot be metric options"):
        BinaryMetric("roc_auc", sample_weight=[1.0])
    with pytest.raises(TypeError, match="min_specificity"):
        BinaryMetric("sensitivity_at_specificity")
    with pytest.raises(ValueError, match="nothing to compute"):
        BinaryMetric("roc_auc").compute()


# ---------------------------------------------------------------------- devices


def test_cuda_tensors_are_copied_once_and_equal_the_cpu_path():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here (torch.cuda.is_available() is False)")
    y, s, parts = batches(t=3)
    m, ref = MultilabelAveragePrecision(average=None), MultilabelAveragePrecision(average=None)
    for a, b in parts:
        for dtype in (torch.bfloat16, torch.float16, torch.float32):
            p = torch.tensor(s[a:b], dtype=dtype)
            m.update(p.cuda().requires_grad_(), torch.tensor(y[a:b]).cuda())
            ref.update(p, torch.tensor(y[a:b]))
    assert same(m.compute().numpy(), ref.compute().numpy())


def test_cuda_copy_logic_without_a_gpu():
    """The CUDA branch of update, run on CPU tensors that it takes for CUDA ones:
    each tensor (bf16 widened on its device first, detached) copied once into its own
    host buffer, non-blocking, one synchronisation per device and update after
    every copy is queued; the values those of the CPU path, and a rejected batch
    still changes nothing."""
    from unittest import mock

    import fastrank.torch as ft

    events = []

    class Host(torch.Tensor):  # records the copies into it
        def copy_(self, src, non_blocking=False):
            events.append(("copy", src.dtype, non_blocking, src.requires_grad))
            return super().copy_(src, non_blocking=non_blocking)

    def pinned(x):
        events.append(("alloc", tuple(x.shape)))
        return torch.empty(x.shape, dtype=x.dtype).as_subclass(Host)

    y, s, parts = batches(t=3)
    m, ref = MultilabelAveragePrecision(average=None), MultilabelAveragePrecision(average=None)
    with mock.patch.object(ft, "_on_cuda", lambda x: True), \
            mock.patch.object(ft, "_pinned", pinned), \
            mock.patch.object(ft, "_synchronize", lambda d: events.append(("sync", d.type))):
        for a, b in parts:
            p = torch.tensor(s[a:b], dtype=torch.bfloat16)
            events.clear()
            m.update(p.requires_grad_(), torch.tensor(y[a:b]))
            assert events == [("alloc", (b - a, 3)), ("copy", torch.float32, True, False),
                              ("alloc", (b - a, 3)), ("copy", torch.bool, True, False),
                              ("sync", "cpu")]
            ref.update(p.detach(), torch.tensor(y[a:b]))
        before = m.state_dict()
        with pytest.raises(ValueError, match="0/1 labels"):
            m.update(torch.rand(4, 3), torch.full((4, 3), 2))
        assert events[-1] == ("sync", "cpu")  # copied, then refused: nothing stored
    assert all(torch.equal(m.state_dict()["rows"][k], before["rows"][k])
               for k in before["rows"] if before["rows"][k] is not None)
    assert same(m.compute().numpy(), ref.compute().numpy())
    with pytest.raises(ValueError, match="meta device holds no values"):
        m.update(torch.empty(2, 3, device="meta"), torch.ones(2, 3))


# ---------------------------------------------------------------------- torch.distributed


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("world", [2, 4])
def test_distributed_compute_equals_one_process(world, tmp_path):
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not dist.is_available():
        pytest.skip("this torch build has no torch.distributed")
    mp.spawn(torch_workers.run_rank, args=(world, free_port(), str(tmp_path)), nprocs=world,
             join=True)
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(world)]
    assert all(r == ranks[0] for r in ranks[1:])  # every rank the same, bit for bit
    # one process over all the data, in rank order
    ms = torch_workers.metrics()
    d = torch_workers.dataset(world)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        torch_workers.feed(ms, d, [b for shard in torch_workers.shards(world) for b in shard])
        want = torch_workers.values(ms)
    want["torchmetric_ap"] = [float(fastrank.average_precision(d["y"][:, 0], d["s"][:, 0])).hex()]
    assert ranks[0] == want
    # the data really are spread: an empty rank (world 4) and a rank of one class
    shards = torch_workers.shards(world)
    assert (world == 4) == any(not sh for sh in shards)
    a, b = torch_workers.one_class_rows(world)
    assert not d["y"][a:b].any()


# ---------------------------------------------------------------------- torchmetrics, Lightning


def test_torchmetric_adapter():
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    y, s, parts = batches()
    tm = BinaryMetric("average_precision").torchmetric()
    for a, b in parts:
        batch_value = tm(torch.tensor(s[a:b]), torch.tensor(y[a:b]))
        if b - a > 1 and y[a:b].any():
            assert batch_value.item() == fastrank.average_precision(y[a:b], s[a:b])
    assert tm.compute().item() == fastrank.average_precision(y, s)
    state = roundtrip(tm.state_dict())
    other = BinaryMetric("average_precision").torchmetric()
    other.load_state_dict(state)
    assert other.metric.compute().item() == fastrank.average_precision(y, s)
    tm.reset()
    assert tm.metric.rows == 0


def test_lightning_logs_fastrank_numbers(tmp_path):
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    lightning = pytest.importorskip(
        "lightning.pytorch", reason="lightning is not installed (pip install lightning)")
    y, s, _ = batches(n=256)
    xs = torch.tensor(s, dtype=torch.float32)[:, None]
    ys = torch.tensor(y)

    class Model(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(1, 1)
            self.ap = MultilabelMetric("average_precision").torchmetric()

        def validation_step(self, batch, _):
            x, t = batch
            self.ap.update(x, t[:, None])
            self.log("val_ap", self.ap, on_epoch=True)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=50)
    trainer = lightning.Trainer(accelerator="cpu", devices=1, logger=False,
                                enable_checkpointing=False, enable_progress_bar=False,
                                enable_model_summary=False, default_root_dir=tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning's advice (workers, GPUs), not results
        out = trainer.validate(Model(), dataloaders=loader, verbose=False)
    assert out[0]["val_ap"] == pytest.approx(
        fastrank.average_precision(y[:, None], xs.numpy()), abs=0, rel=1e-7)
