"""The interpolated PR area over a recall range, against pr_auc and quadrature.

The whole range must be ``pr_auc`` (its own closed form, in the sweep); ranges
must add up; and a fine trapezoid over the curve that
``interpolated_precision_recall_curve`` evaluates (a separate code path, the
precision at each recall) must agree to the grid's accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastrank


def _case(n, seed, decimals=1, weighted=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(y + rng.normal(size=n), decimals)
    w = rng.integers(1, 5, n).astype(np.float64) if weighted else None
    return y, s, w


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("decimals", [0, 1, 3])
def test_whole_range_is_pr_auc(weighted, decimals) -> None:
    for seed in range(10):
        y, s, w = _case(500, seed, decimals, weighted)
        assert math.isclose(fastrank.partial_pr_auc(y, s, sample_weight=w),
                            fastrank.pr_auc(y, s, sample_weight=w), rel_tol=1e-12)


def test_ranges_add_up() -> None:
    rng = np.random.default_rng(1)
    for seed in range(10):
        y, s, _ = _case(300, seed)
        a, b = np.sort(rng.random(2))
        whole = fastrank.partial_pr_auc(y, s, recall=(0, b))
        parts = (fastrank.partial_pr_auc(y, s, recall=(0, a))
                 + fastrank.partial_pr_auc(y, s, recall=(a, b)))
        assert math.isclose(whole, parts, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize(("lo", "hi"), [(0.0, 0.3), (0.25, 0.75), (0.9, 1.0)])
def test_against_a_fine_trapezoid(lo, hi) -> None:
    y, s, _ = _case(60, 7, decimals=1)
    grid = np.linspace(lo, hi, 200_001)
    p, _ = fastrank.interpolated_precision_recall_curve(y, s, recall=grid)
    want = float(np.sum((p[1:] + p[:-1]) * np.diff(grid)) / 2)
    # The curve jumps where a group holds no positives: the trapezoid errs there by
    # at most the jump times one grid step.
    assert fastrank.partial_pr_auc(y, s, recall=(lo, hi)) == pytest.approx(want, abs=1e-5)


def test_perfect_ranking_and_bounds() -> None:
    y = np.array([1] * 10 + [0] * 30)
    s = -np.arange(40.0)
    assert fastrank.partial_pr_auc(y, s, recall=(0.2, 0.7)) == pytest.approx(0.5, rel=1e-15)
    y2, s2, _ = _case(200, 3)
    for lo, hi in ((0, .5), (.3, .9)):
        assert 0.0 <= fastrank.partial_pr_auc(y2, s2, recall=(lo, hi)) <= hi - lo


def test_errors_and_undefined() -> None:
    with pytest.raises(ValueError, match=r"recall must satisfy 0 <= low < high <= 1"):
        fastrank.partial_pr_auc([0, 1], [.1, .2], recall=(0.5, 0.2))
    with pytest.raises(ValueError, match="recall must be a pair"):
        fastrank.partial_pr_auc([0, 1], [.1, .2], recall=0.5)
    with pytest.warns(fastrank.UndefinedMetricWarning, match="no positive samples") as rec:
        assert math.isnan(fastrank.partial_pr_auc([0, 0], [.1, .2]))
    assert len(rec) == 1
