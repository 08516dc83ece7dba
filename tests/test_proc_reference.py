"""fastrank against the R package pROC's own expected values on its aSAH data set.

pROC (Robin et al., 2011) pins its results in its testthat suite with hard-coded
numbers (github.com/xrobin/pROC, ``tests/testthat``; snapshot of 2025-07-31, commit
ee2877e). R cannot run here, so this file holds those published numbers, with the
data set they were computed on; no pROC code is used. Each test names the pROC file
and ``test_that`` block (or helper object) its numbers come from. The ``percent =
TRUE`` variants are the same numbers times 100 and are not repeated.

Conventions mapped, pROC -> fastrank:

* ``roc(aSAH$outcome, marker)`` takes controls "Good", cases "Poor" and direction
  ``"<"`` (cases score higher): ``y = outcome == "Poor"``, scores as they are; wfns,
  an ordered factor, enters by its codes 1-5 (equal to its labels).
* pROC's thresholds are the midpoints between consecutive distinct scores, plus
  -Inf and Inf, with "case when score >= threshold" (also for a user threshold equal
  to a score, ``roc_utils_thr_idx``); fastrank's thresholds are the scores themselves,
  same rule. A pair is one cutoff when it flags the same samples (:func:`same_cut`).
* ``auc(partial.auc = c(a, b))`` with focus "specificity" (the default) is
  ``partial_roc_auc(fpr=(1 - max(a, b), 1 - min(a, b)))``; with focus "sensitivity",
  ``tpr=(min(a, b), max(a, b))``; ``partial.auc.correct = TRUE`` is ``correct=True``.
* ``coords(x, input = "specificity" | "sensitivity")`` returns the ROC point at exactly
  that value, interpolating linearly between the two points around it when no point
  has it (R/coords.R): ``sensitivity_at_specificity`` / ``specificity_at_sensitivity``
  with ``interpolate=True``. At an exact match pROC takes, of several points, the most
  sensitive (input specificity) or most specific (input sensitivity) one.
* ``coords(..., ret = "youden")`` is ``se + r * sp`` and ``"closest.topleft"`` is
  ``(1 - se)^2 + r * (1 - sp)^2``, ``r = (1 - prevalence) / (cost * prevalence)`` from
  ``best.weights = c(cost, prevalence)`` (R/roc.utils.R); ``best_cutoff``'s value is
  ``youden - 1`` and ``-closest.topleft``, with ``cost=`` and ``prevalence=``.
* DeLong: ``var``, ``cov``, ``ci.auc`` and ``roc.test`` (paired and unpaired) are
  ``roc_auc_ci``, ``delong_covariance``, ``delong_test`` and ``delong_test_unpaired``.

Tolerances: pROC's own ``expect_equal`` allows 1.5e-8 relative. Its numbers are
written with 15 significant digits (or exactly, as hex floats), compared here to
1e-12 relative; p-values (different tail code) to 1e-10; numbers pROC pins with 10
digits to 1e-10 absolute; AUCs from pROC's printed output (4 significant digits) to
half a unit of the last digit shown.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastrank

# -- pROC's aSAH data set ----------------------------------------------------------------
# aSAH (data/aSAH.RData in pROC): 113 patients with aneurysmal subarachnoid haemorrhage,
# from Turck et al.'s study (N. Turck et al. (2010), "A multiparameter panel method for
# outcome prediction following aneurysmal subarachnoid hemorrhage", Intensive Care
# Medicine 36(1), 107-115), as pROC ships it, read from the .RData file in row order.
# outcome: G = "Good" (pROC's controls), P = "Poor" (cases); gender: F/M; wfns: the WFNS
# grade 1-5 (an ordered factor in R); s100b (S100 beta) and ndka (nucleoside diphosphate
# kinase A), numbers as stored.
OUTCOME = (
    "GGGGPPGPGGPGPPGGPGPPPGPGGGGGGGGGPGGPPGPPGGGGGGGGGPPGGGPGGGPG"
    "PGGPPPGPPGPPPPGGGPPGPGGGGGGPGGGGGGGGGGGGPPPPPPGGGPGGG"
)
GENDER = (
    "FFFFFMMMFFMFMMFFMFFMFFFMFFMFFMFFFFFMFFMFFFFMFMMMMFFMFFFFMFMF"
    "FMFFFMMMMFFFMFMFMMMFFFFFMFMMFMFFFFFFMFMFMFFFMFFFMMFFM"
)
WFNS = (
    "111132541252551252252111121211342145414255112411255212512221"
    "51125214524414121421232421451154221113125225552445111"
)
S100B = [
    0.13, 0.14, 0.1, 0.04, 0.13, 0.1, 0.47, 0.16, 0.18, 0.1, 0.12, 0.1,
    0.44, 0.71, 0.04, 0.08, 0.49, 0.04, 0.07, 0.33, 0.09, 0.09, 0.07, 0.11,
    0.07, 0.17, 0.07, 0.11, 0.13, 0.19, 0.05, 0.16, 0.41, 0.14, 0.34, 0.35,
    0.48, 0.09, 0.96, 0.25, 0.5, 0.46, 0.16, 0.07, 0.43, 0.45, 0.11, 0.08,
    0.09, 0.86, 0.52, 0.08, 0.06, 0.13, 2.07, 0.1, 0.14, 0.15, 0.07, 0.06,
    0.77, 0.05, 0.09, 0.3, 0.03, 0.09, 0.04, 0.23, 0.7, 0.09, 0.27, 0.71,
    0.08, 0.26, 0.08, 0.16, 0.09, 0.13, 0.1, 0.08, 0.11, 0.33, 0.11, 0.28,
    0.07, 0.1, 0.32, 0.22, 0.07, 0.05, 0.24, 0.38, 0.1, 0.15, 0.08, 0.14,
    0.1, 0.07, 0.04, 0.19, 0.56, 0.14, 0.58, 0.32, 0.82, 0.74, 0.15, 0.47,
    0.17, 0.44, 0.15, 0.5, 0.48,
]
NDKA = [
    3.01, 8.54, 8.09, 10.42, 17.4, 12.75, 6.0, 13.2, 15.54, 6.01, 15.96, 17.86,
    5.18, 8.9, 13.41, 20.75, 11.6, 16.11, 32.37, 54.82, 32.41, 49.94, 40.34, 9.47,
    6.29, 12.53, 6.54, 6.3, 80.3, 12.8, 9.8, 9.81, 9.85, 18.21, 5.03, 14.04,
    21.93, 8.02, 7.42, 8.38, 6.59, 9.63, 13.12, 7.96, 14.34, 41.43, 7.63, 7.06,
    12.59, 13.56, 3.87, 9.44, 7.66, 12.98, 419.19, 27.19, 22.27, 9.95, 21.22, 11.73,
    10.4, 58.83, 6.39, 11.09, 12.22, 13.67, 17.21, 22.63, 12.9, 9.7, 21.57, 8.23,
    72.57, 15.54, 10.51, 10.6, 14.57, 5.19, 9.63, 4.61, 21.48, 17.3, 12.71, 9.44,
    11.07, 19.46, 10.83, 5.37, 11.97, 7.75, 9.83, 10.55, 28.49, 8.53, 12.57, 12.9,
    46.83, 11.68, 12.67, 9.01, 9.57, 34.06, 11.72, 14.26, 47.61, 11.67, 24.58, 10.33,
    13.87, 15.89, 22.43, 6.79, 13.45,
]
Y = np.array([c == "P" for c in OUTCOME], dtype=np.int64)
FEMALE = np.array([c == "F" for c in GENDER])
MARKERS = {
    "wfns": np.array([float(c) for c in WFNS]),
    "ndka": np.array(NDKA),
    "s100b": np.array(S100B),
}
N_CASES, N_CONTROLS = 41, 72
INF = math.inf

REL = 1e-12  # pROC's 15-significant-digit numbers
P_REL = 1e-10  # p-values


def close(expected: float, rel: float = REL) -> object:
    return pytest.approx(expected, rel=rel, abs=1e-15)


def same_cut(scores: np.ndarray, proc_threshold: float, threshold: float) -> bool:
    """Whether pROC's threshold and fastrank's flag the same samples (score >= t)."""
    return bool(np.array_equal(scores >= proc_threshold, scores >= threshold))


def test_data_set_is_procs() -> None:
    # print_output/r.s100b: "72 controls (aSAH$outcome Good) < 41 cases (aSAH$outcome Poor)";
    # test-coords.R "coords with arbitrary thresholds at exact data point works".
    assert len(OUTCOME) == len(GENDER) == len(WFNS) == len(S100B) == len(NDKA) == 113
    assert Y.sum() == N_CASES and (1 - Y).sum() == N_CONTROLS
    assert np.sum(MARKERS["s100b"] == 0.05) == 3
    assert np.sum(MARKERS["s100b"] == 0.52) == 1


# -- the ROC curve ---------------------------------------------------------------------------

# helper-roc-expected.R, expected.roc[[marker]]$forward$`<` (test-roc.R "roc.default
# produces the expected results"): roc(outcome, marker)'s thresholds (increasing), and
# its sensitivities and specificities, written here as counts (sensitivity * 41 cases,
# specificity * 72 controls: each of pROC's values is such a count over 41 or 72 to
# 1e-15), with its AUC.
PROC_ROC = {
    "wfns": (
        # thresholds
        [
            -INF, 1.5, 2.5, 3.5, 4.5, INF,
        ],
        # sensitivities * 41
        [
            41, 39, 27, 26, 18, 0,
        ],
        # specificities * 72
        [
            0, 37, 57, 60, 68, 72,
        ],
    ),
    "ndka": (
        # thresholds
        [
            -INF, 3.44, 4.24, 4.82, 5.105, 5.1850000000000005,
            5.28, 5.6850000000000005, 6.005, 6.15, 6.295, 6.345,
            6.465, 6.5649999999999995, 6.6899999999999995, 6.925, 7.24, 7.525,
            7.645, 7.705, 7.855, 7.99, 8.055, 8.16,
            8.305, 8.455, 8.535, 8.719999999999999, 8.955, 9.225,
            9.455, 9.52, 9.600000000000001, 9.665, 9.75, 9.805,
            9.82, 9.84, 9.899999999999999, 10.14, 10.365, 10.41,
            10.465, 10.530000000000001, 10.575, 10.715, 10.95, 11.08,
            11.344999999999999, 11.635, 11.675, 11.7, 11.725000000000001, 11.850000000000001,
            12.095, 12.375, 12.55, 12.58, 12.629999999999999, 12.690000000000001,
            12.73, 12.775, 12.850000000000001, 12.940000000000001, 13.05, 13.16,
            13.305, 13.43, 13.504999999999999, 13.615, 13.77, 13.954999999999998,
            14.149999999999999, 14.3, 14.455, 15.055, 15.715, 15.925,
            16.035, 16.66, 17.255000000000003, 17.35, 17.63, 18.035,
            18.835, 20.105, 20.985, 21.35, 21.525, 21.75,
            22.1, 22.35, 22.53, 23.604999999999997, 25.884999999999998, 27.84,
            30.43, 32.39, 33.235, 37.2, 40.885000000000005, 44.129999999999995,
            47.22, 48.775, 52.379999999999995, 56.825, 65.69999999999999, 76.435,
            249.745, INF,
        ],
        # sensitivities * 41
        [
            41, 41, 40, 40, 40, 39, 38, 37, 37, 37, 37, 37, 37, 37, 37, 37, 37, 36, 36, 36,
            36, 36, 36, 36, 35, 34, 34, 34, 33, 33, 33, 33, 32, 31, 31, 31, 31, 31, 30, 30,
            30, 29, 29, 29, 29, 29, 29, 29, 28, 27, 26, 26, 25, 25, 25, 24, 24, 24, 24, 24,
            24, 23, 23, 22, 22, 22, 21, 21, 21, 20, 19, 19, 18, 17, 17, 17, 16, 15, 14, 14,
            14, 14, 13, 13, 13, 13, 13, 12, 11, 10, 9, 9, 9, 8, 8, 8, 8, 7, 6, 5,
            4, 4, 4, 3, 3, 2, 2, 1, 1, 0,
        ],
        # specificities * 72
        [
            0, 1, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 14,
            15, 16, 17, 18, 18, 18, 19, 20, 20, 21, 23, 24, 24, 25, 26, 27, 28, 29, 29, 30,
            31, 31, 32, 33, 34, 35, 36, 37, 37, 37, 37, 38, 38, 39, 40, 40, 41, 42, 43, 44,
            45, 45, 46, 47, 48, 49, 49, 50, 51, 51, 51, 52, 52, 52, 53, 54, 55, 55, 55, 56,
            57, 58, 58, 59, 60, 61, 62, 62, 62, 62, 62, 63, 64, 64, 65, 66, 67, 67, 67, 67,
            67, 68, 69, 69, 70, 70, 71, 71, 72, 72,
        ],
    ),
    "s100b": (
        # thresholds
        [
            -INF, 0.035, 0.045, 0.055, 0.065, 0.07500000000000001,
            0.08499999999999999, 0.095, 0.10500000000000001, 0.11499999999999999, 0.125, 0.135,
            0.14500000000000002, 0.155, 0.165, 0.175, 0.185, 0.20500000000000002,
            0.225, 0.235, 0.245, 0.255, 0.265, 0.275,
            0.29000000000000004, 0.31, 0.325, 0.335, 0.345, 0.365,
            0.395, 0.42, 0.435, 0.445, 0.455, 0.46499999999999997,
            0.475, 0.485, 0.495, 0.51, 0.54, 0.5700000000000001,
            0.6399999999999999, 0.705, 0.725, 0.755, 0.7949999999999999, 0.84,
            0.9099999999999999, 1.515, INF,
        ],
        # sensitivities * 41
        [
            41, 40, 40, 40, 40, 37, 36, 34, 32, 31, 30, 28, 27, 27, 26, 26, 26, 26, 25, 24,
            24, 23, 22, 21, 21, 20, 19, 18, 18, 17, 17, 16, 16, 14, 14, 14, 14, 13, 12, 12,
            11, 10, 9, 8, 6, 5, 4, 3, 2, 1, 0,
        ],
        # specificities * 72
        [
            0, 0, 5, 8, 10, 16, 22, 28, 35, 39, 39, 42, 46, 50, 53, 55, 56, 58, 58, 58,
            59, 59, 59, 59, 60, 60, 61, 62, 63, 63, 64, 64, 65, 65, 66, 67, 69, 70, 70, 72,
            72, 72, 72, 72, 72, 72, 72, 72, 72, 72, 72,
        ],
    ),
}
PROC_AUC = {
    "wfns": 0.823678861788618,  # test-auc.R "full auc works"
    "ndka": 0.611957994579946,  # test-auc.R "full auc works"
    "s100b": 0.7313685636856369,  # helper-roc-expected.R (printed 0.7314, print_output/r.s100b)
}


@pytest.mark.parametrize("marker", sorted(PROC_AUC))
def test_roc_auc(marker: str) -> None:
    assert fastrank.roc_auc(Y, MARKERS[marker]) == close(PROC_AUC[marker])


@pytest.mark.parametrize("marker", sorted(PROC_ROC))
def test_roc_curve_points(marker: str) -> None:
    """pROC lists every cutoff from -Inf up; fastrank from inf down: the same points
    reversed, with each pair of thresholds flagging the same samples."""
    thresholds, tp, tn = PROC_ROC[marker]
    scores = MARKERS[marker]
    fpr, tpr, thr = fastrank.roc_curve(Y, scores, drop_intermediate=False)
    assert len(thr) == len(thresholds)
    np.testing.assert_allclose(tpr, np.array(tp[::-1]) / N_CASES, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fpr, 1 - np.array(tn[::-1]) / N_CONTROLS, rtol=0, atol=1e-15)
    for mine, theirs in zip(thr, thresholds[::-1], strict=True):
        assert same_cut(scores, theirs, mine), (mine, theirs)


# helper-coords-expected.R expected.coords (coords(r.s100b, "all", ret = "all")), rows
# picked by test-coords.R "coords with arbitrary thresholds works" (0.205 -> row 18,
# 0.055 -> row 4), "coords with arbitrary thresholds at exact data point works" (0.05 ->
# row 3, 0.52 -> row 40) and "coords returns the correct basic values" (0.205: tp 26, fp
# 14, tn 58, fn 15): (threshold, tp, fp, tn, fn).
PROC_COORDS_AT = [
    (0.205, 26, 14, 58, 15),
    (0.055, 40, 64, 8, 1),
    (0.05, 40, 67, 5, 1),
    (0.52, 12, 0, 72, 29),
]
# helper-coords-expected.R expected.coords.reverse: direction ">" (cases score lower,
# "case when score <= threshold"), at the thresholds of test-coords.R "coords with
# arbitrary thresholds works with direction=>". fastrank has no direction: it scores
# -s100b and reads the cutoff -t.
PROC_COORDS_REVERSED_AT = [
    (0.05, 1, 8, 64, 40),
    (0.055, 1, 8, 64, 40),
    (0.205, 15, 58, 14, 26),
    (0.52, 30, 72, 0, 11),
]


def counts_at(scores: np.ndarray, t: float) -> tuple[float, float, float, float]:
    """(tp, fp, tn, fn) of fastrank's cutoff flagging the samples scoring >= t."""
    tns, fps, fns, tps, thr = fastrank.confusion_matrix_at_thresholds(Y, scores)
    j = int(np.flatnonzero(thr >= t)[-1])
    assert same_cut(scores, t, thr[j])
    return tps[j], fps[j], tns[j], fns[j]


@pytest.mark.parametrize(("t", "tp", "fp", "tn", "fn"), PROC_COORDS_AT)
def test_coords_at_threshold(t: float, tp: int, fp: int, tn: int, fn: int) -> None:
    assert counts_at(MARKERS["s100b"], t) == (tp, fp, tn, fn)


@pytest.mark.parametrize(("t", "tp", "fp", "tn", "fn"), PROC_COORDS_REVERSED_AT)
def test_coords_at_threshold_direction_greater(t: float, tp: int, fp: int, tn: int,
                                               fn: int) -> None:
    assert counts_at(-MARKERS["s100b"], -t) == (tp, fp, tn, fn)


# -- operating points: coords(input = "specificity" / "sensitivity") ------------------------

GRID = [i * 0.1 for i in range(11)]  # R's seq(0, 1, .1): from + i * by
# test-coords.R "coords with specificity works": coords(r.s100b, seq(0, 1, .1),
# input = "specificity") -> sensitivity, and the threshold (NA where interpolated).
PROC_SE_AT_SP = [1, 0.975609756097561, 0.921951219512195, 0.879674796747967,
                 0.823693379790941, 0.774390243902439, 0.675609756097561, 0.655284552845528,
                 0.634146341463415, 0.390243902439024, 0.292682926829268]
PROC_THRESHOLD_AT_SP = {0: -INF, 10: 0.51}
# test-coords.R "coords with sensitivity works": input = "sensitivity" -> specificity.
PROC_SP_AT_SE = [1, 1, 1, 0.972222222222222, 0.888888888888889, 0.833333333333333,
                 0.805555555555556, 0.56875, 0.447222222222222, 0.230555555555556, 0]
PROC_THRESHOLD_AT_SE = {0: INF, 10: -INF}


@pytest.mark.parametrize("i", range(11))
def test_sensitivity_at_specificity(i: int) -> None:
    scores = MARKERS["s100b"]
    point = fastrank.sensitivity_at_specificity(Y, scores, GRID[i], interpolate=True)
    assert point.value == close(PROC_SE_AT_SP[i])
    if i in PROC_THRESHOLD_AT_SP:
        assert same_cut(scores, PROC_THRESHOLD_AT_SP[i], point.threshold)


@pytest.mark.parametrize("i", range(11))
def test_specificity_at_sensitivity(i: int) -> None:
    scores = MARKERS["s100b"]
    point = fastrank.specificity_at_sensitivity(Y, scores, GRID[i], interpolate=True)
    assert point.value == close(PROC_SP_AT_SE[i])
    if i == 10:
        assert same_cut(scores, PROC_THRESHOLD_AT_SE[i], point.threshold)


def test_specificity_at_sensitivity_zero_takes_the_most_sensitive_cutoff() -> None:
    """A documented difference: pROC's coords(r.s100b, 0, input = "sensitivity") returns
    the point whose sensitivity is exactly 0 (threshold Inf, flag nothing). fastrank
    returns, of the cutoffs with the best specificity (1) at sensitivity >= 0, the most
    sensitive one: the same specificity, with 12 of the 41 cases found."""
    scores = np.asarray(MARKERS["s100b"], np.float64)
    for interpolate in (False, True):
        point = fastrank.specificity_at_sensitivity(Y, scores, 0.0, interpolate=interpolate)
        assert point.value == 1.0 == close(PROC_SP_AT_SE[0])
        flagged = scores >= point.threshold
        assert not flagged[Y == 0].any() and int(flagged[Y == 1].sum()) == 12
    assert not same_cut(scores, PROC_THRESHOLD_AT_SE[0], point.threshold)


@pytest.mark.parametrize("interpolate", [False, True])
def test_flat_parts_of_the_curve(interpolate: bool) -> None:
    # test-coords.R "Coords pick the right end of 'flat' bits of the curve, according to
    # direction": coords(r.s100b, 0.975609756097561, "se", "sp") is 0.13888888888888889
    # "and not 0"; coords(r.s100b, 1, "sp", "se") is 0.2926829268292683 "and not 0".
    scores = MARKERS["s100b"]
    sp = fastrank.specificity_at_sensitivity(Y, scores, 0.975609756097561,
                                             interpolate=interpolate)
    se = fastrank.sensitivity_at_specificity(Y, scores, 1, interpolate=interpolate)
    assert sp.value == close(0.13888888888888889)
    assert se.value == close(0.2926829268292683)


# -- partial areas ---------------------------------------------------------------------------

# test-auc.R: "partial auc works on arbitrary intervals" (focus "sp"), "... with focus on
# SE" ("se"), "... with correction enabled", "... with focus on SE and correction
# enabled": (marker, focus, partial.auc, correct, auc(...)). The "direction is
# unspecified" cases (c(.9, 1) for c(1, .9)) are the same box.
PROC_PARTIAL_AUC = [
    ("wfns", "sp", (1, 0.9), False, 0.0334417344173442),
    ("wfns", "sp", (0.9, 0.8), False, 0.0598373983739837),
    ("wfns", "sp", (0.5, 0), False, 0.488134475939354),
    ("ndka", "sp", (1, 0.9), False, 0.0107046070460705),
    ("ndka", "sp", (0.9, 0.8), False, 0.0277777777777778),
    ("ndka", "sp", (0.5, 0), False, 0.416836043360434),
    ("wfns", "sp", (1, 0), False, 0.823678861788618),
    ("ndka", "sp", (1, 0), False, 0.611957994579946),
    ("wfns", "se", (1, 0.9), False, 0.0400999322493225),
    ("wfns", "se", (0.9, 0.8), False, 0.0609953703703703),
    ("wfns", "se", (0.5, 0), False, 0.483358739837398),
    ("ndka", "se", (1, 0.9), False, 0.0037940379403794),
    ("ndka", "se", (0.9, 0.8), False, 0.0242547425474255),
    ("ndka", "se", (0.5, 0), False, 0.428523035230352),
    ("wfns", "se", (1, 0), False, 0.823678861788618),
    ("ndka", "se", (1, 0), False, 0.611957994579946),
    ("wfns", "sp", (1, 0.9), True, 0.649693339038653),
    ("wfns", "sp", (0.9, 0.8), True, 0.763749402199904),
    ("wfns", "sp", (0.5, 0), True, 0.952537903757416),
    ("ndka", "sp", (1, 0.9), True, 0.530024247610897),
    ("ndka", "sp", (0.9, 0.8), True, 0.575163398692811),
    ("ndka", "sp", (0.5, 0), True, 0.667344173441734),
    ("wfns", "sp", (1, 0), True, 0.823678861788618),
    ("ndka", "sp", (1, 0), True, 0.611957994579946),
    ("wfns", "se", (1, 0.9), True, 0.68473648552275),
    ("wfns", "se", (0.9, 0.8), True, 0.770561002178649),
    ("wfns", "se", (0.5, 0), True, 0.933434959349593),
    ("ndka", "se", (0.9, 0.8), True, 0.554439662043679),
    ("ndka", "se", (0.5, 0), True, 0.714092140921409),
    ("wfns", "se", (1, 0), True, 0.823678861788618),
    ("ndka", "se", (1, 0), True, 0.611957994579946),
]
# print_output/r.s100b.partial1, r.s100b.partial2, r.wfns.partial1, r.ndka.partial1 (the
# helper-rocs.R curves r.*.partial1: partial.auc = c(0.9, 0.99); r.s100b.partial2 with
# focus "se"), printed to 4 significant digits.
PROC_PARTIAL_AUC_PRINTED = [
    ("s100b", "sp", (0.9, 0.99), 0.02983),
    ("s100b", "se", (0.9, 0.99), 0.01376),
    ("wfns", "sp", (0.9, 0.99), 0.03305),
    ("ndka", "sp", (0.9, 0.99), 0.01046),
]


def partial(marker: str, focus: str, bounds: tuple[float, float], correct: bool) -> float:
    lo, hi = min(bounds), max(bounds)
    box = {"fpr": (1 - hi, 1 - lo)} if focus == "sp" else {"tpr": (lo, hi)}
    value: float = fastrank.partial_roc_auc(Y, MARKERS[marker], correct=correct, **box)
    return value


@pytest.mark.parametrize(("marker", "focus", "bounds", "correct", "expected"),
                         PROC_PARTIAL_AUC)
def test_partial_roc_auc(marker: str, focus: str, bounds: tuple[float, float],
                         correct: bool, expected: float) -> None:
    assert partial(marker, focus, bounds, correct) == close(expected)


@pytest.mark.parametrize(("marker", "focus", "bounds", "expected"), PROC_PARTIAL_AUC_PRINTED)
def test_partial_roc_auc_printed(marker: str, focus: str, bounds: tuple[float, float],
                                 expected: float) -> None:
    assert partial(marker, focus, bounds, False) == pytest.approx(expected, rel=0, abs=5e-6)


def test_partial_roc_auc_correct_below_diagonal() -> None:
    # test-auc.R expects NA for ndka with partial.auc = c(1, .9), focus "se",
    # correct = TRUE: the raw area (0.0037940) is below the diagonal's (0.005).
    with pytest.warns(fastrank.UndefinedMetricWarning, match="below the chance diagonal"):
        value = partial("ndka", "se", (1, 0.9), True)
    assert math.isnan(value)


# -- best cutoff -----------------------------------------------------------------------------

# test-coords.R "coords with best threshold works": coords(r.s100b, "best") is the row of
# expected.coords with threshold 0.205 (row 18), whose youden (se + sp) is
# 1.4397018970189701 and closest.topleft 0.17165754143991302 (that column's minimum, the
# row best.method = "closest.topleft" picks).
PROC_BEST_THRESHOLD = 0.205
PROC_BEST_YOUDEN = 1.4397018970189701
PROC_BEST_CLOSEST_TOPLEFT = 0.17165754143991302


def test_best_cutoff_youden() -> None:
    scores = MARKERS["s100b"]
    point = fastrank.best_cutoff(Y, scores, "youden")
    assert point.value == close(PROC_BEST_YOUDEN - 1)
    assert same_cut(scores, PROC_BEST_THRESHOLD, point.threshold)


def test_best_cutoff_closest_topleft() -> None:
    scores = MARKERS["s100b"]
    point = fastrank.best_cutoff(Y, scores, "closest_topleft")
    assert point.value == close(-PROC_BEST_CLOSEST_TOPLEFT)
    assert same_cut(scores, PROC_BEST_THRESHOLD, point.threshold)


@pytest.mark.parametrize("criterion", ["youden", "closest_topleft"])
@pytest.mark.parametrize(("cost", "prevalence"),
                         [(1, 0.5), (2, 0.3), (0.5, 0.2), (3, 0.6), (1, 0.1), (1, 0.9)])
def test_best_cutoff_weights(criterion: str, cost: float, prevalence: float) -> None:
    """pROC's suite pins no best.weights result; this one is derived: pROC's criterion
    (R/roc.utils.R, roc_utils_optim_crit) on pROC's expected s100b points (PROC_ROC), best
    where it is largest, against ``best_cutoff(cost=, prevalence=)``."""
    thresholds, tp, tn = PROC_ROC["s100b"]
    se, sp = np.array(tp) / N_CASES, np.array(tn) / N_CONTROLS
    r = (1 - prevalence) / (cost * prevalence)
    crit = se + r * sp if criterion == "youden" else -((1 - se) ** 2 + r * (1 - sp) ** 2)
    best = np.flatnonzero(crit >= crit.max() - 1e-12)
    scores = MARKERS["s100b"]
    point = fastrank.best_cutoff(Y, scores, criterion, cost=cost, prevalence=prevalence)
    assert point.value == close(crit.max() - (criterion == "youden"))
    assert any(same_cut(scores, thresholds[i], point.threshold) for i in best)


# -- DeLong ----------------------------------------------------------------------------------

# test-var.R "var with delong works".
PROC_VAR = {"wfns": 0.00146991470882363, "ndka": 0.0031908105493913,
            "s100b": 0.00266868245717244}
# test-cov.R "cov with delong works".
PROC_COV = [("wfns", "ndka", -0.000532967856762438), ("ndka", "s100b", -0.000756164938056579),
            ("s100b", "wfns", 0.00119615567376754)]


@pytest.mark.parametrize("marker", sorted(PROC_VAR))
def test_delong_variance(marker: str) -> None:
    assert fastrank.roc_auc_ci(Y, MARKERS[marker]).variance == close(PROC_VAR[marker])


def test_delong_covariance() -> None:
    names = ["wfns", "ndka", "s100b"]
    aucs, cov = fastrank.delong_covariance(Y, [MARKERS[n] for n in names])
    for a, b, expected in PROC_COV:
        assert cov[names.index(a), names.index(b)] == close(expected)
    for i, n in enumerate(names):
        assert cov[i, i] == close(PROC_VAR[n])
        assert aucs[i] == close(PROC_AUC[n])


def test_ci_auc_delong() -> None:
    # test-ci.auc.R "ci.auc with delong works": expected.ci.auc for r.ndka.
    ci = fastrank.roc_auc_ci(Y, MARKERS["ndka"], level=0.95)
    assert (ci.low, ci.estimate, ci.high) == (close(0.501244999271703),
                                              close(0.611957994579946),
                                              close(0.722670989888189))


def test_ci_auc_delong_subset() -> None:
    # test-ci.auc.R "ci.auc works with a formula": ci.auc(outcome ~ ndka, data = aSAH,
    # subset = (gender == "Female")), pinned to 10 digits.
    ci = fastrank.roc_auc_ci(Y[FEMALE], MARKERS["ndka"][FEMALE])
    expected = (0.5261398281, 0.6671428571, 0.8081458862)
    assert (ci.low, ci.estimate, ci.high) == pytest.approx(expected, rel=0, abs=1e-10)


# test-roc.test.R "roc.test statistic and p are as expected with defaults": roc.test(a, b)
# (DeLong, paired): (a, b, Z, p, conf.int).
PROC_PAIRED = [
    ("wfns", "s100b", 2.20898359144091, 0.0271757822291882,
     (0.0104061769564846, 0.174214419249478)),
    ("wfns", "ndka", 2.79777591868904, 0.00514557970691098,
     (0.0634011709339876, 0.3600405634833566)),
    ("ndka", "s100b", -1.39077002573558, 0.164295175223054,
     (-0.2876917446341914, 0.0488706064228094)),
]
# "unpaired roc.test statistic and p are as expected": roc.test(a, b, paired = FALSE),
# the same samples taken as two studies: (a, b, D, p).
PROC_UNPAIRED = [
    ("wfns", "s100b", 1.43490640926908, 0.152825378808796),
    ("wfns", "ndka", 3.10125096778969, 0.00220950791756457),
    ("ndka", "s100b", -1.55995743389685, 0.120192832430845),
]


@pytest.mark.parametrize(("a", "b", "z", "p", "interval"), PROC_PAIRED)
def test_delong_paired(a: str, b: str, z: float, p: float,
                       interval: tuple[float, float]) -> None:
    t = fastrank.delong_test(Y, MARKERS[a], MARKERS[b])
    assert t.z == close(z)
    assert t.p_value == close(p, P_REL)
    assert (t.low, t.high) == (close(interval[0]), close(interval[1]))
    # "two.sided roc.test produces identical p values when roc curves are reversed"
    back = fastrank.delong_test(Y, MARKERS[b], MARKERS[a])
    assert back.z == close(-z)
    assert back.p_value == close(p, P_REL)


def test_delong_paired_identical() -> None:
    # "DeLong roc.test works when curves are identical": p 1, Z 0.
    t = fastrank.delong_test(Y, MARKERS["wfns"], MARKERS["wfns"])
    assert t.z == 0
    assert t.p_value == 1


@pytest.mark.parametrize(("a", "b", "d", "p"), PROC_UNPAIRED)
def test_delong_unpaired(a: str, b: str, d: float, p: float) -> None:
    t = fastrank.delong_test_unpaired(Y, MARKERS[a], Y, MARKERS[b])
    assert t.z == close(d)
    assert t.p_value == close(p, P_REL)


# -- numerical near-ties ----------------------------------------------------------------------

# test-numeric-accuracy.R: a predictor with near-ties (three distinct doubles within
# 2e-16 of each other); response 2 = case.
NUMACC_RESPONSE = [2, 1, 1, 2, 2, 1, 2, 2, 1, 1, 1, 2, 1, 2, 2, 2, 2, 2]
NUMACC_PREDICTOR = [
    0.960602681556147, 0.0794407386056549, 0.144842404246611,
    0.931816485855784, 0.931816485855784, 0.97764041048215, 0.653549466997938699464,
    0.796401132206396, 0.427720540184519, 0.811278021288732, 0.0188323116581187,
    0.653549466997938588442, 0.653549466997938477419, 0.959111701445925, 0.931816485855784,
    0.663663279418747, 0.800100838413179, 0.780456095511079,
]
NUMACC_AUC = float.fromhex("0x1.8ef606a63bd82p-1")


def test_auc_with_near_ties() -> None:
    # "AUC is consistent with numerical near-ties", "delong theta is consistent with auc".
    y = np.array(NUMACC_RESPONSE) == 2
    s = np.array(NUMACC_PREDICTOR)
    assert fastrank.roc_auc(y, s) == close(NUMACC_AUC)
    assert fastrank.roc_auc_ci(y, s).estimate == close(NUMACC_AUC)


HARD = [float.fromhex(h) for h in (
    "-0x1.fffffffffffffp+1023", "-0x1.ffffffffffffep+1023", "-0x1.ffffffffffffdp+1023",
    "-0x1.249ad2594c37fp+332", "-0x1.249ad2594c37ep+332", "-0x1.249ad2594c37dp+332",
    "-0x1.249ad2594c37cp+332", "-0x1.249ad2594c37bp+332", "-0x1.249ad2594c37ap+332",
    "-0x0.0000000000003p-1022", "-0x0.0000000000002p-1022", "-0x0.0000000000001p-1022",
    "-0x0p+0", "0x0p+0", "0x0.0000000000001p-1022", "0x0.0000000000002p-1022",
    "0x0.0000000000003p-1022", "0x1.249ad2594c37ap+332", "0x1.249ad2594c37bp+332",
    "0x1.249ad2594c37cp+332", "0x1.249ad2594c37dp+332", "0x1.249ad2594c37ep+332",
    "0x1.249ad2594c37fp+332", "0x1.ffffffffffffdp+1023", "0x1.ffffffffffffep+1023",
    "0x1.fffffffffffffp+1023",
)]
EASY = [-103, -102, -101, -10, -9, -8, -7, -6, -5, -0.1, -0.01, -0.001, 0,
        0, 0.001, 0.01, 0.1, 5, 6, 7, 8, 9, 10, 101, 102, 103]


@pytest.mark.parametrize("seed", range(5))
def test_extreme_scores_same_curve_as_easy_ones(seed: int) -> None:
    # test-numeric-accuracy.R "Hard predictor has same results as easy one": scores next
    # to -+max double, -+1e100 and -+0 (-0 and 0 tie) give the curve of a plain ranking;
    # pROC draws the response at random (rbinom), this test from fixed seeds.
    y = np.random.default_rng(seed).integers(0, 2, len(EASY))
    y[:2] = [0, 1]  # both classes
    hard = fastrank.roc_curve(y, np.array(HARD), drop_intermediate=False)
    easy = fastrank.roc_curve(y, np.array(EASY, dtype=np.float64), drop_intermediate=False)
    np.testing.assert_array_equal(hard[0], easy[0])
    np.testing.assert_array_equal(hard[1], easy[1])
    assert fastrank.roc_auc(y, np.array(HARD)) == fastrank.roc_auc(y, np.array(EASY, float))
