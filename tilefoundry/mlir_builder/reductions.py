"""Reductions and scans along one axis, in the orders numpy uses (so a float result has the
interpreter's bits):

- `fold`: a `linalg.generic` reduction, the axis walked in increasing order (integers, bools,
  and max / min, whose order only decides which of `-0.0` / `0.0` or which NaN comes out);
- `pairwise_sum`: numpy's pairwise summation of a contiguous row (`np.sum` along the last axis:
  blocks of up to 128 elements summed with eight accumulators, longer rows split in two at a
  multiple of 8), through helper functions, one per recursion depth;
- `sequential_sum`: `0 + x[0] + x[1] + ...` in the accumulator's type, what numpy does along an
  axis that is not the innermost one of a C-contiguous array;
- `scan`: a running fold (`np.cumsum`: the first element, then each next one added).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.mlir_builder.builder import MlirBuilder, MValue, affine_map, identity_map
from tilefoundry.mlir_builder.scalar import float_literal
from tilefoundry.mlir_builder.structured import (
    elementwise,
    extract_slice,
    insert_slice,
    reshape,
    transpose,
)
from tilefoundry.mlir_builder.types import tensor_type

__all__ = ["fold", "pairwise_sum", "reduced", "scan", "sequential_sum"]

Dim = int | DimVar

PAIRWISE_BLOCK = 128
"""numpy's `PW_BLOCKSIZE`: rows up to this length are summed without splitting."""


def reduced(type: TensorType, axis: int, keepdims: bool, dtype: str | None = None) -> TensorType:
    """The type of a reduction of `type` along `axis`."""
    kept: tuple[Dim, ...] = (1,) if keepdims else ()
    shape = (*type.shape[:axis], *kept, *type.shape[axis + 1 :])
    return TensorType(shape, dtype or type.dtype)


def fold(
    b: MlirBuilder,
    x: MValue,
    type: TensorType,
    axis: int,
    keepdims: bool,
    init: MValue,
    combine: Callable[[MValue, MValue], MValue],
    dtype: str,
) -> MValue:
    """`acc = combine(acc, x_i)` from `init` along `axis`, in increasing order; the result has
    `dtype` elements. A fold of rank >= 2 (but of i1) is tagged `tf_schedule =
    "fold<rank>_<axis>"`: the native backend's schedule runs it on vectors across a kept dim,
    the axis still walked in order (`backends/native/schedule.py`)."""
    rank = len(type.shape)
    result = reduced(type, axis, False, dtype)
    out = b.fill(init, b.empty(result))
    exprs = [f"d{i}" for i in range(rank) if i != axis]
    iterators = ["reduction" if i == axis else "parallel" for i in range(rank)]
    vectorized = rank >= 2 and type.dtype != "i1" and dtype != "i1"
    (value,) = b.generic(
        [(x, identity_map(rank))],
        [(out, affine_map(rank, exprs))],
        iterators,
        lambda s: [combine(s[1], s[0])],
        attributes=[("tf_schedule", f'"fold{rank}_{axis}"')] if vectorized else [],
    )
    # the kept dim by a reshape (a constant index in the output's map stalls the schedule)
    return reshape(b, value, result, reduced(type, axis, True, dtype)) if keepdims else value


def _count(b: MlirBuilder, dims: Sequence[Dim]) -> MValue:
    """The product of sizes, as an index value."""
    if all(isinstance(d, int) for d in dims):
        total = 1
        for d in dims:
            assert isinstance(d, int)
            total *= d
        return b.index(total)
    value = b.index(1)
    for d in dims:
        value = b.op(f"arith.muli {value}, {b.dim(d)} : index", "index")
    return value


def _depth(n: int) -> int:
    """How many times numpy's pairwise sum splits a row of `n` elements, at most."""
    if n <= PAIRWISE_BLOCK:
        return 0
    half = n // 2
    half -= half % 8
    return 1 + max(_depth(half), _depth(n - half))


def pairwise_sum(b: MlirBuilder, x: MValue, type: TensorType, axis: int, keepdims: bool) -> MValue:
    """numpy's pairwise sum along `axis` (of f32 or f64 elements: `type.dtype`), as `np.sum`
    adds a contiguous last axis: the axis is moved last first (see the module docstring)."""
    rank = len(type.shape)
    element = type.dtype
    if axis != rank - 1:
        perm = [i for i in range(rank) if i != axis] + [axis]
        x = transpose(b, x, type, perm)
    others = [d for i, d in enumerate(type.shape) if i != axis]
    size = type.shape[axis]
    rows = _count(b, others)
    length = b.dim(size)
    matrix = f"tensor<?x?x{element}>"
    shape = b.op(f"tensor.from_elements {rows}, {length} : tensor<2xindex>", "tensor<2xindex>")
    flat = b.op(f"tensor.reshape {x}({shape}) : ({x.type}, tensor<2xindex>) -> {matrix}", matrix)
    longest = size if isinstance(size, int) else size.hi - 1
    helper = _pairwise_helper(b, element, _depth(longest))
    out = b.op(f"tensor.empty({rows}) : tensor<?x{element}>", f"tensor<?x{element}>")
    zero = b.index(0)

    def row(s: list[MValue]) -> list[MValue]:
        r = b.linalg_index(0)
        return [
            b.op(
                f"func.call {helper}({flat}, {r}, {zero}, {length}) : "
                f"({matrix}, index, index, index) -> {element}",
                element,
            )
        ]

    (sums,) = b.generic([], [(out, identity_map(1))], ["parallel"], row)
    result = reduced(type, axis, keepdims)
    return _reshaped_rows(b, sums, result)


def _reshaped_rows(b: MlirBuilder, rows: MValue, result: TensorType) -> MValue:
    """The row results (a `tensor<?xT>`) under the reduction's result shape."""
    if not result.shape:
        single = b.op(
            f"tensor.cast {rows} : {rows.type} to tensor<1x{result.dtype}>",
            f"tensor<1x{result.dtype}>",
        )
        return b.op(
            f"tensor.collapse_shape {single} [] : tensor<1x{result.dtype}> into tensor<{result.dtype}>",
            f"tensor<{result.dtype}>",
        )
    sizes = [b.dim(d) for d in result.shape]
    shape_type = f"tensor<{len(sizes)}xindex>"
    shape = b.op(f"tensor.from_elements {', '.join(map(str, sizes))} : {shape_type}", shape_type)
    text = tensor_type(result)
    return b.op(f"tensor.reshape {rows}({shape}) : ({rows.type}, {shape_type}) -> {text}", text)


def _pairwise_helper(b: MlirBuilder, element: str, depth: int) -> str:
    """`@..._pairwise_<T>_<depth>(%x: tensor<?x?xT>, %row, %lo, %n) -> T`: numpy's
    `pairwise_sum` of `x[row, lo : lo + n]` for rows that split at most `depth` times."""
    name = f"pairwise_{element}_{depth}"
    inner = _pairwise_helper(b, element, depth - 1) if depth else None

    def make(h: MlirBuilder) -> None:
        matrix = f"tensor<?x?x{element}>"
        x, row, lo, n = (
            MValue(f"%a{i}", t) for i, t in enumerate((matrix, "index", "index", "index"))
        )
        symbol = f"tfh{h.module.prefix}_{name}"
        h.raw(
            f"func.func private @{symbol}({x}: {matrix}, {row}: index, {lo}: index, {n}: index) "
            f"-> {element} {{"
        )
        with h.nested():
            if inner is None:
                (total,) = [_leaf(h, x, row, lo, n, element)]
            else:
                block = h.index(PAIRWISE_BLOCK)
                small = h.op(f"arith.cmpi ule, {n}, {block} : index", "i1")

                def split() -> list[MValue]:
                    two, eight = h.index(2), h.index(8)
                    half = h.op(f"arith.divui {n}, {two} : index", "index")
                    rest = h.op(f"arith.remui {half}, {eight} : index", "index")
                    first = h.op(f"arith.subi {half}, {rest} : index", "index")
                    second = h.op(f"arith.subi {n}, {first} : index", "index")
                    start = h.op(f"arith.addi {lo}, {first} : index", "index")
                    signature = f"({matrix}, index, index, index) -> {element}"
                    a = h.op(f"func.call {inner}({x}, {row}, {lo}, {first}) : {signature}", element)
                    c = h.op(
                        f"func.call {inner}({x}, {row}, {start}, {second}) : {signature}", element
                    )
                    return [h.op(f"arith.addf {a}, {c} : {element}", element)]

                (total,) = h.if_(
                    small, [element], lambda: [_leaf(h, x, row, lo, n, element)], split
                )
            h.line(f"func.return {total} : {element}")
        h.raw("}")

    return b.helper(name, make)


def _leaf(h: MlirBuilder, x: MValue, row: MValue, lo: MValue, n: MValue, element: str) -> MValue:
    """numpy's sum of a block of at most 128 elements: fewer than 8 one by one from 0.0, else
    eight accumulators over whole groups of 8, combined as a tree, then the rest one by one."""

    def at(i: MValue) -> MValue:
        column = h.op(f"arith.addi {lo}, {i} : index", "index")
        return h.op(f"tensor.extract {x}[{row}, {column}] : {x.type}", element)

    def add(a: MValue, c: MValue) -> MValue:
        return h.op(f"arith.addf {a}, {c} : {element}", element)

    def one_by_one(start: MValue, stop: MValue, init: MValue) -> MValue:
        (total,) = h.for_(start, stop, [init], lambda i, acc: [add(acc[0], at(i))])
        return total

    few = h.op(f"arith.cmpi ult, {n}, {h.index(8)} : index", "i1")

    def short() -> list[MValue]:
        return [one_by_one(h.index(0), n, float_literal(h, 0.0, element))]

    def blocked() -> list[MValue]:
        firsts = [at(h.index(j)) for j in range(8)]
        rest = h.op(f"arith.remui {n}, {h.index(8)} : index", "index")
        end = h.op(f"arith.subi {n}, {rest} : index", "index")

        def group(i: MValue, acc: list[MValue]) -> list[MValue]:
            return [
                add(acc[j], at(h.op(f"arith.addi {i}, {h.index(j)} : index", "index")))
                for j in range(8)
            ]

        r = h.for_(h.index(8), end, firsts, group, step=8)
        tree = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
        return [one_by_one(end, n, tree)]

    (total,) = h.if_(few, [element], short, blocked)
    return total


def sequential_sum(
    b: MlirBuilder,
    x: MValue,
    type: TensorType,
    axis: int,
    keepdims: bool,
    dtype: str,
    add: Callable[[MValue, MValue], MValue],
    zero: MValue,
) -> MValue:
    """`acc = add(acc, x[..., i, ...])` from `zero` for i in order (acc of `dtype`): numpy's
    order along an axis that is not the innermost of a C-contiguous array."""
    kept = reduced(type, axis, True, dtype)
    piece = reduced(type, axis, True)
    start = b.fill(zero, b.empty(kept))
    rank = len(type.shape)

    def step(i: MValue, acc: list[MValue]) -> list[MValue]:
        offsets: list[MValue | int] = [i if k == axis else 0 for k in range(rank)]
        part = extract_slice(b, x, offsets, piece)
        # written into the accumulator itself: the loop's tensor stays in place
        (summed,) = b.generic(
            [(part, identity_map(rank))],
            [(acc[0], identity_map(rank))],
            ["parallel"] * rank,
            lambda s: [add(s[1], s[0])],
        )
        return [summed]

    (total,) = b.for_(b.index(0), b.dim(type.shape[axis]), [start], step)
    return total if keepdims else reshape(b, total, kept, reduced(type, axis, False, dtype))


def scan(
    b: MlirBuilder,
    x: MValue,
    type: TensorType,
    axis: int,
    dtype: str,
    first: Callable[[MValue], MValue],
    add: Callable[[MValue, MValue], MValue],
) -> MValue:
    """The running fold along `axis`: element 0 is `first(x_0)`, element i `add(out_{i-1},
    x_i)`; a tensor of `type`'s shape and `dtype`."""
    result = TensorType(type.shape, dtype)
    piece = reduced(type, axis, True)
    out_piece = reduced(type, axis, True, dtype)
    out = b.empty(result)
    rank = len(type.shape)

    def step(i: MValue, acc: list[MValue]) -> list[MValue]:
        offsets: list[MValue | int] = [i if k == axis else 0 for k in range(rank)]
        part = extract_slice(b, x, offsets, piece)
        is_first = b.op(f"arith.cmpi eq, {i}, {b.index(0)} : index", "i1")

        def initial() -> list[MValue]:
            return [elementwise(b, [part], [piece], out_piece, lambda s: first(s[0]), dtype)]

        def following() -> list[MValue]:
            before = b.op(f"arith.subi {i}, {b.index(1)} : index", "index")
            previous_offsets: list[MValue | int] = [before if k == axis else 0 for k in range(rank)]
            previous = extract_slice(b, acc[0], previous_offsets, out_piece)
            return [
                elementwise(
                    b,
                    [previous, part],
                    [out_piece, piece],
                    out_piece,
                    lambda s: add(s[0], s[1]),
                    dtype,
                )
            ]

        (value,) = b.if_(is_first, [tensor_type(out_piece)], initial, following)
        return [insert_slice(b, value, out_piece, acc[0], offsets)]

    (total,) = b.for_(b.index(0), b.dim(type.shape[axis]), [out], step)
    return total
