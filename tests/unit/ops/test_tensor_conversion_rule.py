"""One rule turns a number into a dtype (docs/ir.md, "Numeric semantics"): `cast_array`, which
`tf.math.cast` applies. `tf.tensor.full`'s value converts by it (saturating at an integer
dtype's range) in the interpreter and in the folder; a literal (`tf.constant`, `Constant`) and a
tf-run input hold exactly what it gives, or are refused where it would change the value beyond
rounding a float. Checked on every dtype over the edges of every dtype's range."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.builtin.types import DTYPES, TensorType
from tilefoundry.dialects.tf.dense import array_to_dense, dense_to_array, numpy_dtype
from tilefoundry.dialects.tf.numerics import number_as
from tilefoundry.tools.drivers.run_values import RunError, exact_value

# every dtype's range edges, past them, fractions and ties, from f64's view
EDGES = [
    0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, -2.7, 1.00390625, 1.0 + 2.0**-24, 0.1,
    127.0, 128.0, -128.0, -129.0, 255.0, 300.0, -300.0,
    32767.0, 32768.0, -32768.0, -32769.0, 65504.0, 65519.0, 65520.0, 1e5,
    2.0**31 - 1, 2.0**31, -(2.0**31), -(2.0**31) - 1, 2.0**53 + 1, 2.0**63, -(2.0**63), 2.0**64,
    3.3895e38, 3.3961e38, 3.4028234663852886e38, 3.4028235677973366e38, 1e30, -1e30, 1e300,
    -1e300, 5e-324, 1e-40, 6e-8, 2.0**-25,
]  # fmt: skip
DT = list(DTYPES)


def _bits(array: Any) -> bytes:
    return np.ascontiguousarray(array).tobytes()


def _module(dtype: str) -> tf.Module:
    """@full_K: a full of EDGES[K]; @cast: tf.math.cast of an f64 tensor."""
    t = f"tensor<1x{dtype}>"
    lines = ["tf.module @m entry @cast {"]
    lines.append(
        f"  hir.func @cast(%x: tensor<{len(EDGES)}xf64>) -> tensor<{len(EDGES)}x{dtype}> {{"
    )
    lines.append(
        f"    %y = tf.call tf.math.cast<dtype = {dtype}>(%x) : (tensor<{len(EDGES)}xf64>) "
        f"-> tensor<{len(EDGES)}x{dtype}>"
    )
    lines.append(f"    hir.return %y : tensor<{len(EDGES)}x{dtype}>\n  }}")
    for k, value in enumerate(EDGES):
        lines.append(f"  hir.func @full_{k}() -> {t} {{")
        lines.append(
            f"    %y = tf.call tf.tensor.full<shape = [1], value = {value:.17e}, dtype = {dtype}>() "
            f": () -> {t}"
        )
        lines.append(f"    hir.return %y : {t}\n  }}")
    lines.append("}")
    return tf.parse_module("\n".join(lines))


@pytest.mark.parametrize("dtype", DT)
def test_full_converts_as_cast_interpreted_and_folded(dtype: str) -> None:
    m = _module(dtype)
    folded = tf.run_passes(m, "canonicalize")
    cast = m.cast(np.array(EDGES, np.float64))
    for k, value in enumerate(EDGES):
        expected = number_as(value, dtype)
        assert _bits(expected) == _bits(cast[k]), (value, dtype)
        assert _bits(getattr(m, f"full_{k}")()) == _bits(expected.reshape(1)), (value, dtype)
        assert _bits(getattr(folded, f"full_{k}")()) == _bits(expected.reshape(1)), (value, dtype)
    # each was folded but those that became an infinity (the folder leaves those calls)
    infinite = sum(not np.isfinite(number_as(v, dtype).astype(np.float64)) for v in EDGES)
    assert tf.print_module(folded).count("tf.tensor.full") == infinite


def test_the_issues_cases() -> None:
    assert number_as(1e30, "i32") == 2**31 - 1
    assert number_as(300.0, "i8") == 127
    assert number_as(-300.0, "i8") == -128
    assert number_as(2.0**63, "i64") == 2**63 - 1


def _changes_value(value: float, dtype: str) -> bool:
    """Whether the rule changes `value` beyond rounding it to a narrower float."""
    converted = number_as(value, dtype)
    if dtype[0] == "i":
        return int(converted) != value  # exact: a Python int against a float
    return math.isinf(float(converted))


@pytest.mark.parametrize("dtype", DT)
def test_a_literal_holds_what_the_rule_gives_or_is_refused(dtype: str) -> None:
    for value in EDGES:
        if _changes_value(value, dtype):
            with pytest.raises(ValueError, match="does not fit"):
                array_to_dense(np.float64(value), dtype)
            continue
        held = dense_to_array(array_to_dense(np.float64(value), dtype))
        assert _bits(held) == _bits(number_as(value, dtype)), (value, dtype)
        if dtype != "bf16":
            assert held.dtype == numpy_dtype(dtype)


@pytest.mark.parametrize("dtype", DT)
def test_a_tf_run_input_holds_what_the_rule_gives_or_is_refused(dtype: str) -> None:
    """tf-run takes an input only when the rule keeps every element exactly."""
    type = TensorType((1,), dtype)
    for value in EDGES:
        converted = number_as(value, dtype)
        if dtype[0] == "i":
            exact = int(converted) == value  # exact: a Python int against a float
        else:
            exact = float(converted) == value
        given = np.array([value], np.float64)
        if not exact:
            with pytest.raises(RunError, match="cannot hold exactly"):
                exact_value(given, type, "input 'x'")
            continue
        assert _bits(exact_value(given, type, "input 'x'")) == _bits(converted.reshape(1))


def test_zero_and_minus_zero_are_two_ops() -> None:
    """Op equality (and the caches keyed by it) sees a float's bits: `full` of -0.0 after one
    of 0.0 made 0.0 again (found by the f16 case above)."""
    from tilefoundry.ops.tensor import Full

    plus, minus = (
        Full(shape=(1,), value=0.0, dtype="f32"),
        Full(shape=(1,), value=-0.0, dtype="f32"),
    )
    assert plus != minus and plus == Full(shape=(1,), value=0.0, dtype="f32")
    assert np.signbit(minus.reference()[0]) and not np.signbit(plus.reference()[0])
