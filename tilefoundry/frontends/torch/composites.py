"""The composite ATen rules: reductions, softmax, linear and matmul, layer norm, attention,
clamp, log-softmax, triangles, repeat (each several registered ops)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilefoundry import ops
from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.ops import ConstantOp, TupleOp
from tilefoundry.frontends.torch.emitter import (
    Emitter,
    Handler,
    Merged,
    arg,
    value_dtype,
)
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.frontends.torch.shapes import slice_of, static_type
from tilefoundry.ir.algebra.expr import Expr
from tilefoundry.ir.algebra.op_registry import Op

# -- reductions and friends ----------------------------------------------------------------


def _axes(dims: Any, rank: int) -> list[int]:
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % rank for d in dims}, reverse=True)


def reduction(op_class: type[Op]) -> Handler:
    """A reduction over `dim` (every dim when None), one op per dim with the dims kept, then
    the recorded shape."""

    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x: Expr = args[0]
        t = x.type
        assert isinstance(t, TensorType)
        out = em.out_type(node)
        value = em.cast(x, out.dtype)
        dims = arg(args, kwargs, 1, "dim", None)
        for axis in _axes(dims, t.rank):
            value = em.call(op_class(axis=axis, keepdims=True), value)
        return em.reshape(value, out)

    return handle


def decomposed(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The rule of an ATen op that torch's own decomposition replaces before the import (the
    importer asks torch for exactly the rows of the table that have this rule: `importer.lower`),
    so no call of it is left to map."""
    raise TorchImportError("torch's decomposition of it did not apply before the import")


def cumsum(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis = args[0], args[1]
    out = em.out_type(node)
    return em.call(ops.Cumsum(axis=axis % out.rank), em.cast(x, out.dtype))


def diff(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    n = arg(args, kwargs, 1, "n", 1)
    axis = arg(args, kwargs, 2, "dim", -1)
    prepend = arg(args, kwargs, 3, "prepend", None)
    append = arg(args, kwargs, 4, "append", None)
    out = em.out_type(node)
    t = x.type
    assert isinstance(t, TensorType)
    if isinstance(t.shape[axis % t.rank], DimVar):
        return _dynamic_diff(em, x, axis % t.rank, n, prepend, append, out)
    parts = [p for p in (prepend, x, append) if p is not None]
    value = x if len(parts) == 1 else em.call(ops.Concat(axis=axis), TupleOp(parts))
    kind = ops.BinaryKind.CMP_NE if out.dtype == "i1" else ops.BinaryKind.SUB
    for _ in range(n):
        later = slice_of(em, value, axis, 1, None, 1)
        earlier = slice_of(em, value, axis, 0, -1, 1)
        value = em.call(ops.Binary(kind=kind), later, earlier)
    return value


def _dynamic_diff(
    em: Emitter, x: Expr, axis: int, n: int, prepend: Any, append: Any, out: TensorType
) -> Expr:
    """`diff` along a dynamic dim with a one-element `prepend` (the length stays the dim's):
    `x - previous`, the previous element gathered at `max(i - 1, 0)`, and `prepend` at 0."""
    if n != 1 or append is not None or prepend is None:
        raise TorchImportError("diff along a dynamic dim other than with a one-element prepend")
    size = out.shape[axis]
    assert isinstance(size, DimVar)
    t = x.type
    assert isinstance(t, TensorType)
    positions = em.iota(size)
    column = tuple(-1 if i == axis else 1 for i in range(t.rank))
    shape = tuple(-1 if isinstance(d, DimVar) else d for d in t.shape)
    earlier = em.call(
        ops.Binary(kind=ops.BinaryKind.MAX),
        em.call(ops.Binary(kind=ops.BinaryKind.SUB), positions, em.literal(1, "i64")),
        em.literal(0, "i64"),
    )
    index = em.call(ops.BroadcastTo(shape=shape), em.call(ops.Reshape(shape=column), earlier))
    first = em.call(
        ops.Reshape(shape=column),
        em.call(ops.Binary(kind=ops.BinaryKind.CMP_EQ), positions, em.literal(0, "i64")),
    )
    previous = em.call(ops.Where(), first, prepend, em.call(ops.Gather(axis=axis), x, index))
    kind = ops.BinaryKind.CMP_NE if out.dtype == "i1" else ops.BinaryKind.SUB
    return em.call(ops.Binary(kind=kind), x, previous)


def softmax(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = em.out_type(node)
    return em.call(ops.Softmax(axis=args[1] % out.rank), em.cast(args[0], out.dtype))


# -- composites: linear, layer norm, attention ---------------------------------------------


def matmul_t(em: Emitter, x: Expr, weight: Expr) -> Expr:
    """`x @ weight.T` (torch's Linear stores `[out, in]`)."""
    return em.call(ops.MatMul(), x, em.call(ops.Transpose(perm=(1, 0)), weight))


def linear(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, weight = args[0], args[1]
    bias = arg(args, kwargs, 2, "bias", None)
    t = x.type
    assert isinstance(t, TensorType)
    if t.rank < 2:
        raise TorchImportError("linear of a rank-1 input")
    y = matmul_t(em, x, weight)
    return y if bias is None else em.call(ops.Binary(kind=ops.BinaryKind.ADD), y, bias)


def addmm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`bias + x @ w`; an `x` of merged leading dims (`Merged`) stays unflattened: its rows
    are multiplied where they are (a batched matmul by the 2-d `w`), the bias broadcast."""
    bias, x, w = args[0], args[1], args[2]
    if kwargs.get("beta", 1) != 1 or kwargs.get("alpha", 1) != 1:
        raise TorchImportError("addmm with beta or alpha other than 1")
    if isinstance(x, Merged):
        if isinstance(bias, Merged) or isinstance(w, Merged) or w.type.rank != 2:
            raise x.refusal()
        product = em.call(ops.MatMul(), x.value, w)
        return Merged(em.call(ops.Binary(kind=ops.BinaryKind.ADD), product, bias), x.lead, x.size)
    return em.call(ops.Binary(kind=ops.BinaryKind.ADD), em.call(ops.MatMul(), x, w), bias)


def baddbmm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`beta * self + alpha * (batch1 @ batch2)` (a factor of 1 left out, `self` with beta 0)."""
    base, lhs, rhs = args[0], args[1], args[2]
    beta = arg(args, kwargs, 3, "beta", 1)
    alpha = arg(args, kwargs, 4, "alpha", 1)
    out = em.out_type(node)
    product = em.call(ops.MatMul(), em.cast(lhs, out.dtype), em.cast(rhs, out.dtype))
    if alpha != 1:
        product = em.call(
            ops.Binary(kind=ops.BinaryKind.MUL), product, em.literal(alpha, out.dtype)
        )
    if beta == 0:
        return product
    base = em.cast(base, out.dtype)
    if beta != 1:
        base = em.call(ops.Binary(kind=ops.BinaryKind.MUL), base, em.literal(beta, out.dtype))
    return em.call(ops.Binary(kind=ops.BinaryKind.ADD), base, product)


def topk(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`topk` (sorted, as `tf.tensor.topk` always is): the (values, indices) tuple."""
    x, k = args[0], args[1]
    axis = arg(args, kwargs, 2, "dim", -1)
    largest = arg(args, kwargs, 3, "largest", True)
    return em.call(ops.TopK(k=k, axis=axis, largest=bool(largest)), x)


def mm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    weight = args[1]
    if isinstance(args[0], Merged) and isinstance(weight, Expr):
        merged = args[0]
        if not isinstance(weight.type, TensorType) or weight.type.rank != 2:
            raise merged.refusal()
        return Merged(em.call(ops.MatMul(), merged.value, args[1]), merged.lead, merged.size)
    for x in args[:2]:
        if x.type.rank < 2:
            raise TorchImportError("matmul of a rank-1 operand")
    return em.call(ops.MatMul(), args[0], args[1])


def layer_norm(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    normalized = args[1]
    weight = arg(args, kwargs, 2, "weight", None)
    bias = arg(args, kwargs, 3, "bias", None)
    eps = arg(args, kwargs, 4, "eps", 1e-5)
    if len(normalized) != 1:
        raise TorchImportError("layer_norm over more than the last dim")
    dtype = value_dtype(x)
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


def sdpa(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    q, k, v = args[0], args[1], args[2]
    mask = arg(args, kwargs, 3, "attn_mask", None)
    dropout = arg(args, kwargs, 4, "dropout_p", 0.0)
    causal = arg(args, kwargs, 5, "is_causal", False)
    scale = arg(args, kwargs, 6, "scale", None)
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
        if value_dtype(mask) == "i1":
            scores = em.call(ops.Where(), mask, scores, em.literal(lowest, dtype))
        else:
            scores = em.call(ops.Binary(kind=ops.BinaryKind.ADD), scores, em.cast(mask, dtype))
    probs = em.call(ops.Softmax(axis=-1), scores)
    return em.call(ops.MatMul(), probs, v)


def sym_size(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    assert isinstance(t, TensorType)
    return t.shape[args[1]]


# -- further compositions -------------------------------------------------------------------


def clamp(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    dtype = em.out_type(node).dtype
    value = em.tensor(args[0], dtype)
    low = arg(args, kwargs, 1, "min", None)
    high = arg(args, kwargs, 2, "max", None)
    if low is not None:
        value = em.call(ops.Binary(kind=ops.BinaryKind.MAX), value, em.tensor(low, dtype))
    if high is not None:
        value = em.call(ops.Binary(kind=ops.BinaryKind.MIN), value, em.tensor(high, dtype))
    return value


def log_softmax(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
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


def triangle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    diagonal = arg(args, kwargs, 1, "diagonal", 0)
    out = static_type(em, node)
    rows, cols = out.shape[-2], out.shape[-1]
    assert isinstance(rows, int) and isinstance(cols, int)
    ones = np.ones((rows, cols), dtype=bool)
    keep = np.tril(ones, diagonal) if "tril" in str(node.target) else np.triu(ones, diagonal)
    zero = em.literal(0, out.dtype)
    return em.call(ops.Where(), ConstantOp(keep), x, zero)


def repeat(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    reps = list(args[1])
    out = static_type(em, node)
    t = x.type
    assert isinstance(t, TensorType)
    shape = [1] * (len(reps) - t.rank) + [d for d in t.shape if isinstance(d, int)]
    # each dim d becomes (rep, d): broadcast a new axis before it, then merge the two
    spread = [v for size in shape for v in (1, size)]
    value = em.call(ops.Reshape(shape=tuple(spread)), x)
    tiled = [v for rep, size in zip(reps, shape, strict=True) for v in (rep, size)]
    value = em.call(ops.BroadcastTo(shape=tuple(tiled)), value)
    return em.reshape(value, out)
