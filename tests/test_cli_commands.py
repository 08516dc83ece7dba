"""``fastrank info`` and ``fastrank compile``, and strict JSON output."""

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
                "cache folder", "cached variants"):
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
