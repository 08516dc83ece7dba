"""Retrieval runs scored against relevance judgments: TREC files and the measures
trec_eval reports, tie-aware.

A *run* ranks documents per query (TREC format: ``qid Q0 docid rank score tag``,
whitespace-separated; the rank column is ignored, the score ranks). *Qrels*
judge them (``qid iter docid relevance``; relevance 1 and above is relevant, and
the grade is the gain of nDCG). :func:`evaluate_run` joins the two and computes
each measure per query with the functions of :mod:`fastrank.rankings`, so tied
scores count by ``ties=``: in expectation over every order of the tied documents
(the default), optimistically, pessimistically, or ``"trec_eval"``, which breaks
ties as trec_eval does (by document id, in decreasing order) and so gives its
numbers.

Measures (``-m`` on the command line): ``map``, ``map@k``, ``P@k``, ``recall@k``,
``success@k``, ``recip_rank``, ``Rprec``, ``Rprec_mult_x`` (precision at the first
``floor(x R + 0.9)`` ranks as trec_eval, R the query's relevant documents; 0 where
that is 0), ``ndcg`` and ``ndcg@k`` (trec_eval's ``map_cut_k``, ``P_k``,
``recall_k``, ``success_k`` and ``ndcg_cut_k`` names are accepted too); and
trec_eval's measures of the sets alone, the same under every tie rule: the counts
``num_ret``, ``num_rel``, ``num_rel_ret`` and ``num_nonrel_judged_ret`` (retrieved
documents judged below relevant, from grade 0: trec_eval takes a negative grade as
pooled, not judged), ``set_P``, ``set_recall``, ``set_relative_P`` (relevant
retrieved over the fewer of retrieved and relevant), ``set_F`` (beta 1), ``set_map``
(set_P times set_recall) and ``utility`` (trec_eval's default: relevant retrieved
minus the others retrieved). Relevant documents the run did not return count, as in
trec_eval: recall, MAP, R-precision and nDCG's ideal ranking use every judged
relevant document of the query. A query of the run without judgments is skipped; a
judged query without relevant documents is NaN (left out of the mean with one
warning), where trec_eval averages over its own choice of queries, except in the
counts and ``utility``, defined for every judged query; the counts' ``mean`` is
their sum, as in trec_eval's ``all`` row.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core import workers
from ._rankings import lists as topk
from ._trec import ids, join
from ._trec import measures as catalog
from ._trec.files import read_qrels, read_run
from ._trec.measures import MEASURES
from .exceptions import UndefinedMetricWarning

__all__ = ["MEASURES", "RunScores", "evaluate_run", "read_qrels", "read_run"]


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
                 *, ties: str = "expected") -> RunScores:
    """Score a run against relevance judgments, per query.

    Parameters
    ----------
    qrels, run : tuples of three arrays, nested dicts, or tables
        ``(qids, docids, relevance)`` and ``(qids, docids, scores)``, as
        :func:`read_qrels` and :func:`read_run` return them; or
        ``{qid: {docid: value}}`` (pytrec_eval's and ranx's form); or a pandas
        DataFrame with three columns in that order.
    measures : sequence of str
        E.g. ``["map", "ndcg@10", "P@10", "recip_rank", "recall@100"]``; the
        choices are ``fastrank.trec.MEASURES`` (k a positive integer, x a positive number;
        trec_eval's names such as ``P_10`` and ``map_cut_10`` too).
    ties : {"expected", "optimistic", "pessimistic", "trec_eval"}
        Tied scores: in expectation, relevant first, relevant last, or by
        document id in decreasing order (trec_eval's order, its exact numbers).

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
    """
    rules = (*topk.TIES, "trec_eval")
    if ties not in rules:
        raise ValueError(f"ties must be one of {', '.join(map(repr, rules))}; got {ties!r}")
    if isinstance(measures, str):
        measures = [measures]
    asked = [(m, *catalog.measure_name(m)) for m in measures]
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
    # Query ids as codes (both sets sorted together); document ids as keys that are
    # equal where the ids are, and rank as strcmp does through doc_rank.
    q_all, jqc, rruns = join.queries(jq, rq)
    jdk, rdk, doc_rank = join.documents(jd, rd, ties == "trec_eval")
    twice = ids.repeated(jqc, jdk)
    if twice is not None:
        ids.listed_twice("qrels", q_all[jqc[twice]], jd[twice])
    # The run as blocks of rows of one query; those of judged queries evaluated.
    judged_q = np.zeros(q_all.shape[0], bool)
    judged_q[jqc] = True
    bstart, bcode = rruns
    bend = np.append(bstart[1:], rq.shape[0])
    keep = judged_q[bcode]
    if not keep.any():
        raise ValueError("no query of the run has judgments in the qrels")
    if not keep.all():  # rows of queries left out: checked here, the others as ranked
        ids.unjudged_repeats(rq, rd, rdk, bcode[~keep], bstart[~keep], bend[~keep])
    bstart, bend, bcode = bstart[keep], bend[keep], bcode[keep]
    evaluated = np.flatnonzero(np.bincount(bcode, minlength=q_all.shape[0]))
    remap = np.full(q_all.shape[0], -1, np.int64)
    remap[evaluated] = np.arange(evaluated.shape[0])
    queries, bq = q_all[evaluated], remap[bcode]
    judged_ret = None
    if any(m[1] == "num_nonrel_judged_ret" for m in asked):
        # trec_eval: a negative grade is in the pool but not judged
        judged_ret = ids.judged_retrieved(np.where(jr >= 0, remap[jqc], -1), jdk,
                                       remap[ids.rows(rruns, rq.shape[0])], rdk, queries.shape[0])
    by = None
    if bq.shape[0] == queries.shape[0]:  # one block per query: the blocks in query order
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
    n_rel = np.bincount(jcode[inq & (jr >= 1)], minlength=queries.shape[0]).astype(np.float64)
    item = np.flatnonzero(inq & (jr > 0))
    if item.shape[0] > 1 and not bool((jcode[item][1:] >= jcode[item][:-1]).all()):
        item = item[np.argsort(jcode[item], kind="stable")]
    # One ranking of each query for every measure.
    lists = topk.RankedLists.of_runs(starts, ends, rdk, rs, jcode[item], jdk[item], jr[item],
                                    n_rel, min_grade=1.0)
    listed_twice = np.flatnonzero(lists.repeat >= 0)
    if listed_twice.shape[0]:
        at = int(lists.repeat[listed_twice[0]])
        ids.listed_twice("run", queries[listed_twice[0]], rd[at if by is None else by[at]])
    jc, jg = jcode[inq], jr[inq]
    data = catalog.Queries(lists, rule, jc, jg, judged_ret)
    values = workers.parallel_map(lambda m: catalog.per_query(m[1], m[2], m[3], data), asked,
                                  workers.threads())
    per = {m[0]: v for m, v in zip(asked, values, strict=True)}
    undefined = {name: int(np.isnan(v).sum()) for name, v in per.items()}
    worst = max(undefined.values())
    if worst:
        warnings.warn(f"{worst} of {queries.shape[0]} judged queries have no relevant "
                      "document: their measures are NaN and left out of the means",
                      UndefinedMetricWarning, stacklevel=2)
    mean = {m[0]: (float(per[m[0]].sum()) if m[1] in catalog.COUNTS  # trec_eval's all: the sum
                   else float(np.nanmean(per[m[0]])) if (~np.isnan(per[m[0]])).any()
                   else math.nan) for m in asked}
    return RunScores(queries, per, mean)
