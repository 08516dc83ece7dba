"""The ``fastrank`` command.

``fastrank`` (or ``fastrank demo``) evaluates the built-in example: simulated
models of known separation, one of them with heavily tied (rounded) scores. It
prints every metric and draws their ROC and PR curves.

``fastrank evaluate FILE --label COL --score COL [COL ...]`` does the same for a
file of predictions (CSV, Parquet, .npz or .npy): one row per model (score
column) and dataset, or per group with ``--group``.

``fastrank info`` prints :func:`fastrank.show_config` (what a bug report
needs); ``fastrank compile`` compiles every kernel variant ahead of time
(:func:`fastrank.compile_kernels`), for images and CI jobs.

Exit status: 0 on success, 2 for a usage error, 1 for a problem with the data
(one line on stderr naming the file, column and row; nothing is written).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from . import __version__
from .datasets import simulated_scores
from .evaluation import SUMMARY_COLUMNS, Evaluation, evaluate, score_pairs
from .metrics import BatchMetrics, all_metrics
from .plots import check_path
from .readers import (
    DataError,
    id_column,
    label_column,
    number_column,
    plain,
    read_columns,
    rows_of,
)
from .tables import FORMATS, JSON_RULE, format_table

DEFAULT_METRICS = ("positives", "negatives", "average_precision", "roc_auc", "pr_auc",
                   "d_prime", "prbe")
ALIASES = {"ap": "average_precision", "auc": "roc_auc", "ap_expected": "average_precision_expected"}
DEMO_PLOT = "fastrank-demo.png"
# Show progress by default for inputs of at least this many bytes (on a terminal).
PROGRESS_BYTES = 32 * 2**20


class Progress:
    """Progress lines on stderr: rewritten in place on a terminal, else one per stage."""

    def __init__(self, enabled: bool, stream: TextIO | None = None) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = 0.0
        self.shown = ""

    def __call__(self, stage: str, fraction: float) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if fraction < 1.0 and now - self.last < 0.25:
            return
        self.last = now
        text = f"fastrank: {stage} {fraction:4.0%}"
        if self.tty:
            self.stream.write("\r" + text.ljust(len(self.shown)))
        else:
            self.stream.write(text + "\n")
        self.shown = text
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
        self.shown = ""


def _warn_lines(caught: list[warnings.WarningMessage]) -> None:
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"fastrank: warning: {message}", file=sys.stderr)


def _metric_names(values: Sequence[str] | None) -> list[str]:
    if not values:
        return list(DEFAULT_METRICS)
    names = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part:
                names.append(ALIASES.get(part, part))
    return names


def _write_plot(evaluation: Evaluation, path: str, **kwargs: Any) -> None:
    """Save the figure atomically: a complete file at ``path`` or none at all."""
    from .plots import plot_evaluation

    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(prefix=".fastrank-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        plot_evaluation(evaluation, ("roc", "pr"), path=tmp, **kwargs)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# -- demo ---------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    n, seed, fmt = args.samples, args.seed, args.format
    y, scores = simulated_scores(n, seed=seed)
    _, rounded = simulated_scores(n, seed=seed, round_decimals=1, separations=(1.0,))
    scores["d=1.0 rounded"] = rounded["d=1.0"]
    t0 = time.perf_counter()
    evaluation = evaluate(scores, y, dataset_ids=["simulated"] * len(scores))
    elapsed = time.perf_counter() - t0
    best = []
    for s in scores.values():
        times = []
        for _ in range(3):  # the first call may compile (or load the cache)
            t = time.perf_counter()
            all_metrics(y, s)
            times.append(time.perf_counter() - t)
        best.append(min(times) * 1e3)
    summary = evaluation.summary(as_frame=False)
    true_auc = [0.5 * math.erfc(-float(m.split("=")[1].split()[0]) / 2.0)  # Phi(d / sqrt 2)
                for m in summary["model"]]
    table: dict[str, Any] = {"model": summary["model"]}
    for name in ("positives", "negatives", "average_precision", "average_precision_expected",
                 "roc_auc"):
        table[name] = summary[name]
    table["true_auc"] = np.array(true_auc)
    for name in ("pr_auc", "d_prime", "prbe"):
        table[name] = summary[name]
    table["all_metrics_ms"] = np.array(best)
    text = format_table(table, fmt)
    plot_note = None
    if args.plot != "":
        try:
            _write_plot(evaluation, args.plot, title=f"fastrank demo: {n:,} samples, seed {seed}")
            plot_note = f"wrote the ROC and PR curves to {args.plot}"
        except ImportError:
            print("fastrank: note: matplotlib is not installed, so no plot was drawn "
                  "(pip install matplotlib, or pip install 'fastrank[plot]')", file=sys.stderr)
    if fmt == "table":
        print(f"fastrank {__version__}: {n:,} samples, {int(y.sum()):,} positives (seed {seed}); "
              "model d scores negatives from N(0,1) and positives from N(d,1)")
    print(text)
    if fmt == "table":
        compiled = " (this included compiling the kernels, once per install)" if elapsed > 5 else ""
        print(f"Evaluated {len(scores)} models (metrics and curves) in {elapsed * 1e3:.0f} ms"
              f"{compiled}. "
              "true_auc is Phi(d/sqrt(2)), what the simulation implies. "
              "average_precision_expected is the tie-expected AP; it differs only where "
              "scores tie.")
        if plot_note:
            print(plot_note)
    elif plot_note:
        print(f"fastrank: {plot_note}", file=sys.stderr)
    return 0


# -- evaluate FILE ----------------------------------------------------------------------------


def _evaluate(args: argparse.Namespace, metrics: list[str]) -> int:
    path = args.file
    wanted = list(dict.fromkeys([args.label, *args.score,
                                 *(c for c in (args.dataset, args.group, args.weight) if c)]))
    enabled = args.progress
    if enabled is None:
        big = os.path.isfile(path) and os.path.getsize(path) >= PROGRESS_BYTES
        enabled = big and sys.stderr.isatty()
    progress = Progress(bool(enabled))
    try:
        columns = read_columns(path, wanted, progress)
        y = label_column(path, args.label, columns[args.label], args.pos_label)
        scores = {name: number_column(path, name, columns[name], "score") for name in args.score}
        weights = (number_column(path, args.weight, columns[args.weight], "weight")
                   if args.weight else None)
        if weights is not None:
            bad = np.flatnonzero(weights < 0)
            if bad.shape[0]:
                raise DataError(f"{path}: column {args.weight!r} row {int(bad[0]) + 1}: "
                                f"negative weight {weights[bad[0]]}")
        if args.dataset:
            datasets = rows_of(id_column(columns[args.dataset]))
        else:
            datasets = [(os.path.splitext(os.path.basename(path))[0], np.arange(y.shape[0]))]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if args.group:
                groups = id_column(columns[args.group])
                table = _grouped(path, args, y, scores, weights, datasets, groups, metrics,
                                 progress)
                evaluation = None
            else:
                evaluation = _pairs(path, y, scores, weights, datasets, progress)
                summary = evaluation.summary(as_frame=False)
                table = {k: summary[k] for k in ("model", "dataset", *metrics)}
        progress.close()
        _warn_lines(caught)
        if args.plot and evaluation is not None:
            try:
                _write_plot(evaluation, args.plot)
            except OSError as exc:
                raise DataError(f"{args.plot}: cannot write the plot: {exc.strerror or exc}") \
                    from exc
    finally:
        progress.close()
    print(format_table(table, args.format))
    return 0


def _take(rows: np.ndarray, *columns: np.ndarray | None) -> list[Any]:
    """The rows of a dataset from each column (no copy when it has every row)."""
    return [c if c is None or rows.shape[0] == c.shape[0] else c[rows] for c in columns]


def _pairs(path: str, y: np.ndarray, scores: dict[str, np.ndarray], weights: np.ndarray | None,
           datasets: list[tuple[Any, np.ndarray]], progress: Progress) -> Evaluation:
    """Every model on every dataset, scored one pair at a time (with progress)."""
    pairs = []
    for dataset, rows in datasets:
        labels, w = _take(rows, y, weights)
        for model, s in scores.items():
            pairs.append((model, dataset, labels, _take(rows, s)[0], w))
    try:
        return score_pairs(pairs, progress=progress)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{path}: {exc}") from exc


def _grouped(path: str, args: argparse.Namespace, y: np.ndarray, scores: dict[str, np.ndarray],
             weights: np.ndarray | None, datasets: list[tuple[Any, np.ndarray]],
             groups: np.ndarray, metrics: list[str], progress: Progress) -> dict[str, Any]:
    """Per-group metrics through the grouped entry point: their means, or every group."""
    rows_out: dict[str, list[Any]] = {"model": [], "dataset": []}
    if args.per_group:
        rows_out["group"] = []
    else:
        rows_out["groups"] = []
    for name in metrics:
        rows_out[name] = []
    total, done = len(scores) * len(datasets), 0
    for dataset, rows in datasets:
        labels, g, w = _take(rows, y, groups, weights)
        for model, s in scores.items():
            progress("computing", done / total)
            done += 1
            try:
                per = all_metrics(labels, _take(rows, s)[0], sample_weight=w, groups=g,
                                  average=None)
            except (ValueError, TypeError) as exc:
                raise DataError(f"{path}: model {model!r}, dataset {dataset!r}: {exc}") from exc
            assert isinstance(per, BatchMetrics) and per.groups is not None
            if args.per_group:
                count = len(per)
                rows_out["model"] += [model] * count
                rows_out["dataset"] += [dataset] * count
                rows_out["group"] += [plain(v) for v in per.groups]
                for name in metrics:
                    values = getattr(per, name)
                    rows_out[name] += (values.tolist() if values is not None
                                       else [math.nan] * count)
                continue
            mean = per.mean("macro")
            rows_out["model"].append(model)
            rows_out["dataset"].append(dataset)
            rows_out["groups"].append(len(per))
            for name in metrics:
                value = getattr(mean, name)
                rows_out[name].append(math.nan if value is None else value)
    progress("computing", 1.0)
    return rows_out


# -- info, compile ---------------------------------------------------------------------------


def _info() -> int:
    from .config import show_config

    show_config()
    return 0


def _compile() -> int:
    from .config import compile_kernels

    t0 = time.perf_counter()
    count = compile_kernels(progress=sys.stderr)  # a line per variant (the current stderr)
    print(f"fastrank: {count} kernel variants compiled in {time.perf_counter() - t0:.1f} s")
    return 0


# -- arguments ----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastrank",
        description="Exact, tie-aware ranking metrics: tables and curves of binary classifiers.",
        epilog="Without a command, runs 'fastrank demo'. Exit status: 0 success, "
               "1 data error, 2 usage error.",
    )
    parser.add_argument("--version", action="version", version=f"fastrank {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{demo,evaluate,info,compile}")
    demo = sub.add_parser("demo", help="evaluate the built-in simulated example (the default)")
    demo.add_argument("--samples", type=int, default=1_000_000, help="samples (default 1,000,000)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.add_argument("--plot", default=DEMO_PLOT, metavar="PATH",
                      help=f"write the ROC and PR curves here (default {DEMO_PLOT}; "
                           "'' for none)")
    demo.add_argument("--format", choices=FORMATS, default="table",
                      help=f"output format ({JSON_RULE})")

    ev = sub.add_parser(
        "evaluate", help="metrics of the score columns of a CSV, Parquet, .npz or .npy file",
        description="Evaluate every score column (model) against a label column, per dataset "
                    "or per group, and print one table row per model and dataset.",
    )
    ev.add_argument("file", metavar="FILE", help=".csv, .parquet, .npz or .npy file")
    ev.add_argument("--label", required=True, metavar="COL", help="the label column")
    ev.add_argument("--score", required=True, nargs="+", metavar="COL",
                    help="one or more score columns, one model each")
    ev.add_argument("--dataset", metavar="COL", help="split rows into datasets (e.g. folds)")
    ev.add_argument("--group", metavar="COL",
                    help="per-group metrics (query, user, ...) and their means")
    ev.add_argument("--per-group", action="store_true",
                    help="with --group: one row per group instead of the means")
    ev.add_argument("--weight", metavar="COL", help="sample weights")
    ev.add_argument("--pos-label", metavar="V",
                    help="the positive label; every other value is negative")
    ev.add_argument("--format", choices=FORMATS, default="table",
                    help=f"output format (CSV and JSON at full precision; {JSON_RULE})")
    ev.add_argument("--metrics", nargs="+", metavar="M",
                    help=f"columns to print, from: {' '.join(SUMMARY_COLUMNS)} "
                         "(aliases: ap, auc)")
    ev.add_argument("--plot", metavar="PATH", help="write ROC and PR curves (.png, .svg, .pdf)")
    group = ev.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="show progress on stderr (default: for large files on a terminal)")
    group.add_argument("--no-progress", dest="progress", action="store_false")

    sub.add_parser(
        "info", help="print the CPU, SIMD, sorts, threads and kernel cache (for bug reports)",
        description="Print fastrank.show_config(): the CPU, numpy's SIMD targets, the sort chosen "
                    "per score width and why, the threads and Numba's threading layer, and the "
                    "kernel cache folder with how many kernel variants it holds.",
    )
    sub.add_parser(
        "compile", help="compile every kernel variant now, so no later call waits for it",
        description="Compile every declared kernel variant into Numba's cache folder "
                    "(NUMBA_CACHE_DIR, or next to the package), e.g. while building a container "
                    "image; progress on stderr, then one line with the count and the seconds.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fastrank`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        if args.command is None:
            args = parser.parse_args(["demo"])
        if args.samples < 1:
            parser.error("--samples must be positive")
        if args.plot:
            try:
                check_path(args.plot)
            except ValueError as exc:
                parser.error(str(exc))
        return _demo(args)
    if args.command == "info":
        return _info()
    if args.command == "compile":
        return _compile()
    metrics = _metric_names(args.metrics)
    unknown = [m for m in metrics if m not in SUMMARY_COLUMNS]
    if unknown:
        parser.error(f"unknown metric {unknown[0]!r}; choose from {', '.join(SUMMARY_COLUMNS)}")
    if args.per_group and not args.group:
        parser.error("--per-group needs --group")
    if args.plot:
        if args.group:
            parser.error("--plot draws one curve per model and dataset; it cannot be "
                         "combined with --group")
        try:
            check_path(args.plot)
        except ValueError as exc:
            parser.error(str(exc))
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("fastrank: error: --plot needs matplotlib: pip install matplotlib "
                  "(or pip install 'fastrank[plot]')", file=sys.stderr)
            return 1
    try:
        return _evaluate(args, metrics)
    except DataError as exc:
        print(f"fastrank: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
