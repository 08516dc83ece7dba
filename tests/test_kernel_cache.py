"""The on-disk kernel cache never serves machine code built from older sources.

Numba keys a cached function on its own source file only; fastrank's kernels
call helpers from other kernel files, so the cache stamp covers every kernel
file. Run in subprocesses on a copy of the package with its own cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import fastrank

_CODE = """
import numpy as np
from fastrank._kernels.text import trec_arrays as f
x, ints, reals = np.zeros(32, np.uint8), np.array([2, 0, 4], np.int64), np.empty(0)
for a in (x, ints, reals):
    a.flags.writeable = False
f(-6, x, ints, reals, np.empty(4, np.int64), np.empty(0))
print(sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
"""


def test_editing_another_kernel_file_invalidates_the_cache(tmp_path: Path) -> None:
    package = Path(fastrank.__file__).parent
    shutil.copytree(package, tmp_path / "fastrank",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))

    def run() -> tuple[int, int]:
        out = subprocess.run([sys.executable, "-c", _CODE], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        hits, misses = out.stdout.split()
        return int(hits), int(misses)

    assert run() == (0, 1)  # compiled
    assert run() == (1, 0)  # from the cache
    with open(tmp_path / "fastrank" / "_kernels" / "sweep.py", "a") as fh:
        fh.write("\n# a helper file changed\n")
    assert run() == (0, 1)  # the kernel lives in text.py, yet it is rebuilt
    assert run() == (1, 0)


_VARIANTS = """
import json
import numpy as np
import numba
from numba.core import types
import fastrank
import importlib, pkgutil
import fastrank._kernels as kernels
from fastrank._core import first_calls

first_calls.BUDGET = 0.0  # no numpy stand-ins: every call below compiles its kernels
rng = np.random.default_rng(0)
y = rng.random(3000) < 0.3
s = rng.random(3000)
fastrank.all_metrics(y, s)                                   # the one-task kernels
fastrank.average_precision(y, s, sample_weight=rng.random(3000))
Y = rng.random((300, 100)) < 0.2
fastrank.average_precision(Y, rng.random((300, 100)).astype(np.float32), average=None)
fastrank.average_precision(Y, rng.random((300, 100)), average=None)  # as the one-task call
bad = []
checked = 0
for info in pkgutil.iter_modules(kernels.__path__):  # every kernel module, as it grows
    module = importlib.import_module(f"fastrank._kernels.{info.name}")
    for name, obj in vars(module).items():
        if not isinstance(obj, numba.core.registry.CPUDispatcher):
            continue
        code = obj.py_func.__code__
        params = code.co_varnames[:code.co_argcount]
        allowed = set(getattr(obj, "literal_parameters", ()))
        seen = set()
        for sig in obj.signatures:
            checked += 1
            for p, t in zip(params, sig):
                if isinstance(t, types.Literal) and p not in allowed:
                    bad.append(f"{name}({p}={t})")
            # the same variant but for which arrays are read-only
            same = tuple(t.copy(readonly=True) if isinstance(t, types.Array) else t
                         for t in sig)
            if same in seen:
                bad.append(f"{name}: read-only and writable arrays")
            seen.add(same)
print(checked, json.dumps(sorted(set(bad))))
"""


def test_helpers_get_no_variant_per_constant_argument(tmp_path: Path) -> None:
    # A constant argument inside a kernel is typed as a literal; unless the callee
    # names that parameter, it must be compiled for the plain type (one variant,
    # not one per constant value: compile time is what a new user waits for).
    # Nor is a function compiled twice for arrays that differ only in being
    # read-only (the class split, called with the caller's read-only labels and
    # with the batch kernel's own).
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", _VARIANTS], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    checked, bad = out.stdout.split(maxsplit=1)
    assert int(checked) > 20  # the calls above compiled the helpers it inspects
    assert bad.strip() == "[]"
