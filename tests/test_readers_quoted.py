"""Quoted CSV takes the fast reader and reads as the unquoted file; the quote-aware
ragged-row check agrees with the csv module; id columns keep distinct ids distinct."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank.readers as readers
from fastrank.readers import DataError, id_column, label_column, number_column, read_columns

pytest.importorskip("pandas")

PLAIN = "y,s,t,fold,note\n1,0.9,0.3,1.0,x\n0,0.1,0.5,1.0,x\n1,0.8,0.2,2.0,x\n0,0.2,0.7,2.0,y\n"
QUOTED = {
    "every cell": ('"y","s","t","fold","note"\n"1","0.9","0.3","1.0","x"\n'
                   '"0","0.1","0.5","1.0","x"\n"1","0.8","0.2","2.0","x"\n'
                   '"0","0.2","0.7","2.0","y"\n'),
    "some cells, commas inside": ('"y",s,"t",fold,note\n1,"0.9",0.3,"1.0","a, b"\n'
                                  '0,0.1,"0.5",1.0,x\n"1",0.8,0.2,2.0,"c,d,e"\n'
                                  '0,"0.2",0.7,"2.0",y\n'),
    "newline and doubled quotes inside": ('y,s,t,fold,note\n1,0.9,0.3,1.0,"two\nlines"\n'
                                          '0,0.1,0.5,1.0,"say ""hi"""\n1,0.8,0.2,2.0,""\n'
                                          '0,0.2,0.7,2.0,"a,\r\nb"\n'),
    "crlf, bom, spaces": ('\ufeff"y", "s", "t", "fold", "note"\r\n'
                          '1, "0.9", 0.3, "1.0", "x, y"\r\n0, 0.1, "0.5", 1.0, x\r\n'
                          '1, 0.8, 0.2, 2.0, x\r\n0, 0.2, 0.7, "2.0", y\r\n'),
}
WANTED = ["y", "s", "t", "fold"]


def _typed(path, monkeypatch, with_pandas):
    with monkeypatch.context() as m:
        if with_pandas:
            m.setattr(readers, "PANDAS_BYTES", 0)  # pandas for every size
        else:
            m.setitem(sys.modules, "pandas", None)
        cols = read_columns(str(path), WANTED)
    return (label_column(str(path), "y", cols["y"], None),
            number_column(str(path), "s", cols["s"], "score"),
            number_column(str(path), "t", cols["t"], "score"),
            id_column(str(path), "fold", cols["fold"], "dataset"))


def _no_stdlib(*args):
    raise AssertionError("a well-formed quoted file went to the csv module")


@pytest.mark.parametrize("name", list(QUOTED))
def test_quoted_reads_as_plain_on_the_fast_path(name, tmp_path, monkeypatch):
    plain, quoted = tmp_path / "plain.csv", tmp_path / "quoted.csv"
    plain.write_text(PLAIN, encoding="utf-8")
    quoted.write_bytes(QUOTED[name].encode("utf-8"))
    expected = _typed(plain, monkeypatch, True)
    assert expected[3].dtype == np.int64  # fold 1.0, 2.0 are ids 1, 2
    for with_pandas in (True, False):
        with monkeypatch.context() as m:
            if with_pandas:
                m.setattr(readers, "_read_csv_stdlib", _no_stdlib)
            got = _typed(quoted, monkeypatch, with_pandas)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
            assert g.dtype == e.dtype


@pytest.mark.parametrize(("text", "message"), [
    ('y,a,b\n"1","0,5",3\n0,"0.25"\n', r"row 2 \(line 3\) has 2 fields"),
    ('y,a,b\n"1","x\ny",3\n0,"0.25",2,"9"\n', r"row 2 \(line 4\) has 4 fields"),
    ('"y","a","b"\n1,2,3\n"1,2",3\n', r"row 2 \(line 3\) has 2 fields"),
])
def test_ragged_rows_of_quoted_files_are_named(text, message, tmp_path, monkeypatch):
    path = tmp_path / "f.csv"
    path.write_text(text)
    for with_pandas in (True, False):
        with monkeypatch.context() as m:
            if not with_pandas:
                m.setitem(sys.modules, "pandas", None)
            with pytest.raises(DataError, match=message):
                read_columns(str(path), ["y", "a", "b"])


@pytest.mark.parametrize("text", [
    'y,a,b\n1,5" screen,3\n0,2,1\n',     # a quote inside an unquoted field
    'y,a,b\n1,"a"b,3\n0,2,1\n',          # text after a closing quote
    'y,a,b\n1,"a" ,3\n0,2,1\n',          # a space after a closing quote
])
def test_irregular_quotes_read_as_the_csv_module_reads_them(text, tmp_path):
    path = tmp_path / "f.csv"
    path.write_text(text)
    assert readers._ragged(str(path), 3)  # the fast count cannot vouch for it
    cols = read_columns(str(path), ["y", "a", "b"])
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))[1:]
    assert cols["a"].tolist() == [r[1] for r in rows]


# -- the quote-aware count against the csv module ------------------------------------------

REGULAR = ["1", "0.5", '"2"', '""', "", '"a, b"', '"x""y"', '"two\nlines"', '"a\r\nb"',
           ' "3"', '"""q"""', "txt"]
IRREGULAR = ['5" in', '"a"b', '"a" ', 'x"', '\t"1"']


def _ragged_by_csv(text: str, width: int) -> bool:
    """What the csv module path concludes: some non-blank row has another width."""
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""),
                           skipinitialspace=True))
    rows = [r for r in rows if r and not (len(r) == 1 and not r[0].strip() and width > 1)]
    return any(len(r) != width for r in rows[1:])


cells = st.sampled_from(REGULAR)
table = st.lists(st.lists(cells, min_size=1, max_size=5), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(table, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(),
       st.sampled_from([1, 2, 3, 7, 1 << 20]))
def test_quote_aware_count_matches_the_csv_module(tmp_path_factory, rows, end, final_newline,
                                                  bom, block):
    width = 3
    lines = ['"y",a,"b"'] + [",".join(r) for r in rows]
    text = ("\ufeff" if bom else "") + end.join(lines) + (end if final_newline else "")
    path = tmp_path_factory.mktemp("q") / "f.csv"
    path.write_bytes(text.encode())
    old = readers.RAGGED_BLOCK
    readers.RAGGED_BLOCK = block
    try:
        got = readers._ragged(str(path), width)
    finally:
        readers.RAGGED_BLOCK = old
    expected = _ragged_by_csv(text, width)
    # A row the csv module reads as one blank cell ('""') is skipped there, but the fast
    # count sees one field (pandas would fill that row with NaN): it leaves such files
    # to the csv module.
    blank_cell = any(len(r) == 1 and r[0] in ('""', "") for r in rows)
    assert got == expected or (got and blank_cell)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(REGULAR + IRREGULAR), min_size=1, max_size=4),
                min_size=1, max_size=8))
def test_the_count_never_misses_a_ragged_row(tmp_path_factory, rows):
    # With any quotes at all, a file the check passes is read by pandas: it must not be ragged.
    text = "y,a,b\n" + "\n".join(",".join(r) for r in rows) + "\n"
    path = tmp_path_factory.mktemp("q") / "f.csv"
    path.write_bytes(text.encode())
    if not readers._ragged(str(path), 3):
        assert not _ragged_by_csv(text, 3)


def test_an_unclosed_quote_is_left_to_the_csv_module(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text('y,a,b\n1,2,3\n0,"2,1\n')
    assert readers._ragged(str(path), 3)


# -- id columns ---------------------------------------------------------------------------


def _ids(values):
    return id_column("f.csv", "fold", np.asarray(values), "dataset")


def test_float_ids_at_or_beyond_2_63_stay_distinct():
    values = np.array([1e19, 2e19, 2.0**63, 1e19])
    ids = _ids(values)  # pytest runs with -W error: no RuntimeWarning from a cast
    assert ids.tolist() == [10**19, 2 * 10**19, 2**63, 10**19]
    assert len({v for v, _ in readers.rows_of(ids)}) == 3
    assert [type(v) for v, _ in readers.rows_of(ids)] == [int, int, int]


def test_float_ids_within_int64_become_int64():
    ids = _ids(np.array([1.0, -2.0, 2.0**62, -(2.0**63)]))
    assert ids.dtype == np.int64 and ids.tolist() == [1, -2, 2**62, -(2**63)]


@pytest.mark.parametrize("values", [[1.5, 2.0], [1.0, np.inf]])
def test_other_float_ids_stay_floats(values):
    ids = _ids(np.array(values))
    assert ids.dtype == np.float64
    np.testing.assert_array_equal(ids, np.array(values))


def test_text_ids_type_like_pandas():
    text = np.array(["1.0", "2.0", "1.0"], dtype=object)
    assert _ids(text).dtype == np.int64 and _ids(text).tolist() == [1, 2, 1]
    big = np.array(["9223372036854775808", "1", "99999999999999999999999"], dtype=object)
    assert _ids(big).tolist() == [2**63, 1, 99999999999999999999999]
    assert _ids(np.array(["1e19", "2e19"], dtype=object)).tolist() == [10**19, 2 * 10**19]
    assert _ids(np.array(["a", "1"], dtype=object)).tolist() == ["a", "1"]
    assert _ids(np.array(["1.5", "2"], dtype=object)).tolist() == [1.5, 2.0]
    assert _ids(np.array(["True", "false"], dtype=object)).tolist() == [True, False]


@pytest.mark.parametrize("values", [
    [0.0, 1.0, np.nan, 1.0],  # a float column with a NaN (pandas' empty cell)
    ["a", "b", None, "a"],  # the csv module's missing cell, or Parquet's null
    ["a", "b", float("nan"), "a"],  # pandas' missing cell in a text column
    ["a", "b", " ", "a"],  # a blank cell
    np.array(["2024-01-01", "2024-01-02", "NaT", "2024-01-01"], dtype="datetime64[D]"),
])
def test_missing_ids_are_refused(values):
    text = isinstance(values, list) and any(isinstance(v, str) for v in values)
    arr = np.array(values, dtype=object) if text else np.asarray(values)
    with pytest.raises(DataError, match=r"^f\.csv: column 'fold' row 3: missing dataset id"):
        _ids(arr)


def test_the_csv_module_reads_missing_cells_as_pandas_does():
    # Every cell pandas reads as missing (its default na_values) is missing on both paths.
    from pandas._libs.parsers import STR_NA_VALUES

    assert set(STR_NA_VALUES) == readers.NA_CELLS


def test_text_scores_are_typed_as_pandas_types_them(tmp_path, monkeypatch):
    # Integer scores stay integers on both paths, so their thresholds print alike.
    path = tmp_path / "f.csv"
    path.write_text("y,s,big,flag\n1,3,18446744073709551615,true\n0,-2,1,False\n")
    for with_pandas in (True, False):
        with monkeypatch.context() as m:
            if with_pandas:
                m.setattr(readers, "PANDAS_BYTES", 0)
            else:
                m.setitem(sys.modules, "pandas", None)
            cols = read_columns(str(path), ["s", "big", "flag"])
        typed = [number_column(str(path), k, cols[k], "score") for k in ("s", "big", "flag")]
        assert [t.dtype for t in typed] == [np.int64, np.uint64, np.bool_], with_pandas
        assert typed[0].tolist() == [3, -2] and typed[2].tolist() == [True, False]


@pytest.mark.parametrize("cell", ["", "NA", "nan", "null", "N/A"])
def test_a_missing_text_label_is_refused_on_both_paths(cell, tmp_path, monkeypatch):
    path = tmp_path / "f.csv"
    path.write_text(f"y,s\nspam,1\nham,2\n{cell},3\n")
    for with_pandas in (True, False):
        with monkeypatch.context() as m:
            if with_pandas:
                m.setattr(readers, "PANDAS_BYTES", 0)
            else:
                m.setitem(sys.modules, "pandas", None)
            cols = read_columns(str(path), ["y"])
        with pytest.raises(DataError, match=r"column 'y' row 3: missing label"):
            label_column(str(path), "y", cols["y"], "spam")


def test_small_csv_files_do_not_import_pandas(tmp_path):
    # Importing pandas costs more than the csv module takes for a small file.
    path = tmp_path / "f.csv"
    path.write_text("y,s\n1,0.5\n0,0.25\n")
    code = ("import sys; from fastrank.readers import read_columns; "
            f"read_columns({str(path)!r}, ['y', 's']); print('pandas' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert proc.stdout.strip() == "False"
