"""Print the evaluation-layer comparison table, every peer measured in this run.

    python benchmarks/compare_evaluation.py            # full workloads (about a minute)
    python benchmarks/compare_evaluation.py --scale 0.1

Rows (workloads in ``evaluation_workloads.py``):
* E1 (four models on 1,000,000 samples): ``fastrank.evaluate`` plus its summary
  and best-cutoff tables, against one ``all_metrics`` call per model (the
  metrics alone), ``np.sort`` of every score vector (the floor an exact method
  pays), and scikit-learn computing the same numbers: AP, ROC AUC, and both
  curves for the best cutoffs by Youden's J and F1.
* E2 (three models on five folds of 200,000): evaluate, then every model's mean
  ROC and PR curves and mean areas with their intervals.
* C1 (a 1,000,000-row CSV): the whole ``fastrank evaluate`` command in a fresh
  process, against pandas reading the same file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from compare import median_time
from evaluation_workloads import demo_models, folds, write_csv
from test_evaluation import _fastrank_tables, _sklearn_tables
from timing import fmt_seconds as _fmt

import fastrank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the workload sizes")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per fastrank figure")
    args = parser.parse_args()

    y, scores = demo_models(args.scale)
    rows = [
        ("fastrank evaluate + summary + best_cutoffs",
         median_time(lambda: _fastrank_tables(y, scores), args.repeat)),
        ("fastrank all_metrics per model (metrics only)",
         median_time(lambda: [fastrank.all_metrics(y, s) for s in scores.values()], args.repeat)),
        ("np.sort of every model's scores",
         median_time(lambda: [np.sort(s) for s in scores.values()], args.repeat)),
        ("scikit-learn: AP, AUC, roc_curve, precision_recall_curve",
         median_time(lambda: _sklearn_tables(y, scores), 1)),
    ]
    base = rows[0][1]
    print(f"E1: {len(scores)} models x {y.shape[0]:,} samples")
    print("| call | time | vs fastrank evaluate |\n|---|---|---|")
    for name, t in rows:
        print(f"| {name} | {_fmt(t)} | {t / base:.2f}x |")

    data = folds(args.scale)
    s_list = [s for _, models in data for s in models.values()]
    y_list = [yy for yy, models in data for _ in models]
    names = [m for _, models in data for m in models]
    ids = [k for k, (_, models) in enumerate(data) for _ in models]

    def e2() -> None:
        ev = fastrank.evaluate(s_list, y_list, model_names=names, dataset_ids=ids)
        for model in ev.models:
            ev.mean_curve(model, "roc")
            ev.mean_curve(model, "pr")
        ev.mean_auc(as_frame=False)

    t_e2 = median_time(e2, args.repeat)
    print(f"\nE2: {len(set(names))} models x {len(data)} folds of {data[0][0].shape[0]:,}: "
          f"evaluate + mean curves + mean areas {_fmt(t_e2)}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c1.csv")
        write_csv(path, args.scale)
        size = os.path.getsize(path)
        command = [sys.executable, "-m", "fastrank", "evaluate", path, "--label", "y",
                   "--score", "a", "b", "--no-progress"]
        subprocess.run(command, check=True, capture_output=True)  # warm the caches
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        t_cli = sorted(times)[1]
        try:
            import pandas as pd

            t_pd: float | None = median_time(lambda: pd.read_csv(path), 3)
        except ImportError:
            t_pd = None
        startup = [sys.executable, "-c", "import fastrank"]
        t0 = time.perf_counter()
        subprocess.run(startup, check=True)
        t_import = time.perf_counter() - t0
    rows_c1 = max(int(1_000_000 * args.scale), 1000)
    print(f"\nC1: {rows_c1:,}-row CSV ({size / 2**20:.0f} MiB), two models")
    print("| step | time |\n|---|---|")
    print(f"| `fastrank evaluate FILE` (whole process) | {_fmt(t_cli)} |")
    print(f"| of which starting Python and importing fastrank | {_fmt(t_import)} |")
    if t_pd is not None:
        print(f"| pandas.read_csv of the same file (in process) | {_fmt(t_pd)} |")


if __name__ == "__main__":
    main()
