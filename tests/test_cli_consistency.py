"""The command line's output is consistent: missing ids refused, one row order,
integer counts, one set of column names per kind of format, usage errors from
the command that has the option, the demo's options without ``demo``, sensible
time precision, and no heavy imports where nothing needs them."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastrank
import fastrank.cli as cli
import fastrank.readers as readers
from fastrank.cli import main
from fastrank.tables import HEADERS, format_table


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def table_header(out: str) -> list[str]:
    """The headers of an aligned table (separated by two or more spaces)."""
    return re.split(r"\s{2,}", out.splitlines()[0].strip())


@pytest.fixture(params=["csv module", "pandas"])
def reader(request, monkeypatch):
    """Run a test on both CSV paths: the csv module (small files) and pandas."""
    if request.param == "pandas":
        pytest.importorskip("pandas")
        monkeypatch.setattr(readers, "PANDAS_BYTES", 0)
    else:
        monkeypatch.setitem(sys.modules, "pandas", None)
    return request.param


FOLDS = "y,s,fold,user\n1,0.9,0,u9\n0,0.1,0,u9\n1,0.8,{},u1\n0,0.3,1,u1\n1,0.4,1,u5\n0,0.6,1,u5\n"


# -- 1. missing ids ---------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["", "NA", "nan", "NaN", "null"])
def test_a_missing_dataset_id_is_a_data_error(tmp_path, capsys, reader, cell):
    (tmp_path / "p.csv").write_text(FOLDS.format(cell))
    code, out, err = run(["evaluate", "p.csv", "--label", "y", "--score", "s",
                          "--dataset", "fold"], capsys)
    assert code == 1 and out == ""
    assert one_error_line(err).startswith(
        "fastrank: error: p.csv: column 'fold' row 3: missing dataset id")


@pytest.mark.parametrize("cell", ["", "NA", "nan"])
def test_a_missing_group_id_is_a_data_error(tmp_path, capsys, reader, cell):
    (tmp_path / "p.csv").write_text(FOLDS.replace(",u1\n", ",{}\n", 1).format(0, cell))
    for extra in ([], ["--per-group"]):
        code, out, err = run(["evaluate", "p.csv", "--label", "y", "--score", "s",
                              "--group", "user", *extra], capsys)
        assert code == 1 and out == ""
        assert one_error_line(err).startswith(
            "fastrank: error: p.csv: column 'user' row 3: missing group id")


def test_a_missing_id_in_a_binary_file_is_a_data_error(tmp_path, capsys):
    np.savez(tmp_path / "a.npz", y=np.array([1, 0, 1, 0]), s=np.array([0.9, 0.1, 0.8, 0.3]),
             fold=np.array([0.0, 0.0, 1.0, np.nan]))
    code, out, err = run(["evaluate", "a.npz", "--label", "y", "--score", "s",
                          "--dataset", "fold"], capsys)
    assert code == 1 and out == ""
    assert "column 'fold' row 4: missing dataset id" in one_error_line(err)


def test_integer_valued_ids_print_as_integers_and_other_ids_as_they_are(tmp_path, capsys):
    np.savez(tmp_path / "a.npz", y=np.array([1, 0, 1, 0, 1, 0]),
             s=np.array([0.9, 0.1, 0.8, 0.3, 0.4, 0.6]),
             fold=np.array([0.0, 0.0, 2024.0, 2024.0, 1.0, 1.0]),
             split=np.array([0.125, 0.125, 0.5, 0.5, 0.5, 0.5]))
    base = ["evaluate", "a.npz", "--label", "y", "--score", "s"]
    for fmt in ("table", "markdown"):
        code, out, err = run([*base, "--dataset", "fold", "--format", fmt], capsys)
        assert code == 0, err
        cells = [re.split(r"\s*\|\s*|\s{2,}", line.strip().strip("|"))[1]
                 for line in out.splitlines()[1:] if not line.startswith("|---")]
        assert cells == ["0", "2024", "1"], (fmt, out)
        code, out, err = run([*base, "--dataset", "split", "--format", fmt], capsys)
        assert code == 0, err
        assert "0.125 " in out and "0.1250" not in out and "0.5000" not in out.split("\n")[1][:20]
    code, out, _ = run([*base, "--dataset", "fold", "--format", "json"], capsys)
    assert [r["dataset"] for r in json.loads(out)] == [0, 2024, 1]


# -- 2. one row order ------------------------------------------------------------------------


def test_datasets_and_groups_come_in_order_of_first_appearance(tmp_path, capsys, reader):
    (tmp_path / "p.csv").write_text(
        "y,s,fold,user\n"
        "1,0.9,b,u9\n0,0.1,b,u9\n1,0.8,b,u1\n0,0.3,b,u1\n"
        "1,0.4,a,u5\n0,0.6,a,u5\n1,0.7,a,u2\n0,0.2,a,u2\n1,0.5,a,u5\n")
    base = ["evaluate", "p.csv", "--label", "y", "--score", "s", "--format", "csv"]
    code, out, err = run([*base, "--dataset", "fold"], capsys)
    assert code == 0, err
    assert [r["dataset"] for r in csv.DictReader(io.StringIO(out))] == ["b", "a"]
    code, out, err = run([*base, "--dataset", "fold", "--group", "user", "--per-group"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["dataset"], r["group"]) for r in rows] == [
        ("b", "u9"), ("b", "u1"), ("a", "u5"), ("a", "u2")]
    # each group's numbers moved with it
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1])
    s = np.array([0.9, 0.1, 0.8, 0.3, 0.4, 0.6, 0.7, 0.2, 0.5])
    users = np.array(["u9", "u9", "u1", "u1", "u5", "u5", "u2", "u2", "u5"])
    for r in rows:
        mask = users == r["group"]
        assert float(r["average_precision"]) == fastrank.average_precision(y[mask], s[mask])
        assert int(r["positives"]) == y[mask].sum()


def test_integer_groups_come_in_order_of_first_appearance(tmp_path, capsys):
    np.savez(tmp_path / "a.npz", y=np.array([1, 0, 1, 0, 1, 0]),
             s=np.array([0.9, 0.1, 0.8, 0.3, 0.4, 0.6]), q=np.array([30, 30, 10, 10, 20, 20]))
    code, out, err = run(["evaluate", "a.npz", "--label", "y", "--score", "s", "--group", "q",
                          "--per-group", "--format", "json"], capsys)
    assert code == 0, err
    assert [r["group"] for r in json.loads(out)] == [30, 10, 20]


# -- 3. integer counts, column names -------------------------------------------------------


def test_unweighted_counts_are_integers_and_weighted_ones_floats(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(FOLDS.format(0).replace("fold,user", "fold,w")
                                    .replace(",u9", ",0.5").replace(",u1", ",2")
                                    .replace(",u5", ",1.25"))
    base = ["evaluate", "p.csv", "--label", "y", "--score", "s"]
    code, out, err = run([*base, "--format", "csv"], capsys)
    assert code == 0, err
    (row,) = csv.DictReader(io.StringIO(out))
    assert (row["positives"], row["negatives"]) == ("3", "3")
    code, out, _ = run([*base, "--format", "json"], capsys)
    (row,) = json.loads(out)
    assert (row["positives"], row["negatives"]) == (3, 3)
    assert all(type(row[k]) is int for k in ("positives", "negatives"))
    code, out, _ = run([*base, "--weight", "w", "--format", "json"], capsys)
    (row,) = json.loads(out)
    assert (row["positives"], row["negatives"]) == (3.75, 3.75)
    code, out, _ = run([*base, "--weight", "w", "--format", "csv"], capsys)
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["positives"] == "3.75"


def test_grouped_counts_are_integers(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(FOLDS.format(0))
    base = ["evaluate", "p.csv", "--label", "y", "--score", "s", "--group", "user",
            "--format", "json"]
    for extra in ([], ["--per-group"]):
        code, out, err = run([*base, *extra], capsys)
        assert code == 0, err
        for row in json.loads(out):
            assert type(row["positives"]) is int and type(row["negatives"]) is int, row


def test_every_format_has_the_same_columns_in_the_same_order(tmp_path, capsys):
    (tmp_path / "p.csv").write_text(FOLDS.format(0))
    base = ["evaluate", "p.csv", "--label", "y", "--score", "s", "--dataset", "fold",
            "--metrics", *cli.METRIC_COLUMNS]
    names = ["model", "dataset", *cli.METRIC_COLUMNS]
    shown = [HEADERS.get(n, n) for n in names]
    outputs = {}
    for fmt in ("table", "markdown", "csv", "json"):
        code, outputs[fmt], err = run([*base, "--format", fmt], capsys)
        assert code == 0, err
    assert next(csv.reader(io.StringIO(outputs["csv"]))) == names
    assert [list(r) for r in json.loads(outputs["json"])] == [names, names]
    assert table_header(outputs["table"]) == shown
    md = [c.strip() for c in outputs["markdown"].splitlines()[0].strip("|").split("|")]
    assert md == shown
    assert shown[-1] == "PRBE at" and names[-1] == "prbe_threshold"


def test_the_help_documents_the_column_names(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    for name in cli.METRIC_COLUMNS:
        assert name in words
    assert "prbe_threshold (PRBE at)" in words and "average_precision (AP)" in words
    assert "order of first appearance" in words


def test_the_cli_knows_the_columns_and_figure_formats_of_the_library():
    from fastrank.evaluation import SUMMARY_COLUMNS
    from fastrank.plots import SAVE_FORMATS

    assert cli.METRIC_COLUMNS == SUMMARY_COLUMNS
    from fastrank.plots import KINDS, SCALES

    assert cli.PLOT_FORMATS == SAVE_FORMATS
    assert cli.PLOT_KINDS == KINDS and cli.PLOT_SCALES == SCALES
    assert set(cli.DEFAULT_METRICS) <= set(cli.METRIC_COLUMNS)


# -- 4. usage errors from the command's parser; the demo's options without "demo" ----------


@pytest.mark.parametrize(("extra", "message"), [
    (["--plot", "out.txt"], "argument --plot: cannot save a figure as 'out.txt'"),
    (["--per-group"], "--per-group needs --group"),
    (["--metrics", "accuracy"], "unknown metric 'accuracy'"),
    (["--group", "user", "--plot", "x.png"], "--plot draws one curve per model and dataset"),
])
def test_usage_errors_of_evaluate_show_its_usage(tmp_path, capsys, extra, message):
    (tmp_path / "p.csv").write_text(FOLDS.format(0))
    code, out, err = run(["evaluate", "p.csv", "--label", "y", "--score", "s", *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: fastrank evaluate ")
    assert f"fastrank evaluate: error: {message}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--plot", "x.gif"], "argument --plot: cannot save a figure as 'x.gif'"),
    (["demo", "--plot", "x.gif"], "argument --plot: cannot save a figure as 'x.gif'"),
    (["--samples", "0"], "--samples must be positive"),
    (["--format", "yaml"], "argument --format: invalid choice: 'yaml'"),
])
def test_usage_errors_of_the_demo_show_its_usage(capsys, argv, message):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: fastrank demo ")
    assert f"fastrank demo: error: {message}" in err


def test_the_demo_options_work_without_the_word_demo(capsys):
    args = ["--samples", "800", "--seed", "4", "--plot", "", "--format", "csv"]
    code, without, err = run(args, capsys)
    assert code == 0, err
    code, with_demo, err = run(["demo", *args], capsys)
    assert code == 0, err
    strip = [line.rsplit(",", 1)[0] for line in without.splitlines()]  # not the timing column
    assert strip == [line.rsplit(",", 1)[0] for line in with_demo.splitlines()]
    assert len(strip) == 5 and strip[1].startswith("d=0.5,")  # four models, no plot
    positives, negatives = strip[1].split(",")[1:3]
    assert int(positives) + int(negatives) == 800
    assert list(Path.cwd().iterdir()) == []
    code, out, err = run(["--plot=", "--samples=300"], capsys)
    assert code == 0, err
    assert "300 samples" in out


def test_help_and_version_stay_top_level(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: fastrank [-h] [--version]")
    assert "fastrank --samples 10000 --plot ''" in " ".join(out.split())
    for option in ("--version", "--vers"):
        with pytest.raises(SystemExit):
            main([option])
        assert capsys.readouterr().out == f"fastrank {fastrank.__version__}\n"
    code, _, err = run(["bogus"], capsys)
    assert code == 2 and "fastrank: error: argument" in err and "invalid choice: 'bogus'" in err


# -- 6. times -------------------------------------------------------------------------------


def test_times_print_with_three_significant_digits():
    table = {"model": ["a", "b", "c", "d"], "all_metrics_ms": [12.3456, 0.123456, 1234.6, 0.0456]}
    out = format_table(table)
    assert [line.split()[-1] for line in out.splitlines()] == ["ms", "12.3", "0.123", "1,235",
                                                              "0.0456"]
    assert "| 1235 |" in format_table(table, "markdown")
    assert json.loads(format_table(table, "json"))[0]["all_metrics_ms"] == 12.3456  # exact


def test_the_demo_table_prints_times_and_counts_sensibly(capsys):
    code, out, err = run(["demo", "--samples", "200000", "--plot", ""], capsys)
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("d=")]
    assert len(rows) == 4
    for row in rows:
        ms = row.split()[-1]
        digits = ms.replace(",", "").replace(".", "").lstrip("0")
        assert "." not in ms or len(digits) <= 3, ms
        positives = row.replace("d=1.0 rounded", "model").split()[1]
        assert re.fullmatch(r"\d{1,3}(,\d{3})*", positives), row


# -- 5. nothing heavy where nothing needs it -------------------------------------------------


def _python(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


CHECK_LOADED = """
from fastrank._kernels import jit
heavy = sorted(m for m in ("pandas", "matplotlib", "dask", "pyarrow") if m in sys.modules)
loaded = sorted(d.py_func.__name__ for d in jit.SIGNATURES if d.overloads)
print(heavy, loaded)
"""


@pytest.mark.parametrize("argv", [
    ["--version"], ["--help"], ["evaluate", "--help"], ["info", "--help"],
    ["evaluate", "p.csv", "--label", "y", "--score", "s", "--plot", "out.txt"],
    ["evaluate", "p.csv", "--label", "y", "--score", "s", "--dataset", "fold"],  # missing id
    ["evaluate", "missing.csv", "--label", "y", "--score", "s"],
])
def test_no_pandas_matplotlib_or_kernels_where_nothing_needs_them(tmp_path, argv):
    (tmp_path / "p.csv").write_text(FOLDS.format(""))
    code = ("import sys, contextlib, io\nfrom fastrank.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
            + CHECK_LOADED)
    assert _python(code, tmp_path) == "[] []"


def test_a_small_csv_is_evaluated_without_pandas(tmp_path):
    (tmp_path / "p.csv").write_text(FOLDS.format(1))
    code = ("import sys, contextlib, io\nfrom fastrank.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['evaluate', 'p.csv', '--label', 'y', '--score', 's']) == 0\n"
            + CHECK_LOADED)
    heavy, loaded = _python(code, tmp_path).split("] [")
    assert heavy == "[" and loaded != "]"  # no pandas; the kernels it needs, loaded


def test_the_command_line_module_imports_nothing_heavy_itself(tmp_path):
    # Without the package's own imports (fastrank/__init__.py), fastrank.cli imports neither
    # numpy nor numba for --version, --help or a usage error.
    code = f"""
import sys, types, contextlib, io
package = types.ModuleType("fastrank")
package.__path__ = [{str(Path(fastrank.__file__).parent)!r}]
package.__version__ = "9.9"
sys.modules["fastrank"] = package
from fastrank.cli import main
out = io.StringIO()
for argv in (["--version"], ["--help"], ["evaluate", "--help"],
             ["evaluate", "p.csv", "--label", "y", "--score", "s", "--plot", "f.gif"],
             ["evaluate", "p.csv", "--label", "y", "--per-group"]):
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(argv)
        except SystemExit:
            pass
assert "fastrank 9.9" in out.getvalue()
print(sorted(m for m in ("numpy", "numba", "pandas", "matplotlib") if m in sys.modules))
"""
    assert _python(code, tmp_path) == "[]"


def test_the_program_flushes_runs_exit_handlers_and_keeps_the_status(tmp_path):
    # run() (python -m fastrank) ends the process without the interpreter's teardown.
    (tmp_path / "p.csv").write_text(FOLDS.format(""))
    code = ("import atexit, sys\nimport fastrank.cli\n"
            "atexit.register(lambda: print('exit handler ran'))\n"
            "sys.argv = ['fastrank', *sys.argv[1:]]\nfastrank.cli.run()\n")
    for argv, status, out in [
        (["--version"], 0, f"fastrank {fastrank.__version__}\nexit handler ran\n"),
        (["evaluate", "p.csv", "--label", "y", "--score", "s", "--format", "csv"], 0,
         "model,dataset,positives"),
        (["evaluate", "p.csv", "--label", "y", "--score", "s", "--dataset", "fold"], 1,
         "exit handler ran\n"),
        (["--plot", "x.gif"], 2, "exit handler ran\n"),
    ]:
        proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                              text=True, cwd=tmp_path, timeout=300, check=False)
        assert proc.returncode == status, (argv, proc.stderr)
        assert proc.stdout.startswith(out) and proc.stdout.endswith("exit handler ran\n"), argv
        assert "Traceback" not in proc.stderr


def test_plot_without_matplotlib_is_refused_before_reading(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(["evaluate", "missing.csv", "--label", "y", "--score", "s",
                          "--plot", "f.png"], capsys)
    assert code == 1 and out == ""
    assert one_error_line(err).startswith("fastrank: error: --plot needs matplotlib")


def test_a_data_error_with_plot_imports_no_matplotlib(tmp_path):
    (tmp_path / "p.csv").write_text(FOLDS.format(""))
    code = ("import sys\nfrom fastrank.cli import main\n"
            "assert main(['evaluate', 'p.csv', '--label', 'y', '--score', 's', '--dataset', "
            "'fold', '--plot', 'f.png']) == 1\n"
            "print('matplotlib' in sys.modules)")
    assert _python(code, tmp_path) == "False"
    assert not (tmp_path / "f.png").exists()


# -- figures of the command line: their permissions, panels and scale ------------------------


def _small_csv(path: Path) -> Path:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["y", "fold", "a", "b"])
        for i in range(200):
            w.writerow([y[i], i % 2, y[i] + rng.normal(), 3 * y[i] + rng.normal()])
    return path


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_figures_get_the_permissions_of_a_new_file(tmp_path, capsys, umask):
    """The figure was written through mkstemp, so it was owner-only (0600) whatever the
    umask, and overwriting an existing figure tightened its mode too."""
    pytest.importorskip("matplotlib")
    data = _small_csv(tmp_path / "p.csv")
    out = tmp_path / "f.png"
    out.write_bytes(b"old")
    os.chmod(out, 0o644)
    old = os.umask(umask)
    try:
        code, _, err = run(["evaluate", str(data), "--label", "y", "--score", "a", "b",
                            "--plot", str(out)], capsys)
    finally:
        os.umask(old)
    assert code == 0, err
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_plot_kinds_and_scale(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    import fastrank.plots as plots

    data = _small_csv(tmp_path / "p.csv")
    seen = {}
    real = plots.plot_evaluation

    def spy(evaluation, kinds, **kwargs):
        seen["kinds"], seen["scale"] = tuple(kinds), kwargs.get("scale")
        return real(evaluation, kinds, **kwargs)

    monkeypatch.setattr(plots, "plot_evaluation", spy)
    code, _, err = run(["evaluate", str(data), "--label", "y", "--score", "a", "b",
                        "--dataset", "fold", "--plot", str(tmp_path / "f.png"),
                        "--plot-kinds", "roc", "det", "--plot-scale", "logit"], capsys)
    assert code == 0, err
    assert seen == {"kinds": ("roc", "det"), "scale": "logit"}
    code, _, err = run(["evaluate", str(data), "--label", "y", "--score", "a",
                        "--plot", str(tmp_path / "g.png"), "--plot-kinds", "lift"], capsys)
    assert code == 2 and "invalid choice: 'lift'" in err and "fastrank evaluate" in err


def test_a_file_after_score_columns_gets_a_hint(tmp_path, capsys):
    data = _small_csv(tmp_path / "p.csv")
    code, _, err = run(["evaluate", "--label", "y", "--score", "a", "b", str(data)], capsys)
    assert code == 2
    assert "usage: fastrank evaluate FILE --label COL --score COL" in err
    assert (f"required: FILE ({str(data)!r} was read as a --score column: put FILE before "
            "the options, or end the --score list with --)") in " ".join(err.split())
    code, _, err = run(["evaluate", "--label", "y", "--score", "a", "b", "--", str(data)],
                         capsys)
    assert code == 0, err
    code, _, err = run(["evaluate", "--label", "y", "--score", "a"], capsys)
    assert code == 2 and err.rstrip().endswith("required: FILE")


def test_operating_point_columns(tmp_path, capsys):
    data = _small_csv(tmp_path / "p.csv")
    code, out, err = run(["evaluate", str(data), "--label", "y", "--score", "a", "b",
                          "--dataset", "fold", "--at-precision", "0.9", "0.95",
                          "--at-sensitivity", "0.8", "--format", "csv"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0])[-6:] == [
        "recall_at_precision_0.9", "recall_at_precision_0.9_threshold",
        "recall_at_precision_0.95", "recall_at_precision_0.95_threshold",
        "specificity_at_sensitivity_0.8", "specificity_at_sensitivity_0.8_threshold"]
    with open(data, newline="") as f:
        table = list(csv.DictReader(f))
    for row in rows:
        part = [r for r in table if r["fold"] == row["dataset"]]
        y = [int(r["y"]) for r in part]
        s = [float(r[row["model"]]) for r in part]
        for name, bound in (("recall_at_precision", 0.9), ("recall_at_precision", 0.95),
                            ("specificity_at_sensitivity", 0.8)):
            want = getattr(fastrank, name)(y, s, bound)
            key = f"{name}_{bound:g}"
            assert float(row[key]) == want.value and float(row[key + "_threshold"]) == \
                want.threshold
    code, out, _ = run(["evaluate", str(data), "--label", "y", "--score", "a",
                        "--at-specificity", "0.9", "--interpolate"], capsys)
    assert code == 0 and "Se@Sp0.9" in out and "Se@Sp0.9 at" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--at-recall", "1.5"], "argument --at-recall: '1.5' is not in [0, 1]"),
    (["--at-precision", "x"], "argument --at-precision: 'x' is not a number"),
    (["--at-precision", "0.9", "--group", "fold"], "cannot be combined with --group"),
])
def test_operating_point_usage_errors(tmp_path, capsys, extra, message):
    data = _small_csv(tmp_path / "p.csv")
    code, _, err = run(["evaluate", str(data), "--label", "y", "--score", "a", *extra], capsys)
    assert code == 2 and message in " ".join(err.split())


def test_gain_lift_and_partial_area_columns(tmp_path, capsys):
    data = _small_csv(tmp_path / "p.csv")
    code, out, err = run(["evaluate", str(data), "--label", "y", "--score", "a", "b",
                          "--dataset", "fold", "--at-depth", "0.1", "0.25",
                          "--partial-fpr", "0", "0.2", "--mcclish", "--partial-recall", "0.5", "1",
                          "--format", "csv"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0])[-6:] == ["partial_roc_auc", "partial_pr_auc", "gain_0.1", "lift_0.1",
                                  "gain_0.25", "lift_0.25"]
    with open(data, newline="") as f:
        table = list(csv.DictReader(f))
    for row in rows:
        part = [r for r in table if r["fold"] == row["dataset"]]
        y = [int(r["y"]) for r in part]
        s = [float(r[row["model"]]) for r in part]
        assert float(row["partial_roc_auc"]) == pytest.approx(
            fastrank.partial_roc_auc(y, s, fpr=(0, 0.2), correct=True), rel=1e-13)
        assert float(row["partial_pr_auc"]) == pytest.approx(
            fastrank.partial_pr_auc(y, s, recall=(0.5, 1)), rel=1e-13)
        for d in (0.1, 0.25):
            assert float(row[f"gain_{d:g}"]) == fastrank.gain_at_depth(y, s, d)
            assert float(row[f"lift_{d:g}"]) == fastrank.lift_at_depth(y, s, d)
    code, out, _ = run(["evaluate", str(data), "--label", "y", "--score", "a",
                        "--at-depth", "0.1", "--partial-tpr", "0.8", "1"], capsys)
    assert code == 0 and "Gain@0.1" in out and "Lift@0.1" in out and "pAUC" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--at-depth", "0.1", "--group", "fold"], "cannot be combined with --group"),
    (["--partial-fpr", "0", "0.1", "--group", "fold"], "cannot be combined with --group"),
    (["--mcclish"], "--mcclish standardises the partial ROC area"),
    (["--partial-fpr", "0.3", "0.1"], "--partial-fpr needs LO < HI; got 0.3 0.1"),
    (["--partial-recall", "0.5"], "argument --partial-recall: expected 2 arguments"),
    (["--at-depth", "2"], "argument --at-depth: '2' is not in [0, 1]"),
])
def test_gain_and_partial_usage_errors(tmp_path, capsys, extra, message):
    data = _small_csv(tmp_path / "p.csv")
    code, _, err = run(["evaluate", str(data), "--label", "y", "--score", "a", *extra], capsys)
    assert code == 2 and message in " ".join(err.split()), err
