"""Fitted bin edges: equal shares of a sample's negatives (:meth:`BinnedSummary.fit`)."""

from __future__ import annotations

import numpy as np


def fitted_edges(col: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                  nb: int) -> np.ndarray:
    """One task's inner edges: the first score above each share ``k / nb`` of the
    negatives' weight (``k = 1 .. nb - 1``), distinct, above the lowest score."""
    neg = labels == 0
    pick = neg if neg.any() and weights[neg].sum() > 0 else np.ones(col.shape[0], bool)
    c, w = col[pick], weights[pick]
    if not w.sum() > 0:  # every weight is zero: equal counts
        w = np.ones(c.shape[0])
    order = np.argsort(c, kind="stable")
    c, cum = c[order], np.cumsum(w[order])
    inner = np.unique(c[share_points(cum, nb)])
    above: np.ndarray = inner[inner > c[0]]
    return above


def share_points(cum: np.ndarray, nb: int) -> np.ndarray:
    """``min(searchsorted(cum, total * k / nb, "right"), m - 1)`` for ``k = 1 .. nb - 1``
    (``m`` the length of ``cum``, ``total`` its last entry) as a set of indices, in
    memory that follows ``m`` however large ``nb`` is.

    Index ``i`` is hit when some share ``s(k) = total * k / nb`` (rounded as
    written; non-decreasing in ``k``) lies in ``[cum[i - 1], cum[i])``; with
    ``K(c)`` the least ``k`` whose share reaches ``c`` that is when
    ``K(cum[i - 1]) < K(cum[i])``. Shares at or past ``cum[-1]`` hit ``m - 1``.
    """
    m = cum.shape[0]
    total = float(cum[-1])
    if nb - 1 <= 2 * m + 64:  # as written: memory O(nb) = O(m)
        at = np.searchsorted(cum, total * np.arange(1, nb) / nb, side="right")
        return np.unique(np.minimum(at, m - 1))
    top = float(nb)

    def share(k: np.ndarray) -> np.ndarray:
        out: np.ndarray = total * k / nb
        return out

    # K(c) for every c in cum: the least k in [1, nb] with share(k) >= c (share(nb) = inf)
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.clip(np.ceil(cum * (nb / total)), 1.0, top)
    k[~np.isfinite(k)] = top
    while True:  # the estimate is off by a rounding or two; step it to the exact K
        down = (k > 1.0) & (share(k - 1.0) >= cum)
        if not down.any():
            break
        k[down] -= 1.0
    while True:
        up = (k < top) & (share(k) < cum)
        if not up.any():
            break
        k[up] += 1.0
    before = np.concatenate(([1.0], k[:-1]))
    hit = (before < k) & (before <= top - 1.0)
    if k[-1] <= top - 1.0:  # shares at or past the total: clipped to the last index
        hit[-1] = True
    return np.flatnonzero(hit)
