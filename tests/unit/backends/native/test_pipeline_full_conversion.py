"""Compiled `tf.tensor.full` converts its value by the interpreter's rule (`number_as`, as
`tf.math.cast` converts a float64: saturating, rounded once), on every dtype's edges
(tests/unit/ops/test_tensor_conversion_rule.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.builtin.types import DTYPES
from tilefoundry.dialects.tf.numerics import number_as

EDGES = [
    0.0, -0.0, 0.5, -2.5, -2.7, 1.00390625, 0.1, 127.0, 128.0, -129.0, 300.0, 32768.0,
    -32769.0, 65519.0, 65520.0, 2.0**31, -(2.0**31) - 1, 2.0**53 + 1, 2.0**63, -(2.0**63),
    3.3961e38, 3.4028235677973366e38, 1e30, -1e30, 1e300, 5e-324, 6e-8,
]  # fmt: skip


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_compiled_full_converts_as_the_interpreter(dtype: str) -> None:
    ty = f"tensor<1x{dtype}>"
    tt = f"tuple<{', '.join([ty] * len(EDGES))}>"
    body = [
        f"    %y{k} = tf.call tf.tensor.full<shape = [1], value = {v:.17e}, dtype = {dtype}>() "
        f": () -> {ty}"
        for k, v in enumerate(EDGES)
    ]
    names = ", ".join(f"%y{k}" for k in range(len(EDGES)))
    text = "\n".join(
        [f"tf.module @m entry @all {{\n  hir.func @all() -> {tt} {{", *body]
        + [f"    %t = tf.tuple {names} : {tt}", f"    hir.return %t : {tt}\n  }}\n}}"]
    )
    module = tf.parse_module(text)
    compiled, interpreted = tf.compile(module)(), module()
    for value, got, want in zip(EDGES, compiled, interpreted, strict=True):
        expected = np.asarray(number_as(value, dtype)).reshape(1)
        assert want.tobytes() == expected.tobytes(), (value, dtype)
        assert got.tobytes() == expected.tobytes(), (value, dtype)
