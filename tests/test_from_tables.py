"""The metric from tie tables (``fastrank._core.api.compute_tables``,
``fastrank.readouts.from_tables``): what the one-shot call returns for the rows the
tables count, bit for bit.

Oracle: the public function on the rows themselves (a different path to the same
tie groups: sorted classes or hashed counts, score ranges), over hypothesis-drawn
tied scores (-0.0 and 0.0 among them), float16/32/64, one task or several, every
average; values, thresholds and the warnings compared.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrank
from fastrank import readouts
from fastrank._core import api, inputs

sys.path.insert(0, str(Path(__file__).parent))
from strategies import PROPERTY_SETTINGS

SCALARS = [("average_precision", {}), ("average_precision", {"ties": "expected"}),
           ("roc_auc", {}), ("roc_auc", {"max_fpr": 0.3}), ("pr_auc", {}), ("d_prime", {}),
           ("prbe", {})]
READOUTS = [("partial_roc_auc", {"fpr": (0.0, 0.3)}),
            ("partial_pr_auc", {"recall": (0.2, 0.8)}),
            ("sensitivity_at_specificity", {"min_specificity": 0.8}),
            ("recall_at_precision", {"min_precision": 0.6, "interpolate": True}),
            ("best_cutoff", {"criterion": "mcc"})]
POOL = [-1.5, -0.0, 0.0, 0.25, 0.5, 2.0, 3.0]


def tables_of(y: np.ndarray, s: np.ndarray) -> list[api.Table]:
    """Each column's distinct scores (ascending, canonical: float16 as float32) and
    their positive and negative counts."""
    y2, s2 = y.reshape(y.shape[0], -1), inputs.canonical_scores(s).reshape(s.shape[0], -1)
    out = []
    for j in range(s2.shape[1]):
        v, at = np.unique(s2[:, j], return_inverse=True)
        pos = np.bincount(at, y2[:, j], v.size).astype(np.int64)
        out.append((v, pos, np.bincount(at, None, v.size) - pos))
    return out


def bits(result):
    """A result as comparable exact values (float64 bits; NaN equal to NaN)."""
    if isinstance(result, tuple):
        return tuple(bits(x) for x in result)
    a = np.asarray(result, np.float64)
    return a.shape, np.where(np.isnan(a), np.nan, a).tobytes()


def outcome(call):
    """A call's result (or error) and the messages of its warnings."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            got = bits(call())
        except ValueError as exc:
            got = ("ValueError", str(exc))
    return got, [str(w.message) for w in rec]


@st.composite
def tied_rows(draw, big: bool = False):
    dtype = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    tasks = draw(st.sampled_from([None, 1, 3]))
    k = draw(st.integers(1, len(POOL)))
    pool = np.array(draw(st.permutations(POOL))[:k])
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40_000, 45_000)) if big else int(draw(st.integers(1, 60)))
    shape = (n,) if tasks is None else (n, tasks)
    y = rng.random(shape) < draw(st.sampled_from([0.0, 0.3, 0.9, 1.0]))
    s = pool[rng.integers(0, k, shape)].astype(dtype)
    return y, s


@PROPERTY_SETTINGS
@given(rows=tied_rows(), case=st.sampled_from(SCALARS),
       average=st.sampled_from(["macro", "weighted", "micro", None]),
       want=st.booleans())
def test_scalars_from_tables_equal_the_one_shot_call(rows, case, average, want):
    y, s = rows
    name, options = case
    options = dict(options)
    if s.ndim == 2:
        options["average"] = average
    if name == "prbe":
        options["return_threshold"] = want
    fn = getattr(fastrank, name)
    got = outcome(lambda: api.compute_tables(name, tables_of(y, s), s.ndim == 1, **options))
    assert got == outcome(lambda: fn(y, s, **options))


@PROPERTY_SETTINGS
@given(rows=tied_rows(big=True), case=st.sampled_from(READOUTS))
def test_readouts_from_whole_tables_equal_the_one_shot_call(rows, case):
    y, s = rows
    name, options = case
    tables = tables_of(y, s)
    assert readouts.reads_whole_tables(tables)  # 40,000 rows or more, few scores
    got = outcome(lambda: readouts.from_tables(name, options, tables, s.ndim == 1))
    assert got == outcome(lambda: getattr(fastrank, name)(y, s, **options))


def test_what_needs_the_rows_is_refused_or_said():
    y, s = np.array([[1, 0], [0, 1]]), np.array([[0.5, 0.5], [0.25, 0.75]])
    with pytest.raises(ValueError, match="needs the rows"):
        api.compute_tables("average_precision", tables_of(y, s), False, average="samples")
    with pytest.raises(ValueError, match="at least one task"):
        api.compute_tables("roc_auc", [], False)
    half = (np.array([0.5], np.float16), np.array([1]), np.array([1]))
    with pytest.raises(TypeError, match="canonical float dtype"):
        api.compute_tables("roc_auc", [half], True)
    assert not readouts.reads_whole_tables(tables_of(y, s))  # too few rows
    assert not readouts.reads_whole_tables([])
