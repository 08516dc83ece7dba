"""Run scikit-learn's own ranking tests against fastrank.

Usage (from the repository root, with the project's virtualenv)::

    .venv/bin/python tests/sklearn_suite/run.py          # summary (about 30 s warm)
    .venv/bin/python tests/sklearn_suite/run.py -v       # every difference of every test
    .venv/bin/python tests/sklearn_suite/run.py --list   # + the selected tests
    .venv/bin/python tests/sklearn_suite/run.py --selection rankings --arguments sklearn
    .venv/bin/python tests/sklearn_suite/run.py --json out.json --keep /tmp/sksuite

The fastrank tested is the one ``import fastrank`` finds (the editable install;
``PYTHONPATH=/some/checkout`` tests another copy). From a test::

    sys.path.insert(0, "tests/sklearn_suite"); from run import run_suites
    results = run_suites()   # {(selection, arguments): SuiteResult}
    results[("rankings", "sklearn")].counts()   # {'selected': 73, 'passed': ..., ...}

Selections and arguments
------------------------
Two *selections* of substitutions (``_harness.SELECTIONS``), each run on its own:

* ``curves``: ``average_precision_score``, ``roc_auc_score``, ``roc_curve``,
  ``precision_recall_curve``, ``det_curve``, ``confusion_matrix_at_thresholds``;
* ``rankings``: ``label_ranking_average_precision_score``, ``coverage_error``,
  ``label_ranking_loss``, ``dcg_score``, ``ndcg_score``, ``top_k_accuracy_score``,
  and ``confusion_matrix_at_thresholds``.

Each selection runs with *sklearn arguments* and with *default arguments*.
Where fastrank's default deliberately differs from scikit-learn's rule, fastrank
has an argument that gives scikit-learn's rule; with sklearn arguments the
adapters pass it (``_harness.SKLEARN_RULES``), as a user who replaces the
scikit-learn function with fastrank's and wants its numbers would:
``top_k_accuracy(..., ties="sklearn")`` and ``ndcg(..., no_relevant="zero")``.
With default arguments they pass nothing of their own: fastrank's defaults. A
selection whose adapters set nothing (``curves``) runs once; its default
arguments are its sklearn arguments.

What it does
------------
1. Copies the installed ``sklearn/metrics/tests/test_ranking.py`` into a
   temporary directory and appends one line to its last top-level import, so
   that line numbers stay those of the installed file. The line rebinds the
   names the module imported from ``sklearn.metrics``:
   ``average_precision_score``, ``roc_auc_score``, ``roc_curve``,
   ``precision_recall_curve``, ``det_curve`` and
   ``confusion_matrix_at_thresholds``. They become adapters (``_harness.py``).
   ``pytest`` becomes a proxy whose ``raises``/``warns`` record a difference
   and let the test go on, and the ``assert_allclose``-style helpers do the
   same. The rebinding happens before the module body runs, so it also reaches
   the module-level lists and ``parametrize`` arguments that hold these
   functions (``CURVE_FUNCS``, ``metric_func``, ...). scikit-learn's own
   internals (``metric_at_thresholds``, ``auc``, ...) keep calling
   scikit-learn. The installed scikit-learn is not modified.
2. Runs the copy with pytest and ``-p sklearn.conftest`` (scikit-learn's
   fixtures, e.g. ``global_random_seed``), isolated from fastrank's pytest
   configuration, up to four runs in parallel:

   * one *control* run: the adapters of every selection call scikit-learn
     itself. The tests that call at least one function of a selection there are
     that selection's *selected* tests (with 1.9.1, of 248: 156 for ``curves``,
     73 for ``rankings``). All tests must pass there, which checks the harness.
   * a *fastrank* run per selection and arguments: the adapters of the
     selection call fastrank (the other names stay scikit-learn's). Every call is also made
     to scikit-learn, and the two answers (value, dtype, exception type,
     warning categories) are compared: the *call-level differences*. They
     also show what the tests do not check.
3. Classifies each selected test of the fastrank run:

   * passed;
   * passed except message text: the only differences are the texts of
     exceptions (``pytest.raises(match=...)`` with the right exception type)
     or of warnings (``pytest.warns(match=...)`` with the right category);
   * failed, behavioural: a wrong value, another exception type or none, a
     warning of another category or none, ...;
   * failed, adapter: the adapter itself raised (a bug of this harness).

Adapters
--------
Only the arguments the caller passed are forwarded, as keywords, after binding
the call to scikit-learn's *declared* signature (``inspect.signature``).
scikit-learn's defaults are therefore mapped onto fastrank's defaults, not
passed along: ``average_precision_score``'s ``pos_label=1`` becomes fastrank's
``None``. With sklearn arguments the adapters add those of ``SKLEARN_RULES``
(see above). The one explicit value dropped is ``roc_auc_score(multi_class="raise")``,
scikit-learn's default, which fastrank does not know. A call that the declared
signature rejects goes to fastrank unchanged. Results, exceptions and warnings
are passed through as they are.

Version assumptions (scikit-learn 1.9.1, pytest 9)
--------------------------------------------------
* The test module imports the substituted names from ``sklearn.metrics`` at
  top level and never rebinds them (checked: the harness refuses to run
  otherwise).
* ``_binary_clf_curve`` is gone in 1.9. Its successor,
  ``_sort_inputs_and_compute_classification_thresholds``, is private and has
  no fastrank counterpart. It is not substituted, so its three tests are not
  selected. Nor are ``_dcg_sample_scores`` and ``_ndcg_sample_scores``
  (per-sample values; ``test_dcg_score``, ``test_dcg_ties``,
  ``test_ndcg_score`` call only them), nor the tests of the module's own
  reference ``_my_lrap``.
* ``probas_pred`` (``precision_recall_curve`` before 1.7) would be renamed to
  ``y_score``. The deprecated positional ``pos_label`` of
  ``confusion_matrix_at_thresholds`` (accepted until 1.11) is not part of the
  declared signature.
* ``global_random_seed`` comes from ``sklearn.conftest`` and is 42 unless
  ``SKLEARN_TESTS_GLOBAL_RANDOM_SEED`` says otherwise.
* No network: the tests use ``load_iris`` (bundled) and generated data.
* ``DIAGNOSES`` below records the analysis of the failures seen with
  scikit-learn 1.9.1 and fastrank 0.1.0. The automatic cause printed with it
  is what happened in the current run.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUITE_DIR = Path(__file__).resolve().parent
TEST_MODULE = "sklearn.metrics.tests.test_ranking"

# The harness module is imported by the generated copy and loaded as a plugin.
_HARNESS = "_harness"

# Diagnoses of the failures seen with scikit-learn 1.9.1 and fastrank 0.1.0 (commit
# 4cf855d), keyed by test function name. Printed next to a failure of that test.
# The automatic cause printed before it is what actually happened in this run.
DIAGNOSES: dict[str, str] = {
    "test_roc_curve_one_label":
        "warning category only: fastrank.UndefinedMetricWarning is not "
        "sklearn.exceptions.UndefinedMetricWarning (fpr, tpr, thresholds identical)",
    "test_auc_score_non_binary_class":
        "warning category only (one-class roc_auc_score: NaN in both)",
    "test_roc_curve_toydata":
        "warning category (one-class roc_curve / roc_auc_score); average='samples' over "
        "one-class samples: NaN with a warning where scikit-learn raises; every other value "
        "agrees",
    "test_precision_recall_curve_toydata":
        "warning category (test expects UserWarning; fastrank's is a RuntimeWarning); AP "
        "without positives NaN, not 0 (documented); multilabel averages leave such columns "
        "out (macro 1.0 vs 0.5; NaN when no column has positives), and average='samples' "
        "the samples without positives",
    "test_multiclass_ovo_roc_auc_toydata":
        "multi_class='ovo', average=None: ValueError instead of NotImplementedError",
    "test_roc_auc_score_multiclass_labels_error":
        "unsorted labels: scikit-learn raises ValueError; fastrank reads column k as "
        "labels[k] and returns a value (superset)",
    "test_roc_auc_score_multiclass_error":
        "multiclass y_true without multi_class: scikit-learn raises (default 'raise'); "
        "fastrank computes one-vs-rest (superset)",
    "test_confusion_matrix_at_thresholds_implicit_bytes_pos_label":
        "bytes labels without pos_label: ValueError instead of TypeError",
    "test_average_precision_score_multilabel_pos_label_errors":
        "multilabel y_true, pos_label=0: scikit-learn raises; fastrank scores 0 as the "
        "positive label of every column (superset)",
    "test_average_precision_score_multiclass_pos_label_errors":
        "multiclass y_true, pos_label=3: scikit-learn raises; fastrank ignores pos_label "
        "silently, whatever its value (bug)",
    # the 'rankings' selection (fastrank after commit ee9f855)
    "test_top_k_accuracy_score_warning":
        "warning category only: fastrank.UndefinedMetricWarning (a UserWarning, as "
        "scikit-learn's is) is not sklearn.exceptions.UndefinedMetricWarning; both warn "
        "for k >= n_classes and give 1.0",
    "test_top_k_accuracy_score_ties":
        "default arguments only: fastrank's ties='expected' counts a class tied at the "
        "cut by its chance to fall inside; the test expects scikit-learn's rule (the "
        "greater column first), which ties='sklearn' gives",
}


@dataclasses.dataclass
class Outcome:
    nodeid: str
    status: str  # "passed", "message", "failed"
    category: str | None  # for failed: "behaviour" or "adapter"
    cause: str  # for failed: the first difference, and the kinds of the others
    causes: list[str]  # for failed: every difference, in order
    notes: list[str]  # message-text differences
    call_diffs: list[dict[str, Any]]  # fastrank vs scikit-learn on each call of the test
    would_pass_as_userwarning: bool
    record: dict[str, Any]


@dataclasses.dataclass
class SuiteResult:
    selection: str  # a key of _harness.SELECTIONS
    arguments: str  # "sklearn" (the adapters pass SKLEARN_RULES) or "default"
    adapter_arguments: dict[str, dict[str, Any]]  # what the adapters passed, by function
    sklearn_version: str
    fastrank_version: str
    fastrank_path: str
    module_tests: int  # tests collected in the module
    selected: int
    passed: int
    passed_except_message: int
    failed: int
    failed_behaviour: int
    failed_adapter: int
    would_pass_as_userwarning: int
    control_failures: list[str]  # harness problems: must be empty
    outcomes: list[Outcome]
    signature_notes: list[str]
    seconds: float

    def counts(self) -> dict[str, int]:
        """The numbers of tests, by outcome."""
        return {
            "selected": self.selected,
            "passed": self.passed,
            "passed_except_message_text": self.passed_except_message,
            "failed": self.failed,
            "failed_behaviour": self.failed_behaviour,
            "failed_adapter": self.failed_adapter,
            "control_failures": len(self.control_failures),
        }


# ------------------------------------------------------------------ the patched copy


def installed_test_file() -> Path:
    import importlib.util

    spec = importlib.util.find_spec(TEST_MODULE)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"{TEST_MODULE} is not installed (scikit-learn without its tests?)")
    return Path(spec.origin)


def patched_source(source: str) -> str:
    """The test module with the substitutions appended to its last top-level import."""
    sys.path.insert(0, str(SUITE_DIR))
    try:
        from _harness import SUBSTITUTED
    finally:
        sys.path.remove(str(SUITE_DIR))
    tree = ast.parse(source)
    body = list(tree.body)
    start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(
        getattr(body[0], "value", None), ast.Constant) else 0
    end = start
    while end < len(body) and isinstance(body[end], ast.Import | ast.ImportFrom):
        end += 1
    imports = body[start:end]
    if not imports:
        raise RuntimeError("the test module does not start with its imports")
    imported = {
        alias.asname or alias.name
        for node in imports
        if isinstance(node, ast.ImportFrom) and node.module == "sklearn.metrics"
        for alias in node.names
    }
    missing = set(SUBSTITUTED) - imported
    if missing:
        raise RuntimeError(
            f"the test module no longer imports {sorted(missing)} from sklearn.metrics at "
            "top level: the harness would not reach them; update run.py"
        )
    if not any(isinstance(n, ast.Import) and any(a.name == "pytest" and a.asname is None
                                                  for a in n.names) for n in imports):
        raise RuntimeError("the test module does not 'import pytest' at top level")
    # Rebinding elsewhere (a local import of a substituted name) would escape the patch.
    for node in ast.walk(tree):
        if node in imports:
            continue
        if isinstance(node, ast.ImportFrom) and any(
            (a.asname or a.name) in SUBSTITUTED for a in node.names
        ):
            raise RuntimeError(f"line {node.lineno} imports a substituted name again")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and node.id in SUBSTITUTED:
            raise RuntimeError(f"line {node.lineno} rebinds {node.id}")
    last = imports[-1]
    lines = source.splitlines(keepends=True)
    idx = last.end_lineno - 1  # type: ignore[operator]
    inject = (
        f"; import {_HARNESS} as _fastrank_harness"
        "; pytest = _fastrank_harness.PytestProxy(pytest)"
        "; globals().update(_fastrank_harness.adapters())"
        "; globals().update(_fastrank_harness.soft_asserts(globals()))"
        "  # <- fastrank sklearn_suite harness (generated)"
    )
    line = lines[idx].rstrip("\r\n")
    if "#" in line:
        raise RuntimeError("the last import line has a comment; cannot append to it")
    lines[idx] = line + inject + "\n"
    return "".join(lines)


def _write_copy(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    test_file = dest / "test_ranking.py"
    test_file.write_text(patched_source(installed_test_file().read_text()))
    (dest / "pytest.ini").write_text(
        "[pytest]\n"
        "# isolated from fastrank's pyproject (which turns warnings into errors):\n"
        "# scikit-learn runs its tests without -W error by default\n"
        "addopts = -p no:cacheprovider\n"
    )
    return test_file


def _start(which: str, dest: Path, selection: str = "all", arguments: str = "sklearn"
           ) -> tuple[subprocess.Popen[bytes], Path, Path, Path]:
    test_file = _write_copy(dest)
    results = dest / "results.json"
    log = dest / "pytest.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(SUITE_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env.update({
        "FASTRANK_SKSUITE_MODE": which,
        "FASTRANK_SKSUITE_SELECTION": selection,
        "FASTRANK_SKSUITE_ARGUMENTS": arguments,
        "FASTRANK_SKSUITE_RESULTS": str(results),
        "FASTRANK_SKSUITE_TEST_FILE": str(test_file),
        "SKLEARN_SKIP_NETWORK_TESTS": "1",
    })
    env.pop("SKLEARN_WARNINGS_AS_ERRORS", None)
    cmd = [
        sys.executable, "-m", "pytest", str(test_file),
        "-c", str(dest / "pytest.ini"), "--rootdir", str(dest),
        "-p", "sklearn.conftest", "-p", _HARNESS, "-p", "no:benchmark",
        "-q", "--tb=short", "--disable-warnings", "-o", "console_output_style=classic",
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=dest, env=env, stdout=out, stderr=subprocess.STDOUT)
    return proc, results, log, test_file


def _collect(proc: subprocess.Popen[bytes], results: Path, log: Path, timeout: float
             ) -> dict[str, dict[str, Any]]:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise RuntimeError(f"pytest timed out after {timeout} s; log: {log}") from None
    if not results.exists():
        raise RuntimeError(
            f"pytest wrote no results (exit {proc.returncode}); log {log}:\n"
            + log.read_text()[-4000:]
        )
    data = json.loads(results.read_text())
    return {r["nodeid"]: r for r in data["results"]}


# ----------------------------------------------------------------- classification


def _causes(rec: dict[str, Any]) -> list[str]:
    """Every recorded difference of a failed test, in the order they happened."""
    parts = [f"{s['kind']} @L{s['line']}: {s['detail']}" for s in rec.get("soft", [])]
    hard = rec.get("hard")
    if hard:
        msg = hard["message"]
        if "Mismatched elements" in msg:
            msg = msg.split(" Mismatched elements")[0]
        parts.append(f"{hard['type']} @L{hard['line']} (raised in {hard['raised_in']}): "
                     f"{msg[:400]}")
    if rec.get("adapter_errors"):
        parts.append("adapter error: " + rec["adapter_errors"][0].strip().splitlines()[-1])
    if not parts:
        parts.append(f"outcome {rec.get('outcome')!r} without a recorded cause")
    return parts


def _cause(rec: dict[str, Any]) -> str:
    """The first difference, and where the others are."""
    parts = _causes(rec)
    first = parts[0] if len(parts[0]) <= 500 else parts[0][:497] + "..."
    if len(parts) == 1:
        return first
    more = ", ".join(p.split(":")[0] for p in parts[1:])
    return f"{first} [+{len(parts) - 1} more: {more}]"


def _classify(nodeid: str, rec: dict[str, Any] | None) -> Outcome:
    if rec is None:
        return Outcome(nodeid, "failed", "adapter", "not run in the fastrank run",
                           ["not run in the fastrank run"], [], [], False, {})
    notes = [f"{n['kind']} @L{n['line']}: {n['detail']}" for n in rec.get("notes", [])]
    call_diffs = rec.get("call_diffs", [])
    soft = rec.get("soft", [])
    hard = rec.get("hard")
    ok = rec.get("outcome") == "passed" and not soft and not rec.get("adapter_errors")
    if ok:
        return Outcome(nodeid, "message" if notes else "passed", None, "", [], notes,
                           call_diffs, False, rec)
    adapter = bool(rec.get("adapter_errors")) or bool(hard and hard.get("raised_in") == "adapter")
    as_user = (not hard and bool(soft)
               and all(s.get("would_pass_as_userwarning") for s in soft))
    return Outcome(nodeid, "failed", "adapter" if adapter else "behaviour", _cause(rec),
                       _causes(rec), notes, call_diffs, as_user, rec)


def _harness_module() -> Any:
    sys.path.insert(0, str(SUITE_DIR))
    try:
        import _harness
    finally:
        sys.path.remove(str(SUITE_DIR))
    return _harness


def adapter_arguments(selection: str, arguments: str) -> dict[str, dict[str, Any]]:
    """The fastrank arguments the adapters of a run add to every call, by function."""
    h = _harness_module()
    if arguments == "default":
        return {}
    return {name: dict(h.SKLEARN_RULES[name]) for name in h.SELECTIONS[selection]
            if name in h.SKLEARN_RULES}


def adapter_argument_lines(selection: str) -> list[str]:
    """One line per argument the adapters of ``selection`` set, with fastrank's default."""
    import fastrank

    h = _harness_module()
    lines = []
    for sk_name, rules in adapter_arguments(selection, "sklearn").items():
        fr_name = h.SUBSTITUTED[sk_name]
        params = inspect.signature(getattr(fastrank, fr_name)).parameters
        for name, value in rules.items():
            default = params[name].default if name in params else "(no such parameter!)"
            lines.append(f"{sk_name} -> fastrank.{fr_name}(..., {name}={value!r}) "
                         f"[fastrank's default: {name}={default!r}]")
    return lines


def signature_notes(selection: str = "curves") -> list[str]:
    """Where fastrank's signatures differ from scikit-learn's (also untested ones)."""
    import sklearn.metrics

    import fastrank

    h = _harness_module()
    DROPPED_DEFAULTS, RENAMED = h.DROPPED_DEFAULTS, h.RENAMED
    notes = []
    for sk_name, fr_name in h.SELECTIONS[selection].items():
        sk = inspect.signature(getattr(sklearn.metrics, sk_name)).parameters
        fr = inspect.signature(getattr(fastrank, fr_name)).parameters
        for name, p in sk.items():
            q = fr.get(RENAMED.get(name, name))
            where = f"{sk_name}({name}) vs fastrank.{fr_name}"
            if q is None:
                notes.append(f"{where}: fastrank has no such parameter")
                continue
            if p.kind != q.kind:
                notes.append(f"{where}: {p.kind.description} in scikit-learn, "
                             f"{q.kind.description} in fastrank")
            if p.default != q.default and (sk_name, name, p.default) not in DROPPED_DEFAULTS:
                notes.append(f"{where}: default {p.default!r} in scikit-learn, "
                             f"{q.default!r} in fastrank")
            elif (sk_name, name, p.default) in DROPPED_DEFAULTS:
                notes.append(f"{where}: scikit-learn's default {p.default!r} has no fastrank "
                             f"counterpart (fastrank's default is {q.default!r})")
    return notes


# ------------------------------------------------------------------------ the run


def planned_runs(selections: list[str], arguments: list[str]) -> list[tuple[str, str]]:
    """The fastrank runs: each selection with each arguments mode, except a
    "default" run of a selection whose adapters set no argument when its "sklearn"
    run is there (the two would be the same run)."""
    h = _harness_module()
    runs = []
    for sel in selections:
        for args in arguments:
            if args == "default" and "sklearn" in arguments \
                    and not adapter_arguments(sel, "sklearn"):
                continue
            if sel not in h.SELECTIONS or args not in h.ARGUMENTS:
                raise ValueError(f"unknown selection {sel!r} or arguments {args!r}")
            runs.append((sel, args))
    return runs


def run_suites(selections: list[str] | None = None, arguments: list[str] | None = None, *,
               keep: str | os.PathLike[str] | None = None, timeout: float = 600.0,
               jobs: int | None = None) -> dict[tuple[str, str], SuiteResult]:
    """One control run and a fastrank run per selection and arguments mode, ``jobs``
    pytest processes at a time (default: up to 4); the selected tests of each
    classified. Keyed by ``(selection, arguments)``; a ``"default"`` run skipped
    by :func:`planned_runs` is its ``"sklearn"`` run's result (the same calls)."""
    import sklearn

    import fastrank

    h = _harness_module()
    selections = list(h.SELECTIONS) if selections is None else list(selections)
    arguments = list(h.ARGUMENTS) if arguments is None else list(arguments)
    plan = planned_runs(selections, arguments)
    t0 = time.perf_counter()
    names = sorted({fr for sel in selections for fr in h.SELECTIONS[sel].values()})
    missing = [name for name in names if not callable(getattr(fastrank, name, None))]
    if missing:
        raise RuntimeError(
            f"the fastrank imported from {Path(fastrank.__file__).parent} has no {missing}: "
            "nothing to test (a checkout in the middle of a change?)"
        )
    tmp_ctx = None
    if keep is None:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="fastrank-sksuite-")
        base = Path(tmp_ctx.name)
    else:
        base = Path(keep)
        base.mkdir(parents=True, exist_ok=True)
    todo: list[tuple[Any, str, str, str]] = [("control", "sklearn", "all", "sklearn")]
    todo += [((sel, args), "fastrank", sel, args) for sel, args in plan]
    jobs = max(1, jobs or min(4, len(todo)))
    got: dict[Any, dict[str, dict[str, Any]]] = {}
    logs: dict[Any, Path] = {}
    try:
        running: list[tuple[Any, tuple[subprocess.Popen[bytes], Path, Path, Path]]] = []
        while todo or running:
            while todo and len(running) < jobs:
                key, which, sel, args = todo.pop(0)
                where = "sklearn" if key == "control" else f"fastrank-{sel}-{args}"
                running.append((key, _start(which, base / where, sel, args)))
            key, (proc, res, log, _) = running.pop(0)
            got[key] = _collect(proc, res, log, timeout)
            logs[key] = log
    finally:
        if tmp_ctx is not None:
            tmp_ctx.cleanup()
    control = got["control"]
    control_failures = [
        f"{nodeid}: {r['outcome']}: {_cause(r)}" for nodeid, r in control.items()
        if r["outcome"] != "passed" or r.get("soft") or r.get("notes")
    ]
    results: dict[tuple[str, str], SuiteResult] = {}
    for sel, args in plan:
        fast = got[(sel, args)]
        if len(fast) < len(control):
            raise RuntimeError(
                f"the fastrank run of {sel!r} ({args} arguments) reported {len(fast)} of "
                f"{len(control)} tests (collection error?)"
            )
        subs = h.SELECTIONS[sel]
        selected = [nodeid for nodeid, r in control.items()
                    if any(name in (r.get("calls") or {}) for name in subs)]
        failures = list(control_failures)
        # tests that call nothing substituted must behave identically in both runs
        for nodeid, r in fast.items():
            if nodeid not in selected and r["outcome"] != control.get(nodeid, {}).get("outcome"):
                failures.append(f"{nodeid}: unselected test changed outcome in the "
                                f"fastrank run ({r['outcome']})")
        outcomes = [_classify(n, fast.get(n)) for n in selected]
        failed = [o for o in outcomes if o.status == "failed"]
        results[(sel, args)] = SuiteResult(
            selection=sel,
            arguments=args,
            adapter_arguments=adapter_arguments(sel, args),
            sklearn_version=sklearn.__version__,
            fastrank_version=getattr(fastrank, "__version__", "(no __version__)"),
            fastrank_path=str(Path(fastrank.__file__).parent),
            module_tests=len(control),
            selected=len(selected),
            passed=sum(o.status == "passed" for o in outcomes),
            passed_except_message=sum(o.status == "message" for o in outcomes),
            failed=len(failed),
            failed_behaviour=sum(o.category == "behaviour" for o in failed),
            failed_adapter=sum(o.category == "adapter" for o in failed),
            would_pass_as_userwarning=sum(o.would_pass_as_userwarning for o in failed),
            control_failures=failures,
            outcomes=outcomes,
            signature_notes=signature_notes(sel),
            seconds=time.perf_counter() - t0,
        )
    for sel in selections:  # a skipped "default" run: the "sklearn" run's calls
        if "default" in arguments and (sel, "default") not in results:
            results[(sel, "default")] = results[(sel, "sklearn")]
    return {(sel, args): results[(sel, args)] for sel in selections for args in arguments
            if (sel, args) in results}


def run_suite(selection: str = "curves", arguments: str = "sklearn", *,
              keep: str | os.PathLike[str] | None = None, timeout: float = 600.0
              ) -> SuiteResult:
    """The control run and one fastrank run: ``selection`` with ``arguments``."""
    return run_suites([selection], [arguments], keep=keep, timeout=timeout)[
        (selection, arguments)]


def _base_name(nodeid: str) -> str:
    return nodeid.split("::")[-1].split("[")[0]


def _call_diff_lines(outcomes: list[Outcome], limit: int | None) -> list[str]:
    """Call-level differences grouped by function and kind, each distinct call once."""
    groups: dict[tuple[str, str], dict[str, tuple[str, dict[str, Any]]]] = {}
    for o in outcomes:
        for c in o.call_diffs:
            for d in c["diffs"]:
                calls = groups.setdefault((c["function"], d["kind"]), {})
                calls.setdefault(c["call"], (f"{o.nodeid.split('::')[-1]} L{c['line']}", d))
    lines = []
    for (function, kind), calls in sorted(groups.items()):
        lines.append(f"  {function}: {kind} ({len(calls)} distinct call(s))")
        shown = list(calls.items())[: limit or None]
        for call, (where, d) in shown:
            lines.append(f"      {call[:300]}    [{where}]")
            if kind == "warning":
                lines.append(f"        {d['detail'][:600]}")
            else:
                lines.append(f"        scikit-learn: {d['sklearn'][:300]}")
                lines.append(f"        fastrank:     {d['fastrank'][:300]}")
                if kind == "dtype":
                    lines.append(f"        {d['detail']}")
        if len(calls) > len(shown):
            lines.append(f"      ... {len(calls) - len(shown)} more (-v shows all)")
    return lines


def format_summary(res: SuiteResult, verbose: bool = False) -> str:
    out: list[str] = []
    w = out.append
    w(f"== selection {res.selection!r}, {res.arguments} arguments: scikit-learn "
      f"{res.sklearn_version}'s {TEST_MODULE}, with fastrank {res.fastrank_version} "
      f"({res.fastrank_path}) substituted")
    w(f"tests in the module: {res.module_tests}; selected (they call a substituted "
      f"function): {res.selected}")
    if res.adapter_arguments:
        w("  the adapters pass: " + "; ".join(
            f"{name}: {', '.join(f'{k}={v!r}' for k, v in kw.items())}"
            for name, kw in res.adapter_arguments.items()))
    elif res.arguments == "default":
        w("  the adapters pass no argument of their own: fastrank's defaults")
    w(f"  passed:                      {res.passed}")
    w(f"  passed except message text:  {res.passed_except_message}")
    w(f"  failed:                      {res.failed}  (behavioural difference: "
      f"{res.failed_behaviour}, adapter problem: {res.failed_adapter})")
    w(f"  failed tests that would pass if fastrank.UndefinedMetricWarning subclassed "
      f"UserWarning: {res.would_pass_as_userwarning}")
    if res.control_failures:
        w(f"HARNESS PROBLEM: {len(res.control_failures)} test(s) do not pass in the control "
          "run (scikit-learn through the harness):")
        out.extend(f"  {c}" for c in res.control_failures)
    else:
        w("control run (scikit-learn through the same harness): every test passed")
    w("")
    w(f"Failed ({res.failed}); @L = line in the installed test_ranking.py:")
    for o in res.outcomes:
        if o.status != "failed":
            continue
        w(f"  {o.nodeid} [{o.category}]")
        if verbose:
            out.extend(f"      - {c}" for c in o.causes)
        else:
            w(f"      cause: {o.cause}")
        diag = DIAGNOSES.get(_base_name(o.nodeid))
        if diag:
            w(f"      known: {diag}")
        if verbose:
            out.extend(f"      note: {n}" for n in o.notes)
    w("")
    w(f"Passed except message text ({res.passed_except_message}):")
    for o in res.outcomes:
        if o.status == "message":
            w(f"  {o.nodeid}")
            shown = o.notes if verbose else [n[:250] for n in o.notes[:1]]
            out.extend(f"      {n}" for n in shown)
            if not verbose and len(o.notes) > 1:
                w(f"      (+{len(o.notes) - 1} more; -v shows all)")
    w("")
    w("Call-level differences in tests that did not fail (fastrank vs scikit-learn on the "
      "same call;")
    w("message texts ignored):")
    quiet = [o for o in res.outcomes if o.status != "failed"]
    out.extend(_call_diff_lines(quiet, None if verbose else 3) or ["  none"])
    if verbose:
        w("")
        w("Call-level differences in the failed tests:")
        out.extend(_call_diff_lines([o for o in res.outcomes if o.status == "failed"], None)
                   or ["  none"])
    w("")
    w("Signature differences (scikit-learn's declared signature vs fastrank's):")
    out.extend(f"  {n}" for n in res.signature_notes)
    return "\n".join(out)


def _rate(res: SuiteResult) -> str:
    ok = res.passed + res.passed_except_message
    return f"{ok}/{res.selected} = {100 * ok / max(res.selected, 1):.1f}%"


def format_report(results: dict[tuple[str, str], SuiteResult], verbose: bool = False) -> str:
    """The counts of every run, the arguments the adapters set, then each run."""
    any_res = next(iter(results.values()))
    out = [f"scikit-learn {any_res.sklearn_version}'s {TEST_MODULE} against fastrank "
           f"{any_res.fastrank_version} ({any_res.fastrank_path}); "
           f"{max(r.seconds for r in results.values()):.1f} s",
           "",
           "selection  arguments  selected  passed  +message text  failed  passing",
           ]
    for (sel, args), res in results.items():
        same = args == "default" and res.arguments == "sklearn"
        out.append(f"{sel:<10} {args:<10} {res.selected:>8} {res.passed:>7} "
                   f"{res.passed_except_message:>14} {res.failed:>7}  {_rate(res)}"
                   + ("  (the adapters set no argument: the sklearn-arguments run)"
                      if same else ""))
    out += ["",
            "Arguments the adapters set (\"sklearn\" arguments): scikit-learn's rule where "
            "fastrank's",
            "default deliberately differs, as a user replacing the function calls it "
            "(\"default\" arguments: none):"]
    lines = [line for sel in dict.fromkeys(sel for sel, _ in results)
             for line in adapter_argument_lines(sel)]
    out += [f"  {line}" for line in dict.fromkeys(lines)] or ["  none"]
    for (_, args), res in results.items():
        if args == "default" and res.arguments == "sklearn":
            continue
        out += ["", format_summary(res, verbose=verbose)]
    return "\n".join(out)


def _to_json(res: SuiteResult) -> dict[str, Any]:
    d = dataclasses.asdict(res)
    d["counts"] = res.counts()
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="print every note")
    ap.add_argument("--json", help="write every test's record to this file")
    ap.add_argument("--keep", help="generate and run in this directory and keep it")
    ap.add_argument("--timeout", type=float, default=600.0, help="per pytest run, seconds")
    ap.add_argument("--list", action="store_true", help="also list the selected tests")
    ap.add_argument("--selection", choices=["all", "curves", "rankings"], default="all",
                    help="which substitutions (default: each selection, run apart)")
    ap.add_argument("--arguments", choices=["both", "sklearn", "default"], default="both",
                    help="sklearn: the adapters pass scikit-learn's rule where fastrank's "
                         "default differs; default: fastrank's defaults (default: both)")
    ap.add_argument("--jobs", type=int, default=None, help="pytest processes at a time")
    args = ap.parse_args(argv)
    results = run_suites(
        None if args.selection == "all" else [args.selection],
        ["sklearn", "default"] if args.arguments == "both" else [args.arguments],
        keep=args.keep, timeout=args.timeout, jobs=args.jobs)
    print(format_report(results, verbose=args.verbose))
    if args.list:
        for (sel, arg), res in results.items():
            print(f"\nSelected tests of {sel!r} ({arg} arguments):")
            for o in res.outcomes:
                print(f"  {o.nodeid}  [{o.status}]")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {f"{sel}/{arg}": _to_json(res) for (sel, arg), res in results.items()},
            indent=1, default=str))
    bad = any(r.control_failures or r.failed_adapter for r in results.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
