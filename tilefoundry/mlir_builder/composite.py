"""Tensor computations several emission rules share, each in the interpreter's order of
operations: matmul, numpy's sum along an axis of a C-contiguous array (`np.mean`, the sum of
`softmax`), index bounds checks, zero and lowest values.

`layout_sum` is numpy's: pairwise (`reductions.pairwise_sum`) when every dim after the axis is
1 (the axis is then the contiguous one), else one element after the other from 0 (decided at run
time when a dim after the axis is a DimVar). An f16 sum rounds as numpy's float16 loops do: once
for a pairwise row (it accumulates in f32), at every step otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.mlir_builder.builder import MlirBuilder, MValue, affine_map, identity_map
from tilefoundry.mlir_builder.reductions import pairwise_sum, reduced, sequential_sum
from tilefoundry.mlir_builder.scalar import float_literal, narrow, widen
from tilefoundry.mlir_builder.structured import broadcast_map, convert_tensor
from tilefoundry.mlir_builder.types import compute_type, is_float, tensor_type

__all__ = [
    "first_out_of_range",
    "layout_sum",
    "lowest",
    "matmul",
    "rounder",
    "widened_tensor",
    "zero",
]


def zero(b: MlirBuilder, dtype: str) -> MValue:
    """The scalar 0 (`false`, `0.0`) of a dtype's storage type."""
    if is_float(dtype):
        return b.float_constant(0, dtype)
    return b.int_constant(0, dtype)


def lowest(b: MlirBuilder, dtype: str) -> MValue:
    """The identity of a maximum: -inf for a float, the smallest integer, `false`."""
    if is_float(dtype):
        bits = {"f16": 0xFC00, "bf16": 0xFF80, "f32": 0xFF800000, "f64": 0xFFF0000000000000}
        return b.float_constant(bits[dtype], dtype)
    if dtype == "i1":
        return b.int_constant(0, "i1")
    width = int(dtype[1:])
    return b.int_constant(-(1 << (width - 1)), dtype)


def rounder(b: MlirBuilder, dtype: str) -> Callable[[MValue], MValue]:
    """What numpy's per-op rounding does to a value computed in f32 for an f16 array (rounded to
    f16 and held in f32 again); nothing for any other dtype (bf16 is held in f32 by the
    interpreter, so its steps are f32's and only the op's result is rounded)."""
    if dtype != "f16":
        return lambda v: v
    return lambda v: widen(b, narrow(b, v, "f16"), "f16")


def widened_tensor(b: MlirBuilder, x: MValue, type: TensorType) -> tuple[MValue, TensorType]:
    """A float tensor in its compute type (f16 / bf16 as f32, exactly)."""
    wide = compute_type(type.dtype)
    if wide == type.dtype:
        return x, type
    return convert_tensor(b, x, type, wide, lambda s: widen(b, s, type.dtype)), TensorType(
        type.shape, wide
    )


def layout_sum(b: MlirBuilder, x: MValue, type: TensorType, axis: int, dtype: str) -> MValue:
    """numpy's `np.sum(x, axis, keepdims=True)` of a C-contiguous array (see the module
    docstring): `x` holds values of `dtype` in its compute type (`type.dtype`); the result is
    a compute-type tensor, rounded to `dtype` as numpy's loops round."""
    after = type.shape[axis + 1 :]
    step = rounder(b, dtype)
    element = type.dtype

    def pairwise() -> list[MValue]:
        total = pairwise_sum(b, x, type, axis, True)
        if dtype != "f16":
            return [total]
        kept = reduced(type, axis, True)
        return [convert_tensor(b, total, kept, element, step)]

    def sequential() -> list[MValue]:
        def add(acc: MValue, v: MValue) -> MValue:
            return step(b.op(f"arith.addf {acc}, {v} : {element}", element))

        return [
            sequential_sum(b, x, type, axis, True, element, add, float_literal(b, 0.0, element))
        ]

    dynamic = [d for d in after if isinstance(d, DimVar)]
    static = 1
    for d in after:
        if isinstance(d, int):
            static *= d
    if static != 1 and (static == 0 or not dynamic):
        return sequential()[0]
    if not dynamic:
        return pairwise()[0]
    count = b.index(static)
    for d in dynamic:
        count = b.op(f"arith.muli {count}, {b.dim(d)} : index", "index")
    one = b.op(f"arith.cmpi eq, {count}, {b.index(1)} : index", "i1")
    (total,) = b.if_(one, [tensor_type(reduced(type, axis, True))], pairwise, sequential)
    return total


def matmul(
    b: MlirBuilder,
    lhs: MValue,
    rhs: MValue,
    lhs_type: TensorType,
    rhs_type: TensorType,
    result: TensorType,
) -> MValue:
    """`[..., M, K] x [..., K, N]`, batch dims broadcast; the k loop innermost and in order,
    accumulating in the compute type (an f16 / bf16 product rounded once); i1: an or of ands.
    The generic (but an i1 one) is tagged `tf_schedule = "matmul<number of batch dims>"`: the
    native backend's schedule tiles and vectorizes it (`backends/native/schedule.py`)."""
    dtype = result.dtype
    batch = result.shape[:-2]
    nb = len(batch)
    rank = nb + 3  # batch..., m, n, k
    m, n, k = f"d{nb}", f"d{nb + 1}", f"d{nb + 2}"

    def operand_map(shape: Sequence[int | DimVar], inner: list[str]) -> str:
        own = shape[:-2]
        lead = nb - len(own)
        exprs = [
            "0" if s == 1 and batch[i + lead] != 1 else f"d{i + lead}" for i, s in enumerate(own)
        ]
        return affine_map(rank, exprs + inner)

    acc_dtype = compute_type(dtype)
    out = b.fill(zero(b, acc_dtype), b.empty(result, acc_dtype))

    def body(s: list[MValue]) -> list[MValue]:
        a, c, acc = s
        if dtype == "i1":
            both = b.op(f"arith.andi {a}, {c} : i1", "i1")
            return [b.op(f"arith.ori {acc}, {both} : i1", "i1")]
        if is_float(dtype):
            product = b.op(
                f"arith.mulf {widen(b, a, dtype)}, {widen(b, c, dtype)} : {acc_dtype}", acc_dtype
            )
            return [b.op(f"arith.addf {acc}, {product} : {acc_dtype}", acc_dtype)]
        product = b.op(f"arith.muli {a}, {c} : {dtype}", dtype)
        return [b.op(f"arith.addi {acc}, {product} : {dtype}", dtype)]

    (value,) = b.generic(
        [(lhs, operand_map(lhs_type.shape, [m, k])), (rhs, operand_map(rhs_type.shape, [k, n]))],
        [(out, affine_map(rank, [f"d{i}" for i in range(nb)] + [m, n]))],
        ["parallel"] * (nb + 2) + ["reduction"],
        body,
        # i1 is not vectorized: a vector of i1 in memory is packed bits, a memref of i1 bytes
        attributes=[] if dtype == "i1" else [("tf_schedule", f'"matmul{nb}"')],
    )
    if acc_dtype == dtype:
        return value
    return convert_tensor(
        b, value, TensorType(result.shape, acc_dtype), dtype, lambda v: narrow(b, v, dtype)
    )


def first_out_of_range(
    b: MlirBuilder, index: MValue, type: TensorType, size: MValue
) -> tuple[MValue, MValue]:
    """Whether an integer tensor holds an index outside `[-size, size)`, and the first such (in
    C order) as i64."""
    rank = len(type.shape)
    found = b.fill(b.int_constant(0, "i1"), b.op("tensor.empty() : tensor<i1>", "tensor<i1>"))
    first = b.fill(b.int_constant(0, "i64"), b.op("tensor.empty() : tensor<i64>", "tensor<i64>"))
    size64 = b.op(f"arith.index_cast {size} : index to i64", "i64")

    def body(s: list[MValue]) -> list[MValue]:
        value, seen, kept = s
        wide = as_i64(b, value, type.dtype)
        negative_size = b.op(f"arith.subi {b.int_constant(0, 'i64')}, {size64} : i64", "i64")
        below = b.op(f"arith.cmpi slt, {wide}, {negative_size} : i64", "i1")
        above = b.op(f"arith.cmpi sge, {wide}, {size64} : i64", "i1")
        bad = b.op(f"arith.ori {below}, {above} : i1", "i1")
        fresh = b.op(f"arith.xori {seen}, {b.int_constant(1, 'i1')} : i1", "i1")
        take = b.op(f"arith.andi {bad}, {fresh} : i1", "i1")
        now = b.op(f"arith.ori {seen}, {bad} : i1", "i1")
        return [now, b.op(f"arith.select {take}, {wide}, {kept} : i64", "i64")]

    seen, value = b.generic(
        [(index, identity_map(rank))],
        [(found, affine_map(rank, [])), (first, affine_map(rank, []))],
        ["reduction"] * rank,
        body,
    )
    return (
        b.op(f"tensor.extract {seen}[] : tensor<i1>", "i1"),
        b.op(f"tensor.extract {value}[] : tensor<i64>", "i64"),
    )


def as_i64(b: MlirBuilder, value: MValue, dtype: str) -> MValue:
    if dtype == "i64":
        return value
    return b.op(f"arith.extsi {value} : {dtype} to i64", "i64")


def checked_position(b: MlirBuilder, value: MValue, dtype: str, size: MValue) -> MValue:
    """An index value as a position in a dim of `size`: a negative one counts from the end; one
    out of range (recorded as an error already) is clamped, so the read stays inside."""
    wide = as_i64(b, value, dtype)
    size64 = b.op(f"arith.index_cast {size} : index to i64", "i64")
    zero64 = b.int_constant(0, "i64")
    negative = b.op(f"arith.cmpi slt, {wide}, {zero64} : i64", "i1")
    shifted = b.op(f"arith.addi {wide}, {size64} : i64", "i64")
    position = b.op(f"arith.select {negative}, {shifted}, {wide} : i64", "i64")
    last = b.op(f"arith.subi {size64}, {b.int_constant(1, 'i64')} : i64", "i64")
    below = b.op(f"arith.maxsi {position}, {zero64} : i64", "i64")
    inside = b.op(f"arith.minsi {below}, {last} : i64", "i64")
    clamped = b.op(f"arith.maxsi {inside}, {zero64} : i64", "i64")
    return b.op(f"arith.index_cast {clamped} : i64 to index", "index")


__all__ += ["as_i64", "broadcast_map", "checked_position"]
