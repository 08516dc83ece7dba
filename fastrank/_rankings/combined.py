"""Several top-k measures at several k from one ranking of the lists
(:func:`top_k_metrics`, public in :mod:`fastrank.rankings`)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._core import inputs
from ..exceptions import UndefinedMetricWarning
from .common import sample_mean
from .extreme import inverse_propensity, ps_terms
from .lists import (
    GAINS,
    RankedLists,
    ap_at,
    at_k,
    check_call,
    hit_rate,
    ndcg_at,
    r_prec,
    reciprocal,
)

MEASURES = ("P", "recall", "F1", "hit", "AP", "nDCG", "PSP", "PSnDCG", "RR", "Rprec")


def top_k_metrics(y_true: Any, y_score: Any, k: Any = (1, 3, 5), *, measures: Any = None,
                  groups: Any = None, propensity: Any = None, ties: str = "expected",
                  gain: str = "linear", n_relevant: Any = None,
                  average: str | None = "macro") -> dict[str, Any]:
    """Several top-k measures at several ``k`` from one ranking of the lists: the
    values of :func:`precision_at_k` (``"P"``), :func:`recall_at_k`, :func:`f1_at_k`,
    :func:`hit_rate_at_k` (``"hit"``), :func:`average_precision_at_k` (``"AP"``),
    :func:`ndcg_at_k`, :func:`psprecision_at_k`, :func:`psndcg_at_k` (these two
    need ``propensity``), and the ``k``-free :func:`reciprocal_rank` (``"RR"``) and
    :func:`r_precision` (``"Rprec"``), each equal to its own call.

    Parameters
    ----------
    y_true, y_score, groups, ties, n_relevant
        As in :func:`precision_at_k`; ``y_score`` may be sparse (each sample's top
        predictions).
    k : int or sequence of int, default (1, 3, 5)
    measures : sequence of str, optional
        Out of ``"P", "recall", "F1", "hit", "AP", "nDCG", "PSP", "PSnDCG", "RR",
        "Rprec"``; by default P, recall and nDCG, and PSP and PSnDCG when
        ``propensity`` is given (the extreme classification repository's set).
    propensity : array-like of shape (n_labels,), optional
        As in :func:`psprecision_at_k` (normalised, as there).
    gain : {"linear", "exponential"}, default "linear"
        nDCG's gain.
    average : {"macro", None}, default "macro"
        Means, or one array of per-list values for each measure (lists in the
        order of the samples, or of the sorted query ids).

    Returns
    -------
    dict
        ``"P@1"``, ``"nDCG@3"``, ... (``"RR"``, ``"Rprec"``) to the value, in the
        order asked. Lists where a measure is undefined (no relevant items, or
        ``k`` beyond the list for P and F1) are NaN, left out of its mean, with
        one warning for the call.

    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 0], [0, 1, 0, 0]], [[0.9, 0.5, 0.5, 0.1], [0.8, 0.7, 0.1, 0.0]]
    >>> fastrank.top_k_metrics(y, s, [1, 2], measures=["P", "hit"])
    {'P@1': 0.5, 'P@2': 0.625, 'hit@1': 0.5, 'hit@2': 1.0}
    """
    ks, _, ties = check_call(k, ties, None, average)
    if gain not in GAINS:
        raise ValueError(f"gain must be 'linear' or 'exponential'; got {gain!r}")
    if measures is None:
        measures = ["P", "recall", "nDCG"] + ([] if propensity is None else ["PSP", "PSnDCG"])
    names = [measures] if isinstance(measures, str) else list(measures)
    bad = [m for m in names if m not in MEASURES]
    if bad or not names:
        raise ValueError(f"unknown measure {bad[0]!r}; choose from {', '.join(MEASURES)}"
                         if bad else "give at least one measure")
    if ("PSP" in names or "PSnDCG" in names) and propensity is None:
        raise ValueError("PSP and PSnDCG need propensity= (see fastrank.propensity)")
    if "RR" in names and inputs.is_sparse(y_score):
        raise ValueError("RR ranks every item, and a sparse y_score leaves all unstored labels "
                         "tied; leave it out, or give dense scores")
    whole = "RR" in names or "Rprec" in names  # these read past any k
    lists = RankedLists(y_true, y_score, groups, n_relevant,
                        depth=None if whole else int(ks.max()), least=int(ks.max()))
    inv = None if propensity is None else inverse_propensity(propensity, lists.n_labels)
    per: dict[str, np.ndarray] = {}
    sums: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for m in names:
        if m in ("P", "recall", "F1"):
            full = {"P": "precision_at_k", "recall": "recall_at_k", "F1": "f1_at_k"}[m]
            cols = at_k(full, lists, ks, ties)
        elif m == "hit":
            cols = hit_rate(lists, ks, ties)
        elif m == "AP":
            cols = ap_at(lists, ks, ties, "relevant")
        elif m == "nDCG":
            cols = ndcg_at(lists, ks, ties, gain, n_relevant is not None)
        elif m in ("PSP", "PSnDCG"):
            assert inv is not None
            num, den = ps_terms(lists, ks, ties, inv, m == "PSnDCG", True)
            sums[m] = (num.sum(axis=0), den.sum(axis=0))
            with np.errstate(invalid="ignore", divide="ignore"):
                cols = np.where(den > 0, num / den, np.nan)
        else:
            cols = (reciprocal(lists, ties) if m == "RR" else r_prec(lists, ties))[:, None]
        if m in ("RR", "Rprec"):
            per[m] = cols[:, 0]
        else:
            for j, kk in enumerate(ks.tolist()):
                per[f"{m}@{kk}"] = cols[:, j]
                if m in sums:
                    num_s, den_s = sums[m]
                    sums[f"{m}@{kk}"] = (num_s[j:j + 1], den_s[j:j + 1])
    worst = max(int(np.isnan(v).sum()) for v in per.values())
    if worst:
        what = "queries" if lists.ids is not None else "samples"
        warnings.warn(f"some measures are undefined for up to {worst} of "
                      f"{lists.first.shape[0]} {what} (no relevant items, or k beyond the "
                      "list); they are NaN" + ("" if average is None else
                                               " and left out of the means"),
                      UndefinedMetricWarning, stacklevel=2)
    if average is None:
        return per
    out: dict[str, Any] = {}
    for key, v in per.items():
        if key in sums:  # normalised PS measures: the ratio of the sums over the lists
            num_s, den_s = sums[key]
            out[key] = float(num_s[0] / den_s[0]) if den_s[0] > 0 else math.nan
        else:
            out[key] = sample_mean(v, None)
    return out
