"""TREC runs at scale: fastrank against its peers, from files and from arrays.

Usage::

    python benchmarks/compare_trec.py [--folder DIR] [--queries 10000] [--docs 1000]
        [--repeat 3] [--ir-measures CMD] [--peer-python PY]

Writes a run of ``--queries`` x ``--docs`` rows (TREC-style string ids, 70% of
the rows tied on score with another row of their query, sorted by score as runs
are) and its graded qrels into ``--folder`` (default: a folder under the system's
temporary directory; the run is about 35 bytes a row), runs ``fastrank compile``
(the warm cache README advises for a set-up machine: also the variants no call
compiles for itself, such as the coding of large ``str`` arrays by group), then
measures, each the best of ``--repeat`` after one warm-up:

* end to end, process start to printed output (fastrank's modules compiled to
  bytecode first, as ``pip install`` does): ``fastrank trec`` (``--ties
  trec_eval``, 7 measures) and the ``ir_measures`` command line on the same files
  (found on the PATH, or ``--ir-measures``), with each process's peak memory
  (``/usr/bin/time -v``'s maximum resident set size); the two take turns, one
  run of each per round;
* from arrays, in a warm process, trec_eval's default measures (those each tool
  has): ``evaluate_run`` with ``ties="trec_eval"`` and ``"expected"``, from
  string ids (numpy ``str`` arrays, every id coded in the call) and from integer
  ids; pytrec_eval (``RelevanceEvaluator`` and ``evaluate`` from dicts) and ranx
  (``evaluate`` on ``Qrels``/``Run``) in a Python that imports them
  (``--peer-python``; by default this one), each twice: with its dicts (and
  ranx's objects) made beforehand, and with their making from the same string
  arrays timed, as fastrank's coding of the ids is.

Prints one table: the machine (CPU, numpy's SIMD dispatch), each time and peak
memory, and the ratios against fastrank.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from timing import bytecode

FILE_MEASURES = ["map", "ndcg@10", "P@10", "recip_rank", "recall@100", "Rprec", "num_rel_ret"]
IR_MEASURES = "AP nDCG@10 P@10 RR R@100 Rprec NumRelRet"
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval's default measures that each tool computes
OURS = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank",
        *(f"P@{k}" for k in CUTS)]
PYTREC = {"num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P"}
RANX = ["map", "r-precision", "mrr", "hits", "recall", *(f"precision@{k}" for k in CUTS)]


def write_data(folder: Path, nq: int, nd: int, seed: int = 44) -> tuple[Path, Path, Path]:
    """The run, the qrels and the same as arrays (``.npz``), made once per shape."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"trec-{nq}x{nd}"
    run, qrels, arrays = (Path(f"{stem}.{x}") for x in ("run", "qrels", "npz"))
    if run.exists() and qrels.exists() and arrays.exists():
        return run, qrels, arrays
    rng = np.random.default_rng(seed)
    collection = 2_000_000
    names = np.char.add("FBIS4-", np.char.zfill(np.arange(collection).astype(str), 7))
    qids = np.char.add("topic", np.arange(nq).astype(str))
    q = np.repeat(np.arange(nq), nd)
    base = rng.integers(0, collection, nq)
    stride = rng.integers(1, 1000, nq) * 2 + 1  # odd: nd distinct documents a query
    docs = (base[:, None] + np.arange(nd)[None, :] * stride[:, None]) % collection
    # 70% of the rows tied: scores k / 830 over 1,000 rows leave about 30% alone
    scores = np.round(rng.random((nq, nd)) * 830) / 830
    scores = -np.sort(-scores, axis=1)
    text = np.char.mod("%.6f", scores.ravel())
    d = docs.ravel()
    with open(run, "w", encoding="ascii") as f:
        for i in range(0, q.shape[0], 1_000_000):
            j = slice(i, i + 1_000_000)
            rank = np.tile(np.arange(1, nd + 1), nq)[j].astype(str)
            lines = np.char.add(np.char.add(np.char.add(qids[q[j]], " Q0 "), names[d[j]]), " ")
            lines = np.char.add(np.char.add(np.char.add(lines, rank), " "), text[j])
            f.write("\n".join(np.char.add(lines, " bench").tolist()) + "\n")
    judged = rng.random(q.shape[0]) < 0.2
    grade = rng.choice([0, 1, 2], q.shape[0], p=[0.7, 0.2, 0.1])
    extra = rng.integers(0, collection, nq * 20)  # judged, not retrieved (or retrieved again)
    jq = np.concatenate((q[judged], np.repeat(np.arange(nq), 20)))
    jd = np.concatenate((d[judged], extra))
    jg = np.concatenate((grade[judged], rng.choice([0, 1], nq * 20, p=[0.8, 0.2])))
    _, first = np.unique(jq.astype(np.int64) * collection + jd, return_index=True)
    first.sort()
    jq, jd, jg = jq[first], jd[first], jg[first]
    with open(qrels, "w", encoding="ascii") as f:
        f.write("".join(f"{a} 0 {b} {c}\n" for a, b, c in
                        zip(qids[jq].tolist(), names[jd].tolist(), jg.tolist(), strict=True)))
    np.savez(arrays, q=q, d=d, rs=np.array(text, np.float64), jq=jq, jd=jd,
             jg=jg.astype(np.float64), qids=qids, names=names)
    return run, qrels, arrays


def timed_processes(cmds: list[list[str]], repeat: int) -> list[tuple[float, float, str]]:
    """For each command: the best wall time (s) and the peak resident memory (MB) of
    ``repeat`` runs after a warm-up, and its last run's output. The commands take
    turns (one run of each per round), so that a load on the machine weighs on
    each alike."""
    best = [float("inf")] * len(cmds)
    peak = [0.0] * len(cmds)
    out = [""] * len(cmds)
    for i in range(repeat + 1):
        for j, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True,
                                  text=True, check=False)
            wall = time.perf_counter() - t0
            if proc.returncode:
                raise RuntimeError(f"{cmd[0]} failed: {proc.stderr[-2000:]}")
            rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
            if i:
                best[j] = min(best[j], wall)
                peak[j] = max(peak[j], int(rss.group(1)) / 1024 if rss else float("nan"))
            out[j] = proc.stdout
    return list(zip(best, peak, out, strict=True))


CHILD = textwrap.dedent('''
    import json, sys, time, warnings
    import numpy as np
    tool, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    a = np.load(path)
    qids, names = a["qids"], a["names"]
    if tool.startswith("fastrank") and tool.split(":")[1] == "int":  # integer ids
        rq, rd, rs, jq, jd, jg = (a[k] for k in ("q", "d", "rs", "jq", "jd", "jg"))
    else:  # string ids: <U{{n}} arrays
        rq, rd, rs = qids[a["q"]], names[a["d"]], a["rs"]
        jq, jd, jg = qids[a["jq"]], names[a["jd"]], a["jg"]
    del a
    ours = {ours!r}

    def dicts():
        qd, rdict = {{}}, {{}}
        for x, y, z in zip(jq.tolist(), jd.tolist(), jg.astype(int).tolist()):
            qd.setdefault(x, {{}})[y] = z
        for x, y, z in zip(rq.tolist(), rd.tolist(), rs.tolist()):
            rdict.setdefault(x, {{}})[y] = z
        return qd, rdict

    if tool.startswith("fastrank"):
        import fastrank
        ties = tool.split(":")[2]
        def go():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fastrank.evaluate_run((jq, jd, jg), (rq, rd, rs), ours, ties=ties)
    elif tool.startswith("pytrec_eval"):
        import pytrec_eval
        wanted = {pytrec!r}
        if tool.endswith(":build"):  # the dicts made from the arrays, timed
            def go():
                qd, rdict = dicts()
                return pytrec_eval.RelevanceEvaluator(qd, wanted).evaluate(rdict)
        else:
            qd, rdict = dicts()
            def go():
                return pytrec_eval.RelevanceEvaluator(qd, wanted).evaluate(rdict)
    else:
        from ranx import Qrels, Run, evaluate
        if tool.endswith(":build"):  # the dicts and Qrels/Run made from the arrays, timed
            def go():
                qd, rdict = dicts()
                return evaluate(Qrels.from_dict(qd), Run.from_dict(rdict), {ranx!r},
                                save_results_in_run=False)
        else:
            qd, rdict = dicts()
            qr, ru = Qrels.from_dict(qd), Run.from_dict(rdict)
            def go():
                return evaluate(qr, ru, {ranx!r}, save_results_in_run=False)
    go()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        go()
        best = min(best, time.perf_counter() - t0)
    print(json.dumps(best))
''').format(ours=OURS, pytrec=PYTREC, ranx=RANX)

ARRAY_TOOLS = {  # tool: (label, whether the peer's Python runs it)
    "fastrank:str:trec_eval": ("`evaluate_run(..., ties='trec_eval')`, string ids (`<U` arrays)",
                               False),
    "fastrank:str:expected": ("`evaluate_run(..., ties='expected')`, string ids", False),
    "fastrank:int:trec_eval": ("`evaluate_run(..., ties='trec_eval')`, integer ids (int64)",
                               False),
    "fastrank:int:expected": ("`evaluate_run(..., ties='expected')`, integer ids", False),
    "pytrec_eval": ("pytrec_eval (`RelevanceEvaluator` + `evaluate`; dicts made beforehand)",
                    True),
    "pytrec_eval:build": ("pytrec_eval, its dicts made from the same string arrays, timed", True),
    "ranx": ("ranx `evaluate` (Qrels/Run made beforehand)", True),
    "ranx:build": ("ranx, its dicts and Qrels/Run made from the same string arrays, timed", True),
}


def from_arrays(python: str, tool: str, arrays: Path, repeat: int, env: dict[str, str]
                ) -> float | None:
    proc = subprocess.run([python, "-c", CHILD, tool, str(arrays), str(repeat)],
                          capture_output=True, text=True, check=False, env=env)
    if proc.returncode:
        print(f"({tool} with {python}: {proc.stderr.strip().splitlines()[-1:]})")
        return None
    return float(json.loads(proc.stdout.strip().splitlines()[-1]))


def machine() -> tuple[str, str]:
    import fastrank

    info = fastrank.config.config()
    return str(info["cpu"]), ", ".join(info["numpy SIMD"]["dispatched"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path,
                        default=Path(tempfile.gettempdir()) / "fastrank-trec-bench")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ir-measures", default=shutil.which("ir_measures"),
                        help="the ir_measures command (default: on the PATH)")
    parser.add_argument("--peer-python", default=sys.executable,
                        help="a Python that imports pytrec_eval and ranx")
    parser.add_argument("--skip-files", action="store_true")
    parser.add_argument("--skip-arrays", action="store_true")
    args = parser.parse_args()
    run, qrels, arrays = write_data(args.folder, args.queries, args.docs)
    here = str(Path(__file__).resolve().parents[1])
    bytecode()  # as pip installs a package (and installed the peers)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    # the warm cache README advises for a set-up machine: every declared variant, also
    # those no call compiles for itself (the coding by group, the radix sort of keys)
    subprocess.run([sys.executable, "-m", "fastrank", "compile"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu, simd = machine()
    print(f"CPU: {cpu}; {os.cpu_count()} cores; numpy {np.__version__}, SIMD dispatched: "
          f"{simd}")
    print(f"run {run} ({run.stat().st_size / 2**20:.0f} MB, {args.queries:,} x {args.docs:,}), "
          f"qrels {qrels} ({qrels.stat().st_size / 2**20:.1f} MB); best of {args.repeat}")
    print("\n| what | time (s) | peak memory (MB) | against fastrank |\n|---|---|---|---|")
    if not args.skip_files:
        ms = [x for m in FILE_MEASURES for x in ("-m", m)]
        cmd = [sys.executable, "-m", "fastrank", "trec", str(qrels), str(run), *ms, "--ties",
               "trec_eval"]
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = env["PYTHONPATH"]
        try:
            cmds = [cmd]
            if args.ir_measures:
                cmds.append([args.ir_measures, str(qrels), str(run), IR_MEASURES])
            timed = timed_processes(cmds, args.repeat)
            t_ours, m_ours, _ = timed[0]
            print(f"| `fastrank trec --ties trec_eval`, {len(FILE_MEASURES)} measures, end to "
                  f"end | {t_ours:.2f} | {m_ours:.0f} | 1 |")
            if args.ir_measures:
                t, m, _ = timed[1]
                print(f"| `ir_measures` command line, the same measures | {t:.2f} | {m:.0f} | "
                      f"{t / t_ours:.1f}x the time, {m / m_ours:.1f}x the memory |")
            else:
                print("| (ir_measures not found: pip install ir-measures) | | | |")
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH")
            else:
                os.environ["PYTHONPATH"] = old
    if not args.skip_arrays:
        got: dict[str, float] = {}
        for tool, (label, peer) in ARRAY_TOOLS.items():
            t = from_arrays(args.peer_python if peer else sys.executable, tool, arrays,
                            args.repeat, env)
            if t is None:
                continue
            got[tool] = t
            if tool.startswith("fastrank"):
                ratio = "1"
            else:  # against fastrank from string arrays, as the peers' own input
                ratio = ", ".join(f"{t / got[f'fastrank:str:{ties}']:.1f}x {ties}" for ties in
                                  ("trec_eval", "expected") if f"fastrank:str:{ties}" in got)
            print(f"| {label}, from arrays, {len(OURS)} measures | {t:.3f} | | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
