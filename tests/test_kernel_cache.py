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
from fastrank._kernels.keys import text_keys as f
x = np.zeros((4, 2), np.uint32)
x.flags.writeable = False
f(x, 0, 4, np.empty(4, np.uint64))
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
    assert run() == (0, 1)  # the kernel lives in keys.py, yet it is rebuilt
    assert run() == (1, 0)
