"""Exact metrics over batches: keep every row compactly, score them once.

An :class:`Accumulator` is what a training or evaluation loop updates batch by
batch (and data-parallel workers merge): it copies each batch into storage it
owns (scores in their canonical dtype, labels as one byte, weights and group
ids only when given), grows it geometrically (each row is copied O(1) times on
average), and hands the stored arrays to the one-shot function when asked. So
``compute()`` returns exactly what that function returns on the concatenated
batches, in about the same time.

Storage per row and task: the score's width (4 bytes for float32 and
narrower, 8 otherwise) plus 1 byte of label; plus 8 bytes per row for
weights, and the group id's width per row for grouped logs. Capacity doubles
when full: each row is copied about twice in all (once in, once on average
when the storage grows), and up to half of the capacity can be unused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import curves, metrics, uncertainty
from ._core import inputs, stream_inputs
from ._core.ids import id_kind
from ._core.inputs import readonly as _readonly
from ._core.options import check_count

__all__ = ["Accumulator"]

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "all_metrics": metrics.all_metrics,
    "average_precision": metrics.average_precision,
    "roc_auc": metrics.roc_auc,
    "pr_auc": metrics.pr_auc,
    "d_prime": metrics.d_prime,
    "prbe": metrics.prbe,
    "roc_curve": curves.roc_curve,
    "precision_recall_curve": curves.precision_recall_curve,
    "det_curve": curves.det_curve,
    "interpolated_precision_recall_curve": curves.interpolated_precision_recall_curve,
    "confusion_matrix_at_thresholds": curves.confusion_matrix_at_thresholds,
    "roc_auc_ci": uncertainty.roc_auc_ci,
}
_GROWTH = 2.0
_MIN_CAPACITY = 1024
_EXACT_INT_IN_FLOAT = 1 << 53


class _Column:
    """A growable array of rows (each row a scalar or a fixed-length vector)."""

    __slots__ = ("buf", "size")

    def __init__(self, dtype: Any, tail: tuple[int, ...]) -> None:
        self.buf = np.empty((0, *tail), dtype)
        self.size = 0

    @classmethod
    def of(cls, data: np.ndarray) -> _Column:
        col = cls(data.dtype, data.shape[1:])
        col.append(data)
        return col

    def view(self) -> np.ndarray:
        out = self.buf[: self.size]
        out.flags.writeable = False
        return out

    def append(self, data: np.ndarray) -> None:
        n = data.shape[0]
        need = self.size + n
        if need > self.buf.shape[0]:
            cap = max(need, int(self.buf.shape[0] * _GROWTH), _MIN_CAPACITY)
            grown = np.empty((cap, *self.buf.shape[1:]), self.buf.dtype)
            grown[: self.size] = self.buf[: self.size]
            self.buf = grown
        self.buf[self.size : need] = data
        self.size = need

    def retype(self, dtype: Any) -> None:
        """Store as ``dtype`` from now on (the caller has checked it is exact)."""
        grown = np.empty(self.buf.shape, dtype)
        grown[: self.size] = self.buf[: self.size]
        self.buf = grown

    def __reduce__(self) -> tuple[Any, ...]:
        # only the rows, never the unused capacity
        return (_Column.of, (np.array(self.buf[: self.size]),))


def _fits_float(a: np.ndarray) -> bool:
    """Whether every value of an integer array is within +-2**53 (exact in float64)."""
    if a.dtype.kind not in "iu" or not a.size:
        return True
    return int(a.max()) <= _EXACT_INT_IN_FLOAT and int(a.min()) >= -_EXACT_INT_IN_FLOAT


def _promote(left: np.ndarray, left_int: bool, right: np.ndarray,
             right_int: bool) -> np.dtype[Any]:
    """The canonical score dtype holding both arrays' values exactly, or TypeError.

    ``*_int`` says that an array's values are integers (from integer or bool
    scores, which narrow types store as floats).
    """
    a, b = left.dtype, right.dtype
    if a == b:
        return a
    if left_int and right_int and {a.kind, b.kind} & {"i", "u"}:
        if "u" not in (a.kind, b.kind):
            return np.dtype(np.int64)
        unsigned, other = (left, right) if a.kind == "u" else (right, left)
        if not unsigned.size or int(unsigned.max()) < 1 << 63:
            return np.dtype(np.int64)
        if not other.size or int(other.min()) >= 0:
            return np.dtype(np.uint64)
        raise TypeError(
            "integer scores below 0 and above 2**63 - 1 cannot be stored together exactly"
        )
    if not (_fits_float(left) and _fits_float(right)):
        raise TypeError(
            f"scores of dtypes {a} and {b} cannot be stored together exactly: integer "
            "scores beyond 2**53 do not fit float64; convert them yourself"
        )
    return np.dtype(np.float64)


class Accumulator:
    """Exact metrics over many batches: ``update`` per batch, ``compute`` at the end.

    Parameters
    ----------
    pos_label : scalar, optional
        The positive label, as in :func:`fastrank.roc_auc`.
    labels : array-like, optional
        For 1-D class labels with ``(n_samples, n_classes)`` scores: the class
        of each score column (one class against the rest).
    n_tasks : int, optional
        Expected number of score columns (checked at each update); by default
        the first batch sets the shape: 1-D for one task, 2-D for many.

    Notes
    -----
    Each batch is checked whole before anything is stored: a rejected update
    changes nothing. What is stored is a copy: no reference to the caller's
    arrays or tensors is kept (so no autograd graph stays alive). CPU torch
    tensors are read through DLPack without importing torch.

    ``compute(metric, **options)`` calls the one-shot function (``"roc_auc"``,
    ``"all_metrics"``, ``"roc_curve"``, ...) on the stored rows, so the result
    is that function's on the concatenated batches: bit for bit when
    unweighted. Weighted totals are summed in the stored order, so merging in
    another order can move them by a rounding error.

    Examples
    --------
    >>> import numpy as np, fastrank
    >>> acc = fastrank.Accumulator()
    >>> acc.update([1, 0, 1], [0.9, 0.4, 0.6])
    >>> acc.update([0, 1, 0], [0.8, 0.3, 0.1])
    >>> acc.compute("roc_auc")
    0.6666666666666666
    >>> acc.compute("roc_auc") == fastrank.roc_auc([1, 0, 1, 0, 1, 0],
    ...                                           [0.9, 0.4, 0.6, 0.8, 0.3, 0.1])
    True

    Many tasks, merged across workers:

    >>> a, b = fastrank.Accumulator(), fastrank.Accumulator()
    >>> rng = np.random.default_rng(0)
    >>> y, s = rng.random((200, 3)) < 0.5, rng.random((200, 3))
    >>> a.update(y[:120], s[:120]); b.update(y[120:], s[120:])
    >>> bool(np.array_equal((a + b).compute("roc_auc", average=None),
    ...                     fastrank.roc_auc(y, s, average=None)))
    True
    """

    def __init__(self, *, pos_label: Any = None, labels: Any = None,
                 n_tasks: int | None = None) -> None:
        if n_tasks is not None:
            n_tasks = check_count(n_tasks, "n_tasks")
        self._pos_label = pos_label
        self._classes = None if labels is None else np.asarray(labels)
        self._expect = None if n_tasks is None else int(n_tasks)
        self._shape: tuple[int, ...] | None = None  # () for one task, (t,) for t tasks
        self._grouped = False
        self._coded = False  # multiclass: labels stored as class codes (column indices)
        self._int_valued = True  # every stored score came from integer or bool scores
        self._scores: _Column | None = None
        self._labels: _Column | None = None
        self._weights: _Column | None = None
        self._groups: _Column | None = None
        self._negative: Any = None  # the negative class's label, once seen (class_key)
        self._lock = threading.RLock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ state

    def __len__(self) -> int:
        """Rows stored."""
        return 0 if self._scores is None else self._scores.size

    @property
    def n_tasks(self) -> int | None:
        """Number of tasks (1 for 1-D batches); ``None`` before the first update."""
        if self._shape is None:
            return None
        return self._shape[0] if self._shape else 1

    @property
    def weighted(self) -> bool:
        """Whether any batch came with ``sample_weight``."""
        return self._weights is not None

    @property
    def nbytes(self) -> int:
        """Bytes allocated for the stored rows (capacity included)."""
        cols = (self._scores, self._labels, self._weights, self._groups)
        return sum(c.buf.nbytes for c in cols if c is not None)

    def data(self) -> dict[str, np.ndarray | None]:
        """The stored rows as read-only arrays: ``y_true`` (bool; the class labels
        of a multiclass accumulator), ``y_score``, ``sample_weight`` and ``groups``
        (``None`` when not given)."""
        if self._scores is None:
            raise ValueError("nothing has been accumulated yet")
        assert self._labels is not None
        labels = self._labels.view()
        return {
            "y_true": _readonly(self._class_values()[labels]) if self._coded
            else labels.view(np.bool_),
            "y_score": self._scores.view(),
            "sample_weight": None if self._weights is None else self._weights.view(),
            "groups": None if self._groups is None else self._groups.view(),
        }

    def reset(self) -> None:
        """Forget every row (the next update may have any shape)."""
        self._shape = None
        self._grouped = False
        self._coded = False
        self._int_valued = True
        self._scores = self._labels = self._weights = self._groups = None
        self._negative = None

    def __repr__(self) -> str:
        tasks = "empty" if self._shape is None else (
            "1 task" if not self._shape else f"{self._shape[0]} tasks")
        return f"Accumulator({tasks}, {len(self)} rows{', weighted' if self.weighted else ''})"

    # ------------------------------------------------------------------ updating

    def update(self, y_true: Any, y_score: Any, sample_weight: Any = None,
               groups: Any = None) -> None:
        """Add one batch (possibly empty).

        Parameters
        ----------
        y_true, y_score : array-like
            1-D (one task) or ``(n_samples, n_tasks)`` scores, labels of the
            same shape (dense or ``scipy.sparse``), or 1-D class labels with
            the constructor's ``labels``. Every batch has the same number of
            tasks as the first.
        sample_weight : array-like of shape (n_samples,), optional
            Rows of earlier batches without weights count with weight 1.
        groups : array-like of shape (n_samples,), optional
            Group ids of 1-D batches (per-user or per-query metrics): give
            them with every batch or with none, of one kind (numbers, or text).

        Raises
        ------
        ValueError, TypeError
            On anything the one-shot functions reject, a batch of another
            shape, or group ids of another kind than earlier ones; the
            accumulator is then unchanged.

        Notes
        -----
        Updates from several threads at once are serialised by a lock (each
        batch is stored whole), though one accumulator per thread, merged at
        the end, is faster.
        """
        s = inputs.as_array(y_score, "y_score")
        shape: tuple[int, ...] = () if s.ndim != 2 else (s.shape[1],)
        coded = bool(shape) and self._classes is not None and not inputs.is_sparse(y_true) \
            and inputs.as_array(y_true, "y_true").ndim == 1
        with self._lock:
            self._check_shape(shape, groups is not None, coded, "update with")
            b = stream_inputs.stream_batch(y_true, s, sample_weight, groups,
                                           pos_label=self._pos_label,
                                           classes=self._classes if coded else None)
            labels = b.labels.astype(np.int32) if b.coded else b.labels
            g = None if b.groups is None else self._check_groups(b.groups)
            negative = stream_inputs.joined_negative(self._negative_seen(), b.negative,
                                                     "update with")
            self._store(shape, b.scores, b.int_valued, labels, b.coded, b.weights, g)
            self._negative = negative

    def _negative_seen(self) -> Any:
        return getattr(self, "_negative", None)  # (an accumulator pickled before it kept it)

    def _class_values(self) -> np.ndarray:
        assert self._classes is not None
        return self._classes

    def _check_shape(self, shape: tuple[int, ...], grouped: bool, coded: bool,
                     what: str) -> None:
        if grouped and shape:
            raise ValueError("groups= is for 1-D batches (one score per row)")
        if self._expect is not None and (shape[0] if shape else 1) != self._expect:
            raise ValueError(
                f"this accumulator expects {self._expect} task(s) (n_tasks); cannot {what} "
                f"{shape[0] if shape else 1}"
            )
        if self._shape is None:
            return
        if shape != self._shape:
            def name(sh: tuple[int, ...]) -> str:
                return "1-D batches (one task)" if not sh else f"{sh[0]} tasks"
            raise ValueError(
                f"this accumulator holds {name(self._shape)}; cannot {what} {name(shape)}"
            )
        if grouped != self._grouped:
            have = "with" if self._grouped else "without"
            raise ValueError(
                f"earlier batches came {have} groups; give groups with every batch or with none"
            )
        if coded != self._coded:
            have = "1-D class labels" if self._coded else "a label matrix"
            got = "1-D class labels" if coded else "a label matrix"
            raise ValueError(f"earlier batches had {have}; cannot {what} {got}")

    def _check_groups(self, g: np.ndarray) -> np.ndarray:
        """Group ids that can be stored with the earlier ones, or TypeError."""
        kind = id_kind(g)
        if self._groups is not None and self._groups.size and g.shape[0]:
            have = id_kind(self._groups.view())
            if kind != have:
                raise TypeError(
                    f"groups of this batch are {kind} ids but earlier batches had {have} ids; "
                    "give every batch ids of one kind"
                )
        return g

    def _store(self, shape: tuple[int, ...], scores: np.ndarray, int_valued: bool,
               labels: np.ndarray, coded: bool, weights: np.ndarray | None,
               groups: np.ndarray | None) -> None:
        """Append checked rows; every check that can fail comes before any change."""
        target = scores.dtype
        now_int = int_valued
        if self._scores is not None and self._scores.size:
            if scores.shape[0]:
                target = _promote(self._scores.view(), self._int_valued, scores, int_valued)
                now_int = self._int_valued and int_valued
            else:  # an empty batch changes nothing
                target, now_int = self._scores.buf.dtype, self._int_valued
        gtype = None
        if groups is not None and self._groups is not None:
            gtype = _id_dtype(self._groups.buf.dtype, groups.dtype)
            if gtype.kind == "f" and groups.shape[0] and self._groups.size:
                _exact_as_float(self._groups.view(), groups)
        # -- nothing below can fail
        n = scores.shape[0]
        if self._scores is None:
            self._shape = shape
            self._grouped = groups is not None
            self._coded = coded
            self._scores = _Column(target, shape)
            self._labels = _Column(np.int32, ()) if coded else _Column(np.uint8, shape)
        self._int_valued = now_int
        assert self._labels is not None
        if self._scores.buf.dtype != target:
            self._scores.retype(target)
        if weights is not None and self._weights is None:
            self._weights = _Column.of(np.ones(self._scores.size))
        if groups is not None:
            if self._groups is None:
                self._groups = _Column(groups.dtype, ())
            elif gtype is not None and self._groups.buf.dtype != gtype:
                self._groups.retype(gtype)
            self._groups.append(groups)
        self._scores.append(scores)
        self._labels.append(labels)
        if self._weights is not None:
            self._weights.append(np.ones(n) if weights is None else weights)

    # ------------------------------------------------------------------ merging

    def merge(self, other: Accumulator) -> Accumulator:
        """Append another accumulator's rows (from another worker); returns ``self``."""
        if not isinstance(other, Accumulator):
            raise TypeError(f"can only merge an Accumulator; got {type(other).__name__}")
        with self._lock, other._lock:
            return self._merge(other)

    def _merge(self, other: Accumulator) -> Accumulator:
        if other._scores is None:
            return self
        stream_inputs.same_pos_label(self._pos_label, other._pos_label)
        negative = stream_inputs.joined_negative(self._negative_seen(), other._negative_seen(),
                                          "merge rows of")
        assert other._shape is not None and other._labels is not None
        self._check_shape(other._shape, other._grouped, other._coded, "merge one of")
        if other._coded and self._classes is None and self._scores is None:
            self._classes = other._classes  # an empty accumulator adopts the classes
        if other._coded and not (
                self._classes is not None and other._classes is not None
                and self._classes.shape == other._classes.shape
                and bool(np.all(self._classes == other._classes))):
            raise ValueError("cannot merge accumulators whose labels= (classes) differ")
        if other._groups is not None and self._groups is not None and other._groups.size \
                and self._groups.size:
            if id_kind(other._groups.view()) != id_kind(self._groups.view()):
                raise TypeError("the two accumulators' group ids are of different kinds "
                                "(numbers and text); they cannot be stored together")
        data = (
            np.array(other._scores.view()),
            np.array(other._labels.view()),
            None if other._weights is None else np.array(other._weights.view()),
            None if other._groups is None else np.array(other._groups.view()),
        )
        self._store(other._shape, data[0], other._int_valued, data[1], other._coded, *data[2:])
        self._negative = negative
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        out = Accumulator(pos_label=self._pos_label, labels=self._classes, n_tasks=self._expect)
        return out.merge(self).merge(other)

    def __iadd__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        return self.merge(other)

    # ------------------------------------------------------------------ results

    def compute(self, metric: str | Callable[..., Any] = "all_metrics", **options: Any) -> Any:
        """A fastrank function of every stored row.

        Parameters
        ----------
        metric : str or function, default "all_metrics"
            ``"all_metrics"``, ``"average_precision"``, ``"roc_auc"``,
            ``"pr_auc"``, ``"d_prime"``, ``"prbe"``, ``"roc_curve"``,
            ``"precision_recall_curve"``, ``"det_curve"``,
            ``"interpolated_precision_recall_curve"``,
            ``"confusion_matrix_at_thresholds"`` or ``"roc_auc_ci"``, or the
            function itself.
        **options
            Passed on (``average=None`` for per-task values, ``max_fpr``,
            ``ties``, ``level``, ...). Weights and groups are the stored ones.

        Returns
        -------
        What the function returns on the concatenated batches.
        """
        fn = _FUNCTIONS.get(metric) if isinstance(metric, str) else metric
        if fn is None or fn not in _FUNCTIONS.values():
            names = ", ".join(map(repr, _FUNCTIONS))
            raise ValueError(f"metric must be one of {names} (or the function); got {metric!r}")
        fixed = {"sample_weight", "groups", "pos_label", "labels"} & set(options)
        if fixed:
            raise TypeError(
                f"{sorted(fixed)} cannot be passed to compute: weights, groups and labels are "
                "given with each update"
            )
        with self._lock:
            if not len(self):
                raise ValueError(
                    "nothing has been accumulated (no rows): update with at least one non-empty "
                    "batch"
                )
            d = {k: None if v is None else np.array(v) for k, v in self.data().items()}
        if d["sample_weight"] is not None:
            options["sample_weight"] = d["sample_weight"]
        if d["groups"] is not None:
            options["groups"] = d["groups"]
        if self._coded:
            options["labels"] = self._classes
        return fn(d["y_true"], d["y_score"], **options)


def _exact_as_float(have: np.ndarray, new: np.ndarray) -> None:
    """Integer ids stored as float64 with other ids: TypeError where one would change
    (past 2**53, where 2**53 and 2**53 + 1 became one group)."""
    for ids, whose in ((have, "earlier batches'"), (new, "this batch's")):
        if ids.dtype.kind in "iu" and bool(((ids > 2**53) | (ids < -(2**53))).any()):
            raise TypeError(
                f"groups: {whose} integer ids beyond 2**53 would be stored as float64 "
                "with the other batches' float ids, and some would become equal; give every "
                "batch ids of one dtype"
            )


def _id_dtype(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype storing ids of both dtypes (of one kind); where it is float64 for
    integer ids, :func:`_exact_as_float` checks that none changes."""
    if a == b:
        return a
    if a.kind == "O" or b.kind == "O":
        return np.dtype(object)
    try:
        return np.result_type(a, b)
    except TypeError:
        return np.dtype(object)

