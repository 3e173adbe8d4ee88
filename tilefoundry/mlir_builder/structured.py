"""Tensor-level building blocks over `linalg.generic` and `tensor`: elementwise ops with numpy
broadcasting, element conversion, transposes, reshapes, slices.

```python
y = elementwise(b, [x, g], [x_type, g_type], result, lambda s: [b.op(...)])
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.mlir_builder.builder import MlirBuilder, MValue, affine_map, identity_map
from tilefoundry.mlir_builder.types import tensor_type

__all__ = [
    "broadcast_map",
    "convert_tensor",
    "elementwise",
    "extract_slice",
    "insert_slice",
    "materialized",
    "reshape",
    "tensor_cast",
    "transpose",
]

Dim = int | DimVar


def broadcast_map(shape: Sequence[Dim], result: Sequence[Dim]) -> str:
    """The indexing map reading an operand of `shape` at an index of the broadcast `result`
    (numpy: right-aligned; a size-1 dim that broadcasts reads index 0)."""
    lead = len(result) - len(shape)
    exprs = []
    for index, size in enumerate(shape):
        j = index + lead
        exprs.append("0" if size == 1 and result[j] != 1 else f"d{j}")
    return affine_map(len(result), exprs)


def elementwise(
    b: MlirBuilder,
    args: Sequence[MValue],
    arg_types: Sequence[TensorType],
    result: TensorType,
    body: Callable[[list[MValue]], MValue],
    dtype: str | None = None,
) -> MValue:
    """A `linalg.generic` over the broadcast `result` shape; `body` maps the operands' elements
    (their storage types) to the result's element (of `dtype`, the result's by default)."""
    out = b.empty(result, dtype)
    rank = len(result.shape)
    ins = [(v, broadcast_map(t.shape, result.shape)) for v, t in zip(args, arg_types, strict=True)]
    (value,) = b.generic(
        ins, [(out, identity_map(rank))], ["parallel"] * rank, lambda s: [body(s[: len(args)])]
    )
    return value


def convert_tensor(
    b: MlirBuilder, x: MValue, type: TensorType, dtype: str, scalar: Callable[[MValue], MValue]
) -> MValue:
    """Each element of `x` mapped by `scalar` into a tensor of `dtype`."""
    return elementwise(b, [x], [type], type, lambda s: scalar(s[0]), dtype=dtype)


def transpose(b: MlirBuilder, x: MValue, type: TensorType, perm: Sequence[int]) -> MValue:
    """Result dim `i` is input dim `perm[i]`. One of rank 2 to 4 (but of i1) is tagged
    `tf_schedule = "transpose<rank>"`: the native backend moves it in 16 x 16 vector tiles
    (`backends/native/schedule.py`)."""
    result = TensorType(tuple(type.shape[p] for p in perm), type.dtype)
    inverse = [perm.index(j) for j in range(len(perm))]
    rank = len(perm)
    out = b.empty(result)
    tagged = 2 <= rank <= 4 and type.dtype != "i1"
    (value,) = b.generic(
        [(x, affine_map(rank, [f"d{i}" for i in inverse]))],
        [(out, identity_map(rank))],
        ["parallel"] * rank,
        lambda s: [s[0]],
        attributes=[("tf_schedule", f'"transpose{rank}"')] if tagged else [],
    )
    return value


def reshape(b: MlirBuilder, x: MValue, source: TensorType, result: TensorType) -> MValue:
    """The same elements in row-major order under `result`'s shape (`tensor.reshape` with a
    shape operand; a rank-0 side through `collapse_shape` / `expand_shape`)."""
    text = tensor_type(result)
    if source.shape == result.shape:
        return x
    if not result.shape:
        return _renamed(b, x, b.op(f"tensor.collapse_shape {x} [] : {x.type} into {text}", text))
    if not source.shape:
        # a rank-0 tensor holds one element: every dim of the result is 1
        ones = ", ".join("1" for _ in result.shape)
        expanded = b.op(
            f"tensor.expand_shape {x} [] output_shape [{ones}] : {x.type} into {text}", text
        )
        return _renamed(b, x, expanded)
    sizes = [b.dim(d) for d in result.shape]
    shape_type = f"tensor<{len(sizes)}xindex>"
    shape = b.op(f"tensor.from_elements {', '.join(map(str, sizes))} : {shape_type}", shape_type)
    return b.op(f"tensor.reshape {x}({shape}) : ({x.type}, {shape_type}) -> {text}", text)


def _slice_parts(b: MlirBuilder, offsets: Sequence[MValue | int], sizes: Sequence[MValue | int],
                 strides: Sequence[int]) -> str:  # fmt: skip
    def item(v: MValue | int) -> str:
        return str(v) if isinstance(v, int) else v.name

    return (
        f"[{', '.join(map(item, offsets))}] [{', '.join(map(item, sizes))}] "
        f"[{', '.join(map(str, strides))}]"
    )


def _static_or_value(b: MlirBuilder, dim: Dim) -> MValue | int:
    return dim if isinstance(dim, int) else b.dim(dim)


def extract_slice(
    b: MlirBuilder,
    x: MValue,
    offsets: Sequence[MValue | int],
    result: TensorType,
    strides: Sequence[int] | None = None,
) -> MValue:
    """`tensor.extract_slice` of `x` at `offsets` with `result`'s sizes (and `strides`)."""
    sizes = [_static_or_value(b, d) for d in result.shape]
    steps = strides if strides is not None else [1] * len(sizes)
    text = tensor_type(result)
    value = b.op(
        f"tensor.extract_slice {x}{_slice_parts(b, offsets, sizes, steps)} : {x.type} to {text}",
        text,
    )
    b.views.add(value.name)
    return value


def insert_slice(
    b: MlirBuilder,
    part: MValue,
    part_type: TensorType,
    into: MValue,
    offsets: Sequence[MValue | int],
) -> MValue:
    """`tensor.insert_slice` of `part` into `into` at `offsets`."""
    sizes = [_static_or_value(b, d) for d in part_type.shape]
    parts = _slice_parts(b, offsets, sizes, [1] * len(sizes))
    return b.op(
        f"tensor.insert_slice {part} into {into}{parts} : {part.type} into {into.type}", into.type
    )


def tensor_cast(b: MlirBuilder, x: MValue, type: str) -> MValue:
    """`x` as another, compatible tensor (or memref) type (a static dim for a `?` one)."""
    if x.type == type:
        return x
    op = "memref.cast" if type.startswith("memref") else "tensor.cast"
    return _renamed(b, x, b.op(f"{op} {x} : {x.type} to {type}", type))


def _renamed(b: MlirBuilder, x: MValue, y: MValue) -> MValue:
    """`y`, the buffer of `x` under another type: a view when `x` is one."""
    if x.name in b.views:
        b.views.add(y.name)
    return y


def materialized(b: MlirBuilder, x: MValue) -> MValue:
    """`x` in a buffer of its own when it may be a view (`MlirBuilder.views`): what a
    `func.call` takes (`bufferization.alloc_tensor() copy(...)`), else `x`. By value (IREE)
    always `x`: no bufferization here, IREE's own handles a view."""
    if x.name not in b.views or b.by_value:
        return x
    return b.op(f"bufferization.alloc_tensor() copy({x}) : {x.type}", x.type)
