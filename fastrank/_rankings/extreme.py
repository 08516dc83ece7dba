"""Extreme classification: label propensities (Jain, Prabhu and Varma, 2016) and the
propensity-scored precision and nDCG at k of sparse or dense top-k scores (public
in :mod:`fastrank.rankings`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core import inputs
from .lists import RankedLists, check_call, finish


def propensity(label_counts: Any, n_samples: int, *, a: float = 0.55,
               b: float = 1.5) -> np.ndarray:
    """Each label's propensity (the chance that a relevant label is observed) under
    the model of Jain, Prabhu and Varma (KDD 2016):
    ``p = 1 / (1 + C exp(-a ln(N_l + b)))`` with ``C = (ln N - 1)(b + 1)**a``,
    ``N_l`` the label's count in the training labels and ``N`` the number of
    training samples.

    Their values of ``(a, b)``: ``(0.55, 1.5)`` by default, ``(0.5, 0.4)`` for
    Wikipedia-LSHTC, ``(0.6, 2.6)`` for Amazon. The inverse propensities
    (``1 / p``) are the weights of :func:`psprecision_at_k` and
    :func:`psndcg_at_k`.

    Examples
    --------
    >>> import fastrank
    >>> p = fastrank.propensity([1000, 10, 0], n_samples=10_000)
    >>> [round(float(x), 4) for x in p]
    [0.7669, 0.2199, 0.0842]
    """
    counts = inputs.as_array(label_counts, "label_counts")
    if counts.ndim != 1 or counts.shape[0] == 0 or counts.dtype.kind not in "biuf":
        raise ValueError("label_counts must be a non-empty 1-D array of counts (one per label)")
    c = counts.astype(np.float64)
    if not np.isfinite(c).all() or (c < 0).any():
        raise ValueError("label_counts must be finite and non-negative")
    for name, v in (("a", a), ("b", b)):
        if isinstance(v, bool) or not isinstance(v, int | float | np.number) \
                or not math.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive number; got {v!r}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) \
            or n_samples < 3:
        raise ValueError(f"n_samples must be an int of at least 3 (ln N - 1 > 0); got "
                         f"{n_samples!r}")
    C = (math.log(int(n_samples)) - 1.0) * (float(b) + 1.0) ** float(a)
    return np.asarray(1.0 / (1.0 + C * np.exp(-float(a) * np.log(c + float(b)))))


def inverse_propensity(propensity: Any, n_labels: int | None) -> np.ndarray:
    if n_labels is None:
        raise ValueError("propensity-scored measures rank each sample's labels: give 2-D "
                         "(or sparse) scores, not groups=")
    p = inputs.as_array(propensity, "propensity")
    if p.ndim != 1 or p.shape[0] != n_labels or p.dtype.kind not in "biuf":
        raise ValueError(f"propensity needs one number per label ({n_labels}); got shape "
                         f"{p.shape}")
    pf = p.astype(np.float64)
    if not (np.isfinite(pf).all() and (pf > 0).all() and (pf <= 1).all()):
        raise ValueError("propensities must lie in (0, 1] (see fastrank.propensity)")
    with np.errstate(over="ignore"):
        inv = 1.0 / pf
        total = float(inv.sum())
    if not math.isfinite(total):  # (then a sum of some of them could be infinite too)
        raise ValueError(f"propensities as small as {float(pf.min())!r} make inverse weights "
                         "that sum beyond float64; a propensity so small is no estimate")
    return inv


def _ps(name: str, y_true: Any, y_score: Any, k: Any, propensity: Any, ties: Any,
        normalize: Any, average: Any) -> Any:
    ks, scalar_k, ties = check_call(k, ties, None, average)
    if not isinstance(normalize, bool):
        raise ValueError(f"normalize must be True or False; got {normalize!r}")
    lists = RankedLists(y_true, y_score, None, None, depth=int(ks.max()))
    inv = inverse_propensity(propensity, lists.n_labels)
    num, den = ps_terms(lists, ks, ties, inv, name == "psndcg_at_k", normalize)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, num / den, np.nan)
    if not normalize or average is None:
        return finish(name, per, lists, average, scalar_k, stacklevel=4)
    # Normalised: the ratio of the sums over the samples (pyxclib's ratio of means), so
    # a sample without relevant labels adds nothing to either.
    finish(name, per, lists, "macro", scalar_k, stacklevel=4)  # its one warning
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(den.sum(axis=0) > 0, num.sum(axis=0) / den.sum(axis=0), np.nan)
    return float(total[0]) if scalar_k else total


def ps_terms(lists: RankedLists, ks: np.ndarray, ties: str, inv: np.ndarray, log: bool,
             normalize: bool) -> tuple[np.ndarray, np.ndarray]:
    """PSP@k (``log`` False) or PSnDCG@k (True) of every list at every ``k`` as a
    numerator and a denominator: normalised, the sample's value and its best, each
    over the plain ideal (``k`` for PSP, the binary ideal DCG for PSnDCG);
    unnormalised, the value and that plain ideal."""
    g = lists.weights(inv)
    kind = "log" if log else "flat"
    klist = ks.tolist()
    got = np.column_stack([lists.dcg(g, kk, ties, kind) for kk in klist])
    if log:
        plain = lists.ideal(lists.weights(None), klist, "log")
    else:
        plain = np.column_stack([np.where(lists.sizes >= kk, float(kk), 0.0) for kk in klist])
    if not normalize:
        return got, plain
    best = lists.ideal(g, klist, kind)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.where(plain > 0, got / plain, 0.0),
                np.where(plain > 0, best / plain, 0.0))


_PS_DOC = """
    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 relevance (any positive grade counts as relevant).
    y_score : array-like or sparse matrix of shape (n_samples, n_labels)
        Scores; a sparse matrix holds each sample's top predictions only, the
        labels it does not store ranked below them, all tied.
    k : int or sequence of int
    propensity : array-like of shape (n_labels,)
        Each label's propensity in (0, 1], e.g. from :func:`propensity`
        (the weight of a relevant label is ``1 / propensity``).
    ties : {"expected", "optimistic", "pessimistic"}, default "expected"
    normalize : bool, default True
        Divide by the best value the sample's relevant labels allow (their
        weights, highest first), as the extreme classification repository and
        pyxclib report it; False gives the paper's unnormalised form.
    average : {"macro", None}, default "macro"
"""


def psprecision_at_k(y_true: Any, y_score: Any, k: Any, *, propensity: Any,
                     ties: str = "expected", normalize: bool = True,
                     average: str | None = "macro") -> Any:
    """Propensity-scored precision at ``k`` (Jain et al., 2016): the sum of the
    inverse propensities of the relevant labels in each sample's top ``k``, over
    ``k`` (unnormalised) or over its best possible value (normalised). Rare labels
    weigh more, so a model that only predicts the frequent ones scores low.
    Normalised, NaN for a sample without relevant labels (it has no best value);
    unnormalised, 0 for it, as :func:`precision_at_k` gives. NaN where ``k`` is
    beyond the sample's labels.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 0]], [[0.9, 0.8, 0.1, 0.7]]
    >>> p = [0.5, 0.9, 0.25, 0.9]                      # label 2 is rare
    >>> fastrank.psprecision_at_k(y, s, 2, propensity=p)   # 2 of the best 2 + 4
    0.3333333333333333
    """
    return _ps("psprecision_at_k", y_true, y_score, k, propensity, ties, normalize, average)


def psndcg_at_k(y_true: Any, y_score: Any, k: Any, *, propensity: Any,
                ties: str = "expected", normalize: bool = True,
                average: str | None = "macro") -> Any:
    """Propensity-scored nDCG at ``k``: :func:`ndcg_at_k` with each relevant
    label's gain its inverse propensity, over the best such DCG (normalised), or
    over the plain ideal DCG of the sample's relevant labels (unnormalised, as in
    the paper). NaN for a sample without relevant labels.
    {doc}
    Examples
    --------
    >>> import fastrank
    >>> y, s = [[1, 0, 1, 0]], [[0.9, 0.8, 0.1, 0.7]]
    >>> round(fastrank.psndcg_at_k(y, s, 3, propensity=[0.5, 0.9, 0.25, 0.9]), 6)
    0.380094
    """
    return _ps("psndcg_at_k", y_true, y_score, k, propensity, ties, normalize, average)


for _ps_f in (psprecision_at_k, psndcg_at_k):
    _ps_f.__doc__ = (_ps_f.__doc__ or "").replace("{doc}", _PS_DOC)
