"""trec_eval's measures of judged documents (``bpref``, ``gm_bpref``, ``infAP``,
``rbp``, ``rbp_resid``, ``unj_k``) and its options ``-M`` (depth), ``-J`` (judged
documents only), ``-l`` (relevance level) and ``-c`` (every judged query).

Every retrieved document is one of: judged at a grade of 0 or more (relevant from
the relevance level), pooled but not judged (a negative grade, as trec_eval reads
it) or not in the qrels at all. The measures read each query's retrieved documents
in rank order, in tie groups: under ``"expected"`` every order of a group is equally
likely, so a document of a group of ``g`` starting at position ``s`` stands at each
of ``s .. s + g - 1`` with probability ``1/g``; the other rules give groups of one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import UnsupportedOptionError

KINDS = ("bpref", "gm_bpref", "infAP", "rbp", "rbp_resid", "unj")

MIN_GEO_MEAN = 1e-5  # trec_eval's floor of a value before its logarithm
INFAP_EPSILON = 1e-5  # trec_eval's smoothing of infAP's precision among judged documents


@dataclass(frozen=True)
class Retrieved:
    """Each evaluated query's retrieved documents in rank order.

    Attributes
    ----------
    query : ndarray of int64
        Each row's query code (rows by query, then rank).
    grade : ndarray of float64
        Each row's grade: NaN where the qrels lack it, negative where pooled but
        not judged.
    position, start, size : ndarray of int64
        Each row's 0-based position in its query, its tie group's first position
        and the group's size (1 under every tie rule but ``"expected"``).
    n_ret, n_rel, n_nonrel, top_grade : ndarray
        Per query: documents retrieved, judged relevant (grade at or above the
        level), judged not relevant (grade from 0 below the level), and the highest
        judged grade (at least 0).
    level : float
        The grade from which a judged document is relevant.
    ties : str
        The tie rule the groups stand for.
    """

    query: np.ndarray
    grade: np.ndarray
    position: np.ndarray
    start: np.ndarray
    size: np.ndarray
    n_ret: np.ndarray
    n_rel: np.ndarray
    n_nonrel: np.ndarray
    top_grade: np.ndarray
    level: float
    ties: str


def check_options(depth: object, judged_only: object, relevance_level: object,
                  all_queries: object) -> tuple[int | None, float]:
    """trec_eval's options checked: ``depth`` None or a positive integer,
    ``relevance_level`` a finite number from 0, the flags booleans."""
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
            raise ValueError(f"depth must be a positive integer or None; got {depth!r}")
        if depth < 1:
            raise ValueError(f"depth must be at least 1; got {depth!r}")
    for name, flag in (("judged_only", judged_only), ("all_queries", all_queries)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False; got {flag!r}")
    if isinstance(relevance_level, bool) or not isinstance(relevance_level,
                                                          (int, float, np.integer, np.floating)):
        raise ValueError(f"relevance_level must be a number; got {relevance_level!r}")
    level = float(relevance_level)
    if not math.isfinite(level):
        raise ValueError(f"relevance_level must be finite; got {relevance_level!r}")
    if level < 0:  # trec_eval's -l -1 makes documents the qrels lack (its grade -1)
        # relevant to P, map and the others, but not to num_rel_ret: no one number
        raise ValueError(f"relevance_level must be at least 0 (a negative grade is never "
                         f"relevant); got {relevance_level!r}")
    return (None if depth is None else int(depth)), level


def codes_of(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The ids of ``a`` and ``b`` as codes of their sorted distinct ids together."""
    distinct, inv = np.unique(np.concatenate((a, b)), return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    return inv[:a.shape[0]], inv[a.shape[0]:], distinct.shape[0]


def grades_of(jq: np.ndarray, jd: np.ndarray, jr: np.ndarray, rq: np.ndarray,
              rd: np.ndarray) -> np.ndarray:
    """Each run row's grade in the qrels (NaN where not judged): query codes ``jq``,
    ``rq`` (-1 for qrels rows to leave out) and document ids or keys ``jd``, ``rd``
    comparable with each other."""
    use = jq >= 0
    jq, jd, jr = jq[use], jd[use], jr[use]
    nq = int(max(jq.max(initial=0), rq.max(initial=0))) + 1
    both = np.concatenate((jd, rd))
    if both.dtype.kind in "iu" and both.shape[0]:  # integer keys in a narrow range: as they are
        lo, hi = int(both.min()), int(both.max())
        if (hi - lo + 1) * nq < 2**62:
            jdc, rdc, width = jd.astype(np.int64) - lo, rd.astype(np.int64) - lo, hi - lo + 1
        else:
            jdc, rdc, width = codes_of(jd, rd)
    else:
        jdc, rdc, width = codes_of(jd, rd)
    jkey = jq.astype(np.int64) * max(width, 1) + jdc
    rkey = rq.astype(np.int64) * max(width, 1) + rdc
    order = np.argsort(jkey, kind="stable")
    sk = jkey[order]
    at = np.minimum(np.searchsorted(sk, rkey), max(sk.shape[0] - 1, 0))
    grade = np.full(rq.shape[0], np.nan)
    if sk.shape[0]:
        hit = sk[at] == rkey
        grade[hit] = jr[order[at[hit]]]
    return grade


def merit(grade: np.ndarray) -> np.ndarray:
    """The order of the optimistic rule within tied scores, best first when
    decreasing: judged by grade, then pooled but not judged, then not pooled."""
    return np.where(grade >= 0, grade, np.where(np.isnan(grade), -2.0, -1.0))


def trim(jq: np.ndarray, jd: np.ndarray, jr: np.ndarray, rq: np.ndarray, rd: np.ndarray,
         rs: np.ndarray, ties: str, depth: int | None, judged_only: bool
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The run as trec_eval's ``-M depth`` and then ``-J`` leave it, and the ids of
    the queries it held before (evaluated even where nothing is left; None when
    neither option is given).

    ``-M`` keeps each query's first ``depth`` documents in the order of ``ties``:
    trec_eval's (score decreasing, then document id decreasing as text), the
    optimistic or pessimistic order of :func:`merit`; under ``"expected"`` a tie
    group across the cut is refused, since which of its documents remain is a
    matter of chance. ``-J`` then removes the documents the qrels do not judge
    (absent or of negative grade)."""
    if depth is None and not judged_only:
        return rq, rd, rs, None
    before = np.unique(rq)
    jqc, rqc, _ = codes_of(jq, rq)
    grade = grades_of(jqc, jd, jr, rqc, rd) if (judged_only or ties in ("optimistic",
                                                                       "pessimistic")) else None
    keep = np.ones(rq.shape[0], bool)
    if depth is not None:
        if ties == "trec_eval":
            text = rd if rd.dtype.kind in "US" else rd.astype(str)
            second = -codes_of(text, text[:0])[0]  # decreasing document id as text
        elif ties in ("optimistic", "pessimistic"):
            assert grade is not None
            second = -merit(grade) if ties == "optimistic" else merit(grade)
        else:
            second = np.zeros(rq.shape[0])
        order = np.lexsort((second, -rs, rqc))
        q = rqc[order]
        first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
        pos = np.arange(q.shape[0]) - np.repeat(first, np.diff(np.r_[first, q.shape[0]]))
        cut = pos >= depth
        if ties == "expected":  # the last kept and first dropped documents tie
            s = rs[order]
            split = cut[1:] & ~cut[:-1] & (q[1:] == q[:-1]) & (s[1:] == s[:-1])
            split &= np.isin(q[1:], jqc)  # (queries without judgments are not evaluated)
            if split.any():
                i = int(np.flatnonzero(split)[0])
                raise UnsupportedOptionError(
                    f"depth={depth} cuts through documents tied on score (query "
                    f"{rq[order[i]]!r}, score {s[i]!r}), and which of them remain is a matter "
                    "of chance under ties='expected'; use ties='trec_eval', 'optimistic' or "
                    "'pessimistic'")
        keep[order[cut]] = False
    if judged_only:
        assert grade is not None
        keep &= grade >= 0
    return rq[keep], rd[keep], rs[keep], before


def evaluated_too(judged_q: np.ndarray, q_all: np.ndarray, had: np.ndarray | None,
                  all_queries: bool) -> np.ndarray:
    """Which of the queries ``q_all`` (judged where ``judged_q``) are evaluated
    whether or not the run, as :func:`trim` leaves it, holds a document of theirs:
    every judged one under ``-c``; else those the run held before :func:`trim`."""
    if all_queries:
        return judged_q
    if had is None:
        return np.zeros_like(judged_q)
    return judged_q & np.isin(q_all, had)


def pad_empty(starts: np.ndarray, ends: np.ndarray, keys: np.ndarray, scores: np.ndarray,
              jkeys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          np.ndarray]:
    """Queries evaluated with nothing retrieved (``-c``, or ``-J`` leaving nothing)
    given one document that no judgment names, so that every ranking holds a
    document; :data:`EMPTY_ZERO` lists the measures it changes, set back to the 0
    trec_eval gives an empty run. Returns the blocks, keys and scores, and which
    queries were empty."""
    empty = ends == starts
    if not empty.any():
        return starts, ends, keys, scores, empty
    used = np.unique(np.concatenate((jkeys, keys)).astype(np.int64))
    free = int(used[0]) - 1 if used.shape[0] and used[0] > np.iinfo(np.int64).min else None
    if free is None:  # the least key is taken: the first gap above it
        gap = np.flatnonzero(np.diff(used) > 1)
        free = int(used[gap[0]]) + 1 if gap.shape[0] else int(used[-1]) + 1
    m = int(empty.sum())
    at = keys.shape[0] + np.arange(m)
    starts, ends = starts.copy(), ends.copy()
    starts[empty], ends[empty] = at, at + 1
    return (starts, ends, np.concatenate((keys, np.full(m, free, keys.dtype))),
            np.concatenate((scores, np.zeros(m))), empty)


EMPTY_ZERO = ("num_ret", "utility", "unj", "rbp_resid")  # what the stand-in document changes


def ranked(starts: np.ndarray, ends: np.ndarray, keys: np.ndarray, scores: np.ndarray,
           jcode: np.ndarray, jkeys: np.ndarray, jgrade: np.ndarray, ties: str,
           level: float) -> Retrieved:
    """Each query's retrieved documents (query ``i``'s rows ``starts[i] .. ends[i]``
    of the document ``keys`` and ``scores``) with their grades from the judgments
    (query codes ``jcode``, -1 for others; ``jkeys``, ``jgrade``), in rank order by
    the tie rule ``ties`` (``"expected"``, ``"optimistic"`` or ``"pessimistic"``)."""
    nq = starts.shape[0]
    span = ends - starts
    n = int(span.sum())
    rows = np.arange(n) + np.repeat(starts - (np.cumsum(span) - span), span)
    query = np.repeat(np.arange(nq, dtype=np.int64), span)
    grade = grades_of(jcode, jkeys, jgrade, query, keys[rows])
    score = scores[rows]
    second = (-merit(grade) if ties == "optimistic" else merit(grade) if ties == "pessimistic"
              else np.zeros(n))
    order = np.lexsort((second, -score, query))
    grade, score = grade[order], score[order]
    first = np.cumsum(span) - span
    position = np.arange(n, dtype=np.int64) - np.repeat(first, span)
    new = np.ones(n, bool)
    if ties == "expected" and n > 1:
        new[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
    gfirst = np.flatnonzero(new)
    gsize = np.diff(np.append(gfirst, n))
    start = np.repeat(position[gfirst], gsize)
    size = np.repeat(gsize, gsize)
    judged = (jcode >= 0) & (jgrade >= 0)
    rel = judged & (jgrade >= level)
    n_rel = np.bincount(jcode[rel], minlength=nq).astype(np.float64)
    n_nonrel = np.bincount(jcode[judged & ~rel], minlength=nq).astype(np.float64)
    top = np.zeros(nq)
    np.maximum.at(top, jcode[judged], jgrade[judged])
    return Retrieved(query, grade, position, start, size, span.astype(np.float64), n_rel,
                     n_nonrel, top, level, ties)


def bpref(r: Retrieved) -> np.ndarray:
    """trec_eval's bpref per query: over the relevant documents, 1 less the judged
    non-relevant ones above each (at most R) over min(R, N); in expectation, a
    relevant document of a group holding b judged non-relevant documents has a
    number of them above it that is uniform on 0 .. b, whatever the group's others."""
    judged = r.grade >= 0
    rel = judged & (r.grade >= r.level)
    nonrel = (judged & ~rel).astype(np.int64)
    before = np.cumsum(nonrel) - nonrel  # over every query; differences within one
    head = np.arange(r.query.shape[0]) - (r.position - r.start)  # each group's first row
    first_row = np.arange(r.query.shape[0]) - r.position
    tail = head + r.size - 1
    a = (before[head] - before[first_row]).astype(np.float64)  # judged non-relevant above
    b = (before[tail] + nonrel[tail] - before[head]).astype(np.float64)  # in the group
    big_r = r.n_rel[r.query]
    c = np.clip(big_r - a, 0.0, b + 1.0)  # draws 0 .. b with a + x below R
    mean_min = np.where(b > 0, (c * a + c * (c - 1) / 2 + (b + 1 - c) * big_r) / (b + 1),
                        np.minimum(a, big_r))
    den = np.minimum(r.n_nonrel, r.n_rel)[r.query]
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(mean_min > 0, 1.0 - mean_min / den, 1.0)
    total = np.bincount(r.query[rel], part[rel], minlength=r.n_rel.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r.n_rel > 0, total / r.n_rel, np.nan)


def inf_ap(r: Retrieved) -> np.ndarray:
    """trec_eval's infAP per query (its formula, term for term). It depends on the
    order of a relevant document among tied documents of other kinds in a way
    with no closed-form expectation: under ``"expected"`` such a tie is refused."""
    judged = r.grade >= 0
    rel = judged & (r.grade >= r.level)
    nonrel = judged & ~rel
    pooled = r.grade < 0
    if r.ties == "expected":
        relg = np.add.reduceat(rel.astype(np.int64), np.flatnonzero(r.position == r.start)) \
            if r.query.shape[0] else np.zeros(0, np.int64)
        sizes = r.size[r.position == r.start]
        if ((relg > 0) & (relg < sizes)).any():
            raise UnsupportedOptionError(
                "infAP depends on the order of a relevant document among tied documents of "
                "other kinds, and its expectation over those orders has no closed form here; "
                "use ties='trec_eval', 'optimistic' or 'pessimistic' for infAP")
    first_row = np.arange(r.query.shape[0]) - r.position

    def above(x: np.ndarray) -> np.ndarray:
        c = np.cumsum(x.astype(np.int64))
        ex = c - x
        out: np.ndarray = (ex - ex[first_row]).astype(np.float64)
        return out

    rs, ns, us = above(rel), above(nonrel), above(pooled)
    j = r.position.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(j == 0, 1.0, 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rs + ns + us) / j)
                        * ((rs + INFAP_EPSILON) / (rs + ns + 2 * INFAP_EPSILON)))
    total = np.bincount(r.query[rel], part[rel], minlength=r.n_rel.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r.n_rel > 0, total / r.n_rel, np.nan)


def weight(r: Retrieved, p: float) -> np.ndarray:
    """Each row's expected p ** position over its group's positions."""
    exact = p ** r.start.astype(np.float64)
    g = r.size.astype(np.float64)
    return np.where(r.size == 1, exact, exact * (1.0 - p ** g) / ((1.0 - p) * g))


def rbp(r: Retrieved, p: float) -> np.ndarray:
    """trec_eval's rank-biased precision: (1 - p) times the gains summed with weight
    p ** rank (from 0); a gain is the grade over the query's highest judged grade
    where that is above 1 (trec_eval normalizes gains into 0 .. 1), 0 for documents
    not judged. Linear in the weights, so exact in expectation."""
    gain = np.where(r.grade > 0, r.grade, 0.0) / np.maximum(r.top_grade, 1.0)[r.query]
    total = np.bincount(r.query, gain * weight(r, p), minlength=r.n_ret.shape[0])
    return (1.0 - p) * total


def rbp_resid(r: Retrieved, p: float) -> np.ndarray:
    """trec_eval's residual of rbp: what unjudged documents and the ranks past the
    run could add, p ** num_ret + (1 - p) times the weights of the unjudged
    documents; 0 for a query without unjudged documents (trec_eval's rule)."""
    unj = ~(r.grade >= 0)
    nq = r.n_ret.shape[0]
    total = np.bincount(r.query[unj], weight(r, p)[unj], minlength=nq)
    some = np.bincount(r.query[unj], minlength=nq) > 0
    return np.where(some, p ** r.n_ret + (1.0 - p) * total, 0.0)


def unjudged(r: Retrieved, k: int) -> np.ndarray:
    """trec_eval's ``unj_k``: the documents in the first k ranks that the qrels do
    not judge (absent or of negative grade), over k; ranks the run does not fill
    count as judged. In expectation each document counts the chance that its group
    puts it in the first k ranks."""
    unj = ~(r.grade >= 0)
    inside = np.clip((k - r.start) / r.size, 0.0, 1.0)
    return np.bincount(r.query[unj], inside[unj], minlength=r.n_ret.shape[0]) / k


def measure(kind: str, k: int | None, x: float, r: Retrieved) -> np.ndarray:
    """One of :data:`KINDS` per query (``k`` the cut-off of ``unj``, ``x`` the p of
    ``rbp`` and ``rbp_resid``); ``gm_bpref`` per query is bpref floored at trec_eval's
    1e-5, its mean geometric."""
    if kind == "bpref":
        return bpref(r)
    if kind == "gm_bpref":
        floored: np.ndarray = np.maximum(bpref(r), MIN_GEO_MEAN)
        return floored
    if kind == "infAP":
        return inf_ap(r)
    if kind == "rbp":
        return rbp(r, x)
    if kind == "rbp_resid":
        return rbp_resid(r, x)
    return unjudged(r, k or 1)
