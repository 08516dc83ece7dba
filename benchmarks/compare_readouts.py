"""Print the readouts comparison table: operating points and partial areas against the
NumPy / scikit-learn code a user writes today, measured in this run.

    python benchmarks/compare_readouts.py            # about a minute
    python benchmarks/compare_readouts.py --quick

Rows, on the W1 workload (1,000,000 float64 scores, 10% positives) and W2 (the
same rounded to 2 decimals, heavy ties):
* sensitivity at 95% specificity, recall at 50% precision, the partial ROC area
  over FPR <= 0.1: fastrank's readout against scikit-learn's curve followed by
  the search a user writes (``roc_curve`` then the largest TPR with FPR <= 0.05;
  ``precision_recall_curve`` then the largest recall with precision >= 0.5;
  ``roc_auc_score(max_fpr=0.1)``), against one ``all_metrics`` call (the target:
  a readout costs no more) and against ``np.sort`` of the scores (the floor).
* R2: a bootstrap interval of the sensitivity at 95% specificity, 1,000
  resamples of 100,000 samples, against a loop of scikit-learn's curve and
  search over resamples (timed on a subset, scaled).
* B: a readout of every label of a label matrix (and of every group of the
  same scores as one vector with ``groups=``) against the batched
  ``roc_auc(average=None)`` on the same data; the last shape (10,000 tasks of
  100 samples) is the one where a Python step per task would dominate.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

sys.path.insert(0, str(Path(__file__).parent))
from timing import alternate, machine
from timing import fmt_seconds as _fmt
from workloads import workload

import fastrank


def sk_sens_at_spec(y: np.ndarray, s: np.ndarray, spec: float) -> float:
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    return float(tpr[(1.0 - fpr) >= spec].max())


def sk_recall_at_precision(y: np.ndarray, s: np.ndarray, p: float) -> float:
    precision, recall, _ = precision_recall_curve(y, s, drop_intermediate=False)
    return float(recall[precision >= p].max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    print(machine())
    for name in ("W1", "W2"):
        y, s = workload(name)
        # The same numbers first (outside the timings).
        assert abs(fastrank.sensitivity_at_specificity(y, s, 0.95).value
                   - sk_sens_at_spec(y, s, 0.95)) < 1e-12
        assert abs(fastrank.recall_at_precision(y, s, 0.5).value
                   - sk_recall_at_precision(y, s, 0.5)) < 1e-12
        assert abs(fastrank.partial_roc_auc(y, s, fpr=(0, 0.1), correct=True)
                   - roc_auc_score(y, s, max_fpr=0.1)) < 1e-12
        rows = [
            ("sensitivity at 95% specificity",
             lambda y=y, s=s: fastrank.sensitivity_at_specificity(y, s, 0.95),
             lambda y=y, s=s: sk_sens_at_spec(y, s, 0.95)),
            ("recall at 50% precision",
             lambda y=y, s=s: fastrank.recall_at_precision(y, s, 0.5),
             lambda y=y, s=s: sk_recall_at_precision(y, s, 0.5)),
            ("ROC area over FPR <= 0.1 (McClish)",
             lambda y=y, s=s: fastrank.partial_roc_auc(y, s, fpr=(0, 0.1), correct=True),
             lambda y=y, s=s: roc_auc_score(y, s, max_fpr=0.1)),
        ]
        fns = [lambda y=y, s=s: fastrank.all_metrics(y, s), lambda s=s: np.sort(s)]
        for _, ours, theirs in rows:
            fns += [ours, theirs]
        times = alternate(fns, repeat)
        allm, floor = times[0], times[1]
        print(f"\n{name}: one task of {y.shape[0]:,} samples")
        print("| readout | fastrank | / all_metrics | / np.sort | scikit-learn curve + search "
              "| sklearn / fastrank |")
        print("|---|---|---|---|---|---|")
        for k, (label, _, _) in enumerate(rows):
            ours, theirs = times[2 + 2 * k], times[3 + 2 * k]
            print(f"| {label} | {_fmt(ours)} | {ours / allm:.2f} | {ours / floor:.2f} | "
                  f"{_fmt(theirs)} | {theirs / ours:.1f}x |")
        print(f"| (all_metrics: {_fmt(allm)}; np.sort: {_fmt(floor)}) | | | | | |")

    y, s = workload("W1", 100_000)
    resamples = 200 if args.quick else 1000
    fastrank.bootstrap_ci("sensitivity_at_specificity", y, s, n_resamples=2, seed=0,
                          metric_options={"min_specificity": 0.95})  # compiled outside the time
    t0 = time.perf_counter()
    ci = fastrank.bootstrap_ci("sensitivity_at_specificity", y, s, n_resamples=resamples,
                               seed=0, metric_options={"min_specificity": 0.95})
    ours = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    few = 20
    t0 = time.perf_counter()
    for _ in range(few):
        rows_ = rng.integers(0, y.shape[0], y.shape[0])
        sk_sens_at_spec(y[rows_], s[rows_], 0.95)
    theirs = (time.perf_counter() - t0) / few * resamples
    print(f"\nR2: bootstrap of the sensitivity at 95% specificity, {resamples:,} resamples of "
          f"{y.shape[0]:,} samples (interval {ci.low:.4f} to {ci.high:.4f})")
    print("| call | time | vs fastrank |\n|---|---|---|")
    print(f"| `bootstrap_ci(..., metric_options=...)` | {_fmt(ours)} | 1.0x |")
    print(f"| scikit-learn `roc_curve` + search per resample (scaled from {few}) | "
          f"{_fmt(theirs)} | {theirs / ours:.1f}x slower |")

    batched(repeat)


def batched(repeat: int) -> None:
    """B: one readout per label of a label matrix, and per group, against the batched
    AUC on the same data (the issue's yardstick: as fast as the batched AUC)."""
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)  # a few tasks of 100
    print("\nB: readouts of every label or group, float32 scores, 10% positives")
    print("| batch | `roc_auc(average=None)` | sensitivity at 95% specificity | "
          "ROC area over FPR <= 0.1 | best cutoff (Youden) |")
    print("|---|---|---|---|---|")
    for n, t in ((10_000, 1_000), (100_000, 100), (100, 10_000)):
        Y = rng.random((n, t)) < 0.1
        S = (rng.standard_normal((n, t)) + 1.5 * Y).astype(np.float32)
        groups = np.repeat(np.arange(t), n)
        y, s = Y.T.ravel(), S.T.ravel()
        for label, args, kw in ((f"{n:,} x {t:,} labels", (Y, S), {}),
                                (f"{t:,} groups of {n:,}", (y, s), {"groups": groups})):
            fns = [lambda a=args, k=kw: fastrank.roc_auc(*a, average=None, **k),
                   lambda a=args, k=kw: fastrank.sensitivity_at_specificity(*a, 0.95, **k),
                   lambda a=args, k=kw: fastrank.partial_roc_auc(*a, fpr=(0, 0.1), **k),
                   lambda a=args, k=kw: fastrank.best_cutoff(*a, **k)]
            auc, *rest = alternate(fns, repeat)
            cells = " | ".join(f"{_fmt(x)} ({x / auc:.2f}x)" for x in rest)
            print(f"| {label} | {_fmt(auc)} | {cells} |")


if __name__ == "__main__":
    main()
