"""Print one comparison table: fastrank against its peers, measured in one run.

    python benchmarks/compare.py            # everything (about a minute)
    python benchmarks/compare.py --quick    # fewer repeats

Every figure is the median of repeated in-process timings after a warm-up,
reported next to the peers measured in the same process, and as ratios: the
machine this runs on may be shared and noisy, ratios hold up better than
absolute times. torchmetrics is included when it is installed, timed in a
process of its own: torch's OpenMP threads keep spinning after a call, and on
a 2-core machine they took a core from the fastrank timings that followed
(W2 on an AMD Zen 5: 1.3 ms with torch in the process, 0.7-0.9 ms without).

Rows:
* W1-W3 (one task of 1e6 samples): fastrank's all-metrics call against
  ``np.sort`` of the same scores (the floor any exact method pays) and
  against scikit-learn's ``average_precision_score`` + ``roc_auc_score``.
* W5 (1e3 samples, called 10,000 times): microseconds per call.
* Import plus first call in a fresh process with the compiled kernels cached.
* Peak extra memory of one 1e6-sample call, as a multiple of the input size.
* ``--per-call``: microseconds per one-task call of ``average_precision``,
  ``roc_auc`` (also with ``max_fpr``) and ``all_metrics`` at 100, 1,000 and
  10,000 scores, float64 and float32, unweighted and weighted, against
  scikit-learn's ``average_precision_score`` / ``roc_auc_score`` (both, for
  ``all_metrics``), alternated in one process, the best of the repeats; then
  the same table in a process with numpy's AVX-512 sort turned off
  (``NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL"``: its AVX2 sort) on x86.
  Each result is checked against scikit-learn (to 1e-12) before timing.

    python benchmarks/compare.py --per-call          # only this table, both dispatches
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import machine
from workloads import WORKLOADS, workload

import fastrank


def median_time(fn: Callable[[], Any], repeat: int, number: int = 1) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def torchmetrics_version() -> str | None:
    """torchmetrics' version if it and torch are installed (neither imported here)."""
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec("torch") is None or importlib.util.find_spec(
            "torchmetrics") is None:
        return None
    return importlib.metadata.version("torchmetrics")


_TORCH = """
import statistics, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import torch
from torchmetrics.functional.classification import binary_auroc, binary_average_precision
from workloads import workload
y, s = workload({name!r})
ty = torch.from_numpy(y.astype(np.int64))
ts = torch.from_numpy(s)
if {both}:
    fn = lambda: (binary_average_precision(ts, ty), binary_auroc(ts, ty))
else:
    fn = lambda: binary_average_precision(ts, ty)
fn()
times = []
for _ in range({repeat}):
    t0 = time.perf_counter()
    for _ in range({number}):
        fn()
    times.append((time.perf_counter() - t0) / {number})
print(statistics.median(times))
"""


def _torch_time(name: str, repeat: int, number: int = 1, both: bool = True) -> float:
    """Median seconds of torchmetrics' AP (and AUC with ``both``) on workload ``name``,
    in a fresh process (see the module docstring)."""
    code = _TORCH.format(bench=str(Path(__file__).parent), name=name, repeat=repeat,
                         number=number, both=both)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


def _large(name: str, repeat: int, tm: str | None) -> dict[str, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y, s = workload(name)
    row = {
        "fastrank all_metrics": median_time(lambda: fastrank.all_metrics(y, s), repeat),
        "fastrank average_precision": median_time(
            lambda: fastrank.average_precision(y, s), repeat
        ),
        "np.sort": median_time(lambda: np.sort(s), repeat),
        "sklearn AP+AUC": median_time(
            lambda: (average_precision_score(y, s), roc_auc_score(y, s)), max(3, repeat // 3)
        ),
    }
    if tm is not None:
        row["torchmetrics AP+AUC"] = _torch_time(name, max(3, repeat // 3))
    return row


def _small(repeat: int, tm: str | None) -> dict[str, float]:
    from sklearn.metrics import average_precision_score

    y, s = workload("W5")
    number = 10_000
    row = {
        "fastrank average_precision": median_time(
            lambda: fastrank.average_precision(y, s), repeat, number
        ),
        "fastrank roc_auc": median_time(lambda: fastrank.roc_auc(y, s), repeat, number),
        "fastrank all_metrics": median_time(lambda: fastrank.all_metrics(y, s), repeat, number),
        "np.sort": median_time(lambda: np.sort(s), repeat, number),
        "sklearn average_precision_score": median_time(
            lambda: average_precision_score(y, s), 3, 200
        ),
    }
    if tm is not None:
        row["torchmetrics binary_average_precision"] = _torch_time("W5", 3, 500, both=False)
    return row


_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
import fastrank
y = np.arange(1000) % 7 == 0
s = np.linspace(0.0, 1.0, 1000)
fastrank.all_metrics(y, s)
print(time.perf_counter() - t0)
"""

# Shared by the memory probes of both comparison scripts: read a /proc/self/status
# field (KiB), and reset the peak so that VmHWM measures only what follows.
PEAK_PROBE = """
def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])

def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:  # Linux >= 4.0
        f.write("5")
"""

_MEMORY = PEAK_PROBE.replace("{", "{{").replace("}", "}}") + """
import json, sys
sys.path.insert(0, {bench!r})
from workloads import workload
import fastrank

y, s = workload({name!r})
fastrank.all_metrics(y[:5000], s[:5000])           # compile or load the cache
reset_peak()
before = status("VmRSS:")
fastrank.all_metrics(y, s)
peak = status("VmHWM:")
print(json.dumps({{"extra_kib": peak - before, "input_kib": (s.nbytes + y.nbytes) / 1024,
                   "score_kib": s.nbytes / 1024}}))
"""


_SORT_AVX2 = """
import statistics, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
from workloads import workload
s = workload({name!r})[1]
np.sort(s)
times = []
for _ in range(9):
    t0 = time.perf_counter(); np.sort(s); times.append(time.perf_counter() - t0)
print(statistics.median(times))
"""


def _sort_avx2(name: str) -> float | None:
    """``np.sort`` with numpy's AVX-512 kernels disabled (its AVX2 path), if x86."""
    import os

    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES="X86_V4")
    code = _SORT_AVX2.format(bench=str(Path(__file__).parent), name=name)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return float(out.stdout) if out.returncode == 0 and out.stdout.strip() else None


def _first_call() -> float:
    cmd = [sys.executable, "-c", _FIRST_CALL]
    subprocess.run(cmd, check=True, capture_output=True)  # make sure the cache is warm
    runs = [float(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            for _ in range(3)]
    return statistics.median(runs)


def _cold_call() -> float:
    """Import + first call with an empty Numba cache (what a fresh container pays)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout)



def _per_call_rows() -> list[tuple[str, Callable[..., Any], Callable[..., Any]]]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    return [
        ("average_precision", lambda y, s, w: fastrank.average_precision(y, s, sample_weight=w),
         lambda y, s, w: average_precision_score(y, s, sample_weight=w)),
        ("roc_auc", lambda y, s, w: fastrank.roc_auc(y, s, sample_weight=w),
         lambda y, s, w: roc_auc_score(y, s, sample_weight=w)),
        ("roc_auc max_fpr=0.1", lambda y, s, w: fastrank.roc_auc(y, s, sample_weight=w,
                                                                 max_fpr=0.1),
         lambda y, s, w: roc_auc_score(y, s, sample_weight=w, max_fpr=0.1)),
        ("all_metrics (sklearn: AP + AUC)",
         lambda y, s, w: fastrank.all_metrics(y, s, sample_weight=w),
         lambda y, s, w: (average_precision_score(y, s, sample_weight=w),
                          roc_auc_score(y, s, sample_weight=w))),
    ]


def _best_per_call(fns: list[Callable[[], Any]], budget: float, repeat: int) -> list[float]:
    """Best seconds per call of each function, timed in turns (``repeat`` rounds of
    about ``budget`` seconds each per function) after one untimed call each."""
    numbers = []
    for fn in fns:
        fn()
        t0 = time.perf_counter()
        fn()
        numbers.append(max(1, int(budget / max(time.perf_counter() - t0, 1e-7))))
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, (fn, number) in enumerate(zip(fns, numbers, strict=True)):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best


def per_call_table(repeat: int) -> list[dict[str, Any]]:
    """The ``--per-call`` table (see the module docstring), printed, and its rows."""
    rng = np.random.default_rng(2024)
    for dt in (np.float64, np.float32):  # the batch kernel, which one-task calls reuse
        fastrank.average_precision(rng.random((64, 100)) < 0.3,
                                   rng.random((64, 100)).astype(dt), average=None)
    print(f"# {machine()}")
    print("| call | n | scores | weights | fastrank µs | scikit-learn µs | ratio |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for name, ours, theirs in _per_call_rows():
        for n in (100, 1000, 10_000):
            for dt in (np.float64, np.float32):
                for weighted in (False, True):
                    y = rng.random(n) < 0.3
                    s = rng.random(n).astype(dt)
                    w = rng.random(n) if weighted else None
                    got, want = ours(y, s, w), theirs(y, s, w)
                    mine = [got.average_precision, got.roc_auc] if hasattr(got, "roc_auc") \
                        else [got]
                    ref = list(want) if isinstance(want, tuple) else [want]
                    if not np.allclose(mine, ref, rtol=0.0, atol=1e-12):
                        raise AssertionError(f"{name} n={n}: {mine} against {ref}")
                    calls = [functools.partial(f, y, s, w) for f in (ours, theirs)]
                    a, b = _best_per_call(calls, 0.02 if n < 10_000 else 0.05, repeat)
                    rows.append({"call": name, "n": n, "dtype": np.dtype(dt).name,
                                 "weighted": weighted, "fastrank_s": a, "sklearn_s": b})
                    print(f"| {name} | {n:,} | {np.dtype(dt).name} | "
                          f"{'random' if weighted else 'none'} | {a * 1e6:.1f} | {b * 1e6:.1f} | "
                          f"{b / a:.1f}x |", flush=True)
    return rows


def _per_call_avx2(repeat: int) -> None:
    """The ``--per-call`` table again in a process with numpy's AVX-512 sort disabled."""
    import os

    if platform.machine() not in ("x86_64", "AMD64"):
        return
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL")
    print()
    print("With NPY_DISABLE_CPU_FEATURES=\"X86_V4 AVX512_ICL\" (numpy's AVX2 sort):")
    subprocess.run([sys.executable, __file__, "--per-call", "--no-avx2",
                    "--repeat", str(repeat)], env=env, check=True)


def _memory(name: str) -> dict[str, float]:
    code = _MEMORY.format(bench=str(Path(__file__).parent), name=name)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--per-call", action="store_true",
                        help="only the table of one-task calls at 100 to 10,000 scores")
    parser.add_argument("--no-avx2", action="store_true",
                        help="with --per-call: skip the rerun with numpy's AVX2 sort")
    parser.add_argument("--repeat", type=int, default=None, help="rounds of timing")
    args = parser.parse_args()
    repeat = args.repeat or (5 if args.quick else 15)
    if args.per_call:
        rows = per_call_table(repeat)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
        if not args.no_avx2:
            _per_call_avx2(repeat)
        return
    tm = torchmetrics_version()
    import sklearn

    print(f"# fastrank {fastrank.__version__} on {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, "
          f"scikit-learn {sklearn.__version__}"
          + (f", torchmetrics {tm}" if tm else ""))
    print(f"# {machine()}")
    print()
    raw: dict[str, Any] = {}
    print("| workload | fastrank all_metrics | fastrank AP only | np.sort | np.sort (AVX2) |"
          " sklearn AP+AUC |" + (" torchmetrics AP+AUC |" if tm else "")
          + " all_metrics / np.sort | sklearn / all_metrics |")
    print("|---|---|---|---|---|---|" + ("---|" if tm else "") + "---|---|")
    for name in ("W1", "W2", "W3"):
        row = _large(name, repeat, tm)
        avx2 = _sort_avx2(name)
        if avx2 is not None:
            row["np.sort AVX2"] = avx2
        raw[name] = row
        fr = row["fastrank all_metrics"]
        cells = [f"{name} {WORKLOADS[name]}", f"{fr * 1e3:.1f} ms",
                 f"{row['fastrank average_precision'] * 1e3:.1f} ms",
                 f"{row['np.sort'] * 1e3:.1f} ms",
                 f"{avx2 * 1e3:.1f} ms" if avx2 is not None else "n/a",
                 f"{row['sklearn AP+AUC'] * 1e3:.0f} ms"]
        if tm:
            cells.append(f"{row['torchmetrics AP+AUC'] * 1e3:.0f} ms")
        cells += [f"{fr / row['np.sort']:.2f}", f"{row['sklearn AP+AUC'] / fr:.1f}x"]
        print("| " + " | ".join(cells) + " |")
    print()
    small = _small(repeat, tm)
    raw["W5"] = small
    print("| W5: 1e3 samples, per call | µs |")
    print("|---|---|")
    for key, value in small.items():
        print(f"| {key} | {value * 1e6:.1f} |")
    print()
    first = _first_call()
    raw["first_call_s"] = first
    print(f"Import + first all_metrics call in a fresh process (kernels cached): {first:.2f} s")
    cold = _cold_call()
    raw["cold_first_call_s"] = cold
    print(f"Import + first all_metrics call with an empty Numba cache: {cold:.2f} s")
    for name in ("W1", "W3"):
        mem = _memory(name)
        raw[f"memory_{name}"] = mem
        print(f"Peak extra memory of one {name} all_metrics call: {mem['extra_kib'] / 1024:.1f} MiB"
              f" = {mem['extra_kib'] / mem['score_kib']:.2f}x the scores"
              f" ({mem['extra_kib'] / mem['input_kib']:.2f}x scores + labels)")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
