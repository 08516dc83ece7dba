"""trec_eval's ``relstring``: each query's first grades as text, for ``fastrank trec -q``.

trec_eval prints it per query (with ``-m all_trec``, after ``P_1000``, or with
``-m relstring``): one character per document of the first ``N`` (default 10)
it ranks (score decreasing, then document id decreasing as strcmp orders them):
the grade from 0 to 9 as a digit, ``>`` above 9, ``-`` for a document the qrels
do not list, ``.`` for a negative grade (trec_eval's "in the pool, unjudged");
grades as :func:`fastrank.read_qrels` reads them (1.5 is 1). ``-M`` keeps each
query's first ``depth``, then ``-J`` removes those of no grade or a negative
one; a query the run lacks (``-c``) gets an empty string. It is not a number, so
:func:`fastrank.evaluate_run` does not return it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ids import rows
from .join import documents, queries

LENGTH = 10  # trec_eval's default N


def relstrings(qrels: tuple[Any, Any, Any], run: tuple[Any, Any, Any], wanted: np.ndarray,
               length: int = LENGTH, judged_only: bool = False,
               depth: int | None = None) -> list[str]:
    """The relstring of each query id in ``wanted`` (``str``), from the qrels and
    the run as :func:`fastrank.read_qrels` and :func:`fastrank.read_run` give them."""
    jq, jd, jg = qrels
    rq, rd, rs = run
    q_all, jqc, run_runs = queries(jq, rq)
    rqc = rows(run_runs, np.asarray(rs).shape[0])
    jdk, rdk, rank = documents(jd, rd, True)
    _, codes = np.unique(np.concatenate([np.asarray(jdk), np.asarray(rdk)]), return_inverse=True)
    codes = codes.reshape(-1)
    nd = int(codes.max(initial=0)) + 1
    jkey = np.asarray(jqc, np.int64) * nd + codes[:jdk.shape[0]]
    rkey = np.asarray(rqc, np.int64) * nd + codes[jdk.shape[0]:]
    jkey, first = np.unique(jkey, return_index=True)
    grade = np.asarray(jg, np.float64)[first]  # (whole: read_qrels reads them as trec_eval)
    at = np.minimum(np.searchsorted(jkey, rkey), max(jkey.shape[0] - 1, 0))
    found = jkey[at] == rkey if jkey.shape[0] else np.zeros(rkey.shape[0], bool)
    graded = grade[at] if jkey.shape[0] else np.zeros(rkey.shape[0])
    # trec_eval's values: the grade, -1 (not in the qrels) or -2 (a negative grade)
    rel = np.where(found, np.where(graded >= 0, graded, -2.0), -1.0)
    # by query, score and document rank, all increasing; read backwards, each query's
    # rows come by score, then document id, decreasing: trec_eval's order
    order = np.lexsort((rank(rdk), np.asarray(rs, np.float64), rqc))
    q_sorted = rqc[order]
    starts = np.searchsorted(q_sorted, np.arange(q_all.shape[0]))
    ends = np.searchsorted(q_sorted, np.arange(q_all.shape[0]), side="right")
    place = {q: j for j, q in enumerate(np.asarray(q_all).tolist())}
    out = []
    for qid in np.asarray(wanted).tolist():
        j = place.get(qid)
        if j is None:
            out.append("")
            continue
        top = rel[order[starts[j]:ends[j]][::-1]]
        if depth is not None:  # -M first, then -J, as trec_eval forms its list
            top = top[:depth]
        if judged_only:
            top = top[top >= 0]
        out.append("".join(_char(g) for g in top[:length].tolist()))
    return out


def _char(grade: float) -> str:
    if grade > 9:
        return ">"
    if grade >= 0:
        return str(int(grade))
    return "-" if grade == -1 else "."
