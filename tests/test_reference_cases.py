"""Every public reference case (tests/data/public_cases.json) at its stated tolerance.

The values come from scikit-learn 1.9.1 (AP, ROC AUC), PRROC ``auc.integral``
(PR AUC, exact), precrec (PR AUC on a grid) and hand derivations from
METRICS.md (PRBE, tie-expected AP). The same cases also validate the oracles
of tests/oracles.py, which the property tests rely on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import fastrank

sys.path.insert(0, str(Path(__file__).parent))
import oracles

DATA = Path(__file__).parent / "data" / "public_cases.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text())["cases"]

TOL = {
    "average_precision": 1e-12,
    "roc_auc": 1e-12,
    "pr_auc": 1e-9,
    "precrec_pr_auc": 1e-5,
    "prbe": 1e-12,
    "tie_expected_ap": 1e-12,
}


def _ids(case: dict[str, Any]) -> str:
    return str(case["name"])


def test_cases_are_loaded() -> None:
    assert len(CASES) >= 11
    names = [c["name"] for c in CASES]
    assert len(set(names)) == len(names)
    for case in CASES:
        assert {"y_true", "y_score", "average_precision", "roc_auc"} <= case.keys()


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_functions_match_reference(case: dict[str, Any]) -> None:
    y, s, w = case["y_true"], case["y_score"], case.get("sample_weight")
    ap = fastrank.average_precision(y, s, sample_weight=w)
    assert abs(ap - case["average_precision"]) <= TOL["average_precision"]
    auc = fastrank.roc_auc(y, s, sample_weight=w)
    assert abs(auc - case["roc_auc"]) <= TOL["roc_auc"]
    if "pr_auc" in case:
        assert abs(fastrank.pr_auc(y, s, sample_weight=w) - case["pr_auc"]) <= TOL["pr_auc"]
    if "precrec_pr_auc" in case:
        value = fastrank.pr_auc(y, s, sample_weight=w)
        assert abs(value - case["precrec_pr_auc"]) <= TOL["precrec_pr_auc"]
    if "prbe" in case:
        assert abs(fastrank.prbe(y, s, sample_weight=w) - case["prbe"]) <= TOL["prbe"]
    if "tie_expected_ap" in case:
        assert w is None
        value = fastrank.average_precision(y, s, ties="expected")
        assert abs(value - case["tie_expected_ap"]) <= TOL["tie_expected_ap"]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_all_metrics_match_reference(case: dict[str, Any]) -> None:
    y, s, w = case["y_true"], case["y_score"], case.get("sample_weight")
    m = fastrank.all_metrics(y, s, sample_weight=w)
    assert abs(m.average_precision - case["average_precision"]) <= TOL["average_precision"]
    assert abs(m.roc_auc - case["roc_auc"]) <= TOL["roc_auc"]
    if "pr_auc" in case:
        assert abs(m.pr_auc - case["pr_auc"]) <= TOL["pr_auc"]
    if "precrec_pr_auc" in case:
        assert abs(m.pr_auc - case["precrec_pr_auc"]) <= TOL["precrec_pr_auc"]
    if "prbe" in case:
        assert abs(m.prbe - case["prbe"]) <= TOL["prbe"]
    if "tie_expected_ap" in case:
        assert m.average_precision_expected is not None
        assert abs(m.average_precision_expected - case["tie_expected_ap"]) <= TOL["tie_expected_ap"]
    if w is None:
        assert m.average_precision_expected is not None
        assert m.positives == sum(1 for v in y if v == 1)
        assert m.negatives == sum(1 for v in y if v != 1)
    else:
        assert m.average_precision_expected is None
        assert m.positives == pytest.approx(
            sum(wi for wi, v in zip(w, y, strict=True) if v == 1), abs=1e-12
        )
        assert m.negatives == pytest.approx(
            sum(wi for wi, v in zip(w, y, strict=True) if v != 1), abs=1e-12
        )
    assert m.roc_auc_partial is None
    assert m.max_fpr is None


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_oracles_match_reference(case: dict[str, Any]) -> None:
    """The oracles reproduce the published numbers (so they can be trusted elsewhere)."""
    y, s, w = case["y_true"], case["y_score"], case.get("sample_weight")
    assert abs(float(oracles.average_precision(y, s, w)) - case["average_precision"]) <= 1e-12
    assert abs(float(oracles.roc_auc_pairwise(y, s, w)) - case["roc_auc"]) <= 1e-12
    assert abs(float(oracles.roc_auc_partial(y, s, w, 1.0)) - case["roc_auc"]) <= 1e-12
    if "pr_auc" in case:
        assert abs(oracles.pr_auc_quadrature(y, s, w) - case["pr_auc"]) <= 1e-9
    if "prbe" in case:
        assert abs(float(oracles.prbe(y, s, w)[0]) - case["prbe"]) <= 1e-12
    if "tie_expected_ap" in case:
        assert abs(float(oracles.expected_ap_brute_force(y, s)) - case["tie_expected_ap"]) <= 1e-12
        assert abs(float(oracles.expected_ap_formula(y, s)) - case["tie_expected_ap"]) <= 1e-12


def test_blog_worked_numbers_from_metrics_md() -> None:
    """The worked example in METRICS.md, including its threshold and d'."""
    y = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    s = [0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.4, 0.3]
    assert fastrank.prbe(y, s, return_threshold=True) == (0.625, 0.6)
    assert fastrank.d_prime(y, s) == pytest.approx(oracles.d_prime(y, s), rel=1e-13, abs=1e-13)
    y2 = [1, 1, 0, 1, 1, 0, 0, 1, 0]
    assert abs(fastrank.average_precision(y2, s) - 0.845) <= 1e-12


def test_one_evaluation_of_every_case() -> None:
    """All cases at once through ``evaluate``, each case its own dataset (precrec's
    mmdata layout), weights where a case has them: the tables hold the reference
    values at their tolerances, in the order given."""
    ones = [[1.0] * len(c["y_true"]) for c in CASES]
    weights = [c.get("sample_weight", w) for c, w in zip(CASES, ones, strict=True)]
    ev = fastrank.evaluate(
        [c["y_score"] for c in CASES], [c["y_true"] for c in CASES],
        model_names=["model"] * len(CASES), dataset_ids=[c["name"] for c in CASES],
        sample_weight=weights,
    )
    summary = ev.summary(as_frame=False)
    areas = ev.auc(as_frame=False)
    assert list(summary["dataset"]) == [c["name"] for c in CASES]
    for i, case in enumerate(CASES):
        assert abs(summary["average_precision"][i] - case["average_precision"]) <= TOL[
            "average_precision"]
        assert abs(areas["auc"][2 * i] - case["roc_auc"]) <= TOL["roc_auc"]
        assert abs(areas["auc"][2 * i + 1] - case["pr_auc"]) <= TOL["pr_auc"]
        if "precrec_pr_auc" in case:
            assert abs(areas["auc"][2 * i + 1] - case["precrec_pr_auc"]) <= TOL["precrec_pr_auc"]
        if "prbe" in case:
            assert abs(summary["prbe"][i] - case["prbe"]) <= TOL["prbe"]
