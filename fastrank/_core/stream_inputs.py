"""The checks of a batch for the streaming layers (:class:`~fastrank.Accumulator`,
:class:`~fastrank.BinnedSummary`): a batch checked whole before anything is stored,
and the label classes a stream of batches keeps across them."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .inputs import (
    as_array,
    canonical_scores,
    check_finite,
    class_codes,
    group_codes,
    is_sparse,
    label_matrix,
    labels_1d,
    plain,
    sparse_labels,
    weights,
)


class StreamBatch(NamedTuple):
    """A checked batch for the streaming layers, before anything is stored."""

    scores: np.ndarray  # canonical scores, 1-D or (n, t), C-contiguous
    dtype: np.dtype[Any]  # the caller's score dtype
    labels: np.ndarray  # uint8 0/1 of the scores' shape, or class codes when ``coded``
    coded: bool  # labels are 1-D class codes (one class against the rest)
    weights: np.ndarray | None  # float64, as given
    groups: np.ndarray | None  # group ids of the rows
    int_valued: bool  # the caller's scores are integers
    negative: Any = None  # with a pos_label: the negative class's label (class_key), or None


def class_key(v: Any) -> Any:
    """A label as streams compare it across batches: a Python scalar (so that False,
    0 and 0.0 are one class, as in one array of them)."""
    return v.item() if isinstance(v, np.generic) else v


def _negative_label(y: np.ndarray, labels: np.ndarray) -> Any:
    """The label of the first negative of ``y`` (``labels`` its 0/1 form, same size)."""
    flat = labels.reshape(-1)
    if not flat.shape[0]:
        return None
    at = int(np.argmin(flat))
    return class_key(y.reshape(-1)[at]) if flat[at] == 0 else None


def joined_negative(mine: Any, theirs: Any, what: str) -> Any:
    """The negative class of a stream of labels with a ``pos_label`` (``mine``; None: no
    negative yet) after rows whose negative class is ``theirs``: each batch is checked
    alone, so that labels {0, 1} then {1, 2} with ``pos_label=1`` would count three
    classes as two. (Without a ``pos_label`` each batch is {0, 1}, {-1, 1} or bool,
    1 the positive class in each: batches of different ones mix.)"""
    if mine is None:
        return theirs
    if theirs is None or theirs == mine:
        return mine
    raise ValueError(
        f"cannot {what} labels whose negative class is {plain(theirs)!r}: earlier rows' is "
        f"{plain(mine)!r}, and together they hold three classes (a task has two)"
    )


def same_pos_label(mine: Any, theirs: Any) -> None:
    """Two streams' ``pos_label`` (each side's rows hold 1 for its own positive class:
    mixed, they would count two different classes as one)."""
    if mine is not None and theirs is not None and not bool(np.all(mine == theirs)):
        raise ValueError(f"cannot merge summaries of labels whose pos_label differ ({mine!r} "
                         f"and {theirs!r})")


def stream_batch(y_true: Any, y_score: Any, sample_weight: Any = None, groups: Any = None, *,
                 pos_label: Any = None, classes: Any = None) -> StreamBatch:
    """A batch of 1-D (one task) or ``(n_samples, n_tasks)`` scores, possibly empty.

    Labels: 1-D binary, a dense or sparse label matrix, or 1-D class labels
    when ``classes`` names the score columns (one class against the rest).
    Everything is checked before the caller stores anything.
    """
    s = as_array(y_score, "y_score")
    if s.ndim not in (1, 2):
        raise ValueError(f"y_score must be 1-D (one task) or 2-D (n_samples, n_tasks); got "
                         f"{s.ndim}-D input with shape {s.shape}")
    n = s.shape[0]
    t = 1 if s.ndim == 1 else s.shape[1]
    dtype = s.dtype
    values = np.ascontiguousarray(canonical_scores(s))
    check_finite(values)
    coded = False
    negative = None
    if s.ndim == 1:
        y = y_true if is_sparse(y_true) else as_array(y_true, "y_true")
        labels, _ = labels_1d(y, n, pos_label)
        if pos_label is not None:  # (without it: {0, 1}, {-1, 1} or bool, 1 positive in each)
            negative = _negative_label(y, labels)
    elif is_sparse(y_true):
        ptr, idx = sparse_labels(y_true, (n, t), pos_label)
        labels = np.zeros((n, t), np.uint8)
        labels[idx, np.repeat(np.arange(t), np.diff(ptr))] = 1
    else:
        y = as_array(y_true, "y_true")
        if y.ndim == 1 and classes is not None:
            codes, _ = class_codes(y, n, t, classes, pos_label)
            labels, coded = codes, True
        elif y.ndim == 2:
            labels = label_matrix(y, (n, t), pos_label, True).reshape(n, t)
        else:
            raise ValueError(f"y_true must have the shape of y_score {(n, t)}; got shape "
                             f"{y.shape}")
    w = weights(sample_weight, n)
    g = None
    if groups is not None:
        if s.ndim != 1:
            raise ValueError("groups= is for 1-D batches (one score per row)")
        g = group_ids(groups, n)
    return StreamBatch(values, dtype, labels, coded, w, g, dtype.kind in "biu", negative)


def group_ids(groups: Any, n: int) -> np.ndarray:
    """Group ids checked as :func:`group_codes` checks them, kept as they are."""
    g = as_array(groups, "groups")
    if g.ndim != 1 or g.shape[0] != n:
        raise ValueError(f"groups must be 1-D with one id per sample ({n}); got shape {g.shape}")
    group_codes(g, n)  # every check: missing ids, mixed kinds, types
    return g
