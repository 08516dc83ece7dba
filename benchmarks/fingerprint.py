"""A fingerprint of fastrank's results, for refactors that must not change a bit.

Usage::

    python benchmarks/fingerprint.py OUT.txt

Calls a broad set of the public entry points (only through ``fastrank.X`` and
the public modules) on seeded random inputs with heavy ties, and writes one
line per result: ``name params: value``, floats written exactly (``float.hex``),
arrays in full up to 48 entries and as their length, dtype and a SHA-256 of
their bytes beyond. Errors and warnings are part of a result. Run it before a
change and after, then compare the files (``cmp``): a refactor that moves code
only must leave them byte-identical. The inputs are fixed by their seeds, and
every fastrank result is the same on any number of threads, so the file
depends only on fastrank and numpy.

A developer tool, not a test: it takes a minute or two and has no expected
values, only a before and an after.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import numpy as np

import fastrank
from fastrank import summaries

FULL = 48  # arrays up to this many entries are written in full

# ------------------------------------------------------------------ writing values


def fmt(v: Any) -> str:
    """``v`` as exact, deterministic text."""
    if v is None or isinstance(v, (bool, np.bool_)):
        return repr(bool(v)) if v is not None else "None"
    if isinstance(v, (int, np.integer)):
        return f"{type(v).__name__}:{int(v)}" if isinstance(v, np.integer) else str(v)
    if isinstance(v, (float, np.floating)):
        prefix = "" if type(v) is float else f"{type(v).__name__}:"
        return prefix + float(v).hex()
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, np.ndarray):
        return fmt_array(v)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        inner = ", ".join(f"{f.name}={fmt(getattr(v, f.name))}" for f in dataclasses.fields(v))
        return f"{type(v).__name__}({inner})"
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        inner = ", ".join(f"{k}={fmt(x)}" for k, x in zip(v._fields, v, strict=True))
        return f"{type(v).__name__}({inner})"
    if isinstance(v, (tuple, list)):
        inner = ", ".join(fmt(x) for x in v)
        return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{fmt(k)}: {fmt(x)}" for k, x in v.items()) + "}"
    if hasattr(v, "__dict__") and type(v).__module__.startswith("fastrank"):
        return f"{type(v).__name__}({fmt(dict(vars(v)))})"
    return repr(v)


def fmt_array(a: np.ndarray) -> str:
    head = f"{a.dtype.str}{list(a.shape)}"
    if a.dtype.kind == "O":
        return head + "[" + ", ".join(fmt(x) for x in a.ravel().tolist()) + "]"
    if a.size > FULL:
        digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:24]
        if a.dtype.kind == "f":
            with np.errstate(all="ignore"):
                total = float(np.nansum(a.astype(np.float64)))
            return f"{head}#sha={digest} nansum={total.hex()}"
        return f"{head}#sha={digest}"
    if a.dtype.kind == "f":
        return head + "[" + " ".join(float(x).hex() for x in a.ravel().tolist()) + "]"
    if a.dtype.kind in "US":
        return head + repr(a.ravel().tolist())
    return head + "[" + " ".join(str(x) for x in a.ravel().tolist()) + "]"


class Out:
    def __init__(self, f: TextIO) -> None:
        self.f = f
        self.lines = 0

    def rec(self, name: str, params: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """Call ``fn`` and write its result (or error) and warnings as one line."""
        value: Any = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn(*args, **kw)
                text = fmt(value)
            except Exception as exc:  # an error is a result too
                text = f"raise {type(exc).__name__}: {exc}"
                value = None
        if caught:
            text += " warn=" + "|".join(f"{w.category.__name__}:{w.message}" for w in caught)
        self.write(f"{name} {params}: {text}")
        return value

    def write(self, line: str) -> None:
        self.f.write(line.replace("\n", "\\n") + "\n")
        self.lines += 1


# ------------------------------------------------------------------ inputs

SCORE_DTYPES = ("float32", "float64", "int64", "int32", "bool", "uint8")
TIES = ("none", "some", "heavy")


def make_scores(rng: np.random.Generator, n: int, dtype: str, ties: str,
                shape: tuple[int, ...] | None = None) -> np.ndarray:
    shape = shape or (n,)
    if ties == "heavy":
        base = rng.integers(-2, 3, shape).astype(np.float64)
    elif ties == "some":
        base = rng.integers(0, max(2, int(np.prod(shape)) // 3), shape) / 7.0
    else:
        base = rng.standard_normal(shape) * 3.0
    if dtype == "bool":
        return base > 0
    if dtype == "uint8":
        return (np.abs(base * 7) % 256).astype(np.uint8)
    if dtype in ("int64", "int32"):
        return np.round(base * 1000).astype(dtype)
    out = base.astype(dtype)
    if dtype.startswith("float") and out.size:
        out.flat[::17] = -0.0 if ties == "heavy" else out.flat[::17]  # both zeros, one tie group
    return out


def make_labels(rng: np.random.Generator, shape: tuple[int, ...], prevalence: float
                ) -> np.ndarray:
    return rng.random(shape) < prevalence


def make_weights(rng: np.random.Generator, n: int, kind: str) -> np.ndarray | None:
    if kind == "none":
        return None
    if kind == "ints":
        return rng.integers(0, 4, n).astype(np.float64)  # zero weights included
    return rng.random(n) * 2.0 + 0.01


def cases(seed: int, count: int, sizes: tuple[int, ...]) -> Iterator[tuple[str, Any, Any, Any]]:
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(sizes[i % len(sizes)])
        dtype = SCORE_DTYPES[i % len(SCORE_DTYPES)]
        ties = TIES[(i // len(SCORE_DTYPES)) % len(TIES)]
        prev = (0.05, 0.3, 0.5, 0.9)[(i // 3) % 4]
        wkind = ("none", "ints", "floats")[(i // 2) % 3]
        y = make_labels(rng, (n,), prev)
        s = make_scores(rng, n, dtype, ties)
        w = make_weights(rng, n, wkind)
        yield f"[{i} n={n} {dtype} ties={ties} p={prev} w={wkind}]", y, s, w


# ------------------------------------------------------------------ sections


def one_task(o: Out, tag: str, y: Any, s: Any, w: Any) -> None:
    fr = fastrank
    o.rec("average_precision", tag, fr.average_precision, y, s, sample_weight=w)
    o.rec("average_precision", tag + " ties=expected", fr.average_precision, y, s,
          sample_weight=w, ties="expected")
    o.rec("roc_auc", tag, fr.roc_auc, y, s, sample_weight=w)
    for mf in (0.1, 0.5):
        o.rec("roc_auc", f"{tag} max_fpr={mf}", fr.roc_auc, y, s, sample_weight=w, max_fpr=mf)
    o.rec("pr_auc", tag, fr.pr_auc, y, s, sample_weight=w)
    o.rec("d_prime", tag, fr.d_prime, y, s, sample_weight=w)
    o.rec("prbe", tag, fr.prbe, y, s, sample_weight=w, return_threshold=True)
    o.rec("all_metrics", tag + " max_fpr=0.3", fr.all_metrics, y, s, sample_weight=w, max_fpr=0.3)


def curves(o: Out, tag: str, y: Any, s: Any, w: Any) -> None:
    fr = fastrank
    o.rec("roc_curve", tag, fr.roc_curve, y, s, sample_weight=w)
    o.rec("roc_curve", tag + " all", fr.roc_curve, y, s, sample_weight=w, drop_intermediate=False)
    o.rec("precision_recall_curve", tag, fr.precision_recall_curve, y, s, sample_weight=w)
    o.rec("det_curve", tag, fr.det_curve, y, s, sample_weight=w)
    o.rec("confusion_matrix_at_thresholds", tag, fr.confusion_matrix_at_thresholds, y, s,
          sample_weight=w)
    o.rec("interpolated_precision_recall_curve", tag, fr.interpolated_precision_recall_curve,
          y, s, sample_weight=w)
    o.rec("cumulative_gain_curve", tag, fr.cumulative_gain_curve, y, s, sample_weight=w)
    o.rec("lift_curve", tag, fr.lift_curve, y, s, sample_weight=w)
    o.rec("gain_at_depth", tag, fr.gain_at_depth, y, s, [0.1, 0.5], sample_weight=w)
    o.rec("lift_at_depth", tag, fr.lift_at_depth, y, s, 0.2, sample_weight=w)
    readouts(o, tag, y, s, w, {})


def readouts(o: Out, tag: str, y: Any, s: Any, w: Any, extra: dict[str, Any]) -> None:
    fr = fastrank
    o.rec("partial_roc_auc", tag + " fpr=(0,0.2)", fr.partial_roc_auc, y, s, fpr=(0, 0.2),
          sample_weight=w, **extra)
    o.rec("partial_roc_auc", tag + " tpr=(0.5,1) correct", fr.partial_roc_auc, y, s,
          tpr=(0.5, 1.0), correct=True, sample_weight=w, **extra)
    o.rec("partial_roc_auc", tag + " fpr=(0.1,0.6) tpr=(0.2,0.9)", fr.partial_roc_auc, y, s,
          fpr=(0.1, 0.6), tpr=(0.2, 0.9), sample_weight=w, **extra)
    o.rec("partial_pr_auc", tag + " recall=(0.2,0.8)", fr.partial_pr_auc, y, s,
          recall=(0.2, 0.8), sample_weight=w, **extra)
    for interp in (False, True):
        o.rec("sensitivity_at_specificity", f"{tag} 0.9 {interp}", fr.sensitivity_at_specificity,
              y, s, 0.9, interpolate=interp, sample_weight=w, **extra)
        o.rec("specificity_at_sensitivity", f"{tag} 0.8 {interp}", fr.specificity_at_sensitivity,
              y, s, 0.8, interpolate=interp, sample_weight=w, **extra)
        o.rec("recall_at_precision", f"{tag} 0.6 {interp}", fr.recall_at_precision, y, s, 0.6,
              interpolate=interp, sample_weight=w, **extra)
        o.rec("precision_at_recall", f"{tag} 0.7 {interp}", fr.precision_at_recall, y, s, 0.7,
              interpolate=interp, sample_weight=w, **extra)
    for crit in ("youden", "closest_topleft", "f1", "mcc"):
        o.rec("best_cutoff", f"{tag} {crit}", fr.best_cutoff, y, s, crit, sample_weight=w, **extra)
    o.rec("best_cutoff", f"{tag} f_beta beta=2", fr.best_cutoff, y, s, "f_beta", beta=2.0,
          sample_weight=w, **extra)
    o.rec("best_cutoff", f"{tag} youden cost=3 prevalence=0.2", fr.best_cutoff, y, s, "youden",
          cost=3.0, prevalence=0.2, sample_weight=w, **extra)


def single_tasks(o: Out) -> None:
    sizes = (1, 2, 3, 5, 10, 31, 100, 257, 1000, 2500)
    for tag, y, s, w in cases(1, 540, sizes):
        one_task(o, tag, y, s, w)
        curves(o, tag, y, s, w)
    # larger tasks: the hashed tie count (>= 32,768), the radix/numpy sort choice and the
    # score-range path (>= 131,072 samples), weighted and not
    big = (5000, 40_000, 140_000, 300_000)
    for tag, y, s, w in cases(2, 24, big):
        one_task(o, tag, y, s, w)
        o.rec("roc_curve", tag, fastrank.roc_curve, y, s, sample_weight=w)
        o.rec("precision_recall_curve", tag, fastrank.precision_recall_curve, y, s,
              sample_weight=w)
        readouts(o, tag, y, s, w, {})
    # label forms: strings with pos_label, {-1, 1}, floats
    rng = np.random.default_rng(3)
    for n in (20, 500):
        s = make_scores(rng, n, "float64", "some")
        ys = np.where(rng.random(n) < 0.4, "spam", "ham")
        o.rec("roc_auc", f"[strings n={n}]", fastrank.roc_auc, ys, s, pos_label="spam")
        o.rec("average_precision", f"[strings n={n}]", fastrank.average_precision, ys, s,
              pos_label="spam")
        ypm = np.where(rng.random(n) < 0.4, 1, -1)
        o.rec("all_metrics", f"[pm1 n={n}]", fastrank.all_metrics, ypm, s)
        o.rec("roc_curve", f"[pm1 n={n}]", fastrank.roc_curve, ypm, s)
    # errors: NaN scores, one class
    o.rec("roc_auc", "[nan]", fastrank.roc_auc, [1, 0, 1], [0.1, np.nan, 0.3])
    o.rec("roc_auc", "[one class]", fastrank.roc_auc, [1, 1, 1], [0.1, 0.2, 0.3])
    o.rec("average_precision", "[no positives]", fastrank.average_precision, [0, 0], [0.1, 0.2])


def batched(o: Out) -> None:
    rng = np.random.default_rng(4)
    shapes = [(50, 3), (50, 70), (300, 300), (4096, 3), (4096, 70), (4097, 66), (20_000, 3),
              (20_000, 66), (65_536, 3), (70_000, 66)]
    fr = fastrank
    for k, (n, t) in enumerate(shapes):
        for dtype in ("float32", "float64", "int64"):
            if n * t > 1_000_000 and dtype != "float32":
                continue
            ties = TIES[k % 3]
            s = make_scores(rng, n, dtype, ties, (n, t))
            y = make_labels(rng, (n, t), (0.02, 0.3, 0.5)[k % 3])
            y[:, 0] = False  # a task without positives
            w = make_weights(rng, n, ("none", "floats", "ints")[k % 3])
            for order in ("C", "F"):
                so = np.asarray(s, order=order)
                yo = np.asarray(y, order=order)
                tag = f"[2d n={n} t={t} {dtype} {order} ties={ties} w={w is not None}]"
                for avg in (None, "macro", "micro", "weighted"):
                    o.rec("average_precision", f"{tag} avg={avg}", fr.average_precision, yo, so,
                          sample_weight=w, average=avg)
                    o.rec("roc_auc", f"{tag} avg={avg}", fr.roc_auc, yo, so, sample_weight=w,
                          average=avg)
                o.rec("all_metrics", f"{tag} avg=None max_fpr=0.2", fr.all_metrics, yo, so,
                      sample_weight=w, average=None, max_fpr=0.2)
                o.rec("pr_auc", f"{tag} avg=None", fr.pr_auc, yo, so, sample_weight=w,
                      average=None)
                o.rec("prbe", f"{tag} avg=None", fr.prbe, yo, so, sample_weight=w, average=None,
                      return_threshold=True)
                if order == "C" or n * t <= 400_000:
                    o.rec("sensitivity_at_specificity", tag, fr.sensitivity_at_specificity, yo, so,
                          0.95, sample_weight=w)
                    o.rec("recall_at_precision", tag, fr.recall_at_precision, yo, so, 0.5,
                          sample_weight=w)
                    o.rec("best_cutoff", tag, fr.best_cutoff, yo, so, "f1", sample_weight=w)
                    o.rec("partial_roc_auc", tag, fr.partial_roc_auc, yo, so, fpr=(0, 0.3),
                          sample_weight=w)
                    o.rec("partial_pr_auc", tag, fr.partial_pr_auc, yo, so, recall=(0.1, 0.9),
                          sample_weight=w)
    # many small tasks (one kernel call per unit) with one NaN
    s = rng.random((100, 80))
    s[37, 71] = np.nan
    o.rec("roc_auc", "[2d nan]", fr.roc_auc, rng.random((100, 80)) < 0.5, s, average=None)


def grouped(o: Out) -> None:
    rng = np.random.default_rng(5)
    fr = fastrank
    layouts = {
        "many-small": [int(x) for x in rng.integers(1, 80, 300)],
        "few-large": [5000, 20_000, 3, 300],
        "mixed": [int(x) for x in rng.integers(1, 60, 120)] + [4097, 17_000],
    }
    for name, sizes in layouts.items():
        for dtype in ("float64", "float32", "int64"):
            codes = np.repeat(np.arange(len(sizes)), sizes)
            rng.shuffle(codes)
            n = codes.shape[0]
            groups = np.array([f"g{c:04d}" for c in codes]) if dtype == "int64" else codes * 3 + 1
            s = make_scores(rng, n, dtype, "heavy" if dtype == "int64" else "some")
            y = make_labels(rng, (n,), 0.3)
            for wkind in ("none", "floats"):
                w = make_weights(rng, n, wkind)
                tag = f"[groups {name} {dtype} w={wkind}]"
                for avg in (None, "macro", "micro", "weighted"):
                    o.rec("roc_auc", f"{tag} avg={avg}", fr.roc_auc, y, s, sample_weight=w,
                          groups=groups, average=avg)
                o.rec("average_precision", f"{tag} avg=None", fr.average_precision, y, s,
                      sample_weight=w, groups=groups, average=None)
                o.rec("all_metrics", f"{tag} avg=None", fr.all_metrics, y, s, sample_weight=w,
                      groups=groups, average=None)
                readouts(o, tag, y, s, w, {"groups": groups})
            for k in (1, 5):
                for f in (fr.precision_at_k, fr.recall_at_k, fr.f1_at_k, fr.hit_rate_at_k,
                          fr.average_precision_at_k, fr.ndcg_at_k):
                    for avg in ("macro", None):
                        o.rec(f.__name__, f"[groups {name} {dtype}] k={k} avg={avg}", f, y, s, k,
                              groups=groups, average=avg)
            for f in (fr.reciprocal_rank, fr.r_precision):
                o.rec(f.__name__, f"[groups {name} {dtype}]", f, y, s, groups=groups, average=None)


def multiclass(o: Out) -> None:
    rng = np.random.default_rng(6)
    fr = fastrank
    for n, k in ((30, 3), (500, 4), (6000, 5)):
        y = rng.integers(0, k, n)
        s = np.round(rng.random((n, k)) * 8) / 8
        p = s / s.sum(axis=1, keepdims=True).clip(1e-9)
        tag = f"[multiclass n={n} k={k}]"
        for avg in ("macro", "weighted", None):
            o.rec("roc_auc", f"{tag} ovr avg={avg}", fr.roc_auc, y, p, multi_class="ovr",
                  average=avg)
            o.rec("average_precision", f"{tag} avg={avg}", fr.average_precision, y, s,
                  average=avg, labels=np.arange(k))
        for avg in ("macro", "weighted"):
            o.rec("roc_auc", f"{tag} ovo avg={avg}", fr.roc_auc, y, p, multi_class="ovo",
                  average=avg)
        for kk in (1, 2):
            o.rec("top_k_accuracy", f"{tag} k={kk}", fr.top_k_accuracy, y, s, kk)
            o.rec("top_k_accuracy", f"{tag} k={kk} ties=optimistic", fr.top_k_accuracy, y, s, kk,
                  ties="optimistic")


def rankings(o: Out) -> None:
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    fr = fastrank
    for n, L, ties in ((20, 5, "heavy"), (200, 30, "some"), (3000, 12, "heavy"),
                       (500, 300, "none")):
        Y = rng.random((n, L)) < 0.2
        Y[0] = False  # a sample without labels
        S = make_scores(rng, n, "float64", ties, (n, L))
        G = rng.integers(0, 4, (n, L)) * Y
        w = rng.random(n) + 0.5
        tag = f"[rank n={n} L={L} ties={ties}]"
        for sw in (None, w):
            t2 = f"{tag} w={sw is not None}"
            o.rec("label_ranking_average_precision", t2, fr.label_ranking_average_precision, Y, S,
                  sample_weight=sw)
            o.rec("coverage_error", t2, fr.coverage_error, Y, S, sample_weight=sw)
            o.rec("label_ranking_loss", t2, fr.label_ranking_loss, Y, S, sample_weight=sw)
            for kk in (None, 3):
                o.rec("dcg", f"{t2} k={kk}", fr.dcg, G, S, k=kk, sample_weight=sw)
                o.rec("ndcg", f"{t2} k={kk}", fr.ndcg, G, S, k=kk, sample_weight=sw)
            o.rec("ndcg", f"{t2} ignore_ties", fr.ndcg, G, S, ignore_ties=True, sample_weight=sw)
        for kk in (1, 3, [1, 5]):
            for f in (fr.precision_at_k, fr.recall_at_k, fr.f1_at_k, fr.hit_rate_at_k,
                      fr.average_precision_at_k):
                for ties_rule in ("expected", "optimistic", "pessimistic"):
                    o.rec(f.__name__, f"{tag} k={kk} {ties_rule}", f, Y, S, kk, ties=ties_rule)
                o.rec(f.__name__, f"{tag} k={kk} avg=None", f, Y, S, kk, average=None)
            o.rec("ndcg_at_k", f"{tag} k={kk}", fr.ndcg_at_k, G, S, kk)
            o.rec("ndcg_at_k", f"{tag} k={kk} exp", fr.ndcg_at_k, G, S, kk, gain="exponential")
        for f in (fr.reciprocal_rank, fr.r_precision):
            o.rec(f.__name__, tag, f, Y, S)
            o.rec(f.__name__, tag + " avg=None", f, Y, S, average=None)
        o.rec("top_k_metrics", tag, fr.top_k_metrics, G, S, [1, 3, 5])
        # sparse top-k scores and propensities (extreme classification)
        p = fr.propensity(Y.sum(axis=0), n)
        o.rec("propensity", tag, fr.propensity, Y.sum(axis=0), n)
        top = np.where(S >= np.quantile(S, 0.7, axis=1, keepdims=True), S, 0.0)
        Ssp = sp.csr_matrix(top)
        Ysp = sp.csr_matrix(Y)
        o.rec("top_k_metrics", tag + " sparse", fr.top_k_metrics, Ysp, Ssp, [1, 3, 5],
              propensity=p)
        o.rec("psprecision_at_k", tag + " sparse", fr.psprecision_at_k, Ysp, Ssp, 3, propensity=p)
        o.rec("psndcg_at_k", tag + " sparse", fr.psndcg_at_k, Ysp, Ssp, 3, propensity=p)
        o.rec("psprecision_at_k", tag + " dense", fr.psprecision_at_k, Y, S, [1, 5], propensity=p,
              average=None)
        o.rec("precision_at_k", tag + " sparse", fr.precision_at_k, Ysp, Ssp, 3)
        o.rec("ndcg_at_k", tag + " sparse", fr.ndcg_at_k, Ysp, Ssp, 5)
    # a TREC run against its judgments
    nq, nd = 40, 60
    qid = np.repeat([f"q{i}" for i in range(nq)], nd)
    doc = np.tile([f"d{j}" for j in range(nd)], nq)
    keep = rng.random(nq * nd) < 0.7
    score = np.round(rng.random(nq * nd) * 10) / 10
    jkeep = rng.random(nq * nd) < 0.3
    rel = rng.integers(0, 3, nq * nd)
    measures = ["map", "ndcg@10", "P@5", "recip_rank", "recall@20", "Rprec", "ndcg", "success@3"]
    for ties_rule in ("expected", "optimistic", "trec_eval"):
        o.rec("evaluate_run", ties_rule, fr.evaluate_run, (qid[jkeep], doc[jkeep], rel[jkeep]),
              (qid[keep], doc[keep], score[keep]), measures, ties=ties_rule)


def streams(o: Out) -> None:
    rng = np.random.default_rng(8)
    fr = fastrank
    # Accumulator: batches of one task, of 2-D tasks, and with groups
    for variant in ("1d", "1d-w", "2d", "groups"):
        acc = fr.Accumulator()
        for b in range(4):
            n = 200 + 37 * b
            s = make_scores(rng, n, "float32", "some", (n, 3) if variant == "2d" else None)
            y = make_labels(rng, s.shape, 0.3)
            w = rng.random(n) if variant == "1d-w" else None
            g = rng.integers(0, 5, n) if variant == "groups" else None
            acc.update(y, s, sample_weight=w, groups=g)
        other = fr.Accumulator()
        other.update(make_labels(rng, (50, *s.shape[1:]), 0.5),
                     make_scores(rng, 50, "float32", "some", (50, *s.shape[1:])),
                     sample_weight=rng.random(50) if variant == "1d-w" else None,
                     groups=rng.integers(0, 5, 50) if variant == "groups" else None)
        acc.merge(other)
        names = ["all_metrics", "average_precision", "roc_auc", "pr_auc", "d_prime", "prbe"]
        if variant.startswith("1d"):
            names += ["roc_curve", "precision_recall_curve", "det_curve",
                      "interpolated_precision_recall_curve", "confusion_matrix_at_thresholds",
                      "roc_auc_ci"]
        for name in names:
            o.rec("Accumulator.compute", f"[{variant}] {name}", acc.compute, name)
        if variant in ("2d", "groups"):
            o.rec("Accumulator.compute", f"[{variant}] roc_auc avg=None", acc.compute, "roc_auc",
                  average=None)
        o.rec("Accumulator.nbytes", f"[{variant}]", lambda a=acc: a.nbytes)

    # BinnedSummary: every binning, every metric and readout, merged
    readout_opts = {
        "sensitivity_at_specificity": {"min_specificity": 0.9},
        "specificity_at_sensitivity": {"min_sensitivity": 0.8},
        "recall_at_precision": {"min_precision": 0.6},
        "precision_at_recall": {"min_recall": 0.7, "interpolate": True},
        "best_cutoff": {"criterion": "f1"},
        "partial_roc_auc": {"fpr": (0.0, 0.3)},
        "partial_pr_auc": {"recall": (0.1, 0.9)},
    }
    for k, maker in enumerate(("uniform", "uniform-clip", "edges", "edges-2d", "fit", "uint8",
                               "values", "bool", "float16")):
        tasks = 3 if maker in ("edges-2d", "fit") else None
        shape = (600, 3) if tasks else (600,)
        y = make_labels(rng, shape, 0.3)
        if maker == "uint8":
            s: Any = rng.integers(0, 256, shape).astype(np.uint8)
        elif maker == "values":
            s = rng.choice(np.array([0.1, 0.25, 0.5, 0.75]), shape)
        elif maker == "bool":
            s = rng.random(shape) < 0.5
        elif maker == "float16":
            s = (np.round(rng.random(shape) * 64) / 64).astype(np.float16)
        else:
            s = np.round(rng.random(shape) * 40) / 40
            if maker == "uniform-clip":
                s = s * 1.4 - 0.2
        w = rng.random(shape[0]) + 0.1 if k % 2 else None
        if maker == "fit":
            summ = summaries.BinnedSummary.fit(y, s, bins=20, sample_weight=w)
        elif maker == "edges":
            summ = fr.BinnedSummary(edges=np.linspace(-0.1, 1.1, 31))
        elif maker == "edges-2d":
            summ = fr.BinnedSummary(edges=np.sort(rng.random((3, 12)), axis=1) * 1.2 - 0.1,
                                    clip=True)
        elif maker == "uint8":
            summ = fr.BinnedSummary(quantized="uint8")
        elif maker == "values":
            summ = fr.BinnedSummary(values=[0.1, 0.25, 0.5, 0.75])
        elif maker in ("bool", "float16"):
            summ = fr.BinnedSummary(quantized=maker)
        else:
            summ = fr.BinnedSummary(bins=25, clip=maker == "uniform-clip")
        other = summ.empty_like()
        half = shape[0] // 2
        summ.update(y[:half], s[:half], sample_weight=None if w is None else w[:half])
        other.update(y[half:], s[half:], sample_weight=None if w is None else w[half:])
        both = summ + other
        tag = f"[binned {maker} w={w is not None}]"
        o.rec("BinnedSummary", tag + " repr", repr, both)
        o.rec("BinnedSummary.positives", tag, lambda b=both: b.positives)
        o.rec("BinnedSummary.negatives", tag, lambda b=both: b.negatives)
        o.rec("BinnedSummary.edges", tag, lambda b=both: b.edges)
        for metric in summaries.METRICS:
            o.rec("BinnedSummary.compute", f"{tag} {metric}", both.compute, metric)
            if tasks:
                for avg in ("macro", "weighted", "size", "pairs"):
                    o.rec("BinnedSummary.compute", f"{tag} {metric} avg={avg}", both.compute,
                          metric, average=avg)
        for name, opts in readout_opts.items():
            o.rec("BinnedSummary.compute", f"{tag} {name} {opts}", both.compute, name, **opts)
    o.rec("BinnedSummary.update", "[out of range]", fr.BinnedSummary(bins=4).update, [1, 0],
          [0.5, 1.5])


def uncertainty(o: Out) -> None:
    rng = np.random.default_rng(9)
    fr = fastrank
    for n in (40, 700, 5000):
        y = make_labels(rng, (n,), 0.35)
        a = make_scores(rng, n, "float64", "some")
        b = a + make_scores(rng, n, "float64", "heavy") * 0.3
        w = rng.random(n) + 0.1
        tag = f"[ci n={n}]"
        o.rec("roc_auc_ci", tag + " delong", fr.roc_auc_ci, y, a)
        o.rec("roc_auc_ci", tag + " bootstrap", fr.roc_auc_ci, y, a, method="bootstrap",
              n_resamples=200, seed=11)
        o.rec("roc_auc_ci", tag + " bootstrap w", fr.roc_auc_ci, y, a, method="bootstrap",
              n_resamples=100, seed=12, sample_weight=w)
        o.rec("partial_roc_auc_ci", tag + " delong", fr.partial_roc_auc_ci, y, a, fpr=(0, 0.3))
        o.rec("partial_roc_auc_ci", tag + " bootstrap", fr.partial_roc_auc_ci, y, a,
              tpr=(0.5, 1.0), method="bootstrap", n_resamples=100, seed=13)
        o.rec("delong_covariance", tag, fr.delong_covariance, y, np.stack([a, b], axis=1))
        o.rec("delong_test", tag, fr.delong_test, y, a, b)
        yb = make_labels(rng, (n + 3,), 0.5)
        o.rec("delong_test_unpaired", tag, fr.delong_test_unpaired, y, a, yb,
              make_scores(rng, n + 3, "float32", "some"))
        for metric, opts in (("average_precision", None), ("pr_auc", None), ("prbe", None),
                             ("roc_auc", None), ("d_prime", None),
                             ("roc_auc", {"max_fpr": 0.2}),
                             ("sensitivity_at_specificity", {"min_specificity": 0.9}),
                             ("best_cutoff", {"criterion": "youden"}),
                             ("partial_pr_auc", {"recall": (0.2, 0.8)})):
            o.rec("bootstrap_ci", f"{tag} {metric} {opts}", fr.bootstrap_ci, metric, y, a,
                  n_resamples=100, seed=17, metric_options=opts)
        o.rec("bootstrap_ci", f"{tag} average_precision unstratified w", fr.bootstrap_ci,
              "average_precision", y, a, n_resamples=100, seed=18, stratified=False,
              sample_weight=w)


def evaluation(o: Out) -> None:
    rng = np.random.default_rng(10)
    fr = fastrank
    folds = {}
    labels = {}
    for d in range(3):
        n = (60, 400, 3000)[d]
        labels[d] = make_labels(rng, (n,), 0.3)
        for m in ("a", "b"):
            folds.setdefault(m, {})[d] = make_scores(rng, n, "float64", ("some", "heavy")[d % 2])
    weights = {d: rng.random(labels[d].shape[0]) + 0.2 for d in labels}
    for w in (None, weights):
        ev = fr.evaluate(folds, labels, sample_weight=w)
        tag = f"[evaluate w={w is not None}]"
        o.rec("Evaluation.summary", tag, ev.summary, as_frame=False)
        o.rec("Evaluation.auc", tag, ev.auc, as_frame=False)
        o.rec("Evaluation.average_precision", tag, ev.average_precision, as_frame=False)
        o.rec("Evaluation.prbe", tag, ev.prbe, as_frame=False)
        o.rec("Evaluation.cutoffs", tag, ev.cutoffs, "a", 1, as_frame=False)
        o.rec("Evaluation.best_cutoffs", tag, ev.best_cutoffs, beta=2.0, as_frame=False)
        o.rec("Evaluation.operating_points", tag, ev.operating_points, min_precision=(0.5, 0.8),
              min_specificity=0.9, min_recall=0.3, min_sensitivity=0.7, as_frame=False)
        o.rec("Evaluation.partial_areas", tag, ev.partial_areas, fpr=(0, 0.4), recall=(0, 0.5),
              as_frame=False)
        o.rec("Evaluation.gains", tag, ev.gains, as_frame=False)
        o.rec("Evaluation.auc_ci", tag, ev.auc_ci, as_frame=False)
        for curve in ("roc", "pr"):
            o.rec("Evaluation.mean_curve", f"{tag} {curve}", ev.mean_curve, "b", curve, points=21)
        o.rec("Evaluation.mean_auc", tag, ev.mean_auc, as_frame=False)


SECTIONS = (single_tasks, batched, grouped, multiclass, rankings, streams, uncertainty,
            evaluation)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1], "w", encoding="utf-8") as f:
        out = Out(f)
        for section in SECTIONS:
            section(out)
    print(f"{out.lines} lines written to {argv[1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
