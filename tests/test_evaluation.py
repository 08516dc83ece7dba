"""``fastrank.evaluate`` and the tables of ``fastrank.Evaluation``.

The contract (spec of issue 4): an evaluation flattens models x datasets into
entries, and every number of every table is *exactly* (``==`` on floats) what
the single-task functions return for that entry (``all_metrics``, ``roc_auc``,
``pr_auc``, ``average_precision``, ``prbe(return_threshold=True)``), rows in
``.entries`` order. ``cutoffs`` is checked at every threshold against
scikit-learn 1.9.1 on the hard predictions ``score >= threshold`` and against
a brute force in exact arithmetic (tests/oracles.py); ``best_cutoffs`` against
a brute-force argmax with the highest-threshold tie rule.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import UndefinedMetricWarning

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import call, quiet, same_float
from strategies import PROPERTY_SETTINGS, cases

PROPERTIES = settings(PROPERTY_SETTINGS, max_examples=60)

TOL = 1e-12
TABLES = ("auc", "average_precision", "prbe", "summary")
AUC_COLUMNS = ["model", "dataset", "curve", "auc"]
AP_COLUMNS = ["model", "dataset", "average_precision"]
PRBE_COLUMNS = ["model", "dataset", "prbe", "threshold"]
SUMMARY_COLUMNS = [
    "model",
    "dataset",
    "positives",
    "negatives",
    "average_precision",
    "average_precision_expected",
    "roc_auc",
    "pr_auc",
    "d_prime",
    "prbe",
    "prbe_threshold",
]
CUTOFF_COLUMNS = [
    "threshold",
    "tp",
    "fp",
    "tn",
    "fn",
    "precision",
    "recall",
    "specificity",
    "accuracy",
    "error_rate",
    "f1",
    "f_beta",
    "mcc",
    "youden_j",
]
BEST_COLUMNS = [
    "model",
    "dataset",
    "criterion",
    "threshold",
    "value",
    "tp",
    "fp",
    "tn",
    "fn",
    "precision",
    "recall",
    "specificity",
]
TEXT_COLUMNS = ("model", "dataset", "curve", "criterion")


# --------------------------------------------------------------------------- data


@dataclasses.dataclass
class Spec:
    """One entry as the test builds it: the inputs of the single-task calls."""

    model: Any
    dataset: Any
    y: Any
    s: Any
    w: Any = None
    pos_label: Any = None

    def kw(self) -> dict[str, Any]:
        return {"sample_weight": self.w, "pos_label": self.pos_label}

    def y01(self) -> list[int]:
        y = np.asarray(self.y)
        if self.pos_label is not None:
            return [int(v == self.pos_label) for v in y.tolist()]
        return [int(v == 1 or v is True) for v in y.tolist()]


def tied_scores(rng: np.random.Generator, y: np.ndarray, shift: float, kind: str) -> np.ndarray:
    """Scores that separate the classes by ``shift``, with many ties, as dtype ``kind``."""
    raw = rng.normal(size=y.shape[0]) + shift * y
    if kind == "float64":
        return np.round(raw, 1)
    if kind == "float32":
        return np.round(raw, 1).astype(np.float32)
    if kind == "int":
        return np.round(raw).astype(np.int64)
    if kind == "bool":
        return raw > 0.5 * shift
    raise AssertionError(kind)


def make_specs(seed: int = 0, weighted: bool = False) -> list[Spec]:
    """Three models on three datasets of different sizes, full of ties."""
    rng = np.random.default_rng(seed)
    specs = []
    for dataset, n in (("fold1", 37), ("fold2", 50), ("fold3", 23)):
        y = (rng.random(n) < 0.4).astype(np.int64)
        y[:2] = [0, 1]
        for model, shift, kind in (
            ("good", 2.0, "float64"),
            ("fair", 0.7, "int"),
            ("f32", 1.2, "float32"),
        ):
            w = rng.integers(0, 4, size=n).astype(np.float64) + 0.25 if weighted else None
            specs.append(Spec(model, dataset, y, tied_scores(rng, y, shift, kind), w))
    return specs


def evaluate_specs(specs: list[Spec], shared_weight: Any = None, **extra: Any) -> Any:
    """``evaluate`` in the list form: one score vector, label vector, name and id per entry."""
    weights: Any = shared_weight
    if shared_weight is None and any(sp.w is not None for sp in specs):
        weights = [sp.w for sp in specs]
    return fastrank.evaluate(
        [sp.s for sp in specs],
        [sp.y for sp in specs],
        model_names=[sp.model for sp in specs],
        dataset_ids=[sp.dataset for sp in specs],
        sample_weight=weights,
        **extra,
    )


# --------------------------------------------------------------------------- references


def expected_tables(specs: list[Spec]) -> dict[str, dict[str, list[Any]]]:
    """Every table, built row by row from the single-task functions."""
    auc: dict[str, list[Any]] = {c: [] for c in AUC_COLUMNS}
    ap: dict[str, list[Any]] = {c: [] for c in AP_COLUMNS}
    pb: dict[str, list[Any]] = {c: [] for c in PRBE_COLUMNS}
    summ: dict[str, list[Any]] = {c: [] for c in SUMMARY_COLUMNS}
    for sp in specs:
        kw = sp.kw()
        m = quiet(fastrank.all_metrics, sp.y, sp.s, **kw)
        roc = quiet(fastrank.roc_auc, sp.y, sp.s, **kw)
        pra = quiet(fastrank.pr_auc, sp.y, sp.s, **kw)
        avp = quiet(fastrank.average_precision, sp.y, sp.s, **kw)
        value, thr = quiet(fastrank.prbe, sp.y, sp.s, return_threshold=True, **kw)
        for curve, a in (("ROC", roc), ("PR", pra)):
            auc["model"].append(sp.model)
            auc["dataset"].append(sp.dataset)
            auc["curve"].append(curve)
            auc["auc"].append(a)
        ap["model"].append(sp.model)
        ap["dataset"].append(sp.dataset)
        ap["average_precision"].append(avp)
        pb["model"].append(sp.model)
        pb["dataset"].append(sp.dataset)
        pb["prbe"].append(value)
        pb["threshold"].append(thr)
        summ["model"].append(sp.model)
        summ["dataset"].append(sp.dataset)
        for col in SUMMARY_COLUMNS[2:]:
            v = getattr(m, col)
            summ[col].append(math.nan if v is None else v)
    return {"auc": auc, "average_precision": ap, "prbe": pb, "summary": summ}


def assert_column(name: str, got: Any, want: list[Any]) -> None:
    """A text column equal element for element, a numeric one bit for bit (NaN == NaN)."""
    assert len(got) == len(want), (name, len(got), len(want))
    if name in TEXT_COLUMNS:
        assert list(got) == list(want), name
        return
    for i, (g, v) in enumerate(zip(got, want, strict=True)):
        assert same_float(g, v), (name, i, g, v)


def assert_table(got: Any, want: dict[str, list[Any]]) -> None:
    """``got`` is an ``as_frame=False`` dict: these columns in this order, these values."""
    assert isinstance(got, dict), type(got)
    assert list(got) == list(want), (list(got), list(want))
    for name, column in got.items():
        assert isinstance(column, np.ndarray), (name, type(column))
        assert_column(name, column, want[name])


def table(ev: Any, method: str, **kw: Any) -> dict[str, np.ndarray]:
    return getattr(ev, method)(as_frame=False, **kw)


def assert_entries(ev: Any, specs: list[Spec]) -> None:
    """``.entries`` are the specs in order, each equal to the single-task results."""
    assert len(ev) == len(specs)
    assert len(ev.entries) == len(specs)
    for entry, sp in zip(ev.entries, specs, strict=True):
        assert entry.model == sp.model
        assert entry.dataset == sp.dataset
        want = quiet(fastrank.all_metrics, sp.y, sp.s, **sp.kw())
        assert isinstance(entry.metrics, fastrank.BinaryMetrics)
        for f in dataclasses.fields(want):
            g, v = getattr(entry.metrics, f.name), getattr(want, f.name)
            assert (g is None) == (v is None), f.name
            if v is not None:
                assert same_float(g, v), (f.name, g, v)
        _, fp, _, tp, thresholds = quiet(
            fastrank.confusion_matrix_at_thresholds, sp.y, sp.s, **sp.kw()
        )
        for name, got, ref in (
            ("thresholds", entry.thresholds, thresholds),
            ("tp", entry.tp, tp),
            ("fp", entry.fp, fp),
        ):
            got = np.asarray(got)
            assert got.shape == ref.shape, name
            np.testing.assert_array_equal(
                got.astype(np.float64), np.asarray(ref, dtype=np.float64), err_msg=name
            )
        assert np.asarray(entry.tp).dtype == np.float64
        assert np.asarray(entry.fp).dtype == np.float64
        # thresholds: the distinct (non-zero-weight) scores, decreasing, from the brute force
        cuts = oracles.cutoffs(
            sp.y01(), np.asarray(sp.s).tolist(), None if sp.w is None else np.asarray(sp.w).tolist()
        )
        assert [float(t) for t in entry.thresholds] == [float(c.threshold) for c in cuts]
        assert list(np.asarray(entry.tp, dtype=np.float64)) == [float(c.tp) for c in cuts]
        assert list(np.asarray(entry.fp, dtype=np.float64)) == [float(c.fp) for c in cuts]
        assert same_float(entry.positives, want.positives)
        assert same_float(entry.negatives, want.negatives)


def assert_all_tables(ev: Any, specs: list[Spec]) -> None:
    want = expected_tables(specs)
    for method in TABLES:
        assert_table(table(ev, method), want[method])


# --------------------------------------------------------------------------- tables


def test_tables_equal_single_task_functions():
    specs = make_specs(0)
    ev = evaluate_specs(specs)
    assert isinstance(ev, fastrank.Evaluation)
    assert ev.models == ("good", "fair", "f32")
    assert ev.datasets == ("fold1", "fold2", "fold3")
    assert_entries(ev, specs)
    assert_all_tables(ev, specs)


def test_tables_weighted_per_entry():
    specs = make_specs(1, weighted=True)
    ev = evaluate_specs(specs)
    assert_entries(ev, specs)
    assert_all_tables(ev, specs)
    # weighted: no tie-expected AP
    assert np.all(np.isnan(table(ev, "summary")["average_precision_expected"]))


def test_tables_with_one_shared_weight_vector():
    rng = np.random.default_rng(2)
    n = 40
    y = (rng.random(n) < 0.5).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 5, size=n) * 0.5
    scores = {
        name: tied_scores(rng, y, shift, "float64") for name, shift in (("a", 0.5), ("b", 1.5))
    }
    ev = fastrank.evaluate(scores, y, sample_weight=w)
    specs = [Spec(name, "data", y, s, w) for name, s in scores.items()]
    assert_entries(ev, specs)
    assert_all_tables(ev, specs)
    # the weights really are used
    unweighted = fastrank.evaluate(scores, y)
    assert not np.array_equal(
        table(ev, "summary")["positives"], table(unweighted, "summary")["positives"]
    )


def test_pos_label_with_text_labels():
    rng = np.random.default_rng(3)
    n = 30
    y01 = (rng.random(n) < 0.5).astype(int)
    y01[:2] = [0, 1]
    y = np.where(y01 == 1, "spam", "ham")
    s1 = tied_scores(rng, y01, 1.0, "float64")
    s2 = tied_scores(rng, y01, 2.0, "int")
    ev = fastrank.evaluate([s1, s2], y, pos_label="spam", model_names=["x", "y"])
    specs = [Spec("x", "data", y, s1, None, "spam"), Spec("y", "data", y, s2, None, "spam")]
    assert_entries(ev, specs)
    assert_all_tables(ev, specs)
    # the same as 0/1 labels
    ev01 = fastrank.evaluate([s1, s2], y01, model_names=["x", "y"])
    assert_table(table(ev01, "summary"), expected_tables(specs)["summary"])
    # pos_label="ham" flips the classes
    ev_ham = fastrank.evaluate([s1, s2], y, pos_label="ham", model_names=["x", "y"])
    flipped = [Spec("x", "data", y, s1, None, "ham"), Spec("y", "data", y, s2, None, "ham")]
    assert_all_tables(ev_ham, flipped)
    assert table(ev_ham, "summary")["positives"][0] == table(ev, "summary")["negatives"][0]


def test_row_order_follows_entries_and_first_appearance():
    rng = np.random.default_rng(4)
    ys = {}
    for d, n in (("B", 20), ("A", 25)):
        y = (rng.random(n) < 0.5).astype(int)
        y[:2] = [0, 1]
        ys[d] = y
    order = [("m2", "B"), ("m1", "A"), ("m1", "B"), ("m2", "A")]
    specs = [Spec(m, d, ys[d], tied_scores(rng, ys[d], 1.0, "float64")) for m, d in order]
    ev = evaluate_specs(specs)
    assert ev.models == ("m2", "m1")
    assert ev.datasets == ("B", "A")
    got_pairs = [(e.model, e.dataset) for e in ev.entries]
    assert sorted(got_pairs) == sorted(order)
    by_pair = {(sp.model, sp.dataset): sp for sp in specs}
    ordered = [by_pair[p] for p in got_pairs]
    assert_entries(ev, ordered)
    assert_all_tables(ev, ordered)
    best = table(ev, "best_cutoffs")
    assert list(best["model"][::2]) == [m for m, _ in got_pairs]
    assert list(best["dataset"][::2]) == [d for _, d in got_pairs]


def test_row_order_grouped_input_is_kept():
    specs = make_specs(5)
    # dataset-major input (models in order within datasets): entries keep it
    ev = evaluate_specs(specs)
    assert [(e.model, e.dataset) for e in ev.entries] == [(sp.model, sp.dataset) for sp in specs]
    assert list(table(ev, "summary")["model"]) == [sp.model for sp in specs]
    assert list(table(ev, "summary")["dataset"]) == [sp.dataset for sp in specs]
    assert list(table(ev, "auc")["curve"]) == ["ROC", "PR"] * len(specs)


def test_integer_dataset_ids_are_kept():
    specs = make_specs(6)[:6]
    ids = {"fold1": 10, "fold2": 3}
    specs = [dataclasses.replace(sp, dataset=ids[sp.dataset]) for sp in specs]
    ev = evaluate_specs(specs)
    assert ev.datasets == (10, 3)
    assert all(isinstance(e.dataset, int) and not isinstance(e.dataset, bool) for e in ev.entries)
    assert_all_tables(ev, specs)
    assert [int(d) for d in table(ev, "summary")["dataset"]] == [sp.dataset for sp in specs]


# --------------------------------------------------------------------------- input forms


@pytest.fixture(scope="module")
def three_models() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    n = 45
    y = (rng.random(n) < 0.4).astype(np.int64)
    y[:2] = [0, 1]
    cols = [tied_scores(rng, y, shift, "float64") for shift in (0.3, 1.0, 2.5)]
    return y, np.column_stack(cols)


def summary_of(specs: list[Spec]) -> dict[str, list[Any]]:
    return expected_tables(specs)["summary"]


def test_input_1d(three_models):
    y, S = three_models
    ev = fastrank.evaluate(S[:, 1], y)
    assert ev.models == ("model1",)
    assert ev.datasets == ("data",)
    assert_table(table(ev, "summary"), summary_of([Spec("model1", "data", y, S[:, 1])]))
    # a plain list of floats is a 1-D array-like too
    ev_list = fastrank.evaluate(S[:, 1].tolist(), y.tolist())
    assert ev_list.models == ("model1",)
    assert_table(table(ev_list, "summary"), summary_of([Spec("model1", "data", y, S[:, 1])]))
    # model_names overrides the default
    named = fastrank.evaluate(S[:, 1], y, model_names=["only"])
    assert named.models == ("only",)


def test_input_2d(three_models):
    y, S = three_models
    ev = fastrank.evaluate(S, y)
    assert ev.models == ("model1", "model2", "model3")
    specs = [Spec(f"model{j + 1}", "data", y, S[:, j]) for j in range(3)]
    assert_entries(ev, specs)
    assert_all_tables(ev, specs)
    named = fastrank.evaluate(S, y, model_names=["p", "q", "r"])
    assert named.models == ("p", "q", "r")
    assert_table(
        table(named, "summary"),
        summary_of([dataclasses.replace(sp, model=m) for sp, m in zip(specs, "pqr", strict=True)]),
    )


def test_input_mapping(three_models):
    y, S = three_models
    scores = {"zeta": S[:, 2], "alpha": S[:, 0], "mid": S[:, 1]}
    ev = fastrank.evaluate(scores, y)
    assert ev.models == ("zeta", "alpha", "mid")  # keys, in order
    specs = [Spec(k, "data", y, v) for k, v in scores.items()]
    assert_all_tables(ev, specs)
    renamed = fastrank.evaluate(scores, y, model_names=["A", "B", "C"])
    assert renamed.models == ("A", "B", "C")
    assert_table(
        table(renamed, "summary"),
        summary_of([dataclasses.replace(sp, model=m) for sp, m in zip(specs, "ABC", strict=True)]),
    )


def test_input_dataframe(three_models):
    pd = pytest.importorskip("pandas")
    y, S = three_models
    df = pd.DataFrame({"c": S[:, 2], "a": S[:, 0], "b": S[:, 1]})
    ev = fastrank.evaluate(df, y)
    assert ev.models == ("c", "a", "b")
    specs = [Spec(c, "data", y, df[c].to_numpy()) for c in df.columns]
    assert_all_tables(ev, specs)
    renamed = fastrank.evaluate(df, pd.Series(y), model_names=["x", "y", "z"])
    assert renamed.models == ("x", "y", "z")


def test_input_list_and_tuple(three_models):
    y, S = three_models
    vectors = [S[:, 0], S[:, 1].tolist(), S[:, 2].astype(np.float32)]
    specs = [Spec(f"model{j + 1}", "data", y, v) for j, v in enumerate(vectors)]
    for form in (list, tuple):
        ev = fastrank.evaluate(form(vectors), y)
        assert ev.models == ("model1", "model2", "model3")
        assert ev.datasets == ("data",)
        assert_all_tables(ev, specs)
        # one equal label vector per score vector: still one dataset "data"
        ev2 = fastrank.evaluate(form(vectors), form([y, y.copy(), y.tolist()]))
        assert ev2.datasets == ("data",)
        assert_all_tables(ev2, specs)


def test_all_input_forms_agree(three_models):
    pd = pytest.importorskip("pandas")
    y, S = three_models
    names = ["a", "b", "c"]
    forms = [
        fastrank.evaluate(S, y, model_names=names),
        fastrank.evaluate(dict(zip(names, S.T, strict=True)), y),
        fastrank.evaluate(pd.DataFrame(S, columns=names), y),
        fastrank.evaluate([S[:, j] for j in range(3)], y, model_names=names),
        fastrank.evaluate(
            [S[:, j] for j in range(3)], [y] * 3, model_names=names, dataset_ids=["data"] * 3
        ),
    ]
    want = expected_tables([Spec(n, "data", y, S[:, j]) for j, n in enumerate(names)])
    for ev in forms:
        assert ev.models == tuple(names)
        for method in TABLES:
            assert_table(table(ev, method), want[method])


def test_mmdata_style_several_datasets():
    """precrec's mmdata: a list of score vectors, a list of label vectors, names and ids."""
    specs = make_specs(8)
    ev = fastrank.evaluate(
        [sp.s for sp in specs],
        [sp.y for sp in specs],
        model_names=[sp.model for sp in specs],
        dataset_ids=[sp.dataset for sp in specs],
    )
    assert len(ev) == 9
    assert_all_tables(ev, specs)


def test_frames_equal_dicts():
    pd = pytest.importorskip("pandas")
    specs = make_specs(9, weighted=True)
    ev = evaluate_specs(specs)
    calls = [(m, {}) for m in (*TABLES, "best_cutoffs", "mean_auc")]
    calls += [
        ("best_cutoffs", {"beta": 2.0}),
        ("cutoffs", {"model": "fair", "dataset": "fold2", "beta": 0.5}),
    ]
    for method, kw in calls:
        frame = getattr(ev, method)(**kw)  # as_frame=True is the default
        assert isinstance(frame, pd.DataFrame), method
        frame2 = getattr(ev, method)(as_frame=True, **kw)
        d = getattr(ev, method)(as_frame=False, **kw)
        assert isinstance(d, dict)
        assert list(frame.columns) == list(d), method
        assert list(frame2.columns) == list(d), method
        for col, arr in d.items():
            assert isinstance(arr, np.ndarray), (method, col)
            assert len(frame) == len(arr), (method, col)
            assert_column(col, frame[col].tolist(), arr.tolist())
            assert_column(col, frame2[col].tolist(), arr.tolist())


def test_column_names():
    specs = make_specs(10)
    ev = evaluate_specs(specs)
    assert list(table(ev, "auc")) == AUC_COLUMNS
    assert list(table(ev, "average_precision")) == AP_COLUMNS
    assert list(table(ev, "prbe")) == PRBE_COLUMNS
    assert list(table(ev, "summary")) == SUMMARY_COLUMNS
    assert list(table(ev, "cutoffs", model="good", dataset="fold1")) == CUTOFF_COLUMNS
    assert list(table(ev, "best_cutoffs")) == BEST_COLUMNS
    assert list(table(ev, "mean_auc")) == [
        "model",
        "curve",
        "mean",
        "sd",
        "low",
        "high",
        "n_datasets",
    ]


# --------------------------------------------------------------------------- cutoffs


def _f(x: Fraction) -> float:
    return float(x)


def brute_force_cutoffs(
    y01: list[int], s: list[Any], w: list[Any] | None, beta: float
) -> dict[str, list[float]]:
    """Every column of ``cutoffs`` from exact counts, following the spec's formulas."""
    cuts = oracles.cutoffs(y01, s, w)
    P, N = oracles.totals(y01, s, w)
    b2 = Fraction(beta) ** 2
    out: dict[str, list[float]] = {c: [] for c in CUTOFF_COLUMNS}
    for c in cuts:
        tp, fp = c.tp, c.fp
        tn, fn = N - fp, P - tp
        out["threshold"].append(float(c.threshold))
        for name, v in (("tp", tp), ("fp", fp), ("tn", tn), ("fn", fn)):
            out[name].append(_f(v))
        out["precision"].append(_f(tp / (tp + fp)) if tp + fp > 0 else 0.0)
        recall = tp / P if P > 0 else None
        spec = tn / N if N > 0 else None
        out["recall"].append(math.nan if recall is None else _f(recall))
        out["specificity"].append(math.nan if spec is None else _f(spec))
        acc = (tp + tn) / (P + N)
        out["accuracy"].append(_f(acc))
        out["error_rate"].append(_f(1 - acc))
        out["f1"].append(_f(2 * tp / (2 * tp + fn + fp)) if tp > 0 else 0.0)
        out["f_beta"].append(_f((1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)) if tp > 0 else 0.0)
        den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
        out["mcc"].append(_f(tp * tn - fp * fn) / math.sqrt(den) if den > 0 else 0.0)
        if recall is None or spec is None:
            out["youden_j"].append(math.nan)
        else:
            out["youden_j"].append(_f(recall + spec - 1))
    return out


def sklearn_cutoffs(
    y01: list[int], s: np.ndarray, w: Any, thresholds: Any, beta: float
) -> dict[str, list[float]]:
    """The same columns from scikit-learn's metrics on ``y_pred = s >= threshold``."""
    out: dict[str, list[float]] = {c: [] for c in CUTOFF_COLUMNS if c != "threshold"}
    y = np.asarray(y01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for thr in thresholds:
            y_pred = (np.asarray(s) >= thr).astype(int)
            tn, fp, fn, tp = skm.confusion_matrix(y, y_pred, labels=[0, 1], sample_weight=w).ravel()
            for name, v in (("tp", tp), ("fp", fp), ("tn", tn), ("fn", fn)):
                out[name].append(float(v))
            kw = {"sample_weight": w}
            out["precision"].append(skm.precision_score(y, y_pred, zero_division=0, **kw))
            recall = skm.recall_score(y, y_pred, zero_division=0, **kw)
            spec = skm.recall_score(y, y_pred, pos_label=0, zero_division=0, **kw)
            out["recall"].append(recall)
            out["specificity"].append(spec)
            acc = skm.accuracy_score(y, y_pred, **kw)
            out["accuracy"].append(acc)
            out["error_rate"].append(1 - acc)
            out["f1"].append(skm.f1_score(y, y_pred, zero_division=0, **kw))
            out["f_beta"].append(skm.fbeta_score(y, y_pred, beta=beta, zero_division=0, **kw))
            out["mcc"].append(skm.matthews_corrcoef(y, y_pred, **kw))
            out["youden_j"].append(recall + spec - 1)
    return out


def assert_close_columns(
    got: dict[str, np.ndarray],
    want: dict[str, list[float]],
    tol: float,
    exact: tuple[str, ...] = (),
) -> None:
    for name, ref in want.items():
        col = np.asarray(got[name], dtype=np.float64)
        assert col.shape == (len(ref),), (name, col.shape, len(ref))
        for i, (g, v) in enumerate(zip(col.tolist(), ref, strict=True)):
            if name in exact:
                assert same_float(g, v), (name, i, g, v)
            elif math.isnan(v):
                assert math.isnan(g), (name, i, g, v)
            else:
                assert abs(g - v) <= tol * max(1.0, abs(v)), (name, i, g, v)


def check_cutoffs(
    got: dict[str, np.ndarray], sp: Spec, beta: float, tol: float = TOL, counts_exact: bool = True
) -> None:
    assert list(got) == CUTOFF_COLUMNS
    s_list = np.asarray(sp.s).tolist()
    w_list = None if sp.w is None else np.asarray(sp.w).tolist()
    y01 = sp.y01()
    brute = brute_force_cutoffs(y01, s_list, w_list, beta)
    exact = ("threshold", "tp", "fp", "tn", "fn") if counts_exact else ("threshold",)
    assert_close_columns(got, brute, tol, exact)
    thr = np.asarray(got["threshold"], dtype=np.float64)
    assert np.all(np.diff(thr) < 0), "thresholds must be strictly decreasing"
    if 0 < sum(y01) < len(y01):
        sk = sklearn_cutoffs(y01, np.asarray(sp.s), sp.w, thr, beta)
        assert_close_columns(got, sk, tol)


@pytest.mark.parametrize("kind", ["float64", "float32", "int", "bool"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cutoffs_against_sklearn_and_brute_force(kind, weighted):
    rng = np.random.default_rng(11)
    specs = []
    for d, n in (("d1", 41), ("d2", 28)):
        y = (rng.random(n) < 0.45).astype(int)
        y[:2] = [0, 1]
        for m, shift in (("m1", 0.8), ("m2", 2.0)):
            w = (rng.integers(0, 5, size=n) * 0.5) if weighted else None
            if w is not None:
                w[:2] = 1.0
            specs.append(Spec(m, d, y, tied_scores(rng, y, shift, kind), w))
    ev = evaluate_specs(specs)
    for beta in (1.0, 0.5, 2.0, 1.3):
        for sp in specs:
            got = table(ev, "cutoffs", model=sp.model, dataset=sp.dataset, beta=beta)
            check_cutoffs(got, sp, beta)
            if beta == 1.0:
                np.testing.assert_array_equal(got["f_beta"], got["f1"])


def test_cutoffs_defaults_and_unambiguous_omission():
    rng = np.random.default_rng(12)
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 0, 1] * 3)
    s = np.round(rng.normal(size=y.size) + y, 0)
    ev = fastrank.evaluate(s, y)
    sp = Spec("model1", "data", y, s)
    got = table(ev, "cutoffs")
    check_cutoffs(got, sp, 1.0)
    for kw in ({"model": "model1"}, {"dataset": "data"}, {"model": "model1", "dataset": "data"}):
        again = table(ev, "cutoffs", **kw)
        for col in CUTOFF_COLUMNS:
            np.testing.assert_array_equal(again[col], got[col])
    # one model, two datasets: model may be omitted, dataset may not
    y2 = y[::-1].copy()
    ev2 = fastrank.evaluate([s, s], [y, y2], dataset_ids=["a", "b"], model_names=["m", "m"])
    check_cutoffs(table(ev2, "cutoffs", dataset="b"), Spec("m", "b", y2, s), 1.0)
    # two models, one dataset: dataset may be omitted
    ev3 = fastrank.evaluate({"u": s, "v": -s}, y)
    check_cutoffs(table(ev3, "cutoffs", model="v"), Spec("v", "data", y, -s), 1.0)


def test_cutoffs_hand_example():
    """Scores [.9,.8,.7,.6,.6,.5,.5,.4,.3] / labels [1,1,0,1,0,0,0,1,0] (METRICS.md), by hand."""
    s = [0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.4, 0.3]
    y = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    got = table(fastrank.evaluate(s, y), "cutoffs")
    assert got["threshold"].tolist() == [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    assert got["tp"].tolist() == [1, 2, 2, 3, 3, 4, 4]
    assert got["fp"].tolist() == [0, 0, 1, 2, 4, 4, 5]
    assert got["tn"].tolist() == [5, 5, 4, 3, 1, 1, 0]
    assert got["fn"].tolist() == [3, 2, 2, 1, 1, 0, 0]
    assert got["precision"][3] == 3 / 5
    assert got["recall"][3] == 3 / 4
    assert got["specificity"][3] == 3 / 5
    assert got["f1"][3] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2), abs=1e-15)
    assert got["mcc"][0] == pytest.approx((1 * 5 - 0 * 3) / math.sqrt(1 * 4 * 5 * 8), abs=1e-15)


def test_cutoffs_one_class():
    """No positives: recall and youden_j NaN, f1 0; no negatives: specificity NaN, mcc 0."""
    s = np.array([3.0, 1.0, 1.0, 2.0, 0.5])
    specs = [
        Spec("m", "nopos", np.zeros(5, dtype=int), s),
        Spec("m", "noneg", np.ones(5, dtype=int), s),
        Spec("m", "both", np.array([1, 0, 1, 0, 0]), s),
    ]
    ev, _ = call(evaluate_specs, specs)
    for sp in specs:
        got = quiet(table, ev, "cutoffs", model="m", dataset=sp.dataset)
        check_cutoffs(got, sp, 1.0)
        check_cutoffs(quiet(table, ev, "cutoffs", model="m", dataset=sp.dataset, beta=3.0), sp, 3.0)
    nopos = quiet(table, ev, "cutoffs", dataset="nopos")
    assert np.all(np.isnan(nopos["recall"])) and np.all(np.isnan(nopos["youden_j"]))
    assert np.all(nopos["f1"] == 0) and np.all(nopos["mcc"] == 0)
    noneg = quiet(table, ev, "cutoffs", dataset="noneg")
    assert np.all(np.isnan(noneg["specificity"])) and np.all(noneg["mcc"] == 0)


# --------------------------------------------------------------------------- best cutoffs


def brute_force_best(sp: Spec, beta: float) -> list[tuple[str, float, float]]:
    """(criterion, threshold, value) by exact argmax over the cutoffs; ties: highest threshold."""
    y01 = sp.y01()
    s = np.asarray(sp.s).tolist()
    w = None if sp.w is None else np.asarray(sp.w).tolist()
    cuts = oracles.cutoffs(y01, s, w)
    P, N = oracles.totals(y01, s, w)
    b2 = Fraction(beta) ** 2

    def youden(c: oracles.Cutoff) -> Fraction | None:
        return None if P == 0 or N == 0 else c.tp / P + (N - c.fp) / N - 1

    def fb(c: oracles.Cutoff, bb: Fraction) -> Fraction:
        return (
            Fraction(0)
            if c.tp == 0
            else (1 + bb) * c.tp / ((1 + bb) * c.tp + bb * (P - c.tp) + c.fp)
        )

    crits: list[tuple[str, Any]] = [("youden", youden), ("f1", lambda c: fb(c, Fraction(1)))]
    if beta != 1.0:
        crits.append(("f_beta", lambda c: fb(c, b2)))
    out = []
    for name, func in crits:
        values = [func(c) for c in cuts]
        if any(v is None for v in values):
            out.append((name, math.nan, math.nan))
            continue
        best = max(values)
        k = values.index(best)  # first = highest threshold
        out.append((name, float(cuts[k].threshold), float(best)))
    return out


def check_best(ev: Any, specs: list[Spec], beta: float) -> None:
    got = quiet(table, ev, "best_cutoffs", beta=beta)
    assert list(got) == BEST_COLUMNS
    criteria = ["youden", "f1"] + (["f_beta"] if beta != 1.0 else [])
    k = len(criteria)
    assert len(got["model"]) == k * len(specs)
    for i, sp in enumerate(specs):
        want = brute_force_best(sp, beta)
        for j, (crit, thr, value) in enumerate(want):
            r = i * k + j
            assert got["model"][r] == sp.model and got["dataset"][r] == sp.dataset
            assert got["criterion"][r] == crit
            assert same_float(got["threshold"][r], thr), (
                sp.model,
                sp.dataset,
                crit,
                got["threshold"][r],
                thr,
            )
            if math.isnan(value):
                assert math.isnan(got["value"][r])
                continue
            assert abs(got["value"][r] - value) <= TOL, (crit, got["value"][r], value)
            # the other columns are those of the cutoffs row at that threshold
            cut = quiet(table, ev, "cutoffs", model=sp.model, dataset=sp.dataset, beta=beta)
            row = int(np.flatnonzero(cut["threshold"] == thr)[0])
            for col in ("tp", "fp", "tn", "fn", "precision", "recall", "specificity"):
                assert same_float(got[col][r], cut[col][row]), (crit, col)


@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_best_cutoffs_brute_force(beta):
    specs = make_specs(13)
    check_best(evaluate_specs(specs), specs, beta)


def test_best_cutoffs_weighted():
    specs = make_specs(14, weighted=True)
    check_best(evaluate_specs(specs), specs, 2.0)


def test_best_cutoffs_ties_take_highest_threshold():
    # P = N = 2, so every rate is exact. Youden: j = 1/2 at thresholds 4 and 2 (by hand).
    s, y = [4, 3, 2, 1], [1, 0, 1, 0]
    ev = fastrank.evaluate(s, y)
    best = table(ev, "best_cutoffs")
    cut = table(ev, "cutoffs")
    assert cut["youden_j"].tolist() == [0.5, 0.0, 0.5, 0.0]
    assert list(best["criterion"]) == ["youden", "f1"]
    assert best["threshold"][0] == 4 and best["value"][0] == 0.5
    assert best["threshold"][1] == 2 and best["value"][1] == 4 / 5  # f1: 2*2/(2*2+0+1)
    check_best(ev, [Spec("model1", "data", np.array(y), np.array(s))], 1.0)
    # F1 = 2/3 at threshold 4 (tp=1, fn=1, fp=0) and at threshold 1 (tp=2, fn=0, fp=2)
    s, y = [4, 3, 2, 1], [1, 0, 0, 1]
    ev = fastrank.evaluate(s, y)
    best = table(ev, "best_cutoffs", beta=2.0)
    assert list(best["criterion"]) == ["youden", "f1", "f_beta"]
    assert best["threshold"][1] == 4 and best["value"][1] == 2 / 3
    # F2 = 5tp/(5tp+4fn+fp): 5/9, 5/10, 5/11, then 10/12 at threshold 1 (the maximum)
    assert best["threshold"][2] == 1 and best["value"][2] == 10 / 12
    check_best(ev, [Spec("model1", "data", np.array(y), np.array(s))], 2.0)


def test_best_cutoffs_one_class_youden_nan():
    s = np.array([0.3, 0.9, 0.9, 0.1])
    specs = [
        Spec("m", "nopos", np.zeros(4, dtype=int), s),
        Spec("m", "noneg", np.ones(4, dtype=int), s),
    ]
    ev, _ = call(evaluate_specs, specs)
    got = quiet(table, ev, "best_cutoffs")
    assert got["criterion"][0] == "youden"
    assert math.isnan(got["threshold"][0]) and math.isnan(got["value"][0])
    assert got["criterion"][2] == "youden"
    assert math.isnan(got["threshold"][2]) and math.isnan(got["value"][2])
    # no negatives: F1 is defined and is 1 at the lowest threshold
    assert got["criterion"][3] == "f1" and got["value"][3] == 1.0 and got["threshold"][3] == 0.1


@st.composite
def power_of_two_tasks(draw: st.DrawFn) -> Spec:
    """P and N powers of two and integer counts: every spec formula is exact in float64."""
    p = draw(st.sampled_from([1, 2, 4, 8]))
    n = draw(st.sampled_from([1, 2, 4, 8]))
    pool = draw(
        st.lists(
            st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0]), min_size=1, max_size=4, unique=True
        )
    )
    y = [1] * p + [0] * n
    order = draw(st.permutations(range(p + n)))
    s = [draw(st.sampled_from(pool)) for _ in range(p + n)]
    return Spec("m", "d", np.array([y[i] for i in order]), np.array([s[i] for i in order]))


@PROPERTIES
@given(spec=power_of_two_tasks(), beta=st.sampled_from([1.0, 0.5, 2.0]))
def test_property_best_cutoffs(spec, beta):
    ev = fastrank.evaluate(spec.s, spec.y, model_names=["m"], dataset_ids=["d"])
    check_best(ev, [spec], beta)


@PROPERTIES
@given(
    case=cases(
        dtypes=("float64", "float32", "int32", "int8", "uint8", "bool"),
        weight_kinds=("none", "int", "dyadic"),
        max_size=16,
    ),
    beta=st.sampled_from([1.0, 0.5, 2.0]),
)
def test_property_single_entry(case, beta):
    ev = fastrank.evaluate(
        case.y_score, case.y_true, sample_weight=case.sample_weight, pos_label=case.pos_label
    )
    assert ev.models == ("model1",) and ev.datasets == ("data",)
    sp = Spec("model1", "data", case.y_true, case.y_score, case.sample_weight, case.pos_label)
    assert_table(table(ev, "summary"), summary_of([sp]))
    got = table(ev, "cutoffs", beta=beta)
    exact_sp = Spec(
        "model1", "data", np.array(case.y01), np.array(case.scores, dtype=case.dtype), case.weights
    )
    check_cutoffs(got, exact_sp, beta)


# --------------------------------------------------------------------------- one class


def test_one_class_dataset_warns_once():
    rng = np.random.default_rng(15)
    n = 20
    y_ok = np.array([0, 1] * (n // 2))
    specs = []
    for d, y in (("ok", y_ok), ("nopos", np.zeros(n, dtype=int)), ("noneg", np.ones(n, dtype=int))):
        for m in ("a", "b", "c"):
            specs.append(Spec(m, d, y, np.round(rng.normal(size=n), 1)))
    ev, rec = call(evaluate_specs, specs)
    assert len(rec) == 1, [str(w.message) for w in rec]
    assert issubclass(rec[0].category, UndefinedMetricWarning)
    assert_entries(ev, specs)
    want = expected_tables(specs)
    for method in TABLES:
        assert_table(quiet(table, ev, method), want[method])
    summ = quiet(table, ev, "summary")
    assert np.all(np.isnan(summ["roc_auc"][3:]))
    assert np.all(np.isfinite(summ["roc_auc"][:3]))


def test_one_class_only_dataset_warns_once():
    y = np.zeros(6, dtype=int)
    S = np.arange(12.0).reshape(6, 2)
    ev, rec = call(fastrank.evaluate, S, y)
    assert len(rec) == 1
    assert issubclass(rec[0].category, UndefinedMetricWarning)
    assert len(ev) == 2


def test_defined_inputs_do_not_warn():
    specs = make_specs(16)
    _, rec = call(evaluate_specs, specs)
    assert rec == []


# --------------------------------------------------------------------------- bad input


@pytest.fixture(scope="module")
def small() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    y2 = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    s = np.array([0.1, 0.9, 0.4, 0.4, 0.7, 0.2, 0.3, 0.8])
    return y, y2, s


def test_different_labels_need_dataset_ids(small):
    y, y2, s = small
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate([s, s], [y, y2])
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate([s, s], (y, y2), model_names=["a", "b"])


def test_label_vectors_of_different_lengths_need_dataset_ids(small):
    """Folds of different sizes (the usual mmdata case) are label vectors that differ."""
    y, _, s = small
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate([s, s[:6]], [y, y[:6]])
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate([s, s[:6]], [y, y[:6]], model_names=["a", "a"])


def test_duplicate_pair(small):
    y, _, s = small
    with pytest.raises(ValueError, match=r"(?i)duplicate|alpha"):
        fastrank.evaluate([s, s], y, model_names=["alpha", "alpha"])
    with pytest.raises(ValueError, match=r"(?i)duplicate|alpha"):
        fastrank.evaluate(
            [s, s, s],
            [y, y, y],
            model_names=["alpha", "beta", "alpha"],
            dataset_ids=["k", "k", "k"],
        )
    # the same model on two datasets is fine
    ev = fastrank.evaluate([s, s], [y, y], model_names=["alpha", "alpha"], dataset_ids=["k", "j"])
    assert ev.models == ("alpha",) and ev.datasets == ("k", "j")


def test_lengths_differ_within_dataset(small):
    y, _, s = small
    with pytest.raises(ValueError, match="fold7"):
        fastrank.evaluate(
            [s, s[:6]], [y, y[:6]], model_names=["a", "b"], dataset_ids=["fold7", "fold7"]
        )


def test_labels_differ_within_dataset(small):
    y, y2, s = small
    with pytest.raises(ValueError, match=r"(?i)label"):
        fastrank.evaluate([s, s], [y, y2], model_names=["a", "b"], dataset_ids=["fold7", "fold7"])


def test_names_of_wrong_length(small):
    y, _, s = small
    S = np.column_stack([s, s[::-1]])
    with pytest.raises(ValueError, match="model_names"):
        fastrank.evaluate(S, y, model_names=["a"])
    with pytest.raises(ValueError, match="model_names"):
        fastrank.evaluate([s, s], y, model_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate(S, y, dataset_ids=["d"])
    with pytest.raises(ValueError, match="dataset_ids"):
        fastrank.evaluate(s, y, dataset_ids=["d", "e"])


@pytest.mark.parametrize(
    "form", ["list", "tuple", "dict", "2d_no_columns", "1d_empty", "dataframe_no_columns"]
)
def test_empty_scores(small, form):
    y, _, _ = small
    if form == "dataframe_no_columns":
        pd = pytest.importorskip("pandas")
    empty = {
        "list": lambda: [],
        "tuple": lambda: (),
        "dict": lambda: {},
        "2d_no_columns": lambda: np.empty((len(y), 0)),
        "1d_empty": lambda: np.array([]),
        "dataframe_no_columns": lambda: pd.DataFrame(index=range(len(y))),
    }[form]()
    with pytest.raises(ValueError, match=r"(?i)empty|score"):
        fastrank.evaluate(empty, y)


def _single_task_error(y: Any, s: Any, w: Any = None) -> BaseException:
    try:
        fastrank.all_metrics(y, s, sample_weight=w)
    except (ValueError, TypeError) as exc:
        return exc
    raise AssertionError("the single-task call accepted the input")


@pytest.mark.parametrize(
    "case, pattern",
    [
        ("nan_score", r"(?i)non-finite|nan|finite"),
        ("inf_score", r"(?i)non-finite|inf|finite"),
        ("three_labels", r"(?i)two classes|label"),
        ("text_scores", r"(?i)real numbers|score"),
        ("negative_weight", r"(?i)non-negative|negative"),
        ("inf_weight", r"(?i)finite"),
        ("length_mismatch", r"(?i)length"),
    ],
)
def test_single_task_rejections_propagate(small, case, pattern):
    y, _, s = small
    w = None
    bad_s: Any = s.copy()
    bad_y: Any = y
    if case == "nan_score":
        bad_s[3] = np.nan
    elif case == "inf_score":
        bad_s[0] = -np.inf
    elif case == "three_labels":
        bad_y = y.copy()
        bad_y[0] = 2
    elif case == "text_scores":
        bad_s = np.array(["a"] * len(s))
    elif case == "negative_weight":
        w = np.ones(len(s))
        w[2] = -1.0
    elif case == "inf_weight":
        w = np.ones(len(s))
        w[2] = np.inf
    elif case == "length_mismatch":
        bad_s = s[:-1]
    ref = _single_task_error(bad_y, bad_s, w)
    with pytest.raises(type(ref), match=pattern):
        fastrank.evaluate(bad_s, bad_y, sample_weight=w)
    # also when it is the second entry of a list
    with pytest.raises(type(ref), match=pattern):
        fastrank.evaluate(
            [s, bad_s],
            [y, bad_y],
            sample_weight=None if w is None else [np.ones(len(s)), w],
            dataset_ids=["a", "b"],
        )


def test_cutoffs_ambiguous_or_unknown_names():
    specs = make_specs(17)
    ev = evaluate_specs(specs)
    with pytest.raises(ValueError, match="model"):
        ev.cutoffs(dataset="fold1", as_frame=False)
    with pytest.raises(ValueError, match="dataset"):
        ev.cutoffs(model="good", as_frame=False)
    with pytest.raises(ValueError):
        ev.cutoffs(as_frame=False)
    with pytest.raises(ValueError, match="nosuchmodel"):
        ev.cutoffs(model="nosuchmodel", dataset="fold1", as_frame=False)
    with pytest.raises(ValueError, match="fold99"):
        ev.cutoffs(model="good", dataset="fold99", as_frame=False)
    one = fastrank.evaluate(specs[0].s, specs[0].y)
    with pytest.raises(ValueError, match="other"):
        one.cutoffs(model="other", as_frame=False)


@pytest.mark.parametrize("beta", [0.0, -1.0, math.nan, math.inf, -math.inf])
def test_bad_beta(beta):
    ev = fastrank.evaluate([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="beta"):
        ev.cutoffs(beta=beta, as_frame=False)


@pytest.mark.parametrize("beta", [0.0, -1.0, math.nan, math.inf])
def test_bad_beta_best_cutoffs(beta):
    ev = fastrank.evaluate([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="beta"):
        ev.best_cutoffs(beta=beta, as_frame=False)


TABLE_CALLS = [
    ("auc", {}),
    ("average_precision", {}),
    ("prbe", {}),
    ("summary", {}),
    ("cutoffs", {}),
    ("best_cutoffs", {}),
    ("mean_auc", {}),
]


@pytest.mark.parametrize("method, kw", TABLE_CALLS, ids=[m for m, _ in TABLE_CALLS])
def test_missing_pandas(monkeypatch, method, kw):
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.2, 0.9, 0.4, 0.4, 0.6, 0.1])
    monkeypatch.setitem(sys.modules, "pandas", None)
    ev = fastrank.evaluate(s, y)  # array input needs no pandas
    d = getattr(ev, method)(as_frame=False, **kw)
    assert isinstance(d, dict)
    with pytest.raises(ImportError, match="pip install pandas"):
        getattr(ev, method)(as_frame=True, **kw)
    with pytest.raises(ImportError, match="pip install pandas"):
        getattr(ev, method)(**kw)
