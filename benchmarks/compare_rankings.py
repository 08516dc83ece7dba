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
  integer and with string ids (ranx and pytrec_eval are not installed here, so
  they are not in the table).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import sklearn.metrics as skm

sys.path.insert(0, str(Path(__file__).parent))
from compare import _machine
from timing import alternate
from timing import fmt_seconds as _fmt

import fastrank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeat = 2 if args.quick else 3
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
    print(_machine())
    rng = np.random.default_rng(0)
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
    nq, nd = 10_000, 100
    q = np.repeat(np.arange(nq), nd)
    d = np.tile(np.arange(nd), nq)
    rel = (rng.random(q.shape[0]) < 0.1) * rng.integers(1, 3, q.shape[0])
    s = np.round(rng.random(q.shape[0]) + 0.3 * (rel > 0), 3)
    measures = ["map", "ndcg@10", "P@10", "recip_rank", "recall@100"]
    print(f"\nA run of {nq:,} queries x {nd} documents, {', '.join(measures)}")
    print("| ids | `evaluate_run` |\n|---|---|")
    for label, qq, dd in (("integer", q, d),
                          ("string", np.char.add("q", q.astype(str)),
                           np.char.add("d", d.astype(str)))):
        judged = rel > 0
        qrels, run = (qq[judged], dd[judged], rel[judged]), (qq, dd, s)
        t_run, = alternate([lambda qrels=qrels, run=run: fastrank.evaluate_run(qrels, run,
                                                                              measures)],
                           repeat)
        print(f"| {label} | {_fmt(t_run)} |")


if __name__ == "__main__":
    main()
