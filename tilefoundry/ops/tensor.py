"""Data movement and tensor construction: reshape, broadcast, concat, slice, index, gather,
where, iota, full (what a frontend's view / expand / cat / slice / embedding / arange maps to).

```mlir
%r = tf.call tf.tensor.reshape<shape = [2, -1]>(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
%b = tf.call tf.tensor.broadcast_to<shape = [3, 4, 8]>(%x) : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
%c = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x8xf32>, tensor<4x2xf32>>) -> tensor<4x10xf32>
%s = tf.call tf.tensor.slice<axis = 1, start = 2, stop = 6>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
%e = tf.call tf.tensor.index(%w, %ids) : (tensor<256x64xf32>, tuple<tensor<1x8xi64>>) -> tensor<1x8x64xf32>
%g = tf.call tf.tensor.gather<axis = 1>(%x, %i) : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
%w = tf.call tf.tensor.where(%m, %x, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
%a = tf.call tf.tensor.iota<start = 0, step = 1, size = 8, dtype = "i64">() : () -> tensor<8xi64>
%f = tf.call tf.tensor.full<shape = [2, 2], value = 1.0, dtype = "f32">() : () -> tensor<2x2xf32>
```

Shapes are static, except that a dim may be a DimVar where the op can carry it through:
`reshape` infers its one `-1` entry as the DimVar the input has and the given sizes lack,
`broadcast_to` keeps an input dim for a `-1` entry, `slice` keeps a whole dynamic dim.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xdsl.ir import SSAValue

from tilefoundry.builtin.types import DimVar, IRType, TensorType, TupleType, from_attr
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.numerics import contiguous
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.builder import identity_map
from tilefoundry.mlir_builder.composite import checked_position, first_out_of_range
from tilefoundry.mlir_builder.constants import scalar_constant, storage_bits
from tilefoundry.mlir_builder.scalar import convert
from tilefoundry.mlir_builder.structured import (
    broadcast_map,
    elementwise,
    extract_slice,
    insert_slice,
    reshape,
)
from tilefoundry.ops.shapes import DtypeOp, broadcast_shapes, normalize_axis, tensor_args
from tilefoundry.support.diagnostics import ExecutionError

__all__ = ["BroadcastTo", "Concat", "Full", "Gather", "Index", "Iota", "Reshape", "Slice", "Where"]

Dim = int | DimVar


def _is_int(dtype: str) -> bool:
    return dtype.startswith("i")


def _split_sizes(shape: Sequence[Dim]) -> tuple[int, list[DimVar]]:
    static = math.prod(d for d in shape if isinstance(d, int))
    return static, [d for d in shape if isinstance(d, DimVar)]


@register_op(category="tensor")
class Reshape(Op):
    """The same elements in row-major order under another shape; one entry may be `-1`, the
    size the others leave (a DimVar when the input has one the other entries do not). With
    `dims`, each `-1` entry is instead the size of the input dim `dims` names, in order (an
    input with several DimVars: `[batch, seq, 64]` to `[batch, seq, 4, 16]` is
    `shape = [-1, -1, 4, 16], dims = [0, 1]`).

    Types: the input's element count equals that of `shape` (with a `-1` entry, the size that
    makes them equal; with a DimVar in the input, the `-1` entry is that DimVar and the other
    entries hold its static part; with `dims`, one input dim per `-1` entry, every DimVar of
    the input among them, and the other entries hold the static part of the other dims); the
    result has `shape` and the input's dtype.

    FLOPs: none (it moves data).

    ```mlir
    %r = tf.call tf.tensor.reshape<shape = [2, -1]>(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    shape = ParamDef(kind="attribute", annotation=tuple[int, ...])
    dims = ParamDef(kind="attribute", annotation=tuple[int, ...], default=())

    def _copied(self, x: TensorType) -> TensorType:
        """The result with `dims`: each `-1` entry the input dim it names."""
        target: tuple[int, ...] = self.shape
        copied: tuple[int, ...] = self.dims
        if target.count(-1) != len(copied) or any(d < -1 for d in target):
            raise ValueError(f"shape {list(target)} needs one -1 entry per dim of {list(copied)}")
        if len(set(copied)) != len(copied) or not all(0 <= d < x.rank for d in copied):
            raise ValueError(f"dims {list(copied)} are not distinct dims of {x}")
        rest = [d for i, d in enumerate(x.shape) if i not in copied]
        static, dyn = _split_sizes(rest)
        if dyn or static != math.prod(d for d in target if d != -1):
            raise ValueError(f"cannot reshape {x} to {list(target)} keeping dims {list(copied)}")
        taken = iter(x.shape[d] for d in copied)
        return TensorType(tuple(next(taken) if d == -1 else d for d in target), x.dtype)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        if self.dims:
            return self._copied(x)
        target: tuple[int, ...] = self.shape
        if target.count(-1) > 1 or any(d < -1 for d in target):
            raise ValueError(f"shape {list(target)} may hold one -1 and sizes >= 0")
        static, dyn = _split_sizes(x.shape)
        given = math.prod(d for d in target if d != -1)
        if -1 not in target:
            if dyn or given != static:
                raise ValueError(f"cannot reshape {x} ({static} elements) to {list(target)}")
            return TensorType(target, x.dtype)
        inferred: Dim
        if dyn:
            if len(dyn) != 1 or given != static:
                raise ValueError(
                    f"cannot reshape {x} to {list(target)}: the -1 entry must be its one DimVar"
                )
            inferred = dyn[0]
        else:
            if given == 0 or static % given:
                raise ValueError(f"cannot reshape {x} ({static} elements) to {list(target)}")
            inferred = static // given
        return TensorType(tuple(inferred if d == -1 else d for d in target), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """`tensor.reshape` (row-major, as numpy's)."""
        (x,) = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        return reshape(b, values(args)[0], x, result)

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A reshape to the shape the value already has is the value."""
        return args[0] if from_attr(args[0].type) == result else None

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        shape = self.shape
        if self.dims:
            taken = iter(x.shape[d] for d in self.dims)
            shape = tuple(next(taken) if d == -1 else d for d in shape)
        return contiguous(np.reshape(x, shape))


@register_op(category="tensor")
class BroadcastTo(Op):
    """numpy `broadcast_to`: size-1 dims (and missing leading dims) repeat to `shape`; a `-1`
    entry keeps the input's dim.

    Types: `shape` has at least the input's rank; each input dim (right-aligned) equals its
    entry, is 1, or meets a `-1`; a new leading dim needs a size; the result has that shape
    and the input's dtype.

    FLOPs: none (it moves data).

    ```mlir
    %b = tf.call tf.tensor.broadcast_to<shape = [3, 4, 8]>(%x) : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    shape = ParamDef(kind="attribute", annotation=tuple[int, ...])

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        target: tuple[int, ...] = self.shape
        lead = len(target) - x.rank
        if lead < 0:
            raise ValueError(f"cannot broadcast {x} to fewer dims {list(target)}")
        dims: list[Dim] = []
        for index, size in enumerate(target):
            if index < lead:
                if size < 0:
                    raise ValueError(f"a new leading dim needs a size, got {size}")
                dims.append(size)
                continue
            have = x.shape[index - lead]
            if size == -1 or have == size:
                dims.append(have)
            elif have == 1 and size >= 0:
                dims.append(size)
            else:
                raise ValueError(f"cannot broadcast {x} to {list(target)} (dim {index})")
        return TensorType(tuple(dims), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A `linalg.generic` copy through the broadcasting map."""
        (x,) = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        return elementwise(b, values(args), [x], result, lambda s: s[0])

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A broadcast to the shape the value already has is the value."""
        return args[0] if from_attr(args[0].type) == result else None

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        lead = len(self.shape) - x.ndim
        shape = [x.shape[i - lead] if s == -1 else s for i, s in enumerate(self.shape)]
        return contiguous(np.broadcast_to(x, shape))


@register_op(category="tensor")
class Concat(Op):
    """Joins the tensors of a tuple along `axis` (the other dims equal, one dtype).

    Types: the input is a non-empty tuple of tensors of one dtype and rank, equal in every dim
    but `axis`, which is static; the result's `axis` is the sum of theirs.

    FLOPs: none (it moves data).

    ```mlir
    %c = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x8xf32>, tensor<4x2xf32>>) -> tensor<4x10xf32>
    ```
    """

    input = ParamDef(kind="input")
    axis = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (t,) = arg_types
        if not isinstance(t, TupleType) or not t.fields:
            raise ValueError(f"concat needs a non-empty tuple of tensors, got {t}")
        parts = list(t.fields)
        first = parts[0]
        if not all(isinstance(p, TensorType) for p in parts):
            raise ValueError(f"concat needs a tuple of tensors, got {t}")
        assert isinstance(first, TensorType)
        axis = normalize_axis(self.axis, first.rank)
        total = 0
        for part in parts:
            assert isinstance(part, TensorType)
            if part.dtype != first.dtype or part.rank != first.rank:
                raise ValueError(f"concat parts differ in dtype or rank: {first} and {part}")
            for index, (a, b) in enumerate(zip(first.shape, part.shape, strict=True)):
                if index != axis and a != b:
                    raise ValueError(f"concat parts differ in dim {index}: {first} and {part}")
            size = part.shape[axis]
            if not isinstance(size, int):
                raise ValueError(f"cannot concat along the dynamic dim {size.name}")
            total += size
        return TensorType((*first.shape[:axis], total, *first.shape[axis + 1 :]), first.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Each part `tensor.insert_slice`d into an empty result, at its offset on the axis."""
        (parts,) = args
        (t,) = arg_types
        assert (
            isinstance(parts, tuple) and isinstance(t, TupleType) and isinstance(result, TensorType)
        )
        axis = normalize_axis(self.axis, result.rank)
        out = b.empty(result)
        offset = 0
        for part, part_type in zip(values(parts), t.fields, strict=True):
            assert isinstance(part_type, TensorType)
            offsets: list[MValue | int] = [offset if i == axis else 0 for i in range(result.rank)]
            out = insert_slice(b, part, part_type, out, offsets)
            size = part_type.shape[axis]
            assert isinstance(size, int)
            offset += size
        return out

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        return np.concatenate(arrays[0], axis=self.axis)


@register_op(category="tensor")
class Slice(Op):
    """`x[start:stop:step]` along `axis` (Python's clamping of start and stop; step >= 1). A
    whole dynamic dim (`start = 0`, `stop` past any size, `step = 1`) stays that DimVar; a
    slice of one that stops within its least size (`x[:, :1]` of `seq >= 2`) is static.

    Types: `axis` is a dim of the input and `step >= 1`; the result has the input's type with
    that dim the length of `range(start, stop, step)` clamped to it (a dynamic dim whole, or
    with `0 <= start` and `0 <= stop <= ` its least size).

    FLOPs: none (it moves data).

    ```mlir
    %s = tf.call tf.tensor.slice<axis = 1, start = 2, stop = 6>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)
    start = ParamDef(kind="attribute", annotation=int, default=0)
    stop = ParamDef(kind="attribute", annotation=int)
    step = ParamDef(kind="attribute", annotation=int, default=1)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        axis = normalize_axis(self.axis, x.rank)
        if self.step < 1:
            raise ValueError(f"step must be >= 1, got {self.step}")
        size = x.shape[axis]
        new: Dim
        if isinstance(size, DimVar):
            if 0 <= self.start and 0 <= self.stop <= size.lo:  # within any size: static
                new = len(range(self.start, self.stop, self.step))
            elif (self.start, self.step) != (0, 1) or self.stop < size.hi:
                raise ValueError(
                    f"a slice of the dynamic dim {size.name} must take all of it, or stop "
                    f"within its least size {size.lo}"
                )
            else:
                new = size
        else:
            new = len(range(*slice(self.start, self.stop, self.step).indices(size)))
        return TensorType((*x.shape[:axis], new, *x.shape[axis + 1 :]), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """`tensor.extract_slice` with Python's clamping of start and stop (a static dim; a
        dynamic one is taken whole)."""
        (x,) = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        axis = normalize_axis(self.axis, x.rank)
        size = x.shape[axis]
        start = 0
        if isinstance(size, int):
            start = slice(self.start, self.stop, self.step).indices(size)[0]
        elif isinstance(result.shape[axis], int):  # stops within the dim's least size
            start = self.start
        offsets: list[MValue | int] = [start if i == axis else 0 for i in range(x.rank)]
        strides = [self.step if i == axis else 1 for i in range(x.rank)]
        return extract_slice(b, values(args)[0], offsets, result, strides)

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A slice that keeps the whole dim is the value."""
        return args[0] if from_attr(args[0].type) == result else None

    def reference(self, *arrays: Any) -> Any:
        (x,) = arrays
        index = [slice(None)] * x.ndim
        index[self.axis] = slice(self.start, self.stop, self.step)
        return contiguous(x[tuple(index)])


def check_bounds(op: str, index: Any, size: int, axis: int) -> None:
    """An index outside `[-size, size)` is refused (as torch refuses it), naming it."""
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise ExecutionError(
            f"{op}: index {int(bad.flat[0])} is out of range for dim {axis} of size {size}"
        )


def _index_shapes(t: IRType) -> list[TensorType]:
    if not isinstance(t, TupleType) or not t.fields:
        raise ValueError(f"the indices are a non-empty tuple of integer tensors, got {t}")
    out = []
    for field in t.fields:
        if not isinstance(field, TensorType) or not _is_int(field.dtype) or field.dtype == "i1":
            raise ValueError(f"an index is an integer tensor, got {field}")
        out.append(field)
    return out


def _check_range(
    b: MlirBuilder, op: str, index: MValue, type: TensorType, x: TensorType, axis: int
) -> None:
    """Record the interpreter's error for the first index of `index` outside dim `axis` of
    `x` (`_check_bounds` of the reference)."""
    size = b.dim(x.shape[axis])
    found, first = first_out_of_range(b, index, type, size)
    size64 = b.op(f"arith.index_cast {size} : index to i64", "i64")
    b.fail_if(
        found, f"{op}: index {{0}} is out of range for dim {axis} of size {{1}}", [first, size64]
    )


def _lead_map(shape: Sequence[Dim], lead: Sequence[Dim], rank: int) -> str:
    """An index tensor's map into the leading (broadcast) dims of a rank-`rank` result."""
    text = broadcast_map(shape, lead)
    inner = text[text.index("-> (") + 4 : text.rindex(")")]
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({inner})>"


@register_op(category="tensor")
class Index(Op):
    """numpy advanced indexing of the leading dims: `x[i0, i1, ...]` with the index tensors
    broadcast together (their shape, then the remaining dims of `x`); negative indices count
    from the end. An embedding lookup is `index(weight, (ids,))`.

    Types: `indices` is a non-empty tuple of integer tensors, no more than the input's rank,
    whose shapes broadcast; the result is that shape, then the input's remaining dims, in its
    dtype. An index out of range is refused at run time.

    FLOPs: none (it moves data).

    ```mlir
    %e = tf.call tf.tensor.index(%w, %ids) : (tensor<256x64xf32>, tuple<tensor<1x8xi64>>) -> tensor<1x8x64xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    indices = ParamDef(kind="input")

    def infer_type(self, *arg_types: IRType) -> IRType:
        x, t = arg_types
        assert isinstance(x, TensorType)
        idx = _index_shapes(t)
        if len(idx) > x.rank:
            raise ValueError(f"{len(idx)} indices for {x} of rank {x.rank}")
        shape: tuple[Dim, ...] = idx[0].shape
        for other in idx[1:]:
            shape = broadcast_shapes(shape, other.shape)
        return TensorType((*shape, *x.shape[len(idx) :]), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Each index tensor checked (the first out of range, in C order, is the interpreter's
        error), then a `linalg.generic` over the result reading `x` at the positions."""
        x_type, t = arg_types
        x, indices = args
        assert isinstance(x, MValue) and isinstance(indices, tuple)
        assert isinstance(x_type, TensorType) and isinstance(result, TensorType)
        index_types = _index_shapes(t)
        index_values = values(indices)
        for axis, (value, type) in enumerate(zip(index_values, index_types, strict=True)):
            _check_range(b, self.op_name, value, type, x_type, axis)
        rank = result.rank
        lead = rank - (x_type.rank - len(index_types))
        lead_shape = result.shape[:lead]

        def element(s: list[MValue]) -> MValue:
            coordinates = [
                checked_position(b, s[i], type.dtype, b.dim(x_type.shape[i]))
                for i, type in enumerate(index_types)
            ]
            coordinates += [b.linalg_index(lead + i) for i in range(x_type.rank - len(index_types))]
            return b.op(
                f"tensor.extract {x}[{', '.join(map(str, coordinates))}] : {x.type}",
                x_type.dtype,
            )

        out = b.empty(result)
        ins = [
            (value, _lead_map(type.shape, lead_shape, rank))
            for value, type in zip(index_values, index_types, strict=True)
        ]
        (gathered,) = b.generic(
            ins, [(out, identity_map(rank))], ["parallel"] * rank, lambda s: [element(s)]
        )
        return gathered

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return 0

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        x, indices = arrays
        positions = tuple(np.asarray(i, dtype=np.int64) for i in indices)
        for axis, index in enumerate(positions):
            check_bounds(self.op_name, index, x.shape[axis], axis)
        return contiguous(x[positions])


@register_op(category="tensor")
class Gather(Op):
    """torch `gather`: `out[i][j] = x[i][index[i][j]]` along `axis` (the result has the
    index's shape).

    Types: `index` is an integer tensor of the input's rank and `axis` a dim; the result has the
    index's shape and the input's dtype. An index out of range is refused at run time.

    FLOPs: none (it moves data).

    ```mlir
    %g = tf.call tf.tensor.gather<axis = 1>(%x, %i) : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    index = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        x, i = tensor_args(arg_types)
        normalize_axis(self.axis, x.rank)
        if i.rank != x.rank or not _is_int(i.dtype) or i.dtype == "i1":
            raise ValueError(f"gather needs an integer index of rank {x.rank}, got {i}")
        return TensorType(i.shape, x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """The index checked (as `Index`), then `out[i] = x[i with index[i] on the axis]`."""
        x_type, index_type = tensor_args(arg_types)
        x, index = values(args)
        assert isinstance(result, TensorType)
        axis = self.axis % x_type.rank
        _check_range(b, self.op_name, index, index_type, x_type, axis)
        size = b.dim(x_type.shape[axis])

        def element(s: list[MValue]) -> MValue:
            coordinates = []
            for d in range(x_type.rank):
                if d == axis:
                    coordinates.append(checked_position(b, s[0], index_type.dtype, size))
                elif x_type.shape[d] == 1 and result.shape[d] != 1:
                    coordinates.append(b.index(0))
                else:
                    coordinates.append(b.linalg_index(d))
            return b.op(
                f"tensor.extract {x}[{', '.join(map(str, coordinates))}] : {x.type}",
                x_type.dtype,
            )

        out = b.empty(result)
        rank = result.rank
        (gathered,) = b.generic(
            [(index, identity_map(rank))],
            [(out, identity_map(rank))],
            ["parallel"] * rank,
            lambda s: [element(s)],
        )
        return gathered

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        x, index = arrays
        axis = self.axis % x.ndim
        check_bounds(self.op_name, index, x.shape[axis], axis)
        return np.take_along_axis(x, index.astype(np.int64), axis=axis)


@register_op(category="tensor")
class Where(Op):
    """`cond ? lhs : rhs`, elementwise with broadcasting (`cond` is `i1`).

    Types: `cond` is `i1`, `lhs` and `rhs` have one dtype, the three shapes broadcast; the
    result has the broadcast shape and their dtype.

    FLOPs: none (it selects values).

    ```mlir
    %w = tf.call tf.tensor.where(%m, %x, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    """

    cond = ParamDef(kind="input", pattern=Tensor)
    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        c, a, b = tensor_args(arg_types)
        if c.dtype != "i1":
            raise ValueError(f"the condition must be i1, got {c.dtype}")
        if a.dtype != b.dtype:
            raise ValueError(f"operand dtypes differ: {a.dtype} and {b.dtype}")
        return TensorType(broadcast_shapes(broadcast_shapes(c.shape, a.shape), b.shape), a.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise `arith.select` with broadcasting."""
        assert isinstance(result, TensorType)
        element = result.dtype

        def select(s: list[MValue]) -> MValue:
            return b.op(f"arith.select {s[0]}, {s[1]}, {s[2]} : {element}", element)

        return elementwise(b, values(args), tensor_args(arg_types), result, select)

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """`where(c, x, x)` is `x` (when it needs no broadcast)."""
        _, a, b = args
        return a if a is b and from_attr(a.type) == result else None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return 0

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        cond, lhs, rhs = arrays
        return np.where(cond, lhs, rhs)


@register_op(category="tensor")
class Iota(DtypeOp):
    """`[start, start + step, ...]`: `size` values of `dtype` (what `arange` maps to).

    Types: no inputs; `size >= 0`; the result is `tensor<size x dtype>`.

    FLOPs: none.

    ```mlir
    %a = tf.call tf.tensor.iota<start = 0, step = 1, size = 8, dtype = "i64">() : () -> tensor<8xi64>
    ```
    """

    start = ParamDef(kind="attribute", annotation=int, default=0)
    step = ParamDef(kind="attribute", annotation=int, default=1)
    size = ParamDef(kind="attribute", annotation=int)
    dtype = ParamDef(kind="attribute", annotation=str, default="i64")

    def infer_type(self, *arg_types: IRType) -> IRType:
        if self.size < 0:
            raise ValueError(f"size must be >= 0, got {self.size}")
        return TensorType((self.size,), self.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """`start + step * i` in i64, converted as numpy's `astype` from int64 (bf16: through
        float32, then rounded, as the interpreter holds it)."""
        assert isinstance(result, TensorType)
        out = b.empty(result)

        def element(s: list[MValue]) -> MValue:
            i = b.op(f"arith.index_cast {b.linalg_index(0)} : index to i64", "i64")
            step = b.op(f"arith.muli {i}, {b.int_constant(self.step, 'i64')} : i64", "i64")
            value = b.op(f"arith.addi {step}, {b.int_constant(self.start, 'i64')} : i64", "i64")
            if self.dtype == "bf16":
                return convert(b, convert(b, value, "i64", "f32"), "f32", "bf16")
            return convert(b, value, "i64", self.dtype)

        (values_,) = b.generic([], [(out, identity_map(1))], ["parallel"], lambda s: [element(s)])
        return values_

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        values = self.start + self.step * np.arange(self.size, dtype=np.int64)
        return values.astype(numpy_dtype(self.dtype))


@register_op(category="tensor")
class Full(DtypeOp):
    """A tensor of `shape` whose every element is `value` (of `dtype`), converted as
    `tf.math.cast` converts the float64 `value` (rounded to nearest even, saturated at an
    integer dtype's range, NaN 0 in an integer; `numerics.number_as`).

    Types: no inputs; `shape` has no negative size; the result has `shape` and `dtype`.

    FLOPs: none.

    ```mlir
    %f = tf.call tf.tensor.full<shape = [2, 2], value = 1.0, dtype = "f32">() : () -> tensor<2x2xf32>
    ```
    """

    shape = ParamDef(kind="attribute", annotation=tuple[int, ...])
    value = ParamDef(kind="attribute", annotation=float)
    dtype = ParamDef(kind="attribute", annotation=str, default="f32")

    def infer_type(self, *arg_types: IRType) -> IRType:
        if any(d < 0 for d in self.shape):
            raise ValueError(f"shape {list(self.shape)} has a negative size")
        return TensorType(tuple(self.shape), self.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A `linalg.fill` of the value as the interpreter converts it (`number_as`)."""
        from tilefoundry.dialects.tf.numerics import number_as

        assert isinstance(result, TensorType)
        element = number_as(self.value, self.dtype)
        scalar = scalar_constant(b, int(storage_bits(element, self.dtype)), self.dtype)
        return b.fill(scalar, b.empty(result))

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        from tilefoundry.dialects.tf.numerics import number_as

        element = number_as(self.value, self.dtype)
        return np.full(self.shape, element, dtype=numpy_dtype(self.dtype))
