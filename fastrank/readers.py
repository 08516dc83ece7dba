"""Reading prediction files for the command line: CSV, Parquet, .npz and .npy.

Every problem with the data raises :class:`DataError` with one line that names
the file, and the column and (1-based, header not counted) row where it
applies. The command line prints that line and exits with status 1.
"""

from __future__ import annotations

import csv
import importlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np

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
RAGGED_BLOCK = 64 * 2**20  # bytes read at a time by the ragged-row check


class DataError(ValueError):
    """A problem with the user's data; the message is one line for the user."""


def read_columns(
    path: str, wanted: Sequence[str], progress: Progress | None = None
) -> dict[str, np.ndarray]:
    """The ``wanted`` columns of a file, as 1-D arrays of equal length.

    CSV cells are returned as text (object arrays of ``str``); the other
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
        reader = csv.reader(handle)
        header = next(reader, None)
        while header is not None and not any(cell.strip() for cell in header):
            header = next(reader, None)
    if header is None:
        raise DataError(f"{path}: the file is empty (no header row)")
    return [cell.strip() for cell in header]


def _read_csv(path: str, wanted: Sequence[str], progress: Progress | None) -> dict[str, np.ndarray]:
    """Read with pandas' C parser when pandas is installed (about 20x faster), else csv."""
    _missing(path, wanted, _csv_header(path))
    try:
        pd = importlib.import_module("pandas")
    except ImportError:
        return _read_csv_stdlib(path, wanted, progress)
    if _ragged(path, len(_csv_header(path))):
        return _read_csv_stdlib(path, wanted, progress)  # it names the bad row
    size = os.path.getsize(path)
    parts = []
    with open(path, "rb") as handle:
        reader = pd.read_csv(handle, usecols=lambda c: str(c).strip() in wanted,
                             chunksize=1 << 18, encoding="utf-8-sig", skipinitialspace=True)
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
    """Whether some non-blank line may not have ``width`` fields.

    pandas fills short rows with NaN instead of failing, so rows are counted
    here first: commas per line, in 64 MiB blocks with numpy. Files with quotes
    (where commas may sit inside fields) are reported as possibly ragged, and
    read by the csv module, which checks every row.
    """
    carry = b""
    header_seen = False
    with open(path, "rb") as handle:
        while True:
            block = handle.read(RAGGED_BLOCK)
            data = carry + block
            if not block:
                data += b"\n" if data and not data.endswith(b"\n") else b""
            if b'"' in data:
                return True
            arr = np.frombuffer(data, dtype=np.uint8)
            ends = np.flatnonzero(arr == 10)
            if ends.shape[0] == 0:
                if not block:
                    return False
                carry = data
                continue
            starts = np.concatenate(([0], ends[:-1] + 1))
            commas = np.flatnonzero(arr == 44)
            fields = np.searchsorted(commas, ends) - np.searchsorted(commas, starts) + 1
            length = ends - starts - (arr[np.maximum(ends - 1, 0)] == 13)
            fields = fields[length > 0]
            if not header_seen and fields.shape[0]:
                fields = fields[1:]  # the header line
                header_seen = True
            if np.any(fields != width):
                return True
            carry = data[ends[-1] + 1:]
            if not block:
                return False


def _read_csv_stdlib(
    path: str, wanted: Sequence[str], progress: Progress | None
) -> dict[str, np.ndarray]:
    size = os.path.getsize(path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(_lines(handle, size, progress))
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
    out = {}
    for name, column in zip(wanted, cells, strict=True):
        arr = np.empty(len(column), dtype=object)
        arr[:] = column
        out[name] = arr
    return out


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


def _parse_numbers(path: str, name: str, values: np.ndarray) -> np.ndarray:
    """A text or object column as float64, naming the first cell that is not a number."""
    try:
        return np.array(values, dtype=np.float64)
    except (ValueError, TypeError):
        pass
    for i, v in enumerate(values):
        if v is None or (isinstance(v, str) and not v.strip()):
            raise DataError(f"{_where(path, name, i)}: empty cell, expected a number")
        try:
            float(v)
        except (ValueError, TypeError):
            raise DataError(f"{_where(path, name, i)}: {v!r} is not a number") from None
    raise DataError(f"{path}: column {name!r} is not numeric")  # pragma: no cover


def number_column(path: str, name: str, values: np.ndarray, what: str) -> np.ndarray:
    """A numeric column (scores or weights): finite numbers, in a numeric dtype.

    Columns that are already numeric keep their dtype (integer scores stay
    exact); text is parsed as float64.
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
    text = np.array([("" if v is None else str(v)).strip() for v in values], dtype=object)
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


def id_column(values: np.ndarray) -> np.ndarray:
    """A dataset or group id column: integers when every cell is one, else text."""
    if values.dtype.kind in "biu":
        return values
    if values.dtype.kind == "f":
        if np.all(np.isfinite(values)) and np.all(values == np.round(values)):
            return values.astype(np.int64)
        return values
    text = [("" if v is None else str(v)).strip() for v in values]
    try:
        return np.array([int(t) for t in text], dtype=np.int64)
    except (ValueError, OverflowError):
        return np.array(text, dtype=str)


def rows_of(ids: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """Each distinct id with the rows holding it, ids in order of first appearance."""
    uniq, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rows = np.argsort(inverse, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(inverse, minlength=uniq.shape[0]))))
    return [(uniq[k].item(), rows[bounds[k]:bounds[k + 1]]) for k in order]
