"""Print the label-ranking and retrieval comparison table, measured in this run.

    python benchmarks/compare_rankings.py            # about half a minute
    python benchmarks/compare_rankings.py --quick

Rows:
* each sample's labels ranked, 10,000 samples x 1,000 labels (float32 scores,
  2% relevant, scores rounded to 2 decimals for ties): LRAP, average="samples"
  AP and ROC AUC, coverage error, label ranking loss and nDCG@10 against the
  scikit-learn function of the same name (checked equal first);
* a TREC-shaped run, 10,000 queries x 100 documents, the measures map,
  ndcg@10, P@10, recip_rank and recall@100 in one ``evaluate_run`` call, with
  integer and with string ids, against pytrec_eval (trec_eval's C code, a test
  dependency; values checked equal first) and, with ``--ranx PYTHON`` (a Python
  that imports ranx, run in a subprocess), ranx: its warm ``evaluate``, and what
  building its objects and its first, compiling, call cost.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import sklearn.metrics as skm

sys.path.insert(0, str(Path(__file__).parent))
from timing import alternate, machine
from timing import fmt_seconds as _fmt

import fastrank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--ranx", help="a Python that imports ranx (run in a subprocess)")
    parser.add_argument("--trec-only", action="store_true", help="the TREC table only")
    args = parser.parse_args()
    repeat = 2 if args.quick else 3
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
    print(machine())
    rng = np.random.default_rng(0)
    if args.trec_only:
        trec_table(rng, repeat, args.ranx)
        return
    n, t = 10_000, 1_000
    Y = rng.random((n, t)) < 0.02
    Y[:, 0] = True  # every sample has a relevant label (where scikit-learn and NaN differ)
    S = np.round(rng.random((n, t)) + 0.3 * Y, 2).astype(np.float32)
    rows = [
        ("label_ranking_average_precision", lambda: fastrank.label_ranking_average_precision(Y, S),
         lambda: skm.label_ranking_average_precision_score(Y, S)),
        ('average_precision(average="samples")',
         lambda: fastrank.average_precision(Y, S, average="samples"),
         lambda: skm.average_precision_score(Y, S, average="samples")),
        ('roc_auc(average="samples")', lambda: fastrank.roc_auc(Y, S, average="samples"),
         lambda: skm.roc_auc_score(Y, S, average="samples")),
        ("coverage_error", lambda: fastrank.coverage_error(Y, S),
         lambda: skm.coverage_error(Y, S)),
        ("label_ranking_loss", lambda: fastrank.label_ranking_loss(Y, S),
         lambda: skm.label_ranking_loss(Y, S)),
        ("ndcg(k=10)", lambda: fastrank.ndcg(Y, S, k=10), lambda: skm.ndcg_score(Y, S, k=10)),
    ]
    print(f"\nEach sample's labels: {n:,} x {t:,} float32, ties")
    print("| function | fastrank | scikit-learn | ratio |\n|---|---|---|---|")
    for name, ours, theirs in rows:
        assert abs(ours() - theirs()) < 1e-9, name
        a, = alternate([ours], repeat)
        b, = alternate([theirs], 1)
        print(f"| {name} | {_fmt(a)} | {_fmt(b)} | {b / a:.1f}x faster |")
    counted_table(rng, repeat)
    trec_table(rng, repeat, args.ranx)


def counted_table(rng: np.random.Generator, repeat: int) -> None:
    """LRAP against the number of relevant labels per sample, with the batch kernel
    counting the negatives of rows with few positives (this machine's limit) and
    with every row sorted (limit 0), in turns: the measurement behind the limit."""
    from fastrank._core import sorting

    original = sorting.count_choice
    choice = original()
    n, t = 10_000, 1_000
    print(f"\nLRAP, {n:,} x {t:,} float32 with ties, against relevant labels per sample; "
          f"counted up to {choice.limit} ({choice.reason}), or every row sorted")
    print("| relevant per sample | counted | sorted | sorted / counted |\n|---|---|---|---|")

    def with_limit(limit: int, Y: np.ndarray, S: np.ndarray) -> Any:
        sorting.count_choice = lambda: sorting.CountChoice(limit, "benchmark")
        return fastrank.label_ranking_average_precision(Y, S)

    try:
        for m in (1, 4, 16, 32, 64, 100):
            Y = np.zeros((n, t), bool)
            Y[np.arange(n)[:, None], np.argsort(rng.random((n, t)), axis=1)[:, :m]] = True
            S = np.round(rng.random((n, t)) + 0.3 * Y, 2).astype(np.float32)
            counted, sorted_ = alternate([lambda Y=Y, S=S: with_limit(choice.limit, Y, S),
                                          lambda Y=Y, S=S: with_limit(0, Y, S)], repeat)
            note = "" if m <= choice.limit else " (above the limit: both sort)"
            print(f"| {m}{note} | {_fmt(counted)} | {_fmt(sorted_)} | "
                  f"{sorted_ / counted:.2f}x |")
    finally:
        sorting.count_choice = original


_RANX = """
import json, sys, time
import numpy as np
from ranx import Qrels, Run, evaluate
d = np.load({npz!r})
t0 = time.perf_counter()
qrels, run = {{}}, {{}}
for q, doc, r in zip(d["jq"].tolist(), d["jd"].tolist(), d["jr"].tolist()):
    qrels.setdefault(q, {{}})[doc] = int(r)
for q, doc, s in zip(d["rq"].tolist(), d["rd"].tolist(), d["rs"].tolist()):
    run.setdefault(q, {{}})[doc] = float(s)
t1 = time.perf_counter()
Q, R = Qrels(qrels), Run(run)
t2 = time.perf_counter()
m = ["map", "ndcg@10", "precision@10", "mrr", "recall@100"]
evaluate(Q, R, m, make_comparable=True)
t3 = time.perf_counter()
times = []
for _ in range({repeat}):
    a = time.perf_counter(); out = evaluate(Q, R, m, make_comparable=True)
    times.append(time.perf_counter() - a)
print(json.dumps({{"dicts": t1 - t0, "objects": t2 - t1, "first": t3 - t2,
                  "warm": sorted(times)[len(times) // 2], "values": out}}))
"""


def _ranx(python: str, qrels, run, repeat: int) -> dict | None:
    import json
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        npz = os.path.join(tmp, "trec.npz")
        np.savez(npz, jq=qrels[0], jd=qrels[1], jr=qrels[2], rq=run[0], rd=run[1], rs=run[2])
        out = subprocess.run([python, "-c", _RANX.format(npz=npz, repeat=repeat)],
                             capture_output=True, text=True)
    if out.returncode:
        print(f"(ranx did not run: {out.stderr.strip().splitlines()[-1]})")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _as_read(ids: np.ndarray) -> np.ndarray:
    """Text ids as wide as their longest, as ``read_run`` (or ``np.array`` of a list of
    str) gives them: ``astype(str)`` of int64 makes every one 21 characters wide,
    and reading that padding costs fastrank about 7 ms per million ids here."""
    return ids.astype(f"U{int(np.char.str_len(ids).max())}")


def trec_table(rng: np.random.Generator, repeat: int, ranx: str | None) -> None:
    """A TREC-shaped run: fastrank's ``evaluate_run`` against pytrec_eval (trec_eval's C
    code; its values checked equal first, with trec_eval's tie order) and, given a
    Python that imports it, ranx."""
    nq, nd = 10_000, 100
    q = np.repeat(np.arange(nq), nd)
    d = np.tile(np.arange(nd), nq)
    rel = (rng.random(q.shape[0]) < 0.1) * rng.integers(1, 3, q.shape[0])
    s = np.round(rng.random(q.shape[0]) + 0.3 * (rel > 0), 3)
    measures = ["map", "ndcg@10", "P@10", "recip_rank", "recall@100"]
    print(f"\nA run of {nq:,} queries x {nd} documents, {', '.join(measures)}")
    print("| ids | `evaluate_run` |\n|---|---|")
    for label, qq, dd in (("integer", q, d),
                          ("string", _as_read(np.char.add("q", q.astype(str))),
                           _as_read(np.char.add("d", np.char.zfill(d.astype(str), 3))))):
        judged = rel > 0
        qrels, run = (qq[judged], dd[judged], rel[judged]), (qq, dd, s)
        t_run, = alternate([lambda qrels=qrels, run=run: fastrank.evaluate_run(qrels, run,
                                                                              measures)],
                           repeat)
        print(f"| {label} | {_fmt(t_run)} |")
    try:
        import pytrec_eval
    except ImportError:
        print("(pytrec_eval is not installed: pip install pytrec-eval-terrier)")
        return
    qd: dict[str, dict[str, int]] = {}
    rd: dict[str, dict[str, float]] = {}
    for a, b, c in zip(qq[judged].tolist(), dd[judged].tolist(), rel[judged].tolist(),
                       strict=True):
        qd.setdefault(a, {})[b] = int(c)
    for a, b, c in zip(qq.tolist(), dd.tolist(), s.tolist(), strict=True):
        rd.setdefault(a, {})[b] = float(c)
    wanted = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100"}
    names = {"map": "map", "ndcg_cut_10": "ndcg@10", "P_10": "P@10",
             "recip_rank": "recip_rank", "recall_100": "recall@100"}

    def theirs() -> dict:
        return pytrec_eval.RelevanceEvaluator(qd, wanted).evaluate(rd)  # type: ignore[no-any-return]

    ours = fastrank.evaluate_run(qrels, run, measures, ties="trec_eval")
    got = theirs()
    for key, name in names.items():
        want = np.array([got[qid][key] for qid in ours.queries.tolist()])
        assert np.allclose(ours.per_query[name], want, atol=1e-12), name
    t_ours, t_trec, t_theirs = alternate(
        [lambda: fastrank.evaluate_run(qrels, run, measures),
         lambda: fastrank.evaluate_run(qrels, run, measures, ties="trec_eval"), theirs], repeat)
    print("\nString ids, values checked equal to pytrec_eval's with ties='trec_eval':")
    print("| tool | evaluation | |\n|---|---|---|")
    print(f"| fastrank `evaluate_run` (from the three arrays), default ties='expected' | "
          f"{_fmt(t_ours)} | |")
    print(f"| fastrank `evaluate_run(..., ties='trec_eval')` | {_fmt(t_trec)} | |")
    print(f"| pytrec_eval (`RelevanceEvaluator` + `evaluate`, from dicts) | {_fmt(t_theirs)} | "
          f"fastrank {t_theirs / t_ours:.1f}x faster (ties='expected'), "
          f"{t_theirs / t_trec:.1f}x (ties='trec_eval') |")
    if ranx:
        r = _ranx(ranx, qrels, run, repeat)
        if r is not None:
            print(f"| ranx `evaluate` (warm) | {_fmt(r['warm'])} | fastrank "
                  f"{r['warm'] / t_ours:.1f}x faster |")
            print(f"| ranx: dicts {r['dicts']:.1f} s, `Qrels`/`Run` objects {r['objects']:.1f} s,"
                  f" first `evaluate` (compiling) {r['first']:.1f} s | | |")


if __name__ == "__main__":
    main()
