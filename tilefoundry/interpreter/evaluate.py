"""Reference execution of HIR functions on numpy arrays.

`run_function(func_op, args)` checks each argument against its parameter's type (dtype, rank,
static sizes, DimVar envelopes, one size per DimVar), picks the first variant whose DimVar
ranges hold the sizes (else the function's own body), evaluates it op by op (constants, tuples,
op calls through the op's `reference` method, function calls through the symbol table, mesh regions), and
returns the result as a numpy array, a tuple for a tuple value, or None for an effect-only
function.

A tensor is a value: its array is read-only (a view: the caller's array is left as it is), so
an op that wrote one would raise. A buffer (`!tf.buffer`, a prim function's parameter or an
alloc) is a writeable numpy array that effect-form ops write in place: the array given for a
buffer parameter is the buffer, and a call of a prim function passes it on by reference, so the
callee's writes are seen by the caller (and by the Python caller that passed the array).

Within `recording_selections()`, each choice a run makes (the variant or body of a function that
has variants, the case of a `tir.dispatch`) is recorded, in order, as a line of text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from tilefoundry.builtin.types import (
    BufferAttr,
    BufferType,
    DimVar,
    IRType,
    TensorType,
    TupleType,
    from_attr,
)
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dialects.tf.module import lookup_symbol
from tilefoundry.dialects.tf.numerics import cast_array, held_as
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp, PrimFuncOp
from tilefoundry.interpreter.depth import deep_calls
from tilefoundry.ir.symbols import SymbolTables
from tilefoundry.ir.traits import is_expression
from tilefoundry.support.diagnostics import ExecutionError

__all__ = [
    "ExecutionError",
    "check_argument",
    "evaluate_op",
    "function_runner",
    "recording_selections",
    "run_any",
    "run_function",
    "run_prim_function",
]


_SELECTIONS: ContextVar[list[str] | None] = ContextVar("selections", default=None)


@contextmanager
def recording_selections() -> Iterator[list[str]]:
    """Record the variants and dispatch cases the runs inside choose (see the docstring)."""
    selections: list[str] = []
    token = _SELECTIONS.set(selections)
    try:
        yield selections
    finally:
        _SELECTIONS.reset(token)


def _record(text: str) -> None:
    selections = _SELECTIONS.get()
    if selections is not None:
        selections.append(text)


def _ranges_text(patterns: Sequence[Any]) -> str:
    return "[" + ", ".join(f"{p.dim_var}: {p.lo} to {p.hi}" for p in patterns) + "]"


def _sizes_text(sizes: dict[str, int]) -> str:
    return ", ".join(f"{name} = {size}" for name, size in sizes.items()) or "no DimVars"


def check_argument(name: str, type: IRType, value: Any, sizes: dict[str, int]) -> Any:
    """The argument as an array of the parameter's dtype; refused when it does not fit."""
    if isinstance(type, TupleType):
        if not isinstance(value, tuple | list) or len(value) != len(type):
            raise ExecutionError(f"argument '{name}' must be a {len(type)}-tuple for {type}")
        return tuple(
            check_argument(f"{name}[{i}]", t, v, sizes)
            for i, (t, v) in enumerate(zip(type.fields, value, strict=True))
        )
    if isinstance(type, BufferType):
        return _buffer_argument(name, type, value, sizes)
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
    if not np.can_cast(array.dtype, expected, casting="same_kind"):
        raise ExecutionError(
            f"argument '{name}' has dtype {array.dtype}; {type} needs {type.dtype}"
        )
    return _frozen(held_as(array, type.dtype))  # bf16 rounded, NaNs quiet (else the array)


def _buffer_argument(name: str, type: BufferType, value: Any, sizes: dict[str, int]) -> Any:
    """The array itself: the function writes a buffer parameter in place."""
    expected = numpy_dtype(type.dtype)
    if not isinstance(value, np.ndarray) or value.dtype != expected or not value.flags.writeable:
        got = (
            f"a {'read-only ' * (not value.flags.writeable)}{value.dtype} array"
            if isinstance(value, np.ndarray)
            else value.__class__.__name__
        )
        raise ExecutionError(
            f"argument '{name}' is a buffer ({type}): pass a writeable numpy array of "
            f"{expected}, which the function writes in place; got {got}"
        )
    held = check_argument(name, type.tensor, value, sizes)
    if not np.shares_memory(held, value):  # its contents held as the dtype holds them (bf16)
        np.copyto(value, held)
    return value


def _frozen(value: Any) -> Any:
    """A tensor's value as read-only arrays (a view of a writeable one)."""
    if isinstance(value, tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, np.ndarray) and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def evaluate_op(op: CallOp, values: Sequence[Any]) -> Any:
    """One op call on concrete values, with its reference implementation; a tensor result is
    rounded to its type (`numerics.cast_array`). What the interpreter and the folder compute."""
    assert isinstance(op.callee, OpAttr)
    target = attr_to_op(op.callee)
    if not target.has_reference():
        raise ExecutionError(
            f"{target.op_name} has no reference implementation (define its `reference` "
            "method, or use @reference from tilefoundry.interpreter.reference)"
        )
    with np.errstate(all="ignore"):  # IEEE results (inf, nan, denormals) are defined values
        result = target.reference(*values)
        expected = from_attr(op.results[0].type) if op.results else None
        if isinstance(expected, TensorType):
            result = cast_array(result, expected.dtype)
    return result


def _arrays(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple | list):
        return [array for item in value for array in _arrays(item)]
    return [value] if isinstance(value, np.ndarray) else []


def refuse_aliasing(names: Sequence[str], types: Sequence[IRType], args: Sequence[Any]) -> None:
    """Refuse a call whose buffer argument shares memory with another argument (a tensor, which
    is a value, or another buffer): the function writes a buffer in place, so what it read
    would depend on the order its ops run in, which a pass may change."""
    if not any(isinstance(type, BufferType) for type in types):
        return  # tensors are values: only a buffer can be written while another is read
    arrays = [_arrays(value) for value in args]
    for i, (name, type) in enumerate(zip(names, types, strict=True)):
        if not isinstance(type, BufferType):
            continue
        for j, other in enumerate(arrays):
            if j == i or (j < i and isinstance(types[j], BufferType)):
                continue  # a pair of buffers is looked at once
            if any(_overlap(a, b) for a in arrays[i] for b in other):
                what = "buffer" if isinstance(types[j], BufferType) else "tensor"
                raise ExecutionError(
                    f"argument '{name}' (a buffer, written in place) shares memory with "
                    f"{what} argument '{names[j]}': pass a copy (`np.copy`) of one of them"
                )


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays share an element: their bounds first, then exactly (disjoint
    interleaved views of one array do not)."""
    return bool(np.may_share_memory(a, b)) and bool(np.shares_memory(a, b))


def _arguments(
    function: FuncOp | PrimFuncOp, args: Sequence[Any]
) -> tuple[list[Any], dict[str, int]]:
    """The checked arguments of a call, and the size each DimVar takes."""
    params = function.param_types()
    names = [n.data for n in function.param_names]
    if len(args) != len(params):
        raise ExecutionError(
            f"function '{function.sym_name.data}' takes {len(params)} argument(s) "
            f"({', '.join(names)}), got {len(args)}"
        )
    sizes: dict[str, int] = {}
    values = [
        check_argument(name, type, value, sizes)
        for name, type, value in zip(names, params, args, strict=True)
    ]
    return values, sizes


def run_function(function: FuncOp, args: Sequence[Any]) -> Any:
    """Run a `hir.func` on numpy arrays (see the module docstring)."""
    values, sizes = _arguments(function, args)
    block = function.body.block
    name = function.sym_name.data
    chosen = f"@{name}: its own body ({_sizes_text(sizes)}: no variant holds them)"
    for index, variant in enumerate(function.variant_ops()):
        if all(p.dim_var in sizes and p.match(sizes[p.dim_var]) for p in variant.patterns()):
            block = variant.body.block
            chosen = f"@{name}: variant #{index} {_ranges_text(variant.patterns())}"
            break
    if function.variant_ops():
        _record(chosen)
    env: dict[SSAValue, Any] = dict(zip(block.args, values, strict=True))
    returned = _run_block(block, env)
    return returned[0] if returned else None


def _run_block(block: Block, env: dict[SSAValue, Any]) -> list[Any]:
    """Run a block's ops; the values its terminator returns or yields."""
    for op in block.ops:
        if op.has_trait(IsTerminator):
            return [env[v] for v in op.operands]
        for result, value in zip(op.results, _evaluate(op, env), strict=True):
            env[result] = value if isinstance(result.type, BufferAttr) else _frozen(value)
    return []


def _evaluate(op: Operation, env: dict[SSAValue, Any]) -> list[Any]:
    """The values of an op's results."""
    if isinstance(op, MeshOp | LetOp | EvaluateOp):
        return _run_block(op.body.block, env)
    if not is_expression(op):
        raise ExecutionError(f"'{op.name}' has no reference semantics")
    values = [env[v] for v in op.operands]
    if isinstance(op, ConstantOp):
        return [op.value]
    if isinstance(op, TupleOp):
        return [tuple(values)]
    if isinstance(op, DispatchOp):
        return _listed(_dispatch(op, values), op)
    if isinstance(op, CallOp):
        if isinstance(op.callee, SymbolRefAttr):
            callee = lookup_symbol(op, op.callee)
            return _listed(_call_function(callee, op.callee, values), op)
        return _listed(evaluate_op(op, values), op)
    raise ExecutionError(f"'{op.name}' has no reference semantics")


def _listed(value: Any, op: Operation) -> list[Any]:
    return [value] if op.results else []


def _call_function(callee: Operation | None, ref: SymbolRefAttr, values: list[Any]) -> Any:
    if isinstance(callee, FuncOp):
        return run_function(callee, values)
    if isinstance(callee, PrimFuncOp):
        return run_prim_function(callee, values)
    raise ExecutionError(f"'{ref}' does not name a function to run")


def _dispatch(op: DispatchOp, values: list[Any]) -> Any:
    sizes: dict[str, int] = {}
    for value, arg in zip(values, op.args, strict=True):
        check_argument(str(arg.name_hint), from_attr(arg.type), value, sizes)
    for index, (callee, patterns) in enumerate(zip(op.callees, op.case_patterns, strict=True)):
        if all(p.dim_var in sizes and p.match(sizes[p.dim_var]) for p in patterns):
            _record(
                f"tir.dispatch: case #{index} @{callee.root_reference.data} "
                f"{_ranges_text(patterns)} ({_sizes_text(sizes)})"
            )
            return _call_function(lookup_symbol(op, callee), callee, values)
    shown = ", ".join(f"{k} = {v}" for k, v in sizes.items())
    raise ExecutionError(f"no dispatch case holds the argument sizes ({shown})")


def run_prim_function(function: PrimFuncOp, args: Sequence[Any]) -> Any:
    """Run a `tir.prim_func` on numpy arrays: its statements in order (effect-form calls act
    on the arrays in place); its return value, or None."""
    values, _ = _arguments(function, args)
    block = function.body.block
    env: dict[SSAValue, Any] = dict(zip(block.args, values, strict=True))
    returned = _run_block(block, env)
    return returned[0] if returned else None


def run_any(op: Operation, args: Sequence[Any]) -> Any:
    """Run a `hir.func` or a `tir.prim_func` on numpy arrays; the result is the caller's own
    (writeable arrays: inside a run, tensors are read-only). A buffer argument that shares
    memory with another argument is refused (`refuse_aliasing`). Calls may nest thousands
    deep (`deep_calls`). A run does not change the IR: each callee's symbol table is indexed
    once for it (`SymbolTables`)."""
    assert isinstance(op, FuncOp | PrimFuncOp)
    if len(args) == len(op.param_types()):
        refuse_aliasing([n.data for n in op.param_names], op.param_types(), args)
    with deep_calls(op), SymbolTables().scope():
        if isinstance(op, PrimFuncOp):
            return _released(run_prim_function(op, args))
        return _released(run_function(op, args))


def _released(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_released(v) for v in value)
    return np.array(value) if isinstance(value, np.ndarray) else value


def function_runner(function: Any) -> Callable[..., Any]:
    """A callable that runs a function (a `Function` / `PrimFunction` view) on numpy arrays,
    one per declared parameter: what `module.<function name>` gives."""
    op = function.function_op
    names = [p.name for p in function.params]

    def run(*args: Any) -> Any:
        return run_any(op, list(args))

    run.__name__ = run.__qualname__ = function.name
    run.__doc__ = f"Run '{function.name}({', '.join(names)})' on numpy arrays."
    return run
