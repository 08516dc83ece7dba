"""The checks of command-line values that the commands share: argparse ``type=``
functions, each turning an argument's text into a number or raising
``argparse.ArgumentTypeError`` with the text and what it is not (argparse prefixes
the option's name and exits with status 2).

Examples
--------
>>> rate("0.25"), open_rate("0.05"), finite("-1"), count("3"), count("0", least=0)
(0.25, 0.05, -1.0, 3, 0)
>>> rate("1.5")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: '1.5' is not in [0, 1]
"""

from __future__ import annotations

import argparse
import math
import re


def number(value: str) -> float:
    """Any number Python reads as a float."""
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


def finite(value: str) -> float:
    """A finite number (a grade, a level)."""
    v = number(value)
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{value!r} is not a finite number")
    return v


def integer_part(value: str) -> float:
    """The integer a number starts with, as C's ``atol`` reads it (trec_eval's ``-l``:
    1.5 is 1, -2.7 is -2)."""
    m = re.match(r"\s*([+-]?\d+)", value)
    if m is None:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number")
    return float(int(m.group(1)))


def rate(value: str) -> float:
    """A number in [0, 1] (a bound on a rate, a depth as a share of the rows)."""
    v = number(value)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"{value!r} is not in [0, 1]")
    return v


def open_rate(value: str) -> float:
    """A number in (0, 1) (a significance level)."""
    v = number(value)
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"{value!r} is not in (0, 1)")
    return v


def count(value: str, least: int = 1) -> int:
    """An integer of at least ``least`` (jobs, a depth, permutations, a seed)."""
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"{value!r} is not at least {least}")
    return v
