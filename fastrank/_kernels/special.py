"""The standard normal quantile, without scipy.

:func:`ndtri` implements Wichura's algorithm AS 241 (PPND16, Applied
Statistics 37(3), 1988), accurate to about 1e-16 relative, with three rational
approximations: one for ``|p - 0.5| <= 0.425`` and two for the tails in
``r = sqrt(-log(min(p, 1 - p)))``. It is compiled like every kernel and
serves scalar calls from Python as well.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

# Central region, |p - 0.5| <= 0.425: numerator a0..a7, denominator 1, b1..b7.
_A = (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
      1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
      3.3430575583588128105e4, 2.5090809287301226727e3)
_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
      2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
      5.2264952788528545610e3)
# Intermediate tail, r <= 5 (r measured from 1.6).
_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
      3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
      2.27238449892691845833e-2, 7.74545014278341407640e-4)
_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
      1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
      1.05075007164441684324e-9)
# Far tail, r > 5 (r measured from 5).
_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
      2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
      2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
      7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
      2.04426310338993978564e-15)


@kernel
def _ratio(num: tuple[float, ...], den: tuple[float, ...], x: float) -> float:
    """Horner evaluation of ``num(x) / den(x)`` (coefficients lowest first)."""
    top = 0.0
    bottom = 0.0
    for i in range(7, -1, -1):
        top = top * x + num[i]
        bottom = bottom * x + den[i]
    return top / bottom


@kernel
def ndtri(p: float) -> float:
    """Quantile of the standard normal distribution: ``Phi(ndtri(p)) == p``.

    ``ndtri(0) == -inf``, ``ndtri(1) == inf``, NaN outside ``[0, 1]`` or for NaN.
    """
    if not (0.0 <= p <= 1.0):
        return math.nan
    q = p - 0.5
    if abs(q) <= 0.425:
        return q * _ratio(_A, _B, 0.180625 - q * q)
    tail = p if q < 0.0 else 1.0 - p  # 1 - p is exact for p >= 0.5
    if tail == 0.0:
        return -math.inf if q < 0.0 else math.inf
    r = math.sqrt(-math.log(tail))
    if r <= 5.0:
        z = _ratio(_C, _D, r - 1.6)
    else:
        z = _ratio(_E, _F, r - 5.0)
    return -z if q < 0.0 else z



@kernel
def ndtri_array(p):
    """:func:`ndtri` of every entry of a float64 array."""
    out = np.empty_like(p)
    for i in range(p.shape[0]):
        out[i] = ndtri(p[i])
    return out
