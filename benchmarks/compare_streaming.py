"""Print the streaming-layer comparison table, every peer measured in this run.

    python benchmarks/compare_streaming.py          # full workloads (about a minute)
    python benchmarks/compare_streaming.py --quick  # smaller, for a smoke run

Rows (workloads in ``streaming_workloads.py``):
* S1: ``BinnedSummary.update`` (1,000 uniform bins) on batches of 1,000,000
  float32 rows, one task, against a NumPy ``bincount`` histogram, torchmetrics'
  binned ``BinaryAUROC(thresholds=1000).update`` and ``np.sort`` of the batch.
* S2: ``BinnedSummary.update`` on 10,000 x 1,000 float32 batches: cost per
  (row x task), against torchmetrics' binned ``MultilabelAUROC`` (timed on 100
  rows: its update materialises rows x thresholds x labels) and ``np.sort``.
* S3: ``Accumulator`` over 1,000 batches of 1,000 rows (and 1,000 batches of
  100 rows x 100 tasks): all updates plus ``compute()`` against the one-shot
  call on the concatenated arrays, torchmetrics' exact ``BinaryAUROC`` /
  ``MultilabelAUROC`` (update every batch, then compute) and scikit-learn on
  the concatenated arrays. Memory per stored row from ``Accumulator.nbytes``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from streaming_workloads import (
    concatenated,
    materialise,
    multilabel,
    numpy_histogram,
    probabilities,
)
from timing import alternate, fmt_seconds

import fastrank


def _fmt(seconds: float) -> str:
    return fmt_seconds(seconds, 2)


def _torch():  # type: ignore[no-untyped-def]
    # torch's OpenMP threads spin after each call by default, taking the cores
    # from whatever is timed next in these interleaved runs; let them sleep.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch
        import torchmetrics.classification as tmc
    except ImportError:
        return None, None
    return torch, tmc


def s1(repeat: int, n: int) -> None:
    y, s = probabilities(n)
    summary = fastrank.BinnedSummary(1000)
    fns = [lambda: summary.update(y, s), lambda: numpy_histogram(y, s, 1000),
           lambda: np.sort(s)]
    names = ["`BinnedSummary.update` (1,000 bins)", "NumPy `bincount` histogram",
             "`np.sort` of the batch"]
    torch, tmc = _torch()
    if torch is not None:
        ty, ts = torch.from_numpy(y), torch.from_numpy(s)
        metric = tmc.BinaryAUROC(thresholds=1000)
        fns.append(lambda: metric.update(ts, ty))
        names.append("torchmetrics `BinaryAUROC(thresholds=1000).update`")
    times = alternate(fns, repeat)
    print(f"\nS1: summary update, one task, batches of {n:,} float32 rows "
          "(target: at least 100 million rows/s)")
    print("| call | time per batch | rows/s | vs fastrank |\n|---|---|---|---|")
    for name, t in zip(names, times, strict=True):
        print(f"| {name} | {_fmt(t)} | {n / t / 1e6:,.0f} M | {t / times[0]:.2f}x |")
    auc = summary.compute("roc_auc")
    print(f"(AUC estimate {auc.estimate:.6f}, certified [{auc.low:.6f}, {auc.high:.6f}])")


def s2(repeat: int, n: int, tasks: int) -> None:
    y, s = multilabel(n, tasks)
    summary = fastrank.BinnedSummary(1000)
    fns = [lambda: summary.update(y, s), lambda: np.sort(s, axis=0)]
    names = ["`BinnedSummary.update` (1,000 bins)", "`np.sort` of each column"]
    rows = [n, n]
    torch, tmc = _torch()
    if torch is not None:
        m = 100
        ty, ts = torch.from_numpy(y[:m].astype(np.int64)), torch.from_numpy(s[:m])
        metric = tmc.MultilabelAUROC(num_labels=tasks, thresholds=1000, average=None)
        fns.append(lambda: metric.update(ts, ty))
        names.append(f"torchmetrics `MultilabelAUROC(thresholds=1000).update` ({m} rows)")
        rows.append(m)
    times = alternate(fns, repeat)
    print(f"\nS2: summary update, batches of {n:,} rows x {tasks:,} tasks, float32")
    print("| call | time per batch | ns per row x task | vs fastrank |\n|---|---|---|---|")
    base = times[0] / (n * tasks)
    for name, t, r in zip(names, times, rows, strict=True):
        per = t / (r * tasks)
        print(f"| {name} | {_fmt(t)} | {per * 1e9:,.2f} | {per / base:.2f}x |")


def s3(repeat: int, count: int, rows: int, tasks: int) -> None:
    data = materialise(count, rows, tasks)
    y, s = concatenated(data)
    kwargs = {"average": None} if tasks else {}

    def accumulate() -> fastrank.Accumulator:
        acc = fastrank.Accumulator()
        for yb, sb in data:
            acc.update(yb, sb)
        return acc

    acc = accumulate()
    assert np.array_equal(acc.compute("roc_auc", **kwargs), fastrank.roc_auc(y, s, **kwargs))
    fns = [lambda: accumulate().compute("roc_auc", **kwargs),
           lambda: acc.compute("roc_auc", **kwargs),
           lambda: fastrank.roc_auc(y, s, **kwargs),
           lambda: np.sort(s, axis=0)]
    names = ["`Accumulator`: every update, then `compute()`", "`compute()` alone",
             "one-shot `roc_auc` on the concatenated arrays",
             "`np.sort` of the concatenated scores"]
    torch, tmc = _torch()
    if torch is not None:
        tdata = [(torch.from_numpy(yb.astype(np.int64)), torch.from_numpy(sb)) for yb, sb in data]

        def torchmetrics_exact() -> None:
            metric = (tmc.MultilabelAUROC(num_labels=tasks, thresholds=None, average=None)
                      if tasks else tmc.BinaryAUROC(thresholds=None))
            for yb, sb in tdata:
                metric.update(sb, yb)
            metric.compute()

        fns.append(torchmetrics_exact)
        names.append("torchmetrics exact AUROC: every update, then compute")
    from sklearn.metrics import roc_auc_score

    fns.append(lambda: roc_auc_score(y, s, average=None) if tasks else roc_auc_score(y, s))
    names.append("scikit-learn `roc_auc_score` on the concatenated arrays")
    times = alternate(fns, repeat)
    shape = f"{rows:,} rows x {tasks} tasks" if tasks else f"{rows:,} rows"
    print(f"\nS3: exact accumulator, {count:,} batches of {shape} "
          "(target: compute within 1.5x of the one-shot call)")
    print("| call | time | vs one-shot |\n|---|---|---|")
    for name, t in zip(names, times, strict=True):
        print(f"| {name} | {_fmt(t)} | {t / times[2]:.2f}x |")
    cells = len(acc) * (tasks or 1)
    print(f"Memory: {acc.nbytes:,} bytes allocated for {len(acc):,} rows x {tasks or 1} task(s): "
          f"{acc.nbytes / cells:.2f} bytes per stored score (float32 score + 1-byte label = 5; "
          "the rest is spare capacity)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per figure")
    parser.add_argument("--quick", action="store_true", help="smaller workloads")
    args = parser.parse_args()
    print(f"Numba threads: {numba.get_num_threads()}")
    q = args.quick
    s1(args.repeat, 100_000 if q else 1_000_000)
    s2(args.repeat, 1_000 if q else 10_000, 1_000)
    s3(args.repeat, 100 if q else 1_000, 1_000, 0)
    s3(max(3, args.repeat // 2), 100 if q else 1_000, 100, 100)


if __name__ == "__main__":
    main()
