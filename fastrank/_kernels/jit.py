"""The one place that fixes the options every compiled kernel shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

# cache:        compiled machine code is written next to the sources and reused
#               by later processes, so only the first call on a machine compiles.
# nogil:        callers may run kernels from several Python threads at once.
# error_model:  numpy semantics for float division (inf/nan, no ZeroDivisionError).
# boundscheck:  off; every kernel receives validated, correctly sized arrays.
# fastmath is deliberately absent: it reorders sums and breaks tie grouping.
_OPTIONS: dict[str, Any] = {
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
}


def kernel(fn: F) -> F:
    """Compile ``fn`` with the options shared by all fastrank kernels."""
    return numba.njit(**_OPTIONS)(fn)


def parallel_kernel(fn: F) -> F:
    """Compile ``fn`` like :func:`kernel`, with ``prange`` loops run on Numba's threads.

    Never compile one Python function both ways (``kernel(f)`` and
    ``parallel_kernel(f)``): the on-disk cache is keyed by the function, so one
    of the two would load the other's machine code. A serial twin is a
    separate function calling the same worker kernel.

    The number of threads is whatever the caller's ``numba.get_num_threads()``
    says when the kernel is launched; fastrank never changes it.
    """
    return numba.njit(parallel=True, **_OPTIONS)(fn)


def inline_kernel(fn: F) -> F:
    """Like :func:`kernel`, but inlined into each caller by Numba, so that
    constant arguments at a call site fold into the compiled loop."""
    return numba.njit(inline="always", **_OPTIONS)(fn)
