"""Batched average precision against its floor: a minimal kernel, np.sort, scikit-learn.

    python benchmarks/compare_floor.py                 # every shape (a few minutes)
    python benchmarks/compare_floor.py --shapes 50000x300 --repeat 5
    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL" python benchmarks/compare_floor.py

The floor is a self-contained Numba kernel written for this one case (float32
scores, dense 0/1 labels, unweighted AP with ties grouped), here and not in the
package: blocks of 16 columns, each block's scores mapped to uint32 order keys
and made task-major in per-thread buffers; per column either the classes split
and each radix sorted (3 passes of 11 bits) and merged from the top, or (many
positives) one radix sort of ``key << 1 | label`` items and one linear sweep.
The threads are plain Python threads over the kernel (it releases the GIL), as
fastrank's are. Its APs are checked against fastrank's (to 1e-9).

Rows, per shape (n x t, share of positives, C or Fortran order): the floor on
1 and 2 threads, fastrank's ``average_precision(Y, S, average=None)`` on 1
and 2 threads, ``np.sort(S, axis=0)`` (one thread, the sort alone) and
scikit-learn's ``average_precision_score(Y, S, average=None)`` timed on a
subset of the columns and scaled to all of them. Ratios are in the same run,
fastrank and the floor alternating. Also one task of 1,000 float64 scores
(per call, fastrank against scikit-learn).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from timing import alternate, machine

import fastrank

FLOOR_BLOCK = 16
TILE = 128


@numba.njit(nogil=True, cache=True, inline="always")
def _key(b):
    # float32 bits -> uint32 order key (ascending keys = ascending scores)
    if b & np.uint32(0x80000000):
        return ~b
    return b | np.uint32(0x80000000)


@numba.njit(nogil=True, cache=True)
def _radix3(a, buf, hist, low):
    """LSD radix sort of ``a`` on its bits ``low`` .. ``low + 32``: 3 passes of 11 bits,
    histograms in one read (uint32 keys from bit 0; uint64 items ``key << 1 | label``
    from bit 1)."""
    n = a.shape[0]
    hist[:] = 0
    for i in range(n):
        k = a[i]
        hist[0, (k >> low) & 2047] += 1
        hist[1, (k >> (low + 11)) & 2047] += 1
        hist[2, (k >> (low + 22)) & 2047] += 1
    src = a
    dst = buf
    for p in range(3):
        sh = low + 11 * p
        tot = 0
        for r in range(2048):
            c = hist[p, r]
            hist[p, r] = tot
            tot += c
        h = hist[p]
        half = n // 2
        for i in range(half):  # two independent streams per turn
            k0 = src[2 * i]
            k1 = src[2 * i + 1]
            d0 = (k0 >> sh) & 2047
            at0 = h[d0]
            h[d0] = at0 + 1
            dst[at0] = k0
            d1 = (k1 >> sh) & 2047
            at1 = h[d1]
            h[d1] = at1 + 1
            dst[at1] = k1
        if n & 1:
            k0 = src[n - 1]
            d0 = (k0 >> sh) & 2047
            dst[h[d0]] = k0
            h[d0] += 1
        src, dst = dst, src
    # three passes: the result is in buf
    for i in range(n):
        a[i] = buf[i]


@numba.njit(nogil=True, cache=True)
def _ap_split(keys, labs, npos, pk, nk, buf, hist):
    n = keys.shape[0]
    m = 0
    k = 0
    for i in range(n):
        if labs[i]:
            pk[m] = keys[i]
            m += 1
        else:
            nk[k] = keys[i]
            k += 1
    _radix3(pk[:m], buf, hist, 0)
    _radix3(nk[:k], buf, hist, 0)
    # merge from the top, groups of equal keys
    i = m - 1
    j = k - 1
    tp = 0.0
    fp = 0.0
    ap = 0.0
    while i >= 0:
        v = pk[i]
        while j >= 0 and nk[j] > v:
            fp += 1.0
            j -= 1
        dp = 0.0
        while i >= 0 and pk[i] == v:
            dp += 1.0
            i -= 1
        while j >= 0 and nk[j] == v:
            fp += 1.0
            j -= 1
        tp += dp
        ap += dp * (tp / (tp + fp))
    return ap / npos


@numba.njit(nogil=True, cache=True)
def _ap_items(keys, labs, npos, items, ibuf, hist):
    n = keys.shape[0]
    for i in range(n):
        items[i] = (np.uint64(keys[i]) << np.uint64(1)) | np.uint64(labs[i])
    it = items[:n]
    _radix3(it, ibuf, hist, 1)
    tp = 0.0
    fp = 0.0
    ap = 0.0
    i = n - 1
    while i >= 0:
        v = it[i] >> np.uint64(1)
        dp = 0.0
        dn = 0.0
        while i >= 0 and (it[i] >> np.uint64(1)) == v:
            if it[i] & np.uint64(1):
                dp += 1.0
            else:
                dn += 1.0
            i -= 1
        tp += dp
        fp += dn
        if dp > 0.0:
            ap += dp * (tp / (tp + fp))
    return ap / npos


@numba.njit(nogil=True, cache=True)
def floor_blocks(sb, yb, fortran, b0, b1, step, out):
    """AP of every column of blocks ``b0, b0 + step, ... < b1`` of ``sb`` (uint32 bits
    of float32 scores, (n, t)) against 0/1 labels ``yb`` (same layout)."""
    n, t = sb.shape
    keys = np.empty(FLOOR_BLOCK * n, np.uint32)
    labs = np.empty(FLOOR_BLOCK * n, np.uint8)
    pk = np.empty(n, np.uint32)
    nk = np.empty(n, np.uint32)
    buf = np.empty(n, np.uint32)
    items = np.empty(n, np.uint64)
    ibuf = np.empty(n, np.uint64)
    hist = np.empty((3, 2048), np.int64)
    for blk in range(b0, b1, step):
        j0 = blk * FLOOR_BLOCK
        bw = min(FLOOR_BLOCK, t - j0)
        if fortran:
            for jj in range(bw):
                for i in range(n):
                    keys[jj * n + i] = _key(sb[i, j0 + jj])
                    labs[jj * n + i] = yb[i, j0 + jj]
        else:
            for i0 in range(0, n, TILE):
                i1 = min(i0 + TILE, n)
                for jj in range(bw):
                    for i in range(i0, i1):
                        keys[jj * n + i] = _key(sb[i, j0 + jj])
                        labs[jj * n + i] = yb[i, j0 + jj]
        for jj in range(bw):
            kc = keys[jj * n:(jj + 1) * n]
            lc = labs[jj * n:(jj + 1) * n]
            npos = 0
            for i in range(n):
                npos += lc[i]
            if npos == 0:
                out[j0 + jj] = np.nan
            elif 8 * npos <= n:
                out[j0 + jj] = _ap_split(kc, lc, npos, pk, nk, buf, hist)
            else:
                out[j0 + jj] = _ap_items(kc, lc, npos, items, ibuf, hist)


def floor_ap(S: np.ndarray, Y: np.ndarray, nthreads: int) -> np.ndarray:
    """The floor kernel's AP of every column (float32 scores, 0/1 or bool labels)."""
    assert S.dtype == np.float32
    fortran = bool(S.flags.f_contiguous and not S.flags.c_contiguous)
    sb = S.view(np.uint32)
    yb = Y.view(np.uint8)
    t = S.shape[1]
    out = np.empty(t)
    nblocks = -(-t // FLOOR_BLOCK)
    if nthreads == 1:
        floor_blocks(sb, yb, fortran, 0, nblocks, 1, out)
        return out
    with ThreadPoolExecutor(nthreads) as ex:
        list(ex.map(lambda w: floor_blocks(sb, yb, fortran, w, nblocks, nthreads, out),
                    range(nthreads)))
    return out



def with_threads(k: int, fn):  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        before = numba.get_num_threads()
        numba.set_num_threads(k)
        try:
            return fn()
        finally:
            numba.set_num_threads(before)
    return run


def data(n: int, t: int, share: float, order: str, seed: int = 0
         ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Y = rng.random((n, t), dtype=np.float32) < share
    S = rng.standard_normal((n, t), dtype=np.float32)
    S += Y  # informative scores
    if order == "F":
        S = np.asfortranarray(S)
        Y = np.asfortranarray(Y)
    return S, Y


def sklearn_time(S: np.ndarray, Y: np.ndarray, cols: int) -> float:
    from sklearn.metrics import average_precision_score

    c = min(cols, S.shape[1])
    s = np.ascontiguousarray(S[:, :c]) if S.flags.c_contiguous else np.asfortranarray(S[:, :c])
    y = np.ascontiguousarray(Y[:, :c]) if Y.flags.c_contiguous else np.asfortranarray(Y[:, :c])
    t0 = time.perf_counter()
    average_precision_score(y, s, average=None)
    return (time.perf_counter() - t0) * S.shape[1] / c


def one_shape(n: int, t: int, share: float, order: str, repeat: int, sk_cols: int) -> None:
    S, Y = data(n, t, share, order)
    got = fastrank.average_precision(Y, S, average=None)
    want = floor_ap(S, Y, 2)
    diff = float(np.max(np.abs(np.asarray(got) - want)))
    f1, f2, r1, r2 = alternate([
        with_threads(1, lambda: fastrank.average_precision(Y, S, average=None)),
        with_threads(2, lambda: fastrank.average_precision(Y, S, average=None)),
        lambda: floor_ap(S, Y, 1),
        lambda: floor_ap(S, Y, 2),
    ], repeat)
    ns = alternate([lambda: np.sort(S, axis=0)], max(1, repeat // 2))[0]
    sk = sklearn_time(S, Y, sk_cols)
    cells = n * t
    print(f"| {n:,} x {t:,} | {share:.0%} | {order} | {f2 * 1e3:,.0f} ms ({f2 / cells * 1e9:.1f} "
          f"ns/el) | {f1 * 1e3:,.0f} ms | {f1 / f2:.2f}x | {r2 * 1e3:,.0f} ms | {r1 * 1e3:,.0f} ms "
          f"| {f2 / r2:.2f}x | {ns * 1e3:,.0f} ms | {sk:,.1f} s | {sk / f2:.1f}x | {diff:.1e} |",
          flush=True)


def one_task(repeat: int) -> None:
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(1)
    y = rng.random(1000) < 0.3
    s = rng.standard_normal(1000) + y
    inner = 200

    def fr() -> None:
        for _ in range(inner):
            fastrank.average_precision(y, s)

    def sk() -> None:
        for _ in range(inner // 20):
            average_precision_score(y, s)

    a, b = alternate([fr, sk], repeat)
    fa, sa = a / inner, b / (inner // 20)
    print(f"one task, 1,000 float64 scores: fastrank {fa * 1e6:.1f} us, scikit-learn "
          f"{sa * 1e6:.0f} us per call: {sa / fa:.1f}x")


SHAPES = ("50000x300:0.02:C", "50000x300:0.30:C", "50000x300:0.60:C", "100000x250:0.02:C",
          "50000x300:0.02:F",
          "50000x300:0.30:F", "100000x1000:0.02:C", "100000x1000:0.30:C", "100000x1000:0.02:F",
          "100000x1000:0.30:F")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES),
                        help="NxT[:share[:order]] (defaults: 2%% positives, C order)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sklearn-cols", type=int, default=24)
    parser.add_argument("--no-task", action="store_true", help="skip the one-task row")
    args = parser.parse_args()
    import sklearn

    print(f"# fastrank {fastrank.__version__} on {platform.processor() or platform.machine()}, "
          f"numpy {np.__version__}, numba {numba.__version__}, scikit-learn {sklearn.__version__}")
    print(f"# {machine()}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print()
    if not args.no_task:
        one_task(args.repeat)
        print()
    print("| shape | pos | order | fastrank 2 thr | fastrank 1 thr | 1->2 | floor 2 thr "
          "| floor 1 thr | vs floor | np.sort | scikit-learn | vs sklearn | max diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.shapes:
        parts = spec.split(":")
        n, t = (int(x) for x in parts[0].split("x"))
        share = float(parts[1]) if len(parts) > 1 else 0.02
        order = parts[2] if len(parts) > 2 else "C"
        one_shape(n, t, share, order, args.repeat, args.sklearn_cols)


if __name__ == "__main__":
    main()
