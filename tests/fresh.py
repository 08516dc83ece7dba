"""The tests' one way to run a reproducer in a fresh interpreter: it must exit 0
and print ``ok`` (a crash, a kernel's state or a first call are per process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def assert_prints_ok(code: str, *, cache_dir: Path | None = None,
                     flags: tuple[str, ...] = (), timeout: float = 600) -> None:
    """Run ``code`` with ``python [flags] -c`` (Numba's cache in ``cache_dir`` when
    given) and check that it exits 0 and prints exactly ``ok``."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True,
                         env=env, timeout=timeout)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok", out.stdout
