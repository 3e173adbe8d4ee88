"""What the ops' `fold` and `flops` hooks share: known literal operands, static sizes."""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from tilefoundry.dialects.tf.dense import uniform_value
from tilefoundry.dialects.tf.ops import constant_value
from tilefoundry.dialects.tf.types import IRType, TensorType

__all__ = ["elements", "is_literal", "is_negative_zero"]


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
