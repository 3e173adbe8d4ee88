"""numpy reference semantics of the op library, by Op class.

`@reference(OpClass)` registers an implementation `impl(op, *arrays) -> array | tuple | None`
(None for an effect-form op, which acts on its arguments in place: a buffer is a writeable
numpy array; a tensor's array is read-only). A library of custom ops registers its own the
same way. bf16 is computed in float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.numerics import cast_array, widened
from tilefoundry.interpreter.registry import REFERENCE, reference
from tilefoundry.ops.linalg import MatMul, Transpose
from tilefoundry.ops.math import Binary, BinaryKind, Cast, Unary, UnaryKind
from tilefoundry.ops.memory import Alloc, Copy, Load
from tilefoundry.ops.reduce import ReduceMax, ReduceSum
from tilefoundry.ops.shapes import normalize_axis
from tilefoundry.ops.structure import Split, TupleGetItem

__all__ = ["REFERENCE", "reference"]


# The numbers follow `tilefoundry.dialects.tf.numerics` (docs/ir.md, "Numeric semantics"): an op
# on f16 or bf16 computes in float32 (`widened`), and `evaluate_op` rounds every result once to
# its dtype (`cast_array`); integers wrap, and the cases numpy leaves undefined or raises on are
# defined here (an integer division by zero is 0, a negative integer power truncates toward zero).


def _divide(a: Any, b: Any) -> Any:
    """Floats divide (IEEE); integers floor-divide, and a division by zero is 0."""
    if a.dtype.kind not in "iub":
        return np.divide(a, b)
    zero = b == 0
    return np.where(zero, 0, np.floor_divide(a, np.where(zero, 1, b)))


def _power(a: Any, b: Any) -> Any:
    """Floats as IEEE `pow`; an integer to a negative power is the exact value truncated toward
    zero (1 for 1, +-1 for -1, else 0, 0 ** -n included)."""
    if a.dtype.kind not in "iu":
        return np.power(a, b)
    a, b = np.broadcast_arrays(a, b)
    negative = b < 0
    powered = np.power(a, np.where(negative, 0, b))
    odd = (b % 2) != 0
    truncated = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, truncated, powered).astype(a.dtype)


_BINARY: dict[BinaryKind, Callable[[Any, Any], Any]] = {
    BinaryKind.ADD: np.add,
    BinaryKind.SUB: np.subtract,
    BinaryKind.MUL: np.multiply,
    BinaryKind.DIV: _divide,
    BinaryKind.MAX: np.maximum,
    BinaryKind.MIN: np.minimum,
    BinaryKind.POW: _power,
    BinaryKind.CMP_EQ: np.equal,
    BinaryKind.CMP_NE: np.not_equal,
    BinaryKind.CMP_LT: np.less,
    BinaryKind.CMP_LE: np.less_equal,
    BinaryKind.CMP_GT: np.greater,
    BinaryKind.CMP_GE: np.greater_equal,
}

_UNARY: dict[UnaryKind, Callable[[Any], Any]] = {
    UnaryKind.NEG: np.negative,
    UnaryKind.EXP: np.exp,
    UnaryKind.LOG: np.log,
    UnaryKind.SQRT: np.sqrt,
    UnaryKind.RSQRT: lambda x: 1 / np.sqrt(x),
    UnaryKind.TANH: np.tanh,
    UnaryKind.ABS: np.abs,
    UnaryKind.SIGMOID: lambda x: 1 / (1 + np.exp(-x)),
    UnaryKind.RELU: lambda x: np.maximum(x, np.zeros((), x.dtype)),
}


@reference(Binary)
def _binary(op: Binary, lhs: Any, rhs: Any) -> Any:
    lhs, rhs = widened(lhs), widened(rhs)
    result = np.asarray(_BINARY[op.kind](lhs, rhs))
    return result if op.kind.is_comparison else result.astype(lhs.dtype, copy=False)


@reference(Unary)
def _unary(op: Unary, x: Any) -> Any:
    x = widened(x)
    return np.asarray(_UNARY[op.kind](x)).astype(x.dtype, copy=False)


@reference(Cast)
def _cast(op: Cast, x: Any) -> Any:
    return cast_array(x, op.dtype)


def _reduce(reduce: Callable[..., Any], x: Any, axis: int, keepdims: bool, **kw: Any) -> Any:
    """`reduce` along `axis`, always over a contiguous last axis: the order in which numpy
    combines the elements (pairwise for a float sum) is then the same for every layout."""
    axis = normalize_axis(axis, x.ndim)
    result = reduce(np.ascontiguousarray(np.moveaxis(x, axis, -1)), axis=-1, **kw)
    return np.expand_dims(result, axis) if keepdims else result


@reference(ReduceSum)
def _reduce_sum(op: ReduceSum, x: Any) -> Any:
    """Accumulates in the dtype's compute type (f16 / bf16 in float32), rounded once."""
    x = widened(x)
    return _reduce(np.sum, x, op.axis, op.keepdims, dtype=x.dtype)


@reference(ReduceMax)
def _reduce_max(op: ReduceMax, x: Any) -> Any:
    """A NaN is the maximum; an empty axis gives the dtype's lowest value (-inf for floats)."""
    if x.dtype.kind == "f":
        lowest: Any = -np.inf
    elif x.dtype.kind == "b":
        lowest = False
    else:
        lowest = np.iinfo(x.dtype).min
    return _reduce(np.max, x, op.axis, op.keepdims, initial=lowest)


@reference(MatMul)
def _matmul(op: MatMul, lhs: Any, rhs: Any) -> Any:
    """Accumulates in the dtype's compute type (f16 / bf16 in float32), rounded once; the
    operands contiguous, so the product does not depend on their layout."""
    return np.matmul(np.ascontiguousarray(widened(lhs)), np.ascontiguousarray(widened(rhs)))


@reference(Transpose)
def _transpose(op: Transpose, x: Any) -> Any:
    return np.ascontiguousarray(np.transpose(x, op.perm))


@reference(TupleGetItem)
def _get_item(op: TupleGetItem, t: tuple[Any, ...]) -> Any:
    return t[op.index]


@reference(Split)
def _split(op: Split, x: Any) -> tuple[Any, ...]:
    return tuple(np.split(x, op.sections, axis=op.axis))


@reference(Copy)
def _copy(op: Copy, dst: Any, src: Any) -> None:
    np.copyto(dst, src)


@reference(Load)
def _load(op: Load, buffer: Any) -> Any:
    return np.array(buffer, copy=True)  # a snapshot: later writes to the buffer do not show


@reference(Alloc)
def _alloc(op: Alloc, *args: Any) -> Any:
    return np.zeros(op.shape, numpy_dtype(op.dtype))


# The tensor and nn ops register theirs in their own file (imported last: it uses `reference`).
import tilefoundry.interpreter.reference_tensor  # noqa: E402, F401
