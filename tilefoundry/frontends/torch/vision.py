"""The ATen rules of convolutional models and of the norms: `conv1d` / `conv2d` (`tf.nn.conv`
and the bias), max / average pooling (`tf.nn.pool`), adaptive average pooling (reshapes, slices
and means), batch norm in eval mode, group norm and RMS norm (their formulas in registered
ops)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefoundry import ops
from tilefoundry.builtin.types import TensorType
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.ops import TupleOp
from tilefoundry.frontends.torch.emitter import Emitter, arg, value_dtype
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.ir.algebra.expr import Expr

MUL, ADD, SUB = ops.BinaryKind.MUL, ops.BinaryKind.ADD, ops.BinaryKind.SUB


def _type(x: Expr) -> TensorType:
    t = x.type
    assert isinstance(t, TensorType)
    return t


def _per_dim(value: Any, n: int, what: str) -> tuple[int, ...]:
    """A torch size argument (an int, or a list of one or `n` ints) as `n` ints."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise TorchImportError(f"{what} {value!r} for {n} spatial dim(s)")
    return tuple(values)


def _channel_vector(em: Emitter, v: Expr, spatial: int) -> Expr:
    """A per-channel vector `[C]` shaped to broadcast along dim 1 of `[N, C, *spatial]`."""
    size = _type(v).shape[0]
    assert isinstance(size, int)
    return em.call(ops.Reshape(shape=(size, *([1] * spatial))), v)


# -- convolution ---------------------------------------------------------------------------


def conv(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`conv1d` / `conv2d` / `convolution` (not transposed): `tf.nn.conv`, then the bias."""
    name = str(node.target)
    x, weight = args[0], args[1]
    bias = arg(args, kwargs, 2, "bias", None)
    n = _type(weight).rank - 2
    if "convolution" in name:
        stride, padding, dilation = args[3], args[4], args[5]
        if args[6]:
            raise TorchImportError("a transposed convolution")
        groups = args[8]
    else:
        stride = arg(args, kwargs, 3, "stride", 1)
        padding = arg(args, kwargs, 4, "padding", 0)
        dilation = arg(args, kwargs, 5, "dilation", 1)
        groups = arg(args, kwargs, 6, "groups", 1)
    dilations = _per_dim(dilation, n, "dilation")
    if isinstance(padding, str):
        padding = _string_padding(padding, _type(weight).shape[2:], dilations)
    out = em.out_type(node)
    value: Expr = em.cast(x, out.dtype)
    if _type(value).rank == n + 1:  # an unbatched input: a batch of one
        shape = _type(value).shape
        if not all(isinstance(d, int) for d in shape):
            raise TorchImportError("an unbatched convolution of a dynamic dim")
        value = em.call(ops.Reshape(shape=(1, *(d for d in shape if isinstance(d, int)))), value)
    conv_op = ops.Conv(
        stride=_per_dim(stride, n, "stride"),
        padding=_per_dim(padding, n, "padding"),
        dilation=dilations if any(d != 1 for d in dilations) else (),
        groups=groups,
    )
    value = em.call(conv_op, value, em.cast(weight, out.dtype))
    if bias is not None:
        value = em.call(
            ops.Binary(kind=ADD), value, _channel_vector(em, em.cast(bias, out.dtype), n)
        )
    return em.reshape(value, out)


def _string_padding(mode: str, kernel: Any, dilation: tuple[int, ...]) -> tuple[int, ...]:
    if mode == "valid":
        return (0,) * len(dilation)
    totals = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
    if mode != "same" or any(t % 2 for t in totals):
        raise TorchImportError(f"padding '{mode}' (an asymmetric 'same' padding is refused)")
    return tuple(t // 2 for t in totals)


# -- pooling ---------------------------------------------------------------------------------


def _pooled_dims(name: str) -> int:
    return 1 if "1d" in name else 3 if "3d" in name else 2


def pool(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`max_pool{1,2}d` / `avg_pool{1,2}d`: `tf.nn.pool` (a `ceil_mode` only where it gives
    the floor mode's shape)."""
    name = str(node.target)
    x: Expr = args[0]
    n = _pooled_dims(name)
    kernel = _per_dim(args[1], n, "kernel_size")
    stride_arg = arg(args, kwargs, 2, "stride", [])
    stride = kernel if not stride_arg else _per_dim(stride_arg, n, "stride")
    padding = _per_dim(arg(args, kwargs, 3, "padding", 0), n, "padding")
    out = em.out_type(node)
    if "max" in name:
        dilation = _per_dim(arg(args, kwargs, 4, "dilation", 1), n, "dilation")
        op = ops.Pool(
            kind=ops.PoolKind.MAX,
            kernel=kernel,
            stride=stride,
            padding=padding,
            dilation=dilation if any(d != 1 for d in dilation) else (),
        )
    else:
        include = arg(args, kwargs, 5, "count_include_pad", True)
        if arg(args, kwargs, 6, "divisor_override", None) is not None:
            raise TorchImportError("avg_pool with a divisor_override")
        op = ops.Pool(
            kind=ops.PoolKind.AVG,
            kernel=kernel,
            stride=stride,
            padding=padding,
            count_include_pad=bool(include),
        )
    value = em.call(op, em.cast(x, out.dtype))
    if _type(value).shape != out.shape:
        raise TorchImportError(f"ceil_mode pooling to {out} (a partial last window)")
    return value


def adaptive_avg_pool(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`adaptive_avg_pool{1,2}d`: per pooled dim, a reshape and a mean where the size divides
    evenly, else a mean of each window's slice, joined (the windows torch takes)."""
    name = str(node.target)
    x: Expr = args[0]
    n = _pooled_dims(name)
    sizes = _per_dim(args[1], n, "output_size")
    out = em.out_type(node)
    value = em.cast(x, out.dtype)
    rank = _type(value).rank
    for offset, target in enumerate(sizes):
        axis = rank - n + offset
        shape = _type(value).shape
        size = shape[axis]
        if not isinstance(size, int):
            raise TorchImportError("adaptive pooling of a dynamic dim")
        if size % target == 0:
            split = [-1 if not isinstance(d, int) else d for d in shape]
            split[axis : axis + 1] = [target, size // target]
            value = em.call(ops.Reshape(shape=tuple(split)), value)
            value = em.call(ops.ReduceMean(axis=axis + 1), value)
            continue
        parts = []
        for i in range(target):
            start, stop = (i * size) // target, -((-(i + 1) * size) // target)
            window = em.call(ops.Slice(axis=axis, start=start, stop=stop), value)
            parts.append(em.call(ops.ReduceMean(axis=axis, keepdims=True), window))
        value = em.call(ops.Concat(axis=axis), TupleOp(parts))
    return em.reshape(value, out)


# -- norms -------------------------------------------------------------------------------------


def _normalized(em: Emitter, x: Expr, mean: Expr, var: Expr, eps: float) -> Expr:
    """`(x - mean) * rsqrt(var + eps)`."""
    scale = em.call(
        ops.Unary(kind=ops.UnaryKind.RSQRT),
        em.call(ops.Binary(kind=ADD), var, em.literal(eps, value_dtype(var))),
    )
    return em.call(ops.Binary(kind=MUL), em.call(ops.Binary(kind=SUB), x, mean), scale)


def batch_norm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Batch norm with the running statistics (eval): `(x - mean) * rsqrt(var + eps) * weight +
    bias` per channel (dim 1). `_native_batch_norm_legit_no_training` gives a tuple, whose
    other fields (the saved statistics) are not computed."""
    name = str(node.target)
    x, weight, bias, mean, var = args[:5]
    if "legit" in name:
        eps = arg(args, kwargs, 6, "eps", 1e-5)
    else:
        if arg(args, kwargs, 5, "training", False):
            raise TorchImportError("batch norm in training mode")
        eps = arg(args, kwargs, 7, "eps", 1e-5)
    if mean is None or var is None:
        raise TorchImportError("batch norm without running statistics")
    spatial = _type(x).rank - 2
    dtype = value_dtype(x)
    vector = [_channel_vector(em, em.cast(v, dtype), spatial) for v in (mean, var)]
    y = _normalized(em, x, vector[0], vector[1], eps)
    if weight is not None:
        y = em.call(ops.Binary(kind=MUL), y, _channel_vector(em, em.cast(weight, dtype), spatial))
    if bias is not None:
        y = em.call(ops.Binary(kind=ADD), y, _channel_vector(em, em.cast(bias, dtype), spatial))
    return [y, None, None] if "legit" in name else y


def group_norm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`group_norm`: each group's channels and positions normalized together, then the
    per-channel affine."""
    x: Expr = args[0]
    groups = args[1]
    weight = arg(args, kwargs, 2, "weight", None)
    bias = arg(args, kwargs, 3, "bias", None)
    eps = arg(args, kwargs, 4, "eps", 1e-5)
    t = _type(x)
    batch = t.shape[0]
    if not all(isinstance(d, int) for d in t.shape):
        raise TorchImportError("group_norm of a dynamic dim")
    grouped = em.call(ops.Reshape(shape=(batch, groups, -1)), x)
    mean = em.call(ops.ReduceMean(axis=-1, keepdims=True), grouped)
    centered = em.call(ops.Binary(kind=SUB), grouped, mean)
    var = em.call(
        ops.ReduceMean(axis=-1, keepdims=True), em.call(ops.Binary(kind=MUL), centered, centered)
    )
    y = em.reshape(_normalized(em, grouped, mean, var, eps), t)
    spatial = t.rank - 2
    if weight is not None:
        y = em.call(ops.Binary(kind=MUL), y, _channel_vector(em, weight, spatial))
    if bias is not None:
        y = em.call(ops.Binary(kind=ADD), y, _channel_vector(em, bias, spatial))
    return y


def rms_norm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`rms_norm` over the trailing `normalized_shape` dims: `x * rsqrt(mean(x * x) + eps) *
    weight` (eps, when None, the dtype's machine epsilon, as torch's)."""
    x: Expr = args[0]
    normalized = list(args[1])
    weight = arg(args, kwargs, 2, "weight", None)
    eps = arg(args, kwargs, 3, "eps", None)
    out = em.out_type(node)
    value = em.cast(x, out.dtype)
    if eps is None:
        eps = float(np.finfo(numpy_dtype(out.dtype)).eps)
    square = em.call(ops.Binary(kind=MUL), value, value)
    for offset in range(len(normalized)):
        square = em.call(ops.ReduceMean(axis=-1 - offset, keepdims=True), square)
    scale = em.call(
        ops.Unary(kind=ops.UnaryKind.RSQRT),
        em.call(ops.Binary(kind=ADD), square, em.literal(eps, out.dtype)),
    )
    y = em.call(ops.Binary(kind=MUL), value, scale)
    if weight is not None:
        y = em.call(ops.Binary(kind=MUL), y, em.cast(weight, out.dtype))
    return y
