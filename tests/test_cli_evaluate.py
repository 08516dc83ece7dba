"""The ``fastrank`` command line end to end: ``fastrank evaluate FILE ...`` and ``fastrank demo``.

Input files are written here (CSV with the csv module, Parquet with pandas and
pyarrow, .npz/.npy with numpy); every number the command prints is compared
with the library's own functions called on the same data in this process.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastrank
from fastrank.cli import main

DEFAULT_METRICS = [
    "positives",
    "negatives",
    "average_precision",
    "roc_auc",
    "pr_auc",
    "d_prime",
    "prbe",
]
ALL_METRICS = [
    "positives",
    "negatives",
    "average_precision",
    "average_precision_expected",
    "roc_auc",
    "pr_auc",
    "d_prime",
    "prbe",
    "prbe_threshold",
]
GROUPED_METRICS = ["average_precision", "roc_auc", "pr_auc", "d_prime", "prbe"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ERROR_PREFIX = "fastrank: error: "
DEMO_MODELS = ("d=0.5", "d=1.0", "d=2.0", "d=1.0 rounded")


# ------------------------------------------------------------------------------ helpers


def make_data(n: int = 200, seed: int = 0, prevalence: float = 0.35):
    """Labels (int 0/1, both classes), two models' scores (one with ties) and weights."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(np.int64)
    y[:2] = (1, 0)
    alpha = np.round(rng.standard_normal(n) + 1.2 * y, 2)  # ties
    beta = rng.standard_normal(n) + 0.4 * y
    w = np.round(rng.uniform(0.2, 3.0, n), 3)
    return y, {"alpha": alpha, "beta": beta}, w


def write_csv(path: Path, header, rows) -> Path:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def data_csv(path: Path, y, scores, extra=None) -> Path:
    """``label``, the score columns and any ``extra`` columns; floats written with repr."""
    columns = {"label": [str(int(v)) for v in y]}
    columns.update({k: [repr(float(v)) for v in s] for k, s in scores.items()})
    for k, v in (extra or {}).items():
        columns[k] = [x if isinstance(x, str) else repr(float(x)) for x in v]
    header = list(columns)
    rows = list(zip(*(columns[k] for k in header), strict=True))
    return write_csv(path, header, rows)


def run_cli(argv, capsys):
    """In-process run: (exit code, stdout, stderr); argparse's SystemExit gives its code."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # usage errors may exit through argparse
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_sub(args, cwd, timeout=120, env=None):
    return subprocess.run(
        [sys.executable, "-m", "fastrank", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def parse_csv(out: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.reader(io.StringIO(out))
    rows = [r for r in reader if r]
    header, body = rows[0], rows[1:]
    for r in body:
        assert len(r) == len(header), (header, r)
    return header, [dict(zip(header, r, strict=True)) for r in body]


def num(cell) -> float:
    if cell is None:  # JSON null
        return math.nan
    return float(cell)


def same(actual, expected) -> bool:
    """Exact equality, NaN equal to NaN (None as NaN)."""
    expected = math.nan if expected is None else float(expected)
    a = num(actual)
    if math.isnan(expected):
        return math.isnan(a)
    return a == expected


def expected_row(metrics: fastrank.BinaryMetrics, columns) -> dict[str, float]:
    return {c: getattr(metrics, c) for c in columns}


def assert_row(row, metrics, columns):
    for c in columns:
        value = getattr(metrics, c)
        assert same(row[c], value), (row["model"], c, row[c], value)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def assert_roc_pr_png(path: Path) -> None:
    """A valid PNG with the (2 * 5) x 4.5 aspect of the default ROC+PR figure."""
    w, h = png_size(path)
    assert w > 100 and h > 100
    assert abs(w * 4.5 - h * 10.0) <= 10.0 + 0.01 * w, (w, h)


def assert_one_error_line(err: str, *words: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(ERROR_PREFIX), line
    for w in words:
        assert w in line, (w, line)
    return line


def has_row(line: str, row: int) -> bool:
    return re.search(rf"\brow\D{{0,3}}{row}(?!\d)", line, re.IGNORECASE) is not None


def floats_in(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", line)]


# ------------------------------------------------------------------------------ CSV, end to end


def test_subprocess_csv_with_datasets_and_plot(tmp_path):
    """The whole pipeline in a real process: datasets split in first-appearance order,
    exact repr floats, a PNG written, nothing on stderr."""
    y, scores, _ = make_data(240, seed=1)
    folds = np.array(["b", "a", "c"])[np.arange(240) % 3]
    folds[:6] = ["b", "b", "a", "a", "c", "c"]  # both classes in every fold early on
    y[:6] = [1, 0, 1, 0, 1, 0]
    data_csv(tmp_path / "runs.csv", y, scores, {"fold": list(folds)})
    proc = run_sub(
        ["evaluate", "runs.csv", "--label", "label", "--score", "alpha", "beta",
         "--dataset", "fold", "--format", "csv", "--plot", "curves.png"],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == ""
    header, rows = parse_csv(proc.stdout)
    assert header == ["model", "dataset", *DEFAULT_METRICS]
    order = [(r["model"], r["dataset"]) for r in rows]
    assert order == [(m, d) for m in ("alpha", "beta") for d in ("b", "a", "c")]
    for r in rows:
        mask = folds == r["dataset"]
        m = fastrank.all_metrics(y[mask], scores[r["model"]][mask])
        assert_row(r, m, DEFAULT_METRICS)
    assert_roc_pr_png(tmp_path / "curves.png")


def test_csv_default_dataset_is_file_stem_and_json_matches(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(150, seed=2)
    data_csv(tmp_path / "scores.csv", y, scores)
    code, out, err = run_cli(
        ["evaluate", "scores.csv", "--label", "label", "--score", "beta", "alpha",
         "--format", "json"],
        capsys,
    )
    assert code == 0, err
    rows = json.loads(out)
    assert isinstance(rows, list) and len(rows) == 2
    assert [r["model"] for r in rows] == ["beta", "alpha"]  # --score order
    for r in rows:
        assert r["dataset"] == "scores"
        assert list(r) == ["model", "dataset", *DEFAULT_METRICS]
        assert_row(r, fastrank.all_metrics(y, scores[r["model"]]), DEFAULT_METRICS)
        assert isinstance(r["roc_auc"], float)


def test_weights_all_metrics_and_nan_as_null(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, w = make_data(180, seed=3)
    data_csv(tmp_path / "w.csv", y, scores, {"wt": w})
    argv = ["evaluate", "w.csv", "--label", "label", "--score", "alpha", "beta",
            "--weight", "wt", "--metrics", *ALL_METRICS]
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    assert code == 0, err
    rows = json.loads(out)
    for r in rows:
        m = fastrank.all_metrics(y, scores[r["model"]], sample_weight=w)
        assert m.average_precision_expected is None
        assert r["average_precision_expected"] is None  # NaN -> null
        assert_row(r, m, [c for c in ALL_METRICS if c != "average_precision_expected"])
        assert r["positives"] == pytest.approx(w[y == 1].sum(), rel=1e-12)
    # the same in CSV: NaN as a float that parses to nan, the rest exact
    code, out, err = run_cli([*argv, "--format", "csv"], capsys)
    assert code == 0, err
    header, rows = parse_csv(out)
    assert header == ["model", "dataset", *ALL_METRICS]
    for r in rows:
        m = fastrank.all_metrics(y, scores[r["model"]], sample_weight=w)
        assert math.isnan(float(r["average_precision_expected"]))
        assert_row(r, m, [c for c in ALL_METRICS if c != "average_precision_expected"])


def test_unweighted_expected_ap_and_threshold(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(120, seed=4)
    data_csv(tmp_path / "d.csv", y, scores)
    code, out, err = run_cli(
        ["evaluate", "d.csv", "--label", "label", "--score", "alpha", "beta",
         "--metrics", *ALL_METRICS, "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    _, rows = parse_csv(out)
    for r in rows:
        assert_row(r, fastrank.all_metrics(y, scores[r["model"]]), ALL_METRICS)


@pytest.mark.parametrize(
    ("selection", "columns"),
    [
        (["ap", "auc"], ["average_precision", "roc_auc"]),
        (["ap"], ["average_precision"]),
        (["auc", "prbe_threshold"], ["roc_auc", "prbe_threshold"]),
        (["positives", "d_prime"], ["positives", "d_prime"]),
    ],
)
def test_metrics_selection_and_aliases(tmp_path, monkeypatch, capsys, selection, columns):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(100, seed=5)
    data_csv(tmp_path / "d.csv", y, scores)
    code, out, err = run_cli(
        ["evaluate", "d.csv", "--label", "label", "--score", "alpha",
         "--metrics", *selection, "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    header, rows = parse_csv(out)
    assert header == ["model", "dataset", *columns]
    assert len(rows) == 1
    assert_row(rows[0], fastrank.all_metrics(y, scores["alpha"]), columns)


def test_table_and_markdown_formats(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(160, seed=6)
    data_csv(tmp_path / "scorefile.csv", y, scores)
    base = ["evaluate", "scorefile.csv", "--label", "label", "--score", "alpha", "beta"]
    expected = {k: fastrank.all_metrics(y, s) for k, s in scores.items()}

    def check_numbers(line, m):
        found = floats_in(line)
        for c in ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe"):
            v = getattr(m, c)
            assert any(abs(f - v) <= 5.001e-5 for f in found), (c, v, line)

    outputs = {}
    for fmt in (None, "table", "markdown"):
        code, out, err = run_cli([*base] + (["--format", fmt] if fmt else []), capsys)
        assert code == 0, err
        outputs[fmt] = out
        lines = [line for line in out.splitlines() if line.strip()]
        header = next(line for line in lines if "model" in line)
        assert "dataset" in header
        for name, m in expected.items():
            hits = [line for line in lines if name in line]
            assert len(hits) == 1, (fmt, name, out)
            check_numbers(hits[0], m)
            assert "scorefile" in hits[0]  # the dataset (file stem)
    assert outputs[None] == outputs["table"]  # table is the default

    md = [line for line in outputs["markdown"].splitlines() if line.strip()]
    table_lines = [line for line in md if line.lstrip().startswith("|")]
    assert len(table_lines) == 4  # header, separator, two rows
    assert "model" in table_lines[0]
    assert re.fullmatch(r"\s*\|(\s*:?-{3,}:?\s*\|)+\s*", table_lines[1]), table_lines[1]
    ncells = {line.strip().count("|") for line in table_lines}
    assert len(ncells) == 1, table_lines
    assert table_lines[0].strip().count("|") == 2 + len(DEFAULT_METRICS) + 1


# ------------------------------------------------------------------------------ other inputs


def test_parquet_with_dataset_and_bool_labels(tmp_path, monkeypatch, capsys):
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    y, scores, w = make_data(210, seed=7)
    fold = np.where(np.arange(210) < 100, "train", "test")
    y[100:102] = (1, 0)
    frame = pd.DataFrame({"y": y.astype(bool), **scores, "part": fold, "w": w})
    frame.to_parquet(tmp_path / "data.parquet")
    frame.to_parquet(tmp_path / "data.pq")
    for name in ("data.parquet", "data.pq"):
        code, out, err = run_cli(
            ["evaluate", name, "--label", "y", "--score", "alpha", "beta",
             "--dataset", "part", "--weight", "w", "--format", "csv"],
            capsys,
        )
        assert code == 0, err
        _, rows = parse_csv(out)
        assert [(r["model"], r["dataset"]) for r in rows] == [
            ("alpha", "train"), ("alpha", "test"), ("beta", "train"), ("beta", "test")
        ]
        for r in rows:
            mask = fold == r["dataset"]
            m = fastrank.all_metrics(
                y[mask].astype(bool), scores[r["model"]][mask], sample_weight=w[mask]
            )
            assert_row(r, m, DEFAULT_METRICS)


def test_npz_columns_int_datasets_and_groups(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(200, seed=8)
    fold = (np.arange(200) % 2).astype(np.int64)
    y[:4] = (1, 1, 0, 0)
    np.savez(tmp_path / "arrays.npz", target=y, **scores, fold=fold)
    code, out, err = run_cli(
        ["evaluate", "arrays.npz", "--label", "target", "--score", "alpha", "beta",
         "--dataset", "fold", "--format", "json"],
        capsys,
    )
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["model"], str(r["dataset"])) for r in rows] == [
        ("alpha", "0"), ("alpha", "1"), ("beta", "0"), ("beta", "1")
    ]
    for r in rows:
        mask = fold == int(r["dataset"])
        assert_row(r, fastrank.all_metrics(y[mask], scores[r["model"]][mask]), DEFAULT_METRICS)


def test_npy_structured(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, w = make_data(130, seed=9)
    arr = np.zeros(130, dtype=[("label", "i1"), ("score", "f8"), ("w", "f8")])
    arr["label"], arr["score"], arr["w"] = y, scores["beta"], w
    np.save(tmp_path / "table.npy", arr)
    code, out, err = run_cli(
        ["evaluate", "table.npy", "--label", "label", "--score", "score", "--weight", "w",
         "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    _, rows = parse_csv(out)
    assert len(rows) == 1
    assert rows[0]["model"] == "score" and rows[0]["dataset"] == "table"
    assert_row(rows[0], fastrank.all_metrics(y, scores["beta"], sample_weight=w), DEFAULT_METRICS)


def test_npy_two_dimensional(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(140, seed=10)
    arr = np.column_stack([y.astype(np.float64), scores["alpha"], scores["beta"]])
    np.save(tmp_path / "matrix.npy", arr)
    code, out, err = run_cli(
        ["evaluate", "matrix.npy", "--label", "0", "--score", "1", "2", "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    _, rows = parse_csv(out)
    assert [r["model"] for r in rows] == ["1", "2"]
    assert_row(rows[0], fastrank.all_metrics(y, scores["alpha"]), DEFAULT_METRICS)
    assert_row(rows[1], fastrank.all_metrics(y, scores["beta"]), DEFAULT_METRICS)


# ------------------------------------------------------------------------------ labels


@pytest.mark.parametrize(
    ("pos", "neg"), [("1", "0"), ("1", "-1"), ("true", "false")]
)
def test_standard_labels_need_no_pos_label(tmp_path, monkeypatch, capsys, pos, neg):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(90, seed=11)
    text = np.where(y == 1, pos, neg)
    rows = zip(text, (repr(float(v)) for v in scores["beta"]), strict=True)
    write_csv(tmp_path / "d.csv", ["label", "s"], rows)
    code, out, err = run_cli(
        ["evaluate", "d.csv", "--label", "label", "--score", "s", "--format", "csv"], capsys
    )
    assert code == 0, err
    _, rows = parse_csv(out)
    assert_row(rows[0], fastrank.all_metrics(y, scores["beta"]), DEFAULT_METRICS)


def test_string_labels_with_pos_label(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(110, seed=12)
    text = np.where(y == 1, "spam", "ham")
    rows = zip(text, (repr(float(v)) for v in scores["alpha"]), strict=True)
    write_csv(tmp_path / "mail.csv", ["kind", "s"], rows)
    base = ["evaluate", "mail.csv", "--label", "kind", "--score", "s", "--format", "csv"]
    for pos, truth in (("spam", y == 1), ("ham", y == 0)):
        code, out, err = run_cli([*base, "--pos-label", pos], capsys)
        assert code == 0, err
        _, rows = parse_csv(out)
        assert_row(rows[0], fastrank.all_metrics(truth, scores["alpha"]), DEFAULT_METRICS)
    # two values that are not {0,1}, {-1,1} or booleans: --pos-label is needed
    code, out, err = run_cli(base, capsys)
    assert code == 1
    assert out == ""
    assert_one_error_line(err, "mail.csv", "kind")


def test_pos_label_with_three_values(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(13)
    animals = np.array(["cat", "dog", "bird"])[rng.integers(0, 3, 150)]
    animals[:3] = ["cat", "dog", "bird"]
    s = np.round(rng.standard_normal(150) + (animals == "cat"), 2)
    rows = zip(animals, (repr(float(v)) for v in s), strict=True)
    write_csv(tmp_path / "zoo.csv", ["animal", "score"], rows)
    base = ["evaluate", "zoo.csv", "--label", "animal", "--score", "score"]
    code, out, err = run_cli([*base, "--pos-label", "cat", "--format", "csv"], capsys)
    assert code == 0, err
    _, rows = parse_csv(out)
    assert_row(rows[0], fastrank.all_metrics(animals == "cat", s), DEFAULT_METRICS)
    # more than two values and no --pos-label: a data error naming the column
    code, out, err = run_cli(base, capsys)
    assert code == 1 and out == ""
    assert_one_error_line(err, "zoo.csv", "animal")
    # a --pos-label value that is not in the column
    code, out, err = run_cli([*base, "--pos-label", "fish"], capsys)
    assert code == 1 and out == ""
    assert_one_error_line(err, "zoo.csv", "animal")


def test_numeric_pos_label_compared_as_number(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(100, seed=14)
    labels = np.where(y == 1, 2, 1).astype(np.int64)  # classes 1 and 2
    np.savez(tmp_path / "c.npz", cls=labels, s=scores["beta"])
    base = ["evaluate", "c.npz", "--label", "cls", "--score", "s", "--format", "csv"]
    expected = fastrank.all_metrics(y, scores["beta"])
    for pos in ("2", "2.0"):
        code, out, err = run_cli([*base, "--pos-label", pos], capsys)
        assert code == 0, (pos, err)
        _, rows = parse_csv(out)
        assert_row(rows[0], expected, DEFAULT_METRICS)
    code, _, err = run_cli(base, capsys)  # {1, 2} is not a standard pair
    assert code == 1
    assert_one_error_line(err, "c.npz", "cls")
    code, _, err = run_cli([*base, "--pos-label", "3"], capsys)
    assert code == 1
    assert_one_error_line(err, "c.npz", "cls")


# ------------------------------------------------------------------------------ groups


def _grouped_data(n=240, seed=15):
    y, scores, _ = make_data(n, seed=seed)
    rng = np.random.default_rng(seed + 100)
    groups = np.array(["q1", "q2", "q3", "q4"])[rng.integers(0, 4, n)]
    groups[:8] = ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"]
    y[:8] = [1, 0, 1, 0, 1, 0, 1, 0]
    parts = np.where(np.arange(n) < n // 2, "first", "second")
    groups[n // 2 : n // 2 + 8] = groups[:8]
    y[n // 2 : n // 2 + 8] = y[:8]
    return y, scores, groups, parts


def test_group_macro_means(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, groups, _ = _grouped_data()
    data_csv(tmp_path / "g.csv", y, scores, {"query": list(groups)})
    code, out, err = run_cli(
        ["evaluate", "g.csv", "--label", "label", "--score", "alpha", "beta",
         "--group", "query", "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    header, rows = parse_csv(out)
    assert header == ["model", "dataset", "groups", *DEFAULT_METRICS]
    assert [r["model"] for r in rows] == ["alpha", "beta"]
    for r in rows:
        s = scores[r["model"]]
        assert num(r["groups"]) == 4
        assert num(r["positives"]) == y.sum()
        assert num(r["negatives"]) == (1 - y).sum()
        for metric in GROUPED_METRICS:
            expected = getattr(fastrank, metric)(y, s, groups=groups)
            assert same(r[metric], expected), (r["model"], metric, r[metric], expected)


def test_per_group_rows_with_datasets(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, groups, parts = _grouped_data(seed=16)
    data_csv(tmp_path / "g.csv", y, scores, {"query": list(groups), "part": list(parts)})
    code, out, err = run_cli(
        ["evaluate", "g.csv", "--label", "label", "--score", "alpha", "beta",
         "--group", "query", "--dataset", "part", "--per-group", "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    header, rows = parse_csv(out)
    assert header == ["model", "dataset", "group", *DEFAULT_METRICS]
    assert len(rows) == 2 * 2 * 4
    blocks = []
    for r in rows:
        key = (r["dataset"], r["model"])
        if not blocks or blocks[-1] != key:
            blocks.append(key)
    assert blocks == [(d, m) for m in ("alpha", "beta") for d in ("first", "second")]
    got = {(r["model"], r["dataset"], r["group"]): r for r in rows}
    for part in ("first", "second"):
        mask = parts == part
        for model, s in scores.items():
            results = {
                metric: getattr(fastrank, metric)(
                    y[mask], s[mask], groups=groups[mask], average=None
                )
                for metric in GROUPED_METRICS
            }
            ref = results["roc_auc"]
            assert len(ref.groups) == 4
            for i, g in enumerate(ref.groups):
                r = got[(model, part, str(g))]
                assert same(r["positives"], ref.positives[i])
                assert same(r["negatives"], ref.negatives[i])
                for metric, res in results.items():
                    assert str(res.groups[i]) == str(g)
                    assert same(r[metric], res.values[i]), (model, part, g, metric)


def test_group_with_metric_selection_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, groups, _ = _grouped_data(seed=17)
    data_csv(tmp_path / "g.csv", y, scores, {"query": list(groups)})
    code, out, err = run_cli(
        ["evaluate", "g.csv", "--label", "label", "--score", "beta",
         "--group", "query", "--metrics", "auc", "ap", "--format", "json"],
        capsys,
    )
    assert code == 0, err
    (row,) = json.loads(out)
    assert set(row) == {"model", "dataset", "groups", "roc_auc", "average_precision"}
    assert row["groups"] == 4
    assert same(row["roc_auc"], fastrank.roc_auc(y, scores["beta"], groups=groups))
    assert same(
        row["average_precision"], fastrank.average_precision(y, scores["beta"], groups=groups)
    )


# ------------------------------------------------------------------------------ plots


@pytest.mark.parametrize("name", ["curves.svg", "curves.pdf", "curves.png"])
def test_plot_formats(tmp_path, monkeypatch, capsys, name):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(120, seed=18)
    data_csv(tmp_path / "d.csv", y, scores)
    code, out, err = run_cli(
        ["evaluate", "d.csv", "--label", "label", "--score", "alpha", "beta",
         "--plot", name, "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    _, rows = parse_csv(out)  # the plot does not pollute stdout
    assert len(rows) == 2
    data = (tmp_path / name).read_bytes()
    if name.endswith(".svg"):
        assert data.lstrip()[:300].startswith((b"<?xml", b"<svg"))
        assert b"<svg" in data
    elif name.endswith(".pdf"):
        assert data[:5] == b"%PDF-"
    else:
        assert_roc_pr_png(tmp_path / name)


# ------------------------------------------------------------------------------ progress


def test_subprocess_progress_goes_to_stderr(tmp_path):
    y, scores, _ = make_data(20_000, seed=19)
    folds = np.array(["f1", "f2", "f3"])[np.arange(20_000) % 3]
    data_csv(tmp_path / "big.csv", y, scores, {"fold": list(folds)})
    base = ["evaluate", "big.csv", "--label", "label", "--score", "alpha", "beta",
            "--dataset", "fold", "--format", "csv"]
    proc = run_sub([*base, "--progress"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip(), "--progress printed nothing on stderr"
    assert ERROR_PREFIX not in proc.stderr
    header, rows = parse_csv(proc.stdout)
    assert header == ["model", "dataset", *DEFAULT_METRICS]
    assert len(rows) == 6
    for r in rows:
        mask = folds == r["dataset"]
        assert_row(r, fastrank.all_metrics(y[mask], scores[r["model"]][mask]), DEFAULT_METRICS)


def test_no_progress_is_silent(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(100, seed=20)
    data_csv(tmp_path / "d.csv", y, scores)
    for extra in ([], ["--no-progress"]):
        code, out, err = run_cli(
            ["evaluate", "d.csv", "--label", "label", "--score", "alpha", "--format", "csv",
             *extra],
            capsys,
        )
        assert code == 0
        assert err == ""
        assert len(parse_csv(out)[1]) == 1


# ------------------------------------------------------------------------------ usage errors (2)


@pytest.mark.parametrize(
    "args",
    [
        ["--score", "alpha"],  # no --label
        ["--label", "label"],  # no --score
        ["--label", "label", "--score", "alpha", "--bogus"],
        ["--label", "label", "--score", "alpha", "--format", "xml"],
        ["--label", "label", "--score", "alpha", "--metrics", "accuracy"],
        ["--label", "label", "--score", "alpha", "--metrics", "ap", "nonsense"],
        ["--label", "label", "--score", "alpha", "--plot", "out.gif"],
        ["--label", "label", "--score", "alpha", "--plot", "out"],
    ],
)
def test_usage_errors_exit_2(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    y, scores, _ = make_data(50, seed=21)
    data_csv(tmp_path / "d.csv", y, scores)
    code, out, err = run_cli(["evaluate", "d.csv", *args], capsys)
    assert code == 2, (code, err)
    assert "Traceback" not in err
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_bad_plot_extension_is_checked_before_reading(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _out, err = run_cli(
        ["evaluate", "missing.csv", "--label", "y", "--score", "s", "--plot", "out.jpg"], capsys
    )
    assert code == 2, err
    assert list(tmp_path.iterdir()) == []


def test_subprocess_usage_error(tmp_path):
    proc = run_sub(["evaluate", "whatever.csv", "--score", "s"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "usage" in proc.stderr.lower()
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


# ------------------------------------------------------------------------------ data errors (1)


def test_subprocess_data_error_one_line_no_traceback_no_plot(tmp_path):
    y, scores, _ = make_data(40, seed=22)
    path = data_csv(tmp_path / "bad.csv", y, scores)
    lines = path.read_text().splitlines()
    cells = lines[3].split(",")  # data row 3
    cells[1] = "oops"  # alpha
    lines[3] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    proc = run_sub(
        ["evaluate", "bad.csv", "--label", "label", "--score", "alpha", "beta",
         "--plot", "fig.png"],
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    line = assert_one_error_line(proc.stderr, "bad.csv", "alpha", "oops")
    assert has_row(line, 3), line
    assert not (tmp_path / "fig.png").exists()


def _bad_csv(tmp_path, row_index, column, value, name="bad.csv"):
    """A 12-row data CSV with ``value`` in data row ``row_index`` (1-based) of ``column``."""
    y, scores, w = make_data(12, seed=23)
    header = ["label", "alpha", "beta", "wt"]
    rows = [[str(int(a)), repr(float(b)), repr(float(c)), repr(float(d))] for a, b, c, d in
            zip(y, scores["alpha"], scores["beta"], w, strict=True)]
    rows[row_index - 1][header.index(column)] = value
    return write_csv(tmp_path / name, header, rows)


@pytest.mark.parametrize("value", ["nan", "NaN", "", "inf", "-inf"])
def test_undefined_score_value(tmp_path, monkeypatch, capsys, value):
    monkeypatch.chdir(tmp_path)
    _bad_csv(tmp_path, 5, "beta", value)
    code, out, err = run_cli(
        ["evaluate", "bad.csv", "--label", "label", "--score", "alpha", "beta",
         "--plot", "p.png"],
        capsys,
    )
    assert code == 1
    assert out == ""
    line = assert_one_error_line(err, "bad.csv", "beta")
    assert has_row(line, 5), line
    assert not (tmp_path / "p.png").exists()


def test_non_numeric_score_names_value(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _bad_csv(tmp_path, 7, "alpha", "high")
    code, out, err = run_cli(
        ["evaluate", "bad.csv", "--label", "label", "--score", "alpha", "--format", "json"],
        capsys,
    )
    assert code == 1 and out == ""
    line = assert_one_error_line(err, "bad.csv", "alpha", "high")
    assert has_row(line, 7), line


def test_ragged_csv_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = _bad_csv(tmp_path, 1, "label", "1")
    lines = path.read_text().splitlines()
    lines[4] = ",".join(lines[4].split(",")[:2])  # data row 4 has 2 fields, not 4
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(
        ["evaluate", "bad.csv", "--label", "label", "--score", "alpha", "--plot", "p.png"],
        capsys,
    )
    assert code == 1 and out == ""
    line = assert_one_error_line(err, "bad.csv")
    assert has_row(line, 4), line
    assert not (tmp_path / "p.png").exists()


def test_missing_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        ["evaluate", "nope.csv", "--label", "y", "--score", "s", "--plot", "p.png"], capsys
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "nope.csv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", ["", "label,alpha\n"])
def test_empty_file(tmp_path, monkeypatch, capsys, content):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.csv").write_text(content)
    code, out, err = run_cli(
        ["evaluate", "empty.csv", "--label", "label", "--score", "alpha"], capsys
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "empty.csv")


@pytest.mark.parametrize("option", ["--score", "--label", "--weight", "--dataset", "--group"])
def test_missing_column_lists_available(tmp_path, monkeypatch, capsys, option):
    monkeypatch.chdir(tmp_path)
    _bad_csv(tmp_path, 1, "label", "1")
    argv = {"--score": ["--label", "label", "--score", "alpha", "gamma_missing"],
            "--label": ["--label", "gamma_missing", "--score", "alpha"]}.get(
        option, ["--label", "label", "--score", "alpha", option, "gamma_missing"])
    plot = [] if option == "--group" else ["--plot", "p.png"]  # --plot --group: unspecified
    code, out, err = run_cli(["evaluate", "bad.csv", *argv, *plot], capsys)
    assert code == 1 and out == ""
    assert_one_error_line(err, "bad.csv", "gamma_missing", "label", "alpha", "beta", "wt")
    assert not (tmp_path / "p.png").exists()


def test_npz_columns_of_different_lengths(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    np.savez(tmp_path / "ragged.npz", label=np.array([0, 1] * 5), short_score=np.arange(9.0))
    code, out, err = run_cli(
        ["evaluate", "ragged.npz", "--label", "label", "--score", "short_score"], capsys
    )
    assert code == 1 and out == ""
    line = assert_one_error_line(err, "ragged.npz")
    assert "short_score" in line or "label" in line.removeprefix(ERROR_PREFIX), line


def test_negative_weight_is_a_data_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _bad_csv(tmp_path, 2, "wt", "-1.5")
    code, out, err = run_cli(
        ["evaluate", "bad.csv", "--label", "label", "--score", "alpha", "--weight", "wt"],
        capsys,
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "bad.csv")


def test_corrupt_parquet(tmp_path, monkeypatch, capsys):
    pytest.importorskip("pyarrow")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.parquet").write_bytes(b"this is not parquet at all\n" * 20)
    code, out, err = run_cli(
        ["evaluate", "broken.parquet", "--label", "y", "--score", "s"], capsys
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "broken.parquet")


def test_parquet_without_pyarrow(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.parquet").write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)
    code, out, err = run_cli(
        ["evaluate", "data.parquet", "--label", "y", "--score", "s"], capsys
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "data.parquet", "pip install pyarrow")


# ------------------------------------------------------------------------------ demo


def test_subprocess_demo_with_plot(tmp_path):
    proc = run_sub(["demo", "--samples", "3000", "--plot", "out.png"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for name in DEMO_MODELS:
        assert name in proc.stdout
    assert_roc_pr_png(tmp_path / "out.png")
    assert not (tmp_path / "fastrank-demo.png").exists()


def _demo_csv(out: str):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("model"))
    return parse_csv("\n".join(lines[start:]))


def test_demo_csv_recovers_simulated_quality(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    tables = {}
    for seed in ("1", "1", "2"):
        code, out, err = run_cli(
            ["demo", "--samples", "3000", "--seed", seed, "--format", "csv",
             "--plot", f"demo{seed}.svg"],
            capsys,
        )
        assert code == 0, err
        header, rows = _demo_csv(out)
        assert "model" in header and "roc_auc" in header
        assert [r["model"] for r in rows] == list(DEMO_MODELS)
        for r in rows:
            if "positives" in r and "negatives" in r:
                assert num(r["positives"]) + num(r["negatives"]) == 3000
            d = float(r["model"].split("=")[1].split()[0])
            true_auc = 0.5 * math.erfc(-d / 2.0)
            assert num(r["roc_auc"]) == pytest.approx(true_auc, abs=0.06), r
        keep = {"model", "dataset", *ALL_METRICS}  # not any timing column
        rows = [{k: v for k, v in r.items() if k in keep} for r in rows]
        if seed in tables:
            assert tables[seed] == rows  # same seed, same numbers
        tables[seed] = rows
        assert (tmp_path / f"demo{seed}.svg").exists()
    assert tables["1"] != tables["2"]


def test_demo_without_matplotlib_still_succeeds(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run_cli(["demo", "--samples", "500"], capsys)
    assert code == 0
    assert "matplotlib" in err
    assert "Traceback" not in err
    for name in DEMO_MODELS:
        assert name in out
    assert not (tmp_path / "fastrank-demo.png").exists()


def test_subprocess_plain_fastrank_is_the_demo(tmp_path):
    proc = run_sub([], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for name in DEMO_MODELS:
        assert name in proc.stdout
    assert_roc_pr_png(tmp_path / "fastrank-demo.png")
