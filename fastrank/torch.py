"""Metric objects for PyTorch training loops: ``update`` per step, ``compute`` per epoch.

Four classes cover the cases, each parameterised by the name of a fastrank
function (``"average_precision"``, ``"roc_auc"``, ...) and its options:

* :class:`BinaryMetric`: one score per row (any shape, flattened); with
  ``groups`` at every update, per-query or per-user metrics (the function's
  ``groups=``).
* :class:`GroupedMetric`: a :class:`BinaryMetric` that requires ``groups``.
* :class:`MultilabelMetric`: ``(n, n_labels)`` scores and 0/1 labels, one
  task per column (top-k measures rank each row's labels).
* :class:`MulticlassMetric`: ``(n, n_classes)`` scores and class indices,
  one class against the rest per column (and ``"top_k_accuracy"``).

Two kinds of state:

* **exact** (the default): every row, compactly (the score's width plus one
  byte of label, in :class:`~fastrank.accumulator.Accumulator` chunks sized to
  their rows, so no capacity doubles; where the value depends only on each
  task's scores and labels, not on which row is which, chunks of mostly tied
  scores become each task's distinct scores with their counts), and
  ``compute()`` is the one-shot function of the concatenated batches, bit for
  bit. Counted tasks are computed from their counts by the one-shot call's
  own later steps (the engine's sweep of a tie table, the readout kernel on
  its cumulative counts), where that is its result bit for bit; elsewhere
  (weights after counts, mixed dtypes, a readout of fewer rows than the
  engine counts by hashing) the counts come back as rows.
* **bounded memory** (``summary=BinnedSummary(...)``): the summary's fixed
  bins; ``compute()`` gives the estimate and :meth:`~BinaryMetric.result` the
  :class:`~fastrank.summaries.Bounds` that certify it.

Tensors stay where they live until ``update`` reads them: a tensor that
requires grad is detached, a CUDA tensor is copied to the host once per
update (into pinned memory, non-blocking, one synchronisation for all the
update's tensors), ``bfloat16`` is widened to ``float32`` on its device (exact),
and other dtypes are read as they are. Each update is checked whole before
anything is stored: a rejected batch leaves the state as it was.

Under ``torch.distributed`` (any backend; with NCCL, set each process's
CUDA device), ``compute()`` gathers every process's compact state (the
stored rows or the bins' counts, never the tensors given to ``update``) and
merges them in rank order, so every rank gets the same value as one process
over all the data. Every process of the group must call ``compute()``.

``import fastrank`` never imports torch; this module does (install it with
``pip install 'fastrank-metrics[torch]'``). :class:`TorchMetric` wraps a
metric as a ``torchmetrics.Metric`` for PyTorch Lightning's ``self.log``.

Examples
--------
>>> import torch, fastrank
>>> from fastrank.torch import BinaryMetric
>>> ap = BinaryMetric("average_precision")
>>> ap.update(torch.tensor([0.9, 0.4, 0.6]), torch.tensor([1, 0, 1]))
>>> ap.update(torch.tensor([0.8, 0.3, 0.1]), torch.tensor([0, 1, 0]))
>>> ap.compute()
tensor(0.7556, dtype=torch.float64)
>>> ap.compute().item() == fastrank.average_precision([1, 0, 1, 0, 1, 0],
...                                                   [0.9, 0.4, 0.6, 0.8, 0.3, 0.1])
True

Bounded memory, with certified bounds:

>>> auc = BinaryMetric("roc_auc", summary=fastrank.BinnedSummary(bins=2))
>>> auc.update(torch.tensor([0.9, 0.2, 0.6, 0.7]), torch.tensor([1, 0, 1, 0]))
>>> auc.compute()  # the estimate
tensor(0.7500, dtype=torch.float64)
>>> b = auc.result()  # two pairs certain, two inside the upper bin
>>> round(b.low, 9), b.high
(0.5, 1.0)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import metrics, rankings, readouts
from ._core import api, codec, engine, inputs, reduce, registry, workers
from ._core.ids import id_kind
from ._core.messages import warn_undefined
from ._core.tie_tables import HASH_MIN, count_table
from ._kernels.sweep import OUT_POS
from ._kernels.tasks import HASH_MAX_DISTINCT
from ._optional import require
from .accumulator import Accumulator
from .summaries import METRICS as _BINNED_METRICS
from .summaries import READOUTS as _BINNED_READOUTS
from .summaries import BinnedSummary, Bounds

require("torch", "fastrank.torch's metric objects")  # says how to install it where missing
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

if TYPE_CHECKING:
    from ._torchmetrics import TorchMetric

__all__ = [
    "BinaryAUROC",
    "BinaryAveragePrecision",
    "BinaryMetric",
    "GroupedMetric",
    "MulticlassAUROC",
    "MulticlassAveragePrecision",
    "MulticlassMetric",
    "MultilabelAUROC",
    "MultilabelAveragePrecision",
    "MultilabelMetric",
    "TorchMetric",
]

# name -> the one-shot function: the value of an exact state is that function's
_SCALARS: dict[str, Callable[..., Any]] = {
    "average_precision": metrics.average_precision,
    "roc_auc": metrics.roc_auc,
    "pr_auc": metrics.pr_auc,
    "d_prime": metrics.d_prime,
    "prbe": metrics.prbe,
}
_READOUTS: dict[str, Callable[..., Any]] = {
    "partial_roc_auc": readouts.partial_roc_auc,
    "partial_pr_auc": readouts.partial_pr_auc,
    "sensitivity_at_specificity": readouts.sensitivity_at_specificity,
    "specificity_at_sensitivity": readouts.specificity_at_sensitivity,
    "recall_at_precision": readouts.recall_at_precision,
    "precision_at_recall": readouts.precision_at_recall,
    "best_cutoff": readouts.best_cutoff,
}
_TOP_K: dict[str, Callable[..., Any]] = {
    "precision_at_k": rankings.precision_at_k,
    "recall_at_k": rankings.recall_at_k,
    "f1_at_k": rankings.f1_at_k,
    "hit_rate_at_k": rankings.hit_rate_at_k,
    "average_precision_at_k": rankings.average_precision_at_k,
    "ndcg_at_k": rankings.ndcg_at_k,
    "reciprocal_rank": rankings.reciprocal_rank,
    "r_precision": rankings.r_precision,
}
_FIXED = ("sample_weight", "groups", "labels", "pos_label")
# exact state: a batch whose scores take at least this many bytes is a chunk of its own
# (sized to it); smaller ones collect in an open chunk, closed (sized to its rows) when
# it holds this many bytes. Few chunks: compute() joins them with one copy.
_OPEN_BYTES = 1 << 20
# a closed chunk is folded into tie counts when a sample of this many of its scores
# holds at most 1/_TIE_GAIN distinct values (counts take 16 bytes a distinct value)
_TIE_SAMPLE = 2048
_TIE_GAIN = 8


class BinaryMetric:
    """A fastrank metric of a binary task, updated batch by batch.

    Parameters
    ----------
    metric : str
        ``"average_precision"``, ``"roc_auc"``, ``"pr_auc"``, ``"d_prime"``,
        ``"prbe"``; a readout: ``"partial_roc_auc"``, ``"partial_pr_auc"``,
        ``"sensitivity_at_specificity"``, ``"specificity_at_sensitivity"``,
        ``"recall_at_precision"``, ``"precision_at_recall"``,
        ``"best_cutoff"``; with ``groups``, also the top-k measures
        (``"precision_at_k"``, ``"recall_at_k"``, ``"f1_at_k"``,
        ``"hit_rate_at_k"``, ``"average_precision_at_k"``, ``"ndcg_at_k"``,
        ``"reciprocal_rank"``, ``"r_precision"``), each query's items ranked.
    summary : BinnedSummary, optional
        Bounded memory: an empty summary whose bins are used (each metric
        object keeps a copy). Scalar metrics and readouts only, without groups.
    sync_on_compute : bool, default True
        Under ``torch.distributed``, gather every process's state in ``compute``.
    process_group : optional
        The ``torch.distributed`` group to gather over (default: the world).
    **options
        The function's keywords (``max_fpr=0.1``, ``min_specificity=0.9``,
        ``k=5``, ``average="weighted"``, ...), checked now.

    Notes
    -----
    ``update(preds, target, groups=None, weight=None)``: scores of any real
    dtype and shape, labels 0/1 (or bool) of the same shape; optional
    per-row group ids (given with every update or with none) and
    non-negative weights.

    Examples
    --------
    >>> import torch
    >>> from fastrank.torch import BinaryMetric
    >>> m = BinaryMetric("sensitivity_at_specificity", min_specificity=0.9)
    >>> m.update(torch.tensor([0.75, 0.5, 0.25, 0.125]), torch.tensor([1, 0, 1, 0]))
    >>> m.compute()
    tensor(0.5000, dtype=torch.float64)
    >>> m.result()  # the function's own result: the rate and its cutoff
    OperatingPoint(value=0.5, threshold=0.75)

    Per query, merged from two workers:

    >>> a, b = BinaryMetric("ndcg_at_k", k=2), BinaryMetric("ndcg_at_k", k=2)
    >>> a.update(torch.tensor([0.9, 0.1, 0.5]), torch.tensor([0, 1, 1]),
    ...          groups=torch.tensor([7, 7, 7]))
    >>> b.update(torch.tensor([0.2, 0.3]), torch.tensor([1, 0]), groups=torch.tensor([8, 8]))
    >>> round(a.merge(b).compute().item(), 6)
    0.508891
    """

    _kind = "binary"

    def __init__(self, metric: str, *, summary: BinnedSummary | None = None,
                 sync_on_compute: bool = True, process_group: Any = None,
                 **options: Any) -> None:
        self._fn = _function(metric, self._kind, summary is not None)
        fixed = sorted(set(_FIXED) & set(options))
        if fixed:
            raise TypeError(f"{fixed} cannot be metric options: weights and groups are given "
                            "to update, classes to the constructor")
        try:
            inspect.signature(self._fn).bind(None, None, **options)
        except TypeError as exc:
            raise TypeError(f"options for {metric!r}: {exc}") from None
        if summary is not None:
            if not isinstance(summary, BinnedSummary):
                raise TypeError(f"summary must be a BinnedSummary; got {type(summary).__name__}")
            if summary.rows:
                raise ValueError("summary must be empty (use its bins: summary.empty_like())")
        self.metric = metric
        self.options = options
        self.sync_on_compute = bool(sync_on_compute)
        self.process_group = process_group
        self._template = None if summary is None else summary.empty_like()
        self._state: _ExactRows | BinnedSummary = self._empty()

    # ------------------------------------------------------------------ state

    @property
    def bounded(self) -> bool:
        """Whether the state is a fixed-memory :class:`~fastrank.BinnedSummary`."""
        return self._template is not None

    @property
    def rows(self) -> int:
        """Rows this process has stored (or counted, when bounded)."""
        return self._state.rows if isinstance(self._state, BinnedSummary) else len(self._state)

    @property
    def nbytes(self) -> int:
        """Bytes the state's arrays hold (capacity included)."""
        return self._state.nbytes

    def _empty(self) -> _ExactRows | BinnedSummary:
        if self._template is not None:
            return self._template.empty_like()
        return _ExactRows(None, compactable=self._order_free())

    def reset(self) -> None:
        """Forget every row (the options and bins stay)."""
        self._state = self._empty()

    def empty_like(self) -> BinaryMetric:
        """A metric with the same settings and no rows."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._state = self._empty()
        return out

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({self.metric!r}{opts}, state={self._state!r})"

    # ------------------------------------------------------------------ updating

    def update(self, preds: Any, target: Any, groups: Any = None, weight: Any = None) -> None:
        """Add a batch; on any error (shapes, labels, NaN scores, groups given with
        some batches only) nothing is stored."""
        p, t, g, w = _host(preds, target, groups, weight)
        p, t = self._rows(p, t)
        _check_weight(w, p.shape[0])
        if g is not None:
            g = np.asarray(g)
            if g.ndim != 1 or g.shape[0] != p.shape[0]:
                raise ValueError(f"groups must be 1-D with one id per row ({p.shape[0]}); "
                                 f"got shape {g.shape}")
        self._store(p, t, g, w)

    def _rows(self, p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if p.shape != t.shape:
            raise ValueError(f"preds and target must have the same shape; got {tuple(p.shape)} "
                             f"and {tuple(t.shape)}")
        return p.reshape(-1), _binary(t).reshape(-1)

    def _store(self, p: np.ndarray, t: np.ndarray, g: np.ndarray | None,
               w: np.ndarray | None) -> None:
        if isinstance(self._state, BinnedSummary):
            if g is not None:
                raise ValueError("a bounded (BinnedSummary) metric takes no groups")
            self._state.update(t, p, sample_weight=w)
        else:
            self._state.update(t, p, sample_weight=w, groups=g)

    # ------------------------------------------------------------------ merging

    def merge(self, other: BinaryMetric) -> BinaryMetric:
        """Add another metric's rows (from another worker); returns ``self``."""
        if not isinstance(other, BinaryMetric) or other._kind != self._kind \
                or other.metric != self.metric or other.options != self.options:
            raise TypeError(f"can only merge a metric of the same kind, name and options as "
                            f"{self!r}; got {other!r}")
        if other.bounded != self.bounded:
            raise ValueError("cannot merge an exact metric with a bounded one")
        self._state.merge(other._state)  # type: ignore[arg-type]  # same kinds, checked
        return self

    # ------------------------------------------------------------------ results

    def result(self) -> Any:
        """The fastrank result over every process's rows: what the one-shot
        function returns (a float, an array with ``average=None``, an
        :class:`~fastrank.OperatingPoint`, ...), or the summary's
        :class:`~fastrank.Bounds` when bounded."""
        state = self._synced()
        if isinstance(state, BinnedSummary):
            options = dict(self.options)
            if self._kind != "binary":  # the one-shot functions' default
                options.setdefault("average", "macro")
            return state.compute(self.metric, **options)
        if not len(state):
            raise ValueError(f"{type(self).__name__}({self.metric!r}): nothing to compute; "
                             "update with at least one non-empty batch first")
        counted = self._from_counts(state)
        if counted is not _ROWS:
            return counted
        d = state.data()
        options = dict(self.options)
        if d["sample_weight"] is not None:
            options["sample_weight"] = d["sample_weight"]
        if d["groups"] is not None:
            options["groups"] = d["groups"]
        elif self._kind == "binary" and self.metric in _TOP_K:
            raise ValueError(f"{self.metric!r} of a binary task ranks each group's items: give "
                             "groups to update")
        options.update(self._extra())
        return self._fn(d["y_true"], d["y_score"], **options)

    def compute(self) -> torch.Tensor:
        """The value as a float64 CPU tensor: 0-d, or one entry per task or group
        (``average=None``). An operating point gives its rate; a bounded metric
        its estimate (:meth:`result` has the bounds)."""
        return _tensor(self.result())

    def _extra(self) -> dict[str, Any]:
        return {}

    def _order_free(self) -> bool:
        """Whether the value depends only on each task's multiset of (score, label)
        (the tie-aware curve metrics; not the top-k measures, which rank rows, nor
        ``average="samples"``, which ranks each row's labels)."""
        return (self.metric in _SCALARS or self.metric in _READOUTS) \
            and self.options.get("average") != "samples"

    def _from_counts(self, state: _ExactRows) -> Any:
        """The result from each task's tie counts, without giving the rows back, or
        :data:`_ROWS` where the rows are needed (see :func:`_table_result`)."""
        ties = state.ties
        if ties is None or state.weighted or state.grouped or ties.dtype.kind != "f":
            return _ROWS
        rows = state.rows_data()
        if rows is not None and np.asarray(rows["y_score"]).dtype != ties.dtype:
            return _ROWS  # the one-shot call promotes mixed dtypes: the rows say how
        return _table_result(self.metric, self.options, ties.tables(rows), ties.one_d,
                             ties.dtype, len(state))

    def _synced(self) -> _ExactRows | BinnedSummary:
        """The state of every process of the group, merged in rank order."""
        if not (self.sync_on_compute and dist.is_available() and dist.is_initialized()):
            return self._state
        size = dist.get_world_size(self.process_group)
        if size == 1:
            return self._state
        parts: list[Any] = [None] * size
        dist.all_gather_object(parts, self._state, group=self.process_group)
        merged = self._empty()
        for part in parts:
            merged.merge(part)
        return merged

    # ------------------------------------------------------------------ checkpoints

    def state_dict(self) -> dict[str, Any]:
        """The state as tensors and plain values (``torch.load(weights_only=True)``
        reads it back): the stored rows when exact, the bins and counts when bounded."""
        if isinstance(self._state, BinnedSummary):
            return {"metric": self.metric, "bounded": True,
                    "summary": {k: _to_torch(v) for k, v in self._state.__getstate__().items()}}
        rows = self._state.rows_data()
        ties = self._state.ties
        return {"metric": self.metric, "bounded": False,
                "rows": {} if rows is None else {k: _to_torch(v) for k, v in rows.items()},
                "ties": None if ties is None else {
                    "one_d": ties.one_d, "values": [torch.from_numpy(v) for v in ties.values],
                    "pos": [torch.from_numpy(v) for v in ties.pos],
                    "neg": [torch.from_numpy(v) for v in ties.neg]}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace the state by one from :meth:`state_dict` (of a metric with the
        same settings); checked whole before anything changes."""
        if state.get("metric") != self.metric or state.get("bounded") != self.bounded:
            raise ValueError(f"this state_dict is of metric {state.get('metric')!r} "
                             f"(bounded={state.get('bounded')}); this is {self!r}")
        fresh = self._empty()
        if isinstance(fresh, BinnedSummary):
            got = {k: _to_numpy(v) for k, v in state["summary"].items()}
            template = fresh.__getstate__()
            if set(got) != set(template):
                raise ValueError("state_dict['summary'] does not hold a BinnedSummary's state")
            probe = object.__new__(BinnedSummary)
            probe.__setstate__(got)
            probe.empty_like().merge(fresh)  # raises unless the bins are this metric's
            self._state = probe
            return
        if state.get("ties") is not None:
            t = state["ties"]
            fresh.load_ties(bool(t["one_d"]), *([_to_numpy(v) for v in t[k]]
                                                 for k in ("values", "pos", "neg")))
        rows = {k: _to_numpy(v) for k, v in state["rows"].items()}
        if rows:
            fresh.update(rows["y_true"], rows["y_score"], rows.get("sample_weight"),
                         rows.get("groups"))
        self._state = fresh

    def torchmetric(self, **kwargs: Any) -> TorchMetric:
        """This metric as a ``torchmetrics.Metric`` (:class:`TorchMetric`)."""
        from ._torchmetrics import TorchMetric

        return TorchMetric(self, **kwargs)


class GroupedMetric(BinaryMetric):
    """A :class:`BinaryMetric` per query or user: ``groups`` required at every update.

    Examples
    --------
    >>> import torch
    >>> from fastrank.torch import GroupedMetric
    >>> m = GroupedMetric("average_precision")  # the mean of each user's AP
    >>> m.update(torch.tensor([0.9, 0.2, 0.4, 0.8]), torch.tensor([1, 0, 1, 0]),
    ...          groups=torch.tensor([1, 1, 2, 2]))
    >>> m.compute()
    tensor(0.7500, dtype=torch.float64)
    """

    _kind = "grouped"

    def update(self, preds: Any, target: Any, groups: Any = None, weight: Any = None) -> None:
        """Add a batch with its rows' group ids (see :class:`BinaryMetric`)."""
        if groups is None:
            raise ValueError(f"{type(self).__name__} needs groups (one id per row) at every "
                             "update")
        super().update(preds, target, groups, weight)


class MultilabelMetric(BinaryMetric):
    """A fastrank metric of ``(n, n_labels)`` scores and 0/1 labels.

    Parameters
    ----------
    metric : str
        As :class:`BinaryMetric`'s; the top-k measures rank each row's labels.
    num_labels : int, optional
        Checked at every update; by default the first batch sets it.
    summary, sync_on_compute, process_group, **options
        As :class:`BinaryMetric`'s (``average=None`` gives one value per label).

    Examples
    --------
    >>> import torch, fastrank
    >>> from fastrank.torch import MultilabelMetric
    >>> m = MultilabelMetric("average_precision", num_labels=3, average=None)
    >>> g = torch.Generator().manual_seed(0)
    >>> p, y = torch.rand(8, 3, generator=g), torch.rand(8, 3, generator=g) < 0.5
    >>> m.update(p[:5], y[:5]); m.update(p[5:], y[5:])
    >>> bool((m.compute().numpy() == fastrank.average_precision(y, p, average=None)).all())
    True
    """

    _kind = "multilabel"

    def __init__(self, metric: str, num_labels: int | None = None, *,
                 summary: BinnedSummary | None = None, sync_on_compute: bool = True,
                 process_group: Any = None, **options: Any) -> None:
        super().__init__(metric, summary=summary, sync_on_compute=sync_on_compute,
                         process_group=process_group, **options)
        if num_labels is not None and (isinstance(num_labels, bool) or not isinstance(
                num_labels, (int, np.integer)) or num_labels < 1):
            raise ValueError(f"num_labels must be a positive integer; got {num_labels!r}")
        self.num_labels = None if num_labels is None else int(num_labels)

    def _rows(self, p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if p.ndim != 2:
            raise ValueError(f"preds must be 2-D (n_samples, n_labels); got shape {p.shape}")
        if p.shape != t.shape:
            raise ValueError(f"preds and target must have the same shape; got {tuple(p.shape)} "
                             f"and {tuple(t.shape)}")
        if self.num_labels is not None and p.shape[1] != self.num_labels:
            raise ValueError(f"this metric has num_labels={self.num_labels}; got a batch of "
                             f"{p.shape[1]} labels")
        return p, _binary(t)

    def _store(self, p: np.ndarray, t: np.ndarray, g: np.ndarray | None,
               w: np.ndarray | None) -> None:
        if g is not None:
            raise ValueError(f"{type(self).__name__} takes no groups (each row is one list)")
        super()._store(p, t, g, w)


class MulticlassMetric(BinaryMetric):
    """A fastrank metric of ``(n, n_classes)`` scores and class indices from 0: each
    class against the rest (``average="macro"`` by default, as the one-shot
    functions), or ``"top_k_accuracy"``.

    Parameters
    ----------
    metric : str
        ``"average_precision"``, ``"roc_auc"``, ``"pr_auc"``, ``"d_prime"``,
        ``"prbe"`` or ``"top_k_accuracy"`` (exact only).
    num_classes : int
        The number of score columns.
    summary, sync_on_compute, process_group, **options
        As :class:`BinaryMetric`'s.

    Examples
    --------
    >>> import torch, fastrank
    >>> from fastrank.torch import MulticlassMetric
    >>> m = MulticlassMetric("top_k_accuracy", num_classes=3, k=2)
    >>> m.update(torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]), torch.tensor([1, 0]))
    >>> m.compute()
    tensor(0.5000, dtype=torch.float64)
    """

    _kind = "multiclass"

    def __init__(self, metric: str, num_classes: int, *, summary: BinnedSummary | None = None,
                 sync_on_compute: bool = True, process_group: Any = None,
                 **options: Any) -> None:
        if isinstance(num_classes, bool) or not isinstance(
                num_classes, (int, np.integer)) or num_classes < 2:
            raise ValueError(f"num_classes must be an integer of at least 2; got {num_classes!r}")
        self.num_classes = int(num_classes)
        super().__init__(metric, summary=summary, sync_on_compute=sync_on_compute,
                         process_group=process_group, **options)

    def _empty(self) -> _ExactRows | BinnedSummary:
        if self._template is not None:
            return self._template.empty_like()
        return _ExactRows(np.arange(self.num_classes))  # rows pair labels with columns

    def _extra(self) -> dict[str, Any]:
        return {"labels": np.arange(self.num_classes)}

    def _rows(self, p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if p.ndim != 2 or p.shape[1] != self.num_classes:
            raise ValueError(f"preds must be (n_samples, num_classes={self.num_classes}); got "
                             f"shape {p.shape}")
        if t.ndim != 1 or t.shape[0] != p.shape[0]:
            raise ValueError(f"target must be 1-D with one class per row ({p.shape[0]}); got "
                             f"shape {t.shape}")
        if t.dtype.kind not in "iub":
            raise ValueError(f"target must hold integer class indices; got dtype {t.dtype}")
        if t.size and (int(t.min()) < 0 or int(t.max()) >= self.num_classes):
            raise ValueError(f"target holds classes outside 0 .. {self.num_classes - 1}: "
                             f"{int(t.min())} .. {int(t.max())}")
        return p, t

    def _store(self, p: np.ndarray, t: np.ndarray, g: np.ndarray | None,
               w: np.ndarray | None) -> None:
        if g is not None:
            raise ValueError(f"{type(self).__name__} takes no groups")
        if isinstance(self._state, BinnedSummary):
            onehot = t[:, None] == np.arange(self.num_classes)
            self._state.update(onehot, p, sample_weight=w)
        else:
            self._state.update(t, p, sample_weight=w, groups=None)


class _ExactRows:
    """Every row, compactly: one Accumulator per large batch (sized to it) and one
    open Accumulator collecting smaller batches, closed at :data:`_OPEN_BYTES`;
    and, where only each task's multiset of (score, label) matters, tied scores
    as counts.

    An Accumulator alone doubles its capacity when full (up to twice the rows'
    bytes); chunks sized to their rows keep the state near the rows' own bytes
    (the score's width and one byte of label, plus weights and group ids when
    given). Everything that must agree across batches (tasks, groups given or
    not, the kind of group ids) is checked before a batch is stored; ``data()``
    joins the chunks (through Accumulator merges, with their dtype checks, where
    the chunks' dtypes differ).

    Ties (``compactable``: a per-task metric, no groups, no weights so far): a
    closed chunk whose scores are mostly repeated values (sampled) is folded
    into a table of each task's distinct scores with their positive and negative
    counts, hashed by the engine's tie count. ``compute()`` reads the counts
    (:func:`_table_result`); ``data()`` gives each task's rows back from them,
    sorted by score: the same multiset, so the unweighted metrics are the same,
    bit for bit.

    Large batches of unweighted float scores are :class:`_Chunk` s, smaller
    ones and all others :class:`~fastrank.accumulator.Accumulator` s.
    """

    __slots__ = ("chunks", "compactable", "grouped", "id_kind", "labels", "open", "tasks",
                 "ties", "weighted")

    def __init__(self, labels: np.ndarray | None, compactable: bool = False) -> None:
        self.labels = labels
        self.compactable = compactable
        self.chunks: list[Accumulator | _Chunk] = []
        self.open = Accumulator(labels=labels)
        self.tasks: int | None = None
        self.grouped: bool | None = None
        self.id_kind: str | None = None
        self.weighted = False
        self.ties: _TieTable | None = None

    def __len__(self) -> int:
        tied = 0 if self.ties is None else self.ties.rows
        return sum(map(len, self.chunks)) + len(self.open) + tied

    def __repr__(self) -> str:
        tied = "" if self.ties is None else f", {self.ties.rows} as tie counts"
        return f"{len(self)} rows in {len(self.chunks) + bool(len(self.open))} chunks{tied}"

    @property
    def nbytes(self) -> int:
        tied = 0 if self.ties is None else self.ties.nbytes
        return sum(c.nbytes for c in self.chunks) + self.open.nbytes + tied

    def _check(self, tasks: int, grouped: bool, id_kind: str | None) -> None:
        if self.tasks is not None and tasks != self.tasks:
            raise ValueError(f"earlier batches had {self.tasks} task(s) (score columns); "
                             f"cannot add {tasks}")
        if self.grouped is not None and grouped != self.grouped:
            have = "with" if self.grouped else "without"
            raise ValueError(f"earlier batches came {have} groups; give groups with every "
                             "batch or with none")
        if id_kind is not None and self.id_kind is not None and id_kind != self.id_kind:
            raise TypeError(f"groups of this batch are {id_kind} ids but earlier batches had "
                            f"{self.id_kind} ids; give every batch ids of one kind")

    def _note(self, tasks: int, grouped: bool, id_kind: str | None, weighted: bool) -> None:
        self.tasks, self.grouped = tasks, grouped
        self.id_kind = self.id_kind or id_kind
        self.weighted = self.weighted or weighted

    def _close(self) -> None:
        if len(self.open):
            self._add(Accumulator(labels=self.labels).merge(self.open))
            self.open = Accumulator(labels=self.labels)

    def _add(self, chunk: Accumulator | _Chunk) -> None:
        """Append a closed chunk, folded into the tie table where that pays."""
        if self.compactable and not self.weighted and not self.grouped and len(chunk):
            d = chunk.data()
            s, y = np.asarray(d["y_score"]), np.asarray(d["y_true"])
            sample = s.reshape(-1)[:_TIE_SAMPLE]
            same_dtype = self.ties is None or self.ties.dtype == s.dtype
            if same_dtype and d["sample_weight"] is None and _mostly_tied(sample):
                if self.ties is None:
                    self.ties = _TieTable(s.dtype, s.ndim == 1, 1 if s.ndim == 1 else s.shape[1])
                self.ties.add(s, y)
                return
        self.chunks.append(chunk)

    def update(self, y_true: np.ndarray, y_score: np.ndarray, sample_weight: np.ndarray | None,
               groups: np.ndarray | None) -> None:
        tasks = 1 if y_score.ndim == 1 else y_score.shape[1]
        kind = None if groups is None or not groups.shape[0] else id_kind(groups)
        self._check(tasks, groups is not None, kind)
        if y_score.nbytes >= _OPEN_BYTES:
            chunk: Accumulator | _Chunk
            if sample_weight is None and groups is None and self.labels is None \
                    and y_score.dtype.kind == "f" and y_true.dtype == np.bool_:
                chunk = _Chunk(y_true, y_score)  # checked as an Accumulator checks it
            else:
                chunk = Accumulator(labels=self.labels)  # sized to the batch
                chunk.update(y_true, y_score, sample_weight, groups)
            self._close()  # the rows keep their order
            self._note(tasks, groups is not None, kind, sample_weight is not None)
            self._add(chunk)
        else:
            self.open.update(y_true, y_score, sample_weight, groups)
            self._note(tasks, groups is not None, kind, sample_weight is not None)
            if self.open.nbytes >= _OPEN_BYTES:
                self._close()

    def merge(self, other: _ExactRows) -> _ExactRows:
        if not len(other):
            return self
        assert other.tasks is not None and other.grouped is not None
        self._check(other.tasks, other.grouped, other.id_kind)
        self._close()
        self._note(other.tasks, other.grouped, other.id_kind, other.weighted)
        for chunk in other.chunks:  # closed chunks are never changed, only read
            self._add(chunk)
        if len(other.open):
            self._add(Accumulator(labels=self.labels).merge(other.open))
        if other.ties is not None:
            if self.compactable and not self.weighted and (
                    self.ties is None or self.ties.dtype == other.ties.dtype):
                if self.ties is None:
                    self.ties = _TieTable(other.ties.dtype, other.ties.one_d, other.ties.tasks)
                self.ties.absorb(other.ties)
            else:
                rows = Accumulator(labels=self.labels)
                rows.update(*other.ties.rows_back())
                self.chunks.append(rows)
        return self

    def load_ties(self, one_d: bool, values: list[np.ndarray], pos: list[np.ndarray],
                  neg: list[np.ndarray]) -> None:
        """Take a tie table (from a state_dict), checked, into this empty state."""
        if not self.compactable:
            raise ValueError("this metric keeps rows, not tie counts (its value depends on "
                             "the rows' order or pairing)")
        tasks = len(values)
        if not tasks or len(pos) != tasks or len(neg) != tasks or (one_d and tasks != 1):
            raise ValueError("state_dict['ties'] needs values, pos and neg for each task")
        totals = set()
        for v, p, q in zip(values, pos, neg, strict=True):
            if v.ndim != 1 or p.shape != v.shape or q.shape != v.shape \
                    or p.dtype != np.int64 or q.dtype != np.int64 or v.dtype != values[0].dtype:
                raise ValueError("state_dict['ties'] holds arrays of unequal shapes or dtypes")
            if v.size and (not bool(np.all(v[1:] > v[:-1])) or not bool(np.isfinite(v).all())
                           or min(int(p.min()), int(q.min())) < 0):
                raise ValueError("state_dict['ties'] needs increasing finite scores and "
                                 "counts of at least 0")
            totals.add(int(p.sum() + q.sum()))
        if len(totals) != 1:
            raise ValueError("state_dict['ties'] holds tasks of different numbers of rows")
        table = _TieTable(values[0].dtype, one_d, tasks)
        table.values, table.pos, table.neg = list(values), list(pos), list(neg)
        table.rows = totals.pop()
        self.ties = table
        self._note(tasks, False, None, False)

    def rows_data(self) -> dict[str, np.ndarray | None] | None:
        """The rows not folded into tie counts (joined), or None."""
        parts = [c for c in [*self.chunks, self.open] if len(c)]
        return self._join(parts) if parts else None

    def data(self) -> dict[str, np.ndarray | None]:
        parts = [c for c in [*self.chunks, self.open] if len(c)]
        if self.ties is not None:
            y, s = self.ties.rows_back()
            if not parts:
                return {"y_true": y, "y_score": s, "sample_weight": None, "groups": None}
            tied = Accumulator(labels=self.labels)
            tied.update(y, s)
            parts.insert(0, tied)
        return self._join(parts)

    def _join(self, parts: list[Accumulator | _Chunk]) -> dict[str, np.ndarray | None]:
        if len(parts) == 1:
            return parts[0].data()
        datas = [c.data() for c in parts]
        if len({np.asarray(d["y_score"]).dtype for d in datas}) > 1:  # as one Accumulator
            # promotes them (or refuses integers beyond 2**53 with floats)
            joined = Accumulator(labels=self.labels)
            for c in parts:
                joined.merge(c if isinstance(c, Accumulator) else c.accumulator())
            return joined.data()
        out: dict[str, np.ndarray | None] = {
            "y_true": np.concatenate([d["y_true"] for d in datas]),
            "y_score": np.concatenate([d["y_score"] for d in datas]),
            "sample_weight": None, "groups": None}
        if any(d["sample_weight"] is not None for d in datas):
            out["sample_weight"] = np.concatenate([
                np.ones(len(c)) if d["sample_weight"] is None else d["sample_weight"]
                for c, d in zip(parts, datas, strict=True)])
        if self.grouped:
            out["groups"] = np.concatenate([d["groups"] for d in datas])
        return out


class _Chunk:
    """One large batch of unweighted, ungrouped rows of float scores and 0/1 labels:
    the scores canonical and checked finite by the functions an Accumulator's
    update calls, both copied once. The labels come checked (:func:`_binary`), so
    unlike an Accumulator it reads them once, not twice."""

    __slots__ = ("labels", "scores")

    def __init__(self, y_true: np.ndarray, y_score: np.ndarray) -> None:
        values = inputs.canonical_scores(y_score)
        if values.ndim not in (1, 2):
            raise ValueError(f"y_score must be 1-D or 2-D; got shape {values.shape}")
        values = values.copy() if np.may_share_memory(values, y_score) \
            else np.ascontiguousarray(values)
        if not bool(np.isfinite(values).all()):  # one pass; the first bad score named:
            inputs.check_finite(values)
        self.scores = inputs.readonly(values)
        self.labels = inputs.readonly(np.array(y_true, np.bool_, order="C"))

    def __len__(self) -> int:
        return int(self.scores.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.scores.nbytes + self.labels.nbytes)

    def data(self) -> dict[str, np.ndarray | None]:
        return {"y_true": self.labels, "y_score": self.scores, "sample_weight": None,
                "groups": None}

    def accumulator(self) -> Accumulator:
        """These rows as an Accumulator (to be joined with rows of another dtype)."""
        out = Accumulator()
        out.update(self.labels, self.scores)
        return out


class _TieTable:
    """Each task's distinct scores (sorted, canonical dtype) with their positive and
    negative counts."""

    __slots__ = ("dtype", "neg", "one_d", "pos", "rows", "tasks", "values")

    def __init__(self, dtype: np.dtype[Any], one_d: bool, tasks: int) -> None:
        self.dtype, self.one_d, self.tasks, self.rows = dtype, one_d, tasks, 0
        self.values = [np.empty(0, dtype) for _ in range(tasks)]
        self.pos = [np.empty(0, np.int64) for _ in range(tasks)]
        self.neg = [np.empty(0, np.int64) for _ in range(tasks)]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (*self.values, *self.pos, *self.neg))

    def add(self, scores: np.ndarray, labels: np.ndarray) -> None:
        """Count a closed chunk's rows (canonical finite scores, bool labels) in."""
        self.values, self.pos, self.neg = self._with(scores, labels)
        self.rows += scores.shape[0]

    def absorb(self, other: _TieTable) -> None:
        for j in range(self.tasks):
            self.values[j], self.pos[j], self.neg[j] = _fold(
                (self.values[j], self.pos[j], self.neg[j]),
                (other.values[j], other.pos[j], other.neg[j]))
        self.rows += other.rows

    def _with(self, scores: np.ndarray, labels: np.ndarray
              ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """The table with rows counted in, as new lists (this table unchanged)."""
        s2 = scores.reshape(scores.shape[0], -1)
        y2 = labels.reshape(labels.shape[0], -1).view(np.uint8)
        if s2.shape[1] > 1:  # each task's rows contiguous, in one copy
            s2, y2 = np.ascontiguousarray(s2.T).T, np.ascontiguousarray(y2.T).T
        out: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
        for j in range(self.tasks):
            v, p, q = _fold((self.values[j], self.pos[j], self.neg[j]),
                            _counted(s2[:, j], y2[:, j]))
            out[0].append(v)
            out[1].append(p)
            out[2].append(q)
        return out

    def tables(self, rows: dict[str, np.ndarray | None] | None
               ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each task's table with ``rows`` (unweighted, this dtype) counted in."""
        if rows is None or not len(rows["y_score"]):  # type: ignore[arg-type]
            return list(zip(self.values, self.pos, self.neg, strict=True))
        s, y = np.asarray(rows["y_score"]), np.asarray(rows["y_true"])
        return list(zip(*self._with(s, y), strict=True))

    def rows_back(self) -> tuple[np.ndarray, np.ndarray]:
        """Labels (bool) and scores, each task's rows sorted by score (positives first
        in a tie): ``rows`` rows, 1-D or one column per task."""
        ys, ss = [], []
        for j in range(self.tasks):
            counts = np.stack([self.pos[j], self.neg[j]], axis=1).reshape(-1)
            ss.append(np.repeat(np.repeat(self.values[j], 2), counts))
            ys.append(np.repeat(np.tile(np.array([True, False]), self.values[j].size), counts))
        if self.one_d:
            return ys[0], ss[0]
        return np.stack(ys, axis=1), np.stack(ss, axis=1)


def _mostly_tied(sample: np.ndarray) -> bool:
    """Whether at most 1/_TIE_GAIN of the sample's scores are distinct; a prefix just
    over that share, all distinct, says no at a fraction of the sort (the common
    answer for model scores)."""
    limit = sample.size // _TIE_GAIN
    prefix = np.sort(sample[:limit + 1])
    if prefix.size == limit + 1 and bool((prefix[1:] != prefix[:-1]).all()):
        return False
    return int(np.unique(sample).size) <= limit


def _counted(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One task's distinct scores (ascending) and their positive and negative counts
    (int64), from canonical finite scores and 0/1 ``uint8`` labels: hashed by the
    engine's tie count where the scores take few values, else sorted."""
    s = np.ascontiguousarray(s)
    y = np.ascontiguousarray(y)
    if s.dtype.kind == "f":
        task = inputs.task_of(s, s.dtype, y, None)
        n = s.shape[0]
        table = count_table(task, workers.threads() if n >= workers.PARALLEL_MIN else 1)
        if table is not None:
            gkey, gpos, gneg = table  # score bits, highest first; counts as float64
            return (codec.decode(gkey[::-1], s.dtype, s.dtype), gpos[::-1].astype(np.int64),
                    gneg[::-1].astype(np.int64))
    distinct, at = np.unique(s, return_inverse=True)
    pos = np.bincount(at, y, distinct.size).astype(np.int64)  # exact: counts below 2**53
    return distinct, pos, np.bincount(at, None, distinct.size) - pos


def _fold(a: tuple[np.ndarray, np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray,
          np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two tables of one task as one (new arrays)."""
    if not a[0].size:
        return b
    distinct, at = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    pos = np.bincount(at, np.concatenate([a[1], b[1]]).astype(np.float64), distinct.size)
    neg = np.bincount(at, np.concatenate([a[2], b[2]]).astype(np.float64), distinct.size)
    return distinct, pos.astype(np.int64), neg.astype(np.int64)  # exact below 2**53


def _alias(base: type[BinaryMetric], metric: str, doc: str) -> type[BinaryMetric]:
    """A named class fixing ``metric`` (torchmetrics' names), one code path."""

    def __init__(self: BinaryMetric, *args: Any, **kwargs: Any) -> None:
        base.__init__(self, metric, *args, **kwargs)

    name = {"binary": "Binary", "multilabel": "Multilabel", "multiclass": "Multiclass"}[
        base._kind] + doc
    cls = type(name, (base,), {"__init__": __init__, "__module__": __name__, "__doc__": (
        f"``{base.__name__}({metric!r}, ...)``, under torchmetrics' name; the other "
        f"arguments as :class:`{base.__name__}`'s.")})
    return cls


BinaryAveragePrecision = _alias(BinaryMetric, "average_precision", "AveragePrecision")
BinaryAUROC = _alias(BinaryMetric, "roc_auc", "AUROC")
MultilabelAveragePrecision = _alias(MultilabelMetric, "average_precision", "AveragePrecision")
MultilabelAUROC = _alias(MultilabelMetric, "roc_auc", "AUROC")
MulticlassAveragePrecision = _alias(MulticlassMetric, "average_precision", "AveragePrecision")
MulticlassAUROC = _alias(MulticlassMetric, "roc_auc", "AUROC")


def __getattr__(name: str) -> Any:
    if name == "TorchMetric":  # imports torchmetrics on first use only
        from ._torchmetrics import TorchMetric

        globals()[name] = TorchMetric
        return TorchMetric
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------- from tie counts

_ROWS = object()  # _table_result's answer where the result needs the rows
# the scalar metrics' options the table path knows; any other goes the rows' way
_TABLE_OPTIONS = frozenset({"average", "ties", "max_fpr", "return_threshold"})


def _table_result(metric: str, options: dict[str, Any],
                  tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]], one_d: bool,
                  dtype: np.dtype[Any], n: int) -> Any:
    """What ``fastrank.<metric>(y, s, **options)`` returns for rows whose tasks have
    these tie tables (distinct float scores ascending, positive and negative
    counts; ``n`` rows, ``one_d`` or one column per task), or :data:`_ROWS`.

    The one-shot call's own steps after its tie groups: the scalar metrics are
    the engine's sweep of each task's table (the sweep's sums are exact, so the
    one-shot call's value depends only on the tie groups, whatever path it
    takes: hashed counts, sorted classes, score ranges) and the same
    :func:`~fastrank._core.reduce.finish`. A readout is read from the
    cumulative counts by the same kernel, which the one-shot call gives the
    whole table only where the engine counts the ties by hashing (every task of
    at least ``HASH_MIN`` rows and at most ``HASH_MAX_DISTINCT`` scores); it
    otherwise merges runs of negatives first, so those calls take the rows.
    """
    tables = [(v + v.dtype.type(0.0), p, q) for v, p, q in tables]  # -0.0 as the engine: +0.0
    if metric in _READOUTS:
        if n < HASH_MIN or any(v.shape[0] > HASH_MAX_DISTINCT for v, _, _ in tables):
            return _ROWS
        opts = readouts.check_options(metric, options)
        cum = [(np.cumsum(q[::-1].astype(np.float64)), np.cumsum(p[::-1].astype(np.float64)),
                v[::-1].astype(np.float64)) for v, p, q in tables]
        values, thresholds, reasons = readouts.read_many(metric, opts, cum)
        if reasons:
            where = "" if one_d else f" for {len(reasons)} of {values.shape[0]} columns"
            warn_undefined(f"{reasons[0]}{where}; returning NaN", level=5)
        if one_d:
            value = float(values[0])
            if thresholds is not None:
                return readouts.OperatingPoint(value, float(thresholds[0]))
            return value
        return values if thresholds is None else readouts.OperatingPoint(values, thresholds)
    if metric not in _SCALARS or set(options) - _TABLE_OPTIONS:
        return _ROWS
    want = bool(options.get("return_threshold", False))
    req = registry.request(metric, weighted=False, ties=options.get("ties", "grouped"),
                           max_fpr=options.get("max_fpr"))
    average = options.get("average", "macro")
    if not one_d:
        api.check_batch_average(average, want)
    if one_d or average == "micro":
        v, p, q = tables[0] if one_d else _fold_all(tables)
        out, key = engine.table_metrics(_engine_table(v, p, q), req.max_fpr, req.what)
        thresholds = np.full(1, np.nan)
        if (want or not one_d) and out[OUT_POS] > 0:  # as the one-shot call asks for it
            thresholds = np.empty(1, object)
            thresholds[0] = api.threshold_of(key, dtype, dtype)
        res = reduce.Results(out[None, :], thresholds, np.array([n * len(tables)]), None,
                             "one" if one_d else "micro")
        return reduce.finish(req, res, None if one_d else "micro", return_threshold=want,
                             stacklevel=4)
    rows = [engine.table_metrics(_engine_table(*tb), req.max_fpr, req.what) for tb in tables]
    out = np.stack([r[0] for r in rows])
    keys = np.array([r[1] for r in rows], np.uint64)
    thresholds = np.asarray(codec.decode(keys, dtype, dtype), np.float64)
    thresholds[out[:, OUT_POS] == 0] = np.nan
    res = reduce.Results(out, thresholds, np.full(len(tables), n, np.int64), None, "tasks")
    return reduce.finish(req, res, average, return_threshold=want, stacklevel=4)


def _engine_table(v: np.ndarray, p: np.ndarray, q: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A task's table as the engine's hashed count gives it: score bits, highest
    first, and float64 counts."""
    bits = inputs.SPECS[v.dtype].bits
    return (v[::-1].view(bits).astype(np.uint64), p[::-1].astype(np.float64),
            q[::-1].astype(np.float64))


def _fold_all(tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every task's table as one (``average="micro"``: every cell one task)."""
    distinct, at = np.unique(np.concatenate([v for v, _, _ in tables]), return_inverse=True)
    pos, neg = (np.bincount(at, np.concatenate([tb[k] for tb in tables]).astype(np.float64),
                            distinct.size).astype(np.int64) for k in (1, 2))
    return distinct, pos, neg  # exact: counts below 2**53


# ---------------------------------------------------------------------- helpers


def _function(metric: str, kind: str, bounded: bool) -> Callable[..., Any]:
    allowed = dict(_SCALARS)
    if kind != "multiclass":
        allowed.update(_READOUTS)
    if kind in ("grouped", "multilabel", "binary") and not bounded:
        allowed.update(_TOP_K)
    if kind == "multiclass" and not bounded:
        allowed["top_k_accuracy"] = rankings.top_k_accuracy
    if bounded:
        allowed = {k: v for k, v in allowed.items()
                   if k in _BINNED_METRICS or k in _BINNED_READOUTS}
        if kind == "grouped":
            allowed = {}
    if not isinstance(metric, str) or metric not in allowed:
        mode = "bounded" if bounded else "exact"
        names = ", ".join(map(repr, allowed)) or "none"
        raise ValueError(f"metric for a {kind} task in {mode} mode must be one of {names}; "
                         f"got {metric!r}")
    return allowed[metric]


def _host(*values: Any) -> list[Any]:
    """Each tensor as a host numpy array (CUDA ones copied once, together); other
    values as they are."""
    tensors: list[Any] = []
    wait: set[torch.device] = set()
    for x in values:
        if isinstance(x, torch.Tensor):
            x = x.detach()
            if x.dtype == torch.bfloat16:  # numpy has no bfloat16; float32 holds it exactly
                x = x.float()
            x = x.resolve_conj().resolve_neg()
            if _on_cuda(x):
                host = _pinned(x)
                host.copy_(x, non_blocking=True)  # queued on the device's stream
                wait.add(x.device)
                x = host
            elif x.device.type == "meta":
                raise ValueError(f"a tensor on the meta device holds no values (shape "
                                 f"{tuple(x.shape)}); give update real tensors")
            elif x.device.type != "cpu":
                x = x.to("cpu")
        tensors.append(x)
    for device in wait:  # once per device, after every copy of the update is queued
        _synchronize(device)
    return [x.numpy() if isinstance(x, torch.Tensor) else
            None if x is None else np.asarray(x) for x in tensors]


def _on_cuda(x: torch.Tensor) -> bool:
    return x.device.type == "cuda"


def _pinned(x: torch.Tensor) -> torch.Tensor:
    """An empty page-locked host tensor for ``x`` (so its copy can run asynchronously)."""
    return torch.empty(x.shape, dtype=x.dtype, pin_memory=True)


def _synchronize(device: torch.device) -> None:
    """Wait for the copies queued on ``device``'s current stream."""
    torch.cuda.current_stream(device).synchronize()


def _binary(t: np.ndarray) -> np.ndarray:
    """Labels 0/1 or bool (torchmetrics' binary targets) as bool, checked in one
    reduction in the common case (the canonicaliser reads bool labels fastest)."""
    if t.dtype == np.bool_ or not t.size:
        return t
    if t.dtype.kind in "iu":
        unsigned = t.view(np.dtype(f"u{t.dtype.itemsize}"))  # negatives wrap to large
        if int(unsigned.max()) <= 1:  # 0/1: their low byte is the bool (a cheaper cast)
            return t.astype(np.uint8).view(np.bool_)
        bad = unsigned > 1
    elif t.dtype.kind == "f":
        bad = (t != 0) & (t != 1)
        if not bad.any():
            return t.astype(np.bool_)
    else:
        raise ValueError(f"target must hold 0/1 labels (integers, floats or bool); got dtype "
                         f"{t.dtype}")
    at = int(np.flatnonzero(bad.reshape(-1))[0])
    raise ValueError(f"target must hold 0/1 labels; got {t.reshape(-1)[at].item()!r} at "
                     f"flat index {at}")


def _check_weight(w: np.ndarray | None, n: int) -> None:
    if w is not None and (w.ndim != 1 or w.shape[0] != n):
        raise ValueError(f"weight must be 1-D with one weight per row ({n}); got shape {w.shape}")


def _tensor(result: Any) -> torch.Tensor:
    """A fastrank result's number(s) as a float64 CPU tensor."""
    if isinstance(result, Bounds):
        result = result.estimate
    if isinstance(result, readouts.OperatingPoint):
        result = result.value
    values = getattr(result, "values", None)  # a GroupResult
    if isinstance(values, np.ndarray):
        result = values
    return torch.from_numpy(np.array(result, dtype=np.float64))


def _to_torch(value: Any) -> Any:
    """Arrays as tensors (text ids stay arrays); other values as they are."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return torch.from_numpy(np.array(value))
    return value


def _to_numpy(value: Any) -> Any:
    return value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else value
