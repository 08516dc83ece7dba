"""Time compare_runs on the 14 runs of the TREC 2003 Robust track, against ranx's compare.

    python benchmarks/compare_runs.py                      # fastrank alone
    python benchmarks/compare_runs.py --ranx PYTHON        # and ranx (a Python that imports it)

Every pair of the 14 runs (91 comparisons per measure), 100 queries, the measures map,
ndcg@10, P@10, recip_rank and recall@100, from parsed runs (arrays for fastrank,
``Qrels``/``Run`` objects for ranx, built before timing). Rows: Fisher's randomization
test with 10,000 random sign patterns, and the paired t test; each the best of
``--repeat`` warm calls (ranx's first call compiles; its randomization test, slow, is
timed once), and what scoring the 14 runs alone costs: fastrank's ``evaluate_run`` from
the arrays (what ``compare_runs`` spends most of its time on), ranx's building of its
``Qrels`` and ``Run`` objects from nested dicts (which ``compare`` then takes as given).
Needs ../shared/data/trec_robust2003.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import fmt_seconds, machine

import fastrank

ROBUST = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_robust2003"
MEASURES = ["map", "ndcg@10", "P@10", "recip_rank", "recall@100"]
RANX_MEASURES = ["map", "ndcg@10", "precision@10", "mrr", "recall@100"]

_RANX = """
import json, sys, time
import numpy as np
from ranx import Qrels, Run, compare
d = np.load({npz!r})
names = d["names"].tolist()
def nested(q, doc, v, cast):
    out = {{}}
    for a, b, c in zip(q.tolist(), doc.tolist(), v.tolist()):
        out.setdefault(a, {{}})[b] = cast(c)
    return out
t = time.perf_counter()
Q = Qrels(nested(d["jq"], d["jd"], d["jr"], int))
runs = [Run(nested(d["q" + str(i)], d["d" + str(i)], d["s" + str(i)], float), name=n)
        for i, n in enumerate(names)]
out = {{"objects": time.perf_counter() - t}}
for test, repeat in (("fisher", 1), ("student", {repeat})):  # fisher: 1 timed call, it is slow
    compare(Q, runs, {metrics!r}, stat_test=test, n_permutations=10, max_p=0.05)  # compiles
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        compare(Q, runs, {metrics!r}, stat_test=test, n_permutations=10_000, max_p=0.05)
        times.append(time.perf_counter() - t)
    out[test] = min(times)
print(json.dumps(out))
"""


def _read(path: Path, reader):
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, path.name[:-len(".gz")])
        with open(plain, "wb") as f:
            f.write(gzip.decompress(path.read_bytes()))
        return reader(plain)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranx", help="a Python that imports ranx (run in a subprocess)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not ROBUST.is_dir():
        sys.exit(f"{ROBUST} is absent: this benchmark reads the Robust 2003 runs")
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
    print(machine())
    qrels = _read(ROBUST / "qrels.robust2003.txt.gz", fastrank.read_qrels)
    names = sorted(p.name[len("input."):-len(".gz")] for p in (ROBUST / "runs").glob("*.gz"))
    runs = {n: _read(ROBUST / "runs" / f"input.{n}.gz", fastrank.read_run) for n in names}
    ours = {}
    for test in ("randomization", "t"):
        fastrank.compare_runs(qrels, runs, MEASURES, test=test, seed=0)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fastrank.compare_runs(qrels, runs, MEASURES, test=test, seed=0)
            times.append(time.perf_counter() - t0)
        ours[test] = min(times)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for n in names:
            fastrank.evaluate_run(qrels, runs[n], MEASURES)
        times.append(time.perf_counter() - t0)
    ours["scoring"] = min(times)
    theirs = None
    if args.ranx:
        with tempfile.TemporaryDirectory() as tmp:
            npz = os.path.join(tmp, "runs.npz")
            arrays = {"names": np.array(names), "jq": qrels[0], "jd": qrels[1], "jr": qrels[2]}
            for i, n in enumerate(names):
                arrays.update({f"q{i}": runs[n][0], f"d{i}": runs[n][1], f"s{i}": runs[n][2]})
            np.savez(npz, **arrays)
            code = _RANX.format(npz=npz, repeat=args.repeat, metrics=RANX_MEASURES)
            out = subprocess.run([args.ranx, "-c", code], capture_output=True, text=True,
                                 check=False)
        if out.returncode:
            print(f"(ranx did not run: {out.stderr.strip().splitlines()[-1]})")
        else:
            theirs = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\n14 runs, 91 pairs, 100 queries, {len(MEASURES)} measures "
          f"(best of {args.repeat} warm calls)\n")
    print("| call | fastrank | ranx | ranx / fastrank |")
    print("|---|---|---|---|")
    for ours_name, ranx_name, label in (
            ("randomization", "fisher", "compare, randomization test, 10,000 patterns"),
            ("t", "student", "compare, paired t test"),
            ("scoring", "objects", "scoring alone: evaluate_run x 14 / ranx's objects")):
        ranx_time = theirs[ranx_name] if theirs else None
        print(f"| {label} | {fmt_seconds(ours[ours_name])} | "
              f"{fmt_seconds(ranx_time) if ranx_time else '-'} | "
              f"{f'{ranx_time / ours[ours_name]:.1f}x' if ranx_time else '-'} |")


if __name__ == "__main__":
    main()
