"""Interpolation between a curve's tie groups: the precision where the true
positives first reach given values (the interpolated PR curve, averaged curves)."""

from __future__ import annotations

import numpy as np

FloatArray = np.ndarray


def precision_at(
    t: FloatArray, tp_start: FloatArray, fp_start: FloatArray, gpos: FloatArray, gneg: FloatArray
) -> FloatArray:
    """Interpolated precision where TP first reaches each value of ``t``."""
    tp_end = tp_start + gpos
    seg = np.minimum(np.searchsorted(tp_end, t, side="left"), tp_end.shape[0] - 1)
    dp = gpos[seg]
    slope = np.divide(gneg[seg], dp, out=np.zeros_like(dp), where=dp > 0)
    mass = t + fp_start[seg] + slope * (t - tp_start[seg])
    precision = np.divide(t, mass, out=np.zeros_like(t), where=t > 0)
    # Recall 0: the start of the first segment, whose precision is constant.
    at_zero: FloatArray = np.where(t > 0, precision, gpos[0] / (gpos[0] + gneg[0]))
    return at_zero
