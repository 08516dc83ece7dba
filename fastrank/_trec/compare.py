"""Several runs against one qrels: each run scored, the measures paired over the
queries every run has, paired tests between runs, p-values adjusted per measure,
and the result as a table with significance marks, rows, a frame or a figure."""

from __future__ import annotations

import math
import os
import textwrap
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import stats
from .._core.options import check_count, check_seed
from .._optional import require
from . import ids
from .measures import measure_name, summary

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

TESTS = ("randomization", "t", "wilcoxon")
# ranx's names of the same tests
TEST_ALIASES = {"fisher": "randomization", "student": "t"}
TEST_TITLES = {"randomization": "Fisher's randomization test", "t": "paired t test",
               "wilcoxon": "Wilcoxon signed-rank test"}
CORRECTION_TITLES = {"holm": "Holm", "bonferroni": "Bonferroni"}


def check_test(test: object) -> str:
    """A test's name (ranx's ``fisher`` and ``student`` accepted), or ``ValueError``."""
    name = TEST_ALIASES.get(test, test) if isinstance(test, str) else test
    if name not in TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, TESTS))} (or ranx's "
                         f"'fisher', 'student'); got {test!r}")
    return str(name)


def check_correction(correction: object) -> str | None:
    """``"holm"``, ``"bonferroni"`` or None (``"none"`` too), or ``ValueError``."""
    if correction is None or correction == "none":
        return None
    if correction not in stats.CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, stats.CORRECTIONS))} "
                         f"or None; got {correction!r}")
    return str(correction)


def _is_run(x: Any) -> bool:
    """Whether ``x`` has one of the forms of a run (a dict, a table, three 1-D arrays)."""
    if isinstance(x, dict):
        return True
    if getattr(x, "columns", None) is not None and hasattr(x, "iloc"):
        return True
    if isinstance(x, list | tuple) and len(x) == 3:
        return all(np.ndim(part) == 1 for part in x)
    return False


def named_runs(runs: Any) -> list[tuple[str, Any]]:
    """``(name, run)`` pairs from a dict name -> run or a list of runs (named
    ``run1``, ``run2``, ...), at least two, names distinct."""
    if isinstance(runs, Mapping):
        pairs = [(str(name), run) for name, run in runs.items()]
        if len({name for name, _ in pairs}) < len(pairs):
            raise ValueError("the runs' names must be distinct as text; got "
                             f"{list(runs.keys())!r}")
    elif isinstance(runs, list | tuple):
        pairs = [(f"run{j + 1}", run) for j, run in enumerate(runs)]
    else:
        raise TypeError("runs must be a dict name -> run or a list of runs; got "
                        f"{type(runs).__name__}")
    for name, run in pairs:
        if not _is_run(run):
            raise TypeError(f"run {name!r} is not a run (three arrays, a dict {{qid: {{docid: "
                            "score}}}} or a table): give runs as a dict name -> run or a list "
                            "of runs")
    if len(pairs) < 2:
        raise ValueError(f"compare_runs needs at least two runs; got {len(pairs)} "
                         "(evaluate_run scores one)")
    return pairs


def _common(queries: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The queries every run has (sorted) and, per run, where they lie in its own."""
    if len({q.dtype.kind for q in queries}) > 1:  # ids of different types: as text
        queries = [q.astype(str) for q in queries]
    common = queries[0]
    for q in queries[1:]:
        common = np.intersect1d(common, q, assume_unique=True)
    places = [np.intersect1d(common, q, assume_unique=True, return_indices=True)[2]
              for q in queries]
    return common, places


@dataclass(frozen=True)
class RunComparison:
    """Runs compared over the same queries: their means, and paired tests.

    Attributes
    ----------
    runs : tuple of str
        The runs' names, in the order given (their letters in :meth:`table`: a, b, ...).
    measures : tuple of str
        The measures, as evaluate_run names them.
    queries : ndarray
        The queries every run is evaluated on, sorted: the pairs of every test.
    per_query : dict of str -> dict of str -> ndarray
        ``per_query[run][measure]``: the values on ``queries`` (NaN where undefined).
    mean : dict of str -> dict of str -> float
        ``mean[run][measure]`` over the queries where the measure is defined (for
        every run), as evaluate_run's all row and trec_eval's: the counts ``num_*``
        summed, ``gm_map`` and ``gm_bpref`` geometric means, the others arithmetic.
    n_queries : dict of str -> int
        Per measure, the paired queries the tests use (those where it is defined).
    pairs : tuple of (str, str)
        The comparisons of every measure: each pair of runs once (the earlier run
        first), or each other run against the baseline (the baseline first).
    p_value, p_corrected : dict of str -> ndarray
        Per measure, each pair's two-sided p-value, raw and adjusted across the
        pairs (``correction``); NaN where a measure is defined on no query (or, for
        the t test, on one).
    significant : dict of str -> ndarray of bool
        Per measure and pair, ``p_corrected <= alpha``.
    test, correction, alpha, n_permutations, seed
        How the p-values were computed (``seed``: the one used, drawn when None
        was given, so that a randomization test can be repeated).
    """

    runs: tuple[str, ...]
    measures: tuple[str, ...]
    queries: np.ndarray
    per_query: dict[str, dict[str, np.ndarray]]
    mean: dict[str, dict[str, float]]
    n_queries: dict[str, int]
    pairs: tuple[tuple[str, str], ...]
    p_value: dict[str, np.ndarray]
    p_corrected: dict[str, np.ndarray]
    significant: dict[str, np.ndarray]
    test: str
    correction: str | None
    alpha: float
    n_permutations: int
    seed: int

    def _measure(self, measure: str) -> str:
        if measure not in self.measures:
            raise ValueError(f"unknown measure {measure!r}; this comparison has "
                             f"{', '.join(self.measures)}")
        return measure

    def beats(self, measure: str) -> dict[str, list[str]]:
        """Per run, the runs it beats on ``measure``: a higher mean and a significant
        difference (the marks of :meth:`table`)."""
        measure = self._measure(measure)
        out: dict[str, list[str]] = {run: [] for run in self.runs}
        for (a, b), sig in zip(self.pairs, self.significant[measure], strict=True):
            ma, mb = self.mean[a][measure], self.mean[b][measure]
            if sig and ma != mb:
                winner, loser = (a, b) if ma > mb else (b, a)
                out[winner].append(loser)
        for losers in out.values():
            losers.sort(key=self.runs.index)
        return out

    def labels(self) -> list[str]:
        """Each run's label in :meth:`table`: a, b, ... (r1, r2, ... past 26 runs)."""
        n = len(self.runs)
        return [chr(ord("a") + j) if n <= 26 else f"r{j + 1}" for j in range(n)]

    def describe(self) -> str:
        """One sentence: the test, the correction, the level and the queries."""
        title = TEST_TITLES[self.test]
        if self.test == "randomization":
            counts = {2**n <= self.n_permutations for n in self.n_queries.values()}
            how = ("every sign pattern" if counts == {True} else
                   f"{self.n_permutations:,} random sign patterns, seed {self.seed}")
            title += f" ({how})"
        per = len(self.pairs)
        adjusted = ("unadjusted p" if self.correction is None else
                    f"{CORRECTION_TITLES[self.correction]}-adjusted p")
        counts_q = sorted(set(self.n_queries.values()))
        queries = (f"{counts_q[0]:,} quer{'y' if counts_q[0] == 1 else 'ies'}"
                   if len(counts_q) == 1 else
                   "queries per measure: " + ", ".join(f"{m} {n:,}"
                                                       for m, n in self.n_queries.items()))
        return (f"{title}, two-sided, {adjusted} <= {self.alpha:g} across the {per} "
                f"comparison{'s' if per != 1 else ''} of each measure; {queries}")

    def table(self, digits: int = 4) -> str:
        """The means as text: runs as rows, measures as columns, each value marked
        with the labels of the runs it beats (``0.3202^bc``: significantly above runs
        b and c), then a line that says how.

        Examples
        --------
        >>> import fastrank
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
        >>> good = {q: {d: 1.0} for q, d in (("q1", "a"), ("q2", "b"), ("q3", "c"))}
        >>> bad = {q: {"x": 1.0, d: 0.5} for q, d in (("q1", "a"), ("q2", "b"), ("q3", "c"))}
        >>> c = fastrank.compare_runs(qrels, {"good": good, "bad": bad}, ["P@1", "recip_rank"],
        ...                           alpha=0.25)
        >>> print(c.table())
        #  run   P@1       recip_rank
        a  good  1.0000^b  1.0000^b
        b  bad   0.0000    0.5000
        x^b: significantly above run b; Fisher's randomization test (every sign pattern),
        two-sided, Holm-adjusted p <= 0.25 across the 1 comparison of each measure; 3 queries
        """
        if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 15:
            raise ValueError(f"digits must be an integer from 0 to 15; got {digits!r}")
        labels = self.labels()
        sep = "," if len(self.runs) > 26 else ""
        rows = [["#", "run", *self.measures]]
        marks = {m: self.beats(m) for m in self.measures}
        for label, run in zip(labels, self.runs, strict=True):
            cells = [label, run]
            for m in self.measures:
                value = self.mean[run][m]
                text = "-" if math.isnan(value) else (
                    f"{value:.0f}" if m.startswith("num_") else f"{value:.{digits}f}")
                beaten = [labels[self.runs.index(r)] for r in marks[m][run]]
                cells.append(text + ("^" + sep.join(beaten) if beaten else ""))
            rows.append(cells)
        widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
                 for r in rows]
        key = f"x^{labels[1]}: significantly above run {labels[1]}; {self.describe()}"
        lines += textwrap.wrap(key, 88, break_on_hyphens=False)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def rows(self) -> list[dict[str, Any]]:
        """One dict per measure and pair: the runs, their means over the paired
        queries, the difference, how many queries each wins, ties and loses, the
        p-values and whether the difference is significant."""
        out = []
        for m in self.measures:
            ok = self._defined(m)
            for j, (a, b) in enumerate(self.pairs):
                va, vb = self.per_query[a][m][ok], self.per_query[b][m][ok]
                out.append({
                    "measure": m, "run_a": a, "run_b": b,
                    "mean_a": self.mean[a][m], "mean_b": self.mean[b][m],
                    "difference": self.mean[a][m] - self.mean[b][m],
                    "queries": int(ok.sum()), "wins": int((va > vb).sum()),
                    "ties": int((va == vb).sum()), "losses": int((va < vb).sum()),
                    "p_value": float(self.p_value[m][j]),
                    "p_corrected": float(self.p_corrected[m][j]),
                    "significant": bool(self.significant[m][j]),
                })
        return out

    def _defined(self, measure: str) -> np.ndarray:
        """Where ``measure`` is defined for every run, on ``queries``."""
        ok = np.ones(self.queries.shape[0], bool)
        for run in self.runs:
            ok &= ~np.isnan(self.per_query[run][measure])
        return ok

    def to_dict(self) -> dict[str, Any]:
        """Plain lists, dicts and numbers (JSON-ready): the runs, measures, queries,
        means, the settings and :meth:`rows` as ``"comparisons"``."""
        return {
            "runs": list(self.runs), "measures": list(self.measures),
            "queries": self.queries.tolist(),
            "mean": {r: dict(v) for r, v in self.mean.items()},
            "test": self.test, "correction": self.correction, "alpha": self.alpha,
            "n_permutations": self.n_permutations, "seed": self.seed,
            "comparisons": self.rows(),
        }

    def to_frame(self) -> Any:
        """:meth:`rows` as a pandas DataFrame (pandas imported now)."""
        pd = require("pandas", "comparison tables")
        return pd.DataFrame(self.rows())

    def plot(self, measure: str, run_a: str | None = None, run_b: str | None = None, *,
             path: str | os.PathLike[str] | None = None, width: float = 8.0,
             height: float = 4.0, dpi: float = 100) -> Figure:
        """Draw each query's difference ``run_a - run_b`` on ``measure`` as a bar,
        sorted from the largest gain to the largest loss.

        Parameters
        ----------
        measure : str
        run_a, run_b : str, optional
            Default: the first pair compared (the two runs, when there are two).
        path : str or path-like, optional
            Also save the figure there (.png, .svg or .pdf).
        width, height, dpi : float
            Size in inches and resolution.

        Returns
        -------
        matplotlib.figure.Figure
            One axes with one bar per query where the measure is defined.
        """
        from ..plots import check_path

        measure = self._measure(measure)
        if (run_a is None) != (run_b is None):
            raise ValueError("give both run_a and run_b, or neither")
        if run_a is None or run_b is None:
            run_a, run_b = self.pairs[0]
        for run in (run_a, run_b):
            if run not in self.runs:
                raise ValueError(f"unknown run {run!r}; the runs are {', '.join(self.runs)}")
        if run_a == run_b:
            raise ValueError("run_a and run_b must differ")
        fmt = check_path(path) if path is not None else None
        for name, value in (("dpi", dpi), ("width", width), ("height", height)):
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number; got {value!r}")
        figure_mod = require("matplotlib.figure", "plots")
        ok = self._defined(measure)
        diff = self.per_query[run_a][measure][ok] - self.per_query[run_b][measure][ok]
        order = np.argsort(-diff, kind="stable")
        diff = diff[order]
        fig: Figure = figure_mod.Figure(figsize=(width, height), dpi=dpi, layout="constrained")
        ax = fig.subplots()
        colors = np.where(diff > 0, "tab:blue", np.where(diff < 0, "tab:red", "tab:gray"))
        ax.bar(np.arange(diff.shape[0]), diff, width=1.0 if diff.shape[0] > 50 else 0.8,
               color=colors.tolist(), linewidth=0)
        ax.axhline(0.0, color="black", lw=0.8)
        pair = (run_a, run_b) if (run_a, run_b) in self.pairs else (run_b, run_a)
        j = self.pairs.index(pair)
        p, q = self.p_value[measure][j], self.p_corrected[measure][j]
        wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
        note = f"p = {p:.3g}" + ("" if self.correction is None else
                                 f", {CORRECTION_TITLES[self.correction]} {q:.3g}")
        average = float(diff.mean()) if diff.shape[0] else math.nan
        equal = diff.shape[0] - wins - losses
        ax.set_title(f"{measure}: {run_a} - {run_b}\nmean {average:+.4f}; {wins} better, "
                     f"{losses} worse, {equal} equal; {note}", fontsize="medium")
        ax.set_xlabel(f"queries ({diff.shape[0]:,}), by difference")
        ax.set_ylabel(f"{measure} difference")
        ax.set_xlim(-1, max(diff.shape[0], 1))
        if path is not None:
            fig.savefig(path, format=fmt, dpi=dpi)
        return fig


def pairs_of(names: list[str], baseline: str | None) -> list[tuple[str, str]]:
    """Every pair once, in order (a-b, a-c, b-c), or the baseline against each other run."""
    if baseline is None:
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    return [(baseline, other) for other in names if other != baseline]


def compare(evaluate: Callable[..., Any], qrels: Any, runs: Any, measures: Any, *,
            ties: str, test: str, correction: str | None, alpha: float, n_permutations: int,
            seed: int | None, baseline: str | None, options: dict[str, Any]) -> RunComparison:
    """:func:`fastrank.compare_runs`, scoring each run with ``evaluate``."""
    test = check_test(test)
    correction = check_correction(correction)
    alpha = stats.check_level(alpha, "alpha")
    n_permutations = check_count(n_permutations, "n_permutations")
    seed = check_seed(seed)
    named = named_runs(runs)
    names = [name for name, _ in named]
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"baseline must be a run's name; got {baseline!r}")
    pairs = pairs_of(names, baseline)
    judged = ids.triple(qrels, "qrels")  # read once, for every run
    scored = []
    caught: list[warnings.WarningMessage] = []
    for name, run in named:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                scored.append(evaluate(judged, run, measures, ties=ties, **options))
            except ValueError as exc:
                raise ValueError(f"run {name!r}: {exc}") from exc
        caught.extend(seen)
    for message in {str(w.message): w for w in caught}.values():  # each warning once
        warnings.warn(str(message.message), message.category, stacklevel=3)
    common, places = _common([s.queries for s in scored])
    if common.shape[0] == 0:
        raise ValueError("the runs have no evaluated query in common")
    left = max(s.queries.shape[0] for s in scored) - common.shape[0]
    if any(s.queries.shape[0] != common.shape[0] for s in scored):
        warnings.warn(f"the runs are evaluated on different queries: the comparison pairs the "
                      f"{common.shape[0]} every run has, leaving out up to {left} of a run's",
                      UserWarning, stacklevel=3)
    measure_names = tuple(scored[0].per_query)
    per_query = {name: {m: s.per_query[m][at] for m in measure_names}
                 for (name, _), s, at in zip(named, scored, places, strict=True)}
    mean: dict[str, dict[str, float]] = {name: {} for name in names}
    n_queries, p_raw, p_adj, significant = {}, {}, {}, {}
    for m in measure_names:
        values = np.column_stack([per_query[name][m] for name in names])
        ok = ~np.isnan(values).any(axis=1)
        n_queries[m] = int(ok.sum())
        kind = measure_name(m)[0]
        for j, name in enumerate(names):  # as evaluate_run's all row: counts summed,
            mean[name][m] = summary(kind, values[ok, j])  # gm_map's mean geometric
        col = {name: j for j, name in enumerate(names)}
        diffs = np.column_stack([values[ok, col[a]] - values[ok, col[b]] for a, b in pairs])
        if not ok.any():
            p = np.full(len(pairs), math.nan)
        elif test == "randomization":
            p = np.asarray(stats.sign_flip_p(diffs, n_permutations, seed), np.float64)
        elif test == "t":
            p = np.array([stats.paired_t_p(diffs[:, j]) for j in range(len(pairs))])
        else:
            p = np.array([stats.wilcoxon_p(diffs[:, j]) for j in range(len(pairs))])
        if test == "t" and n_queries[m] < 2:
            warnings.warn(f"the t test needs two paired queries or more; {m} has "
                          f"{n_queries[m]}: its p-values are NaN", UserWarning, stacklevel=3)
        p_raw[m] = p
        p_adj[m] = stats.adjust_p(p, correction)
        significant[m] = p_adj[m] <= alpha  # NaN: False
    return RunComparison(tuple(names), measure_names, common, per_query, mean, n_queries,
                         tuple(pairs), p_raw, p_adj, significant, test, correction, alpha,
                         n_permutations, seed)
