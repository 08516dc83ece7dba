"""Tables as text: aligned, CSV, JSON and Markdown, without pandas.

The command line prints its results through :func:`format_table`. A table is
a ``dict`` of equally long columns (numpy arrays or lists), as the table
methods of :class:`~fastrank.Evaluation` return with ``as_frame=False``.

Two formats are for reading and two for programs:

* ``table`` (aligned text) and ``markdown`` round metrics to 4 decimals, print
  counts as integers (with thousands separators in ``table``) and times in
  milliseconds to 3 significant digits, and head each column with its display
  name (:data:`HEADERS`: ``AP`` for ``average_precision``, ...).
* ``csv`` and ``json`` keep every float at full precision (``repr``), so they
  parse back to the exact numbers, write integers (unweighted counts) as
  integers, and head each column with its field name, the name ``--metrics``
  takes. JSON is strict (RFC 8259, no ``NaN`` or ``Infinity`` tokens): NaN is
  written as ``null`` and +/-infinity (the d' of a model that separates the
  classes perfectly) as the strings ``"inf"`` and ``"-inf"``.

Every format has the same columns in the same order. Id columns (``model``,
``dataset``, ``group``) are printed as they are, never rounded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FORMATS", "HEADERS", "JSON_RULE", "display_name", "format_table"]

FORMATS = ("table", "csv", "json", "markdown")
# The rule for values JSON has no number for, as the command line's help states it.
JSON_RULE = 'JSON writes NaN as null and +/-infinity as "inf" / "-inf"'
# Display names of the human-readable formats (table, markdown); CSV and JSON keep
# the field names. Columns not listed here are shown by their field name.
HEADERS = {
    "average_precision": "AP",
    "average_precision_expected": "AP(exp.)",
    "roc_auc": "ROC AUC",
    "true_auc": "true AUC",
    "pr_auc": "PR AUC",
    "d_prime": "d'",
    "prbe": "PRBE",
    "prbe_threshold": "PRBE at",
    "partial_roc_auc": "pAUC",
    "partial_pr_auc": "pPR AUC",
    "all_metrics_ms": "ms",
}
# Columns of ids: printed as they are (an id 0.125 is not rounded, an id 2024 gets no
# thousands separator).
ID_COLUMNS = ("model", "dataset", "group")
# Columns of counts (or weight sums): integers print without decimals.
COUNT_COLUMNS = ("positives", "negatives", "groups")
# Columns of times in milliseconds (their names end so): 3 significant digits.
TIME_SUFFIX = "_ms"


# Operating-point columns, ``<readout>_<bound>`` and ``<readout>_<bound>_threshold``
# (the command line's --at-* options): short names with the bound, e.g. "R@P0.99".
READOUT_HEADERS = {
    "recall_at_precision": "R@P",
    "precision_at_recall": "P@R",
    "sensitivity_at_specificity": "Se@Sp",
    "specificity_at_sensitivity": "Sp@Se",
}


def display_name(name: str) -> str:
    """The header of column ``name`` in the human-readable formats."""
    if name in HEADERS:
        return HEADERS[name]
    for readout, short in READOUT_HEADERS.items():
        if name.startswith(readout + "_"):
            bound, _, rest = name[len(readout) + 1:].partition("_")
            return f"{short}{bound}" + (" at" if rest == "threshold" else "")
    for prefix, short in (("gain_", "Gain@"), ("lift_", "Lift@")):  # --at-depth columns
        if name.startswith(prefix):
            return short + name[len(prefix):]
    return name


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds."""
    item = getattr(value, "item", None)
    if item is not None and type(value).__module__ == "numpy":
        return item()
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_value(value: Any) -> Any:
    """A cell as strict JSON can hold it: NaN as None, infinities as "inf" / "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return None
        return "inf" if value > 0 else "-inf"
    return value


def _significant(value: float, digits: int = 3) -> str:
    """A positive time with ``digits`` significant digits, in fixed notation."""
    if not math.isfinite(value) or value == 0:
        return f"{value:.0f}" if value == 0 else str(value)
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def _text_cells(name: str, values: Sequence[Any], thousands: bool) -> list[str]:
    """Cells of one column for the human-readable formats."""
    sep = "," if thousands else ""
    if name in ID_COLUMNS or not all(_is_number(v) for v in values):
        return [str(v) for v in values]
    if name.endswith(TIME_SUFFIX):
        cells = [_significant(float(v)) for v in values]
        return cells if thousands else [c.replace(",", "") for c in cells]
    out = []
    for v in values:
        if isinstance(v, int):
            out.append(f"{v:{sep}d}")
        elif name in COUNT_COLUMNS and math.isfinite(v) and v.is_integer():
            out.append(f"{v:{sep}.0f}")
        else:
            out.append(f"{v:{sep}.4f}" if math.isfinite(v) else str(v))
    return out


def format_table(columns: Mapping[str, Any], fmt: str = "table") -> str:
    """Render a table of columns as text in one of :data:`FORMATS`.

    ``"csv"`` and ``"json"`` keep floats at full precision and head the
    columns with their names. ``"json"`` is a list of one object per row and
    is strict JSON: NaN (an undefined metric) is written as ``null``, and +inf
    / -inf (d' of a perfectly separating or perfectly reversed model) as the
    strings ``"inf"`` / ``"-inf"``, since JSON has no number for them.
    ``"csv"`` writes ``nan``, ``inf`` and ``-inf``, which ``float()`` and
    pandas read back. ``"table"`` and ``"markdown"`` round metrics to 4
    decimals and head the columns with their display names (:data:`HEADERS`).

    Examples
    --------
    >>> from fastrank.tables import format_table
    >>> print(format_table({"model": ["a", "b"], "roc_auc": [0.75, 0.5]}, "markdown"))
    | model | ROC AUC |
    |---|---|
    | a | 0.7500 |
    | b | 0.5000 |
    >>> format_table({"model": ["a"], "roc_auc": [float("nan")]}, "json")
    '[{"model": "a", "roc_auc": null}]'
    >>> format_table({"model": ["a", "b"], "d_prime": [float("inf"), float("-inf")]}, "json")
    '[{"model": "a", "d_prime": "inf"}, {"model": "b", "d_prime": "-inf"}]'
    >>> print(format_table({"model": ["a"], "positives": [1234], "all_metrics_ms": [12.345]}))
    model  positives    ms
    a          1,234  12.3
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {list(FORMATS)}")
    names = list(columns)
    data = [[_plain(v) for v in columns[name]] for name in names]
    rows = list(zip(*data, strict=True)) if data else []
    if fmt == "json":
        import json

        records = [{k: _json_value(v) for k, v in zip(names, row, strict=True)}
                   for row in rows]
        return json.dumps(records, allow_nan=False)
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([repr(v) if isinstance(v, float) else v for v in row])
        return buffer.getvalue().rstrip("\n")
    cells = [_text_cells(name, col, thousands=fmt == "table")
             for name, col in zip(names, data, strict=True)]
    headers = [display_name(name) for name in names]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(names)]
        lines += ["| " + " | ".join(c[i] for c in cells) + " |" for i in range(len(rows))]
        return "\n".join(lines)
    numeric = [bool(col) and name not in ID_COLUMNS and all(_is_number(v) for v in col)
               for name, col in zip(names, data, strict=True)]
    widths = [max([len(h), *(len(c) for c in col)]) for h, col in zip(headers, cells, strict=True)]

    def line(items: Sequence[str]) -> str:
        return "  ".join(item.rjust(w) if num else item.ljust(w)
                         for item, w, num in zip(items, widths, numeric, strict=True)).rstrip()

    return "\n".join([line(headers)] + [line([c[i] for c in cells]) for i in range(len(rows))])
