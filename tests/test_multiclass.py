"""Multiclass calls: 1-D class labels and a 2-D score matrix, one column per class.

One-vs-rest: the value of class k (``labels[k]``, else the k-th sorted class)
must be *bit for bit* the single-task function on ``y_true == class_k`` and
column k. Averages against scikit-learn 1.9.1 (``roc_auc_score`` with
``multi_class="ovr"`` and ``"ovo"``, ``average_precision_score``) on
probability-like scores (rows summing to 1), to 1e-12, and by hand: averages
from per-class values and class totals (tests/oracles.py ``task_mean``), the
Hand & Till one-vs-one mean from single-task ROC AUCs on class pairs.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.preprocessing import label_binarize

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import (
    assert_batch_fields,
    assert_fields_close,
    assert_task_values,
    call,
    close,
    quiet,
)

TOL = 1e-12
SCALAR = ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe")
FIELDS = tuple(f.name for f in dataclasses.fields(fastrank.BinaryMetrics))
AVERAGES = ("macro", "weighted", "size", "pairs")

CLASS_SETS: dict[str, Any] = {
    "int": np.array([0, 1, 2, 3]),
    "int_sparse": np.array([-3, 7, 10, 250]),
    "str": np.array(["cat", "dog", "emu", "yak"]),
    "two": np.array([4, 9]),
}


# --------------------------------------------------------------------- helpers


def multiclass_inputs(seed: int, classes: np.ndarray, n: int = 90) -> tuple[np.ndarray, np.ndarray]:
    """Labels holding every class, and rows of probabilities with many ties.

    Each row is integer counts over their sum: rows sum to 1 (to rounding) as
    scikit-learn requires, and equal fractions recur across rows.
    """
    rng = np.random.default_rng(seed)
    c = len(classes)
    index = np.concatenate([np.arange(c), rng.integers(0, c, n - c)])
    rng.shuffle(index)
    counts = rng.integers(1, 5, (n, c))
    counts[np.arange(n), index] += rng.integers(0, 4, n)  # informative, not perfect
    s = counts / counts.sum(axis=1, keepdims=True)
    return classes[index], s


def weights_for(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 500)
    w = rng.uniform(0.0, 2.0, n)
    w[rng.random(n) < 0.1] = 0.0
    return w


def class_totals(y: np.ndarray, classes: Any, w: Any) -> tuple[list[float], list[float]]:
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    pos = [math.fsum(weights[y == c]) for c in classes]
    neg = [math.fsum(weights[y != c]) for c in classes]
    return pos, neg


def per_class(func: Any, y: np.ndarray, s: np.ndarray, classes: Any, **kw: Any) -> list[Any]:
    return [quiet(func, y == c, s[:, k], **kw) for k, c in enumerate(classes)]


# ----------------------------------------------------------- per class == single


@pytest.mark.parametrize("kind", list(CLASS_SETS))
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_ovr_per_class_equals_single_task(kind, weighted):
    classes = CLASS_SETS[kind]
    y, s = multiclass_inputs(1, classes)
    w = weights_for(1, len(y)) if weighted else None
    # two classes with two score columns: labels= says the call is multiclass (as in
    # scikit-learn, 1-D binary labels with a 2-column score matrix are refused)
    kw = {"labels": classes} if kind == "two" else {}
    for name in SCALAR:
        func = getattr(fastrank, name)
        got, rec = call(func, y, s, sample_weight=w, average=None, **kw)
        assert_task_values(got, per_class(func, y, s, classes, sample_weight=w))
        assert rec == []
    got = fastrank.roc_auc(y, s, sample_weight=w, average=None, max_fpr=0.2, **kw)
    assert_task_values(
        got, per_class(fastrank.roc_auc, y, s, classes, sample_weight=w, max_fpr=0.2)
    )
    if not weighted:
        got = fastrank.average_precision(y, s, average=None, ties="expected", **kw)
        want = per_class(fastrank.average_precision, y, s, classes, ties="expected")
        assert_task_values(got, want)
    values, thresholds = fastrank.prbe(y, s, sample_weight=w, average=None, return_threshold=True,
                                 **kw)
    want = per_class(fastrank.prbe, y, s, classes, sample_weight=w, return_threshold=True)
    assert_task_values(values, [v for v, _ in want])
    assert_task_values(thresholds, [t for _, t in want])
    for max_fpr in (None, 0.3):
        batch = fastrank.all_metrics(y, s, sample_weight=w, average=None, max_fpr=max_fpr,
                                     **kw)
        assert isinstance(batch, fastrank.BatchMetrics)
        np.testing.assert_array_equal(batch.groups, classes)  # the class of each task
        singles = per_class(fastrank.all_metrics, y, s, classes, sample_weight=w, max_fpr=max_fpr)
        assert_batch_fields(batch, singles, max_fpr)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_score_dtypes_and_fortran_order(dtype):
    classes = CLASS_SETS["int"]
    y, s = multiclass_inputs(2, classes)
    rng = np.random.default_rng(2)
    if dtype == "float32":
        s = s.astype(np.float32)
    elif dtype == "int64":
        s = rng.integers(0, 4, s.shape)
    else:
        s = rng.random(s.shape) < 0.5
    for order in ("C", "F"):
        s_o = np.asfortranarray(s) if order == "F" else np.ascontiguousarray(s)
        for name in SCALAR:
            func = getattr(fastrank, name)
            assert_task_values(quiet(func, y, s_o, average=None), per_class(func, y, s, classes))


def test_string_labels_as_a_list():
    classes = CLASS_SETS["str"]
    y, s = multiclass_inputs(3, classes)
    for name in SCALAR:
        func = getattr(fastrank, name)
        got = func(y.tolist(), s, average=None)
        assert_task_values(got, per_class(func, y, s, classes))


def test_classes_are_sorted_unique_values():
    """Without labels=, column k is the k-th class in sorted order, not first appearance."""
    classes = np.array(["b", "c", "a"])  # appearance order differs from sorted order
    y = np.array(["b", "c", "a", "b", "a", "c", "a", "b"])
    s = np.random.default_rng(4).dirichlet(np.ones(3), size=8)
    got = fastrank.roc_auc(y, s, average=None)
    assert_task_values(got, per_class(fastrank.roc_auc, y, s, np.sort(classes)))


# -------------------------------------------------------------------- labels=


@pytest.mark.parametrize("kind", ["int", "str", "int_sparse"])
def test_labels_out_of_order_refused_by_every_function(kind):
    """labels= names the classes of the columns in sorted order (scikit-learn's rule);
    a permuted list would relabel the columns silently, so it is refused."""
    classes = CLASS_SETS[kind]
    y, s = multiclass_inputs(5, classes)
    w = weights_for(5, len(y))
    perm = [2, 0, 3, 1]
    labels = classes[perm]
    for name in SCALAR:
        func = getattr(fastrank, name)
        for given in (labels, labels.tolist()):
            with pytest.raises(ValueError, match="labels must be sorted"):
                func(y, s[:, perm], sample_weight=w, labels=given, average=None)
        # sorted labels= (all classes) is the call without labels=, bit for bit
        np.testing.assert_array_equal(
            func(y, s, sample_weight=w, labels=classes, average=None),
            func(y, s, sample_weight=w, average=None))


def test_labels_with_a_class_absent_from_y_true():
    classes = CLASS_SETS["int"]
    y, s = multiclass_inputs(6, classes)
    y = np.where(y == 3, 0, y)  # class 3 never occurs
    labels = [0, 1, 2, 3]
    for name in SCALAR:
        func = getattr(fastrank, name)
        got, rec = call(func, y, s, labels=labels, average=None)
        assert_task_values(got, per_class(func, y, s, labels))
        assert math.isnan(got[3])
        assert len(rec) == 1 and re.search(r"\b1\b", str(rec[0].message))


def test_labels_on_two_classes():
    y, s = multiclass_inputs(7, CLASS_SETS["two"])
    got = fastrank.roc_auc(y, s, labels=[4, 9], average=None)
    assert_task_values(got, per_class(fastrank.roc_auc, y, s, [4, 9]))


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_unsorted_labels_refused(multi_class):
    """Column k is the k-th smallest class (scikit-learn's rule): unsorted labels are
    refused, and the reordering the message gives is the same call."""
    classes = CLASS_SETS["int_sparse"]
    y, s = multiclass_inputs(8, classes)
    perm = np.array([2, 0, 3, 1])
    with pytest.raises(ValueError, match="labels must be sorted") as info:
        fastrank.roc_auc(y, s[:, perm], labels=classes[perm], multi_class=multi_class)
    assert "argsort" in str(info.value)
    labels, scores = classes[perm], s[:, perm]
    i = np.argsort(labels)
    assert fastrank.roc_auc(y, scores[:, i], labels=labels[i], multi_class=multi_class) == (
        fastrank.roc_auc(y, s, multi_class=multi_class)
    )


# --------------------------------------------------------------- vs scikit-learn


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind", ["int", "str"])
def test_ovr_roc_auc_against_sklearn(kind, weighted, average):
    y, s = multiclass_inputs(8, CLASS_SETS[kind])
    w = weights_for(8, len(y)) if weighted else None
    got = fastrank.roc_auc(y, s, sample_weight=w, average=average)
    default = fastrank.roc_auc(y, s, sample_weight=w, average=average, multi_class="ovr")
    want = skm.roc_auc_score(y, s, sample_weight=w, average=average, multi_class="ovr")
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_array_equal(got, default)


@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("kind", ["int", "str", "int_sparse"])
def test_ovo_roc_auc_against_sklearn(kind, average):
    y, s = multiclass_inputs(9, CLASS_SETS[kind])
    got = fastrank.roc_auc(y, s, multi_class="ovo", average=average)
    want = skm.roc_auc_score(y, s, multi_class="ovo", average=average)
    assert isinstance(got, float)
    assert close(got, want), (got, want)


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind", ["int", "str"])
def test_average_precision_against_sklearn(kind, weighted, average):
    classes = CLASS_SETS[kind]
    y, s = multiclass_inputs(10, classes)
    w = weights_for(10, len(y)) if weighted else None
    got = fastrank.average_precision(y, s, sample_weight=w, average=average)
    want = skm.average_precision_score(y, s, sample_weight=w, average=average)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    # the same as the binarised label matrix
    y_bin = label_binarize(y, classes=classes)
    want_bin = skm.average_precision_score(y_bin, s, sample_weight=w, average=average)
    np.testing.assert_allclose(got, want_bin, rtol=0, atol=TOL)


# ------------------------------------------------------------------ by hand


def ovo_by_hand(y: np.ndarray, s: np.ndarray, classes: Any, average: str) -> float:
    """Hand & Till: per class pair the mean of the two directed single-task AUCs."""
    scores, prevalence = [], []
    for a, b in itertools.combinations(range(len(classes)), 2):
        mask = (y == classes[a]) | (y == classes[b])
        auc_a = fastrank.roc_auc(y[mask] == classes[a], s[mask, a])
        auc_b = fastrank.roc_auc(y[mask] == classes[b], s[mask, b])
        scores.append((auc_a + auc_b) / 2)
        prevalence.append(mask.mean())
    if average == "macro":
        return math.fsum(scores) / len(scores)
    return math.fsum(v * p for v, p in zip(scores, prevalence, strict=True)) / math.fsum(prevalence)


@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("kind", ["int", "str", "int_sparse", "two"])
def test_ovo_by_hand_on_raw_scores(kind, average):
    """One-vs-one needs no probabilities: integer scores, heavy ties."""
    classes = CLASS_SETS[kind]
    y, _ = multiclass_inputs(11, classes, n=70)
    rng = np.random.default_rng(11)
    s = rng.integers(0, 5, (len(y), len(classes)))
    kw = {"labels": classes} if kind == "two" else {}  # two columns: say it is multiclass
    got = fastrank.roc_auc(y, s, multi_class="ovo", average=average, **kw)
    assert close(got, ovo_by_hand(y, s, classes, average)), got
    # relabelling the classes (an order-preserving map) cannot change the one-vs-one mean
    relabelled = np.char.add("x", classes) if kind == "str" else classes * 3 + 1
    got_relabel = fastrank.roc_auc(
        relabelled[np.searchsorted(classes, y)], s,
        **({"labels": relabelled} if kind == "two" else {}), multi_class="ovo", average=average
    )
    assert close(got_relabel, got), (got_relabel, got)


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", SCALAR)
def test_ovr_averages_by_hand(name, average, weighted):
    classes = CLASS_SETS["str"]
    y, s = multiclass_inputs(12, classes)
    w = weights_for(12, len(y)) if weighted else None
    func = getattr(fastrank, name)
    values = func(y, s, sample_weight=w, average=None)
    pos, neg = class_totals(y, classes, w)
    want = oracles.task_mean(values, pos, neg, average)
    got = func(y, s, sample_weight=w, average=average)
    assert isinstance(got, float)
    assert close(got, want), (got, want)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", [*SCALAR, "all_metrics"])
def test_micro_is_the_binarised_matrix_raveled(name, weighted):
    classes = CLASS_SETS["int_sparse"]
    y, s = multiclass_inputs(13, classes)
    w = weights_for(13, len(y)) if weighted else None
    func = getattr(fastrank, name)
    got = func(y, s, sample_weight=w, average="micro")
    y_cells = label_binarize(y, classes=classes).ravel()
    w_cells = None if w is None else np.repeat(w, len(classes))
    want = func(y_cells, s.ravel(), sample_weight=w_cells)
    tol = TOL if weighted else 0.0
    if name == "all_metrics":
        assert_fields_close(got, want, tol)
    else:
        assert close(got, want, tol), (got, want)


@pytest.mark.parametrize("average", AVERAGES)
def test_all_metrics_averages(average):
    classes = CLASS_SETS["int"]
    y, s = multiclass_inputs(14, classes)
    w = weights_for(14, len(y))
    batch = fastrank.all_metrics(y, s, sample_weight=w, average=None, max_fpr=0.5)
    averaged = fastrank.all_metrics(y, s, sample_weight=w, average=average, max_fpr=0.5)
    mean = batch.mean(average)
    pos, neg = class_totals(y, classes, w)
    for field in ("average_precision", "roc_auc", "roc_auc_partial", "pr_auc", "d_prime", "prbe"):
        want = oracles.task_mean(getattr(batch, field), pos, neg, average)
        assert close(getattr(averaged, field), want), field
        assert close(getattr(mean, field), want), field
