"""Print the cost of fastrank.torch's metric objects, torchmetrics measured in this run.

    python benchmarks/compare_torch.py           # the full workloads (a few minutes)
    python benchmarks/compare_torch.py --quick   # fewer batches and rows, for a smoke run

Rows (float32 scores, int64 0/1 targets, CPU tensors), one per cost target of
the metric objects:

* T1: one ``update`` of a 4,096 x 100 batch (``MultilabelMetric``, exact and
  bounded) against copying the batch (scores and targets) to numpy, and
  torchmetrics' ``MultilabelAveragePrecision(thresholds=None).update``.
* T2: the exact state of 1e7 samples (one task, batches of 4,096) against the
  bytes of its float32 scores: distinct scores, and scores with ties (two
  decimals, folded into counts; bfloat16 through the exact quantized summary).
* T3: ``compute()`` against the one-shot call on the concatenated data, for
  every metric class, on distinct and on tied scores (the 1e7-sample task of
  T2; 2e6 cells for the others), each result first checked equal to the
  one-shot call's bit for bit.
* T4: an epoch of 200 batches of 4,096 x 100 (update each, compute at the end)
  against torchmetrics' exact ``MultilabelAveragePrecision(thresholds=None)``:
  time and state bytes.

Times are the best of several runs, each function run in blocks in turn with
the others (a shared machine's noise only ever adds time), and every figure is
a ratio to a peer measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import fmt_seconds, machine

import fastrank


def _state_bytes(metric: Any) -> int:
    """Bytes of a metric's state_dict tensors (what a checkpoint or a gather holds)."""
    import torch

    def size(v: Any) -> int:
        if isinstance(v, torch.Tensor):
            return v.numel() * v.element_size()
        if isinstance(v, dict):
            return sum(size(x) for x in v.values())
        if isinstance(v, (list, tuple)):
            return sum(size(x) for x in v)
        return 0

    return size(metric.state_dict())


def best(fns: list[Any], rounds: int, block: int = 1) -> list[float]:
    """The best time of each function: ``rounds`` turns, each running every function
    ``block`` times in a row (after one untimed run of each: compilation, caches)."""
    for fn in fns:
        fn()
    out = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            for _ in range(block):
                t0 = time.perf_counter()
                fn()
                out[k] = min(out[k], time.perf_counter() - t0)
    return out


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.1f} kB"


def batch(rng: np.random.Generator, n: int, tasks: int) -> tuple[Any, Any]:
    import torch

    s = torch.from_numpy(rng.random((n, tasks), dtype=np.float32))
    y = torch.from_numpy((rng.random((n, tasks)) < 0.1).astype(np.int64))
    return s, y


def t1(repeat: int) -> None:
    import torchmetrics.classification as tmc

    from fastrank.torch import MultilabelMetric

    rng = np.random.default_rng(0)
    s, y = batch(rng, 4096, 100)
    exact = MultilabelMetric("average_precision", num_labels=100)
    bounded = MultilabelMetric("average_precision", num_labels=100,
                               summary=fastrank.BinnedSummary(bins=1000))
    tm = tmc.MultilabelAveragePrecision(num_labels=100, thresholds=None)

    def fresh_exact() -> None:
        exact.reset()
        exact.update(s, y)

    def fresh_tm() -> None:
        tm.reset()
        tm.update(s, y)

    fns = [lambda: (np.array(s.numpy()), np.array(y.numpy())), fresh_exact,
           lambda: bounded.update(s, y), fresh_tm]
    names = ["copy the batch to numpy (scores + targets)", "`MultilabelMetric` exact `update`",
             "`MultilabelMetric` bounded `update` (1,000 bins)",
             "torchmetrics `MultilabelAveragePrecision(thresholds=None).update`"]
    times = best(fns, repeat, 10)
    print("\nT1: one update of a 4,096 x 100 batch (target: exact update <= 2x the copy)")
    print("| call | time | vs copy |\n|---|---|---|")
    for name, t in zip(names, times, strict=True):
        print(f"| {name} | {fmt_seconds(t, 2)} | {t / times[0]:.2f}x |")


def t2(n: int) -> list[tuple[str, Any, np.ndarray, np.ndarray]]:
    import torch

    from fastrank.torch import BinaryMetric

    rng = np.random.default_rng(1)
    y = rng.random(n) < 0.1
    kinds = {
        "distinct float32": rng.random(n, dtype=np.float32),
        "two decimals (101 values)": np.round(rng.random(n), 2).astype(np.float32),
    }
    step = 4096
    print(f"\nT2: the state of {n:,} samples, one task, batches of {step:,} "
          "(target: <= 1.5x the scores' bytes, far less with ties)")
    print("| scores | scores' bytes | state in memory (nbytes) | x | state_dict | x |\n"
          "|---|---|---|---|---|---|")
    ty = torch.from_numpy(y)
    states = []
    for name, s in kinds.items():
        ts = torch.from_numpy(s)
        m = BinaryMetric("average_precision")
        for a in range(0, n, step):
            m.update(ts[a:a + step], ty[a:a + step])
        sd = _state_bytes(m)
        print(f"| {name} | {_mb(s.nbytes)} | {_mb(m.nbytes)} | {m.nbytes / s.nbytes:.4f}x | "
              f"{_mb(sd)} | {sd / s.nbytes:.4f}x |")
        states.append((name, m, y, s))
    bf = torch.from_numpy(rng.random(n, dtype=np.float32)).bfloat16()
    q = BinaryMetric("average_precision", summary=fastrank.BinnedSummary(quantized="bfloat16"))
    for a in range(0, n, step):
        q.update(bf[a:a + step], ty[a:a + step])
    print(f"| bfloat16, exact quantized summary | {_mb(2 * n)} (bf16) / {_mb(4 * n)} (f32) | "
          f"{_mb(q.nbytes)} | {q.nbytes / (4 * n):.3f}x of f32 | {_mb(_state_bytes(q))} | |")
    assert q.compute().item() == fastrank.average_precision(y, bf.float().numpy())
    return states


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all((a.view(np.int64) == b.view(np.int64))
                                              | (np.isnan(a) & np.isnan(b))))


def t3(binary: list[tuple[str, Any, np.ndarray, np.ndarray]], cells: int, rounds: int) -> None:
    """compute() against the one-shot call, every class, distinct and tied scores."""
    import warnings

    import torch

    from fastrank.torch import BinaryMetric, GroupedMetric, MulticlassMetric, MultilabelMetric

    rng = np.random.default_rng(3)
    step, tasks = 4096, 20
    rows = []  # (class and metric, scores, metric object, the one-shot call)
    for name, m, y, s in binary:
        rows.append(("`BinaryMetric('average_precision')`", f"{name}, {len(y):,} rows", m,
                     lambda y=y, s=s: fastrank.average_precision(y, s)))
    for kind in ("distinct", "two decimals"):
        s = rng.random((cells // tasks, tasks), dtype=np.float32)
        if kind != "distinct":
            s = np.round(s, 2).astype(np.float32)
        y = rng.random(s.shape) < 0.1
        c = rng.integers(0, tasks, s.shape[0])
        s1, y1, g = s.reshape(-1), y.reshape(-1), rng.integers(0, 10_000, cells)
        ts, ty, tc = torch.from_numpy(s), torch.from_numpy(y), torch.from_numpy(c)
        ts1, ty1, tg = torch.from_numpy(s1), torch.from_numpy(y1), torch.from_numpy(g)

        def fed(m: Any, *args: Any, per: int = step, **kw: Any) -> Any:
            for a in range(0, args[0].shape[0], per):
                m.update(*(x[a:a + per] for x in args),
                         **{k: v[a:a + per] for k, v in kw.items()})
            return m

        shape = f"{kind}, {s.shape[0]:,} x {tasks}"
        rows += [
            ("`BinaryMetric('sensitivity_at_specificity', min_specificity=0.9)`",
             f"{kind}, {cells:,} rows",
             fed(BinaryMetric("sensitivity_at_specificity", min_specificity=0.9), ts1, ty1),
             lambda y1=y1, s1=s1: fastrank.sensitivity_at_specificity(y1, s1, 0.9)),
            ("`MultilabelMetric('average_precision')`", shape,
             fed(MultilabelMetric("average_precision"), ts, ty),
             lambda y=y, s=s: fastrank.average_precision(y, s)),
            ("`MultilabelMetric('roc_auc', average=None)`", shape,
             fed(MultilabelMetric("roc_auc", average=None), ts, ty),
             lambda y=y, s=s: fastrank.roc_auc(y, s, average=None)),
            ("`MulticlassMetric('average_precision')`", shape,
             fed(MulticlassMetric("average_precision", num_classes=tasks), ts, tc),
             lambda c=c, s=s: fastrank.average_precision(c, s, labels=np.arange(tasks))),
            ("`GroupedMetric('average_precision')`, 10,000 groups", f"{kind}, {cells:,} rows",
             fed(GroupedMetric("average_precision"), ts1, ty1, groups=tg),
             lambda y1=y1, s1=s1, g=g: fastrank.average_precision(y1, s1, groups=g)),
        ]
    print("\nT3: compute() against the one-shot call on the concatenated data (target: "
          "<= 1.2x), each result equal to the one-shot call's bit for bit")
    print("| metric object | scores | state | one-shot call | `compute()` | ratio |\n"
          "|---|---|---|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without positives: NaN, warned alike
        for what, scores, m, one in rows:
            got, want = m.result(), one()
            assert _same(getattr(got, "value", got), getattr(want, "value", want)), what
            how = "tie counts" if m._state.ties is not None else "rows"
            t_one, t_comp = best([one, m.compute], rounds)
            print(f"| {what} | {scores} | {how} | {fmt_seconds(t_one)} | "
                  f"{fmt_seconds(t_comp)} | {t_comp / t_one:.2f}x |")


def t4(batches: int) -> None:
    import torch
    import torchmetrics.classification as tmc

    from fastrank.torch import MultilabelMetric

    rng = np.random.default_rng(2)
    data = [batch(rng, 4096, 100) for _ in range(batches)]
    print(f"\nT4: an epoch of {batches} batches of 4,096 x 100 (update each, compute at the end)")
    print("| metric | updates | compute | total | state bytes |\n|---|---|---|---|---|")
    results = {}
    for name, make in [
        ("fastrank `MultilabelMetric('average_precision')` exact",
         lambda: MultilabelMetric("average_precision", num_labels=100)),
        ("torchmetrics `MultilabelAveragePrecision(thresholds=None)`",
         lambda: tmc.MultilabelAveragePrecision(num_labels=100, thresholds=None)),
    ]:
        m = make()
        t0 = time.perf_counter()
        for s, y in data:
            m.update(s, y)
        t1_ = time.perf_counter()
        value = m.compute()
        t2 = time.perf_counter()
        if hasattr(m, "nbytes"):
            held = m.nbytes
        else:
            held = sum(t.numel() * t.element_size() for t in [*m.preds, *m.target])
        results[name] = float(value)
        print(f"| {name} | {fmt_seconds(t1_ - t0)} | {fmt_seconds(t2 - t1_)} | "
              f"{fmt_seconds(t2 - t0)} | {_mb(held)} |")
    s = torch.cat([s for s, _ in data]).numpy()
    y = torch.cat([y for _, y in data]).numpy()
    fr = MultilabelMetric("average_precision", num_labels=100)
    for sb, yb in data:
        fr.update(sb, yb)
    one = fastrank.average_precision(y, s)
    assert fr.compute().item() == one
    t_one, t_comp = best([lambda: fastrank.average_precision(y, s), fr.compute], 2)
    print(f"(`compute()` {fmt_seconds(t_comp)} against the one-shot `average_precision` on the "
          f"concatenated epoch {fmt_seconds(t_one)}: {t_comp / t_one:.2f}x; the rows' own "
          f"bytes {_mb(s.nbytes + y.size)}; values: fastrank {one!r}, "
          f"{', '.join(f'{v!r}' for v in results.values())})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer batches and rows")
    args = parser.parse_args()
    # torch's OpenMP threads spin after each call by default, taking the cores from
    # whatever is timed next; let them sleep.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    import torchmetrics

    print(f"# fastrank {fastrank.__version__}, torch {torch.__version__}, torchmetrics "
          f"{torchmetrics.__version__}, numpy {np.__version__}, Python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {machine()}")
    print(f"# torch threads: {torch.get_num_threads()}")
    t1(5 if args.quick else 15)
    states = t2(10**6 if args.quick else 10**7)
    t3(states, 2 * 10**5 if args.quick else 2 * 10**6, 2 if args.quick else 4)
    t4(20 if args.quick else 200)


if __name__ == "__main__":
    main()
