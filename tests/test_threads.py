"""Thread safety, and no changes to Numba's global threading settings."""

from __future__ import annotations

import inspect
import io
import json
import math
import subprocess
import sys
import tempfile
import textwrap
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
import pytest

import fastrank

N_SAMPLES = 20_000


def _inputs(seed):
    """One random task; the kind of scores varies with the seed."""
    rng = np.random.default_rng(seed)
    y = rng.random(N_SAMPLES) < rng.uniform(0.05, 0.5)
    kind = seed % 4
    if kind == 0:
        s = rng.standard_normal(N_SAMPLES) + y
    elif kind == 1:
        s = np.round(rng.standard_normal(N_SAMPLES) + y, 1).astype(np.float32)  # heavy ties
    elif kind == 2:
        s = rng.integers(0, 500, N_SAMPLES) + 50 * y  # int64
    else:
        s = rng.standard_normal(N_SAMPLES) + 0.5 * y
    w = rng.uniform(0.0, 2.0, N_SAMPLES) if seed % 3 == 0 else None
    return y, s, w


def _run(seed):
    """Every public function on one task; plain Python objects and arrays out."""
    y, s, w = _inputs(seed)
    out = {
        "average_precision": fastrank.average_precision(y, s, sample_weight=w),
        "roc_auc": fastrank.roc_auc(y, s, sample_weight=w),
        "roc_auc_partial": fastrank.roc_auc(y, s, sample_weight=w, max_fpr=0.2),
        "pr_auc": fastrank.pr_auc(y, s, sample_weight=w),
        "d_prime": fastrank.d_prime(y, s, sample_weight=w),
        "prbe": fastrank.prbe(y, s, sample_weight=w, return_threshold=True),
        "all_metrics": fastrank.all_metrics(y, s, sample_weight=w, max_fpr=0.3).as_dict(),
        "roc_curve": fastrank.roc_curve(y, s, sample_weight=w),
        "precision_recall_curve": fastrank.precision_recall_curve(y, s, sample_weight=w),
        "det_curve": fastrank.det_curve(y, s, sample_weight=w),
        "confusion": fastrank.confusion_matrix_at_thresholds(y, s, sample_weight=w),
        "interpolated": fastrank.interpolated_precision_recall_curve(
            y, s, sample_weight=w, points_per_segment=2
        ),
    }
    if w is None:
        out["ap_expected"] = fastrank.average_precision(y, s, ties="expected")
    return out


def _assert_identical(got, want, path=""):
    if isinstance(want, dict):
        assert got.keys() == want.keys(), path
        for k in want:
            _assert_identical(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_identical(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype, path
        np.testing.assert_array_equal(got, want, err_msg=path)
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), path
    else:
        assert got == want, (path, got, want)


def test_concurrent_calls_match_serial_calls():
    seeds = list(range(12))
    serial = [_run(seed) for seed in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(2):  # twice, in different orders, to vary the interleaving
            parallel = list(pool.map(_run, seeds))
            for seed, got, want in zip(seeds, parallel, serial, strict=True):
                _assert_identical(got, want, f"seed {seed}")
            seeds = seeds[::-1]
            serial = serial[::-1]


def test_concurrent_calls_on_shared_read_only_input():
    """Threads reading the same arrays (read-only, non-native, strided) at once."""
    rng = np.random.default_rng(99)
    y = rng.random(2 * N_SAMPLES) < 0.3
    s = (rng.standard_normal(2 * N_SAMPLES) + y).astype(">f8")[::2]
    y = y[::2]
    y.flags.writeable = False
    s.flags.writeable = False
    want = fastrank.all_metrics(y, s).as_dict()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: fastrank.all_metrics(y, s).as_dict(), range(8)))
    for got in results:
        _assert_identical(got, want)


def test_warnings_from_threads_are_one_per_call():
    y = np.zeros(N_SAMPLES, bool)
    s = np.random.default_rng(0).standard_normal(N_SAMPLES)

    def call(_):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            value = fastrank.average_precision(y, s)
        return value, rec

    # catch_warnings is not thread-safe; check the values here and counts serially
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        with ThreadPoolExecutor(max_workers=4) as pool:
            values = list(pool.map(lambda _: fastrank.average_precision(y, s), range(8)))
    assert all(math.isnan(v) for v in values)
    value, rec = call(None)
    assert math.isnan(value) and len(rec) == 1


def _numba_state():
    return {
        "num_threads": numba.get_num_threads(),
        "config_num_threads": numba.config.NUMBA_NUM_THREADS,
        "threading_layer": numba.config.THREADING_LAYER,
    }


_Y, _S = [0, 0, 0], [0.1, 0.2, 0.3]
_TREC = Path(tempfile.mkdtemp())  # a tiny run and qrels for the readers
(_TREC / "run").write_text("q Q0 a 1 1.0 t\n")
(_TREC / "qrels").write_text("q 0 a 1\n")
# Public functions that do not take (y_true, y_score).
_ARGS = {
    "evaluate": (_S, _Y),
    "bootstrap_ci": ("roc_auc", _Y, _S),
    "delong_test": (_Y, _S, _S),
    "delong_test_unpaired": (_Y, _S, _Y, _S),
    "delong_covariance": (_Y, [_S, _S]),
    "show_config": (),
    "det_curve": ([0, 1, 0], _S),  # one class raises, as in scikit-learn
    "compile_kernels": (),
    "gain_at_depth": (_Y, _S, 0.5),
    "lift_at_depth": (_Y, _S, 0.5),
    "sensitivity_at_specificity": (_Y, _S, 0.8),
    "specificity_at_sensitivity": (_Y, _S, 0.8),
    "recall_at_precision": (_Y, _S, 0.5),
    "precision_at_recall": (_Y, _S, 0.5),
    # label matrices: each sample's labels ranked
    "label_ranking_average_precision": ([_Y, [1, 0, 1]], [_S, _S]),
    "coverage_error": ([_Y, [1, 0, 1]], [_S, _S]),
    "label_ranking_loss": ([_Y, [1, 0, 1]], [_S, _S]),
    "dcg": ([_Y, [1, 0, 1]], [_S, _S]),
    "ndcg": ([[1, 0, 0], [1, 0, 1]], [_S, _S]),
    "precision_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "recall_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "f1_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "hit_rate_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "reciprocal_rank": ([_Y, [1, 0, 1]], [_S, _S]),
    "r_precision": ([_Y, [1, 0, 1]], [_S, _S]),
    "average_precision_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "ndcg_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "psprecision_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "psndcg_at_k": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "top_k_metrics": ([_Y, [1, 0, 1]], [_S, _S], 2),
    "top_k_accuracy": ([0, 2], [_S, _S], 2),  # labels= below
    "propensity": ([10, 1, 0], 100),
    "evaluate_run": ((["q"], ["a"], [1]), (["q"], ["a"], [1.0]), ["map", "ndcg@5"]),
    "compare_runs": ((["q"], ["a"], [1]), [(["q"], ["a"], [1.0]), (["q"], ["b"], [1.0])],
                     ["map"]),
    "read_run": (str(_TREC / "run"),),
    "read_qrels": (str(_TREC / "qrels"),),
}
_KWARGS = {"bootstrap_ci": {"n_resamples": 5, "seed": 0}, "show_config": {"file": io.StringIO()},
           "compile_kernels": {"progress": None}, "psprecision_at_k": {"propensity": [1, 1, 1]},
           "psndcg_at_k": {"propensity": [1, 1, 1]}, "top_k_accuracy": {"labels": [0, 1, 2]}}


def test_calls_leave_numba_threading_settings_unchanged():
    before = _numba_state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fastrank.UndefinedMetricWarning)
        _run(0)
        _run(1)
        for name in fastrank.__all__:
            func = getattr(fastrank, name)
            if not inspect.isfunction(func):
                continue
            func(*_ARGS.get(name, (_Y, _S)), **_KWARGS.get(name, {}))
    assert _numba_state() == before


_SUBPROCESS = textwrap.dedent(
    """
    import json, sys, warnings
    import numba
    import numpy as np

    def state():
        return {
            "num_threads": numba.get_num_threads(),
            "config_num_threads": numba.config.NUMBA_NUM_THREADS,
            "threading_layer": numba.config.THREADING_LAYER,
        }

    before = state()
    import fastrank
    after_import = state()
    rng = np.random.default_rng(0)
    y = rng.random(5000) < 0.3
    s = rng.standard_normal(5000) + y
    warnings.simplefilter("ignore")
    for name in ("average_precision", "roc_auc", "pr_auc", "d_prime", "prbe", "all_metrics",
                 "roc_curve", "precision_recall_curve", "det_curve",
                 "confusion_matrix_at_thresholds", "interpolated_precision_recall_curve"):
        getattr(fastrank, name)(y, s)
        getattr(fastrank, name)(y, s, sample_weight=np.ones(5000))
    fastrank.all_metrics(y[:3] & False, s[:3])
    after_calls = state()
    print(json.dumps({"before": before, "after_import": after_import,
                      "after_calls": after_calls}))
    """
)


@pytest.mark.parametrize(
    "env",
    [{}, {"NUMBA_NUM_THREADS": "2"}, {"NUMBA_THREADING_LAYER": "workqueue"}],
    ids=["default", "num-threads-2", "workqueue"],
)
def test_import_and_calls_leave_numba_settings_unchanged(env):
    import os

    full_env = {**os.environ, **env}
    proc = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout.strip().splitlines()[-1])
    assert state["after_import"] == state["before"]
    assert state["after_calls"] == state["before"]
    if "NUMBA_NUM_THREADS" in env:
        assert state["before"]["num_threads"] == int(env["NUMBA_NUM_THREADS"])
    if "NUMBA_THREADING_LAYER" in env:
        assert state["before"]["threading_layer"] == env["NUMBA_THREADING_LAYER"]


_FIRST_CALLS = textwrap.dedent(
    """
    import json
    from concurrent.futures import ThreadPoolExecutor
    import numpy as np
    import fastrank

    def run(seed):
        rng = np.random.default_rng(seed)
        y = rng.random(20000) < 0.3
        dtype = [np.float64, np.float32, np.int64, np.uint8][seed % 4]
        s = (rng.integers(0, 200, 20000) + 20 * y).astype(dtype)
        w = rng.uniform(0, 1, 20000) if seed % 2 else None
        m = fastrank.all_metrics(y, s, sample_weight=w).as_dict()
        p, r, t = fastrank.precision_recall_curve(y, s, sample_weight=w)
        return json.dumps([m, p.tolist(), r.tolist(), t.tolist()])

    # the very first calls of a fresh process race to load (or compile) kernels
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(run, range(8)))
    serial = [run(seed) for seed in range(8)]
    print(json.dumps(parallel == serial))
    """
)


def test_first_calls_of_a_process_from_threads():
    proc = subprocess.run(
        [sys.executable, "-c", _FIRST_CALLS],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) is True


def _child_batch(queue, y, s):
    queue.put(fastrank.roc_auc(y, s, average=None))


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork()")
def test_batch_in_a_forked_child_after_the_parent_used_the_pool():
    import multiprocessing

    rng = np.random.default_rng(5)
    s = rng.standard_normal((70_000, 3))  # large enough for the parallel path
    y = rng.random((70_000, 3)) < 0.2
    expected = fastrank.roc_auc(y, s, average=None)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_batch, args=(queue, y, s))
    with warnings.catch_warnings():  # Python >= 3.12 warns about fork() with threads running
        warnings.simplefilter("ignore", DeprecationWarning)
        child.start()
    got = queue.get(timeout=120)
    child.join(timeout=120)
    assert child.exitcode == 0
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("threads", [1, 2, 7])
def test_a_gather_cut_into_parts_is_numpys_take(monkeypatch: pytest.MonkeyPatch,
                                                threads: int) -> None:
    """``workers.take`` (the TREC paths' large gathers, a part a thread) gives numpy's
    ``take`` whatever the parts, sizes and dtype, empty indices included."""
    from fastrank._core import workers

    monkeypatch.setattr(workers, "GATHER_MIN", 3)
    monkeypatch.setattr(workers, "threads", lambda: threads)
    rng = np.random.default_rng(threads)
    for values in (rng.integers(-2**62, 2**62, 50), rng.random(7), np.arange(1, dtype=np.uint8)):
        for n in (0, 1, 5, 6, 100, 1001):
            index = rng.integers(0, values.shape[0], n)
            got = workers.take(values, index)
            assert got.dtype == values.dtype
            np.testing.assert_array_equal(got, values[index])
            into = np.zeros(n + 4, values.dtype)
            assert workers.take(values, index, out=into[2:2 + n]) is not None
            np.testing.assert_array_equal(into[2:2 + n], values[index])
            assert not into[:2].any() and not into[2 + n:].any()  # only its slice written
