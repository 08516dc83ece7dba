"""Print the batched and grouped comparison tables, every peer measured in this run.

    python benchmarks/compare_batch.py            # full workloads (a few minutes)
    python benchmarks/compare_batch.py --scale 0.1

Rows:
* B1 (100,000 x 1,000 float32, ~2% positives per label, per-label results):
  fastrank's batched calls on all threads and on one, against a
  single-threaded ``np.sort(scores, axis=0)`` (the floor an exact method
  pays), scikit-learn's ``average_precision_score`` / ``roc_auc_score`` with
  ``average=None`` and torchmetrics' exact ``multilabel_average_precision``.
* G1 (1,000,000 rows in 10,000 groups): per-group ROC AUC and AP against a
  scikit-learn loop over the groups and torchmetrics' ``RetrievalMAP``.
* Scaling: time against n_samples and n_tasks, and 1 thread against all.
* Peak memory of the B1 call beyond its inputs.
* Short columns (100 x 10,000, 30 x 30,000, 1,000 x 1,000 float32, 10%
  positives): the batched ``roc_auc`` against ``np.sort(scores, axis=0)`` and
  scikit-learn's ``roc_auc_score(average=None)`` (timed once).

The peers are slow (scikit-learn takes seconds per call), so each is timed
once or twice; fastrank's figures are medians of several runs. torchmetrics
runs in a process of its own: torch's OpenMP threads keep spinning after a
call and would take a core from the fastrank timings that follow.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from batch_workloads import grouped, multilabel
from compare import PEAK_PROBE, median_time, torchmetrics_version

import fastrank


def _once(fn: Callable[[], Any], repeat: int = 1) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _threads(k: int, fn: Callable[[], Any], repeat: int) -> float:
    before = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        return median_time(fn, repeat)
    finally:
        numba.set_num_threads(before)


def _single_thread_sort(s: np.ndarray) -> float:
    """``np.sort(s, axis=0)`` (numpy is single-threaded), best of two."""
    return _once(lambda: np.sort(s, axis=0), 2)


def thread_ceiling(nthreads: int, repeat: int = 5) -> float:
    """This machine's own speedup from 1 to ``nthreads`` threads on work that shares
    nothing: each thread sorts its own copies of 2**21 float32 scores with numpy
    (which releases the GIL). Virtual CPUs that are two hyperthreads of one core,
    or a busy host, keep it well below ``nthreads``; no batched call can beat it."""
    import threading

    rng = np.random.default_rng(0)
    data = [rng.random(1 << 21).astype(np.float32) for _ in range(nthreads)]

    def work(x: np.ndarray) -> None:
        for _ in range(4):
            x.copy().sort()

    def run(k: int) -> float:
        t0 = time.perf_counter()
        pool = [threading.Thread(target=work, args=(data[i],)) for i in range(k)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        return time.perf_counter() - t0

    run(nthreads)
    one = min(run(1) for _ in range(repeat))
    many = min(run(nthreads) for _ in range(repeat))
    return nthreads * one / many


_TORCH = """
import sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import torch
from batch_workloads import grouped, multilabel
{setup}
times = []
for _ in range({repeat}):
    t0 = time.perf_counter()
    fn()
    times.append(time.perf_counter() - t0)
print(min(times))
"""


def _torch_once(setup: str, repeat: int = 1) -> float:
    """Best of ``repeat`` runs of the ``fn`` that ``setup`` defines, in a fresh process."""
    code = _TORCH.format(bench=str(Path(__file__).parent), setup=setup, repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


def multilabel_rows(scale: float, repeat: int, torch: str | None) -> dict[str, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y, s = multilabel(scale)
    nt = numba.get_num_threads()
    row = {
        "fastrank all_metrics": median_time(
            lambda: fastrank.all_metrics(y, s, average=None), repeat
        ),
        "fastrank average_precision": median_time(
            lambda: fastrank.average_precision(y, s, average=None), repeat
        ),
        "fastrank roc_auc": median_time(lambda: fastrank.roc_auc(y, s, average=None), repeat),
        "fastrank all_metrics 1 thread": _threads(
            1, lambda: fastrank.all_metrics(y, s, average=None), repeat
        ),
        "threads": float(nt),
    }
    row["fastrank all_metrics (Fortran order)"] = _fortran(y, s, repeat)
    row["np.sort axis=0"] = _single_thread_sort(s)
    row["sklearn average_precision_score"] = _once(
        lambda: average_precision_score(y, s, average=None)
    )
    row["sklearn roc_auc_score"] = _once(lambda: roc_auc_score(y, s, average=None))
    if torch is not None:
        row["torchmetrics multilabel_average_precision"] = _torch_once(f"""
from torchmetrics.functional.classification import multilabel_average_precision
y, s = multilabel({scale!r})
ts, ty = torch.from_numpy(s), torch.from_numpy(y.astype(np.int64))
fn = lambda: multilabel_average_precision(ts, ty, s.shape[1], average="none")
""")
    return row


def _fortran(y: np.ndarray, s: np.ndarray, repeat: int) -> float:
    """The B1 call on Fortran-ordered copies of the matrices (freed on return)."""
    f_y, f_s = np.asfortranarray(y), np.asfortranarray(s)
    return median_time(lambda: fastrank.all_metrics(f_y, f_s, average=None), repeat)


def _sklearn_group_loop(y: np.ndarray, s: np.ndarray, g: np.ndarray, metric: Any) -> None:
    order = np.argsort(g, kind="stable")
    cuts = np.flatnonzero(np.diff(g[order])) + 1
    for rows in np.split(order, cuts):
        if 0 < y[rows].sum() < rows.shape[0]:  # scikit-learn raises on one class
            metric(y[rows], s[rows])


def grouped_rows(scale: float, repeat: int, torch: str | None) -> dict[str, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y, s, g = grouped(scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = {
            "fastrank roc_auc": median_time(
                lambda: fastrank.roc_auc(y, s, groups=g, average=None), repeat
            ),
            "fastrank average_precision": median_time(
                lambda: fastrank.average_precision(y, s, groups=g, average=None), repeat
            ),
            "fastrank roc_auc 1 thread": _threads(
                1, lambda: fastrank.roc_auc(y, s, groups=g, average=None), repeat
            ),
            "fastrank all_metrics": median_time(
                lambda: fastrank.all_metrics(y, s, groups=g, average=None), repeat
            ),
            "sklearn loop roc_auc_score": _once(
                lambda: _sklearn_group_loop(y, s, g, roc_auc_score)
            ),
            "sklearn loop average_precision_score": _once(
                lambda: _sklearn_group_loop(y, s, g, average_precision_score)
            ),
        }
    if torch is not None:
        row["torchmetrics RetrievalMAP"] = _torch_once(f"""
from torchmetrics.retrieval import RetrievalMAP
y, s, g = grouped({scale!r})
ts, ty, tg = torch.from_numpy(s), torch.from_numpy(y), torch.from_numpy(g)
def fn():
    metric = RetrievalMAP()
    metric.update(ts, ty, indexes=tg)
    metric.compute()
""", 2)
    return row


def scaling_rows(scale: float, repeat: int) -> list[tuple[str, float]]:
    y, s = multilabel(scale)
    n, t = s.shape
    out = []
    for frac in (0.25, 0.5, 1.0):
        k = max(1, int(n * frac))
        ys, ss = y[:k], s[:k]  # leading rows of a C array: still C-contiguous
        out.append((f"{k:,} x {t:,}", median_time(
            lambda ys=ys, ss=ss: fastrank.all_metrics(ys, ss, average=None), repeat)))
    for frac in (0.25, 0.5):
        k = max(1, int(t * frac))
        ys, ss = np.ascontiguousarray(y[:, :k]), np.ascontiguousarray(s[:, :k])
        out.append((f"{n:,} x {k:,}", median_time(
            lambda ys=ys, ss=ss: fastrank.all_metrics(ys, ss, average=None), repeat)))
    return out


def short_column_rows(scale: float, repeat: int) -> list[tuple[str, float, float, float]]:
    """Many short columns: what a kernel call per few columns would cost in Python
    steps (the batch kernel takes many blocks of them per call)."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(4)
    out = []
    for n, t in ((100, 10_000), (30, 30_000), (1_000, 1_000)):
        t = max(64, int(t * scale))
        y = rng.random((n, t)) < 0.1
        y[:2] = [[True], [False]]  # both classes in every column (scikit-learn needs them)
        s = (rng.standard_normal((n, t)) + 1.5 * y).astype(np.float32)
        out.append((f"{n:,} x {t:,}", median_time(lambda s=s: np.sort(s, axis=0), repeat),
                    median_time(lambda y=y, s=s: fastrank.roc_auc(y, s, average=None), repeat),
                    _once(lambda y=y, s=s: roc_auc_score(y, s, average=None))))
    return out


_MEMORY = PEAK_PROBE.replace("{", "{{").replace("}", "}}") + """
import json, sys
import numba
sys.path.insert(0, {bench!r})
from batch_workloads import multilabel
import fastrank

y, s = multilabel({scale!r})
# Load the compiled kernels on a batch large enough for the parallel path but
# small enough that its scratch does not cover the measured call's.
fastrank.all_metrics(y[:4000, :20], s[:4000, :20], average=None)
reset_peak()
before = status("VmRSS:")
fastrank.all_metrics(y, s, average=None)
peak = status("VmHWM:")
print(json.dumps({{"extra_kib": peak - before, "scores_kib": s.nbytes / 1024,
                   "labels_kib": y.nbytes / 1024, "threads": numba.get_num_threads(),
                   "n_samples": s.shape[0]}}))
"""


def memory_row(scale: float) -> dict[str, float]:
    code = _MEMORY.format(bench=str(Path(__file__).parent), scale=scale)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the workloads")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    torch = torchmetrics_version()
    import sklearn

    print(f"# fastrank {fastrank.__version__}, {numba.get_num_threads()} Numba threads, "
          f"Python {platform.python_version()}, numpy {np.__version__}, "
          f"scikit-learn {sklearn.__version__}"
          + (f", torchmetrics {torch}" if torch else ""))
    raw: dict[str, Any] = {"scale": args.scale}

    b1 = multilabel_rows(args.scale, args.repeat, torch)
    raw["B1"] = b1
    fr = b1["fastrank all_metrics"]
    print("\n## B1: 100,000 x 1,000 float32, per-label results\n")
    print("| call | time | fastrank all_metrics is faster by |")
    print("|---|---|---|")
    for key, value in b1.items():
        if key == "threads":
            continue
        print(f"| {key} | {value:.3f} s | {value / fr:.2f}x |")
    print(f"\nall_metrics / single-threaded np.sort(axis=0): {fr / b1['np.sort axis=0']:.2f}; "
          f"speedup 1 -> {int(b1['threads'])} threads: "
          f"{b1['fastrank all_metrics 1 thread'] / fr:.2f}x")
    ceiling = thread_ceiling(int(b1["threads"]))
    raw["thread_ceiling"] = ceiling
    print(f"this machine's own 1 -> {int(b1['threads'])} thread speedup on independent np.sort "
          f"calls (the ceiling for the line above): {ceiling:.2f}x")

    g1 = grouped_rows(args.scale, args.repeat, torch)
    raw["G1"] = g1
    print("\n## G1: 1,000,000 rows in 10,000 groups, per-group results\n")
    print("| call | time | vs fastrank roc_auc | vs fastrank average_precision |")
    print("|---|---|---|---|")
    auc, ap = g1["fastrank roc_auc"], g1["fastrank average_precision"]
    for key, value in g1.items():
        print(f"| {key} | {value * 1e3:.1f} ms | {value / auc:.1f}x | {value / ap:.1f}x |")

    scaling = scaling_rows(args.scale, args.repeat)
    raw["scaling"] = scaling
    print("\n## Scaling of the B1 all_metrics call\n")
    print("| n_samples x n_tasks | time |")
    print("|---|---|")
    for label, value in scaling:
        print(f"| {label} | {value:.3f} s |")

    short = short_column_rows(args.scale, args.repeat)
    raw["short columns"] = short
    print("\n## Short columns: batched roc_auc(average=None), float32, 10% positives\n")
    print("| n_samples x n_tasks | np.sort(axis=0) | fastrank | / np.sort | scikit-learn |")
    print("|---|---|---|---|---|")
    for label, srt, ours, theirs in short:
        print(f"| {label} | {srt * 1e3:.1f} ms | {ours * 1e3:.1f} ms | {ours / srt:.2f}x | "
              f"{theirs:.2f} s ({theirs / ours:.0f}x) |")

    mem = memory_row(args.scale)
    raw["memory"] = mem
    per_thread = mem["extra_kib"] * 1024 / mem["threads"] / mem["n_samples"]
    print(f"\nPeak memory of the B1 call beyond its inputs: {mem['extra_kib'] / 1024:.1f} MiB "
          f"(scores {mem['scores_kib'] / 1024:.0f} MiB, labels {mem['labels_kib'] / 1024:.0f} MiB)"
          f" = {per_thread:.0f} bytes per sample per thread")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
