"""Processes of the torch.distributed tests (tests/test_torch.py): importable by name,
as torch.multiprocessing.spawn needs.

Each rank updates the metric objects with its shard of one data set (its own
batches, of uneven sizes; in a world of 4 one rank has no rows, and one rank's
rows are all of one class), calls ``compute()`` (which gathers the compact
states) and writes what it got, as exact float hex strings, to
``out/rank<r>.json``. The test compares every rank with one process over the
whole data set.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

N = 700
LABELS = 4


def data() -> dict[str, np.ndarray]:
    """The whole data set (the same in every process)."""
    rng = np.random.default_rng(42)
    y = rng.random((N, LABELS)) < 0.35
    s = np.round(rng.random((N, LABELS)), 3).astype(np.float32)  # ties
    c = rng.integers(0, LABELS, N)
    g = rng.integers(0, 25, N)
    return {"y": y, "s": s, "c": c, "g": g}


def shards(world: int) -> list[list[tuple[int, int]]]:
    """Each rank's batches as (start, stop) rows: uneven counts, an empty rank in a
    world of 4."""
    cuts = np.linspace(0, N, world + 1).astype(int)
    if world == 4:
        cuts = np.array([0, 300, 300, 520, N])  # rank 1: no rows
    out = []
    for r in range(world):
        a, b = int(cuts[r]), int(cuts[r + 1])
        steps = [a, *range(a + 37 * (r + 1), b, 37 * (r + 1)), b] if b > a else []
        out.append([(x, z) for x, z in itertools.pairwise(steps) if z > x])
    return out


def one_class_rows(world: int) -> tuple[int, int]:
    """The rows of the rank whose labels are all of one class (negative)."""
    sh = shards(world)[world - 1]
    return sh[0][0], sh[-1][1]


def dataset(world: int) -> dict[str, np.ndarray]:
    d = data()
    a, b = one_class_rows(world)
    d["y"][a:b] = False
    d["c"][a:b] = 0
    return d


def metrics() -> dict[str, Any]:
    """The metric objects under test, by name."""
    import fastrank
    from fastrank.torch import BinaryMetric, GroupedMetric, MulticlassMetric, MultilabelMetric

    return {
        "binary_ap": BinaryMetric("average_precision"),
        "binary_pauc": BinaryMetric("partial_roc_auc", fpr=(0.0, 0.3)),
        "grouped_ap": GroupedMetric("average_precision"),
        "grouped_ndcg": GroupedMetric("ndcg_at_k", k=3),
        "multilabel_auc": MultilabelMetric("roc_auc", num_labels=LABELS, average=None),
        "multilabel_p_at_2": MultilabelMetric("precision_at_k", k=2),
        "multiclass_ap": MulticlassMetric("average_precision", num_classes=LABELS),
        "binned_auc": BinaryMetric("roc_auc", summary=fastrank.BinnedSummary(bins=64)),
        "binned_multilabel_ap": MultilabelMetric(
            "average_precision", summary=fastrank.BinnedSummary(bins=64), average=None),
    }


def feed(ms: dict[str, Any], d: dict[str, np.ndarray], batches: list[tuple[int, int]]) -> None:
    import torch

    for a, b in batches:
        y, s = torch.from_numpy(d["y"][a:b]), torch.from_numpy(d["s"][a:b])
        c, g = torch.from_numpy(d["c"][a:b]), torch.from_numpy(d["g"][a:b])
        ms["binary_ap"].update(s[:, 0], y[:, 0].long())
        ms["binary_pauc"].update(s[:, 1], y[:, 1])
        ms["grouped_ap"].update(s[:, 0], y[:, 0], groups=g)
        ms["grouped_ndcg"].update(s[:, 2], y[:, 2], groups=g)
        ms["multilabel_auc"].update(s, y)
        ms["multilabel_p_at_2"].update(s, y.int())
        ms["multiclass_ap"].update(s, c)
        ms["binned_auc"].update(s[:, 0], y[:, 0])
        ms["binned_multilabel_ap"].update(s, y)


def values(ms: dict[str, Any]) -> dict[str, Any]:
    """Each metric's result as exact hex strings (bounded ones: estimate, low, high)."""
    out: dict[str, Any] = {}
    for name, m in ms.items():
        if m.bounded:
            b = m.result()
            parts = [np.atleast_1d(np.asarray(v, np.float64)) for v in (b.estimate, b.low, b.high)]
            out[name] = [[float(x).hex() for x in p] for p in parts]
        else:
            out[name] = [float(x).hex() for x in np.atleast_1d(m.compute().numpy())]
    return out


def run_rank(rank: int, world: int, port: int, out: str) -> None:
    """One process of the group (torch.multiprocessing.spawn's target)."""
    import warnings

    import torch.distributed as dist

    warnings.simplefilter("ignore")  # the reference values are what is checked
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    try:
        ms = metrics()
        feed(ms, dataset(world), shards(world)[rank])
        local = {name: m.rows for name, m in ms.items()}
        got = values(ms)
        # computing leaves each rank's own state as it was
        after = {name: m.rows for name, m in ms.items()}
        assert local == after
        # the torchmetrics adapter syncs the same way
        from fastrank.torch import BinaryMetric

        tm = BinaryMetric("average_precision").torchmetric()
        d = dataset(world)
        import torch

        for a, b in shards(world)[rank]:
            tm.update(torch.from_numpy(d["s"][a:b, 0]), torch.from_numpy(d["y"][a:b, 0]))
        got["torchmetric_ap"] = [float(tm.compute().item()).hex()]
        Path(out, f"rank{rank}.json").write_text(json.dumps(got))
    finally:
        dist.destroy_process_group()
