"""The exact state of :mod:`fastrank.torch`'s metric objects: every row, compactly.

:class:`ExactRows` keeps the batches given to ``update`` as chunks sized to their
rows (:class:`~fastrank.accumulator.Accumulator` s, and :class:`Chunk` s for large
batches of unweighted float scores) and, where the value depends only on each
task's multiset of (score, label), folds mostly tied chunks into a
:class:`TieTable`: each task's distinct scores with their positive and negative
counts, from which :func:`fastrank._core.api.compute_tables` and
:func:`fastrank.readouts.from_tables` compute without the rows.

Plain numpy (no torch import), so that ``import fastrank`` never imports torch and
the state pickles between processes (``torch.distributed``) as plain objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core import api, codec, inputs, workers
from ._core.ids import id_kind
from ._core.tie_tables import count_table
from .accumulator import Accumulator

# exact state: a batch whose scores take at least this many bytes is a chunk of its own
# (sized to it); smaller ones collect in an open chunk, closed (sized to its rows) when
# it holds this many bytes. Few chunks: compute() joins them with one copy.
OPEN_BYTES = 1 << 20
# a closed chunk is folded into tie counts when a sample of this many of its scores
# holds at most 1/TIE_GAIN distinct values (counts take 16 bytes a distinct value)
TIE_SAMPLE = 2048
TIE_GAIN = 8


class ExactRows:
    """Every row, compactly: one Accumulator per large batch (sized to it) and one
    open Accumulator collecting smaller batches, closed at :data:`OPEN_BYTES`;
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
    (:func:`fastrank._core.api.compute_tables`,
    :func:`fastrank.readouts.from_tables`); ``data()`` gives each task's rows back
    from them, sorted by score: the same multiset, so the unweighted metrics are the
    same, bit for bit.

    Large batches of unweighted float scores are :class:`Chunk` s, smaller
    ones and all others :class:`~fastrank.accumulator.Accumulator` s.
    """

    __slots__ = ("chunks", "compactable", "grouped", "id_kind", "labels", "open", "tasks",
                 "ties", "weighted")

    def __init__(self, labels: np.ndarray | None, compactable: bool = False) -> None:
        self.labels = labels
        self.compactable = compactable
        self.chunks: list[Accumulator | Chunk] = []
        self.open = Accumulator(labels=labels)
        self.tasks: int | None = None
        self.grouped: bool | None = None
        self.id_kind: str | None = None
        self.weighted = False
        self.ties: TieTable | None = None

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

    def _add(self, chunk: Accumulator | Chunk) -> None:
        """Append a closed chunk, folded into the tie table where that pays."""
        if self.compactable and not self.weighted and not self.grouped and len(chunk):
            d = chunk.data()
            s, y = np.asarray(d["y_score"]), np.asarray(d["y_true"])
            sample = s.reshape(-1)[:TIE_SAMPLE]
            same_dtype = self.ties is None or self.ties.dtype == s.dtype
            if same_dtype and d["sample_weight"] is None and mostly_tied(sample):
                if self.ties is None:
                    self.ties = TieTable(s.dtype, s.ndim == 1, 1 if s.ndim == 1 else s.shape[1])
                self.ties.add(s, y)
                return
        self.chunks.append(chunk)

    def update(self, y_true: np.ndarray, y_score: np.ndarray, sample_weight: np.ndarray | None,
               groups: np.ndarray | None) -> None:
        tasks = 1 if y_score.ndim == 1 else y_score.shape[1]
        kind = None if groups is None or not groups.shape[0] else id_kind(groups)
        self._check(tasks, groups is not None, kind)
        if y_score.nbytes >= OPEN_BYTES:
            chunk: Accumulator | Chunk
            if sample_weight is None and groups is None and self.labels is None \
                    and y_score.dtype.kind == "f" and y_true.dtype == np.bool_:
                chunk = Chunk(y_true, y_score)  # checked as an Accumulator checks it
            else:
                chunk = Accumulator(labels=self.labels)  # sized to the batch
                chunk.update(y_true, y_score, sample_weight, groups)
            self._close()  # the rows keep their order
            self._note(tasks, groups is not None, kind, sample_weight is not None)
            self._add(chunk)
        else:
            self.open.update(y_true, y_score, sample_weight, groups)
            self._note(tasks, groups is not None, kind, sample_weight is not None)
            if self.open.nbytes >= OPEN_BYTES:
                self._close()

    def merge(self, other: ExactRows) -> ExactRows:
        if not len(other):
            return self
        assert other.tasks is not None and other.grouped is not None
        self._check(other.tasks, other.grouped, other.id_kind)
        self._close()
        self._note(other.tasks, other.grouped, other.id_kind, other.weighted)
        for chunk in list(other.chunks):  # closed chunks are never changed, only read (a
            self._add(chunk)  # copy of the list: other may be self, whose list grows)
        if len(other.open):
            self._add(Accumulator(labels=self.labels).merge(other.open))
        if other.ties is not None:
            if self.compactable and not self.weighted and (
                    self.ties is None or self.ties.dtype == other.ties.dtype):
                if self.ties is None:
                    self.ties = TieTable(other.ties.dtype, other.ties.one_d, other.ties.tasks)
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
            if v.dtype not in inputs.SPECS:
                raise ValueError(f"state_dict['ties'] holds scores of dtype {v.dtype}; a tie "
                                 "table's are of the dtypes its metric keeps scores in ("
                                 f"{', '.join(sorted(str(np.dtype(d)) for d in inputs.SPECS))})")
            if v.size and (not bool(np.all(v[1:] > v[:-1])) or not bool(np.isfinite(v).all())
                           or min(int(p.min()), int(q.min())) < 0):
                raise ValueError("state_dict['ties'] needs increasing finite scores and "
                                 "counts of at least 0")
            totals.add(int(p.sum() + q.sum()))
        if len(totals) != 1:
            raise ValueError("state_dict['ties'] holds tasks of different numbers of rows")
        table = TieTable(values[0].dtype, one_d, tasks)
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

    def _join(self, parts: list[Accumulator | Chunk]) -> dict[str, np.ndarray | None]:
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


class Chunk:
    """One large batch of unweighted, ungrouped rows of float scores and 0/1 labels:
    the scores canonical and checked finite by the functions an Accumulator's
    update calls, both copied once. The labels come checked (0/1, as bool), so
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


class TieTable:
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

    def absorb(self, other: TieTable) -> None:
        for j in range(self.tasks):
            self.values[j], self.pos[j], self.neg[j] = fold(
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
            v, p, q = fold((self.values[j], self.pos[j], self.neg[j]),
                            counted(s2[:, j], y2[:, j]))
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


def mostly_tied(sample: np.ndarray) -> bool:
    """Whether at most 1/TIE_GAIN of the sample's scores are distinct; a prefix just
    over that share, all distinct, says no at a fraction of the sort (the common
    answer for model scores)."""
    limit = sample.size // TIE_GAIN
    prefix = np.sort(sample[:limit + 1])
    if prefix.size == limit + 1 and bool((prefix[1:] != prefix[:-1]).all()):
        return False
    return int(np.unique(sample).size) <= limit


def counted(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
            # (contiguous: torch.from_numpy, in a state_dict, refuses negative strides)
            return (np.ascontiguousarray(codec.decode(gkey[::-1], s.dtype, s.dtype)),
                    gpos[::-1].astype(np.int64), gneg[::-1].astype(np.int64))
    distinct, at = np.unique(s, return_inverse=True)
    pos = np.bincount(at, y, distinct.size).astype(np.int64)  # exact: counts below 2**53
    return distinct, pos, np.bincount(at, None, distinct.size) - pos


def fold(a: api.Table, b: api.Table) -> api.Table:
    """Two tables of one task as one (new arrays; ``b`` itself where ``a`` is empty)."""
    return b if not a[0].size else api.fold_tables([a, b])
