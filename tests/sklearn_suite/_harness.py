"""Runtime of the scikit-learn test-suite harness (see ``run.py``).

This module is both

* what the generated copy of scikit-learn's ``test_ranking.py`` imports:

  - the adapters that replace scikit-learn's ranking functions;
  - a ``pytest`` proxy whose ``raises``/``warns`` record a difference and let
    the test go on instead of stopping it;
  - wrappers of the module's ``assert_allclose``-style helpers that do the same
    (plain ``assert`` statements stay hard);

* the pytest plugin (``-p _harness``) that tells the adapters which test is
  running, marks a test failed when a difference was recorded, and writes one
  JSON record per test when the session ends.

The mode comes from the environment variable ``FASTRANK_SKSUITE_MODE``:

``"fastrank"``
    the substituted names call fastrank through thin adapters. Each call is
    also made to scikit-learn (on copies of the arguments, its result,
    exception and warnings discarded) and the two answers are compared: the
    *call-level differences*, which also show what the test does not check;
``"sklearn"``
    the control run: the same wrappers call scikit-learn's own functions
    unchanged. It tells which tests call a substituted function (the selected
    tests) and checks the harness itself: every test must pass there.

The substitutions come from ``FASTRANK_SKSUITE_SELECTION`` (one of
:data:`SELECTIONS`; the control run wraps every name of every selection), and
``FASTRANK_SKSUITE_ARGUMENTS`` says whether the adapters pass the arguments of
:data:`SKLEARN_RULES` (``"sklearn"``, the default: scikit-learn's rule where
fastrank's default deliberately differs, as a user replacing the function would
call it) or call fastrank with its defaults (``"default"``).

The adapters convert no result, catch no exception and filter no warning.
They only map scikit-learn's signature (positional or keyword, names,
defaults) onto fastrank's keyword arguments (plus those of :data:`SKLEARN_RULES`),
record each call and the warnings it emitted, and emit those warnings again
unchanged.

Importing this module imports only the standard library (the project's own
pytest run imports it when it collects doctests); numpy, scikit-learn and
fastrank are imported when the adapters are made.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

MODE_ENV = "FASTRANK_SKSUITE_MODE"
RESULTS_ENV = "FASTRANK_SKSUITE_RESULTS"
TEST_FILE_ENV = "FASTRANK_SKSUITE_TEST_FILE"
SELECTION_ENV = "FASTRANK_SKSUITE_SELECTION"
ARGUMENTS_ENV = "FASTRANK_SKSUITE_ARGUMENTS"

# The selections: each one a set of substitutions, scikit-learn name -> fastrank
# name, run on its own. Every name is imported by sklearn/metrics/tests/test_ranking.py
# from sklearn.metrics.
SELECTIONS: dict[str, dict[str, str]] = {
    "curves": {  # the binary-classifier curves and areas
        "average_precision_score": "average_precision",
        "roc_auc_score": "roc_auc",
        "roc_curve": "roc_curve",
        "precision_recall_curve": "precision_recall_curve",
        "det_curve": "det_curve",
        "confusion_matrix_at_thresholds": "confusion_matrix_at_thresholds",
    },
    "rankings": {  # each sample's labels ranked, and top-k accuracy
        "label_ranking_average_precision_score": "label_ranking_average_precision",
        "coverage_error": "coverage_error",
        "label_ranking_loss": "label_ranking_loss",
        "dcg_score": "dcg",
        "ndcg_score": "ndcg",
        "top_k_accuracy_score": "top_k_accuracy",
        "confusion_matrix_at_thresholds": "confusion_matrix_at_thresholds",
    },
}

# Every substituted name, of every selection (the control run wraps them all).
SUBSTITUTED: dict[str, str] = {k: v for sel in SELECTIONS.values() for k, v in sel.items()}

# Where fastrank's default deliberately differs from scikit-learn's rule, the
# fastrank argument that gives scikit-learn's rule: what a user who replaces the
# scikit-learn function with fastrank's, and wants its numbers, passes. The
# adapters set these in the "sklearn" arguments mode (the default), and not in the
# "default" mode, which measures fastrank's defaults.
SKLEARN_RULES: dict[str, dict[str, Any]] = {
    # a tie at the cut: the greater column first (scikit-learn's argsort), where
    # fastrank's default counts the tie by its expected value
    "top_k_accuracy_score": {"ties": "sklearn"},
    # a sample without relevant labels counts as 0 in the mean, where fastrank's
    # default leaves it out (NaN, with a warning)
    "ndcg_score": {"no_relevant": "zero"},
}
ARGUMENTS = ("sklearn", "default")

# scikit-learn parameter names that fastrank spells differently. ``probas_pred``
# is precision_recall_curve's second argument before scikit-learn 1.7 (it is
# ``y_score`` since); kept so the harness also runs against older releases.
RENAMED: dict[str, str] = {"probas_pred": "y_score"}

# Explicit scikit-learn arguments with no fastrank counterpart that mean "the
# default": (function, parameter, value) -> dropped from the fastrank call.
# roc_auc_score's multi_class="raise" (its default) makes scikit-learn refuse
# multiclass input; fastrank's roc_auc has no such value (it defaults to "ovr"
# and raises ValueError for "raise" even on binary input).
DROPPED_DEFAULTS: set[tuple[str, str, Any]] = {("roc_auc_score", "multi_class", "raise")}


def _dropped(function: str, parameter: str, value: Any) -> bool:
    return any(
        f == function and p == parameter and isinstance(value, str) and value == v
        for f, p, v in DROPPED_DEFAULTS
    )


def mode() -> str:
    value = os.environ.get(MODE_ENV, "fastrank")
    if value not in ("fastrank", "sklearn"):
        raise ValueError(f"{MODE_ENV} must be 'fastrank' or 'sklearn'; got {value!r}")
    return value


def selection() -> dict[str, str]:
    """The substitutions of this run: a selection's (``FASTRANK_SKSUITE_SELECTION``),
    or all of them (unset, or ``"all"``: the control run)."""
    value = os.environ.get(SELECTION_ENV, "all")
    if value == "all":
        return dict(SUBSTITUTED)
    if value not in SELECTIONS:
        raise ValueError(f"{SELECTION_ENV} must be 'all' or one of {sorted(SELECTIONS)}; "
                         f"got {value!r}")
    return dict(SELECTIONS[value])


def arguments() -> str:
    """``"sklearn"``: the adapters pass :data:`SKLEARN_RULES`; ``"default"``: not."""
    value = os.environ.get(ARGUMENTS_ENV, "sklearn")
    if value not in ARGUMENTS:
        raise ValueError(f"{ARGUMENTS_ENV} must be one of {ARGUMENTS}; got {value!r}")
    return value


# ------------------------------------------------------------------- per-test state


class _State:
    """What the running test has done so far (reset by the plugin per test)."""

    def __init__(self) -> None:
        self.reset(None)

    def reset(self, nodeid: str | None) -> None:
        self.nodeid = nodeid
        self.calls: dict[str, int] = {}
        self.warnings: list[dict[str, Any]] = []  # emitted by substituted calls
        self.soft: list[dict[str, Any]] = []  # differences that fail the test
        self.notes: list[dict[str, Any]] = []  # message-text differences only
        self.adapter_errors: list[str] = []
        self.call_diffs: list[dict[str, Any]] = []  # fastrank vs scikit-learn, call by call
        self.raises_depth = 0  # inside pytest.raises, assertions stay hard


STATE = _State()


def _same_file(a: str | None, b: str | None) -> bool:
    return bool(a and b) and os.path.abspath(a) == os.path.abspath(b)  # type: ignore[arg-type]


def _test_line() -> int | None:
    """Line number in the test module of the innermost frame that lies in it."""
    test_file = os.environ.get(TEST_FILE_ENV)
    frame = sys._getframe(1)
    while frame is not None:
        if _same_file(frame.f_code.co_filename, test_file):
            return frame.f_lineno
        frame = frame.f_back
    return None


def _describe_warning(w: warnings.WarningMessage) -> dict[str, Any]:
    cat = w.category
    return {
        "category": f"{cat.__module__}.{cat.__qualname__}",
        "bases": [_qual(b) for b in cat.__bases__],
        "message": str(w.message),
        "fastrank": _is_fastrank_warning(cat),
        "sklearn_undefined": _is_sklearn_undefined(cat),
    }


def _is_fastrank_warning(cat: type) -> bool:
    import fastrank

    return issubclass(cat, fastrank.UndefinedMetricWarning)


def _is_sklearn_undefined(cat: type) -> bool:
    from sklearn.exceptions import UndefinedMetricWarning

    return issubclass(cat, UndefinedMetricWarning)


# ------------------------------------------------------------------------- adapters


def _reemit(caught: list[warnings.WarningMessage]) -> None:
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def make_adapter(sk_name: str, which: str | None = None, args: str | None = None) -> Any:
    """The function that replaces ``sklearn.metrics.<sk_name>`` in the test module.

    ``which`` is ``"fastrank"`` or ``"sklearn"`` (default: :func:`mode`); ``args``
    is ``"sklearn"`` (fastrank gets :data:`SKLEARN_RULES`) or ``"default"``
    (default: :func:`arguments`).
    """
    import sklearn.metrics

    import fastrank

    which = which or mode()
    rules = SKLEARN_RULES.get(sk_name, {}) if (args or arguments()) == "sklearn" else {}
    sk_func = getattr(sklearn.metrics, sk_name)
    sig = inspect.signature(sk_func)  # the declared signature (follows __wrapped__)
    fr_func = getattr(fastrank, SUBSTITUTED[sk_name])

    def to_fastrank(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple, dict]:
        """scikit-learn's arguments as fastrank's (y_true, y_score, **keywords)."""
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            # scikit-learn's declared signature rejects the call (in 1.9.1 only
            # the deprecated positional pos_label of confusion_matrix_at_thresholds,
            # which scikit-learn still accepts with a FutureWarning): hand the
            # call to fastrank as it is, so that fastrank's own answer is seen.
            return args, kwargs
        kw: dict[str, Any] = {}
        for name, value in bound.arguments.items():  # explicitly passed only
            if _dropped(sk_name, name, value):
                continue
            kw[RENAMED.get(name, name)] = value
        y_true = kw.pop("y_true")
        y_score = kw.pop("y_score")
        for name, value in rules.items():  # scikit-learn's rule, where not fastrank's default
            kw.setdefault(name, value)
        return (y_true, y_score), kw

    def outer(*args: Any, **kwargs: Any) -> Any:
        STATE.calls[sk_name] = STATE.calls.get(sk_name, 0) + 1
        shadow = None
        if which == "fastrank":
            try:
                fargs, fkw = to_fastrank(args, kwargs)
            except Exception:  # a bug of this adapter: never hide it, record it
                STATE.adapter_errors.append(traceback.format_exc(limit=3))
                raise
            target, call_args, call_kw = fr_func, fargs, fkw
            # the same call to scikit-learn, on copies, for the call-level comparison
            shadow = _captured(sk_func, *copy.deepcopy((args, kwargs)))
        else:
            target, call_args, call_kw = sk_func, args, kwargs
        caught: list[warnings.WarningMessage] = []
        result: Any = None
        error: BaseException | None = None
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = target(*call_args, **call_kw)
        except TypeError as exc:
            error = exc
            if exc.__traceback__ is not None and exc.__traceback__.tb_next is None:
                # raised by the call itself: the target's signature refused the arguments
                exc.harness_origin = f"{which} (its signature)"  # type: ignore[attr-defined]
            raise
        except BaseException as exc:
            error = exc
            raise
        finally:
            # record what the call emitted, then emit it again, unchanged, where
            # the test (and any pytest.warns around the call) sees it
            STATE.warnings.extend({"function": sk_name, **_describe_warning(w)} for w in caught)
            if shadow is not None:
                diffs = compare_calls(shadow, (result, error, list(caught)))
                if diffs:
                    STATE.call_diffs.append({
                        "function": sk_name, "line": _test_line(),
                        "call": describe_call(sk_name, args, kwargs), "diffs": diffs,
                    })
            _reemit(caught)
        return result

    outer.__name__ = sk_name  # pytest ids of parametrized functions use __name__
    outer.__qualname__ = sk_name
    outer.__doc__ = (f"{sk_name} -> fastrank.{SUBSTITUTED[sk_name]}"
                     f"({', '.join(f'{k}={v!r}' for k, v in rules.items())}) ({which}) adapter")
    outer.__signature__ = sig  # type: ignore[attr-defined]
    outer.__module__ = __name__
    outer.harness_target = which  # type: ignore[attr-defined]
    return outer


def adapters(which: str | None = None) -> dict[str, Any]:
    """The adapters of this run's substitutions (:func:`selection`)."""
    return {name: make_adapter(name, which) for name in selection()}


# ------------------------------------------------------------ call-level comparison

RTOL = 1e-9
ATOL = 1e-12


def _captured(func: Any, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None, list]:
    """``func(*args, **kwargs)``: (result, exception, warnings), nothing escapes."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return func(*args, **kwargs), None, list(caught)
        except Exception as exc:
            return None, exc, list(caught)


def describe_value(v: Any, limit: int = 160) -> str:
    import numpy as np

    if hasattr(v, "toarray") and hasattr(v, "shape"):  # scipy.sparse
        v = v.toarray()
    if isinstance(v, np.ndarray):
        if v.size <= 24:
            text = np.array2string(v, separator=", ", threshold=24, max_line_width=10**6)
            text = " ".join(text.split())
            dt = "" if v.dtype in (np.float64, np.int64) else f", dtype={v.dtype}"
            return f"array({text}{dt})"
        return f"<array shape={v.shape} dtype={v.dtype}>"
    if isinstance(v, list | tuple) and len(v) > 24:
        return f"<{type(v).__name__} of {len(v)}>"
    if isinstance(v, float | np.floating):
        return repr(float(v))
    text = " ".join(repr(v).split())
    return text if len(text) <= limit else f"<{type(v).__name__} {text[:limit]}...>"


def describe_call(name: str, args: tuple, kwargs: dict) -> str:
    parts = [describe_value(a) for a in args]
    parts += [f"{k}={describe_value(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _describe_result(result: Any, error: BaseException | None) -> str:
    if error is not None:
        return f"raises {_qual(type(error))}: {_short(error, 200)}"
    if isinstance(result, tuple):
        return "(" + ", ".join(describe_value(r) for r in result) + ")"
    return describe_value(result)


def _compare_values(a: Any, b: Any, where: str) -> list[dict[str, str]]:
    import numpy as np

    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return [{"kind": "value", "detail": f"{where}structure differs"}]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += _compare_values(x, y, f"{where}[{i}] ")
        return out
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return [{"kind": "value", "detail": f"{where}shape {x.shape} vs {y.shape}"}]
    out = []
    if x.dtype != y.dtype and not (x.ndim == 0 and x.dtype.kind == y.dtype.kind == "f"):
        out.append({"kind": "dtype", "detail": f"{where}dtype {x.dtype} vs {y.dtype}"})
    try:
        same = bool(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True))
    except TypeError:
        same = bool(np.array_equal(x, y))
    if not same:
        out.append({"kind": "value", "detail": f"{where}values differ"})
    return out


def _warning_set(caught: list) -> list[str]:
    return sorted({_qual(w.category) for w in caught})


def compare_calls(sk: tuple, fr: tuple) -> list[dict[str, str]]:
    """Differences between scikit-learn's and fastrank's answers to one call."""
    (sk_res, sk_err, sk_w), (fr_res, fr_err, fr_w) = sk, fr
    diffs: list[dict[str, str]] = []
    sk_text, fr_text = _describe_result(sk_res, sk_err), _describe_result(fr_res, fr_err)
    if sk_err is not None or fr_err is not None:
        if sk_err is None or fr_err is None:
            diffs.append({"kind": "only-sklearn-raises" if fr_err is None
                          else "only-fastrank-raises", "detail": "only one of them raises"})
        elif type(sk_err) is not type(fr_err) and not isinstance(fr_err, type(sk_err)):
            diffs.append({"kind": "exception-type",
                          "detail": f"{_qual(type(sk_err))} vs {_qual(type(fr_err))}"})
    else:
        diffs += _compare_values(sk_res, fr_res, "")
    if _warning_set(sk_w) != _warning_set(fr_w):
        diffs.append({"kind": "warning",
                      "detail": f"scikit-learn warns {_warning_set(sk_w) or 'nothing'}: "
                                + "; ".join(repr(str(w.message)) for w in sk_w)
                                + f" | fastrank warns {_warning_set(fr_w) or 'nothing'}: "
                                + "; ".join(repr(str(w.message)) for w in fr_w)})
    for d in diffs:
        d["sklearn"], d["fastrank"] = sk_text, fr_text
    return diffs


# -------------------------------------------------------------- pytest.raises / warns


class _Raises:
    """``pytest.raises`` that records instead of failing.

    * the expected type, message matching: passes;
    * the expected type, message not matching ``match``: a *note* (the test
      can still count as passed-except-message-text);
    * another exception type, or none: a *soft failure*; the exception (if
      any) is suppressed and the test goes on, so that later differences of
      the same test are seen too. The test is reported failed at its end.
    """

    def __init__(self, real: Any, expected: Any, match: Any) -> None:
        self.real = real
        self.expected = expected
        self.match = match
        self.line = _test_line()

    def __enter__(self) -> Any:
        from _pytest._code import ExceptionInfo

        STATE.raises_depth += 1
        self.excinfo = ExceptionInfo.for_later()
        return self.excinfo

    def __exit__(self, tp: Any, val: Any, tb: Any) -> bool:
        STATE.raises_depth -= 1
        expected_name = _names(self.expected)
        if tp is None:
            STATE.soft.append({
                "kind": "did-not-raise", "line": self.line,
                "detail": f"expected {expected_name}"
                          + (f" matching {self.match!r}" if self.match else "")
                          + "; nothing was raised",
            })
            return False
        if not issubclass(tp, self.expected):
            STATE.soft.append({
                "kind": "wrong-exception", "line": self.line,
                "detail": f"expected {expected_name}"
                          + (f" matching {self.match!r}" if self.match else "")
                          + f"; got {_qual(tp)}: {_short(val)}",
                "raised_in": _raised_in(tb, val),
            })
            return True
        self.excinfo.fill_unfilled((tp, val, tb))
        if self.match is not None and not re.search(self.match, str(val)):
            STATE.notes.append({
                "kind": "error-message", "line": self.line,
                "detail": f"{_qual(tp)} raised as expected but its message does not "
                          f"match {_pattern(self.match)!r}: {_short(val)}",
            })
        return True


class _Warns:
    """``pytest.warns`` that records instead of failing (see :class:`_Raises`).

    A warning of the expected category whose text does not match is a note.
    No warning of the expected category is a soft failure; the record says
    which warnings came instead and whether the expectation would be met if
    fastrank's UndefinedMetricWarning were a UserWarning subclass.
    """

    def __init__(self, expected: Any, match: Any) -> None:
        self.expected = expected
        self.match = match
        self.line = _test_line()

    def __enter__(self) -> list[warnings.WarningMessage]:
        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self.caught

    def __exit__(self, tp: Any, val: Any, tb: Any) -> bool:
        self._cm.__exit__(tp, val, tb)
        caught = list(self.caught)
        same = [w for w in caught if issubclass(w.category, self.expected)]
        expected_name = _names(self.expected)
        if same:
            if self.match is not None and not any(
                re.search(self.match, str(w.message)) for w in same
            ):
                STATE.notes.append({
                    "kind": "warning-message", "line": self.line,
                    "detail": f"{expected_name} emitted as expected but no message matches "
                              f"{_pattern(self.match)!r}; got "
                              + "; ".join(repr(str(w.message)) for w in same),
                })
        else:
            got = [_describe_warning(w) for w in caught]
            fr = [g for g in got if g["fastrank"]]
            as_user = bool(fr) and _accepts_userwarning(self.expected)
            if fr:
                kind = "warning-class"
                detail = (f"expected {expected_name}"
                          + (f" matching {_pattern(self.match)!r}" if self.match else "")
                          + "; got " + "; ".join(
                              f"{g['category']} ({', '.join(g['bases'])}): {g['message']!r}"
                              for g in fr))
            elif got:
                kind = "warning-class"
                detail = f"expected {expected_name}; got " + "; ".join(
                    f"{g['category']}: {g['message']!r}" for g in got)
            else:
                kind = "no-warning"
                detail = (f"expected {expected_name}"
                          + (f" matching {_pattern(self.match)!r}" if self.match else "")
                          + "; no warning at all")
            STATE.soft.append({"kind": kind, "line": self.line, "detail": detail,
                               "would_pass_as_userwarning": as_user})
        # pytest >= 8 re-emits the warnings that pytest.warns did not expect
        _reemit([w for w in caught if w not in same])
        return False


def _accepts_userwarning(expected: Any) -> bool:
    types = expected if isinstance(expected, tuple) else (expected,)
    return any(issubclass(UserWarning, t) for t in types)


# The assertion helpers the test module imports from sklearn.utils._testing.
SOFT_ASSERTS = (
    "assert_allclose", "assert_almost_equal", "assert_array_almost_equal", "assert_array_equal",
)


def soft_asserts(namespace: dict[str, Any]) -> dict[str, Any]:
    """Wrappers of the module's assertion helpers that record a failure and go on.

    A failed comparison is a soft failure (the test is reported failed at its
    end) so that the rest of the test still runs and shows its own
    differences. Plain ``assert`` statements stay hard, and so does every
    helper inside ``pytest.raises`` (where an AssertionError may be expected).
    """
    out = {}
    for name in SOFT_ASSERTS:
        real = namespace.get(name)
        if real is None:
            continue

        def soft(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            try:
                return _real(*args, **kwargs)
            except AssertionError as exc:
                if STATE.raises_depth:
                    raise
                STATE.soft.append({"kind": "assertion", "line": _test_line(),
                                   "detail": f"{_name}: {_short(exc, 700)}"})
                return None

        soft.__name__ = name
        out[name] = soft
    return out


class PytestProxy:
    """The ``pytest`` module, with the recording ``raises`` and ``warns``."""

    def __init__(self, real: Any) -> None:
        object.__setattr__(self, "_real", real)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def raises(self, expected_exception: Any, *args: Any, match: Any = None,
               **kwargs: Any) -> Any:
        if kwargs:  # check=, or anything newer: let the real one handle it
            return self._real.raises(expected_exception, *args, match=match, **kwargs)
        cm = _Raises(self._real, expected_exception, match)
        if args:  # the function form: pytest.raises(Exc, func, *args)
            func, *rest = args
            with cm as excinfo:
                func(*rest)
            return excinfo
        return cm

    def warns(self, expected_warning: Any = Warning, *args: Any, match: Any = None,
              **kwargs: Any) -> Any:
        if kwargs:
            return self._real.warns(expected_warning, *args, match=match, **kwargs)
        cm = _Warns(expected_warning, match)
        if args:
            func, *rest = args
            with cm:
                return func(*rest)
        return cm


def _qual(tp: type) -> str:
    mod = tp.__module__
    return tp.__qualname__ if mod == "builtins" else f"{mod}.{tp.__qualname__}"


def _names(expected: Any) -> str:
    if isinstance(expected, tuple):
        return "(" + ", ".join(_qual(t) for t in expected) + ")"
    return _qual(expected)


def _pattern(match: Any) -> str:
    return match.pattern if isinstance(match, re.Pattern) else str(match)


def _short(val: Any, limit: int = 300) -> str:
    text = " ".join(str(val).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _raised_in(tb: Any, val: Any = None) -> str:
    """Which code raised: fastrank, this harness, scikit-learn, numpy, or the test."""
    origin = getattr(val, "harness_origin", None)
    if origin:
        return str(origin)
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return _origin(last)


def _origin(path: str | None) -> str:
    if path is None:
        return "?"
    p = Path(path).as_posix()
    if "/fastrank/" in p and "/tests/" not in p:
        return "fastrank"
    if p.endswith("/_harness.py"):
        return "adapter"
    if "/sklearn/" in p:
        return "sklearn"
    if "/numpy/" in p:
        return "numpy"
    if _same_file(path, os.environ.get(TEST_FILE_ENV)):
        return "test"
    return p


# --------------------------------------------------------------------- pytest plugin

_RESULTS: dict[str, dict[str, Any]] = {}


def pytest_configure(config: Any) -> None:
    _RESULTS.clear()


def pytest_runtest_setup(item: Any) -> None:
    STATE.reset(item.nodeid)


def _hard_failure(call: Any) -> dict[str, Any] | None:
    excinfo = call.excinfo
    if excinfo is None:
        return None
    test_file = os.environ.get(TEST_FILE_ENV)
    line = None
    for entry in excinfo.traceback:
        if _same_file(str(entry.path), test_file):
            line = entry.lineno + 1
    tb = excinfo.tb
    return {
        "type": _qual(excinfo.type),
        "message": _short(excinfo.value, 1200),
        "line": line,
        "raised_in": _raised_in(tb, excinfo.value),
    }


def _record(item: Any, when: str, call: Any, report: Any) -> None:
    rec = _RESULTS.setdefault(item.nodeid, {
        "nodeid": item.nodeid, "outcome": "passed", "hard": None,
    })
    if report.skipped:
        rec["outcome"] = "skipped"
    elif report.failed:
        rec["outcome"] = "failed" if when == "call" else "error"
        if rec["hard"] is None:
            rec["hard"] = _hard_failure(call)
    if when == "call" or report.failed:
        rec.update({
            "calls": dict(STATE.calls),
            "warnings": list(STATE.warnings),
            "soft": list(STATE.soft),
            "notes": list(STATE.notes),
            "adapter_errors": list(STATE.adapter_errors),
            "call_diffs": list(STATE.call_diffs),
        })


def _soft_text() -> str:
    return "\n".join(
        f"[harness] {s['kind']} (test line {s['line']}): {s['detail']}" for s in STATE.soft
    )


try:
    import pytest as _pytest

    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item: Any, call: Any) -> Any:
        outcome = yield
        report = outcome.get_result()
        if call.when == "call" and STATE.soft:
            # differences recorded by the proxy's raises/warns fail the test
            if report.passed:
                report.outcome = "failed"
                report.longrepr = _soft_text()
            elif report.failed:
                report.longrepr = f"{report.longreprtext}\n{_soft_text()}"
        _record(item, call.when, call, report)
except ImportError:  # pragma: no cover - pytest is always there when this is a plugin
    pass


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    path = os.environ.get(RESULTS_ENV)
    if path:
        Path(path).write_text(json.dumps(
            {"mode": mode(), "results": list(_RESULTS.values())}, indent=1, default=str
        ))
