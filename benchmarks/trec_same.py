"""Check that this checkout's TREC reading and scoring give, bit for bit, what
another checkout of fastrank gives (the one before a change).

Usage::

    python benchmarks/trec_same.py OTHER_CHECKOUT [DATA_FOLDER]

Runs the same cases in two processes, one importing fastrank from this checkout
and one from ``OTHER_CHECKOUT``, and compares every result: ``read_run`` and
``read_qrels`` (ids as strings, values as bits) and ``evaluate_run`` (queries,
every measure per query and its mean, as bits) under every tie rule, on the TREC
2003 Robust runs (from ``DATA_FOLDER``, default ``../shared/data``: skipped
where absent) and on random runs with integer, short, long and non-ASCII text
ids, heavy ties, unjudged queries and queries whose rows are not consecutive,
from arrays and through files (and one run of 1.1 M rows from arrays, whose
documents are coded by group). Prints the cases compared and exits 1 on the
first difference. A developer tool, not a test.
"""

from __future__ import annotations

import gzip
import os
import pickle
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parents[1]
MEASURES = ["map", "map@10", "P@5", "P@10", "recall@100", "success@5", "recip_rank", "Rprec",
            "Rprec_mult_0.2", "ndcg", "ndcg@10", "num_ret", "num_rel", "num_rel_ret",
            "num_nonrel_judged_ret", "set_P", "set_recall", "set_relative_P", "set_F",
            "set_map", "utility"]
TIES = ("expected", "optimistic", "pessimistic", "trec_eval")


def random_cases(folder: Path) -> list[tuple[str, Any, Any]]:
    """(name, qrels, run): arrays and the files written from them."""
    rng = np.random.default_rng(44)
    out: list[tuple[str, Any, Any]] = []
    for kind in ("int", "short", "long", "non-ascii", "mixed-width", "long large", "by group"):
        # past ids.SMALL_ROWS; "by group": past join.GROUPED_ROWS too (arrays only)
        nq, nd = {"long large": (300, 400), "by group": (1_100, 1_000)}.get(kind, (30, 80))
        q = np.repeat(np.arange(nq), nd)
        d = rng.integers(0, 400 if nq == 30 else 100_000, q.shape[0])
        key = q * 1_000_000 + d
        _, first = np.unique(key, return_index=True)
        q, d = q[np.sort(first)], d[np.sort(first)]
        if kind == "int":
            qq, dd = q + 300, d * 7
        elif kind == "short":
            qq, dd = np.char.add("q", q.astype(str)), np.char.add("d", d.astype(str))
        elif kind in ("long", "long large", "by group"):
            qq = np.char.add("topic-", q.astype(str))
            dd = np.char.add("FBIS3-", np.char.zfill(d.astype(str), 6))
        elif kind == "non-ascii":
            qq = np.char.add("q", q.astype(str))
            dd = np.char.add(np.array(["é", "a", "Ω", "z", "ß"])[d % 5], d.astype(str))
        else:
            qq = np.char.add("q", q.astype(str))
            dd = np.where(d % 3 == 0, np.char.add("d", d.astype(str)),
                          np.char.add("document-", d.astype(str)))
        s = np.round(rng.random(q.shape[0]) * 5) / 5  # heavy ties
        order = rng.permutation(q.shape[0]) if kind in ("short", "mixed-width") else None
        judged = rng.random(q.shape[0]) < 0.4
        unjudged_q = np.isin(q, [3, 17])
        judged &= ~unjudged_q
        grades = rng.integers(-1, 3, q.shape[0])
        qrels = (qq[judged], dd[judged], grades[judged])
        run = (qq, dd, s) if order is None else (qq[order], dd[order], s[order])
        out.append((f"random {kind}", qrels, run))
        if kind == "by group":
            continue
        qf, rf = folder / f"{kind}.qrels", folder / f"{kind}.run"
        qcols, rcols = ([x.tolist() for x in part] for part in (qrels, run))
        qf.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in zip(*qcols, strict=True)),
                      encoding="utf-8")
        rf.write_text("".join(f"{a} Q0 {b} {i} {c!r} t\n"
                              for i, (a, b, c) in enumerate(zip(*rcols, strict=True))),
                      encoding="utf-8")
        out.append((f"random {kind} files", str(qf), str(rf)))
    return out


def robust_cases(data: Path, folder: Path) -> list[tuple[str, Any, Any]]:
    robust = data / "trec_robust2003"
    if not robust.is_dir():
        print(f"(no {robust}: the Robust 2003 runs are skipped)")
        return []

    def plain(path: Path) -> str:
        out = folder / path.name.removesuffix(".gz")
        out.write_bytes(gzip.decompress(path.read_bytes()))
        return str(out)

    qrels = plain(robust / "qrels.robust2003.txt.gz")
    return [(f"robust {p.name}", qrels, plain(p))
            for p in sorted((robust / "runs").glob("input.*.gz"))]


def results(cases: list[tuple[str, Any, Any]]) -> dict[str, Any]:
    import fastrank

    got: dict[str, Any] = {}
    for name, qrels, run in cases:
        if isinstance(qrels, str):
            q, r = fastrank.read_qrels(qrels), fastrank.read_run(run)
            got[f"{name} read"] = [(np.asarray(x).tolist() if np.asarray(x).dtype.kind == "U"
                                    else np.asarray(x).tobytes()) for x in (*q, *r)]
        else:
            q, r = qrels, run
        for ties in TIES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = fastrank.evaluate_run(q, r, MEASURES, ties=ties)
            got[f"{name} {ties}"] = (np.asarray(res.queries).tolist(),
                                     {m: v.tobytes() for m, v in res.per_query.items()},
                                     {m: np.float64(v).tobytes() for m, v in res.mean.items()})
    return got


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":  # one side: pickle its results
        with open(sys.argv[2], "rb") as f:
            cases = pickle.load(f)
        with open(sys.argv[3], "wb") as f:
            pickle.dump(results(cases), f)
        return 0
    other = Path(sys.argv[1]).resolve()
    data = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE.parent / "shared" / "data"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = random_cases(folder) + robust_cases(data, folder)
        with open(folder / "cases.pkl", "wb") as f:
            pickle.dump(cases, f)
        sides = []
        for root in (HERE, other):
            out = folder / f"{len(sides)}.pkl"
            env = dict(os.environ, PYTHONPATH=str(root))
            subprocess.run([sys.executable, __file__, "--child", str(folder / "cases.pkl"),
                            str(out)], check=True, env=env, cwd=root)
            with open(out, "rb") as f:
                sides.append(pickle.load(f))
    mine, theirs = sides
    if mine.keys() != theirs.keys():
        print("different cases:", sorted(set(mine) ^ set(theirs)))
        return 1
    for key in mine:
        if mine[key] != theirs[key]:
            print(f"DIFFERENT: {key}")
            return 1
    print(f"{len(mine)} results the same, bit for bit ({len(cases)} cases: "
          f"{sum(len(v[1]) for k, v in mine.items() if not k.endswith(' read'))} measures "
          "per query and their means compared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
