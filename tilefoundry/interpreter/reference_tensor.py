"""numpy reference semantics of `tilefoundry.ops.tensor` and `tilefoundry.ops.nn` (registered
into `REFERENCE` when `tilefoundry.interpreter.reference` is imported)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilefoundry.dialects.dense import numpy_dtype
from tilefoundry.interpreter.registry import ExecutionError, reference
from tilefoundry.ops.nn import (
    Activation,
    ActivationKind,
    Cumsum,
    Logical,
    LogicalKind,
    LogicalNot,
    ReduceMean,
    Softmax,
)
from tilefoundry.ops.tensor import (
    BroadcastTo,
    Concat,
    Full,
    Gather,
    Index,
    Iota,
    Reshape,
    Slice,
    Where,
)

__all__: list[str] = []


@reference(Reshape)
def _reshape(op: Reshape, x: Any) -> Any:
    return np.ascontiguousarray(np.reshape(x, op.shape))


@reference(BroadcastTo)
def _broadcast_to(op: BroadcastTo, x: Any) -> Any:
    lead = len(op.shape) - x.ndim
    shape = [x.shape[i - lead] if s == -1 else s for i, s in enumerate(op.shape)]
    return np.ascontiguousarray(np.broadcast_to(x, shape))


@reference(Concat)
def _concat(op: Concat, parts: tuple[Any, ...]) -> Any:
    return np.concatenate(parts, axis=op.axis)


@reference(Slice)
def _slice(op: Slice, x: Any) -> Any:
    index = [slice(None)] * x.ndim
    index[op.axis] = slice(op.start, op.stop, op.step)
    return np.ascontiguousarray(x[tuple(index)])


def _check_bounds(op: str, index: Any, size: int, axis: int) -> None:
    """An index outside `[-size, size)` is refused (as torch refuses it), naming it."""
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise ExecutionError(
            f"{op}: index {int(bad.flat[0])} is out of range for dim {axis} of size {size}"
        )


@reference(Index)
def _index(op: Index, x: Any, indices: tuple[Any, ...]) -> Any:
    arrays = tuple(np.asarray(i, dtype=np.int64) for i in indices)
    for axis, index in enumerate(arrays):
        _check_bounds(op.op_name, index, x.shape[axis], axis)
    return np.ascontiguousarray(x[arrays])


@reference(Gather)
def _gather(op: Gather, x: Any, index: Any) -> Any:
    axis = op.axis % x.ndim
    _check_bounds(op.op_name, index, x.shape[axis], axis)
    return np.take_along_axis(x, index.astype(np.int64), axis=axis)


@reference(Where)
def _where(op: Where, cond: Any, lhs: Any, rhs: Any) -> Any:
    return np.where(cond, lhs, rhs)


@reference(Iota)
def _iota(op: Iota) -> Any:
    values = op.start + op.step * np.arange(op.size, dtype=np.int64)
    return values.astype(numpy_dtype(op.dtype))


@reference(Full)
def _full(op: Full) -> Any:
    return np.full(op.shape, op.value, dtype=numpy_dtype(op.dtype))


_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _activation(kind: ActivationKind, x: Any) -> Any:
    if kind is ActivationKind.SILU:
        return x / (1 + np.exp(-x))
    if kind is ActivationKind.GELU:
        return 0.5 * x * (1 + _ERF(x.astype(np.float64) / math.sqrt(2.0)))
    if kind is ActivationKind.GELU_TANH:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    if kind is ActivationKind.SIN:
        return np.sin(x)
    if kind is ActivationKind.COS:
        return np.cos(x)
    return _ERF(x.astype(np.float64))


@reference(Activation)
def _activation_ref(op: Activation, x: Any) -> Any:
    return np.asarray(_activation(op.kind, x)).astype(x.dtype, copy=False)


@reference(Softmax)
def _softmax(op: Softmax, x: Any) -> Any:
    shifted = np.exp(x - np.max(x, axis=op.axis, keepdims=True))
    return (shifted / np.sum(shifted, axis=op.axis, keepdims=True)).astype(x.dtype, copy=False)


@reference(ReduceMean)
def _mean(op: ReduceMean, x: Any) -> Any:
    return np.mean(x, axis=op.axis, keepdims=op.keepdims, dtype=x.dtype)


@reference(Cumsum)
def _cumsum(op: Cumsum, x: Any) -> Any:
    return np.cumsum(x, axis=op.axis, dtype=x.dtype)


_LOGICAL = {
    LogicalKind.AND: np.logical_and,
    LogicalKind.OR: np.logical_or,
    LogicalKind.XOR: np.logical_xor,
}


@reference(Logical)
def _logical(op: Logical, lhs: Any, rhs: Any) -> Any:
    return _LOGICAL[op.kind](lhs, rhs)


@reference(LogicalNot)
def _logical_not(op: LogicalNot, x: Any) -> Any:
    return np.logical_not(x)
