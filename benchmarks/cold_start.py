"""What a new user waits for: import plus the first call of each entry point in a
fresh process, with an empty Numba cache and in the processes after it, and the
time of ``fastrank compile``. Prints the table docs/speed.md's "Compile cost" shows.

    python benchmarks/cold_start.py              # every row, then fastrank compile
    python benchmarks/cold_start.py --rows roc_auc all_metrics --no-compile

Each row runs in a process of its own (import included), first with an empty
``NUMBA_CACHE_DIR``, then in :data:`LATER` more processes, one after another, with
the cache (and the stand-ins' record of seconds) each left: while a kernel is not
cached, small first calls take numpy stand-ins, until the processes together have
spent the stand-in's budget; the process that finds it spent compiles the kernel
(the slow one in the row), and the processes after find it cached. Nothing else
should run meanwhile: compiling is one core's work, and a shared machine's noise
shows directly.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time

from timing import bytecode

import fastrank

_SETUP = """
import time
t0 = time.perf_counter()
import numpy as np
import fastrank
rng = np.random.default_rng(0)
n = 5000
y = rng.random(n) < 0.3
s = rng.random(n)
"""

# name -> (what the row calls, the call)
ROWS: dict[str, tuple[str, str]] = {
    "roc_auc": ("`roc_auc`, one task", "fastrank.roc_auc(y, s)"),
    "all_metrics": ("`all_metrics`, one task", "fastrank.all_metrics(y, s)"),
    "batch": ("`average_precision(Y, S, average=None)`, 2,000 x 8",
              "Y = rng.random((2000, 8)) < 0.3; S = rng.random((2000, 8)); "
              "fastrank.average_precision(Y, S, average=None)"),
    "batch_many": ("`average_precision(Y, S, average=None)`, 2,000 x 100 (the batch kernel)",
                   "Y = rng.random((2000, 100)) < 0.3; S = rng.random((2000, 100)); "
                   "fastrank.average_precision(Y, S, average=None)"),
    "groups": ("`roc_auc(groups=...)`, 50 groups",
               "fastrank.roc_auc(y, s, groups=rng.integers(0, 50, n))"),
    "roc_curve": ("`roc_curve`", "fastrank.roc_curve(y, s)"),
    "operating_point": ("`sensitivity_at_specificity`",
                        "fastrank.sensitivity_at_specificity(y, s, 0.9)"),
    "bootstrap_ci": ("`bootstrap_ci`, 200 resamples",
                     "fastrank.bootstrap_ci('roc_auc', y, s, n_resamples=200, seed=0)"),
    "delong_test": ("`delong_test`", "fastrank.delong_test(y, s, s ** 2)"),
    "lrap": ("`label_ranking_average_precision`, 5,000 x 3",
             "Y = rng.random((n, 3)) < 0.5; S = rng.random((n, 3)); "
             "fastrank.label_ranking_average_precision(Y, S)"),
    "sparse_top_k": ("`top_k_metrics`, sparse scores 5,000 x 100,000, 20 stored per row",
                     "import scipy.sparse as sp; "
                     "cols = np.arange(20) * 5000 + rng.integers(0, 5000, (n, 20)); "
                     "S = sp.csr_matrix((rng.random(20 * n, dtype=np.float32), cols.ravel(), "
                     "np.arange(0, 20 * n + 1, 20)), shape=(n, 100_000)); "
                     "rel = np.arange(5) * 20000 + rng.integers(0, 20000, (n, 5)); "
                     "Y = sp.csr_matrix((np.ones(5 * n), rel.ravel(), "
                     "np.arange(0, 5 * n + 1, 5)), shape=(n, 100_000)); "
                     "fastrank.top_k_metrics(Y, S, k=(1, 3, 5))"),
    "evaluate_run": ("`evaluate_run`, 10,000 queries x 100 documents, 5 measures",
                     "q = np.repeat(np.arange(10_000), 100); d = np.tile(np.arange(100), 10_000); "
                     "fastrank.evaluate_run((q, d, (rng.random(q.size) < 0.05).astype(int)), "
                     "(q, d, rng.random(q.size)), "
                     "['map', 'ndcg@10', 'P@10', 'recip_rank', 'recall@100'])"),
    "trec_text": ("`evaluate_run`, 2,000 queries x 1,000 documents, `str` ids, ties, "
                  "`ties='trec_eval'` (the arrays made untimed)",
                  "t_import = time.perf_counter() - t0; "
                  "q = np.repeat(np.char.add('topic', np.arange(2000).astype(str)), 1000); "
                  "d = np.char.add('FBIS4-', (rng.permutation(2_000_000) + 10**6).astype(str)); "
                  "r = np.round(rng.random(q.size) * 830) / 830; j = rng.random(q.size) < 0.2; "
                  "t0 = time.perf_counter() - t_import; "
                  "fastrank.evaluate_run((q[j], d[j], rng.integers(0, 3, int(j.sum()))), "
                  "(q, d, r), ['map', 'ndcg@10', 'P@10', 'recip_rank', 'Rprec'], "
                  "ties='trec_eval')"),
    "weighted": ("`roc_auc`, one task, `sample_weight`",
                 "fastrank.roc_auc(y, s, sample_weight=rng.random(n))"),
    "weighted_curve": ("`roc_curve`, one task, `sample_weight`",
                       "fastrank.roc_curve(y, s, sample_weight=rng.random(n))"),
    "dense_top_k": ("`precision_at_k`, dense scores 5,000 x 20 (small: numpy only, no kernel)",
                    "fastrank.precision_at_k(rng.random((n, 20)) < 0.2, rng.random((n, 20)), 5)"),
}


def _once(call: str, cache: str) -> float:
    code = _SETUP + call + "\nprint(time.perf_counter() - t0)\n"
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{call!r} failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.split()[-1])


LATER = 4


def measure(name: str) -> tuple[float, list[float]]:
    """(empty cache, each later process) seconds, import included, for row ``name``."""
    call = ROWS[name][1]
    with tempfile.TemporaryDirectory() as cache:
        cold = _once(call, cache)
        later = [_once(call, cache) for _ in range(LATER)]
    return cold, later


def compile_time(jobs: int | None) -> float:
    """Seconds of ``fastrank compile`` into an empty cache (process start included)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cmd = [sys.executable, "-m", "fastrank", "compile"]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=1200)
        return time.perf_counter() - t0


def _machine() -> str:
    buf = io.StringIO()
    fastrank.show_config(file=buf)
    keep = ("cpu:", "cores:", "numpy:", "numba:", "  baseline:", "  dispatched:")
    return "; ".join(line.strip() for line in buf.getvalue().splitlines()
                     if line.startswith(keep))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    parser.add_argument("--no-compile", action="store_true",
                        help="skip timing fastrank compile")
    args = parser.parse_args(argv)
    bytecode()  # a new user's fastrank is installed: its modules' bytecode is there
    print(f"Machine: {_machine()}")
    info = fastrank.config.config()
    print(f"Kernels: {info['kernels']}, declared variants: {info['declared variants']}")
    print()
    print("| first call (import included, fresh process) | empty Numba cache "
          f"| the {LATER} processes after, in turn |")
    print("|---|---|---|")
    for name in args.rows:
        cold, later = measure(name)
        print(f"| {ROWS[name][0]} | {cold:.2f} s | {', '.join(f'{t:.2f}' for t in later)} s |",
              flush=True)
    if not args.no_compile:
        print()
        par = compile_time(None)
        seq = compile_time(1)
        print(f"fastrank compile, empty cache: {par:.1f} s on {info['cores']} "
              f"worker processes (--jobs default), {seq:.1f} s with --jobs 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
