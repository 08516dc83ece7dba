"""Figures of an :class:`~fastrank.Evaluation`: ROC, PR and DET curves.

matplotlib is optional and imported only here, when a figure is drawn. The
figure is a plain ``matplotlib.figure.Figure`` (no pyplot state is touched),
so it can be saved, shown in a notebook or embedded in another GUI.
"""

from __future__ import annotations

import math
import os
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

__all__ = ["KINDS", "SAVE_FORMATS", "plot_evaluation"]

KINDS = ("roc", "pr", "det")
SAVE_FORMATS = ("png", "svg", "pdf")
# Curves with more points than this are drawn on a grid of this many points
# (finer than any screen or page renders); shorter ones are drawn exactly.
MAX_POINTS = 4000
# Probabilities labelled on the normal-deviate axes of DET plots.
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)


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
) -> Figure:
    """Draw the curves of every model of an evaluation, one panel per kind.

    Parameters
    ----------
    evaluation : Evaluation
        From :func:`fastrank.evaluate`.
    kinds : sequence of {"roc", "pr", "det"}, default ("roc", "pr")
        The panels, left to right. PR is the interpolated curve whose exact
        area is :func:`fastrank.pr_auc`, with the prevalence as a dashed
        baseline. DET has normal-deviate axes.
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

    Returns
    -------
    matplotlib.figure.Figure
    """
    kinds = check_kinds(kinds)
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
    palette = colormaps["tab10"].colors
    colors = {m: palette[i % len(palette)] for i, m in enumerate(evaluation.models)}
    for ax, kind in zip(axes, kinds, strict=True):
        if average:
            _draw_averaged(ax, evaluation, kind, colors, level)
        else:
            _draw_entries(ax, evaluation, kind, colors)
        _decorate(ax, kind)
        if average:
            n = len(evaluation.datasets)
            ax.set_title(f"{ax.get_title()}\nmean of {n} datasets, {level:.0%} bands",
                         fontsize="medium")
    if title:
        fig.suptitle(title)
    if path is not None:
        fig.savefig(path, format=fmt, dpi=dpi)
    return fig


# -- the curves of one entry, thinned for drawing ------------------------------------------


def _roc_xy(e: Entry) -> tuple[np.ndarray, np.ndarray]:
    if e.tp.shape[0] + 1 > MAX_POINTS:
        grid = np.linspace(0.0, 1.0, MAX_POINTS)
        return grid, e.tpr_at(grid)
    return (np.concatenate(([0.0], e.fp / e.negatives)),
            np.concatenate(([0.0], e.tp / e.positives)))


def _pr_xy(e: Entry) -> tuple[np.ndarray, np.ndarray]:
    if e.tp.shape[0] * 9 + 1 > MAX_POINTS:
        grid = np.linspace(0.0, 1.0, MAX_POINTS)
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


# -- panels -----------------------------------------------------------------------------------


def _label(e: Entry, evaluation: Evaluation, area: str | None) -> str:
    name = e.model if len(evaluation.datasets) == 1 else f"{e.model} / {e.dataset}"
    return f"{name} ({area})" if area else name


def _draw_entries(ax: Axes, evaluation: Evaluation, kind: str, colors: dict[str, Any]) -> None:
    styles = ("-", "--", ":", "-.")
    style = {d: styles[i % len(styles)] for i, d in enumerate(evaluation.datasets)}
    prevalences = []
    for e in evaluation.entries:
        color, ls = colors[e.model], style[e.dataset]
        if kind == "pr":
            if not e.pr_defined():
                continue
            prevalences.append(e.positives / (e.positives + e.negatives))
            x, y = _pr_xy(e)
            ax.plot(x, y, color=color, ls=ls, lw=1.6,
                    label=_label(e, evaluation, f"PR AUC {e.metrics.pr_auc:.3f}"))
            continue
        if not e.roc_defined():
            continue
        fpr, tpr = _roc_xy(e)
        if kind == "roc":
            ax.plot(fpr, tpr, color=color, ls=ls, lw=1.6,
                    label=_label(e, evaluation, f"AUC {e.metrics.roc_auc:.3f}"))
        else:
            ax.plot(*_det_xy(fpr, tpr), color=color, ls=ls, lw=1.6,
                    label=_label(e, evaluation, None))
    if kind == "pr":
        _baseline(ax, prevalences)


def _draw_averaged(
    ax: Axes, evaluation: Evaluation, kind: str, colors: dict[str, Any], level: float
) -> None:
    areas = evaluation.mean_auc(level=level, as_frame=False)
    prevalences = [e.positives / (e.positives + e.negatives)
                   for e in evaluation.entries if e.pr_defined()]
    for model in evaluation.models:
        curve = "pr" if kind == "pr" else "roc"
        mc = evaluation.mean_curve(model, curve, level=level, points=201)
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
        color = colors[model]
        if kind == "det":
            x, y = _det_xy(mc.x, mc.mean)
            ax.plot(x, y, color=color, lw=1.8, label=label)
            if not np.isnan(mc.low).all():
                lo_x, lo_y = _det_xy(mc.x, mc.low)
                _, hi_y = _det_xy(mc.x, mc.high)
                ax.fill_between(lo_x, hi_y, lo_y, color=color, alpha=0.2, lw=0)
            continue
        ax.plot(mc.x, mc.mean, color=color, lw=1.8, label=label)
        if not np.isnan(mc.low).all():
            ax.fill_between(mc.x, mc.low, mc.high, color=color, alpha=0.2, lw=0)
    if kind == "pr":
        _baseline(ax, prevalences)


def _baseline(ax: Axes, prevalences: list[float]) -> None:
    """The PR curve of a random ranking: precision = prevalence."""
    if not prevalences:
        return
    prevalence = float(np.mean(prevalences))
    ax.axhline(prevalence, color="0.45", ls="--", lw=1.0,
               label=f"random (prevalence {prevalence:.3f})")


def _decorate(ax: Axes, kind: str) -> None:
    if kind == "roc":
        ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=1.0, label="random (AUC 0.500)")
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate")
        ax.set_title("ROC")
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.legend(loc="lower right", fontsize="small")
    elif kind == "pr":
        ax.set_xlabel("Recall")
        ax.set_ylabel("Precision")
        ax.set_title("Precision-recall (interpolated)")
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.legend(loc="best", fontsize="small")
    else:
        ticks = np.array(DET_TICKS)
        dev = ndtri(ticks)
        span = (float(dev[0]), float(dev[-1]))
        ax.plot(span, span[::-1], color="0.6", ls=":", lw=1.0, label="random")
        ax.set_xticks(dev, [f"{100 * t:g}%" for t in ticks])
        ax.set_yticks(dev, [f"{100 * t:g}%" for t in ticks])
        ax.set_xlim(*span)
        ax.set_ylim(*span)
        ax.set_xlabel("False positive rate (normal deviate scale)")
        ax.set_ylabel("False negative rate (normal deviate scale)")
        ax.set_title("DET")
        ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, color="0.9", lw=0.6)
