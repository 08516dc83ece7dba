"""Reference implementations of the extreme-classification top-k metrics.

This module is an independent test oracle. It shares no code with fastrank and
uses only numpy and the standard library. It re-derives the definitions of
Jain, Prabhu & Varma (KDD 2016, "Extreme Multi-label Loss Functions for
Recommendation, Tagging, Ranking & Other Missing Label Applications") and the
conventions of pyxclib (github.com/kunaldahiya/pyxclib, module
``xclib/evaluation/xc_metrics.py``, studied at commit 5d13086). The code here
was written from those definitions; none of it is pyxclib's.

Conventions found in pyxclib
----------------------------
Propensity (``compute_inv_propesity(labels, A, B)``; :func:`inv_propensity`)
    ``N`` is the number of rows of the label matrix handed in (the training
    samples, rows without any label included) and ``N_l`` the column sum of
    label ``l``. With the natural logarithm::

        C     = (ln N - 1) * (B + 1) ** A
        1/p_l = 1 + C * (N_l + B) ** (-A)    # == 1 + C * exp(-A * ln(N_l + B))

    pyxclib's function has no defaults for ``A`` and ``B``; its docstring lists
    A=0.55, B=1.5 as the general choice (0.5/0.4 for Wikipedia, 0.6/2.6 for
    Amazon), which are this module's defaults. pyxclib computes in the label
    matrix's dtype (a float32 csr gives float32 weights, ~1e-7 relative off the
    float64 values returned here).

Ranking of predictions (``_setup_metric`` / ``_get_topk`` with a csr matrix)
    Only the stored entries of a row are ranked (score descending). When a row
    stores fewer than ``k`` entries, the empty slots get a padding column that
    holds no true label and weight 0, so they are misses. Here a score of
    ``-inf`` (or NaN) in the dense ``S`` means "not stored".

Precision (``precision``; ``_precision``)
    P@k = (true labels among the top k) / k, always divided by k (not by the
    number of stored predictions, nor by the number of true labels). pyxclib
    returns the mean over ALL rows; a row without true labels counts 0.

nDCG (``ndcg``; ``_ndcg``)
    DCG@k = sum over ranks r = 1..k of y(label at r) / log2(r + 1). The ideal
    is the binary one: IDCG@k = sum over r = 1..min(k, n_true) of
    1 / log2(r + 1), with ``n_true`` the row sum of the true-label matrix.
    A row with no true label: pyxclib's index arithmetic then gives the
    denominator sum over r = 1..k, so the row counts 0 in the mean (no NaN).
    Here such a row is NaN. pyxclib returns these values as float32.

Recall (``recall``; ``_recall``)
    recall@k = (true labels in the top k) / n_true. pyxclib sets the
    denominator 1 for rows with n_true = 0, so they count 0 in the mean over
    all rows. (The separate ``recall_at_k`` instead drops such rows from the
    mean.) Here such a row is NaN.

Hits (``hits``; ``_hits``)
    1 if any true label is in the top k, else 0; averaged over all rows, so a
    row without true labels counts 0. Here such a row is NaN.

PSP (``psprecision``; also ``Metrics.eval``)
    The per-row raw value is sum over the top k of y * (1/p) divided by k. The
    "best achievable" ranking ranks the row's true labels by y * (1/p)
    descending (again padded with misses when a row has fewer than k true
    labels). pyxclib normalises the MEANS, not each row::

        PSP@k = mean_i(raw_i) / mean_i(best_i)  = sum_i raw_i / sum_i best_i

    Rows without labels add 0 to both sums. So there is no per-row PSP in
    pyxclib: :func:`pyxclib_like` returns the per-row ratio ``raw_i/best_i``
    (NaN when best_i = 0) under "PSP" together with the terms ``PSP_num`` and
    ``PSP_den`` whose means' ratio is pyxclib's number
    (:func:`pyxclib_means` forms it).

PSnDCG (``psndcg``; also ``Metrics.eval``)
    PSDCG@k = sum over ranks r = 1..k of y * (1/p) / log2(r + 1). pyxclib
    divides both the predicted and the best PSDCG of each row by the row's
    binary IDCG@k (as for nDCG above), averages each over all rows and takes the
    ratio of the two means::

        PSnDCG@k = mean_i(PSDCG_i / IDCG_i) / mean_i(PSDCG*_i / IDCG_i)

    Per row, PSDCG_i / PSDCG*_i is returned as "PSnDCG" (NaN when the best is 0),
    and ``PSnDCG_num``, ``PSnDCG_den`` are the two terms of pyxclib's ratio.

PS recall (``psrecall``)
    Same pattern: mean_i(raw_i / n_i) / mean_i(best_i / n_i), where raw_i and
    best_i are the weighted sums over the top k and n_i = max(n_true, 1).

``Metrics(true_labels, inv_psp, remove_invalid=False).eval(pred, K)``
    returns [P, nDCG] or [P, nDCG, PSP, PSnDCG] for 1..K, computed as above.
    With ``remove_invalid=True`` rows without labels are dropped before
    averaging (``pyxclib_means(..., drop_empty=True)``).

All pyxclib functions return a vector for k = 1..K; the functions here compute
one k at a time.

Tie-aware brute force (:func:`tie_orders`)
-----------------------------------------
Not a pyxclib convention: every label of a row is ranked; equal stored scores
are tied, and all labels without a stored score form one tie group below every
stored score. Each total order consistent with the ties is equally likely; the
function reports the mean ("expected"), the max ("optimistic") and the min
("pessimistic") of each measure over those orders.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

#: Refuse to enumerate more orders than this for a single row.
MAX_ORDERS_PER_ROW = 1_000_000

#: Measures reported by :func:`tie_orders`.
TIE_MEASURES = (
    "P",
    "recall",
    "nDCG",
    "PSP",
    "PSP_raw",
    "PSnDCG",
    "PSnDCG_raw",
    "AP",
    "AP_min",
    "hit",
    "RR",
)


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _matrix(x: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array, got shape {arr.shape}")
    return arr


def _weights(inv_p: ArrayLike | None, n_labels: int) -> FloatArray:
    if inv_p is None:
        return np.ones(n_labels, dtype=np.float64)
    w = np.asarray(inv_p, dtype=np.float64).ravel()
    if w.shape != (n_labels,):
        raise ValueError(f"inv_p must have {n_labels} entries, got {w.shape}")
    return w


def _check_k(k: int) -> int:
    k_int = int(k)
    if k_int != k or k_int < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return k_int


def _discounts(m: int) -> FloatArray:
    """1 / log2(r + 1) for ranks r = 1..m."""
    return 1.0 / np.log2(np.arange(2, m + 2, dtype=np.float64))


def _div(num: float, den: float) -> float:
    return num / den if den != 0 else math.nan


def _unstored(scores: FloatArray) -> NDArray[np.bool_]:
    return np.isnan(scores) | np.isneginf(scores)


# --------------------------------------------------------------------------
# propensity
# --------------------------------------------------------------------------


def inv_propensity(
    label_counts: ArrayLike, n_samples: int, a: float = 0.55, b: float = 1.5
) -> FloatArray:
    """Inverse propensity 1/p_l of Jain et al. (2016), as pyxclib computes it.

    ``label_counts[l]`` is N_l, the number of training samples tagged with label
    l (pyxclib: the column sums of the training label matrix) and ``n_samples``
    is N, the number of training samples (rows of that matrix). Natural log::

        C = (ln N - 1) * (b + 1) ** a,   1/p_l = 1 + C * (N_l + b) ** (-a)

    Mirrors ``xclib.evaluation.xc_metrics.compute_inv_propesity(labels, A, B)``.
    """
    counts = np.asarray(label_counts, dtype=np.float64).ravel()
    c = (math.log(n_samples) - 1.0) * (b + 1.0) ** a
    result: FloatArray = 1.0 + c * np.exp(-a * np.log(counts + b))
    return result


# --------------------------------------------------------------------------
# pyxclib-style per-sample metrics
# --------------------------------------------------------------------------


def pyxclib_like(
    Y: ArrayLike, S: ArrayLike, k: int, inv_p: ArrayLike | None = None
) -> dict[str, FloatArray]:
    """Per-sample top-k metrics with pyxclib's conventions (one ``k``).

    ``Y`` is a dense (n, L) 0/1 array of true labels, ``S`` a dense (n, L) array
    of scores where ``-inf`` (or NaN) marks a label with no stored prediction.
    Stored scores are assumed to be free of ties (their order among equal
    scores is the stable order of label indices here, which need not be
    pyxclib's). ``inv_p`` defaults to all ones.

    Returned keys (arrays of shape (n,)):

    - ``P``: hits in the top k / k (rows with < k stored entries: the empty
      slots are misses);
    - ``nDCG``: DCG@k / sum_{r <= min(k, n_true)} 1/log2(r+1); NaN if n_true = 0
      (pyxclib: 0);
    - ``recall``: hits / n_true; NaN if n_true = 0 (pyxclib ``recall``: 0;
      ``recall_at_k``: row left out);
    - ``hits``: 1 if any hit in the top k; NaN if n_true = 0 (pyxclib: 0);
    - ``PSP``: raw / best per row, raw = sum_{top k} y/p / k, best = the same
      for the true labels ranked by y/p; NaN if best = 0;
    - ``PSP_raw``: the unnormalised raw value (equal to ``PSP_num``);
    - ``PSnDCG``: PSDCG@k / best PSDCG@k per row; NaN if the best is 0;
    - ``PSnDCG_raw``: the unnormalised PSDCG@k;
    - ``PSrecall``: raw / best (the per-row ratio of pyxclib's ``psrecall``);
    - ``PSP_num``/``PSP_den``, ``PSnDCG_num``/``PSnDCG_den``,
      ``PSrecall_num``/``PSrecall_den``: the per-row terms whose means pyxclib
      divides (see :func:`pyxclib_means`);
    - ``n_true``: the row sums of ``Y``.
    """
    y = _matrix(Y, "Y")
    s = _matrix(S, "S")
    if y.shape != s.shape:
        raise ValueError(f"Y and S shapes differ: {y.shape} vs {s.shape}")
    k = _check_k(k)
    n, n_labels = y.shape
    w = _weights(inv_p, n_labels)
    disc = _discounts(k)
    keys = (
        "P nDCG recall hits PSP PSP_raw PSnDCG PSnDCG_raw PSrecall "
        "PSP_num PSP_den PSnDCG_num PSnDCG_den PSrecall_num PSrecall_den n_true"
    ).split()
    out = {key: np.full(n, math.nan) for key in keys}

    for i in range(n):
        row_s = s[i]
        stored = np.flatnonzero(~_unstored(row_s))
        top = stored[np.argsort(-row_s[stored], kind="stable")][:k]
        flags = np.zeros(k)
        flags[: top.size] = y[i, top]
        wflags = np.zeros(k)
        wflags[: top.size] = y[i, top] * w[top]

        true_idx = np.flatnonzero(y[i] != 0)
        best = np.zeros(k)
        best_vals = np.sort(y[i, true_idx] * w[true_idx])[::-1][:k]
        best[: best_vals.size] = best_vals

        n_true = float(y[i].sum())
        n_int = int(n_true)
        # pyxclib's nDCG denominator: binary ideal, or the full k-term sum
        # when the row has no true label (which makes that row score 0).
        z = float(disc[: min(k, n_int)].sum()) if n_int > 0 else float(disc.sum())

        hits_k = float(flags.sum())
        dcg = float((flags * disc).sum())
        psdcg = float((wflags * disc).sum())
        psdcg_best = float((best * disc).sum())
        raw = float(wflags.sum())
        raw_best = float(best.sum())
        recall_den = n_true if n_true != 0 else 1.0

        out["n_true"][i] = n_true
        out["P"][i] = hits_k / k
        if n_true != 0:
            out["nDCG"][i] = dcg / z
            out["recall"][i] = hits_k / n_true
            out["hits"][i] = 1.0 if hits_k > 0 else 0.0
        out["PSP_num"][i] = raw / k
        out["PSP_den"][i] = raw_best / k
        out["PSP_raw"][i] = raw / k
        out["PSP"][i] = _div(raw, raw_best)
        out["PSnDCG_num"][i] = psdcg / z
        out["PSnDCG_den"][i] = psdcg_best / z
        out["PSnDCG_raw"][i] = psdcg
        out["PSnDCG"][i] = _div(psdcg, psdcg_best)
        out["PSrecall_num"][i] = raw / recall_den
        out["PSrecall_den"][i] = raw_best / recall_den
        out["PSrecall"][i] = _div(raw, raw_best)
    return out


def pyxclib_means(
    per_sample: Mapping[str, FloatArray], drop_empty: bool = False
) -> dict[str, float]:
    """The scalars pyxclib reports, from :func:`pyxclib_like`'s output.

    P, nDCG, recall and hits are means over all rows with a row without true
    labels counting 0 (pyxclib's ``precision``, ``ndcg``, ``recall``,
    ``hits``). PSP, PSnDCG and PSrecall are ratios of means
    (``psprecision``, ``psndcg``, ``psrecall``). ``drop_empty=True`` first
    drops rows without true labels, like ``Metrics(..., remove_invalid=True)``.
    """
    keep = np.asarray(per_sample["n_true"]) > 0 if drop_empty else slice(None)

    def mean(key: str) -> float:
        vals = np.nan_to_num(np.asarray(per_sample[key], dtype=np.float64)[keep], nan=0.0)
        return float(vals.mean())

    def ratio(key: str) -> float:
        return _div(mean(f"{key}_num"), mean(f"{key}_den"))

    return {
        "P": mean("P"),
        "nDCG": mean("nDCG"),
        "recall": mean("recall"),
        "hits": mean("hits"),
        "PSP": ratio("PSP"),
        "PSnDCG": ratio("PSnDCG"),
        "PSrecall": ratio("PSrecall"),
    }


# --------------------------------------------------------------------------
# brute force over tie orders
# --------------------------------------------------------------------------


def _tie_groups(scores: FloatArray) -> list[NDArray[np.intp]]:
    """Label groups from the highest score down; unstored labels come last."""
    unstored = _unstored(scores)
    stored = np.flatnonzero(~unstored)
    groups = [stored[scores[stored] == v] for v in np.unique(scores[stored])[::-1]]
    missing = np.flatnonzero(unstored)
    if missing.size:
        groups.append(missing)
    return groups


def _orders(groups: list[NDArray[np.intp]]) -> NDArray[np.intp]:
    count = math.prod(math.factorial(g.size) for g in groups)
    if count > MAX_ORDERS_PER_ROW:
        raise ValueError(f"{count} tie orders in one row; this oracle is for tiny inputs")
    per_group: list[Iterator[tuple[int, ...]]] = [
        itertools.permutations(g.tolist()) for g in groups
    ]
    rows = [list(itertools.chain.from_iterable(p)) for p in itertools.product(*per_group)]
    return np.asarray(rows, dtype=np.intp).reshape(count, -1)


def _order_measures(
    orders: NDArray[np.intp],
    y_row: FloatArray,
    w: FloatArray,
    g_row: FloatArray,
    k: int,
) -> dict[str, FloatArray]:
    """Every measure for each order (one row of orders per order)."""
    m, n_labels = orders.shape
    kk = min(k, n_labels)
    disc = _discounts(kk)
    truth = (y_row != 0).astype(np.float64)
    n_true = float(truth.sum())
    nan = np.full(m, math.nan)

    t_ord = truth[orders]
    top = t_ord[:, :kk]
    hits_k = top.sum(axis=1)

    res: dict[str, FloatArray] = {"P": hits_k / k}

    dcg = (g_row[orders][:, :kk] * disc).sum(axis=1)
    idcg = float((np.sort(g_row)[::-1][:kk] * disc).sum())
    res["nDCG"] = dcg / idcg if idcg != 0 else nan

    yw = y_row * w
    ps_top = yw[orders][:, :kk]
    ps_best = np.sort(yw)[::-1][:kk]
    res["PSP_raw"] = ps_top.sum(axis=1) / k
    best_raw = float(ps_best.sum()) / k
    res["PSP"] = res["PSP_raw"] / best_raw if best_raw != 0 else nan
    res["PSnDCG_raw"] = (ps_top * disc).sum(axis=1)
    best_psdcg = float((ps_best * disc).sum())
    res["PSnDCG"] = res["PSnDCG_raw"] / best_psdcg if best_psdcg != 0 else nan

    if n_true == 0:
        for key in ("recall", "AP", "AP_min", "hit", "RR"):
            res[key] = nan
        return res

    res["recall"] = hits_k / n_true
    prec_at = np.cumsum(top, axis=1) / np.arange(1, kk + 1)
    ap_sum = (prec_at * top).sum(axis=1)
    res["AP"] = ap_sum / n_true
    res["AP_min"] = ap_sum / min(k, n_true)
    res["hit"] = (hits_k > 0).astype(np.float64)
    res["RR"] = 1.0 / (np.argmax(t_ord, axis=1) + 1.0)
    return res


def tie_orders(
    Y: ArrayLike,
    S: ArrayLike,
    k: int,
    inv_p: ArrayLike | None = None,
    gains: ArrayLike | None = None,
) -> dict[str, dict[str, FloatArray]]:
    """Expected / optimistic / pessimistic metrics over every tie order.

    For tiny inputs (L <= 7 or so). In each row every label is ranked: stored
    scores descending, equal stored scores tied, and all labels with score
    ``-inf`` (or NaN) one tie group below all stored scores. Each distinct total
    order consistent with the ties (permutations inside each group, product
    across groups) is equally likely. The top ``min(k, L)`` ranks are taken.

    Measures (``k`` divides P and PSP even when k > L):

    - ``P`` = hits / k; ``recall`` = hits / n_true;
    - ``nDCG`` = DCG@k / IDCG@k with gains ``gains`` (default ``Y``) and the
      ideal = the row's gains sorted descending; NaN when IDCG = 0;
    - ``PSP_raw`` = sum_{top k} y/p / k; ``PSP`` = PSP_raw / its best value
      (labels by y/p descending); ``PSnDCG_raw`` = sum_{r<=k} y/p / log2(r+1)
      and ``PSnDCG`` = PSnDCG_raw / its best value. NaN when the best is 0.
      (pyxclib normalises the means over rows instead; see the module doc.)
    - ``AP`` = sum over ranks r <= k holding a true label of precision@r,
      divided by n_true (trec_eval map_cut); ``AP_min``: divided by
      min(k, n_true);
    - ``hit`` = 1 if any true label in the top k;
    - ``RR`` = 1 / rank of the first true label over all L ranks (no cut).

    recall, AP, AP_min, hit and RR are NaN for rows without true labels.
    Returns ``{measure: {"expected", "optimistic", "pessimistic": (n,)}}``.
    """
    y = _matrix(Y, "Y")
    s = _matrix(S, "S")
    if y.shape != s.shape:
        raise ValueError(f"Y and S shapes differ: {y.shape} vs {s.shape}")
    g = y if gains is None else _matrix(gains, "gains")
    if g.shape != y.shape:
        raise ValueError(f"gains shape {g.shape} differs from Y's {y.shape}")
    k = _check_k(k)
    n, n_labels = y.shape
    w = _weights(inv_p, n_labels)

    out = {
        key: {stat: np.full(n, math.nan) for stat in ("expected", "optimistic", "pessimistic")}
        for key in TIE_MEASURES
    }
    for i in range(n):
        orders = _orders(_tie_groups(s[i]))
        per_order = _order_measures(orders, y[i], w, g[i], k)
        for key in TIE_MEASURES:
            vals = per_order[key]
            if np.isnan(vals).any():
                continue  # NaN for this row (it is NaN for every order)
            out[key]["expected"][i] = float(vals.mean())
            out[key]["optimistic"][i] = float(vals.max())
            out[key]["pessimistic"][i] = float(vals.min())
    return out


# --------------------------------------------------------------------------
# self-check
# --------------------------------------------------------------------------

_COMMON = ("P", "recall", "nDCG", "PSP", "PSP_raw", "PSnDCG", "PSnDCG_raw")


def _close(a: ArrayLike, b: ArrayLike, msg: str, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(
        np.asarray(a, dtype=np.float64),
        np.asarray(b, dtype=np.float64),
        rtol=tol,
        atol=tol,
        equal_nan=True,
        err_msg=msg,
    )


def _random_case(
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray, int, FloatArray]:
    n = int(rng.integers(1, 8))
    n_labels = int(rng.integers(1, 7))
    k = int(rng.integers(1, n_labels + 1))
    y = (rng.random((n, n_labels)) < 0.4).astype(np.float64)
    # distinct stored scores: a random permutation, then some left unstored
    s = np.stack([rng.permutation(n_labels).astype(np.float64) * 0.1 for _ in range(n)])
    s[rng.random((n, n_labels)) < 0.3] = -np.inf
    counts = rng.integers(0, 40, size=n_labels)
    inv_p = inv_propensity(counts, 100)
    return y, s, k, inv_p


def _self_check(n_cases: int = 400, seed: int = 20160813) -> None:
    rng = np.random.default_rng(seed)
    compared = 0
    for case in range(n_cases):
        y, s, k, inv_p = _random_case(rng)
        ref = pyxclib_like(y, s, k, inv_p)
        ties = tie_orders(y, s, k, inv_p)
        full = (~np.isneginf(s)).sum(axis=1) >= k
        all_stored = (~np.isneginf(s)).all(axis=1)
        for key in (*_COMMON, "AP", "AP_min", "hit"):
            t = ties[key]
            _close(t["optimistic"][full], t["pessimistic"][full], f"case {case} {key} opt/pes")
            _close(t["expected"][full], t["pessimistic"][full], f"case {case} {key} exp/pes")
        for key in _COMMON:
            _close(ties[key]["expected"][full], ref[key][full], f"case {case} {key}")
        _close(ties["hit"]["expected"][full], ref["hits"][full], f"case {case} hit")
        t_rr = ties["RR"]
        _close(t_rr["optimistic"][all_stored], t_rr["pessimistic"][all_stored], f"case {case} RR")
        compared += int(full.sum())
    print(f"random untied cases: {n_cases}, rows compared: {compared}: OK")

    # Hand-worked tie example: labels 1 and 2 tied, label 3 unstored.
    y = np.array([[1, 0, 1, 0]])
    s = np.array([[0.9, 0.5, 0.5, -np.inf]])
    tt = tie_orders(y, s, 2)
    log3 = 1.0 / math.log2(3.0)
    want = {
        "P": (0.75, 1.0, 0.5),
        "recall": (0.75, 1.0, 0.5),
        "nDCG": ((1.0 / (1 + log3) + 1.0) / 2, 1.0, 1.0 / (1 + log3)),
        "AP": (0.75, 1.0, 0.5),
        "AP_min": (0.75, 1.0, 0.5),
        "hit": (1.0, 1.0, 1.0),
        "RR": (1.0, 1.0, 1.0),
    }
    for key, (exp, opt, pes) in want.items():
        got = (tt[key]["expected"][0], tt[key]["optimistic"][0], tt[key]["pessimistic"][0])
        _close(got, (exp, opt, pes), f"worked example {key}")
    # One stored true label after a false one, the other true label unstored
    # among 3 unstored labels: it is at rank 3, 4 or 5 with equal chance.
    tt = tie_orders([[0, 1, 0, 1, 0]], [[0.9, 0.8, -np.inf, -np.inf, -np.inf]], 5)
    _close(tt["AP"]["expected"][0], (0.5 + (2 / 3 + 2 / 4 + 2 / 5) / 3) / 2, "AP unstored")
    _close(tt["RR"]["expected"][0], 0.5, "RR unstored")

    # Regression numbers produced by the real pyxclib (commit 5d13086) on
    # Y below with X = S (csr, -inf unstored), inv_psp = compute_inv_propesity(Y, .55, 1.5).
    y = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float64)
    s = np.array(
        [[0.9, 0.8, -np.inf, 0.1], [0.5, -np.inf, -np.inf, -np.inf], [0.2, 0.3, -np.inf, -np.inf]]
    )
    inv_p = inv_propensity(y.sum(axis=0), y.shape[0])
    _close(inv_p, [1.09861229, 1.09861229, 1.09861229, 1.13060141], "inv_propensity", 1e-8)
    pyx = {
        "P": (0.66666667, 0.33333333, 0.22222222),
        "nDCG": (0.6666667, 0.53771573, 0.53771573),
        "recall": (0.5, 0.5, 0.5),
        "PSP": (1.0, 0.66666667, 0.66666667),
        "PSnDCG": (1.0, 0.8065736, 0.8065736),
    }
    for kk in (1, 2, 3):
        means = pyxclib_means(pyxclib_like(y, s, kk, inv_p))
        for key, vals in pyx.items():
            _close(means[key], vals[kk - 1], f"pyxclib regression {key}@{kk}", 1e-6)
    print("worked examples and pyxclib regression numbers: OK")


def _worked_example() -> None:
    y = np.array([[1, 0, 1, 0, 0], [0, 1, 0, 0, 1], [0, 0, 0, 0, 0]])
    s = np.array(
        [
            [0.9, 0.7, 0.7, -np.inf, 0.1],
            [0.3, 0.2, -np.inf, -np.inf, -np.inf],
            [0.5, 0.4, 0.3, 0.2, 0.1],
        ]
    )
    k = 3
    inv_p = inv_propensity([5, 1, 3, 0, 2], 50)
    np.set_printoptions(precision=4, suppress=True)
    print("\nworked example, k = 3")
    print("Y =\n", y)
    print("S =\n", s)
    print("inv_p =", inv_p)
    ref = pyxclib_like(y, s, k, inv_p)
    print("pyxclib_like (ties broken by label index):")
    for key in ("P", "nDCG", "recall", "hits", "PSP", "PSnDCG"):
        print(f"  {key:8s}", ref[key])
    print("pyxclib_means:", {key: round(v, 4) for key, v in pyxclib_means(ref).items()})
    ties = tie_orders(y, s, k, inv_p)
    print("tie_orders (expected / optimistic / pessimistic):")
    for key in TIE_MEASURES:
        t = ties[key]
        print(f"  {key:10s}", t["expected"], t["optimistic"], t["pessimistic"])


if __name__ == "__main__":
    _self_check()
    _worked_example()
