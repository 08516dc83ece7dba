"""The ``fastrank`` command.

``fastrank`` (or ``fastrank demo``) evaluates the built-in example: simulated
models of known separation, one of them with heavily tied (rounded) scores. It
prints every metric and draws their ROC and PR curves. The demo's options work
without the word ``demo`` too (``fastrank --plot ''``).

``fastrank evaluate FILE --label COL --score COL [COL ...]`` does the same for a
file of predictions (CSV, Parquet, .npz or .npy): one row per model (score
column) and dataset, or per group with ``--group``. Rows go model by model (in
``--score`` order), as :meth:`fastrank.Evaluation.summary` lists them; each
model's datasets, and groups with ``--per-group``, in order of first appearance
in the file. Unweighted counts are integers. CSV and JSON head the columns with
their field names, the table and Markdown with the display names of
:data:`fastrank.tables.HEADERS`.

``fastrank trec QRELS RUN -m map -m ndcg@10 ...`` scores a TREC run against its
relevance judgments (:func:`fastrank.evaluate_run`), in trec_eval's layout or as
CSV/JSON; with several runs it compares them (:func:`fastrank.compare_runs`): a
table of means marked with significant differences, or every p-value as CSV/JSON.
``fastrank info`` prints :func:`fastrank.show_config` (what a bug report needs);
``fastrank compile`` compiles every kernel variant ahead of time
(:func:`fastrank.compile_kernels`), for images and CI jobs.

Exit status: 0 on success, 2 for a usage error, 1 for a problem with the data
(one line on stderr naming the file, column and row; nothing is written).
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from . import _cli_args as cli_args
from ._trec import cli as trec_command
from .tables import FORMATS, HEADERS, JSON_RULE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .evaluation import Evaluation

# Modules are imported where they are needed: ``--version``, ``--help``, usage errors and
# ``info`` import neither pandas nor matplotlib, and this module alone imports no numba.
# The columns of Evaluation.summary() (fastrank.evaluation.SUMMARY_COLUMNS; a test checks
# they agree) and the figure formats of fastrank.plots (SAVE_FORMATS), known here without
# importing either.
METRIC_COLUMNS = ("positives", "negatives", "average_precision", "average_precision_expected",
                  "roc_auc", "pr_auc", "d_prime", "prbe", "prbe_threshold")
PLOT_FORMATS = ("png", "svg", "pdf")
PLOT_KINDS = ("roc", "pr", "det")   # fastrank.plots.KINDS
READABLE = (".csv", ".parquet", ".npz", ".npy")  # the files fastrank.readers reads
PLOT_SCALES = ("linear", "logit")   # fastrank.plots.SCALES
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


def _plot_path(value: str) -> str:
    """The argument of ``--plot``: ``''`` (no figure) or a path with a figure's extension
    (the check of :func:`fastrank.plots.check_path`, made while the arguments are parsed)."""
    if value == "":
        return value
    ext = os.path.splitext(value)[1].lower().lstrip(".")
    if ext not in PLOT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"cannot save a figure as {value!r}: the extension must be one of "
            f"{', '.join('.' + f for f in PLOT_FORMATS)}")
    return value


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    if module in sys.modules:
        return sys.modules[module] is not None
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _write_plot(evaluation: Evaluation, path: str, kinds: Sequence[str] = ("roc", "pr"),
                **kwargs: Any) -> None:
    """Save the figure atomically: a complete file at ``path`` or none at all, with the
    permissions a newly created file gets (``mkstemp`` makes its file owner-only)."""
    import tempfile

    from .plots import plot_evaluation

    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(prefix=".fastrank-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        plot_evaluation(evaluation, kinds, path=tmp, **kwargs)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _integer_counts(table: dict[str, Any]) -> None:
    """Unweighted positives and negatives as integers (they are exact counts), not floats."""
    import numpy as np

    for name in ("positives", "negatives"):
        if name in table:
            values = np.asarray(table[name], dtype=np.float64)
            if np.all(np.isfinite(values) & (values == np.trunc(values))):
                table[name] = values.astype(np.int64)


# -- demo ---------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    import math

    import numpy as np

    from . import __version__
    from .datasets import simulated_scores
    from .evaluation import evaluate
    from .metrics import all_metrics
    from .tables import format_table

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
    _integer_counts(table)
    text = format_table(table, fmt)
    plot_note = None
    if args.plot != "":
        try:
            _write_plot(evaluation, args.plot, title=f"fastrank demo: {n:,} samples, seed {seed}")
            plot_note = f"wrote the ROC and PR curves to {args.plot}"
        except ImportError:
            print("fastrank: note: matplotlib is not installed, so no plot was drawn "
                  "(pip install matplotlib, or pip install 'fastrank-metrics[plot]')",
                  file=sys.stderr)
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
              "scores tie. ms is the fastest of 3 all_metrics calls per model.")
        if plot_note:
            print(plot_note)
    elif plot_note:
        print(f"fastrank: {plot_note}", file=sys.stderr)
    return 0


# -- evaluate FILE ----------------------------------------------------------------------------


def _evaluate(args: argparse.Namespace, metrics: list[str]) -> int:
    import numpy as np

    from .readers import DataError, id_column, label_column, number_column, read_columns, rows_of
    from .tables import format_table

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
            datasets = rows_of(id_column(path, args.dataset, columns[args.dataset], "dataset"))
        else:
            datasets = [(os.path.splitext(os.path.basename(path))[0], np.arange(y.shape[0]))]
        groups = (id_column(path, args.group, columns[args.group], "group")
                  if args.group else None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if groups is not None:
                table = _grouped(path, args, y, scores, weights, datasets, groups, metrics,
                                 progress)
                evaluation = None
            else:
                evaluation = _pairs(path, y, scores, weights, datasets, progress)
                summary = evaluation.summary(as_frame=False)
                table = {k: summary[k] for k in ("model", "dataset", *metrics)}
                table.update(_operating_columns(evaluation, args))
                table.update(_area_columns(evaluation, args))
        if weights is None:
            _integer_counts(table)
        progress.close()
        _warn_lines(caught)
        if args.plot and evaluation is not None:
            try:
                _write_plot(evaluation, args.plot, args.plot_kinds, scale=args.plot_scale)
            except OSError as exc:
                raise DataError(f"{args.plot}: cannot write the plot: {exc.strerror or exc}") \
                    from exc
    finally:
        progress.close()
    print(format_table(table, args.format))
    return 0


# --at-* options: the readout each asks for (fastrank.readouts.READOUTS).
AT_OPTIONS = {"at_precision": "recall_at_precision", "at_recall": "precision_at_recall",
              "at_specificity": "sensitivity_at_specificity",
              "at_sensitivity": "specificity_at_sensitivity"}


def _operating_columns(evaluation: Evaluation, args: argparse.Namespace) -> dict[str, Any]:
    """Two columns per --at-* bound, after the metrics: the readout's value, named
    ``<readout>_<bound>``, and its threshold, ``<readout>_<bound>_threshold``."""
    asked = {option: getattr(args, option) or [] for option in AT_OPTIONS}
    if not any(asked.values()):
        return {}
    points = evaluation.operating_points(
        min_precision=asked["at_precision"], min_recall=asked["at_recall"],
        min_specificity=asked["at_specificity"], min_sensitivity=asked["at_sensitivity"],
        interpolate=args.interpolate, as_frame=False)
    out: dict[str, Any] = {}
    count = len(evaluation.entries)
    per_pair = len(points["value"]) // count
    for j in range(per_pair):
        name = f"{points['readout'][j]}_{points['bound'][j]:g}"
        out[name] = points["value"][j::per_pair]
        out[f"{name}_threshold"] = points["threshold"][j::per_pair]
    return out


def _area_columns(evaluation: Evaluation, args: argparse.Namespace) -> dict[str, Any]:
    """The --partial-* areas (``partial_roc_auc``, ``partial_pr_auc``) and, per
    --at-depth share D, ``gain_<D>`` and ``lift_<D>``."""
    out: dict[str, Any] = {}
    if args.partial_fpr or args.partial_tpr or args.partial_recall:
        areas = evaluation.partial_areas(
            fpr=_pair(args.partial_fpr), tpr=_pair(args.partial_tpr), correct=args.mcclish,
            recall=_pair(args.partial_recall), as_frame=False)
        out.update({k: v for k, v in areas.items() if k.startswith("partial_")})
    if args.at_depth:
        depths = args.at_depth
        gains = evaluation.gains(depths, as_frame=False)
        for j, d in enumerate(depths):
            out[f"gain_{d:g}"] = gains["gain"][j::len(depths)]
            out[f"lift_{d:g}"] = gains["lift"][j::len(depths)]
    return out


def _pair(values: list[float] | None) -> tuple[float, float] | None:
    return None if not values else (values[0], values[1])


def _take(rows: np.ndarray, *columns: np.ndarray | None) -> list[Any]:
    """The rows of a dataset from each column (no copy when it has every row)."""
    return [c if c is None or rows.shape[0] == c.shape[0] else c[rows] for c in columns]


def _pairs(path: str, y: np.ndarray, scores: dict[str, np.ndarray], weights: np.ndarray | None,
           datasets: list[tuple[Any, np.ndarray]], progress: Progress) -> Evaluation:
    """Every model on every dataset, scored one pair at a time (with progress)."""
    from .evaluation import score_pairs
    from .readers import DataError

    pairs = []
    parts = [(dataset, rows, *_take(rows, y, weights)) for dataset, rows in datasets]
    for model, s in scores.items():  # model by model, as Evaluation.summary() lists them
        for dataset, rows, labels, w in parts:
            pairs.append((model, dataset, labels, _take(rows, s)[0], w))
    try:
        return score_pairs(pairs, progress=progress)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{path}: {exc}") from exc


def _grouped(path: str, args: argparse.Namespace, y: np.ndarray, scores: dict[str, np.ndarray],
             weights: np.ndarray | None, datasets: list[tuple[Any, np.ndarray]],
             groups: np.ndarray, metrics: list[str], progress: Progress) -> dict[str, Any]:
    """Per-group metrics through the grouped entry point: their means, or every group
    (in order of first appearance, as the datasets are)."""
    import math

    from .metrics import BatchMetrics, all_metrics
    from .readers import DataError, first_appearance, plain

    rows_out: dict[str, list[Any]] = {"model": [], "dataset": []}
    if args.per_group:
        rows_out["group"] = []
    else:
        rows_out["groups"] = []
    for name in metrics:
        rows_out[name] = []
    total, done = len(scores) * len(datasets), 0
    parts = [(dataset, rows, *_take(rows, y, groups, weights)) for dataset, rows in datasets]
    orders: dict[int, np.ndarray] = {}  # each dataset's groups, the same for every model
    for model, s in scores.items():  # model by model, as Evaluation.summary() lists them
        for k, (dataset, rows, labels, g, w) in enumerate(parts):
            progress("computing", done / total)
            done += 1
            try:
                per = all_metrics(labels, _take(rows, s)[0], sample_weight=w, groups=g,
                                  average=None)
            except (ValueError, TypeError) as exc:
                raise DataError(f"{path}: model {model!r}, dataset {dataset!r}: {exc}") from exc
            assert isinstance(per, BatchMetrics) and per.groups is not None
            if args.per_group:
                if k not in orders:
                    orders[k] = first_appearance(g, per.groups)
                order = orders[k]
                count = len(per)
                rows_out["model"] += [model] * count
                rows_out["dataset"] += [dataset] * count
                rows_out["group"] += [plain(v) for v in per.groups[order]]
                for name in metrics:
                    values = getattr(per, name)
                    rows_out[name] += (values[order].tolist() if values is not None
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


def _compile(jobs: int | None) -> int:
    from .config import compile_kernels

    t0 = time.perf_counter()
    count = compile_kernels(progress=sys.stderr, jobs=jobs)  # a line per variant
    print(f"fastrank: {count} kernel variants compiled in {time.perf_counter() - t0:.1f} s")
    return 0


# -- arguments ----------------------------------------------------------------------------


class _Version(argparse.Action):
    """``--version``, reading the version only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from . import __version__

        print(f"fastrank {__version__}")
        parser.exit()


def _columns_help() -> str:
    names = ", ".join(f"{n} ({HEADERS[n]})" if n in HEADERS else n for n in METRIC_COLUMNS)
    return (f"Columns, by the names CSV and JSON use (and the table and markdown headers): "
            f"model, dataset (then with --group: groups, their number, or with --per-group: "
            f"group), then --metrics from {names}; then the readouts asked for: "
            "<readout>_<B> and <readout>_<B>_threshold per --at-* bound (R@P0.99 ...), "
            "gain_<D> and lift_<D> per --at-depth share (Gain@0.1, Lift@0.1), "
            "partial_roc_auc (pAUC) and partial_pr_auc (pPR AUC). "
            "Rows: model by model in --score order; "
            "each model's datasets, and with --per-group the groups of each dataset, "
            "in order of first appearance in the file. positives and negatives are counts "
            "(integers), or weight sums with --weight. A missing --dataset or --group id is a "
            "data error. Exit status: 0 success, 1 data error, 2 usage error.")


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's parser (which reports its usage errors)."""
    parser = argparse.ArgumentParser(
        prog="fastrank",
        usage="%(prog)s [-h] [--version] [--samples N] [--seed S] [--plot PATH] "
              "[--format FORMAT]\n       %(prog)s {demo,evaluate,trec,info,compile} ...",
        description="Exact, tie-aware ranking metrics: tables and curves of binary classifiers.",
        epilog="Without a command, runs 'fastrank demo', whose options may be given without "
               "the word demo: fastrank --samples 10000 --plot ''. Exit status: 0 success, "
               "1 data error, 2 usage error.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{demo,evaluate,trec,info,compile}",
                                prog="fastrank")
    demo = sub.add_parser(
        "demo", help="evaluate the built-in simulated example (the default)",
        description="Evaluate simulated models of known separation (one with heavily tied "
                    "scores): every metric, the AUC the simulation implies, the time each "
                    "call took, and the ROC and PR curves. Plain 'fastrank' runs it too, "
                    "with these options: fastrank --plot ''.",
    )
    demo.add_argument("--samples", type=int, default=1_000_000, metavar="N",
                      help="samples (default 1,000,000)")
    demo.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    demo.add_argument("--plot", type=_plot_path, default=DEMO_PLOT, metavar="PATH",
                      help=f"write the ROC and PR curves here (.png, .svg, .pdf; default "
                           f"{DEMO_PLOT}; '' for none)")
    demo.add_argument("--format", choices=FORMATS, default="table",
                      help=f"output format ({JSON_RULE})")

    ev = sub.add_parser(
        "evaluate", help="metrics of the score columns of a CSV, Parquet, .npz or .npy file",
        usage="fastrank evaluate FILE --label COL --score COL [COL ...] [options]",
        description="Evaluate every score column (model) against a label column, per dataset "
                    "or per group, and print one table row per model and dataset.",
        epilog=_columns_help(),
    )
    ev.add_argument("file", metavar="FILE", nargs="?",  # a missing FILE is explained in main
                    help=".csv, .parquet, .npz or .npy file")
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
                    help="output format: table and markdown rounded, with short headers; "
                         f"CSV and JSON at full precision, with the column names ({JSON_RULE})")
    ev.add_argument("--metrics", nargs="+", metavar="M",
                    help=f"columns to print, from: {' '.join(METRIC_COLUMNS)} "
                         "(aliases: ap, auc, ap_expected)")
    for option, readout in AT_OPTIONS.items():
        flag = "--" + option.replace("_", "-")
        ev.add_argument(flag, type=cli_args.rate, nargs="+", metavar="B",
                        help=f"add {readout} at each bound B (and its threshold) as columns")
    ev.add_argument("--interpolate", action="store_true",
                    help="--at-* points may lie inside tie groups (a random share flagged)")
    ev.add_argument("--at-depth", type=cli_args.rate, nargs="+", metavar="D",
                    help="add the cumulative gain and the lift of the top D share of the "
                         "samples (e.g. 0.1: the top 10%%) as columns")
    for option, what in (("fpr", "the ROC area over false-positive rates"),
                         ("tpr", "the ROC area over true-positive rates"),
                         ("recall", "the interpolated PR area over recalls")):
        ev.add_argument(f"--partial-{option}", type=cli_args.rate, nargs=2, metavar=("LO", "HI"),
                        help=f"add {what} LO to HI as a column"
                             + (" (with --partial-fpr: the two-way area)"
                                if option == "tpr" else ""))
    ev.add_argument("--mcclish", action="store_true",
                    help="McClish-standardise the --partial-fpr/--partial-tpr area")
    ev.add_argument("--plot", type=_plot_path, metavar="PATH",
                    help="write ROC and PR curves (.png, .svg, .pdf)")
    ev.add_argument("--plot-kinds", nargs="+", choices=PLOT_KINDS, default=["roc", "pr"],
                    metavar="KIND", help="the panels of --plot, left to right: roc, pr, det "
                                         "(default: roc pr)")
    ev.add_argument("--plot-scale", choices=PLOT_SCALES, default="linear",
                    help="axes of the ROC and PR panels: linear (default), or logit to spread "
                         "near-perfect models out of the corner")
    group = ev.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="show progress on stderr (default: for large files on a terminal)")
    group.add_argument("--no-progress", dest="progress", action="store_false")

    info = sub.add_parser(
        "info", help="print the CPU, SIMD, sorts, threads and kernel cache (for bug reports)",
        description="Print fastrank.show_config(): the CPU, numpy's SIMD targets, the sort chosen "
                    "per score width and why, the threads and Numba's threading layer, and the "
                    "kernel cache folder with how many kernel variants it holds.",
    )
    compile_ = sub.add_parser(
        "compile", help="compile every kernel variant now, so no later call waits for it",
        description="Compile every declared kernel variant into Numba's cache folder "
                    "(NUMBA_CACHE_DIR, or next to the package), e.g. while building a container "
                    "image, in worker processes side by side; progress on stderr, then one line "
                    "with the count and the seconds.",
    )
    compile_.add_argument("--jobs", "-j", type=cli_args.count, default=None, metavar="N",
                          help="worker processes (default: one per core, at most 8; 1: compile "
                               "in this process)")
    trec = trec_command.add_parser(sub)
    return parser, {"demo": demo, "evaluate": ev, "info": info, "compile": compile_,
                    "trec": trec}


def _with_command(argv: list[str]) -> list[str]:
    """``argv`` with ``demo`` in front when it names no command: plain ``fastrank`` and
    ``fastrank --plot ''`` run the demo (``--help`` and ``--version`` stay top-level)."""
    if not argv:
        return ["demo"]
    first = argv[0]
    if not first.startswith("-") or first in ("-h", "--"):
        return argv
    option = first.split("=", 1)[0]
    if len(option) > 2 and any(name.startswith(option) for name in ("--help", "--version")):
        return argv
    return ["demo", *argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fastrank`` console script; returns the exit status."""
    parser, commands = _parser()
    args = parser.parse_args(_with_command(list(sys.argv[1:] if argv is None else argv)))
    if args.command is None:  # e.g. "fastrank --"
        args = parser.parse_args(["demo"])
    command = commands[args.command]
    if args.command == "demo":
        if args.samples < 1:
            command.error("--samples must be positive")
        try:
            return _demo(args)
        except BrokenPipeError:  # pragma: no cover - e.g. piped into head
            return 0
    if args.command == "info":
        return _info()
    if args.command == "compile":
        return _compile(args.jobs)
    if args.command == "trec":
        from .readers import DataError

        try:
            return trec_command.run(args, command)
        except DataError as exc:
            print(f"fastrank: error: {exc}", file=sys.stderr)
            return 1
        except BrokenPipeError:  # e.g. piped into head
            return 0
    if args.file is None:
        last = args.score[-1]
        if len(args.score) > 1 and os.path.splitext(last)[1].lower() in READABLE:
            command.error(f"the following arguments are required: FILE ({last!r} was read "
                          "as a --score column: put FILE before the options, or end the "
                          "--score list with --)")
        command.error("the following arguments are required: FILE")
    metrics = _metric_names(args.metrics)
    unknown = [m for m in metrics if m not in METRIC_COLUMNS]
    if unknown:
        command.error(f"unknown metric {unknown[0]!r}; choose from {', '.join(METRIC_COLUMNS)}")
    if args.per_group and not args.group:
        command.error("--per-group needs --group")
    readouts_asked = [option for option in (*AT_OPTIONS, "at_depth", "partial_fpr",
                                            "partial_tpr", "partial_recall")
                      if getattr(args, option)]
    if args.group and readouts_asked:
        command.error("--at-precision and the other --at-* and --partial-* options read one "
                      "curve per model and dataset; they cannot be combined with --group")
    if args.mcclish and not (args.partial_fpr or args.partial_tpr):
        command.error("--mcclish standardises the partial ROC area: give --partial-fpr or "
                      "--partial-tpr")
    for option in ("partial_fpr", "partial_tpr", "partial_recall"):
        lo_hi = getattr(args, option)
        if lo_hi and not lo_hi[0] < lo_hi[1]:
            command.error(f"--{option.replace('_', '-')} needs LO < HI; got {lo_hi[0]:g} "
                          f"{lo_hi[1]:g}")
    if args.plot:
        if args.group:
            command.error("--plot draws one curve per model and dataset; it cannot be "
                          "combined with --group")
        if not _installed("matplotlib"):  # checked now, imported only to draw
            print("fastrank: error: --plot needs matplotlib: pip install matplotlib "
                  "(or pip install 'fastrank-metrics[plot]')", file=sys.stderr)
            return 1
    from .readers import DataError

    try:
        return _evaluate(args, metrics)
    except DataError as exc:
        print(f"fastrank: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


def run() -> NoReturn:
    """The ``fastrank`` program: :func:`main`, then exit without tearing the interpreter down.

    Once the output is flushed and the exit handlers (``atexit``) have run, nothing is
    left to do, but the interpreter's teardown of the modules numba, numpy and pandas
    loaded takes 0.1-0.3 s, longer than evaluating a small file; ``os._exit`` skips it.
    A traceback still ends the process the usual way.
    """
    try:
        status = main()
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        if exc.code is not None and not isinstance(exc.code, int):
            raise
        status = exc.code or 0
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        pass
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
