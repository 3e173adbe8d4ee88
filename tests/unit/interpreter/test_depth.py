"""Function calls nest as deep as a program needs: the interpreter runs a 300-deep chain of
`hir.func` calls (Python's default recursion limit alone would not); what still exhausts the
raised limit, or a recursion, is one `ExecutionError`, never a `RecursionError`."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.interpreter import depth
from tilefoundry.support.diagnostics import ExecutionError

T = "tensor<4xf32>"


def chain(n: int) -> str:
    """`@f0` negates and calls `@f1`, ... down to `@f{n-1}`, which returns its argument."""
    functions = []
    for k in range(n - 1):
        functions.append(
            f"  hir.func @f{k}(%x: {T}) -> {T} {{\n"
            f"    %n = tf.call tf.math.unary<kind = neg>(%x) : ({T}) -> {T}\n"
            f"    %y = tf.call @f{k + 1}(%n) : ({T}) -> {T}\n"
            f"    hir.return %y : {T}\n  }}"
        )
    functions.append(f"  hir.func @f{n - 1}(%x: {T}) -> {T} {{\n    hir.return %x : {T}\n  }}")
    return "tf.module @m entry @f0 {\n" + "\n".join(functions) + "\n}\n"


@pytest.fixture
def default_limit() -> Iterator[None]:
    """Python's default recursion limit (1000) during the test, restored after."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


X = np.float32([1, -2, 3, -4])


def test_a_300_deep_chain_of_calls_runs(default_limit: None) -> None:
    m = tf.parse_module(chain(301))  # 300 negations
    np.testing.assert_array_equal(m.f0(X), X)
    np.testing.assert_array_equal(tf.parse_module(chain(300)).f0(X), -X)
    assert sys.getrecursionlimit() == 1000  # restored


def test_calls_past_the_raised_limit_are_an_execution_error(
    default_limit: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(depth, "RECURSION_LIMIT", 1000)  # as deep as Python's default
    m = tf.parse_module(chain(301))
    message = (
        "the function calls nest deeper than the reference interpreter runs "
        "(beyond Python's recursion limit 1000): inline some of the functions"
    )
    with pytest.raises(ExecutionError, match=re.escape(message)) as caught:
        m.f0(X)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert sys.getrecursionlimit() == 1000


def test_a_recursion_is_an_execution_error_naming_the_cycle(default_limit: None) -> None:
    m = tf.parse_module(
        f"""tf.module @m entry @f {{
  hir.func @f(%x: {T}) -> {T} {{
    %y = tf.call @g(%x) : ({T}) -> {T}
    hir.return %y : {T}
  }}
  hir.func @g(%x: {T}) -> {T} {{
    %y = tf.call @f(%x) : ({T}) -> {T}
    hir.return %y : {T}
  }}
}}"""
    )
    with pytest.raises(ExecutionError, match=re.escape("the calls recurse (@f -> @g -> @f)")):
        m.f(X)
    assert sys.getrecursionlimit() == 1000
