"""Bounded-memory summaries of endless streams, with certified error bounds.

A :class:`BinnedSummary` keeps, per task, the positive and negative totals of a
fixed number of score bins: its memory is ``16 * bins * n_tasks`` bytes
however many rows pass through it. Two summaries with the same bins add up
(``a + b``, associative), so workers and processes summarise their shards and
the summaries are reduced in any order or tree shape.

:meth:`BinnedSummary.compute` returns a :class:`Bounds`: the metric that the
bins give when each bin is one tie group (the estimate), and the least and
greatest value that *any* data with the same per-bin counts could give. The
exact value of the rows that went in always lies between them.

* ROC AUC: only pairs inside one bin are in doubt, so the exact AUC is within
  ``sum_b pos_b * neg_b / (2 P N)`` of the estimate.
* AP: the low bound puts each bin's negatives first and its positives one by
  one; the high bound puts its positives first, all tied (ties inside a bin
  can raise AP above any strict order, so the tied order is the extreme).
* PR AUC (interpolated): the path through a bin lies between
  positives-first and negatives-first, which bound the precision pointwise.
* PRBE: the true-positive mass at predicted mass P lies between the same two.
* d': the AUC bounds mapped through ``sqrt(2) * Phi^-1``.

The bounds are widened by :data:`SLACK` (1e-12) to cover float64 rounding.
When every bin holds a single score value the estimate *is* exact: quantized
scores (``quantized="uint8"``, ``"float16"``, ``"bfloat16"``, ...) and
declared ``values`` get one bin per value, and their results say
``exact=True`` with ``low == estimate == high``.

Choosing bins (the trade-off):

* **uniform** (``bins``, ``range``): free to set up and to merge across
  workers; the error depends on how the scores spread over the range (scores
  crowded into a few bins give wide bounds). Scores outside the range raise
  unless ``clip=True``, which puts them in the end bins; the bounds stay
  certified and :attr:`Bounds.clipped` counts them.
* **edges**: any increasing edges, shared or one row per task.
* **fitted** (:meth:`BinnedSummary.fit`): equal-count bins in the negatives
  of a first sample. If later data look like the sample, every bin holds
  about ``N / bins`` negatives and the AUC bound is at most about
  ``1 / (2 bins)``. The end bins are open, so no score is ever out of range.
  Workers that merge must share the fitted edges (fit once, then copy the
  empty summary: :meth:`BinnedSummary.empty_like`).
* **quantized** / **values**: exact, one bin per distinct value; 256 bins for
  8-bit scores, 65,536 for 16-bit ones (1 MiB per task).
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass
from typing import Any, Literal

import numba
import numpy as np

from ._incoming import (
    batch_labels,
    canonical_scores,
    check_finite,
    first_nonfinite_score,
    where,
)
from ._kernels.histogram import (
    B_AP,
    B_AUC,
    B_NEG,
    B_POS,
    B_PR_AUC,
    B_PRBE,
    B_SIZE,
    MODE_EDGES,
    MODE_INDEX,
    MODE_UNIFORM,
    bounds,
    histogram_parallel,
    histogram_serial,
    range_scan,
)
from ._validation import as_array, check_weights, native
from .batch import average_values, d_prime_of, pool_slot
from .exceptions import warn_undefined, warn_undefined_tasks

__all__ = ["SLACK", "BinnedSummary", "Bounds"]

SLACK = 1e-12  # certified bounds are widened by this much to cover float64 rounding

# quantized dtype -> (number of bins, smallest value) for integer kinds
_INTEGER_KINDS: dict[str, tuple[int, int]] = {
    "bool": (2, 0),
    "uint8": (256, 0),
    "int8": (256, -128),
    "uint16": (65536, 0),
    "int16": (65536, -32768),
}
QUANTIZED = (*_INTEGER_KINDS, "float16", "bfloat16")
METRICS = ("roc_auc", "average_precision", "pr_auc", "prbe", "d_prime")
_COLUMN = {"roc_auc": B_AUC, "average_precision": B_AP, "pr_auc": B_PR_AUC, "prbe": B_PRBE}
_NO_WEIGHTS = np.empty(0, np.float64)


@dataclass(frozen=True, slots=True, eq=False)
class Bounds:
    """A metric from a :class:`BinnedSummary`: its estimate and certified bounds.

    Scalars for a single task or an average, float64 arrays (one entry per
    task) for a batch with ``average=None``.

    Attributes
    ----------
    metric : str
        The metric's name (``"roc_auc"``, ``"average_precision"``, ...).
    estimate : float or ndarray
        The metric with each bin taken as one tie group.
    low, high : float or ndarray
        Certified bounds: the exact metric of all rows summarised lies in
        ``[low, high]``. Equal to ``estimate`` when ``exact``.
    exact : bool
        True when each bin holds one score value (quantized or declared
        values), so that the estimate is the exact metric.
    positives, negatives : float or ndarray
        Positive and negative totals (exact, whatever the bins).
    clipped : int or ndarray
        Rows whose score lay outside the bins' range and were counted in an
        end bin (``clip=True``); the bounds account for them.
    """

    metric: str
    estimate: Any
    low: Any
    high: Any
    exact: bool
    positives: Any
    negatives: Any
    clipped: Any

    @property
    def width(self) -> Any:
        """``high - low``."""
        return self.high - self.low

    def __iter__(self) -> Any:
        """Unpack as ``estimate, low, high``."""
        return iter((self.estimate, self.low, self.high))


def _check_bins(bins: Any) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"bins must be a positive integer; got {bins!r}")
    if bins < 1:
        raise ValueError(f"bins must be at least 1; got {bins}")
    return int(bins)


def _check_edges(edges: Any) -> np.ndarray:
    e = np.array(as_array(edges, "edges"), dtype=np.float64, copy=True)
    if e.ndim not in (1, 2) or e.shape[-1] < 2:
        raise ValueError(
            f"edges must be 1-D (shared) or 2-D (one row per task) with at least 2 edges; "
            f"got shape {e.shape}"
        )
    if np.isnan(e).any():
        raise ValueError("edges contain NaN")
    padded = e.ndim == 2
    e = e if padded else e[None, :]
    for row in e:
        # a per-task row may end in repeated +inf: empty bins that pad it to the
        # table's width, as BinnedSummary.fit makes
        top = row.shape[0]
        while padded and top > 2 and row[top - 1] == np.inf and row[top - 2] == np.inf:
            top -= 1
        real = row[:top]
        if not np.isfinite(real[1:-1]).all():
            raise ValueError(
                "only the first and last edge may be infinite (a row of 2-D edges may end "
                "in repeated +inf, which are empty bins)"
            )
        with np.errstate(invalid="ignore"):
            if not (np.diff(real) > 0).all():
                raise ValueError("edges must be strictly increasing")
    return e


class BinnedSummary:
    """A fixed-memory, mergeable summary of labelled scores, one per task.

    Parameters
    ----------
    bins : int, default 1000
        Number of uniform bins over ``range`` (ignored with ``edges``,
        ``quantized`` or ``values``).
    range : (float, float), default (0.0, 1.0)
        The score range the uniform bins cover.
    edges : array-like, optional
        Increasing bin edges: 1-D (shared by all tasks) or 2-D (one row per
        task). Bin ``b`` holds scores in ``[edges[b], edges[b + 1])``; the last
        bin includes its upper edge. The ends may be infinite.
    quantized : {"bool", "uint8", "int8", "uint16", "int16", "float16", "bfloat16"}, optional
        Scores take values of this type only (scores of that dtype, or of any
        dtype whose values it holds exactly): one bin per value, exact results.
    values : array-like, optional
        The distinct values scores may take (e.g. a model's rounded outputs):
        one bin per value, exact results. Any other score is an error.
    clip : bool, default False
        Count scores outside ``range``/``edges`` in the end bins instead of
        raising. The bounds stay certified; results report how many rows were
        clipped.
    pos_label : scalar, optional
        The positive label, as in :func:`fastrank.roc_auc`.

    Examples
    --------
    >>> import numpy as np, fastrank
    >>> rng = np.random.default_rng(0)
    >>> summary = fastrank.BinnedSummary(bins=1000)
    >>> for _ in range(10):  # ten batches of a stream
    ...     y = rng.random(10_000) < 0.3
    ...     p = 1 / (1 + np.exp(-(rng.standard_normal(10_000) + y)))  # probabilities
    ...     summary.update(y, p)
    >>> auc = summary.compute("roc_auc")
    >>> round(auc.estimate, 4), round(auc.low, 4), round(auc.high, 4)
    (0.761, 0.7605, 0.7616)

    Exact for quantized scores:

    >>> s = fastrank.BinnedSummary(quantized="uint8")
    >>> s.update([1, 0, 1, 0], np.array([200, 10, 10, 3], np.uint8))
    >>> r = s.compute("roc_auc")
    >>> r.estimate, r.low, r.high, r.exact
    (0.875, 0.875, 0.875, True)
    """

    def __init__(
        self,
        bins: int = 1000,
        *,
        range: tuple[float, float] = (0.0, 1.0),
        edges: Any = None,
        quantized: str | None = None,
        values: Any = None,
        clip: bool = False,
        pos_label: Any = None,
    ) -> None:
        chosen = [name for name, v in (("edges", edges), ("quantized", quantized),
                                       ("values", values)) if v is not None]
        if len(chosen) > 1:
            raise ValueError(f"give at most one of edges, quantized and values; got {chosen}")
        self._clip = bool(clip)
        self._pos_label = pos_label
        self._quantized: str | None = None
        self._values: np.ndarray | None = None
        self._lo = np.zeros(1)
        self._width = np.zeros(1)
        self._edges = np.zeros((1, 2))
        if quantized is not None:
            if quantized not in QUANTIZED:
                raise ValueError(f"quantized must be one of {QUANTIZED}; got {quantized!r}")
            self._mode = MODE_INDEX
            self._quantized = quantized
            self._nb = _INTEGER_KINDS[quantized][0] if quantized in _INTEGER_KINDS else 65536
        elif values is not None:
            v = as_array(values, "values")
            if v.ndim != 1 or v.shape[0] == 0:
                raise ValueError(f"values must be a non-empty 1-D list; got shape {v.shape}")
            if v.dtype.kind not in "biuf":
                raise TypeError(f"values must be real numbers; got dtype {v.dtype}")
            v64 = v.astype(np.float64)
            if not np.isfinite(v64).all():
                raise ValueError("values must be finite")
            v64 = np.unique(v64)  # sorted; -0.0 and 0.0 are one value
            if v64.shape[0] != v.shape[0]:
                raise ValueError("values must be distinct")
            self._mode = MODE_INDEX
            self._values = v64
            self._nb = int(v64.shape[0])
        elif edges is not None:
            self._mode = MODE_EDGES
            self._edges = _check_edges(edges)
            self._nb = self._edges.shape[1] - 1
        else:
            nb = _check_bins(bins)
            lo, hi = _check_range(range)
            self._mode = MODE_UNIFORM
            self._nb = nb
            self._lo = np.array([lo])
            self._width = np.array([hi - lo])
            self._edges = np.linspace(lo, hi, nb + 1)[None, :]
            self._edges[0, -1] = hi
        self._ntasks: int | None = None  # fixed by the first update (or the edges)
        self._one_d = True
        if self._edges.shape[0] > 1:
            self._ntasks = self._edges.shape[0]
            self._one_d = False
        self._counts: np.ndarray | None = None
        self._clipped: np.ndarray | None = None
        self._rows = 0
        self._weighted = False

    # ------------------------------------------------------------------ construction

    @classmethod
    def fit(
        cls,
        y_true: Any,
        y_score: Any,
        bins: int = 1000,
        *,
        sample_weight: Any = None,
        pos_label: Any = None,
    ) -> BinnedSummary:
        """An empty summary whose bins hold equal shares of the negatives of a sample.

        Each task gets its own edges: the negatives' weighted quantiles at
        ``1/bins, 2/bins, ...`` (repeated values merged, so a task may get
        fewer bins), with open end bins. Nothing is counted yet: update the
        summary with the sample too if it belongs to the stream.

        If the stream looks like the sample, each bin holds about ``1/bins``
        of the negatives and the ROC AUC bound is at most about ``1/(2 bins)``.

        Examples
        --------
        >>> import numpy as np, fastrank
        >>> rng = np.random.default_rng(1)
        >>> y = rng.random(100_000) < 0.1
        >>> logits = rng.standard_normal(100_000) + 2 * y  # any real scale
        >>> s = fastrank.BinnedSummary.fit(y[:10_000], logits[:10_000], bins=200)
        >>> s.update(y, logits)
        >>> float(s.compute("roc_auc").width) < 1 / 200
        True
        """
        nb = _check_bins(bins)
        s = as_array(y_score, "y_score")
        if s.ndim not in (1, 2):
            raise ValueError(f"y_score must be 1-D or 2-D; got shape {s.shape}")
        values = canonical_scores(s, "y_score")
        n = s.shape[0]
        t = 1 if s.ndim == 1 else s.shape[1]
        if n == 0:
            raise ValueError("fit needs at least one sample to place the bins")
        bad = first_nonfinite_score(values)
        if bad >= 0:
            raise ValueError(
                f"y_score contains a non-finite value ({values[bad]!r} at "
                f"{where(bad, s.ndim, t)}); scores must be finite"
            )
        labels = batch_labels(y_true, s.ndim, n, t, pos_label).reshape(n, t)
        w, _ = check_weights(sample_weight, n)  # a power-of-two unit moves no quantile
        weights = np.ones(n) if w is None else w
        scores = values.reshape(n, t).astype(np.float64)
        rows = []
        for j in builtins.range(t):
            neg = labels[:, j] == 0
            pick = neg if neg.any() and weights[neg].sum() > 0 else weights >= 0
            col, wcol = scores[pick, j], weights[pick]
            order = np.argsort(col, kind="stable")
            col, cum = col[order], np.cumsum(wcol[order])
            total = cum[-1]
            if total > 0:  # the first score above each share k/bins of the weight
                at = np.searchsorted(cum, total * np.arange(1, nb) / nb, side="right")
                inner = np.unique(col[np.minimum(at, col.shape[0] - 1)])
            else:
                inner = np.unique(col)
            inner = inner[inner > col[0]]
            rows.append(inner)
        width = max(r.shape[0] for r in rows) + 2
        edges = np.full((t, width), np.inf)
        edges[:, 0] = -np.inf
        for j, inner in enumerate(rows):
            edges[j, 1:1 + inner.shape[0]] = inner
        out = cls(pos_label=pos_label)
        out._mode = MODE_EDGES
        out._edges = edges
        out._nb = width - 1
        out._ntasks = t
        out._one_d = s.ndim == 1
        return out

    def empty_like(self) -> BinnedSummary:
        """A summary with the same bins and no rows (for another worker)."""
        out = self.copy()
        out.reset()
        return out

    def copy(self) -> BinnedSummary:
        """An independent copy."""
        out = object.__new__(BinnedSummary)
        out.__dict__.update(self.__dict__)
        for name in ("_lo", "_width", "_edges", "_values", "_counts", "_clipped"):
            value = getattr(self, name)
            setattr(out, name, None if value is None else value.copy())
        return out

    # ------------------------------------------------------------------ properties

    @property
    def bins(self) -> int:
        """Number of bins per task."""
        return self._nb

    @property
    def exact(self) -> bool:
        """Whether every bin holds one score value (quantized or declared values)."""
        return self._mode == MODE_INDEX

    @property
    def n_tasks(self) -> int | None:
        """Tasks summarised (``None`` until the first update fixes it)."""
        return self._ntasks

    @property
    def rows(self) -> int:
        """Rows summarised so far."""
        return self._rows

    @property
    def edges(self) -> np.ndarray | None:
        """Bin edges, 1-D if shared or ``(n_tasks, bins + 1)``; ``None`` when exact.

        A fitted task with fewer distinct edges is padded with ``+inf``
        (empty bins).
        """
        if self._mode == MODE_INDEX:
            return None
        return self._edges[0].copy() if self._edges.shape[0] == 1 else self._edges.copy()

    @property
    def values(self) -> np.ndarray | None:
        """The score of each bin when exact (NaN for bit patterns that are not finite
        scores), else ``None``."""
        if self._values is not None:
            return self._values.copy()
        if self._quantized is None:
            return None
        if self._quantized in _INTEGER_KINDS:
            nb, low = _INTEGER_KINDS[self._quantized]
            out = np.arange(low, low + nb, dtype=np.float64)
            return out
        bits = _key_bits(np.arange(65536, dtype=np.uint32))
        with np.errstate(invalid="ignore", over="ignore"):  # NaN bit patterns
            if self._quantized == "float16":
                v = bits.astype(np.uint16).view(np.float16).astype(np.float64)
            else:
                v = (bits << 16).astype(np.uint32).view(np.float32).astype(np.float64)
        v[~np.isfinite(v)] = np.nan
        v[32767] = np.nan  # -0.0's key: it shares the bin of +0.0
        return v

    @property
    def positives(self) -> np.ndarray:
        """Positive totals per bin, ``(bins,)`` or ``(n_tasks, bins)``."""
        return self._table(1)

    @property
    def negatives(self) -> np.ndarray:
        """Negative totals per bin, ``(bins,)`` or ``(n_tasks, bins)``."""
        return self._table(0)

    @property
    def nbytes(self) -> int:
        """Bytes held by the counts and the bins (independent of the rows)."""
        held = [self._counts, self._clipped, self._edges, self._lo, self._width, self._values]
        return sum(a.nbytes for a in held if a is not None)

    def _table(self, k: int) -> np.ndarray:
        t = self._ntasks or 1
        counts = self._counts if self._counts is not None else np.zeros((t, 2, self._nb))
        out = counts[:, k, :].copy()
        return out[0] if self._one_d else out

    # ------------------------------------------------------------------ updating

    def update(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> None:
        """Add a batch: 1-D (one task) or ``(n_samples, n_tasks)`` labels and scores.

        Everything is checked before anything is counted: a rejected batch
        leaves the summary as it was. Labels may be dense, ``scipy.sparse``
        (2-D) or anything array-like (CPU torch tensors included).

        Raises
        ------
        ValueError
            A batch whose number of tasks differs from earlier ones, non-finite
            scores, scores outside the bins (without ``clip=True``), scores that
            are not of the declared quantized type or values, bad labels or
            weights.
        """
        s = as_array(y_score, "y_score")
        if s.ndim not in (1, 2):
            raise ValueError(
                f"y_score must be 1-D (one task) or 2-D (n_samples, n_tasks); got shape {s.shape}"
            )
        n = s.shape[0]
        t = 1 if s.ndim == 1 else s.shape[1]
        self._check_tasks(s.ndim == 1, t, "update with")
        if s.dtype.kind not in "biuf" and not _is_bfloat16(s):
            raise TypeError(
                f"y_score must hold real numbers (float, int or bool); got dtype {s.dtype}"
            )
        labels = batch_labels(y_true, s.ndim, n, t, self._pos_label)
        w, unit = check_weights(sample_weight, n)
        weights = _NO_WEIGHTS if w is None else w * unit
        outside = np.zeros(t, np.int64)
        if self._mode == MODE_INDEX:
            values = self._indices(s, t)
        else:
            values = canonical_scores(s, "y_score")
            lo = np.ascontiguousarray(np.broadcast_to(self._edges[:, 0], (t,)))
            hi = np.ascontiguousarray(np.broadcast_to(self._edges[:, -1], (t,)))
            bad, out = range_scan(values, t, lo, hi, outside)
            if bad >= 0:
                row, task = divmod(bad, t)
                raise ValueError(
                    f"y_score contains a non-finite value ({values[bad]!r} at "
                    + (f"index {row}" if s.ndim == 1 else f"row {row}, task {task}")
                    + "); scores must be finite"
                )
            if out >= 0 and not self._clip:
                row, task = divmod(out, t)
                raise ValueError(
                    f"y_score holds {values[out]!r} at "
                    + (f"index {row}" if s.ndim == 1 else f"row {row}, task {task}")
                    + f", outside the bins' range [{lo[task]!r}, {hi[task]!r}]; widen the "
                    "range, fit the bins (BinnedSummary.fit), or pass clip=True to count "
                    "such scores in the end bins"
                )
        # -- nothing below can fail: the batch is counted whole
        if self._counts is None:
            self._counts = np.zeros((t, 2, self._nb), np.float64)
            self._clipped = np.zeros(t, np.int64)
            self._ntasks = t
            self._one_d = s.ndim == 1
        assert self._clipped is not None
        if n:
            self._histogram(values, labels, weights, n, t)
        self._clipped += outside
        self._rows += n
        self._weighted = self._weighted or w is not None

    def _check_tasks(self, one_d: bool, t: int, what: str) -> None:
        if self._ntasks is None:
            return
        if one_d != self._one_d or t != self._ntasks:
            have = "1-D scores (one task)" if self._one_d else f"{self._ntasks} tasks"
            got = "1-D scores (one task)" if one_d else f"{t} tasks"
            raise ValueError(f"this summary holds {have}; cannot {what} {got}")

    def _histogram(self, values: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                   n: int, t: int) -> None:
        assert self._counts is not None
        lo = np.ascontiguousarray(np.broadcast_to(self._lo, (t,)), dtype=np.float64)
        width = np.ascontiguousarray(np.broadcast_to(self._width, (t,)), dtype=np.float64)
        edges = self._edges
        if edges.shape[0] != t:
            edges = np.ascontiguousarray(np.broadcast_to(edges, (t, edges.shape[1])))
        nchunks = numba.get_num_threads()
        args = (values, labels, weights, n, t, self._mode, lo, width, self._nb, edges,
                self._counts)
        with pool_slot(nchunks, n * t) as parallel:
            if parallel:
                histogram_parallel(*args, nchunks)
            else:
                histogram_serial(*args, 1)

    def _indices(self, s: np.ndarray, t: int) -> np.ndarray:
        """Bin index of every score (flat, row-major) for the exact modes."""
        if self._values is not None:
            v = canonical_scores(s, "y_score").astype(np.float64)
            check_finite(v, s.ndim, t)
            at = np.searchsorted(self._values, v)
            found = at < self._values.shape[0]
            found[found] = self._values[at[found]] == v[found]
            if not found.all():
                i = int(np.flatnonzero(~found)[0])
                raise ValueError(
                    f"y_score holds {v[i]!r} at {where(i, s.ndim, t)}, which is not one of "
                    f"the {self._values.shape[0]} declared values"
                )
            return at.astype(np.int64)
        q = self._quantized
        assert q is not None
        if q in _INTEGER_KINDS:
            nb, low = _INTEGER_KINDS[q]
            flat = native(np.ascontiguousarray(s)).reshape(-1)
            if flat.dtype.kind == "f":
                check_finite(flat, s.ndim, t)
            x = flat.astype(np.float64) if flat.dtype.kind == "f" else flat
            ok = (x >= low) & (x <= low + nb - 1)
            if x.dtype.kind == "f":
                ok &= x == np.floor(x)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(
                    f"y_score holds {flat[i]!r} at {where(i, s.ndim, t)}, which is not a "
                    f"{q} value (quantized={q!r})"
                )
            return (x.astype(np.int64) - low) if low else x.astype(np.int64)
        return _float_keys(s, q, t)

    # ------------------------------------------------------------------ merging

    def merge(self, other: BinnedSummary) -> BinnedSummary:
        """Add another summary's counts to this one (in place); returns ``self``.

        Both must have the same bins (mode, edges, values or quantized type)
        and, once updated, the same tasks.
        """
        if not isinstance(other, BinnedSummary):
            raise TypeError(f"can only merge a BinnedSummary; got {type(other).__name__}")
        self._check_same_bins(other)
        if other._counts is None:
            return self
        assert other._clipped is not None
        self._check_tasks(other._one_d, other._ntasks or 1, "merge a summary of")
        if self._counts is None:
            self._counts = other._counts.copy()
            self._clipped = other._clipped.copy()
            self._ntasks = other._ntasks
            self._one_d = other._one_d
        else:
            assert self._clipped is not None
            self._counts += other._counts
            self._clipped += other._clipped
        self._rows += other._rows
        self._weighted = self._weighted or other._weighted
        return self

    def _check_same_bins(self, other: BinnedSummary) -> None:
        if self._mode != other._mode or self._nb != other._nb:
            raise ValueError(
                f"cannot merge summaries with different bins ({self._describe()} and "
                f"{other._describe()})"
            )
        same = (
            self._quantized == other._quantized
            and np.array_equal(self._lo, other._lo)
            and np.array_equal(self._width, other._width)
            and np.array_equal(self._edges, other._edges)
            and _same(self._values, other._values)
        )
        if not same:
            raise ValueError(
                f"cannot merge summaries with different bins ({self._describe()} and "
                f"{other._describe()}); give every worker the same bins (empty_like)"
            )

    def _describe(self) -> str:
        if self._quantized is not None:
            return f"quantized={self._quantized!r}"
        if self._values is not None:
            return f"{self._nb} declared values"
        if self._mode == MODE_UNIFORM:
            lo, hi = self._edges[0, 0], self._edges[0, -1]
            return f"{self._nb} uniform bins over [{lo!r}, {hi!r}]"
        return f"{self._nb} bins with edges of shape {self._edges.shape}"

    def __add__(self, other: BinnedSummary) -> BinnedSummary:
        if not isinstance(other, BinnedSummary):
            return NotImplemented
        return self.copy().merge(other)

    def __iadd__(self, other: BinnedSummary) -> BinnedSummary:
        if not isinstance(other, BinnedSummary):
            return NotImplemented
        return self.merge(other)

    def reset(self) -> None:
        """Forget every row; keep the bins (and the number of tasks)."""
        if self._counts is not None:
            self._counts[...] = 0.0
        if self._clipped is not None:
            self._clipped[...] = 0
        self._rows = 0
        self._weighted = False

    def __repr__(self) -> str:
        tasks = "no rows yet" if self._ntasks is None else (
            "1 task" if self._one_d else f"{self._ntasks} tasks")
        return f"BinnedSummary({self._describe()}, {tasks}, {self._rows} rows)"

    # ------------------------------------------------------------------ results

    def compute(
        self,
        metric: Literal["roc_auc", "average_precision", "pr_auc", "prbe", "d_prime"] = "roc_auc",
        *,
        average: Literal["macro", "weighted", "size", "pairs"] | None = None,
    ) -> Bounds:
        """The metric's estimate and certified bounds, per task or averaged.

        Parameters
        ----------
        metric : {"roc_auc", "average_precision", "pr_auc", "prbe", "d_prime"}
        average : {"macro", "weighted", "size", "pairs"}, optional
            For several tasks, average the estimates and the bounds over the
            tasks where the metric is defined (weights as in
            :func:`fastrank.roc_auc`: positives, samples, or positive-negative
            pairs). The averaged bounds bound the average exactly.

        Returns
        -------
        Bounds
            NaN (with one :class:`~fastrank.UndefinedMetricWarning`) for tasks
            that lack a class the metric needs.
        """
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}; got {metric!r}")
        if average is not None and average not in ("macro", "weighted", "size", "pairs"):
            raise ValueError(
                "average must be None, 'macro', 'weighted', 'size' or 'pairs'; "
                f"got {average!r}"
            )
        if self._counts is None or self._rows == 0:
            raise ValueError("the summary is empty: update it with at least one row first")
        assert self._clipped is not None
        table = np.empty((self._counts.shape[0], B_SIZE), np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds(self._counts, self._weighted, table)
        pos, neg = table[:, B_POS], table[:, B_NEG]
        col = _COLUMN["roc_auc" if metric == "d_prime" else metric]
        est, low, high = (table[:, col + k].copy() for k in builtins.range(3))
        if metric in ("roc_auc", "d_prime"):
            undefined = (pos == 0) | (neg == 0)
        else:
            undefined = pos == 0
        est = np.clip(est, 0.0, 1.0)  # a rounding error must not leave [0, 1]
        if self.exact:
            low[...] = est
            high[...] = est
        else:
            low = np.clip(low - SLACK, 0.0, 1.0)
            high = np.clip(high + SLACK, 0.0, 1.0)
            est = np.clip(est, low, high)
        if metric == "d_prime":
            est, low, high = d_prime_of(est), d_prime_of(low), d_prime_of(high)
        for a in (est, low, high):
            a[undefined] = math.nan
        if self._one_d:
            if undefined[0]:
                warn_undefined(f"{metric} is", pos[0], neg[0])
            return Bounds(metric, float(est[0]), float(low[0]), float(high[0]), self.exact,
                          float(pos[0]), float(neg[0]), int(self._clipped[0]))
        warn_undefined_tasks(f"{metric} is", "tasks", pos, neg, undefined, average)
        if average is None:
            return Bounds(metric, est, low, high, self.exact, pos, neg, self._clipped.copy())
        return Bounds(
            metric,
            average_values(est, pos, neg, average),
            average_values(low, pos, neg, average),
            average_values(high, pos, neg, average),
            self.exact, float(pos.sum()), float(neg.sum()), int(self._clipped.sum()),
        )


# ---------------------------------------------------------------------------- helpers


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return bool(np.array_equal(a, b))


def _check_range(r: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in r)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"range must be two numbers (low, high); got {r!r}") from exc
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"range must be finite with low < high; got {r!r}")
    if not math.isfinite(hi - lo):
        raise ValueError(f"range {r!r} is too wide for float64 arithmetic")
    return lo, hi


def _is_bfloat16(s: np.ndarray) -> bool:
    return s.dtype.name == "bfloat16" and s.dtype.itemsize == 2


def _key_bits(key: np.ndarray) -> np.ndarray:
    """16-bit float bits from order keys (inverse of the key map in :func:`_float_keys`)."""
    k = key.astype(np.uint32)
    return np.where(k & 0x8000, k ^ 0x8000, k ^ 0xFFFF).astype(np.uint32)


def _float_keys(s: np.ndarray, q: str, t: int) -> np.ndarray:
    """Order keys (bin indices) of float16 or bfloat16 scores, flat row-major."""
    if _is_bfloat16(s):
        if q != "bfloat16":
            raise ValueError(f"y_score is bfloat16 but the summary is quantized={q!r}")
        bits = np.ascontiguousarray(s).reshape(-1).view(np.uint16).astype(np.uint32)
        exp = 0x7F80
    elif q == "float16":
        flat = native(np.ascontiguousarray(s)).reshape(-1)
        if flat.dtype != np.float16:
            if flat.dtype.kind == "f":
                check_finite(flat, s.ndim, t)
            with np.errstate(over="ignore", invalid="ignore"):  # too large: inf, caught below
                h = flat.astype(np.float16)
            back = h.astype(flat.dtype)
            bad = back != flat
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"y_score holds {flat[i]!r} at {where(i, s.ndim, t)}, which float16 "
                    "does not hold exactly (quantized='float16')"
                )
            flat = h
        bits = flat.view(np.uint16).astype(np.uint32)
        exp = 0x7C00
    else:  # bfloat16 values given as float32 (or anything float32 holds exactly)
        flat = native(np.ascontiguousarray(s)).reshape(-1)
        if flat.dtype.kind == "f":
            check_finite(flat, s.ndim, t)
        with np.errstate(over="ignore", invalid="ignore"):  # too large: inf, caught below
            f32 = flat.astype(np.float32)
        if flat.dtype != np.float32 and not np.array_equal(f32.astype(flat.dtype), flat):
            raise ValueError("y_score holds values that float32, let alone bfloat16, "
                             "does not hold exactly (quantized='bfloat16')")
        b32 = f32.view(np.uint32)
        low = (b32 & 0xFFFF) != 0
        if low.any():
            i = int(np.flatnonzero(low)[0])
            raise ValueError(
                f"y_score holds {flat[i]!r} at {where(i, s.ndim, t)}, which is not a "
                "bfloat16 value (quantized='bfloat16'); round the scores to bfloat16 first"
            )
        bits = (b32 >> 16).astype(np.uint32)
        exp = 0x7F80
    nonfinite = (bits & exp) == exp
    if nonfinite.any():
        i = int(np.flatnonzero(nonfinite)[0])
        raise ValueError(
            f"y_score contains a non-finite value at {where(i, s.ndim, t)}; scores must be finite"
        )
    bits[bits == 0x8000] = 0  # -0.0 shares the bin of +0.0
    key = np.where(bits & 0x8000, bits ^ 0xFFFF, bits ^ 0x8000)
    return key.astype(np.int64)
