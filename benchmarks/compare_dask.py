"""Print the Dask-layer comparison table, every figure measured in this run.

    python benchmarks/compare_dask.py            # full workloads (a few minutes)
    python benchmarks/compare_dask.py --quick    # smaller
    python benchmarks/compare_dask.py --chunks   # one huge task: time against chunk count

A LocalCluster of 2 worker processes with 1 thread each (this machine has 2
cores) runs the Dask paths; the in-process calls use Numba's 2 threads. The
data of D1 and D2 are made on the workers, block by block, and persisted
before timing (the in-process baseline makes the same blocks whole), so the
figures compare computing, not shipping data from the client; D1 also
reports ``da.from_array`` of client memory, transfer included. Workloads in
``dask_workloads.py``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import dask
import dask.array as da
import dask.dataframe as dd
from dask_workloads import (
    chunk_labels,
    chunk_scores,
    d1_in_memory,
    d2_in_memory,
    labels_block,
    log_frame,
    scores_block,
)
from distributed import Client, LocalCluster, wait
from timing import fmt_seconds, median_time

import fastrank
import fastrank.dask as fd


def _fmt(seconds: float) -> str:
    return fmt_seconds(seconds, 0)


def d1(client: Client, repeat: int, n: int) -> None:
    tasks, width = 100, 10
    ys = da.concatenate([da.from_delayed(dask.delayed(labels_block)(j, n, width), (n, width),
                                         dtype=bool) for j in range(tasks // width)], axis=1)
    ss = da.concatenate([da.from_delayed(dask.delayed(scores_block)(j, n, width), (n, width),
                                         dtype=np.float32) for j in range(tasks // width)],
                        axis=1)
    ys, ss = client.persist([ys, ss])
    wait([ys, ss])
    y, s = d1_in_memory(n, tasks, width)
    exact = fastrank.roc_auc(y, s, average=None)
    assert np.array_equal(fd.roc_auc(ys, ss, average=None), exact)
    local = median_time(lambda: fastrank.roc_auc(y, s, average=None), repeat)
    remote = median_time(lambda: fd.roc_auc(ys, ss, average=None), repeat)
    shipped = median_time(lambda: fd.roc_auc(da.from_array(y, chunks=(n, width)),
                                         da.from_array(s, chunks=(n, width)), average=None),
                      max(1, repeat // 2))
    print(f"\nD1: per-task ROC AUC, {n:,} samples x {tasks} tasks, float32 "
          "(target: the Dask path at most 2x the in-process call)")
    print("| call | time | vs in-process |\n|---|---|---|")
    print(f"| `fastrank.roc_auc(y, s, average=None)` in process (2 Numba threads) | "
          f"{_fmt(local)} | 1.00x |")
    print(f"| `fastrank.dask.roc_auc`, data persisted on 2 workers | {_fmt(remote)} | "
          f"{remote / local:.2f}x |")
    print(f"| `fastrank.dask.roc_auc` on `da.from_array` of client memory | {_fmt(shipped)} | "
          f"{shipped / local:.2f}x |")


def d2(client: Client, repeat: int, sizes: list[int], rows: int) -> None:
    print("\nD2: one task, float32 scores rounded to 4 decimals, chunks of "
          f"{rows:,} rows: exact range shuffle and binned summary")
    print("| rows | in-process `roc_auc` | `fastrank.dask.roc_auc` (exact) | ratio | "
          "`binned_summary` (2,000 bins) + compute | AUC bound width |\n|---|---|---|---|---|---|")
    for chunks in sizes:
        _d2_row(client, repeat, chunks, rows)


def _d2_row(client: Client, repeat: int, chunks: int, rows: int) -> None:
    ys = da.concatenate([da.from_delayed(dask.delayed(chunk_labels)(i, rows), (rows,),
                                         dtype=bool) for i in range(chunks)])
    ss = da.concatenate([da.from_delayed(dask.delayed(chunk_scores)(i, rows), (rows,),
                                         dtype=np.float32) for i in range(chunks)])
    ys, ss = client.persist([ys, ss])
    wait([ys, ss])
    y, s = d2_in_memory(chunks, rows)
    exact = fastrank.roc_auc(y, s)
    got = fd.roc_auc(ys, ss)
    assert abs(got - exact) <= 1e-12, (got, exact)
    local = median_time(lambda: fastrank.roc_auc(y, s), repeat)
    remote = median_time(lambda: fd.roc_auc(ys, ss), repeat)
    summaries = []
    approx = median_time(lambda: summaries.append(
        fd.binned_summary(ys, ss, bins=2000, range=(-8.0, 10.0), clip=True)), repeat)
    bound = summaries[-1].compute("roc_auc")
    assert bound.low <= exact <= bound.high
    print(f"| {chunks * rows:,} | {_fmt(local)} | {_fmt(remote)} | {remote / local:.2f}x | "
          f"{_fmt(approx)} | {bound.width:.1e} |")


def d3(client: Client, repeat: int, rows: int) -> None:
    frame = log_frame(rows)
    ddf = client.persist(dd.from_pandas(frame, npartitions=8))
    wait(ddf)
    g, y, s = frame["user"].to_numpy(), frame["label"].to_numpy(), frame["score"].to_numpy()
    exact = fastrank.roc_auc(y, s, groups=g, average=None)
    got = fd.roc_auc("label", "score", groups="user", data=ddf, average=None)
    assert np.array_equal(got.values, exact.values, equal_nan=True)
    local = median_time(lambda: fastrank.roc_auc(y, s, groups=g, average=None), repeat)
    remote = median_time(lambda: fd.roc_auc("label", "score", groups="user", data=ddf,
                                        average=None), repeat)
    print(f"\nD3: per-user ROC AUC, {rows:,} rows, {len(exact):,} users, 8 partitions")
    print("| call | time | vs in-process |\n|---|---|---|")
    print(f"| `fastrank.roc_auc(y, s, groups=user, average=None)` in process | {_fmt(local)} | "
          "1.00x |")
    print(f"| `fastrank.dask.roc_auc(..., groups='user', data=frame)`: shuffle by user, one "
          f"kernel call per partition | {_fmt(remote)} | {remote / local:.2f}x |")


def chunk_scaling(client: Client, repeat: int, counts: list[int]) -> None:
    """One huge task with the default ranges: time against the number of chunks, at
    fixed rows (5,000) and at a fixed chunk size (100 rows). The graph must stay
    linear in the chunks (issue: 200 chunks once took 478 s)."""
    print()
    print("| one huge task, default ranges | chunks | rows | time | vs in-process |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(7)
    layouts = (("fixed rows", lambda c: 5_000), ("fixed chunk size", lambda c: 100 * c))
    for label, rows_of in layouts:
        for c in counts:
            n = rows_of(c)
            y = rng.random(n) < 0.3
            s = np.round(rng.standard_normal(n) + y, 2)
            chunk = -(-n // c)
            dy, ds = da.from_array(y, chunks=chunk), da.from_array(s, chunks=chunk)
            dy, ds = dy.persist(), ds.persist()
            wait([dy, ds])
            t = median_time(lambda dy=dy, ds=ds: fastrank.dask.roc_auc(dy, ds), repeat)
            t0 = median_time(lambda y=y, s=s: fastrank.roc_auc(y, s), repeat)
            assert fastrank.dask.roc_auc(dy, ds) == fastrank.roc_auc(y, s)
            print(f"| {label} | {ds.numblocks[0]} | {n:,} | {t * 1e3:.0f} ms | {t / t0:.0f}x |")


def main() -> None:
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)  # D3's one-class users
    warnings.filterwarnings("ignore", "Sending large graph")  # D1's from_array row, on purpose
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--chunks", action="store_true",
                        help="only the one-huge-task scaling in the number of chunks")
    args = parser.parse_args()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        print("LocalCluster: 2 worker processes x 1 thread")
        if args.chunks:
            chunk_scaling(client, args.repeat, [50, 100, 200, 500])
        elif args.quick:
            d1(client, args.repeat, 100_000)
            d2(client, args.repeat, [2, 4], 250_000)
            d3(client, args.repeat, 200_000)
        else:
            d1(client, args.repeat, 1_000_000)
            d2(client, args.repeat, [2, 4, 8, 16], 1_000_000)
            d3(client, args.repeat, 2_000_000)


if __name__ == "__main__":
    main()
