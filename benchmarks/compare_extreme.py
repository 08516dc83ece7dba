"""Print the extreme-classification comparison table (sparse top-k scores), measured
in this run.

    python benchmarks/compare_extreme.py             # 100,000 x 1,000,000, about a minute
    python benchmarks/compare_extreme.py --quick     # 20,000 samples
    python benchmarks/compare_extreme.py --pyxclib /path/to/python:/path/to/pyxclib

The shape is the issue's: 100,000 samples x 1,000,000 labels, each sample's 100 top
predictions stored (float32 CSR), about 5 relevant labels per sample (CSR), label
frequencies from a power law (their propensities from the Jain et al. model).
Measured: P@k, nDCG@k, PSP@k and PSnDCG@k at k = 1, 3, 5, one call each and all at
once with ``top_k_metrics``, against

* a vectorised NumPy reference, the code a user writes for fixed-width top-k
  predictions (``argsort`` of the ``(n, 100)`` score block, the top 5 labels looked
  up in the label matrix with ``searchsorted``, then the four measures from the
  ``(n, 5)`` relevance block), checked equal first;
* pyxclib's ``xc_metrics`` (precision, ndcg, psprecision, psndcg), when a Python
  that imports it is given with ``--pyxclib`` (run in a subprocess on the same
  data; it is not on PyPI).

Throughput is stored entries per second; memory the peak of Python allocations
(``tracemalloc``) during the call, against the bytes the inputs hold.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).parent))
from timing import alternate, machine
from timing import fmt_seconds as _fmt

import fastrank

KS = (1, 3, 5)


def make(n: int, labels: int = 1_000_000, per: int = 100, seed: int = 0):
    """Scores (CSR, ``per`` stored per row), labels (CSR) and training label counts."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, labels + 1) ** 0.8  # label popularity, a power law
    freq /= freq.sum()
    cols = np.empty((n, per), np.int64)
    for lo in range(0, n, 10_000):  # distinct columns per row, drawn by popularity
        hi = min(n, lo + 10_000)
        c = rng.choice(labels, (hi - lo, per * 2), p=freq)
        c.sort(axis=1)
        dup = np.zeros_like(c, bool)
        dup[:, 1:] = c[:, 1:] == c[:, :-1]
        c = np.where(dup, rng.integers(0, labels, c.shape), c)  # rare repeats: re-drawn
        c.sort(axis=1)
        for i in range(hi - lo):
            u = np.unique(c[i])[:per]
            while u.shape[0] < per:
                u = np.unique(np.concatenate([u, rng.integers(0, labels, per)]))[:per]
            cols[lo + i] = u
    # distinct scores within a row (ties would make the NumPy reference's order arbitrary)
    vals = ((rng.permuted(np.tile(np.arange(per), (n, 1)), axis=1) + 0.5) / per
            ).astype(np.float32)
    S = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(n + 1) * per), shape=(n, labels))
    # ~5 relevant labels: 3 among the stored (the model is good), 2 elsewhere
    hit_cols = np.take_along_axis(cols, rng.integers(0, per, (n, 3)), axis=1)
    miss = rng.choice(labels, (n, 2), p=freq)
    lab = np.concatenate([hit_cols, miss], axis=1)
    lab.sort(axis=1)
    keep = np.ones_like(lab, bool)
    keep[:, 1:] = lab[:, 1:] != lab[:, :-1]
    counts = keep.sum(axis=1)
    Y = sp.csr_matrix((np.ones(int(counts.sum()), np.float32), lab[keep],
                       np.concatenate([[0], np.cumsum(counts)])), shape=(n, labels))
    train = np.bincount(rng.choice(labels, 20 * n, p=freq), minlength=labels)
    return S, Y, train


def numpy_reference(S, Y, inv: np.ndarray, per: int) -> dict[str, float]:
    """P@k, nDCG@k, PSP@k, PSnDCG@k (pyxclib's conventions) with plain NumPy, for
    rows that each store ``per`` predictions."""
    n, labels = S.shape
    vals = S.data.reshape(n, per)
    cols = S.indices.reshape(n, per)
    top = np.argsort(-vals, axis=1, kind="stable")[:, :max(KS)]
    tc = np.take_along_axis(cols, top, axis=1)
    cells = np.repeat(np.arange(n), np.diff(Y.indptr)) * np.int64(labels) + Y.indices
    q = np.arange(n)[:, None] * np.int64(labels) + tc
    at = np.minimum(np.searchsorted(cells, q), cells.shape[0] - 1)
    rel = (cells[at] == q).astype(np.float64)
    n_true = np.diff(Y.indptr)
    w = rel * inv[tc]
    disc = 1.0 / np.log2(np.arange(2, max(KS) + 2))
    # the best PS values: each row's true labels by inverse propensity
    true_w = inv[Y.indices]
    owner = np.repeat(np.arange(n), n_true)
    by = np.lexsort((-true_w, owner))
    rank = np.arange(by.shape[0]) - np.repeat(np.cumsum(n_true) - n_true, n_true)
    out = {}
    for k in KS:
        ideal = np.cumsum(disc)[np.minimum(n_true, k) - 1] * (n_true > 0)
        out[f"P@{k}"] = float(rel[:, :k].sum(axis=1).mean() / k)
        ok = n_true > 0
        out[f"nDCG@{k}"] = float(((rel[:, :k] @ disc[:k])[ok] / ideal[ok]).mean())
        inside = rank < k
        best_p = np.bincount(owner[by][inside], true_w[by][inside], minlength=n)
        d_in = np.where(inside, disc[np.minimum(rank, max(KS) - 1)], 0.0)
        best_d = np.bincount(owner[by], true_w[by] * d_in, minlength=n)
        out[f"PSP@{k}"] = float(w[:, :k].sum() / best_p.sum())
        got_d = w[:, :k] @ disc[:k]
        out[f"PSnDCG@{k}"] = float((got_d[ok] / ideal[ok]).sum() / (best_d[ok] / ideal[ok]).sum())
    return out


_PYXCLIB = """
import json, sys, time, warnings
import numpy as np, scipy.sparse as sp
sys.path.insert(0, {path!r})
from xclib.evaluation import xc_metrics as xm
warnings.simplefilter("ignore")
d = np.load({npz!r})
n, L = d["shape"]
S = sp.csr_matrix((d["sv"], d["si"], d["sp"]), shape=(n, L))
Y = sp.csr_matrix((d["yv"], d["yi"], d["yp"]), shape=(n, L))
inv = d["inv"]
def run():
    return (xm.precision(S, Y, k=5), xm.ndcg(S, Y, k=5), xm.psprecision(S, Y, inv, k=5),
            xm.psndcg(S, Y, inv, k=5))
run()
times = []
for _ in range({repeat}):
    t0 = time.perf_counter(); out = run(); times.append(time.perf_counter() - t0)
p, nd, psp, psn = out
print(json.dumps({{"time": sorted(times)[len(times) // 2],
                  "values": {{**{{f"P@{{k}}": float(p[k - 1]) for k in (1, 3, 5)}},
                             **{{f"nDCG@{{k}}": float(nd[k - 1]) for k in (1, 3, 5)}},
                             **{{f"PSP@{{k}}": float(psp[k - 1]) for k in (1, 3, 5)}},
                             **{{f"PSnDCG@{{k}}": float(psn[k - 1]) for k in (1, 3, 5)}}}}}}))
"""


def pyxclib(spec: str, S, Y, inv: np.ndarray, repeat: int) -> dict | None:
    python, _, path = spec.partition(":")
    with tempfile.TemporaryDirectory() as tmp:
        npz = os.path.join(tmp, "data.npz")
        np.savez(npz, shape=np.array(S.shape), sv=S.data, si=S.indices, sp=S.indptr,
                 yv=Y.data, yi=Y.indices, yp=Y.indptr, inv=inv)
        code = _PYXCLIB.format(path=path, npz=npz, repeat=repeat)
        out = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if out.returncode:
        print(f"(pyxclib did not run: {out.stderr.strip().splitlines()[-1]})")
        return None
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def peak_bytes(fn) -> int:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 samples, fewer repeats")
    parser.add_argument("--pyxclib", help="PYTHON:PATH of a Python that imports xclib")
    args = parser.parse_args()
    n = 20_000 if args.quick else 100_000
    repeat = 2 if args.quick else 3
    warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
    print(machine())
    t0 = time.perf_counter()
    S, Y, train = make(n)
    p = fastrank.propensity(train, train.sum() // 20)
    inv = 1.0 / p
    print(f"\n{n:,} samples x {S.shape[1]:,} labels, {S.nnz:,} stored float32 scores, "
          f"{Y.nnz:,} relevant labels (made in {time.perf_counter() - t0:.0f} s)")
    ref = numpy_reference(S, Y, inv, 100)
    ours = fastrank.top_k_metrics(Y, S, list(KS), propensity=p)
    for key, v in ref.items():
        assert abs(ours[key] - v) < 1e-9, (key, ours[key], v)
    calls = [
        ("precision_at_k", lambda: fastrank.precision_at_k(Y, S, list(KS))),
        ("ndcg_at_k", lambda: fastrank.ndcg_at_k(Y, S, list(KS))),
        ("psprecision_at_k", lambda: fastrank.psprecision_at_k(Y, S, list(KS), propensity=p)),
        ("psndcg_at_k", lambda: fastrank.psndcg_at_k(Y, S, list(KS), propensity=p)),
        ("top_k_metrics (all four)", lambda: fastrank.top_k_metrics(Y, S, list(KS),
                                                                     propensity=p)),
    ]
    ref_t, = alternate([lambda: numpy_reference(S, Y, inv, 100)], repeat)
    print(f"k = {', '.join(map(str, KS))}; values checked equal to the NumPy reference")
    print("| call | fastrank | entries/s |\n|---|---|---|")
    times = alternate([fn for _, fn in calls], repeat)
    for (name, _), t in zip(calls, times, strict=True):
        print(f"| {name} | {_fmt(t)} | {S.nnz / t / 1e6:,.0f} M |")
    print(f"| NumPy reference (all four) | {_fmt(ref_t)} | {S.nnz / ref_t / 1e6:,.0f} M |")
    print(f"top_k_metrics vs the NumPy reference: {ref_t / times[-1]:.1f}x")
    if args.pyxclib:
        got = pyxclib(args.pyxclib, S, Y, inv, repeat)
        if got is not None:
            worst = max(abs(got["values"][key] - ours[key]) for key in ref)
            print(f"| pyxclib xc_metrics (all four) | {_fmt(got['time'])} | "
                  f"{S.nnz / got['time'] / 1e6:,.0f} M | (largest difference {worst:.1e}) |")
            print(f"top_k_metrics vs pyxclib: {got['time'] / times[-1]:.1f}x")
    held = S.data.nbytes + S.indices.nbytes + S.indptr.nbytes + Y.data.nbytes + \
        Y.indices.nbytes + Y.indptr.nbytes
    peak = peak_bytes(lambda: fastrank.top_k_metrics(Y, S, list(KS), propensity=p))
    print(f"\nmemory: top_k_metrics peak {peak / 2**20:,.0f} MiB of Python allocations for "
          f"inputs holding {held / 2**20:,.0f} MiB ({peak / held:.1f}x); a dense score "
          f"matrix would hold {n * S.shape[1] * 4 / 2**40:,.1f} TiB")


if __name__ == "__main__":
    main()
