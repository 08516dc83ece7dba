"""Print the uncertainty-layer comparison table, every baseline measured in this run.

    python benchmarks/compare_uncertainty.py            # full workloads (a few minutes)
    python benchmarks/compare_uncertainty.py --labels 50 --resamples 10

Rows (workloads and baselines in ``uncertainty_workloads.py``):
* U1 (1,000,000 samples): ``roc_auc_ci`` (DeLong) against ``roc_auc`` itself,
  timed alternately in one process.
* U2 (two models, 100,000 samples x 1,000 labels, float32): the batched
  ``delong_test`` against looping a NumPy fast DeLong over the labels, in two
  forms: fully vectorised (midranks from ``scipy.stats.rankdata``) and with the
  Python midrank loop most published ports use. The baselines are timed on a
  subset of the labels (every label costs the same) and scaled to all of them.
* U3 (100,000 samples): 1,000 stratified bootstrap resamples of average
  precision against a scikit-learn loop (timed on a subset and scaled).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import alternate
from timing import fmt_seconds as _fmt
from uncertainty_workloads import (
    bootstrap_sklearn,
    fast_delong_loop,
    fast_delong_numpy,
    one_task,
    two_models,
)

import fastrank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per fastrank figure")
    parser.add_argument("--labels", type=int, default=40,
                        help="labels the NumPy baselines are timed on (default 40)")
    parser.add_argument("--resamples", type=int, default=40,
                        help="resamples the scikit-learn loop is timed on (default 40)")
    args = parser.parse_args()
    print(f"Numba threads: {numba.get_num_threads()}")

    y, s = one_task(1_000_000)
    auc, ci = alternate([lambda: fastrank.roc_auc(y, s), lambda: fastrank.roc_auc_ci(y, s)],
                         args.repeat)
    print("\nU1: DeLong variance of 1,000,000 samples (target: at most 2x roc_auc)")
    print("| call | time | vs roc_auc |\n|---|---|---|")
    print(f"| `roc_auc` | {_fmt(auc)} | 1.00x |")
    print(f"| `roc_auc_ci` (AUC, DeLong variance, interval) | {_fmt(ci)} | {ci / auc:.2f}x |")

    y2, a, b = two_models()
    t = y2.shape[1]
    fast = alternate([lambda: fastrank.delong_test(y2, a, b)], max(3, args.repeat // 2))[0]
    labels = np.linspace(0, t - 1, args.labels).astype(int)
    t0 = time.perf_counter()
    for j in labels:
        fast_delong_numpy(y2[:, j], np.vstack([a[:, j], b[:, j]]))
    vec = (time.perf_counter() - t0) / len(labels) * t
    few = labels[: max(2, len(labels) // 8)]
    t0 = time.perf_counter()
    for j in few:
        fast_delong_loop(y2[:, j], np.vstack([a[:, j], b[:, j]]))
    loop = (time.perf_counter() - t0) / len(few) * t
    print(f"\nU2: paired DeLong, two models, {y2.shape[0]:,} samples x {t:,} labels "
          "(target: at least 50x the NumPy loop)")
    print("| call | time | vs fastrank |\n|---|---|---|")
    print(f"| `fastrank.delong_test` (all labels, one call) | {_fmt(fast)} | 1.0x |")
    print(f"| NumPy fast DeLong per label, vectorised midranks (scaled from {len(labels)} "
          f"labels) | {_fmt(vec)} | {vec / fast:.1f}x |")
    print(f"| NumPy fast DeLong per label, midrank loop (scaled from {len(few)} labels) | "
          f"{_fmt(loop)} | {loop / fast:.1f}x |")

    y3, s3 = one_task(100_000)
    boot = alternate([lambda: fastrank.bootstrap_ci("average_precision", y3, s3,
                                                     n_resamples=1000, seed=0)],
                      max(3, args.repeat // 2))[0]
    t0 = time.perf_counter()
    bootstrap_sklearn(y3, s3, args.resamples, seed=0)
    sk = (time.perf_counter() - t0) / args.resamples * 1000
    print("\nU3: 1,000 stratified bootstrap resamples of AP, 100,000 samples")
    print("| call | time | vs fastrank |\n|---|---|---|")
    print(f"| `fastrank.bootstrap_ci` | {_fmt(boot)} | 1.0x |")
    print(f"| scikit-learn `average_precision_score` loop (scaled from {args.resamples}) | "
          f"{_fmt(sk)} | {sk / boot:.1f}x |")


if __name__ == "__main__":
    main()
