"""The ATen rules of shapes and construction: views, expand, transpose, cat, slices, split,
embedding and indexing, `arange`, `full`."""

from __future__ import annotations

from typing import Any

from tilefoundry import ops
from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.dialects.tf.ops import TupleOp
from tilefoundry.frontends.torch.emitter import (
    INT64_MAX,
    Emitter,
    Merged,
    arg,
    value_dtype,
)
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.ir.algebra.expr import Expr

# -- shapes -----------------------------------------------------------------------------------


def view(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    if isinstance(x, Merged):  # a view back: its leading dims those the merge took
        out = em.out_type(node)
        have = x.value.type
        assert isinstance(have, TensorType)
        if out.shape[: x.lead] != have.shape[: x.lead]:
            raise x.refusal()
        return em.reshape(x.value, out)
    merged = _merged_view(em, node, x)
    if merged is not None:
        return merged
    return em.reshape(x, em.out_type(node))


def _merged_view(em: Emitter, node: Any, x: Expr) -> Merged | None:
    """A view of `x` that merges its leading dims into one whose size is a product with a
    dynamic factor (`[batch, seq, d]` to `[batch * seq, d]`), the other dims unchanged: the
    `Merged` it is; None for any other view."""
    import sympy

    have: Any = node.args[0].meta.get("val") if hasattr(node.args[0], "meta") else None
    want: Any = node.meta.get("val")
    if not hasattr(have, "shape") or not hasattr(want, "shape"):
        return None
    lead = len(have.shape) - len(want.shape) + 1
    if lead < 2 or not hasattr(want.shape[0], "node"):
        return None

    def expr(size: Any) -> Any:
        return size.node.expr if hasattr(size, "node") else sympy.Integer(int(size))

    if any(expr(a) != expr(b) for a, b in zip(have.shape[lead:], want.shape[1:], strict=True)):
        return None
    product = sympy.Mul(*(expr(d) for d in have.shape[:lead]))
    if sympy.expand(product - expr(want.shape[0])) != 0:
        return None
    return Merged(x, lead, em.dims.named(expr(want.shape[0])))


def expand(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    out = em.out_type(node)
    have = x.type
    assert isinstance(have, TensorType)
    lead = out.rank - have.rank
    shape: list[int] = []
    grown: list[int] = []  # the dims a size-1 dim expands to a DimVar in
    for index, dim in enumerate(out.shape):
        if isinstance(dim, DimVar):
            if index < lead or have.shape[index - lead] != dim:
                grown.append(index)
            shape.append(-1)
        else:
            shape.append(dim)
    if have.shape == out.shape:
        return x
    if not grown:
        return em.call(ops.BroadcastTo(shape=tuple(shape)), x)
    # to a DimVar: the static dims broadcast, then plus zeros of each DimVar along its dim
    value = x
    if lead:  # the new leading dims first, of size 1
        padded = tuple(1 if i < lead else have.shape[i - lead] for i in range(out.rank))
        value = em.reshape(value, TensorType(padded, have.dtype))
    value = em.call(ops.BroadcastTo(shape=tuple(shape)), value)
    for index in grown:
        dim = out.shape[index]
        assert isinstance(dim, DimVar)
        zeros = em.call(ops.Binary(kind=ops.BinaryKind.MUL), em.iota(dim), em.literal(0, "i64"))
        column = tuple(-1 if i == index else 1 for i in range(out.rank))
        zeros = em.call(ops.Reshape(shape=column), em.cast(zeros, out.dtype))
        if out.dtype == "i1":
            value = em.call(ops.Logical(kind=ops.LogicalKind.OR), value, zeros)
        else:
            value = em.call(ops.Binary(kind=ops.BinaryKind.ADD), value, zeros)
    return value


def transpose(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x: Expr = args[0]
    t = x.type
    assert isinstance(t, TensorType)
    a, b = args[1] % t.rank, args[2] % t.rank
    perm = list(range(t.rank))
    perm[a], perm[b] = perm[b], perm[a]
    return em.call(ops.Transpose(perm=tuple(perm)), x)


def t(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    return em.call(ops.Transpose(perm=tuple(reversed(range(t.rank)))), args[0])


def permute(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    t = args[0].type
    return em.call(ops.Transpose(perm=tuple(d % t.rank for d in args[1])), args[0])


def cat(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    parts = args[0]
    axis = arg(args, kwargs, 1, "dim", 0)
    dtype = em.out_type(node).dtype
    return em.call(ops.Concat(axis=axis), TupleOp([em.tensor(p, dtype) for p in parts]))


def slice_of(em: Emitter, x: Expr, axis: int, start: Any, stop: Any, step: Any) -> Expr:
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


def slice_tensor(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    axis = arg(args, kwargs, 1, "dim", 0)
    start = arg(args, kwargs, 2, "start", None)
    stop = arg(args, kwargs, 3, "end", None)
    step = arg(args, kwargs, 4, "step", 1)
    t = x.type
    assert isinstance(t, TensorType)
    if (start in (None, 0)) and (stop is None or stop >= INT64_MAX) and step == 1:
        return x
    return slice_of(em, x, axis, start, stop, step)


def select(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args
    stop = None if index == -1 else index + 1
    return em.reshape(slice_of(em, x, axis, index, stop, 1), em.out_type(node))


def split(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x = args[0]
    sizes = args[1]
    axis = arg(args, kwargs, 2, "dim", 0)
    t = x.type
    assert isinstance(t, TensorType)
    total = t.shape[axis]
    if not isinstance(total, int):
        raise TorchImportError("split of a dynamic dim")
    if isinstance(sizes, int):
        sizes = [min(sizes, total - s) for s in range(0, total, sizes)]
    parts, start = [], 0
    for size in sizes:
        parts.append(slice_of(em, x, axis, start, start + size, 1))
        start += size
    return parts


def embedding(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    weight, ids = args[0], args[1]
    return em.call(ops.Index(), weight, TupleOp([ids]))


def index(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`x[indices]`, a None a whole dim: the indexed dims moved to the front, `tf.tensor.index`,
    and (when they were adjacent) the index dims moved back to where the first one was, as
    torch places them (else they lead)."""
    x, indices = args
    for i in indices:
        if i is not None and value_dtype(i) == "i1":
            raise TorchImportError("index by a boolean mask")
    rank = x.type.rank
    taken = [axis for axis, i in enumerate(indices) if i is not None]
    tensors = [i for i in indices if i is not None]
    if taken == list(range(len(taken))):
        return em.call(ops.Index(), x, TupleOp(tensors))
    rest = [axis for axis in range(rank) if axis not in taken]
    moved = em.call(ops.Transpose(perm=tuple(taken + rest)), x)
    value = em.call(ops.Index(), moved, TupleOp(tensors))
    result = value.type
    assert isinstance(result, TensorType)
    lead = result.rank - len(rest)  # the broadcast index dims
    first = taken[0]
    if taken != list(range(first, first + len(taken))):
        return value  # not adjacent: the index dims lead, as in numpy
    before = [lead + i for i in range(first)]
    perm = (*before, *range(lead), *range(lead + first, result.rank))
    return em.call(ops.Transpose(perm=perm), value)


def repeat_interleave(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`repeat_interleave` by an int: a size-1 dim after `dim`, broadcast to the repeats, merged
    into `dim` (the flattened input when `dim` is None)."""
    x: Expr = args[0]
    repeats = args[1]
    axis = arg(args, kwargs, 2, "dim", None)
    if not isinstance(repeats, int):
        raise TorchImportError("repeat_interleave by a tensor of repeats")
    out = em.out_type(node)
    if axis is None:
        x, axis = em.call(ops.Reshape(shape=(-1,)), x), 0
    t = x.type
    assert isinstance(t, TensorType)
    axis %= t.rank
    shape = [-1 if isinstance(d, DimVar) else d for d in t.shape]
    if shape.count(-1) > 1:
        raise TorchImportError("repeat_interleave of a tensor with two dynamic dims")
    spread = em.call(ops.Reshape(shape=(*shape[: axis + 1], 1, *shape[axis + 1 :])), x)
    tiled = em.call(
        ops.BroadcastTo(shape=(*shape[: axis + 1], repeats, *shape[axis + 1 :])), spread
    )
    return em.reshape(tiled, out)


def unbind(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`unbind`: each index of `dim`, the dim dropped."""
    x: Expr = args[0]
    axis = arg(args, kwargs, 1, "dim", 0)
    t = x.type
    assert isinstance(t, TensorType)
    axis %= t.rank
    size = t.shape[axis]
    if not isinstance(size, int):
        raise TorchImportError("unbind of a dynamic dim")
    kept = [-1 if isinstance(d, DimVar) else d for i, d in enumerate(t.shape) if i != axis]
    return [
        em.call(ops.Reshape(shape=tuple(kept) or (1,)), slice_of(em, x, axis, i, i + 1, 1))
        for i in range(size)
    ]


def stack(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`stack`: each tensor with a size-1 dim at `dim`, joined along it."""
    parts = args[0]
    axis = arg(args, kwargs, 1, "dim", 0)
    out = em.out_type(node)
    axis %= out.rank
    grown = []
    for part in parts:
        t = part.type
        shape = [-1 if isinstance(d, DimVar) else d for d in t.shape]
        grown.append(
            em.call(ops.Reshape(shape=(*shape[:axis], 1, *shape[axis:])), em.cast(part, out.dtype))
        )
    return em.call(ops.Concat(axis=axis), TupleOp(grown))


def index_select(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args
    if axis != 0:
        raise TorchImportError(f"index_select along dim {axis} (only dim 0)")
    return em.call(ops.Index(), x, TupleOp([index]))


def gather(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis, index = args[0], args[1], args[2]
    return em.call(ops.Gather(axis=axis), x, index)


# -- construction ------------------------------------------------------------------------------


def static_type(em: Emitter, node: Any) -> TensorType:
    out = em.out_type(node)
    if not all(isinstance(d, int) for d in out.shape):
        raise TorchImportError(f"a tensor of dynamic shape {out} built from sizes")
    return out


def arange(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = em.out_type(node)
    end = args[0] if len(args) == 1 else args[1]
    if isinstance(out.shape[0], DimVar):  # arange(seq): from a tensor that has the dim
        start = 0 if len(args) == 1 else args[0]
        step = args[2] if len(args) > 2 else 1
        if not isinstance(end, int | DimVar):  # a size the submodule was passed (a SymInt)
            end = em.dims.dim(end, "arange")
        if end != out.shape[0] or start != 0 or step != 1:
            raise TorchImportError("arange of a dynamic size other than arange(dim)")
        return em.cast(em.iota(out.shape[0]), out.dtype)
    out = static_type(em, node)
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


def full(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out = static_type(em, node)
    value = _full_value(str(node.target), args, kwargs)
    if not isinstance(value, bool | int | float):
        raise TorchImportError("full of a tensor value")
    shape = tuple(d for d in out.shape if isinstance(d, int))
    return em.call(ops.Full(shape=shape, value=float(value), dtype=out.dtype))
