"""scikit-learn as a reference, across the versions the test extra allows (1.7 and newer).

``confusion_matrix_at_thresholds`` is public from scikit-learn 1.8; before
that the same counts come from the private ``_binary_clf_curve`` (false and
true positives at each distinct score, highest first), and the negatives
follow from the totals. Tests that need a behaviour only some versions have
skip with :data:`needs_sklearn`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sklearn
import sklearn.metrics as skm

SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


def needs_sklearn(major: int, minor: int, why: str) -> pytest.MarkDecorator:
    """Skip a test on scikit-learn releases older than ``major.minor``."""
    return pytest.mark.skipif(
        SKLEARN_VERSION < (major, minor),
        reason=f"needs scikit-learn >= {major}.{minor}: {why}",
    )


def confusion_matrix_at_thresholds(y_true: Any, y_score: Any, **kw: Any) -> tuple[np.ndarray, ...]:
    """``(tns, fps, fns, tps, thresholds)`` as scikit-learn >= 1.8 returns them."""
    if hasattr(skm, "confusion_matrix_at_thresholds"):
        return tuple(skm.confusion_matrix_at_thresholds(y_true, y_score, **kw))
    from sklearn.metrics._ranking import _binary_clf_curve

    fps, tps, thresholds = _binary_clf_curve(y_true, y_score, **kw)
    return fps[-1] - fps, fps, tps[-1] - tps, tps, thresholds
