"""numpy reference semantics of the op library, by Op class.

`@reference(OpClass)` registers an implementation `impl(op, *arrays) -> array | tuple | None`
(None for an effect-form op, which acts on its arguments in place). A library of custom ops
registers its own the same way. bf16 is computed in float32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tilefoundry.dialects.dense import numpy_dtype
from tilefoundry.ir.op_registry import Op
from tilefoundry.ops.linalg import MatMul, Transpose
from tilefoundry.ops.math import Binary, BinaryKind, Cast, Unary, UnaryKind
from tilefoundry.ops.memory import Copy
from tilefoundry.ops.reduce import ReduceMax, ReduceSum
from tilefoundry.ops.structure import Split, TupleGetItem

__all__ = ["REFERENCE", "reference"]

Impl = Callable[..., Any]
REFERENCE: dict[type[Op], Impl] = {}


def reference(op_class: type[Op]) -> Callable[[Impl], Impl]:
    def register(impl: Impl) -> Impl:
        REFERENCE[op_class] = impl
        return impl

    return register


_BINARY: dict[BinaryKind, Callable[[Any, Any], Any]] = {
    BinaryKind.ADD: np.add,
    BinaryKind.SUB: np.subtract,
    BinaryKind.MUL: np.multiply,
    BinaryKind.DIV: lambda a, b: np.floor_divide(a, b) if a.dtype.kind in "iu" else np.divide(a, b),
    BinaryKind.MAX: np.maximum,
    BinaryKind.MIN: np.minimum,
    BinaryKind.POW: np.power,
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
    result = _BINARY[op.kind](lhs, rhs)
    return result if op.kind.is_comparison else result.astype(lhs.dtype, copy=False)


@reference(Unary)
def _unary(op: Unary, x: Any) -> Any:
    return np.asarray(_UNARY[op.kind](x)).astype(x.dtype, copy=False)


@reference(Cast)
def _cast(op: Cast, x: Any) -> Any:
    return x.astype(numpy_dtype(op.dtype))


@reference(ReduceSum)
def _reduce_sum(op: ReduceSum, x: Any) -> Any:
    return np.sum(x, axis=op.axis, keepdims=op.keepdims, dtype=x.dtype)


@reference(ReduceMax)
def _reduce_max(op: ReduceMax, x: Any) -> Any:
    return np.max(x, axis=op.axis, keepdims=op.keepdims)


@reference(MatMul)
def _matmul(op: MatMul, lhs: Any, rhs: Any) -> Any:
    return np.matmul(lhs, rhs)


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


# The tensor and nn ops register theirs in their own file (imported last: it uses `reference`).
import tilefoundry.interpreter.reference_tensor  # noqa: E402, F401
