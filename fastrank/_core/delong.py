"""DeLong's variance of the ROC AUC: the one place its formula lives.

For a positive scoring in tie group ``g`` (groups in descending score order,
``fp`` negatives strictly above it and ``dn`` tied with it) the placement is
``V10 = (N - fp - dn/2) / N``, the share of negatives it outranks (ties
counting half); for a negative, ``V01 = (tp + dp/2) / P``. Every member of a
group has the same placement, so one task's variance needs only its tie
table (:func:`table_sums`); comparing models on the same samples needs the
placements sample by sample (:func:`placements`). Both centre on theta, the
positives' mean placement (the AUC), as pROC does.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import tie_tables
from .arith import dot
from .inputs import Task


class Sums(NamedTuple):
    """DeLong's sums of one task: class sizes, theta, and the centred squares."""

    m: float  # positives
    k: float  # negatives
    theta: float
    s10: float  # sum over positives of (V10 - theta)^2
    s01: float  # sum over negatives of (V01 - theta)^2

    @property
    def variance(self) -> float:
        return variance(self.m, self.k, self.s10, self.s01)


def variance(m: float, k: float, s10: float, s01: float) -> float:
    """``S10 / m + S01 / n`` with the unbiased class variances; NaN below two of a class."""
    if m < 2 or k < 2:
        return math.nan
    return s10 / (m - 1) / m + s01 / (k - 1) / k


def group_placements(gpos: np.ndarray, gneg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each tie group's placements ``(V10, V01)`` (groups highest score first)."""
    pos = gpos.sum()
    neg = gneg.sum()
    fp_above = np.cumsum(gneg) - gneg
    tp_above = np.cumsum(gpos) - gpos
    with np.errstate(divide="ignore", invalid="ignore"):
        v10 = (neg - fp_above - 0.5 * gneg) / neg
        v01 = (tp_above + 0.5 * gpos) / pos
    return v10, v01


def table_sums(gpos: np.ndarray, gneg: np.ndarray) -> Sums:
    """DeLong's sums from a tie table (unweighted counts)."""
    m = float(gpos.sum())
    k = float(gneg.sum())
    if m == 0 or k == 0:
        return Sums(m, k, math.nan, math.nan, math.nan)
    v10, v01 = group_placements(gpos, gneg)
    theta = dot(gpos, v10) / m
    return Sums(m, k, theta, dot(gpos, (v10 - theta) ** 2), dot(gneg, (v01 - theta) ** 2))


def placements(t: Task) -> np.ndarray:
    """Each sample's placement: V10 for positives, V01 for negatives (a task
    with both classes)."""
    if t.weights is None:
        return tie_tables.sample_placements(t)
    gid, _, gpos, gneg = tie_tables.group_index(t)
    v10, v01 = group_placements(gpos, gneg)
    return np.asarray(np.where(t.labels.astype(bool), v10[gid], v01[gid]))


def theta(v10: np.ndarray, k: float, counted: bool) -> float:
    """The positives' mean placement, the AUC. With counts (``counted``), ``2k V10`` is
    an integer (ties count half), so the sum is exact in int64 and one division rounds
    it, as :func:`fastrank.roc_auc` rounds its exact sum: the two are the same float."""
    if not counted:
        return float(v10.mean())
    twice = np.rint(v10 * (2.0 * k)).astype(np.int64)
    return float(int(twice.sum()) / (2 * int(k) * int(v10.shape[0])))


class PairSums(NamedTuple):
    """DeLong's sums of two models scored on the same samples."""

    m: float
    k: float
    theta_a: float
    theta_b: float
    s10_aa: float
    s10_bb: float
    s10_ab: float
    s01_aa: float
    s01_bb: float
    s01_ab: float

    def variances(self) -> tuple[float, float, float]:
        """var(AUC_a), var(AUC_b) and cov(AUC_a, AUC_b)."""
        return (variance(self.m, self.k, self.s10_aa, self.s01_aa),
                variance(self.m, self.k, self.s10_bb, self.s01_bb),
                variance(self.m, self.k, self.s10_ab, self.s01_ab))


def pair_sums(ta: Task, tb: Task | None) -> PairSums:
    """DeLong's sums of one or two models on one task (``tb`` None: one model)."""
    lab = ta.labels.astype(bool)
    m = float(np.count_nonzero(lab))
    k = float(lab.shape[0] - m)
    if m == 0 or k == 0:
        nan = math.nan
        return PairSums(m, k, nan, nan, nan, nan, nan, nan, nan, nan)
    va = placements(ta)
    vb = va if tb is None else placements(tb)
    theta_a = theta(va[lab], k, ta.weights is None)
    theta_b = theta_a if tb is None else theta(vb[lab], k, tb.weights is None)
    da = va - theta_a
    db = vb - theta_b
    dpa, dna = da[lab], da[~lab]
    dpb, dnb = db[lab], db[~lab]
    s10_aa, s01_aa = dot(dpa, dpa), dot(dna, dna)
    if tb is None:
        return PairSums(m, k, theta_a, theta_a, s10_aa, s10_aa, s10_aa, s01_aa, s01_aa, s01_aa)
    return PairSums(m, k, theta_a, theta_b, s10_aa, dot(dpb, dpb), dot(dpa, dpb),
                    s01_aa, dot(dnb, dnb), dot(dna, dnb))


def band_sums(gpos: np.ndarray, gneg: np.ndarray, x1: float, x2: float,
              closed: tuple[bool, bool]) -> Sums:
    """DeLong's sums for the ROC area over the FPR band ``[x1, x2]`` (unweighted
    tie table, highest score first).

    With ``U`` a positive's FPR placement (the share of negatives above it, ties
    counting half), the area under the curve over ``[x1, x2]`` is the positives'
    mean of ``clip(x2 - U, 0, x2 - x1)``: that is each positive's component. A
    negative's component is its influence on the positives' ``U``: minus the
    share of positives below it (ties half) among those whose ``U`` lies inside
    the band (whose term moves with ``U``). ``closed`` says whether a placement
    exactly at ``x1`` (``x2``) counts fully; otherwise it counts half. With the
    band ``[0, 1]`` closed both ends these are DeLong's placements (``V10`` and
    ``V01 - 1``), so the variance is the full AUC's.
    """
    m = float(gpos.sum())
    k = float(gneg.sum())
    if m == 0 or k == 0:
        return Sums(m, k, math.nan, math.nan, math.nan)
    if x2 <= x1:  # the curve does not cross the box: no sample moves the area
        return Sums(m, k, 0.0, 0.0, 0.0)
    u = (np.cumsum(gneg) - 0.5 * gneg) / k
    c10 = np.clip(x2 - u, 0.0, x2 - x1)
    inside = ((u > x1) & (u < x2)).astype(np.float64)
    inside[u == x1] = 1.0 if closed[0] else 0.5
    inside[u == x2] = 1.0 if closed[1] else 0.5
    inside[(u < x1) | (u > x2)] = 0.0
    moving = gpos * inside
    below = moving.sum() - np.cumsum(moving)  # in groups strictly below
    c01 = -(below + 0.5 * moving) / m
    theta = dot(gpos, c10) / m
    mean01 = dot(gneg, c01) / k
    return Sums(m, k, theta, dot(gpos, (c10 - theta) ** 2), dot(gneg, (c01 - mean01) ** 2))
