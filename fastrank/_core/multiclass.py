"""Hand & Till's one-vs-one multiclass ROC AUC (scikit-learn's ``multi_class="ovo"``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import UnsupportedOptionError
from . import api, inputs, reduce, registry


def ovo_roc_auc(y_true: Any, y_score: Any, sample_weight: Any, labels: Any, average: Any,
                max_fpr: Any, pos_label: Any) -> float:
    """For each pair of classes ``(a, b)``, on the samples of either class: the mean
    of the AUC of column ``a`` for ``a`` against ``b`` and of column ``b`` for ``b``
    against ``a``; then the mean over pairs (``"macro"``) or the mean weighted by
    the pair's share of samples (``"weighted"``)."""
    if average is None:
        raise UnsupportedOptionError(
            "multi_class='ovo' has no per-class result (average=None), as in scikit-learn; "
            "use multi_class='ovr' for per-class AUCs"
        )
    if sample_weight is not None:
        raise ValueError("multi_class='ovo' does not take sample_weight (nor does scikit-learn)")
    if max_fpr is not None:
        raise ValueError("multi_class='ovo' computes full AUCs; max_fpr is not supported")
    if average not in ("macro", "weighted"):
        raise ValueError(f"multi_class='ovo' averages 'macro' or 'weighted'; got {average!r}")
    s = inputs.as_array(y_score, "y_score")
    if s.ndim != 2:
        raise ValueError(
            f"multi_class='ovo' needs scores of shape (n_samples, n_classes); got {s.shape}"
        )
    values, _, _ = inputs.score_matrix(s)
    inputs.check_finite(values)
    n, k = s.shape
    if inputs.is_sparse(y_true) or inputs.as_array(y_true, "y_true").ndim != 1:
        shape = tuple(y_true.shape) if inputs.is_sparse(y_true) else np.shape(y_true)
        raise ValueError(
            "multi_class='ovo' compares classes: y_true must be 1-D class labels, "
            f"got shape {shape}"
        )
    codes, _ = inputs.class_codes(y_true, n, k, labels, pos_label)
    req = registry.request("roc_auc", weighted=False)
    pairs, shares, pos, neg = [], [], [], []
    for a in range(k):
        for b in range(a + 1, k):
            rows = np.flatnonzero((codes == a) | (codes == b))
            is_a = codes[rows] == a
            both = []
            for col, positive in ((a, is_a), (b, ~is_a)):
                if rows.shape[0] == 0:
                    both.append(np.nan)
                    continue
                t = inputs.task_of(np.ascontiguousarray(values[rows, col]), s.dtype,
                                   positive.view(np.uint8), None)
                res = api.task_results(t, req)
                ok = res.positives[0] > 0 and res.negatives[0] > 0
                both.append(float(res.out[0, req.metric.column]) if ok and req.metric
                            else np.nan)
            pairs.append((both[0] + both[1]) / 2)
            shares.append(rows.shape[0] / n)
            pos.append(float(np.count_nonzero(is_a)))
            neg.append(float(rows.shape[0] - pos[-1]))
    values_ = np.array(pairs, dtype=np.float64)
    undefined = np.isnan(values_)
    reduce.warn_undefined("roc_auc is", "class pairs", np.array(pos), np.array(neg), undefined,
                          average, stacklevel=3)
    if undefined.all():
        return float("nan")
    weights = np.array(shares)[~undefined] if average == "weighted" else None
    return float(np.average(values_[~undefined], weights=weights))
