"""Tie-group ids and DeLong placements from the radix sort and one kernel pass,
against a plain numpy reference (stable argsort, cumsum, bincount)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank._core import codec, delong, inputs, tie_tables


def reference_groups(t: inputs.Task) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    keys = codec.keys_of(t.values, t.spec)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    new = np.ones(sk.shape[0], bool)
    new[1:] = sk[1:] != sk[:-1]
    asc = np.cumsum(new) - 1
    ngroups = int(asc[-1]) + 1
    gid = np.empty(sk.shape[0], np.int64)
    gid[order] = ngroups - 1 - asc
    w = np.ones(sk.shape[0]) if t.weights is None else t.weights
    lab = t.labels.astype(bool)
    gpos = np.bincount(gid[lab], weights=w[lab], minlength=ngroups).astype(np.float64)
    gneg = np.bincount(gid[~lab], weights=w[~lab], minlength=ngroups).astype(np.float64)
    return gid, codec.bits_of_keys(sk[new][::-1], t.spec), gpos, gneg


@st.composite
def tasks(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(2, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < draw(st.floats(0.05, 0.95))).astype(np.int64)
    y[:2] = [0, 1]
    s = rng.normal(size=n) * 3
    if draw(st.booleans()):
        s = np.round(s)  # ties everywhere
    kind = draw(st.sampled_from(["float64", "float32", "int64", "uint64", "bool"]))
    if kind == "bool":
        s = s > 0
    elif kind == "int64":
        s = (s * 10).astype(np.int64)
    elif kind == "uint64":
        s = np.abs(s * 10).astype(np.uint64)
    else:
        s = s.astype(kind)
        s[rng.random(n) < 0.1] = -0.0  # the same score as +0.0
    w = rng.random(n) * 10.0 ** draw(st.sampled_from([0, -200, 200])) \
        if draw(st.booleans()) else None
    return inputs.task(y, s, w, None)


@settings(max_examples=150, deadline=None)
@given(tasks())
def test_group_index_matches_the_reference(t: inputs.Task) -> None:
    got = tie_tables.group_index(t)
    want = reference_groups(t)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=150, deadline=None)
@given(tasks())
def test_placements_match_the_group_formula(t: inputs.Task) -> None:
    t = t._replace(weights=None)
    gid, _, gpos, gneg = reference_groups(t)
    v10, v01 = delong.group_placements(gpos, gneg)
    want = np.where(t.labels.astype(bool), v10[gid], v01[gid])
    np.testing.assert_array_equal(tie_tables.sample_placements(t), want)


def test_large_tasks_sort_their_rows_with_the_radix_sort() -> None:
    # From tie_tables.ROWS_RADIX_MIN samples on, the rows come from the radix sort.
    rng = np.random.default_rng(7)
    n = tie_tables.ROWS_RADIX_MIN + 1234
    for kind in ("float64", "float32", "int64"):
        y = (rng.random(n) < 0.3).astype(np.int64)
        s = np.round(rng.normal(size=n) * 50)
        s = s.astype(kind)
        if kind != "int64":
            s[rng.random(n) < 0.05] = -0.0
        for w in (None, rng.random(n)):
            t = inputs.task(y, s, w, None)
            for a, b in zip(tie_tables.group_index(t), reference_groups(t), strict=True):
                np.testing.assert_array_equal(a, b)
        t = inputs.task(y, s, None, None)
        gid, _, gpos, gneg = reference_groups(t)
        v10, v01 = delong.group_placements(gpos, gneg)
        want = np.where(t.labels.astype(bool), v10[gid], v01[gid])
        np.testing.assert_array_equal(tie_tables.sample_placements(t), want)
