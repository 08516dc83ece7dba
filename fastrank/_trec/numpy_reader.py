"""TREC files read by numpy while the reader kernel is not compiled.

Compiling the file reader (:func:`fastrank._kernels.text.trec_pass`) takes
about 6 s (AMD Zen 4), longer than reading a 90 MB run with numpy. So while it
is neither compiled nor cached, plain files take :func:`read`: ASCII bytes,
whose only bytes below 32 are tab and line ends (LF, or CR LF), read in chunks
of whole lines (one thread each) into the same :class:`~fastrank.trec.CodedIds`, values and
first repeated pair that the kernel's reading gives, bit for bit:

* the tokens are the runs of bytes above 32 (no other whitespace can occur),
  a line's first byte ``#`` makes it a comment, blank lines are skipped;
* ids are coded by their bytes' order (:func:`.files.decoded`, as the
  kernel's distinct ids are), and the values are correctly rounded: plain
  decimals of up to 15 digits as one division of two exact numbers (as the
  kernel reads them), the rest by numpy's parse of their bytes (as the
  kernel's caller reads those);
* the pair that repeats is the first row that lists a document its query
  listed before.

Anything else (bytes beyond ASCII, a carriage return alone, a NUL, a line of
too few columns, a value that is not a finite number) returns None, and the
kernel reads the file and names what is wrong. Files are read by numpy until
that has taken :data:`BUDGET` seconds (the compile would take longer), in this
process and the earlier ones sharing the kernel cache (``first_calls``), then the
kernel compiles once.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._core import first_calls, sorting, workers
from .._kernels import text as kernel
from .._kernels.jit import SIGNATURES
from . import files
from .ids import CodedIds, repeated

CHUNK_BYTES = 1 << 20  # a chunk of whole lines from here on (kept in cache while read)
ROWS = 1 << 16  # rows gathered and parsed at a time
READ_MAX = 1 << 28  # larger files keep the kernel (numpy: about 15 ns a byte here)
# Seconds of numpy reading in a process before the kernel is compiled: a third of the
# compile, so that a process reading many files pays at most that much more.
BUDGET = 2.0
_POW10 = np.array([10.0 ** k for k in range(23)])


def reader_ready() -> bool:
    """Whether the reader's kernel runs without compiling (compiled or cached)."""
    return sorting.compiled_or_cached(kernel.trec_pass, tuple(SIGNATURES[kernel.trec_pass][0]))


def wanted(size: int) -> bool:
    """Whether a file of ``size`` bytes is read by :func:`read` (see the notes)."""
    return size <= READ_MAX and not reader_ready() and \
        first_calls.within_budget("reader", BUDGET)


def read(path: Any, raw: files.Raw, width: int, picks: tuple[int, int, int]) -> tuple[
        CodedIds, CodedIds, np.ndarray, int] | None:
    """What :func:`.files.read_table` gives for the file ``raw`` (its bytes): query
    ids, document ids, values and the first repeated pair's row (-1 when none);
    None where the kernel must read it (see the notes)."""
    with first_calls.spending("reader"):
        return _read(path, raw, width, picks)


def _read(path: Any, raw: files.Raw, width: int, picks: tuple[int, int, int]) -> tuple[
        CodedIds, CodedIds, np.ndarray, int] | None:
    data = np.frombuffer(raw, np.uint8)
    cuts = [0]
    while cuts[-1] + CHUNK_BYTES < data.shape[0]:
        at = raw.find(b"\n", cuts[-1] + CHUNK_BYTES)
        if at < 0:
            break
        cuts.append(at + 1)
    if cuts[-1] < data.shape[0]:
        cuts.append(data.shape[0])
    spans = list(itertools.pairwise(cuts))
    found = workers.parallel_map(lambda s: _tokens(data, s[0], s[1], width, picks), spans,
                                 workers.threads())
    if not found or any(f is None for f in found):
        return None
    first = [np.concatenate([f[2 * k] for f in found]) for k in range(3)]
    size = [np.concatenate([f[2 * k + 1] for f in found]) for k in range(3)]
    n = first[0].shape[0]
    if n == 0:
        return None  # the kernel's reading names the file as having no lines
    qfix, dfix, vfix = (_fixed(data, first[k], size[k]) for k in range(3))
    values = _values(vfix)
    if values is None:
        return None
    new = np.ones(n, bool)  # each run of rows of one query
    np.not_equal(qfix[1:], qfix[:-1], out=new[1:])
    heads = np.flatnonzero(new)
    qraw, qplace, _ = files.decoded(path, qfix[heads], distinct=True)
    qcodes = np.repeat(qplace, np.diff(heads, append=n))
    del qfix
    draw, dcodes, _ = files.decoded(path, dfix, distinct=True)
    del dfix
    twice = repeated(qcodes, dcodes)
    return (CodedIds(qcodes, None, qraw), CodedIds(dcodes, None, draw), values,
            -1 if twice is None else twice)


def _tokens(data: np.ndarray, lo: int, hi: int, width: int,
            picks: tuple[int, int, int]) -> list[np.ndarray] | None:
    """The first byte and length of tokens ``picks`` of each line of
    ``data[lo:hi]`` (whole lines) that is neither blank nor a comment, as three
    (first, length) pairs; None where the kernel must read the chunk."""
    b = data[lo:hi]
    if b.shape[0] == 0:
        return [np.empty(0, np.int64)] * 6
    if int(b.max()) >= 0x80:
        return None
    ends = np.flatnonzero(b == 10)
    cr = np.count_nonzero(b == 13)  # each the first of a CR LF line end, read as a space
    if cr and cr != np.count_nonzero((b[:-1] == 13) & (b[1:] == 10)):
        return None  # a carriage return alone ends a line (old Mac files)
    if np.count_nonzero(b < 32) != ends.shape[0] + np.count_nonzero(b == 9) + cr:
        return None  # a byte below 32 other than tab, line feed and CR LF
    if b[-1] != 10:  # the file's last line, unended
        ends = np.append(ends, b.shape[0])
    sep = b <= 32
    edges = np.flatnonzero(sep[1:] != sep[:-1])
    edges += 1
    if not sep[0]:
        edges = np.concatenate(([0], edges))
    if not sep[-1]:
        edges = np.append(edges, b.shape[0])
    before = np.searchsorted(edges[0::2], ends)  # tokens that start before each line end
    count = np.diff(before, prepend=0)
    line_first = np.empty_like(ends)
    line_first[0] = 0
    line_first[1:] = ends[:-1] + 1
    keep = count > 0  # (a line with a token has a first byte)
    keep[keep] = b[line_first[keep]] != ord("#")
    if bool((count[keep] < width).any()):
        return None
    at = 2 * (before - count)[keep]  # each kept line's first token, in edges
    out: list[np.ndarray] = []
    for p in picks:
        start = edges[at + 2 * p]
        out += [start + lo, edges[at + 2 * p + 1] - start]
    return out


def _fixed(data: np.ndarray, first: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The byte strings ``data[first[i]:first[i] + size[i]]`` as one ``S`` array
    (zero padded), gathered ``ROWS`` at a time on every thread."""
    width = max(1, int(size.max(initial=1)))
    n = first.shape[0]
    out = np.empty((n, width), np.uint8)
    span = np.arange(width)
    last = data.shape[0] - 1

    def part(lo: int) -> None:
        f, s = first[lo:lo + ROWS], size[lo:lo + ROWS]
        take = data[np.minimum(f[:, None] + span, last)]
        take[span >= s[:, None]] = 0
        out[lo:lo + ROWS] = take

    workers.parallel_map(part, range(0, n, ROWS), workers.threads())
    return out.view(f"S{width}").reshape(-1)


def _values(fixed: np.ndarray) -> np.ndarray | None:
    """Each token of ``fixed`` read as C's ``strtod`` reads it whole, correctly
    rounded; None when one is not a finite number (or holds ``_``, which numpy's
    parse alone reads)."""
    n = fixed.shape[0]
    out = np.empty(n, np.float64)
    plain = np.empty(n, bool)
    workers.parallel_map(lambda lo: _decimals(fixed[lo:lo + ROWS], out[lo:lo + ROWS],
                                              plain[lo:lo + ROWS]),
                         range(0, n, ROWS), workers.threads())
    rest = np.flatnonzero(~plain)
    if rest.shape[0]:
        texts = fixed[rest]
        if bool((texts.view(np.uint8) == ord("_")).any()):
            return None
        try:
            out[rest] = texts.astype(np.float64)
        except ValueError:
            return None
        if not bool(np.isfinite(out[rest]).all()):
            return None
    return out


def _decimals(fixed: np.ndarray, out: np.ndarray, plain: np.ndarray) -> None:
    """Tokens of the form ``[-]digits[.digits]`` with 1 to 15 digits into ``out``
    (their integer of digits divided by a power of ten: two exact numbers, so one
    correctly rounded division), marked in ``plain``."""
    m = fixed.shape[0]
    u = fixed.view(np.uint8).reshape(m, -1)
    digit = u - np.uint8(48)
    is_digit = digit < 10
    dot = u == ord(".")
    allowed = is_digit | dot | (u == 0)
    allowed[:, 0] |= u[:, 0] == ord("-")
    digits = np.count_nonzero(is_digit, axis=1)
    plain[:] = (allowed.all(axis=1) & (np.count_nonzero(dot, axis=1) <= 1) & (digits >= 1)
                & (digits <= 15))
    # the digits to the right of each place
    after: np.ndarray = np.cumsum(is_digit[:, ::-1], axis=1)[:, ::-1] - is_digit
    whole = np.where(is_digit, digit * _POW10[np.minimum(after, 22)], 0.0).sum(axis=1)
    scale = np.where(dot, after, 0).sum(axis=1)
    np.divide(whole, _POW10[np.minimum(scale, 22)], out=out)
    np.negative(out, out=out, where=u[:, 0] == ord("-"))
