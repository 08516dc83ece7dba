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
* Readouts (operating points, best cutoffs, partial ROC and PR areas): the
  readout with every bin's positives first (high) and negatives first (low);
  an operating point's estimate is the cutoff at a bin edge, where the counts
  are exact, with that edge as its threshold.

The bounds are widened by :data:`SLACK` (1e-12) to cover float64 rounding.
They do not depend on the weights' scale: each task's totals are divided by
an exact power of two before the bounds are formed, so weights scaled by a
power of two give bit for bit the same estimate and bounds, and weights of
``1e-300`` or ``1e300`` what weights near 1 give (up to rounding). Classes
whose weights lie more than about ``2**1800`` apart are refused, as the
one-shot functions refuse them.

When every bin holds a single score value the estimate *is* exact: quantized
scores (``quantized="uint8"``, ``"float16"``, ``"bfloat16"``, ...) and
declared ``values`` get one bin per value, and their results say
``exact=True`` with ``low == estimate == high``. Without weights the value
is computed by the one-shot functions' own sweep over the bins (each bin one
tie group, exact integer counts): it is the one-shot value
(:func:`fastrank.roc_auc`, ...) bit for bit. With weights, each bin's total
is a float64 sum formed in the order the rows arrived (and were merged), and
the bins are swept as the one-shot functions sweep a weighted task (totals in
fixed point): the value is the one-shot function's for rows of those totals,
bit for bit where each total is exact (one row a bin, integer weights), and
may otherwise differ from the rows' in the last bits (about 1e-16).

Choosing bins (the trade-off):

* **uniform** (``bins``, ``range``): free to set up and to merge across
  workers; the error depends on how the scores spread over the range (scores
  crowded into a few bins give wide bounds). Scores outside the range raise
  unless ``clip=True``, which puts them in the end bins; the bounds stay
  certified and the ``clipped`` field of :class:`Bounds` counts them.
* **edges**: any increasing edges, shared or one row per task.
* **fitted** (:meth:`BinnedSummary.fit`): equal-count bins in the negatives
  of a first sample. If later data look like the sample, every bin holds
  about ``N / bins`` negatives and the AUC bound is at most about
  ``1 / (2 bins)``. The end bins are open, so no score is ever out of range.
  Workers that merge must share the fitted edges (fit once, then copy the
  empty summary: :meth:`BinnedSummary.empty_like`).
* **quantized** / **values**: exact, one bin per distinct value; 256 bins for
  8-bit scores, 65,536 for 16-bit ones (1 MiB per task).

A summary may be updated and merged from several threads at once: each
update or merge is applied whole, one at a time.
"""

from __future__ import annotations

import builtins
import itertools
import math
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from . import readouts
from ._core import reduce, registry, stream_inputs, workers
from ._core.inputs import as_array, plain, readonly
from ._kernels.histogram import (
    B_NEG,
    B_POS,
    MODE_EDGES,
    MODE_INDEX,
    MODE_UNIFORM,
    TASK_BLOCK,
    histogram_block,
    uniform_edges,
)
from ._kernels.sweep import OUT_NEG, OUT_POS
from ._summaries.checks import check_bins, check_edges, check_range, check_values, same_values
from ._summaries.edges import fitted_edges
from ._summaries.results import bounds_table, exact_rows, task_units, tasks_in_parallel
from ._summaries.values import float_keys, index_text, key_bits, lookup
from .exceptions import UndefinedMetricWarning

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
READOUTS = readouts.BOOTSTRAP_READOUTS  # with their options, as the one-shot functions
_AVERAGES = ("macro", "weighted", "size", "pairs")
_NO_WEIGHTS = readonly(np.empty(0, np.float64))
_NO_RANGE = readonly(np.zeros(1, np.float64))  # lo/width where the kernel reads none
_NO_EDGES = readonly(np.zeros((1, 2), np.float64))
_OVERFLOW = ("the sample weights' totals exceed float64's range (the bins keep them in the "
             "weights' own units); rescale the weights")


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
        ``[low, high]``. Equal to ``estimate`` when ``exact`` (with sample
        weights the bins' totals are rounded sums, so the exact value may then
        differ from it in the last bits).
    exact : bool
        True when each bin holds one score value (quantized or declared
        values), so that the estimate is the exact metric (bit for bit the
        one-shot function's without weights; see :mod:`fastrank.summaries`
        for weights).
    positives, negatives : float or ndarray
        Positive and negative totals (exact, whatever the bins).
    clipped : int or ndarray
        Rows whose score lay outside the bins' range and were counted in an
        end bin (``clip=True``); the bounds account for them.
    threshold : float, ndarray or None
        For an operating point or best cutoff: the cutoff of the estimate, a
        bin's lower edge (its value when exact), as the rule "positive when
        score >= threshold"; the rows' counts at that cutoff are exact, so the
        estimate is the rate that rule gives (conservative points). ``None``
        for the other metrics and for averages.

    Examples
    --------
    >>> import fastrank
    >>> s = fastrank.BinnedSummary(bins=2)
    >>> s.update([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.7])
    >>> b = s.compute("roc_auc")  # two pairs certain, two inside the upper bin
    >>> b.estimate, round(b.low, 9), b.high, b.exact
    (0.75, 0.5, 1.0, False)
    >>> estimate, low, high = b
    """

    metric: str
    estimate: Any
    low: Any
    high: Any
    exact: bool
    positives: Any
    negatives: Any
    clipped: Any
    threshold: Any = None

    @property
    def width(self) -> Any:
        """``high - low``."""
        return self.high - self.low

    def __iter__(self) -> Any:
        """Unpack as ``estimate, low, high``."""
        return iter((self.estimate, self.low, self.high))


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
        one bin per value, exact results. Scores are compared with them
        exactly (integers as integers, also beyond ``2**53``); any other
        score is an error.
    clip : bool, default False
        Count scores outside ``range``/``edges`` in the end bins instead of
        raising. The bounds stay certified; results report how many rows were
        clipped.
    pos_label : scalar, optional
        The positive label, as in :func:`fastrank.roc_auc`.

    Notes
    -----
    Updates and merges may come from several threads: each is applied whole,
    one at a time (a lock is held while a batch is counted). A pickled or
    copied summary gets a lock of its own.

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

    Declared integer values are compared exactly, also beyond ``2**53``:

    >>> big = 2**53
    >>> v = fastrank.BinnedSummary(values=np.array([big, big + 1, big + 2]))
    >>> v.update([1, 0, 1], np.array([big + 2, big + 1, big]))
    >>> v.compute("roc_auc").estimate
    0.5
    >>> v.update([1], np.array([big + 3]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: y_score holds 9007199254740995 at index 0, which is not one of the 3 ...
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
        self._lock = threading.RLock()
        self._clip = bool(clip)
        self._pos_label = pos_label
        self._negative: Any = None  # the negative class's label, once seen (class_key)
        self._quantized: str | None = None
        self._values: np.ndarray | None = None
        self._lo = _NO_RANGE
        self._width = _NO_RANGE
        self._edges = _NO_EDGES
        if quantized is not None:
            if quantized not in QUANTIZED:
                raise ValueError(f"quantized must be one of {QUANTIZED}; got {quantized!r}")
            self._mode = MODE_INDEX
            self._quantized = quantized
            self._nb = _INTEGER_KINDS[quantized][0] if quantized in _INTEGER_KINDS else 65536
        elif values is not None:
            self._mode = MODE_INDEX
            self._values = check_values(values)
            self._nb = int(self._values.shape[0])
        elif edges is not None:
            self._mode = MODE_EDGES
            self._edges = check_edges(edges)
            self._nb = self._edges.shape[1] - 1
        else:
            nb = check_bins(bins, item_bytes=24)  # an edge and a count of each class
            lo, hi = check_range(range)
            self._mode = MODE_UNIFORM
            self._nb = nb
            self._lo = readonly(np.array([lo]))
            self._width = readonly(np.array([hi - lo]))
            self._edges = readonly(uniform_edges(lo, hi, nb)[None, :])
        self._ntasks: int | None = None  # fixed by the first update (or the edges)
        self._one_d = True
        if self._edges.shape[0] > 1:
            self._ntasks = self._edges.shape[0]
            self._one_d = False
        self._counts: np.ndarray | None = None
        self._clipped: np.ndarray | None = None
        self._rows = 0
        self._weighted = False

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:  # a consistent snapshot while other threads update
            state = self.__dict__.copy()
            for name in ("_counts", "_clipped"):
                if state[name] is not None:
                    state[name] = state[name].copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_lo", "_width", "_edges", "_values"):  # kernels read them read-only
            value = self.__dict__.get(name)
            if value is not None:
                self.__dict__[name] = readonly(value)
        self._lock = threading.RLock()

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
        fewer bins), with open end bins. A task gets at most as many bins as
        its negatives have distinct scores, and memory follows the sample,
        not ``bins``. Nothing is counted yet: update the summary with the
        sample too if it belongs to the stream.

        If the stream looks like the sample, each bin holds about ``1/bins``
        of the negatives and the ROC AUC bound is at most about ``1/(2 bins)``.

        A task without negatives (or whose negatives weigh nothing) is binned
        by all its samples; one whose samples all weigh nothing, by their
        count.

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

        Asking for more bins than the sample can fill gives what it can fill:

        >>> fastrank.BinnedSummary.fit([0, 0, 1, 0], [0.1, 0.5, 0.7, 0.9], bins=10**9).bins
        3
        """
        nb = check_bins(bins)
        s = as_array(y_score, "y_score")
        b = stream_inputs.stream_batch(y_true, s, sample_weight, pos_label=pos_label)
        n = b.scores.shape[0]
        t = 1 if b.scores.ndim == 1 else b.scores.shape[1]
        if n == 0:
            raise ValueError("fit needs at least one sample to place the bins")
        labels = b.labels.reshape(n, t)
        if b.weights is None:
            weights = np.ones(n)
        else:  # a power of two moves no quantile; it keeps the cumulative sums finite
            top = float(b.weights.max())
            weights = b.weights / math.ldexp(1.0, math.frexp(top)[1]) if top > 0 else b.weights
        scores = b.scores.reshape(n, t).astype(np.float64)
        rows = [fitted_edges(scores[:, j], labels[:, j], weights, nb)
                for j in builtins.range(t)]
        width = max(r.shape[0] for r in rows) + 2
        edges = np.full((t, width), np.inf)
        edges[:, 0] = -np.inf
        for j, inner in enumerate(rows):
            edges[j, 1:1 + inner.shape[0]] = inner
        out = cls(pos_label=pos_label)
        out._mode = MODE_EDGES
        out._lo = out._width = _NO_RANGE
        out._edges = readonly(edges)
        out._nb = width - 1
        out._ntasks = t
        out._one_d = b.scores.ndim == 1
        return out

    def empty_like(self) -> BinnedSummary:
        """A summary with the same bins and no rows (for another worker)."""
        out = self.copy()
        out.reset()
        return out

    def copy(self) -> BinnedSummary:
        """An independent copy."""
        out = object.__new__(BinnedSummary)
        with self._lock:
            out.__dict__.update(self.__dict__)
            for name in ("_counts", "_clipped"):
                value = getattr(self, name)
                setattr(out, name, None if value is None else value.copy())
        out._lock = threading.RLock()  # the bins (read-only arrays) are shared
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
        """The score of each bin when exact, else ``None``.

        Declared values come back sorted, as float64 or, when they were
        integers, as int64 (uint64 beyond ``2**63 - 1``), exactly. For
        quantized float types the bins are all 65,536 bit patterns: NaN for
        those that are not finite scores (and for ``-0.0``, which shares the
        bin of ``+0.0``).
        """
        if self._values is not None:
            return self._values.copy()
        if self._quantized is None:
            return None
        if self._quantized in _INTEGER_KINDS:
            nb, low = _INTEGER_KINDS[self._quantized]
            out = np.arange(low, low + nb, dtype=np.float64)
            return out
        bits = key_bits(np.arange(65536, dtype=np.uint32))
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
        with self._lock:
            t = self._ntasks or 1
            if self._counts is None:
                out = np.zeros((t, self._nb))
            else:
                out = self._counts[:, k, :].copy()
            one_d = self._one_d
        return out[0] if one_d else out

    # ------------------------------------------------------------------ updating

    def update(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> None:
        """Add a batch: 1-D (one task) or ``(n_samples, n_tasks)`` labels and scores.

        Everything is checked before anything is counted: a rejected batch
        leaves the summary as it was. Labels may be dense, ``scipy.sparse``
        (2-D) or anything array-like (CPU torch tensors included). Safe to
        call from several threads: each batch is counted whole, one at a time.

        Raises
        ------
        ValueError
            A batch whose number of tasks differs from earlier ones, non-finite
            scores, scores outside the bins (without ``clip=True``), scores that
            are not of the declared quantized type or values, bad labels or
            weights (also weights whose total exceeds float64's range: the
            bins keep totals in the weights' own units).
        """
        s = as_array(y_score, "y_score")
        b = stream_inputs.stream_batch(y_true, s, sample_weight, pos_label=self._pos_label)
        scores = b.scores
        n = scores.shape[0]
        one_d = scores.ndim == 1
        t = 1 if one_d else scores.shape[1]
        self._check_tasks(one_d, t, "update with")  # again below, under the lock
        labels = readonly(np.ascontiguousarray(b.labels, dtype=np.uint8).reshape(-1))
        weights = _NO_WEIGHTS if b.weights is None else readonly(b.weights)
        if b.weights is not None and n:
            with np.errstate(over="ignore"):
                mass = float(np.sum(b.weights))
            if not math.isfinite(mass):
                raise ValueError(_OVERFLOW)
        outside = np.zeros(t, np.int64)
        if self._mode == MODE_INDEX:
            values = self._indices(scores)
        else:
            v64 = np.ascontiguousarray(scores, dtype=np.float64)
            outside = self._outside(v64, scores, t)
            values = v64.reshape(-1)
        values = readonly(values)
        # -- past the task check nothing can fail: the batch is counted whole
        with self._lock:
            self._check_tasks(one_d, t, "update with")
            self._negative = stream_inputs.joined_negative(getattr(self, "_negative", None),
                                                    b.negative, "update with")
            if self._counts is None:
                self._counts = np.zeros((t, 2, self._nb), np.float64)
                self._clipped = np.zeros(t, np.int64)
                self._ntasks = t
                self._one_d = one_d
            assert self._clipped is not None
            if n:
                self._histogram(values, labels, weights, n, t)
            self._clipped += outside
            self._rows += n
            self._weighted = self._weighted or b.weights is not None

    def _check_tasks(self, one_d: bool, t: int, what: str) -> None:
        if self._ntasks is None:
            return
        if one_d != self._one_d or t != self._ntasks:
            have = "1-D scores (one task)" if self._one_d else f"{self._ntasks} tasks"
            got = "1-D scores (one task)" if one_d else f"{t} tasks"
            raise ValueError(f"this summary holds {have}; cannot {what} {got}")

    def _outside(self, v64: np.ndarray, scores: np.ndarray, t: int) -> np.ndarray:
        """Rows per task outside the bins' span; raises for the first one unless clipping."""
        n = v64.shape[0]
        outside = np.zeros(t, np.int64)
        if n == 0:
            return outside
        lo, hi = self._edges[:, 0], self._edges[:, -1]  # (1,) or (t,)
        v2 = v64.reshape(n, t)
        if bool((v2.min(axis=0) >= lo).all() and (v2.max(axis=0) <= hi).all()):
            return outside
        mask = (v2 < lo) | (v2 > hi)
        if not self._clip:
            i = int(np.flatnonzero(mask.reshape(-1))[0])
            task = i % t
            row = 0 if lo.shape[0] == 1 else task
            raise ValueError(
                f"y_score holds {plain(scores.reshape(-1)[i])!r} at {index_text(i, scores.shape)}"
                f", outside the bins' range [{plain(lo[row])!r}, {plain(hi[row])!r}]; widen "
                "the range, fit the bins (BinnedSummary.fit), or pass clip=True to count "
                "such scores in the end bins"
            )
        outside += mask.sum(axis=0)
        return outside

    def _histogram(self, values: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                   n: int, t: int) -> None:
        """Add a checked batch to the counts (the caller holds the lock).

        Large batches go to the engine's threads: disjoint task ranges when
        there are at least as many tasks as threads, otherwise row ranges
        into separate tables added in a fixed order (counts, exact integers,
        do not depend on the number of threads).
        """
        counts = self._counts
        assert counts is not None
        mode, nb = self._mode, self._nb
        lo, width, edges = self._lo, self._width, self._edges

        def block(item: tuple[int, int, int, int, np.ndarray]) -> None:
            r0, r1, t0, t1, table = item
            histogram_block(values, labels, weights, t, r0, r1, t0, t1, mode, lo, width, nb,
                            edges, table)

        nthreads = workers.threads() if n * t >= workers.PARALLEL_MIN else 1
        if nthreads > 1 and t >= nthreads:
            # whole blocks of tasks where there are enough (a block shares each row pass)
            ranges = max(min(2 * nthreads, -(-t // TASK_BLOCK)), nthreads)
            cuts = np.unique(np.linspace(0, t, ranges + 1).astype(np.int64))
            items = [(0, n, int(a), int(z), counts) for a, z in itertools.pairwise(cuts)]
            workers.parallel_map(block, items, nthreads)
            return
        # row ranges: each extra table costs no more than its rows' scores
        k = min(nthreads, n // (2 * nb)) if nthreads > 1 else 1
        if k <= 1:
            block((0, n, 0, t, counts))
            return
        cuts = np.linspace(0, n, k + 1).astype(np.int64)
        tables = [counts] + [np.zeros_like(counts) for _ in builtins.range(k - 1)]
        items = [(int(cuts[i]), int(cuts[i + 1]), 0, t, tables[i]) for i in builtins.range(k)]
        workers.parallel_map(block, items, nthreads)
        for extra in tables[1:]:
            counts += extra

    def _indices(self, scores: np.ndarray) -> np.ndarray:
        """Bin index of every score (flat, row-major, int64) for the exact modes."""
        flat = scores.reshape(-1)
        shape = scores.shape
        if self._values is not None:
            at, found = lookup(self._values, flat)
            if not found.all():
                i = int(np.flatnonzero(~found)[0])
                raise ValueError(
                    f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which is not one "
                    f"of the {self._values.shape[0]} declared values"
                )
            return at
        q = self._quantized
        assert q is not None
        if q in _INTEGER_KINDS:
            nb, low = _INTEGER_KINDS[q]
            high = low + nb - 1
            if flat.dtype.kind == "f":
                ok = (flat >= low) & (flat <= high) & (flat == np.floor(flat))
            elif flat.dtype == np.uint64:
                ok = flat <= np.uint64(high)
            else:
                ok = (flat >= low) & (flat <= high)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(
                    f"y_score holds {plain(flat[i])!r} at {index_text(i, shape)}, which is not a "
                    f"{q} value (quantized={q!r})"
                )
            index = flat.astype(np.int64)
            return index - low if low else index
        return float_keys(flat, q, shape)

    # ------------------------------------------------------------------ merging

    def merge(self, other: BinnedSummary) -> BinnedSummary:
        """Add another summary's counts to this one (in place); returns ``self``.

        Both must have the same bins (mode, edges, values or quantized type)
        and, once updated, the same tasks. Safe while other threads update
        either summary.
        """
        if not isinstance(other, BinnedSummary):
            raise TypeError(f"can only merge a BinnedSummary; got {type(other).__name__}")
        self._check_same_bins(other)
        stream_inputs.same_pos_label(self._pos_label, other._pos_label)
        first, second = sorted((self, other), key=id)  # one lock order: no deadlock
        with first._lock, second._lock:
            if other._counts is None:
                return self
            assert other._clipped is not None
            self._check_tasks(other._one_d, other._ntasks or 1, "merge a summary of")
            self._negative = stream_inputs.joined_negative(  # (None in a summary pickled before)
                getattr(self, "_negative", None), getattr(other, "_negative", None),
                "merge rows of")
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
            and same_values(self._values, other._values)
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
            return f"{self._nb} uniform bins over [{plain(lo)!r}, {plain(hi)!r}]"
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
        with self._lock:
            if self._counts is not None:
                self._counts[...] = 0.0
            if self._clipped is not None:
                self._clipped[...] = 0
            self._rows = 0
            self._weighted = False
            self._negative = None

    def __repr__(self) -> str:
        tasks = "no rows yet" if self._ntasks is None else (
            "1 task" if self._one_d else f"{self._ntasks} tasks")
        return f"BinnedSummary({self._describe()}, {tasks}, {self._rows} rows)"

    # ------------------------------------------------------------------ results

    def compute(
        self,
        metric: str = "roc_auc",
        *,
        average: Literal["macro", "weighted", "size", "pairs"] | None = None,
        **options: Any,
    ) -> Bounds:
        """The metric's estimate and certified bounds, per task or averaged.

        Parameters
        ----------
        metric : str
            ``"roc_auc"``, ``"average_precision"``, ``"pr_auc"``, ``"prbe"``,
            ``"d_prime"``; or a readout (:mod:`fastrank.readouts`):
            ``"sensitivity_at_specificity"``, ``"specificity_at_sensitivity"``,
            ``"recall_at_precision"``, ``"precision_at_recall"`` (the rate),
            ``"best_cutoff"`` (the criterion's value), ``"partial_roc_auc"``,
            ``"partial_pr_auc"``, with that function's keywords in
            ``options`` (e.g. ``min_specificity=0.95``). A readout's bounds
            are its values on the two extreme orders of every bin's rows,
            positives first and negatives first, between which the curve of
            any rows with those counts lies; its estimate reads the bins as
            tie groups.
        average : {"macro", "weighted", "size", "pairs"}, optional
            For several tasks, average the estimates and the bounds over the
            tasks where the metric is defined (weights as in
            :func:`fastrank.roc_auc`: positives, samples, or positive-negative
            pairs). The averaged bounds bound the average exactly.
        **options
            A readout's keywords.

        Returns
        -------
        Bounds
            NaN (with one :class:`~fastrank.UndefinedMetricWarning`) for tasks
            that lack a class the metric needs. In the exact modes
            ``low == estimate == high``: without weights, bit for bit the
            one-shot function's value; with weights, its value for rows of the
            bins' (rounded) totals. ``partial_roc_auc`` with ``correct=True`` is NaN
            where the rows' area is below chance; the bounds of binned rows
            hold the value wherever it is defined (it is then at least 0.5),
            and are NaN only where every order of the bins' rows is below
            chance.

        Examples
        --------
        >>> import numpy as np, fastrank
        >>> s = fastrank.BinnedSummary(quantized="int8")
        >>> y, p = [1, 0, 1, 1, 0], np.array([3, -2, 3, 0, 1], np.int8)
        >>> s.update(y, p)
        >>> s.compute("average_precision").estimate == fastrank.average_precision(y, p)
        True
        """
        if metric not in METRICS and metric not in READOUTS:
            raise ValueError(f"metric must be one of {METRICS} or a readout {READOUTS}; "
                             f"got {metric!r}")
        opts = None
        if metric in READOUTS:
            opts = readouts.check_options(metric, options)
        elif options:
            raise TypeError(f"{metric} takes no options; got {', '.join(map(repr, options))}")
        if average is not None and average not in _AVERAGES:
            raise ValueError(
                "average must be None, 'macro', 'weighted', 'size' or 'pairs'; "
                f"got {average!r}"
            )
        with self._lock:
            if self._counts is None or self._rows == 0:
                raise ValueError("the summary is empty: update it with at least one row first")
            assert self._clipped is not None
            if self._weighted and not np.isfinite(self._counts).all():
                raise ValueError(_OVERFLOW)
            units = task_units(self._counts)
            scaled = self._counts / units[:, None, None]  # exact: powers of two
            clipped = self._clipped.copy()
            weighted = self._weighted
            one_d = self._one_d
        if opts is not None:
            est, low, high, thr, reasons = self._readout(metric, opts, scaled, weighted)
            pos, neg = scaled[:, 1, :].sum(axis=1) * units, scaled[:, 0, :].sum(axis=1) * units
            undefined = np.isnan(est)
            if reasons:
                where = "" if one_d else f" for {len(reasons)} of {est.shape[0]} tasks"
                warnings.warn(f"{reasons[0]}{where}; returning NaN", UndefinedMetricWarning,
                              stacklevel=2)
        else:
            est, low, high, pos, neg = self._metric(metric, scaled, units, weighted)
            undefined = registry.METRICS[metric].undefined(pos, neg)
            thr = None
        for a in (est, low, high):
            a[undefined] = math.nan
        said: list[str] = []  # what the averages have to say, in the call's one warning
        means = None
        if not one_d and average is not None:
            # the averages' weights are relative: one power of two keeps pos * neg finite
            top = float(max(pos.max(), neg.max()))
            scale = math.ldexp(1.0, math.frexp(top)[1]) if top > 0 else 1.0
            wp, wn = pos / scale, neg / scale
            means = [reduce.average(a, wp, wn, average, said=said) for a in (est, low, high)]
        if opts is None:
            reduce.warn_undefined(f"{metric} is", "one" if one_d else "tasks", pos, neg,
                                  undefined, None if one_d else average, stacklevel=2,
                                  extra=" ".join(said))
        elif said:
            reduce.warn_caller(" ".join(said))
        if one_d:
            return Bounds(metric, float(est[0]), float(low[0]), float(high[0]), self.exact,
                          float(pos[0]), float(neg[0]), int(clipped[0]),
                          None if thr is None else float(thr[0]))
        if means is None:
            return Bounds(metric, est, low, high, self.exact, pos, neg, clipped, thr)
        return Bounds(metric, means[0], means[1], means[2], self.exact, float(pos.sum()),
                      float(neg.sum()), int(clipped.sum()))

    def _metric(self, metric: str, scaled: np.ndarray, units: np.ndarray, weighted: bool
                ) -> tuple[np.ndarray, ...]:
        """Estimates, bounds and class totals of one of :data:`METRICS`, per task."""
        m = registry.METRICS[metric]
        if self.exact:  # each bin a tie group: the one-shot sweep (bit for bit unweighted)
            out = exact_rows(scaled, m.wants, weighted)
            with np.errstate(over="ignore"):  # totals in the caller's units may be inf
                pos, neg = out[:, OUT_POS] * units, out[:, OUT_NEG] * units
            est = m.values(out)
            low, high = est.copy(), est.copy()
        else:
            table = bounds_table(scaled, weighted)
            with np.errstate(over="ignore"):  # totals in the caller's units may be inf
                pos, neg = table[:, B_POS] * units, table[:, B_NEG] * units
            assert m.bound is not None
            est, low, high = (table[:, m.bound + k].copy() for k in builtins.range(3))
            est = np.clip(est, 0.0, 1.0)  # a rounding error must not leave [0, 1]
            low = np.clip(low - SLACK, 0.0, 1.0)
            high = np.clip(high + SLACK, 0.0, 1.0)
            est = np.clip(est, low, high)
            if m.d_prime:
                est, low, high = (registry.d_prime_of(a) for a in (est, low, high))
        return est, low, high, pos, neg

    def _thresholds(self, j: int) -> np.ndarray:
        """Task ``j``'s cutoff of each bin, ascending: the bin's value when exact, else
        its lower edge (``-inf`` for the lowest bin when it holds clipped rows)."""
        if self._mode == MODE_INDEX:
            values = self.values
            assert values is not None
            return np.asarray(values, np.float64)
        e = self._edges[j if self._edges.shape[0] > 1 else 0, :-1].astype(np.float64)
        if self._clip:
            e[0] = -math.inf
        return e

    def _readout(self, name: str, opts: dict[str, Any], scaled: np.ndarray, weighted: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, list[str]]:
        """A readout's estimates, bounds and cutoffs per task, and why it is undefined
        where it is (see :meth:`compute`)."""
        t = scaled.shape[0]
        est, low, high, thr = (np.full(t, math.nan) for _ in builtins.range(4))
        reasons: list[str] = []
        point = name in readouts.READOUTS or name == "best_cutoff"
        correct = name == "partial_roc_auc" and opts["correct"]
        raw = dict(opts, correct=False) if correct else opts

        def value(got: Any) -> float:
            return float(got.value if isinstance(got, readouts.OperatingPoint) else got)

        def mcclish(area: Any) -> Any:  # increasing; below 0.5 where the area is below chance
            diagonal, full = readouts.mcclish_scale(opts["box_x"], opts["box_y"])
            return 0.5 * (1.0 + (area - diagonal) / (full - diagonal))

        def run(span: tuple[int, int]) -> None:
            for j in builtins.range(*span):
                p, q = scaled[j, 1, ::-1], scaled[j, 0, ::-1]  # bins, highest first
                keep = (p != 0.0) | (q != 0.0)
                p, q = p[keep], q[keep]
                cuts = self._thresholds(j)[::-1][keep]
                got = readouts.table_readout(name, opts, np.cumsum(q), np.cumsum(p), cuts)
                if isinstance(got, str) and correct and got == readouts.BELOW_CHANCE \
                        and not self.exact:
                    # The bins' area is below chance, the rows' may not be: the raw
                    # area and its bounds decide (below, after the bounds).
                    got = readouts.table_readout(name, raw, np.cumsum(q), np.cumsum(p), cuts)
                    if not isinstance(got, str):
                        got = mcclish(value(got))
                if isinstance(got, str):
                    reasons.append(got)
                    continue
                est[j] = value(got)
                if point:
                    thr[j] = got.threshold
                if self.exact:
                    low[j] = high[j] = est[j]
                    continue
                # Each bin's rows in the two extreme orders: positives first bounds
                # every rate a cutoff inside the bin can reach from above, negatives
                # first from below.
                zero = np.zeros_like(p)
                for order, into in (((p, zero, zero, q), high), ((zero, q, p, zero), low)):
                    gp = np.column_stack(order[0::2]).ravel()
                    gn = np.column_stack(order[1::2]).ravel()
                    inner = readouts.table_readout(name, raw, np.cumsum(gn), np.cumsum(gp),
                                                   np.repeat(cuts, 2))
                    into[j] = math.nan if isinstance(inner, str) else value(inner)

        tasks_in_parallel(run, t, scaled.size)
        if not self.exact:
            low, high = low - SLACK, high + SLACK
            if name != "best_cutoff":  # rates and areas are never negative
                low, high = np.maximum(low, 0.0), np.maximum(high, 0.0)
            if point and name != "best_cutoff":
                low, high = np.minimum(low, 1.0), np.minimum(high, 1.0)
            if correct:
                # McClish is increasing: map the raw area's bounds. Below chance it is
                # undefined (NaN), so a defined value is at least 0.5: where even the
                # upper bound is below chance, the rows' area is too.
                low, high = mcclish(low), mcclish(high)
                below = high < 0.5
                if below.any():
                    reasons.extend([readouts.BELOW_CHANCE] * int(below.sum()))
                    est[below] = low[below] = high[below] = math.nan
                low = np.maximum(low, 0.5)
            est = np.clip(est, low, high)
        return est, low, high, (thr if point else None), reasons


# ---------------------------------------------------------------------------- helpers
