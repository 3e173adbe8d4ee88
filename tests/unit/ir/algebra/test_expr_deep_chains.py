"""Expression chains far deeper than Python's stack: everything that walks an expression —
building a function from it, verifying, printing, hashing, comparing, copying, running — is
iterative. Each test runs under a recursion budget of 100 frames, so a step that recursed once
per op of a 3,000-op chain would fail; the 100,000-op timings are in `benchmarks/`."""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import BindingMetadata, Mesh, Module, TensorType, Topology, Var, ops
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import LetStmt, PrimFunction

DEPTH = 3_000
T4 = TensorType((4,), "f32")


@contextlib.contextmanager
def recursion_budget(frames: int) -> Iterator[None]:
    """Allow only `frames` Python frames above the caller's."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def chain(x: Any, depth: int = DEPTH) -> Any:
    """neg applied `depth` times, with an add of the Var every 1,000 ops (a DAG, not a list)."""
    h = x
    for index in range(depth):
        h = ops.add(h, x) if index % 1000 == 999 else ops.neg(h)
    return h


def expected(depth: int = DEPTH) -> np.ndarray:
    value = np.ones(4, np.float32)
    for index in range(depth):
        value = value + 1 if index % 1000 == 999 else -value
    return value


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Import and load everything the tests reach before the budget is lowered."""
    x = Var("x", T4)
    m = Module(name="w", functions=[Function(name="f", params=[x], body=chain(x, 1000))])
    tf.parse_module(tf.print_module(m, generic=True, debuginfo=True))
    tf.run_passes(m, "canonicalize,cse")
    m.f(np.ones(4, np.float32))


def test_a_deep_chain_builds_prints_hashes_compares_and_runs() -> None:
    with recursion_budget(100):
        x, y = Var("x", T4), Var("x", T4)
        a, b = chain(x), chain(y)
        assert tf.structural_equal(a, b)
        assert tf.structural_hash(a) == tf.structural_hash(b)
        f = Function(name="f", params=[x], body=a)
        m = Module(name="m", functions=[f], entry="f")
        text = tf.print_module(m)
        generic = tf.print_module(m, generic=True, debuginfo=True)
        copy = m.cloned()
        assert tf.structural_equal(m, copy)
        assert tf.structural_hash(m) == tf.structural_hash(copy)
        np.testing.assert_array_equal(m.f(np.ones(4, np.float32)), expected())
    assert text.count("tf.call") == DEPTH
    assert generic.count('"tf.call"') == DEPTH


def test_a_deep_chain_survives_text() -> None:
    x = Var("x", T4)
    m = Module(name="m", functions=[Function(name="f", params=[x], body=chain(x))], entry="f")
    text = tf.print_module(m)
    with recursion_budget(100):
        again = tf.parse_module(text)
        assert tf.structural_equal(again, m)


def test_a_copy_of_a_deep_expression_is_iterative() -> None:
    with recursion_budget(100):
        x = Var("x", T4)
        f = Function(name="f", params=[x], body=chain(x))
        detached = tf.replace_metadata(chain(Var("x", T4)), BindingMetadata("d"))
        attached = tf.replace_metadata(f.body, BindingMetadata("a"))
        assert tf.structural_equal(attached, f.body)
        assert tf.structural_equal(detached, attached)


def test_a_deep_chain_in_a_mesh_and_in_tir() -> None:
    with recursion_budget(100):
        x = Var("x", T4)
        y = Mesh("cta", lambda: chain(x))
        f = Function(name="f", params=[x], body=y)
        z = Var("z", T4)
        let = LetStmt("l", chain(z))
        k = PrimFunction(name="k", params=[z], body=[let], result=let.var)
        m = Module(name="m", functions=[f, k], topologies=(Topology("cta"),))
        np.testing.assert_array_equal(m.f(np.ones(4, np.float32)), expected())
        np.testing.assert_array_equal(m.k(np.ones(4, np.float32)), expected())
        assert tf.structural_equal(m, m.cloned())


def test_passes_run_on_a_deep_chain() -> None:
    x = Var("x", T4)
    m = Module(name="m", functions=[Function(name="f", params=[x], body=chain(x))], entry="f")
    with recursion_budget(100):
        out = tf.run_passes(m, "canonicalize,cse")
        np.testing.assert_array_equal(out.f(np.ones(4, np.float32)), expected())
