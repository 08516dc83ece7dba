"""scikit-learn's own ranking tests, run against fastrank (tests/sklearn_suite).

The README states how many of them pass; this keeps the statement true, for
both selections (the curves and AUC, and the ranking functions) and both ways
of calling fastrank (with the arguments that give scikit-learn's rule where
fastrank's default differs, and with fastrank's defaults). The counts depend on
the test module of the installed scikit-learn, so the exact figures are checked
only for the version they were recorded with.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sklearn = pytest.importorskip("sklearn")

sys.path.insert(0, str(Path(__file__).resolve().parent / "sklearn_suite"))
from run import run_suites  # noqa: E402

# (selection, arguments) -> (selected, at least passing): README, scikit-learn 1.9.1
RECORDED = {
    ("curves", "sklearn"): (156, 150),
    ("curves", "default"): (156, 150),
    ("rankings", "sklearn"): (73, 71),
    ("rankings", "default"): (73, 68),
}


@pytest.fixture(scope="module")
def results():
    return run_suites()


@pytest.mark.skipif(
    not sklearn.__version__.startswith("1.9."),
    reason="the recorded counts are for scikit-learn 1.9's test_ranking.py",
)
@pytest.mark.parametrize("key", list(RECORDED), ids="-".join)
def test_recorded_share_of_sklearn_ranking_tests_pass(results, key) -> None:
    counts = results[key].counts()
    selected, passing = RECORDED[key]
    assert counts["selected"] == selected, counts
    assert counts["control_failures"] == 0 and counts["failed_adapter"] == 0, counts
    passed = counts["passed"] + counts["passed_except_message_text"]
    assert passed >= passing, counts
    if key[1] == "sklearn":  # the drop-in way of calling fastrank
        assert passed / counts["selected"] >= 0.95, counts


def test_the_adapters_set_scikit_learns_rules_only_with_sklearn_arguments(results) -> None:
    assert results[("rankings", "sklearn")].adapter_arguments == {
        "top_k_accuracy_score": {"ties": "sklearn"}, "ndcg_score": {"no_relevant": "zero"}}
    assert results[("rankings", "default")].adapter_arguments == {}
    assert results[("curves", "sklearn")].adapter_arguments == {}


def test_readme_quotes_the_recorded_counts() -> None:
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(
        encoding="utf-8").split())
    for selection in ("curves", "rankings"):
        selected, passing = RECORDED[(selection, "sklearn")]
        quote = (f"of the {selected} tests that call them, {passing} "
                 f"({round(100 * passing / selected)}%) pass")
        assert quote in readme, quote
    selected, passing = RECORDED[("rankings", "default")]
    assert f"{passing} ({round(100 * passing / selected)}%) with fastrank's defaults" in readme
