"""hypothesis strategies shared by the property tests.

Scores are drawn from a tiny pool of values per dtype (so ties are
everywhere), labels in every accepted encoding, weights absent, integer or
real (zeros included), and arrays in awkward layouts (non-contiguous,
read-only, big-endian, plain lists). ``Case.y01`` / ``Case.scores`` /
``Case.weights`` give the plain Python view that the oracles take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

# deadline=None: the first example of a new dtype compiles (or loads) kernels.
# derandomize + no database: the same examples on every run and every machine.
PROPERTY_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)

# Values chosen to hit awkward bit patterns: signed zeros, subnormals, huge
# magnitudes, integers beyond 2**53, the extremes of each integer type.
POOLS: dict[str, list[Any]] = {
    "float64": [-1e300, -2.5, -1.0, -0.0, 0.0, 5e-324, 0.1, 0.125, 1.0, 7.75, 1e300],
    "float32": [-3e38, -2.5, -0.0, 0.0, 1e-40, 0.1, 0.125, 1.0, 7.75],
    "float16": [-65504.0, -2.5, -0.0, 0.0, 6e-8, 0.1, 1.0, 7.75],
    "int64": [-(2**63), -3, 0, 1, 2, 2**53 + 1, 2**63 - 1],
    "int32": [-(2**31), -7, 0, 3, 2**31 - 1],
    "int8": [-128, -1, 0, 5, 127],
    "uint8": [0, 1, 200, 255],
    "uint64": [0, 1, 2**53 + 1, 2**63, 2**64 - 1],
    "bool": [False, True],
}
ALL_DTYPES = tuple(POOLS)
FLOAT_DTYPES = ("float64", "float32", "float16")

LABEL_ENCODINGS = ("int01", "bool", "pm1", "float01", "str", "pos0", "list")
LAYOUTS = ("contiguous", "strided", "readonly", "bigendian", "list")

# Real weights: dyadic values (exact sums) and decimal ones (rounded sums).
REAL_WEIGHTS = st.one_of(
    st.just(0.0),
    st.sampled_from([0.5, 0.25, 2.75, 0.1, 1.0 / 3.0, 1e-3, 7.0]),
    st.floats(min_value=0.01, max_value=100.0, allow_nan=False, allow_infinity=False),
)
INT_WEIGHTS = st.integers(min_value=0, max_value=3)
# Dyadic weights: every partial sum of a few of them is exact in float64, so
# results that depend on exact comparisons of sums (dropped curve points, the
# break-even group) are well defined whatever the order of summation.
DYADIC_WEIGHTS = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.5, 2.75, 8.0])


@dataclass
class Case:
    """One drawn task, in fastrank's input form and in the oracles' form."""

    y_true: Any  # as passed to fastrank
    y_score: Any
    sample_weight: Any
    pos_label: Any
    y01: list[int]  # 1 = positive
    scores: list[Any]  # Python numbers (exact values of y_score)
    weights: list[Any] | None  # Python numbers, or None when unweighted
    dtype: str
    weight_kind: str  # "none", "int", "dyadic" or "real"

    def kwargs(self) -> dict[str, Any]:
        return {"sample_weight": self.sample_weight, "pos_label": self.pos_label}

    @property
    def oracle_args(self) -> tuple[list[int], list[Any], list[Any] | None]:
        return self.y01, self.scores, self.weights

    def score_array(self) -> np.ndarray:
        """The scores as a plain native contiguous array of the drawn dtype."""
        return np.array(self.scores, dtype=self.dtype)

    def weight_array(self) -> np.ndarray | None:
        return None if self.weights is None else np.array(self.weights)

    def class_totals(self) -> tuple[float, float]:
        w = self.weights if self.weights is not None else [1] * len(self.y01)
        pos = sum(wi for wi, yi in zip(w, self.y01, strict=True) if yi)
        neg = sum(wi for wi, yi in zip(w, self.y01, strict=True) if not yi)
        return pos, neg


def encode_labels(y01: list[int], encoding: str) -> tuple[Any, Any]:
    """``(y_true, pos_label)`` in one of the accepted label encodings."""
    y = np.asarray(y01, dtype=np.int64)
    if encoding == "int01":
        return y, None
    if encoding == "bool":
        return y.astype(bool), None
    if encoding == "pm1":
        return np.where(y == 1, 1, -1), None
    if encoding == "float01":
        return y.astype(np.float64), None
    if encoding == "str":
        return np.where(y == 1, "pos", "neg"), "pos"
    if encoding == "pos0":
        return 1 - y, 0
    if encoding == "list":
        return [int(v) for v in y01], None
    raise AssertionError(encoding)


def apply_layout(a: np.ndarray, layout: str) -> Any:
    """The same values as ``a`` in an awkward memory layout."""
    if layout == "contiguous":
        return a
    if layout == "strided":
        big = np.zeros(2 * a.shape[0] + 1, dtype=a.dtype)
        big[1::2] = a
        view = big[1::2]
        assert not view.flags.c_contiguous or a.shape[0] <= 1
        return view
    if layout == "readonly":
        b = a.copy()
        b.flags.writeable = False
        return b
    if layout == "bigendian":
        return a.astype(a.dtype.newbyteorder(">"))
    if layout == "list":
        return a.tolist()
    raise AssertionError(layout)


@st.composite
def cases(
    draw: st.DrawFn,
    *,
    min_size: int = 1,
    max_size: int = 24,
    dtypes: tuple[str, ...] = ALL_DTYPES,
    weight_kinds: tuple[str, ...] = ("none", "int", "real"),
    encodings: tuple[str, ...] = LABEL_ENCODINGS,
    layouts: tuple[str, ...] = LAYOUTS,
    max_distinct: int = 4,
    classes: str = "both",  # "both", "any", "no_pos" or "no_neg"
    pool: list[Any] | None = None,  # score values to use instead of POOLS[dtype]
) -> Case:
    """A small task whose scores come from at most ``max_distinct`` values."""
    dtype = draw(st.sampled_from(dtypes))
    if pool is None:
        pool = POOLS[dtype]
    k = draw(st.integers(min_value=1, max_value=min(max_distinct, len(pool))))
    # Distinct pool *indices*: -0.0 == 0.0 would defeat unique=True on values.
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    values = [pool[i] for i in picks]
    lo = max(min_size, 2) if classes == "both" else min_size
    n = draw(st.integers(min_value=lo, max_value=max_size))
    scores_np = np.array(
        draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)), dtype=dtype
    )
    if classes == "no_pos":
        y01 = [0] * n
    elif classes == "no_neg":
        y01 = [1] * n
    else:
        y01 = draw(st.lists(st.integers(min_value=0, max_value=1), min_size=n, max_size=n))
    weight_kind = draw(st.sampled_from(weight_kinds))
    if weight_kind == "none":
        w_np = None
    elif weight_kind == "int":
        w_np = np.array(draw(st.lists(INT_WEIGHTS, min_size=n, max_size=n)), dtype=np.int64)
    elif weight_kind == "dyadic":
        w_np = np.array(draw(st.lists(DYADIC_WEIGHTS, min_size=n, max_size=n)), dtype=np.float64)
    else:
        w_np = np.array(draw(st.lists(REAL_WEIGHTS, min_size=n, max_size=n)), dtype=np.float64)
    weights = None if w_np is None else w_np.tolist()
    w = weights if weights is not None else [1] * n
    pos = sum(wi for wi, yi in zip(w, y01, strict=True) if yi)
    neg = sum(wi for wi, yi in zip(w, y01, strict=True) if not yi)
    if classes == "both":
        assume(pos > 0 and neg > 0)
    elif classes == "no_pos":
        assume(neg > 0)
    elif classes == "no_neg":
        assume(pos > 0)
    encoding = draw(st.sampled_from(encodings))
    y_true, pos_label = encode_labels(y01, encoding)
    layout = draw(st.sampled_from(layouts))
    if layout == "list" and dtype != "float64":
        layout = "contiguous"  # a list would not keep the dtype
    y_score = apply_layout(scores_np, layout)
    sample_weight = None if w_np is None else apply_layout(w_np, layout)
    if isinstance(y_true, np.ndarray) and encoding != "str" and layout != "list":
        y_true = apply_layout(y_true, layout)
    return Case(
        y_true=y_true,
        y_score=y_score,
        sample_weight=sample_weight,
        pos_label=pos_label,
        y01=[int(v) for v in y01],
        scores=scores_np.tolist(),
        weights=weights,
        dtype=dtype,
        weight_kind=weight_kind,
    )
