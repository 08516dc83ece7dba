"""When fastrank's radix sort cannot run on a machine, numpy's sort takes over and
the user is told once (a RuntimeWarning), never an error or a wrong number."""

from __future__ import annotations

import os
import subprocess
import sys

_CODE = """
import warnings
import numpy as np
import fastrank
from fastrank._core import sorting

def broken(*args):
    raise RuntimeError("no radix sort here")

sorting.sort_values = broken
rng = np.random.default_rng(0)
n = 300_000
y = rng.random(n) < 0.3
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    got = [fastrank.roc_auc(y, rng.standard_normal(n).astype(dt) + y) for dt in
           (np.float64, np.float32, np.float64)]
fallback = [w for w in rec if "radix sort failed" in str(w.message)]
assert len(fallback) == 1, [str(w.message) for w in rec]
assert issubclass(fallback[0].category, RuntimeWarning)
assert sorting.sort_choice(8).path == "numpy" and sorting.sort_choice(4).path == "numpy"
from scipy.stats import rankdata
rng = np.random.default_rng(0)
y = rng.random(n) < 0.3
want = []
for dt in (np.float64, np.float32, np.float64):
    s = rng.standard_normal(n).astype(dt) + y
    ranks = rankdata(s)  # midranks: ties count one half (Mann-Whitney)
    npos = int(y.sum())
    want.append((ranks[y].sum() - npos * (npos + 1) / 2) / (npos * (n - npos)))
assert all(abs(a - b) < 1e-12 for a, b in zip(got, want, strict=True)), (got, want)
print("ok")
"""


def test_radix_sort_failure_falls_back_to_numpy_and_says_so_once():
    env = {**os.environ, "FASTRANK_SORT": ""}  # let fastrank time the two sorts
    out = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")
