"""Many tasks in one call: multilabel matrices, multiclass scores and ragged groups.

The public metric functions (:mod:`fastrank.metrics`) hand every batched
call to :func:`evaluate_tasks`, which

1. validates the whole input once (:func:`prepare_batch`) and describes
   where each task's samples live, without copying the score matrix;
2. runs every task through the single-task engine on all of Numba's threads
   (:func:`._kernels.batch.batch_parallel`), or pools all cells into one task
   for ``average="micro"``;
3. returns the raw per-task results, which :func:`reduce_tasks` turns into
   per-task arrays, a :class:`GroupResult`, or one averaged number.

Three ways to describe tasks:

* **multilabel**: ``y_true`` and ``y_score`` of shape ``(n_samples,
  n_tasks)``, one task per column (``y_true`` may be a ``scipy.sparse``
  matrix);
* **multiclass**: 1-D class labels and ``(n_samples, n_classes)`` scores,
  one class-against-the-rest task per column;
* **grouped**: 1-D labels and scores plus ``groups``, one task per group id.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np

from ._kernels.batch import (
    BLOCK,
    LAB_CODES,
    LAB_CSC,
    LAB_SAME,
    SAMPLE_MAJOR,
    SEGMENTS,
    batch_parallel,
    batch_serial,
    runs_of_ids,
    scan_ids,
    scatter_by_id,
    sort_ids,
    worker_bytes,
)
from ._kernels.keys import first_nonfinite
from ._kernels.special import ndtri_array
from ._kernels.sweep import OUT_AUC, OUT_NEG, OUT_POS, OUT_SIZE
from ._kernels.task import task_metrics, work_bytes
from ._validation import (
    KEYS,
    WIDEN,
    Task,
    as_array,
    check_labels,
    check_scores,
    check_weights,
    native,
    prepare,
)
from ._workspace import scratch
from .exceptions import warn_undefined_tasks

AVERAGES = (None, "macro", "weighted", "size", "pairs", "micro")

# Batches with fewer samples in all run on the calling thread: waking the
# thread pool costs more than it saves.
PARALLEL_MIN_SAMPLES = 1 << 16
# The parallel scratch kept between calls (larger requests are freed after use).
_RETAIN_BYTES = 256 << 20

_launch = threading.Lock()  # held while a parallel batch runs (see run_batch)
_kept: list[np.ndarray] = []
_pool_pid: list[int] = []  # the process that first started Numba's thread pool from here

_NO_INT = np.empty(0, np.int64)
_NO_U8 = np.empty(0, np.uint8)


class Batch(NamedTuple):
    """A validated batch: where each task's scores, labels and weights live."""

    bits: np.ndarray  # flat read-only bits of every score, in memory order
    layout: int  # SAMPLE_MAJOR or SEGMENTS
    n: int  # samples per task (multilabel/multiclass) or in all (grouped)
    t: int  # number of tasks
    offsets: np.ndarray  # SEGMENTS: task j is bits[offsets[j]:offsets[j + 1]]
    rows: np.ndarray  # SEGMENTS: if not empty, task j is bits[rows[offsets[j]:...]]
    labels: np.ndarray  # LAB_SAME: uint8 0/1 indexed like bits
    lab_mode: int
    lab_ptr: np.ndarray  # LAB_CSC: column pointers
    lab_idx: np.ndarray  # LAB_CSC: row indices of positives; LAB_CODES: class codes
    weights: np.ndarray | None
    wshared: bool  # one weight per sample shared by all tasks
    weight_unit: float
    kind: int
    sign: np.uint64
    ones: np.uint64
    score_dtype: np.dtype[Any]
    canon_dtype: np.dtype[Any]
    sizes: np.ndarray  # samples per task
    units: np.ndarray  # processing order of the units (blocks or tasks)
    ids: np.ndarray | None  # group ids (grouped) or class labels (multiclass)
    mode: str  # "tasks", "classes" or "groups"
    pooled: Task | None = None  # grouped: the input as one task (average="micro")


class TaskResults(NamedTuple):
    """Raw per-task results; positive and negative totals in the caller's units."""

    out: np.ndarray  # (n_tasks, OUT_SIZE), as the kernels write it
    thresholds: np.ndarray  # float64 break-even score per task (NaN without positives)
    sizes: np.ndarray  # samples per task
    ids: np.ndarray | None
    mode: str  # "tasks", "classes", "groups" or "micro"

    @property
    def positives(self) -> np.ndarray:
        return self.out[:, OUT_POS]

    @property
    def negatives(self) -> np.ndarray:
        return self.out[:, OUT_NEG]


def is_batched(y_score: np.ndarray, groups: Any) -> bool:
    """Whether a call is batched: 2-D scores, or ``groups`` given."""
    return groups is not None or y_score.ndim == 2


def check_average(average: Any) -> None:
    if average not in AVERAGES:
        raise ValueError(
            f"average must be one of {', '.join(map(repr, AVERAGES))}; got {average!r}"
        )


# --------------------------------------------------------------------------- validation


def _score_matrix(s: np.ndarray) -> tuple[np.ndarray, int, np.dtype[Any], np.dtype[Any]]:
    """Flat read-only bits of a 2-D score matrix in its memory order, and its layout."""
    if s.ndim != 2:
        raise ValueError(
            f"y_score must be 1-D (one task) or 2-D (n_samples, n_tasks); got {s.ndim}-D "
            f"input with shape {s.shape}"
        )
    n, t = s.shape
    if n == 0:
        raise ValueError(f"y_score has no samples (shape {s.shape}); at least one is needed")
    dtype = s.dtype
    if dtype.kind not in "biuf":
        raise TypeError(
            f"y_score must hold real numbers (float, int or bool); got dtype {dtype}"
        )
    if not s.dtype.isnative or not s.flags.aligned:
        s = s.astype(s.dtype.newbyteorder("="))
    if s.dtype not in KEYS:  # narrow dtypes are widened exactly (a copy)
        s = s.astype(WIDEN.get(s.dtype.char, np.dtype(np.float64)))
        if dtype.kind == "f" and dtype.itemsize > 8 and not np.array_equal(s, s.astype(dtype)):
            raise TypeError(
                f"y_score has dtype {dtype}, whose values do not all fit float64 exactly; "
                "convert them to float64 yourself"
            )
    if not (s.flags.c_contiguous or s.flags.f_contiguous):
        s = np.ascontiguousarray(s)  # strided views: one copy, C order
    if t == 1 or not s.flags.c_contiguous:
        layout, flat = SEGMENTS, s.T.reshape(-1)  # task-major: each task contiguous
    else:
        layout, flat = SAMPLE_MAJOR, s.reshape(-1)
    spec = KEYS[s.dtype]
    bits = flat.view(spec[0])
    bits.flags.writeable = False
    if spec[4]:
        bad = first_nonfinite(bits, spec[4])
        if bad >= 0:
            row, task = divmod(bad, t) if layout == SAMPLE_MAJOR else divmod(bad, n)[::-1]
            raise ValueError(
                f"y_score contains a non-finite value ({flat[bad]!r} at row {row}, "
                f"task {task}); scores must be finite"
            )
    return bits, layout, s.dtype, dtype


def _is_sparse(y: Any) -> bool:
    return hasattr(y, "tocsc") and hasattr(y, "nnz") and hasattr(y, "shape")


def _dense_labels(
    y_true: Any, n: int, t: int, pos_label: Any, layout: int
) -> np.ndarray:
    """A 0/1 uint8 label matrix, flat in the scores' memory order."""
    y = as_array(y_true, "y_true")
    if y.shape != (n, t):
        raise ValueError(
            f"y_true and y_score have different shapes: {y.shape} and {(n, t)}"
        )
    if y.flags.c_contiguous:
        y_task_major, flat = False, y.reshape(-1)
    elif y.flags.f_contiguous:
        y_task_major, flat = True, y.T.reshape(-1)
    else:
        y_task_major, flat = False, np.ascontiguousarray(y).reshape(-1)
    labels, _ = check_labels(flat, n * t, pos_label)
    if t > 1 and n > 1 and y_task_major != (layout == SEGMENTS):
        shape = (t, n) if y_task_major else (n, t)
        labels = np.ascontiguousarray(labels.reshape(shape).T).reshape(-1)
    return labels


def _sparse_labels(y: Any, n: int, t: int, pos_label: Any) -> tuple[np.ndarray, np.ndarray]:
    """Column pointers and positive row indices of a sparse 0/1 label matrix."""
    if tuple(y.shape) != (n, t):
        raise ValueError(
            f"y_true and y_score have different shapes: {tuple(y.shape)} and {(n, t)}"
        )
    if pos_label is not None and pos_label != 1:
        raise ValueError("a sparse y_true holds 0/1 labels; pos_label must be None or 1")
    csc = y.tocsc(copy=True)
    csc.sum_duplicates()
    data = np.asarray(csc.data)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"a sparse y_true must hold numbers; got dtype {data.dtype}")
    bad = ~((data == 0) | (data == 1))
    if bad.any():
        raise ValueError(
            "a sparse y_true must hold 0/1 labels; found "
            f"{data[np.flatnonzero(bad)[0]]!r}"
        )
    csc.eliminate_zeros()
    return (
        np.asarray(csc.indptr, dtype=np.int64).copy(),
        np.asarray(csc.indices, dtype=np.int64).copy(),
    )


def _class_codes(y_true: Any, n: int, t: int, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """Class code (column index) of every sample, and the classes in column order."""
    y = as_array(y_true, "y_true")
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D or 2-D; got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"y_true has {y.shape[0]} samples but y_score has {n}")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError("y_true contains a missing value (NaN)")
    try:
        found = np.unique(y)
    except TypeError as exc:
        raise ValueError(f"y_true holds labels that cannot be ordered: {exc}") from exc
    if labels is None:
        if found.shape[0] != t:
            raise ValueError(
                f"y_true holds {found.shape[0]} classes but y_score has {t} columns; "
                "pass labels= to name the class of each column"
            )
        classes = found
    else:
        classes = np.asarray(labels)
        if classes.ndim != 1 or classes.shape[0] != t:
            raise ValueError(
                f"labels must list one class per score column ({t}); got {classes.shape}"
            )
        if np.unique(classes).shape[0] != t:
            raise ValueError("labels must not repeat a class")
    order = np.argsort(classes, kind="stable")
    ranked = classes[order]
    at = np.clip(np.searchsorted(ranked, y), 0, t - 1)
    missing = ranked[at] != y
    if missing.any():
        value = y[np.flatnonzero(missing)[0]]
        raise ValueError(f"y_true holds {value!r}, which is not one of labels {list(classes)}")
    return order[at].astype(np.int64), classes


class _Groups(NamedTuple):
    bits: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None
    rows: np.ndarray
    offsets: np.ndarray
    ids: np.ndarray


def _group_tasks(
    groups: Any, bits: np.ndarray, labels: np.ndarray, weights: np.ndarray | None
) -> _Groups:
    """Where each group's samples are, ids in increasing order.

    Ids already in order make each group a run of the input. Ids spanning at
    most as many values as there are samples are counted into place: the
    samples themselves are moved group by group (a copy of the scores,
    labels and weights). Other ids are sorted with their row numbers.
    """
    n = bits.shape[0]
    g = as_array(groups, "groups")
    if g.ndim != 1:
        raise ValueError(f"groups must be 1-D (one id per sample); got shape {g.shape}")
    if g.shape[0] != n:
        raise ValueError(f"groups has length {g.shape[0]} but y_score has length {n}")
    names = None
    if g.dtype.kind in "biuf":
        if g.dtype.kind == "f":
            key = native(g.astype(np.float64, copy=False))
            if not np.isfinite(key).all():
                i = int(np.flatnonzero(~np.isfinite(key))[0])
                raise ValueError(f"groups contains a non-finite id ({g[i]!r} at index {i})")
        elif g.dtype == np.uint64:
            key = native(g)
        else:
            key = native(g.astype(np.int64, copy=False))
    else:
        try:
            names, codes = np.unique(g, return_inverse=True)
        except TypeError as exc:
            raise ValueError(f"groups holds ids that cannot be ordered: {exc}") from exc
        key = codes.reshape(-1).astype(np.int64)
    _, kind, sign, ones, _ = KEYS[key.dtype]
    kbits = key.view(np.uint64)
    in_order, lo, hi = scan_ids(kbits, kind, sign, ones)
    # Numba returns them as Python ints: make them uint64 again, or a key below
    # 2**63 would be typed int64 in the next kernel and mix signed with unsigned.
    lo, hi = np.uint64(lo), np.uint64(hi)
    rows = _NO_INT
    if in_order:
        offsets, first = runs_of_ids(kbits, kind, sign, ones)
    elif int(hi) - int(lo) < n:
        offsets, first, bits, labels, weights = scatter_by_id(
            kbits, kind, sign, ones, lo, int(hi) - int(lo) + 1, bits, labels, weights
        )
        bits.flags.writeable = False
        if weights is not None:
            weights.flags.writeable = False
    else:
        rows, offsets, first = sort_ids(kbits, kind, sign, ones, lo, hi)
    return _Groups(bits, labels, weights, rows, offsets, g[first] if names is None else names)


def prepare_batch(
    y_true: Any,
    y_score: np.ndarray,
    sample_weight: Any,
    pos_label: Any,
    groups: Any,
    labels: Any,
) -> Batch:
    """Validate a batched call; raises before any kernel runs."""
    if groups is not None:
        if y_score.ndim != 1:
            raise ValueError(
                f"groups= splits one 1-D score vector into tasks; y_score has shape "
                f"{y_score.shape}"
            )
        bits, canon, score_dtype = check_scores(y_score)
        n = bits.shape[0]
        lab, _ = check_labels(y_true, n, pos_label)
        weights, unit = check_weights(sample_weight, n)
        spec = KEYS[canon]
        pooled = Task(bits, spec[1], spec[2], spec[3], score_dtype, canon, lab,
                      int(np.count_nonzero(lab)), weights, unit)
        gt = _group_tasks(groups, bits, lab, weights)
        sizes = np.diff(gt.offsets)
        return Batch(
            gt.bits, SEGMENTS, n, sizes.shape[0], gt.offsets, gt.rows, gt.labels, LAB_SAME,
            _NO_INT, _NO_INT, gt.weights, False, unit, spec[1], spec[2], spec[3], score_dtype,
            canon, sizes, np.argsort(-sizes, kind="stable"), gt.ids, "groups", pooled,
        )
    bits, layout, canon, score_dtype = _score_matrix(y_score)
    n, t = y_score.shape
    weights, unit = check_weights(sample_weight, n)
    lab, lab_ptr, lab_idx = _NO_U8, _NO_INT, _NO_INT
    classes: np.ndarray | None = None
    if _is_sparse(y_true):
        lab_mode, mode = LAB_CSC, "tasks"
        lab_ptr, lab_idx = _sparse_labels(y_true, n, t, pos_label)
    else:
        y = as_array(y_true, "y_true")
        if y.ndim == 1:
            lab_mode, mode = LAB_CODES, "classes"
            lab_idx, classes = _class_codes(y, n, t, labels)
        else:
            if y.ndim != 2:
                raise ValueError(
                    f"y_true must be 1-D or 2-D; got {y.ndim}-D input with shape {y.shape}"
                )
            lab_mode, mode = LAB_SAME, "tasks"
            lab = _dense_labels(y, n, t, pos_label, layout)
    spec = KEYS[canon]
    nunits = -(-t // BLOCK) if layout == SAMPLE_MAJOR else t
    offsets = np.arange(t + 1, dtype=np.int64) * n if layout == SEGMENTS else _NO_INT
    return Batch(
        bits, layout, n, t, offsets, _NO_INT, lab, lab_mode, lab_ptr, lab_idx, weights, True,
        unit, spec[1], spec[2], spec[3], score_dtype, canon, np.full(t, n, np.int64),
        np.arange(nunits, dtype=np.int64), classes, mode,
    )


# ------------------------------------------------------------------------------- running


def _workers_scratch(nworkers: int, nbytes: int) -> np.ndarray:
    """``nworkers`` rows of scratch; the buffer is kept between calls up to a size."""
    total = nworkers * nbytes
    buf = _kept[0] if _kept and _kept[0].shape[0] >= total else np.empty(total, np.uint8)
    if buf.shape[0] <= _RETAIN_BYTES:
        _kept[:] = [buf]
    return buf[:total].reshape(nworkers, nbytes)


def _pool_usable() -> bool:
    """False in a process forked after this one started the pool.

    A forked child inherits a thread pool whose threads did not survive the
    fork; the GNU OpenMP layer then aborts the process. Such a child (a data
    loader worker, say) runs its batches on its own thread instead.
    """
    return not _pool_pid or _pool_pid[0] == os.getpid()


def run_batch(b: Batch, max_fpr: float, what: int) -> tuple[np.ndarray, np.ndarray]:
    """Every task's ``OUT_*`` row and break-even score bits.

    A large batch runs on all of Numba's threads (``numba.get_num_threads()``
    of the calling thread, never changed). Numba's ``workqueue`` threading
    layer cannot run two parallel regions at once, so while one batch holds
    the pool, a batch from another Python thread runs on its own thread
    instead (without the GIL): concurrent callers neither wait nor crash.
    So does a batch in a process forked after the pool started.
    The results are the same either way, bit for bit.
    """
    out = np.empty((b.t, OUT_SIZE), np.float64)
    prbe = np.empty(b.t, np.uint64)
    if b.t == 0:
        return out, prbe
    block = BLOCK if b.layout == SAMPLE_MAJOR else 1
    nmax = int(b.sizes.max())
    kw = b.bits.itemsize
    weighted = b.weights is not None
    per_worker = worker_bytes(nmax, kw, block, weighted, work_bytes(nmax, kw, weighted))
    args = (
        b.bits, b.layout, b.n, b.t, b.offsets, b.rows, b.labels, b.lab_mode, b.lab_ptr,
        b.lab_idx, b.weights, b.wshared, b.kind, b.sign, b.ones, max_fpr, what, b.units,
        block, nmax,
    )
    nworkers = min(numba.get_num_threads(), b.units.shape[0])
    with pool_slot(nworkers, int(b.sizes.sum())) as parallel:
        if parallel:
            batch_parallel(*args, _workers_scratch(nworkers, per_worker), out, prbe)
        else:
            batch_serial(*args, scratch(per_worker)[:per_worker].reshape(1, per_worker), out,
                         prbe)
    return out, prbe


@contextmanager
def pool_slot(nworkers: int, samples: int) -> Iterator[bool]:
    """Whether a parallel kernel may run now; holds the pool while it does.

    True when there is work for several workers (``nworkers > 1`` and at least
    :data:`PARALLEL_MIN_SAMPLES` samples), the pool is usable in this process
    and no other Python thread holds it. Otherwise the caller runs the serial
    twin of its kernel, with the same results.
    """
    if (nworkers > 1 and samples >= PARALLEL_MIN_SAMPLES and _pool_usable()
            and _launch.acquire(blocking=False)):
        try:
            _pool_pid[:] = _pool_pid or [os.getpid()]
            yield True
        finally:
            _launch.release()
    else:
        yield False


def sweep_task(task: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """One task through the single-task engine: its ``OUT_*`` row and PRBE bits."""
    work = scratch(work_bytes(task.bits.shape[0], task.bits.itemsize, task.weights is not None))
    out = np.empty(OUT_SIZE, np.float64)
    prbe_bits = task_metrics(
        task.bits, task.kind, task.sign, task.ones, task.labels, task.npos, task.weights,
        max_fpr, what, work, out,
    )
    return out, prbe_bits


def dense_labels(b: Batch) -> np.ndarray:
    """The 0/1 labels of a sparse or multiclass batch as a ``(t, n)`` uint8 matrix."""
    dense = np.zeros((b.t, b.n), np.uint8)
    if b.lab_mode == LAB_CSC:
        cols = np.repeat(np.arange(b.t), np.diff(b.lab_ptr))
        dense[cols, b.lab_idx] = 1
    else:  # class codes: one-vs-rest
        dense[b.lab_idx, np.arange(b.n)] = 1
    return dense


def pooled_task(b: Batch) -> Task:
    """Every cell of a batch as one task (``average="micro"``)."""
    if b.pooled is not None:
        return b.pooled
    if b.lab_mode == LAB_SAME:
        labels = b.labels
    else:
        dense = dense_labels(b)
        labels = (dense if b.layout == SEGMENTS else dense.T.copy()).reshape(-1)
    weights = None
    if b.weights is not None:
        # SEGMENTS cells run task by task, SAMPLE_MAJOR cells sample by sample
        if b.layout == SEGMENTS:
            weights = np.tile(b.weights, b.t)
        else:
            weights = np.repeat(b.weights, b.t)
        weights.flags.writeable = False
    npos = int(np.count_nonzero(labels))
    return Task(
        b.bits, b.kind, b.sign, b.ones, b.score_dtype, b.canon_dtype, labels, npos, weights,
        b.weight_unit,
    )


def thresholds_of(prbe_bits: np.ndarray, pos: np.ndarray, canon: np.dtype[Any]) -> np.ndarray:
    """Break-even scores as float64 (NaN for tasks without positives)."""
    bits = prbe_bits.astype(np.uint32) if canon.itemsize == 4 else prbe_bits
    values = bits.view(canon).astype(np.float64)
    values[pos == 0] = np.nan
    return values


def evaluate_tasks(
    y_true: Any,
    y_score: np.ndarray,
    *,
    sample_weight: Any,
    pos_label: Any,
    groups: Any,
    labels: Any,
    average: Any,
    max_fpr: float,
    what: int,
) -> TaskResults:
    """Validate and run a batched call; one row per task, or one pooled row for micro."""
    check_average(average)
    b = prepare_batch(y_true, y_score, sample_weight, pos_label, groups, labels)
    if average == "micro":
        task = pooled_task(b)
        row, bits = sweep_task(task, max_fpr, what)
        out = row.reshape(1, OUT_SIZE)
        prbe = np.array([bits], np.uint64)
        sizes = np.array([b.bits.shape[0]], np.int64)
        mode = "micro"
    else:
        out, prbe = run_batch(b, max_fpr, what)
        sizes = b.sizes
        mode = b.mode
    out[:, OUT_POS] *= b.weight_unit
    out[:, OUT_NEG] *= b.weight_unit
    return TaskResults(
        out, thresholds_of(prbe, out[:, OUT_POS], b.canon_dtype), sizes, b.ids, mode
    )


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True, slots=True, eq=False)
class GroupResult:
    """Per-group values of a grouped call (``groups=...``, ``average=None``).

    Attributes
    ----------
    groups : ndarray
        The distinct group ids, in increasing order (as ``np.unique`` gives).
    values : ndarray of float64
        The metric of each group; NaN where it is undefined.
    positives, negatives : ndarray of float64
        Positive and negative totals of each group (counts, or weight sums).
    sizes : ndarray of int64
        Number of samples in each group.
    """

    groups: np.ndarray
    values: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    sizes: np.ndarray

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def mean(self, average: str = "macro") -> float:
        """The average of the defined groups' values: ``"macro"``, ``"weighted"``,
        ``"size"`` or ``"pairs"`` (see :func:`fastrank.roc_auc`)."""
        return average_values(self.values, self.positives, self.negatives, average)

    def to_pandas(self) -> Any:
        """The groups as a pandas DataFrame indexed by group id (needs pandas)."""
        try:
            import pandas as pd  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "GroupResult.to_pandas needs pandas: pip install pandas"
            ) from exc
        return pd.DataFrame(
            {
                "value": self.values,
                "positives": self.positives,
                "negatives": self.negatives,
                "size": self.sizes,
            },
            index=pd.Index(self.groups, name="group"),
        )


def average_values(
    values: np.ndarray, pos: np.ndarray, neg: np.ndarray, average: Any
) -> float:
    """The average of the defined (non-NaN) values; NaN when none is defined."""
    if average in (None, "micro"):
        raise ValueError(f"average={average!r} is not a mean of per-task values")
    check_average(average)
    ok = ~np.isnan(values)
    if not ok.any():
        return float("nan")
    v = values[ok]
    if average == "macro":
        return float(np.mean(v))
    if average == "weighted":
        w = pos[ok]
    elif average == "size":
        w = pos[ok] + neg[ok]
    else:
        w = pos[ok] * neg[ok]
    total = w.sum()
    if total == 0:
        return float("nan")
    return float(np.dot(w, v) / total)


def d_prime_of(auc: np.ndarray) -> np.ndarray:
    """sqrt(2) * Phi^-1(AUC) per task (NaN stays NaN)."""
    quantiles = np.asarray(ndtri_array(np.ascontiguousarray(auc, dtype=np.float64)))
    scaled: np.ndarray = np.sqrt(2.0) * quantiles
    return scaled


def ovo_roc_auc(
    y_true: Any, y_score: np.ndarray, sample_weight: Any, labels: Any, average: Any,
    max_fpr: Any,
) -> float:
    """Hand & Till's one-vs-one multiclass AUC, as scikit-learn's ``multi_class="ovo"``.

    For each pair of classes ``(a, b)``, on the samples of either class: the
    mean of the AUC of column ``a`` for ``a`` against ``b`` and of column ``b``
    for ``b`` against ``a``; then the mean over pairs (``"macro"``) or the
    mean weighted by the pair's share of samples (``"weighted"``).
    """
    if sample_weight is not None:
        raise ValueError("multi_class='ovo' does not take sample_weight (nor does scikit-learn)")
    if max_fpr is not None:
        raise ValueError("multi_class='ovo' computes full AUCs; max_fpr is not supported")
    if average not in ("macro", "weighted"):
        raise ValueError(f"multi_class='ovo' averages 'macro' or 'weighted'; got {average!r}")
    if y_score.ndim != 2:
        raise ValueError(
            f"multi_class='ovo' needs scores of shape (n_samples, n_classes); got {y_score.shape}"
        )
    _score_matrix(y_score)  # every check of a score matrix, before any pair
    n, k = y_score.shape
    shape = tuple(y_true.shape) if _is_sparse(y_true) else as_array(y_true, "y_true").shape
    if len(shape) != 1:
        raise ValueError(
            "multi_class='ovo' compares classes: y_true must be 1-D class labels, "
            f"got shape {shape}"
        )
    codes, _ = _class_codes(y_true, n, k, labels)
    pairs = []
    shares = []
    pos = []
    neg = []
    for a in range(k):
        for b in range(a + 1, k):
            rows = np.flatnonzero((codes == a) | (codes == b))
            is_a = codes[rows] == a
            both = []
            for col, positive in ((a, is_a), (b, ~is_a)):
                if rows.shape[0] == 0:
                    both.append(np.nan)
                    continue
                out, _ = sweep_task(prepare(positive, y_score[rows, col]), 1.0, 0)
                both.append(out[OUT_AUC] if out[OUT_POS] > 0 and out[OUT_NEG] > 0 else np.nan)
            pairs.append((both[0] + both[1]) / 2)
            shares.append(rows.shape[0] / n)
            pos.append(float(np.count_nonzero(is_a)))
            neg.append(float(rows.shape[0] - pos[-1]))
    values = np.array(pairs, dtype=np.float64)
    undefined = np.isnan(values)
    warn_undefined_tasks(
        "roc_auc is", "class pairs", np.array(pos), np.array(neg), undefined, average,
        stacklevel=3,
    )
    if undefined.all():
        return float("nan")
    weights = np.array(shares)[~undefined] if average == "weighted" else None
    return float(np.average(values[~undefined], weights=weights))
