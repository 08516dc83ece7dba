"""``fastrank info`` and ``fastrank compile``, strict JSON output, and ``fastrank trec``
with one run (its output unchanged)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba import types

import fastrank
import fastrank.config
from fastrank._kernels import jit
from fastrank.cli import main
from fastrank.tables import format_table


def test_help_lists_info_and_compile(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code in (0, None)
    out = capsys.readouterr().out
    assert "{demo,evaluate,trec,info,compile}" in out
    words = " ".join(out.split())  # the help may wrap at any width
    assert "info print the CPU, SIMD, sorts, threads and kernel cache" in words
    assert "compile compile every kernel variant now" in words


def test_info_prints_show_config(capsys):
    assert main(["info"]) == 0
    captured = capsys.readouterr()
    expected = fastrank.config.config()
    for key in ("fastrank", "cpu", "numpy SIMD", "sort", "threads", "numba threading layer",
                "cache folder", "cached variants", "first calls"):
        assert any(line.startswith(f"{key}:") for line in captured.out.splitlines()), key
    assert f"cache folder: {expected['cache folder']}" in captured.out
    assert f"threads: {expected['threads']}" in captured.out
    assert captured.err == ""


def test_info_in_a_subprocess():
    proc = subprocess.run([sys.executable, "-m", "fastrank", "info"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "declared variants:" in proc.stdout and "float64, int64, uint64:" in proc.stdout


def test_info_takes_no_arguments(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["info", "--bogus"])
    assert exc.value.code == 2


def _add_one(x):
    return x + 1


def test_compile_builds_the_declared_signatures(monkeypatch, capsys):
    fastrank.config._kernels()  # register the real kernels before swapping the table
    tiny = numba.njit(cache=False)(_add_one)
    monkeypatch.setattr(jit, "SIGNATURES", {tiny: [(types.int64,), (types.float64,)]})
    assert main(["compile"]) == 0
    captured = capsys.readouterr()
    assert len(tiny.signatures) == 2
    assert {sig[0] for sig in tiny.signatures} == {types.int64, types.float64}
    (line,) = captured.out.splitlines()
    assert line.startswith("fastrank: 2 kernel variants compiled in ") and line.endswith(" s")
    float(line.split(" in ")[1].removesuffix(" s"))
    assert "compiled 1/2 kernel variants (_add_one)" in captured.err
    assert "compiled 2/2 kernel variants (_add_one)" in captured.err


def test_compile_in_a_subprocess_with_a_warm_cache():
    info = fastrank.config.config()
    if info["cached variants"] < info["declared variants"]:
        pytest.skip("the kernel cache is cold: compiling it all takes a minute")
    proc = subprocess.run([sys.executable, "-m", "fastrank", "compile"], capture_output=True,
                          text=True, timeout=300, check=False, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-2000:]
    (line,) = proc.stdout.splitlines()
    assert line.startswith(f"fastrank: {info['declared variants']} kernel variants compiled in ")
    assert f"{info['declared variants']}/{info['declared variants']}" in proc.stderr


def _strict(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_json_is_strict_with_nan_and_infinities():
    table = {"model": ["a", "b", "c", "d"],
             "d_prime": np.array([np.inf, -np.inf, np.nan, 1.5]),
             "n": np.array([1, 2, 3, 4])}
    rows = _strict(format_table(table, "json"))
    assert [r["d_prime"] for r in rows] == ["inf", "-inf", None, 1.5]
    assert [r["n"] for r in rows] == [1, 2, 3, 4]
    # CSV keeps the values float() reads back.
    lines = format_table(table, "csv").splitlines()[1:]
    values = [float(line.split(",")[1]) for line in lines]
    assert values[:2] == [math.inf, -math.inf] and math.isnan(values[2])
    assert "inf" in format_table(table, "table")


def test_evaluate_json_with_a_perfect_model(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("y,s\n1,0.9\n0,0.1\n1,0.8\n0,0.2\n")
    assert main(["evaluate", str(path), "--label", "y", "--score", "s", "--format", "json"]) == 0
    (row,) = _strict(capsys.readouterr().out)
    assert row["d_prime"] == "inf" and row["roc_auc"] == 1.0
    for fmt in ("table", "markdown", "csv"):
        assert main(["evaluate", str(path), "--label", "y", "--score", "s", "--format", fmt]) == 0
        assert "inf" in capsys.readouterr().out


# One run: the output trec_eval's users read (query by query, then the all rows, as
# trec_eval prints them), unchanged by the comparison of several runs.
# map of q1 (relevant a at 1, c at 3 of 3): (1 + 2/3) / 2; of q2 (b at 2): 1/2.
TREC_QRELS = "q1 0 a 1\nq1 0 c 2\nq2 0 b 1\n"
TREC_RUN = "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 a 1 5 t\nq2 Q0 b 2 4 t\n"
TREC_OUT = {
    "trec": "".join(f"{m:<22}\t{q}\t{v}\n" for m, q, v in (
        ("map", "q1", "0.8333"), ("P_2", "q1", "0.5000"), ("num_ret", "q1", "3"),
        ("map", "q2", "0.5000"), ("P_2", "q2", "0.5000"), ("num_ret", "q2", "2"),
        ("map", "all", "0.6667"), ("P_2", "all", "0.5000"), ("num_ret", "all", "5"))),
    "csv": "query,map,P_2,num_ret\nq1,0.8333333333333333,0.5,3.0\nq2,0.5,0.5,2.0\n"
           "all,0.6666666666666666,0.5,5.0\n",
    "json": '[{"query": "q1", "map": 0.8333333333333333, "P_2": 0.5, "num_ret": 3.0}, '
            '{"query": "q2", "map": 0.5, "P_2": 0.5, "num_ret": 2.0}, '
            '{"query": "all", "map": 0.6666666666666666, "P_2": 0.5, "num_ret": 5.0}]\n',
}


@pytest.mark.parametrize("fmt", sorted(TREC_OUT))
def test_trec_with_one_run_prints_what_it_always_did(tmp_path, capsys, fmt):
    (tmp_path / "qrels").write_text(TREC_QRELS)
    (tmp_path / "run").write_text(TREC_RUN)
    argv = ["trec", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "map", "-m", "P_2",
            "-m", "num_ret", "-q", "--format", fmt]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert out.out == TREC_OUT[fmt] and out.err == ""
    assert main([*argv[:-3], "--format", fmt]) == 0  # without -q: the 'all' rows alone
    text = capsys.readouterr().out
    full = TREC_OUT[fmt]
    if fmt == "trec":
        assert text.splitlines() == [x for x in full.splitlines() if "\tall\t" in x]
    elif fmt == "csv":
        assert text.splitlines() == [full.splitlines()[0], full.splitlines()[-1]]
    else:
        assert json.loads(text) == json.loads(full)[-1:]
