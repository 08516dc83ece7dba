"""Evaluation.gains and Evaluation.partial_areas: each row is the one-task function on
that model and dataset (weights included); undefined pairs are NaN."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import fastrank


def _evaluation(weighted: bool):
    rng = np.random.default_rng(4)
    folds = {}
    for k in range(3):
        n = 300
        y = (rng.random(n) < 0.3).astype(int)
        if k == 2:
            y[:] = 0  # a fold without positives
        folds[f"f{k}"] = (y, {"m1": np.round(y + rng.normal(size=n), 1),
                              "m2": rng.random(n)},
                          rng.integers(1, 4, n).astype(float) if weighted else None)
    scores = {m: {f: folds[f][1][m] for f in folds} for m in ("m1", "m2")}
    labels = {f: folds[f][0] for f in folds}
    weights = {f: folds[f][2] for f in folds} if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        ev = fastrank.evaluate(scores, labels, sample_weight=weights)
    return ev, folds


def _quiet(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        return f(*args, **kw)


@pytest.mark.parametrize("weighted", [False, True])
def test_gains_are_gain_and_lift_at_depth(weighted) -> None:
    ev, folds = _evaluation(weighted)
    depths = [0.0, 0.05, 0.1, 0.5, 1.0]
    t = ev.gains(depths, as_frame=False)
    assert len(t["gain"]) == len(ev.entries) * len(depths)
    for i in range(len(t["gain"])):
        y, scores, w = folds[t["dataset"][i]]
        s = scores[t["model"][i]]
        g = _quiet(fastrank.gain_at_depth, y, s, t["depth"][i], sample_weight=w)
        lift = _quiet(fastrank.lift_at_depth, y, s, t["depth"][i], sample_weight=w)
        assert (g == t["gain"][i] or (math.isnan(g) and math.isnan(t["gain"][i])))
        assert (lift == t["lift"][i] or (math.isnan(lift) and math.isnan(t["lift"][i])))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kw", [{"fpr": (0, 0.2)}, {"tpr": (0.8, 1), "correct": True},
                                {"fpr": (0, 0.3), "tpr": (0.5, 1), "recall": (0.2, 0.6)},
                                {"recall": (0, 0.5)}])
def test_partial_areas_are_the_one_task_areas(weighted, kw) -> None:
    ev, folds = _evaluation(weighted)
    t = ev.partial_areas(**kw, as_frame=False)
    roc = {k: v for k, v in kw.items() if k != "recall"}
    assert ("partial_roc_auc" in t) == bool(roc) and ("partial_pr_auc" in t) == ("recall" in kw)
    for i in range(len(t["model"])):
        y, scores, w = folds[t["dataset"][i]]
        s = scores[t["model"][i]]
        if roc:
            want = _quiet(fastrank.partial_roc_auc, y, s, sample_weight=w, **roc)
            got = t["partial_roc_auc"][i]
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, rel=1e-13)
        if "recall" in kw:
            want = _quiet(fastrank.partial_pr_auc, y, s, recall=kw["recall"], sample_weight=w)
            got = t["partial_pr_auc"][i]
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, rel=1e-13)


def test_bad_requests_are_refused() -> None:
    ev, _ = _evaluation(False)
    with pytest.raises(ValueError, match="pass fpr= or tpr="):
        ev.partial_areas()
    with pytest.raises(ValueError, match="correct= standardises"):
        ev.partial_areas(correct=True, recall=(0, 1))
    with pytest.raises(ValueError, match="fpr must satisfy"):
        ev.partial_areas(fpr=(0.5, 0.5))
    with pytest.raises(ValueError, match="depth must lie in"):
        ev.gains([0.1, 1.5])
