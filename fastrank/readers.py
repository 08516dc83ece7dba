"""Reading prediction files for the command line: CSV, Parquet, .npz and .npy.

Every problem with the data raises :class:`DataError` with one line that names
the file, and the column and (1-based, header not counted) row where it
applies. The command line prints that line and exits with status 1.

CSV files are parsed by pandas' C parser when they are large and pandas is
installed, else by the csv module (importing pandas costs more than parsing a
small file). Both paths give the typed-column functions the same columns: the
cells pandas reads as missing (an empty cell, ``NA``, ``nan``, ``null``, ...)
are missing on both, and text is typed as pandas types it.
"""

from __future__ import annotations

import csv
import importlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np

from ._core.ids import exact_ints, integral_ids, rows_by_id
from ._core.ids import plain as plain  # re-exported for the command line
from ._optional import require

__all__ = [
    "DataError",
    "id_column",
    "label_column",
    "number_column",
    "read_columns",
]

SUFFIXES = (".csv", ".parquet", ".pq", ".npz", ".npy")
Progress = Callable[[str, float], None]
RAGGED_BLOCK = 16 * 2**20  # bytes read at a time by the ragged-row check
LONG_ROW = 64 * 2**20  # a row longer than this (an unclosed quote?) is left to the csv module
# CSV files smaller than this are read by the csv module even when pandas is installed:
# importing pandas (0.2-0.4 s) costs more than the csv module takes for 2 MiB.
PANDAS_BYTES = 2 * 2**20
# The cells pandas' CSV reader reads as missing by default (its STR_NA_VALUES); the csv
# module's path reads them as missing too (None), so that both paths agree.
NA_CELLS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
# The texts pandas' CSV reader reads as booleans (a column of nothing else is boolean).
TRUE_CELLS = frozenset({"True", "TRUE", "true"})
FALSE_CELLS = frozenset({"False", "FALSE", "false"})


class DataError(ValueError):
    """A problem with the user's data; the message is one line for the user."""


def read_columns(
    path: str, wanted: Sequence[str], progress: Progress | None = None
) -> dict[str, np.ndarray]:
    """The ``wanted`` columns of a file, as 1-D arrays of equal length.

    CSV columns come back as pandas' C parser types them (quoted or not), or,
    for files under :data:`PANDAS_BYTES` or without pandas, as text (object
    arrays of ``str``, with ``None`` for the cells pandas reads as missing);
    the typed-column functions below read both the same way. The other
    formats keep their column types. ``progress(stage, fraction)`` is called
    while reading.
    """
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in SUFFIXES:
        raise DataError(f"{path}: unknown file type {suffix or '(none)'!r}; "
                        f"use one of {', '.join(SUFFIXES)}")
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file")
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a file")
    try:
        if suffix == ".csv":
            columns = _read_csv(path, wanted, progress)
        elif suffix in (".parquet", ".pq"):
            columns = _read_parquet(path, wanted)
        elif suffix == ".npz":
            columns = _read_npz(path, wanted)
        else:
            columns = _read_npy(path, wanted)
    except DataError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"{path}: cannot read it: {reason}") from exc
    lengths = {name: col.shape[0] for name, col in columns.items()}
    first = wanted[0]
    for name, length in lengths.items():
        if length != lengths[first]:
            raise DataError(f"{path}: column {name!r} has {length} rows but column "
                            f"{first!r} has {lengths[first]}")
    if lengths[first] == 0:
        raise DataError(f"{path}: no data rows")
    return columns


def _missing(path: str, wanted: Sequence[str], available: Sequence[str]) -> None:
    for name in wanted:
        if name not in available:
            shown = ", ".join(repr(a) for a in list(available)[:20])
            more = ", ..." if len(available) > 20 else ""
            raise DataError(f"{path}: no column {name!r}; the columns are {shown}{more}")


def _lines(handle: IO[str], size: int, progress: Progress | None) -> Iterator[str]:
    """The lines of a text file, reporting the share read every 65,536 lines."""
    done = 0
    for i, line in enumerate(handle):
        done += len(line)
        if progress is not None and i % 65_536 == 0 and size > 0:
            progress("reading", min(done / size, 1.0))
        yield line
    if progress is not None:
        progress("reading", 1.0)


def _csv_header(path: str) -> list[str]:
    """The names in the first non-blank line of a CSV file."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle, skipinitialspace=True)
        try:
            header = next(reader, None)
            while header is not None and not any(cell.strip() for cell in header):
                header = next(reader, None)
        except csv.Error as exc:
            raise DataError(f"{path}: line {reader.line_num}: {exc}") from None
    if header is None:
        raise DataError(f"{path}: the file is empty (no header row)")
    return [cell.strip() for cell in header]


def _read_csv(path: str, wanted: Sequence[str], progress: Progress | None) -> dict[str, np.ndarray]:
    """Read with pandas' C parser when the file has at least :data:`PANDAS_BYTES`
    and pandas is installed (about 20x faster per byte), else with the csv module.

    Quoted CSV (quoted header, quoted cells, commas or newlines inside quotes)
    takes the fast path like any other. Only a file that :func:`_ragged` cannot
    vouch for (a row with the wrong number of fields, or quotes that are not
    RFC 4180 quoting) is read by the csv module, which names the bad row.
    """
    header = _csv_header(path)
    _missing(path, wanted, header)
    size = os.path.getsize(path)
    if size < PANDAS_BYTES:
        return _read_csv_stdlib(path, wanted, progress)
    try:
        pd = importlib.import_module("pandas")
    except ImportError:
        return _read_csv_stdlib(path, wanted, progress)
    if _ragged(path, len(header)):
        return _read_csv_stdlib(path, wanted, progress)  # it names the bad row
    parts = []
    with open(path, "rb") as handle:
        reader = pd.read_csv(handle, usecols=lambda c: str(c).strip() in wanted, engine="c",
                             chunksize=1 << 18, encoding="utf-8-sig", skipinitialspace=True,
                             on_bad_lines="error")
        try:
            for chunk in reader:
                parts.append(chunk)
                if progress is not None:
                    progress("reading", min(handle.tell() / max(size, 1), 1.0))
        except pd.errors.ParserError as exc:
            raise DataError(f"{path}: {str(exc).strip().splitlines()[-1]}") from None
    if progress is not None:
        progress("reading", 1.0)
    frame = pd.concat(parts, ignore_index=True) if len(parts) != 1 else parts[0]
    frame.columns = [str(c).strip() for c in frame.columns]
    return {name: frame[name].to_numpy() for name in wanted}


def _ragged(path: str, width: int) -> bool:
    """Whether some non-blank row may not have ``width`` fields.

    pandas fills short rows with NaN instead of failing, so rows are counted
    here first, in 16 MiB blocks with numpy: the commas and line ends outside
    quotes (those after an even number of quote characters) split the rows
    and fields, as in RFC 4180. That count is right when every quote is CSV
    quoting: an opening quote starts a field (after a comma, a line end or the
    start, perhaps after spaces) and a closing quote ends it (before a comma,
    a line end, or the second quote of a doubled ``""``). A file with any other
    quote (``5" screen``, ``"a"b``, an unclosed quote) is reported as possibly
    ragged, and read by the csv module, which checks every row.
    """
    carry = b""
    header_seen = False
    with open(path, "rb") as handle:
        if handle.read(3) != b"\xef\xbb\xbf":  # a UTF-8 byte order mark is not data
            handle.seek(0)
        while True:
            block = handle.read(RAGGED_BLOCK)
            data = carry + block
            if not block:
                data += b"\n" if data and not data.endswith(b"\n") else b""
            arr = np.frombuffer(data, dtype=np.uint8)
            counted = _fields(arr, final=not block)
            if counted is None:
                return True
            fields, rest = counted
            if not header_seen and fields.shape[0]:
                fields = fields[1:]  # the header line
                header_seen = True
            if np.any(fields != width):
                return True
            if not block:
                return False
            carry = data[rest:]
            if len(carry) > LONG_ROW:
                return True


QUOTE, COMMA, LF, CR, SPACE = 34, 44, 10, 13, 32


def _fields(arr: np.ndarray, final: bool) -> tuple[np.ndarray, int] | None:
    """The number of fields of each non-blank row that ends in ``arr`` (which
    starts at a row's start), and where the unfinished rest begins; None when
    the quotes in those rows are not CSV quoting (or, at the end of the file,
    a quote is left open)."""
    special = np.flatnonzero((arr == COMMA) | (arr == LF) | (arr == QUOTE))
    kinds = arr[special]
    quoted = kinds == QUOTE
    quotes = special[quoted]
    if quotes.shape[0]:
        if final and quotes.shape[0] % 2:
            return None  # a quoted field never closed
        inside = np.logical_xor.accumulate(quoted)  # after an odd number of quotes
        separators = ~quoted & ~inside
        special, kinds = special[separators], kinds[separators]
    at = np.flatnonzero(kinds == LF)  # row ends among the commas and row ends
    if at.shape[0] == 0:
        return np.zeros(0, dtype=np.intp), 0  # no row ends here yet: all of it is carried
    ends = special[at]
    if quotes.shape[0] and not _csv_quoting(arr, quotes[:np.searchsorted(quotes, ends[-1])]):
        return None
    fields = np.diff(at, prepend=-1)  # the commas since the previous row end, plus one
    starts = np.concatenate(([0], ends[:-1] + 1))
    length = ends - starts - (arr[np.maximum(ends - 1, 0)] == CR)
    return fields[length > 0], int(ends[-1]) + 1


def _csv_quoting(arr: np.ndarray, quotes: np.ndarray) -> bool:
    """Whether ``quotes`` (the positions of an even number of quote characters,
    from a row's start) are all CSV quoting: quote 0, 2, 4, ... opens a field,
    1, 3, 5, ... closes it."""
    opening, closing = quotes[0::2], quotes[1::2]
    after = arr[closing + 1]  # a closing quote is never the last byte: a line end follows
    if not np.all((after == COMMA) | (after == LF) | (after == CR) | (after == QUOTE)):
        return False
    before = opening - 1
    spaces = np.zeros(before.shape[0], dtype=bool)
    for _ in range(256):  # skip the spaces skipinitialspace skips (rarely more than one)
        blank = (before >= 0) & (arr[np.maximum(before, 0)] == SPACE)
        if not blank.any():
            break
        before[blank] -= 1
        spaces |= blank
    else:
        return False
    prev = arr[np.maximum(before, 0)]
    field_start = (before < 0) | (prev == COMMA) | (prev == LF) | (prev == CR)
    doubled = (prev == QUOTE) & ~spaces & (before >= 0)  # "" inside a quoted field
    return bool(np.all(field_start | doubled))


def _read_csv_stdlib(
    path: str, wanted: Sequence[str], progress: Progress | None
) -> dict[str, np.ndarray]:
    size = os.path.getsize(path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        # skipinitialspace: spaces after a comma are skipped, as pandas does.
        reader = csv.reader(_lines(handle, size, progress), skipinitialspace=True)
        try:
            cells = _csv_rows(path, reader, wanted)
        except csv.Error as exc:
            raise DataError(f"{path}: line {reader.line_num}: {exc}") from None
    out = {}
    for name, column in zip(wanted, cells, strict=True):
        arr = np.empty(len(column), dtype=object)
        arr[:] = [None if cell in NA_CELLS else cell for cell in column]  # as pandas reads them
        out[name] = arr
    return out


def _csv_rows(path: str, reader: Any, wanted: Sequence[str]) -> list[list[str]]:
    """The cells of the ``wanted`` columns, checking that every row has the header's width."""
    header = next(reader, None)
    while header is not None and not any(cell.strip() for cell in header):
        header = next(reader, None)
    assert header is not None  # checked by _csv_header
    header = [cell.strip() for cell in header]
    index = [header.index(name) for name in wanted]
    cells: list[list[str]] = [[] for _ in wanted]
    width = len(header)
    row_number = 0
    for row in reader:
        if not row or (len(row) == 1 and not row[0].strip() and width > 1):
            continue  # a blank line
        row_number += 1
        if len(row) != width:
            raise DataError(f"{path}: row {row_number} (line {reader.line_num}) has "
                            f"{len(row)} fields but the header has {width}")
        for column, i in zip(cells, index, strict=True):
            column.append(row[i])
    return cells


def _read_parquet(path: str, wanted: Sequence[str]) -> dict[str, np.ndarray]:
    try:
        pq = require("pyarrow.parquet", "Parquet files")
    except ImportError as exc:
        raise DataError(f"{path}: {exc}") from exc
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: the file is empty")
    _missing(path, wanted, pq.read_schema(path).names)
    table = pq.read_table(path, columns=list(dict.fromkeys(wanted)))
    return {name: table.column(name).to_numpy(zero_copy_only=False) for name in wanted}


def _read_npz(path: str, wanted: Sequence[str]) -> dict[str, np.ndarray]:
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: the file is empty")
    with np.load(path, allow_pickle=False) as archive:
        _missing(path, wanted, archive.files)
        out = {name: np.asarray(archive[name]) for name in wanted}
    for name, col in out.items():
        if col.ndim != 1:
            raise DataError(f"{path}: column {name!r} has shape {col.shape}; columns are 1-D")
    return out


def _read_npy(path: str, wanted: Sequence[str]) -> dict[str, np.ndarray]:
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: the file is empty")
    arr = np.load(path, allow_pickle=False)
    if arr.dtype.names is not None:
        _missing(path, wanted, arr.dtype.names)
        return {name: np.asarray(arr[name]).reshape(-1) for name in wanted}
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(f"{path}: an array of shape {arr.shape}; expected 1-D or 2-D "
                        "(rows x columns) or a structured array")
    _missing(path, wanted, [str(j) for j in range(arr.shape[1])])
    return {name: arr[:, int(name)] for name in wanted}


# -- typed columns --------------------------------------------------------------------------


def _where(path: str, name: str, row: int) -> str:
    return f"{path}: column {name!r} row {row + 1}"


def _is_missing(value: Any) -> bool:
    """Whether a cell of an object column is missing: None, a float NaN (how pandas
    marks a missing cell of a text column) or pandas' NA."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ == "NAType"


def _all_text(values: np.ndarray) -> bool:
    return values.dtype.kind in "US" or all(isinstance(v, str) for v in values)


def _text_bools(values: np.ndarray) -> np.ndarray | None:
    """A text column of nothing but pandas' true and false texts as booleans, else None."""
    if values.shape[0] == 0 or values.dtype.kind not in "OU":
        return None
    cells = TRUE_CELLS | FALSE_CELLS
    if not all(isinstance(v, str) and v in cells for v in values):
        return None
    return np.array([v in TRUE_CELLS for v in values], dtype=bool)


def _parse_numbers(path: str, name: str, values: np.ndarray) -> np.ndarray:
    """A text or object column as numbers, typed as pandas' parser types text:
    booleans, integers (int64, else uint64), else float64. Names the first
    cell that is not a number."""
    bools = _text_bools(values)
    if bools is not None:
        return bools
    if _all_text(values):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array(values, dtype=dtype)
            except (ValueError, TypeError, OverflowError):
                pass
    try:
        return np.array(values, dtype=np.float64)
    except (ValueError, TypeError):
        pass
    for i, v in enumerate(values):
        if isinstance(v, str) and not v.strip():
            raise DataError(f"{_where(path, name, i)}: empty cell, expected a number")
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue  # numpy reads these as NaN: reported as missing once all are numbers
        try:
            float(v)
        except (ValueError, TypeError):
            raise DataError(f"{_where(path, name, i)}: {v!r} is not a number") from None
    raise DataError(f"{path}: column {name!r} is not numeric")  # pragma: no cover


def number_column(path: str, name: str, values: np.ndarray, what: str) -> np.ndarray:
    """A numeric column (scores or weights): finite numbers, in a numeric dtype.

    Columns that are already numeric keep their dtype (integer scores stay
    exact); text is typed as pandas types it (integers stay integers).
    """
    if values.dtype.kind in "biuf":
        arr = values
    elif values.dtype.kind in "OUS":
        arr = _parse_numbers(path, name, values)
    else:
        raise DataError(f"{path}: column {name!r} holds {values.dtype} values, not numbers")
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.shape[0]:
            v = arr[bad[0]]
            kind = "missing (NaN)" if math.isnan(v) else str(v)
            raise DataError(f"{_where(path, name, int(bad[0]))}: {what} is {kind}; "
                            f"{what}s must be finite numbers")
    return arr


def _numeric_labels(path: str, name: str, values: np.ndarray) -> np.ndarray | None:
    """A label column as float64 when every cell is a number, else None."""
    if values.dtype.kind in "biuf":
        arr = values.astype(np.float64)
    else:
        try:
            arr = np.array(values, dtype=np.float64)
        except (ValueError, TypeError):
            return None
    bad = np.flatnonzero(np.isnan(arr))
    if bad.shape[0]:
        raise DataError(f"{_where(path, name, int(bad[0]))}: missing label")
    return arr


def label_column(path: str, name: str, values: np.ndarray, pos_label: str | None) -> np.ndarray:
    """The label column as a boolean array (True = positive)."""
    numbers = _numeric_labels(path, name, values)
    if numbers is not None:
        if pos_label is not None:
            try:
                positive = float(pos_label)
            except ValueError:
                raise DataError(f"{path}: --pos-label {pos_label!r} is not a number, but "
                                f"label column {name!r} is numeric") from None
            y: np.ndarray = numbers == positive
            if not y.any():
                raise DataError(f"{path}: --pos-label {pos_label!r} does not occur in label "
                                f"column {name!r}")
            return y
        classes = np.unique(numbers)
        if set(classes.tolist()) <= {0.0, 1.0} or set(classes.tolist()) <= {-1.0, 1.0}:
            positives: np.ndarray = numbers == 1.0
            return positives
        return _two_classes_needed(path, name, [f"{c:g}" for c in classes])
    text = np.array([("" if _is_missing(v) else str(v)).strip() for v in values], dtype=object)
    empty = np.flatnonzero(text == "")
    if empty.shape[0]:
        raise DataError(f"{_where(path, name, int(empty[0]))}: missing label")
    if pos_label is not None:
        y = text == pos_label.strip()
        if not y.any():
            raise DataError(f"{path}: --pos-label {pos_label!r} does not occur in label "
                            f"column {name!r}")
        return np.asarray(y, dtype=bool)
    classes = np.unique(text.astype(str))
    lowered = {c.lower() for c in classes.tolist()}
    if lowered <= {"true", "false"}:
        return np.asarray(np.char.lower(text.astype(str)) == "true", dtype=bool)
    return _two_classes_needed(path, name, classes.tolist())


def _two_classes_needed(path: str, name: str, classes: list[str]) -> np.ndarray:
    shown = ", ".join(repr(c) for c in classes[:6]) + (", ..." if len(classes) > 6 else "")
    if len(classes) > 2:
        raise DataError(f"{path}: label column {name!r} has {len(classes)} distinct values "
                        f"({shown}); pass --pos-label V to make V positive and the rest negative")
    raise DataError(f"{path}: label column {name!r} has values {shown}, not 0/1, -1/1 or "
                    "true/false; pass --pos-label V to say which is positive")


def id_column(path: str, name: str, values: np.ndarray, what: str) -> np.ndarray:
    """A dataset or group id column (``what`` says which): integers when every
    cell is one, else as it is; a missing cell is a :class:`DataError`.

    Missing is NaN, None, NaT, an empty cell, or a cell pandas' CSV reader
    reads as missing (``NA``, ``nan``, ``null``, ...): every row needs an id.
    Integers are int64 where every one fits, else exact Python ints (an object
    array), so that ids at or beyond 2**63 stay distinct. A float column whose
    every value is an integer becomes integers the same way (``1.0`` is id
    ``1``); any other float column is kept as floats. Text is parsed like
    pandas' C parser would type it (booleans, integers, then floats), else
    kept as text.
    """
    kind = values.dtype.kind
    if kind in "biu":
        return values
    if kind == "f":
        missing = np.isnan(values)
    elif kind in "mM":
        missing = np.isnat(values)
    else:
        missing = np.fromiter((_is_missing(v) or (isinstance(v, str) and not v.strip())
                               for v in values), dtype=bool, count=values.shape[0])
    bad = np.flatnonzero(missing)
    if bad.shape[0]:
        raise DataError(f"{_where(path, name, int(bad[0]))}: missing {what} id; "
                        f"every row needs one")
    if kind == "f":
        return integral_ids(values)
    if kind in "mM":
        return values
    text = [str(v).strip() for v in values]
    bools = _text_bools(np.array(text, dtype=object))
    if bools is not None:
        return bools
    try:
        return exact_ints([int(t) for t in text])
    except (ValueError, OverflowError):
        pass
    try:
        return integral_ids(np.array([float(t) for t in text], dtype=np.float64))
    except (ValueError, OverflowError):
        return np.array(text, dtype=str)


def rows_of(ids: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """Each distinct id with the rows holding it, ids in order of first appearance."""
    return rows_by_id(ids)


def first_appearance(ids: np.ndarray, sorted_ids: np.ndarray) -> np.ndarray:
    """The permutation that puts ``sorted_ids`` (the distinct values of ``ids`` in
    increasing order, as grouped results list them) in order of first appearance."""
    uniq, first = np.unique(ids, return_index=True)
    if uniq.shape[0] != sorted_ids.shape[0] or not np.array_equal(uniq, sorted_ids):
        raise ValueError("sorted_ids are not the distinct values of ids")  # pragma: no cover
    return np.argsort(first, kind="stable")


