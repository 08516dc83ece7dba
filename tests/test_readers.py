"""The CSV reader's two paths (pandas' C parser, the csv module) agree, and the
fast ragged-row check agrees with counting fields row by row."""

from __future__ import annotations

import csv
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank.readers as readers
from fastrank.readers import (
    DataError,
    _ragged,
    label_column,
    number_column,
    read_columns,
    rows_of,
)

pytest.importorskip("pandas")

GOOD = {
    "plain": "y,a,b\n1,0.5,3\n0,0.25,2\n1,0.75,1\n",
    "crlf": "y,a,b\r\n1,0.5,3\r\n0,0.25,2\r\n1,0.75,1\r\n",
    "no final newline": "y,a,b\n1,0.5,3\n0,0.25,2\n1,0.75,1",
    "blank lines": "\ny,a,b\n\n1,0.5,3\n0,0.25,2\n\n1,0.75,1\n\n",
    "quoted": 'y,a,b\n"1",0.5,"3"\n"0",0.25,"2"\n"1","0.75",1\n',
    "spaces": "y, a, b\n1, 0.5, 3\n0, 0.25, 2\n1, 0.75, 1\n",
    "utf-8 bom": "\ufeffy,a,b\n1,0.5,3\n0,0.25,2\n1,0.75,1\n",
}

BAD = {
    "short row": ("y,a,b\n1,0.5,3\n0,0.25\n1,0.75,1\n", r"row 2 \(line 3\) has 2 fields"),
    "long row": ("y,a,b\n1,0.5,3\n0,0.25,2,9\n1,0.75,1\n", r"row 2 \(line 3\) has 4 fields"),
    "short quoted row": ('y,a,b\n"1",0.5,3\n"0",0.25\n', r"row 2 \(line 3\) has 2 fields"),
    "header only": ("y,a,b\n", r"no data rows"),
    "empty": ("", r"the file is empty"),
    "blank only": ("\n\n\n", r"the file is empty"),
    "missing column": ("y,a\n1,0.5\n", r"no column 'b'; the columns are 'y', 'a'"),
}


def _read(path, monkeypatch, with_pandas):
    with monkeypatch.context() as m:
        if with_pandas:
            m.setattr(readers, "PANDAS_BYTES", 0)  # pandas for every size
        else:
            m.setitem(sys.modules, "pandas", None)
        cols = read_columns(str(path), ["y", "a", "b"])
        return (label_column(str(path), "y", cols["y"], None),
                number_column(str(path), "a", cols["a"], "score"),
                number_column(str(path), "b", cols["b"], "score"))


@pytest.mark.parametrize("name", list(GOOD))
def test_both_paths_read_the_same_numbers(name, tmp_path, monkeypatch):
    path = tmp_path / "f.csv"
    path.write_text(GOOD[name], encoding="utf-8")
    expected = (np.array([True, False, True]), np.array([0.5, 0.25, 0.75]), np.array([3, 2, 1.0]))
    for with_pandas in (True, False):
        got = _read(path, monkeypatch, with_pandas)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
            assert g.dtype.kind == e.dtype.kind or e.dtype.kind == "f"


@pytest.mark.parametrize("name", list(BAD))
def test_both_paths_give_the_same_error(name, tmp_path, monkeypatch):
    text, message = BAD[name]
    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    for with_pandas in (True, False):
        with pytest.raises(DataError, match=message):
            _read(path, monkeypatch, with_pandas)


def _ragged_by_csv(text: str, width: int) -> bool:
    rows = [r for r in csv.reader(text.splitlines()) if r and any(c.strip() for c in r)]
    return any(len(r) != width for r in rows[1:])


rows = st.lists(st.integers(2, 4), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(rows, st.booleans(), st.booleans(), st.lists(st.integers(0, 30), max_size=3))
def test_ragged_check_matches_row_counts(tmp_path_factory, widths, crlf, final_newline, blanks):
    # A header of 3 fields, then rows of the given widths, some blank lines.
    lines = ["y,a,b"] + [",".join(["1"] * w) for w in widths]
    for at in blanks:
        lines.insert(min(at, len(lines)), "")
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if final_newline else "")
    path = tmp_path_factory.mktemp("r") / "f.csv"
    path.write_bytes(text.encode())
    assert _ragged(str(path), 3) == _ragged_by_csv(text, 3)


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7, 64])
def test_ragged_check_across_blocks(tmp_path, monkeypatch, block):
    # Lines split across read blocks: shrink the block to a few bytes.
    monkeypatch.setattr(readers, "RAGGED_BLOCK", block)
    text = "y,a,b\r\n" + "1,2,3\n" * 20 + "\n1,2\n" + "1,2,3\n" * 5
    path = tmp_path / "f.csv"
    path.write_text(text)
    assert _ragged(str(path), 3)
    path.write_text(text.replace("1,2\n", "1,2,3\n"))
    assert not _ragged(str(path), 3)
    path.write_text(text.replace("1,2\n", "1,2,3\n").rstrip("\n") + "\n1,2")
    assert _ragged(str(path), 3)


def test_rows_of_keeps_first_appearance_order():
    ids = np.array([3, 1, 3, 2, 1, 3])
    got = rows_of(ids)
    assert [k for k, _ in got] == [3, 1, 2]
    for key, rows in got:
        np.testing.assert_array_equal(rows, np.flatnonzero(ids == key))
