"""Id columns: the datasets, models and groups a table's rows belong to.

One place for how ids are read and split, shared by :func:`fastrank.evaluate`'s
tables and the command line's files: numpy only (no kernels), so that reading a
file's ids costs no compile.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for messages and ids: ``nan``,
    not ``np.float64(nan)``); other values as they are."""
    return value.item() if isinstance(value, np.generic) else value


def exact_ints(ints: list[int]) -> np.ndarray:
    """Python ints as int64 when all fit, else as an object array of the exact ints
    (so that ids at or beyond 2**63 stay distinct)."""
    if all(-2**63 <= v < 2**63 for v in ints):
        return np.array(ints, dtype=np.int64)
    out = np.empty(len(ints), dtype=object)
    out[:] = ints
    return out


def integral_ids(values: np.ndarray) -> np.ndarray:
    """Float ids as integers when every one is an integer (``1.0`` is id ``1``),
    int64 where all fit; any other float ids unchanged."""
    if not np.all(np.isfinite(values)) or not np.all(values == np.trunc(values)):
        return values
    if np.all((values >= -2.0**63) & (values < 2.0**63)):
        return values.astype(np.int64)  # every value fits: no cast overflows
    return exact_ints([int(v) for v in values.tolist()])


def rows_by_id(ids: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """Each distinct id with the rows holding it (increasing), ids in order of first
    appearance: how datasets and groups of a table are split, everywhere."""
    if ids.dtype.kind == "O":  # values numpy may not order (mixed types): hash them
        index: dict[Any, int] = {}
        codes = np.fromiter((index.setdefault(v, len(index)) for v in ids.tolist()),
                            dtype=np.intp, count=ids.shape[0])
        keys = list(index)
        order = np.arange(len(keys))
    else:
        uniq, first, codes = np.unique(ids, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
        keys = [plain(u) for u in uniq]
        order = np.argsort(first, kind="stable")
    rows = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(keys)))))
    return [(keys[k], rows[bounds[k]:bounds[k + 1]]) for k in order]


def id_kind(g: np.ndarray) -> str:
    """Whether group ids are numbers or text (the two may not be mixed)."""
    if g.dtype.kind in "biuf":
        return "numeric"
    if g.dtype.kind in "US":
        return "text"
    kinds = {"text" if isinstance(v, (str, bytes)) else "numeric" for v in g.tolist()}
    return kinds.pop() if len(kinds) == 1 else "mixed"
