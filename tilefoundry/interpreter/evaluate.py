"""Reference execution of HIR functions on numpy arrays.

`run_function(func_op, args)` checks each argument against its parameter's type (dtype, rank,
static sizes, DimVar envelopes, one size per DimVar), evaluates the body op by op (constants,
tuples, op calls through `REFERENCE`, function calls through the symbol table), and returns the
result as a numpy array, a tuple for a tuple value, or None for an effect-only function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from tilefoundry.dialects.dense import numpy_dtype
from tilefoundry.dialects.hir import FuncOp, ReturnOp
from tilefoundry.dialects.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf import CallOp, ConstantOp, TupleOp
from tilefoundry.interpreter.reference import REFERENCE
from tilefoundry.types import DimVar, IRType, TensorType, TupleType, from_attr

__all__ = ["ExecutionError", "check_argument", "evaluate_op", "run_function"]


class ExecutionError(ValueError):
    """A reference run refused: a bad argument, or an op without a reference implementation."""


def check_argument(
    name: str, type: IRType, value: Any, sizes: dict[str, int]
) -> Any:
    """The argument as an array of the parameter's dtype; refused when it does not fit."""
    if isinstance(type, TupleType):
        if not isinstance(value, tuple | list) or len(value) != len(type):
            raise ExecutionError(f"argument '{name}' must be a {len(type)}-tuple for {type}")
        return tuple(
            check_argument(f"{name}[{i}]", t, v, sizes)
            for i, (t, v) in enumerate(zip(type.fields, value, strict=True))
        )
    if not isinstance(type, TensorType):
        raise ExecutionError(f"argument '{name}' has type {type}, which takes no value")
    array = np.asarray(value)
    if array.ndim != type.rank:
        raise ExecutionError(
            f"argument '{name}' has rank {array.ndim} (shape {array.shape}); {type} has rank {type.rank}"
        )
    for axis, (dim, size) in enumerate(zip(type.shape, array.shape, strict=True)):
        if isinstance(dim, DimVar):
            if not dim.contains(size):
                raise ExecutionError(
                    f"argument '{name}' dim {axis} is {size}, outside {dim.name}'s envelope "
                    f"[{dim.lo}, {dim.hi})"
                )
            bound = sizes.setdefault(dim.name, size)
            if bound != size:
                raise ExecutionError(
                    f"argument '{name}' dim {axis} is {size}, but {dim.name} is already {bound}"
                )
        elif dim != size:
            raise ExecutionError(f"argument '{name}' dim {axis} is {size}, expected {dim}")
    expected = numpy_dtype(type.dtype)
    if array.dtype != expected:
        if not np.can_cast(array.dtype, expected, casting="same_kind"):
            raise ExecutionError(
                f"argument '{name}' has dtype {array.dtype}; {type} needs {type.dtype}"
            )
        array = array.astype(expected)
    return array


def evaluate_op(op: CallOp, values: Sequence[Any]) -> Any:
    """One op call on concrete values, with its reference implementation."""
    assert isinstance(op.callee, OpAttr)
    target = attr_to_op(op.callee)
    impl = REFERENCE.get(type(target))
    if impl is None:
        raise ExecutionError(
            f"{target.op_name} has no reference implementation (register one with "
            "@reference in tilefoundry.interpreter.reference)"
        )
    return impl(target, *values)


def run_function(function: FuncOp, args: Sequence[Any]) -> Any:
    """Run a `hir.func` on numpy arrays (see the module docstring)."""
    params = function.param_types()
    names = [n.data for n in function.param_names]
    if len(args) != len(params):
        raise ExecutionError(
            f"function '{function.sym_name.data}' takes {len(params)} argument(s) "
            f"({', '.join(names)}), got {len(args)}"
        )
    sizes: dict[str, int] = {}
    env: dict[SSAValue, Any] = {}
    for arg, name, type, value in zip(function.body.block.args, names, params, args, strict=True):
        env[arg] = check_argument(name, type, value, sizes)
    for op in function.body.block.ops:
        if isinstance(op, ReturnOp):
            return env[op.values[0]] if op.values else None
        result = _evaluate(op, [env[v] for v in op.operands])
        if op.results:
            env[op.results[0]] = result
    raise ExecutionError(f"function '{function.sym_name.data}' has no hir.return")


def _evaluate(op: Operation, values: list[Any]) -> Any:
    if isinstance(op, ConstantOp):
        return op.value
    if isinstance(op, TupleOp):
        return tuple(values)
    if isinstance(op, CallOp):
        if isinstance(op.callee, SymbolRefAttr):
            callee = SymbolTable.lookup_symbol(op, op.callee)
            if not isinstance(callee, FuncOp):
                raise ExecutionError(f"'{op.callee}' does not name an HIR function to run")
            return run_function(callee, values)
        result = evaluate_op(op, values)
        expected = from_attr(op.results[0].type) if op.results else None
        if isinstance(expected, TensorType):
            return np.asarray(result).astype(numpy_dtype(expected.dtype), copy=False)
        return result
    raise ExecutionError(f"'{op.name}' has no reference semantics")
