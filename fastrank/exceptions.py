"""Warnings fastrank emits."""

from __future__ import annotations

__all__ = ["UndefinedMetricWarning", "UnsupportedOptionError"]


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for a task (one class missing) and was returned as NaN,
    or is meaningless (:func:`~fastrank.top_k_accuracy` with ``k`` at least the
    number of classes: every sample a hit).

    A :class:`UserWarning`, as scikit-learn's ``UndefinedMetricWarning`` is, so
    that warning filters written for scikit-learn behave the same here. One
    call emits at most one, counting the undefined tasks
    (``fastrank._core.reduce.warn_undefined`` words it).
    """


class UnsupportedOptionError(ValueError, NotImplementedError):
    """A combination of options that has no defined result (``multi_class="ovo"``
    with ``average=None``).

    A :class:`ValueError`, as every bad argument is, and a
    :class:`NotImplementedError`, which scikit-learn raises for the same call.
    """
