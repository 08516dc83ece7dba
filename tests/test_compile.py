"""Compiling ahead of time in worker processes (``fastrank compile --jobs N``).

The workers share Numba's cache folder, so the one thing that must never happen
is two processes writing one kernel's cache entries: each kernel goes whole to
one worker, and a kernel that calls another only after that one is cached.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import fastrank
import fastrank.config as config
from fastrank.cli import main

_TINY = '''
from fastrank._kernels.jit import f64, helper, i64, kernel


@kernel([(i64,), (f64,)])
def leaf(x):
    return x + 1


@kernel([(i64,)])
def caller(x):
    return leaf(x) * 2


@helper
def _twice(x):
    return caller(x) + caller(x)


@kernel([(i64,)])
def top(x):
    return _twice(x)


@kernel([(f64,)])
def other(x):
    return x - 1
'''

_DRIVER = '''
import sys
{path}
import tiny
from fastrank._kernels.jit import SIGNATURES
from fastrank.config import _compile, _plan

kernels = {{k: SIGNATURES[k] for k in (tiny.other, tiny.top, tiny.caller, tiny.leaf)}}
calls, rank = _plan(kernels)
print(sorted((k.__name__, sorted(c.__name__ for c in v)) for k, v in calls.items()))
print(rank[tiny.leaf] > rank[tiny.caller] > rank[tiny.top])
print(_compile(kernels, 2, sys.stderr))
print(tiny.top(3), tiny.leaf(1.5), tiny.other(1.5))
print(sum(sum(k.stats.cache_misses.values()) for k in kernels))
'''


def _run(tmp_path, *, importable: bool) -> tuple[list[str], str]:
    (tmp_path / "tiny.py").write_text(_TINY)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    if importable:  # the workers import the kernels' module as this process does
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
        path = ""
    else:  # only this process can import it: every worker fails
        path = f"sys.path.insert(0, {str(tmp_path)!r})"
    code = _DRIVER.format(path=path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines(), proc.stderr


def test_workers_compile_every_variant_into_the_cache(tmp_path):
    out, err = _run(tmp_path, importable=True)
    # top calls caller through a helper; leaf heads the longest chain
    assert out[0] == "[('caller', ['leaf']), ('leaf', []), ('other', []), ('top', ['caller'])]"
    assert out[1] == "True"
    assert out[2] == "5"
    assert out[3] == "16 2.5 0.5"
    assert out[4] == "0"  # this process compiled nothing: it loaded what the workers cached
    for n in range(1, 6):
        assert f"compiled {n}/5 kernel variants" in err
    assert "compiled 6/" not in err


def test_a_failed_worker_leaves_its_kernels_to_this_process(tmp_path):
    out, err = _run(tmp_path, importable=False)
    assert out[2] == "5"
    assert out[3] == "16 2.5 0.5"
    assert int(out[4]) > 0  # compiled here
    assert "ModuleNotFoundError" in err  # the workers' own error, on stderr
    assert "compiled 5/5 kernel variants" in err
    assert "compiled 6/" not in err


def test_real_kernels_wait_for_the_kernels_they_call():
    kernels = config._signatures()
    calls, rank = config._plan(kernels)
    assert set(calls) == set(kernels) == set(rank)
    by_name = {k.__name__: k for k in kernels}
    sweep_table = by_name["sweep_table"]
    for name in ("sweep_one", "sweep_split", "run_segments", "resample_sweeps"):
        assert sweep_table in calls[by_name[name]]
        assert rank[sweep_table] > rank[by_name[name]]  # it heads their chains
    assert not calls[by_name["sort_values"]]
    for k, cs in calls.items():
        assert k not in cs
        assert all(rank[c] > rank[k] for c in cs)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_jobs_must_be_a_positive_integer(jobs):
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        fastrank.compile_kernels(progress=None, jobs=jobs)


@pytest.mark.parametrize("value", ["0", "-2", "x"])
def test_cli_refuses_a_bad_jobs_count(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compile", "--jobs", value])
    assert exc.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_cli_help_names_jobs(capsys):
    with pytest.raises(SystemExit):
        main(["compile", "--help"])
    assert "--jobs" in textwrap.dedent(capsys.readouterr().out)


def test_cached_variants_counts_this_cache_only(tmp_path):
    """``fastrank info``'s count: what the kernels would load, nothing stale."""
    code = textwrap.dedent('''
        from fastrank import config
        from fastrank._kernels.jit import SIGNATURES
        print(config._cached_variants())
        kernel = next(k for k in config._kernels() if k.__name__ == "bounds")
        kernel.compile(SIGNATURES[kernel][0])
        print(config._cached_variants())
    ''')
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["0", "1"]


def test_silent_workers_are_stopped_and_this_process_compiles(tmp_path):
    """A worker that never answers (here: its import hangs) must not hang the call."""
    (tmp_path / "tiny.py").write_text(
        "import os, time\nif os.environ.get('TINY_HANG'):\n    time.sleep(120)\n" + _TINY)
    code = textwrap.dedent('''
        import os, sys, time
        import tiny
        import fastrank.config as config
        from fastrank._kernels.jit import SIGNATURES
        os.environ["TINY_HANG"] = "1"  # only the workers, which import tiny afresh
        config.WORKER_SILENCE_S = 3.0
        kernels = {k: SIGNATURES[k] for k in (tiny.other, tiny.top, tiny.caller, tiny.leaf)}
        t0 = time.perf_counter()
        print(config._compile(kernels, 2, None))
        print(time.perf_counter() - t0 < 60, tiny.top(3))
    ''')
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["5", "True", "16"]
