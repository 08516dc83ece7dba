"""TREC run and qrels files read into arrays, each bad line named with its file
and line."""

from __future__ import annotations

import numpy as np

from ..readers import DataError
from .ids import codes, repeated, rows


def columns(path: str, width: int, what: str, picks: tuple[int, ...]) -> list[list[str]]:
    """The columns ``picks`` of a whitespace-separated file whose lines hold at least
    ``width`` columns (blank lines skipped). When every line holds as many, the
    file is split once and the columns taken by stride (no list per line: a
    million-line run reads in about a second); otherwise line by line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    counts = np.fromiter(map(len, map(str.split, lines)), np.int64, len(lines))
    short = np.flatnonzero((counts > 0) & (counts < width))
    if short.shape[0]:
        i = int(short[0])
        raise DataError(f"{path}:{i + 1}: a {what} line needs {width} columns; got "
                        f"{counts[i]}: {lines[i].strip()!r}")
    filled = counts[counts > 0]
    if not filled.shape[0]:
        raise DataError(f"{path}: no {what} lines")
    if filled.min() == filled.max():
        tokens = text.split()
        return [tokens[p::int(filled[0])] for p in picks]
    rows = [line.split() for line, c in zip(lines, counts.tolist(), strict=True) if c]
    return [[r[p] for r in rows] for p in picks]


def number(path: str, values: list[str], what: str) -> np.ndarray:
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        bad = next(v for v in values if not is_float(v))
        raise DataError(f"{path}: a {what} is not a number: {bad!r}") from None
    if not np.isfinite(out).all():
        raise DataError(f"{path}: a {what} is NaN or infinite")
    return out


def is_float(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def read_run(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A TREC run file as ``(qids, docids, scores)`` (strings, strings, float64).

    Each line: ``qid Q0 docid rank score tag``. A document listed twice for one
    query is a data error.
    """
    q, d, v = columns(path, 5, "run", (0, 2, 4))
    qids, docs = np.array(q), np.array(d)
    scores = number(path, v, "score")
    qc = rows(codes(qids)[1][0], qids.shape[0])
    dc = rows(codes(docs)[1][0], docs.shape[0])
    j = repeated(qc, dc)
    if j is not None:
        raise DataError(f"{path}: query {qids[j]} lists document {docs[j]} more than once")
    return qids, docs, scores


def read_qrels(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A TREC qrels file as ``(qids, docids, relevance)`` (strings, strings, float64).

    Each line: ``qid iter docid relevance``; relevance 1 and above is relevant
    (0 and negative grades are judged not relevant).
    """
    q, d, v = columns(path, 4, "qrels", (0, 2, 3))
    qids, docs = np.array(q), np.array(d)
    rel = number(path, v, "relevance")
    return qids, docs, rel
