"""Averaged curves across datasets: ``Evaluation.mean_curve``, ``mean_auc``, ``stats.t_quantile``.

ROC curves are averaged vertically: on each dataset the TPR at grid FPR f is
the highest TPR the full ROC curve (every cutoff, ``drop_intermediate=False``)
reaches at FPR exactly f, linear between consecutive points otherwise. The
oracle below re-implements that rule by brute force over the exact ROC points
(tests/oracles.py). PR curves are ``interpolated_precision_recall_curve`` on
the recall grid (checked also against the Davis-Goadrich oracle). The band is
mean +- t * sd / sqrt(n) with scipy's Student t quantile, clipped to [0, 1].
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
import fastrank.stats
from fastrank import UndefinedMetricWarning

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import call
from strategies import PROPERTY_SETTINGS

PROPERTIES = settings(PROPERTY_SETTINGS, max_examples=60)

TOL = 1e-12
# Bands use scipy's t quantile as the oracle; scipy 1.13 is off by about 1e-11
# relative (t.ppf(0.975, 2) = 4.302652729696 against the exact 4.302652729749),
# so band comparisons allow that.
BAND_TOL = 1e-10


# --------------------------------------------------------------------------- oracles


def roc_vertical(
    y01: list[int], s: list[Any], w: list[Any] | None, grid: np.ndarray
) -> list[float]:
    """TPR on the FPR grid by the vertical-averaging rule, by brute force."""
    pts = oracles.roc_points(y01, s, w)  # (0, 0) then every cutoff, exact
    out = []
    for f in grid.tolist():
        at = [tpr for fpr, tpr in pts if float(fpr) == f]
        if at:
            out.append(float(max(at)))
            continue
        pairs = [(a, b) for a, b in itertools.pairwise(pts) if float(a[0]) < f < float(b[0])]
        assert len(pairs) == 1, (f, pairs)
        (x0, y0), (x1, y1) = pairs[0]
        out.append(float(y0 + (Fraction(f) - x0) / (x1 - x0) * (y1 - y0)))
    return out


def band(curves: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """mean, low, high of the spec: Student t interval of the mean, clipped to [0, 1]."""
    n = curves.shape[0]
    mean = curves.mean(axis=0)
    if n == 1:
        nan = np.full(curves.shape[1], np.nan)
        return mean, nan, nan
    sd = curves.std(axis=0, ddof=1)
    t = scipy.stats.t.ppf((1 + level) / 2, n - 1)
    half = t * sd / math.sqrt(n)
    return mean, np.clip(mean - half, 0, 1), np.clip(mean + half, 0, 1)


def assert_close(got: Any, want: Any, tol: float = TOL, what: str = "") -> None:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=0, atol=tol, err_msg=what)


@dataclasses.dataclass
class Fold:
    dataset: Any
    y: np.ndarray
    s: dict[str, np.ndarray]  # model -> scores
    w: np.ndarray | None = None


def make_folds(seed: int, sizes: list[tuple[int, int]], weighted: bool = False) -> list[Fold]:
    """Folds with the given (positives, negatives), two models, scores full of ties."""
    rng = np.random.default_rng(seed)
    folds = []
    for k, (p, n) in enumerate(sizes):
        y = np.array([1] * p + [0] * n)
        rng.shuffle(y)
        s = {
            "sharp": np.round(rng.normal(size=p + n) + 2.0 * y, 1),
            "blunt": np.round(rng.normal(size=p + n) + 0.6 * y).astype(np.int64),
        }
        w = rng.choice([0.5, 1.0, 1.5, 2.0, 0.25], size=p + n) if weighted else None
        folds.append(Fold(f"fold{k}", y, s, w))
    return folds


def evaluate_folds(folds: list[Fold], models: tuple[str, ...] = ("sharp", "blunt")) -> Any:
    scores, labels, names, ids, weights = [], [], [], [], []
    for f in folds:
        for m in models:
            scores.append(f.s[m])
            labels.append(f.y)
            names.append(m)
            ids.append(f.dataset)
            weights.append(f.w)
    kw = {"sample_weight": weights} if folds[0].w is not None else {}
    return fastrank.evaluate(scores, labels, model_names=names, dataset_ids=ids, **kw)


def defined(f: Fold, curve: str) -> bool:
    pos = int(f.y.sum())
    return pos > 0 and (curve == "pr" or pos < len(f.y))


def expected_curves(folds: list[Fold], model: str, curve: str, grid: np.ndarray) -> np.ndarray:
    rows = []
    for f in folds:
        if not defined(f, curve):
            continue
        w = None if f.w is None else f.w.tolist()
        if curve == "roc":
            rows.append(roc_vertical(f.y.tolist(), f.s[model].tolist(), w, grid))
        else:
            prec, rec = fastrank.interpolated_precision_recall_curve(
                f.y, f.s[model], sample_weight=f.w, recall=grid
            )
            np.testing.assert_array_equal(rec, grid)
            # the Davis-Goadrich oracle agrees with the function the spec names
            assert_close(
                prec,
                oracles.interpolated_precision_at(
                    f.y.tolist(), f.s[model].tolist(), w, grid.tolist()
                ),
                1e-12,
            )
            rows.append(prec.tolist())
    return np.array(rows, dtype=np.float64)


def check_mean_curve(
    mc: Any, folds: list[Fold], model: str, curve: str, points: int, level: float
) -> None:
    grid = np.linspace(0, 1, points)
    assert isinstance(mc, fastrank.MeanCurve)
    assert mc.model == model
    assert mc.curve == curve
    assert mc.level == level
    np.testing.assert_array_equal(np.asarray(mc.x), grid)  # exactly np.linspace(0, 1, points)
    want = expected_curves(folds, model, curve, grid)
    assert mc.n_datasets == want.shape[0]
    assert np.asarray(mc.curves).shape == (want.shape[0], points)
    assert_close(mc.curves, want, what="curves")
    mean, low, high = band(want, level)
    assert_close(mc.mean, mean, what="mean")
    assert_close(mc.low, low, tol=BAND_TOL, what="low")
    assert_close(mc.high, high, tol=BAND_TOL, what="high")


# --------------------------------------------------------------------------- mean_curve


@pytest.mark.parametrize("points", [5, 11, 101])
@pytest.mark.parametrize("curve", ["roc", "pr"])
def test_mean_curve_brute_force(points, curve):
    # N = 4 and 8: many FPRs fall exactly on the grid points of 5 and 11 and 101
    folds = make_folds(1, [(6, 4), (5, 8), (9, 10), (3, 7)])
    ev = evaluate_folds(folds)
    for model in ("sharp", "blunt"):
        mc = ev.mean_curve(model, curve, points=points)
        check_mean_curve(mc, folds, model, curve, points, 0.95)
        mc2 = ev.mean_curve(model=model, curve=curve, level=0.95, points=points)
        np.testing.assert_array_equal(mc2.mean, mc.mean)


def test_mean_curve_defaults():
    folds = make_folds(2, [(4, 4), (5, 6), (7, 3)])
    ev = evaluate_folds(folds, models=("sharp",))
    mc = ev.mean_curve()  # the only model, roc, level 0.95, 101 points
    check_mean_curve(mc, folds, "sharp", "roc", 101, 0.95)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.99, 0.999])
def test_mean_curve_levels(level):
    folds = make_folds(3, [(5, 4), (6, 6), (4, 8), (8, 5), (5, 5)])
    ev = evaluate_folds(folds)
    for curve in ("roc", "pr"):
        check_mean_curve(
            ev.mean_curve("blunt", curve, level=level, points=21), folds, "blunt", curve, 21, level
        )


def test_mean_curve_weighted():
    folds = make_folds(4, [(5, 4), (6, 7), (4, 4)], weighted=True)
    ev = evaluate_folds(folds)
    for curve in ("roc", "pr"):
        for model in ("sharp", "blunt"):
            check_mean_curve(ev.mean_curve(model, curve, points=17), folds, model, curve, 17, 0.95)


def test_vertical_rule_by_hand():
    # ROC points: (0,0) (0,1/3) [5] (1/2,1/3) [4] (1,2/3) [3, tie of a pos and a neg] (1,1) [2]
    s = np.array([5, 4, 3, 3, 2])
    y = np.array([1, 0, 1, 0, 1])
    ev = fastrank.evaluate(s, y)
    mc = ev.mean_curve(points=5)
    # f=0: highest TPR at FPR 0 is 1/3; f=.25: on the flat segment; f=.5: the point;
    # f=.75: halfway along the diagonal from (1/2,1/3) to (1,2/3); f=1: highest TPR at FPR 1
    assert_close(mc.curves, [[1 / 3, 1 / 3, 1 / 3, 1 / 2, 1.0]], 1e-15)
    assert_close(mc.mean, [1 / 3, 1 / 3, 1 / 3, 1 / 2, 1.0], 1e-15)
    assert mc.n_datasets == 1


def test_vertical_rule_takes_highest_tpr_on_vertical_steps():
    # two positives tied above everything, then negatives: TPR jumps at FPR 0
    s = np.array([9, 9, 5, 5, 1, 1])
    y = np.array([1, 1, 0, 1, 0, 0])
    mc = fastrank.evaluate(s, y).mean_curve(points=3)
    # points: (0,0) (0,2/3) (1/3,1) (1,1); f=0 -> 2/3, f=.5 -> 1, f=1 -> 1
    assert_close(mc.curves, [[2 / 3, 1.0, 1.0]], 1e-15)
    assert_close(
        mc.curves, [roc_vertical(y.tolist(), s.tolist(), None, np.linspace(0, 1, 3))], 1e-15
    )


def test_one_dataset_band_is_nan():
    folds = make_folds(5, [(6, 5)])
    ev = evaluate_folds(folds)
    for curve in ("roc", "pr"):
        mc = ev.mean_curve("sharp", curve, points=11)
        check_mean_curve(mc, folds, "sharp", curve, 11, 0.95)
        assert mc.n_datasets == 1
        assert np.all(np.isnan(mc.low)) and np.all(np.isnan(mc.high))
        np.testing.assert_array_equal(mc.mean, np.asarray(mc.curves)[0])


def test_band_is_clipped():
    # one perfect fold and one poor one: the t interval (t = 12.7 with 1 df) leaves [0, 1]
    s_good = np.array([4.0, 3.0, 2.0, 1.0])
    y_good = np.array([1, 1, 0, 0])
    s_bad = np.array([4.0, 3.0, 2.0, 1.0])
    y_bad = np.array([0, 0, 1, 1])
    ev = fastrank.evaluate(
        [s_good, s_bad], [y_good, y_bad], model_names=["m", "m"], dataset_ids=[0, 1]
    )
    for curve in ("roc", "pr"):
        mc = ev.mean_curve("m", curve, points=11)
        curves = np.asarray(mc.curves)
        mean = curves.mean(axis=0)
        half = scipy.stats.t.ppf(0.975, 1) * curves.std(axis=0, ddof=1) / math.sqrt(2)
        assert np.any(mean + half > 1) and np.any(mean - half < 0)  # clipping matters here
        assert_close(mc.high, np.clip(mean + half, 0, 1), tol=BAND_TOL, what="high")
        assert_close(mc.low, np.clip(mean - half, 0, 1), tol=BAND_TOL, what="low")
        assert np.all(np.asarray(mc.low) >= 0) and np.all(np.asarray(mc.high) <= 1)
        assert np.any(np.asarray(mc.high) == 1) and np.any(np.asarray(mc.low) == 0)
    folds = [Fold(0, y_good, {"m": s_good}), Fold(1, y_bad, {"m": s_bad})]
    for curve in ("roc", "pr"):
        check_mean_curve(ev.mean_curve("m", curve, points=11), folds, "m", curve, 11, 0.95)


@pytest.mark.parametrize("curve", ["roc", "pr"])
def test_one_class_dataset_is_left_out_with_one_warning(curve):
    folds = make_folds(6, [(5, 4), (6, 6), (4, 7)])
    folds.insert(
        1, Fold("empty", np.zeros(9, dtype=int), {"sharp": np.arange(9.0), "blunt": np.zeros(9)})
    )
    if curve == "roc":
        folds.append(
            Fold("allpos", np.ones(5, dtype=int), {"sharp": np.arange(5.0), "blunt": np.ones(5)})
        )
    ev, rec = call(evaluate_folds, folds)
    assert len(rec) == 1  # evaluate's own one warning
    mc, rec = call(ev.mean_curve, "sharp", curve, points=11)
    assert len(rec) == 1, [str(w.message) for w in rec]
    assert issubclass(rec[0].category, UndefinedMetricWarning)
    assert mc.n_datasets == 3
    check_mean_curve(mc, folds, "sharp", curve, 11, 0.95)


def test_mean_curve_defined_does_not_warn():
    folds = make_folds(7, [(5, 4), (6, 6)])
    ev = evaluate_folds(folds)
    for curve in ("roc", "pr"):
        _, rec = call(ev.mean_curve, "blunt", curve)
        assert rec == []


def test_mean_curve_is_frozen_dataclass():
    folds = make_folds(8, [(5, 4), (6, 6)])
    mc = evaluate_folds(folds).mean_curve("sharp", "pr", points=7)
    assert dataclasses.is_dataclass(mc)
    for name in ("model", "curve", "x", "mean", "low", "high", "n_datasets", "level", "curves"):
        assert hasattr(mc, name), name
    assert mc.n_datasets == 2 == np.asarray(mc.curves).shape[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        mc.level = 0.5  # type: ignore[misc]


@pytest.mark.parametrize("level", [0.0, 1.0, -0.5, 1.5])
def test_mean_curve_bad_level(level):
    ev = evaluate_folds(make_folds(9, [(3, 3), (4, 4)]))
    with pytest.raises(ValueError, match="level"):
        ev.mean_curve("sharp", "roc", level=level)


@pytest.mark.parametrize("points", [1, 0, -3])
def test_mean_curve_bad_points(points):
    ev = evaluate_folds(make_folds(9, [(3, 3), (4, 4)]))
    with pytest.raises(ValueError, match="points"):
        ev.mean_curve("sharp", "roc", points=points)


@pytest.mark.parametrize("curve", ["det", "auc", ""])
def test_mean_curve_bad_curve(curve):
    ev = evaluate_folds(make_folds(9, [(3, 3), (4, 4)]))
    with pytest.raises(ValueError, match=r"curve|roc"):
        ev.mean_curve("sharp", curve)


def test_mean_curve_unknown_model():
    ev = evaluate_folds(make_folds(9, [(3, 3), (4, 4)]))
    with pytest.raises(ValueError, match="nosuch"):
        ev.mean_curve("nosuch", "roc")


# --------------------------------------------------------------------------- hypothesis


@st.composite
def fold_sets(draw: st.DrawFn) -> list[Fold]:
    k = draw(st.integers(1, 4))
    pool = draw(
        st.lists(
            st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=4, unique=True
        )
    )
    folds = []
    for i in range(k):
        p = draw(st.integers(1, 6))
        n = draw(st.integers(1, 6))
        y = np.array([1] * p + [0] * n)
        perm = draw(st.permutations(range(p + n)))
        s = np.array([draw(st.sampled_from(pool)) for _ in range(p + n)])
        folds.append(Fold(i, y[list(perm)], {"m": s}))
    return folds


@PROPERTIES
@given(
    folds=fold_sets(),
    points=st.sampled_from([2, 3, 5, 7, 13, 101]),
    curve=st.sampled_from(["roc", "pr"]),
)
def test_property_mean_curve(folds, points, curve):
    ev = evaluate_folds(folds, models=("m",))
    mc = ev.mean_curve("m", curve, points=points)
    check_mean_curve(mc, folds, "m", curve, points, 0.95)
    assert np.all((np.asarray(mc.mean) >= 0) & (np.asarray(mc.mean) <= 1))


# --------------------------------------------------------------------------- mean_auc


def check_mean_auc(
    got: dict[str, np.ndarray], per_model: dict[str, list[tuple[Any, Any, Any]]], level: float
) -> None:
    """``per_model``: model -> [(y, s, w)] of its datasets; aucs from the single-task functions."""
    assert list(got) == ["model", "curve", "mean", "sd", "low", "high", "n_datasets"]
    assert len(got["model"]) == 2 * len(per_model)
    rows = {(m, c): i for i, (m, c) in enumerate(zip(got["model"], got["curve"], strict=True))}
    assert len(rows) == len(got["model"])
    for model, tasks in per_model.items():
        for curve, func in (("ROC", fastrank.roc_auc), ("PR", fastrank.pr_auc)):
            r = rows[(model, curve)]
            aucs = np.array([func(y, s, sample_weight=w) for y, s, w in tasks])
            n = len(aucs)
            assert int(got["n_datasets"][r]) == n
            assert abs(got["mean"][r] - np.mean(aucs)) <= TOL
            if n == 1:
                assert got["mean"][r] == aucs[0]
                assert math.isnan(got["low"][r]) and math.isnan(got["high"][r])
                continue
            sd = np.std(aucs, ddof=1)
            assert abs(got["sd"][r] - sd) <= TOL
            half = scipy.stats.t.ppf((1 + level) / 2, n - 1) * sd / math.sqrt(n)
            assert abs(got["low"][r] - np.clip(np.mean(aucs) - half, 0, 1)) <= BAND_TOL
            assert abs(got["high"][r] - np.clip(np.mean(aucs) + half, 0, 1)) <= BAND_TOL


@pytest.mark.parametrize("level", [0.95, 0.9, 0.5])
def test_mean_auc(level):
    folds = make_folds(10, [(5, 4), (6, 6), (4, 7), (9, 9), (3, 5)], weighted=(level == 0.9))
    ev = evaluate_folds(folds)
    got = ev.mean_auc(level=level, as_frame=False)
    per_model = {m: [(f.y, f.s[m], f.w) for f in folds] for m in ("sharp", "blunt")}
    check_mean_auc(got, per_model, level)
    assert set(got["curve"].tolist()) == {"ROC", "PR"}


def test_mean_auc_models_on_different_datasets():
    folds = make_folds(11, [(5, 4), (6, 6), (4, 7)])
    scores = [folds[0].s["sharp"], folds[1].s["sharp"], folds[2].s["sharp"], folds[1].s["blunt"]]
    labels = [folds[0].y, folds[1].y, folds[2].y, folds[1].y]
    ev = fastrank.evaluate(
        scores, labels, model_names=["a", "a", "a", "b"], dataset_ids=["x", "y", "z", "y"]
    )
    got = ev.mean_auc(as_frame=False)
    per_model = {
        "a": [(folds[i].y, folds[i].s["sharp"], None) for i in range(3)],
        "b": [(folds[1].y, folds[1].s["blunt"], None)],  # one dataset: NaN interval
    }
    check_mean_auc(got, per_model, 0.95)


def test_mean_auc_is_clipped():
    s = np.array([4.0, 3.0, 2.0, 1.0])
    ev = fastrank.evaluate(
        [s, s],
        [np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1])],
        model_names=["m", "m"],
        dataset_ids=[0, 1],
    )
    got = ev.mean_auc(as_frame=False)
    r = next(i for i, c in enumerate(got["curve"]) if c == "ROC")
    assert got["mean"][r] == 0.5 and got["low"][r] == 0.0 and got["high"][r] == 1.0
    check_mean_auc(
        got, {"m": [(np.array([1, 1, 0, 0]), s, None), (np.array([0, 0, 1, 1]), s, None)]}, 0.95
    )


@pytest.mark.parametrize("level", [0.0, 1.0, 2.0, -0.1])
def test_mean_auc_bad_level(level):
    ev = evaluate_folds(make_folds(12, [(3, 3), (4, 4)]))
    with pytest.raises(ValueError, match="level"):
        ev.mean_auc(level=level, as_frame=False)


# --------------------------------------------------------------------------- t quantile

# The quantiles over the range where a band can need them (level up to 1 - 2e-6).
PS = [
    1e-6,
    1e-5,
    1e-4,
    0.001,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.2,
    0.25,
    0.3,
    0.4,
    0.45,
    0.5,
    0.55,
    0.6,
    0.7,
    0.75,
    0.8,
    0.9,
    0.95,
    0.975,
    0.99,
    0.995,
    0.999,
    0.9995,
    1 - 1e-6,
]
# Far tails: the float p (or 1 - p, exact for p near 1) holds the tail mass to full
# precision, so scipy's value is well defined there and the spec's 1e-10 applies too.
FAR_TAILS = [1e-12, 1e-10, 1e-9, 1e-8, 1 - 1e-8, 1 - 1e-9]


def _t_mismatches(ps: list[float], dfs: range) -> list[tuple[float, int, float, float]]:
    bad = []
    for df in dfs:
        want = scipy.stats.t.ppf(ps, df)
        for p, w in zip(ps, want.tolist(), strict=True):
            got = fastrank.stats.t_quantile(p, df)
            assert isinstance(got, float)
            if not abs(got - w) <= 1e-10 * max(1.0, abs(w)):
                bad.append((p, df, got, w))
    return bad


def test_t_quantile_matches_scipy():
    bad = _t_mismatches(PS, range(1, 201))
    assert not bad, bad[:10]


def test_t_quantile_far_tails():
    bad = _t_mismatches(FAR_TAILS, range(1, 201))
    assert not bad, (len(bad), bad[:10])


def test_t_quantile_band_levels():
    # the quantiles the bands use: (1 + level) / 2 for common levels, df 1..200
    for level in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999):
        p = (1 + level) / 2
        for df in range(1, 201):
            w = scipy.stats.t.ppf(p, df)
            got = fastrank.stats.t_quantile(p, df)
            assert abs(got - w) <= 1e-10 * max(1.0, abs(w)), (p, df, got, w)


def test_t_quantile_known_values():
    # df = 1 is Cauchy: tan(pi (p - 1/2)); df = 2 has a closed form too
    for p in (0.6, 0.9, 0.975, 0.995):
        assert fastrank.stats.t_quantile(p, 1) == pytest.approx(
            math.tan(math.pi * (p - 0.5)), rel=1e-10
        )
        a = 4 * p * (1 - p)
        assert fastrank.stats.t_quantile(p, 2) == pytest.approx(
            (2 * p - 1) * math.sqrt(2 / a), rel=1e-10
        )
    assert fastrank.stats.t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-12)
    for df in (1, 3, 30):
        assert fastrank.stats.t_quantile(0.1, df) == pytest.approx(
            -fastrank.stats.t_quantile(0.9, df), rel=1e-12, abs=1e-12
        )


@PROPERTIES
@given(p=st.floats(min_value=1e-6, max_value=1 - 1e-6), df=st.integers(1, 200))
def test_property_t_quantile(p, df):
    w = scipy.stats.t.ppf(p, df)
    got = fastrank.stats.t_quantile(p, df)
    assert abs(got - w) <= 1e-10 * max(1.0, abs(w)), (p, df, got, w)
