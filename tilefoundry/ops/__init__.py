"""The registered op library, and its Python surface.

Every op class is registered under dialect `tf` (`tf.math.binary`, `tf.reduce.sum`, ...); the
kinded sugar names (`add`, `cmp_lt`, `exp`, ...) are aliases under `("tf", "math", name)`. Each
function below builds a `Call` through overload resolution (the first schema of the bucket whose
patterns accept the arguments):

```python
from tilefoundry.ops import add, matmul, reduce_sum
y = add(matmul(x, w), b)           # Call(Binary(kind=ADD), [Call(MatMul(), [x, w]), b])
```
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tilefoundry.arguments import items_of
from tilefoundry.dialects.tf.metadata import IRMetadata
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.algebra.expr import Expr, check_expr
from tilefoundry.ir.algebra.op_registry import resolve_schema
from tilefoundry.ops.linalg import MatMul, Transpose
from tilefoundry.ops.math import (
    BINARY_ALIASES,
    UNARY_ALIASES,
    Binary,
    BinaryKind,
    Cast,
    Unary,
    UnaryKind,
)
from tilefoundry.ops.memory import Alloc, Copy, Load
from tilefoundry.ops.nn import (
    Activation,
    ActivationKind,
    Cumsum,
    Logical,
    LogicalKind,
    LogicalNot,
    ReduceMean,
    Softmax,
)
from tilefoundry.ops.reduce import ReduceMax, ReduceSum
from tilefoundry.ops.structure import Split, TupleGetItem
from tilefoundry.ops.tensor import (
    BroadcastTo,
    Concat,
    Full,
    Gather,
    Index,
    Iota,
    Reshape,
    Slice,
    Where,
)

__all__ = [
    "Alloc",
    "Activation",
    "ActivationKind",
    "BroadcastTo",
    "Concat",
    "Cumsum",
    "Full",
    "Gather",
    "Index",
    "Iota",
    "Logical",
    "LogicalKind",
    "LogicalNot",
    "ReduceMean",
    "Reshape",
    "Slice",
    "Softmax",
    "Where",
    "Binary",
    "BinaryKind",
    "Cast",
    "Copy",
    "Load",
    "MatMul",
    "ReduceMax",
    "ReduceSum",
    "Split",
    "Transpose",
    "TupleGetItem",
    "Unary",
    "UnaryKind",
    "alloc",
    "call_surface",
    "cast",
    "copy",
    "load",
    "matmul",
    "reduce_max",
    "reduce_sum",
    "split",
    "transpose",
    "tuple_get_item",
    *BINARY_ALIASES,
    *UNARY_ALIASES,
]


def call_surface(
    dialect: str,
    category: str,
    name: str,
    *args: Expr,
    metadata: Iterable[IRMetadata] = (),
    **attrs: Any,
) -> CallOp:
    """`Call` the surface name `dialect.category.name`: the first matching schema's builder
    makes the Op (from attribute kwargs only), and the args become the Call's arguments."""
    for index, arg in enumerate(args):
        check_expr(arg, f"'{name}' argument #{index}")
    schema = resolve_schema(dialect, category, name, [a.type for a in args])
    return CallOp(schema.builder(**attrs), args, metadata=metadata)


def _math_alias(name: str, arity: int) -> Any:
    def build(*args: Expr, metadata: Iterable[IRMetadata] = ()) -> CallOp:
        if len(args) != arity:
            raise TypeError(f"{name}() takes {arity} argument(s), got {len(args)}")
        return call_surface("tf", "math", name, *args, metadata=metadata)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"`Call` of the `{name}` alias (dialect tf, category math)."
    return build


for _name in BINARY_ALIASES:
    globals()[_name] = _math_alias(_name, 2)
for _name in UNARY_ALIASES:
    globals()[_name] = _math_alias(_name, 1)
del _name


def matmul(lhs: Expr, rhs: Expr, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    return CallOp(MatMul(), [lhs, rhs], metadata=metadata)


def transpose(x: Expr, perm: Iterable[int], *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    order = items_of(perm, "transpose perm", "an iterable of int")
    return CallOp(Transpose(perm=order), [x], metadata=metadata)


def reduce_sum(
    x: Expr, axis: int, keepdims: bool = False, *, metadata: Iterable[IRMetadata] = ()
) -> CallOp:
    return CallOp(ReduceSum(axis=axis, keepdims=keepdims), [x], metadata=metadata)


def reduce_max(
    x: Expr, axis: int, keepdims: bool = False, *, metadata: Iterable[IRMetadata] = ()
) -> CallOp:
    return CallOp(ReduceMax(axis=axis, keepdims=keepdims), [x], metadata=metadata)


def cast(x: Expr, dtype: str, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    return CallOp(Cast(dtype=dtype), [x], metadata=metadata)


def split(x: Expr, axis: int, sections: int, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    return CallOp(Split(axis=axis, sections=sections), [x], metadata=metadata)


def tuple_get_item(t: Expr, index: int, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    return CallOp(TupleGetItem(index=index), [t], metadata=metadata)


def copy(dst: Expr, src: Expr, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    """Write `src` into the buffer `dst` in place (effect-form: run it with `Evaluate`)."""
    return CallOp(Copy(), [dst, src], metadata=metadata)


def load(buffer: Expr, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    """The contents of a buffer at this point, as a tensor."""
    return CallOp(Load(), [buffer], metadata=metadata)


def alloc(shape: Iterable[int], dtype: str, *, metadata: Iterable[IRMetadata] = ()) -> CallOp:
    """A fresh zero-initialised buffer (anchor it with a `LetStmt`)."""
    return CallOp(Alloc(shape=tuple(shape), dtype=dtype), [], metadata=metadata)
