"""Bad input to the batched forms: a ValueError that names the problem, raised
before any computation, for every scalar function and ``all_metrics``.

The inputs hold a task with one class on purpose: a check made after the
per-task work would emit an UndefinedMetricWarning first, which the test
configuration (filterwarnings=error) turns into a different exception.
Also: an empty task axis, which is not an error.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import fastrank
from fastrank import UndefinedMetricWarning

FUNCS = [
    fastrank.average_precision,
    fastrank.roc_auc,
    fastrank.pr_auc,
    fastrank.d_prime,
    fastrank.prbe,
    fastrank.all_metrics,
]
SCALAR = FUNCS[:5]
every_function = pytest.mark.parametrize("func", FUNCS, ids=[f.__name__ for f in FUNCS])
scalar_function = pytest.mark.parametrize("func", SCALAR, ids=[f.__name__ for f in SCALAR])
# The error must not depend on the averaging asked for.
any_average = pytest.mark.parametrize("average", [None, "macro", "micro"])

N, T = 8, 3


def label_matrix() -> np.ndarray:
    """0/1 labels; task 0 has no positives (undefined), the others both classes."""
    y = np.array(
        [
            [0, 1, 0],
            [0, 0, 1],
            [0, 1, 1],
            [0, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0, 1, 0],
            [0, 0, 1],
        ]
    )
    assert y.shape == (N, T)
    return y


def score_matrix() -> np.ndarray:
    return np.arange(N * T, dtype=np.float64).reshape(N, T) % 5


Y1 = np.array([0, 1, 0, 1, 1, 0, 0, 0])  # 1-D binary labels
S1 = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4, 0.4, 0.7])
IDS = np.array([1, 1, 2, 2, 2, 3, 3, 3])  # group 3 has no positives
YC = np.array([0, 1, 2, 0, 1, 2, 0, 0])  # 1-D multiclass labels (3 classes)


def both_names(message: str) -> bool:
    return "y_true" in message and "y_score" in message


# --------------------------------------------------------------------- shapes


@every_function
@any_average
@pytest.mark.parametrize(
    "y_shape, s_shape",
    [((N, T), (N, T + 1)), ((N, T), (N - 1, T)), ((N, T), (N,)), ((N, 1), (N,)), ((N, T), (T, N))],
    ids=["more-columns", "fewer-rows", "1-D-scores", "column-vs-vector", "transposed"],
)
def test_label_and_score_shapes_differ(func, average, y_shape, s_shape):
    y = np.resize(label_matrix(), y_shape)
    y[0] = 1  # keep two classes in every form
    s = np.resize(score_matrix(), s_shape)
    with pytest.raises(ValueError) as info:
        func(y, s, average=average)
    assert both_names(str(info.value)), str(info.value)


@every_function
@any_average
@pytest.mark.parametrize("which", ["y_score", "y_true", "both"])
def test_three_d_input(func, average, which):
    y = label_matrix().reshape(2, 4, T) if which in ("y_true", "both") else label_matrix()
    s = score_matrix().reshape(2, 4, T) if which in ("y_score", "both") else score_matrix()
    with pytest.raises(ValueError, match=r"(?i)3-?D|dimension|ndim"):
        func(y, s, average=average)


@every_function
@any_average
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "+inf", "-inf"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["multilabel-C", "multilabel-F", "multiclass"])
def test_non_finite_score_names_row_and_column(func, average, bad, dtype, mode):
    rng = np.random.default_rng(0)
    n, t = 40, 7
    s = rng.random((n, t)).astype(dtype)
    s[29, 4] = bad
    if mode == "multiclass":
        y = np.arange(n) % t  # t classes for t columns
    else:
        y = (rng.random((n, t)) < 0.5).astype(np.int64)
        y[:, 0] = 0  # an undefined task
        if mode == "multilabel-F":
            s, y = np.asfortranarray(s), np.asfortranarray(y)
    with pytest.raises(ValueError) as info:
        func(y, s, average=average)
    message = str(info.value)
    assert "y_score" in message, message
    assert re.search(r"(?i)non-finite|nan|inf|finite", message), message
    assert re.search(r"\b29\b", message), message  # the row
    assert re.search(r"\b4\b", message), message  # the task / column


def three_label_values(kind: str) -> tuple[np.ndarray, object]:
    """A label matrix holding three distinct values (and the pos_label to pass)."""
    y = label_matrix()
    if kind == "ints":
        y = y.copy()
        y[3, 0] = 2
        return y, None
    if kind == "pm1-and-0":
        y = 2 * y - 1
        y[3, 0] = 0
        return y, None
    if kind == "bools-as-ints-and-2":
        y = y.astype(np.float64)
        y[3, 0] = 0.5
        return y, None
    y = np.where(y == 1, "a", "b")
    y[3, 0] = "c"
    return y, "a"


@every_function
@any_average
@pytest.mark.parametrize("kind", ["ints", "pm1-and-0", "bools-as-ints-and-2", "strings"])
def test_labels_outside_two_classes(func, average, kind):
    y, pos_label = three_label_values(kind)
    assert len(np.unique(y)) == 3
    with pytest.raises(ValueError, match=r"(?i)class|label"):
        func(y, score_matrix(), pos_label=pos_label, average=average)


@every_function
def test_labels_without_pos_label_outside_known_sets(func):
    y = np.where(label_matrix() == 1, 7, 3)
    with pytest.raises(ValueError, match=r"pos_label"):
        func(y, score_matrix())


@every_function
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_labels_outside_zero_one(func, fmt):
    y = label_matrix().copy()
    y[2, 1] = 2
    with pytest.raises(ValueError, match=r"(?i)y_true|label|class"):
        func(sp.coo_matrix(y).asformat(fmt), score_matrix())


@every_function
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_labels_of_the_wrong_shape(func, fmt):
    y = sp.coo_matrix(label_matrix()).asformat(fmt)
    with pytest.raises(ValueError) as info:
        func(y, score_matrix()[:, :2])
    assert both_names(str(info.value)), str(info.value)


# -------------------------------------------------------------------- weights


@every_function
@any_average
@pytest.mark.parametrize(
    "shape", [(N - 1,), (N + 1,), (N, T), (N, 1), (1, N)], ids=["short", "long", "2d", "col", "row"]
)
@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped"])
def test_weight_shape(func, average, shape, mode):
    w = np.ones(shape)
    with pytest.raises(ValueError, match=r"sample_weight"):
        if mode == "multilabel":
            func(label_matrix(), score_matrix(), sample_weight=w, average=average)
        elif mode == "multiclass":
            func(YC, score_matrix(), sample_weight=w, average=average)
        else:
            func(Y1, S1, groups=IDS, sample_weight=w, average=average)


@every_function
@any_average
@pytest.mark.parametrize("bad", [-1.0, np.nan, -1e-300, np.inf], ids=["neg", "nan", "tiny", "inf"])
@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped"])
def test_bad_weight_values(func, average, bad, mode):
    w = np.ones(N)
    w[6] = bad
    with pytest.raises(ValueError, match=r"sample_weight"):
        if mode == "multilabel":
            func(label_matrix(), score_matrix(), sample_weight=w, average=average)
        elif mode == "multiclass":
            func(YC, score_matrix(), sample_weight=w, average=average)
        else:
            func(Y1, S1, groups=IDS, sample_weight=w, average=average)


# --------------------------------------------------------------------- groups


@every_function
@any_average
@pytest.mark.parametrize(
    "groups",
    [IDS[:-1], np.append(IDS, 1), IDS.reshape(N, 1), IDS.reshape(2, 4), np.ones((N, 2), int)],
    ids=["short", "long", "column", "2x4", "2d"],
)
def test_bad_groups(func, average, groups):
    with pytest.raises(ValueError, match=r"groups"):
        func(Y1, S1, groups=groups, average=average)


@every_function
@any_average
@pytest.mark.parametrize("mode", ["multilabel", "multiclass"])
def test_groups_with_two_d_scores(func, average, mode):
    y = label_matrix() if mode == "multilabel" else YC
    with pytest.raises(ValueError, match=r"groups"):
        func(y, score_matrix(), groups=IDS, average=average)


# ----------------------------------------------------------------- multiclass


@every_function
@any_average
@pytest.mark.parametrize(
    "y, labels",
    [
        (Y1, None),  # two classes, three columns
        (np.array([0, 1, 2, 3, 0, 1, 2, 3]), None),  # four classes, three columns
        (np.array(["a", "b", "a", "b", "a", "b", "a", "b"]), None),
        (YC, [0, 1]),  # labels= shorter than the columns
        (YC, [0, 1, 2, 3]),  # labels= longer than the columns
    ],
    ids=["2-classes", "4-classes", "2-strings", "short-labels", "long-labels"],
)
def test_classes_do_not_match_columns(func, average, y, labels):
    with pytest.raises(ValueError, match=r"(?i)class|column|label"):
        func(y, score_matrix(), labels=labels, average=average)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ovo_with_sample_weight(average):
    with pytest.raises(ValueError, match=r"sample_weight|ovo"):
        fastrank.roc_auc(
            YC, score_matrix(), multi_class="ovo", sample_weight=np.ones(N), average=average
        )


@pytest.mark.parametrize("average", [None, "micro", "size", "pairs"])
def test_ovo_supports_macro_and_weighted_only(average):
    with pytest.raises(ValueError, match=r"average|ovo"):
        fastrank.roc_auc(YC, score_matrix(), multi_class="ovo", average=average)


def test_ovo_with_a_label_matrix():
    """One-vs-one is for 1-D class labels; the message must say so, not misreport the shape."""
    y = label_matrix()
    with pytest.raises(ValueError) as info:
        fastrank.roc_auc(y, score_matrix(), multi_class="ovo")
    message = str(info.value)
    assert re.search(r"(?i)ovo|one-vs-one|multiclass", message), message


# ------------------------------------------------------------------- average


@every_function
@pytest.mark.parametrize("average", ["bogus", "samples", "Macro", ""])
@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped"])
def test_invalid_average(func, average, mode):
    if mode == "multilabel" and average == "samples":
        pytest.skip("valid for a label matrix: each sample's labels ranked (test_rankings.py)")
    with pytest.raises(ValueError, match=r"average"):
        if mode == "multilabel":
            func(label_matrix(), score_matrix(), average=average)
        elif mode == "multiclass":
            func(YC, score_matrix(), average=average)
        else:
            func(Y1, S1, groups=IDS, average=average)


@pytest.mark.parametrize("average", ["macro", "weighted", "size", "pairs"])
@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped"])
def test_prbe_threshold_with_an_average(average, mode):
    with pytest.raises(ValueError, match=r"return_threshold|average"):
        if mode == "multilabel":
            fastrank.prbe(label_matrix(), score_matrix(), average=average, return_threshold=True)
        elif mode == "multiclass":
            fastrank.prbe(YC, score_matrix(), average=average, return_threshold=True)
        else:
            fastrank.prbe(Y1, S1, groups=IDS, average=average, return_threshold=True)


@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped"])
def test_prbe_threshold_with_micro_is_fine(mode):
    if mode == "multilabel":
        y, s, kw = label_matrix(), score_matrix(), {}
        want = fastrank.prbe(y.ravel(), s.ravel(), return_threshold=True)
    elif mode == "multiclass":
        y, s, kw = YC, score_matrix(), {}
        y_cells = (YC[:, None] == np.arange(T)).ravel()
        want = fastrank.prbe(y_cells, s.ravel(), return_threshold=True)
    else:
        y, s, kw = Y1, S1, {"groups": IDS}
        want = fastrank.prbe(Y1, S1, return_threshold=True)
    got = fastrank.prbe(y, s, average="micro", return_threshold=True, **kw)
    assert got == want


# ---------------------------------------------------------------- no samples


@every_function
@any_average
@pytest.mark.parametrize("mode", ["multilabel", "multiclass", "grouped", "multilabel-no-tasks"])
def test_zero_samples(func, average, mode):
    with pytest.raises(ValueError, match=r"(?i)empty|sample"):
        if mode == "multilabel":
            func(np.zeros((0, T), int), np.zeros((0, T)), average=average)
        elif mode == "multilabel-no-tasks":
            func(np.zeros((0, 0), int), np.zeros((0, 0)), average=average)
        elif mode == "multiclass":
            func(np.zeros(0, int), np.zeros((0, T)), average=average)
        else:
            func(np.zeros(0, int), np.zeros(0), groups=np.zeros(0, int), average=average)


# ---------------------------------------------------------- empty task axis


@scalar_function
@pytest.mark.parametrize("y_dtype", [np.int64, bool])
def test_no_tasks_with_average_none_is_an_empty_array(func, y_dtype):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = func(np.zeros((N, 0), y_dtype), np.zeros((N, 0)), average=None)
    assert isinstance(got, np.ndarray)
    assert got.dtype == np.float64 and got.shape == (0,)
    assert rec == [], [str(w.message) for w in rec]


@scalar_function
@pytest.mark.parametrize("average", ["macro", "weighted", "size", "pairs"])
def test_no_tasks_with_an_average_is_nan_with_a_warning(func, average):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = func(np.zeros((N, 0), np.int64), np.zeros((N, 0)), average=average)
    assert isinstance(got, float) and math.isnan(got)
    assert len(rec) == 1 and issubclass(rec[0].category, UndefinedMetricWarning)


def test_no_tasks_prbe_with_thresholds():
    values, thresholds = fastrank.prbe(
        np.zeros((N, 0), np.int64), np.zeros((N, 0)), average=None, return_threshold=True
    )
    assert values.shape == thresholds.shape == (0,)
    assert values.dtype == thresholds.dtype == np.float64


def test_average_samples_ranks_each_samples_labels() -> None:
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    S = np.array([[.9, .2], [.4, .8], [.7, .3]])
    with pytest.warns(fastrank.UndefinedMetricWarning,
                      match=r"1 of 3 samples \(1 without negative labels\)"):
        assert fastrank.roc_auc(Y, S, average="samples") == 1.0  # the third is left out
    with pytest.raises(ValueError, match="return_threshold=True gives one threshold per task"):
        fastrank.prbe(Y, S, average="samples", return_threshold=True)


@pytest.mark.parametrize("func", [fastrank.roc_auc, fastrank.average_precision,
                                  fastrank.all_metrics])
@pytest.mark.parametrize("sparse", [False, True])
def test_micro_average_of_no_cells(func, sparse):
    """A (6, 0) label matrix and scores pooled by ``average="micro"``: a clear error
    (it was numpy's "zero-size array to reduction operation minimum")."""
    y = sp.csr_matrix((6, 0)) if sparse else np.zeros((6, 0))
    with pytest.raises(ValueError, match=r"y_score has no cells \(6 samples x 0 tasks\)"):
        func(y, np.zeros((6, 0)), average="micro")


def test_class_labels_against_no_score_columns():
    """1-D class labels with scores of no columns, ``labels=[]``: a clear error (it was
    an IndexError from inside)."""
    with pytest.raises(ValueError, match=r"y_score has no columns \(shape \(3, 0\)\)"):
        fastrank.roc_auc(np.array([0, 1, 2]), np.zeros((3, 0)), labels=[])
