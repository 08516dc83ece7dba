"""``Evaluation.plot`` and ``fastrank.plots.plot_evaluation``: figures of ROC, PR and DET curves.

Every expected number (areas, prevalence) is computed here with the single-task
functions; matplotlib is used only through the API under test and
``matplotlib.figure``.
"""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

import fastrank

matplotlib_figure = pytest.importorskip("matplotlib.figure")
Figure = matplotlib_figure.Figure

MODELS = ("alpha", "beta")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _data(n: int = 400, seed: int = 0, prevalence: float = 0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(np.int64)
    y[:2] = (1, 0)  # both classes, always
    scores = {
        "alpha": np.round(rng.standard_normal(n) + 1.5 * y, 2),  # ties on purpose
        "beta": rng.standard_normal(n) + 0.5 * y,
    }
    return y, scores


@pytest.fixture(scope="module")
def single():
    y, scores = _data()
    return y, scores, fastrank.evaluate(scores, y)


@pytest.fixture(scope="module")
def folds():
    """Two models on three datasets (folds) of different sizes."""
    per_fold = [_data(n, seed) for n, seed in ((300, 1), (350, 2), (280, 3))]
    scores, labels, names, ids = [], [], [], []
    for fold, (y, s) in enumerate(per_fold):
        for m in MODELS:
            scores.append(s[m])
            labels.append(y)
            names.append(m)
            ids.append(f"fold{fold}")
    ev = fastrank.evaluate(scores, labels, model_names=names, dataset_ids=ids)
    return per_fold, ev


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, "not a PNG file"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _legend_texts(fig, ax) -> list[str]:
    legend = ax.get_legend()
    if legend is not None:
        return [t.get_text() for t in legend.get_texts()]
    # a figure-level legend instead of one per panel
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def _is_poly_collection(obj) -> bool:
    return any(k.__name__ == "PolyCollection" for k in type(obj).__mro__)


def _bands(ax) -> list:
    return [c for c in ax.collections if _is_poly_collection(c)]


def _entry_line(texts: list[str], *words: str) -> str:
    hits = [t for t in texts if all(w in t for w in words)]
    assert len(hits) == 1, (words, texts)
    return hits[0]


# ------------------------------------------------------------------------------ figure


def test_returns_a_figure_with_one_panel_per_kind(single):
    _, _, ev = single
    fig = ev.plot()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    for kinds in (("roc",), ("pr",), ("det",), ("roc", "pr", "det"), ("pr", "roc")):
        fig = ev.plot(kinds=kinds)
        assert isinstance(fig, Figure)
        assert len(fig.axes) == len(kinds), kinds


def test_figure_size_follows_width_height_and_kinds(single):
    _, _, ev = single
    fig = ev.plot(kinds=("roc", "pr", "det"), width=3.0, height=2.5)
    np.testing.assert_allclose(fig.get_size_inches(), (9.0, 2.5))
    fig = ev.plot()
    np.testing.assert_allclose(fig.get_size_inches(), (10.0, 4.5))


def test_panels_side_by_side_in_order(single):
    _, _, ev = single
    fig = ev.plot(kinds=("pr", "roc"))
    left, right = fig.axes
    assert left.get_position().x0 < right.get_position().x0
    assert left.get_xlabel() == "Recall"
    assert right.get_xlabel() == "False positive rate"


def test_axis_labels(single):
    _, _, ev = single
    roc, pr, det = ev.plot(kinds=("roc", "pr", "det")).axes
    assert roc.get_xlabel() == "False positive rate"
    assert roc.get_ylabel() == "True positive rate"
    assert pr.get_xlabel() == "Recall"
    assert pr.get_ylabel() == "Precision"
    assert det.get_xlabel() and det.get_ylabel()


def test_no_pyplot_state(single):
    _, _, ev = single
    had_pyplot = "matplotlib.pyplot" in sys.modules
    fig = ev.plot()
    assert fig.canvas.manager is None  # not registered with pyplot
    if not had_pyplot:
        assert "matplotlib.pyplot" not in sys.modules


def test_title(single):
    _, _, ev = single
    fig = ev.plot(title="My models")
    titles = [ax.get_title() for ax in fig.axes]
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    assert "My models" in suptitle or "My models" in titles


# ------------------------------------------------------------------------------ legends


def test_legends_name_models_and_areas(single):
    y, scores, ev = single
    fig = ev.plot(kinds=("roc", "pr"))
    roc_ax, pr_ax = fig.axes
    roc_texts = _legend_texts(fig, roc_ax)
    pr_texts = _legend_texts(fig, pr_ax)
    for name, s in scores.items():
        roc = fastrank.roc_auc(y, s)
        pr = fastrank.pr_auc(y, s)
        assert f"{roc:.3f}" in _entry_line(roc_texts, name), (name, roc, roc_texts)
        assert f"{pr:.3f}" in _entry_line(pr_texts, name), (name, pr, pr_texts)


def test_plot_evaluation_is_the_same_figure(single):
    from fastrank.plots import plot_evaluation

    _, _, ev = single
    a = plot_evaluation(ev, kinds=("roc", "pr"))
    b = ev.plot(kinds=("roc", "pr"))
    assert isinstance(a, Figure)
    assert len(a.axes) == len(b.axes) == 2
    for ax_a, ax_b in zip(a.axes, b.axes, strict=True):
        assert ax_a.get_xlabel() == ax_b.get_xlabel()
        assert _legend_texts(a, ax_a) == _legend_texts(b, ax_b)


def test_pr_panel_has_dashed_prevalence_baseline(single):
    y, _, ev = single
    prevalence = y.sum() / y.size
    (pr_ax,) = ev.plot(kinds=("pr",)).axes
    baselines = [
        line
        for line in pr_ax.get_lines()
        if line.get_linestyle() in ("--", "dashed")
        and len(np.asarray(line.get_ydata(), dtype=float)) >= 2
        and np.allclose(np.asarray(line.get_ydata(), dtype=float), prevalence)
    ]
    assert baselines, [(ln.get_linestyle(), ln.get_ydata()) for ln in pr_ax.get_lines()]


def test_one_dataset_draws_one_curve_per_entry_and_no_band(single):
    _, scores, ev = single
    for ax in ev.plot(kinds=("roc", "pr")).axes:
        assert not _bands(ax)
        assert len(ax.get_lines()) >= len(scores)


# ------------------------------------------------------------------------------ averaged


def test_several_datasets_draw_a_band_per_model(folds):
    _, ev = folds
    fig = ev.plot(kinds=("roc", "pr"))
    for ax in fig.axes:
        assert len(_bands(ax)) >= len(MODELS), ax.get_xlabel()
        texts = _legend_texts(fig, ax)
        for m in MODELS:
            assert any(m in t for t in texts), (m, texts)
    # average=True is the same default for several datasets
    fig = ev.plot(kinds=("roc",), average=True)
    assert len(_bands(fig.axes[0])) >= len(MODELS)


def test_average_false_draws_every_entry_named_with_dataset(folds):
    per_fold, ev = folds
    fig = ev.plot(kinds=("roc", "pr"), average=False)
    roc_ax, pr_ax = fig.axes
    for ax in fig.axes:
        assert not _bands(ax)
        assert len(ax.get_lines()) >= len(ev.entries)
    roc_texts = _legend_texts(fig, roc_ax)
    pr_texts = _legend_texts(fig, pr_ax)
    for fold, (y, s) in enumerate(per_fold):
        for m in MODELS:
            roc = fastrank.roc_auc(y, s[m])
            pr = fastrank.pr_auc(y, s[m])
            assert f"{roc:.3f}" in _entry_line(roc_texts, m, f"fold{fold}")
            assert f"{pr:.3f}" in _entry_line(pr_texts, m, f"fold{fold}")


# ------------------------------------------------------------------------------ saving


@pytest.mark.parametrize(
    ("kinds", "width", "height", "dpi"),
    [
        (("roc", "pr"), 5.0, 4.5, 100),  # the defaults: 1000 x 450
        (("roc",), 4.0, 3.0, 50),
        (("roc", "pr", "det"), 3.3, 2.7, 72),
        (("roc", "pr"), 3.0, 2.557, 100),  # 255.7 pixels high: truncated, as matplotlib does
    ],
)
def test_saved_png_has_exact_pixel_size(single, tmp_path, kinds, width, height, dpi):
    _, _, ev = single
    path = tmp_path / "fig.png"
    fig = ev.plot(kinds=kinds, path=path, dpi=dpi, width=width, height=height)
    assert isinstance(fig, Figure)
    expected = (int(width * len(kinds) * dpi), int(height * dpi))
    assert _png_size(path) == expected


def test_default_png_size(single, tmp_path):
    _, _, ev = single
    path = tmp_path / "default.png"
    ev.plot(path=str(path))
    assert _png_size(path) == (1000, 450)


def test_save_svg_and_pdf(folds, tmp_path):
    _, ev = folds
    svg = tmp_path / "fig.svg"
    pdf = tmp_path / "fig.pdf"
    ev.plot(path=svg)
    ev.plot(kinds=("roc",), path=str(pdf))
    head = svg.read_bytes()[:300].lstrip()
    assert head.startswith((b"<?xml", b"<svg"))
    assert b"<svg" in svg.read_bytes()
    assert pdf.read_bytes()[:5] == b"%PDF-"


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("kinds", [("roc", "lift"), ("ROC-curve",), ("bogus",)])
def test_unknown_kind_raises(single, kinds):
    _, _, ev = single
    with pytest.raises(ValueError):
        ev.plot(kinds=kinds)


def test_unknown_kind_raises_in_plot_evaluation(single):
    from fastrank.plots import plot_evaluation

    _, _, ev = single
    with pytest.raises(ValueError):
        plot_evaluation(ev, kinds=("lift",))


@pytest.mark.parametrize("name", ["fig.gif", "fig.jpg", "fig", "fig.png.txt"])
def test_bad_extension_raises_and_writes_nothing(single, tmp_path, name):
    _, _, ev = single
    path = tmp_path / name
    with pytest.raises(ValueError):
        ev.plot(path=path)
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


def test_missing_matplotlib_says_how_to_install(single, monkeypatch):
    _, _, ev = single
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        ev.plot()
    from fastrank.plots import plot_evaluation

    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot_evaluation(ev)


# ------------------------------------------------------------------------------ styles


def _model_lines(ax, models) -> list:
    """The models' curves, in drawing order."""
    return [ln for ln in ax.get_lines() if ln.get_label().split(" (")[0].split("\n")[0] in models]


@pytest.mark.parametrize("kind", ["roc", "pr", "det"])
def test_each_model_has_its_own_line_style_marker_and_width(kind):
    y, scores = _data()
    rng = np.random.default_rng(5)
    scores["gamma"] = scores["alpha"].copy()  # the same curves as alpha
    scores["delta"] = rng.standard_normal(y.size) + y
    ev = fastrank.evaluate(scores, y)
    (ax,) = ev.plot(kinds=(kind,)).axes
    lines = _model_lines(ax, scores)
    assert len(lines) == len(scores)
    for attr in ("get_color", "get_marker"):
        values = [str(getattr(ln, attr)()) for ln in lines]
        assert len(set(values)) == len(values), (attr, values)
    # only the first is solid: each later one leaves gaps that show what lies under it
    # (matplotlib names every dash pattern "--", so the patterns are compared in pixels
    # by test_plot_pixels.py)
    assert [ln.get_linestyle() for ln in lines] == ["-"] + ["--"] * (len(lines) - 1)
    for ln in lines:
        assert ln.get_marker() not in (None, "", " ", "None", "none")
        assert ln.get_markevery() is not None  # sparse markers, not one per point
    # drawn widest first: a later curve over an earlier one leaves its rim visible
    widths = [ln.get_linewidth() for ln in lines]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths), widths


def test_several_datasets_keep_one_marker_per_model_and_one_line_style_per_dataset(folds):
    _, ev = folds
    (ax,) = ev.plot(kinds=("roc",), average=False).axes
    lines = [ln for ln in ax.get_lines() if " / " in ln.get_label()]
    assert len(lines) == len(ev.entries)
    by_model: dict[str, set] = {}
    by_dataset: dict[str, set] = {}
    for ln in lines:
        model, dataset = ln.get_label().split(" (")[0].split(" / ")
        by_model.setdefault(model, set()).add(ln.get_marker())
        by_dataset.setdefault(dataset, set()).add(str(ln.get_linestyle()))
    assert all(len(v) == 1 for v in by_model.values())
    assert len({next(iter(v)) for v in by_model.values()}) == len(MODELS)
    assert all(len(v) == 1 for v in by_dataset.values())


# ------------------------------------------------------------------------------ scale


def test_default_scale_is_linear(single):
    _, _, ev = single
    for ax in ev.plot(kinds=("roc", "pr")).axes:
        assert ax.get_xscale() == ax.get_yscale() == "linear"


def test_logit_scale_sets_roc_and_pr_axes_and_keeps_det(single):
    _, _, ev = single
    roc, pr, det = ev.plot(kinds=("roc", "pr", "det"), scale="logit").axes
    for ax in (roc, pr):
        assert ax.get_xscale() == ax.get_yscale() == "logit"
        for lo, hi in (ax.get_xlim(), ax.get_ylim()):
            assert 0.0 < lo < 0.1 and 0.9 < hi < 1.0
    assert det.get_xscale() == det.get_yscale() == "linear"


@pytest.mark.parametrize("scale", ["log", "LOGIT", "", None, 1, ("logit",)])
def test_unknown_scale_raises(single, scale):
    from fastrank.plots import plot_evaluation

    _, _, ev = single
    with pytest.raises(ValueError, match="scale must be one of 'linear', 'logit'"):
        ev.plot(scale=scale)
    with pytest.raises(ValueError, match="scale must be one of"):
        plot_evaluation(ev, kinds=("roc",), scale=scale)
