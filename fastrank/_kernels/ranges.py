"""One task too large for one machine, swept in score ranges.

The scores are split into disjoint score ranges (a tie group never spans
two), each range is grouped on its own worker, and :func:`range_sweep` sweeps
its tie groups starting from the true-positive and false-positive totals of
all higher ranges. Every sum the sweep keeps (AP, AUC, partial AUC, PR AUC,
tie-expected AP) is additive over consecutive stretches of groups, so the
ranges' states combine into the state of one sweep over the whole task
(:func:`fastrank.distributed.combine_ranges`), which :func:`.sweep.sweep_finish`
then turns into the metrics.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel
from .sweep import (
    ST_FP,
    ST_PARTIAL_OPEN,
    ST_RUN_TP0,
    ST_TP,
    sweep_groups,
    sweep_start,
)


@kernel
def range_sweep(gkey: np.ndarray, gpos: np.ndarray, gneg: np.ndarray, tp0: float, fp0: float,
                pos: float, neg: float, max_fpr: float, what: int, st: np.ndarray,
                sk: np.ndarray) -> None:
    """Sweep one range's tie groups (descending keys) below ``tp0`` positives and
    ``fp0`` negatives; ``pos``/``neg`` are the whole task's totals."""
    sweep_start(st, sk, max_fpr)
    st[ST_TP] = tp0
    st[ST_FP] = fp0
    st[ST_RUN_TP0] = tp0  # a run of negative-free groups starts at the range's top
    if max_fpr < 1.0 and fp0 > max_fpr * neg:
        st[ST_PARTIAL_OPEN] = 0.0
    d = gkey.shape[0]
    if d:
        sweep_groups((gkey, gpos, gneg), 0, d, pos, neg, max_fpr, what, st, sk)
