"""Slow, obviously correct reference implementations of every fastrank metric.

Each oracle follows the text of METRICS.md literally and shares no code with
fastrank. Counts, weights and areas are exact :class:`fractions.Fraction`
values wherever the definition allows (a float weight converts to a Fraction
exactly), so the only rounding left is the final conversion to float. The
PR AUC oracle instead integrates the interpolated precision numerically
(:func:`scipy.integrate.quad`), so it is an independent check of the closed
form fastrank evaluates.

Inputs: ``y`` is a sequence of 0/1 (1 = positive), ``s`` a sequence of real
scores (numpy scalars, Python numbers or bools), ``w`` an optional sequence of
non-negative finite weights. Inputs are meant to be tiny (tens of samples):
most oracles are O(n * K) or O(n^2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from scipy import integrate, stats

NAN = math.nan


class Cutoff(NamedTuple):
    """Cutoff ``k`` of METRICS.md: predict positive every score >= ``threshold``."""

    threshold: Any  # the score t_k as a Python number
    tp: Fraction  # TP_k
    fp: Fraction  # FP_k


def _py(value: Any) -> Any:
    """A numpy scalar (or Python number) as a plain Python int/float; bool -> int."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool):
        return int(value)
    return value


def samples(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> list[tuple[Any, int, Fraction]]:
    """``(score, label, weight)`` triples with exact weights; zero-weight samples dropped.

    Dropping them is what METRICS.md and scikit-learn prescribe: a zero-weight
    sample behaves exactly like a removed one (its score is no threshold).
    """
    assert len(y) == len(s)
    if w is None:
        w = [1] * len(y)
    assert len(w) == len(y)
    out = []
    for yi, si, wi in zip(y, s, w, strict=True):
        label = int(_py(yi))
        assert label in (0, 1)
        weight = Fraction(_py(wi))
        assert weight >= 0
        if weight == 0:
            continue
        out.append((_py(si), label, weight))
    return out


def cutoffs(y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None) -> list[Cutoff]:
    """TP_k and FP_k at every distinct score, highest score first (by brute force)."""
    data = samples(y, s, w)
    # Python compares -0.0 == 0.0, so a set merges them into one tie group.
    distinct = sorted({score for score, _, _ in data}, reverse=True)
    out = []
    for t in distinct:
        tp = sum((wi for si, yi, wi in data if yi == 1 and si >= t), Fraction(0))
        fp = sum((wi for si, yi, wi in data if yi == 0 and si >= t), Fraction(0))
        out.append(Cutoff(t, tp, fp))
    return out


def totals(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> tuple[Fraction, Fraction]:
    """``(P, N)``: the positive and negative weight totals."""
    data = samples(y, s, w)
    pos = sum((wi for _, yi, wi in data if yi == 1), Fraction(0))
    neg = sum((wi for _, yi, wi in data if yi == 0), Fraction(0))
    return pos, neg


# --------------------------------------------------------------------------- AUC


def roc_auc_pairwise(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> Fraction | float:
    """Mann-Whitney over positive-negative pairs.

    sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i == s_j] / 2) / (P N).
    """
    data = samples(y, s, w)
    pos = [(si, wi) for si, yi, wi in data if yi == 1]
    neg = [(si, wi) for si, yi, wi in data if yi == 0]
    p = sum((wi for _, wi in pos), Fraction(0))
    n = sum((wi for _, wi in neg), Fraction(0))
    if p == 0 or n == 0:
        return NAN
    total = Fraction(0)
    for si, wi in pos:
        for sj, wj in neg:
            if si > sj:
                total += wi * wj
            elif si == sj:
                total += wi * wj / 2
    return total / (p * n)


def roc_points(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> list[tuple[Fraction, Fraction]]:
    """The ROC polyline (FPR_k, TPR_k), k = 0..K, starting at (0, 0)."""
    cuts = cutoffs(y, s, w)
    p, n = cuts[-1].tp, cuts[-1].fp
    assert p > 0 and n > 0
    return [(Fraction(0), Fraction(0))] + [(c.fp / n, c.tp / p) for c in cuts]


def roc_auc_partial(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None, max_fpr: float
) -> Fraction | float:
    """Area under the ROC polyline for FPR in [0, m], then McClish-standardised.

    ``m == 1`` gives the plain full area (as scikit-learn does).
    """
    p, n = totals(y, s, w)
    if p == 0 or n == 0:
        return NAN
    m = Fraction(max_fpr)  # the exact value of the float
    assert 0 < m <= 1
    area = Fraction(0)
    pts = roc_points(y, s, w)
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        if x1 <= x0 or x0 >= m:
            continue  # vertical step (no area) or entirely right of m
        if x1 > m:  # cut the segment at FPR = m, interpolating TPR linearly
            y1 = y0 + (m - x0) / (x1 - x0) * (y1 - y0)
            x1 = m
        area += (x1 - x0) * (y0 + y1) / 2
    if m == 1:
        return area
    min_area = m * m / 2
    return (1 + (area - min_area) / (m - min_area)) / 2


def d_prime(y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None) -> float:
    """sqrt(2) * Phi^-1(AUC) with scipy's normal quantile."""
    auc = roc_auc_pairwise(y, s, w)
    if isinstance(auc, float) and math.isnan(auc):
        return NAN
    return math.sqrt(2.0) * float(stats.norm.ppf(float(auc)))


# ---------------------------------------------------------------------------- AP


def average_precision(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> Fraction | float:
    """sum_k (recall_k - recall_{k-1}) * precision_k, one cutoff per distinct score."""
    cuts = cutoffs(y, s, w)
    p = cuts[-1].tp if cuts else Fraction(0)
    if p == 0:
        return NAN
    ap = Fraction(0)
    prev_tp = Fraction(0)
    for c in cuts:
        if c.tp != prev_tp:  # a cutoff adding no positive adds no recall
            ap += (c.tp - prev_tp) / p * (c.tp / (c.tp + c.fp))
        prev_tp = c.tp
    return ap


def ap_of_order(labels: Sequence[int]) -> Fraction:
    """AP of a strict ranking: the mean over positives of the precision at each."""
    hits = 0
    total = Fraction(0)
    for rank, label in enumerate(labels, start=1):
        if label:
            hits += 1
            total += Fraction(hits, rank)
    assert hits > 0
    return total / hits


def _arrangements(labels: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct order of a tie group's labels.

    Each distinct arrangement of a multiset is produced by the same number
    (q! (m-q)!) of the m! permutations, so the uniform average over all
    permutations equals the uniform average over these. Choosing the
    positions of the positives enumerates them without the m! blow-up.
    """
    m = len(labels)
    q = sum(labels)
    out = []
    for where in itertools.combinations(range(m), q):
        chosen = set(where)
        out.append(tuple(1 if i in chosen else 0 for i in range(m)))
    return out


def expected_ap_brute_force(y: Sequence[Any], s: Sequence[Any]) -> Fraction | float:
    """Mean AP over every ordering inside each tie group (unweighted, tiny inputs)."""
    data = samples(y, s)
    if not any(label for _, label, _ in data):
        return NAN
    distinct = sorted({score for score, _, _ in data}, reverse=True)
    groups = [[label for score, label, _ in data if score == t] for t in distinct]
    choices = [_arrangements(g) for g in groups]
    count = 0
    total = Fraction(0)
    for combo in itertools.product(*choices):
        order = [label for group in combo for label in group]
        total += ap_of_order(order)
        count += 1
    return total / count


def expected_ap_permutations(y: Sequence[Any], s: Sequence[Any]) -> Fraction | float:
    """The same mean, literally over all m! permutations of every tie group (n <= ~8)."""
    data = samples(y, s)
    if not any(label for _, label, _ in data):
        return NAN
    distinct = sorted({score for score, _, _ in data}, reverse=True)
    groups = [[label for score, label, _ in data if score == t] for t in distinct]
    count = 0
    total = Fraction(0)
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        total += ap_of_order([label for group in combo for label in group])
        count += 1
    return total / count


def expected_ap_formula(y: Sequence[Any], s: Sequence[Any]) -> Fraction | float:
    """The closed form of METRICS.md, in exact arithmetic (for larger inputs)."""
    data = samples(y, s)
    distinct = sorted({score for score, _, _ in data}, reverse=True)
    total = Fraction(0)
    r0 = 0
    p0 = 0
    for t in distinct:
        labels = [label for score, label, _ in data if score == t]
        m = len(labels)
        q = sum(labels)
        if q:
            c = Fraction(q - 1, m - 1) if m > 1 else Fraction(0)
            inner = sum((Fraction(p0 + 1) + (j - 1) * c) / (r0 + j) for j in range(1, m + 1))
            total += Fraction(q, m) * inner
        r0 += m
        p0 += q
    if p0 == 0:
        return NAN
    return total / p0


# ------------------------------------------------------------------------ PR AUC


def pr_auc_quadrature(y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None) -> float:
    """Area under the Davis-Goadrich curve by numerical integration, segment by segment.

    Along segment k, TP = t runs from TP_{k-1} to TP_k while FP grows in
    proportion, so precision is t / (t + FP_{k-1} + h (t - TP_{k-1})) with
    h = dFP / dTP; the area is its integral over t, divided by P. From the
    origin (TP = FP = 0) the precision is the constant TP_k / (TP_k + FP_k).
    Segments with dTP = 0 are vertical drops with no area.
    """
    cuts = cutoffs(y, s, w)
    p = cuts[-1].tp if cuts else Fraction(0)
    if p == 0:
        return NAN
    area = 0.0
    tp0 = fp0 = Fraction(0)
    for c in cuts:
        dtp = c.tp - tp0
        dfp = c.fp - fp0
        if dtp > 0:
            if tp0 == 0 and fp0 == 0:
                area += float(dtp * c.tp / (c.tp + c.fp))
            else:
                h = float(dfp / dtp)
                a, f0 = float(tp0), float(fp0)

                def precision(t: float, a: float = a, f0: float = f0, h: float = h) -> float:
                    return t / (t + f0 + h * (t - a))

                value, _ = integrate.quad(
                    precision, a, float(c.tp), epsabs=1e-14, epsrel=1e-13, limit=200
                )
                area += value
        tp0, fp0 = c.tp, c.fp
    return area / float(p)


def interpolated_precision_at(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None, recalls: Sequence[float]
) -> list[float]:
    """Precision of the Davis-Goadrich curve at each recall (first point reaching it).

    At recall r > 0 (TP = r P): the first segment whose end reaches that TP,
    precision t / (t + FP_{k-1} + h (t - TP_{k-1})). At recall 0: the limit
    along the first segment that gains positives (0 when negatives come first).
    """
    cuts = cutoffs(y, s, w)
    p = cuts[-1].tp
    assert p > 0
    out = []
    for r in recalls:
        t = Fraction(r) * p
        tp0 = fp0 = Fraction(0)
        for c in cuts:
            if c.tp >= t and c.tp > tp0:
                if tp0 == 0 and fp0 == 0:
                    value = c.tp / (c.tp + c.fp)
                elif t == 0:
                    value = Fraction(0)
                else:
                    h = (c.fp - fp0) / (c.tp - tp0)
                    value = t / (t + fp0 + h * (t - tp0))
                out.append(float(value))
                break
            tp0, fp0 = c.tp, c.fp
        else:  # pragma: no cover - t <= P always reaches some cutoff
            raise AssertionError("recall beyond 1")
    return out


# -------------------------------------------------------------------------- PRBE


def prbe(
    y: Sequence[Any], s: Sequence[Any], w: Sequence[Any] | None = None
) -> tuple[Fraction | float, Any]:
    """Break-even point and its tie group's score, from the definition.

    Walk the interpolated curve: between cutoffs TP and the predicted mass
    TP + FP grow linearly together. Precision TP / (TP + FP) equals recall
    TP / P exactly where the mass is P; the break-even is the interpolated
    TP there, over P, and the threshold is the score of the group during
    which the mass reaches P (mass_{k-1} < P <= mass_k).
    """
    cuts = cutoffs(y, s, w)
    p = cuts[-1].tp if cuts else Fraction(0)
    if p == 0:
        return NAN, NAN
    tp0 = fp0 = Fraction(0)
    for c in cuts:
        mass0 = tp0 + fp0
        mass1 = c.tp + c.fp
        if mass0 < p <= mass1:
            frac = (p - mass0) / (mass1 - mass0)  # how far along the segment
            tp_star = tp0 + frac * (c.tp - tp0)
            fp_star = fp0 + frac * (c.fp - fp0)
            # The definition: precision tp/(tp+fp) equals recall tp/P here.
            assert tp_star / (tp_star + fp_star) == tp_star / p
            return tp_star / p, c.threshold
        tp0, fp0 = c.tp, c.fp
    raise AssertionError("the total mass P + N is never below P")  # pragma: no cover


def prbe_thresholds(
    y: Sequence[Any],
    s: Sequence[Any],
    w: Sequence[Any] | None = None,
    *,
    rel: Fraction = Fraction(0),
) -> list[Any]:
    """The break-even threshold, plus its neighbours wherever rounding may move it.

    With real weights the predicted mass can reach P exactly at the end of a
    tie group in exact arithmetic, yet just before or after it in float64
    (or the other way round): the break-even *value* is continuous there, its
    group is not. Every group whose end mass lies within ``rel * P`` of P is
    a candidate, together with the group after it.
    """
    _, threshold = prbe(y, s, w)
    allowed = [threshold]
    if rel:
        cuts = cutoffs(y, s, w)
        p = cuts[-1].tp
        for i, c in enumerate(cuts):
            if abs(c.tp + c.fp - p) <= rel * p:
                allowed.append(c.threshold)
                if i + 1 < len(cuts):
                    allowed.append(cuts[i + 1].threshold)
    return allowed


def r_precision(y: Sequence[int], s: Sequence[Any]) -> Fraction:
    """Precision among the top P samples of a ranking without ties (unweighted)."""
    order = sorted(range(len(y)), key=lambda i: _py(s[i]), reverse=True)
    p = sum(int(_py(v)) for v in y)
    return Fraction(sum(int(_py(y[i])) for i in order[:p]), p)


# ---------------------------------------------------------------- medium inputs
#
# The oracles above are O(n * K) or O(n^2) on per-sample lists. For inputs of
# tens of thousands of samples (which reach fastrank's hash-counting path and
# its chunked sweep) the same definitions are evaluated on a tie-group table
# built with numpy: exact for unweighted or integer-weighted input, each term
# an exact Fraction rounded once, summed with math.fsum (error ~1e-16).


class Groups(NamedTuple):
    """Distinct scores in decreasing order with their positive and negative totals."""

    scores: list[Any]
    pos: list[int]
    neg: list[int]


def group_table(y: Any, s: Any, w: Any = None) -> Groups:
    """The tie-group table by ``np.unique`` (integer weights only, zeros dropped)."""
    import numpy as np

    y = np.asarray(y).astype(np.int64)
    s = np.asarray(s)
    w = np.ones(s.shape[0], np.int64) if w is None else np.asarray(w)
    assert np.all(w == np.round(w)), "group_table needs integer weights"
    w = w.astype(np.int64)
    keep = w != 0
    values, inverse = np.unique(s[keep], return_inverse=True)  # -0.0 and 0.0 merge
    pos = np.bincount(inverse, weights=(w * y)[keep], minlength=values.shape[0])
    neg = np.bincount(inverse, weights=(w * (1 - y))[keep], minlength=values.shape[0])
    return Groups(values[::-1].tolist(), [int(v) for v in pos[::-1]], [int(v) for v in neg[::-1]])


def _cuts(g: Groups) -> list[Cutoff]:
    out = []
    tp = fp = 0
    for t, dp, dn in zip(g.scores, g.pos, g.neg, strict=True):
        tp += dp
        fp += dn
        out.append(Cutoff(t, Fraction(tp), Fraction(fp)))
    return out


def ap_groups(g: Groups) -> float:
    p = sum(g.pos)
    terms = []
    tp = fp = 0
    for dp, dn in zip(g.pos, g.neg, strict=True):
        tp += dp
        fp += dn
        if dp:
            terms.append(float(Fraction(dp * tp, p * (tp + fp))))
    return math.fsum(terms)


def auc_groups(g: Groups) -> float:
    """Mann-Whitney per tie group: each negative beats no positive above it, ties count 1/2."""
    p, n = sum(g.pos), sum(g.neg)
    above = 0
    twice_wins = 0
    for dp, dn in zip(g.pos, g.neg, strict=True):
        twice_wins += dn * (2 * above + dp)
        above += dp
    return float(Fraction(twice_wins, 2 * p * n))


def prbe_groups(g: Groups) -> tuple[float, Any]:
    cuts = _cuts(g)
    p = cuts[-1].tp
    tp0 = fp0 = Fraction(0)
    for c in cuts:
        if tp0 + fp0 < p <= c.tp + c.fp:
            frac = (p - tp0 - fp0) / (c.tp + c.fp - tp0 - fp0)
            return float((tp0 + frac * (c.tp - tp0)) / p), c.threshold
        tp0, fp0 = c.tp, c.fp
    raise AssertionError("unreachable")  # pragma: no cover


def expected_ap_groups(g: Groups) -> float:
    """METRICS.md's closed form (unweighted), each group's term exact then rounded."""
    p = sum(g.pos)
    terms = []
    r0 = p0 = 0
    for q, dn in zip(g.pos, g.neg, strict=True):
        m = q + dn
        if q:
            c = Fraction(q - 1, m - 1) if m > 1 else Fraction(0)
            inner = sum((Fraction(p0 + 1) + (j - 1) * c) / (r0 + j) for j in range(1, m + 1))
            terms.append(float(Fraction(q, m) * inner / p))
        r0 += m
        p0 += q
    return math.fsum(terms)


def pr_auc_quadrature_groups(g: Groups) -> float:
    """The quadrature oracle on a group table (one quad call per segment)."""
    p = sum(g.pos)
    parts = []
    tp0 = fp0 = 0
    for dp, dn in zip(g.pos, g.neg, strict=True):
        tp1, fp1 = tp0 + dp, fp0 + dn
        if dp:
            if tp0 == 0 and fp0 == 0:
                parts.append(dp * tp1 / (tp1 + fp1))
            else:
                h = dn / dp

                def precision(t: float, a: float = tp0, f0: float = fp0, h: float = h) -> float:
                    return t / (t + f0 + h * (t - a))

                value, _ = integrate.quad(
                    precision, tp0, tp1, epsabs=1e-14, epsrel=1e-13, limit=200
                )
                parts.append(value)
        tp0, fp0 = tp1, fp1
    return math.fsum(parts) / p


# ----------------------------------------------------------- batches of tasks
#
# Averages over several tasks (the columns of a label matrix, the classes of a
# multiclass problem, the groups of a grouped call), computed by hand.


def task_mean(
    values: Sequence[Any],
    positives: Sequence[Any],
    negatives: Sequence[Any],
    average: str,
) -> float | None:
    """The average of per-task ``values`` that are not NaN (the defined tasks).

    ``average``: "macro" (plain mean), "weighted" (by each task's positive
    total), "size" (by its positive + negative total) or "pairs" (by
    positives * negatives). Finite values and weights are combined exactly
    (Fractions) and rounded once. NaN when no task is defined; ``None`` when
    the defined tasks' weights sum to zero (no average is determined).
    """
    terms = []
    for v, p, n in zip(values, positives, negatives, strict=True):
        v = float(v)
        if math.isnan(v):
            continue
        p, n = Fraction(_py(p)), Fraction(_py(n))
        weight = {"macro": Fraction(1), "weighted": p, "size": p + n, "pairs": p * n}[average]
        terms.append((v, weight))
    if not terms:
        return NAN
    total = sum((w for _, w in terms), Fraction(0))
    if total == 0:
        return None
    infinite = {math.copysign(1.0, v) for v, w in terms if math.isinf(v) and w != 0}
    if infinite:
        return NAN if len(infinite) == 2 else infinite.pop() * math.inf
    return float(sum((Fraction(v) * w for v, w in terms), Fraction(0)) / total)


def roc_auc_within_groups(
    y: Sequence[Any], s: Sequence[Any], groups: Sequence[Any], w: Sequence[Any] | None = None
) -> Fraction | float:
    """Mann-Whitney over the positive-negative pairs *of the same group*, pooled.

    sum_{i pos, j neg, g_i == g_j} w_i w_j ([s_i > s_j] + [s_i == s_j] / 2)
    divided by sum_g P_g N_g. NaN when no group has both classes.
    """
    if w is None:
        w = [1] * len(y)
    assert len(groups) == len(y) == len(s) == len(w)
    rows = [
        (_py(g), _py(si), int(_py(yi)), Fraction(_py(wi)))
        for g, si, yi, wi in zip(groups, s, y, w, strict=True)
        if Fraction(_py(wi)) != 0
    ]
    total = Fraction(0)
    pairs = Fraction(0)
    for gi, si, yi, wi in rows:
        if yi != 1:
            continue
        for gj, sj, yj, wj in rows:
            if yj != 0 or gj != gi:
                continue
            pairs += wi * wj
            if si > sj:
                total += wi * wj
            elif si == sj:
                total += wi * wj / 2
    if pairs == 0:
        return NAN
    return total / pairs
