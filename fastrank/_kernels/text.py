"""TREC files and runs as integer codes: two kernels, a pass per mode.

:func:`trec_pass` reads the bytes of a run or qrels file in parts, one thread
each (``mode`` -3 counts a part's lines, ``mode`` 0 reads it): it splits the
lines into whitespace-separated tokens, codes the query ids by their bytes
through an open-addressing hash table (each distinct id is kept once, as the
place of its first occurrence), keeps where each row's document id lies and
reads the scores that are exactly representable by one correctly rounded
operation (the rest are left to the caller). ``mode`` -2 then codes the
documents by group, one table and thread each, and ``mode`` -4 numbers them
among all and checks that no query lists a document twice; ``mode`` -5 copies
ids out at a fixed width.

:func:`trec_arrays` holds the passes over arrays: ``mode`` 1 orders each
query's rows as trec_eval does (by score, then by document id as strcmp orders
them), given each document's rank in that order; ``mode`` -1 codes the
fixed-width records of numpy ``str`` arrays (UCS4 code points, zero padded; two
arrays through one table) or of int64 ids in a hash table of the same layout,
so that an array's text ids are coded without first being made into bytes;
``mode`` -6 packs short text ids into integer keys. Large arrays of short text
document ids are coded by group, on several threads, by a kernel of their own
(:mod:`~fastrank._kernels.id_groups`).

Each kernel has one signature, and so one compiled variant: the number of
variants is a cost every first call pays. They are two so that reading a file
compiles none of the array passes (about 2.5 s of an 8 s compile) and scoring
arrays none of the reader's.
"""

from __future__ import annotations

import numpy as np

from .id_groups import HEAD, id_words, mix
from .jit import f64, helper, i64, kernel, ro, rw, u8
from .row_order import order_queries

# mode 0's status: what the caller does next
TEXT_OK, TEXT_SHORT, TEXT_NUL = 0, 1, 3
# HEAD (16): mode 0's header of ``iout`` (counts and where a bad line is), every mode's
# H_RUNS: mode 0's runs of one query; H_WIDE: mode -1's distinct records not held whole as
# bytes in their two words
H_ROWS, H_NQ, H_ND, H_SLOW, H_COLS, H_AT, H_TWICE, H_RUNS, H_WIDE = range(9)
# mode 0: the regions of a part's ``iout`` after its header, in units of its ``cap``
# slots: each row's document (first byte + length * 2**40; its code after mode -2),
# (row, first byte, end) of each value left to the caller, each distinct query's
# first byte and length, each run's query code and first row
R_DOCS, R_SLOW, R_QFIRST, R_QSIZE, R_QRUNS, R_QSTART, REGIONS = 0, 1, 4, 5, 6, 7, 8
LOADS = 16 + 128  # modes -2 and -4: the header, then a slot per group (HEAD + GROUPS)
_H_SPARE = HEAD - 1  # a header slot of no meaning

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_GOLDEN = 0x9E3779B97F4A7C15
_LONG = (1 << 23) - 1  # ids this long or longer: their length read from the bytes
_CODE = (1 << 40) - 1
_SHORT = (1 << 16) - 1  # mode 0: document ids this long or longer: their length read again
GROUPS = 128  # mode 0: the most groups of documents (7 bits of a row's entry)
# 10**0 .. 10**22: exactly representable in float64
_POW10 = np.array([10.0 ** k for k in range(23)])
# mode 0: each byte's class: 0 a byte of a token, 1 whitespace (C's isspace, as
# trec_eval splits its lines: space, tab, vertical tab, form feed; line ends apart;
# no byte beyond ASCII, so a no-break space is part of an id), 2 a line end (\n, \r),
# 3 NUL
_CLASS = np.zeros(256, np.uint8)
_CLASS[[9, 11, 12, 32]] = 1
_CLASS[[10, 13]] = 2
_CLASS[0] = 3


@helper
def _space(b):
    """Whitespace as C's isspace sees it, as trec_eval splits (line ends apart)."""
    return b == 32 or b == 9 or b == 11 or b == 12


@helper
def _decimal(data, lo, hi, pow10):
    """The common forms of :func:`_number` read with fewer branches: ``[+-]digits``
    or ``[+-]digits.digits`` (a digit at least), 19 digits at most, the whole below
    2**53 and at most 22 of them after the point: one exact division. Returns
    (value, True), or (0.0, False) where :func:`_number` is to read it (both give
    the float64 nearest the decimal, so the value does not depend on which)."""
    i = lo
    neg = False
    if i < hi and (data[i] == 43 or data[i] == 45):  # + -
        neg = data[i] == 45
        i += 1
    m = np.uint64(0)
    start = i
    while i < hi:
        d = np.uint64(data[i]) - np.uint64(48)
        if d > np.uint64(9):
            break
        m = m * np.uint64(10) + d
        i += 1
    digits = i - start
    after = 0
    if i < hi and data[i] == 46:  # .
        i += 1
        mark = i
        while i < hi:
            d = np.uint64(data[i]) - np.uint64(48)
            if d > np.uint64(9):
                break
            m = m * np.uint64(10) + d
            i += 1
        after = i - mark
    if i != hi or digits + after == 0 or digits + after > 19 or after > 22 or \
            m >= np.uint64(1 << 53):
        return 0.0, False
    v = np.float64(m)
    if after:
        v = v / pow10[after]
    return (-v if neg else v), True


@helper
def _number(data, lo, hi, pow10):
    """The decimal ``data[lo:hi]`` (``[+-]digits[.digits][(e|E)[+-]digits]``) as the
    nearest float64, where that takes one exact operation: at most 19 significant
    digits below 2**53 and a power of ten up to 22 (Clinger's fast path: the
    integer and the power are exact, and one IEEE multiplication or division
    rounds correctly). Returns (value, True), or (0.0, False) for anything else
    (the caller parses those as Python does)."""
    i = lo
    neg = False
    if data[i] == 43 or data[i] == 45:  # + -
        neg = data[i] == 45
        i += 1
    m = np.uint64(0)
    digits = 0  # significant digits in m
    zeros = 0  # zeros read after the last nonzero digit, not yet in m
    scale = 0  # the power of ten m * 10**zeros is to be multiplied by
    seen = False
    point = False
    while i < hi:
        b = data[i]
        if 48 <= b <= 57:
            seen = True
            if point:
                scale -= 1
            if b == 48:
                if digits > 0:
                    zeros += 1
            else:
                digits += zeros + 1
                if digits > 19:
                    return 0.0, False
                for _ in range(zeros):
                    m = m * np.uint64(10)
                m = m * np.uint64(10) + np.uint64(b - 48)
                zeros = 0
        elif b == 46 and not point:  # .
            point = True
        else:
            break
        i += 1
    if not seen:
        return 0.0, False
    if i < hi:
        if data[i] != 101 and data[i] != 69:  # e E
            return 0.0, False
        i += 1
        eneg = False
        if i < hi and (data[i] == 43 or data[i] == 45):
            eneg = data[i] == 45
            i += 1
        if i == hi:
            return 0.0, False
        e = 0
        while i < hi:
            b = data[i]
            if not 48 <= b <= 57:
                return 0.0, False
            if e < 100000:
                e = e * 10 + (b - 48)
            i += 1
        scale += -e if eneg else e
    scale += zeros
    if m == np.uint64(0):
        return (-0.0 if neg else 0.0), True
    if m >= np.uint64(1 << 53) or scale > 22 or scale < -22:
        return 0.0, False
    v = np.float64(m)
    v = v * pow10[scale] if scale >= 0 else v / pow10[-scale]
    return (-v if neg else v), True


@helper
def _same(data, a, b, n):
    for k in range(n):
        if data[a + k] != data[b + k]:
            return False
    return True


@helper
def _slot(h, shift):
    """A hash's first slot: the top bits of its product with 2**64 over the golden
    ratio (FNV's low bits alone depend on the ids' low bits alone)."""
    return np.int64((h * np.uint64(_GOLDEN)) >> np.uint64(shift))


@helper
def _words(data, lo, n):
    """The first 16 bytes of ``data[lo:lo + n]`` as two little-endian integers, zero
    padded: with the length, the whole of an id of at most 16 bytes. Away from the
    end of ``data``, 16 bytes are read at fixed offsets (which the compiler joins
    into two loads) and the bytes past the id masked off."""
    if lo + 16 <= data.shape[0]:
        a = (np.uint64(data[lo]) | np.uint64(data[lo + 1]) << np.uint64(8)
             | np.uint64(data[lo + 2]) << np.uint64(16) | np.uint64(data[lo + 3]) << np.uint64(24)
             | np.uint64(data[lo + 4]) << np.uint64(32) | np.uint64(data[lo + 5]) << np.uint64(40)
             | np.uint64(data[lo + 6]) << np.uint64(48) | np.uint64(data[lo + 7]) << np.uint64(56))
        b = (np.uint64(data[lo + 8]) | np.uint64(data[lo + 9]) << np.uint64(8)
             | np.uint64(data[lo + 10]) << np.uint64(16)
             | np.uint64(data[lo + 11]) << np.uint64(24)
             | np.uint64(data[lo + 12]) << np.uint64(32)
             | np.uint64(data[lo + 13]) << np.uint64(40)
             | np.uint64(data[lo + 14]) << np.uint64(48)
             | np.uint64(data[lo + 15]) << np.uint64(56))
        if n < 8:
            return np.int64(a & ((np.uint64(1) << np.uint64(8 * n)) - np.uint64(1))), np.int64(0)
        if n < 16:
            return np.int64(a), np.int64(b & ((np.uint64(1) << np.uint64(8 * (n - 8)))
                                              - np.uint64(1)))
        return np.int64(a), np.int64(b)
    w0 = np.int64(0)
    w1 = np.int64(0)
    for k in range(min(n, 8)):
        w0 |= np.int64(data[lo + k]) << np.int64(8 * k)
    for k in range(8, min(n, 16)):
        w1 |= np.int64(data[lo + k]) << np.int64(8 * (k - 8))
    return w0, w1


@helper
def _probe(data, lo, n, h, w0, w1, table, shift, first):
    """The slot of the id ``data[lo:lo + n]`` (hash ``h``, first bytes ``w0``,
    ``w1``) in an open-addressing table of four-integer slots (the hash; the code
    plus the length, up to ``_LONG``, times 2**40, -1 when empty; the first 16
    bytes), or the empty slot where it goes. Ids of at most 16 bytes are compared
    in the table alone; longer ones also by their bytes past the 16th (from
    ``first``, each code's first byte), so that no two ids share a code."""
    mask = (table.shape[0] >> 2) - 1
    slot = _slot(h, shift)
    hv = np.int64(h)
    tag = min(n, _LONG)
    while True:
        c = table[4 * slot + 1]
        if c < 0:
            return slot
        if table[4 * slot] == hv and (c >> 40) == tag and table[4 * slot + 2] == w0 and \
                table[4 * slot + 3] == w1:
            if n <= 16:
                return slot
            f = first[c & _CODE]
            if (n < _LONG or n == _length(data, f)) and _same(data, f + 16, lo + 16, n - 16):
                return slot
        slot = (slot + 1) & mask


@helper
def _code_of(data, lo, n, h, w0, w1, table, shift, first, size, nd):
    """The code of the id ``data[lo:lo + n]`` (hash ``h``, first bytes ``w0``,
    ``w1``): its code when the table holds it, else the next, ``nd``, which the
    table, ``first`` and ``size`` then record (the table grown when half full).
    Returns the code, the table, its shift and the distinct ids so far."""
    slot = _probe(data, lo, n, h, w0, w1, table, shift, first)
    code = table[4 * slot + 1]
    if code >= 0:
        return code & _CODE, table, shift, nd
    _put(table, slot, h, nd, n, w0, w1)
    first[nd] = lo
    size[nd] = n
    if 4 * (nd + 1) > table.shape[0] >> 1:
        table, shift = _grow(table, shift)
    return nd, table, shift, nd + 1


@helper
def _touch(table, slot):
    """Load the cache line of ``slot`` and the next one, where a probe that starts
    at ``slot`` ends most often (a slot is half a 64-byte line): called for a block
    of ids before they are probed, these loads depend on no other's result, so
    their misses overlap. The line alone left a probe past it a miss on the probe's
    own path: on 10,000,000 ids of 2,000,000 distinct (a table 47% full), 83-95
    ns a row with one line touched, 67-76 with two (AMD Zen 4)."""
    return table[4 * slot] + table[(4 * slot + 8) & (table.shape[0] - 1)]


@helper
def _put(table, slot, h, code, n, w0, w1):
    table[4 * slot] = np.int64(h)
    table[4 * slot + 1] = code | (np.int64(min(n, _LONG)) << 40)
    table[4 * slot + 2] = w0
    table[4 * slot + 3] = w1


@helper
def _grow(table, shift):
    """The table of :func:`_probe` with twice the slots, and its shift."""
    bigger = np.full(2 * table.shape[0], -1, np.int64)
    shift -= 1
    wide = (bigger.shape[0] >> 2) - 1
    for j in range(table.shape[0] >> 2):
        if table[4 * j + 1] >= 0:
            s = _slot(np.uint64(table[4 * j]), shift)
            while bigger[4 * s + 1] >= 0:
                s = (s + 1) & wide
            for k in range(4):
                bigger[4 * s + k] = table[4 * j + k]
    return bigger, shift


@helper
def _length(data, lo):
    """The length of the token from ``lo`` (to whitespace, a line end or the end)."""
    i = lo
    while i < data.shape[0]:
        b = data[i]
        if b == 10 or b == 13 or b == 0 or _space(b):
            break
        i += 1
    return i - lo


@helper
def _id_hash(data, lo, n, w0, w1):
    """The hash of the id ``data[lo:lo + n]``: :func:`~fastrank._kernels.id_groups.mix`
    of its first 16 bytes, then FNV-1a over the bytes past them."""
    h = mix(w0, w1, n)
    for k in range(lo + 16, lo + n):
        h = (h ^ np.uint64(data[k])) * np.uint64(_FNV_PRIME)
    return h


@helper
def _code_docs(data, buf, count, tag, dcodes, dtable, dshift, dfirst, dsize, nd):
    """Code the documents of ``count`` rows (``buf``: six integers a row, its id's
    first byte, length, first 16 bytes, hash and row), in row order, each row's
    code plus ``tag`` written to ``dcodes``: the table grown first if the block
    could fill it past half, their slots loaded together (the cache misses
    overlap), then probed, ids of at most 16 bytes here (by the table alone),
    longer ones by :func:`_probe`. Returns the table, its shift, the distinct
    documents so far and the loads' sum."""
    if 4 * (nd + count + 1) > dtable.shape[0] >> 1:
        dtable, dshift = _grow(dtable, dshift)
    touched = np.int64(0)
    for j in range(count):
        touched += _touch(dtable, _slot(np.uint64(buf[6 * j + 4]), dshift))
    mask = (dtable.shape[0] >> 2) - 1
    for j in range(count):
        lo, dn, w0, w1, hv = buf[6 * j], buf[6 * j + 1], buf[6 * j + 2], buf[6 * j + 3], \
            buf[6 * j + 4]
        if dn <= 16:
            slot = _slot(np.uint64(hv), dshift)
            tag_n = dn << 40
            while True:
                c = dtable[4 * slot + 1]
                if c < 0 or (dtable[4 * slot] == hv and (c & ~_CODE) == tag_n and
                             dtable[4 * slot + 2] == w0 and dtable[4 * slot + 3] == w1):
                    break
                slot = (slot + 1) & mask
        else:
            slot = _probe(data, lo, dn, np.uint64(hv), w0, w1, dtable, dshift, dfirst)
        code = dtable[4 * slot + 1]
        if code >= 0:
            dcodes[buf[6 * j + 5]] = (code & _CODE) | tag
        else:
            _put(dtable, slot, np.uint64(hv), nd, dn, w0, w1)
            dfirst[nd] = lo
            dsize[nd] = dn
            dcodes[buf[6 * j + 5]] = nd | tag
            nd += 1
    return dtable, dshift, nd, touched


@helper
def _group(h, groups):
    """The group, below ``groups``, of an id of hash ``h``: bits the table's slot
    (the product's top bits) does not depend on alone."""
    return np.int64(((h >> np.uint64(8)) & np.uint64(0xFFFF)) * np.uint64(groups)
                    >> np.uint64(16))


@helper
def _gather(data, ints, iout):
    """Mode -5: see :func:`trec_pass`."""
    width, n = ints[0], ints[1]
    out = iout.view(np.uint8)
    for j in range(n):
        lo, size = ints[2 + j], ints[2 + n + j]
        at = j * width
        for k in range(size):
            out[at + k] = data[lo + k]
    return TEXT_OK


@helper
def _line_ends(data, lo, hi):
    """The line ends in ``data[lo:hi]``: each \\n, and each \\r not followed by \\n (as
    Python's universal newlines end lines). One read of the bytes, 255 at a time
    into byte-wide sums (a loop the compiler vectorises); the pairs \\r\\n only
    where there is a \\r."""
    ends = np.int64(0)
    returns = np.int64(0)
    i = lo
    while i < hi:
        stop = min(i + 255, hi)
        a = np.uint8(0)
        b = np.uint8(0)
        for j in range(i, stop):
            x = data[j]
            a += x == 10
            b += x == 13
        ends += a
        returns += b
        i = stop
    if returns == 0:
        return ends
    top = min(hi, data.shape[0] - 1)
    for i in range(lo, top):
        returns -= np.int64(data[i] == 13) & np.int64(data[i + 1] == 10)
    return ends + returns


@helper
def _parse(data, ints, iout, fout):
    """Mode 0: see :func:`trec_pass`. One pass over the bytes ``ints[6]:ints[7]``:
    each byte's class (:data:`_CLASS`) read from a table, the tokens of a line
    found, the query coded at once (as the row before, mostly), each row's
    document kept as its first byte and length (coded after, by mode -2, so
    that parts of a file are read on several threads)."""
    width, qcol, dcol, vcol, cap = ints[0], ints[1], ints[2], ints[3], ints[4]
    flags = ints[5]
    read_values = (flags & 1) == 0
    read_queries = (flags & 2) == 0
    n = ints[7]
    cls = _CLASS
    # the queries by runs of rows (a run's rows list one query; a run file's
    # queries come one by one, so that the rows' codes need not be held here)
    docs = iout[HEAD + R_DOCS * cap:HEAD + (R_DOCS + 1) * cap]
    slow = iout[HEAD + R_SLOW * cap:HEAD + (R_SLOW + 3) * cap]  # row, token start, end
    qfirst = iout[HEAD + R_QFIRST * cap:HEAD + (R_QFIRST + 1) * cap]
    qsize = iout[HEAD + R_QSIZE * cap:HEAD + (R_QSIZE + 1) * cap]
    qcodes = iout[HEAD + R_QRUNS * cap:HEAD + (R_QRUNS + 1) * cap]  # each run's query
    qstart = iout[HEAD + R_QSTART * cap:HEAD + (R_QSTART + 1) * cap]  # each run's first row
    groups = ints[8]  # the documents' groups, each coded by one thread (mode -2)
    counts = iout[HEAD + REGIONS * cap:HEAD + REGIONS * cap + groups]  # each group's rows
    counts[:] = 0
    runs = 0
    qtable = np.full(4 * 1024, -1, np.int64)  # 1,024 slots to start with
    qshift = 64 - 10
    lastq = lastn = -1
    pow10 = _POW10
    rows = 0
    nq = 0
    nslow = 0
    i = ints[6]
    while i < n:
        begin = i
        col = 0
        qlo = qhi = dlo = dhi = vlo = vhi = 0
        if data[i] == 35:  # a line from "#": a comment, skipped as trec_eval 10 skips it
            while i < n and cls[data[i]] != 2:
                if cls[data[i]] == 3:
                    iout[H_AT] = i
                    return TEXT_NUL
                i += 1
        while i < n:  # the tokens of one line
            c = cls[data[i]]
            if c == 1:  # whitespace
                i += 1
                continue
            if c == 2:  # a line end
                break
            if c == 3:
                iout[H_AT] = i
                return TEXT_NUL
            lo = i
            i += 1
            while i < n and cls[data[i]] == 0:
                i += 1
            if col == qcol:
                qlo, qhi = lo, i
            if col == dcol:
                dlo, dhi = lo, i
            if col == vcol:
                vlo, vhi = lo, i
            col += 1
        if col > 0:
            if col < width:
                iout[H_COLS] = col
                iout[H_AT] = begin
                return TEXT_SHORT
            if read_queries:  # a run lists its queries one by one: as the row before?
                qn = qhi - qlo
                if lastq >= 0 and qn == lastn and _same(data, lastq, qlo, lastn):
                    qc = qcodes[runs - 1]
                else:
                    w0, w1 = _words(data, qlo, qn)
                    h = _id_hash(data, qlo, qn, w0, w1)
                    qc, qtable, qshift, nq = _code_of(data, qlo, qn, h, w0, w1, qtable, qshift,
                                                      qfirst, qsize, nq)
                lastq, lastn = qlo, qn
                if runs == 0 or qc != qcodes[runs - 1]:
                    qcodes[runs] = qc
                    qstart[runs] = rows
                    runs += 1
            dn = dhi - dlo
            group = 0
            if groups > 1:
                w0, w1 = _words(data, dlo, dn)
                group = _group(_id_hash(data, dlo, dn, w0, w1), groups)
            counts[group] += 1
            docs[rows] = dlo | (np.int64(min(dn, _SHORT)) << 40) | (group << 56)
            v, ok = 0.0, True
            if read_values:
                v, ok = _decimal(data, vlo, vhi, pow10)
                if not ok:
                    v, ok = _number(data, vlo, vhi, pow10)
            fout[rows] = v
            if not ok:
                slow[3 * nslow] = rows
                slow[3 * nslow + 1] = vlo
                slow[3 * nslow + 2] = vhi
                nslow += 1
            rows += 1
        if i < n:  # a line end: \n, \r\n or a lone \r (Python's universal newlines)
            if data[i] == 13 and i + 1 < n and data[i + 1] == 10:
                i += 1
            i += 1
    iout[H_ROWS] = rows
    iout[H_NQ] = nq
    iout[H_SLOW] = nslow
    iout[H_RUNS] = runs
    return TEXT_OK


@helper
def _documents(data, ints, iout):
    """Mode -2: see :func:`trec_pass`. The documents of one group, in row order,
    through a table of their own (a block of rows at a time:
    :func:`_code_docs`); the rows of other groups are left as they are."""
    parts, group, groups, start, size, total = ints[0], ints[1], ints[2], ints[3], ints[4], \
        ints[5]
    dfirst = iout[LOADS + start:LOADS + start + size]
    dsize = iout[LOADS + total + start:LOADS + total + start + size]
    slots = 1024  # sized to the group's rows, all groups' up to 2**22 slots; grown as it fills
    while slots < size and slots * groups < (1 << 22):
        slots *= 2
    dtable = np.full(4 * slots, -1, np.int64)
    dshift = 64
    while slots > 1:
        slots >>= 1
        dshift -= 1
    block = 64
    buf = np.empty(6 * block, np.int64)  # a block of rows' documents, to be coded
    nd = 0
    touched = np.int64(0)
    for k in range(parts):
        base, cap = ints[6 + 2 * k], ints[7 + 2 * k]
        rows = iout[base + H_ROWS]
        docs = iout[base + HEAD + R_DOCS * cap:base + HEAD + (R_DOCS + 1) * cap]
        pending = 0
        for r in range(rows):
            at = docs[r]
            if (at >> 56) != group:
                continue
            lo = at & _CODE
            dn = (at >> 40) & _SHORT
            if dn == _SHORT:
                dn = _length(data, lo)
            w0, w1 = _words(data, lo, dn)
            buf[6 * pending] = lo
            buf[6 * pending + 1] = dn
            buf[6 * pending + 2] = w0
            buf[6 * pending + 3] = w1
            buf[6 * pending + 4] = np.int64(_id_hash(data, lo, dn, w0, w1))
            buf[6 * pending + 5] = r
            pending += 1
            if pending == block:
                dtable, dshift, nd, t = _code_docs(data, buf, pending, group << 56, docs,
                                                   dtable, dshift, dfirst, dsize, nd)
                touched += t
                pending = 0
        if pending:
            dtable, dshift, nd, t = _code_docs(data, buf, pending, group << 56, docs, dtable,
                                               dshift, dfirst, dsize, nd)
            touched += t
    iout[HEAD + group] = touched  # (stored, so that the loads that touch the slots stay)
    return nd


@helper
def _settle(ints, iout):
    """Mode -4: see :func:`trec_pass`. Each row's document as its code among all
    groups' (its group's first code plus its code in the group), then the check
    that no query lists a document twice (a stamp per document, walking the
    runs of rows of one query in the order given: each query's runs together
    makes it exact, a query met again after another leaves it to the caller)."""
    parts, nq, nd, groups = ints[0], ints[1], ints[2], ints[3]
    first = ints[4 + 2 * parts:4 + 2 * parts + groups]
    walk = ints[4 + 2 * parts + groups:]  # (part, run) pairs
    offset = np.zeros(parts, np.int64)  # each part's first row among all
    for k in range(parts):
        base, cap = ints[4 + 2 * k], ints[5 + 2 * k]
        rows = iout[base + H_ROWS]
        if k + 1 < parts:
            offset[k + 1] = offset[k] + rows
        docs = iout[base + HEAD + R_DOCS * cap:base + HEAD + (R_DOCS + 1) * cap]
        for r in range(rows):
            at = docs[r]
            docs[r] = first[at >> 56] + (at & _CODE)
    iout[H_ND] = nd
    twice = -1
    seen = np.zeros(nq, np.bool_)
    stamp = np.full(nd, -1, np.int64)
    run_id = -1
    last = -1
    for j in range(walk.shape[0] // 2):
        k, run = walk[2 * j], walk[2 * j + 1]
        base, cap = ints[4 + 2 * k], ints[5 + 2 * k]
        rows = iout[base + H_ROWS]
        runs = iout[base + H_RUNS]
        q = iout[base + HEAD + R_QRUNS * cap + run]
        if q != last:
            if seen[q]:
                iout[H_TWICE] = -2
                return TEXT_OK
            seen[q] = True
            run_id += 1
            last = q
        qstart = iout[base + HEAD + R_QSTART * cap:base + HEAD + (R_QSTART + 1) * cap]
        docs = iout[base + HEAD + R_DOCS * cap:base + HEAD + (R_DOCS + 1) * cap]
        end = qstart[run + 1] if run + 1 < runs else rows
        for r in range(qstart[run], end):
            d = docs[r]
            if stamp[d] == run_id:
                if twice < 0 or offset[k] + r < twice:
                    twice = offset[k] + r
                break  # (a later row of this run comes later in the file)
            stamp[d] = run_id
    iout[H_TWICE] = twice
    return TEXT_OK


_WHOLE = 5  # mode -1: a record of this tag or below is whole in its tag and two words


@helper
def _wide_record(points, lo, m):
    """The two words (uint64), tag and hash of a record not whole as bytes in two
    words (beyond 16 units, or one from 256 on): tagged 1 plus its length in units
    (trailing zeros dropped, capped below ``_LONG``), its words its first four
    units; whole in them up to four units (tag ``_WHOLE``), longer ones compared
    unit by unit."""
    n = m
    while n > 0 and points[lo + n - 1] == 0:
        n -= 1
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    for k in range(min(n, 2)):
        w0 |= np.uint64(points[lo + k]) << np.uint64(32 * k)
    for k in range(2, min(n, 4)):
        w1 |= np.uint64(points[lo + k]) << np.uint64(32 * (k - 2))
    tag = np.int64(1 + min(n, _LONG - 1))
    if tag <= _WHOLE:
        return w0, w1, tag, mix(w0, w1, tag)
    h = np.uint64(_FNV_OFFSET)
    for k in range(0, n - 1, 2):
        h = (h ^ (np.uint64(points[lo + k]) | (np.uint64(points[lo + k + 1]) << np.uint64(32)))
             ) * np.uint64(_FNV_PRIME)
        h ^= h >> np.uint64(32)
    if n & 1:
        h = (h ^ np.uint64(points[lo + n - 1])) * np.uint64(_FNV_PRIME)
    return w0, w1, tag, mix(h, w1, tag)


@helper
def _same_units(pa, a, ma, pb, b, mb):
    """Whether the records ``pa[a:a + ma]`` and ``pb[b:b + mb]`` hold the same units,
    the shorter zero padded."""
    for k in range(min(ma, mb)):
        if pa[a + k] != pb[b + k]:
            return False
    for k in range(mb, ma):
        if pa[a + k] != 0:
            return False
    for k in range(ma, mb):
        if pb[b + k] != 0:
            return False
    return True


@helper
def _records(data, ints, reals, iout, fout):
    """Mode -1: see :func:`trec_pass`."""
    n0, n1 = ints[1], ints[3]
    m0, m1 = ints[0] >> 2, ints[2] >> 2
    keep_words = (ints[4] & 2) != 0
    p0 = data.view(np.uint32)
    p1 = reals.view(np.uint32)
    total = n0 + n1
    codes = iout[HEAD:HEAD + total]
    first = iout[HEAD + total:HEAD + 2 * total]
    words = iout[HEAD + 2 * total:HEAD + 4 * total] if keep_words else iout[:0]
    if fout.shape[0] >= 4 * 1024:  # the caller's table (numpy's memory: larger pages)
        table = fout.view(np.int64)
    else:
        table = np.full(4 * 1024, -1, np.int64)
    slots = table.shape[0] >> 2
    shift = 64
    s = slots
    while s > 1:
        s >>= 1
        shift -= 1
    mask = slots - 1
    nd = 0
    wide = 0
    block = 64  # rows hashed, then their slots touched together (misses overlap), then coded
    hs = np.empty(block, np.uint64)
    tags = np.empty(block, np.int64)
    ws = np.empty(2 * block, np.uint64)
    touched = np.int64(0)
    for part in range(2):
        points = p0 if part == 0 else p1
        m = m0 if part == 0 else m1
        n = n0 if part == 0 else n1
        base = 0 if part == 0 else n0
        for b0 in range(0, n, block):
            b1 = min(n, b0 + block)
            for r in range(b0, b1):
                i = r - b0
                # the record as bytes in two words (whole when its units past the
                # 16th are zero and the others below 256: tag 0)
                lo = r * m
                w0, w1, acc = id_words(points, lo, m)
                if acc < np.uint64(256):
                    tag = np.int64(0)
                    h = mix(w0, w1, 0)
                else:
                    w0, w1, tag, h = _wide_record(points, lo, m)
                hs[i] = h
                tags[i] = tag
                ws[2 * i] = w0
                ws[2 * i + 1] = w1
            for r in range(b0, b1):  # loads of no other's result: their misses overlap
                touched += _touch(table, _slot(hs[r - b0], shift))
            for r in range(b0, b1):
                i = r - b0
                tag = tags[i]
                h = hs[i]
                k0, k1 = np.int64(ws[2 * i]), np.int64(ws[2 * i + 1])
                slot = _slot(h, shift)
                hv = np.int64(h)
                while True:
                    c = table[4 * slot + 1]
                    if c < 0:
                        break
                    if table[4 * slot] == hv and (c >> 40) == tag and table[4 * slot + 2] == k0 \
                            and table[4 * slot + 3] == k1:
                        if tag <= _WHOLE:
                            break
                        g = first[c & _CODE]
                        if g < n0 and _same_units(p0, g * m0, m0, points, r * m, m):
                            break
                        if g >= n0 and _same_units(p1, (g - n0) * m1, m1, points, r * m, m):
                            break
                    slot = (slot + 1) & mask
                code = table[4 * slot + 1]
                if code >= 0:
                    code &= _CODE
                else:
                    code = nd
                    _put(table, slot, h, nd, tag, k0, k1)
                    first[nd] = base + r
                    if keep_words:
                        words[2 * nd] = k0
                        words[2 * nd + 1] = k1
                    if tag != 0:
                        wide += 1
                    nd += 1
                    if 4 * nd > table.shape[0] >> 1:
                        table, shift = _grow(table, shift)
                        mask = (table.shape[0] >> 2) - 1
                codes[base + r] = code
    iout[_H_SPARE] = touched  # (stored, so that the loads that touch the slots stay)
    iout[H_ROWS] = total
    iout[H_ND] = nd
    iout[H_WIDE] = wide
    return TEXT_OK


@helper
def _compare(a, ia, wa, b, ib, wb):
    """The sign of the record ``a[ia:ia + wa]`` minus ``b[ib:ib + wb]``, bytes compared
    unsigned, the shorter zero padded (numpy's order of fixed-width bytes)."""
    for k in range(min(wa, wb)):
        if a[ia + k] != b[ib + k]:
            return -1 if a[ia + k] < b[ib + k] else 1
    for k in range(wb, wa):
        if a[ia + k] != 0:
            return 1
    for k in range(wa, wb):
        if b[ib + k] != 0:
            return -1
    return 0


@helper
def _merge(data, ints, reals, iout):
    """Mode -7: see :func:`trec_pass`."""
    wy, ny, wx, nx = ints[0], ints[1], ints[2], ints[3]
    x = reals.view(np.uint8)
    j = 0
    for i in range(nx):
        found = -1
        while j < ny:
            c = _compare(data, j * wy, wy, x, i * wx, wx)
            if c < 0:
                j += 1
                continue
            if c == 0:
                found = j
            break
        iout[i] = found
    return TEXT_OK


@kernel([(i64, ro(u8), ro(i64), ro(f64), rw(i64), rw(f64))])
def trec_pass(mode, data, ints, reals, iout, fout):
    """Mode 0: read the part ``ints[6]:ints[7]`` of the file ``data`` (bytes; whole
    lines), whose lines hold ``ints[0]`` or more tokens, the query id, document id
    and value being tokens ``ints[1]``, ``ints[2]``, ``ints[3]``; ``ints[4]``
    (``cap``) bounds the part's lines; ``ints[5]``: flags, 1 to leave the values
    unread, 2 the query ids uncoded; ``ints[8]``: the number of groups its
    documents are coded in (up to ``GROUPS``). ``iout`` (the part's block) holds
    ``HEAD`` + ``REGIONS`` ``cap`` slots + a slot per group: the header (``H_*``:
    rows, distinct queries, values left to the caller, a bad line's columns and
    first byte (of a NUL, the NUL's: the caller counts the lines before it), and
    the runs of rows of one query), then the regions ``R_*``: each row's document
    (its first byte, plus its length up to ``_SHORT`` times 2**40, plus its
    group times 2**56), (row, first, end) of each value left to the caller, each
    distinct query's first byte and length (codes by first occurrence in the
    part), each run's query code and first row; then each group's rows. ``fout``
    gets each row's value. Returns a ``TEXT_*`` status.

    Mode -2: code the documents of one group of the parts mode 0 read, through a
    table of its own. ``ints``: the number of parts, the group, the number of
    groups, where its distinct documents go (from ``LOADS``, and from ``LOADS``
    + ``N`` for their lengths) and how many rows it holds, ``N`` (the parts'
    ``cap`` in all), then each part's block and ``cap``. ``iout``: the header
    and a slot per group (``LOADS``), two regions of ``N`` slots, the parts'
    blocks. Its rows' documents become their codes in the group (by first
    occurrence) plus the group times 2**56. Returns the group's distinct
    documents.

    Mode -4: ``ints``: the number of parts, the file's distinct queries and
    documents, the number of groups, each part's block and ``cap`` (as for mode
    -2), each group's first code among all, then (part, run) pairs: the runs of
    rows of one query in the order to check them. Each part's runs' query codes
    must by then be the whole file's. Each row's document becomes its code
    among all; the header gets ``H_ND`` and ``H_TWICE``: the first row, counted
    across the parts, that lists a document its query listed before, -1 when
    none, -2 when a query's runs are not all together in that order (and so
    unchecked).

    Mode -3: returns the line ends of ``data[ints[0]:ints[1]]``.

    Mode -5: ``ints``: a width, a number ``n``, then ``n`` first bytes and ``n``
    lengths (each at most the width, each range inside ``data``); writes the
    bytes of each range into ``iout``'s bytes, ``width`` apart (the rest left as
    they are).

    Mode -7: two sorted columns of distinct fixed-width ids joined by one merge:
    ``data`` holds ``ints[1]`` records of ``ints[0]`` bytes, ``reals`` (its bytes)
    ``ints[3]`` of ``ints[2]`` bytes, each column ascending in numpy's order of
    bytes (zero padded). Writes ``iout[i]``: the place in ``data`` of ``reals``'
    record ``i``, -1 where ``data`` lacks it.
    """
    if mode == -7:
        return _merge(data, ints, reals, iout)
    if mode == -3:
        return _line_ends(data, ints[0], ints[1])
    if mode == -5:
        return _gather(data, ints, iout)
    if mode == -4:
        return _settle(ints, iout)
    if mode == -2:
        return _documents(data, ints, iout)
    return _parse(data, ints, iout, fout)


@helper
def _text_keys(data, ints, iout):
    """Mode -6: see :func:`trec_arrays`."""
    width, lo, hi = ints[0], ints[1], ints[2]
    points = data.view(np.uint32)
    out = iout.view(np.uint64)
    head = min(width, 8)
    for i in range(lo, hi):
        tail = np.uint32(0)  # any character past the eighth
        for c in range(head, width):
            tail |= points[i * width + c]
        key = np.uint64(0)
        wide = np.uint32(0)
        for c in range(head):
            p = points[i * width + c]
            wide |= p
            key = (key << np.uint64(8)) | np.uint64(p)
        if tail != np.uint32(0) or wide > np.uint32(255):
            return i
        out[i] = key << np.uint64(8 * (8 - head))
    return -1


@kernel([(i64, ro(u8), ro(i64), ro(f64), rw(i64), rw(f64))])
def trec_arrays(mode, data, ints, reals, iout, fout):
    """The passes over arrays, apart from the file reader's (:func:`trec_pass`), so
    that reading a file compiles none of them and scoring arrays none of the
    reader's: the same signature, one variant.

    Mode 1 + ``p``: ``ints`` holds the number of queries ``nb``, a number of parts
    and the first query of each part and the end (one more), then the queries'
    rows' starts and their ends; ``data`` each row's document rank (int64, its
    bytes); ``reals`` the rows' scores. For the queries of part ``p``, writes
    ``fout[r]``: row ``r``'s place when each query's rows are ordered by score,
    then document rank (both increasing), numbered from its first row; ``iout``
    is scratch of one slot per row.

    Mode -1: codes fixed-width records (a numpy ``str`` array's UCS4 code points, or
    int64 ids, in native order) through one hash table: ``data`` holds ``ints[1]``
    records of ``ints[0]`` bytes, ``reals`` (its bytes) ``ints[3]`` more of
    ``ints[2]`` bytes (0 for none), equal where the strings are (their widths may
    differ: trailing zero units are padding). ``ints[4]``: flags, 2 to keep each
    distinct record's words (1 is not used: the query ids' runs are found before, so
    only their first rows come here). ``iout`` holds ``HEAD`` + 2 N slots (N the
    records of both; 4 N with flag 2): the header (rows, distinct records in
    ``H_ND``, those not held whole as bytes in their words, beyond 16 units or one
    from 256 on, in ``H_WIDE``), then each record's code (the distinct records
    numbered in order of first occurrence, ``data``'s records first), each distinct
    record's first occurrence (its row among the N), and with flag 2 its two words
    (where ``H_WIDE`` is 0: its units as bytes, little-endian, zero padded).
    ``fout``: the hash table to start from (its bits: 4 int64 a slot, -1 everywhere;
    a power of two slots, at least 1,024), grown in the kernel as it fills; empty
    for one of the kernel's.

    Mode -6: text ids ``ints[1] .. ints[2]`` (rows of ``ints[0]`` code points,
    NUL padded: numpy's ``str`` arrays' bytes, native order) as their characters
    packed big-endian into one uint64 each (``iout``'s bits), zero padded, so
    that the keys are equal and ordered as the ids are. Only ids of at most 8
    characters, each below 256, fit: returns the first that does not (-1 when
    all do).
    """
    if mode == -6:
        return _text_keys(data, ints, iout)
    if mode < 0:
        return _records(data, ints, reals, iout, fout)
    return order_queries(mode - 1, data, ints, reals, iout, fout)


__all__ = ["GROUPS", "HEAD", "H_AT", "H_COLS", "H_ND", "H_NQ", "H_ROWS", "H_RUNS",
           "H_SLOW", "H_TWICE", "H_WIDE", "LOADS", "REGIONS", "R_DOCS", "R_QFIRST", "R_QRUNS",
           "R_QSIZE", "R_QSTART", "R_SLOW", "TEXT_NUL", "TEXT_OK", "TEXT_SHORT",
           "trec_arrays", "trec_pass"]
