"""Products without BLAS (fastrank._core.arith): the same numbers as numpy's, and the
only place fastrank forms them (BLAS worker threads, spinning after a call, slow the
engine's own threads down; see the module)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from fastrank._core import arith

PACKAGE = Path(__file__).resolve().parent.parent / "fastrank"
# np.dot / np.matmul / np.inner / np.vdot / np.tensordot, a .dot( method, or the @ operator
BLAS = re.compile(r"np\.(dot|matmul|inner|vdot|tensordot)\(|\.dot\(|\S\s+@\s+\S")


def test_no_product_outside_arith():
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "arith.py":
            continue
        for no, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if BLAS.search(code) and not code.lstrip().startswith((">>>", "...")):
                found.append(f"{path.relative_to(PACKAGE)}:{no}: {line.strip()}")
    assert not found, "products outside fastrank._core.arith:\n" + "\n".join(found)


def test_the_scan_finds_a_product():  # the pattern above is not vacuous
    assert BLAS.search("x = a @ b") and BLAS.search("float(np.dot(a, b))")
    assert not BLAS.search("@kernel(_SPLIT)")


@pytest.mark.parametrize("n", [0, 1, 7, 20_000])
def test_products_equal_numpys(n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    m = rng.standard_normal((5, n))
    assert arith.dot(a, b) == pytest.approx(float(np.dot(a, b)), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(arith.matvec(m, a), m @ a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arith.vecmat(m[:, 0] if n else np.zeros(5), m),
                               (m[:, 0] if n else np.zeros(5)) @ m, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arith.gram(m), m @ m.T, rtol=1e-12, atol=1e-12)
    assert isinstance(arith.dot(a, b), float)
