"""trec_eval's measures by name: the names accepted, and each measure per query
from the queries' ranked lists."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._rankings import lists as topk
from . import judged

MEASURES = ("map", "map@k", "P@k", "recall@k", "success@k", "recip_rank", "Rprec",
            "Rprec_mult_x", "ndcg", "ndcg@k", "num_ret", "num_rel", "num_rel_ret",
            "num_nonrel_judged_ret", "set_P", "set_recall", "set_relative_P", "set_F", "set_map",
            "utility", "bpref", "gm_bpref", "infAP", "rbp", "rbp_resid", "unj@k")


ALIASES = {"P_": "P@", "recall_": "recall@", "success_": "success@", "ndcg_cut_": "ndcg@",
            "map_cut_": "map@", "unj_": "unj@"}


SETS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
         "set_relative_P", "set_F", "set_map", "utility")


COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")


GEOMETRIC = ("gm_bpref",)  # the all row a geometric mean


def measure_name(name: str) -> tuple[str, int | None, float]:
    """A measure name as (kind, k, x), trec_eval's spellings accepted (x the multiple
    of R of ``Rprec_mult_x``, the p of ``rbp`` and ``rbp_resid``, else 0; trec_eval
    takes p as ``-m rbp.p=0.8`` and prints ``rbp_p=0.8``: both are accepted)."""
    for old, new in ALIASES.items():
        if name.startswith(old) and name[len(old):].isdigit():
            name = new + name[len(old):]
    mult = re.fullmatch(r"Rprec_mult_(\d+(?:\.\d*)?)", name)
    if mult:
        x = float(mult.group(1))
        if not 0 < x < 1e6:
            raise ValueError(f"the multiple of {name!r} must be positive (and below a million)")
        return "Rprec_mult", None, x
    if name in SETS:
        return name, None, 0.0
    rbp = re.fullmatch(r"(rbp|rbp_resid)(?:[._]p=(.*))?", name)  # trec_eval: -m rbp.p=0.8
    if rbp:
        p = 0.9 if rbp.group(2) is None else float(rbp.group(2)) if re.fullmatch(
            r"\d*\.?\d+(?:[eE][-+]?\d+)?", rbp.group(2)) else -1.0
        if not 0 < p < 1:
            raise ValueError(f"the p of {name!r} must be a number between 0 and 1 (exclusive), "
                             f"as in {rbp.group(1)}.p=0.8")
        return rbp.group(1), None, p
    if name in judged.KINDS:
        return name, None, 0.0
    match = re.fullmatch(r"(P|recall|success|ndcg|map|unj)@(\d+)", name)
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


def set_measure(kind: str, lists: topk.RankedLists,
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


@dataclass(frozen=True)
class Queries:
    """What the measures read, made once per call for every measure.

    Attributes
    ----------
    lists : RankedLists
        Each evaluated query's ranking (queries by code 0 .. n-1).
    ties : str
        The tie rule the lists are read by (``"trec_eval"`` arrives here as
        ``"expected"`` over scores made distinct in trec_eval's order).
    jcodes, jgrades : ndarray
        Every judgment of an evaluated query: its query code and grade.
    judged_ret : ndarray or None
        Per query, how many retrieved documents are judged (grade 0 or more);
        made only when a measure asks for it.
    retrieved : Retrieved or None
        Each query's retrieved documents with their grades, for the measures of
        judged documents (``judged.KINDS``); made only when one is asked for.
    """

    lists: topk.RankedLists
    ties: str
    jcodes: np.ndarray
    jgrades: np.ndarray
    judged_ret: np.ndarray | None
    retrieved: judged.Retrieved | None = None


def per_query(kind: str, k: int | None, x: float, data: Queries) -> np.ndarray:
    """One measure per query (queries by code), from the queries' ranked lists."""
    lists, ties, jcodes, jgrades = data.lists, data.ties, data.jcodes, data.jgrades
    judged_ret = data.judged_ret
    if kind in SETS:
        return set_measure(kind, lists, judged_ret)
    if kind in judged.KINDS:
        assert data.retrieved is not None
        return judged.measure(kind, k, x, data.retrieved)
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
