"""Shape and dtype rules shared by the op library: broadcasting, axis normalization, and the
construction check of a `dtype` attribute (`DtypeOp`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from tilefoundry.builtin.types import DTYPES, DimVar, IRType, TensorType
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.support.arguments import shown

__all__ = ["DtypeOp", "broadcast_shapes", "normalize_axis", "same_dtype", "tensor_args"]

Dim = int | DimVar


def broadcast_shapes(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> tuple[Dim, ...]:
    """numpy broadcasting, right-aligned; a DimVar broadcasts only with itself or with 1."""
    rank = max(len(lhs), len(rhs))
    left = (1,) * (rank - len(lhs)) + tuple(lhs)
    right = (1,) * (rank - len(rhs)) + tuple(rhs)
    result: list[Dim] = []
    for index, (a, b) in enumerate(zip(left, right, strict=True)):
        if a == b or b == 1:
            result.append(a)
        elif a == 1:
            result.append(b)
        else:
            raise ValueError(
                f"shapes {_shape_text(lhs)} and {_shape_text(rhs)} do not broadcast "
                f"(dim {index - rank}: {_dim_text(a)} vs {_dim_text(b)})"
            )
    return tuple(result)


def _dim_text(dim: Dim) -> str:
    return dim.name if isinstance(dim, DimVar) else str(dim)


def _shape_text(shape: Sequence[Dim]) -> str:
    return "[" + ", ".join(_dim_text(d) for d in shape) + "]"


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def same_dtype(lhs: TensorType, rhs: TensorType) -> str:
    if lhs.dtype != rhs.dtype:
        raise ValueError(f"operand dtypes differ: {lhs.dtype} and {rhs.dtype}")
    return lhs.dtype


def tensor_args(arg_types: Sequence[IRType]) -> list[TensorType]:
    """The argument types of an op whose inputs all take the `Tensor` pattern (resolution
    matched them before `infer_type` is asked), typed as such."""
    assert all(isinstance(t, TensorType) for t in arg_types)
    return cast(list[TensorType], list(arg_types))


class DtypeOp(Op):
    """An op with a `dtype` attribute (a `ParamDef` of its own), which construction refuses
    unless it is one of the IR's dtypes."""

    def __init__(self, **attrs: object) -> None:
        super().__init__(**attrs)
        dtype = self.attrs["dtype"]
        if dtype not in DTYPES:
            raise TypeError(
                f"{type(self).__name__}: unknown dtype {shown(dtype)}; expected one of "
                f"{', '.join(DTYPES)}"
            )
