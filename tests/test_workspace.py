"""The per-thread scratch buffers: reused within a thread, never shared, bounded."""

import threading

import numpy as np

import fastrank
from fastrank._core import workspace


def test_scratch_is_reused_and_grows() -> None:
    workspace.release_scratch()
    a = workspace.scratch("test", 1000)
    assert a.shape[0] >= 1000
    assert workspace.scratch("test", 500) is a  # large enough: reused
    b = workspace.scratch("test", a.shape[0] + 1)
    assert b.shape[0] > a.shape[0] and workspace.scratch("test", 10) is b
    assert workspace.scratch("other", 10) is not b  # slots are separate


def test_scratch_beyond_the_cap_is_not_kept() -> None:
    workspace.release_scratch()
    small = workspace.scratch("test", 100)
    big = workspace.scratch("test", workspace.RETAIN_BYTES + 1)
    assert big.shape[0] > workspace.RETAIN_BYTES
    assert workspace.scratch("test", 100) is small  # the big one was not retained
    workspace.release_scratch()


def test_threads_get_their_own_buffer() -> None:
    mine = workspace.scratch("test", 100)
    theirs: list[np.ndarray] = []
    t = threading.Thread(target=lambda: theirs.append(workspace.scratch("test", 100)))
    t.start()
    t.join()
    assert theirs[0] is not mine


def test_results_do_not_depend_on_leftover_scratch() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3
    s = rng.random(5000)
    first = fastrank.all_metrics(y, s)
    fastrank.all_metrics(rng.random(20000) < 0.5, rng.normal(size=20000))  # dirties the buffers
    assert fastrank.all_metrics(y, s) == first
    w = rng.random(5000)
    weighted = fastrank.all_metrics(y, s, sample_weight=w)
    fastrank.roc_auc(np.c_[y, ~y], np.c_[s, s], sample_weight=w, average=None)
    assert fastrank.all_metrics(y, s, sample_weight=w) == weighted
