"""numpy reference semantics of `tilefoundry.ops.tensor` and `tilefoundry.ops.nn` (registered
into `REFERENCE` when `tilefoundry.interpreter.reference` is imported)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.interpreter.registry import ExecutionError, reference
from tilefoundry.ops import nn, tensor

__all__: list[str] = []


@reference(tensor.Reshape)
def _reshape(op: tensor.Reshape, x: Any) -> Any:
    return np.ascontiguousarray(np.reshape(x, op.shape))


@reference(tensor.BroadcastTo)
def _broadcast_to(op: tensor.BroadcastTo, x: Any) -> Any:
    lead = len(op.shape) - x.ndim
    shape = [x.shape[i - lead] if s == -1 else s for i, s in enumerate(op.shape)]
    return np.ascontiguousarray(np.broadcast_to(x, shape))


@reference(tensor.Concat)
def _concat(op: tensor.Concat, parts: tuple[Any, ...]) -> Any:
    return np.concatenate(parts, axis=op.axis)


@reference(tensor.Slice)
def _slice(op: tensor.Slice, x: Any) -> Any:
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


@reference(tensor.Index)
def _index(op: tensor.Index, x: Any, indices: tuple[Any, ...]) -> Any:
    arrays = tuple(np.asarray(i, dtype=np.int64) for i in indices)
    for axis, index in enumerate(arrays):
        _check_bounds(op.op_name, index, x.shape[axis], axis)
    return np.ascontiguousarray(x[arrays])


@reference(tensor.Gather)
def _gather(op: tensor.Gather, x: Any, index: Any) -> Any:
    axis = op.axis % x.ndim
    _check_bounds(op.op_name, index, x.shape[axis], axis)
    return np.take_along_axis(x, index.astype(np.int64), axis=axis)


@reference(tensor.Where)
def _where(op: tensor.Where, cond: Any, lhs: Any, rhs: Any) -> Any:
    return np.where(cond, lhs, rhs)


@reference(tensor.Iota)
def _iota(op: tensor.Iota) -> Any:
    values = op.start + op.step * np.arange(op.size, dtype=np.int64)
    return values.astype(numpy_dtype(op.dtype))


@reference(tensor.Full)
def _full(op: tensor.Full) -> Any:
    return np.full(op.shape, op.value, dtype=numpy_dtype(op.dtype))


_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _activation(kind: nn.ActivationKind, x: Any) -> Any:
    if kind is nn.ActivationKind.SILU:
        return x / (1 + np.exp(-x))
    if kind is nn.ActivationKind.GELU:
        return 0.5 * x * (1 + _ERF(x.astype(np.float64) / math.sqrt(2.0)))
    if kind is nn.ActivationKind.GELU_TANH:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    if kind is nn.ActivationKind.SIN:
        return np.sin(x)
    if kind is nn.ActivationKind.COS:
        return np.cos(x)
    return _ERF(x.astype(np.float64))


@reference(nn.Activation)
def _activation_ref(op: nn.Activation, x: Any) -> Any:
    return np.asarray(_activation(op.kind, x)).astype(x.dtype, copy=False)


@reference(nn.Softmax)
def _softmax(op: nn.Softmax, x: Any) -> Any:
    shifted = np.exp(x - np.max(x, axis=op.axis, keepdims=True))
    return (shifted / np.sum(shifted, axis=op.axis, keepdims=True)).astype(x.dtype, copy=False)


@reference(nn.ReduceMean)
def _mean(op: nn.ReduceMean, x: Any) -> Any:
    return np.mean(x, axis=op.axis, keepdims=op.keepdims, dtype=x.dtype)


@reference(nn.Cumsum)
def _cumsum(op: nn.Cumsum, x: Any) -> Any:
    return np.cumsum(x, axis=op.axis, dtype=x.dtype)


_LOGICAL = {
    nn.LogicalKind.AND: np.logical_and,
    nn.LogicalKind.OR: np.logical_or,
    nn.LogicalKind.XOR: np.logical_xor,
}


@reference(nn.Logical)
def _logical(op: nn.Logical, lhs: Any, rhs: Any) -> Any:
    return _LOGICAL[op.kind](lhs, rhs)


@reference(nn.LogicalNot)
def _logical_not(op: nn.LogicalNot, x: Any) -> Any:
    return np.logical_not(x)
