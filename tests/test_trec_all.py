"""Every number ``trec_eval -q -m all_trec`` prints, from one call asking for
``all_trec``: the 14 runs of the TREC 2003 Robust track and trec_eval's own test
collection, read from ``../shared/data`` (skipped, saying why, where absent).

The measures' own tests (test_trec_sets, test_trec_ranked, test_trec_judged) check
each family by name and by brute force; this one checks that the set, its order
and its all rows hold together as trec_eval prints them.
"""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data


def _check(got: fastrank.RunScores, names: list[str], values: dict) -> int:
    assert list(got.mean) == names  # all_trec: trec_eval's names in its order
    compared = 0
    for (m, q), v in values.items():
        mine = got.mean[m] if q == "all" else \
            got.per_query[m][got.queries.tolist().index(q)]
        if "." in v:  # printed with %.4f: within half a unit of its last digit
            assert abs(mine - float(v)) <= 0.5e-4 + 1e-12, (m, q, mine, v)
        else:
            assert mine == int(v), (m, q, mine, v)
        compared += 1
    return compared


@data.NEEDS_ROBUST
def test_all_trec_on_every_robust2003_run(tmp_path) -> None:
    assert len(data.RUNS) == 14
    compared = 0
    for name, qrels, run in data.robust_runs(tmp_path):
        names, values = data.printed_in_order(data.robust_printed(name))
        got = fastrank.evaluate_run(qrels, run, "all_trec", ties="trec_eval")
        compared += _check(got, names, values)
    # 95 names per query and all; num_q, gm_map and gm_bpref in the all row only
    assert compared == 14 * (95 * 101 + 3)


@data.NEEDS_TEST
def test_all_trec_on_trec_evals_test_collection() -> None:
    got = fastrank.evaluate_run(*data.collection(), "all_trec", ties="trec_eval")
    names, values = data.printed_in_order(data.collection_printed("out.test.aq"))
    assert _check(got, names, values) == len(values) > 90 * 4


def test_all_trec_under_expected_ties_leaves_no_closed_form_measures_nan() -> None:
    """G and infAP have no closed form over the orders of these ties: asked through
    all_trec they are NaN with one warning naming them (every other measure given);
    asked by name they raise; on a run without ties they are trec_eval's values."""
    qrels = (["q"] * 4, ["a", "b", "c", "d"], [2, 0, 1, 0])
    tied = (["q"] * 4, ["a", "b", "c", "e"], [1.0, 1.0, 0.5, 0.5])
    with pytest.warns(fastrank.UndefinedMetricWarning, match="infAP, G of all_trec") as rec:
        got = fastrank.evaluate_run(qrels, tied, "all_trec")
    assert len(rec) == 1
    assert math.isnan(got.mean["G"]) and math.isnan(got.mean["infAP"])
    assert all(not math.isnan(v) for k, v in got.mean.items() if k not in ("G", "infAP"))
    for name in ("G", "infAP"):
        with pytest.raises(fastrank.UnsupportedOptionError, match=name):
            fastrank.evaluate_run(qrels, tied, ["all_trec", name])
    distinct = (tied[0], tied[1], [4.0, 3.0, 2.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        every = fastrank.evaluate_run(qrels, distinct, "all_trec")
    exact = fastrank.evaluate_run(qrels, distinct, "all_trec", ties="trec_eval")
    assert every.mean == exact.mean


@data.NEEDS_ROBUST
def test_the_command_prints_trec_evals_layout(tmp_path) -> None:
    """``fastrank trec -q -m all_trec --ties trec_eval`` prints trec_eval's lines in
    its order (query by query, then the all rows, runid first; num_q, gm_map and
    gm_bpref in the all rows only), each value within a unit of trec_eval's last
    printed digit (two roundings of values a few ulps apart, as 0.09375 is), and
    relstring, the per-query string of the first grades, as printed."""
    qrels, run = data.robust_qrels(tmp_path), data.robust_run("InexpC2", tmp_path)
    out = subprocess.run([sys.executable, "-m", "fastrank", "trec", qrels, run,
                          "-q", "-m", "all_trec", "--ties", "trec_eval"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    want = [list(r) for r in data.rows(data.robust_printed("InexpC2"))]
    got = [line.split() for line in out]
    assert [g[:2] for g in got] == [w[:2] for w in want]
    assert sum(g[0] == "relstring" for g in got) == 100
    for g, w in zip(got, want, strict=True):  # both rounded to 4 decimals: a unit apart
        if g[0] in data.TEXT:  # the run's tag and the grades' strings, as trec_eval prints them
            assert g == w
            continue
        assert abs(float(g[2]) - float(w[2])) <= 1e-4 + 1e-12, (g, w)  # at most


def test_the_commands_options_are_evaluate_runs(tmp_path) -> None:
    """-c, -M, -l and -J reach evaluate_run as all_queries, depth, relevance_level and
    judged_only."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq3 0 z 1\n")
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 x 2 2.5 t\nq1 Q0 b 3 2.0 t\nq1 Q0 c 4 1.0 t\n"
                   "q2 Q0 y 1 1.0 t\nq2 Q0 a 2 0.5 t\n")
    names = ["num_q", "num_ret", "P_2", "map", "bpref"]
    for flags, options in (([], {}), (["-c"], {"all_queries": True}),
                           (["-M", "2"], {"depth": 2}), (["-l", "2"], {"relevance_level": 2}),
                           (["-J"], {"judged_only": True}),
                           (["-c", "-M", "3", "-l", "2", "-J"],
                            {"all_queries": True, "depth": 3, "relevance_level": 2,
                             "judged_only": True})):
        out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                              "--ties", "trec_eval", "--format", "json", *flags,
                              *[a for n in names for a in ("-m", n)]],
                             capture_output=True, text=True, check=True).stdout
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
            want = fastrank.evaluate_run(fastrank.read_qrels(str(qrels)),
                                         fastrank.read_run(str(run)), names,
                                         ties="trec_eval", **options).mean
        row = next(r for r in json.loads(out) if r["query"] == "all")
        assert {n: row[n] for n in names} == pytest.approx(want, nan_ok=True), flags
    bad = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                          "-m", "map", "-M", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "-M" in bad.stderr


def test_minus_l_is_read_as_trec_eval_reads_it_and_num_rel_under_minus_c(tmp_path) -> None:
    """trec_eval reads -l with atol (1.5 is 1, 2.9 is 2), and under -c its all row of
    num_rel counts the qrels' lines of a grade above 0 whatever -l (m_num_rel.c
    goes back to the qrels): fastrank's all row summed the queries' num_rel at the
    level (1 where trec_eval 10 prints 3 on this case)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq3 0 z 1\nq3 0 y -1\n")
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 x 2 2.5 t\nq1 Q0 b 3 2.0 t\nq2 Q0 a 2 0.5 t\n")

    def all_row(*flags: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                              "--ties", "trec_eval", "--format", "json", "-m", "num_rel",
                              "-m", "num_rel_ret", *flags],
                             capture_output=True, text=True, check=True).stdout
        return next(r for r in json.loads(out) if r["query"] == "all")

    assert all_row("-l", "1.5") == all_row("-l", "1") != all_row("-l", "2")
    assert all_row("-l", "2.9") == all_row("-l", "2")
    for level in ("0", "1", "2", "3"):  # 4 lines of a grade above 0, whatever -l
        assert all_row("-c", "-l", level)["num_rel"] == 4
    assert all_row("-l", "2")["num_rel"] == 1 and all_row("-l", "0")["num_rel"] == 4
    got = fastrank.evaluate_run(fastrank.read_qrels(str(qrels)), fastrank.read_run(str(run)),
                                ["num_rel"], ties="expected", all_queries=True,
                                relevance_level=2)
    assert got.mean["num_rel"] == 1  # under the other tie rules: the queries' sum


@pytest.mark.parametrize("gz", [False, True])
def test_the_runid_line_is_the_last_lines_tag(tmp_path, gz) -> None:
    """trec_eval prints the tag of the run's last line (blank lines and comments after
    it aside); fastrank printed the first line's."""
    qrels, run = tmp_path / "qrels", tmp_path / ("run.gz" if gz else "run")
    qrels.write_text("q1 0 a 1\nq0 0 b 1\n")
    long = "".join(f"q1 Q0 d{i} 1 {1 / (i + 2)!r} tB\n" for i in range(9000))  # past a block
    text = f"q1 Q0 a 1 2 tA\n{long}q0 Q0 b 1 1 tZ\n\n  \n# the end\n"
    data = text.encode()
    if gz:
        data = gzip.compress(data)
    run.write_bytes(data)
    out = subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                          "--ties", "trec_eval"], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[0].split() == ["runid", "all", "tZ"]
