"""``fastrank trec QRELS RUN [RUN ...] -m ...``: one run scored in trec_eval's layout
(or CSV/JSON), several runs compared (:func:`fastrank.compare_runs`).

Nothing heavy is imported here until the command runs: the measure names of the
help are read from :data:`fastrank.trec.MEASURES` only when the help is shown.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

from .. import _cli_args as cli_args
from ..tables import JSON_RULE

TIES = ("expected", "optimistic", "pessimistic", "trec_eval")
TESTS = ("randomization", "t", "wilcoxon")  # fastrank._trec.compare.TESTS
CORRECTIONS = ("holm", "bonferroni", "none")  # fastrank.stats.CORRECTIONS and none
# The columns of the CSV and JSON of a comparison (RunComparison.rows()).
# Measures trec_eval prints in the all row only (num_q counts the queries; the
# geometric means are of the whole run).
ALL_ONLY = ("num_q", "gm_map", "gm_bpref")
COMPARISON_COLUMNS = ("measure", "run_a", "run_b", "mean_a", "mean_b", "difference", "queries",
                      "wins", "ties", "losses", "p_value", "p_corrected", "significant")


class MeasureHelp(str):
    """The help of ``-m``: the measures of :data:`fastrank.trec.MEASURES`, read when the
    help is formatted (argparse applies ``%`` to it then), not when the parser is built."""

    def __mod__(self, params: Any) -> str:
        frame = sys._getframe(1)
        for _ in range(3):  # argparse's check of a new argument's help (Python 3.14): the
            if frame is None or frame.f_code.co_name == "_check_help":  # parser being
                return str(self)  # built, no help shown, so nothing is imported
            frame = frame.f_back  # type: ignore[assignment]
        from .measures import MEASURES

        return (f"a measure ({', '.join(MEASURES)}; trec_eval's P_10, recall_100, "
                "ndcg_cut_10, map_cut_10 too); repeat for several; none: trec_eval's "
                "default set, official")


def _last_line(block: bytes) -> bytes | None:
    """The last line of ``block`` that holds a column and is not a comment (its first
    byte after C's whitespace ``#``, as trec_eval reads a run), or None."""
    for line in reversed(block.replace(b"\r", b"\n").split(b"\n")):
        parts = line.split()
        if parts and not parts[0].startswith(b"#"):
            return line
    return None


def run_tag(path: str) -> str | None:
    """A run file's tag, which trec_eval prints as ``runid`` with its sets
    ``official`` and ``all_trec``: the sixth column of the file's last line that is
    not blank or a comment (trec_eval keeps the last line's); None where that line
    has no sixth column. A plain file is read from its end; a gzipped one through."""
    import gzip

    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    last = None
    if gz:
        rest = b""
        with gzip.open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                lines = rest + chunk
                cut = max(lines.rfind(b"\n"), lines.rfind(b"\r")) + 1
                last = _last_line(lines[:cut]) or last
                rest = lines[cut:]
        last = _last_line(rest) or last
    else:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            block = b""
            while last is None and end > 0:  # blocks from the end until a line is whole
                start = max(0, end - (1 << 16))
                f.seek(start)
                block = f.read(end - start) + block
                end = start
                ends = [j for j in (block.find(b"\n"), block.find(b"\r")) if j >= 0]
                # (the block's first line may be cut: only what follows a line end)
                whole = block if start == 0 else block[min(ends) + 1:] if ends else b""
                last = _last_line(whole)
    if last is None:
        return None
    parts = last.split()
    return parts[5].decode("utf-8", "replace") if len(parts) > 5 else None


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``trec`` command to the subparsers ``sub``; return its parser."""
    trec: argparse.ArgumentParser = sub.add_parser(
        "trec", help="score TREC runs against qrels: map, ndcg@10, P@10, ...; compare runs",
        usage="fastrank trec QRELS RUN [RUN ...] [-m MEASURE ...] [options]",
        description="Score a TREC run file (qid Q0 docid rank score tag) against a qrels file "
                    "(qid iter docid relevance) with fastrank.evaluate_run: tied scores in "
                    "expectation by default (--ties trec_eval: broken by docid, decreasing, "
                    "as trec_eval does). Output as trec_eval prints it (measure, query or "
                    "'all', value), or CSV/JSON with one row per query and 'all'. With "
                    "several runs, compare them (fastrank.compare_runs): each run's means "
                    "over the queries every run has, marked with the runs it beats "
                    "significantly (0.3202^bc: above runs b and c), or CSV/JSON with a row "
                    "per measure and pair of runs and every p-value.",
    )
    trec.add_argument("qrels", metavar="QRELS", help="relevance judgments")
    trec.add_argument("runs", metavar="RUN", nargs="+",
                      help="the ranked run; several to compare them (named by their file "
                           "names)")
    trec.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                      help=MeasureHelp("a measure (fastrank.trec.MEASURES); repeat for several; "
                                       "none: trec_eval's default set, official"))
    trec.add_argument("-q", "--per-query", action="store_true",
                      help="every query's values too, not only the means ('all'); one run "
                           "(in trec_eval's layout with relstring, the first ten grades in "
                           "trec_eval's order, under all_trec or -m relstring[.N])")
    trec.add_argument("--ties", choices=TIES, default="expected",
                      help="tied scores: expected (default), optimistic, pessimistic, or "
                           "trec_eval's order (by docid, decreasing)")
    trec.add_argument("-c", "--all-queries", action="store_true",
                      help="trec_eval's -c: every query of the qrels, those a run lacks "
                           "scoring as an empty run")
    trec.add_argument("-M", "--depth", type=cli_args.count, default=None, metavar="N",
                      help="trec_eval's -M: only each query's first N documents count")
    trec.add_argument("-l", "--level", type=cli_args.integer_part, default=1.0, metavar="L",
                      help="trec_eval's -l: grades from L are relevant (default 1; read as "
                           "trec_eval reads it, its integer part: 1.5 is 1)")
    trec.add_argument("-J", "--judged-only", action="store_true",
                      help="trec_eval's -J: documents the qrels do not judge removed first")
    trec.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                      help="trec_eval's layout (or the comparison table) by default, or "
                           f"CSV/JSON with a column per measure (per field) ({JSON_RULE})")
    group = trec.add_argument_group("comparing several runs")
    group.add_argument("--test", choices=TESTS, default="randomization",
                       help="paired two-sided test: Fisher's randomization test (default), "
                            "Student's t, or Wilcoxon's signed-rank test")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm",
                       help="adjustment of each measure's p-values across its comparisons "
                            "(default holm)")
    group.add_argument("--alpha", type=cli_args.open_rate, default=0.05, metavar="A",
                       help="significance level of the adjusted p-values (default 0.05)")
    group.add_argument("--permutations", type=cli_args.count, default=10_000,
                       metavar="N", help="random sign patterns of the randomization test, "
                                         "where not all 2^queries are enumerated "
                                         "(default 10,000)")
    group.add_argument("--seed", type=lambda v: cli_args.count(v, 0), default=None, metavar="S",
                       help="seed of the random sign patterns (default: drawn, and printed)")
    group.add_argument("--baseline", metavar="RUN",
                       help="compare each run with this one (its file name or path) only, "
                            "instead of every pair")
    return trec


def _relstring(asked: list[str], parser: argparse.ArgumentParser
               ) -> tuple[tuple[int, int] | None, list[str]]:
    """trec_eval's relstring among the measures asked: ``(length, place)`` (the place
    among the names asked, -1 for all_trec's, after P_1000) or None, and the other
    measures."""
    rest = [m for m in asked if m.partition(".")[0] != "relstring"]
    for at, m in enumerate(asked):
        root, dot, text = m.partition(".")
        if root == "relstring":
            try:
                length = int(text) if dot else 10
            except ValueError:
                length = -1
            if length < 0 or m.strip() != m:
                parser.error(f"-m {m}: relstring takes one whole number of documents, "
                             "as relstring.10")
            return (length, sum(n.partition(".")[0] != "relstring" for n in asked[:at])), rest
    return ((10, -1) if "all_trec" in asked else None), rest


def _expand(names: list[str]) -> list[str]:
    from .measures import expand

    return expand(names)


def _names(paths: list[str]) -> list[str]:
    """Each run's name: its file name, or the path as given where file names repeat."""
    base = [os.path.basename(p) or p for p in paths]
    return base if len(set(base)) == len(base) else list(paths)


def warn_lines(caught: list[warnings.WarningMessage]) -> None:
    """Each distinct warning once, on stderr."""
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"fastrank: warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``fastrank trec`` (usage errors through ``parser``; data errors raise
    :class:`fastrank.readers.DataError`)."""
    several = len(args.runs) > 1
    names = _names(args.runs)
    baseline = args.baseline
    if several and args.per_query:
        parser.error("--per-query prints one run's values; give one RUN (or compare the "
                     "runs without it)")
    if baseline is not None:
        if not several:
            parser.error("--baseline compares several runs; give two RUNs or more")
        if baseline in args.runs:
            baseline = names[args.runs.index(baseline)]
        if baseline not in names:
            parser.error(f"--baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    from ..readers import DataError
    from ..tables import format_table
    from ..trec import compare_runs, evaluate_run, read_qrels, read_run

    try:
        # the runs first, the largest files, while nothing else is held (their reading
        # peaks then); a bad qrels file is still the error shown first
        try:
            runs = {name: read_run(path) for name, path in zip(names, args.runs, strict=True)}
        except (OSError, DataError):
            read_qrels(args.qrels)
            raise
        qrels = read_qrels(args.qrels)
    except OSError as exc:
        raise DataError(f"{exc.filename}: {exc.strerror}") from exc
    measures = args.measure or ["official"]  # as trec_eval without -m
    relstring, measures = _relstring(measures, parser)
    if several and relstring is not None and relstring[1] >= 0:
        parser.error("relstring is printed per query for one run; give one RUN")
    options = {"ties": args.ties, "all_queries": args.all_queries, "depth": args.depth,
               "relevance_level": args.level, "judged_only": args.judged_only}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if several:
                comparison = compare_runs(
                    qrels, runs, measures, test=args.test,
                    correction=None if args.correction == "none" else args.correction,
                    alpha=args.alpha, n_permutations=args.permutations, seed=args.seed,
                    baseline=baseline, **options)
            else:
                scores = evaluate_run(qrels, runs[names[0]], measures or ["num_ret"],
                                      **options)
        except ValueError as exc:
            raise DataError(str(exc)) from exc
    warn_lines(caught)
    if several:
        if args.format == "trec":
            print(comparison.table())
        else:
            rows = comparison.rows()
            print(format_table({c: [r[c] for r in rows] for c in COMPARISON_COLUMNS},
                               args.format))
        return 0
    measures_asked = measures
    measures = list(scores.per_query) if measures else []  # as evaluate_run names them
    strings: dict[str, str] = {}
    if relstring is not None and args.per_query and args.format == "trec":
        from .relstrings import relstrings

        length, before = relstring
        if before >= 0:  # after the names asked before it
            at = min(len(_expand(measures_asked[:before])), len(measures))
        else:  # all_trec's place, after P_1000
            at = measures.index("P_1000") + 1 if "P_1000" in measures else len(measures)
        measures.insert(at, "relstring")
        queries = scores.queries.tolist()
        strings = dict(zip(queries, relstrings(qrels, runs[names[0]], scores.queries, length,
                                               args.judged_only, args.depth), strict=True))
    rows_out = [("all", scores.mean)]
    if args.per_query:
        rows_out = [(str(q), {m: float(v[j]) for m, v in scores.per_query.items()})
                    for j, q in enumerate(scores.queries.tolist())] + rows_out
    if args.format == "trec":  # trec_eval's order: query by query, then the all rows
        tag = run_tag(args.runs[0]) if {"official", "all_trec"} & set(measures_asked) else None
        for qid, values in rows_out:
            if qid == "all" and tag is not None:  # its sets' runid, the all rows' first
                print(f"{'runid':<22}\tall\t{tag}")
            for name in measures:
                if name == "relstring":
                    if qid != "all":  # (trec_eval prints it per query only)
                        print(f"{name:<22}\t{qid}\t'{strings[qid]}'")
                    continue
                if qid == "all" or name not in ALL_ONLY:
                    value = values[name]  # counts (num_*) as whole numbers, as trec_eval
                    shown = f"{value:.0f}" if name.startswith("num_") else f"{value:.4f}"
                    print(f"{name:<22}\t{qid}\t{shown}")
        return 0
    table: dict[str, list[Any]] = {"query": [qid for qid, _ in rows_out]}
    for name in measures:
        table[name] = [values[name] for _, values in rows_out]
    print(format_table(table, args.format))
    return 0
