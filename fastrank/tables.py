"""Tables as text: aligned, CSV, JSON and Markdown, without pandas.

The command line prints its results through :func:`format_table`. A table is
a ``dict`` of equally long columns (numpy arrays or lists), as the table
methods of :class:`~fastrank.Evaluation` return with ``as_frame=False``.
CSV and JSON keep every float at full precision (``repr``), so they parse
back to the exact numbers; the aligned and Markdown tables round to 4 decimals.
JSON is strict (RFC 8259, no ``NaN`` or ``Infinity`` tokens): NaN is written as
``null`` and +/-infinity (the d' of a model that separates the classes
perfectly) as the strings ``"inf"`` and ``"-inf"``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["FORMATS", "JSON_RULE", "format_table"]

FORMATS = ("table", "csv", "json", "markdown")
# The rule for values JSON has no number for, as the command line's help states it.
JSON_RULE = 'JSON writes NaN as null and +/-infinity as "inf" / "-inf"'
# Short headers of the aligned text table (the other formats keep the column names).
HEADERS = {
    "average_precision": "AP",
    "average_precision_expected": "AP(exp.)",
    "roc_auc": "ROC AUC",
    "true_auc": "true AUC",
    "pr_auc": "PR AUC",
    "d_prime": "d'",
    "prbe": "PRBE",
    "prbe_threshold": "PRBE at",
    "all_metrics_ms": "ms",
}


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds."""
    return value.item() if isinstance(value, np.generic) else value


def _integral(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool)
               and math.isfinite(v) and float(v).is_integer() for v in values)


def _json_value(value: Any) -> Any:
    """A cell as strict JSON can hold it: NaN as None, infinities as "inf" / "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return None
        return "inf" if value > 0 else "-inf"
    return value


def _text_cells(values: Sequence[Any], thousands: bool) -> list[str]:
    """Cells of one column for the human-readable formats."""
    if values and all(isinstance(v, float) for v in values):
        if _integral(values):
            return [f"{v:,.0f}" if thousands else f"{v:.0f}" for v in values]
        return ["nan" if math.isnan(v) else f"{v:.4f}" for v in values]
    return [str(v) for v in values]


def format_table(columns: Mapping[str, Any], fmt: str = "table") -> str:
    """Render a table of columns as text in one of :data:`FORMATS`.

    ``"csv"`` and ``"json"`` keep floats at full precision. ``"json"`` is a list
    of one object per row and is strict JSON: NaN (an undefined metric) is
    written as ``null``, and +inf / -inf (d' of a perfectly separating or
    perfectly reversed model) as the strings ``"inf"`` / ``"-inf"``, since JSON
    has no number for them. ``"csv"`` writes ``nan``, ``inf`` and ``-inf``,
    which ``float()`` and pandas read back.

    Examples
    --------
    >>> from fastrank.tables import format_table
    >>> print(format_table({"model": ["a", "b"], "roc_auc": [0.75, 0.5]}, "markdown"))
    | model | roc_auc |
    |---|---|
    | a | 0.7500 |
    | b | 0.5000 |
    >>> format_table({"model": ["a"], "roc_auc": [float("nan")]}, "json")
    '[{"model": "a", "roc_auc": null}]'
    >>> format_table({"model": ["a", "b"], "d_prime": [float("inf"), float("-inf")]}, "json")
    '[{"model": "a", "d_prime": "inf"}, {"model": "b", "d_prime": "-inf"}]'
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {list(FORMATS)}")
    names = list(columns)
    data = [[_plain(v) for v in columns[name]] for name in names]
    rows = list(zip(*data, strict=True)) if data else []
    if fmt == "json":
        records = [{k: _json_value(v) for k, v in zip(names, row, strict=True)}
                   for row in rows]
        return json.dumps(records, allow_nan=False)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([repr(v) if isinstance(v, float) else v for v in row])
        return buffer.getvalue().rstrip("\n")
    cells = [_text_cells(col, thousands=fmt == "table") for col in data]
    if fmt == "markdown":
        lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
        lines += ["| " + " | ".join(c[i] for c in cells) + " |" for i in range(len(rows))]
        return "\n".join(lines)
    widths = [max(len(c) for c in col) if col else 0 for col in cells]
    numeric = [bool(col) and all(isinstance(v, int | float) for v in values)
               for col, values in zip(cells, data, strict=True)]

    def line(items: Sequence[str]) -> str:
        return "  ".join(item.rjust(w) if num else item.ljust(w)
                         for item, w, num in zip(items, widths, numeric, strict=True)).rstrip()

    headers = [HEADERS.get(name, name) for name in names]
    widths = [max(w, len(h)) for w, h in zip(widths, headers, strict=True)]
    return "\n".join([line(headers)] + [line([c[i] for c in cells]) for i in range(len(rows))])
