"""trec_eval's measures by name: the names accepted (:func:`expand` reads trec_eval's
``-m`` syntax, :func:`measure_name` each name), each measure per query from the
queries' ranked lists (those of :mod:`.ranked` there), and the all row
(:func:`summary`)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .._rankings import lists as topk
from . import judged, ranked

MEASURES = ("map", "map@k", "P@k", "recall@k", "success@k", "recip_rank", "Rprec",
            "Rprec_mult_x", "ndcg", "ndcg@k", "num_ret", "num_rel", "num_rel_ret",
            "num_nonrel_judged_ret", "set_P", "set_recall", "set_relative_P", "set_F", "set_map",
            "utility", "num_q", "gm_map", "iprec_at_recall_r", "11pt_avg", "relative_P@k",
            "binG", "G", "ndcg_rel", "Rndcg", "bpref", "gm_bpref", "infAP", "rbp",
            "rbp_resid", "unj@k")


ALIASES = {"P_": "P@", "recall_": "recall@", "success_": "success@", "ndcg_cut_": "ndcg@",
            "map_cut_": "map@", "relative_P_": "relative_P@", "unj_": "unj@"}

# trec_eval's measures with cut-offs: their default ones (a root name alone asks for
# them all) and how each cut-off is written into the name (trec_eval's
# ``name_5``, ``name_0.20``)
CUTOFFS: dict[str, tuple[float, ...]] = {
    **{root: (5, 10, 15, 20, 30, 100, 200, 500, 1000)
       for root in ("P", "recall", "ndcg_cut", "map_cut", "relative_P")},
    "success": (1, 5, 10),
    "iprec_at_recall": ranked.ELEVEN,
    "Rprec_mult": tuple(i / 10 for i in range(2, 21, 2)),
    "unj": (5, 10, 20),
}
WHOLE = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj")


def _cut_name(root: str, cut: float) -> str:
    if root in WHOLE:
        return f"{root}_{int(cut)}"
    short = f"{cut:.2f}"  # trec_eval's %3.2f, unless that would name another number
    return f"{root}_{short if float(short) == cut else repr(float(cut))}"


def _names_of(*parts: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in parts:
        out += [_cut_name(part, c) for c in CUTOFFS[part]] if part in CUTOFFS else [part]
    return tuple(out)


# trec_eval's sets of measures (-m all_trec, -m official), in the order it prints them
# (its runid and relstring, which are not numbers, left out: the command prints them)
NAME_SETS = {
    "all_trec": _names_of(
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult",
        "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
        "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
        "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"),
    "official": _names_of(
        "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P"),
}


def _cutoffs(root: str, text: str, name: str) -> list[float]:
    """trec_eval's parameters of ``root.text``: its cut-offs, sorted, each checked."""
    out: list[float] = []
    for part in text.split(","):
        if root in WHOLE:
            if not re.fullmatch(r"\d+", part) or int(part) < 1:
                raise ValueError(f"the cut-offs of {name!r} must be positive integers; got "
                                 f"{part!r}")
            out.append(int(part))
            continue
        if not re.fullmatch(r"\d*\.?\d+|\d+\.", part):
            raise ValueError(f"the cut-offs of {name!r} must be numbers such as 0.25; got "
                             f"{part!r}")
        value = float(part)
        if root == "iprec_at_recall" and not 0 <= value <= 1:
            raise ValueError(f"the recall levels of {name!r} must be from 0 to 1; got {part!r}")
        out.append(value)
    out.sort()
    if len(set(out)) < len(out):
        raise ValueError(f"the cut-offs of {name!r} must differ (trec_eval refuses repeats)")
    return out


def expand(names: str | Iterable[str]) -> list[str]:
    """Measure names as trec_eval's ``-m`` takes them, one name per value.

    A root name alone asks for trec_eval's default cut-offs (``P``: ``P_5``,
    ``P_10`` ... ``P_1000``; ``success``: 1, 5, 10; ``iprec_at_recall``: 0.00 ...
    1.00; ``Rprec_mult``: 0.20 ... 2.00; likewise ``recall``, ``ndcg_cut``,
    ``map_cut`` and ``relative_P``); ``root.c1,c2`` for the cut-offs given (sorted,
    as trec_eval does); ``all_trec`` and ``official`` are trec_eval's sets. Other
    names pass as they are (checked by :func:`measure_name`); repeats are dropped.

    Examples
    --------
    >>> expand(["P.10,5", "success", "iprec_at_recall.0.25", "map"])
    ['P_5', 'P_10', 'success_1', 'success_5', 'success_10', 'iprec_at_recall_0.25', 'map']
    """
    if isinstance(names, str):
        names = [names]
    out: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"measure names must be str; got {type(name).__name__}")
        root, dot, text = name.partition(".")
        if name in NAME_SETS:
            out += NAME_SETS[name]
        elif name in CUTOFFS:
            out += [_cut_name(name, c) for c in CUTOFFS[name]]
        elif dot and root in CUTOFFS:
            out += [_cut_name(root, c) for c in _cutoffs(root, text, name)]
        elif dot and root in ("11pt_avg", "ndcg", "G", "ndcg_rel", "Rndcg", "utility", "set_F"):
            raise ValueError(f"{name!r}: {root} must be written without parameters (fastrank "
                             "takes trec_eval's default ones only)")
        else:
            out.append(name)
    return list(dict.fromkeys(out))


SETS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall",
         "set_relative_P", "set_F", "set_map", "utility")


COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "num_q")
MIN_GEO_MEAN = judged.MIN_GEO_MEAN  # trec_eval's floor of each value in a geometric mean
GEOMETRIC = ("gm_map", "gm_bpref")  # the all row a geometric mean


def summary(kind: str, values: np.ndarray) -> float:
    """A measure's ``all`` value from its values per query, as trec_eval's all row:
    the counts summed, ``gm_map`` and ``gm_bpref`` the geometric mean of the APs
    or bprefs (each at least 1e-5), the others the mean; NaN queries left out (NaN
    when all are)."""
    if kind in COUNTS:
        return float(values.sum())
    defined = ~np.isnan(values)
    if not defined.any():
        return math.nan
    if kind in GEOMETRIC:
        return float(np.exp(np.mean(np.log(np.maximum(values[defined], MIN_GEO_MEAN)))))
    return float(np.nanmean(values))


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
    level = re.fullmatch(r"iprec_at_recall_(\d+(?:\.\d*)?)", name)
    if level:
        x = float(level.group(1))
        if not 0 <= x <= 1:
            raise ValueError(f"the recall level of {name!r} must be from 0 to 1")
        return "iprec_at_recall", None, x
    match = re.fullmatch(r"(P|recall|success|ndcg|map|relative_P|unj)@(\d+)", name)
    if match:
        k = int(match.group(2))
        if k < 1:
            raise ValueError(f"the k of {name!r} must be at least 1")
        return match.group(1), min(k, np.iinfo(np.int64).max), 0.0  # (past every list either way)
    plain = {"map": "map", "recip_rank": "recip_rank", "mrr": "recip_rank", "Rprec": "Rprec",
             "ndcg": "ndcg", "num_q": "num_q", "gm_map": "gm_map", "11pt_avg": "11pt_avg",
             "binG": "binG", "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg"}
    if name in plain:
        return plain[name], None, 0.0
    raise ValueError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)} (k a "
                     "positive integer, x a positive number such as 0.20, r a recall level "
                     "from 0 to 1), trec_eval's root names with their default cut-offs ("
                     f"{', '.join(CUTOFFS)}) or with cut-offs given (P.5,10), or the sets "
                     f"{' and '.join(NAME_SETS)}")


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
    if kind in ranked.KINDS:
        return ranked.per_query(kind, k, x, data)
    if kind == "num_q":  # each evaluated query once: its all row counts them
        return np.ones(lists.first.shape[0])
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
        cut = np.floor(x * lists.relevant + 0.9)  # (float: a huge x must not wrap as int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            hits = lists.taken(np.minimum(cut, lists.sizes).astype(np.int64), ties)
            prec = np.where(cut > 0, hits / np.maximum(cut, 1), 0.0)
        return np.where(lists.relevant > 0, prec, np.nan)
    n_rel = lists.relevant
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind in ("map", "gm_map"):  # over every judged relevant document, retrieved or not
            return np.where(n_rel > 0, lists.average_precision(k, ties) / n_rel, np.nan)
        # nDCG: the ideal ranks every judged grade of the query, retrieved or not
        ideal = topk.best_dcg(jcodes, np.maximum(jgrades, 0.0), lists.first.shape[0], k)
        return np.where(ideal > 0, lists.dcg(lists.item_grade, k, ties) / ideal, np.nan)
