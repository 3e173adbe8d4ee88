"""Spelling TileFoundry types in upstream MLIR.

A dtype is its own MLIR element type (`i1`, `i8` ... `i64`, `f16`, `bf16`, `f32`, `f64`); a
tensor is a builtin `tensor` (a `DimVar` dim is `?`), a buffer a `memref` with the identity
layout, and a tuple has no MLIR type: its leaves are separate values (`leaves`).

```python
tensor_type(TensorType((DimVar("n", 1, 9), 8), "bf16"))   # 'tensor<?x8xbf16>'
memref_type(BufferType((4,), "f32"))                     # 'memref<4xf32>'
```
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefoundry.builtin.types import BufferType, DimVar, IRType, TensorType, TupleType

__all__ = [
    "FLOAT_DTYPES",
    "INT_DTYPES",
    "compute_type",
    "dims_text",
    "element_type",
    "is_float",
    "leaves",
    "memref_type",
    "shaped_type",
    "tensor_type",
    "width",
]

FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")
INT_DTYPES = ("i8", "i16", "i32", "i64")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def width(dtype: str) -> int:
    """The bit width of a dtype (`bf16` 16, `i1` 1)."""
    return int(dtype.removeprefix("b")[1:])


def element_type(dtype: str) -> str:
    """The MLIR element type of a dtype: its own name."""
    return dtype


def compute_type(dtype: str) -> str:
    """The type an op on `dtype` computes in: f32 for f16 and bf16 (rounded once per op, as
    the interpreter does), the element type otherwise."""
    return "f32" if dtype in ("f16", "bf16") else dtype


def dims_text(shape: Sequence[int | DimVar]) -> str:
    return "".join(("?" if isinstance(d, DimVar) else str(d)) + "x" for d in shape)


def tensor_type(type: TensorType) -> str:
    return f"tensor<{dims_text(type.shape)}{type.dtype}>"


def memref_type(type: TensorType | BufferType) -> str:
    return f"memref<{dims_text(type.shape)}{type.dtype}>"


def shaped_type(type: IRType) -> str:
    """A tensor's `tensor`, a buffer's `memref`."""
    if isinstance(type, BufferType):
        return memref_type(type)
    assert isinstance(type, TensorType), f"no single MLIR type for {type}"
    return tensor_type(type)


def leaves(type: IRType) -> list[TensorType | BufferType]:
    """The tensors and buffers of a type, a tuple's in order (nested tuples flattened)."""
    if isinstance(type, TupleType):
        return [leaf for field in type.fields for leaf in leaves(field)]
    if isinstance(type, TensorType | BufferType):
        return [type]
    return []
