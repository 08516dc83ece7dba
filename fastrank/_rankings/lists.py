"""Top-k measures of ranked lists (each sample's labels, dense or sparse top-k
predictions, or each query's items): the lists' tie groups (:class:`RankedLists`),
precision, recall, F1 and hit rate at k, average precision and nDCG at k,
reciprocal rank and R-precision, each in closed form over the orders of ties
(public in :mod:`fastrank.rankings`)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._core import api, heads, inputs, reduce
from ..exceptions import UndefinedMetricWarning
from .common import WHAT, sample_mean

TIES = ("expected", "optimistic", "pessimistic")
_NO_COLS = np.zeros(0, np.int64)  # (dense rows: each entry's column is its place)
# dense score matrices from this size on are ranked by the kernel; smaller ones by a
# numpy sort of each row (no compile for a first small call; the same values)
DENSE_KERNEL_MIN = 1 << 18


class RankedLists:
    """Ranked lists (each sample's labels, or each group's items) sorted by score,
    highest first, as tie groups (those holding an item with a positive grade that
    start above the cut, and each list's first: the others add nothing to any
    measure): per tie group its list, its first rank ``a`` (0-based within the list), its size
    ``m`` and its relevant count ``r``; and the items with a positive grade
    (``item_group``, ``item_grade``, ``item_rel``, and ``item_col``, the
    label column, for rows).

    Sparse scores (each sample's stored top predictions) rank every label of a row:
    the stored ones by score, then all the others as one tie group below them (its
    relevant items are the row's relevant labels not stored). The lists then cost
    memory in proportion to the stored entries and the relevant labels, never to
    the label count.

    ``min_grade``: the grade from which an item is relevant (default: any positive
    grade); items below it keep their grade as a gain for nDCG.
    """

    # tie groups, in list order and rank order within a list
    list: np.ndarray
    a: np.ndarray
    m: np.ndarray
    r: np.ndarray
    sizes: np.ndarray  # each list's length
    # the items with a positive grade (their group is -1 beyond the cut, or unstored)
    item_group: np.ndarray
    item_list: np.ndarray
    item_grade: np.ndarray
    item_rel: np.ndarray
    item_col: np.ndarray | None
    found: np.ndarray
    repeat: np.ndarray  # per row, the place of a column it stores twice (-1), when hashed

    def __init__(self, y_true: Any, y_score: Any, groups: Any, n_relevant: Any,
                 min_grade: float | None = None, depth: int | None = None,
                 least: int = 1) -> None:
        self.n_labels: int | None = None
        self.ids: np.ndarray | None = None
        self.min_grade = min_grade
        if inputs.is_sparse(y_score):
            if groups is not None:
                raise ValueError("sparse y_score (each sample's stored predictions) takes no "
                                 "groups=; give 1-D scores with groups= instead")
            self._sparse(y_true, y_score, depth, n_relevant, least)
        else:
            s = inputs.as_array(y_score, "y_score")
            if groups is None and s.ndim != 2:
                raise ValueError("y_score must be 2-D (n_samples, n_labels: each sample's "
                                 "labels ranked), or 1-D with groups= (each query's items); "
                                 f"got shape {s.shape}")
            if groups is None:
                y_true, _ = api.sample_inputs(y_true, s, None, what=WHAT)
                values = np.ascontiguousarray(inputs.canonical_scores(s))
                n, t = values.shape
                grade = _relevance_matrix(y_true, values.shape)
                lrows, lcols = np.nonzero(grade > 0)  # by row, then column
                self.n_labels = t
                cut = max(1, t if depth is None else min(depth, t))
                if values.size < DENSE_KERNEL_MIN:
                    self._sorted_rows(values, lrows, lcols, grade[lrows, lcols], cut)
                else:
                    ptr = np.arange(n + 1, dtype=np.int64) * t
                    self._from_rows(ptr[:-1], ptr[1:], _NO_COLS, values.reshape(-1), lrows,
                                    lcols, grade[lrows, lcols], np.full(n, t, np.int64), cut,
                                    lcols, join="place")
            else:
                values, _ = inputs.scores_1d(s)
                inputs.check_finite(values)
                y = inputs.as_array(y_true, "y_true")
                if y.ndim != 1 or y.shape[0] != values.shape[0]:
                    raise ValueError(f"y_true must be 1-D with one relevance per item "
                                     f"({values.shape[0]}); got shape {y.shape}")
                grade = inputs.grades(y)
                codes, self.ids = inputs.group_codes(groups, values.shape[0])
                self._queries(values, grade, codes, self.ids.shape[0], depth)
        self._settle(n_relevant)

    @classmethod
    def of_runs(cls, starts: np.ndarray, ends: np.ndarray, keys: np.ndarray,
                values: np.ndarray, lrows: np.ndarray, lkeys: np.ndarray, lgrade: np.ndarray,
                n_relevant: np.ndarray, min_grade: float) -> RankedLists:
        """Each query's retrieved items (query ``i``'s are ``starts[i] .. ends[i]`` of
        the canonical scores ``values``, ids ``keys`` in any order) and its judged
        items of positive grade (``lrows``, by query, ``lkeys``, ``lgrade``); judged
        items the run lacks stand in no group. ``repeat`` holds, per query, the
        place of an id it lists twice (-1 when none)."""
        self = cls.__new__(cls)
        self.n_labels = None
        self.ids = None
        self.min_grade = min_grade
        self._from_rows(starts, ends, keys, values, lrows, lkeys, lgrade, ends - starts,
                        max(1, int((ends - starts).max())), None, join="hash")
        self._settle(n_relevant)
        return self

    def _settle(self, n_relevant: Any) -> None:
        """Each list's first group, and its relevant items counted."""
        self.first = np.flatnonzero(self.a == 0)  # each list's first tie group
        found = self.found
        if n_relevant is None:
            self.relevant = found
        else:
            try:
                nr = np.asarray(n_relevant, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"n_relevant must hold counts (numbers); {exc}") from None
            if nr.shape != found.shape:
                raise ValueError(f"n_relevant needs one count per list ({found.shape[0]}); got "
                                 f"shape {nr.shape}")
            whole = np.isfinite(nr) & (nr == np.floor(nr))
            if not whole.all():
                j = int(np.flatnonzero(~whole)[0])
                raise ValueError(f"n_relevant must hold whole counts; n_relevant[{j}] is "
                                 f"{nr[j]!r}")
            if (nr < found).any():
                j = int(np.flatnonzero(nr < found)[0])
                raise ValueError(f"n_relevant[{j}] = {nr[j]:g} is below the {found[j]:g} "
                                 "relevant items the list holds")
            self.relevant = nr

    def _is_rel(self, grade: np.ndarray) -> np.ndarray:
        return grade > 0 if self.min_grade is None else grade >= self.min_grade

    def _sorted_rows(self, values: np.ndarray, lrows: np.ndarray, lcols: np.ndarray,
                     lgrade: np.ndarray, cut: int) -> None:
        """Dense rows below ``DENSE_KERNEL_MIN`` scores, without the kernel (so a first
        small call compiles nothing): each row sorted in full, then the groups and
        items the kernel gives (each row's first group and those holding an item that
        start above ``cut``; items by row, then column), so the values are the same
        to the bit."""
        n, t = values.shape
        order = np.argsort(values, axis=1)[:, ::-1]  # ties: any order (groups below)
        v = np.take_along_axis(values, order, axis=1).ravel()
        owner = np.repeat(np.arange(n), t)
        new = np.ones(v.shape[0], bool)
        new[1:] = (v[1:] != v[:-1]) | (owner[1:] != owner[:-1])
        starts = np.flatnonzero(new)
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(t)[None, :], axis=1)
        rel = self._is_rel(lgrade)
        grp = np.searchsorted(starts, lrows * t + rank[lrows, lcols], side="right") - 1
        a = starts - owner[starts] * t
        held = np.zeros(starts.shape[0], bool)
        held[grp] = True
        keep = (a == 0) | (held & (a < cut))
        index = np.cumsum(keep) - 1
        r = np.bincount(grp, rel.astype(np.float64), minlength=starts.shape[0])
        self.list = owner[starts][keep]
        self.a = a[keep]
        self.m = np.diff(np.append(starts, v.shape[0]))[keep]
        self.r = r[keep]
        self.sizes = np.full(n, t, np.int64)
        self.item_group = np.where(keep[grp], index[grp], -1)
        self.item_list = lrows
        self.item_grade = lgrade
        self.item_rel = rel
        self.item_col = lcols.astype(np.int64)
        self.found = np.bincount(lrows, rel.astype(np.float64), minlength=n)
        self.repeat = np.full(n, -1, np.int64)

    def _queries(self, values: np.ndarray, grade: np.ndarray, codes: np.ndarray, nq: int,
                 depth: int | None) -> None:
        """Each query's items (``codes``) as one list: the items by query (a stable
        sort of the codes, none when a run already lists its queries one by one),
        then each query ranked on its own by the kernel of the sparse lists (every
        item of a query 'stored', its relevant items its labels)."""
        if codes.shape[0] > 1 and not bool((codes[1:] >= codes[:-1]).all()):
            by = np.argsort(codes, kind="stable")
            values, grade, codes = values[by], grade[by], codes[by]
        counts = np.bincount(codes, minlength=nq).astype(np.int64)
        ptr = np.zeros(nq + 1, np.int64)
        np.cumsum(counts, out=ptr[1:])
        place = np.arange(values.shape[0], dtype=np.int64) - np.repeat(ptr[:-1], counts)
        at = np.flatnonzero(grade > 0)
        longest = int(counts.max())
        cut = longest if depth is None else max(1, min(depth, longest))
        self._from_rows(ptr[:-1], ptr[1:], place, values, codes[at], place[at], grade[at],
                        counts, cut, None)

    def _sparse(self, y_true: Any, y_score: Any, depth: int | None, n_relevant: Any,
                least: int = 1) -> None:
        ptr, cols, vals, (n, t) = inputs.sparse_scores(y_score)
        self.n_labels = t
        lrows, lcols, lgrade = inputs.sparse_grades(y_true, (n, t))
        nnz = np.diff(ptr)
        if depth is None:  # what a k-free measure on these lists (R-precision) reads, and
            # ``least`` (the largest k of the measures read with it)
            depth = int(max(np.bincount(lrows, minlength=n).max(), least, 1))
            if n_relevant is not None:
                depth = max(depth, int(np.nanmax(np.asarray(n_relevant, np.float64))))
        cut = max(1, min(depth, int(nnz.max()) + 1))  # no group starts below the rest
        self._from_rows(ptr[:-1], ptr[1:], cols, vals, lrows, lcols, lgrade,
                        np.full(n, t, np.int64), cut, lcols)

    def _from_rows(self, starts: np.ndarray, ends: np.ndarray, cols: np.ndarray,
                   vals: np.ndarray, lrows: np.ndarray, lcols: np.ndarray, lgrade: np.ndarray,
                   sizes: np.ndarray, cut: int, item_col: np.ndarray | None,
                   join: str = "merge") -> None:
        """The lists from rows of stored entries (row ``i``'s are ``starts[i] ..
        ends[i]``; ``cols`` increasing within a row, in any order for ``join="hash"``,
        or each entry's place for ``"place"``; canonical scores ``vals``) and their
        positively graded items (``lrows``, ``lcols``, ``lgrade``, by row, then by
        column unless hashed), each row's list ``sizes`` long: per row its stored
        tie groups starting above the rank ``cut`` that hold an item, and its first
        group (the others add nothing to any measure), then, when the row stores
        fewer than ``cut`` entries and not all of its list, the group of the rest
        (tied below every stored score)."""
        n = starts.shape[0]
        lptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(lrows, minlength=n), out=lptr[1:])
        rel = self._is_rel(lgrade)
        nnz = ends - starts
        h = heads.row_heads(starts, ends, cols, vals, lptr, lcols, rel.astype(np.float64), cut,
                             join)
        self.repeat = h.repeat
        tail = (nnz < sizes) & (nnz < cut)
        tr = np.flatnonzero(tail)
        at = h.offsets[tr] + h.groups[tr]
        h.first[at] = nnz[tr]
        h.size[at] = sizes[tr] - nnz[tr]
        h.hits[at] = h.tail_hits[tr]
        count = h.groups + tail
        room = np.diff(h.offsets)
        valid = np.arange(h.first.shape[0]) - np.repeat(h.offsets[:-1], room) \
            < np.repeat(count, room)
        index = np.cumsum(valid) - 1  # each slot's group number
        self.list = np.repeat(np.arange(n), count)
        self.a = h.first[valid]
        self.m = h.size[valid]
        self.r = h.hits[valid]
        self.sizes = sizes
        # Every item is in its group (or -1 below the cut); an unstored one in its
        # row's last group when that starts above the cut.
        g = np.full(lrows.shape[0], -1, np.int64)
        inside = h.label_slot >= 0
        g[inside] = index[h.offsets[lrows[inside]] + h.label_slot[inside]]
        rest = (h.label_slot == -2) & tail[lrows]
        g[rest] = index[h.offsets[lrows[rest]] + h.groups[lrows[rest]]]
        self.item_group = g
        self.item_list = lrows
        self.item_grade = lgrade
        self.item_rel = rel
        self.item_col = item_col
        self.found = np.bincount(lrows, rel.astype(np.float64), minlength=n)

    def taken(self, k: np.ndarray, ties: str) -> np.ndarray:
        """Relevant items in the top ``k[list]`` of each list, under the tie rule."""
        t = np.clip(k[self.list] - self.a, 0, self.m).astype(np.float64)
        if ties == "expected":
            got = self.r * t / self.m
        elif ties == "optimistic":
            got = np.minimum(self.r, t)
        else:
            got = np.maximum(0.0, t - (self.m - self.r))
        return np.add.reduceat(got, self.first)

    def first_relevant(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per list: whether it holds a relevant item, and its first tie group holding
        one (rank ``a``, size ``m``, relevant ``r``; zeros where none)."""
        has = self.r > 0
        nl = self.first.shape[0]
        pick = np.full(nl, -1, np.int64)
        rev = np.flatnonzero(has)[::-1]
        pick[self.list[rev]] = rev  # written last: the first such group of each list
        ok = pick >= 0
        g = np.where(ok, pick, 0)
        return ok, self.a[g] * ok, self.m[g] * ok, self.r[g] * ok


    def discounts(self, k: int | None, kind: str) -> np.ndarray:
        """The running sum of the rank discounts, ``cum[i]`` over ranks ``0 .. i-1``,
        zero beyond ``k``: ``"log"`` is ``1 / log2(rank + 2)``, ``"flat"`` is 1."""
        longest = int(self.sizes.max())
        depth = longest if k is None else min(int(k), longest)
        d = 1.0 / np.log2(np.arange(depth) + 2.0) if kind == "log" else np.ones(depth)
        return np.concatenate(([0.0], np.cumsum(d)))

    def dcg(self, gains: np.ndarray, k: int | None, ties: str, kind: str = "log") -> np.ndarray:
        """Each list's DCG at ``k`` of its items' ``gains`` (aligned with the items):
        with ``"expected"`` ties, a tie group's items share its mean gain over its
        ranks (the expectation over every order of the ties); ``"optimistic"``
        (``"pessimistic"``) orders a group's gains highest (lowest) first, its
        other items after (before) them."""
        cum = self.discounts(k, kind)
        depth = cum.shape[0] - 1
        nl = self.first.shape[0]
        head = self.item_group >= 0  # items of the groups kept (all, unless cut)
        if not head.all():
            gains = gains[head]
        grp = self.item_group[head] if not head.all() else self.item_group
        if ties == "expected":
            total = np.bincount(grp, gains, minlength=self.a.shape[0])
            lo = np.minimum(self.a, depth)
            hi = np.minimum(self.a + self.m, depth)
            part = total / self.m * (cum[hi] - cum[lo])
            return np.bincount(self.list, part, minlength=nl)
        key = -gains if ties == "optimistic" else gains
        by = np.lexsort((key, grp))
        gs, gg = grp[by], gains[by]
        count = np.bincount(gs, minlength=self.a.shape[0])
        first_of = np.cumsum(count) - count
        place = np.arange(gs.shape[0]) - first_of[gs]
        if ties == "optimistic":
            rank = self.a[gs] + place
        else:
            rank = self.a[gs] + self.m[gs] - count[gs] + place
        inside = rank < depth
        step = np.diff(cum)
        worth = np.zeros(gs.shape[0])
        worth[inside] = gg[inside] * step[rank[inside]]
        return np.bincount(self.list[gs], worth, minlength=nl)

    def ideal(self, gains: np.ndarray, ks: Any, kind: str = "log") -> np.ndarray:
        """Each list's best DCG at each ``k`` of ``ks`` (columns): its items' ``gains``,
        highest first."""
        cache = self.__dict__.setdefault("_best", {})  # PSP and PSnDCG share their weights
        got = cache.get(id(gains))
        if got is None or got[0] is not gains:
            got = cache[id(gains)] = (gains, best_order(self.item_list, gains,
                                                        self.first.shape[0]))
        return best_dcgs(self.item_list, gains, self.first.shape[0], ks, kind, got[1])

    def weights(self, inv: np.ndarray | None) -> np.ndarray:
        """Each item's inverse propensity (1 when ``inv`` is None) where relevant, 0
        elsewhere: one array per ``inv``, so that the measures weighing by it share
        one ideal ranking."""
        cache = self.__dict__.setdefault("_weights", {})
        got = cache.get(id(inv))
        if got is None or got[0] is not inv:
            if inv is None:
                w = self.item_rel.astype(np.float64)
            else:
                assert self.item_col is not None
                w = np.where(self.item_rel, inv[self.item_col], 0.0)
            got = cache[id(inv)] = (inv, w)
        return np.asarray(got[1])

    def average_precision(self, k: int | None, ties: str) -> np.ndarray:
        """Each list's sum, over the relevant items in its top ``k`` (all of it when
        None), of the precision at their ranks; ties by ``ties``.

        In a tie group of m items (r relevant) at ranks a+1 .. a+m, with h relevant
        above it, the group adds, over its first t places inside the cut:
        expected, place i holds a relevant item with chance r/m, and then the relevant
        ones before it in the group number (i-1)(r-1)/(m-1) on average
        (hypergeometric): sum_i (r/m)(c + (i-1)d)/(a+i) with c = h+1, d = (r-1)/(m-1),
        which is (r/m)[(c - (a+1)d)(H(a+t) - H(a)) + t d] with H the harmonic numbers;
        optimistic (pessimistic), the r relevant ones take the group's first (last)
        places: sum_j (h+j)/(b+j) over the u of them inside the cut, b = a (b =
        a+m-r). Both sums are :func:`ratio_sums`: term by term (all terms positive)
        where they are short, as they are without ties; a running sum of 1/i read
        at two depths lost up to 2e-3 of an AP at rank 4 M."""
        h = np.concatenate(([0.0], np.cumsum(self.r)))[:-1]
        h = h - h[self.first][self.list]  # relevant above each group, within its list
        g = np.flatnonzero(self.r > 0)
        a, m, r, above = (x[g].astype(np.float64) for x in (self.a, self.m, self.r, h))
        longest = float(self.sizes.max())
        cut = longest if k is None else float(min(int(k), int(longest)))
        if ties == "expected":
            t = np.clip(cut - a, 0, m)
            with np.errstate(invalid="ignore", divide="ignore"):
                d = np.where(m > 1, (r - 1) / np.maximum(m - 1, 1), 0.0)
            part = (r / m) * ratio_sums(a, t, above + 1, d)
        else:
            b = a if ties == "optimistic" else a + m - r
            u = np.clip(cut - b, 0, r)
            part = ratio_sums(b, u, above + 1, np.ones_like(b))
        return np.bincount(self.list[g], part, minlength=self.first.shape[0])


DIRECT_TERMS = 64  # sums of at most this many terms are added term by term


def ratio_sums(b: np.ndarray, u: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``sum_{j=1}^{u} (c + (j-1) d) / (b + j)`` for each element (integers ``b, u``
    from 0, ``c >= d >= 0``, as floats): term by term where ``u`` is at most
    :data:`DIRECT_TERMS`, else as ``(c - d)(H(b+u) - H(b)) + d sum_j j / (b + j)``,
    two sums of positive terms (:func:`harmonic_diffs`, :func:`rank_shares`), so
    that nothing cancels however deep ``b`` is."""
    out = np.zeros(b.shape[0])
    short = np.flatnonzero((u > 0) & (u <= DIRECT_TERMS))
    if short.shape[0]:
        n = u[short].astype(np.int64)
        owner = np.repeat(np.arange(short.shape[0]), n)
        j = (np.arange(owner.shape[0]) - np.repeat(np.cumsum(n) - n, n) + 1).astype(np.float64)
        sb, sc, sd = b[short][owner], c[short][owner], d[short][owner]
        out[short] = np.bincount(owner, (sc + (j - 1.0) * sd) / (sb + j),
                                 minlength=short.shape[0])
    long = np.flatnonzero(u > DIRECT_TERMS)
    if long.shape[0]:
        lb, lu, lc, ld = b[long], u[long], c[long], d[long]
        dh = harmonic_diffs(lb, lu)
        out[long] = (lc - ld) * dh + ld * rank_shares(lb, lu, dh)
    return out


def rank_shares(b: np.ndarray, u: np.ndarray, dh: np.ndarray) -> np.ndarray:
    """``sum_{j=1}^{u} j / (b + j)`` given ``dh = H(b+u) - H(b)``: ``u - b dh`` where
    ``b`` is shallow; deeper, where those two nearly cancel, ``x g(u/x) - x S + dh``
    with ``x = b + 1``, ``g(z) = z - log1p(z)`` (its series below 0.1) and ``S`` the
    digamma series' terms past the logarithm (:func:`harmonic_diffs`)."""
    out: np.ndarray = u - b * dh
    deep = np.flatnonzero(b >= DIRECT_TERMS)
    if deep.shape[0]:
        x, uu = b[deep] + 1.0, u[deep]
        y = x + uu
        z = uu / x
        g = z - np.log1p(z)
        small = z < 0.1
        if small.any():  # z^2 (1/2 - z (1/3 - z (1/4 - ...))), to z^20
            zs = z[small]
            acc = np.zeros(zs.shape[0])
            for k in range(20, 1, -1):
                acc = 1.0 / k - zs * acc
            g[small] = zs * zs * acc
        out[deep] = x * g - (uu / (2.0 * y) + x * _digamma_tail(x, y)) + dh[deep]
    return out


def _digamma_tail(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The asymptotic series of ``psi(y) - psi(x)`` past ``log(y / x)`` and the
    ``1 / 2x - 1 / 2y`` term (Bernoulli numbers; ``x`` from 65: below 1e-18 left)."""
    x2, y2 = 1.0 / (x * x), 1.0 / (y * y)
    out: np.ndarray = ((x2 - y2) / 12.0 - (x2 * x2 - y2 * y2) / 120.0
                       + (x2 ** 3 - y2 ** 3) / 252.0 - (x2 ** 4 - y2 ** 4) / 240.0)
    return out


def harmonic_diffs(b: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``H(b+u) - H(b)`` (integers ``b, u`` from 0, as floats) to full precision at any
    depth: the terms below :data:`DIRECT_TERMS` from a short table, the rest as the
    difference of the digamma function's asymptotic series, ``log1p`` of the ratio
    plus terms that do not cancel (as :func:`fastrank._kernels.sweep.harmonic_diff`)."""
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, DIRECT_TERMS + 1))))
    top = b + u
    low = b < DIRECT_TERMS
    out = np.where(low, table[np.minimum(top, DIRECT_TERMS).astype(np.int64)]
                   - table[np.minimum(b, DIRECT_TERMS).astype(np.int64)], 0.0)
    lo = np.where(low, np.minimum(top, DIRECT_TERMS), b)  # the asymptotic part from here
    rest = top > lo
    x, y = lo[rest] + 1.0, top[rest] + 1.0
    span = y - x
    out[rest] += np.log1p(span / x) + (span / (2.0 * x * y) + _digamma_tail(x, y))
    return out


def best_dcg(owner: np.ndarray, gains: np.ndarray, n_lists: int, k: int | None,
             kind: str = "log") -> np.ndarray:
    """Each list's DCG at ``k`` of the gains ``gains`` of its items (``owner``: each
    item's list), highest first: the ideal DCG."""
    return best_dcgs(owner, gains, n_lists, [k], kind)[:, 0]


def best_order(owner: np.ndarray, gains: np.ndarray, n_lists: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """The items by list, highest gain first, and each one's rank in its list."""
    count = np.bincount(owner, minlength=n_lists)
    top, low = (float(gains.max()), float(gains.min())) if gains.shape[0] else (0.0, 0.0)
    if low == top and bool((owner[1:] >= owner[:-1]).all()):
        by = np.arange(owner.shape[0])  # equal gains, items by list already: no sort
    elif top < 2**20 and low >= 0 and n_lists < 2**40 and bool((gains == np.floor(gains)).all()):
        # whole grades: one integer key (list, then grade decreasing); items of one list
        # and grade are interchangeable, so any order among them gives the same sums
        by = np.argsort(owner.astype(np.int64) * (int(top) + 1) + (top - gains).astype(np.int64))
    else:
        by = np.lexsort((-gains, owner))
    return by, np.arange(by.shape[0]) - (np.cumsum(count) - count)[owner[by]]


def best_dcgs(owner: np.ndarray, gains: np.ndarray, n_lists: int, ks: Any,
              kind: str = "log", order: tuple[np.ndarray, np.ndarray] | None = None
              ) -> np.ndarray:
    """:func:`best_dcg` at each ``k`` of ``ks`` (columns), from one sort (``order``:
    :func:`best_order`'s, when known)."""
    by, rank = best_order(owner, gains, n_lists) if order is None else order
    if kind == "log":  # one discount per rank, looked up
        d = (1.0 / np.log2(np.arange(int(rank.max(initial=0)) + 1) + 2.0))[rank]
    else:
        d = np.ones(rank.shape[0])
    gd, ob = gains[by] * d, owner[by]
    cols = []
    for k in ks:
        w = gd if k is None else np.where(rank < k, gd, 0.0)
        cols.append(np.bincount(ob, w, minlength=n_lists))
    return np.column_stack(cols) if cols else np.zeros((n_lists, 0))


def _relevance_matrix(y_true: Any, shape: tuple[int, int]) -> np.ndarray:
    """A (dense or sparse) relevance matrix of ``shape`` as dense float64 grades."""
    if inputs.is_sparse(y_true):
        rows, cols, g = inputs.sparse_grades(y_true, shape)
        out = np.zeros(shape)
        out[rows, cols] = g
        return out
    y = inputs.as_array(y_true, "y_true")
    if y.shape != shape:
        raise ValueError(f"y_true and y_score have different shapes: {y.shape} and {shape}")
    return inputs.grades(y)


def check_ks(k: Any) -> tuple[np.ndarray, bool]:
    ks = np.atleast_1d(np.asarray(k, dtype=object))
    if ks.ndim != 1 or ks.shape[0] == 0:
        raise ValueError(f"k must be a positive int or a sequence of them; got {k!r}")
    for v in ks.tolist():
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"k must be a positive int or a sequence of them; got {v!r}")
    # a k past int64 is past every list, as the largest int64 is
    return np.array([min(int(v), _K_MAX) for v in ks.tolist()], np.int64), np.ndim(k) == 0


_K_MAX = np.iinfo(np.int64).max


def _check_ties(ties: Any) -> str:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TIES))}; got {ties!r}")
    return str(ties)


def check_call(k: Any, ties: Any, groups: Any, average: Any) -> tuple[np.ndarray, bool, str]:
    """A top-k call's ``k`` (as an array, and whether one was given), ``ties`` and
    ``average``, checked before any work."""
    ks, scalar_k = check_ks(k)
    if average not in (None, "macro"):
        raise ValueError(f"average must be 'macro' or None; got {average!r}")
    if groups is not None and average is None and not scalar_k:
        raise ValueError("with groups= and average=None give one k (one value per query)")
    return ks, scalar_k, _check_ties(ties)


def finish(name: str, per: np.ndarray, lists: RankedLists, average: Any, scalar_k: bool,
            stacklevel: int = 3) -> Any:
    """Per-list values (lists x ks) as the call asked: their mean over the defined lists
    (one warning for the others), or per list (a GroupResult for groups)."""
    bad = np.isnan(per).any(axis=1) if per.ndim == 2 else np.isnan(per)
    if bad.any():
        what = "queries" if lists.ids is not None else "samples"
        warnings.warn(f"{name} is undefined for {int(bad.sum())} of {bad.shape[0]} {what} "
                      "(no relevant items, or k beyond the list); they are NaN"
                      + ("" if average is None else " and left out of the mean"),
                      UndefinedMetricWarning, stacklevel=stacklevel)
    if average is None:
        out = per[:, 0] if scalar_k else per
        if lists.ids is not None:  # the totals: relevant and other items in each list
            return reduce.GroupResult(lists.ids, out, lists.found.copy(),
                                      lists.sizes - lists.found, lists.sizes.copy())
        return out
    means = np.array([sample_mean(per[:, j], None) for j in range(per.shape[1])])
    return float(means[0]) if scalar_k else means



def _at_k(name: str, y_true: Any, y_score: Any, k: Any, groups: Any, ties: Any,
          n_relevant: Any, average: Any) -> Any:
    ks, scalar_k, ties = check_call(k, ties, groups, average)
    lists = RankedLists(y_true, y_score, groups, n_relevant, depth=int(ks.max()))
    return finish(name, at_k(name, lists, ks, ties), lists, average, scalar_k, stacklevel=4)


def at_k(name: str, lists: RankedLists, ks: np.ndarray, ties: str) -> np.ndarray:
    """``precision_at_k``, ``recall_at_k`` or ``f1_at_k`` of every list (rows) at every
    ``k`` (columns)."""
    cols = []
    for kk in ks.tolist():
        kv = np.full(lists.first.shape[0], kk, np.int64)
        hits = lists.taken(kv, ties)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(lists.sizes >= kk, hits / kk, np.nan)
            recall = np.where(lists.relevant > 0, hits / lists.relevant, np.nan)
            if name == "precision_at_k":
                col = precision
            elif name == "recall_at_k":
                col = recall
            else:
                both = precision + recall
                col = np.where(both > 0, 2 * precision * recall / np.where(both > 0, both, 1),
                               0.0)
                col[np.isnan(both)] = np.nan
        cols.append(col)
    return np.column_stack(cols)


_TOPK_DOC = """
    Parameters
    ----------
    y_true : array-like or sparse matrix
        With 2-D ``y_score``: the ``(n_samples, n_labels)`` 0/1 label matrix, each
        sample's labels one ranked list. With ``groups``: 1-D 0/1 relevance.
    y_score : array-like
        ``(n_samples, n_labels)`` scores, or 1-D scores with ``groups``.
    groups : array-like of shape (n_items,), optional
        One query id per item: each query's items one ranked list.
    ties : {"expected", "optimistic", "pessimistic"}, default "expected"
        Tied items: the expected value over every order of them (McSherry &
        Najork, 2008, in closed form), or relevant ones first, or last.
    n_relevant : array-like, optional
        The number of relevant items of each list, when the list does not hold
        them all (a run that did not return every relevant document); one per
        list, in the lists' order (samples, or sorted query ids).
    average : {"macro", None}, default "macro"
        The mean over the lists, or one value per list (a
        :class:`~fastrank.GroupResult` with ``groups``).
"""


def precision_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                   ties: str = "expected", n_relevant: Any = None,
                   average: str | None = "macro") -> Any:
    """Precision at ``k``: the share of relevant items among each list's top ``k``.

    ``k`` is an int or a sequence of them (one value per ``k``). A list shorter
    than ``k`` has no P@k: NaN, left out of the mean with one warning
    (trec_eval instead counts the missing ranks as not relevant).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]]
    >>> fastrank.precision_at_k(y, s, 2)             # one of the two tied items relevant
    0.75
    >>> fastrank.precision_at_k(y, s, [1, 2], ties="pessimistic")
    array([1. , 0.5])
    """
    return _at_k("precision_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def recall_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                ties: str = "expected", n_relevant: Any = None,
                average: str | None = "macro") -> Any:
    """Recall at ``k``: the share of each list's relevant items in its top ``k``
    (NaN for a list without relevant items; a ``k`` beyond the list takes all of it).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.recall_at_k([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.75
    """
    return _at_k("recall_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def f1_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None, ties: str = "expected",
            n_relevant: Any = None, average: str | None = "macro") -> Any:
    """F1 at ``k``: the harmonic mean of :func:`precision_at_k` and
    :func:`recall_at_k` of each list (of their tie-rule values).
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.f1_at_k([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.75
    """
    return _at_k("f1_at_k", y_true, y_score, k, groups, ties, n_relevant, average)


def hit_rate_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                  ties: str = "expected", n_relevant: Any = None,
                  average: str | None = "macro") -> Any:
    """Hit rate (success) at ``k``: whether each list has a relevant item in its top
    ``k``; with ties, the probability over every order of them (hypergeometric).
    NaN for a list without relevant items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.hit_rate_at_k([[0, 1, 0, 0]], [[0.9, 0.5, 0.5, 0.1]], 2)
    0.5
    """
    ks, scalar_k, ties = check_call(k, ties, groups, average)
    lists = RankedLists(y_true, y_score, groups, n_relevant, depth=int(ks.max()))
    return finish("hit_rate_at_k", hit_rate(lists, ks, ties), lists, average, scalar_k)


def hit_rate(lists: RankedLists, ks: np.ndarray, ties: str) -> np.ndarray:
    """:func:`hit_rate_at_k` of every list (rows) at every ``k`` (columns)."""
    ok, a, m, r = lists.first_relevant()
    cols = []
    for kk in ks.tolist():
        slots = np.clip(kk - a, 0, m)
        if ties == "optimistic":
            hit = (a < kk).astype(np.float64)
        elif ties == "pessimistic":
            hit = (a + m - r < kk).astype(np.float64)
        else:  # 1 - P(no relevant among ``slots`` drawn from the group)
            hit = 1.0 - _none_drawn(m, r, slots)
        hit[~ok] = 0.0  # relevant items exist (n_relevant) but the list holds none
        hit[lists.relevant == 0] = np.nan
        cols.append(hit)
    return np.column_stack(cols)


def _none_drawn(m: np.ndarray, r: np.ndarray, t: np.ndarray) -> np.ndarray:
    """P(no relevant item among ``t`` of ``m`` items, ``r`` of them relevant), for each
    entry: the product of (m - r - i)/(m - i) over i < t (0 once m - r < t)."""
    out = np.ones(m.shape[0])
    some = np.flatnonzero((t > 0) & (m - r >= t))
    out[(t > 0) & (m - r < t)] = 0.0
    if some.size:
        span = t[some].astype(np.int64)
        starts = np.cumsum(span) - span
        i = (np.arange(int(span.sum())) - np.repeat(starts, span)).astype(np.float64)
        mm = np.repeat(m[some].astype(np.float64), span)
        rr = np.repeat(r[some].astype(np.float64), span)
        out[some] = np.multiply.reduceat((mm - rr - i) / (mm - i), starts)
    return out


def reciprocal_rank(y_true: Any, y_score: Any, *, groups: Any = None, ties: str = "expected",
                    n_relevant: Any = None, average: str | None = "macro") -> Any:
    """Reciprocal rank of each list's first relevant item (its mean: MRR); with ties,
    the expectation over every order of the tied items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.reciprocal_rank([[0, 1, 0, 0]], [[0.9, 0.5, 0.5, 0.1]])  # rank 2 or 3
    0.41666666666666663
    """
    _, _, ties = check_call(1, ties, groups, average)
    if inputs.is_sparse(y_score):
        raise ValueError("reciprocal_rank ranks every item, and a sparse y_score leaves all "
                         "unstored labels tied; use hit_rate_at_k or precision_at_k with a k, "
                         "or dense scores")
    lists = RankedLists(y_true, y_score, groups, n_relevant)
    return finish("reciprocal_rank", reciprocal(lists, ties)[:, None], lists, average, True)


def reciprocal(lists: RankedLists, ties: str) -> np.ndarray:
    """:func:`reciprocal_rank` of every list."""
    ok, a, m, r = lists.first_relevant()
    rr = np.where(lists.relevant > 0, 0.0, np.nan)  # 0: relevant items, none in the list
    if ties == "optimistic":
        rr[ok] = 1.0 / (a[ok] + 1)
    elif ties == "pessimistic":
        rr[ok] = 1.0 / (a[ok] + m[ok] - r[ok] + 1)
    else:
        idx = np.flatnonzero(ok)
        rr[idx] = _expected_reciprocal(a[idx], m[idx], r[idx])
    return rr


SHORT_SPAN = 64  # lists whose first relevant item has up to this many places go side by side


def _expected_reciprocal(a: np.ndarray, m: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The expected ``1 / rank`` of the first relevant item of a tie group of ``m``
    items, ``r`` of them relevant, ``a`` items above it, over all orders of the group.

    It is at place i of the group, 1 <= i <= m - r + 1, with probability P(i):
    P(1) = r / m, P(i + 1) / P(i) = (m - i - r + 1) / (m - i), kept as a running sum
    of logs that starts at each list's own first place (so a list's value does not
    depend on the lists before it). Lists of up to :data:`SHORT_SPAN` places advance
    together, one place per step; longer ones one by one."""
    a, m, r = (np.asarray(x, np.float64) for x in (a, m, r))
    span = (m - r + 1).astype(np.int64)
    out = np.zeros(a.shape[0])
    if not a.shape[0]:
        return out
    with np.errstate(divide="ignore"):
        run = np.log(r / m)  # log P(1)
    out += np.exp(run) / (a + 1.0)
    short = np.flatnonzero((span > 1) & (span <= SHORT_SPAN))
    for i in range(2, int(span[short].max()) + 1 if short.size else 0):
        short = short[span[short] >= i]
        j = i - 1.0  # P(i) / P(i - 1) = (m - j - r + 1) / (m - j)
        mm, rr_ = m[short], r[short]
        with np.errstate(divide="ignore"):
            run[short] += np.log((mm - j - rr_ + 1) / (mm - j))
        out[short] += np.exp(run[short]) / (a[short] + i)
    for t in np.flatnonzero(span > SHORT_SPAN).tolist():
        steps = np.arange(1.0, float(span[t]))
        with np.errstate(divide="ignore"):
            logs = np.log((m[t] - steps - r[t] + 1) / (m[t] - steps))
        logs[0] += run[t]
        out[t] += float(np.add.reduce(np.exp(np.cumsum(logs)) / (a[t] + steps + 1)))
    return out


def r_precision(y_true: Any, y_score: Any, *, groups: Any = None, ties: str = "expected",
                n_relevant: Any = None, average: str | None = "macro") -> Any:
    """R-precision: precision at rank R, R being each list's number of relevant items
    (``n_relevant`` when given; ranks beyond the list count as not relevant, as in
    trec_eval). NaN for a list without relevant items.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> fastrank.r_precision([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]])
    0.75
    """
    _, _, ties = check_call(1, ties, groups, average)
    lists = RankedLists(y_true, y_score, groups, n_relevant)
    return finish("r_precision", r_prec(lists, ties)[:, None], lists, average, True)


def r_prec(lists: RankedLists, ties: str) -> np.ndarray:
    """:func:`r_precision` of every list."""
    R = lists.relevant
    # (a cut past the list takes all of it: R of 2**63 or more would wrap as int64)
    hits = lists.taken(np.minimum(R, lists.sizes).astype(np.int64), ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, hits / R, np.nan)


def average_precision_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
                           ties: str = "expected", n_relevant: Any = None,
                           normalize: str = "relevant", average: str | None = "macro") -> Any:
    """Average precision at ``k``: the sum of the precision at each relevant item's
    rank over the top ``k``, divided by the list's number of relevant items
    (trec_eval's ``map_cut_k``; ``normalize="min"`` divides by ``min(k, relevant)``
    instead, so that a perfect top ``k`` scores 1). NaN for a list without relevant
    items. With ties, the expectation over every order of the tied items, in
    closed form.
    {doc}
    normalize : {"relevant", "min"}, default "relevant"

    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 1]], [[0.9, 0.8, 0.7, 0.1]]
    >>> fastrank.average_precision_at_k(y, s, 3)    # (1/1 + 2/3) / 3 relevant
    0.5555555555555555
    >>> fastrank.average_precision_at_k(y, s, 3, normalize="min")
    0.5555555555555555
    >>> fastrank.average_precision_at_k(y, s, 1, normalize="min")
    1.0
    """
    ks, scalar_k, ties = check_call(k, ties, groups, average)
    if normalize not in ("relevant", "min"):
        raise ValueError(f"normalize must be 'relevant' or 'min'; got {normalize!r}")
    lists = RankedLists(y_true, y_score, groups, n_relevant, depth=int(ks.max()))
    return finish("average_precision_at_k", ap_at(lists, ks, ties, normalize), lists,
                   average, scalar_k)


def ap_at(lists: RankedLists, ks: np.ndarray, ties: str, normalize: str) -> np.ndarray:
    """:func:`average_precision_at_k` of every list (rows) at every ``k`` (columns)."""
    cols = []
    for kk in ks.tolist():
        den = lists.relevant if normalize == "relevant" else np.minimum(lists.relevant, kk)
        with np.errstate(invalid="ignore", divide="ignore"):
            cols.append(np.where(den > 0, lists.average_precision(kk, ties) / den, np.nan))
    return np.column_stack(cols)


GAINS = ("linear", "exponential")


def _gain_of(grade: np.ndarray, gain: str) -> np.ndarray:
    if gain == "linear":
        return grade
    with np.errstate(over="ignore"):  # (2**1024 and more: inf, refused by ndcg_at)
        gains: np.ndarray = np.exp2(grade) - 1.0
    return gains


def ndcg_at_k(y_true: Any, y_score: Any, k: Any, *, groups: Any = None,
              ties: str = "expected", gain: str = "linear", n_relevant: Any = None,
              average: str | None = "macro") -> Any:
    """Normalised DCG at ``k`` with graded relevance: each list's DCG over its top
    ``k`` (gain ``g`` discounted by ``1 / log2(rank + 1)``) divided by its best DCG
    (its items ranked by their grades). NaN for a list without relevant items.

    ``gain="linear"`` takes the grade as the gain (scikit-learn's ``ndcg_score``,
    trec_eval's ``ndcg_cut``); ``"exponential"`` takes ``2**grade - 1``. With
    ``ties="expected"`` tied items share their group's mean gain (the expected DCG
    over every order of them, as scikit-learn computes it); ``"optimistic"`` and
    ``"pessimistic"`` order a tie group by grade, best or worst first.
    ``n_relevant`` (binary relevance only) adds the relevant items a list does not
    hold, each of grade 1, to its best DCG.
    {doc}
    gain : {"linear", "exponential"}, default "linear"

    Examples
    --------
    >>> import fastrank
    >>> y, s = [[3, 2, 0, 1]], [[0.9, 0.8, 0.5, 0.5]]
    >>> round(fastrank.ndcg_at_k(y, s, 3), 6)        # rank 3: half the tie's mean gain
    0.9475
    >>> round(fastrank.ndcg_at_k(y, s, 3, gain="exponential"), 6)
    0.973384
    """
    ks, scalar_k, ties = check_call(k, ties, groups, average)
    if gain not in GAINS:
        raise ValueError(f"gain must be 'linear' or 'exponential'; got {gain!r}")
    lists = RankedLists(y_true, y_score, groups, n_relevant, depth=int(ks.max()))
    return finish("ndcg_at_k", ndcg_at(lists, ks, ties, gain, n_relevant is not None), lists,
                   average, scalar_k)


def ndcg_at(lists: RankedLists, ks: np.ndarray, ties: str, gain: str,
            missing: bool = False) -> np.ndarray:
    """:func:`ndcg_at_k` of every list (rows) at every ``k`` (columns); ``missing``:
    the relevant items a list lacks (``relevant - found``, grade 1) enter its ideal."""
    g = _gain_of(lists.item_grade, gain)
    owner = lists.item_list
    if missing:
        if (lists.item_grade != 1).any():
            raise ValueError("n_relevant with graded relevance leaves the missing items' grades "
                             "unknown; give 0/1 relevance, or every item")
        # only the first max(k) ranks of an ideal list count: no more stand-ins than
        # that (n_relevant of 2e9 took 15 GiB, 1e19 overflowed int64)
        lack = np.minimum(lists.relevant - lists.found, float(ks.max())).astype(np.int64)
        owner = np.concatenate([owner, np.repeat(np.arange(lack.shape[0]), lack)])
        g = np.concatenate([g, np.ones(int(lack.sum()))])
    best = best_dcgs(owner, g, lists.first.shape[0], ks.tolist())
    if not np.isfinite(best).all():  # (the actual DCG is at most the best: finite then)
        raise ValueError(
            "nDCG@k: a list's best DCG overflows float64 (its gains"
            + (", 2**grade - 1," if gain == "exponential" else "")
            + " sum past about 1.8e308); scale the grades down"
            + (" or use gain='linear'" if gain == "exponential" else "")
        )
    got = np.column_stack([lists.dcg(_gain_of(lists.item_grade, gain), kk, ties)
                           for kk in ks.tolist()])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(best > 0, got / best, np.nan)


for _f in (precision_at_k, recall_at_k, f1_at_k, hit_rate_at_k, reciprocal_rank, r_precision,
           average_precision_at_k, ndcg_at_k):
    _f.__doc__ = (_f.__doc__ or "").replace("{doc}", _TOPK_DOC)
