"""What the ops' `fold`, `flops` and `exact_integers` hooks share: known literal operands, static
sizes, and the comparison of an integer result with its exact value (unbounded Python
integers)."""

from __future__ import annotations

import math
from typing import Any

from xdsl.ir import SSAValue

from tilefoundry.builtin.types import IRType, TensorType
from tilefoundry.dialects.tf.dense import uniform_value
from tilefoundry.dialects.tf.numerics import int_range
from tilefoundry.dialects.tf.ops import constant_value

__all__ = ["elements", "is_literal", "is_negative_zero", "same_exact", "unbounded"]


def is_literal(value: SSAValue, expected: float) -> bool:
    """Whether every element of the value is known to be `expected` (compared as numbers;
    `0.0` and `-0.0` are told apart, as an identity must)."""
    constant = constant_value(value)
    found = None if constant is None else uniform_value(constant)
    if found is None or found != expected:
        return False
    return is_negative_zero(found) == is_negative_zero(expected)


def is_negative_zero(value: float) -> bool:
    return value == 0 and math.copysign(1.0, value) < 0


def elements(type: IRType) -> int:
    """The number of elements of a static tensor type (0 for anything else)."""
    if not isinstance(type, TensorType):
        return 0
    return math.prod(d for d in type.shape if isinstance(d, int))


def unbounded(array: Any) -> Any:
    """An integer array as an object array of unbounded Python integers."""
    return array.astype(object)


def _dtype_name(value: Any) -> str:
    return "i1" if value.dtype.kind == "b" else f"i{value.dtype.itemsize * 8}"


def _is_int(v: object) -> bool:
    import numpy as np

    return isinstance(v, int | np.integer | np.bool_)


def same_exact(exact: Any, value: Any) -> bool:
    """Whether unbounded integers `exact` lie in `value`'s range and equal it."""
    import numpy as np

    exact = np.asarray(exact, dtype=object)
    if exact.shape != value.shape or not all(_is_int(v) for v in exact.reshape(-1)):
        return False
    lo, hi = int_range(_dtype_name(value))
    flat = exact.reshape(-1)
    if flat.size and not (lo <= min(flat) and max(flat) <= hi):
        return False
    return bool(np.array_equal(exact.astype(np.int64), value.astype(np.int64)))
