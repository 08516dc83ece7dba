"""trec_eval's measures of the whole ranking beyond P, AP and nDCG: interpolated
precision at recall levels (``iprec_at_recall``, ``11pt_avg``), ``relative_P``,
``binG``, ``G``, ``ndcg_rel`` and ``Rndcg``, per query from the queries' ranked lists.

Each has a path for one order of the documents (trec_eval's, whose scores arrive
distinct, or relevant documents first or last within ties: the documents placed
one by one) and, where a closed form over every order of the tied documents
exists, one for ``ties="expected"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._rankings import lists as topk
from ..exceptions import UnsupportedOptionError

if TYPE_CHECKING:
    from .measures import Queries

KINDS = ("iprec_at_recall", "11pt_avg", "relative_P", "binG", "G", "ndcg_rel", "Rndcg")
ELEVEN = tuple(i / 10 for i in range(11))  # trec_eval's recall levels 0.0, 0.1, ..., 1.0


def per_query(kind: str, k: int | None, x: float, data: Queries) -> np.ndarray:
    """One of :data:`KINDS` per query (queries by code)."""
    lists = data.lists
    ties = data.ties  # trec_eval's order arrives as "expected" over distinct scores
    if kind == "relative_P":  # relevant in the top k over the most the top k can hold
        R = lists.relevant
        got = lists.taken(np.full(R.shape[0], k or 1, np.int64), data.ties)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(R > 0, got / np.minimum(R, k or 1), np.nan)
    if kind == "iprec_at_recall":
        return iprec(lists, ties, [x])[:, 0]
    if kind == "11pt_avg":
        return np.asarray(iprec(lists, ties, ELEVEN).mean(axis=1))
    if kind == "binG":
        return bin_g(lists, ties)
    ideal = Ideal(data)
    if kind == "G":
        if ties == "expected" and not bool((lists.m == 1).all()):
            raise UnsupportedOptionError(
                "G has no closed form over the orders of tied documents, and this run ties "
                "scores: use ties='trec_eval', 'optimistic' or 'pessimistic'")
        return gain_g(lists, ties, ideal)
    if kind == "ndcg_rel":
        return ndcg_rel(lists, ties, ideal)
    return r_ndcg(lists, ties, ideal)


def seg_cumsum(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """The running sum of ``values`` within each segment (``owner`` nondecreasing, in
    ``0 .. n-1``), inclusive, each segment summed on its own (the same bits whatever
    the other segments hold)."""
    values = np.asarray(values, np.float64)
    if not values.shape[0]:
        return values.copy()
    count = np.bincount(owner, minlength=n)
    start = np.cumsum(count) - count
    place = np.arange(values.shape[0]) - start[owner]
    width = int(count.max())
    if n * width <= 4 * values.shape[0] + 4096:  # a padded matrix, summed along its rows
        pad = np.zeros((n, width))
        pad[owner, place] = values
        return np.asarray(np.cumsum(pad, axis=1)[owner, place])
    out = np.empty_like(values)
    for q in np.flatnonzero(count).tolist():
        s, e = int(start[q]), int(start[q] + count[q])
        out[s:e] = np.cumsum(values[s:e])
    return out


def placed(lists: topk.RankedLists, ties: str
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The retrieved items of positive grade in one order of each tie group (highest
    grade first for ``"optimistic"``, and for ``"expected"`` on lists without ties;
    lowest first, after the group's other documents, for ``"pessimistic"``): each
    one's list, 0-based rank, grade and whether it is relevant, by list and rank."""
    head = lists.item_group >= 0
    grp, grade, rel = lists.item_group[head], lists.item_grade[head], lists.item_rel[head]
    by = np.lexsort((grade if ties == "pessimistic" else -grade, grp))
    grp, grade, rel = grp[by], grade[by], rel[by]
    count = np.bincount(grp, minlength=lists.a.shape[0])
    place = np.arange(grp.shape[0]) - (np.cumsum(count) - count)[grp]
    rank = lists.a[grp] + place
    if ties == "pessimistic":
        rank = rank + lists.m[grp] - count[grp]
    return lists.list[grp], rank.astype(np.int64), grade, rel


def _list_max(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Each list's largest value (``owner`` nondecreasing; 0 for a list without any)."""
    out = np.zeros(n)
    if values.shape[0]:
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        out[owner[starts]] = np.maximum.reduceat(values, starts)
    return out


def iprec(lists: topk.RankedLists, ties: str, levels: tuple[float, ...] | list[float]
          ) -> np.ndarray:
    """Interpolated precision at each recall level (columns), trec_eval's way: the
    level's relevant count ``c = round(level R)`` (halves up), then the most
    precision at any point holding ``c`` or more relevant documents (0 when the run
    holds fewer). The points are the relevant documents' ranks in one order; for
    ``"expected"`` with ties, the ends of the tie groups holding a relevant document
    (the precision-recall curve over score thresholds)."""
    n = lists.first.shape[0]
    if ties == "expected":
        h = np.concatenate(([0.0], np.cumsum(lists.r)))[1:]
        h = h - np.concatenate(([0.0], np.cumsum(lists.r)))[lists.first][lists.list]
        g = np.flatnonzero(lists.r > 0)
        owner, count, rank = lists.list[g], h[g], (lists.a[g] + lists.m[g]).astype(np.float64)
    else:
        owner, at, _, rel = placed(lists, ties)
        owner, at = owner[rel], at[rel]
        count = seg_cumsum(np.ones(owner.shape[0]), owner, n)
        rank = at + 1.0
    prec = count / rank
    R = lists.relevant
    cols = []
    for level in levels:
        v = level * R
        cut = np.floor(v) + (v - np.floor(v) >= 0.5)  # C's lround: halves away from 0
        cols.append(_list_max(np.where(count >= cut[owner], prec, 0.0), owner, n))
    out = np.column_stack(cols)
    out[R == 0] = np.nan
    return out


def bin_g(lists: topk.RankedLists, ties: str) -> np.ndarray:
    """trec_eval's ``binG``: over the relevant documents, ``1 / log2(2 + the other
    documents above it)``, summed, over R. With ties expected: a relevant document
    of a group of ``r`` relevant and ``n`` others is below ``0 .. n`` of the others
    with equal chance (each of the ``n + 1`` gaps between them alike), so the group
    adds ``r / (n + 1)`` times the sum of the ``n + 1`` terms."""
    n = lists.first.shape[0]
    R = lists.relevant
    if ties == "expected":
        cum = np.concatenate(([0.0], np.cumsum(lists.r)))
        above = cum[:-1] - cum[lists.first][lists.list]  # relevant above each group
        g = np.flatnonzero(lists.r > 0)
        r, m = lists.r[g], lists.m[g].astype(np.float64)
        others_above = (lists.a[g] - above[g]).astype(np.int64)
        others = (m - r).astype(np.int64)
        table = np.concatenate(([0.0], np.cumsum(
            1.0 / np.log2(np.arange(int(lists.sizes.max()) + 1) + 2.0))))
        part = r / (others + 1) * (table[others_above + others + 1] - table[others_above])
        total = np.bincount(lists.list[g], part, minlength=n)
    else:
        owner, rank, _, rel = placed(lists, ties)
        owner, rank = owner[rel], rank[rel]
        before = seg_cumsum(np.ones(owner.shape[0]), owner, n) - 1.0
        total = np.bincount(owner, 1.0 / np.log2(2.0 + rank - before), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, total / R, np.nan)


class Ideal:
    """Each query's judged grades above 0 (its gains), highest first, as trec_eval's
    ideal ranking: per query the count, the total, and running sums looked up by
    rank."""

    def __init__(self, data: Queries) -> None:
        n = data.lists.first.shape[0]
        pos = data.jgrades > 0
        code, gain = data.jcodes[pos], data.jgrades[pos]
        by = np.lexsort((-gain, code))
        self.code, self.gain = code[by], gain[by]
        self.count = np.bincount(self.code, minlength=n)
        self.start = np.cumsum(self.count) - self.count
        self.rank = np.arange(self.code.shape[0]) - self.start[self.code]
        self.total = np.bincount(self.code, self.gain, minlength=n)
        self.n = n

    def running(self, per_rank: np.ndarray) -> np.ndarray:
        """Per query, the running sums of ``per_rank`` (one value per ideal item) with
        a 0 in front: query q's sum over its first j is ``out[start[q] + q + j]``."""
        inner = seg_cumsum(per_rank, self.code, self.n)
        out = np.zeros(inner.shape[0] + self.n)
        out[np.arange(inner.shape[0]) + self.code + 1] = inner
        return out

    def at(self, running: np.ndarray, q: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The running sum of query ``q`` over its first ``j`` ideal items (all of
        them when ``j`` is past them)."""
        return np.asarray(running[self.start[q] + q + np.minimum(j, self.count[q])])

    def dcg(self) -> np.ndarray:
        """The running ideal DCG (see :meth:`running`)."""
        return self.running(self.gain / np.log2(self.rank + 2.0))


def gain_g(lists: topk.RankedLists, ties: str, ideal: Ideal) -> np.ndarray:
    """trec_eval's ``G``, in one order: a document of gain g at rank i adds
    ``g / log2(2 + C(i) - S(i))``, S(i) the gain down to it, C(i) the ideal gains
    down to rank i each counted as at least 1; the sum over the query's total gain."""
    n = lists.first.shape[0]
    owner, rank, gain, _ = placed(lists, ties)
    got = seg_cumsum(gain, owner, n)
    extra = ideal.running(np.maximum(ideal.gain - 1.0, 0.0))
    cost = rank + 1.0 + ideal.at(extra, owner, rank + 1)
    total = np.bincount(owner, gain / np.log2(2.0 + cost - got), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal.total > 0, total / ideal.total, np.nan)


def _group_dcg(lists: topk.RankedLists, cum: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Per tie group: its count of items of positive gain (a relevance level of 0 or
    below makes grade 0 items too) and total gain, and its expected DCG (its mean
    gain at each of its ranks)."""
    head = lists.item_group >= 0
    grp = lists.item_group[head]
    size = lists.a.shape[0]
    items = np.bincount(grp[lists.item_grade[head] > 0], minlength=size).astype(np.float64)
    total = np.bincount(grp, lists.item_grade[head], minlength=size)
    return items, total, total / lists.m * (cum[lists.a + lists.m] - cum[lists.a])


def ndcg_rel(lists: topk.RankedLists, ties: str, ideal: Ideal) -> np.ndarray:
    """trec_eval's ``ndcg_rel``: nDCG at the rank of each retrieved document of
    positive gain, and the full list's nDCG for each one not retrieved, averaged
    over the query's documents of positive gain.

    With ties expected, nDCG at a rank t of a group (``m`` documents, ``r`` of
    positive gain, total gain G, ``a`` documents above) counts when t holds one of
    positive gain, and the expectation of that product is linear: with chance r / m,
    times the expected DCG above the group, plus G / m at t itself, plus
    G (r - 1) / (m (m - 1)) at each rank of the group above t; each over the ideal
    DCG at t."""
    n = lists.first.shape[0]
    best = ideal.dcg()
    cum = lists.discounts(None, "log")
    # documents of positive gain only: trec_eval's ndcg_rel does not follow -l (at a
    # level of 0, items of grade 0 are relevant, and were counted here)
    retrieved = np.bincount(lists.item_list[(lists.item_group >= 0) & (lists.item_grade > 0)],
                            minlength=n)
    full: np.ndarray  # each list's DCG, whole
    if ties == "expected":
        items, total, part = _group_dcg(lists, cum)
        full = np.bincount(lists.list, part, minlength=n)
        above = seg_cumsum(part, lists.list, n) - part
        g = np.flatnonzero(items > 0)
        m = lists.m[g]
        span = np.repeat(np.arange(g.shape[0]), m)
        t = np.arange(span.shape[0]) - np.repeat(np.cumsum(m) - m, m) + lists.a[g][span] + 1
        r, tot, a = items[g][span], total[g][span], lists.a[g][span]
        mm = m[span].astype(np.float64)
        pair = np.where(mm > 1, tot * (r - 1) / (mm * np.maximum(mm - 1, 1)), 0.0)
        value = (r / mm * above[g][span] + pair * (cum[t - 1] - cum[a])
                 + tot / mm * (cum[t] - cum[t - 1]))
        owner = lists.list[g][span]
        sums = np.bincount(owner, value / ideal.at(best, owner, t), minlength=n)
    else:
        owner, at, gain, _ = placed(lists, ties)
        dcg = seg_cumsum(gain / np.log2(at + 2.0), owner, n)
        full = np.zeros(n)
        if owner.shape[0]:
            last = np.flatnonzero(np.r_[owner[1:] != owner[:-1], True])
            full[owner[last]] = dcg[last]
        kept = gain > 0  # averaged at the documents of positive gain
        sums = np.bincount(owner[kept], dcg[kept] / ideal.at(best, owner[kept], at[kept] + 1),
                           minlength=n)
    count = ideal.count.astype(np.float64)
    q = np.arange(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = sums + (count - retrieved) * full / ideal.at(best, q, ideal.count)
        return np.where(count > 0, sums / count, np.nan)


def dcg_at(lists: topk.RankedLists, k: np.ndarray, ties: str, cum: np.ndarray) -> np.ndarray:
    """Each list's DCG at its own cut-off ``k[list]`` (gains its items' grades)."""
    n = lists.first.shape[0]
    if ties == "expected":
        _, total, _ = _group_dcg(lists, cum)
        kk = k[lists.list]
        part = total / lists.m * (cum[np.minimum(lists.a + lists.m, kk)]
                                  - cum[np.minimum(lists.a, kk)])
        return np.bincount(lists.list, part, minlength=n)
    owner, rank, gain, _ = placed(lists, ties)
    inside = rank < k[owner]
    return np.bincount(owner[inside], gain[inside] / np.log2(rank[inside] + 2.0), minlength=n)


def r_ndcg(lists: topk.RankedLists, ties: str, ideal: Ideal) -> np.ndarray:
    """trec_eval's ``Rndcg``: the mean of nDCG at each rank where the ideal ranking
    moves to a lower grade (after the documents of each positive grade: the last
    such rank is R, the count of positive gain), and at the end of the run when
    the run is at least R + 2 long (trec_eval's loops, as they are). nDCG at k is
    linear in the order, so with ties expected each term is its expectation."""
    n = lists.first.shape[0]
    best = ideal.dcg()
    longest = int(lists.sizes.max())
    cum = lists.discounts(None, "log")
    # each query's grade levels (ideal ranks where a lower grade starts)
    new = np.ones(ideal.code.shape[0], bool)  # (none where no query has a positive grade)
    new[1:] = (ideal.code[1:] != ideal.code[:-1]) | (ideal.gain[1:] != ideal.gain[:-1])
    ends = np.append(np.flatnonzero(new)[1:], ideal.code.shape[0])[:np.count_nonzero(new)]
    level_q = ideal.code[new]
    cuts_q = ends - ideal.start[level_q]  # the rank after each level
    runs = lists.sizes
    extra = np.flatnonzero((ideal.count > 0) & (runs >= ideal.count + 2))
    level_q = np.concatenate([level_q, extra])
    cuts_q = np.concatenate([cuts_q, runs[extra]])
    by = np.lexsort((cuts_q, level_q))
    level_q, cuts_q = level_q[by], cuts_q[by]
    nth = np.arange(level_q.shape[0]) - np.searchsorted(level_q, level_q)
    sums, counts = np.zeros(n), np.zeros(n)
    for j in range(int(nth.max(initial=-1)) + 1):
        pick = nth == j
        k = np.zeros(n, np.int64)
        k[level_q[pick]] = np.minimum(cuts_q[pick], longest)
        at = np.zeros(n, np.int64)
        at[level_q[pick]] = cuts_q[pick]
        has = np.zeros(n, bool)
        has[level_q[pick]] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            value = dcg_at(lists, k, ties, cum) / ideal.at(best, np.arange(n), at)
        sums += np.where(has, value, 0.0)
        counts += has
    with np.errstate(invalid="ignore", divide="ignore"):  # no document relevant at the
        # relevance level: trec_eval's Rndcg is 0 (here NaN, 0 under its tie rule)
        return np.where((ideal.count > 0) & (lists.relevant > 0), sums / counts, np.nan)
