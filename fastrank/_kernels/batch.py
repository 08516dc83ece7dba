"""Many tasks in one call: matrix blocks turned task-major, small tasks in one kernel.

A batch reaches the kernels as *segments*: task ``j`` is the scores
``values[offsets[j]:offsets[j + 1]]``, with its labels either in an array
parallel to the scores (``LAB_SAME``), as the rows of its positives in a
compressed sparse column matrix (``LAB_CSC``: ``lab_idx[lab_ptr[j]:lab_ptr[j+1]]``)
or as a class code per sample (``LAB_CODES``: positive where ``lab_idx[i] == j``).
Weights are one per sample shared by every task (``wshared``: the columns of a
matrix) or parallel to the scores (groups), or absent (empty).

* :func:`transpose_block` copies ``bw`` neighbouring columns of a C-ordered
  ``(n, t)`` score matrix (and their labels) into ``bw`` task-major rows,
  reading one cache line of each row at a time, so the columns become segments.
* :func:`run_segments` computes every listed task inside one call, exactly as
  a one-task call does (split by class, sort, sweep), with the engine's own
  sort: for small tasks, where a call from Python per task would cost more
  than the task. A task with few positives sorts only those and counts its
  negatives against them (:func:`counted_sweep`); a task of float32 scores
  with many positives may instead sort its samples once, each an item of its
  order key and its label, and sweep them once (:func:`item_sweep`).
* :func:`group_order` puts samples in order of their group code (a counting
  sort that moves scores, labels and weights in the same pass), so that each
  group becomes a segment.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import KEYS, VALUES, b1, f64, helper, i64, kernel, ro, rw, u8, u64
from .keys import KIND_SIGNED, from_key, to_key
from .sort import (
    SMALL,
    WIDE_DIGITS_MAX_N,
    highest_bit,
    lsd_pass_sort,
    sort_bits,
    sort_bits_weighted,
)
from .sweep import (
    BEYOND_RANGE,
    CHUNK,
    K_FP,
    K_PRBE,
    K_SIZE,
    K_TP,
    MODE_RUNS,
    MODE_SWEEP,
    MODE_TOTALS,
    OUT_NEG,
    OUT_POS,
    OUT_SIZE,
    S_E_FP,
    S_E_TP,
    S_FP,
    S_MAX_FPR,
    S_NEG,
    S_PA_OPEN,
    S_POS,
    S_SIZE,
    S_TP,
    bulk_sweep,
    finish,
    fx_value,
    init_state,
    set_totals_k,
    sweep_classes,
    sweep_table,
    weight_shift_k,
)
from .tasks import split_samples

LAB_SAME = 0
LAB_CSC = 1
LAB_CODES = 2

# Columns of a C-ordered matrix are read this many at a time: one 64-byte
# cache line of float32 scores per sample.
BLOCK = 16


@helper
def task_labels(lab_mode, lab_ptr, lab_idx, j, lrow):
    """Fill ``lrow`` with task ``j``'s 0/1 labels from sparse columns or class codes."""
    ln = lrow.shape[0]
    if lab_mode == LAB_CSC:
        for i in range(ln):
            lrow[i] = 0
        for k in range(lab_ptr[j], lab_ptr[j + 1]):
            lrow[lab_idx[k]] = 1
    else:
        for i in range(ln):
            lrow[i] = 1 if lab_idx[i] == j else 0


_TRANSPOSE = [(ro(k), i64, i64, i64, i64, ro(u8), i64, ro(i64), ro(i64), rw(k), rw(u8))
              for k in KEYS]


TILE_ROWS = 128  # rows of a block transposed together (their lines stay in L1)


@kernel(_TRANSPOSE)
def transpose_block(bits, n, t, j0, bw, labels, lab_mode, lab_ptr, lab_idx, tb, lb):
    """Columns ``j0 .. j0 + bw`` of a C-ordered ``(n, t)`` matrix into ``bw`` rows.

    ``tb[jj * n + i]`` receives score ``(i, j0 + jj)``, ``lb`` its 0/1 label.
    The rows go :data:`TILE_ROWS` at a time: the first column read brings
    their cache lines in and the other columns find them there, and each
    column's part is written in one contiguous run. Row by row, with a store
    to every column's stream per row, took 1.75x as long (B1's 100,000 x
    1,000 float32 and bool matrices: 0.49 s against 0.28 s on one thread of a
    Zen 3; the loops over slices' own lengths, see NONNEGATIVE in
    :mod:`~fastrank._kernels.tasks`, gained the rest). A dense label matrix's
    labels are copied in the same loop as the scores: every block of a 50,000 x
    300 float32 and bool matrix, one thread of an AMD Zen 4, 28.5-30.2 ms against
    40.9-41.5 ms with a loop for each.
    """
    same = lab_mode == LAB_SAME
    for i0 in range(0, n, TILE_ROWS):
        i1 = min(i0 + TILE_ROWS, n)
        rows = bits[i0 * t + j0:]
        if same:  # each label in the same turn as its score: one loop, not two
            lrows = labels[i0 * t + j0:]
            for jj in range(bw):
                out = tb[jj * n + i0:jj * n + i1]
                lout = lb[jj * n + i0:jj * n + i1]
                for i in range(out.shape[0]):
                    out[i] = rows[i * t + jj]
                    lout[i] = lrows[i * t + jj]
        else:
            for jj in range(bw):
                out = tb[jj * n + i0:jj * n + i1]
                for i in range(out.shape[0]):
                    out[i] = rows[i * t + jj]
    if not same:
        for jj in range(bw):
            task_labels(lab_mode, lab_ptr, lab_idx, j0 + jj, lb[jj * n:(jj + 1) * n])


@helper
def _nonfinite(b, exp_mask):
    return (np.uint64(b) & exp_mask) == exp_mask


@helper
def counted_sweep(p, pb, q, qb, st, sk, gpos, gneg, gkey, flip, rbits, rbuf, rvals, kind, sign,
                  ones, hist):
    """The sweep of an unweighted task from its sorted positives ``p`` (bits ``pb``)
    and its *unsorted* negatives ``q`` (``qb``), with the table
    :func:`~fastrank._kernels.sweep.sweep_classes` builds when the positives are the
    fewer, entry for entry: per positive group, the negatives above it as one
    entry, then the group with the negatives tied with it.

    Each group's counts come from a pass over the negatives (a vector compare
    and count; exact), which costs less than sorting them while the groups are
    few: see :func:`~fastrank._core.engine.count_choice` for the limit.
    Two runs of negatives need more than their count. The one holding the
    break-even group (where TP + FP reaches P) is cut there as the sorted path
    cuts it: that group is the run's r-th highest score, r <= P, found with a
    descending buffer of r scores (``rvals``; ``rbits`` is the same memory read
    as bits). The one holding the group where the partial AUC's budget runs
    out is gathered into ``rbits`` (``rbuf``: the sort's scratch), sorted and
    swept as the sorted path sweeps it. Every other run is one entry whose key
    (the sorted path's lowest score of the run) is not known here and is not
    needed: a sweep reads the keys of the groups with positives and of the
    break-even group only (and the last entry's when a task has no positives,
    which this path is never given). ``flip``: see :func:`sweep_classes`; ``q``
    and ``qb`` come flipped already, the run sort gets them unflipped.
    """
    pos = st[S_POS]
    fp_stop = st[S_MAX_FPR] * st[S_NEG]
    tp = st[S_TP]
    fp = st[S_FP]
    pa_open = st[S_PA_OPEN] != 0.0
    prbe_left = pos > 0.0 and tp + fp < pos
    k = q.shape[0]
    limit = gpos.shape[0] - 6  # a step writes at most four entries
    i = p.shape[0]
    above = np.int64(0)  # negatives at or above the last group handed over
    top = p[0]  # that group's score (read only once a group was handed over)
    v = top
    started = False
    done = False
    while not done:
        c = np.int64(0)
        gather = False  # the run above p[i - 1] (or below every group) goes exactly
        while c < limit:
            gt = np.int64(0)
            eq = np.int64(0)
            if i > 0:
                v = p[i - 1]
                for t in range(k):  # a vector compare and count
                    x = q[t]
                    gt += np.int64(x > v)
                    eq += np.int64(x == v)
            else:
                gt = k
            a = gt - above
            if a > 0:
                if pa_open and fp + a > fp_stop:
                    gather = True
                    break
                if prbe_left and tp + fp + a >= pos:
                    # The break-even group is the r-th highest negative of the run
                    # (r <= P <= count_max): found with a descending buffer of r
                    # scores, then the run goes as the sorted path cuts it: the
                    # negatives above that group, the group, the rest. The run's
                    # bounds are masks, so that the passes do not branch per score.
                    r = np.int64(math.ceil(pos - tp - fp))
                    any_low = i == 0
                    any_high = not started
                    filled = np.int64(0)
                    low = top  # the buffer's lowest score once it is full
                    for t in range(k):
                        x = q[t]
                        if ((any_low | (x > v)) & (any_high | (x < top))
                                & ((filled < r) | (x > low))):
                            at = min(filled, r - 1)
                            while at > 0 and rvals[at - 1] < x:
                                rvals[at] = rvals[at - 1]
                                at -= 1
                            rvals[at] = x
                            filled = min(filled + 1, r)
                            low = rvals[r - 1]
                    cut = rvals[r - 1]
                    hi_n = np.int64(0)
                    tie_n = np.int64(0)
                    for t in range(k):
                        x = q[t]
                        inside = (any_low | (x > v)) & (any_high | (x < top))
                        hi_n += np.int64(inside & (x > cut))
                        tie_n += np.int64(inside & (x == cut))
                    if hi_n > 0:
                        gpos[c] = 0.0
                        gneg[c] = float(hi_n)
                        gkey[c] = 0  # not read (see above)
                        c += 1
                    gpos[c] = 0.0
                    gneg[c] = float(tie_n)
                    gkey[c] = (np.uint64(0) if cut == 0 else np.uint64(rbits[r - 1])) ^ flip
                    c += 1
                    if a > hi_n + tie_n:
                        gpos[c] = 0.0
                        gneg[c] = float(a - hi_n - tie_n)
                        gkey[c] = 0
                        c += 1
                    prbe_left = False
                else:
                    gpos[c] = 0.0
                    gneg[c] = float(a)
                    gkey[c] = 0  # not read (see above)
                    c += 1
                fp += a
                above = gt
            if i == 0:
                done = True
                break
            v = p[i - 1]
            lo = i - 1
            while lo > 0 and p[lo - 1] == v:
                lo -= 1
            dp = float(i - lo)
            dn = float(eq)
            # the group's entry and flags as bulk_sweep writes them (inline, not in a
            # helper: a call in this loop costs its arrays' reference counts each turn)
            gpos[c] = dp
            gneg[c] = dn
            gkey[c] = (np.uint64(0) if v == 0 else np.uint64(pb[lo])) ^ flip
            c += 1
            i = lo
            tp += dp
            if pa_open and fp + dn > fp_stop:
                pa_open = False
            fp += dn
            if prbe_left and tp + fp >= pos:
                prbe_left = False
            above += eq
            top = v
            started = True
        sweep_table(gpos, gneg, gkey, c, st, sk)
        if not gather:
            continue
        # The run's negatives: above p[i - 1] (if any group is left) and below the
        # last group handed over (if one was), sorted, then swept as the sorted path does.
        lower = i > 0
        v = p[i - 1] if lower else top
        n = np.int64(0)
        for t in range(k):
            x = q[t]
            if (not lower or x > v) and (not started or x < top):
                rbits[n] = qb[t]
                n += 1
        for t in range(n):  # the sort takes the bits as they came
            rbits[t] ^= flip
        sort_bits(rbits[:n], rbuf[:n], kind, sign, ones, hist)
        for t in range(n):
            rbits[t] ^= flip
        bulk_sweep(p[:0], pb[:0], rvals[:n], rbits[:n], st, sk, gpos, gneg, gkey, False, False,
                   flip)
        fp = st[S_FP]
        pa_open = st[S_PA_OPEN] != 0.0
        prbe_left = pos > 0.0 and tp + fp < pos
        above += n
        if i == 0:
            done = True


SHARE_UNIT = 1024  # run_segments' ``many``: positives per this many samples


@helper
def item_sweep(seg, lab, n, sign, exp_mask, st, sk, gpos, gneg, gkey, items, ibuf, hist):
    """An unweighted float32 task's sweep from one sort of ``key << 1 | label`` items.

    Each sample becomes one uint64 item, its score's order key above its label
    bit; the items are radix sorted (one sort, where the classes took two and
    their keys' conversions four passes more) and swept once from the top, in
    one pass without a branch on the data: a tie group comes positives first,
    and an item opens a new entry of the table when it opens a new group that
    holds a positive or follows one. So the table handed to
    :func:`~fastrank._kernels.sweep.sweep_table` is the one
    :func:`~fastrank._kernels.sweep.bulk_sweep` builds: each group with
    positives one entry; each run of negative-only groups one entry keyed by its
    lowest score, except the group where TP + FP reaches P (the one holding the
    P-th item from the top) and the one where the partial AUC's FP budget runs
    out, which go alone (both found before the pass). The sums, and the
    results, are those of the two class sorts and their merge, bit for bit.
    Returns False, sweeping nothing, when a score is NaN or infinite (they sort
    to an end). ``st``/``sk`` come initialised.
    """
    one = np.uint64(1)
    ones = np.uint64(0xFFFFFFFF)
    anyk = np.uint64(0)
    allk = ~np.uint64(0)
    for i in range(n):
        k = (to_key(np.uint64(seg[i]), 0, sign, ones) << one) | np.uint64(lab[i] != 0)
        anyk |= k
        allk &= k
        items[i] = k
    it = items[:n]
    varying = anyk ^ allk
    if n <= SMALL:
        for i in range(1, n):  # insertion sort
            x = it[i]
            at = i - 1
            while at >= 0 and it[at] > x:
                it[at + 1] = it[at]
                at -= 1
            it[at + 1] = x
    elif varying != np.uint64(0):
        lsd_pass_sort(it, ibuf[:n], 0, highest_bit(varying) + 1, hist, n <= WIDE_DIGITS_MAX_N)
    if n == 0:
        sweep_table(gpos, gneg, gkey, 0, st, sk)
        return True
    if exp_mask != np.uint64(0):
        lo_b = from_key(it[0] >> one, 0, sign, ones)
        hi_b = from_key(it[n - 1] >> one, 0, sign, ones)
        if (lo_b & exp_mask) == exp_mask or (hi_b & exp_mask) == exp_mask:
            return False
    # The two groups that go alone, by their keys (none: a key no item has).
    none = np.uint64(1) << np.uint64(40)
    m = np.int64(st[S_POS])
    k_be = it[n - m] >> one if m > 0 else none
    k_pa = none
    if st[S_PA_OPEN] != 0.0:
        fp_stop = st[S_MAX_FPR] * st[S_NEG]
        fp = 0.0
        for i in range(n - 1, -1, -1):
            fp += float(one - (it[i] & one))
            if fp > fp_stop:
                k_pa = it[i] >> one
                break
    # One pass: entry c accumulates its counts (ep, en; integers, whose chain of
    # dependent steps is shorter than floats') and is written at every item, so
    # that its slot holds its final counts once the next entry opens. Flags are
    # 0/1 integers and indices unsigned (no wraparound code): the pass is the
    # fewer instructions (50,000 items, AMD Zen 4: 2.8 against 4.2 ns per item).
    # The first item opens entry 0 before the loop.
    limit = np.uint64(gpos.shape[0] - 2)
    zero = np.uint64(0)
    c = zero
    ep = zero
    en = zero
    prev = it[n - 1] >> one
    alone = (it[n - 1] & one) | np.uint64(prev == k_be) | np.uint64(prev == k_pa)
    for t in range(n):
        x = it[np.uint64(n - 1 - t)]
        v = x >> one
        lb = x & one
        special = np.uint64(v == k_be) | np.uint64(v == k_pa)
        start = np.uint64(v != prev) & (lb | alone | special)
        c += start
        keep = start - one  # every bit set where the entry goes on, none where it opens
        ep = (ep & keep) + lb
        en = (en & keep) + (one - lb)
        gpos[c] = float(ep)
        gneg[c] = float(en)
        gkey[c] = v
        alone = ((lb | special) & (zero - start)) | (alone & keep)
        prev = v
        if c >= limit:  # the entries before c are final: swept; c moves to the front
            for g in range(c):
                gkey[g] = from_key(gkey[g], 0, sign, ones)
            sweep_table(gpos, gneg, gkey, np.int64(c), st, sk)
            gpos[0] = float(ep)
            gneg[0] = float(en)
            gkey[0] = v
            c = zero
    c += one
    for g in range(c):
        gkey[g] = from_key(gkey[g], 0, sign, ones)
    sweep_table(gpos, gneg, gkey, np.int64(c), st, sk)
    return True


_RUN = [(ro(b), i64, u64, u64, u64, ro(u8), i64, ro(i64), ro(i64), ro(f64), b1, ro(i64),
         ro(i64), f64, i64, i64, i64, rw(i64, 2), rw(f64), rw(u64), rw(b), rw(v), rw(f64), rw(u8),
         rw(f64, 2), rw(u64), rw(i64), ro(i64), rw(f64), rw(f64), rw(u64), rw(i64))
        for v, b in VALUES]


@kernel(_RUN)
def run_segments(vbits, kind, sign, ones, exp_mask, labels, lab_mode, lab_ptr, lab_idx, weights,
                 wshared, offsets, tasks, max_fpr, what, count_max, many, hist, fw, uw, kbits,
                 kvals, ww, lrow, out, prbe, bad, tptr, tpos, tneg, tkey, tcount):
    """Every task of ``tasks`` (segments of the score bits ``vbits``), computed
    as a one-task call computes it; ``out[j]``/``prbe[j]`` receive task ``j``'s
    results. Weighted, each task gets its own unit
    (:func:`~fastrank._kernels.sweep.weight_shift`) and each class's exact
    total is kept in units fixed by its largest weight times its count, as a
    one-task call does. A bad task stops the call with ``bad = (task, why)``:
    why 0, a NaN or infinite score; 1, classes' weights too far apart for one unit
    (the caller computes that task with a unit per class, then the rest).
    An unweighted task with at most ``count_max`` positives, and at least as
    many negatives, leaves its negatives unsorted (:func:`counted_sweep`; 0:
    none does); its results are the same, bit for bit.

    Scratch, typed by the caller (no ``view`` in here: Numba compiles the error
    path of every array view, string formatting included, which was two
    seconds of this kernel's first compile): ``hist`` the radix sort's counts;
    ``fw`` the state and two chunk buffers (``S_SIZE + 2 * CHUNK``), ``uw`` the
    state's keys and a chunk of keys (``K_SIZE + CHUNK``); ``kbits`` three
    buffers of ``cap`` score bits each, where ``cap`` exceeds the largest
    task, and ``kvals`` the same memory read as scores (uint64 for int64 scores,
    whose sorted bits get their sign bit flipped here); ``ww`` three buffers of
    ``cap`` weights (weighted only); ``lrow`` ``cap`` labels.

    With ``tptr`` not empty (unweighted only), each task's tie table is written
    instead of its results: the table :data:`~fastrank._kernels.sweep.MODE_RUNS`
    writes (each run of negative-only groups one entry), cumulated (FP and TP at
    or above each entry) into ``tneg``/``tpos``, the tasks' tables one after
    another from the start, with the entries' score bits in ``tkey`` and their
    number in ``tcount[j]``; task ``j`` may take up to ``tptr[j + 1] - tptr[j]``
    entries (its size plus 16), room the buffers hold for every task of the call.

    With ``tptr`` empty, ``tkey`` is either empty or scratch of two buffers of
    ``cap`` uint64 items: then an unweighted task of float32 scores with at least
    ``many`` positives per :data:`SHARE_UNIT` samples sorts its samples once, as
    ``key << 1 | label`` items, and sweeps them once (:func:`item_sweep`)
    instead of sorting each class and merging them; its results are the same,
    bit for bit.
    """
    weighted = weights.shape[0] > 0
    tat = 0  # where the next table goes
    cap = kbits.shape[0] // 3
    st = fw[:S_SIZE]
    gpos = fw[S_SIZE:S_SIZE + CHUNK]
    gneg = fw[S_SIZE + CHUNK:S_SIZE + 2 * CHUNK]
    sk = uw[:K_SIZE]
    gkey = uw[K_SIZE:K_SIZE + CHUNK]
    pbits = kbits[:cap]
    qbits = kbits[cap:2 * cap]
    buf = kbits[2 * cap:3 * cap]
    pvals = kvals[:cap]
    qvals = kvals[cap:2 * cap]
    nw = cap if weighted else 0
    pw = ww[:nw]
    qw = ww[nw:2 * nw]
    wbuf = ww[2 * nw:3 * nw]
    cur = np.zeros(2, np.int64)
    for q in range(tasks.shape[0]):
        j = tasks[q]
        s0 = offsets[j]
        ln = offsets[j + 1] - s0
        seg = vbits[s0:s0 + ln]
        lab = lrow[:ln]
        if lab_mode == LAB_SAME:  # a loop: a slice assignment compiles a shape check's message
            for i in range(ln):
                lab[i] = labels[s0 + i]
        else:
            task_labels(lab_mode, lab_ptr, lab_idx, j, lab)
        w = weights
        if weighted:
            w = weights[:ln] if wshared else weights[s0:s0 + ln]
        elif tptr.shape[0] == 0 and tkey.shape[0] >= 2 * cap:  # (float32 scores only)
            m = np.int64(0)
            for i in range(ln):
                m += np.int64(lab[i] != 0)
            if SHARE_UNIT * m >= many * ln:
                init_state(st, sk, float(m), float(ln - m), max_fpr, what, False, 0.0, 0.0)
                if not item_sweep(seg, lab, ln, sign, exp_mask, st, sk, gpos, gneg, gkey,
                                  tkey[:cap], tkey[cap:2 * cap], hist):
                    bad[0] = j
                    bad[1] = 0
                    return
                finish(st, sk, out[j])
                prbe[j] = sk[K_PRBE]
                continue
        split_samples(seg, lab, w, 0, ln, pbits, qbits, pw, qw, cur)
        m = cur[0]
        k = cur[1]
        # few positives: the negatives are counted, not sorted (see counted_sweep)
        counted = not weighted and tptr.shape[0] == 0 and 0 < m <= count_max and m <= k
        if weighted:
            sort_bits_weighted(pbits[:m], buf[:m], pw[:m], wbuf[:m], kind, sign, ones, hist)
            sort_bits_weighted(qbits[:k], buf[:k], qw[:k], wbuf[:k], kind, sign, ones, hist)
        else:
            sort_bits(pbits[:m], buf[:m], kind, sign, ones, hist)
            if not counted:
                sort_bits(qbits[:k], buf[:k], kind, sign, ones, hist)
        flip = np.uint64(0)
        if kind == KIND_SIGNED:  # int64: compared as uint64, sign bit flipped (same order)
            flip = sign
            for i in range(m):
                pbits[i] ^= flip
            for i in range(k):
                qbits[i] ^= flip
        if exp_mask != np.uint64(0):  # a NaN or infinity sorts to an end of its class
            bad_score = m > 0 and (_nonfinite(pbits[0], exp_mask)
                                   or _nonfinite(pbits[m - 1], exp_mask))
            if counted:  # unsorted: every negative
                for i in range(k):
                    bad_score |= (np.uint64(qbits[i]) & exp_mask) == exp_mask
            else:
                bad_score |= k > 0 and (_nonfinite(qbits[0], exp_mask)
                                        or _nonfinite(qbits[k - 1], exp_mask))
            if bad_score:
                bad[0] = j
                bad[1] = 0
                return
        unit = 1.0
        p = pvals[:m]
        qv = qvals[:k]
        if weighted:  # the exact class totals first, then the sweep
            pwmax = 0.0
            for i in range(m):
                pwmax = max(pwmax, pw[i])
            qwmax = 0.0
            for i in range(k):
                qwmax = max(qwmax, qw[i])
            e = weight_shift_k(pwmax, qwmax, ln)
            if e == BEYOND_RANGE:
                bad[0] = j
                bad[1] = 1
                return
            if e != 0:  # the task's own unit (a power of two: exact)
                unit = math.ldexp(1.0, e)
                scale = math.ldexp(1.0, -e)
                for i in range(m):
                    pw[i] *= scale
                for i in range(k):
                    qw[i] *= scale
                pwmax *= scale
                qwmax *= scale
            init_state(st, sk, 0.0, 0.0, max_fpr, what, True, pwmax * m, qwmax * k)
            # np.bool_ / np.int64: plain values, so that this kernel's three calls share
            # one general sweep (the one-task kernel's constants get it pruned instead)
            sweep_classes(p, pbits[:m], qv, qbits[:k], pw[:m], qw[:k], np.bool_(True), st,
                          sk, np.int64(MODE_TOTALS), gpos, gneg, gkey, flip)
            pos = fx_value(sk[K_TP], sk[K_TP + 1], st[S_E_TP])
            neg = fx_value(sk[K_FP], sk[K_FP + 1], st[S_E_FP])
            for a in range(K_TP, K_TP + 4):
                sk[a] = 0
            set_totals_k(st, pos, neg)
        else:
            init_state(st, sk, float(m), float(k), max_fpr, what, False, 0.0, 0.0)
        if tptr.shape[0] > 0:  # the task's table, cumulated (counts: exact)
            o = tat
            room = tptr[j + 1] - tptr[j]
            g = sweep_classes(p, pbits[:m], qv, qbits[:k], pw[:m], qw[:k], np.bool_(False),
                              st, sk, np.int64(MODE_RUNS), tpos[o:o + room], tneg[o:o + room],
                              tkey[o:o + room], flip)
            for i in range(o + 1, o + g):
                tpos[i] += tpos[i - 1]
                tneg[i] += tneg[i - 1]
            tcount[j] = g
            tat += g
            continue
        if counted:
            counted_sweep(p, pbits[:m], qv, qbits[:k], st, sk, gpos, gneg, gkey, flip, buf,
                          pbits[m:], kvals[2 * cap:3 * cap], kind, sign, ones, hist)
        else:
            sweep_classes(p, pbits[:m], qv, qbits[:k], pw[:m], qw[:k], weighted, st, sk,
                          np.int64(MODE_SWEEP), gpos, gneg, gkey, flip)
        finish(st, sk, out[j])
        if unit != 1.0:
            out[j, OUT_POS] *= unit
            out[j, OUT_NEG] *= unit
        prbe[j] = sk[K_PRBE]
    bad[0] = -1


_GATHER = [(ro(i64), i64, i64, ro(k), ro(u8), ro(f64), rw(i64), b1, rw(i64), rw(k), rw(u8),
            rw(f64)) for k in KEYS]


@kernel(_GATHER)
def group_order(codes, lo, hi, bits, labels, weights, fill, place, order, vout, lout, wout):
    """One part (rows ``lo:hi``) of a counting sort of group codes that moves the
    samples too; the parts of a call may run side by side.

    Without ``place``: adds to ``fill[g]`` the part's number of rows of group
    ``g``. With ``place``: ``fill[g]`` is where the part's first row of group
    ``g`` goes, in the order that lists the samples group by group (input
    order within a group); each row's index, score bits, label and weight
    (``weights`` empty when unweighted) go to ``order``/``vout``/``lout``/
    ``wout`` there. Returns False when a row moved.
    """
    if not place:
        for i in range(lo, hi):
            fill[codes[i]] += 1
        return True
    weighted = weights.shape[0] > 0
    same = True
    for i in range(lo, hi):
        g = codes[i]
        at = fill[g]
        fill[g] = at + 1
        order[at] = i
        vout[at] = bits[i]
        lout[at] = labels[i]
        if weighted:
            wout[at] = weights[i]
        same &= at == i
    return same


__all__ = [
    "BLOCK",
    "LAB_CODES",
    "LAB_CSC",
    "LAB_SAME",
    "OUT_SIZE",
    "SHARE_UNIT",
    "group_order",
    "item_sweep",
    "run_segments",
    "transpose_block",
]
