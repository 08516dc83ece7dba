"""Operating points against brute force over every cutoff, and a dense search inside ties.

Conservative points (``interpolate=False``) are checked against a loop over
every distinct score (and "flag nothing"), counting the flagged samples
directly, maximising the rate asked for and then the other rate. Interpolated
points must be at least as good as every cutoff, feasible, and match a dense
search over the share of each tie group flagged at random (its expected
counts).
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank._core import tie_tables, workers

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS

READOUTS = {
    # name: (value of (tp, fp, P, N), constraint rate, bound's name)
    "sensitivity_at_specificity": (lambda tp, fp, P, N: tp / P, lambda tp, fp, P, N: (N - fp) / N),
    "specificity_at_sensitivity": (lambda tp, fp, P, N: (N - fp) / N, lambda tp, fp, P, N: tp / P),
    "recall_at_precision": (lambda tp, fp, P, N: tp / P,
                            lambda tp, fp, P, N: tp / (tp + fp) if tp + fp > 0 else -1.0),
    "precision_at_recall": (lambda tp, fp, P, N: tp / (tp + fp) if tp + fp > 0 else -1.0,
                            lambda tp, fp, P, N: tp / P),
}


def cutoffs(y, s, w):
    """(threshold, tp, fp) for "flag nothing" and every distinct score, by direct counting."""
    y, s, w = np.asarray(y), np.asarray(s, dtype=np.float64), np.asarray(w, dtype=np.float64)
    out = [(math.inf, 0.0, 0.0)]
    for t in sorted({v for v, wi in zip(s, w, strict=True) if wi > 0}, reverse=True):
        flagged = s >= t
        out.append((t, float(w[flagged & (y == 1)].sum()), float(w[flagged & (y == 0)].sum())))
    return out


def brute(name, y, s, w, bound):
    value, rate = READOUTS[name]
    P = float(np.dot(w, np.asarray(y) == 1))
    N = float(np.dot(w, np.asarray(y) == 0))
    best = None
    for t, tp, fp in cutoffs(y, s, w):
        if name == "precision_at_recall" and tp + fp == 0:
            continue  # flagging nothing has no precision
        if rate(tp, fp, P, N) >= bound:
            other = READOUTS[name][1](tp, fp, P, N)
            key = (value(tp, fp, P, N), other)
            if best is None or key > best[0]:
                best = (key, t)
    if best is None:
        return 0.0, math.inf  # recall at an unreachable precision: flag nothing
    return best[0][0], best[1]


cases = st.integers(3, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n),
))
bounds = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0]),
                   st.floats(0, 1))


@PROPERTY_SETTINGS
@given(cases, bounds, st.sampled_from(sorted(READOUTS)), st.booleans())
def test_conservative_points_are_the_best_cutoff(case, bound, name, weighted) -> None:
    y, s, w = case
    y[:2] = [0, 1]
    w = [max(wi, 0.5) for wi in w] if not weighted else w
    w[:2] = [1.0, 1.0]
    kw = {"sample_weight": w} if weighted else {}
    if not weighted:
        w = [1.0] * len(y)
    got = getattr(fastrank, name)(y, s, bound, **kw)
    want_value, want_threshold = brute(name, y, s, w, bound)
    assert got.value == pytest.approx(want_value, rel=1e-12, abs=1e-15)
    assert got.threshold == want_threshold


def dense(name, y, s, bound, steps=2000):
    """The best value over every share of every tie group flagged (expected counts)."""
    value, rate = READOUTS[name]
    y = np.asarray(y)
    P, N = float((y == 1).sum()), float((y == 0).sum())
    pts = cutoffs(y, s, np.ones(len(y)))
    best = -math.inf
    for (_, tp0, fp0), (_, tp1, fp1) in itertools.pairwise(pts):
        a = np.linspace(0.0, 1.0, steps + 1)
        tp, fp = tp0 + a * (tp1 - tp0), fp0 + a * (fp1 - fp0)
        for t, f in zip(tp, fp, strict=True):
            if name == "precision_at_recall" and t + f == 0:
                continue
            if rate(t, f, P, N) >= bound - 1e-12:
                best = max(best, value(t, f, P, N))
    return best


@PROPERTY_SETTINGS
@given(cases, st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.85, 0.95]),
       st.sampled_from(sorted(READOUTS)))
def test_interpolated_points_match_a_dense_search_inside_ties(case, bound, name) -> None:
    y, s, _ = case
    y = y[:12]
    s = s[:12]
    y[:2] = [0, 1]
    got = getattr(fastrank, name)(y, s, bound, interpolate=True)
    plain = getattr(fastrank, name)(y, s, bound)
    assert got.value >= plain.value - 1e-15
    want = dense(name, y, s, bound)
    if want == -math.inf:  # nothing reaches the precision: flag nothing
        assert got == (0.0, math.inf)
        return
    assert want - 1e-12 <= got.value <= want + 2e-3  # the grid misses the exact crossing
    thresholds = {t for t, _, _ in cutoffs(y, s, np.ones(len(y)))}
    assert got.threshold in thresholds


def test_worked_example() -> None:
    y = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    s = [.9, .8, .8, .7, .6, .5, .4, .3, .2, .1]
    assert fastrank.sensitivity_at_specificity(y, s, 0.8) == (0.75, 0.7)
    assert fastrank.specificity_at_sensitivity(y, s, 1.0) == (4 / 6, 0.5)
    assert fastrank.recall_at_precision(y, s, 0.75) == (0.75, 0.7)
    assert fastrank.precision_at_recall(y, s, 1.0) == (4 / 6, 0.5)
    # Halfway into the tie at 0.8 (one positive, one negative): specificity 1 - 0.5 / 6.
    p = fastrank.sensitivity_at_specificity(y, s, 1 - 0.5 / 6, interpolate=True)
    assert p.value == pytest.approx(1.5 / 4) and p.threshold == 0.8
    assert fastrank.recall_at_precision(y, s, 1.0) == (0.25, 0.9)
    assert fastrank.recall_at_precision([0, 1], [.9, .1], 0.99) == (0.0, math.inf)


def test_undefined_is_nan_with_one_warning() -> None:
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no negative samples") as rec:
        p = fastrank.sensitivity_at_specificity([1, 1], [.1, .2], 0.9)
    assert len(rec) == 1 and math.isnan(p.value) and math.isnan(p.threshold)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no positive samples"):
        assert math.isnan(fastrank.precision_at_recall([0, 0], [.1, .2], 0.5).value)
    # Precision and recall need no negatives.
    assert fastrank.recall_at_precision([1, 1], [.1, .2], 0.9) == (1.0, 0.1)


@pytest.mark.parametrize("name", sorted(READOUTS))
def test_bad_bounds_and_options(name) -> None:
    f = getattr(fastrank, name)
    for bad in (-0.1, 1.01, math.nan):
        with pytest.raises(ValueError, match="must lie in \\[0, 1\\]"):
            f([0, 1], [.1, .2], bad)
    for bad in ("0.5", None, True):
        with pytest.raises(TypeError, match="must be a number in \\[0, 1\\]"):
            f([0, 1], [.1, .2], bad)
    with pytest.raises(TypeError, match="interpolate must be True or False"):
        f([0, 1], [.1, .2], 0.5, interpolate="yes")
    with pytest.raises(ValueError, match="non-finite"):
        f([0, 1], [math.nan, .2], 0.5)


def test_the_input_order_does_not_matter() -> None:
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 400)
    s = np.round(y + rng.normal(size=400), 1)
    perm = rng.permutation(400)
    for name in READOUTS:
        for interpolate in (False, True):
            f = getattr(fastrank, name)
            assert f(y, s, 0.8, interpolate=interpolate) == f(y[perm], s[perm], 0.8,
                                                                interpolate=interpolate)


def test_evaluation_table_is_the_one_task_functions() -> None:
    rng = np.random.default_rng(4)
    folds = [rng.integers(0, 2, 300) for _ in range(3)]
    scores = {m: [np.round(y * sep + rng.normal(size=300), 1) for y in folds]
              for m, sep in (("good", 2.0), ("poor", 0.5))}
    ev = fastrank.evaluate(scores, folds)
    for interpolate in (False, True):
        t = ev.operating_points(min_precision=[0.8, 0.95], min_recall=0.5,
                                min_specificity=0.9, min_sensitivity=[0.9],
                                interpolate=interpolate, as_frame=False)
        asked = [("recall_at_precision", 0.8), ("recall_at_precision", 0.95),
                 ("precision_at_recall", 0.5), ("sensitivity_at_specificity", 0.9),
                 ("specificity_at_sensitivity", 0.9)]
        i = 0
        for m in ("good", "poor"):
            for k in range(3):
                for name, bound in asked:
                    want = getattr(fastrank, name)(folds[k], scores[m][k], bound,
                                                   interpolate=interpolate)
                    assert (t["model"][i], t["dataset"][i], t["readout"][i]) == (m, k, name)
                    assert (t["bound"][i], t["value"][i], t["threshold"][i]) == (bound, *want)
                    i += 1
        assert i == len(t["value"])
    with pytest.raises(ValueError, match="pass at least one bound"):
        ev.operating_points()
    with pytest.raises(ValueError, match="min_recall must lie in"):
        ev.operating_points(min_recall=1.5)


def test_evaluation_table_of_a_pair_without_negatives_is_nan() -> None:
    with pytest.warns(fastrank.UndefinedMetricWarning):
        ev = fastrank.evaluate([[.3, .2, .1], [.9, .1, .5]], [[1, 1, 1], [1, 0, 0]],
                               model_names=["m", "m"], dataset_ids=[0, 1])
    t = ev.operating_points(min_specificity=0.5, min_precision=0.5, as_frame=False)
    assert math.isnan(t["value"][1]) and math.isnan(t["threshold"][1])  # no negatives
    assert t["value"][0] == 1.0  # recall at precision needs positives only


TWO_D = [
    ("sensitivity_at_specificity", (0.9,), {"interpolate": True}),
    ("specificity_at_sensitivity", (0.8,), {}),
    ("recall_at_precision", (0.7,), {}),
    ("precision_at_recall", (0.5,), {"interpolate": True}),
    ("best_cutoff", ("mcc",), {}),
    ("partial_roc_auc", (), {"fpr": (0, 0.2), "correct": True}),
    ("partial_pr_auc", (), {"recall": (0.5, 1)}),
]


@pytest.mark.parametrize(("name", "args", "kw"), TWO_D)
@pytest.mark.parametrize("layout", ["C", "F", "sparse", "weighted"])
def test_two_d_scores_give_one_readout_per_column(name, args, kw, layout) -> None:
    rng = np.random.default_rng(8)
    Y = (rng.random((300, 5)) < 0.3).astype(np.int64)
    S = np.round(Y + rng.normal(size=(300, 5)), 1)
    w = rng.integers(1, 4, 300).astype(np.float64) if layout == "weighted" else None
    labels = Y
    if layout == "F":
        S = np.asfortranarray(S)
    if layout == "sparse":
        sparse = pytest.importorskip("scipy.sparse")
        labels = sparse.csr_matrix(Y)
    f = getattr(fastrank, name)
    got = f(labels, S, *args, sample_weight=w, **kw)
    for j in range(5):
        want = f(Y[:, j], S[:, j], *args, sample_weight=w, **kw)
        if isinstance(want, tuple):
            assert (got.value[j], got.threshold[j]) == tuple(want)
        else:
            assert got[j] == want


def test_two_d_with_class_labels_is_one_vs_rest() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    P = rng.random((200, 3)) + np.eye(3)[y]
    got = fastrank.sensitivity_at_specificity(y, P, 0.9)
    for k in range(3):
        assert got.value[k] == fastrank.sensitivity_at_specificity(y == k, P[:, k], 0.9).value


def test_two_d_undefined_columns_warn_once() -> None:
    Y = np.array([[1, 1], [0, 1], [1, 1], [0, 1]])
    S = np.array([[.9, .2], [.1, .4], [.8, .6], [.3, .8]])
    with pytest.warns(fastrank.UndefinedMetricWarning, match="for 1 of 2 columns") as rec:
        got = fastrank.sensitivity_at_specificity(Y, S, 0.5)
    assert len(rec) == 1
    assert got.value[0] == 1.0 and math.isnan(got.value[1])


def _by_group(f, y, s, g, w, args, kw):
    """The readout of each group's samples alone, groups in increasing id order."""
    y, s, g = np.asarray(y), np.asarray(s), np.asarray(g)
    out = []
    for gid in np.unique(g):
        m = g == gid
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            out.append(f(y[m], s[m], *args, sample_weight=None if w is None else w[m], **kw))
    return np.unique(g), out


def _same(got, want) -> bool:
    return got == want or (math.isnan(got) and math.isnan(want))


@pytest.mark.parametrize(("name", "args", "kw"), TWO_D)
@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("weighted", [False, True])
def test_groups_give_one_readout_per_group(name, args, kw, ids, weighted) -> None:
    rng = np.random.default_rng(11)
    n = 400
    g = rng.integers(0, 9, n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    y[g == 4] = 0  # a group without positives
    s = np.round(y + rng.normal(size=n), 1)
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    if ids == "str":
        g = np.array([f"user{k}" for k in g])
    f = getattr(fastrank, name)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="for 1 of 9 groups") as rec:
        got = f(y, s, *args, sample_weight=w, groups=g, **kw)
    assert len(rec) == 1
    gids, want = _by_group(f, y, s, g, w, args, kw)
    result = got.value if isinstance(got, tuple) else got
    assert isinstance(result, fastrank.GroupResult)
    assert np.array_equal(result.groups, gids)
    for k, gid in enumerate(gids):
        m = g == gid
        wk = np.ones(m.sum()) if w is None else w[m]
        assert result.sizes[k] == m.sum()
        assert result.positives[k] == wk[y[m] == 1].sum()
        assert result.negatives[k] == wk[y[m] == 0].sum()
        if isinstance(got, tuple):
            assert _same(got.value.values[k], want[k].value), (gid, got, want[k])
            assert _same(got.threshold[k], want[k].threshold), (gid, got, want[k])
        else:
            assert _same(got.values[k], want[k]), (gid, got, want[k])


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(st.data())
def test_groups_match_single_calls_on_heavy_ties(data) -> None:
    n = data.draw(st.integers(1, 60))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.float32)
    g = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    name, args, kw = data.draw(st.sampled_from(TWO_D))
    f = getattr(fastrank, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        got = f(y, s, *args, groups=g, **kw)
    gids, want = _by_group(f, y, s, g, None, args, kw)
    values = got.value.values if isinstance(got, tuple) else got.values
    for k in range(len(gids)):
        w_k = want[k].value if isinstance(got, tuple) else want[k]
        assert _same(values[k], w_k)


def test_groups_run_on_every_thread_with_the_one_thread_result() -> None:
    rng = np.random.default_rng(5)
    n = 300_000  # above the size from which batches use every thread
    g = rng.integers(0, 12, n)
    y = rng.random(n) < 0.2
    s = rng.random(n).astype(np.float32)
    many = fastrank.recall_at_precision(y, s, 0.25, groups=g)
    with workers.thread_limit(1):
        one = fastrank.recall_at_precision(y, s, 0.25, groups=g)
    assert np.array_equal(many.value.values, one.value.values)
    assert np.array_equal(many.threshold, one.threshold)


def test_groups_are_checked() -> None:
    y, s = [1, 0, 1, 0], [.9, .1, .4, .6]
    with pytest.raises(ValueError, match="groups"):
        fastrank.partial_roc_auc(y, s, groups=[0, 1, 0])
    with pytest.raises(ValueError, match="1-D"):
        fastrank.recall_at_precision(np.c_[y, y], np.c_[s, s], 0.5, groups=[0, 0, 1, 1])
    with pytest.raises(ValueError, match="missing or non-finite id"):
        fastrank.best_cutoff(y, s, groups=[0, np.nan, 1, 1])


# Readouts read a table whose runs of negative-only groups are single entries (the
# engine's MODE_RUNS); the full table must give the same operating points and best
# cutoffs, bit for bit (they read cumulative counts at cutoffs both tables have),
# and the same partial areas to rounding (the curve's flat pieces are summed as one).
RUNS_CASES = [*TWO_D,
              ("best_cutoff", ("closest_topleft",), {"cost": 0.05}),  # flag almost nothing
              ("best_cutoff", ("youden",), {"cost": 0.1, "prevalence": 0.2}),
              ("best_cutoff", ("f1",), {}),
              ("sensitivity_at_specificity", (1.0,), {}),
              ("specificity_at_sensitivity", (0.0,), {"interpolate": True}),
              ("recall_at_precision", (0.0,), {"interpolate": True}),
              ("partial_roc_auc", (), {"fpr": (0.1, 0.3), "tpr": (0.2, 0.9)}),
              ("partial_pr_auc", (), {"recall": (0.2, 0.7)})]


def _full_table_readout(monkeypatch, f, y, s, args, kw):
    """The readout from every tie group's entry (no runs of negatives joined), the
    table cumulated by numpy."""
    from fastrank import curves, readouts

    def full_cumulated(task, into=None):
        key, gpos, gneg = curves.tie_counts(task)
        return key, np.cumsum(gneg), np.cumsum(gpos)

    with monkeypatch.context() as m:
        m.setattr(readouts, "tie_counts", lambda task, runs=False: curves.tie_counts(task))
        m.setattr(tie_tables, "cumulative_runs", full_cumulated)
        return f(y, s, *args, **kw)


def _bits(x):
    return np.asarray(x, np.float64).tobytes()


def _agree(name, got, want) -> bool:
    if name.startswith("partial_"):
        return bool(np.allclose(got, want, rtol=1e-14, atol=1e-15, equal_nan=True))
    return _bits(tuple(got) if isinstance(got, tuple) else got) == \
        _bits(tuple(want) if isinstance(want, tuple) else want)


@pytest.mark.parametrize(("name", "args", "kw"), RUNS_CASES)
@pytest.mark.parametrize("n", [50, 300_000])
def test_the_runs_table_gives_the_full_tables_readouts(monkeypatch, name, args, kw, n) -> None:
    rng = np.random.default_rng(n)
    s = rng.random(n)
    s[np.argmax(s)] = 2.0
    f = getattr(fastrank, name)
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)  # this test only
    # Few positives (runs built in bulk) and many (group by group); the top group negative.
    for y, scores in [(rng.random(n) < p, v) for p in (0.07, 0.6)
                      for v in (s, np.round(s, 2), np.round(s * 7))]:
        y[np.argmax(s)] = False
        got = f(y, scores, *args, **kw)
        want = _full_table_readout(monkeypatch, f, y, scores, args, kw)
        assert _agree(name, got, want), (got, want)
        with workers.thread_limit(1):  # the same table, and so the same bits, on one thread
            one = f(y, scores, *args, **kw)
        assert _bits(tuple(got) if isinstance(got, tuple) else got) == \
            _bits(tuple(one) if isinstance(one, tuple) else one), (got, one)


@settings(PROPERTY_SETTINGS, max_examples=150)
@given(st.data())
def test_the_runs_table_gives_the_full_tables_readouts_on_ties(data) -> None:
    n = data.draw(st.integers(1, 80))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), np.float64)
    name, args, kw = data.draw(st.sampled_from(RUNS_CASES))
    f = getattr(fastrank, name)
    import contextlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        with contextlib.suppress(ValueError):
            got = f(y, s, *args, **kw)
            from _pytest.monkeypatch import MonkeyPatch

            mp = MonkeyPatch()
            try:
                want = _full_table_readout(mp, f, y, s, args, kw)
            finally:
                mp.undo()
            assert _agree(name, got, want), (got, want)


@pytest.mark.parametrize("prevalence", [0.01, 0.07, 0.6])
@pytest.mark.parametrize("decimals", [None, 3, 1])
def test_the_runs_table_does_not_depend_on_the_threads(prevalence, decimals) -> None:
    from fastrank._core import inputs

    rng = np.random.default_rng(int(prevalence * 100) + (decimals or 0))
    n = 400_000  # several score ranges on two threads
    y = rng.random(n) < prevalence
    s = rng.random(n) if decimals is None else np.round(rng.random(n), decimals)
    task = inputs.task(y, s)
    many = tie_tables.task_table(task, runs=True)
    with workers.thread_limit(1):
        one = tie_tables.task_table(task, runs=True)
    full = tie_tables.task_table(task)
    for a, b in zip(many, one, strict=True):
        assert np.array_equal(a, b)
    _, gpos, gneg = one
    assert gpos.sum() == full[1].sum() and gneg.sum() == full[2].sum()
    # Runs of negatives are whole: no two negative-only entries in a row after the first.
    neg_only = gpos[1:] == 0
    assert not (neg_only[1:] & neg_only[:-1]).any()


@pytest.mark.parametrize("n", [1, 7, 3_000, 40_000, 400_000])
@pytest.mark.parametrize("prevalence", [0.0, 0.03, 0.5, 0.97, 1.0])
@pytest.mark.parametrize("decimals", [None, 4, 1])
def test_cumulative_runs_are_the_cumulated_runs_table(n, prevalence, decimals) -> None:
    """The table the kernel cumulates as it writes it (one range in place, several
    ranges moved together, or counted ties) is numpy's cumulative sum of the runs
    table, entry for entry, with the buffers given or not, on one thread or two."""
    from fastrank._core import inputs

    rng = np.random.default_rng(n + int(prevalence * 100) + (decimals or 0))
    y = rng.random(n) < prevalence
    s = rng.random(n) + 0.3 * y if decimals is None else np.round(rng.random(n), decimals)
    task = inputs.task(y, s.astype(np.float32) if decimals == 4 else s)
    key, gpos, gneg = tie_tables.task_table(task, runs=True)
    for limit in (None, 1):
        for into in (None, tie_tables.runs_scratch(n)):
            with workers.thread_limit(limit or workers.threads()):
                got = tie_tables.cumulative_runs(task, into)
            assert np.array_equal(got[0], key)
            assert np.array_equal(got[1], np.cumsum(gneg))
            assert np.array_equal(got[2], np.cumsum(gpos))


def test_a_last_group_of_zero_weights_is_nan_not_a_crash() -> None:
    """Groups whose last (in id order) has only zero weights: every grouped readout
    raised IndexError (an empty table past the others' entries), where roc_auc gives
    NaN for that group; now NaN, the same as a zero-weight group elsewhere."""
    from fresh import assert_prints_ok

    assert_prints_ok("""
import warnings, numpy as np, fastrank as fk
warnings.simplefilter("ignore")
y, s, g = [1, 0, 1, 0, 1, 0], [.9, .1, .8, .3, .7, .2], [0, 0, 1, 1, 2, 2]
calls = [lambda **k: fk.sensitivity_at_specificity(y, s, .5, **k),
         lambda **k: fk.specificity_at_sensitivity(y, s, .5, **k),
         lambda **k: fk.recall_at_precision(y, s, .5, **k),
         lambda **k: fk.precision_at_recall(y, s, .5, **k),
         lambda **k: fk.best_cutoff(y, s, **k),
         lambda **k: fk.partial_roc_auc(y, s, fpr=(0, .5), **k),
         lambda **k: fk.partial_pr_auc(y, s, recall=(0, .5), **k)]
for w, empty in (([1, 1, 1, 1, 0, 0], 2), ([1, 1, 0, 0, 1, 1], 1), ([0, 0, 1, 1, 1, 1], 0)):
    for f in calls:
        r = f(sample_weight=w, groups=g)
        v = np.asarray(getattr(r, "value", r).values)
        assert np.isnan(v[empty]) and not np.isnan(np.delete(v, empty)).any(), v
print("ok")
""")


@pytest.mark.parametrize("w", [5e-324, 2.0**-1060, 2.0**-1030, 1e-310, 1e-300, 3.0, 1e300])
def test_uniform_weights_at_any_scale_give_the_unweighted_readouts(w: float) -> None:
    """Equal weights are no weights: the readouts work in each task's own units, so
    subnormal ones (5e-324) no longer lose the totals' bits (a partial PR area of 1.0
    where it is 0.388; sensitivity 0.5 for 0.75)."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 40)
    y[:2] = [0, 1]
    s = rng.integers(0, 9, 40) / 8
    calls = [
        lambda **k: fastrank.partial_pr_auc(y, s, recall=(0.25, 0.75), **k),
        lambda **k: fastrank.partial_roc_auc(y, s, fpr=(0.1, 0.6), **k),
        lambda **k: tuple(fastrank.sensitivity_at_specificity(y, s, 0.5, interpolate=True, **k)),
        lambda **k: tuple(fastrank.recall_at_precision(y, s, 0.6, **k)),
        lambda **k: tuple(fastrank.precision_at_recall(y, s, 0.3, interpolate=True, **k)),
        lambda **k: tuple(fastrank.best_cutoff(y, s, "f1", **k)),
    ]
    for f in calls:
        got, want = f(sample_weight=np.full(40, w)), f()
        if math.frexp(w)[0] == 0.5:  # a power of two: the same floats
            assert got == want
        else:  # (1e-300 in the task's units is no integer: rounding may differ)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_interpolated_precision_and_mcc_stay_within_one() -> None:
    """Rounding took the interpolated precision of a group without negatives to
    1 + 2**-52 (and so to the higher cutoff, against the documented preference for
    recall), and Matthews' correlation of a perfect weighted ranking likewise."""
    got = fastrank.precision_at_recall([0, 1, 1], [0, 0.5, 0.9], 0.1, interpolate=True,
                                       sample_weight=[1, 6, 3])
    assert tuple(got) == (1.0, 0.5)
    got = fastrank.best_cutoff([0, 1], [0.25, 0.75], "mcc",
                               sample_weight=[1.6666666666666665, 0.3333333333333333])
    assert tuple(got) == (1.0, 0.75)
    rng = np.random.default_rng(8)
    for _ in range(300):
        n = int(rng.integers(2, 12))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = np.sort(rng.random(n)) if rng.random() < 0.5 else rng.random(n)
        w = rng.random(n) * 3 + 1e-3
        got = (fastrank.precision_at_recall(y, s, float(rng.random()), interpolate=True,
                                            sample_weight=w),
               fastrank.best_cutoff(y, s, "mcc", sample_weight=w))
        assert all(-1.0 <= p.value <= 1.0 for p in got)


def test_a_grouped_warning_counts_each_reason_apart() -> None:
    """One group without negatives and one without positives: the warning said "no
    negative samples ... for 2 of 3 groups"; each reason now comes with its own count."""
    with pytest.warns(fastrank.UndefinedMetricWarning) as caught:
        fastrank.sensitivity_at_specificity([1, 1, 0, 0, 1, 0], [.9, .1, .8, .3, .7, .2], .5,
                                            groups=[0, 0, 1, 1, 2, 2])
    said = str(caught[0].message)
    assert "no negative samples: the operating point is undefined for 1 of 3 groups" in said
    assert "no positive samples: the operating point is undefined for 1 of 3 groups" in said
