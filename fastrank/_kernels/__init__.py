"""Compiled kernels: key transforms, sorting, tie grouping and metric sweeps.

Everything in this package runs under Numba without bounds checks and
assumes validated input (see :mod:`fastrank._core.inputs`). Nothing here
raises on user data and nothing here changes Numba's global settings.
"""
