"""Every number ``trec_eval -q -m all_trec`` prints, from one call asking for
``all_trec``: the 14 runs of the TREC 2003 Robust track and trec_eval's own test
collection, read from ``../shared/data`` (skipped, saying why, where absent).

The measures' own tests (test_trec_sets, test_trec_ranked, test_trec_judged) check
each family by name and by brute force; this one checks that the set, its order
and its all rows hold together as trec_eval prints them.
"""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import pytest

import fastrank

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
ROBUST = DATA / "trec_robust2003"
TEST = DATA / "trec_eval"
TEXT = ("runid", "relstring")  # trec_eval's lines that are not numbers


def _printed(lines) -> tuple[list[str], dict[tuple[str, str], str]]:
    """trec_eval's ``-q`` output: the measure names in the order of its all rows,
    and each (measure, query or 'all') -> the printed value."""
    names: list[str] = []
    values: dict[tuple[str, str], str] = {}
    for line in lines:
        if line.strip():
            m, q, v = line.split()
            if m in TEXT:
                continue
            if q == "all":
                names.append(m)
            values[m, q] = v
    return names, values


def _check(got: fastrank.RunScores, names: list[str], values: dict) -> int:
    assert list(got.mean) == names  # all_trec: trec_eval's names in its order
    compared = 0
    for (m, q), v in values.items():
        mine = got.mean[m] if q == "all" else \
            got.per_query[m][got.queries.tolist().index(q)]
        if "." in v:  # printed with %.4f: within half a unit of its last digit
            assert abs(mine - float(v)) <= 0.5e-4 + 1e-12, (m, q, mine, v)
        else:
            assert mine == int(v), (m, q, mine, v)
        compared += 1
    return compared


@pytest.mark.skipif(not ROBUST.is_dir(), reason=f"{ROBUST} is absent (real TREC data)")
def test_all_trec_on_every_robust2003_run(tmp_path) -> None:
    qrels_path = tmp_path / "qrels"
    qrels_path.write_bytes(gzip.decompress((ROBUST / "qrels.robust2003.txt.gz").read_bytes()))
    qrels = fastrank.read_qrels(str(qrels_path))
    runs = sorted((ROBUST / "runs").glob("input.*.gz"))
    assert len(runs) == 14
    compared = 0
    for path in runs:
        name = path.name[len("input."):-len(".gz")]
        run_path = tmp_path / name
        run_path.write_bytes(gzip.decompress(path.read_bytes()))
        with gzip.open(ROBUST / "trec_eval10" / f"{name}.aq.gz", "rt") as f:
            names, values = _printed(f)
        got = fastrank.evaluate_run(qrels, fastrank.read_run(str(run_path)), "all_trec",
                                    ties="trec_eval")
        compared += _check(got, names, values)
    # 95 names per query and all; num_q, gm_map and gm_bpref in the all row only
    assert compared == 14 * (95 * 101 + 3)


@pytest.mark.skipif(not TEST.is_dir(), reason=f"{TEST} is absent (trec_eval's test files)")
def test_all_trec_on_trec_evals_test_collection() -> None:
    got = fastrank.evaluate_run(fastrank.read_qrels(str(TEST / "qrels.test")),
                                fastrank.read_run(str(TEST / "results.test")), "all_trec",
                                ties="trec_eval")
    names, values = _printed((TEST / "out.test.aq").read_text().splitlines())
    assert _check(got, names, values) == len(values) > 90 * 4


def test_all_trec_under_expected_ties_leaves_no_closed_form_measures_nan() -> None:
    """G and infAP have no closed form over the orders of these ties: asked through
    all_trec they are NaN with one warning naming them (every other measure given);
    asked by name they raise; on a run without ties they are trec_eval's values."""
    qrels = (["q"] * 4, ["a", "b", "c", "d"], [2, 0, 1, 0])
    tied = (["q"] * 4, ["a", "b", "c", "e"], [1.0, 1.0, 0.5, 0.5])
    with pytest.warns(fastrank.UndefinedMetricWarning, match="infAP, G of all_trec") as rec:
        got = fastrank.evaluate_run(qrels, tied, "all_trec")
    assert len(rec) == 1
    assert math.isnan(got.mean["G"]) and math.isnan(got.mean["infAP"])
    assert all(not math.isnan(v) for k, v in got.mean.items() if k not in ("G", "infAP"))
    for name in ("G", "infAP"):
        with pytest.raises(fastrank.UnsupportedOptionError, match=name):
            fastrank.evaluate_run(qrels, tied, ["all_trec", name])
    distinct = (tied[0], tied[1], [4.0, 3.0, 2.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        every = fastrank.evaluate_run(qrels, distinct, "all_trec")
    exact = fastrank.evaluate_run(qrels, distinct, "all_trec", ties="trec_eval")
    assert every.mean == exact.mean
