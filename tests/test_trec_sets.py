"""trec_eval's measures of the sets (``num_*``, ``set_*``, ``utility``), ``map@k``
(``map_cut_k``) and ``Rprec_mult_x`` in :func:`fastrank.evaluate_run`.

Oracles: trec_eval 10's own output (``-q -m all_trec``) on the 14 runs of the TREC
2003 Robust track and on trec_eval's test collection, read from ``../shared/data``
(skipped, saying why, where absent); and the sets counted directly on small random
runs, with every order of the tied documents for the measures that depend on it.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data

COUNTS = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
SETS = [*COUNTS, "set_P", "set_recall", "set_relative_P", "set_F", "set_map", "utility"]
CUTS = [f"map_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
MULTS = [f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)]
NAMES = SETS + CUTS + MULTS


@data.NEEDS_ROBUST
def test_every_robust2003_run_matches_trec_eval_10(tmp_path) -> None:
    """All 14 runs, every query and the all row, in trec_eval's tie order; the
    measures of the sets give the same values under the tie-expected default."""
    assert len(data.RUNS) == 14
    compared = 0
    for name, qrels, run in data.robust_runs(tmp_path):
        want = data.printed(data.robust_printed(name))
        got = fastrank.evaluate_run(qrels, run, NAMES, ties="trec_eval")
        compared += data.compare(got, want, NAMES)
        expected = fastrank.evaluate_run(qrels, run, SETS)
        for m in SETS:
            assert np.array_equal(expected.per_query[m], got.per_query[m]), (name, m)
    assert compared == 14 * 101 * len(NAMES)


@data.NEEDS_TEST
def test_trec_evals_own_test_collection() -> None:
    """``out.test.aq`` (``-q -m all_trec``), ``out.test.a`` (its all rows) and the
    Rprec_mult multiples of ``out.test.meas_params``."""
    got = fastrank.evaluate_run(*data.collection(), [*NAMES, "Rprec_mult_0.35", "Rprec_mult_5.00"],
                                ties="trec_eval")
    want = data.printed(data.collection_printed("out.test.aq"))
    assert data.compare(got, want, NAMES) == 4 * len(NAMES)
    means = data.printed(data.collection_printed("out.test.a"))
    for name in NAMES:
        assert abs(got.mean[name] - float(means[name]["all"])) <= 0.5e-4 + 1e-12, name
    params = data.printed(data.collection_printed("out.test.meas_params"))
    assert data.compare(got, params, ["Rprec_mult_0.35", "Rprec_mult_5.00"]) == 8


def _brute(ranked, grades, n_judged_rel, k, x, none=math.nan):
    """The measures of one ranking (docids) with the query's judgments ``grades``
    (retrieved or not), counted directly; ``none`` where a measure needs a relevant
    document the query lacks (trec_eval's 0 under ties="trec_eval", else NaN)."""
    rel = [grades.get(d, 0) >= 1 for d in ranked]
    ret, rr, R = len(ranked), sum(rel), n_judged_rel
    judged = sum(grades.get(d, -1) >= 0 for d in ranked)  # negative: pooled, not judged
    p, r = rr / ret, (rr / R if R else none)
    out = {"num_ret": ret, "num_rel": R, "num_rel_ret": rr, "num_nonrel_judged_ret": judged - rr,
           "set_P": p if R else none, "set_recall": r,
           "set_relative_P": rr / min(ret, R) if R else none,
           "set_map": p * r, "set_F": (2 * p * r / (p + r) if rr else 0.0) if R else none,
           "utility": rr - (ret - rr)}
    found, ap = 0, 0.0
    for i, hit in enumerate(rel[:k], 1):
        found += hit
        ap += found / i if hit else 0.0
    out[f"map@{k}"] = ap / R if R else none
    cut = math.floor(x * R + 0.9)  # trec_eval's cut-off: x R, up from a tenth over
    out[f"Rprec_mult_{x}"] = (sum(rel[:cut]) / cut if cut else 0.0) if R else none
    return out


@pytest.mark.parametrize("seed", range(40))
def test_small_runs_match_brute_force(seed) -> None:
    """Random small runs with heavy ties, grades -1 .. 2 and judged documents not
    retrieved: the set measures directly; map@k and Rprec_mult_x as the mean over
    every order of the ties (ties="expected") and in trec_eval's order."""
    rng = np.random.default_rng(seed)
    k, x = int(rng.integers(1, 6)), float(rng.choice([0.05, 0.2, 0.5, 0.6, 1.0, 1.6, 2.0]))
    qrels: tuple[list, list, list] = ([], [], [])
    run: tuple[list, list, list] = ([], [], [])
    cases = {}
    for q in range(4):
        n = int(rng.integers(1, 6))
        docs = [f"d{i}" for i in range(n)]
        scores = rng.integers(0, 3, n).astype(float).tolist()
        grades = {d: int(g) for d in docs if (g := rng.integers(-1, 4)) != 3}
        grades.update({f"u{i}": int(rng.integers(0, 3)) for i in range(int(rng.integers(0, 3)))})
        if not grades:
            grades["u9"] = 0
        for d, g in grades.items():
            qrels[0].append(f"q{q}"), qrels[1].append(d), qrels[2].append(g)
        for d, s in zip(docs, scores, strict=True):
            run[0].append(f"q{q}"), run[1].append(d), run[2].append(s)
        cases[f"q{q}"] = (docs, scores, grades)
    names = [*SETS, f"map@{k}", f"map_cut_{k}", f"Rprec_mult_{x}"]
    for ties in ("expected", "trec_eval"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            got = fastrank.evaluate_run(qrels, run, names, ties=ties)
        for j, q in enumerate(got.queries.tolist()):
            docs, scores, grades = cases[q]
            R = sum(g >= 1 for g in grades.values())
            if ties == "trec_eval":
                orders = [sorted(docs, key=lambda d: (scores[docs.index(d)], d), reverse=True)]
            else:
                orders = list({tuple(docs[i] for i in sorted(
                    range(len(docs)), key=lambda i: (-scores[i], perm.index(i))))
                    for perm in itertools.permutations(range(len(docs)))})
            none = 0.0 if ties == "trec_eval" else math.nan
            vals = [_brute(o, grades, R, k, x, none) for o in orders]
            for m in names:
                want = float(np.mean([v[m.replace("map_cut_", "map@")] for v in vals]))
                assert got.per_query[m][j] == pytest.approx(want, rel=1e-12, abs=1e-12,
                                                            nan_ok=True), (seed, ties, q, m)
        for m in COUNTS:
            assert got.mean[m] == got.per_query[m].sum()  # trec_eval's all row: the sum


def test_names_and_bad_names() -> None:
    qrels = (["q"], ["a"], [1])
    run = (["q", "q"], ["a", "b"], [1.0, 0.5])
    got = fastrank.evaluate_run(qrels, run, ["map_cut_1", "map@1", "Rprec_mult_2", "utility"])
    assert got.mean == {"map_cut_1": 1.0, "map@1": 1.0, "Rprec_mult_2": 0.5, "utility": 0.0}
    # trec_eval's cut-off x R: up from a tenth over a whole number, and 0.6 x 5
    # (3.0000000000000004 in doubles) is 3, not 4
    five = (["q"] * 5, list("abcde"), [1] * 5)
    ranked = (["q"] * 5, ["a", "x", "b", "y", "c"], [5.0, 4.0, 3.0, 2.0, 1.0])
    got = fastrank.evaluate_run(five, ranked, ["Rprec_mult_0.60", "Rprec_mult_0.21",
                                               "Rprec_mult_0.22", "Rprec_mult_0.01"])
    assert got.mean == {"Rprec_mult_0.60": 2 / 3, "Rprec_mult_0.21": 1.0,
                        "Rprec_mult_0.22": 1 / 2, "Rprec_mult_0.01": 0.0}
    for name in ("set_F.0.5", "map_cut_0", "Rprec_mult_0", "Rprec_mult_x"):
        with pytest.raises(ValueError, match=r"must|unknown measure") as err:
            fastrank.evaluate_run(qrels, run, [name])
        if "unknown" in str(err.value):
            assert "num_nonrel_judged_ret" in str(err.value) and "Rprec_mult_x" in str(err.value)
    for name in fastrank.trec.MEASURES:  # every listed choice is accepted
        fastrank.evaluate_run(qrels, run, [name.replace("@k", "@3").replace("_x", "_1.5")
                                           .replace("recall_r", "recall_0.5")])


def test_the_command_line_prints_counts_as_trec_eval_does(tmp_path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 z 1\nq2 0 c 1\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 2 t\nq2 Q0 c 1 5 t\n")
    out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                          "-m", "num_ret", "-m", "num_nonrel_judged_ret", "-m", "set_F",
                          "-m", "map_cut_5", "-q"], capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    lines = [[x.strip() for x in line.split("\t")] for line in out.stdout.splitlines()]
    names = ["num_ret", "num_nonrel_judged_ret", "set_F", "map_cut_5"]
    # trec_eval's -q order: query by query, then the all rows
    assert [line[:2] for line in lines] == [[m, q] for q in ("q1", "q2", "all") for m in names]
    value = {(m, q): v for m, q, v in lines}
    assert [value["num_ret", q] for q in ("q1", "q2", "all")] == ["3", "1", "4"]
    assert [value["num_nonrel_judged_ret", q] for q in ("q1", "q2", "all")] == ["1", "0", "1"]
    assert value["set_F", "q1"] == f"{2 * (1 / 3) * 0.5 / (1 / 3 + 0.5):.4f}"
    assert value["map_cut_5", "q1"] == "0.5000"
