"""The per-thread scratch buffer: reused within a thread, never shared, bounded."""

import threading

import numpy as np

import fastrank
from fastrank import _workspace


def test_scratch_is_reused_and_grows() -> None:
    _workspace.release()
    a = _workspace.scratch(1000)
    assert a.shape[0] >= 1000
    assert _workspace.scratch(500) is a  # large enough: reused
    b = _workspace.scratch(a.shape[0] + 1)
    assert b.shape[0] > a.shape[0] and _workspace.scratch(10) is b


def test_scratch_beyond_the_cap_is_not_kept() -> None:
    _workspace.release()
    small = _workspace.scratch(100)
    big = _workspace.scratch(_workspace.RETAIN_BYTES + 1)
    assert big.shape[0] > _workspace.RETAIN_BYTES
    assert _workspace.scratch(100) is small  # the big one was not retained
    _workspace.release()


def test_threads_get_their_own_buffer() -> None:
    mine = _workspace.scratch(100)
    theirs: list[np.ndarray] = []
    t = threading.Thread(target=lambda: theirs.append(_workspace.scratch(100)))
    t.start()
    t.join()
    assert theirs[0] is not mine


def test_results_do_not_depend_on_leftover_scratch() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3
    s = rng.random(5000)
    first = fastrank.all_metrics(y, s)
    fastrank.all_metrics(rng.random(20000) < 0.5, rng.normal(size=20000))  # dirties the buffer
    assert fastrank.all_metrics(y, s) == first
