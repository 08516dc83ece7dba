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
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core import codec, workers
from ._rankings import lists as topk
from .exceptions import UndefinedMetricWarning
from .readers import DataError

__all__ = ["MEASURES", "RunScores", "evaluate_run", "read_qrels", "read_run"]

MEASURES = ("map", "map@k", "P@k", "recall@k", "success@k", "recip_rank", "Rprec",
            "Rprec_mult_x", "ndcg", "ndcg@k", "num_ret", "num_rel", "num_rel_ret",
            "num_nonrel_judged_ret", "set_P", "set_recall", "set_relative_P", "set_F", "set_map",
            "utility")
_ALIASES = {"P_": "P@", "recall_": "recall@", "success_": "success@", "ndcg_cut_": "ndcg@",
            "map_cut_": "map@"}
# Measures of the sets alone (retrieved, relevant, judged): the same under every tie rule.
_SETS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
         "set_relative_P", "set_F", "set_map", "utility")
_COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")


def _columns(path: str, width: int, what: str, picks: tuple[int, ...]) -> list[list[str]]:
    """The columns ``picks`` of a whitespace-separated file whose lines hold at least
    ``width`` columns (blank lines skipped). When every line holds as many, the
    file is split once and the columns taken by stride (no list per line: a
    million-line run reads in about a second); otherwise line by line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    counts = np.fromiter(map(len, map(str.split, lines)), np.int64, len(lines))
    short = np.flatnonzero((counts > 0) & (counts < width))
    if short.shape[0]:
        i = int(short[0])
        raise DataError(f"{path}:{i + 1}: a {what} line needs {width} columns; got "
                        f"{counts[i]}: {lines[i].strip()!r}")
    filled = counts[counts > 0]
    if not filled.shape[0]:
        raise DataError(f"{path}: no {what} lines")
    if filled.min() == filled.max():
        tokens = text.split()
        return [tokens[p::int(filled[0])] for p in picks]
    rows = [line.split() for line, c in zip(lines, counts.tolist(), strict=True) if c]
    return [[r[p] for r in rows] for p in picks]


def _number(path: str, values: list[str], what: str) -> np.ndarray:
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        bad = next(v for v in values if not _is_float(v))
        raise DataError(f"{path}: a {what} is not a number: {bad!r}") from None
    if not np.isfinite(out).all():
        raise DataError(f"{path}: a {what} is NaN or infinite")
    return out


def _is_float(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def read_run(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A TREC run file as ``(qids, docids, scores)`` (strings, strings, float64).

    Each line: ``qid Q0 docid rank score tag``. A document listed twice for one
    query is a data error.
    """
    q, d, v = _columns(path, 5, "run", (0, 2, 4))
    qids, docs = np.array(q), np.array(d)
    scores = _number(path, v, "score")
    qc = _rows(_codes(qids)[1][0], qids.shape[0])
    dc = _rows(_codes(docs)[1][0], docs.shape[0])
    j = _repeated(qc, dc)
    if j is not None:
        raise DataError(f"{path}: query {qids[j]} lists document {docs[j]} more than once")
    return qids, docs, scores


def read_qrels(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A TREC qrels file as ``(qids, docids, relevance)`` (strings, strings, float64).

    Each line: ``qid iter docid relevance``; relevance 1 and above is relevant
    (0 and negative grades are judged not relevant).
    """
    q, d, v = _columns(path, 4, "qrels", (0, 2, 3))
    qids, docs = np.array(q), np.array(d)
    rel = _number(path, v, "relevance")
    return qids, docs, rel


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


def _measure_name(name: str) -> tuple[str, int | None, float]:
    """A measure name as (kind, k, x), trec_eval's spellings accepted (x the multiple
    of R of ``Rprec_mult_x``, else 0)."""
    for old, new in _ALIASES.items():
        if name.startswith(old) and name[len(old):].isdigit():
            name = new + name[len(old):]
    mult = re.fullmatch(r"Rprec_mult_(\d+(?:\.\d*)?)", name)
    if mult:
        x = float(mult.group(1))
        if not 0 < x < 1e6:
            raise ValueError(f"the multiple of {name!r} must be positive (and below a million)")
        return "Rprec_mult", None, x
    if name in _SETS:
        return name, None, 0.0
    match = re.fullmatch(r"(P|recall|success|ndcg|map)@(\d+)", name)
    if match:
        k = int(match.group(2))
        if k < 1:
            raise ValueError(f"the k of {name!r} must be at least 1")
        return match.group(1), min(k, np.iinfo(np.int64).max), 0.0  # (past every list either way)
    plain = {"map": "map", "recip_rank": "recip_rank", "mrr": "recip_rank", "Rprec": "Rprec",
             "ndcg": "ndcg"}
    if name in plain:
        return plain[name], None, 0.0
    raise ValueError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)} (k a "
                     "positive integer, x a positive number such as 0.20)")


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
    asked = [(m, *_measure_name(m)) for m in measures]
    if not asked:
        raise ValueError("give at least one measure")
    jq, jd, jr = _triple(qrels, "qrels")
    rq, rd, rs = _triple(run, "run")
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
    # equal where the ids are (as codes too for trec_eval's order of document ids).
    q_all, (jruns, rruns) = _codes(jq, rq)
    jqc = _rows(jruns, jq.shape[0])
    if ties == "trec_eval":
        d_all, druns = _codes(jd, rd)
        jdk, rdk = (_rows(runs, x.shape[0]) for runs, x in zip(druns, (jd, rd), strict=True))
    else:
        jdk, rdk = _doc_keys(jd, rd)
    twice = _repeated(jqc, jdk)
    if twice is not None:
        _listed_twice("qrels", q_all[jqc[twice]], jd[twice])
    # The run as blocks of rows of one query; those of judged queries evaluated.
    judged_q = np.zeros(q_all.shape[0], bool)
    judged_q[jqc] = True
    bstart, bcode = rruns
    bend = np.append(bstart[1:], rq.shape[0])
    keep = judged_q[bcode]
    if not keep.any():
        raise ValueError("no query of the run has judgments in the qrels")
    if not keep.all():  # rows of queries left out: checked here, the others as ranked
        _unjudged_repeats(rq, rd, rdk, bcode[~keep], bstart[~keep], bend[~keep])
    bstart, bend, bcode = bstart[keep], bend[keep], bcode[keep]
    evaluated = np.flatnonzero(np.bincount(bcode, minlength=q_all.shape[0]))
    remap = np.full(q_all.shape[0], -1, np.int64)
    remap[evaluated] = np.arange(evaluated.shape[0])
    queries, bq = q_all[evaluated], remap[bcode]
    judged_ret = None
    if any(m[1] == "num_nonrel_judged_ret" for m in asked):
        # trec_eval: a negative grade is in the pool but not judged
        judged_ret = _judged_retrieved(np.where(jr >= 0, remap[jqc], -1), jdk,
                                       remap[_rows(rruns, rq.shape[0])], rdk, queries.shape[0])
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
        # trec_eval orders docids as text (strcmp; numpy's order of str is the same
        # code point order), whatever their type here: 10 before 7
        text = d_all if d_all.dtype.kind in "US" else d_all.astype(str)
        by_text = np.empty(d_all.shape[0], np.int64)
        by_text[np.argsort(text, kind="stable")] = np.arange(d_all.shape[0])
        rank = np.lexsort((by_text[rdk], rs))  # ascending score, then docid as text
        rs = np.empty(rs.shape[0])
        rs[rank] = np.arange(rank.shape[0], dtype=np.float64)
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
        _listed_twice("run", queries[listed_twice[0]], rd[at if by is None else by[at]])
    jc, jg = jcode[inq], jr[inq]
    values = workers.parallel_map(
        lambda m: _per_query(m[1], m[2], m[3], lists, rule, jc, jg, judged_ret), asked,
        workers.threads())
    per = {m[0]: v for m, v in zip(asked, values, strict=True)}
    undefined = {name: int(np.isnan(v).sum()) for name, v in per.items()}
    worst = max(undefined.values())
    if worst:
        warnings.warn(f"{worst} of {queries.shape[0]} judged queries have no relevant "
                      "document: their measures are NaN and left out of the means",
                      UndefinedMetricWarning, stacklevel=2)
    mean = {m[0]: (float(per[m[0]].sum()) if m[1] in _COUNTS  # trec_eval's all: the sum
                   else float(np.nanmean(per[m[0]])) if (~np.isnan(per[m[0]])).any()
                   else math.nan) for m in asked}
    return RunScores(queries, per, mean)


def _triple(x: Any, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query ids, document ids and values from three arrays, ``{qid: {docid: value}}``
    or a three-column table."""
    if isinstance(x, dict):
        q: list[Any] = []
        d: list[Any] = []
        v: list[Any] = []
        for qid, docs in x.items():
            if not isinstance(docs, dict):
                raise TypeError(f"the {what} dict maps each query to a dict {{docid: value}}; "
                                f"query {qid!r} maps to {type(docs).__name__}")
            q.extend([qid] * len(docs))
            d.extend(docs.keys())
            v.extend(docs.values())
        return np.asarray(q), np.asarray(d), np.asarray(v, dtype=np.float64)
    columns = getattr(x, "columns", None)
    if columns is not None and hasattr(x, "iloc"):
        if len(columns) != 3:
            raise ValueError(f"a {what} table needs three columns (query, document, value); "
                             f"got {len(columns)}: {list(columns)}")
        return tuple(np.asarray(x.iloc[:, j]) for j in range(3))  # type: ignore[return-value]
    try:
        parts = list(x)
    except TypeError as exc:
        raise TypeError(f"the {what} must be three arrays, a dict or a table") from exc
    if len(parts) != 3:
        raise ValueError(f"the {what} needs three arrays (query ids, document ids, values); "
                         f"got {len(parts)}")
    return np.asarray(parts[0]), np.asarray(parts[1]), np.asarray(parts[2])


def _sortable(ids: np.ndarray, pack: bool = True) -> np.ndarray:
    """Keys that sort and compare as the ids do, cheaper to sort: text ids of at most
    8 characters, each below 256, as one big-endian uint64 each (a kernel packs
    them; ``pack`` False when it is known not to fit); longer text whose characters
    all lie below 256 as fixed-width bytes (a quarter of numpy's 4 bytes per
    character); other ids as they are."""
    if ids.dtype.kind != "U" or ids.shape[0] == 0 or ids.dtype.itemsize == 0:
        return ids
    keys = codec.text_keys(ids) if pack else None
    if keys is not None:
        return keys
    width = ids.dtype.itemsize // 4
    points = np.ascontiguousarray(ids).view(np.uint32).reshape(ids.shape[0], width)
    if int(points.max()) >= 256:
        return ids
    return points.astype(np.uint8).view(f"S{width}").reshape(-1)


def _codes(*parts: np.ndarray) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The sorted distinct ids of all ``parts`` together, and each part as runs of one
    id: where each run starts, and its id's code (``np.unique``'s inverse, run by run).
    Ids that come in runs (a run file lists its queries one by one) are coded by
    their runs' first ids only: one comparison per id, and a sort of the runs;
    otherwise each id is a run of its own. Text ids sort as :func:`_sortable` keys,
    made part by part (long text arrays are not copied into one)."""
    ends = np.cumsum([0] + [p.shape[0] for p in parts])
    n = int(ends[-1])
    keys: np.ndarray | None = None
    text = bool(parts) and all(p.dtype.kind == "U" for p in parts)
    if text:
        keys = np.empty(n, np.uint64)
        for p, lo, hi in zip(parts, ends[:-1], ends[1:], strict=True):
            if codec.text_keys(p, keys[lo:hi]) is None:
                keys = None
                break
    if keys is not None:
        pick = _picker(parts)
    else:
        ids = np.concatenate(parts)
        keys = _sortable(ids, pack=not text)  # packing failed part by part: not again
        pick = ids.__getitem__
    new = np.ones(n, bool)
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    new[ends[:-1][ends[:-1] < n]] = True  # no run crosses from one part to the next
    starts = np.flatnonzero(new)
    if starts.shape[0] * 4 > n:
        starts = np.arange(n)
    heads, inv = _unique(pick(starts), keys[starts])
    cut = np.searchsorted(starts, ends)
    return heads, [(starts[i:j] - lo, inv[i:j])
                   for i, j, lo in zip(cut[:-1], cut[1:], ends[:-1], strict=True)]


def _rows(runs: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
    """Each of ``n`` ids' code, from its part's runs (:func:`_codes`)."""
    starts, codes = runs
    return np.repeat(codes, np.diff(np.append(starts, n)))


def _picker(parts: tuple[np.ndarray, ...]) -> Any:
    """``np.concatenate(parts)[index]``, without the concatenation."""
    dtype = np.result_type(*parts)
    ends = np.cumsum([0] + [p.shape[0] for p in parts])

    def pick(index: np.ndarray) -> np.ndarray:
        out = np.empty(index.shape[0], dtype)
        for part, lo, hi in zip(parts, ends[:-1], ends[1:], strict=True):
            mine = (index >= lo) & (index < hi)
            out[mine] = part[index[mine] - lo]
        return out

    return pick


def _unique(ids: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(ids, return_inverse=True)``, sorting ``keys`` (in the ids' order)."""
    distinct, inv = np.unique(keys, return_inverse=True)
    inv = inv.reshape(-1)
    first = np.empty(distinct.shape[0], np.int64)
    first[inv[::-1]] = np.arange(ids.shape[0] - 1, -1, -1)  # each one's first place
    return ids[first], inv


def _doc_keys(jd: np.ndarray, rd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Document ids of the qrels and the run as int64 keys, equal where the ids are:
    integers as they are, text of up to 8 characters below 256 as its packed bytes,
    other ids as codes."""
    if jd.dtype.kind in "iu":
        return tuple(x.view(np.int64) if x.dtype == np.uint64 else x.astype(np.int64)
                     for x in (jd, rd))  # type: ignore[return-value]
    keyed = [_sortable(x) for x in (jd, rd)]
    if not all(k.dtype == np.uint64 for k in keyed):
        keyed = [_rows(runs, x.shape[0]) for runs, x in zip(_codes(jd, rd)[1], (jd, rd),
                                                           strict=True)]
    return tuple(k.view(np.int64) if k.dtype == np.uint64 else k.astype(np.int64)
                 for k in keyed)  # type: ignore[return-value]


def _repeated(qcodes: np.ndarray, dkeys: np.ndarray) -> int | None:
    """The place of a (query, document) pair's second occurrence, or None when every
    pair is distinct (numpy's sort of integers is its fastest path, SIMD on most
    CPUs; its hash-based unique was slower here by 20x)."""
    lo, hi = (int(dkeys.min()), int(dkeys.max())) if dkeys.shape[0] else (0, 0)
    if (hi - lo + 1) * (int(qcodes.max(initial=0)) + 1) < 2**62:  # the keys as they are
        dcodes = dkeys.astype(np.int64) - lo
    else:
        dcodes = np.unique(dkeys, return_inverse=True)[1].reshape(-1)
    key = qcodes.astype(np.int64) * (int(dcodes.max(initial=0)) + 1) + dcodes
    ordered = np.sort(key)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        return None
    by = np.argsort(key, kind="stable")
    return int(by[1:][key[by][1:] == key[by][:-1]][0])


def _unjudged_repeats(rq: np.ndarray, rd: np.ndarray, rdk: np.ndarray, codes: np.ndarray,
                      starts: np.ndarray, ends: np.ndarray) -> None:
    """Refuse a (query, document) pair listed twice among the run's rows of queries
    without judgments (blocks ``starts``/``ends`` of query ``codes``): those rows are
    not ranked, so this is their only check, at the cost of those rows alone."""
    span = ends - starts
    rows = np.arange(int(span.sum())) + np.repeat(starts - (np.cumsum(span) - span), span)
    twice = _repeated(np.repeat(codes, span), rdk[rows])
    if twice is not None:
        _listed_twice("run", rq[rows[twice]], rd[rows[twice]])


def _listed_twice(name: str, query: Any, doc: Any) -> None:
    raise ValueError(f"the {name} lists query {query.item()!r}, document {doc.item()!r} more "
                     "than once; give each pair once")


def _judged_retrieved(jq: np.ndarray, jd: np.ndarray, rq: np.ndarray, rd: np.ndarray,
                      n: int) -> np.ndarray:
    """Per evaluated query (codes 0 .. n-1; -1 for the others), how many documents
    the run retrieves that the qrels judge (grade 0 or more): the qrels' pairs ``jq``,
    ``jd`` and the run's ``rq``, ``rd`` (document keys comparable)."""
    jk, rk = jq >= 0, rq >= 0
    jq, jd, rq, rd = jq[jk], jd[jk], rq[rk], rd[rk]
    docs = np.unique(np.concatenate((jd, rd)), return_inverse=True)[1].reshape(-1)
    width = int(docs.max(initial=0)) + 1
    judged = jq.astype(np.int64) * width + docs[:jd.shape[0]]
    hit = np.isin(rq.astype(np.int64) * width + docs[jd.shape[0]:], judged)
    return np.bincount(rq[hit], minlength=n).astype(np.float64)


def _set_measure(kind: str, lists: topk.RankedLists,
                 judged_ret: np.ndarray | None) -> np.ndarray:
    """A measure of the sets alone, per query: trec_eval's ``num_*``, ``set_*`` and
    ``utility`` (its default, +1 per relevant document retrieved, -1 per other)."""
    ret = lists.sizes.astype(np.float64)
    rel = np.asarray(lists.relevant, np.float64)
    rr = np.bincount(lists.list, lists.r, minlength=ret.shape[0]).astype(np.float64)
    if kind == "num_ret":
        return ret
    if kind == "num_rel":
        return rel
    if kind == "num_rel_ret":
        return rr
    if kind == "num_nonrel_judged_ret":
        assert judged_ret is not None
        return judged_ret - rr
    if kind == "utility":
        return rr - (ret - rr)
    with np.errstate(invalid="ignore", divide="ignore"):
        p, r = rr / ret, rr / rel
        out = {"set_P": p, "set_recall": r, "set_relative_P": rr / np.minimum(ret, rel),
               "set_map": p * r, "set_F": np.where(rr > 0, 2 * p * r / (p + r), 0.0)}[kind]
    return np.where(rel > 0, out, np.nan)


def _per_query(kind: str, k: int | None, x: float, lists: topk.RankedLists, ties: str,
               jcodes: np.ndarray, jgrades: np.ndarray,
               judged_ret: np.ndarray | None) -> np.ndarray:
    """One measure per query (queries by code), from the queries' ranked lists."""
    if kind in _SETS:
        return _set_measure(kind, lists, judged_ret)
    ks = np.array([k or 1], np.int64)
    if kind == "P":  # trec_eval: ranks the run does not fill count as not relevant
        hits = topk.at_k("recall_at_k", lists, ks, ties)[:, 0] * lists.relevant
        return np.where(lists.relevant > 0, hits / ks[0], np.nan)
    if kind == "recall":
        return topk.at_k("recall_at_k", lists, ks, ties)[:, 0]
    if kind == "success":
        return topk.hit_rate(lists, ks, ties)[:, 0]
    if kind == "recip_rank":
        return topk.reciprocal(lists, ties)
    if kind == "Rprec":
        return topk.r_prec(lists, ties)
    if kind == "Rprec_mult":  # precision at trec_eval's cut-off: x R, up from a tenth over
        cut = np.floor(x * lists.relevant + 0.9).astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            prec = np.where(cut > 0, lists.taken(cut, ties) / np.maximum(cut, 1), 0.0)
        return np.where(lists.relevant > 0, prec, np.nan)
    n_rel = lists.relevant
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "map":  # over every judged relevant document, retrieved or not
            return np.where(n_rel > 0, lists.average_precision(k, ties) / n_rel, np.nan)
        # nDCG: the ideal ranks every judged grade of the query, retrieved or not
        ideal = topk.best_dcg(jcodes, np.maximum(jgrades, 0.0), lists.first.shape[0], k)
        return np.where(ideal > 0, lists.dcg(lists.item_grade, k, ties) / ideal, np.nan)


