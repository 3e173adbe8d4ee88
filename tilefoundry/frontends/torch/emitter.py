"""What the ATen rules share: the `Emitter` (types from node metadata, casts, literals), torch's
type promotion, and the `Handler` signature of a rule of the table (`table.py`).

A handler takes the emitter, the fx node, its arguments (Exprs for tensors, Python values
otherwise) and keyword arguments, and returns the value: an Expr, a list of Exprs (`split`), or
None (an assertion that computes nothing). Shapes come from the node's own `meta["val"]` (what
torch.export recorded); Python scalars become `Constant`s of shape (1,), in the dtype torch's
type promotion gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from tilefoundry import ops
from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.dialects.tf.dense import array_to_dense, numpy_dtype
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.frontends.torch.types import DimTable, tensor_type
from tilefoundry.ir.algebra.expr import Expr
from tilefoundry.ir.algebra.op_registry import Op

__all__ = ["INT64_MAX", "Emitter", "Handler", "Merged", "arg", "promote", "value_dtype"]

INT64_MAX = 2**63 - 1


class Merged:
    """A torch tensor whose leading dim is the product of `lead` leading dims of `value`, some
    dynamic (`x.view(-1, d)` of a `[batch, seq, d]` x: `batch * seq`, which no DimVar is): the
    IR keeps `value` unflattened. Only what acts on each row alike takes it (`addmm`, `mm` with
    a 2-d weight, giving another `Merged`), and a `view` back to leading dims of their own ends
    it; anything else refuses it (`refusal`)."""

    def __init__(self, value: Expr, lead: int, size: str) -> None:
        self.value = value
        self.lead = lead
        self.size = size  # torch's expression of the merged size (`s0*s1`), for messages

    def refusal(self) -> TorchImportError:
        return TorchImportError(
            f"the size {self.size} is not a dynamic dim of its own (only a plain Dim maps to a "
            "DimVar; a product of leading dims is taken by view, addmm and mm only)"
        )


class Emitter:
    """What the handlers share: types from node metadata, casts, literals."""

    def __init__(self, dims: DimTable) -> None:
        self.dims = dims
        self.carriers: dict[str, tuple[Expr, int]] = {}  # DimVar name -> a tensor and its axis
        # a literal's dense attribute by its dtype, Python type and text (`repr` tells -0.0,
        # nan and inf apart): an immutable value, built once per function
        self.literals: dict[tuple[str, type, str], DenseIntOrFPElementsAttr] = {}

    def carry(self, x: Expr) -> None:
        """Note the dynamic dims of `x` (a parameter): what a tensor built from their size
        (`arange(seq)`) is built from."""
        t = x.type
        if isinstance(t, TensorType):
            for axis, dim in enumerate(t.shape):
                if isinstance(dim, DimVar):
                    self.carriers.setdefault(dim.name, (x, axis))

    def iota(self, dim: DimVar) -> Expr:
        """`0, 1, ..., dim - 1` (i64) for a dynamic dim: the ones of a tensor that has it (zeros
        plus one, reduced to that dim), summed up, minus one."""
        found = self.carriers.get(dim.name)
        if found is None:
            raise TorchImportError(f"a tensor of the dynamic size {dim.name} that no input has")
        x, axis = found
        t = x.type
        assert isinstance(t, TensorType)
        zeros = self.call(
            ops.Binary(kind=ops.BinaryKind.MUL), self.cast(x, "i64"), self.literal(0, "i64")
        )
        for other in reversed(range(t.rank)):
            if other != axis:
                zeros = self.call(ops.ReduceMax(axis=other, keepdims=True), zeros)
        ones = self.call(
            ops.Binary(kind=ops.BinaryKind.ADD),
            self.call(ops.Reshape(shape=(-1,)), zeros),
            self.literal(1, "i64"),
        )
        counted = self.call(ops.Cumsum(axis=0), ones)
        return self.call(ops.Binary(kind=ops.BinaryKind.SUB), counted, self.literal(1, "i64"))

    def out_type(self, node: Any) -> TensorType:
        val = node.meta.get("val")
        if not hasattr(val, "shape"):
            raise TorchImportError(f"op '{node.target}' has no recorded tensor result")
        return tensor_type(val, self.dims, lambda: f"op '{node.target}'")

    def call(self, op: Op, *args: Expr) -> CallOp:
        return CallOp(op, list(args))

    def cast(self, x: Expr, dtype: str) -> Expr:
        have = x.type
        assert isinstance(have, TensorType)
        return x if have.dtype == dtype else self.call(ops.Cast(dtype=dtype), x)

    def literal(self, value: Any, dtype: str) -> Expr:
        key = (dtype, type(value), repr(value))
        dense = self.literals.get(key)
        if dense is None:
            dense = array_to_dense(np.array([value], dtype=numpy_dtype(dtype)))
            self.literals[key] = dense
        return ConstantOp(dense)

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
        dynamic = [d for d in have.shape if isinstance(d, DimVar)]
        if len(dynamic) < 2:
            return self.call(ops.Reshape(shape=tuple(shape)), x)
        # several DimVars: each -1 entry the input dim that has its DimVar, in order
        free = [i for i, d in enumerate(have.shape) if isinstance(d, DimVar)]
        dims = []
        for d in out.shape:
            if isinstance(d, DimVar):
                found = next((i for i in free if have.shape[i] == d), None)
                if found is None:
                    raise TorchImportError(f"a reshape of {have} to {out}")
                free.remove(found)
                dims.append(found)
        return self.call(ops.Reshape(shape=tuple(shape), dims=tuple(dims)), x)


def value_dtype(x: Any) -> str:
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
    tensors = [value_dtype(v) for v in values if isinstance(v, Expr)]
    scalars = [value_dtype(v) for v in values if not isinstance(v, Expr)]
    best = max(tensors, key=lambda d: (_category(d), _WIDTH[d])) if tensors else "f32"
    for scalar in scalars:
        if _category(scalar) > _category(best):
            best = "f32" if scalar == "f32" else "i64"
    return best


Handler = Callable[[Emitter, Any, list[Any], dict[str, Any]], Any]
"""A rule of the table: `(emitter, node, args, kwargs) -> value`."""


def arg(args: list[Any], kwargs: dict[str, Any], index: int, name: str, default: Any) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)
