"""ATen ops -> registered ops. Each handler takes the emitter, the fx node, its arguments
(Exprs for tensors, Python values otherwise) and keyword arguments, and returns the value: an
Expr, a list of Exprs (`split`), or None (an assertion that computes nothing).

Shapes come from the node's own `meta["val"]` (what torch.export recorded), so `view`,
`unsqueeze`, `flatten` are one `reshape` whatever sizes were written; Python scalars become
`Constant`s of shape (1,), in the dtype torch's type promotion gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tilefoundry import ops
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tf.types import DimVar, TensorType
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.frontends.torch.types import DimTable, tensor_type
from tilefoundry.ir.algebra.expr import Expr
from tilefoundry.ir.algebra.op_registry import Op

__all__ = ["HANDLERS", "Emitter"]

INT64_MAX = 2**63 - 1


class Emitter:
    """What the handlers share: types from node metadata, casts, literals."""

    def __init__(self, dims: DimTable) -> None:
        self.dims = dims

    def out_type(self, node: Any) -> TensorType:
        val = node.meta.get("val")
        if not hasattr(val, "shape"):
            raise TorchImportError(f"op '{node.target}' has no recorded tensor result")
        return tensor_type(val, self.dims, f"op '{node.target}'")

    def call(self, op: Op, *args: Expr) -> CallOp:
        return CallOp(op, list(args))

    def cast(self, x: Expr, dtype: str) -> Expr:
        have = x.type
        assert isinstance(have, TensorType)
        return x if have.dtype == dtype else self.call(ops.Cast(dtype=dtype), x)

    def literal(self, value: Any, dtype: str) -> Expr:
        return ConstantOp(np.array([value], dtype=numpy_dtype(dtype)))

    def tensor(self, x: Any, dtype: str) -> Expr:
        """`x` as a tensor of `dtype`: an Expr cast, a Python scalar a literal."""
        if isinstance(x, Expr):
            return self.cast(x, dtype)
        if isinstance(x, bool | int | float):
            return self.literal(x, dtype)
        raise TorchImportError(f"expected a tensor or a number, got {type(x).__name__} {x!r}")

    def reshape(self, x: Expr, out: TensorType) -> Expr:
        have = x.type
        assert isinstance(have, TensorType)
        if have.shape == out.shape:
            return x
        shape = [-1 if isinstance(d, DimVar) else d for d in out.shape]
        return self.call(ops.Reshape(shape=tuple(shape)), x)


def _dtype(x: Any) -> str:
    if isinstance(x, Expr):
        t = x.type
        assert isinstance(t, TensorType)
        return t.dtype
    if isinstance(x, bool):
        return "i1"
    return "i64" if isinstance(x, int) else "f32"


def _category(dtype: str) -> int:
    return 0 if dtype == "i1" else 1 if dtype.startswith("i") else 2


_WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f16": 16, "bf16": 16, "f32": 32}
_WIDTH["f64"] = 64


def promote(*values: Any) -> str:
    """torch's type promotion, for tensors and Python scalars (a scalar joins in only when it
    is of a higher category: an int tensor times 0.5 is f32)."""
    tensors = [_dtype(v) for v in values if isinstance(v, Expr)]
    scalars = [_dtype(v) for v in values if not isinstance(v, Expr)]
    best = max(tensors, key=lambda d: (_category(d), _WIDTH[d])) if tensors else "f32"
    for scalar in scalars:
        if _category(scalar) > _category(best):
            best = "f32" if scalar == "f32" else "i64"
    return best


Handler = Callable[[Emitter, Any, list[Any], dict[str, Any]], Any]
HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = fn
        return fn

    return register


def _arg(args: list[Any], kwargs: dict[str, Any], index: int, name: str, default: Any) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


# -- elementwise ------------------------------------------------------------------------------

_ARITH = {
    "add": ops.BinaryKind.ADD,
    "sub": ops.BinaryKind.SUB,
    "mul": ops.BinaryKind.MUL,
    "div": ops.BinaryKind.DIV,
    "pow": ops.BinaryKind.POW,
    "maximum": ops.BinaryKind.MAX,
    "minimum": ops.BinaryKind.MIN,
}
_COMPARE = {
    "eq": ops.BinaryKind.CMP_EQ,
    "ne": ops.BinaryKind.CMP_NE,
    "lt": ops.BinaryKind.CMP_LT,
    "le": ops.BinaryKind.CMP_LE,
    "gt": ops.BinaryKind.CMP_GT,
    "ge": ops.BinaryKind.CMP_GE,
}


def _arith(kind: ops.BinaryKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        lhs, rhs = args[0], args[1]
        if kwargs.get("rounding_mode") is not None:
            raise TorchImportError(f"div with rounding_mode={kwargs['rounding_mode']!r}")
        dtype = em.out_type(node).dtype
        alpha = kwargs.get("alpha", 1)
        b = em.tensor(rhs, dtype)
        if alpha != 1:
            b = em.call(ops.Binary(kind=ops.BinaryKind.MUL), b, em.literal(alpha, dtype))
        return em.call(ops.Binary(kind=kind), em.tensor(lhs, dtype), b)

    return handle


def _compare(kind: ops.BinaryKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        lhs, rhs = args[0], args[1]
        dtype = promote(lhs, rhs)
        return em.call(ops.Binary(kind=kind), em.tensor(lhs, dtype), em.tensor(rhs, dtype))

    return handle


for _name, _kind in _ARITH.items():
    for _overload in ("Tensor", "Scalar", "default", "Tensor_Scalar", "Tensor_Tensor"):
        HANDLERS[f"aten.{_name}.{_overload}"] = _arith(_kind)
HANDLERS["aten.max.other"] = _arith(ops.BinaryKind.MAX)
HANDLERS["aten.min.other"] = _arith(ops.BinaryKind.MIN)
for _name, _kind in _COMPARE.items():
    for _overload in ("Tensor", "Scalar"):
        HANDLERS[f"aten.{_name}.{_overload}"] = _compare(_kind)


@handles("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return _arith(ops.BinaryKind.SUB)(em, node, [args[1], args[0]], kwargs)


def _logical(kind: ops.LogicalKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if em.out_type(node).dtype != "i1":
            raise TorchImportError(f"bitwise {kind.value} of integers")
        return em.call(ops.Logical(kind=kind), em.tensor(args[0], "i1"), em.tensor(args[1], "i1"))

    return handle


for _kind2 in ops.LogicalKind:
    for _name in (f"__{_kind2.value}__", f"bitwise_{_kind2.value}", f"logical_{_kind2.value}"):
        HANDLERS[f"aten.{_name}.Tensor"] = _logical(_kind2)
        HANDLERS[f"aten.{_name}.default"] = _logical(_kind2)


@handles("aten.logical_not.default", "aten.bitwise_not.default")
def _not(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if em.out_type(node).dtype != "i1":
        raise TorchImportError("bitwise not of integers")
    return em.call(ops.LogicalNot(), em.tensor(args[0], "i1"))


_UNARY = {
    "neg": ops.UnaryKind.NEG,
    "exp": ops.UnaryKind.EXP,
    "log": ops.UnaryKind.LOG,
    "sqrt": ops.UnaryKind.SQRT,
    "rsqrt": ops.UnaryKind.RSQRT,
    "tanh": ops.UnaryKind.TANH,
    "abs": ops.UnaryKind.ABS,
    "sigmoid": ops.UnaryKind.SIGMOID,
    "relu": ops.UnaryKind.RELU,
}
_ACTIVATIONS = {
    "silu": ops.ActivationKind.SILU,
    "sin": ops.ActivationKind.SIN,
    "cos": ops.ActivationKind.COS,
    "erf": ops.ActivationKind.ERF,
}


def _unary(op: Op) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return em.call(op, em.tensor(args[0], em.out_type(node).dtype))

    return handle


for _name, _ukind in _UNARY.items():
    HANDLERS[f"aten.{_name}.default"] = _unary(ops.Unary(kind=_ukind))
for _name, _akind in _ACTIVATIONS.items():
    HANDLERS[f"aten.{_name}.default"] = _unary(ops.Activation(kind=_akind))


@handles("aten.gelu.default")
def _gelu(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    approximate = _arg(args, kwargs, 1, "approximate", "none")
    kind = ops.ActivationKind.GELU_TANH if approximate == "tanh" else ops.ActivationKind.GELU
    return em.call(ops.Activation(kind=kind), args[0])


@handles("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def _where(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    cond, a, b = args
    dtype = em.out_type(node).dtype
    return em.call(ops.Where(), em.tensor(cond, "i1"), em.tensor(a, dtype), em.tensor(b, dtype))


@handles("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, mask, value = args
    dtype = em.out_type(node).dtype
    return em.call(ops.Where(), em.tensor(mask, "i1"), em.tensor(value, dtype), em.tensor(x, dtype))


# -- identities and casts -------------------------------------------------------------------


@handles(
    "aten.clone.default",
    "aten.alias.default",
    "aten.contiguous.default",
    "aten.detach.default",
    "aten.lift_fresh_copy.default",
)
def _identity(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return args[0]


@handles("aten.dropout.default")
def _dropout(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if _arg(args, kwargs, 2, "train", False):
        raise TorchImportError("dropout in training mode (import the model in eval mode)")
    return args[0]


@handles("aten._assert_tensor_metadata.default", "aten._assert_scalar.default")
def _assertion(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return None


@handles(
    "aten._to_copy.default",
    "aten.to.dtype",
    "aten.to.dtype_layout",
    "aten.to.device",
    "aten.type_as.default",
)
def _to(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return em.cast(args[0], em.out_type(node).dtype)


# -- shapes -----------------------------------------------------------------------------------


@handles(
    "aten.view.default",
    "aten._unsafe_view.default",
    "aten.reshape.default",
    "aten.unsqueeze.default",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.squeeze.default",
    "aten.flatten.using_ints",
    "aten.unflatten.int",
)
def _reshape(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return em.reshape(args[0], em.out_type(node))


@handles("aten.expand.default", "aten.expand_as.default")
def _expand(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    out = em.out_type(node)
    have = x.type
    assert isinstance(have, TensorType)
    lead = out.rank - have.rank
    shape: list[int] = []
    for index, dim in enumerate(out.shape):
        if isinstance(dim, DimVar):
            if index < lead or have.shape[index - lead] != dim:
                raise TorchImportError(f"expand to the dynamic dim {dim.name}")
            shape.append(-1)
        else:
            shape.append(dim)
    if have.shape == out.shape:
        return x
    return em.call(ops.BroadcastTo(shape=tuple(shape)), x)


@handles("aten.transpose.int")
def _transpose(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    t = x.type
    assert isinstance(t, TensorType)
    a, b = args[1] % t.rank, args[2] % t.rank
    perm = list(range(t.rank))
    perm[a], perm[b] = perm[b], perm[a]
    return em.call(ops.Transpose(perm=tuple(perm)), x)


@handles("aten.t.default", "aten.numpy_T.default")
def _t(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    return em.call(ops.Transpose(perm=tuple(reversed(range(t.rank)))), args[0])


@handles("aten.permute.default")
def _permute(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    return em.call(ops.Transpose(perm=tuple(d % t.rank for d in args[1])), args[0])


@handles("aten.cat.default", "aten.concat.default")
def _cat(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    parts = args[0]
    axis = _arg(args, kwargs, 1, "dim", 0)
    dtype = em.out_type(node).dtype
    return em.call(ops.Concat(axis=axis), TupleOp([em.tensor(p, dtype) for p in parts]))


def _slice_of(em: Emitter, x: Expr, axis: int, start: Any, stop: Any, step: Any) -> Expr:
    for what, value in (("start", start), ("end", stop), ("step", step)):
        if value is not None and not isinstance(value, int):
            raise TorchImportError(f"slice with a symbolic {what}")
    t = x.type
    assert isinstance(t, TensorType)
    op = ops.Slice(
        axis=axis % t.rank,
        start=0 if start is None else start,
        stop=INT64_MAX if stop is None else min(stop, INT64_MAX),
        step=1 if step is None else step,
    )
    return em.call(op, x)


@handles("aten.slice.Tensor")
def _slice(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    axis = _arg(args, kwargs, 1, "dim", 0)
    start = _arg(args, kwargs, 2, "start", None)
    stop = _arg(args, kwargs, 3, "end", None)
    step = _arg(args, kwargs, 4, "step", 1)
    t = x.type
    assert isinstance(t, TensorType)
    if (start in (None, 0)) and (stop is None or stop >= INT64_MAX) and step == 1:
        return x
    return _slice_of(em, x, axis, start, stop, step)


@handles("aten.select.int")
def _select(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args
    stop = None if index == -1 else index + 1
    return em.reshape(_slice_of(em, x, axis, index, stop, 1), em.out_type(node))


@handles("aten.split.Tensor", "aten.split_with_sizes.default")
def _split(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    sizes = args[1]
    axis = _arg(args, kwargs, 2, "dim", 0)
    t = x.type
    assert isinstance(t, TensorType)
    total = t.shape[axis]
    if not isinstance(total, int):
        raise TorchImportError("split of a dynamic dim")
    if isinstance(sizes, int):
        sizes = [min(sizes, total - s) for s in range(0, total, sizes)]
    parts, start = [], 0
    for size in sizes:
        parts.append(_slice_of(em, x, axis, start, start + size, 1))
        start += size
    return parts


@handles("aten.embedding.default")
def _embedding(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    weight, ids = args[0], args[1]
    return em.call(ops.Index(), weight, TupleOp([ids]))


@handles("aten.index.Tensor")
def _index(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, indices = args
    if any(i is None for i in indices):
        raise TorchImportError("index with a None (a sliced dim before the indexed ones)")
    for i in indices:
        if _dtype(i) == "i1":
            raise TorchImportError("index by a boolean mask")
    return em.call(ops.Index(), x, TupleOp(list(indices)))


@handles("aten.index_select.default")
def _index_select(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args
    if axis != 0:
        raise TorchImportError(f"index_select along dim {axis} (only dim 0)")
    return em.call(ops.Index(), x, TupleOp([index]))


@handles("aten.gather.default")
def _gather(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args[0], args[1], args[2]
    return em.call(ops.Gather(axis=axis), x, index)


# -- construction ------------------------------------------------------------------------------


def _static(em: Emitter, node: Any) -> TensorType:
    out = em.out_type(node)
    if not all(isinstance(d, int) for d in out.shape):
        raise TorchImportError(f"a tensor of dynamic shape {out} built from sizes")
    return out


@handles("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = _static(em, node)
    start, step = (0, 1) if len(args) == 1 else (args[0], args[2] if len(args) > 2 else 1)
    if not (isinstance(start, int) and isinstance(step, int)):
        raise TorchImportError("arange of non-integer start or step")
    size = out.shape[0]
    assert isinstance(size, int)
    iota = em.call(ops.Iota(start=start, step=step, size=size, dtype="i64"))
    return em.cast(iota, out.dtype)


def _full_value(node_name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if "ones" in node_name:
        return 1
    if "zeros" in node_name:
        return 0
    if "scalar_tensor" in node_name:
        return args[0]
    return args[-1] if "full_like" not in node_name else args[1]


@handles(
    "aten.full.default",
    "aten.new_full.default",
    "aten.new_ones.default",
    "aten.new_zeros.default",
    "aten.ones.default",
    "aten.zeros.default",
    "aten.ones_like.default",
    "aten.zeros_like.default",
    "aten.full_like.default",
)
def _full(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = _static(em, node)
    value = _full_value(str(node.target), args, kwargs)
    if not isinstance(value, bool | int | float):
        raise TorchImportError("full of a tensor value")
    shape = tuple(d for d in out.shape if isinstance(d, int))
    return em.call(ops.Full(shape=shape, value=float(value), dtype=out.dtype))


# -- reductions and friends ----------------------------------------------------------------


def _axes(dims: Any, rank: int) -> list[int]:
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank for d in dims}, reverse=True)


def _reduce(op: Callable[[int, bool], Op], mean: bool = False) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x: Expr = args[0]
        t = x.type
        assert isinstance(t, TensorType)
        out = em.out_type(node)
        value = em.cast(x, out.dtype)
        dims = _arg(args, kwargs, 1, "dim", None)
        for axis in _axes(dims, t.rank):
            value = em.call(op(axis, True), value)  # kept dims, then the recorded shape
        return em.reshape(value, out)

    return handle


HANDLERS["aten.mean.dim"] = _reduce(lambda a, k: ops.ReduceMean(axis=a, keepdims=k))
HANDLERS["aten.sum.dim_IntList"] = _reduce(lambda a, k: ops.ReduceSum(axis=a, keepdims=k))
HANDLERS["aten.sum.default"] = _reduce(lambda a, k: ops.ReduceSum(axis=a, keepdims=k))
HANDLERS["aten.mean.default"] = _reduce(lambda a, k: ops.ReduceMean(axis=a, keepdims=k))
HANDLERS["aten.amax.default"] = _reduce(lambda a, k: ops.ReduceMax(axis=a, keepdims=k))


@handles("aten.cumsum.default")
def _cumsum(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis = args[0], args[1]
    out = em.out_type(node)
    return em.call(ops.Cumsum(axis=axis % out.rank), em.cast(x, out.dtype))


@handles("aten.diff.default")
def _diff(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    n = _arg(args, kwargs, 1, "n", 1)
    axis = _arg(args, kwargs, 2, "dim", -1)
    prepend = _arg(args, kwargs, 3, "prepend", None)
    append = _arg(args, kwargs, 4, "append", None)
    out = em.out_type(node)
    parts = [p for p in (prepend, x, append) if p is not None]
    value = x if len(parts) == 1 else em.call(ops.Concat(axis=axis), TupleOp(parts))
    kind = ops.BinaryKind.CMP_NE if out.dtype == "i1" else ops.BinaryKind.SUB
    for _ in range(n):
        later = _slice_of(em, value, axis, 1, None, 1)
        earlier = _slice_of(em, value, axis, 0, -1, 1)
        value = em.call(ops.Binary(kind=kind), later, earlier)
    return value


@handles("aten.softmax.int", "aten._softmax.default", "aten._safe_softmax.default")
def _softmax(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = em.out_type(node)
    return em.call(ops.Softmax(axis=args[1] % out.rank), em.cast(args[0], out.dtype))


# -- composites: linear, layer norm, attention ---------------------------------------------


def _matmul_t(em: Emitter, x: Expr, weight: Expr) -> Expr:
    """`x @ weight.T` (torch's Linear stores `[out, in]`)."""
    return em.call(ops.MatMul(), x, em.call(ops.Transpose(perm=(1, 0)), weight))


@handles("aten.linear.default")
def _linear(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, weight = args[0], args[1]
    bias = _arg(args, kwargs, 2, "bias", None)
    t = x.type
    assert isinstance(t, TensorType)
    if t.rank < 2:
        raise TorchImportError("linear of a rank-1 input")
    y = _matmul_t(em, x, weight)
    return y if bias is None else em.call(ops.Binary(kind=ops.BinaryKind.ADD), y, bias)


@handles("aten.addmm.default")
def _addmm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    bias, x, w = args[0], args[1], args[2]
    if kwargs.get("beta", 1) != 1 or kwargs.get("alpha", 1) != 1:
        raise TorchImportError("addmm with beta or alpha other than 1")
    return em.call(ops.Binary(kind=ops.BinaryKind.ADD), em.call(ops.MatMul(), x, w), bias)


@handles("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def _mm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    for x in args[:2]:
        if x.type.rank < 2:
            raise TorchImportError("matmul of a rank-1 operand")
    return em.call(ops.MatMul(), args[0], args[1])


@handles("aten.layer_norm.default")
def _layer_norm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    normalized = args[1]
    weight = _arg(args, kwargs, 2, "weight", None)
    bias = _arg(args, kwargs, 3, "bias", None)
    eps = _arg(args, kwargs, 4, "eps", 1e-5)
    if len(normalized) != 1:
        raise TorchImportError("layer_norm over more than the last dim")
    dtype = _dtype(x)
    mean = em.call(ops.ReduceMean(axis=-1, keepdims=True), x)
    centered = em.call(ops.Binary(kind=ops.BinaryKind.SUB), x, mean)
    square = em.call(ops.Binary(kind=ops.BinaryKind.MUL), centered, centered)
    var = em.call(ops.ReduceMean(axis=-1, keepdims=True), square)
    scale = em.call(
        ops.Unary(kind=ops.UnaryKind.RSQRT),
        em.call(ops.Binary(kind=ops.BinaryKind.ADD), var, em.literal(eps, dtype)),
    )
    y = em.call(ops.Binary(kind=ops.BinaryKind.MUL), centered, scale)
    if weight is not None:
        y = em.call(ops.Binary(kind=ops.BinaryKind.MUL), y, weight)
    if bias is not None:
        y = em.call(ops.Binary(kind=ops.BinaryKind.ADD), y, bias)
    return y


@handles("aten.scaled_dot_product_attention.default")
def _sdpa(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    q, k, v = args[0], args[1], args[2]
    mask = _arg(args, kwargs, 3, "attn_mask", None)
    dropout = _arg(args, kwargs, 4, "dropout_p", 0.0)
    causal = _arg(args, kwargs, 5, "is_causal", False)
    scale = _arg(args, kwargs, 6, "scale", None)
    if dropout:
        raise TorchImportError(f"attention dropout {dropout}")
    if kwargs.get("enable_gqa"):
        raise TorchImportError("attention with enable_gqa")
    qt, kt = q.type, k.type
    assert isinstance(qt, TensorType) and isinstance(kt, TensorType)
    dtype = qt.dtype
    head = qt.shape[-1]
    assert isinstance(head, int)
    scale = 1.0 / math.sqrt(head) if scale is None else scale
    perm = (*range(kt.rank - 2), kt.rank - 1, kt.rank - 2)
    scores = em.call(ops.MatMul(), q, em.call(ops.Transpose(perm=perm), k))
    scores = em.call(ops.Binary(kind=ops.BinaryKind.MUL), scores, em.literal(scale, dtype))
    lowest = float(np.finfo(numpy_dtype(dtype)).min)
    if causal:
        rows, cols = qt.shape[-2], kt.shape[-2]
        if not (isinstance(rows, int) and isinstance(cols, int)):
            raise TorchImportError("causal attention over a dynamic length")
        keep = np.tril(np.ones((rows, cols), dtype=bool), cols - rows)
        mask = ConstantOp(keep)
    if mask is not None:
        if _dtype(mask) == "i1":
            scores = em.call(ops.Where(), mask, scores, em.literal(lowest, dtype))
        else:
            scores = em.call(ops.Binary(kind=ops.BinaryKind.ADD), scores, em.cast(mask, dtype))
    probs = em.call(ops.Softmax(axis=-1), scores)
    return em.call(ops.MatMul(), probs, v)


@handles("aten.sym_size.int")
def _sym_size(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    assert isinstance(t, TensorType)
    return t.shape[args[1]]


# -- further compositions -------------------------------------------------------------------


@handles("aten.clamp.default", "aten.clamp.Tensor", "aten.clip.default")
def _clamp(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    dtype = em.out_type(node).dtype
    value = em.tensor(args[0], dtype)
    low = _arg(args, kwargs, 1, "min", None)
    high = _arg(args, kwargs, 2, "max", None)
    if low is not None:
        value = em.call(ops.Binary(kind=ops.BinaryKind.MAX), value, em.tensor(low, dtype))
    if high is not None:
        value = em.call(ops.Binary(kind=ops.BinaryKind.MIN), value, em.tensor(high, dtype))
    return value


@handles("aten.log_softmax.int", "aten._log_softmax.default")
def _log_softmax(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = em.out_type(node)
    x = em.cast(args[0], out.dtype)
    axis = args[1] % out.rank
    shifted = em.call(
        ops.Binary(kind=ops.BinaryKind.SUB), x, em.call(ops.ReduceMax(axis=axis, keepdims=True), x)
    )
    total = em.call(
        ops.ReduceSum(axis=axis, keepdims=True), em.call(ops.Unary(kind=ops.UnaryKind.EXP), shifted)
    )
    return em.call(
        ops.Binary(kind=ops.BinaryKind.SUB),
        shifted,
        em.call(ops.Unary(kind=ops.UnaryKind.LOG), total),
    )


@handles("aten.tril.default", "aten.triu.default")
def _triangle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    diagonal = _arg(args, kwargs, 1, "diagonal", 0)
    out = _static(em, node)
    rows, cols = out.shape[-2], out.shape[-1]
    assert isinstance(rows, int) and isinstance(cols, int)
    ones = np.ones((rows, cols), dtype=bool)
    keep = np.tril(ones, diagonal) if "tril" in str(node.target) else np.triu(ones, diagonal)
    zero = em.literal(0, out.dtype)
    return em.call(ops.Where(), ConstantOp(keep), x, zero)


@handles("aten.repeat.default")
def _repeat(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    reps = list(args[1])
    out = _static(em, node)
    t = x.type
    assert isinstance(t, TensorType)
    shape = [1] * (len(reps) - t.rank) + [d for d in t.shape if isinstance(d, int)]
    # each dim d becomes (rep, d): broadcast a new axis before it, then merge the two
    spread = [v for size in shape for v in (1, size)]
    value = em.call(ops.Reshape(shape=tuple(spread)), x)
    tiled = [v for rep, size in zip(reps, shape, strict=True) for v in (rep, size)]
    value = em.call(ops.BroadcastTo(shape=tuple(tiled)), value)
    return em.reshape(value, out)
