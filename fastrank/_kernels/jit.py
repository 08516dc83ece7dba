"""The one place that fixes the options every compiled kernel shares.

Two decorators:

* :func:`kernel`: a compiled entry point (a Numba dispatcher), cached on disk.
  The engine (:mod:`fastrank._core.engine`) canonicalises every argument
  before a call, so each kernel sees one fixed set of argument types per
  score width; those are its declared signatures (:data:`SIGNATURES`), the
  variants ``fastrank compile`` builds ahead of time. Input arrays are always
  passed read-only and outputs writable, so no signature is doubled by
  mutability.
* :func:`helper`: a function compiled into the kernels that call it (LLVM
  inlines it there); it has no cache entry of its own. Numba's IR-level
  inlining is avoided on purpose: it roughly doubles compile times, and
  compile time is what a new user waits for.
"""

from __future__ import annotations

import hashlib
import inspect
import types as pytypes
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numba
from numba import types
from numba.core import caching

F = TypeVar("F", bound=Callable[..., Any])

# cache:        (set per kernel below) compiled machine code is written next to
#               the sources and reused by later processes, so only the first call
#               on a machine compiles; the cache is keyed on every kernel file.
# nogil:        kernels run without the GIL, so the engine's worker threads (and
#               the caller's own threads) run them side by side.
# error_model:  numpy semantics for float division (inf/nan, no ZeroDivisionError).
# boundscheck:  off; every kernel receives validated, correctly sized arrays.
# fastmath is deliberately absent: it reorders sums and breaks tie grouping.
# parallel is absent too: parallelism comes from the engine's threads, never
# from Numba's threading layer, which fastrank neither starts nor configures.
_OPTIONS: dict[str, Any] = {
    "nogil": True,
    "error_model": "numpy",
    "boundscheck": False,
}


def _kernels_stamp() -> str:
    """A hash of every kernel source file. Numba keys a cached kernel on its own
    file only, so a change to a helper in another file (an upgrade that edits
    the sweep, say) would otherwise reuse machine code built from the old one."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_STAMP = _kernels_stamp()


class _Impl(caching.CompileResultCacheImpl):
    """Numba's cache, with a source stamp that covers every kernel file."""

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)  # type: ignore[no-untyped-call]
        own = self._locator.get_source_stamp
        self._locator.get_source_stamp = lambda: (own(), _STAMP)


class _Cache(caching.FunctionCache):
    _impl_class = _Impl

# kernel -> the argument types it is compiled for (declared by each kernel)
SIGNATURES: dict[Any, list[tuple[Any, ...]]] = {}

# Argument types used in the declarations.
u8, i64, u32, u64, f64 = types.uint8, types.int64, types.uint32, types.uint64, types.float64
b1 = types.boolean
KEYS = (u32, u64)  # the two key widths every score dtype maps to
# The score types the sweep compares, and the unsigned type of their bits. int64
# scores reach it as uint64 with the sign bit flipped (the same order, as unsigned
# integers; the sweep flips its keys back), so that no kernel is compiled twice for
# 64-bit integers.
VALUES = ((types.float32, u32), (types.float64, u64), (u64, u64))


def ro(dtype: Any, ndim: int = 1) -> Any:
    """A read-only C-contiguous array type."""
    return types.Array(dtype, ndim, "C", readonly=True)


def rw(dtype: Any, ndim: int = 1) -> Any:
    """A writable C-contiguous array type."""
    return types.Array(dtype, ndim, "C")


def _typed_calls(dispatcher: Any, literals: Sequence[str] = (),
                 inputs: Sequence[str] = ()) -> Any:
    """Make calls from compiled code compile ``dispatcher`` for plain argument types,
    except the parameters named in ``literals``; the arrays passed for the
    parameters named in ``inputs`` (which the function only reads) are typed
    read-only, so that a read-only and a writable array share one variant (the
    class split was compiled twice into a process that ran both the one-task
    path, whose labels are the caller's read-only view, and the batch kernel,
    whose labels are its own scratch).

    Numba types a constant argument at a call site inside a kernel as a literal
    (``Literal[int](0)``, ``Literal[bool](True)``) and compiles the callee once
    per literal value: the sweep was built three times inside one batch kernel,
    once per constant mode and weighting. A helper names the parameters whose
    constants are worth a variant: the radix sort's digit width (see
    :mod:`~fastrank._kernels.sort`), and the sweep's weighting and mode,
    which the one-task kernel passes as constants so that its sweep is compiled
    with the other paths pruned (callers that pass plain values share one
    general variant). Measured on an AMD Zen 5 (``benchmarks/cold_start.py``,
    empty cache, two rounds alternating with the version before): import plus the
    first ``roc_auc`` 3.6-4.1 s against 5.0-5.1 s, the batch kernel's first call
    8.7-12.8 s against 13.2-13.9 s, ``fastrank compile`` 20.1-25.0 s against
    30.0-33.8 s (2 jobs); results the same, bit for bit.
    """
    own = dispatcher.get_call_template
    names = list(inspect.signature(dispatcher.py_func).parameters) if literals or inputs else []
    unliteral: Callable[[Any], Any] = types.unliteral

    def plain(a: Any, name: str | None) -> Any:
        if name in literals:
            return a
        a = unliteral(a)
        if name in inputs and isinstance(a, types.Array) and a.mutable:
            return a.copy(readonly=True)
        return a

    def call_template(args: Sequence[Any], kws: dict[str, Any]) -> Any:
        return own(tuple(plain(a, names[i] if i < len(names) else None)
                         for i, a in enumerate(args)),
                   {k: plain(v, k) for k, v in kws.items()})

    dispatcher.get_call_template = call_template
    dispatcher.literal_parameters = tuple(literals)  # read by the test of this rule
    return dispatcher


def kernel(signatures: Sequence[tuple[Any, ...]]) -> Callable[[F], F]:
    """Compile ``fn`` lazily with the shared options; ``signatures`` are the
    argument types the engine calls it with."""

    def wrap(fn: F) -> F:
        dispatcher = _typed_calls(numba.njit(**_OPTIONS)(fn))
        dispatcher._cache = _Cache(dispatcher.py_func)  # cache=True, with the stamp above
        SIGNATURES[dispatcher] = list(signatures)
        return dispatcher

    return wrap


def helper(fn: F | None = None, *, literals: Sequence[str] = (),
           inputs: Sequence[str] = ()) -> Any:
    """A function for kernels to call; compiled once per process with its
    callers' options, and cached only as part of them. ``@helper`` or
    ``@helper(literals=(...), inputs=(...))``: the parameters whose constant
    arguments get a variant of their own, and the array parameters it only
    reads, typed read-only whatever the caller passes (:func:`_typed_calls`).

    Helpers are never called from Python, so Numba is told not to build the
    Python and C entry wrappers it otherwise lowers for every function: that
    wrapper code was about an eighth of a first ``roc_auc`` call (import plus
    5,000 samples, empty cache: 4.44-4.77 s before, 3.89-4.09 s after, in
    alternating runs on an AMD Zen 5).
    """
    options: dict[str, Any] = {"error_model": "numpy", "boundscheck": False, "nogil": True,
                               "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    if fn is None:
        return lambda f: helper(f, literals=literals, inputs=inputs)
    return _typed_calls(numba.njit(**options)(fn), literals, inputs)


_TWINS: dict[Any, Callable[..., Any]] = {}


def in_python(fn: Any) -> Callable[..., Any]:
    """A helper's (or kernel's) Python function, calling the Python functions of the
    helpers it calls: the same float operations in the same order, so the same
    floats (no fastmath: see :data:`_OPTIONS`), for numpy stand-ins that must give
    a kernel's numbers before it is compiled (:mod:`fastrank._core.first_calls`).
    Helpers themselves cannot be called from Python (see :func:`helper`)."""
    got = _TWINS.get(fn)
    if got is None:
        py = fn.py_func
        scope = dict(py.__globals__)
        for name in py.__code__.co_names:
            if hasattr(scope.get(name), "py_func"):  # a compiled function it calls
                scope[name] = in_python(scope[name])
        got = _TWINS[fn] = pytypes.FunctionType(py.__code__, scope, py.__name__,
                                                py.__defaults__, py.__closure__)
    return got
