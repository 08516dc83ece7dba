"""Helpers for tests/test_adversarial.py: probes that may crash run in other processes.

Three pieces:

* ``run_script(body)`` runs a snippet in a fresh interpreter (``sys.executable``)
  with a timeout. The snippet starts with ``from adversarial_probes import *``
  and groups its probes in ``with check("name"):`` blocks; each block prints a
  marker before it runs and records (not raises) its failure, so one run reports
  every failing probe, and a crash (negative return code: a signal) names the
  probe that died. ``ProbeRun.assert_clean()`` turns any of that into a test
  failure.
* ``Worker`` is a long-lived interpreter that runs the property probes of this
  module (``PROBES``) one example at a time, so a hypothesis campaign pays the
  interpreter start-up once. When an example kills it, the call fails naming
  the probe, the example and the signal, and the next call starts a new worker.
* ``same(a, b)`` compares results bit for bit (floats by their bits, NaN equal
  to NaN), through arrays, tuples, dicts, dataclasses and ``Evaluation``s.

Nothing here imports fastrank at module level: the parent test process only
needs the runner, and the probes import it where they run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

TESTS_DIR = str(Path(__file__).resolve().parent)
MARKER = "@@PROBE "
RESULT = "@@RESULT "
FAIL = "@@FAIL "

# ---------------------------------------------------------------------------------------------
# comparing results bit for bit


def _float_same(x: float, y: float) -> bool:
    if math.isnan(x) and math.isnan(y):
        return True
    return struct.pack("<d", x) == struct.pack("<d", y)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 300 else text[:300] + "..."


def same(a: Any, b: Any, path: str = "result", float_dtypes: bool = True) -> list[str]:
    """Differences between two results, compared bit for bit; [] when identical.

    ``float_dtypes=False``: float arrays of different widths compare by value (a
    float32 threshold array equals the float64 one holding the same numbers).
    """
    out: list[str] = []
    _same(a, b, path, out, float_dtypes)
    return out


def _same(a: Any, b: Any, path: str, out: list[str], fd: bool = True) -> None:
    if len(out) > 20:
        return
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            out.append(f"{path}: {type(a).__name__} vs {type(b).__name__}")
            return
        loose = (not fd and a.dtype.kind == b.dtype.kind == "f") or (
            a.dtype.kind in "USO" and b.dtype.kind in "USO")  # ids compare by value
        if a.shape != b.shape or (a.dtype != b.dtype and not loose):
            out.append(f"{path}: shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}")
            return
        if a.dtype.kind == "f":
            x = np.asarray(a, dtype=np.float64).ravel()
            y = np.asarray(b, dtype=np.float64).ravel()
            bad = np.flatnonzero((x.view(np.uint64) != y.view(np.uint64))
                                 & ~(np.isnan(x) & np.isnan(y)))
            if bad.size:
                i = int(bad[0])
                out.append(f"{path}: {bad.size} element(s) differ; first at flat index {i}: "
                           f"{x[i]!r} vs {y[i]!r}")
        elif a.dtype.kind in "biu":
            if not np.array_equal(a, b):
                i = int(np.flatnonzero(a.ravel() != b.ravel())[0])
                out.append(f"{path}: differ at flat index {i}: "
                           f"{a.ravel()[i]!r} vs {b.ravel()[i]!r}")
        else:
            for i, (x, y) in enumerate(zip(a.ravel().tolist(), b.ravel().tolist(), strict=True)):
                _same(x, y, f"{path}[{i}]", out, fd)
        return
    if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        if not (isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating))):
            out.append(f"{path}: {_short(a)} vs {_short(b)}")
        elif not _float_same(float(a), float(b)):
            out.append(f"{path}: {float(a)!r} vs {float(b)!r}")
        return
    if isinstance(a, (bool, int, np.integer, np.bool_, str, bytes)) or a is None or b is None:
        if type(a) is not type(b) and not (
                isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer))):
            out.append(f"{path}: {_short(a)} ({type(a).__name__}) vs {_short(b)} "
                       f"({type(b).__name__})")
        elif a != b:
            out.append(f"{path}: {_short(a)} vs {_short(b)}")
        return
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            out.append(f"{path}: {type(a).__name__} vs {type(b).__name__}")
            return
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", out, fd)
        return
    if isinstance(a, (tuple, list)):
        if not isinstance(b, (tuple, list)) or len(a) != len(b):
            out.append(f"{path}: {type(a).__name__} of {len(a)} vs {_short(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]", out, fd)
        return
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            out.append(f"{path}: keys {list(a)} vs {list(b) if isinstance(b, dict) else b!r}")
            return
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]", out, fd)
        return
    if type(a).__name__ == "Evaluation":
        _same(evaluation_tables(a), evaluation_tables(b), path, out, fd)
        return
    if repr(a) != repr(b):
        out.append(f"{path}: {_short(a)} vs {_short(b)}")


def evaluation_tables(ev: Any) -> dict[str, Any]:
    """What an ``Evaluation`` reports, as plain dicts of arrays."""
    return {
        "summary": ev.summary(as_frame=False),
        "auc": ev.auc(as_frame=False),
        "best_cutoffs": ev.best_cutoffs(as_frame=False),
        "entries": ev.entries,
    }


def outcome(fn: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("value", result) or ("rejected", "TypeError: ...") for ValueError / TypeError.

    Any other exception propagates: it is a failure of the probe.
    """
    try:
        return ("value", fn(*args, **kwargs))
    except (ValueError, TypeError) as exc:
        return ("rejected", f"{type(exc).__name__}: {exc}")


def assert_same_outcome(got: tuple[str, Any], want: tuple[str, Any], what: str,
                        allow_reject: bool = True, float_dtypes: bool = True) -> None:
    """The adversarial call equals the call on the canonical input.

    ``allow_reject``: a ValueError/TypeError on the adversarial input is fine;
    a result is only fine when it equals the canonical call's.
    """
    if got[0] == "rejected":
        if allow_reject or want[0] == "rejected":
            return
        raise AssertionError(f"{what}: rejected ({got[1]}) but the canonical input gives "
                             f"{_short(want[1])}")
    if want[0] == "rejected":
        raise AssertionError(f"{what}: gave {_short(got[1])} where the canonical input is "
                             f"rejected ({want[1]})")
    diffs = same(got[1], want[1], float_dtypes=float_dtypes)
    if diffs:
        raise AssertionError(f"{what}: differs from the canonical input's result:\n  "
                             + "\n  ".join(diffs[:8]))


# ---------------------------------------------------------------------------------------------
# probes inside a snippet run by run_script

FAILS: list[dict[str, str]] = []


@contextlib.contextmanager
def check(name: str) -> Any:
    """Run one probe: print its marker, record its failure (any exception)."""
    print(MARKER + name, flush=True)
    try:
        yield
    except Exception as exc:
        failure = {"probe": name, "error": f"{type(exc).__name__}: {exc}"}
        FAILS.append(failure)
        print(FAIL + json.dumps(failure), flush=True)  # reported even if a later probe crashes


def report() -> None:
    """The last line of a snippet: it completed, with this many failures."""
    print(RESULT + json.dumps(len(FAILS)), flush=True)


PRELUDE = """\
import sys
sys.path.insert(0, {tests!r})
import faulthandler
faulthandler.enable()
import warnings
warnings.simplefilter("ignore")
import math
import numpy as np
import fastrank
from adversarial_probes import *
"""


def describe_rc(rc: int | None) -> str:
    if rc is None:
        return "still running"
    if rc < 0:
        try:
            return f"killed by signal {signal.Signals(-rc).name} ({rc})"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


@dataclasses.dataclass
class ProbeRun:
    rc: int | None
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float

    @property
    def markers(self) -> list[str]:
        return [line[len(MARKER):] for line in self.stdout.splitlines() if line.startswith(MARKER)]

    @property
    def last_marker(self) -> str | None:
        m = self.markers
        return m[-1] if m else None

    @property
    def failures(self) -> list[dict[str, str]]:
        return [json.loads(line[len(FAIL):]) for line in self.stdout.splitlines()
                if line.startswith(FAIL)]

    @property
    def completed(self) -> bool:
        return any(line.startswith(RESULT) for line in self.stdout.splitlines())

    def crash_message(self) -> str | None:
        """Why the run did not complete, or None when it did."""
        lines = [line for line in self.stderr.strip().splitlines()
                 if not line.startswith("Extension modules")]
        tail = "\n".join(lines[-25:])
        if self.timed_out:
            return (f"timed out after {self.seconds:.0f} s in probe {self.last_marker!r}\n"
                    f"stderr tail:\n{tail}")
        if self.rc is not None and self.rc < 0:
            return (f"the interpreter crashed ({describe_rc(self.rc)}) in probe "
                    f"{self.last_marker!r}\nstderr tail:\n{tail}")
        if self.rc != 0 or not self.completed:
            return (f"the snippet did not finish ({describe_rc(self.rc)}), last probe "
                    f"{self.last_marker!r}\nstderr tail:\n{tail}")
        return None

    def problems(self) -> list[str]:
        crash = self.crash_message()
        found = [f"[{f['probe']}] {f['error']}" for f in self.failures]
        if crash:
            found.append(crash)
        return found

    def assert_clean(self) -> None:
        problems = self.problems()
        if problems:
            raise AssertionError(f"{len(problems)} problem(s):\n" + "\n".join(problems))


def run_script(body: str, timeout: float = 60.0, env: dict[str, str] | None = None) -> ProbeRun:
    """Run ``body`` (after PRELUDE, followed by ``report()``) in a fresh interpreter."""
    code = PRELUDE.format(tests=TESTS_DIR) + textwrap.dedent(body) + "\nreport()\n"
    return run_code(code, timeout=timeout, env=env)


def run_code(code: str, timeout: float = 60.0, env: dict[str, str] | None = None,
             args: list[str] | None = None) -> ProbeRun:
    full_env = dict(os.environ)
    full_env.pop("PYTHONWARNINGS", None)
    if env:
        full_env.update(env)
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *(args or [])], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=full_env, cwd=tempfile.gettempdir())
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    return ProbeRun(proc.returncode, out or "", err or "", timed_out, time.monotonic() - start)


# ---------------------------------------------------------------------------------------------
# a long-lived worker for property campaigns


class WorkerCrash(AssertionError):
    """The worker died (or hung) on an example."""


class Worker:
    """Runs ``PROBES[name](**kwargs)`` in another interpreter, one example per call.

    ``call`` returns None when the probe's invariant holds, raises
    AssertionError (with the probe's message) when it does not, and raises
    WorkerCrash naming the example when the interpreter dies or hangs; the
    next call then starts a fresh worker.
    """

    def __init__(self, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.err: Any = None
        self.starts = 0

    def _discard(self) -> None:
        """Close the pipes and the stderr file of a worker that is gone."""
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        self.proc = None
        if self.err is not None:
            self.err.close()
            self.err = None

    def _start(self) -> None:
        self._discard()
        self.err = tempfile.TemporaryFile()
        env = dict(os.environ)
        env.pop("PYTHONWARNINGS", None)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(TESTS_DIR, "adversarial_probes.py"), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env,
            cwd=tempfile.gettempdir())
        self.starts += 1

    def _stderr_tail(self) -> str:
        if self.err is None:
            return ""
        self.err.seek(0)
        text = self.err.read().decode("utf-8", "replace")
        lines = [line for line in text.strip().splitlines()
                 if not line.startswith(("Extension modules", MARKER))]
        return "\n".join(lines[-25:])

    def _read(self, n: int, deadline: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks = b""
        while len(chunks) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            part = os.read(fd, n - len(chunks))
            if not part:
                raise EOFError
            chunks += part
        return chunks

    def call(self, probe: str, **kwargs: Any) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        payload = pickle.dumps((probe, kwargs))
        example = repr(kwargs) if len(repr(kwargs)) < 2000 else f"{repr(kwargs)[:2000]}..."
        try:
            self.proc.stdin.write(struct.pack("<Q", len(payload)) + payload)
            self.proc.stdin.flush()
            deadline = time.monotonic() + self.timeout
            (size,) = struct.unpack("<Q", self._read(8, deadline))
            status, message = pickle.loads(self._read(size, deadline))
        except (EOFError, BrokenPipeError, TimeoutError) as exc:
            hung = isinstance(exc, TimeoutError)
            if hung:
                self.proc.kill()
            rc = self.proc.wait()
            tail = self._stderr_tail()
            self._discard()
            what = f"hung for {self.timeout:.0f} s" if hung else f"died ({describe_rc(rc)})"
            raise WorkerCrash(f"the worker {what} running probe {probe!r} on example "
                              f"{example}\nstderr tail:\n{tail}") from None
        if status != "ok":
            raise AssertionError(f"probe {probe!r} on example {example}:\n{message}")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._discard()


def _worker_main() -> None:
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever a probe prints goes to stderr, not into the channel
    sys.stdout = sys.stderr
    import faulthandler
    faulthandler.enable()
    warnings.simplefilter("ignore")
    import fastrank  # noqa: F401 - load once, before the first example
    inp = sys.stdin.buffer
    while True:
        header = inp.read(8)
        if len(header) < 8:
            return
        (size,) = struct.unpack("<Q", header)
        name, kwargs = pickle.loads(inp.read(size))
        print(MARKER + name, file=sys.stderr, flush=True)
        try:
            PROBES[name](**kwargs)
            response = ("ok", "")
        except AssertionError as exc:
            response = ("fail", str(exc) or traceback.format_exc())
        except BaseException:
            response = ("fail", traceback.format_exc())
        data = pickle.dumps(response)
        channel.write(struct.pack("<Q", len(data)) + data)
        channel.flush()


# ---------------------------------------------------------------------------------------------
# inputs built the adversarial way


def noncanonical_bool(raw: np.ndarray) -> np.ndarray:
    """A bool array over the bytes of ``raw`` (uint8): every nonzero byte is True to numpy."""
    raw = np.asarray(raw)
    assert raw.dtype == np.uint8
    return raw.view(np.bool_)


def raw_labels(rng: np.random.Generator, shape: Any, p: float = 0.45) -> np.ndarray:
    """uint8 labels: 0 or a random nonzero byte (2..255 mostly, some 1)."""
    positive = rng.random(shape) < p
    byte = rng.integers(1, 256, size=shape).astype(np.uint8)
    return np.where(positive, byte, 0).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# exact oracles for weighted AUC and AP (fractions)


def exact_weighted_auc(y: Any, s: Any, w: Any) -> float:
    ys = [bool(v) for v in y]
    ss = [float(v) for v in s]
    ws = [Fraction(float(v)) for v in w]
    pos = [(si, wi) for yi, si, wi in zip(ys, ss, ws, strict=True) if yi and wi > 0]
    neg = [(si, wi) for yi, si, wi in zip(ys, ss, ws, strict=True) if not yi and wi > 0]
    p, n = sum((wi for _, wi in pos), Fraction(0)), sum((wi for _, wi in neg), Fraction(0))
    if p == 0 or n == 0:
        return math.nan
    good = Fraction(0)
    for sp_, wp in pos:
        for sn, wn in neg:
            if sp_ > sn:
                good += wp * wn
            elif sp_ == sn:
                good += wp * wn / 2
    return float(good / (p * n))


def exact_weighted_ap(y: Any, s: Any, w: Any) -> float:
    """scikit-learn's AP (step interpolation over distinct thresholds), exactly."""
    rows = [(float(si), bool(yi), Fraction(float(wi))) for yi, si, wi in zip(y, s, w, strict=True)
            if float(wi) > 0]
    p = sum((wi for _, yi, wi in rows if yi), Fraction(0))
    if p == 0:
        return math.nan
    thresholds = sorted({si for si, _, _ in rows}, reverse=True)
    tp = fp = Fraction(0)
    ap = Fraction(0)
    prev_recall = Fraction(0)
    for t in thresholds:
        for si, yi, wi in rows:
            if si == t:
                if yi:
                    tp += wi
                else:
                    fp += wi
        recall = tp / p
        if recall != prev_recall:
            ap += (recall - prev_recall) * (tp / (tp + fp))
        prev_recall = recall
    return float(ap)


def close_or_nan(got: float, want: float, tol: float = 1e-12) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return math.isfinite(got) and abs(got - want) <= tol


# ---------------------------------------------------------------------------------------------
# property probes (run in the worker)

METRICS = ("roc_auc", "average_precision", "pr_auc", "d_prime", "prbe")


def _fr() -> Any:
    import fastrank
    return fastrank


def _entry_1d(entry: str, y: Any, s: Any, w: Any, g: Any, seed: int) -> Any:
    """One public entry point on one task (``w``/``g`` may be None)."""
    fr = _fr()
    kw = {} if w is None else {"sample_weight": w}
    if entry in METRICS or entry == "all_metrics":
        return getattr(fr, entry)(y, s, **kw)
    if entry == "average_precision_expected":
        return fr.average_precision(y, s, ties="expected", **kw)
    if entry == "roc_auc_max_fpr":
        return fr.roc_auc(y, s, max_fpr=0.5, **kw)
    if entry == "prbe_threshold":
        return fr.prbe(y, s, return_threshold=True, **kw)
    if entry in ("roc_curve", "precision_recall_curve", "det_curve",
                 "confusion_matrix_at_thresholds", "interpolated_precision_recall_curve"):
        return getattr(fr, entry)(y, s, **kw)
    if entry == "roc_curve_all_points":
        return fr.roc_curve(y, s, drop_intermediate=False, **kw)
    if entry == "grouped":
        gg = np.arange(len(s)) % 3 if g is None else g
        return (fr.roc_auc(y, s, groups=gg, average=None, **kw),
                fr.all_metrics(y, s, groups=gg, average=None, **kw),
                fr.average_precision(y, s, groups=gg, **kw))
    if entry == "evaluate":
        return fr.evaluate({"m": s, "r": -np.asarray(s, dtype=np.float64)}, y, **kw)
    if entry == "accumulator":
        acc = fr.Accumulator()
        half = len(s) // 2
        for sl in (slice(0, half), slice(half, None)):
            acc.update(y[sl], s[sl], sample_weight=None if w is None else w[sl])
        return acc.compute(), acc.compute("roc_curve"), acc.compute("roc_auc_ci")
    if entry == "binned_summary":
        b = fr.BinnedSummary(bins=7)
        b.update(y, np.clip(s, 0.0, 1.0), **kw)
        return [b.compute(m) for m in METRICS], b.positives, b.negatives, b.rows
    if entry == "binned_summary_exact":
        vals = np.unique(np.asarray(s, dtype=np.float64))
        b = fr.BinnedSummary(values=vals)
        b.update(y, s, **kw)
        return [b.compute(m) for m in METRICS]
    if entry == "roc_auc_ci":
        return fr.roc_auc_ci(y, s)
    if entry == "roc_auc_ci_bootstrap":
        return fr.roc_auc_ci(y, s, method="bootstrap", n_resamples=50, seed=seed)
    if entry == "bootstrap_ci":
        return fr.bootstrap_ci("average_precision", y, s, n_resamples=50, seed=seed, **kw)
    if entry == "delong_test":
        return fr.delong_test(y, s, np.asarray(s, dtype=np.float64)[::-1].copy())
    if entry == "delong_covariance":
        return fr.delong_covariance(y, [s, np.asarray(s, dtype=np.float64)[::-1].copy()])
    if entry == "delong_test_unpaired":
        return fr.delong_test_unpaired(y, s, y[::-1], s)
    raise KeyError(entry)


ENTRIES_1D = ("roc_auc", "average_precision", "pr_auc", "d_prime", "prbe", "all_metrics",
              "average_precision_expected", "roc_auc_max_fpr", "prbe_threshold", "roc_curve",
              "roc_curve_all_points", "precision_recall_curve", "det_curve",
              "confusion_matrix_at_thresholds", "interpolated_precision_recall_curve", "grouped",
              "evaluate", "accumulator", "binned_summary", "binned_summary_exact", "roc_auc_ci",
              "roc_auc_ci_bootstrap", "bootstrap_ci", "delong_test", "delong_covariance",
              "delong_test_unpaired")
WEIGHTED_1D = ("roc_auc", "average_precision", "pr_auc", "d_prime", "prbe", "all_metrics",
               "roc_auc_max_fpr", "prbe_threshold", "roc_curve", "precision_recall_curve",
               "det_curve", "confusion_matrix_at_thresholds", "interpolated_precision_recall_curve",
               "grouped", "evaluate", "accumulator", "binned_summary", "bootstrap_ci")


def _entry_2d(entry: str, y: Any, s: Any, w: Any, seed: int) -> Any:
    fr = _fr()
    kw = {} if w is None else {"sample_weight": w}
    if entry in METRICS or entry == "all_metrics":
        return (getattr(fr, entry)(y, s, average=None, **kw),
                getattr(fr, entry)(y, s, **kw))
    if entry == "micro":
        return fr.roc_auc(y, s, average="micro", **kw), fr.average_precision(
            y, s, average="micro", **kw)
    if entry == "roc_auc_ci":
        return fr.roc_auc_ci(y, s)
    if entry == "delong_test":
        return fr.delong_test(y, s, s[::-1].copy())
    if entry == "bootstrap_ci":
        return fr.bootstrap_ci("roc_auc", y, s, n_resamples=30, seed=seed, **kw)
    if entry == "accumulator":
        acc = fr.Accumulator()
        half = s.shape[0] // 2
        for sl in (slice(0, half), slice(half, None)):
            acc.update(y[sl], s[sl], sample_weight=None if w is None else w[sl])
        return acc.compute(average=None)
    if entry == "binned_summary":
        b = fr.BinnedSummary(bins=5)
        b.update(y, np.clip(s, 0.0, 1.0), **kw)
        return [b.compute(m, average=None) for m in METRICS], b.positives, b.negatives
    raise KeyError(entry)


ENTRIES_2D = ("roc_auc", "average_precision", "pr_auc", "d_prime", "prbe", "all_metrics",
              "micro", "roc_auc_ci", "delong_test", "bootstrap_ci", "accumulator",
              "binned_summary")


def probe_raw_bool_labels(raw: bytes, tasks: int, order: str, scores: list[float],
                          entry: str, weights: list[float] | None, seed: int) -> None:
    """Non-canonical bool labels equal ``raw != 0`` in every entry point (or are refused)."""
    n = len(scores)
    buf = np.frombuffer(raw, dtype=np.uint8)[: n * tasks].copy()
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if tasks == 1:
        y = buf.view(np.bool_)
        s = np.asarray(scores, dtype=np.float64)
        canon = buf != 0
        got = outcome(_entry_1d, entry, y, s, w, None, seed)
        want = outcome(_entry_1d, entry, canon, s, w, None, seed)
    else:
        rawm = buf.reshape((n, tasks), order=order)  # type: ignore[call-overload]
        y = rawm.view(np.bool_)
        canon = rawm != 0
        base = np.asarray(scores, dtype=np.float64)
        s = np.stack([np.roll(base, k) for k in range(tasks)], axis=1)
        s = np.asfortranarray(s) if order == "F" else s
        got = outcome(_entry_2d, entry, y, s, w, seed)
        want = outcome(_entry_2d, entry, canon, s, w, seed)
    assert_same_outcome(got, want, f"{entry} with labels bytes {buf.tolist()[:40]}",
                        allow_reject=False)


def probe_raw_scores(raw: bytes, dtype: str, labels: list[int], entry: str, perm_seed: int) -> None:
    """Scores read from raw memory: refused (NaN, inf) or equal to the float64 copy's
    result, and unchanged by a permutation of the samples."""
    fr = _fr()
    s = np.frombuffer(raw, dtype=dtype)
    n = s.shape[0]
    y = np.asarray(labels[:n], dtype=np.int64)
    s = s[: y.shape[0]]
    canon = s.astype(np.float64)
    got = outcome(_entry_1d, entry, y, s, None, None, 0)
    want = outcome(_entry_1d, entry, y, canon, None, None, 0)
    assert_same_outcome(got, want, f"{entry} on {dtype} scores {s.tolist()[:20]}",
                        float_dtypes=False)  # curve thresholds keep the scores' dtype
    if got[0] == "value" and entry in (*METRICS, "all_metrics"):
        p = np.random.default_rng(perm_seed).permutation(y.shape[0])
        perm = outcome(_entry_1d, entry, y[p], s[p], None, None, 0)
        assert_same_outcome(perm, got, f"{entry} on permuted {dtype} scores", allow_reject=False)
    if got[0] == "value" and dtype == "float16" and entry == "roc_auc":
        b = fr.BinnedSummary(quantized="float16")
        b.update(y, s)
        for m in METRICS:
            r = b.compute(m)
            one = getattr(fr, m)(y, s)
            assert (_float_same(r.estimate, one) and _float_same(r.low, one)
                    and _float_same(r.high, one)), (m, r, one)


def probe_int_scores(values: list[int], dtype: str, labels: list[int], entry: str) -> None:
    """Integer scores (int64/uint64 extremes, Python ints beyond 2**64): refused, or the
    scalar metrics equal those of their dense ranks as float64 (order is all that counts)."""
    fr = _fr()
    n = min(len(values), len(labels))
    y = np.asarray(labels[:n], dtype=np.int64)
    if dtype == "object":
        s: Any = np.empty(n, dtype=object)
        s[:] = [int(v) for v in values[:n]]
    elif dtype == "list":
        s = [int(v) for v in values[:n]]
    else:
        s = np.asarray(values[:n], dtype=dtype)
    ranks = np.unique(np.asarray([int(v) for v in values[:n]], dtype=object),
                      return_inverse=True)[1].astype(np.float64)
    if entry == "binned_summary_values":
        got = outcome(_binned_values, y, s)
        if got[0] == "rejected":
            return
        want = outcome(lambda: [getattr(fr, m)(y, ranks) for m in METRICS])
        assert want[0] == "value", want
        for r, one in zip(got[1], want[1], strict=True):
            assert r.exact and _float_same(r.estimate, one) and _float_same(r.low, one) \
                and _float_same(r.high, one), (r, one)
        return
    if entry == "accumulator":
        def acc_run(scores: Any) -> Any:
            acc = fr.Accumulator()
            half = n // 2
            acc.update(y[:half], scores[:half])
            acc.update(y[half:], scores[half:])
            return acc.compute("roc_auc"), acc.compute("average_precision")
        got = outcome(acc_run, s)
        want = outcome(acc_run, ranks)
    else:
        def strip(r: Any) -> Any:
            if entry == "all_metrics":
                d = r.as_dict()
                d.pop("prbe_threshold")
                return d
            return r
        got = outcome(lambda: strip(getattr(fr, entry)(y, s)))
        want = outcome(lambda: strip(getattr(fr, entry)(y, ranks)))
    assert_same_outcome(got, want, f"{entry} on {dtype} scores {values[:n]}")


def _binned_values(y: Any, s: Any) -> Any:
    fr = _fr()
    arr = np.asarray(s) if not isinstance(s, np.ndarray) else s
    b = fr.BinnedSummary(values=np.unique(arr))
    b.update(y, s)
    return [b.compute(m) for m in METRICS]


def probe_weights(labels: list[int], scores: list[float], weights: list[float], entry: str,
                  perm_seed: int, extra: int) -> None:
    """Extreme weights: refused (a class whose total is beyond float64; a curve, a weight
    its units lose), or (AUC, AP) within 1e-12 of the exact value, and every result
    unchanged by a permutation or by extra zero-weight samples."""
    n = min(len(labels), len(scores), len(weights))
    y = np.asarray(labels[:n], dtype=np.int64)
    s = np.asarray(scores[:n], dtype=np.float64)
    w = np.asarray(weights[:n], dtype=np.float64)
    got = outcome(_entry_1d, entry, y, s, w, None, 0)
    valid = bool(np.all(np.isfinite(w)) and np.all(w >= 0))
    if got[0] == "rejected":
        # Valid weights are refused only for a class whose total is beyond float64 (or
        # no weight at all): classes any distance apart are computed.
        if not valid:
            return
        top = Fraction(sys.float_info.max)
        beyond = any(sum((Fraction(float(x)) for x in w[y == c]), Fraction(0)) > top
                     for c in (0, 1))
        # a curve refuses a weight its task's units lose (2**184 below its class's
        # largest at least): its totals at each threshold would count it as 0
        lost = entry.endswith("_curve") and "more than float64's range below" in str(got[1]) \
            and any(np.any((w[y == c] > 0) & (w[y == c] < w[y == c].max() * 2.0**-184))
                    for c in (0, 1) if np.any(y == c))
        assert beyond or lost or not np.any(w > 0), \
            f"{entry} refused valid weights {w.tolist()}: {_short(got[1])}"
        return
    assert valid, f"{entry} accepted invalid weights {w.tolist()}: {_short(got[1])}"
    if entry in ("roc_auc", "average_precision"):
        want = (exact_weighted_auc if entry == "roc_auc" else exact_weighted_ap)(y, s, w)
        assert close_or_nan(float(got[1]), want), \
            f"{entry}: {got[1]!r}, exact value {want!r} (weights {w.tolist()})"
    if entry == "all_metrics":
        m = got[1]
        for name, exact in (("roc_auc", exact_weighted_auc), ("average_precision",
                                                              exact_weighted_ap)):
            want = exact(y, s, w)
            assert close_or_nan(float(getattr(m, name)), want), \
                f"all_metrics.{name}: {getattr(m, name)!r}, exact value {want!r}"
    rng = np.random.default_rng(perm_seed)
    p = rng.permutation(n)
    perm = outcome(_entry_1d, entry, y[p], s[p], w[p], None, 0)
    assert_same_outcome(perm, got, f"{entry} with the samples permuted {p.tolist()}",
                        allow_reject=False)
    if extra:
        y2 = np.concatenate([y, rng.integers(0, 2, extra)])
        s2 = np.concatenate([s, s[rng.integers(0, n, extra)] if n else rng.random(extra)])
        w2 = np.concatenate([w, np.zeros(extra)])
        more = outcome(_entry_1d, entry, y2, s2, w2, None, 0)
        assert_same_outcome(more, got, f"{entry} with {extra} zero-weight samples added",
                            allow_reject=False)


def _sparse_valid(fmt: str, shape: tuple[int, int], a: np.ndarray, b: np.ndarray,
                  data: np.ndarray) -> bool:
    n, t = shape
    if fmt == "coo":
        return bool(a.shape == b.shape == data.shape and np.all((a >= 0) & (a < n))
                    and np.all((b >= 0) & (b < t)))
    major, minor = (n, t) if fmt == "csr" else (t, n)
    indptr, indices = a, b
    if indptr.shape[0] != major + 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        return False
    if indptr[-1] > indices.shape[0] or indices.shape[0] != data.shape[0]:
        return False
    used = indices[: indptr[-1]]
    return bool(np.all((used >= 0) & (used < minor)))


def _has_duplicates(fmt: str, a: np.ndarray, b: np.ndarray) -> bool:
    if fmt == "coo":
        pairs = list(zip(a.tolist(), b.tolist(), strict=True))
    else:
        pairs = [(major, int(b[k])) for major in range(a.shape[0] - 1)
                 for k in range(int(a[major]), int(a[major + 1]))]
    return len(set(pairs)) != len(pairs)


def _sparse_dense(fmt: str, shape: tuple[int, int], a: np.ndarray, b: np.ndarray,
                  data: np.ndarray) -> np.ndarray:
    dense = np.zeros(shape, dtype=bool)
    nz = data.view(np.uint8) != 0 if data.dtype == np.bool_ else data != 0
    if fmt == "coo":
        for r, c, v in zip(a.tolist(), b.tolist(), nz.tolist(), strict=True):
            dense[r, c] |= v
        return dense
    for major in range(a.shape[0] - 1):
        for k in range(int(a[major]), int(a[major + 1])):
            r, c = (major, int(b[k])) if fmt == "csr" else (int(b[k]), major)
            dense[r, c] |= bool(nz[k])
    return dense


def probe_sparse(fmt: str, array_api: bool, n: int, t: int, major: list[int], minor: list[int],
                 data_raw: bytes, data_dtype: str, score_seed: int, entry: str) -> None:
    """Sparse labels with arbitrary (maybe malformed) structure: a malformed one is refused
    with ValueError/TypeError; a well-formed one equals the dense labels' result."""
    import scipy.sparse as sp
    fr = _fr()
    m = len(minor)
    if data_dtype == "bool":
        data = np.frombuffer(data_raw, dtype=np.uint8)[:m].copy().view(np.bool_)
    else:
        data = (np.frombuffer(data_raw, dtype=np.uint8)[:m] % 2).astype(data_dtype)
    m = data.shape[0]
    b = np.asarray(minor[:m], dtype=np.int32)
    shape = (n, t)
    if fmt == "coo":
        a = np.asarray(major[:m], dtype=np.int32)
        if a.shape[0] < m:
            a = np.concatenate([a, np.zeros(m - a.shape[0], np.int32)])
        cls = sp.coo_array if array_api else sp.coo_matrix
        mat = cls((np.ones(m, dtype=data.dtype) if m else data,
                   (np.zeros(m, np.int32), np.zeros(m, np.int32))), shape=shape)
        mat.data = data
        mat.row = a
        mat.col = b
    else:
        a = np.asarray(major, dtype=np.int32)
        cls = {("csr", False): sp.csr_matrix, ("csr", True): sp.csr_array,
               ("csc", False): sp.csc_matrix, ("csc", True): sp.csc_array}[(fmt, array_api)]
        mat = cls(shape)
        mat.data, mat.indices, mat.indptr = data, b, a
    rng = np.random.default_rng(score_seed)
    S = np.round(rng.random(shape), 1)
    call = {"roc_auc": lambda yy: fr.roc_auc(yy, S, average=None),
            "average_precision": lambda yy: fr.average_precision(yy, S, average=None),
            "all_metrics": lambda yy: fr.all_metrics(yy, S, average=None),
            "micro": lambda yy: fr.roc_auc(yy, S, average="micro"),
            "accumulator": lambda yy: _acc_sparse(yy, S)}[entry]
    got = outcome(call, mat)
    if not _sparse_valid(fmt, shape, a, b, data):
        assert got[0] == "rejected", (
            f"{fmt} labels with a malformed structure (indptr/row {a.tolist()}, indices/col "
            f"{b.tolist()}, shape {shape}) were accepted: {_short(got[1])}")
        return
    if _has_duplicates(fmt, a, b):
        return  # duplicate entries: summed by scipy, so neither 0/1 nor refused is wrong
    dense = _sparse_dense(fmt, shape, a, b, data)
    want = outcome(call, dense)
    assert_same_outcome(got, want, f"{entry} on {fmt} labels (indptr/row {a.tolist()}, "
                        f"indices/col {b.tolist()}, data {data.view(np.uint8).tolist()})")


def _acc_sparse(y: Any, S: np.ndarray) -> Any:
    acc = _fr().Accumulator()
    acc.update(y, S)
    return acc.compute("roc_auc", average=None)


_MISSING_KINDS = ("nan", "npnan", "none", "pdna")


def _make_id(kind: str, v: int) -> Any:
    if kind == "int":
        return v
    if kind == "npint":
        return np.int64(v)
    if kind == "str":
        return f"id{v}"
    if kind == "float":
        return float(v) + 0.5
    if kind == "nan":
        return float("nan")
    if kind == "npnan":
        return np.nan
    if kind == "none":
        return None
    if kind == "pdna":
        import pandas as pd
        return pd.NA
    raise KeyError(kind)


def probe_object_groups(kinds: list[str], values: list[int], labels: list[int],
                        scores: list[float], entry: str) -> None:
    """Object group ids: missing ones (NaN, None, pd.NA) are refused naming missing values;
    otherwise refused, or per-group values equal each group's one-task call."""
    fr = _fr()
    n = min(len(kinds), len(values), len(labels), len(scores))
    ids = [_make_id(k, v) for k, v in zip(kinds[:n], values[:n], strict=True)]
    g = np.empty(n, dtype=object)
    g[:] = ids
    y = np.asarray(labels[:n], dtype=np.int64)
    s = np.asarray(scores[:n], dtype=np.float64)
    fn = getattr(fr, entry)
    got = outcome(fn, y, s, groups=g, average=None)
    has_missing = any(k in _MISSING_KINDS for k in kinds[:n])
    if has_missing:
        assert got[0] == "rejected", (
            f"{entry}: group ids with missing values {ids} accepted: {_short(got[1])}")
        assert "missing" in got[1].lower(), f"{entry}: message does not name missing ids: {got[1]}"
        return
    if got[0] == "rejected":
        return
    res = got[1]
    distinct = list(set(ids))
    assert len(res.groups) == len(distinct), (
        f"{entry}: {len(distinct)} distinct ids {distinct} gave groups {res.groups.tolist()}")
    for k, gid in enumerate(res.groups.tolist()):
        rows = np.array([i for i, v in enumerate(ids) if v == gid], dtype=np.int64)
        assert rows.size, f"{entry}: group {gid!r} holds no rows of {ids}"
        one = outcome(fn, y[rows], s[rows])
        want = one[1] if one[0] == "value" else None
        vals = res.values[k] if entry != "all_metrics" else res.roc_auc[k]
        if entry == "all_metrics":
            want = None if want is None else want.roc_auc
        if want is not None:
            assert _float_same(float(vals), float(want)), (entry, gid, vals, want)


def _id_kind(values: list[Any]) -> str:
    if all(isinstance(v, str) for v in values):
        return "str"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    return "mixed"


def probe_accumulator_groups(batches: list[tuple[list[int], list[float], list[Any]]]) -> None:
    """A sequence of grouped updates: a rejected one changes nothing; no accepted one may
    make compute() fail (a batch the one-shot call refuses must be refused; string ids
    after integer ids must be refused, not converted); with one kind of id throughout,
    compute() equals the one-shot call on the accepted batches."""
    fr = _fr()
    acc = fr.Accumulator()
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, str]] = []
    for y, s, g in batches:
        kind = _id_kind(g)
        ids = np.asarray(g, dtype=str) if kind == "str" else (
            np.asarray(g, dtype=np.int64) if kind == "int" else np.empty(len(g), dtype=object))
        if kind == "mixed":
            ids[:] = g
        yy, ss = np.asarray(y, dtype=np.int64), np.asarray(s, dtype=np.float64)
        before = len(acc)
        try:
            acc.update(yy, ss, groups=ids)
        except (TypeError, ValueError):
            assert len(acc) == before, "a rejected update changed the accumulator"
            continue
        alone = outcome(fr.roc_auc, yy, ss, groups=ids, average=None)
        assert alone[0] == "value", (
            f"update accepted groups {ids.tolist()} ({ids.dtype}) that the one-shot call "
            f"refuses: {alone[1]}")
        if kept and kept[0][3] == "int" and kind == "str":
            raise AssertionError(f"string ids {g} accepted after integer ids "
                                 f"{kept[0][2].tolist()}: they are silently converted")
        kept.append((yy, ss, ids, kind))
    if not kept or not len(acc):
        return
    got = outcome(acc.compute, "roc_auc", average=None)
    assert got[0] == "value", (f"compute() fails after accepted updates "
                               f"{[(k[2].tolist(), k[2].dtype) for k in kept]}: {got[1]}")
    if len({k[3] for k in kept}) == 1:
        y = np.concatenate([k[0] for k in kept])
        s = np.concatenate([k[1] for k in kept])
        g = np.concatenate([k[2] for k in kept])
        want = outcome(fr.roc_auc, y, s, groups=g, average=None)
        assert_same_outcome(got, want, "accumulated grouped roc_auc", allow_reject=False)


PROBES = {
    "raw_bool_labels": probe_raw_bool_labels,
    "raw_scores": probe_raw_scores,
    "int_scores": probe_int_scores,
    "weights": probe_weights,
    "sparse": probe_sparse,
    "object_groups": probe_object_groups,
    "accumulator_groups": probe_accumulator_groups,
}


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    _worker_main()
