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
from ._core import api
from ._optional import require
from ._torch_state import ExactRows
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
_ROWS = object()  # _from_counts's answer where the result needs the rows
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
        ``k=5``, ``average="weighted"``, ...): their names are checked now, their
        values when the metric is computed.

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
        self._state: ExactRows | BinnedSummary = self._empty()

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

    def _empty(self) -> ExactRows | BinnedSummary:
        if self._template is not None:
            return self._template.empty_like()
        return ExactRows(None, compactable=self._order_free())

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

    def _from_counts(self, state: ExactRows) -> Any:
        """The result from each task's tie counts, without giving the rows back
        (:func:`fastrank._core.api.compute_tables`, :func:`fastrank.readouts.from_tables`:
        the one-shot call's own steps after its tie groups), or :data:`_ROWS` where
        the rows are needed."""
        ties = state.ties
        if ties is None or state.weighted or state.grouped or ties.dtype.kind != "f":
            return _ROWS
        rows = state.rows_data()
        if rows is not None and np.asarray(rows["y_score"]).dtype != ties.dtype:
            return _ROWS  # the one-shot call promotes mixed dtypes: the rows say how
        tables = ties.tables(rows)
        if self.metric in _READOUTS:
            if not readouts.reads_whole_tables(tables):
                return _ROWS
            return readouts.from_tables(self.metric, self.options, tables, ties.one_d,
                                        stacklevel=3)  # the caller of result()
        if self.metric not in _SCALARS or not set(self.options) <= api.TABLE_OPTIONS:
            return _ROWS
        return api.compute_tables(self.metric, tables, ties.one_d, stacklevel=3, **self.options)

    def _synced(self) -> ExactRows | BinnedSummary:
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
                    "one_d": ties.one_d, "values": [_to_torch(v) for v in ties.values],
                    "pos": [_to_torch(v) for v in ties.pos],
                    "neg": [_to_torch(v) for v in ties.neg]}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace the state by one from :meth:`state_dict` (of a metric with the
        same settings); checked whole before anything changes."""
        if state.get("metric") != self.metric or state.get("bounded") != self.bounded:
            raise ValueError(f"this state_dict is of metric {state.get('metric')!r} "
                             f"(bounded={state.get('bounded')}); this is {self!r}")
        need = ("summary",) if self.bounded else ("rows", "ties")
        lacking = [k for k in need if k not in state]
        if state.get("ties") is not None:
            lacking += [f"ties.{k}" for k in ("one_d", "values", "pos", "neg")
                        if k not in state["ties"]]
        if lacking:
            raise ValueError(f"this state_dict lacks {', '.join(map(repr, lacking))}: it is not "
                             "one that state_dict() made")
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

    def _empty(self) -> ExactRows | BinnedSummary:
        if self._template is not None:
            return self._template.empty_like()
        return ExactRows(np.arange(self.num_classes))  # rows pair labels with columns

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
            if x.is_floating_point() and x.dtype not in (torch.float16, torch.float32,
                                                          torch.float64):
                x = x.float()  # bfloat16, float8: numpy has none; float32 holds each exactly
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
