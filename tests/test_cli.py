"""The ``fastrank`` command and the built-in example data."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import fastrank
from fastrank.cli import main
from fastrank.datasets import simulated_scores


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """The demo writes its figure to the current directory: keep it out of the checkout."""
    monkeypatch.chdir(tmp_path)


def _rows(out):
    return [line for line in out.splitlines() if line.startswith("d=")]


def test_demo_prints_a_table(capsys):
    assert main(["demo", "--samples", "2000", "--seed", "1", "--plot", ""]) == 0
    out = capsys.readouterr().out
    for name in ("d=0.5", "d=1.0", "d=2.0", "d=1.0 rounded"):
        assert name in out
    assert "2,000 samples" in out
    assert "seed 1" in out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    for column in ("AP", "ROC AUC", "true AUC", "PR AUC", "d'", "PRBE"):
        assert column in header
    # one row per model, every cell a number
    rows = _rows(out)
    assert len(rows) == 4
    for row in rows:
        cells = row.replace("d=1.0 rounded", "model").replace(",", "").split()[1:]
        assert len(cells) == 10
        values = [float(c) for c in cells]
        assert all(np.isfinite(values))


def test_demo_reports_what_fastrank_computes(capsys):
    assert main(["demo", "--samples", "2000", "--seed", "1", "--plot", "", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    y, scores = simulated_scores(2000, seed=1)
    _, rounded = simulated_scores(2000, seed=1, round_decimals=1, separations=(1.0,))
    scores["d=1.0 rounded"] = rounded["d=1.0"]
    assert len(lines) == 1 + len(scores)
    for line in lines[1:]:
        row = dict(zip(header, line.split(","), strict=True))
        s = scores[row["model"]]
        m = fastrank.all_metrics(y, s)
        assert float(row["average_precision"]) == m.average_precision
        assert float(row["average_precision_expected"]) == m.average_precision_expected
        assert float(row["roc_auc"]) == m.roc_auc
        assert float(row["pr_auc"]) == m.pr_auc
        assert float(row["prbe"]) == m.prbe
        assert float(row["positives"]) == y.sum()
        d = float(row["model"].split("=")[1].split()[0])
        assert float(row["true_auc"]) == pytest.approx(
            0.5 * (1 + math.erf(d / 2)), abs=1e-15)


def test_demo_writes_its_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["demo", "--samples", "500"]) == 0
    assert "fastrank-demo.png" in capsys.readouterr().out
    assert (tmp_path / "fastrank-demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_without_matplotlib_still_succeeds(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert main(["demo", "--samples", "500"]) == 0
    captured = capsys.readouterr()
    assert "d=2.0" in captured.out
    assert "pip install matplotlib" in captured.err
    assert not (tmp_path / "fastrank-demo.png").exists()


def test_small_demo(capsys):
    assert main(["demo", "--samples", "50", "--plot", ""]) == 0
    assert "d=0.5" in capsys.readouterr().out


def test_demo_is_the_default_command(monkeypatch):
    # no sub-command means the demo with its defaults (not run: a million samples)
    import fastrank.cli

    calls = []
    monkeypatch.setattr(
        fastrank.cli, "_demo",
        lambda args: calls.append((args.samples, args.seed, args.plot, args.format)) or 0)
    assert main([]) == 0
    assert calls == [(1_000_000, 0, "fastrank-demo.png", "table")]


def test_demo_same_seed_same_numbers(capsys):
    def table():
        assert main(["demo", "--samples", "1000", "--seed", "5", "--plot", ""]) == 0
        # drop the timing column, which varies
        return [line.rsplit(None, 1)[0] for line in _rows(capsys.readouterr().out)]

    assert table() == table()


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code in (0, None)
    out = capsys.readouterr().out
    assert fastrank.__version__ in out
    assert out.strip() == f"fastrank {fastrank.__version__}"


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--samples", "0"],
        ["demo", "--samples", "-5"],
        ["demo", "--samples", "many"],
        ["demo", "--seed", "x"],
        ["bogus"],
        ["demo", "--bogus"],
        ["demo", "--plot", "figure.gif"],
        ["demo", "--format", "yaml"],
    ],
)
def test_bad_arguments_exit_with_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err


def test_samples_must_be_positive_message(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--samples", "0"])
    assert "--samples must be positive" in capsys.readouterr().err


# --------------------------------------------------------------------------- datasets


def test_simulated_scores_deterministic():
    y1, s1 = simulated_scores(500, seed=3, prevalence=0.2)
    y2, s2 = simulated_scores(500, seed=3, prevalence=0.2)
    np.testing.assert_array_equal(y1, y2)
    assert s1.keys() == s2.keys()
    for k in s1:
        np.testing.assert_array_equal(s1[k], s2[k])
    _, s3 = simulated_scores(500, seed=4, prevalence=0.2)
    assert not np.array_equal(s1["d=1.0"], s3["d=1.0"])


def test_simulated_scores_shapes_and_names():
    y, scores = simulated_scores(300, separations=(0.0, 3.0), seed=0)
    assert y.dtype == np.bool_ and y.shape == (300,)
    assert sorted(scores) == ["d=0.0", "d=3.0"]
    for s in scores.values():
        assert s.dtype == np.float64 and s.shape == (300,)
        assert np.all(np.isfinite(s))


def test_simulated_scores_rounding_makes_ties():
    _, raw = simulated_scores(2000, seed=0)
    _, rounded = simulated_scores(2000, seed=0, round_decimals=1)
    assert len(np.unique(rounded["d=1.0"])) < len(np.unique(raw["d=1.0"])) // 10
    np.testing.assert_array_equal(rounded["d=1.0"], np.round(raw["d=1.0"], 1))


def test_simulated_scores_recover_separation():
    y, scores = simulated_scores(20_000, seed=2)
    for d in (0.5, 1.0, 2.0):
        assert fastrank.d_prime(y, scores[f"d={d}"]) == pytest.approx(d, abs=0.15)


@pytest.mark.parametrize("n_samples", [0, -1, -100])
def test_simulated_scores_rejects_bad_n_samples(n_samples):
    with pytest.raises(ValueError, match=r"n_samples"):
        simulated_scores(n_samples)


@pytest.mark.parametrize("prevalence", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_simulated_scores_rejects_bad_prevalence(prevalence):
    with pytest.raises(ValueError, match=r"prevalence"):
        simulated_scores(100, prevalence=prevalence)


# --------------------------------------------------------------------------- python -m


def test_python_dash_m(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    proc = subprocess.run(
        [sys.executable, "-m", "fastrank", "demo", "--samples", "500", "--plot", ""],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "d=2.0" in proc.stdout
    assert "500 samples" in proc.stdout


def test_python_dash_m_version():
    proc = subprocess.run(
        [sys.executable, "-m", "fastrank", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"fastrank {fastrank.__version__}"


# --------------------------------------------------------------------------- evaluate usage


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--group", "g", "--plot", "x.png"], "cannot be combined with --group"),
        (["--per-group"], "--per-group needs --group"),
        (["--metrics", "accuracy"], "unknown metric 'accuracy'"),
    ],
)
def test_evaluate_option_conflicts_are_usage_errors(tmp_path, capsys, extra, message):
    (tmp_path / "p.csv").write_text("y,s,g\n1,0.9,a\n0,0.1,a\n1,0.4,b\n0,0.6,b\n")
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "p.csv", "--label", "y", "--score", "s", *extra])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_evaluate_warns_once_on_stderr_for_one_class_datasets(tmp_path, capsys):
    (tmp_path / "p.csv").write_text("y,s,fold\n1,0.9,1\n0,0.1,1\n1,0.4,2\n1,0.6,2\n")
    assert main(["evaluate", "p.csv", "--label", "y", "--score", "s", "--dataset", "fold",
                 "--format", "csv"]) == 0
    captured = capsys.readouterr()
    warnings_printed = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings_printed) == 1
    assert "without negative samples" in warnings_printed[0]
    rows = captured.out.splitlines()[1:]
    assert rows[0].split(",")[:2] == ["s", "1"] and float(rows[0].split(",")[5]) == 1.0
    assert rows[1].split(",")[5] == "nan"  # roc_auc of the one-class fold
