"""Timing helpers shared by the comparison scripts."""

from __future__ import annotations

import io
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def alternate(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Median time of each function, run in turns so that noise hits all alike.

    Each function runs once untimed first (compilation, caches).
    """
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    """Median time of ``fn`` over ``repeat`` runs after one untimed run."""
    return alternate([fn], repeat)[0]


def fmt_seconds(seconds: float, digits: int = 1) -> str:
    """A time for the comparison tables: milliseconds with ``digits`` decimals below
    10 s, seconds with one above."""
    return f"{seconds * 1e3:,.{digits}f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def machine() -> str:
    """The CPU and numpy's SIMD dispatch, as ``fastrank.show_config`` reports them."""
    import fastrank

    buf = io.StringIO()
    fastrank.show_config(file=buf)
    keep = ("cpu:", "cores:", "  baseline:", "  dispatched:", "threads:")
    return "; ".join(line.strip() for line in buf.getvalue().splitlines()
                     if line.startswith(keep))


def bytecode(package: str = "fastrank") -> None:
    """Compile ``package``'s modules to bytecode, as ``pip install`` does, before
    timing fresh processes: with ``PYTHONDONTWRITEBYTECODE`` set (or a read-only
    checkout) each would otherwise compile them from source, 0.2-0.4 s that an
    installed package never pays. Best effort: a folder that cannot be written
    is left as it is."""
    import importlib.util
    import subprocess
    import sys

    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return
    folder = str(Path(spec.origin).parent)
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=False,
                   capture_output=True)
