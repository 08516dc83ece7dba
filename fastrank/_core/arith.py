"""Products of vectors and matrices without numpy's BLAS.

``np.dot`` and ``@`` hand large operands to the BLAS library numpy links
(OpenBLAS in the wheels), whose worker threads keep spinning for a while after
each call. On a machine with few cores they compete with the engine's own
threads: measured on 2 cores (Intel Xeon, KVM), one ``np.dot`` of 90,000
float64 made the next one-task tie table of a million samples 1.7x slower
(14.0 ms against 8.1 ms), an ``(10,000, 100) @ (100,)`` product 1.55x. numpy's
``einsum`` (without ``optimize``) computes the same sums in its own loops, on
the calling thread, with no such after-effect (7.7 ms). Every product in
fastrank goes through here.
"""

from __future__ import annotations

import math

import numpy as np


def near_one(w: np.ndarray) -> np.ndarray:
    """Non-negative weights scaled by the power of two that brings the largest into
    [0.5, 1): exact (but for any it takes below float64's normal range), so that their
    sums stay finite and every mean they weigh keeps its value."""
    out: np.ndarray = np.ldexp(w, -math.frexp(float(w.max()))[1])
    return out


def exact_sum(x: np.ndarray) -> float:
    """The sum of ``x``'s values correctly rounded (``math.fsum``): the same bits in
    any order of them; where a partial sum passes float64's range, numpy's sum (an
    infinity, or NaN), for the caller to rescale."""
    try:
        return math.fsum(np.asarray(x, np.float64).ravel().tolist())
    except (OverflowError, ValueError):  # past float64's range; inf - inf
        with np.errstate(over="ignore", invalid="ignore"):
            return float(np.sum(x))


def exact_dot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` of two 1-D arrays, each product rounded and their sum correctly
    rounded (:func:`exact_sum`): the same bits in any order of the pairs."""
    with np.errstate(over="ignore", invalid="ignore"):
        return exact_sum(np.multiply(a, b))


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` of two 1-D arrays."""
    return float(np.einsum("i,i->", a, b))


def matvec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m @ v`` for a 2-D ``m`` and a 1-D ``v``."""
    return np.asarray(np.einsum("ij,j->i", m, v))


def vecmat(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``v @ m`` for a 1-D ``v`` and a 2-D ``m``."""
    return np.asarray(np.einsum("i,ij->j", v, m))


def gram(x: np.ndarray) -> np.ndarray:
    """``x @ x.T`` of a 2-D ``x``."""
    return np.asarray(np.einsum("ik,jk->ij", x, x))


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` of two 2-D arrays."""
    return np.asarray(np.einsum("ik,kj->ij", a, b))
