"""Many tasks in one call: multilabel matrices, multiclass scores and ragged groups.

Every metric function of :mod:`fastrank.metrics` takes a batch of tasks as
well as one task, in three forms:

* **multilabel**: ``y_true`` and ``y_score`` of shape ``(n_samples,
  n_tasks)``, one task per column (``y_true`` may be a ``scipy.sparse``
  matrix, never made dense); C- or Fortran-ordered scores are read in place;
* **multiclass**: 1-D class labels and ``(n_samples, n_classes)`` scores, one
  class against the rest per column (``roc_auc(..., multi_class="ovo")``:
  Hand & Till's pairs);
* **grouped**: 1-D labels and scores plus ``groups``, one task per group id.

``average`` says what comes back: per-task values (``None``; a
:class:`GroupResult` for groups, a :class:`BatchMetrics` from
:func:`~fastrank.all_metrics`), or their mean (``"macro"``, ``"weighted"``,
``"size"``, ``"pairs"``), or the metric of every cell pooled (``"micro"``).
Each task's value is bit for bit the one-task call's, on any number of
threads; the tasks run on all the threads :func:`fastrank.show_config` reports.
"""

from __future__ import annotations

from ._core.reduce import BatchMetrics, GroupResult

__all__ = ["BatchMetrics", "GroupResult"]
