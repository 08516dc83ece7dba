"""Ranking each sample's labels: label-ranking metrics of multilabel outputs.

Every function takes a label matrix (dense, or ``scipy.sparse``) and scores of
shape ``(n_samples, n_labels)`` and ranks each sample's labels against each
other, ties included exactly as scikit-learn defines each number:

* :func:`label_ranking_average_precision`: for each relevant label, the share of
  relevant labels among those scored at least as high; averaged over a sample's
  relevant labels, then over samples. Per sample it is the average precision of
  the sample's labels with tied scores as one cutoff (:func:`fastrank.average_precision`
  on the row), so it runs on the batched engine, one task per sample.
* :func:`coverage_error`: how far down a sample's ranking one must go to cover
  all its relevant labels (tied labels all count).
* :func:`label_ranking_loss`: the share of (relevant, irrelevant) label pairs of
  a sample ordered wrongly, a tie counting as wrong.
* :func:`dcg` and :func:`ndcg`: graded relevance discounted by rank over the top
  ``k``, tie-aware (tied labels share their group's mean gain: the expected
  value over every order of the ties, as scikit-learn computes it).

``average="samples"`` of :func:`fastrank.average_precision`,
:func:`fastrank.roc_auc` and the other metrics is the same per-sample view of a
metric. Sample weights weigh the samples in the average, not the labels.

Top-k measures read the top of ranked lists: each sample's labels (a dense or
``scipy.sparse`` score matrix; a sparse one holds each sample's top predictions
only, its other labels tied below them), or each query's items (``groups=``):
:func:`precision_at_k`, :func:`recall_at_k`, :func:`f1_at_k`,
:func:`hit_rate_at_k`, :func:`average_precision_at_k`, :func:`ndcg_at_k`,
:func:`reciprocal_rank`, :func:`r_precision`, the propensity-scored
:func:`psprecision_at_k` and :func:`psndcg_at_k` of extreme classification,
several at once with :func:`top_k_metrics`, and :func:`top_k_accuracy` of a
multiclass classifier. Tied items count in expectation over every order of
them (closed forms), or optimistically, or pessimistically.
"""

from __future__ import annotations

from ._rankings.accuracy import TOP_K_TIES, top_k_accuracy
from ._rankings.combined import MEASURES, top_k_metrics
from ._rankings.extreme import propensity, psndcg_at_k, psprecision_at_k
from ._rankings.label_ranking import (
    NO_RELEVANT,
    coverage_error,
    dcg,
    label_ranking_average_precision,
    label_ranking_loss,
    ndcg,
)
from ._rankings.lists import (
    GAINS,
    TIES,
    average_precision_at_k,
    f1_at_k,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
    reciprocal_rank,
)

__all__ = [
    "GAINS",
    "MEASURES",
    "NO_RELEVANT",
    "TIES",
    "TOP_K_TIES",
    "average_precision_at_k",
    "coverage_error",
    "dcg",
    "f1_at_k",
    "hit_rate_at_k",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "ndcg",
    "ndcg_at_k",
    "precision_at_k",
    "propensity",
    "psndcg_at_k",
    "psprecision_at_k",
    "r_precision",
    "recall_at_k",
    "reciprocal_rank",
    "top_k_accuracy",
    "top_k_metrics",
]


# The public functions live here for the reader (help(), the API reference, doctests).
for _name in __all__:
    _obj = globals()[_name]
    if callable(_obj):
        _obj.__module__ = __name__
del _name, _obj
