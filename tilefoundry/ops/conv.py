"""Windowed ops of vision and audio models: convolution and pooling over the trailing spatial
dims, and `topk` (what a frontend's `conv1d` / `conv2d`, `max_pool2d` / `avg_pool2d` and `topk`
map to).

```mlir
%y = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
%p = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
%t = tf.call tf.tensor.topk<k = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x2xf32>, tensor<4x2xi64>>
```

Their emission rules (`emit`) write `linalg.generic`s over the zero- (or -inf-) padded input
(`tensor.pad`) whose indexing maps slide the window (`o * stride + k * dilation`); the batch
and other leading dims may be dynamic. What each promises against its `reference`
(docs/ir.md "Numeric semantics"): `pool` and `topk` the interpreter's bits (max: numpy's
`maximum` in tap order; avg: numpy's sum of the contiguous window, pairwise or sequential as
numpy's layout decides), `conv` within the matmul bound (a different summation order from the
BLAS the reference calls).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any, ClassVar

from tilefoundry.builtin.types import DimVar, IRType, TensorType, TupleType
from tilefoundry.dialects.tf.numerics import widened
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.builder import affine_map, identity_map
from tilefoundry.mlir_builder.composite import layout_sum, lowest, widened_tensor, zero
from tilefoundry.mlir_builder.constants import tensor_constant
from tilefoundry.mlir_builder.reductions import fold
from tilefoundry.mlir_builder.scalar import float_literal, maximum, narrow, widen
from tilefoundry.mlir_builder.structured import convert_tensor, reshape
from tilefoundry.mlir_builder.types import compute_type, is_float, tensor_type
from tilefoundry.ops.folding import elements
from tilefoundry.ops.shapes import normalize_axis, same_dtype, tensor_args

__all__ = ["Conv", "Pool", "PoolKind", "TopK"]

Dim = int | DimVar


def _window_sizes(
    op: str,
    spatial: Sequence[Dim],
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> tuple[int, ...]:
    """The output sizes of a window of `kernel` slid over `spatial` (each static)."""
    n = len(kernel)
    for name, given in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(given) != n:
            raise ValueError(f"{op}: {name} {list(given)} has {len(given)} entries for {n} dims")
    if any(s < 1 for s in stride) or any(d < 1 for d in dilation) or any(p < 0 for p in padding):
        raise ValueError(f"{op}: stride and dilation are >= 1, padding >= 0")
    sizes: list[int] = []
    for axis, (size, k, s, p, d) in enumerate(
        zip(spatial, kernel, stride, padding, dilation, strict=True)
    ):
        if not isinstance(size, int):
            raise ValueError(f"{op}: spatial dim {axis} is dynamic ({size.name})")
        out = (size + 2 * p - d * (k - 1) - 1) // s + 1
        if k < 1 or out < 1:
            raise ValueError(f"{op}: a window of {k} (dilation {d}) does not fit {size} + 2*{p}")
        sizes.append(out)
    return tuple(sizes)


def _windows(
    x: Any,
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
) -> Any:
    """The windows of the (padded) trailing dims of `x`: `[*lead, *kernel, *out]`."""
    import numpy as np

    n = len(kernel)
    lead = x.shape[: x.ndim - n]
    cols = np.empty((*lead, *kernel, *out), dtype=x.dtype)
    every = (slice(None),) * len(lead)
    for offset in np.ndindex(*kernel):
        taken = tuple(
            slice(o * d, o * d + s * (m - 1) + 1, s)
            for o, d, s, m in zip(offset, dilation, stride, out, strict=True)
        )
        cols[(*every, *offset)] = x[(*every, *taken)]
    return cols


def _padded(x: Any, padding: Sequence[int], value: Any) -> Any:
    import numpy as np

    n = len(padding)
    widths = [(0, 0)] * (x.ndim - n) + [(p, p) for p in padding]
    return np.pad(x, widths, constant_values=value) if any(padding) else x


# -- emission --------------------------------------------------------------------------------


def _pad(
    b: MlirBuilder, x: MValue, type: TensorType, padding: Sequence[int], value: MValue
) -> tuple[MValue, TensorType]:
    """`tensor.pad` of the trailing `len(padding)` dims with `value` on both sides."""
    if not any(padding):
        return x, type
    lead = type.rank - len(padding)
    padded = TensorType(
        (
            *type.shape[:lead],
            *(
                d + 2 * p
                for d, p in zip(type.shape[lead:], padding, strict=True)
                if isinstance(d, int)
            ),
        ),
        type.dtype,
    )
    assert padded.rank == type.rank, "the padded dims are static"
    amounts = ", ".join(str(p) for p in [0] * lead + list(padding))
    text = tensor_type(padded)
    name = b.fresh()
    b.raw(f"{name} = tensor.pad {x} low[{amounts}] high[{amounts}] {{")
    with b.block(["index"] * type.rank):
        b.line(f"tensor.yield {value} : {value.type}")
    b.line(f"}} : {x.type} to {text}")
    return MValue(name, text), padded


def _window_exprs(
    out: int, kernel: int, stride: Sequence[int], dilation: Sequence[int]
) -> list[str]:
    """The affine expressions of a window's input positions: dim `out + i` the output position
    and `kernel + i` the tap, `o * stride + k * dilation` per spatial dim."""

    def scaled(dim: int, by: int) -> str:
        return f"d{dim}" if by == 1 else f"d{dim} * {by}"

    return [
        f"{scaled(out + i, s)} + {scaled(kernel + i, d)}"
        for i, (s, d) in enumerate(zip(stride, dilation, strict=True))
    ]


def _windows_tensor(
    b: MlirBuilder,
    x: MValue,
    type: TensorType,
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
) -> tuple[MValue, TensorType]:
    """The windows of a padded `x` (`[*lead, *spatial]`) as a C-contiguous `[*lead, taps,
    *out]` (`taps = prod(kernel)`, row-major): the reference's `_windows`, its kernel dims
    merged."""
    n = len(kernel)
    lead = type.rank - n
    rank = lead + 2 * n  # lead..., kernel..., out...
    cols = TensorType((*type.shape[:lead], *kernel, *out), type.dtype)
    exprs = [f"d{i}" for i in range(lead)] + _window_exprs(lead + n, lead, stride, dilation)
    (value,) = b.generic(
        [(x, affine_map(rank, exprs))],
        [(b.empty(cols), identity_map(rank))],
        ["parallel"] * rank,
        lambda s: [s[0]],
    )
    merged = TensorType((*type.shape[:lead], math.prod(kernel), *out), type.dtype)
    return reshape(b, value, cols, merged), merged


@register_op(category="nn")
class Conv(Op):
    """Cross-correlation of `input` `[N, C, *spatial]` with `weight` `[O, C / groups,
    *kernel]` over the trailing spatial dims (1-d, 2-d, 3-d), as torch's `conv1d` / `conv2d`
    (no bias: add it after): zero `padding` on both sides of each dim, `stride` and `dilation`
    per dim (no `dilation`: 1 in each), `groups` channel groups.

    Types: `input` and `weight` are float tensors of one dtype and the same rank, 2 plus the
    number of spatial dims (the entries of `stride`, `padding`, `dilation`); the spatial dims
    are static; `C` is `groups` times the weight's dim 1 and `O` a multiple of `groups`; each
    output size `(in + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1` is at least 1.
    The result is `[N, O, *out]` in the input's dtype.

    FLOPs: a multiply and an add per output element and kernel tap of its group:
    `2 * N * O * prod(out) * (C / groups) * prod(kernel)` (on the matrix units).

    ```mlir
    %y = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    ```
    """

    matrix_unit: ClassVar[bool] = True

    input = ParamDef(kind="input", pattern=Tensor)
    weight = ParamDef(kind="input", pattern=Tensor)
    stride = ParamDef(kind="attribute", annotation=tuple[int, ...])
    padding = ParamDef(kind="attribute", annotation=tuple[int, ...])
    dilation = ParamDef(kind="attribute", annotation=tuple[int, ...], default=())
    groups = ParamDef(kind="attribute", annotation=int, default=1)

    def _dilation(self) -> tuple[int, ...]:
        return tuple(self.dilation) or (1,) * len(self.stride)

    def infer_type(self, *arg_types: IRType) -> IRType:
        x, w = tensor_args(arg_types)
        dtype = same_dtype(x, w)
        if not dtype.startswith(("f", "bf")):
            raise ValueError(f"conv needs float tensors, got {dtype}")
        n = len(self.stride)
        if n < 1 or x.rank != n + 2 or w.rank != n + 2:
            raise ValueError(f"conv over {n} spatial dims needs rank {n + 2} operands: {x}, {w}")
        groups: int = self.groups
        channels, out_channels, per_group = x.shape[1], w.shape[0], w.shape[1]
        if groups < 1 or not isinstance(per_group, int) or channels != per_group * groups:
            raise ValueError(f"conv: {channels} input channels for {groups} group(s) of {w}")
        if not isinstance(out_channels, int) or out_channels % groups:
            raise ValueError(f"conv: {out_channels} output channels in {groups} group(s)")
        kernel = [d for d in w.shape[2:] if isinstance(d, int)]
        if len(kernel) != n:
            raise ValueError(f"conv: the kernel {w} is dynamic")
        out = _window_sizes(
            "conv", x.shape[2:], kernel, self.stride, self.padding, self._dilation()
        )
        return TensorType((x.shape[0], out_channels, *out), dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """One `linalg.generic` over `[N, O, *out, C / groups, *kernel]` reading the zero-padded
        input through the window's map (the group's channels: `(o floordiv (O / groups)) *
        (C / groups) + c`), the taps walked in order in the compute type (f16 / bf16 in f32,
        rounded once): within docs/ir.md's matmul bound of the reference's BLAS product."""
        x_type, w_type = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        x, w = values(args)
        dtype = result.dtype
        wide = compute_type(dtype)
        n = len(self.stride)
        x, x_type = widened_tensor(b, x, x_type)
        w, w_type = widened_tensor(b, w, w_type)
        x, x_type = _pad(b, x, x_type, self.padding, zero(b, wide))
        per_group = w_type.shape[1]
        out_channels = w_type.shape[0]
        assert isinstance(per_group, int) and isinstance(out_channels, int)
        per_out = out_channels // self.groups
        rank = 2 + n + 1 + n  # batch, o, out..., c, kernel...
        c, first_tap = 2 + n, 3 + n
        channel = f"(d1 floordiv {per_out}) * {per_group} + d{c}" if self.groups > 1 else f"d{c}"
        x_map = affine_map(
            rank, ["d0", channel, *_window_exprs(2, first_tap, self.stride, self._dilation())]
        )
        w_map = affine_map(rank, ["d1", f"d{c}", *(f"d{first_tap + i}" for i in range(n))])
        out_map = affine_map(rank, [f"d{i}" for i in range(2 + n)])
        acc = b.fill(zero(b, wide), b.empty(result, wide))

        def body(s: list[MValue]) -> list[MValue]:
            a, k, total = s
            product = b.op(f"arith.mulf {a}, {k} : {wide}", wide)
            return [b.op(f"arith.addf {total}, {product} : {wide}", wide)]

        (value,) = b.generic(
            [(x, x_map), (w, w_map)],
            [(acc, out_map)],
            ["parallel"] * (2 + n) + ["reduction"] * (1 + n),
            body,
        )
        if wide == dtype:
            return value
        return convert_tensor(
            b, value, TensorType(result.shape, wide), dtype, lambda v: narrow(b, v, dtype)
        )

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        w = arg_types[1]
        assert isinstance(w, TensorType)
        taps = math.prod(d for d in w.shape[1:] if isinstance(d, int))
        return 2 * elements(result) * taps

    def reference(self, *arrays: Any) -> Any:
        """The windows of the zero-padded input (`[N, C, *kernel, *out]`), each group's a
        matmul with its weights, accumulated in the dtype's compute type."""
        import numpy as np

        x, w = (np.ascontiguousarray(widened(a)) for a in arrays)
        groups = self.groups
        kernel = w.shape[2:]
        out = _window_sizes(
            "conv", x.shape[2:], kernel, self.stride, self.padding, self._dilation()
        )
        cols = _windows(_padded(x, self.padding, 0), kernel, self.stride, self._dilation(), out)
        batch, out_channels, per_group = x.shape[0], w.shape[0], w.shape[1]
        taps = per_group * math.prod(kernel)
        cols = np.ascontiguousarray(cols.reshape(batch, groups, taps, math.prod(out)))
        weights = np.ascontiguousarray(w.reshape(groups, out_channels // groups, taps))
        y = np.matmul(weights[None], cols)  # [N, groups, O / groups, prod(out)]
        return y.reshape(batch, out_channels, *out)


class PoolKind(enum.Enum):
    MAX = "max"
    AVG = "avg"


@register_op(category="nn")
class Pool(Op):
    """Max or average pooling over the trailing `len(kernel)` dims, as torch's `max_pool2d` /
    `avg_pool2d` (floor mode): windows of `kernel` at `stride`, with `padding` on both sides
    of each dim (the lowest value for `max`, zeros for `avg`) and `dilation` (max only; none
    is 1 in each dim). An
    average divides by the kernel's size, or, without `count_include_pad`, by the number of
    the window's elements inside the input.

    Types: the input is a float tensor with more dims than `kernel` has entries, the pooled
    ones static; `stride`, `padding` and `dilation` have an entry per pooled dim, each padding
    at most half its kernel; each output size `(in + 2 * padding - dilation * (kernel - 1) - 1)
    // stride + 1` is at least 1. The result has the leading dims, then those sizes, in the
    input's dtype.

    FLOPs: one per output element and kernel tap (a compare or an add), and a divide per
    output element for `avg`.

    ```mlir
    %p = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=PoolKind)
    kernel = ParamDef(kind="attribute", annotation=tuple[int, ...])
    stride = ParamDef(kind="attribute", annotation=tuple[int, ...])
    padding = ParamDef(kind="attribute", annotation=tuple[int, ...])
    dilation = ParamDef(kind="attribute", annotation=tuple[int, ...], default=())
    count_include_pad = ParamDef(kind="attribute", annotation=bool, default=True)

    def _dilation(self) -> tuple[int, ...]:
        return tuple(self.dilation) or (1,) * len(self.kernel)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        if not x.dtype.startswith(("f", "bf")):
            raise ValueError(f"pool needs a float tensor, got {x.dtype}")
        n = len(self.kernel)
        if n < 1 or x.rank <= n:
            raise ValueError(f"pool over {n} dims needs a tensor of rank > {n}, got {x}")
        if any(2 * p > k for p, k in zip(self.padding, self.kernel, strict=False)):
            raise ValueError(f"pool: padding {list(self.padding)} exceeds half the kernel")
        if self.kind is PoolKind.AVG and any(d != 1 for d in self._dilation()):
            raise ValueError("pool: an average has no dilation")
        out = _window_sizes(
            "pool", x.shape[x.rank - n :], self.kernel, self.stride, self.padding, self._dilation()
        )
        return TensorType((*x.shape[: x.rank - n], *out), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """The windows of the padded input as a contiguous `[*lead, taps, *out]` tensor in the
        compute type (the reference's), then reduced over the taps as numpy reduces it: max in
        tap order with numpy's `maximum` from -inf; avg numpy's sum (`layout_sum`: pairwise
        when the window is the whole output, else in tap order), divided by the kernel's size or
        by the count of the window's taps inside the input."""
        (x_type,) = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        (x,) = values(args)
        dtype = result.dtype
        wide = compute_type(dtype)
        n = len(self.kernel)
        lead = x_type.rank - n
        out = [d for d in result.shape[lead:] if isinstance(d, int)]
        spatial = [d for d in x_type.shape[lead:] if isinstance(d, int)]
        x, x_type = widened_tensor(b, x, x_type)
        fill = lowest(b, wide) if self.kind is PoolKind.MAX else zero(b, wide)
        x, x_type = _pad(b, x, x_type, self.padding, fill)
        wide_result = TensorType(result.shape, wide)
        if self.kind is PoolKind.MAX:
            cols, cols_type = _windows_tensor(
                b, x, x_type, self.kernel, self.stride, self._dilation(), out
            )
            value = fold(
                b, cols, cols_type, lead, False, lowest(b, wide),
                lambda acc, v: maximum(b, acc, v), wide,
            )  # fmt: skip
        elif math.prod(out) == 1:  # numpy sums the contiguous window: pairwise
            cols, cols_type = _windows_tensor(
                b, x, x_type, self.kernel, self.stride, self._dilation(), out
            )
            total = layout_sum(b, cols, cols_type, lead, wide)  # [*lead, 1, *out]
            value = self._average(b, total, True, wide_result, spatial, out)
        else:  # numpy adds the windows' taps one after the other, from +0.0
            total = self._tap_sum(b, x, x_type, wide_result)
            value = self._average(b, total, False, wide_result, spatial, out)
        if wide == dtype:
            return value
        return convert_tensor(b, value, wide_result, dtype, lambda v: narrow(b, v, dtype))

    def _tap_sum(self, b: MlirBuilder, x: MValue, x_type: TensorType, type: TensorType) -> MValue:
        """`0.0 + x[tap 0] + x[tap 1] + ...` per window of the padded `x`, the taps in row-major
        order: one generic over `[*lead, *out, *kernel]`, the kernel dims innermost."""
        wide = type.dtype
        n = len(self.kernel)
        lead = type.rank - n
        rank = lead + 2 * n  # lead..., out..., kernel...
        exprs = [f"d{i}" for i in range(lead)] + _window_exprs(
            lead, lead + n, self.stride, self._dilation()
        )
        acc = b.fill(zero(b, wide), b.empty(type))
        # the window's shape, as linalg's pooling ops take it: each loop's size from a plain dim
        window = b.empty(TensorType(tuple(self.kernel), wide))
        taps = affine_map(rank, [f"d{lead + n + i}" for i in range(n)])
        (value,) = b.generic(
            [(x, affine_map(rank, exprs)), (window, taps)],
            [(acc, affine_map(rank, [f"d{i}" for i in range(lead + n)]))],
            ["parallel"] * (lead + n) + ["reduction"] * n,
            lambda s: [b.op(f"arith.addf {s[2]}, {s[0]} : {wide}", wide)],
        )
        return value

    def _average(
        self,
        b: MlirBuilder,
        total: MValue,
        kept: bool,
        type: TensorType,
        spatial: Sequence[int],
        out: Sequence[int],
    ) -> MValue:
        """Each window's sum (`total`: `[*lead, *out]`, or `[*lead, 1, *out]` when `kept`)
        divided by its count: the kernel's size, or without
        `count_include_pad` the number of its taps inside the input (static: a constant of the
        pooled dims, broadcast over the leading ones)."""
        import numpy as np

        wide = type.dtype
        n = len(self.kernel)
        counts = np.full(tuple(out), float(math.prod(self.kernel)))
        if not self.count_include_pad:
            counts[...] = 1.0
            for i in range(n):
                start = np.arange(out[i]) * self.stride[i]
                first = np.maximum(start, self.padding[i])
                last = np.minimum(start + self.kernel[i], self.padding[i] + spatial[i])
                shape = [1] * n
                shape[i] = out[i]
                counts = counts * (last - first).reshape(shape)
        counts_type = TensorType(tuple(out), wide)
        holder = np.float64 if wide == "f64" else np.float32
        divisor = tensor_constant(b, counts.astype(holder), counts_type)
        rank = type.rank
        lead = rank - n
        dims = [f"d{i}" for i in range(rank)]
        read = [*dims[:lead], "0", *dims[lead:]] if kept else dims
        (value,) = b.generic(
            [
                (total, affine_map(rank, read)),
                (divisor, affine_map(rank, dims[lead:])),
            ],
            [(b.empty(type), identity_map(rank))],
            ["parallel"] * rank,
            lambda s: [b.op(f"arith.divf {s[0]}, {s[1]} : {wide}", wide)],
        )
        return value

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        kernel: tuple[int, ...] = self.kernel
        taps = math.prod(kernel) + (1 if self.kind is PoolKind.AVG else 0)
        return taps * elements(result)

    def reference(self, *arrays: Any) -> Any:
        """The windows of the padded input, reduced over the kernel's taps in order."""
        import numpy as np

        x = widened(arrays[0])
        n = len(self.kernel)
        spatial = x.shape[x.ndim - n :]
        out = _window_sizes(
            "pool", spatial, self.kernel, self.stride, self.padding, self._dilation()
        )
        lead = x.ndim - n
        taps = tuple(range(lead, lead + n))
        if self.kind is PoolKind.MAX:
            low = -np.inf
            cols = _windows(
                _padded(x, self.padding, low), self.kernel, self.stride, self._dilation(), out
            )
            return np.max(cols, axis=taps)
        cols = _windows(
            _padded(x, self.padding, 0), self.kernel, self.stride, self._dilation(), out
        )
        total = np.sum(cols, axis=taps)
        if self.count_include_pad:
            return total / np.asarray(math.prod(self.kernel), dtype=total.dtype)
        inside = _windows(
            _padded(np.ones(spatial, dtype=x.dtype), self.padding, 0),
            self.kernel,
            self.stride,
            self._dilation(),
            out,
        )
        return total / np.sum(inside, axis=tuple(range(n)))


@register_op(category="tensor", name="topk")
class TopK(Op):
    """The `k` largest (or, without `largest`, smallest) elements along `axis`, in order, and
    their positions: a tuple `(values, indices)`, as torch's `topk` (sorted). Equal values
    keep their order; a NaN counts as the largest value.

    Types: the input is a tensor whose `axis` dim is static and at least `k` (>= 1); the result
    is a tuple of that shape with `axis` of size `k`, in the input's dtype and in i64.

    FLOPs: none (it compares and moves data).

    ```mlir
    %t = tf.call tf.tensor.topk<k = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x2xf32>, tensor<4x2xi64>>
    ```
    """

    builder_name: ClassVar[str] = "topk"

    input = ParamDef(kind="input", pattern=Tensor)
    k = ParamDef(kind="attribute", annotation=int)
    axis = ParamDef(kind="attribute", annotation=int, default=-1)
    largest = ParamDef(kind="attribute", annotation=bool, default=True)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        axis = normalize_axis(self.axis, x.rank)
        size = x.shape[axis]
        if not isinstance(size, int) or not 1 <= self.k <= size:
            raise ValueError(f"topk: k = {self.k} for dim {axis} of {x}")
        shape = (*x.shape[:axis], self.k, *x.shape[axis + 1 :])
        return TupleType((TensorType(shape, x.dtype), TensorType(shape, "i64")))

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """The reference's stable order as ranks: each element's rank along `axis` is the
        number of elements whose key comes before its own (a smaller key, or an equal key at a
        lower position); position `j` of the result takes the element of rank `j` (its
        position summed over the one hit, then gathered). Keys as the
        reference's: largest floats `-x` with a NaN as `-inf` (so a NaN ties with `+inf`),
        smallest floats `x` with a NaN as `+inf`, integers their value (i1 unsigned)."""
        (x_type,) = tensor_args(arg_types)
        assert isinstance(result, TupleType)
        values_type, indices_type = result.fields
        assert isinstance(values_type, TensorType) and isinstance(indices_type, TensorType)
        (x,) = values(args)
        dtype = x_type.dtype
        rank = x_type.rank
        axis = normalize_axis(self.axis, rank)
        # ranks: a generic over the input's dims and one more (the other element `m`)
        full = rank + 1
        here = [f"d{i}" for i in range(rank)]
        other = [f"d{rank}" if i == axis else f"d{i}" for i in range(rank)]
        ranks_init = b.fill(b.int_constant(0, "i64"), b.empty(x_type, "i64"))

        # the positions as data (iotas read through the maps), not `linalg.index`: IREE 3.13
        # cannot vectorize a reduction whose body is only index arithmetic (a splat input)
        size = x_type.shape[axis]
        assert isinstance(size, int)
        import numpy as np

        along = tensor_constant(b, np.arange(size, dtype=np.int64), TensorType((size,), "i64"))
        upto = tensor_constant(b, np.arange(self.k, dtype=np.int64), TensorType((self.k,), "i64"))

        def before(s: list[MValue]) -> list[MValue]:
            mine, theirs, i, m, count = s
            earlier = self._before(b, theirs, mine, dtype)
            same = self._same(b, theirs, mine, dtype)
            lower = b.op(f"arith.cmpi ult, {m}, {i} : i64", "i1")
            tie = b.op(f"arith.andi {same}, {lower} : i1", "i1")
            counted = b.op(f"arith.ori {earlier}, {tie} : i1", "i1")
            one = b.op(f"arith.extui {counted} : i1 to i64", "i64")
            return [b.op(f"arith.addi {count}, {one} : i64", "i64")]

        (ranks,) = b.generic(
            [
                (x, affine_map(full, here)),
                (x, affine_map(full, other)),
                (along, affine_map(full, [f"d{axis}"])),
                (along, affine_map(full, [f"d{rank}"])),
            ],
            [(ranks_init, affine_map(full, here))],
            ["parallel"] * rank + ["reduction"],
            before,
        )
        # the result: position j along the axis takes the element m whose rank is j (ranks are
        # a permutation: its index is the sum of m over the one hit), then x gathered there
        picked = [f"d{rank}" if i == axis else f"d{i}" for i in range(rank)]
        kept_indices = b.fill(b.int_constant(0, "i64"), b.empty(indices_type))

        def position(s: list[MValue]) -> list[MValue]:
            its_rank, j, m, total = s
            hit = b.op(f"arith.cmpi eq, {its_rank}, {j} : i64", "i1")
            taken = b.op(f"arith.select {hit}, {m}, {b.int_constant(0, 'i64')} : i64", "i64")
            return [b.op(f"arith.addi {total}, {taken} : i64", "i64")]

        (positions,) = b.generic(
            [
                (ranks, affine_map(full, picked)),
                (upto, affine_map(full, [f"d{axis}"])),
                (along, affine_map(full, [f"d{rank}"])),
            ],
            [(kept_indices, affine_map(full, here))],
            ["parallel"] * rank + ["reduction"],
            position,
        )

        def gather(s: list[MValue]) -> list[MValue]:
            at = b.op(f"arith.index_cast {s[0]} : i64 to index", "index")
            where = [at if i == axis else b.linalg_index(i) for i in range(rank)]
            return [
                b.op(f"tensor.extract {x}[{', '.join(w.name for w in where)}] : {x.type}", dtype)
            ]

        (chosen,) = b.generic(
            [(positions, identity_map(rank))],
            [(b.empty(values_type), identity_map(rank))],
            ["parallel"] * rank,
            gather,
        )
        return (chosen, positions)

    def _key(self, b: MlirBuilder, x: MValue, dtype: str) -> MValue:
        """A float's sort key in its compute type (never a NaN)."""
        wide = widen(b, x, dtype)
        type = compute_type(dtype)
        nan = b.op(f"arith.cmpf uno, {wide}, {wide} : {type}", "i1")
        infinity = float_literal(b, math.inf, type)
        if self.largest:
            negated = b.op(f"arith.negf {wide} : {type}", type)
            low = b.op(f"arith.negf {infinity} : {type}", type)
            return b.op(f"arith.select {nan}, {low}, {negated} : {type}", type)
        return b.op(f"arith.select {nan}, {infinity}, {wide} : {type}", type)

    def _before(self, b: MlirBuilder, a: MValue, c: MValue, dtype: str) -> MValue:
        """Whether `a`'s key is smaller than `c`'s."""
        if is_float(dtype):
            ka, kc = self._key(b, a, dtype), self._key(b, c, dtype)
            return b.op(f"arith.cmpf olt, {ka}, {kc} : {ka.type}", "i1")
        sign = "u" if dtype == "i1" else "s"
        predicate = f"{sign}gt" if self.largest else f"{sign}lt"
        return b.op(f"arith.cmpi {predicate}, {a}, {c} : {dtype}", "i1")

    def _same(self, b: MlirBuilder, a: MValue, c: MValue, dtype: str) -> MValue:
        """Whether the keys are equal."""
        if is_float(dtype):
            ka, kc = self._key(b, a, dtype), self._key(b, c, dtype)
            return b.op(f"arith.cmpf oeq, {ka}, {kc} : {ka.type}", "i1")
        return b.op(f"arith.cmpi eq, {a}, {c} : {dtype}", "i1")

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        axis = self.axis % x.ndim
        if not self.largest:
            key = np.where(np.isnan(x), np.inf, x) if x.dtype.kind == "f" else x
        elif x.dtype.kind == "f":
            key = np.where(np.isnan(x), -np.inf, -x.astype(np.float64))
        else:
            key = ~x  # order-reversing on integers (and bool), with no overflow
        order = np.argsort(key, axis=axis, kind="stable")
        first = np.take(order, np.arange(self.k), axis=axis)
        return np.take_along_axis(x, first, axis=axis), first.astype(np.int64)
