"""The forms ``evaluate`` takes its models, folds and labels in.

Every form must give the numbers scikit-learn gives on each (model, fold)
pair, and the same table as the plainest form (one score vector per pair,
labels repeated per pair). Malformed combinations raise one clear error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sklearn.metrics as skm

import fastrank

pd = pytest.importorskip("pandas")

MODELS = ("good", "fair", "poor")
FOLDS = 4
N = 60


def _data(seed: int = 7) -> tuple[list[np.ndarray], dict[str, list[np.ndarray]], list[np.ndarray]]:
    """Labels per fold, each model's scores per fold (tied), weights per fold."""
    rng = np.random.default_rng(seed)
    labels = [rng.integers(0, 2, N) for _ in range(FOLDS)]
    scores = {
        m: [np.round(y * sep + rng.normal(size=N), 1) for y in labels]
        for m, sep in zip(MODELS, (2.0, 1.0, 0.0), strict=True)
    }
    weights = [rng.integers(1, 4, N).astype(np.float64) for _ in range(FOLDS)]
    return labels, scores, weights


def _table(ev: fastrank.Evaluation) -> dict[str, list[object]]:
    """The summary as lists, NaN written as a string so that equal tables compare equal."""
    t = ev.summary(as_frame=False)
    return {k: ["nan" if isinstance(x, float) and math.isnan(x) else x for x in v.tolist()]
            for k, v in t.items()}


def _check_against_sklearn(ev: fastrank.Evaluation, labels, scores, weights=None) -> None:
    t = ev.summary(as_frame=False)
    rows = list(zip(t["model"], t["dataset"], strict=True))
    assert rows == [(m, k) for m in MODELS for k in range(FOLDS)]
    for i, (m, k) in enumerate(rows):
        w = None if weights is None else weights[k]
        assert math.isclose(t["roc_auc"][i], skm.roc_auc_score(labels[k], scores[m][k],
                                                                sample_weight=w), abs_tol=1e-12)
        assert math.isclose(t["average_precision"][i],
                            skm.average_precision_score(labels[k], scores[m][k], sample_weight=w),
                            abs_tol=1e-12)


@pytest.fixture(scope="module")
def plain() -> fastrank.Evaluation:
    """The plainest form: one score vector per pair, its labels repeated."""
    labels, scores, _ = _data()
    ev = fastrank.evaluate(
        [scores[m][k] for m in MODELS for k in range(FOLDS)],
        [labels[k] for _ in MODELS for k in range(FOLDS)],
        model_names=[m for m in MODELS for _ in range(FOLDS)],
        dataset_ids=[k for _ in MODELS for k in range(FOLDS)],
    )
    _check_against_sklearn(ev, labels, scores)
    return ev


def test_labels_once_per_dataset_id(plain: fastrank.Evaluation) -> None:
    """The user guide's form: 12 score vectors, 4 label vectors, one per dataset id."""
    labels, scores, _ = _data()
    ev = fastrank.evaluate(
        [scores[m][k] for m in MODELS for k in range(FOLDS)], labels,
        model_names=[m for m in MODELS for _ in range(FOLDS)],
        dataset_ids=[k for _ in MODELS for k in range(FOLDS)],
    )
    assert _table(ev) == _table(plain)


def test_labels_per_dataset_follow_first_appearance() -> None:
    labels, scores, _ = _data()
    order = [2, 0, 3, 1]  # datasets appear in this order
    ev = fastrank.evaluate(
        [scores["good"][k] for k in order], [labels[k] for k in order],
        model_names=["good"] * FOLDS, dataset_ids=order,
    )
    assert ev.datasets == tuple(order)
    # Labels per dataset in first-appearance order: the same as per vector here.
    ev2 = fastrank.evaluate(
        [scores["good"][k] for k in order] * 2, [labels[k] for k in order],
        model_names=["good"] * FOLDS + ["again"] * FOLDS, dataset_ids=order * 2,
    )
    t = ev2.summary(as_frame=False)
    assert t["roc_auc"][:FOLDS].tolist() == t["roc_auc"][FOLDS:].tolist()
    for i, k in enumerate(order):
        assert math.isclose(t["roc_auc"][i], skm.roc_auc_score(labels[k], scores["good"][k]),
                            abs_tol=1e-12)


def test_mapping_fold_to_labels_and_model_to_folds(plain: fastrank.Evaluation) -> None:
    labels, scores, _ = _data()
    by_fold = {k: labels[k] for k in range(FOLDS)}
    assert _table(fastrank.evaluate(scores, labels)) == _table(plain)       # lists of folds
    assert _table(fastrank.evaluate(scores, by_fold)) == _table(plain)
    nested = {m: {k: scores[m][k] for k in range(FOLDS)} for m in MODELS}
    assert _table(fastrank.evaluate(nested, by_fold)) == _table(plain)
    assert _table(fastrank.evaluate(nested, labels)) == _table(plain)
    # numpy integer keys are the same dataset ids
    keyed = {np.int64(k): labels[k] for k in range(FOLDS)}
    assert _table(fastrank.evaluate(nested, keyed)) == _table(plain)


def test_named_folds_keep_their_names() -> None:
    labels, scores, _ = _data()
    names = ["fold-b", "fold-a", "fold-d", "fold-c"]
    nested = {m: dict(zip(names, scores[m], strict=True)) for m in MODELS}
    ev = fastrank.evaluate(nested, dict(zip(names, labels, strict=True)))
    assert ev.datasets == tuple(names)
    assert ev.models == MODELS


def test_weights_per_dataset() -> None:
    labels, scores, weights = _data()
    ev = fastrank.evaluate(scores, labels, sample_weight=weights)
    _check_against_sklearn(ev, labels, scores, weights)
    ev2 = fastrank.evaluate(scores, labels, sample_weight=dict(enumerate(weights)))
    assert _table(ev2) == _table(ev)


def _frame(long: bool = False):
    labels, scores, weights = _data()
    wide = pd.DataFrame({
        "fold": np.repeat(np.arange(FOLDS), N),
        "y": np.concatenate(labels),
        "w": np.concatenate(weights),
        **{m: np.concatenate(scores[m]) for m in MODELS},
    })
    if not long:
        return wide
    return wide.melt(id_vars=["fold", "y", "w"], value_vars=list(MODELS),
                     var_name="model", value_name="score")


def test_wide_data_frame(plain: fastrank.Evaluation) -> None:
    df = _frame()
    ev = fastrank.evaluate(df, "y", dataset_ids="fold", score_columns=list(MODELS))
    assert _table(ev) == _table(plain)
    ev2 = fastrank.evaluate(df, "y", dataset_ids="fold", sample_weight="w",
                            score_columns=list(MODELS))
    labels, scores, weights = _data()
    _check_against_sklearn(ev2, labels, scores, weights)


def test_long_data_frame(plain: fastrank.Evaluation) -> None:
    df = _frame(long=True)
    ev2 = fastrank.evaluate(df, "y", model_names="model", dataset_ids="fold",
                            score_columns="score")
    assert _table(ev2) == _table(plain)


def test_mapping_of_columns_and_structured_array(plain: fastrank.Evaluation) -> None:
    df = _frame()
    cols = {c: df[c].to_numpy() for c in ["fold", "y", *MODELS]}
    kw = {"dataset_ids": "fold", "score_columns": list(MODELS)}
    assert _table(fastrank.evaluate(cols, "y", **kw)) == _table(plain)
    rec = df[["fold", "y", *MODELS]].to_records(index=False)
    assert _table(fastrank.evaluate(rec, "y", **kw)) == _table(plain)


def test_table_ids_in_order_of_first_appearance_and_integral_floats() -> None:
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([.9, .1, .8, .7, .2, .3])
    ev = fastrank.evaluate({"y": y, "fold": [3.0, 3.0, 1.0, 1.0, 2.0, 2.0], "a": s}, "y",
                           dataset_ids="fold", score_columns="a")
    assert ev.datasets == (3, 1, 2)
    assert all(type(d) is int for d in ev.datasets)
    ev = fastrank.evaluate({"y": y, "fold": ["z", "z", "a", "a", "m", "m"], "a": s}, "y",
                           dataset_ids="fold", score_columns="a")
    assert ev.datasets == ("z", "a", "m")


@pytest.mark.parametrize("bad", [
    np.array([0.0, np.nan, 0.0, 1.0, 1.0, 1.0]),
    np.array([0, None, 0, 1, 1, 1], dtype=object),
    np.array(["a", math.nan, "a", "b", "b", "b"], dtype=object),
])
def test_missing_ids_are_refused(bad: np.ndarray) -> None:
    table = {"y": [1, 0, 1, 0, 1, 0], "fold": bad, "a": [.9, .1, .8, .7, .2, .3]}
    with pytest.raises(ValueError, match=r"column 'fold' row 2: missing value"):
        fastrank.evaluate(table, "y", dataset_ids="fold", score_columns="a")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"dataset_ids": "fold"}, TypeError,
     r"name the score columns: .*the other columns are \['w', 'good', 'fair', 'poor'\]"),
    ({"dataset_ids": "nope", "score_columns": "good"}, ValueError,
     "dataset_ids: no column 'nope'"),
    ({"score_columns": ["good", "zz"]}, ValueError, "score_columns: no column 'zz'"),
    ({"model_names": ["a"], "score_columns": "good"}, TypeError,
     "model_names must name a column too"),
    ({"sample_weight": np.ones(3), "score_columns": "good"}, TypeError,
     "sample_weight must name a column too"),
    ({"dataset_ids": "fold", "score_columns": []}, ValueError, "no score columns"),
])
def test_table_errors(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        fastrank.evaluate(_frame(), "y", **kwargs)


def test_long_table_needs_one_score_column() -> None:
    with pytest.raises(ValueError, match="the scores are one column"):
        fastrank.evaluate(_frame(long=True), "y", model_names="model",
                          score_columns=["score", "w"])


def test_table_columns_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="column 'a' has shape"):
        fastrank.evaluate({"y": [1, 0, 1], "a": [.1, .2]}, "y", score_columns="a")


def test_not_a_table() -> None:
    with pytest.raises(TypeError, match="scores must be a table"):
        fastrank.evaluate(np.ones(4), "y", score_columns="a")
    with pytest.raises(TypeError, match="score_columns names columns of a table"):
        fastrank.evaluate(np.ones(4), [0, 1, 0, 1], score_columns=["a"])


def test_fold_mapping_errors() -> None:
    labels, scores, _ = _data()
    with pytest.raises(ValueError, match="labels has no vector for dataset 3"):
        fastrank.evaluate(scores, dict(enumerate(labels[:3])))
    with pytest.raises(ValueError, match="labels has a vector for dataset 9"):
        fastrank.evaluate(scores, {**dict(enumerate(labels)), 9: labels[0]})
    with pytest.raises(ValueError, match="per-dataset scores but model 'fair' to one vector"):
        fastrank.evaluate({"good": scores["good"], "fair": scores["fair"][0]}, labels)
    with pytest.raises(ValueError, match="drop model_names and dataset_ids"):
        fastrank.evaluate(scores, labels, dataset_ids=range(FOLDS))
    with pytest.raises(ValueError, match=r"one per dataset \(4, in the order"):
        fastrank.evaluate([scores["good"][k] for k in range(FOLDS)] * 2, labels[:3],
                          model_names=["a"] * FOLDS + ["b"] * FOLDS,
                          dataset_ids=list(range(FOLDS)) * 2)
    bad = {m: [s[:-1] if m == "fair" else s for s in scores[m]] for m in MODELS}
    with pytest.raises(ValueError, match=r"dataset 0: model 'fair' has 59 scores, but an earlier"):
        fastrank.evaluate(bad, labels)
