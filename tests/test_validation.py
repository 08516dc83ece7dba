"""Bad input: every public function rejects it with a message that names the
argument and the problem; a task with one class gives NaN and one warning."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import warnings

import numpy as np
import pytest

import fastrank
from fastrank import UndefinedMetricWarning

# Every public function of (y_true, y_score, ...), taken from the package so that
# new ones are covered too. ``evaluate`` takes (scores, labels) for many models and
# datasets, the DeLong tests two score vectors and ``bootstrap_ci`` a metric first;
# tests/test_evaluation.py, test_delong.py and test_bootstrap.py check their bad input.
# Functions with a required third argument (a depth, a bound) get a valid one.
THIRD = {"gain_at_depth": 0.5, "lift_at_depth": 0.5, "sensitivity_at_specificity": 0.8,
         "specificity_at_sensitivity": 0.8, "recall_at_precision": 0.5,
         "precision_at_recall": 0.5}


def _with_third(func):
    params = list(inspect.signature(func).parameters.values())
    if len(params) < 3 or params[2].default is not inspect.Parameter.empty \
            or params[2].kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
        return func
    assert func.__name__ in THIRD, f"give {func.__name__} a third argument in THIRD"

    @functools.wraps(func)
    def call(y_true, y_score, *args, **kwargs):
        return func(y_true, y_score, THIRD[func.__name__], *args, **kwargs)

    return call


# The label-ranking functions take label matrices only (each sample's labels ranked):
# their input checks are in test_rankings.py.
MATRIX_ONLY = set(fastrank.rankings.__all__)
FUNCS = [
    _with_third(getattr(fastrank, name))
    for name in fastrank.__all__
    if inspect.isfunction(getattr(fastrank, name)) and name not in MATRIX_ONLY
    and list(inspect.signature(getattr(fastrank, name)).parameters)[:2] == ["y_true", "y_score"]
]
assert len(FUNCS) >= 10
SCALAR = [
    fastrank.average_precision,
    fastrank.roc_auc,
    fastrank.pr_auc,
    fastrank.d_prime,
    fastrank.prbe,
]
ids = [f.__name__ for f in FUNCS]
every_function = pytest.mark.parametrize("func", FUNCS, ids=ids)

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4])


def recorded(func, *args, **kwargs):
    """Call ``func`` and return (result, list of warnings it emitted)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, rec


def undefined_warnings(rec):
    return [w for w in rec if issubclass(w.category, UndefinedMetricWarning)]


# --------------------------------------------------------------------------- scores


@every_function
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_score(func, dtype, bad):
    s = S.astype(dtype)
    s[3] = bad
    with pytest.raises(ValueError, match=r"y_score.*non-finite.*index 3"):
        func(Y, s)


@every_function
@pytest.mark.parametrize(
    "make",
    [
        lambda s: s.astype(">f8"),
        lambda s: np.repeat(s, 2)[::2],
        lambda s: list(s),
    ],
    ids=["big-endian", "strided", "list"],
)
def test_non_finite_score_in_other_layouts(func, make):
    s = S.copy()
    s[0] = np.nan
    with pytest.raises(ValueError, match=r"y_score.*non-finite"):
        func(Y, make(s))


@every_function
@pytest.mark.parametrize(
    "scores",
    [
        np.array(["a", "b", "c", "d", "e", "f"]),
        ["0.1", "0.5", "0.3", "0.2", "0.9", "0.4"],
        np.array([0.1, None, 0.3, 0.2, 0.9, 0.4], dtype=object),
        np.array([0.1, "0.5", 0.3, 0.2, 0.9, 0.4], dtype=object),
        np.array([0.1, 0.5, 0.3, 0.2, 0.9, 1j], dtype=object),
        np.arange(6).astype("datetime64[s]"),
    ],
    ids=["str-array", "str-list", "object-None", "object-str", "object-complex", "datetime"],
)
def test_non_numeric_scores(func, scores):
    with pytest.raises(TypeError, match=r"y_score.*(real numbers|dtype)"):
        func(Y, scores)


def _same_result(a, b):
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b)
        for f in dataclasses.fields(a):
            _same_result(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, z in zip(a, b, strict=True):
            _same_result(x, z)
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert np.asarray(a).dtype == np.asarray(b).dtype


@every_function
@pytest.mark.parametrize(
    "numbers",
    [S, (S * 1000).astype(np.int64), S.astype(np.float32), S > 0.3,
     np.array([1, 0.5, 3, np.float32(0.25), 2**53, 7.5], dtype=object),
     np.array([2**63, 1, 2**64 - 1, 3, 2**63 + 5, 0], dtype=object)],
    ids=["floats", "ints", "float32", "bools", "mixed-exact", "uint64"],
)
def test_numbers_held_as_objects(func, numbers):
    """Scores numpy holds as objects (a pandas object column) are the numbers they
    are: the same results as the numeric array they convert to exactly (int64 or
    uint64 for integers, float64 for floats and integers it holds exactly)."""
    objects = np.empty(numbers.shape[0], dtype=object)
    objects[:] = list(numbers)  # numpy scalars as they are (float32 ones stay float32)
    numeric = numbers if numbers.dtype != object else None
    if numeric is None:
        whole = all(isinstance(v, int) for v in numbers.tolist())
        numeric = np.array(numbers.tolist(), np.uint64 if whole else np.float64)
    want, _ = recorded(func, Y, numeric)
    got, _ = recorded(func, Y, objects)
    _same_result(got, want)


@every_function
@pytest.mark.parametrize(
    "scores, says",
    [(np.array([2**64, 1, 2, 3, 4, 5], dtype=object), "too large for 64 bits"),
     (np.array([2**60 + 1, 1.5, 2, 3, 4, 5], dtype=object), "does not hold exactly"),
     (np.array([1, 2, 3, 4, 5, 6, -1, 2**63], dtype=object)[2:], "too large for 64 bits")],
    ids=["beyond-uint64", "inexact-mix", "both-signs"],
)
def test_object_numbers_that_do_not_fit_exactly(func, scores, says):
    with pytest.raises(TypeError, match=rf"y_score.*{says}"):
        func(Y, scores)


@every_function
def test_object_scores_with_none_hint_at_missing_values(func):
    scores = np.array([0.1, None, 0.3, 0.2, 0.9, 0.4], dtype=object)
    with pytest.raises(TypeError, match=r"y_score.*object.*missing"):
        func(Y, scores)


@every_function
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_scores(func, dtype):
    with pytest.raises(TypeError, match=r"y_score.*complex"):
        func(Y, S.astype(dtype))


@every_function
def test_long_double_scores_that_do_not_fit_float64(func):
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    s = S.astype(np.longdouble)
    s[1] = 1 + np.finfo(np.longdouble).eps
    with pytest.raises(TypeError, match=r"y_score.*float64"):
        func(Y, s)


@every_function
@pytest.mark.parametrize("scores", [None, "0.5", b"0.5"], ids=["None", "str", "bytes"])
def test_score_not_array_like(func, scores):
    with pytest.raises(TypeError, match=r"y_score"):
        func(Y, scores)


@every_function
def test_ragged_scores(func):
    with pytest.raises((TypeError, ValueError), match=r"y_score"):
        func([0, 1], [[0.1], [0.2, 0.3]])


# --------------------------------------------------------------------------- shapes


# Functions that also take 2-D (n_samples, n_tasks) input.
# Readouts and the intervals take 2-D scores too (one value per column).
TWO_D_READOUTS = {"sensitivity_at_specificity", "specificity_at_sensitivity",
                  "recall_at_precision", "precision_at_recall", "best_cutoff",
                  "partial_roc_auc", "partial_pr_auc", "roc_auc_ci", "partial_roc_auc_ci"}
BATCHED = [f for f in FUNCS
           if "groups" in inspect.signature(f).parameters or f.__name__ in TWO_D_READOUTS]
CURVES = [f for f in FUNCS if f not in BATCHED]


@pytest.mark.parametrize("func", CURVES, ids=[f.__name__ for f in CURVES])
@pytest.mark.parametrize("shape", [(6, 1), (1, 6), (2, 3)])
def test_two_d_scores(func, shape):
    with pytest.raises(ValueError, match=r"y_score.*1-D"):
        func(Y, S.reshape(shape))


@pytest.mark.parametrize("func", BATCHED, ids=[f.__name__ for f in BATCHED])
@pytest.mark.parametrize("shape", [(6, 1), (1, 6), (2, 3)])
def test_two_d_scores_with_one_d_labels_of_another_shape(func, shape):
    # 1-D labels with 2-D scores are class labels (multiclass): the shapes must agree
    with pytest.raises(ValueError, match=r"y_true.*(classes|samples)"):
        func(Y, S.reshape(shape))


@every_function
def test_two_d_labels(func):
    with pytest.raises(ValueError, match=r"y_true.*1-D"):
        func(Y.reshape(6, 1), S)


@every_function
def test_two_d_weights(func):
    with pytest.raises(ValueError, match=r"sample_weight.*1-D"):
        func(Y, S, sample_weight=np.ones((6, 1)))


@every_function
def test_three_d_scores(func):
    with pytest.raises(ValueError, match=r"y_score.*1-D"):
        func(Y, S.reshape(1, 2, 3))


@every_function
def test_zero_d_scores(func):
    with pytest.raises(ValueError, match=r"y_score.*1-D"):
        func(1, 0.5)
    with pytest.raises(ValueError, match=r"y_score.*1-D"):
        func(np.array([1]), np.float64(0.5))


@every_function
def test_zero_d_labels(func):
    with pytest.raises(ValueError, match=r"y_true.*1-D"):
        func(np.array(1), np.array([0.5]))


@every_function
def test_zero_d_weights(func):
    with pytest.raises(ValueError, match=r"sample_weight.*1-D"):
        func(Y, S, sample_weight=1.0)


@every_function
@pytest.mark.parametrize(
    "y, s",
    [([], []), (np.array([], int), np.array([])), (np.zeros(0, bool), np.zeros(0, np.float32))],
    ids=["lists", "arrays", "bool-float32"],
)
def test_empty_input(func, y, s):
    with pytest.raises(ValueError, match=r"empty"):
        func(y, s)


@every_function
@pytest.mark.parametrize("n_true", [5, 7, 0])
def test_label_length_mismatch(func, n_true):
    y = np.resize(Y, n_true)
    with pytest.raises(ValueError, match=rf"y_true.*y_score.*length.*{n_true}.*6"):
        func(y, S)


@every_function
@pytest.mark.parametrize("n_weights", [5, 7, 0])
def test_weight_length_mismatch(func, n_weights):
    with pytest.raises(ValueError, match=rf"sample_weight.*length {n_weights}"):
        func(Y, S, sample_weight=np.ones(n_weights))


# --------------------------------------------------------------------------- labels


@every_function
@pytest.mark.parametrize(
    "labels",
    [
        [0, 1, 2, 1, 0, 2],
        [-1, 0, 1, 1, 0, -1],
        [0.0, 1.0, 0.5, 1.0, 0.0, 1.0],
        ["a", "b", "c", "a", "b", "c"],
        [0.0, 1.0, np.nan, 1.0, 0.0, 1.0],
    ],
    ids=["0-1-2", "-1-0-1", "0-0.5-1", "a-b-c", "0-1-nan"],
)
def test_more_than_two_classes(func, labels):
    with pytest.raises(ValueError, match=r"y_true.*two classes"):
        func(labels, S)


@every_function
def test_more_than_two_classes_with_pos_label(func):
    with pytest.raises(ValueError, match=r"y_true.*two classes"):
        func(["a", "b", "c", "a", "b", "c"], S, pos_label="a")


@every_function
@pytest.mark.parametrize(
    "labels",
    [
        [1, 2, 1, 2, 2, 1],
        [0, 2, 0, 2, 2, 0],
        [-1, 0, -1, 0, 0, -1],
        [2, 2, 2, 2, 2, 2],
        ["a", "b", "a", "b", "b", "a"],
        ["0", "1", "0", "1", "1", "0"],
        np.array([1, 2, 1, 2, 2, 1], np.uint8),
        np.array([0, 2, 0, 2, 2, 0], np.float32),
    ],
    ids=["1-2", "0-2", "-1-0", "2-only", "a-b", "str-0-1", "uint8-1-2", "float32-0-2"],
)
def test_labels_outside_the_known_sets_need_pos_label(func, labels):
    with pytest.raises(ValueError, match=r"y_true.*pos_label"):
        func(labels, S)


@every_function
@pytest.mark.parametrize(
    "labels, pos_label",
    [
        (["a", "b", "a", "b", "b", "a"], "c"),
        ([0, 1, 0, 1, 1, 0], 2),
        ([1, 2, 1, 2, 2, 1], 0),
        ([0, 1, 0, 1, 1, 0], "1"),
    ],
    ids=["str", "int", "int-1-2", "str-vs-int"],
)
def test_pos_label_not_among_the_labels(func, labels, pos_label):
    with pytest.raises(ValueError, match=rf"pos_label={pos_label!r}.*not one of"):
        func(labels, S, pos_label=pos_label)


@every_function
def test_label_not_array_like(func):
    with pytest.raises(TypeError, match=r"y_true"):
        func(None, S)


# --------------------------------------------------------------------------- weights


@every_function
@pytest.mark.parametrize(
    "bad, message",
    [
        (-1.0, r"sample_weight.*non-negative.*-1\.0.*index 2"),
        (-1e-300, r"sample_weight.*non-negative.*index 2"),
        (np.nan, r"sample_weight.*NaN.*index 2"),
        (np.inf, r"sample_weight.*finite.*inf.*index 2"),
        (-np.inf, r"sample_weight.*(non-negative|finite).*index 2"),
    ],
    ids=["negative", "tiny-negative", "nan", "+inf", "-inf"],
)
def test_bad_weights(func, bad, message):
    w = np.ones(6)
    w[2] = bad
    with pytest.raises(ValueError, match=message):
        func(Y, S, sample_weight=w)
    with pytest.raises(ValueError, match=message):
        func(Y, S, sample_weight=list(w))


@every_function
@pytest.mark.parametrize(
    "weights",
    [np.array(["1"] * 6), np.ones(6, complex), np.array([1.0, None, 1, 1, 1, 1], object)],
    ids=["str", "complex", "object"],
)
def test_non_numeric_weights(func, weights):
    with pytest.raises(TypeError, match=r"sample_weight"):
        func(Y, S, sample_weight=weights)


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("func", [fastrank.roc_auc, fastrank.all_metrics], ids=lambda f: f.__name__)
@pytest.mark.parametrize("max_fpr", [0, 0.0, -0.1, 1.5, 1.0000001, np.nan, -np.inf, np.inf])
def test_max_fpr_out_of_range(func, max_fpr):
    with pytest.raises(ValueError, match=r"max_fpr.*\(0, 1\]"):
        func(Y, S, max_fpr=max_fpr)


@pytest.mark.parametrize("func", [fastrank.roc_auc, fastrank.all_metrics], ids=lambda f: f.__name__)
@pytest.mark.parametrize("max_fpr", ["0.5", b"0.5", [0.5], True, 0.5j])
def test_max_fpr_wrong_type(func, max_fpr):
    with pytest.raises(TypeError, match=r"max_fpr"):
        func(Y, S, max_fpr=max_fpr)


@pytest.mark.parametrize("func", [fastrank.roc_auc, fastrank.all_metrics], ids=lambda f: f.__name__)
@pytest.mark.parametrize("max_fpr", [1, 1.0, np.float32(1.0), 0.5, np.float64(1e-9)])
def test_max_fpr_in_range_is_accepted(func, max_fpr):
    func(Y, S, max_fpr=max_fpr)


@pytest.mark.parametrize("ties", ["bogus", "Grouped", "", None, 1])
def test_ties_unknown(ties):
    with pytest.raises(ValueError, match=r"ties.*'grouped'.*'expected'"):
        fastrank.average_precision(Y, S, ties=ties)


def test_ties_expected_with_weights():
    with pytest.raises(ValueError, match=r"ties='expected'.*sample_weight"):
        fastrank.average_precision(Y, S, ties="expected", sample_weight=np.ones(6))


def test_ties_expected_without_weights_is_fine():
    assert 0.0 <= fastrank.average_precision(Y, S, ties="expected") <= 1.0


@pytest.mark.parametrize("recall", [[1.5], [-0.1], [np.nan], [0.2, 2.0]])
def test_interpolated_recall_out_of_range(recall):
    with pytest.raises(ValueError, match=r"recall.*\[0, 1\]"):
        fastrank.interpolated_precision_recall_curve(Y, S, recall=recall)


def test_interpolated_recall_two_d():
    with pytest.raises(ValueError, match=r"recall.*1-D"):
        fastrank.interpolated_precision_recall_curve(Y, S, recall=[[0.5]])


@pytest.mark.parametrize(
    "pps, exc",
    [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("8", TypeError)],
)
def test_interpolated_points_per_segment(pps, exc):
    with pytest.raises(exc, match=r"points_per_segment"):
        fastrank.interpolated_precision_recall_curve(Y, S, points_per_segment=pps)


# --------------------------------------------------------------------------- one class

NEG_ONLY = ([0, 0, 0, 0], [0.1, 0.4, 0.4, 0.8])
POS_ONLY = ([1, 1, 1, 1], [0.1, 0.4, 0.4, 0.8])


@pytest.mark.parametrize("func", SCALAR, ids=lambda f: f.__name__)
def test_no_positives_gives_nan_and_one_warning(func):
    value, rec = recorded(func, *NEG_ONLY)
    assert math.isnan(value)
    assert len(rec) == 1
    assert len(undefined_warnings(rec)) == 1
    assert "positive" in str(rec[0].message)


@pytest.mark.parametrize("func", [fastrank.roc_auc, fastrank.d_prime], ids=lambda f: f.__name__)
def test_no_negatives_gives_nan_for_roc_metrics(func):
    value, rec = recorded(func, *POS_ONLY)
    assert math.isnan(value)
    assert len(rec) == 1
    assert len(undefined_warnings(rec)) == 1
    assert "negative" in str(rec[0].message)


@pytest.mark.parametrize(
    "func", [fastrank.average_precision, fastrank.pr_auc, fastrank.prbe], ids=lambda f: f.__name__
)
def test_no_negatives_gives_one_for_pr_metrics(func):
    value, rec = recorded(func, *POS_ONLY)
    assert value == 1.0
    assert rec == []


def test_no_negatives_ap_expected_is_one():
    value, rec = recorded(fastrank.average_precision, *POS_ONLY, ties="expected")
    assert value == 1.0
    assert rec == []


def test_no_positives_ap_expected_is_nan():
    value, rec = recorded(fastrank.average_precision, *NEG_ONLY, ties="expected")
    assert math.isnan(value)
    assert len(undefined_warnings(rec)) == 1 and len(rec) == 1


def test_no_positives_roc_auc_partial():
    value, rec = recorded(fastrank.roc_auc, *NEG_ONLY, max_fpr=0.5)
    assert math.isnan(value)
    assert len(undefined_warnings(rec)) == 1 and len(rec) == 1


def test_prbe_with_threshold_on_no_positives():
    (value, threshold), rec = recorded(fastrank.prbe, *NEG_ONLY, return_threshold=True)
    assert math.isnan(value) and math.isnan(threshold)
    assert len(undefined_warnings(rec)) == 1 and len(rec) == 1


def test_prbe_with_threshold_on_no_negatives():
    (value, threshold), rec = recorded(fastrank.prbe, *POS_ONLY, return_threshold=True)
    assert value == 1.0
    assert threshold == 0.1  # predicting every sample positive reaches recall 1
    assert rec == []


@pytest.mark.parametrize("max_fpr", [None, 0.5])
def test_all_metrics_no_positives(max_fpr):
    m, rec = recorded(fastrank.all_metrics, *NEG_ONLY, max_fpr=max_fpr)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    for name in (
        "average_precision",
        "average_precision_expected",
        "roc_auc",
        "pr_auc",
        "d_prime",
        "prbe",
        "prbe_threshold",
    ):
        assert math.isnan(getattr(m, name)), name
    if max_fpr is None:
        assert m.roc_auc_partial is None
    else:
        assert math.isnan(m.roc_auc_partial)
    assert m.positives == 0.0
    assert m.negatives == 4.0


@pytest.mark.parametrize("max_fpr", [None, 0.5])
def test_all_metrics_no_negatives(max_fpr):
    m, rec = recorded(fastrank.all_metrics, *POS_ONLY, max_fpr=max_fpr)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    assert "roc_auc" in str(rec[0].message) and "d_prime" in str(rec[0].message)
    assert math.isnan(m.roc_auc)
    assert math.isnan(m.d_prime)
    if max_fpr is not None:
        assert math.isnan(m.roc_auc_partial)
    assert m.average_precision == 1.0
    assert m.average_precision_expected == 1.0
    assert m.pr_auc == 1.0
    assert m.prbe == 1.0
    assert m.positives == 4.0
    assert m.negatives == 0.0


def test_all_metrics_two_classes_no_warning():
    _, rec = recorded(fastrank.all_metrics, Y, S, max_fpr=0.5)
    assert rec == []


@pytest.mark.parametrize("labels", [NEG_ONLY[0], POS_ONLY[0]], ids=["no-positives", "no-negatives"])
def test_roc_curve_one_class(labels):
    (fpr, tpr, thr), rec = recorded(fastrank.roc_curve, labels, NEG_ONLY[1])
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    missing = tpr if labels[0] == 0 else fpr
    present = fpr if labels[0] == 0 else tpr
    assert np.all(np.isnan(missing))
    assert present[0] == 0.0 and present[-1] == 1.0
    assert thr[0] == np.inf


def test_precision_recall_curve_no_positives():
    (p, r, _), rec = recorded(fastrank.precision_recall_curve, *NEG_ONLY)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    np.testing.assert_array_equal(r, [1.0, 1.0, 1.0, 0.0])  # scikit-learn's convention
    np.testing.assert_array_equal(p, [0.0, 0.0, 0.0, 1.0])


def test_precision_recall_curve_no_negatives():
    (p, _, _), rec = recorded(fastrank.precision_recall_curve, *POS_ONLY)
    assert rec == []
    np.testing.assert_array_equal(p, 1.0)


@pytest.mark.parametrize("labels", [NEG_ONLY[0], POS_ONLY[0]], ids=["no-positives", "no-negatives"])
def test_det_curve_one_class_raises(labels):
    # A DET curve follows scikit-learn's curve conventions: one class raises.
    missing = "positive" if labels[0] == 0 else "negative"
    with pytest.raises(ValueError, match=rf"det_curve needs both classes.*no {missing} samples"):
        fastrank.det_curve(labels, NEG_ONLY[1])


def test_interpolated_curve_no_positives():
    (p, r), rec = recorded(fastrank.interpolated_precision_recall_curve, *NEG_ONLY)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    assert np.all(np.isnan(p))
    (p, r), rec = recorded(
        fastrank.interpolated_precision_recall_curve, *NEG_ONLY, recall=[0.0, 0.5, 1.0]
    )
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    assert np.all(np.isnan(p))
    np.testing.assert_array_equal(r, [0.0, 0.5, 1.0])


def test_interpolated_curve_no_negatives():
    (p, _), rec = recorded(fastrank.interpolated_precision_recall_curve, *POS_ONLY)
    assert rec == []
    np.testing.assert_array_equal(p, 1.0)


@pytest.mark.parametrize("labels", [NEG_ONLY[0], POS_ONLY[0]], ids=["no-positives", "no-negatives"])
def test_confusion_matrix_one_class_is_well_defined(labels):
    (tns, fps, fns, tps, thr), rec = recorded(
        fastrank.confusion_matrix_at_thresholds, labels, NEG_ONLY[1]
    )
    assert rec == []  # counts are defined for any task
    np.testing.assert_array_equal(thr, [0.8, 0.4, 0.1])
    total = 4.0
    np.testing.assert_array_equal(tns + fps + fns + tps, total)


@every_function
def test_single_sample(func):
    # one sample is one class: never an exception, except det_curve's documented one
    if func is fastrank.det_curve:
        for label in (0, 1):
            with pytest.raises(ValueError, match="needs both classes"):
                func([label], [0.5])
        return
    _, rec = recorded(func, [1], [0.5])
    assert len(rec) <= 1
    _, rec = recorded(func, [0], [0.5])
    assert len(rec) <= 1


# --------------------------------------------------------------------------- empty classes


@pytest.mark.parametrize("func", SCALAR, ids=lambda f: f.__name__)
def test_all_weights_zero_scalar(func):
    value, rec = recorded(func, Y, S, sample_weight=np.zeros(6))
    assert math.isnan(value)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    assert "weight" in str(rec[0].message)


def test_all_weights_zero_all_metrics():
    m, rec = recorded(fastrank.all_metrics, Y, S, sample_weight=np.zeros(6))
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    for name in ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe", "prbe_threshold"):
        assert math.isnan(getattr(m, name)), name
    assert m.average_precision_expected is None
    assert m.positives == 0.0 and m.negatives == 0.0


@pytest.mark.parametrize(
    "func",
    [fastrank.roc_curve, fastrank.interpolated_precision_recall_curve],
    ids=lambda f: f.__name__,
)
def test_all_weights_zero_curves_nan(func):
    result, rec = recorded(func, Y, S, sample_weight=np.zeros(6))
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    assert np.all(np.isnan(result[1]))


def test_all_weights_zero_det_curve_raises():
    with pytest.raises(ValueError, match=r"needs both classes.*no positive samples"):
        fastrank.det_curve(Y, S, sample_weight=np.zeros(6))
    w = np.where(np.asarray(Y) == 1, 1.0, 0.0)  # every negative weighs zero
    with pytest.raises(ValueError, match="no negative samples"):
        fastrank.det_curve(Y, S, sample_weight=w)


@pytest.mark.parametrize(
    "func",
    [fastrank.precision_recall_curve, fastrank.confusion_matrix_at_thresholds],
    ids=lambda f: f.__name__,
)
def test_all_weights_zero_other_curves(func):
    # Either a clear ValueError about sample_weight (scikit-learn's choice) or a
    # well-formed result with at most one UndefinedMetricWarning; never an
    # IndexError from inside the library.
    try:
        result, rec = recorded(func, Y, S, sample_weight=np.zeros(6))
    except ValueError as exc:
        assert "sample_weight" in str(exc)
        return
    assert len(rec) <= 1 and len(undefined_warnings(rec)) == len(rec)
    lengths = {len(a) for a in result[:2]}
    assert len(lengths) == 1


@pytest.mark.parametrize("func", SCALAR, ids=lambda f: f.__name__)
def test_zero_weight_on_every_positive(func):
    w = np.where(Y == 1, 0.0, 1.0)
    value, rec = recorded(func, Y, S, sample_weight=w)
    assert math.isnan(value)
    assert len(rec) == 1 and len(undefined_warnings(rec)) == 1


def test_zero_weight_on_every_negative():
    w = np.where(Y == 1, 1.0, 0.0)
    for func in (fastrank.roc_auc, fastrank.d_prime):
        value, rec = recorded(func, Y, S, sample_weight=w)
        assert math.isnan(value)
        assert len(rec) == 1 and len(undefined_warnings(rec)) == 1
    for func in (fastrank.average_precision, fastrank.pr_auc, fastrank.prbe):
        value, rec = recorded(func, Y, S, sample_weight=w)
        assert value == 1.0
        assert rec == []


def test_every_weight_zero_leaves_curves_their_end_points_and_says_so():
    """The PR curve's warning said recall was set to 1 where it returned recall [0.]
    (no threshold holds a weight; only the final point is left)."""
    w = np.zeros(Y.shape[0])
    (p, r, thr), rec = recorded(fastrank.precision_recall_curve, Y, S, sample_weight=w)
    assert p.tolist() == [1.0] and r.tolist() == [0.0] and thr.shape == (0,)
    assert len(rec) == 1 and "every sample weight is zero" in str(rec[0].message)
    tables, rec = recorded(fastrank.confusion_matrix_at_thresholds, Y, S, sample_weight=w)
    assert all(a.shape == (0,) for a in tables) and rec == []


def test_zero_weight_samples_are_dropped():
    w = np.array([1.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    keep = w > 0
    for func in SCALAR:
        assert func(Y, S, sample_weight=w) == pytest.approx(func(Y[keep], S[keep]), abs=1e-12)


WARNING_FUNCS = [
    f for f in FUNCS if f not in (fastrank.confusion_matrix_at_thresholds, fastrank.det_curve)
]


@pytest.mark.parametrize("func", WARNING_FUNCS, ids=lambda f: f.__name__)
def test_warning_points_at_the_callers_line(func):
    target = getattr(func, "__wrapped__", func)  # called here itself, not through the wrapper
    extra = (THIRD[target.__name__],) if target is not func else ()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        target(*NEG_ONLY, *extra)
    assert len(rec) == 1
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)


@pytest.mark.parametrize("func", [fastrank.average_precision, fastrank.all_metrics],
                         ids=["average_precision", "all_metrics"])
def test_an_average_with_no_weight_left_says_so_in_the_one_warning(func):
    """Groups of one class each: AP is defined for the all-positive group only, which
    has no pairs, so the 'pairs' average has nothing to weigh. NaN, and the one
    warning names both facts at the caller's line."""
    y = np.array([0, 0, 1, 1])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        got = func(y, np.zeros(4), groups=[0, 0, 1, 1], average="pairs")
    value = got if func is fastrank.average_precision else got.average_precision
    assert math.isnan(value)
    assert len(rec) == 1
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)
    message = str(rec[0].message)
    assert "without positive samples" in message
    assert "'pairs' average is undefined" in message


HUGE_COUNTS = [
    ("bins", lambda n: fastrank.BinnedSummary(bins=n)),
    ("points_per_segment", lambda n: fastrank.interpolated_precision_recall_curve(
        [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], points_per_segment=n)),
    ("n_resamples", lambda n: fastrank.bootstrap_ci(
        "roc_auc", [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], n_resamples=n)),
]


@pytest.mark.parametrize(("name", "call"), HUGE_COUNTS, ids=[h[0] for h in HUGE_COUNTS])
def test_a_count_whose_arrays_cannot_fit_is_refused_by_name(name, call):
    """Counts of 10**15 (bins, curve points, resamples) raised numpy's MemoryError from
    an allocation; they are refused before, naming the option and the memory."""
    with pytest.raises(ValueError, match=rf"{name}=1,000,000,000,000,000 needs at least .* "
                                         r"of memory; this machine has"):
        call(10**15)


def test_counts_are_checked_in_one_place(monkeypatch):
    from fastrank._core import options

    assert options.check_count(np.int64(3), "k") == 3
    assert options.check_count(0, "k", least=0) == 0
    with pytest.raises(TypeError, match="k must be a positive integer; got True"):
        options.check_count(True, "k")
    with pytest.raises(TypeError, match=r"k must be an integer of at least 0; got 1\.0"):
        options.check_count(1.0, "k", least=0)
    with pytest.raises(ValueError, match="k must be at least 1; got 0"):
        options.check_count(0, "k")
    with pytest.raises(ValueError, match=r"k=2,000 needs at least 16\.0 KB of memory; this "
                                         r"machine has 1\.0 KB"):
        monkeypatch.setattr(options, "machine_memory", lambda: 1000)
        options.check_count(2000, "k", item_bytes=8)
    monkeypatch.setattr(options, "machine_memory", lambda: None)  # unknown: not refused
    assert options.check_count(10**15, "k", item_bytes=8) == 10**15
