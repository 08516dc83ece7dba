"""The real TREC data of the TREC tests, and trec_eval's printed output read back.

The files live in ``../shared/data`` (read there, never copied into the repository;
each folder's README.md says what they are): trec_eval's own test collection
(``trec_eval/``) and the TREC 2003 Robust track's qrels, its 14 runs and
trec_eval 10's ``-q -m all_trec`` output for each (``trec_robust2003/``, gzipped).
A test that needs a folder is marked :data:`NEEDS_ROBUST` or :data:`NEEDS_TEST`
and skips, saying why, where it is absent.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import fastrank

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
ROBUST = DATA / "trec_robust2003"
TEST = DATA / "trec_eval"
# the Robust 2003 runs by name (input.NAME.gz), sorted
RUNS = sorted(p.name[len("input."):-len(".gz")] for p in (ROBUST / "runs").glob("input.*.gz")) \
    if ROBUST.is_dir() else []
NEEDS_ROBUST = pytest.mark.skipif(not ROBUST.is_dir(),
                                  reason=f"{ROBUST} is absent (real TREC data)")
NEEDS_TEST = pytest.mark.skipif(not TEST.is_dir(),
                                reason=f"{TEST} is absent (trec_eval's test files)")
TEXT = ("runid", "relstring")  # trec_eval's lines that are not numbers
ONLY_ALL = ("num_q", "gm_map", "gm_bpref")  # measures trec_eval prints in its all row alone


def unzipped(path: Path, tmp_path: Path, name: str | None = None) -> str:
    """A gzipped file written out unzipped under ``tmp_path`` (as ``name``, else its
    own name less ``.gz``); its path."""
    out = tmp_path / (name or path.name.removesuffix(".gz"))
    out.write_bytes(gzip.decompress(path.read_bytes()))
    return str(out)


def robust_qrels(tmp_path: Path, name: str | None = None) -> str:
    """The Robust 2003 qrels, unzipped under ``tmp_path``: its path."""
    return unzipped(ROBUST / "qrels.robust2003.txt.gz", tmp_path, name)


def robust_run(run: str, tmp_path: Path, name: str | None = None) -> str:
    """Robust 2003 run ``run`` (one of :data:`RUNS`), unzipped under ``tmp_path``: its path."""
    return unzipped(ROBUST / "runs" / f"input.{run}.gz", tmp_path, name)


def robust_runs(tmp_path: Path) -> Iterator[tuple[str, Any, Any]]:
    """Each Robust 2003 run in :data:`RUNS` order: its name, the qrels (read once)
    and the run, as :func:`fastrank.read_qrels` and :func:`fastrank.read_run` give
    them, from their files unzipped under ``tmp_path``."""
    qrels = fastrank.read_qrels(robust_qrels(tmp_path))
    for name in RUNS:
        yield name, qrels, fastrank.read_run(robust_run(name, tmp_path))


def collection() -> tuple[Any, Any]:
    """trec_eval's test collection: its qrels and its run, read."""
    return (fastrank.read_qrels(str(TEST / "qrels.test")),
            fastrank.read_run(str(TEST / "results.test")))


def robust_printed(run: str) -> list[str]:
    """trec_eval 10's ``-q -m all_trec`` output for run ``run``, line by line."""
    with gzip.open(ROBUST / "trec_eval10" / f"{run}.aq.gz", "rt") as f:
        return f.read().splitlines()


def collection_printed(name: str) -> list[str]:
    """trec_eval's expected output ``name`` (``out.test.aq``, ...) of its test
    collection, line by line."""
    return (TEST / name).read_text().splitlines()


def rows(lines: Iterable[str]) -> list[tuple[str, str, str]]:
    """trec_eval's ``-q`` lines as (measure, query or 'all', printed value), in order."""
    out = []
    for line in lines:
        if line.strip():
            m, q, v = line.split()
            out.append((m, q, v))
    return out


def printed(lines: Iterable[str]) -> dict[str, dict[str, str]]:
    """trec_eval's ``-q`` output as {measure: {query or 'all': printed value}}."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for m, q, v in rows(lines):
        out[m][q] = v
    return out


def printed_in_order(lines: Iterable[str]) -> tuple[list[str], dict[tuple[str, str], str]]:
    """trec_eval's ``-q`` output: the measure names in the order of its all rows, and
    each (measure, query or 'all') -> the printed value (the :data:`TEXT` lines left
    out)."""
    names: list[str] = []
    values: dict[tuple[str, str], str] = {}
    for m, q, v in rows(lines):
        if m in TEXT:
            continue
        if q == "all":
            names.append(m)
        values[m, q] = v
    return names, values


def compare(got: fastrank.RunScores, want: dict[str, dict[str, str]],
            names: Collection[str]) -> int:
    """Every value of ``names`` per query (those trec_eval prints: :data:`ONLY_ALL` in
    its all row alone) and in the all row against trec_eval's printed one (the
    ``num_`` counts exactly, the others to its 4 decimals); the number compared."""
    n = 0
    for name in names:
        pairs = [("all", got.mean[name])]
        if name not in ONLY_ALL:
            pairs += list(zip(got.queries.tolist(), got.per_query[name].tolist(), strict=True))
        assert len(pairs) == len(want[name]), name
        for q, v in pairs:
            w = want[name][str(q)]
            if name.startswith("num_"):
                assert v == int(w), (name, q, v, w)
            else:  # printed with %.4f: within half a unit of its last digit
                assert abs(v - float(w)) <= 0.5e-4 + 1e-12, (name, q, v, w)
            n += 1
    return n
