"""Windowed ops of vision and audio models: convolution and pooling over the trailing spatial
dims, and `topk` (what a frontend's `conv1d` / `conv2d`, `max_pool2d` / `avg_pool2d` and `topk`
map to).

```mlir
%y = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
%p = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
%t = tf.call tf.tensor.topk<k = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x2xf32>, tensor<4x2xi64>>
```

None of them has an emission rule yet: the native backend refuses them by name.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any, ClassVar

from tilefoundry.dialects.tf.numerics import widened
from tilefoundry.dialects.tf.types import DimVar, IRType, TensorType, TupleType
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
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
    for name, values in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(values) != n:
            raise ValueError(f"{op}: {name} {list(values)} has {len(values)} entries for {n} dims")
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
