"""Bootstrap confidence intervals (spec of issue 5): ``fastrank.bootstrap_ci``
and ``fastrank.roc_auc_ci(method="bootstrap")``.

The random resamples cannot be reproduced outside fastrank, so the contract
is checked through what they imply:

* exact resampling distributions: on tiny data (3 positives, 3 negatives)
  every possible resample is enumerated with its multinomial probability and
  its metric computed by the exact oracles of tests/oracles.py (Fractions,
  resample multiplicities as integer weights). With ``n_resamples`` chosen
  so that the percentile positions are integers (no interpolation), each
  bound must be a value of that distribution lying at the right quantile (up
  to Monte Carlo noise), and ``se`` must match the distribution's standard
  deviation within a few Monte Carlo errors. Stratified and non-stratified
  resampling have different distributions, so each is told apart, and the
  number of resamples that lose a class (non-stratified) is binomial;
* degenerate data whose every resample has a known value (perfect
  separation, all scores tied);
* statistical agreement with the DeLong interval and with a bootstrap written
  here in numpy, for n = 2000 and 2000 resamples;
* seeds (reproducible, thread-count independent, different seeds differ),
  2-D per-task results equal to 1-D calls, progress on stderr, bad input.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import sys
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import fastrank
from fastrank import UndefinedMetricWarning

sys.path.insert(0, str(Path(__file__).parent))
import oracles
from batch_helpers import call, quiet
from strategies import PROPERTY_SETTINGS, cases

PROPERTIES = settings(PROPERTY_SETTINGS, max_examples=30)

METRICS = {
    "roc_auc": fastrank.roc_auc,
    "average_precision": fastrank.average_precision,
    "pr_auc": fastrank.pr_auc,
    "prbe": fastrank.prbe,
    "d_prime": fastrank.d_prime,
}
BOUNDED = ("roc_auc", "average_precision", "pr_auc", "prbe")  # values in [0, 1]
FIELDS = ("estimate", "low", "high", "level", "se", "variance")

# Exact oracles of one resample: (y01, scores, integer weights) -> value.
EXACT = {
    "roc_auc": lambda y, s, w: oracles.roc_auc_pairwise(y, s, w),
    "average_precision": lambda y, s, w: oracles.average_precision(y, s, w),
    "prbe": lambda y, s, w: oracles.prbe(y, s, w)[0],
    "pr_auc": lambda y, s, w: oracles.pr_auc_quadrature(y, s, w),
}


# =========================================================================== helpers


def gaussian(
    n_pos: int, n_neg: int, seed: int, shift: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    s = np.r_[rng.normal(shift, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)]
    perm = rng.permutation(y.shape[0])
    return y[perm], s[perm]


def same_interval(a: Any, b: Any) -> None:
    """Every field equal (bit for bit; NaN == NaN), floats or arrays."""
    for f in dataclasses.fields(a):
        va, vb = getattr(a, f.name), getattr(b, f.name)
        if isinstance(va, str) or isinstance(vb, str):
            assert va == vb, f.name
        else:
            np.testing.assert_array_equal(np.asarray(va), np.asarray(vb), err_msg=f.name)


def boot(metric: Any, y: Any, s: Any, **kw: Any) -> Any:
    """bootstrap_ci that fails on any warning (pytest turns warnings into errors)."""
    return fastrank.bootstrap_ci(metric, y, s, **kw)


def compositions(k: int) -> list[tuple[np.ndarray, Fraction]]:
    """Every count vector of k draws with replacement from k items, with its probability."""
    out = []
    for multiset in itertools.combinations_with_replacement(range(k), k):
        c = np.bincount(multiset, minlength=k)
        ways = math.factorial(k)
        for ci in c:
            ways //= math.factorial(int(ci))
        out.append((c, Fraction(ways, k**k)))
    return out


def exact_distribution(
    y01: list[int], s: list[Any], metric: str, *, stratified: bool, w: list[Any] | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """(values, probabilities, P(undefined)) of the metric of one bootstrap resample.

    Non-stratified: draws of all samples; undefined resamples (a class missing)
    are dropped and the rest renormalised.
    """
    w = [1] * len(y01) if w is None else w
    f = EXACT[metric]
    pos = [i for i, v in enumerate(y01) if v]
    neg = [i for i, v in enumerate(y01) if not v]
    draws = []
    if stratified:
        for cp, pp in compositions(len(pos)):
            for cn, pn in compositions(len(neg)):
                counts = np.zeros(len(y01), int)
                counts[pos], counts[neg] = cp, cn
                draws.append((counts, pp * pn))
    else:
        draws = compositions(len(y01))
    values, probs, undefined = [], [], Fraction(0)
    for counts, p in draws:
        weights = [int(c) * Fraction(wi) for c, wi in zip(counts, w, strict=True)]
        v = f(y01, s, weights)
        if isinstance(v, float) and math.isnan(v):
            undefined += p
            continue
        values.append(float(v))
        probs.append(p)
    total = sum(probs, Fraction(0))
    return np.array(values), np.array([float(p / total) for p in probs]), float(undefined)


def plausible_order_statistics(
    values: np.ndarray, probs: np.ndarray, q: float, n_resamples: int
) -> np.ndarray:
    """Support values that the q-quantile order statistic of n_resamples draws may take.

    Value u_k (sorted support) spans the CDF interval [F(u_k-), F(u_k)]; the
    order statistic lands on it when q is within Monte Carlo noise of that
    interval (6 standard deviations of the empirical CDF, plus one draw).
    """
    support, inverse = np.unique(np.round(values, 12), return_inverse=True)
    mass = np.bincount(inverse, weights=probs)
    upper = np.cumsum(mass)
    lower = upper - mass
    delta = 6 * math.sqrt(max(q * (1 - q), 1e-4) / n_resamples) + 1 / n_resamples
    keep = (lower - delta <= q) & (q <= upper + delta)
    return support[keep]


def assert_matches_distribution(
    got: Any,
    values: np.ndarray,
    probs: np.ndarray,
    n_resamples: int,
    level: float,
    *,
    interpolated: bool = False,
) -> None:
    """Bounds at the right order statistics; se within Monte Carlo error of the true sd.

    ``interpolated=False``: the percentile positions are integers, so each bound
    is one resample's value, a support value. Otherwise (the number of kept
    resamples is random) a bound may interpolate between two neighbouring
    order statistics: it must lie within the range of plausible values.
    """
    q_lo, q_hi = (1 - level) / 2, (1 + level) / 2
    for bound, q in ((got.low, q_lo), (got.high, q_hi)):
        allowed = plausible_order_statistics(values, probs, q, n_resamples)
        if interpolated:
            assert allowed.min() - 1e-9 <= bound <= allowed.max() + 1e-9, (bound, q, allowed)
        else:
            assert np.min(np.abs(allowed - bound)) <= 1e-9, (bound, q, allowed)
    mean = float(probs @ values)
    var = float(probs @ (values - mean) ** 2)
    sd = math.sqrt(var)
    if sd == 0:
        assert got.se == 0.0
        return
    kurt = float(probs @ (values - mean) ** 4) / var**2
    rel_err = math.sqrt(max(kurt - 1, 0.0) / (4 * n_resamples))  # sd of the sample sd / sd
    assert abs(got.se - sd) <= 6 * rel_err * sd + 1e-12, (got.se, sd, rel_err)


def numpy_bootstrap_counts(rng: np.random.Generator, y: np.ndarray, n_resamples: int) -> np.ndarray:
    """Stratified resample multiplicities: (n_resamples, n_samples)."""
    counts = np.zeros((n_resamples, y.shape[0]))
    for label in (0, 1):
        idx = np.flatnonzero(y == label)
        k = idx.shape[0]
        counts[:, idx] = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples)
    return counts


def numpy_auc_of_counts(y: np.ndarray, s: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC of each resample: c_pos^T psi c_neg / (m n)."""
    pos, neg = y == 1, y == 0
    psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
    cp, cn = counts[:, pos], counts[:, neg]
    return np.einsum("bi,bi->b", cp @ psi, cn) / (cp.sum(1) * cn.sum(1))


def numpy_ap_of_counts(y: np.ndarray, s: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """AP of each resample: sum over positives' cutoffs of dTP/P * precision (scores distinct)."""
    assert np.unique(s).shape[0] == s.shape[0]  # repeats of one sample are its only ties
    order = np.argsort(-s, kind="stable")
    c = counts[:, order]
    yy = y[order]
    cp = c * yy
    tp = np.cumsum(cp, axis=1)
    fp = np.cumsum(c * (1 - yy), axis=1)
    prec = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
    return (cp * prec).sum(1) / cp.sum(1)


# =========================================================================== basics


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("weighted", [False, True])
def test_estimate_is_the_metric_and_bounds_are_ordered(metric, weighted):
    y, s = gaussian(60, 90, 1)
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.shape[0]) if weighted else None
    got = boot(metric, y, s, n_resamples=300, seed=3, sample_weight=w)
    assert got.estimate == METRICS[metric](y, s, sample_weight=w)  # exactly
    assert isinstance(got, fastrank.Interval)
    for name in FIELDS:
        assert type(getattr(got, name)) is float, name
    assert got.method == "bootstrap"
    assert math.isnan(got.variance)
    assert got.n_resamples == 300
    assert got.level == 0.95
    assert got.low <= got.high
    assert got.se > 0
    if metric in BOUNDED:
        assert 0.0 <= got.low <= got.high <= 1.0
    if metric == "roc_auc":
        assert got.low <= got.estimate <= got.high


@pytest.mark.parametrize("metric", list(METRICS))
def test_metric_names_equal_functions(metric):
    y, s = gaussian(40, 50, 4)
    a = boot(metric, y, s, n_resamples=200, seed=9)
    b = boot(METRICS[metric], y, s, n_resamples=200, seed=9)
    same_interval(a, b)


@pytest.mark.parametrize("stratified", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_roc_auc_ci_bootstrap_is_bootstrap_ci_of_roc_auc(stratified, weighted):
    y, s = gaussian(30, 45, 5)
    s = np.round(s, 1)
    w = np.random.default_rng(6).integers(1, 4, y.shape[0]) if weighted else None
    kw = dict(n_resamples=250, seed=17, stratified=stratified, sample_weight=w, level=0.9)
    a = fastrank.roc_auc_ci(y, s, method="bootstrap", **kw)
    b = fastrank.bootstrap_ci(fastrank.roc_auc, y, s, **kw)
    same_interval(a, b)
    assert a.method == "bootstrap" and a.n_resamples == 250 and a.level == 0.9


def test_level_changes_the_percentiles_only():
    """Same seed: a lower level gives a nested interval and the same se."""
    y, s = gaussian(50, 50, 7)
    wide = boot("roc_auc", y, s, n_resamples=401, seed=1, level=0.99)
    narrow = boot("roc_auc", y, s, n_resamples=401, seed=1, level=0.5)
    assert wide.low <= narrow.low <= narrow.high <= wide.high
    assert wide.se == narrow.se and wide.estimate == narrow.estimate


# =========================================================================== seeds


def test_equal_seeds_give_equal_intervals():
    y, s = gaussian(80, 70, 8)
    for metric in ("roc_auc", "average_precision"):
        same_interval(
            boot(metric, y, s, n_resamples=300, seed=123),
            boot(metric, y, s, n_resamples=300, seed=123),
        )


def test_different_seeds_differ():
    y, s = gaussian(80, 70, 8)
    a = boot("roc_auc", y, s, n_resamples=300, seed=1)
    b = boot("roc_auc", y, s, n_resamples=300, seed=2)
    assert a.estimate == b.estimate
    assert (a.low, a.high, a.se) != (b.low, b.high, b.se)
    assert a.se != b.se


def test_no_seed_draws_a_fresh_one():
    y, s = gaussian(80, 70, 8)
    a = boot("roc_auc", y, s, n_resamples=300)
    b = boot("roc_auc", y, s, n_resamples=300)
    assert a.se != b.se


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 Numba threads")
@pytest.mark.parametrize("stratified", [True, False])
def test_thread_count_does_not_change_results(stratified):
    y, s = gaussian(400, 600, 10)
    s = np.round(s, 2)
    original = numba.get_num_threads()
    try:
        results = {}
        for threads in (1, 2):
            numba.set_num_threads(threads)
            results[threads] = [
                boot(m, y, s, n_resamples=500, seed=77, stratified=stratified)
                for m in ("roc_auc", "average_precision")
            ]
    finally:
        numba.set_num_threads(original)
    for a, b in zip(results[1], results[2], strict=True):
        same_interval(a, b)


# =========================================================================== exact distributions

# 3 positives and 3 negatives, interleaved: the resampled AUC takes the values k/9.
TINY_Y = [1, 0, 1, 0, 1, 0]
TINY_S = [1.0, 2.0, 3.0, 4.0, 5.0, 0.0]
B_EXACT = 20_001  # (B - 1) * 0.025 and (B - 1) * 0.05 are integers: no interpolation


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "prbe", "pr_auc"])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_stratified_bounds_and_se_follow_the_exact_distribution(metric, level):
    values, probs, undefined = exact_distribution(TINY_Y, TINY_S, metric, stratified=True)
    assert undefined == 0.0
    got = boot(metric, np.array(TINY_Y), np.array(TINY_S), n_resamples=B_EXACT, seed=5, level=level)
    assert got.estimate == METRICS[metric](np.array(TINY_Y), np.array(TINY_S))
    assert_matches_distribution(got, values, probs, B_EXACT, level)


def test_stratified_and_unstratified_distributions_are_told_apart():
    """The design check: the two resampling schemes have clearly different sds."""
    v1, p1, _ = exact_distribution(TINY_Y, TINY_S, "roc_auc", stratified=True)
    v2, p2, _ = exact_distribution(TINY_Y, TINY_S, "roc_auc", stratified=False)
    sd1 = math.sqrt(p1 @ (v1 - p1 @ v1) ** 2)
    sd2 = math.sqrt(p2 @ (v2 - p2 @ v2) ** 2)
    assert abs(sd1 - sd2) / sd1 > 0.08  # > 10 Monte Carlo errors at 20,001 resamples


def test_unstratified_auc_follows_the_exact_distribution_and_counts_lost_resamples():
    values, probs, undefined = exact_distribution(TINY_Y, TINY_S, "roc_auc", stratified=False)
    assert undefined == pytest.approx(1 / 32)  # all 6 draws from one class
    got, rec = call(
        fastrank.bootstrap_ci,
        "roc_auc",
        np.array(TINY_Y),
        np.array(TINY_S),
        n_resamples=B_EXACT,
        seed=8,
        stratified=False,
    )
    assert len(rec) == 1, [str(w.message) for w in rec]
    expected = B_EXACT * undefined
    sd = math.sqrt(B_EXACT * undefined * (1 - undefined))
    numbers = [int(v) for v in re.findall(r"\d+", str(rec[0].message))]
    assert any(abs(k - expected) <= 6 * sd for k in numbers), (str(rec[0].message), expected)
    # The bounds lie at order statistics of the resamples *kept*; their count K is
    # close to B (1 - 1/32), so use it for the Monte Carlo allowance.
    kept = round(B_EXACT * (1 - undefined))
    assert_matches_distribution(got, values, probs, kept, 0.95, interpolated=True)


def test_weighted_stratified_resamples_multiply_weights():
    w = [1.0, 3.0, 0.5, 2.0, 2.5, 1.0]
    values, probs, _ = exact_distribution(TINY_Y, TINY_S, "roc_auc", stratified=True, w=w)
    got = boot(
        "roc_auc",
        np.array(TINY_Y),
        np.array(TINY_S),
        n_resamples=B_EXACT,
        seed=6,
        sample_weight=np.array(w),
    )
    assert got.estimate == fastrank.roc_auc(np.array(TINY_Y), np.array(TINY_S), sample_weight=w)
    assert_matches_distribution(got, values, probs, B_EXACT, 0.95)
    # the unweighted distribution is a different one
    v0, p0, _ = exact_distribution(TINY_Y, TINY_S, "roc_auc", stratified=True)
    assert (
        abs(math.sqrt(p0 @ (v0 - p0 @ v0) ** 2) - math.sqrt(probs @ (values - probs @ values) ** 2))
        > 0.01
    )


def test_scaling_weights_by_a_power_of_two_changes_nothing():
    y, s = gaussian(40, 60, 11)
    w = np.random.default_rng(12).uniform(0.1, 3.0, y.shape[0])
    for metric in ("roc_auc", "average_precision", "prbe"):
        a = boot(metric, y, s, n_resamples=200, seed=4, sample_weight=w)
        b = boot(metric, y, s, n_resamples=200, seed=4, sample_weight=w * 4.0)
        for name in ("estimate", "low", "high", "se"):
            assert getattr(a, name) == pytest.approx(getattr(b, name), abs=1e-12), (metric, name)


# =========================================================================== degenerate data


@pytest.mark.parametrize("metric", BOUNDED)
def test_perfect_separation_stratified_is_one_everywhere(metric):
    y = np.array([1] * 6 + [0] * 9)
    s = np.r_[np.linspace(2, 3, 6), np.linspace(0, 1, 9)]
    got, rec = call(fastrank.bootstrap_ci, metric, y, s, n_resamples=500, seed=2)
    assert rec == []
    assert (got.estimate, got.low, got.high, got.se) == (1.0, 1.0, 1.0, 0.0)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_perfect_separation_unstratified_leaves_out_lost_classes(metric):
    """One positive among 6: (5/6)^6 of the resamples have no positive (undefined for
    both metrics), (1/6)^6 no negative (undefined for AUC only). Kept ones are all 1."""
    y = np.array([1, 0, 0, 0, 0, 0])
    s = np.array([0.9, 0.1, 0.2, 0.3, 0.4, 0.5])
    n_res = 2000
    got, rec = call(
        fastrank.bootstrap_ci, metric, y, s, n_resamples=n_res, seed=3, stratified=False
    )
    assert len(rec) == 1, [str(w.message) for w in rec]
    p_lost = (5 / 6) ** 6 + ((1 / 6) ** 6 if metric == "roc_auc" else 0.0)
    expected, sd = n_res * p_lost, math.sqrt(n_res * p_lost * (1 - p_lost))
    numbers = [int(v) for v in re.findall(r"\d+", str(rec[0].message))]
    assert any(abs(k - expected) <= 6 * sd for k in numbers), (str(rec[0].message), expected)
    assert (got.low, got.high, got.se) == (1.0, 1.0, 0.0)
    assert got.estimate == 1.0


@pytest.mark.parametrize("stratified", [True, False])
def test_all_scores_tied_auc_is_one_half(stratified):
    y = np.array([1, 0] * 6 + [0, 0])
    s = np.full(y.shape[0], 0.25, dtype=np.float32)
    with warnings.catch_warnings():  # unstratified: a lost class is possible, if unlikely
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = boot("roc_auc", y, s, n_resamples=500, seed=1, stratified=stratified)
    assert (got.estimate, got.low, got.high, got.se) == (0.5, 0.5, 0.5, 0.0)


def test_all_scores_tied_stratified_ap_is_the_constant_prevalence():
    y = np.array([1, 0, 0] * 4 + [1])  # 5 positives, 8 negatives
    s = np.zeros(y.shape[0], dtype=np.int32)
    got = boot("average_precision", y, s, n_resamples=500, seed=1)
    prevalence = 5 / 13
    assert got.estimate == pytest.approx(prevalence, abs=1e-15)
    assert got.low == pytest.approx(prevalence, abs=1e-15)
    assert got.high == pytest.approx(prevalence, abs=1e-15)
    assert got.se <= 1e-15


def test_all_scores_tied_unstratified_ap_is_the_resample_prevalence():
    """AP of a tied resample = its prevalence K/12, K ~ Binomial(12, 5/12) given K >= 1."""
    y = np.array([1, 0] * 5 + [0, 0])
    s = np.ones(12)
    n_res = 4001  # integer percentile positions
    got, rec = call(
        fastrank.bootstrap_ci,
        "average_precision",
        y,
        s,
        n_resamples=n_res,
        seed=21,
        stratified=False,
    )
    assert len(rec) <= 1  # P(no positive) = (7/12)^12 = 0.16%: a few may be lost
    k = np.arange(1, 13)
    probs = stats.binom.pmf(k, 12, 5 / 12)
    probs /= probs.sum()
    values = k / 12
    if not rec:  # all 4001 kept: integer percentile positions, each bound a value K/12
        for bound in (got.low, got.high):
            assert abs(bound * 12 - round(bound * 12)) <= 1e-9
    assert_matches_distribution(got, values, probs, n_res, 0.95, interpolated=bool(rec))


# =========================================================================== statistics


def test_bootstrap_auc_agrees_with_delong_and_a_numpy_bootstrap():
    y, s = gaussian(1000, 1000, 31)
    n_res = 2000
    got = boot("roc_auc", y, s, n_resamples=n_res, seed=99)
    dl = fastrank.roc_auc_ci(y, s)
    counts = numpy_bootstrap_counts(np.random.default_rng(5), y, n_res)
    values = numpy_auc_of_counts(y, s, counts)
    mine_low, mine_high = np.percentile(values, [2.5, 97.5])
    mine_se = values.std(ddof=1)
    sigma = dl.se
    assert got.estimate == dl.estimate == fastrank.roc_auc(y, s)
    # se: Monte Carlo relative error ~1/sqrt(2B) = 1.6% each
    assert got.se == pytest.approx(mine_se, rel=0.10)
    assert got.se == pytest.approx(dl.se, rel=0.10)
    # widths (the spec says within 25%; they agree far better)
    width = got.high - got.low
    assert width == pytest.approx(dl.high - dl.low, rel=0.12)
    assert width == pytest.approx(mine_high - mine_low, rel=0.12)
    # endpoints: a percentile's Monte Carlo sd is ~0.06 sigma here
    assert abs(got.low - mine_low) <= 0.45 * sigma
    assert abs(got.high - mine_high) <= 0.45 * sigma
    assert abs(got.low - dl.low) <= 0.45 * sigma
    assert abs(got.high - dl.high) <= 0.45 * sigma
    # the bootstrap distribution is centred near the estimate
    assert abs((got.low + got.high) / 2 - got.estimate) <= 0.3 * sigma
    assert abs(values.mean() - got.estimate) <= 0.2 * sigma  # (the numpy oracle's own check)


def test_bootstrap_ap_agrees_with_a_numpy_bootstrap():
    y, s = gaussian(600, 1400, 32, shift=1.2)
    n_res = 2000
    got = boot("average_precision", y, s, n_resamples=n_res, seed=7)
    counts = numpy_bootstrap_counts(np.random.default_rng(8), y, n_res)
    values = numpy_ap_of_counts(y, s, counts)
    # the numpy AP itself is right: with unit counts it is the metric
    ones = numpy_ap_of_counts(y, s, np.ones((1, y.shape[0])))[0]
    assert ones == pytest.approx(fastrank.average_precision(y, s), abs=1e-12)
    assert ones == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)
    lo, hi = np.percentile(values, [2.5, 97.5])
    sigma = values.std(ddof=1)
    assert got.se == pytest.approx(sigma, rel=0.10)
    assert abs(got.low - lo) <= 0.45 * sigma
    assert abs(got.high - hi) <= 0.45 * sigma


def test_numpy_auc_oracle_is_the_metric_on_unit_counts():
    y, s = gaussian(50, 70, 33)
    s = np.round(s, 1)
    assert numpy_auc_of_counts(y, s, np.ones((1, y.shape[0])))[0] == pytest.approx(
        fastrank.roc_auc(y, s), abs=1e-15
    )


# =========================================================================== property


@PROPERTIES
@given(
    case=cases(
        min_size=4,
        max_size=20,
        weight_kinds=("none",),
        dtypes=("float64", "float32", "int64", "int8", "bool"),
    ),
    seed=st.integers(0, 2**31 - 1),
)
def test_property_auc_bounds_between_extreme_resamples(case, seed):
    """Every stratified resample's AUC lies between psi(worst positive, best negative)
    and psi(best positive, worst negative); AP values lie in (0, 1]."""
    y01 = np.array(case.y01)
    s = np.array(case.scores, dtype=object)
    assume(y01.sum() >= 1 and (1 - y01).sum() >= 1)
    got, rec = call(
        fastrank.bootstrap_ci,
        "roc_auc",
        case.y_true,
        case.y_score,
        n_resamples=40,
        seed=seed,
        pos_label=case.pos_label,
    )
    assert rec == []
    assert got.estimate == fastrank.roc_auc(case.y_true, case.y_score, pos_label=case.pos_label)
    pos, neg = list(s[y01 == 1]), list(s[y01 == 0])

    def psi(a: Any, b: Any) -> float:
        return 1.0 if a > b else 0.5 if a == b else 0.0

    lowest = psi(min(pos), max(neg))
    highest = psi(max(pos), min(neg))
    assert lowest <= got.low <= got.high <= highest
    assert got.se >= 0
    again = fastrank.bootstrap_ci(
        "roc_auc", case.y_true, case.y_score, n_resamples=40, seed=seed, pos_label=case.pos_label
    )
    same_interval(got, again)
    ap = fastrank.bootstrap_ci(
        "average_precision",
        case.y_true,
        case.y_score,
        n_resamples=40,
        seed=seed,
        pos_label=case.pos_label,
    )
    assert 0.0 < ap.low <= ap.high <= 1.0
    assert ap.estimate == fastrank.average_precision(
        case.y_true, case.y_score, pos_label=case.pos_label
    )


# =========================================================================== 2-D


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "prbe"])
@pytest.mark.parametrize("stratified", [True, False])
def test_2d_per_task_equals_1d_call_with_same_seed(metric, stratified):
    rng = np.random.default_rng(41)
    n, tasks = 150, 3
    y = rng.integers(0, 2, (n, tasks))
    s = np.round(rng.normal(size=(n, tasks)) + y, 1)
    got = boot(metric, y, s, n_resamples=300, seed=13, stratified=stratified)
    singles = [
        boot(metric, y[:, j], s[:, j], n_resamples=300, seed=13, stratified=stratified)
        for j in range(tasks)
    ]
    for name in ("estimate", "low", "high", "se", "variance"):
        value = getattr(got, name)
        assert isinstance(value, np.ndarray) and value.dtype == np.float64, name
        assert value.shape == (tasks,), name
        np.testing.assert_array_equal(value, [getattr(r, name) for r in singles], err_msg=name)
    assert got.method == "bootstrap"


# =========================================================================== progress


def test_progress_goes_to_stderr_only(capfd):
    y, s = gaussian(30, 30, 51)
    capfd.readouterr()
    boot("roc_auc", y, s, n_resamples=200, seed=1, progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    assert err.strip() != ""


def test_no_progress_by_default(capfd):
    y, s = gaussian(30, 30, 51)
    capfd.readouterr()
    boot("roc_auc", y, s, n_resamples=200, seed=1)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# =========================================================================== bad input


Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4])


@pytest.mark.parametrize(
    "metric",
    ["accuracy", "roc_curve", "", "ROC_AUC_SCORE"],
)
def test_unknown_metric_names(metric):
    with pytest.raises(ValueError):
        fastrank.bootstrap_ci(metric, Y, S, n_resamples=10, seed=0)


@pytest.mark.parametrize(
    "metric",
    [
        skm.roc_auc_score,
        skm.average_precision_score,
        fastrank.roc_curve,
        fastrank.all_metrics,
        lambda y, s: 0.5,
    ],
    ids=["sklearn-roc", "sklearn-ap", "roc_curve", "all_metrics", "lambda"],
)
def test_unsupported_callables_name_the_supported_metrics(metric):
    with pytest.raises(ValueError) as info:
        fastrank.bootstrap_ci(metric, Y, S, n_resamples=10, seed=0)
    message = str(info.value)
    for name in METRICS:
        assert name in message, (name, message)


@pytest.mark.parametrize("metric", [None, 3, 1.5])
def test_metric_of_wrong_type(metric):
    with pytest.raises(ValueError):  # spec: anything else -> ValueError
        fastrank.bootstrap_ci(metric, Y, S, n_resamples=10, seed=0)


@pytest.mark.parametrize("n_resamples", [0, -5])
def test_n_resamples_must_be_positive(n_resamples):
    with pytest.raises(ValueError, match=r"n_resamples"):
        fastrank.bootstrap_ci("roc_auc", Y, S, n_resamples=n_resamples, seed=0)
    with pytest.raises(ValueError, match=r"n_resamples"):
        fastrank.roc_auc_ci(Y, S, method="bootstrap", n_resamples=n_resamples, seed=0)


@pytest.mark.parametrize("n_resamples", [2.5, True, "10", None])
def test_n_resamples_must_be_an_int(n_resamples):
    with pytest.raises((ValueError, TypeError), match=r"n_resamples"):
        fastrank.bootstrap_ci("roc_auc", Y, S, n_resamples=n_resamples, seed=0)


@pytest.mark.parametrize("level", [0, 1, 1.5, math.nan, -0.5])
def test_level_outside_open_unit_interval(level):
    with pytest.raises(ValueError, match=r"level"):
        fastrank.bootstrap_ci("roc_auc", Y, S, n_resamples=10, seed=0, level=level)


def test_bad_data_raises_the_single_task_errors():
    bad = [
        (Y, np.where(np.arange(6) == 2, np.inf, S)),
        (np.array([0, 1, 2, 1, 0, 2]), S),
        (Y[:4], S),
        (np.array([], dtype=int), np.array([])),
        (Y, np.array(list("abcdef"))),
    ]
    for yy, ss in bad:
        with pytest.raises((ValueError, TypeError)) as ref:
            fastrank.roc_auc(yy, ss)
        with pytest.raises(ref.type, match=re.escape(str(ref.value))):
            fastrank.bootstrap_ci("roc_auc", yy, ss, n_resamples=10, seed=0)
    with pytest.raises(ValueError, match=r"sample_weight"):
        fastrank.bootstrap_ci("roc_auc", Y, S, n_resamples=10, seed=0, sample_weight=-np.ones(6))


def test_one_class_data_is_undefined_with_one_warning():
    y = np.zeros(6, int)
    got, rec = call(fastrank.bootstrap_ci, "roc_auc", y, S, n_resamples=20, seed=0)
    assert len(rec) == 1, [str(w.message) for w in rec]
    assert math.isnan(got.estimate) and math.isnan(got.low) and math.isnan(got.high)
    assert quiet(fastrank.roc_auc, y, S) != quiet(fastrank.roc_auc, y, S)  # NaN


def test_d_prime_resamples_perfectly_separated_are_infinite_not_nan():
    """Resamples that separate the classes perfectly have d' = +inf: the upper
    percentile among them is +inf and the spread infinite (numpy's interpolation
    gave inf - inf = NaN for both, with no warning); finite intervals keep numpy's
    percentile bit for bit."""
    y = [0, 0, 1, 1, 0, 1, 1, 0, 1, 0]
    s = [.1, .4, .35, .8, .2, .9, .7, .5, .6, .3]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ci = fastrank.bootstrap_ci("d_prime", y, s, n_resamples=500, seed=0)
    assert ci.high == math.inf and ci.se == math.inf and math.isfinite(ci.low)
    auc = fastrank.bootstrap_ci("roc_auc", y, s, n_resamples=500, seed=0)
    assert auc.high == 1.0  # the same resamples: AUC 1
    from fastrank.uncertainty import _percentiles

    x = np.random.default_rng(0).random(101)
    assert _percentiles(x, (2.5, 97.5)) == tuple(np.percentile(x, [2.5, 97.5]).tolist())
    assert _percentiles(np.array([-np.inf, 1.0, 2.0, np.inf, np.inf]), (10.0, 90.0)) == \
        (-np.inf, np.inf)


def test_seeds_are_refused_outside_the_streams_range():
    """The resamples' streams take 64-bit seeds: a negative seed or one from 2**64
    wrapped silently onto another's interval (2**64 gave seed 0's); refused as
    compare_runs refuses a negative seed. The largest 64-bit seed still works."""
    y = [0, 0, 1, 1, 0, 1, 1, 0, 1, 0]
    s = [.1, .4, .35, .8, .2, .9, .7, .5, .6, .3]
    fastrank.bootstrap_ci("roc_auc", y, s, n_resamples=20, seed=2**64 - 1)
    for bad, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError),
                       (True, TypeError)):
        with pytest.raises(error, match="seed must be"):
            fastrank.bootstrap_ci("roc_auc", y, s, n_resamples=20, seed=bad)
