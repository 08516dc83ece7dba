"""Figures of an :class:`~fastrank.Evaluation`: ROC, PR and DET curves.

matplotlib is optional and imported only here, when a figure is drawn. The
figure is a plain ``matplotlib.figure.Figure`` (no pyplot state is touched),
so it can be saved, shown in a notebook or embedded in another GUI.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._core.registry import ndtri
from ._optional import require
from .curves import interpolated_points

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .evaluation import Entry, Evaluation

__all__ = ["KINDS", "SAVE_FORMATS", "SCALES", "plot_evaluation"]

KINDS = ("roc", "pr", "det")
SAVE_FORMATS = ("png", "svg", "pdf")
# Axis scales of the ROC and PR panels (DET panels always have normal-deviate axes).
SCALES = ("linear", "logit")
# Curves with more points than this are drawn on a grid of this many points
# (finer than any screen or page renders); shorter ones are drawn exactly.
MAX_POINTS = 4000
# Probabilities labelled on the normal-deviate axes of DET plots.
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)
# On DET and logit axes a straight ROC segment is a curve: a segment along which both
# rates change (a tie group holding both classes) is drawn through this many points
# inside it, so that it looks as it does on the averaged curve.
SEGMENT_POINTS = 8
# Grid points of averaged curves: finer on DET and logit axes, which stretch the edges.
MEAN_POINTS = {"linear": 201, "logit": 1001, "det": 1001}
# A band edge at a rate of 0 or 1 lies at infinity on DET and logit axes: it is drawn
# at this distance from 0 or 1 instead, far outside the axes, so the band runs off them.
EDGE = 1e-12
# Logit axes span the points drawn and at least these rates.
LOGIT_SPAN = (0.1, 0.9)

# Each model has its own colour, line style, marker and width. Widths shrink in the
# order of drawing, so a curve drawn exactly over an earlier one leaves a rim of it on
# both sides, the earlier one shows through the gaps of the later one's dashes, and
# the markers of consecutive models are placed at different points along the curves.
LINESTYLES: tuple[Any, ...] = (
    "-",
    (0, (6.0, 2.0)),
    (0, (6.0, 1.6, 1.6, 1.6)),
    (0, (2.4, 1.6)),
    (0, (8.0, 1.6, 1.6, 1.6, 1.6, 1.6)),
    (0, (1.2, 1.4)),
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
# Markers are placed every this fraction of the axes' diagonal along each curve.
MARK_STEP = 0.12
# Widths: the last model's, and at most how much wider each earlier one is.
NARROWEST, WIDER_BY, WIDEST = 1.3, 0.5, 2.5
# Chance lines lie above the grid (z-order 1.5) and below the models' curves (2).
BASELINE_Z = 1.8


def check_kinds(kinds: Sequence[str] | str) -> tuple[str, ...]:
    """The requested panels, or ``ValueError`` naming the unknown one."""
    if isinstance(kinds, str):
        kinds = (kinds,)
    kinds = tuple(kinds)
    if not kinds:
        raise ValueError(f"kinds is empty; choose from {list(KINDS)}")
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown plot kind {kind!r}; choose from {list(KINDS)}")
    return kinds


def check_scale(scale: object) -> str:
    """``scale`` if it is one of :data:`SCALES`, else ``ValueError``."""
    if not isinstance(scale, str) or scale not in SCALES:
        raise ValueError(
            f"scale must be one of {', '.join(repr(s) for s in SCALES)}; got {scale!r}"
        )
    return scale


def check_path(path: str | os.PathLike[str]) -> str:
    """The image format implied by ``path``'s extension, or ``ValueError``."""
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if ext not in SAVE_FORMATS:
        raise ValueError(
            f"cannot save a figure as {os.fspath(path)!r}: the extension must be one of "
            f"{', '.join('.' + f for f in SAVE_FORMATS)}"
        )
    return ext


def plot_evaluation(
    evaluation: Evaluation,
    kinds: Sequence[str] | str = ("roc", "pr"),
    *,
    average: bool | None = None,
    level: float = 0.95,
    path: str | os.PathLike[str] | None = None,
    dpi: float = 100,
    width: float = 5.0,
    height: float = 4.5,
    title: str | None = None,
    scale: str = "linear",
) -> Figure:
    """Draw the curves of every model of an evaluation, one panel per kind.

    Each model has its own colour, line style and markers, and curves are
    drawn widest first, so a model whose curve coincides with another's stays
    visible. Each panel's legend lies below it, outside the data area.

    Parameters
    ----------
    evaluation : Evaluation
        From :func:`fastrank.evaluate`.
    kinds : sequence of {"roc", "pr", "det"}, default ("roc", "pr")
        The panels, left to right. PR is the interpolated curve whose exact
        area is :func:`fastrank.pr_auc`, with the prevalence as a dashed
        baseline. DET has normal-deviate axes; a model none of whose points
        can be placed on them (its FPR or FNR is 0 or 1 at every cutoff, as
        for a perfect separator) says so in the legend.
    average : bool, optional
        Draw each model's curve averaged over the datasets with a pointwise
        ``level`` interval band (:meth:`Evaluation.mean_curve`), rather than
        one curve per model and dataset. Default: average when there are
        several datasets.
    level : float, default 0.95
        Confidence level of the bands and of the mean areas in the legend.
    path : str or path-like, optional
        Also save the figure there, as PNG, SVG or PDF by its extension.
    dpi, width, height : float
        Resolution, and the size of one panel in inches: the figure is
        ``width * len(kinds)`` by ``height`` inches, so a saved PNG is
        ``int(width * len(kinds) * dpi)`` by ``int(height * dpi)`` pixels
        (matplotlib truncates fractional pixels).
    title : str, optional
        A title above the panels.
    scale : {"linear", "logit"}, default "linear"
        Axis scale of the ROC and PR panels. ``"logit"`` (matplotlib's logit
        scale, ``log(p / (1 - p))``) stretches the rates near 0 and 1, where
        the curves of near-perfect models crowd into a corner; the limits
        then span the points drawn and at least 10% to 90%. Rates of exactly 0 or 1 lie at infinity
        on these axes and are left out, and a model with no other point says
        so in the legend, as on DET axes. DET panels keep their normal-deviate
        axes.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For an unknown kind or scale, a path without a .png, .svg or .pdf
        extension, or a size or resolution that is not a positive number.

    Examples
    --------
    >>> import fastrank
    >>> from fastrank.plots import plot_evaluation
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    >>> ev = fastrank.evaluate({"a": [.1, .3, .8, .9, .2, .7, .6, .4, .95, .05],
    ...                         "b": [.2, .1, .9, .8, .3, .6, .4, .7, .5, .35]}, y)
    >>> fig = plot_evaluation(ev, ("roc", "pr", "det"))
    >>> [ax.get_title() for ax in fig.axes]
    ['ROC', 'Precision-recall (interpolated)', 'DET']
    >>> roc, pr = plot_evaluation(ev, scale="logit").axes
    >>> roc.get_xscale(), pr.get_yscale()
    ('logit', 'logit')
    >>> plot_evaluation(ev, scale="log")
    Traceback (most recent call last):
    ...
    ValueError: scale must be one of 'linear', 'logit'; got 'log'
    """
    kinds = check_kinds(kinds)
    scale = check_scale(scale)
    fmt = check_path(path) if path is not None else None
    for name, value in (("dpi", dpi), ("width", width), ("height", height)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number; got {value!r}")
    if average is None:
        average = len(evaluation.datasets) > 1
    figure_mod = require("matplotlib.figure", "plots")
    colormaps = require("matplotlib", "plots").colormaps

    fig: Figure = figure_mod.Figure(figsize=(width * len(kinds), height), dpi=dpi,
                                    layout="constrained")
    axes = fig.subplots(1, len(kinds), squeeze=False)[0]
    styles = _model_styles(evaluation.models, colormaps["tab10"].colors)
    for ax, kind in zip(axes, kinds, strict=True):
        axis = "det" if kind == "det" else scale
        if average:
            drawn = _draw_averaged(ax, evaluation, kind, axis, styles, level)
        else:
            drawn = _draw_entries(ax, evaluation, kind, axis, styles)
        _decorate(ax, kind, axis, drawn)
        if average:
            n = len(evaluation.datasets)
            ax.set_title(f"{ax.get_title()}\nmean of {n} datasets, {level:.0%} bands",
                         fontsize="medium")
    if title:
        fig.suptitle(title)
    _legends_below(fig, list(axes))
    if path is not None:
        fig.savefig(path, format=fmt, dpi=dpi)
    return fig


# -- styles -----------------------------------------------------------------------------------


def _model_styles(models: Sequence[str], palette: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Keyword arguments of ``Axes.plot`` for each model, in drawing order."""
    n = len(models)
    styles = {}
    for i, model in enumerate(models):
        step = min(WIDER_BY, (WIDEST - NARROWEST) / (n - 1)) if n > 1 else 0.0
        lw = NARROWEST + step * (n - 1 - i)
        styles[model] = {
            "color": palette[i % len(palette)],
            "ls": LINESTYLES[i % len(LINESTYLES)],
            "lw": lw,
            "marker": MARKERS[i % len(MARKERS)],
            "ms": 4.5,
            "mew": 0.0,
            "markevery": (MARK_STEP * (i + 0.5) / n, MARK_STEP),
        }
    return styles


# -- the curves of one entry, thinned for drawing ------------------------------------------


def _grid(count: float, stretched: bool) -> np.ndarray:
    """Rates at which to sample a long curve: evenly, and on DET and logit axes also
    evenly in log-odds down to ``1 / count``, where those axes stretch the curve."""
    grid = np.linspace(0.0, 1.0, MAX_POINTS if not stretched else MAX_POINTS // 2)
    if not stretched:
        return grid
    half = math.log(max(count, 2.0))
    odds = 1.0 / (1.0 + np.exp(-np.linspace(-half, half, MAX_POINTS // 2)))
    return np.unique(np.concatenate((grid, odds)))


def _roc_xy(e: Entry, stretched: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """FPR and TPR along the ROC curve; with ``stretched``, also inside the segments
    along which both change (see :data:`SEGMENT_POINTS`)."""
    if e.tp.shape[0] + 1 > MAX_POINTS:
        grid = _grid(e.negatives, stretched)
        return grid, e.tpr_at(grid)
    fpr = np.concatenate(([0.0], e.fp / e.negatives))
    tpr = np.concatenate(([0.0], e.tp / e.positives))
    if not stretched:
        return fpr, tpr
    dx, dy = np.diff(fpr), np.diff(tpr)
    counts = np.where((dx > 0) & (dy > 0), SEGMENT_POINTS + 1, 1)
    seg = np.repeat(np.arange(dx.shape[0]), counts)
    step = np.arange(seg.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    frac = step / (SEGMENT_POINTS + 1)
    return (np.append(fpr[seg] + frac * dx[seg], fpr[-1]),
            np.append(tpr[seg] + frac * dy[seg], tpr[-1]))


def _pr_xy(e: Entry, stretched: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Recall and interpolated precision along the PR curve."""
    if e.tp.shape[0] * 9 + 1 > MAX_POINTS:
        grid = _grid(e.positives, stretched)
        return grid, e.precision_at(grid)
    precision, recall = interpolated_points(e.group_positives, e.group_negatives, 8)
    return recall, precision


def _deviates(p: np.ndarray) -> np.ndarray:
    """Normal deviates, with 0 and 1 (infinite deviates) dropped as NaN."""
    inside = (p > 0.0) & (p < 1.0)
    out = np.full(p.shape, np.nan)
    out[inside] = ndtri(np.ascontiguousarray(p[inside], dtype=np.float64))
    return out


def _det_xy(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _deviates(fpr), _deviates(1.0 - tpr)


def _on_axes(x: np.ndarray, y: np.ndarray, axis: str) -> tuple[np.ndarray, np.ndarray]:
    """A curve's points in the panel's data coordinates, without those the axes cannot
    show: on DET and logit axes, where a rate is 0 or 1 (at infinity). Along a ROC or
    PR curve these are a run at each end, so what remains is one unbroken line."""
    if axis == "linear":
        return x, y
    if axis == "det":
        x, y = _det_xy(x, y)
        keep = np.isfinite(x) & np.isfinite(y)
    else:
        keep = (x > 0.0) & (x < 1.0) & (y > 0.0) & (y < 1.0)
    return x[keep], y[keep]


def _band_on_axes(
    x: np.ndarray, low: np.ndarray, high: np.ndarray, axis: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A band's x and its two edges in the panel's data coordinates; on DET and logit
    axes an edge at 0 or 1 runs off the axes (see :data:`EDGE`)."""
    if axis == "linear":
        return x, low, high
    inside = (x > 0.0) & (x < 1.0)
    x = x[inside]
    low = np.clip(low[inside], EDGE, 1.0 - EDGE)
    high = np.clip(high[inside], EDGE, 1.0 - EDGE)
    if axis == "det":
        return _deviates(x), _deviates(1.0 - low), _deviates(1.0 - high)
    return x, low, high


# -- panels -----------------------------------------------------------------------------------


def _label(e: Entry, evaluation: Evaluation, area: str | None) -> str:
    name = e.model if len(evaluation.datasets) == 1 else f"{e.model} / {e.dataset}"
    return f"{name} ({area})" if area else name


def _note(kind: str, axis: str, averaged: bool) -> str:
    """Why a model has no point on the panel's axes, for its legend entry."""
    if axis == "det":
        rates = "FPR or FNR"
    elif kind == "pr":
        rates = "recall or precision"
    else:
        rates = "FPR or TPR"
    where = "all along the mean curve" if averaged else "at every cutoff"
    name = "DET" if axis == "det" else "logit"
    return textwrap.fill(f"(not drawable on {name} axes: {rates} is 0 or 1 {where})", 40)


def _curve(
    ax: Axes, x: np.ndarray, y: np.ndarray, kind: str, axis: str, style: dict[str, Any],
    label: str, averaged: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw one curve (rates ``x``, ``y``) as far as the axes can show it."""
    px, py = _on_axes(x, y, axis)
    if px.shape[0] == 0:
        label = f"{label}\n{_note(kind, axis, averaged)}"
    elif px.shape[0] == 1:
        style = {**style, "markevery": None}  # one point: only its marker shows it
    ax.plot(px, py, label=label, **style)
    return px, py


def _draw_entries(
    ax: Axes, evaluation: Evaluation, kind: str, axis: str, styles: dict[str, dict[str, Any]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    several = len(evaluation.datasets) > 1
    dataset_ls = {d: LINESTYLES[i % len(LINESTYLES)] for i, d in enumerate(evaluation.datasets)}
    stretched = axis != "linear"
    prevalences = []
    drawn = []
    for e in evaluation.entries:
        style = dict(styles[e.model])
        if several:  # the line style tells the datasets apart; colour and marker the models
            style["ls"] = dataset_ls[e.dataset]
        if kind == "pr":
            if not e.pr_defined():
                continue
            prevalences.append(e.positives / (e.positives + e.negatives))
            x, y = _pr_xy(e, stretched)
            area: str | None = f"PR AUC {e.metrics.pr_auc:.3f}"
        else:
            if not e.roc_defined():
                continue
            x, y = _roc_xy(e, stretched)
            area = f"AUC {e.metrics.roc_auc:.3f}" if kind == "roc" else None
        drawn.append(_curve(ax, x, y, kind, axis, style, _label(e, evaluation, area), False))
    if kind == "pr":
        drawn.extend(_baseline(ax, prevalences))
    return drawn


def _draw_averaged(
    ax: Axes, evaluation: Evaluation, kind: str, axis: str, styles: dict[str, dict[str, Any]],
    level: float,
) -> list[tuple[np.ndarray, np.ndarray]]:
    areas = evaluation.mean_auc(level=level, as_frame=False)
    prevalences = [e.positives / (e.positives + e.negatives)
                   for e in evaluation.entries if e.pr_defined()]
    drawn = []
    for model in evaluation.models:
        curve = "pr" if kind == "pr" else "roc"
        mc = evaluation.mean_curve(model, curve, level=level, points=MEAN_POINTS[axis])
        if mc.n_datasets == 0:
            continue
        row = next(i for i, (m, c) in enumerate(zip(areas["model"], areas["curve"], strict=True))
                   if m == model and c == curve.upper())
        mean, low, high = (float(areas[k][row]) for k in ("mean", "low", "high"))
        name = "PR AUC" if curve == "pr" else "AUC"
        area = f"{name} {mean:.3f}"
        if not math.isnan(low):
            area += f" [{low:.3f}, {high:.3f}]"
        label = f"{model} ({area})" if kind != "det" else model
        style = styles[model]
        drawn.append(_curve(ax, mc.x, mc.mean, kind, axis, style, label, True))
        if not np.isnan(mc.low).all():
            bx, b_low, b_high = _band_on_axes(mc.x, mc.low, mc.high, axis)
            ax.fill_between(bx, b_low, b_high, color=style["color"], alpha=0.2, lw=0)
    if kind == "pr":
        drawn.extend(_baseline(ax, prevalences))
    return drawn


def _baseline(ax: Axes, prevalences: list[float]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The PR curve of a random ranking: precision = prevalence."""
    if not prevalences:
        return []
    prevalence = float(np.mean(prevalences))
    ax.axhline(prevalence, color="0.45", ls="--", lw=1.0, zorder=BASELINE_Z,
               label=f"chance (prevalence {prevalence:.3f})")
    return [(np.empty(0), np.array([prevalence]))]


def _logit_limits(values: list[np.ndarray]) -> tuple[float, float]:
    """Limits of a logit axis around ``values`` (those strictly between 0 and 1) and
    :data:`LOGIT_SPAN`, padded a little."""
    v = np.concatenate([np.ravel(a) for a in values] + [np.array(LOGIT_SPAN)])
    v = v[(v > 0.0) & (v < 1.0)]
    lo, hi = (math.log(p / (1.0 - p)) for p in (float(v.min()), float(v.max())))
    pad = max(0.04 * (hi - lo), 0.3)
    return 1.0 / (1.0 + math.exp(pad - lo)), 1.0 / (1.0 + math.exp(-hi - pad))


def _decorate(
    ax: Axes, kind: str, axis: str, drawn: list[tuple[np.ndarray, np.ndarray]]
) -> None:
    if kind == "det":
        ticks = np.array(DET_TICKS)
        dev = ndtri(ticks)
        span = (float(dev[0]), float(dev[-1]))
        ax.plot(span, span[::-1], color="0.6", ls=":", lw=1.0, zorder=BASELINE_Z,
                label="chance")
        ax.set_xticks(dev, [f"{100 * t:g}%" for t in ticks])
        ax.set_yticks(dev, [f"{100 * t:g}%" for t in ticks])
        ax.set_xlim(*span)
        ax.set_ylim(*span)
        ax.set_xlabel("False positive rate (normal deviate scale)")
        ax.set_ylabel("False negative rate (normal deviate scale)")
        ax.set_title("DET")
        ax.grid(True, color="0.9", lw=0.6)
        return
    if kind == "roc":
        ends = (EDGE, 1.0 - EDGE) if axis == "logit" else (0.0, 1.0)
        ax.plot(ends, ends, color="0.6", ls=":", lw=1.0, zorder=BASELINE_Z,
                label="chance (AUC 0.500)")
        xlabel, ylabel, title = "False positive rate", "True positive rate", "ROC"
    else:
        xlabel, ylabel, title = "Recall", "Precision", "Precision-recall (interpolated)"
    ax.set_title(title)
    if axis == "logit":
        ticker = require("matplotlib.ticker", "plots")
        for axis_obj, set_scale in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
            set_scale("logit")
            # The limits hold 10%, 50% and 90%: the major ticks label enough.
            axis_obj.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlim(*_logit_limits([x for x, _ in drawn]))
        ax.set_ylim(*_logit_limits([y for _, y in drawn]))
        xlabel += " (logit scale)"
        ylabel += " (logit scale)"
    else:
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="0.9", lw=0.6)


def _legends_below(fig: Figure, axes: list[Axes]) -> None:
    """Put each panel's legend under its x-axis label, where it hides no curve; the
    constrained layout shrinks the panels to make room. Two columns when they fit."""
    transforms = require("matplotlib.transforms", "plots")
    panel_width = fig.bbox.width / len(axes)
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        if not handles:
            continue
        # The height of the tick labels and axis label under the axes depends on the
        # fonts only, not on the layout: measure it once, in inches.
        under = ax.xaxis.get_tightbbox()
        below = 0.0 if under is None else (ax.get_window_extent().y0 - under.y0) / fig.dpi
        anchor = ax.transAxes + transforms.ScaledTranslation(0.0, -below, fig.dpi_scale_trans)
        options: dict[str, Any] = {
            "loc": "upper center", "bbox_to_anchor": (0.5, 0.0), "bbox_transform": anchor,
            "fontsize": "small", "borderaxespad": 0.4,
        }
        if len(labels) >= 4:
            legend = ax.legend(handles, labels, ncols=2, **options)
            if legend.get_window_extent().width <= 0.95 * panel_width:
                continue
        ax.legend(handles, labels, **options)
