"""What the figures of ``Evaluation.plot`` show, checked on their rendered pixels.

Each figure is drawn with the Agg renderer at a fixed resolution into an RGBA
buffer; the checks look for each model's colour inside the axes, compare the
legends' boxes with the axes', and compare the linear and logit views, without
baseline images.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastrank
from fastrank.datasets import simulated_scores

pytest.importorskip("matplotlib.figure")
backend_agg = pytest.importorskip("matplotlib.backends.backend_agg")
colors_mod = pytest.importorskip("matplotlib.colors")

DPI = 150
NOTE = "not drawable on"


# ------------------------------------------------------------------------------ helpers


def _render(fig) -> np.ndarray:
    """The figure's pixels, RGB, row 0 at the top (a plain Agg canvas, no pyplot)."""
    fig.set_dpi(DPI)
    canvas = backend_agg.FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].astype(np.int16)


def _crop(rgb: np.ndarray, bbox, inset: int = 0) -> np.ndarray:
    """The pixels inside a display-space bbox (origin at the bottom left)."""
    height = rgb.shape[0]
    x0, x1 = int(np.ceil(bbox.x0)) + inset, int(np.floor(bbox.x1)) - inset
    top, bottom = height - int(np.floor(bbox.y1)) + inset, height - int(np.ceil(bbox.y0)) - inset
    return rgb[max(top, 0):max(bottom, 0), max(x0, 0):max(x1, 0)]


def _data_area(rgb: np.ndarray, ax) -> np.ndarray:
    """The axes' data area, without the spines; with any legend inside it blanked out,
    so that a colour found here is a curve's and not a legend handle's."""
    out = rgb.copy()
    for legend in _legends(ax):
        box = legend.get_window_extent()
        h = out.shape[0]
        out[max(h - int(box.y1) - 1, 0):h - int(box.y0) + 1,
            max(int(box.x0) - 1, 0):int(box.x1) + 1] = 255
    return _crop(out, ax.get_window_extent(), inset=3)


def _legends(ax) -> list:
    own = ax.get_legend()
    return [own] if own is not None else list(ax.figure.legends)


def _mask(rgb: np.ndarray, color, tol: int = 18) -> np.ndarray:
    """Pixels within ``tol`` (0-255 per channel) of ``color``."""
    target = np.round(np.asarray(colors_mod.to_rgb(color)) * 255).astype(np.int16)
    return (np.abs(rgb - target) <= tol).all(axis=-1)


def _model_line(ax, name: str):
    lines = [ln for ln in ax.get_lines() if ln.get_label().split(" (")[0].split("\n")[0] == name]
    assert len(lines) == 1, (name, [ln.get_label() for ln in ax.get_lines()])
    return lines[0]


def _legend_text(ax, name: str) -> str:
    texts = [t.get_text() for lg in _legends(ax) for t in lg.get_texts()]
    hits = [t for t in texts if t.split(" (")[0].split("\n")[0] == name]
    assert len(hits) == 1, (name, texts)
    return hits[0]


def _colour_pixels(fig, ax, name: str) -> int:
    rgb = _render(fig)
    return int(_mask(_data_area(rgb, ax), _model_line(ax, name).get_color()).sum())


def _eval_of(scores: dict, y) -> fastrank.Evaluation:
    return fastrank.evaluate(scores, np.asarray(y))


@pytest.fixture(scope="module")
def demo():
    """The demo's models: d=1.0 and its rounded copy have nearly the same curves."""
    y, scores = simulated_scores(20_000, seed=0)
    _, rounded = simulated_scores(20_000, seed=0, round_decimals=1, separations=(1.0,))
    scores["d=1.0 rounded"] = rounded["d=1.0"]
    return fastrank.evaluate(scores, y, dataset_ids=["simulated"] * len(scores))


@pytest.fixture(scope="module")
def twins():
    """'first' and 'copy' have the same scores, so exactly the same curves."""
    rng = np.random.default_rng(7)
    y = (rng.random(600) < 0.3).astype(np.int64)
    s = rng.standard_normal(600) + 1.2 * y
    other = rng.standard_normal(600) + 0.4 * y
    return _eval_of({"first": s, "copy": s.copy(), "other": other}, y)


@pytest.fixture(scope="module")
def folds():
    per_fold = []
    for seed in (1, 2, 3):
        y, s = simulated_scores(400, seed=seed, prevalence=0.3, separations=(0.8, 1.6))
        per_fold.append((y, s))
    scores = [s[m] for _, s in per_fold for m in s]
    labels = [y for y, s in per_fold for _ in s]
    names = [m for _, s in per_fold for m in s]
    ids = [k for k, (_, s) in enumerate(per_fold) for _ in s]
    return fastrank.evaluate(scores, labels, model_names=names, dataset_ids=ids)


def _perfect_and_near():
    y = np.r_[np.zeros(60), np.ones(40)].astype(np.int64)
    rng = np.random.default_rng(3)
    return y, {"perfect": y.astype(float), "near": 4.0 * y + rng.standard_normal(100)}


# ------------------------------------------------------------------- 1. coinciding curves


@pytest.mark.parametrize("kind", ["roc", "pr", "det"])
def test_a_curve_under_an_identical_one_still_shows(twins, kind):
    fig = twins.plot(kinds=(kind,))
    (ax,) = fig.axes
    for name in ("first", "copy", "other"):
        assert _colour_pixels(fig, ax, name) >= 30, (kind, name)


@pytest.mark.parametrize("kind", ["roc", "pr", "det"])
def test_demo_models_all_show(demo, kind):
    fig = demo.plot(kinds=(kind,))
    (ax,) = fig.axes
    for name in demo.models:
        assert _colour_pixels(fig, ax, name) >= 30, (kind, name)


def test_averaged_curves_of_identical_models_all_show():
    scores, labels, names, ids = [], [], [], []
    for fold in range(3):
        y, s = simulated_scores(400, seed=fold, prevalence=0.3, separations=(1.0,))
        for name in ("d=1.0", "twin"):
            scores.append(s["d=1.0"])
            labels.append(y)
            names.append(name)
            ids.append(fold)
    ev = fastrank.evaluate(scores, labels, model_names=names, dataset_ids=ids)
    for kind in ("roc", "pr", "det"):
        fig = ev.plot(kinds=(kind,))
        (ax,) = fig.axes
        for name in ("d=1.0", "twin"):
            assert _colour_pixels(fig, ax, name) >= 30, (kind, name)


# ------------------------------------------------------------------------------ 2. legends


def _figures(demo, twins, folds):
    y, scores = _perfect_and_near()
    edge = _eval_of(scores, y)
    yield "demo", demo.plot(kinds=("roc", "pr", "det"), title="demo")
    yield "twins", twins.plot(kinds=("roc", "pr", "det"))
    yield "folds", folds.plot(kinds=("roc", "pr", "det"))
    yield "folds-entries", folds.plot(kinds=("roc", "pr", "det"), average=False)
    yield "perfect", edge.plot(kinds=("roc", "pr", "det"))
    yield "perfect-logit", edge.plot(kinds=("roc", "pr", "det"), scale="logit")
    yield "narrow", demo.plot(kinds=("roc", "pr"), width=3.5, height=3.5)


def test_legends_lie_outside_every_data_area(demo, twins, folds):
    for what, fig in _figures(demo, twins, folds):
        _render(fig)
        areas = [ax.get_window_extent() for ax in fig.axes]
        boxes = [lg.get_window_extent() for ax in fig.axes for lg in _legends(ax)]
        assert boxes, what
        for box in boxes:
            for area in areas:
                assert not box.overlaps(area), (what, box, area)
            # and inside the figure, not cut off
            assert fig.bbox.x0 - 1 <= box.x0 and box.x1 <= fig.bbox.x1 + 1, (what, box)
            assert fig.bbox.y0 - 1 <= box.y0 and box.y1 <= fig.bbox.y1 + 1, (what, box)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (what, a, b)


def test_no_drawn_point_falls_inside_a_legend(demo, twins, folds):
    for what, fig in _figures(demo, twins, folds):
        _render(fig)
        for ax in fig.axes:
            area = ax.get_window_extent()
            for legend in _legends(ax):
                box = legend.get_window_extent()
                for line in ax.get_lines():
                    xy = line.get_transform().transform(np.column_stack(
                        [np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)]))
                    shown = (np.isfinite(xy).all(axis=1)
                             & (xy[:, 0] >= area.x0) & (xy[:, 0] <= area.x1)
                             & (xy[:, 1] >= area.y0) & (xy[:, 1] <= area.y1))
                    inside = ((xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1)
                              & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1))
                    assert not (shown & inside).any(), (what, line.get_label())


def test_legend_keeps_the_curves_pixels(twins):
    """Every pixel of the data area that is not background belongs to the plot, not to
    a legend: the data area of a figure with and without legends is the same image."""
    fig = twins.plot(kinds=("pr",))
    (ax,) = fig.axes
    with_legend = _crop(_render(fig), ax.get_window_extent(), inset=3)
    fig.set_layout_engine("none")  # keep the axes where they are
    ax.get_legend().remove()
    without = _crop(_render(fig), ax.get_window_extent(), inset=3)
    assert with_legend.shape == without.shape
    assert np.array_equal(with_legend, without)


# ------------------------------------------------------------------------------ 3. DET edge cases


def test_det_of_a_perfect_separator_says_why_it_draws_nothing():
    y, scores = _perfect_and_near()
    fig = _eval_of(scores, y).plot(kinds=("det",))
    (ax,) = fig.axes
    perfect = _legend_text(ax, "perfect")
    assert "not drawable on DET axes" in perfect and "FPR or FNR" in perfect, perfect
    assert len(_model_line(ax, "perfect").get_xdata()) == 0
    assert NOTE not in _legend_text(ax, "near")
    assert _colour_pixels(fig, ax, "near") >= 10


def test_det_draws_a_tie_segment_between_edge_points():
    # ROC points (0, 0), (0, 1/2), (1/2, 1), (1, 1): each has FPR or FNR = 0, but the
    # tie group (0.5, 0.5) joins the second and third; the averaged curve draws it too.
    y = [0, 0, 1, 1]
    ev = _eval_of({"edge": [0.0, 0.5, 0.5, 1.0]}, y)
    fig = ev.plot(kinds=("det",))
    (ax,) = fig.axes
    line = _model_line(ax, "edge")
    x, yy = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    lo, hi = ax.get_xlim()
    assert len(x) >= 3 and np.isfinite(x).all() and np.isfinite(yy).all()
    assert ((x > lo) & (x < hi) & (yy > lo) & (yy < hi)).all()
    assert NOTE not in _legend_text(ax, "edge")
    assert _colour_pixels(fig, ax, "edge") >= 30


def test_det_draws_a_lone_drawable_point_as_a_marker():
    # ROC points (0, 0), (0, 1/2), (1/2, 1/2), (1/2, 1), (1, 1): only (1/2, 1/2) lies
    # inside the DET axes; a line through one point would show nothing.
    ev = _eval_of({"one": [0.1, 0.6, 0.4, 0.9]}, [0, 0, 1, 1])
    fig = ev.plot(kinds=("det",))
    (ax,) = fig.axes
    line = _model_line(ax, "one")
    assert len(line.get_xdata()) == 1
    assert line.get_marker() not in (None, "", " ", "None", "none")
    assert _colour_pixels(fig, ax, "one") >= 6


def test_averaged_det_of_a_perfect_separator_says_so_too():
    y, scores = _perfect_and_near()
    rng = np.random.default_rng(11)
    near2 = 4.0 * y + rng.standard_normal(y.shape[0])
    ev = fastrank.evaluate([scores["perfect"], scores["near"], scores["perfect"], near2],
                           [y] * 4, model_names=["perfect", "near"] * 2,
                           dataset_ids=[0, 0, 1, 1])
    fig = ev.plot(kinds=("det",))
    (ax,) = fig.axes
    assert "not drawable on DET axes" in _legend_text(ax, "perfect")
    assert NOTE not in _legend_text(ax, "near")
    assert _colour_pixels(fig, ax, "near") >= 10


# ------------------------------------------------------------------------------ 4. logit view


def _central_share(fig, ax, name: str) -> float:
    """The share of a model's pixels in the middle of the data area (away from its
    edges and corners, where near-perfect curves crowd on linear axes)."""
    mask = _mask(_data_area(_render(fig), ax), _model_line(ax, name).get_color())
    h, w = mask.shape
    inner = mask[h // 5: h - h // 5, w // 5: w - w // 5]
    return float(inner.sum()) / max(int(mask.sum()), 1)


@pytest.fixture(scope="module")
def near_perfect():
    y, scores = simulated_scores(20_000, seed=1, separations=(3.0, 4.0))
    return fastrank.evaluate(scores, y)


@pytest.mark.parametrize("kind", ["roc", "pr"])
def test_logit_view_spreads_near_perfect_curves(near_perfect, kind):
    for name in near_perfect.models:
        linear_fig = near_perfect.plot(kinds=(kind,))
        logit_fig = near_perfect.plot(kinds=(kind,), scale="logit")
        linear = _central_share(linear_fig, linear_fig.axes[0], name)
        logit = _central_share(logit_fig, logit_fig.axes[0], name)
        assert linear < 0.15, (kind, name, linear)
        assert logit > 0.35, (kind, name, logit)


def test_logit_axes_as_documented(near_perfect):
    roc, pr, det = near_perfect.plot(kinds=("roc", "pr", "det"), scale="logit").axes
    default_det = near_perfect.plot(kinds=("det",)).axes[0]
    for ax in (roc, pr):
        assert ax.get_xscale() == ax.get_yscale() == "logit"
        assert "logit" in ax.get_xlabel() and "logit" in ax.get_ylabel()
        for lo, hi in (ax.get_xlim(), ax.get_ylim()):
            assert 0.0 < lo < 0.1 and 0.9 < hi < 1.0, (lo, hi)
        # every drawn point of a model lies within the limits
        for name in near_perfect.models:
            line = _model_line(ax, name)
            x = np.asarray(line.get_xdata(), float)
            y = np.asarray(line.get_ydata(), float)
            assert len(x) > 10
            assert (x > ax.get_xlim()[0]).all() and (x < ax.get_xlim()[1]).all()
            assert (y > ax.get_ylim()[0]).all() and (y < ax.get_ylim()[1]).all()
    # DET keeps its normal-deviate axes
    assert det.get_xscale() == "linear"
    assert det.get_xlim() == default_det.get_xlim()
    np.testing.assert_allclose(det.get_xticks(), default_det.get_xticks())


def test_logit_view_of_a_perfect_separator_says_why_it_draws_nothing():
    y, scores = _perfect_and_near()
    roc, pr = _eval_of(scores, y).plot(scale="logit").axes
    assert "not drawable on logit axes" in _legend_text(roc, "perfect")
    assert "not drawable on logit axes" in _legend_text(pr, "perfect")
    assert NOTE not in _legend_text(roc, "near")


def test_logit_bands_of_averaged_curves(folds):
    fig = folds.plot(kinds=("roc", "pr"), scale="logit")
    for ax in fig.axes:
        assert ax.get_xscale() == "logit"
        bands = [c for c in ax.collections
                 if any(k.__name__ == "PolyCollection" for k in type(c).__mro__)]
        assert len(bands) == len(folds.models)
        for band in bands:
            for path in band.get_paths():
                assert np.isfinite(path.vertices).all()
        for name in folds.models:
            assert _colour_pixels(fig, ax, name) >= 30, name
