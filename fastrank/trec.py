"""Retrieval runs scored against relevance judgments: TREC files and the measures
trec_eval reports, tie-aware.

A *run* ranks documents per query (TREC format: ``qid Q0 docid rank score tag``,
whitespace-separated; the rank column is ignored, the score ranks). *Qrels*
judge them (``qid iter docid relevance``; relevance 1 and above is relevant, and
the grade is the gain of nDCG). :func:`evaluate_run` joins the two and computes
each measure per query with the functions of :mod:`fastrank.rankings`, so tied
scores count by ``ties=``: in expectation over every order of the tied documents
(the default), optimistically (relevant documents first within ties, the higher
grade first), pessimistically (last), or ``"trec_eval"``, which breaks ties as
trec_eval does (by document id, in decreasing order) and so gives its numbers.

Measures (``-m`` on the command line; R is the query's number of relevant documents,
retrieved or not; "linear" means the tie-expected value is the measure over the
expected counts or gains at each rank, so exactly the expectation over every order):

========================= =============================================== ================
name                      what                                            ties="expected"
========================= =============================================== ================
``map``, ``map@k``        average precision (at k: trec_eval's map_cut_k) closed form
``gm_map``                AP per query; its mean is the geometric mean    closed form (the
                          of each AP, floored at 1e-5, as trec_eval's     geometric mean
                          all row                                         of expected APs)
``P@k``, ``recall@k``     precision, recall in the top k                  linear
``relative_P@k``          relevant in the top k over min(k, R)            linear
``success@k``             a relevant document in the top k                closed form
``recip_rank``            1 / the rank of the first relevant document     closed form
``Rprec``                 precision at rank R                             linear
``Rprec_mult_x``          precision at the first ``floor(x R + 0.9)``     linear
                          ranks, as trec_eval (0 where that is 0)
``iprec_at_recall_r``     interpolated precision at recall level r (0 to  of the points at
                          1): the most precision at any point with        the ends of the
                          ``round(r R)`` relevant documents or more       tie groups (not
                                                                          the expectation)
``11pt_avg``              mean of iprec_at_recall at 0.0, 0.1 ... 1.0     as iprec
``ndcg``, ``ndcg@k``      nDCG, gain the grade (trec_eval's ndcg_cut_k)   linear
``ndcg_rel``              nDCG at each retrieved document of positive     closed form
                          gain, and the whole nDCG for each one not
                          retrieved, averaged over them
``Rndcg``                 mean nDCG at the ranks where the ideal ranking  linear
                          moves to a lower grade (R the last), and at
                          the run's end when it is at least R + 2 long
``binG``                  over relevant documents, 1 / log2(2 + the       closed form
                          other documents above it), summed, over R
``G``                     trec_eval's G: gain g at rank i adds g /        refused (no
                          log2(2 + ideal cost - gain down to i), over     closed form),
                          the query's total gain                          unless no ties
``num_ret``               documents retrieved                             the same under
                                                                          every rule
``num_rel``               R                                               the same
``num_rel_ret``           relevant documents retrieved                    the same
``num_nonrel_judged_ret`` retrieved documents judged below relevant (from the same
                          grade 0: trec_eval takes a negative grade as
                          pooled, not judged)
``num_q``                 1 per evaluated query (its all row: how many)   the same
``set_P``                 precision of the retrieved set                  the same
``set_recall``            recall of the retrieved set                     the same
``set_relative_P``        relevant retrieved over min(retrieved, R)       the same
``set_F``                 F (beta 1) of set_P and set_recall              the same
``set_map``               set_P times set_recall                          the same
``utility``               trec_eval's default: relevant retrieved minus   the same
                          the others retrieved
========================= =============================================== ================

Names: trec_eval's spellings work too (``P_10``, ``recall_100``, ``ndcg_cut_10``,
``map_cut_10``, ``success_1``, ``relative_P_5``, ``iprec_at_recall_0.20``), and its
``-m`` syntax: ``P.5,10`` asks for ``P_5`` and ``P_10`` (likewise ``recall``,
``ndcg_cut``, ``map_cut``, ``relative_P``, ``success``, ``iprec_at_recall``,
``Rprec_mult``, ``unj``); each of those root names alone asks for trec_eval's default
cut-offs (5, 10, 15, 20, 30, 100, 200, 500, 1000; success 1, 5, 10; recall levels
0.00, 0.10 ... 1.00; multiples 0.20, 0.40 ... 2.00; unj 5, 10, 20); ``official`` and
``all_trec`` are trec_eval's sets, in the order it prints them (under
``ties="expected"``, a measure of ``all_trec`` without a closed form for the run's
ties, G or infAP, is NaN with one warning; asked by name, it raises
:class:`~fastrank.UnsupportedOptionError`). Relevant documents the run did not
return count, as in trec_eval: recall, MAP, R-precision and the ideal rankings of the
gain measures use every judged document of the query. A query of the run without
judgments is skipped. A judged query without relevant documents takes trec_eval's
values under ``ties="trec_eval"`` (0 wherever a measure would divide by its relevant
documents or its ideal gain) and counts in every mean, as in trec_eval; under the other
tie rules its measures that need a relevant document are NaN (left out of the mean
with one warning), except the counts and ``utility``, defined for every judged query.
The counts' ``mean`` is their sum, as in trec_eval's ``all`` row.

Measures of judged documents, which tell a retrieved document judged relevant
(grade at or above the relevance level), judged non-relevant (grade from 0 below
it), pooled but not judged (a negative grade, as trec_eval reads it) and absent
from the qrels (not pooled); with ``ties="trec_eval"`` each is trec_eval 10's
number, and the other tie rules give:

============== ============================================ ==============================
measure        trec_eval's definition, per query            other tie rules
============== ============================================ ==============================
``bpref``      over the relevant documents, 1 less the      ``"expected"``: exact; a
               judged non-relevant ones above each (at      relevant document among b tied
               most R) over min(R, N judged non-relevant);  judged non-relevant ones has
               0 without relevant documents                 0 .. b of them above, uniformly
``gm_bpref``   bpref floored at 1e-5; its mean geometric    the floor of the expected bpref
``infAP``      trec_eval's inferred AP (Yilmaz and Aslam),  ``"expected"``: refused where a
               precision above each relevant document       relevant document ties with a
               read among the judged ones                   document of another kind
``rbp``,       rank-biased precision, (1 - p) sum of gain   ``"expected"``: exact (each
``rbp.p=x``    p ** (rank - 1), p 0.9 unless given; the     document's mean of p ** rank
               gain the grade over the query's top judged   over its tie group's ranks)
               grade when that is above 1
``rbp_resid``, what unjudged and absent documents and the   ``"expected"``: exact, as rbp
``..p=x``      ranks past the run could add to rbp: p **
               num_ret + (1 - p) sum of their p ** (rank -
               1); 0 where every retrieved one is judged
``unj_k``      the first k ranks' unjudged and absent       ``"expected"``: exact (each
               documents over k (5, 10, 20 in all_trec)     document's chance of a rank
                                                            within k)
============== ============================================ ==============================

Under ``"optimistic"`` the documents of a tie group rank by grade (relevant first),
then pooled but not judged, then absent; ``"pessimistic"`` the reverse. Options,
trec_eval's flags:

====================== ====== ========================================================
option                 flag   meaning
====================== ====== ========================================================
``depth=n``            ``-M`` only each query's first n documents count (trec_eval's
                              order: score, then document id as text, decreasing);
                              the optimistic and pessimistic rules cut their own
                              order; ``"expected"`` refuses a cut through tied scores
``judged_only=True``   ``-J`` documents not judged (absent or of negative grade)
                              removed from the run, after ``depth``
``relevance_level=l``  ``-l`` grades at or above l (l from 0) are relevant for
                              every binary measure; nDCG and rbp keep the grades
``all_queries=True``   ``-c`` every query of the qrels evaluated, those the run lacks
                              (or ``judged_only`` empties) as an empty run: 0 (NaN
                              where undefined as above, other tie rules)
====================== ====== ========================================================
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core import workers
from ._rankings import lists as topk
from ._trec import compare as comparing
from ._trec import ids, join, judged
from ._trec import measures as catalog
from ._trec.compare import RunComparison
from ._trec.files import read_qrels, read_run
from ._trec.ids import CodedIds
from ._trec.measures import MEASURES
from .exceptions import UndefinedMetricWarning, UnsupportedOptionError

__all__ = ["MEASURES", "CodedIds", "RunComparison", "RunScores", "compare_runs", "evaluate_run",
           "read_qrels", "read_run"]


@dataclass(frozen=True)
class RunScores:
    """The measures of a run: per query and their means.

    Attributes
    ----------
    queries : ndarray
        The evaluated query ids (judged queries of the run), sorted.
    per_query : dict of str -> ndarray
        Each measure's value per query, in ``queries`` order (NaN where undefined).
    mean : dict of str -> float
        Each measure's mean over the queries where it is defined (the counts
        ``num_*``: their sum, as trec_eval's ``all`` row).
    """

    queries: np.ndarray
    per_query: dict[str, np.ndarray]
    mean: dict[str, float]


def evaluate_run(qrels: tuple[Any, Any, Any], run: tuple[Any, Any, Any], measures: Any,
                 *, ties: str = "expected", judged_only: bool = False, depth: int | None = None,
                 relevance_level: float = 1, all_queries: bool = False) -> RunScores:
    """Score a run against relevance judgments, per query.

    Parameters
    ----------
    qrels, run : tuples of three arrays, nested dicts, or tables
        ``(qids, docids, relevance)`` and ``(qids, docids, scores)``, as
        :func:`read_qrels` and :func:`read_run` return them; or
        ``{qid: {docid: value}}`` (pytrec_eval's and ranx's form); or a pandas
        DataFrame with three columns in that order.
    measures : str or sequence of str
        E.g. ``["map", "ndcg@10", "P@10", "recip_rank", "recall@100"]``; the
        choices are ``fastrank.trec.MEASURES`` (k a positive integer, x a positive number,
        r a recall level from 0 to 1; trec_eval's names such as ``P_10`` and
        ``map_cut_10`` too), and trec_eval's ``-m`` syntax: ``P.5,10`` (one name per
        cut-off: ``P_5``, ``P_10``), a root name alone for its default cut-offs
        (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``, ``success``,
        ``iprec_at_recall``, ``Rprec_mult``), and the sets ``official`` and
        ``all_trec``. The results are keyed by these names, expanded.
    ties : {"expected", "optimistic", "pessimistic", "trec_eval"}
        Tied scores: in expectation, relevant first, relevant last, or by
        document id in decreasing order (trec_eval's order, its exact numbers).
        ``iprec_at_recall_r`` and ``11pt_avg`` under ``"expected"`` read the
        precision-recall points at the ends of the tie groups, and ``G`` refuses
        ``"expected"`` where the run ties scores (see the module's table).
    judged_only : bool
        trec_eval's ``-J``: retrieved documents the qrels do not judge (absent, or
        of negative grade) removed from the run before every measure.
    depth : int or None
        trec_eval's ``-M``: only each query's first ``depth`` documents count, in
        the order of ``ties`` (trec_eval's: score decreasing, then document id as
        text decreasing); under ``"expected"`` a cut through tied scores raises
        ValueError. Applied before ``judged_only``, as trec_eval does.
    relevance_level : float
        trec_eval's ``-l``: the grade from which a judged document is relevant
        (for every binary measure; nDCG's gains and rbp's stay the grades), at
        least 0. A negative grade is never relevant: trec_eval reads it as pooled,
        not judged (its ``-l -1`` makes the documents the qrels lack relevant to
        P and map but not to num_rel_ret; a level below 0 raises ValueError).
    all_queries : bool
        trec_eval's ``-c``: every query of the qrels is evaluated; those the run
        lacks score as an empty run does (0; under tie rules other than
        ``"trec_eval"``, NaN where the measure needs a relevant document the
        query lacks).

    Returns
    -------
    RunScores

    Examples
    --------
    >>> import fastrank
    >>> qrels = (["q1", "q1", "q2"], ["a", "c", "b"], [1, 2, 1])
    >>> run = (["q1", "q1", "q1", "q2", "q2"], ["a", "b", "c", "a", "b"], [3, 2, 2, 5, 4])
    >>> r = fastrank.evaluate_run(qrels, run, ["map", "P@2", "recip_rank"])
    >>> r.queries.tolist(), r.per_query["P@2"].tolist(), r.mean["recip_rank"]
    (['q1', 'q2'], [0.75, 0.5], 0.75)
    >>> fastrank.evaluate_run({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": 0.7}}, "P@1").mean
    {'P@1': 0.0}
    >>> s = fastrank.evaluate_run(qrels, run, ["num_ret", "num_rel_ret", "set_P", "map_cut_1"])
    >>> s.mean  # the counts summed over the queries, the others averaged
    {'num_ret': 5.0, 'num_rel_ret': 3.0, 'set_P': 0.5833333333333333, 'map_cut_1': 0.25}

    Measures of judged documents (document ``b`` of q1 is not in the qrels) and
    trec_eval's options:

    >>> j = fastrank.evaluate_run(qrels, run, ["bpref", "rbp.p=0.5", "unj_5"], ties="trec_eval")
    >>> j.per_query["unj_5"].tolist(), j.mean["rbp.p=0.5"]
    ([0.2, 0.2], 0.375)
    >>> fastrank.evaluate_run(qrels, run, ["P@2", "num_ret"], depth=1, judged_only=True).per_query
    {'P@2': array([0.5, 0. ]), 'num_ret': array([1., 0.])}
    >>> fastrank.evaluate_run(qrels, run, "num_rel_ret", relevance_level=2).mean
    {'num_rel_ret': 1.0}

    >>> fastrank.evaluate_run(qrels, run, ["P.1,2", "success", "num_q"]).mean  # trec_eval's -m
    {'P_1': 0.5, 'P_2': 0.625, 'success_1': 0.5, 'success_5': 1.0, 'success_10': 1.0, 'num_q': 2.0}
    """
    rules = (*topk.TIES, "trec_eval")
    if ties not in rules:
        raise ValueError(f"ties must be one of {', '.join(map(repr, rules))}; got {ties!r}")
    names = [measures] if isinstance(measures, str) else list(measures)
    asked = [(m, *catalog.measure_name(m)) for m in catalog.expand(names)]
    # a measure asked through a set (all_trec) that has no closed form under this
    # tie rule is NaN with a warning; asked by name, it is refused
    sets = [m for m in names if m in catalog.NAME_SETS]
    lenient = set(catalog.expand(sets)) - set(catalog.expand([m for m in names
                                                              if m not in sets]))
    if not asked:
        raise ValueError("give at least one measure")
    jq, jd, jr = ids.triple(qrels, "qrels")
    rq, rd, rs = ids.triple(run, "run")
    for pair in ((jq, rq), (jd, rd)):  # ids of one kind compare as they are; else as text
        if pair[0].dtype.kind != pair[1].dtype.kind or pair[0].dtype.kind not in "iuUS":
            jq, jd, rq, rd = (a.astype(str) for a in (jq, jd, rq, rd))
            break
    jr = np.asarray(jr, np.float64)
    rs = np.asarray(rs, np.float64)
    if not (jq.shape == jd.shape == jr.shape and rq.shape == rd.shape == rs.shape):
        raise ValueError("qrels and run each need three arrays of one length")
    if not (np.isfinite(jr).all() and np.isfinite(rs).all()):
        raise ValueError("relevance grades and run scores must be finite")
    # trec_eval's -M and -J: the run cut and thinned first (judged.py); -l and -c below
    depth, level = judged.check_options(depth, judged_only, relevance_level, all_queries)
    rq, rd, rs, had = judged.trim(jq, jd, jr, rq, rd, rs, ties, depth, judged_only)
    rel_from = max(level, 0.0)  # a negative grade is never relevant: pooled, not judged
    # Query ids as codes (both sets sorted together); document ids as keys that are
    # equal where the ids are, and rank as strcmp does through doc_rank.
    (q_all, jqc, rruns), (jdk, rdk, doc_rank) = join.coded(jq, rq, jd, rd, ties == "trec_eval")
    checked = isinstance(jd, ids.CodedIds) and jd._pairs_checked_with is jq  # by read_qrels
    twice = None if checked else ids.repeated(jqc, jdk)
    if twice is not None:
        ids.listed_twice("qrels", q_all[jqc[twice]], jd[twice])
    # The run as blocks of rows of one query; those of judged queries evaluated.
    judged_q = np.zeros(q_all.shape[0], bool)
    judged_q[jqc] = True
    bstart, bcode = rruns
    bend = np.append(bstart[1:], rq.shape[0])
    keep = judged_q[bcode]
    # -c: every judged query; else those of the run (before -M and -J) with judgments
    also = judged.evaluated_too(judged_q, q_all, had, all_queries)
    if not (keep.any() or also.any()):
        raise ValueError("no query of the run has judgments in the qrels")
    if not keep.all():  # rows of queries left out: checked here, the others as ranked
        ids.unjudged_repeats(rq, rd, rdk, bcode[~keep], bstart[~keep], bend[~keep])
    bstart, bend, bcode = bstart[keep], bend[keep], bcode[keep]
    blocks = np.bincount(bcode, minlength=q_all.shape[0])
    evaluated = np.flatnonzero(blocks | also)
    remap = np.full(q_all.shape[0], -1, np.int64)
    remap[evaluated] = np.arange(evaluated.shape[0])
    queries, bq = q_all[evaluated], remap[bcode]
    judged_ret = None
    if any(m[1] == "num_nonrel_judged_ret" for m in asked):
        # trec_eval: a negative grade is in the pool but not judged
        judged_ret = ids.judged_retrieved(np.where(jr >= 0, remap[jqc], -1), jdk,
                                       remap[ids.rows(rruns, rq.shape[0])], rdk, queries.shape[0])
    by = None
    if bq.shape[0] == queries.shape[0] == np.count_nonzero(blocks):  # a block per query
        order = np.argsort(bq)
        starts, ends = bstart[order], bend[order]
    else:  # a query's documents in several places: its rows brought together
        span = bend - bstart
        rows = np.arange(int(span.sum())) + np.repeat(bstart - (np.cumsum(span) - span), span)
        by = rows[np.argsort(np.repeat(bq, span), kind="stable")]
        rdk, rs = rdk[by], rs[by]
        ptr = np.concatenate(([0], np.cumsum(np.bincount(bq, span, minlength=queries.shape[0])
                                             .astype(np.int64))))
        starts, ends = ptr[:-1], ptr[1:]
    starts, ends, rdk, rs, empty = judged.pad_empty(starts, ends, rdk, rs, jdk)  # -c, -J
    if ties == "trec_eval":  # scores made distinct: by score, then docid decreasing
        # trec_eval orders docids as text (strcmp), whatever their type here: 10 before 7
        rs = join.trec_order(starts, ends, doc_rank(rdk), rs)
        rule = "expected"  # no ties remain
    else:
        rule = ties
    # Every judged document of each evaluated query: those of positive grade are its
    # items (retrieved or not), those from grade 1 its relevant ones.
    jcode = remap[jqc]
    inq = jcode >= 0
    n_rel = np.bincount(jcode[inq & (jr >= rel_from)],
                        minlength=queries.shape[0]).astype(np.float64)
    item = np.flatnonzero(inq & ((jr > 0) | (jr >= rel_from)))
    if item.shape[0] > 1 and not bool((jcode[item][1:] >= jcode[item][:-1]).all()):
        item = item[np.argsort(jcode[item], kind="stable")]
    # One ranking of each query for every measure.
    lists = topk.RankedLists.of_runs(starts, ends, rdk, rs, jcode[item], jdk[item], jr[item],
                                    n_rel, min_grade=rel_from)
    listed_twice = np.flatnonzero(lists.repeat >= 0)
    if listed_twice.shape[0]:
        at = int(lists.repeat[listed_twice[0]])
        ids.listed_twice("run", queries[listed_twice[0]], rd[at if by is None else by[at]])
    jc, jg = jcode[inq], jr[inq]
    retrieved = judged.ranked(starts, ends, rdk, rs, jcode, jdk, jr, rule, level) \
        if any(m[1] in judged.KINDS for m in asked) else None
    data = catalog.Queries(lists, rule, jc, jg, judged_ret, retrieved)
    values = workers.parallel_map(lambda m: _measure(m, data, lenient), asked, workers.threads())
    refused = [m[0] for m, v in zip(asked, values, strict=True) if v is None]
    if refused:
        warnings.warn(f"{', '.join(refused)} of {', '.join(sets)} have no closed form over the "
                      f"orders of this run's tied documents under ties={ties!r}: NaN; ask "
                      "with ties='trec_eval', 'optimistic' or 'pessimistic' for them",
                      UndefinedMetricWarning, stacklevel=2)
        values = [np.full(queries.shape[0], np.nan) if v is None else v for v in values]
    per = {m[0]: np.where(empty, 0.0, v) if m[1] in judged.EMPTY_ZERO else v
           for m, v in zip(asked, values, strict=True)}
    if ties == "trec_eval":
        # trec_eval evaluates every judged query of the run, relevant documents or
        # none, and averages over all of them: where a measure would divide by no
        # relevant documents (or no ideal gain) it keeps the query's 0 (gm_bpref's per
        # query value is its bpref floored, as where bpref is 0 on relevant documents)
        per = {m[0]: np.where(np.isnan(per[m[0]]),
                              judged.MIN_GEO_MEAN if m[1] == "gm_bpref" else 0.0, per[m[0]])
               for m in asked}
    undefined = {name: int(np.isnan(v).sum()) for name, v in per.items() if name not in refused}
    worst = max(undefined.values())
    if worst:
        warnings.warn(f"{worst} of {queries.shape[0]} judged queries have no relevant "
                      "document: their measures are NaN and left out of the means",
                      UndefinedMetricWarning, stacklevel=2)
    mean = {m[0]: catalog.summary(m[1], per[m[0]]) for m in asked}  # trec_eval's all row
    if all_queries and ties == "trec_eval":
        # trec_eval's all row of num_rel under -c counts the qrels' lines of a grade
        # above 0, whatever -l (m_num_rel.c goes back to the qrels for it)
        mean.update({m[0]: float(np.count_nonzero(jr > 0)) for m in asked if m[1] == "num_rel"})
    return RunScores(queries, per, mean)


def _measure(m: tuple[str, str, int | None, float], data: catalog.Queries,
             lenient: set[str]) -> np.ndarray | None:
    """One measure per query; None where it came from a set of measures and has no
    closed form under the call's tie rule."""
    try:
        return catalog.per_query(m[1], m[2], m[3], data)
    except UnsupportedOptionError:
        if m[0] in lenient:
            return None
        raise


def compare_runs(qrels: tuple[Any, Any, Any], runs: Any, measures: Any, *,
                 ties: str = "expected", test: str = "randomization",
                 correction: str | None = "holm", alpha: float = 0.05,
                 n_permutations: int = 10_000, seed: int | None = None,
                 baseline: str | None = None, **options: Any) -> RunComparison:
    """Score several runs against one qrels and test their differences, query by query.

    Each run is scored by :func:`evaluate_run` (the qrels read once); each measure's
    values are paired over the queries every run is evaluated on, and each pair of
    runs (or each run and ``baseline``) is tested on their per-query differences. The
    p-values of one measure are adjusted together, across its comparisons.

    Parameters
    ----------
    qrels : as for :func:`evaluate_run`
    runs : dict of str -> run, or list of runs
        Each run in any form :func:`evaluate_run` takes; a list's runs are named
        ``run1``, ``run2``, ... At least two.
    measures : str or sequence of str
        Passed to :func:`evaluate_run` as they are.
    ties : str, default "expected"
        As for :func:`evaluate_run`.
    test : {"randomization", "t", "wilcoxon"}, default "randomization"
        Fisher's randomization test (each query's difference's sign flipped:
        exact over all ``2**n`` patterns when that is at most ``n_permutations``,
        else ``n_permutations`` random patterns with ``p = (1 + hits) / (1 +
        n_permutations)``), the paired Student t test, or the Wilcoxon
        signed-rank test (as scipy's default: zero differences dropped; exact for
        small ``n``). All two-sided; ranx's names ``"fisher"`` and ``"student"``
        are accepted. See :mod:`fastrank.stats`.
    correction : {"holm", "bonferroni", None}, default "holm"
        Adjustment of each measure's p-values across its comparisons.
    alpha : float in (0, 1), default 0.05
        A difference is significant where its adjusted p-value is at most ``alpha``.
    n_permutations : int >= 1, default 10,000
        Random sign patterns of the randomization test (when not exact).
    seed : int, optional
        Seed of the random patterns; None draws one, kept in the result's ``seed``.
    baseline : str, optional
        Compare each run with this one only, instead of every pair.
    **options
        Passed on to :func:`evaluate_run`.

    Returns
    -------
    RunComparison
        Means, per-query values, raw and adjusted p-values and significance;
        ``.table()``, ``.to_dict()``, ``.to_frame()`` and ``.plot(measure)``.

    Raises
    ------
    ValueError
        Fewer than two runs, runs with no evaluated query in common, a baseline
        that is not a run's name, an unknown test or correction, ``alpha`` outside
        (0, 1), ``n_permutations`` below 1, or what :func:`evaluate_run` refuses
        (named by run).

    Notes
    -----
    A query is paired when every run is evaluated on it (:func:`evaluate_run`
    evaluates a run's judged queries); where the runs cover different queries,
    the others are left out with a warning, and the means are over the paired
    queries. A measure undefined on a query (no relevant document, under a tie
    rule other than ``"trec_eval"``) leaves that query out of its tests and
    means. Where two runs agree on every query, each test's p-value is 1.

    Examples
    --------
    >>> import fastrank
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 2}, "q3": {"d": 1}, "q4": {"e": 1}}
    >>> bm25 = {"q1": {"a": 3, "x": 2, "b": 1}, "q2": {"x": 2, "c": 1},
    ...         "q3": {"d": 2, "x": 1}, "q4": {"x": 2, "e": 1}}
    >>> tuned = {"q1": {"a": 3, "b": 2, "x": 1}, "q2": {"c": 2, "x": 1},
    ...          "q3": {"d": 2, "x": 1}, "q4": {"e": 2, "x": 1}}
    >>> c = fastrank.compare_runs(qrels, {"bm25": bm25, "tuned": tuned}, ["map", "P@1"])
    >>> c.mean["tuned"], c.p_value["map"].tolist()  # exact: 4 of the 16 sign patterns
    ({'map': 1.0, 'P@1': 1.0}, [0.25])
    >>> c.significant["map"].tolist()
    [False]
    """
    return comparing.compare(evaluate_run, qrels, runs, measures, ties=ties, test=test,
                             correction=correction, alpha=alpha, n_permutations=n_permutations,
                             seed=seed, baseline=baseline, options=options)
