"""Does the engine's sort choice follow the machine? One table, measured in one run.

    python benchmarks/sort_choice.py             # B1 at a fifth of its labels (1-2 minutes)
    python benchmarks/sort_choice.py --scale 1   # B1 as compare_batch.py runs it

fastrank times numpy's sort against its own radix sort once per process and
sorts large classes with the faster (``fastrank info`` shows the choice). This
script checks that choice under each SIMD setting numpy can be forced into on
this machine: numpy as installed, numpy without its top dispatched targets
(AVX-512 on x86: its AVX2 sort), and numpy with every dispatched target
disabled (its baseline code: a much slower sort), each through
``NPY_DISABLE_CPU_FEATURES`` in a fresh process. In each setting every
workload runs three times, each in a process of its own: with the engine's
own choice, and forced to each sort (``FASTRANK_SORT=numpy`` / ``radix``).
Each triple runs ``--rounds`` times, in turns, and every figure is the best
round's (a shared machine's processes differ by more than the sorts do). The
last column is the engine's choice over the better forced one: 1.0 means it
found the faster sort, and the target is at most 1.2.

Workloads (``workloads.py``, ``batch_workloads.py``): W1-W3 one task of 1e6
samples (``all_metrics``), W5 1e3 samples per call (``average_precision``),
B1 ``all_metrics(average=None)`` on 100,000 x 1,000 float32 times ``--scale``
in labels (every label keeps its 100,000 samples, so each is a large task),
G1 ``roc_auc(groups=...)`` on 1e6 rows in 10,000 groups. W2 (few distinct
scores: counted, never sorted), W5 (classes this small always take numpy's
sort) and G1 (small groups: always the radix sort inside the kernel) do not
depend on the choice: they are control rows, whose spread shows the
machine's noise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

_RUN = """
import json, sys
sys.path.insert(0, {bench!r})
import numpy as np
import fastrank
from fastrank._core.sorting import sort_choice
from batch_workloads import B1_SHAPE, grouped
from compare import median_time as med
from workloads import workload

out = {{}}
for name in ("W1", "W2", "W3"):
    y, s = workload(name)
    out[name] = med(lambda: fastrank.all_metrics(y, s), 15)
y, s = workload("W5")
out["W5"] = med(lambda: fastrank.average_precision(y, s), 5, 2000)
rng = np.random.default_rng(11)
t = max(4, int(B1_SHAPE[1] * {scale}))
prevalence = rng.uniform(0.01, 0.03, t).astype(np.float32)
Y = rng.random((B1_SHAPE[0], t), dtype=np.float32) < prevalence
S = rng.standard_normal((B1_SHAPE[0], t), dtype=np.float32) + Y
out["B1"] = med(lambda: fastrank.all_metrics(Y, S, average=None), 3)
del Y, S
y, s, g = grouped()
out["G1"] = med(lambda: fastrank.roc_auc(y, s, groups=g, average=None), 5)
out["choice"] = {{w: sort_choice(w).path for w in (4, 8)}}
s1 = workload("W1")[1]
out["np.sort W1"] = med(lambda: np.sort(s1), 5)
print(json.dumps(out))
"""

ROWS = ("W1", "W2", "W3", "W5", "B1", "G1")
DEPENDS = ("W1", "W3", "B1")  # the rows whose large classes take the chosen sort
UNITS = {"W5": (1e6, "µs")}


def settings() -> list[tuple[str, str | None]]:
    """(label, NPY_DISABLE_CPU_FEATURES) for numpy as installed, without its top
    dispatched targets, and with none of them, as far as this CPU has them."""
    from numpy._core import _multiarray_umath as umath

    found = [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]
    out: list[tuple[str, str | None]] = [("numpy as installed", None)]
    top = [t for t in found if t == "X86_V4" or t.startswith("AVX512")]
    if top and len(top) < len(found):
        out.append(("no AVX-512 (numpy's AVX2 sort)", " ".join(top)))
    if found:
        out.append(("baseline only (" + ", ".join(umath.__cpu_baseline__) + ")", " ".join(found)))
    return out


def run(disable: str | None, sort: str | None, scale: float) -> dict[str, object]:
    env = dict(os.environ)
    env.pop("FASTRANK_SORT", None)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = disable
    if sort:
        env["FASTRANK_SORT"] = sort
    code = _RUN.format(bench=str(Path(__file__).parent), scale=scale)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def _fmt(name: str, seconds: float) -> str:
    scale, unit = UNITS.get(name, (1e3, "ms"))
    return f"{seconds * scale:.1f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.2,
                        help="B1's share of its 1,000 labels (default 0.2)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each process (best kept)")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from timing import machine

    print(f"# numpy {np.__version__}; {machine()}")
    raw: dict[str, object] = {}
    worst = 0.0
    controls: list[float] = []
    for label, disable in settings():
        rounds: dict[str, list[dict[str, object]]] = {"chosen": [], "numpy": [], "radix": []}
        for _ in range(max(1, args.rounds)):
            for mode, got in rounds.items():
                got.append(run(disable, None if mode == "chosen" else mode, args.scale))
        runs = {mode: {key: (min(float(r[key]) for r in got)  # type: ignore[arg-type]
                             if key != "choice" else got[0][key]) for key in got[0]}
                for mode, got in rounds.items()}
        raw[label] = {"NPY_DISABLE_CPU_FEATURES": disable, **runs}
        choice = runs["chosen"]["choice"]
        assert isinstance(choice, dict)
        print(f"\n## {label}"
              + (f": NPY_DISABLE_CPU_FEATURES=\"{disable}\"" if disable else "")
              + f"\n\nengine's choice: float32 {choice['4']}, float64 {choice['8']}; "
              f"np.sort of W1's scores {_fmt('W1', float(runs['chosen']['np.sort W1']))}\n")
        print("| workload | engine's choice | numpy's sort | radix sort | choice / better |")
        print("|---|---|---|---|---|")
        for name in ROWS:
            t = {mode: float(runs[mode][name]) for mode in runs}
            ratio = t["chosen"] / min(t["numpy"], t["radix"])
            if name in DEPENDS:
                worst = max(worst, ratio)
            else:
                controls.append(ratio)
            print(f"| {name} | {_fmt(name, t['chosen'])} | {_fmt(name, t['numpy'])} | "
                  f"{_fmt(name, t['radix'])} | {ratio:.2f} |")
    print(f"\nworst choice / better over the rows that depend on it ({', '.join(DEPENDS)}): "
          f"{worst:.2f} (target: at most 1.2); the control rows spread "
          f"{min(controls):.2f}-{max(controls):.2f}, this machine's noise between processes")
    raw["worst"] = worst
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
