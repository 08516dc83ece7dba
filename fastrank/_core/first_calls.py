"""What a process computes by numpy while a kernel is neither compiled nor cached.

A kernel's first call in a fresh environment waits for Numba to compile it:
seconds (the one-task sweep, 5-6 s on an AMD Zen 4), where the call itself
takes microseconds. So the first small calls of a process take numpy
stand-ins that give the kernel's numbers bit for bit, until the kernel runs
without compiling (compiled in this process by another path, or held by the
cache: ``fastrank compile``, an earlier process) or the stand-ins have taken
:data:`BUDGET` seconds, in this process and the earlier ones that share the
kernel cache (their seconds carried by a small record in the cache's folder,
:mod:`.carried`); then the kernel compiles once, the cache keeps it, and a
process making many calls, or a script run over and over, ends on it.

* :func:`sweep_by_numpy` / :func:`sweep_row`: an unweighted task's ``OUT_*``
  row and break-even score bits, as :func:`~fastrank._kernels.sweep.sweep_one`
  after the class split gives them (every metric of the row);
* :func:`weighted_by_python` / :func:`weighted_row`, :func:`weighted_table`: a
  weighted task's row and tie table, by the sweep and combine kernels' own code
  run as Python;
* :func:`table_row_by_numpy` / :func:`table_row`: the same row from a stored
  unweighted tie table (evaluations, summaries, metric objects);
* :func:`batch_by_numpy`: a small unweighted batch's tasks one by one (each
  by :func:`sweep_row`), not in the batch kernel (the slowest to compile);
* :func:`table_by_numpy` / :func:`tie_table`: an unweighted task's tie table
  (curves);
* :func:`groups_by_numpy`: each sample's tie group (:func:`group_index`) and
  DeLong's placements (:func:`placements_of`);
* :func:`resamples_by_numpy` / :func:`resample_rows`: an unweighted bootstrap's
  resamples (the kernel's random streams, by numpy);
* :func:`read_by_python` / :func:`read_in_python`: the readouts (operating
  points, partial areas, best cut-offs) of small tables, by the readouts
  kernel's own code run as Python;
* :mod:`.heads`' numpy reading of each ranked row's top (``"heads"``);
* for TREC evaluations, :mod:`fastrank._trec.numpy_reader` (run and qrels
  files, ``"reader"``), and in :mod:`fastrank._trec.join` and
  :mod:`.codec` the coding of text ids by sorts (``"coding"``, ``"keys"``)
  and trec_eval's order of rows by numpy's sort (``"order"``).

Each stand-in is tested against its kernel on inputs full of ties
(``tests/test_first_calls.py``, ``tests/test_heads_numpy.py``,
``tests/test_trec_first_calls.py``).
"""

from __future__ import annotations

import atexit
import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._kernels.batch import run_segments
from .._kernels.bootstrap import GOLDEN, TO_UNIT, resample_sweeps, splitmix
from .._kernels.jit import SIGNATURES, in_python
from .._kernels.readout import read_tables
from .._kernels.sort import sort_pairs
from .._kernels.sweep import (
    FX_BITS,
    MODE_TABLE,
    OUT_AP,
    OUT_AP_EXPECTED,
    OUT_AUC,
    OUT_AUC_PARTIAL,
    OUT_NEG,
    OUT_POS,
    OUT_PR_AUC,
    OUT_PRBE,
    OUT_SIZE,
    S_E_FP,
    S_E_TP,
    WANT_EXPECTED_AP,
    WANT_PR_AUC,
    combine,
    expected_ap_group,
    pr_run_area,
    pr_segment_area,
    range_state,
    sweep_one,
    sweep_split,
    sweep_table,
)
from .._kernels.tasks import split
from . import carried, score_ranges, sorting
from .arith import dot
from .by_class import Classes, NonFinite, for_sweep
from .inputs import SPECS, Batch, Task

# Seconds of stand-in calls (each stand-in its own) after which its kernel is
# compiled all the same: a process making many calls pays at most this first.
BUDGET = 0.5
# ... and the processes that share a kernel cache, all together (see _carried), each
# counting what its stand-ins cost beyond loading cached kernels: about what one
# kernel's compile costs (5-8 s on the machines measured), so that a script run over
# and over spends about a compile's worth on the stand-ins before it compiles.
CARRIED = 5.0
_spent: dict[str, float] = {}  # this process's seconds, by stand-in
# Earlier processes' seconds, by stand-in, read once per process from the record
# beside the kernel cache (None: not read yet). Without it, a script run over and
# over would never compile a kernel (each fresh process within budget) and pay the
# stand-ins' price every time; with it, the kernel compiles in the process that
# finds the budget spent, is cached, and the processes after run it.
_carried: dict[str, float] | None = None
_loading = threading.Lock()


def within_budget(name: str, budget: float | None = None) -> bool:
    """Whether stand-in ``name`` has taken less than ``budget`` seconds so far in this
    process (:data:`BUDGET` unless its compile is far longer than most), and less
    than :data:`CARRIED` (or ``budget``, if more) with the earlier processes that
    share the kernel cache."""
    limit = BUDGET if budget is None else budget
    spent = _spent.get(name, 0.0)
    if spent >= limit:
        return False
    earlier = _load() if _carried is None else _carried
    return earlier.get(name, 0.0) + spent < max(CARRIED, limit)


def spent_here() -> tuple[str | None, dict[str, float], dict[str, float]]:
    """The record's path, the seconds by stand-in it holds, and this process's
    (:func:`save` adds these, less :data:`.carried.LOAD` each, at its exit)."""
    where = carried.path()
    return where, carried.read(where) if where is not None else {}, dict(_spent)


def _load() -> dict[str, float]:
    """Read the record once per process (:data:`_carried`); at exit, this process's
    seconds are added to it (:func:`save`)."""
    global _carried
    with _loading:
        if _carried is None:  # (another thread may have read it meanwhile)
            where = carried.path()
            if where is not None:
                atexit.register(save, where, os.getpid())
            _carried = {} if where is None else carried.read(where)
        return _carried


def save(where: str, pid: int | None = None) -> None:
    """Add to record ``where`` what each stand-in cost this process beyond
    :data:`.carried.LOAD` (the start that the cached kernel would have cost it); not
    in a child forked after the record was read (``pid``: the reader's), whose
    seconds so far are its parent's."""
    if pid is not None and pid != os.getpid():
        return
    spent = {k: v - carried.LOAD for k, v in dict(_spent).items() if v > carried.LOAD}
    if spent:
        carried.add(where, spent)


@contextmanager
def spending(name: str) -> Iterator[None]:
    """Count the time of the block against stand-in ``name``'s budget."""
    began = time.perf_counter()
    try:
        yield
    finally:
        spend(name, time.perf_counter() - began)


def spend(name: str, seconds: float) -> None:
    """Count ``seconds`` against stand-in ``name``'s budget."""
    _spent[name] = _spent.get(name, 0.0) + seconds


# Each canonical score dtype's declared variant of a kernel typed by score values
# (the order of jit.VALUES: float32, float64, then every 64-bit integer as uint64).
VARIANT = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int64): 2,
           np.dtype(np.uint64): 2}
_found: set[tuple[Any, int]] = set()  # (kernel, declared variant) found ready


def steps_ready(dtype: np.dtype[Any]) -> bool:
    """Whether the engine's steps for an unweighted task of canonical ``dtype`` (the
    class split and the one-range sweep) run without compiling."""
    return _ready(sweep_one, dtype)


SWEEP_MAX = 1 << 17  # larger tasks keep the kernels (numpy's sweep: about 5 ms here)


def _ready(kernel: Any, dtype: np.dtype[Any], with_split: bool = True) -> bool:
    """Whether ``kernel`` (typed by score values), and the class split ``with_split``,
    run for canonical ``dtype`` without compiling."""
    return _compiled(kernel, VARIANT[dtype]) and (
        not with_split or _compiled(split, 0 if dtype.itemsize == 4 else 1))  # (jit.KEYS)


def _compiled(kernel: Any, variant: int) -> bool:
    """Whether ``kernel``'s declared ``variant`` runs without compiling (remembered
    once found: a kernel never stops being compiled in a process)."""
    if (kernel, variant) in _found:
        return True
    if sorting.compiled_or_cached(kernel, tuple(SIGNATURES[kernel][variant])):
        _found.add((kernel, variant))
        return True
    return False


def sweep_by_numpy(t: Task, what: int) -> bool:
    """Whether unweighted task ``t`` takes :func:`sweep_row` (see the module's notes):
    at most :data:`SWEEP_MAX` samples."""
    return (t.weights is None and t.values.shape[0] <= SWEEP_MAX
            and not steps_ready(t.values.dtype) and within_budget("sweep"))


BATCH_MAX = 1 << 20  # samples of a batch in all (numpy's sweeps: about 0.1-0.3 s)


def batch_by_numpy(b: Batch) -> bool:
    """Whether batch ``b``'s tasks go one by one through the engine (each by
    :func:`sweep_row` while :func:`sweep_by_numpy`), not into the batch kernel, while
    neither that kernel nor the engine's steps are compiled: unweighted, at most
    :data:`BATCH_MAX` samples in all."""
    dtype = b.values.dtype
    return (b.weights is None and not steps_ready(dtype)
            and not _ready(run_segments, dtype, with_split=False) and within_budget("sweep")
            and int(b.sizes.sum()) <= BATCH_MAX)  # (the sum last: once compiled, never)


def table_by_numpy(t: Task) -> bool:
    """Whether unweighted task ``t``'s tie table is :func:`tie_table`'s, while the
    table's kernels are not compiled (see the module's notes), at most
    :data:`SWEEP_MAX` samples."""
    return (t.weights is None and t.values.shape[0] <= SWEEP_MAX
            and not _ready(sweep_split, t.values.dtype) and within_budget("table"))


def tie_table(t: Task, runs: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An unweighted task's tie groups, highest score first, as
    :func:`.tie_tables.task_table` gives them: score bits (uint64, as the sweep
    reports a group's), positives and negatives (float64 counts); with ``runs``,
    each run of negative-only groups after the first entry as one entry, keyed by
    its lowest score (the kernel's :data:`~fastrank._kernels.sweep.MODE_RUNS`).
    Raises :class:`~.by_class.NonFinite` for a NaN or infinite score."""
    with spending("table"):
        keys, tp1, fp1 = _groups(t)
        gkey = _bits(keys, t)
        gpos = np.diff(tp1, prepend=0).astype(np.float64)
        gneg = np.diff(fp1, prepend=0).astype(np.float64)
        if runs and gkey.shape[0] > 1:
            lead = gpos != 0.0  # groups with positives, and the first
            lead[0] = True
            alone = lead.copy()  # ... and each one right after them (a run's first)
            alone[1:] |= lead[:-1]
            start = np.flatnonzero(alone)
            last = np.append(start[1:], gkey.shape[0]) - 1
            gkey, gpos, gneg = gkey[last], gpos[start], np.add.reduceat(gneg, start)
        return gkey, gpos, gneg


def sweep_row(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    """An unweighted task's ``OUT_*`` row and break-even score bits, as the kernels'
    sweep gives them, bit for bit; raises :class:`~.by_class.NonFinite` for a NaN
    or infinite score.

    The tie groups come from each class sorted by numpy, highest score first.
    The AUC's sums are of exact integers (below 2**53 at this size); the AP, PR
    area and tie-expected AP terms are the same float64 operations as the
    kernel's (numpy's elementwise ones, or the kernel's own term functions run
    as Python: :func:`~fastrank._kernels.jit.in_python`), each truncated to the
    kernel's fixed-point unit and summed exactly, then rounded once
    (:func:`_fixed_sum`); the one-time terms (break-even, the partial AUC's last
    group) are the kernel's expressions on the same floats.
    """
    with spending("sweep"):
        return _sweep_row(t, max_fpr, what)


def _sweep_row(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int]:
    keys, tp1, fp1 = _groups(t)
    out, at = _row(tp1, fp1, max_fpr, what)
    return out, int(_bits(keys[at:at + 1], t)[0]) if keys.shape[0] else 0


WEIGHTED_MAX = 1 << 14  # weighted tasks of more samples keep the kernels


def weighted_by_python(t: Task) -> bool:
    """Whether weighted task ``t`` takes :func:`weighted_row`: at most
    :data:`WEIGHTED_MAX` samples, while its kernels are not all compiled."""
    if t.weights is None or t.values.shape[0] > WEIGHTED_MAX or t.shift != 0:
        return False  # (shift: classes in units of their own, weights 2**1900 apart)
    keys = 0 if t.values.dtype.itemsize == 4 else 1  # (jit.KEYS' order)
    return not (_compiled(sweep_split, VARIANT[t.values.dtype]) and _compiled(combine, 0)
                and _compiled(split, keys) and _compiled(sort_pairs, keys)) and \
        within_budget("weighted")


def weighted_row(t: Task, max_fpr: float, what: int) -> tuple[np.ndarray, int] | None:
    """A weighted task's ``OUT_*`` row and break-even score bits, bit for bit the
    kernels': each class sorted by numpy, then the engine's own steps with the sweep
    and combine kernels' code run as Python (:func:`~fastrank._kernels.jit.in_python`).
    None where a weight has bits below its class's fixed-point unit (weights some
    2**70 below the class's largest): the kernel sums those remainders as floats in
    its sort's order within a tie, which numpy's sort need not share."""
    with spending("weighted"), np.errstate(over="ignore"):  # (uint64 sums wrap, as compiled)
        st, _ = score_ranges.base_state(t, max_fpr, what)
        classes = _weighted_classes(t, st)
        if classes is None:
            return None
        steps = (_sorted_by_numpy, in_python(sweep_split), in_python(combine))
        try:
            return score_ranges.sweep_parts([classes], t, max_fpr, what, 1, steps)
        except (ArithmeticError, ValueError):  # Python's math raising where compiled
            return None  # code gives inf or NaN (math.ldexp, a division by zero): the kernels


def weighted_table(t: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A weighted task's tie table (keys, positive and negative weights, highest
    score first) as :func:`.tie_tables.task_table` gives it, bit for bit, by the
    sweep kernel's code run as Python (see :func:`weighted_row`, and its None)."""
    with spending("weighted"), np.errstate(over="ignore"):
        st, _ = score_ranges.base_state(t, 1.0, 0)
        classes = _weighted_classes(t, st)
        if classes is None:
            return None
        c = _sorted_by_numpy(classes, t.spec, True)
        m = c.p.shape[0] + c.q.shape[0]
        gpos, gneg, gkey = np.empty(m), np.empty(m), np.empty(m, np.uint64)
        s, k = range_state(st, 0.0, 0.0)
        bits = t.spec.bits
        try:
            g = in_python(sweep_split)(c.p, c.p.view(bits), c.q, c.q.view(bits), c.pw, c.qw,
                                       True, s, k, MODE_TABLE, gpos, gneg, gkey, c.flip)
        except (ArithmeticError, ValueError):  # as in weighted_row
            return None
        return gkey[:g], gpos[:g], gneg[:g]


def _weighted_classes(t: Task, st: np.ndarray) -> Classes | None:
    """A weighted task's classes (unsorted, zero weights dropped, as the class split
    gives them), or None when a weight has bits below its class's fixed-point unit
    (``st``'s units)."""
    w = t.weights
    assert w is not None
    keep = w != 0.0
    pos = t.labels != 0
    out = []
    for mine, e in ((keep & pos, st[S_E_TP]), (keep & ~pos, st[S_E_FP])):
        whole = np.ldexp(w[mine], -int(e))
        if not bool(((whole == np.trunc(whole)) & (whole > 0.0)).all()):
            return None
        out.append((t.values[mine], w[mine]))
    (p, pw), (q, qw) = out
    return Classes(p, q, pw, qw)


def _sorted_by_numpy(c: Classes, spec: Any, weighted: bool) -> Classes:
    """:func:`.by_class.sort_classes` by numpy's stable sort (the weights carried)."""
    out = []
    for v, w in ((c.p, c.pw), (c.q, c.qw)):
        if spec.kind == 0 and not bool(np.isfinite(v).all()):
            raise NonFinite
        order = np.argsort(v, kind="stable")
        out.append((np.ascontiguousarray(v[order]), np.ascontiguousarray(w[order])
                    if weighted else w))
    (p, pw), (q, qw) = out
    if p.dtype != np.int64:
        return Classes(p, q, pw, qw)
    (p, flip), (q, _) = for_sweep(p), for_sweep(q)
    return Classes(p, q, pw, qw, flip)


def table_row_by_numpy(table: tuple[np.ndarray, np.ndarray, np.ndarray]) -> bool:
    """Whether an unweighted stored tie table's row is :func:`table_row`'s, while the
    kernels of :func:`.engine.table_metrics` are not compiled: at most
    :data:`SWEEP_MAX` entries of whole counts, each class's total below 2**53 (int64
    and float64 exact) and fewer than 2**52 pairs (the AUC's sums exact)."""
    gpos, gneg = table[1], table[2]
    if (gpos.shape[0] > SWEEP_MAX or (_compiled(sweep_table, 0) and _compiled(combine, 0))
            or not within_budget("sweep")):
        return False
    pos, neg = float(np.sum(gpos)), float(np.sum(gneg))
    return bool(max(pos, neg) < 2.0**53 and pos * neg < 2.0**52
                and (gpos == np.floor(gpos)).all()
                and (gneg == np.floor(gneg)).all() and (gpos >= 0).all() and (gneg >= 0).all())


def table_row(table: tuple[np.ndarray, np.ndarray, np.ndarray], max_fpr: float, what: int
              ) -> tuple[np.ndarray, int]:
    """:func:`.engine.table_metrics` of an unweighted table ``(gkey, gpos, gneg)``
    (keys descending, :func:`table_row_by_numpy`): its entries swept as
    :func:`sweep_row` sweeps a task's groups, as the kernel sweeps them."""
    with spending("sweep"):
        gkey = table[0]
        tp1 = np.cumsum(table[1].astype(np.int64))
        fp1 = np.cumsum(table[2].astype(np.int64))
        out, at = _row(tp1, fp1, max_fpr, what)
        return out, int(gkey[at]) if gkey.shape[0] else 0


def _row(tp1: np.ndarray, fp1: np.ndarray, max_fpr: float, what: int
         ) -> tuple[np.ndarray, int]:
    """The ``OUT_*`` row of groups with ``tp1``/``fp1`` positives and negatives at or
    above each (int64, highest group first), and the break-even group."""
    m = int(tp1[-1]) if tp1.shape[0] else 0
    k = int(fp1[-1]) if tp1.shape[0] else 0
    tp = np.concatenate(([0], tp1[:-1]))  # positives above each group
    fp = np.concatenate(([0], fp1[:-1]))
    dp = tp1 - tp
    dn = fp1 - fp
    big_p = float(m)
    big_n = float(k)
    out = np.full(OUT_SIZE, np.nan)
    out[OUT_POS] = big_p
    out[OUT_NEG] = big_n
    has_pos = m > 0
    has_both = has_pos and k > 0
    with_neg = np.flatnonzero(dn)
    with_pos = np.flatnonzero(dp)
    g = int(with_neg[0]) if with_neg.shape[0] else -1
    perfect = has_pos and (k == 0 or (int(tp[g]) == m and int(dp[g]) == 0))
    g = int(with_pos[0]) if with_pos.shape[0] else -1
    reversed_ = has_both and int(fp[g]) == k and int(dn[g]) == 0
    at = int(np.argmax(tp1 + fp1 >= m)) if has_pos else tp1.shape[0] - 1  # break-even group
    want_pr = (what & WANT_PR_AUC) != 0
    expected = (what & WANT_EXPECTED_AP) != 0
    if has_pos and perfect:
        out[OUT_AP] = out[OUT_PRBE] = 1.0
        out[OUT_AP_EXPECTED] = 1.0 if expected else math.nan
        out[OUT_PR_AUC] = 1.0 if want_pr else math.nan
    elif has_pos:
        e = math.frexp(big_p)[1] - FX_BITS  # the unit of the kernel's area sums
        t1 = tp1[with_pos].astype(np.float64)
        terms = dp[with_pos] * (t1 / (t1 + fp1[with_pos]))
        out[OUT_AP] = _unit(_fixed_sum(terms, e) / big_p)
        if expected:
            out[OUT_AP_EXPECTED] = _unit(_fixed_sum(_expected_terms(
                terms, tp[with_pos], fp[with_pos], dp[with_pos], dn[with_pos]), e) / big_p)
        if want_pr:
            out[OUT_PR_AUC] = _unit(_fixed_sum(_pr_terms(tp, fp, dp, dn, with_neg, big_p,
                                                         big_n), e) / big_p)
        b_tp, b_fp, b_dp, b_dn = (float(x[at]) for x in (tp, fp, dp, dn))
        prbe_tp = b_tp + (big_p - (b_tp + b_fp)) * (b_dp / (b_dp + b_dn))
        out[OUT_PRBE] = _unit(prbe_tp / big_p)
    pairs = 2.0 * big_p * big_n
    if not has_both:
        auc = math.nan
    elif perfect:
        auc = 1.0
    elif reversed_:
        auc = 0.0
    else:
        auc = _unit(dot(dn, tp + tp1) / pairs)
    out[OUT_AUC] = out[OUT_AUC_PARTIAL] = auc
    if max_fpr < 1.0 and has_both:
        out[OUT_AUC_PARTIAL] = _partial(max_fpr, perfect, reversed_, tp, tp1, fp, fp1, dp, dn,
                                        big_n, pairs)
    return out, at


def groups_by_numpy(t: Task, kernel: Any) -> bool:
    """Whether task ``t``'s tie groups per sample (``kernel``:
    :func:`~fastrank._kernels.tasks.tie_groups` or
    :func:`~fastrank._kernels.tasks.placements`) come from :func:`group_index`
    or :func:`placements_of`, while that kernel is not compiled: at most
    :data:`SWEEP_MAX` finite scores (the kernel's callers check them, or not, as
    before)."""
    values = t.values
    return (values.shape[0] <= SWEEP_MAX and not _compiled(kernel, 0)
            and within_budget("groups")
            and (values.dtype.kind != "f" or bool(np.isfinite(values).all())))


def group_index(t: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.tie_tables.group_index` by numpy: each sample's tie group (0 the
    highest score), the groups' score bits, and their positives and negatives
    (weighted: the weights summed in sample order, as the kernel sums them)."""
    with spending("groups"):
        gid, keys = _sample_groups(t)
        pos = t.labels.view(np.bool_)
        g = keys.shape[0]
        w = t.weights
        gpos = np.bincount(gid[pos], None if w is None else w[pos], g).astype(np.float64)
        gneg = np.bincount(gid[~pos], None if w is None else w[~pos], g).astype(np.float64)
        return gid, _bits(keys, t), gpos, gneg


def placements_of(t: Task) -> np.ndarray:
    """:func:`.tie_tables.sample_placements` by numpy: DeLong's placement of each
    sample, by the kernel's expressions on each group's exact counts."""
    with spending("groups"):
        gid, keys = _sample_groups(t)
        pos = t.labels.view(np.bool_)
        g = keys.shape[0]
        dp = np.bincount(gid[pos], minlength=g).astype(np.float64)
        dn = np.bincount(gid, minlength=g).astype(np.float64) - dp
        tp = np.cumsum(dp) - dp  # the other class strictly above each group
        fp = np.cumsum(dn) - dn
        big_p, big_n = float(dp.sum()), float(dn.sum())
        v10 = (big_n - fp - 0.5 * dn) / big_n
        v01 = (tp + 0.5 * dp) / big_p
        v: np.ndarray = np.where(pos, v10[gid], v01[gid])
        return v


def _sample_groups(t: Task) -> tuple[np.ndarray, np.ndarray]:
    """Each sample's tie group (0 the highest score) and the groups' scores."""
    keys, inverse = np.unique(t.values, return_inverse=True)
    return keys.shape[0] - 1 - inverse.reshape(-1).astype(np.int64), keys[::-1]


DRAWS_MAX = 1 << 22  # a bootstrap's draws in all (resamples times draws each)


def resamples_by_numpy(weighted: bool, draws: int) -> bool:
    """Whether an unweighted bootstrap of ``draws`` draws in all takes
    :func:`resample_rows`, while the resampling kernel is not compiled."""
    return (not weighted and draws <= DRAWS_MAX and not _compiled(resample_sweeps, 0)
            and within_budget("resample"))


def resample_rows(ngroups: int, pos_gid: np.ndarray, neg_gid: np.ndarray, codes: np.ndarray,
                  stratified: bool, seed: int, what: int, out: np.ndarray) -> None:
    """:func:`~fastrank._kernels.bootstrap.resample_sweeps` of an unweighted task, its
    resamples ``0 .. len(out)`` into ``out``: the same SplitMix64 draws, each
    resample's stream vectorised by numpy (uint64 arithmetic wraps as the
    kernel's), its counts in each tie group, and the groups it holds swept as
    :func:`sweep_row` sweeps a task's (partial AUC not asked: ``max_fpr`` 1)."""
    with spending("resample"):
        count = out.shape[0]
        sizes = (pos_gid.shape[0], neg_gid.shape[0]) if stratified else (codes.shape[0],)
        starts = splitmix_py(np.uint64(seed) + GOLDEN * np.arange(1, count + 1, dtype=np.uint64))
        taken = 0  # draws each stream has made (the negatives follow the positives)
        drawn = []
        for m in sizes:
            steps = np.arange(taken + 1, taken + m + 1, dtype=np.uint64)
            bits = splitmix_py(starts[:, None] + GOLDEN * steps[None, :]) >> np.uint64(11)
            u = bits.astype(np.float64) * TO_UNIT
            drawn.append(np.minimum((u * float(m)).astype(np.int64), m - 1))
            taken += m
        rows = np.arange(count)[:, None] * ngroups
        if stratified:
            gpos = np.bincount((rows + pos_gid[drawn[0]]).ravel(), minlength=count * ngroups)
            gneg = np.bincount((rows + neg_gid[drawn[1]]).ravel(), minlength=count * ngroups)
        else:
            code = codes[drawn[0]]
            cell = (rows + (code >> 1)).ravel()
            label = (code & 1).ravel().astype(bool)
            gpos = np.bincount(cell[label], minlength=count * ngroups)
            gneg = np.bincount(cell[~label], minlength=count * ngroups)
        gpos = gpos.reshape(count, ngroups)
        gneg = gneg.reshape(count, ngroups)
        for r in range(count):
            held = (gpos[r] != 0) | (gneg[r] != 0)  # the groups this resample holds
            out[r] = _row(np.cumsum(gpos[r][held]), np.cumsum(gneg[r][held]), 1.0, what)[0]


splitmix_py = in_python(splitmix)  # the kernels' SplitMix64 output function, on arrays too


READ_MAX = 1 << 15  # table entries a readout's first call reads in Python


def read_by_python(entries: int) -> bool:
    """Whether a readout of tables of ``entries`` entries in all takes
    :func:`read_in_python`, while the readouts' kernel is not compiled (see the
    module's notes)."""
    return (entries <= READ_MAX and not _compiled(read_tables, 0)
            and within_budget("readout"))


_read_twin = in_python(read_tables)


def read_in_python(*args: Any) -> bool:
    """:func:`~fastrank._kernels.readout.read_tables` (its arguments) run as Python
    (the same operations: :func:`~fastrank._kernels.jit.in_python`), with numpy's
    rule for a float division by zero, where :func:`read_by_python`. False if not
    chosen, or, having written nothing the caller keeps, if a division by zero met
    Python floats (where the kernel gives inf or NaN): the caller runs the kernel."""
    if not read_by_python(args[0].shape[0]):
        return False
    with spending("readout"), np.errstate(all="ignore"):
        try:
            _read_twin(*args)
        except ZeroDivisionError:
            return False
    return True


def _fixed_sum(terms: Any, e: int) -> float:
    """The kernel's fixed-point sum of ``terms`` in units of ``2**e``: each term
    truncated to the unit (toward zero, exact in float64 below 2**124 units), the
    exact sum rounded once to the nearest float (``math.fsum``, as the kernel's
    correctly rounded conversion), back in the terms' scale."""
    units = np.trunc(np.ldexp(np.asarray(terms, np.float64), -e))
    return math.ldexp(math.fsum(units.tolist()), e)


_segment_area = in_python(pr_segment_area)
_run_area = in_python(pr_run_area)
_expected_group = in_python(expected_ap_group)


def _pr_terms(tp: np.ndarray, fp: np.ndarray, dp: np.ndarray, dn: np.ndarray,
              with_neg: np.ndarray, big_p: float, big_n: float) -> list[float]:
    """The PR area's terms (times P) in the kernel's order: at each group holding
    negatives, the run of negative-free groups above it and its own segment; the
    first run (from the top) and the last one at the end."""
    terms = []
    lead_open = True
    lead_tp = lead_fp = run = 0.0
    for t0, f0, d_p, d_n in zip(tp[with_neg].tolist(), fp[with_neg].tolist(),
                                dp[with_neg].tolist(), dn[with_neg].tolist(), strict=True):
        t0, f0, d_p, d_n = float(t0), float(f0), float(d_p), float(d_n)
        if lead_open:
            lead_tp, lead_fp = t0, f0
            lead_open = False
        elif t0 > run:
            terms.append(_run_area(run, t0, f0))
        if d_p > 0.0:
            terms.append(_segment_area(t0, f0, d_p, d_n))
        run = t0 + d_p
    if not lead_open and lead_tp > 0.0:
        terms.append(_run_area(0.0, lead_tp, lead_fp))
    if lead_open:
        run = 0.0
    if big_p > run:
        terms.append(_run_area(run, big_p, big_n))
    return terms


def _expected_terms(ap_terms: np.ndarray, tp: np.ndarray, fp: np.ndarray, dp: np.ndarray,
                    dn: np.ndarray) -> list[float]:
    """The tie-expected AP's terms of the groups holding positives: a group of one
    sample keeps its AP term; a tie, the expectation over its orders."""
    terms: list[float] = ap_terms.tolist()
    for i in np.flatnonzero(dp + dn != 1).tolist():
        t0, f0, d_p, d_n = float(tp[i]), float(fp[i]), float(dp[i]), float(dn[i])
        terms[i] = _expected_group(t0, t0 + f0, d_p, d_p + d_n)
    return terms


def _groups(t: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An unweighted task's distinct scores, highest first, with the positives and the
    negatives at or above each (int64); :class:`~.by_class.NonFinite` for a NaN or
    infinite score."""
    values = t.values
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise NonFinite
    pos = t.labels.view(np.bool_)
    p = np.sort(values[pos])
    q = np.sort(values[~pos])
    keys = np.unique(np.concatenate((p, q)))[::-1]
    tp1 = p.shape[0] - np.searchsorted(p, keys, "left")
    fp1 = q.shape[0] - np.searchsorted(q, keys, "left")
    return keys, tp1, fp1


def _bits(keys: np.ndarray, t: Task) -> np.ndarray:
    """Scores' bits as the sweep reports a group's (uint64): ``-0.0`` as ``+0.0``,
    int64 scores their own bits."""
    bits = keys.view(SPECS[t.values.dtype].bits).astype(np.uint64)
    bits[keys == 0] = 0  # (an integer zero's bits are 0 too)
    return bits


def _partial(max_fpr: float, perfect: bool, reversed_: bool, tp: np.ndarray, tp1: np.ndarray,
             fp: np.ndarray, fp1: np.ndarray, dp: np.ndarray, dn: np.ndarray, big_n: float,
             pairs: float) -> float:
    """The standardised partial AUC, as the kernel's sweep and ``finish`` form it: the
    exact sum of the groups whose negatives stay within the FP budget, then the
    group where it runs out, cut along its straight line."""
    if perfect:
        area = max_fpr
    elif reversed_:
        area = 0.0
    else:
        fp_stop = max_fpr * big_n
        over = np.flatnonzero((dn > 0) & (fp1 > fp_stop))
        c = int(over[0]) if over.shape[0] else dn.shape[0]
        inside = dot(dn[:c], tp[:c] + tp1[:c])
        cut = 0.0
        if over.shape[0]:
            width = fp_stop - float(fp[c])
            t0 = float(tp[c])
            cut = width * (t0 + (t0 + float(dp[c]) * (width / float(dn[c]))))
        area = (inside + cut) / pairs
    min_area = 0.5 * max_fpr * max_fpr
    return _unit(0.5 * (1.0 + (area - min_area) / (max_fpr - min_area)))


def _unit(x: float) -> float:
    return min(max(x, 0.0), 1.0)
