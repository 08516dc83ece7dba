"""trec_eval's relstring (``fastrank trec -q`` with ``all_trec`` or ``-m relstring``):
each query's first grades as characters, in trec_eval's order, against trec_eval 10's
output on the 14 TREC 2003 Robust runs and its own test collection, and against a
brute-force reading of trec_eval's rule (sort, look up, one character each) on small
runs full of ties, with -J, -M and -c."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastrank._trec.relstrings import relstrings

from .strategies import PROPERTY_SETTINGS

sys.path.insert(0, str(Path(__file__).parent))
import trec_data as data


def _oracle(qrels: list[tuple[str, str, float]], run: list[tuple[str, str, float]],
            qid: str, length: int, judged_only: bool, depth: int | None) -> str:
    grades: dict[tuple[str, str], int] = {}
    for q, d, g in qrels:
        grades.setdefault((q, d), int(g))  # trec_eval's atol: 1.5 is 1, -1.5 is -1
    rows = sorted(((s, d) for q, d, s in run if q == qid),
                  key=lambda r: (r[0], r[1].encode()), reverse=True)  # trec_eval's order
    if depth is not None:  # -M, then -J
        rows = rows[:depth]
    if judged_only:
        rows = [(s, d) for s, d in rows if grades.get((qid, d), -1) >= 0]
    chars = ""
    for _, d in rows[:length]:
        if (qid, d) not in grades:
            chars += "-"
        else:
            g = grades[qid, d]
            chars += "." if g < 0 else ">" if g > 9 else str(g)
    return chars


@PROPERTY_SETTINGS
@given(run=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]),
                              st.sampled_from(["d1", "d2", "d10", "D3", "d3", "e", "ab"]),
                              st.sampled_from([0.0, 1.0, 1.5, -2.0])), min_size=1, max_size=30,
                    unique_by=lambda r: (r[0], r[1])),
       qrels=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]),
                                st.sampled_from(["d1", "d2", "d10", "D3", "e", "zz"]),
                                st.sampled_from([0.0, 1.0, 2.0, 1.5, 12.0, 9.0, -1.0, -2.0,
                                                 -3.0, -1.5])), min_size=1, max_size=20,
                      unique_by=lambda r: (r[0], r[1])),
       length=st.sampled_from([10, 1, 3, 0]), judged_only=st.booleans(),
       depth=st.sampled_from([None, 1, 2, 5]))
def test_relstrings_follow_trec_evals_rule(run, qrels, length, judged_only, depth) -> None:
    wanted = np.array(["q1", "q2", "q3", "q10"])
    arrays = [tuple(np.array(c) for c in zip(*x, strict=True)) for x in (qrels, run)]
    got = relstrings(arrays[0], arrays[1], wanted, length, judged_only, depth)
    want = [_oracle(qrels, run, q, length, judged_only, depth) for q in wanted.tolist()]
    assert got == want


@data.NEEDS_ROBUST
def test_relstrings_of_the_robust_runs_are_trec_evals(tmp_path: Path) -> None:
    compared = 0
    for name, qrels, run in data.robust_runs(tmp_path):
        want = {q: v for m, q, v in data.rows(data.robust_printed(name)) if m == "relstring"}
        queries = np.array(sorted(want))
        got = relstrings(qrels, run, queries)
        assert [f"'{g}'" for g in got] == [want[q] for q in queries.tolist()], name
        compared += len(got)
    assert compared == 1400


@data.NEEDS_TEST
def test_relstrings_of_trec_evals_collection() -> None:
    qrels, run = data.collection()
    want = {q: v for m, q, v in data.rows(data.collection_printed("out.test.aq"))
            if m == "relstring"}
    got = relstrings(qrels, run, np.array(sorted(want)))
    assert [f"'{g}'" for g in got] == [want[q] for q in sorted(want)]
    assert len(got) == 3


def _trec(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 b 12\nq1 0 c -2\nq2 0 a 1\nq3 0 z 1\n")
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 x 2 2.0 t\nq1 Q0 b 3 2.0 t\nq1 Q0 c 4 1.0 t\n"
                   "q2 Q0 y 1 1.0 t\nq2 Q0 a 2 0.5 t\n")
    return subprocess.run([sys.executable, "-m", "fastrank", "trec", str(qrels), str(run),
                           *args], capture_output=True, text=True, check=False)


def test_the_command_prints_relstring_per_query(tmp_path: Path) -> None:
    out = _trec(tmp_path, "-q", "-m", "map", "-m", "relstring.3", "-c").stdout.splitlines()
    lines = [line.split("\t") for line in out]
    strings = [(q, v) for m, q, v in lines if m.strip() == "relstring"]
    assert strings == [("q1", "'2->'"), ("q2", "'-1'"), ("q3", "''")]  # x before b: docid
    assert [m.strip() for m, q, _ in lines if q == "q1"] == ["map", "relstring"]
    assert not any(q == "all" and m.strip() == "relstring" for m, q, _ in lines)
    only = _trec(tmp_path, "-q", "-m", "relstring", "-J").stdout.splitlines()
    assert [line.split("\t")[2] for line in only] == ["'2>'", "'1'"]  # -J: c (-2) gone
    means = _trec(tmp_path, "-m", "all_trec").stdout
    assert "relstring" not in means and "P_1000" in means  # per query only


@pytest.mark.parametrize("args,message", [
    (["-m", "relstring.x", "-q"], "relstring takes one whole number"),
    (["-m", "relstring.-1", "-q"], "relstring takes one whole number")])
def test_bad_relstring_options_are_usage_errors(tmp_path: Path, args: list[str],
                                                message: str) -> None:
    got = _trec(tmp_path, *args)
    assert got.returncode == 2 and message in got.stderr


def test_a_command_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    """A reader that stops early (``| head -1``): no traceback, status 0."""
    _trec(tmp_path)  # writes the files
    with subprocess.Popen([sys.executable, "-m", "fastrank", "trec", str(tmp_path / "qrels"),
                           str(tmp_path / "run"), "-q", "-m", "all_trec"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.read(10)
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait() == 0, err
    assert "Traceback" not in err
