"""The call graph of a module tree: which functions a function calls (through `tf.call` of a
symbol and the cases of `tir.dispatch`, in its body and its variants), and the module passes'
shared view of the tree.

A symbol is resolved where it is used (`lookup_symbol`, as `SymbolTable.lookup_symbol`), so a callee is always a
function of the calling module's own subtree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation

from tilefoundry.dialects.tf.module import ModuleOp, lookup_symbol
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp
from tilefoundry.ir.algebra.callable import FunctionLike

__all__ = [
    "callees",
    "functions_of",
    "reachable_from",
    "roots_of",
    "symbol_uses",
]


def roots_of(anchor: Operation) -> list[ModuleOp]:
    """The module trees a module pass works on: the anchor itself when it is a `tf.module`,
    else the `tf.module`s directly in it (the input file's roots)."""
    if isinstance(anchor, ModuleOp):
        return [anchor]
    assert isinstance(anchor, BuiltinModuleOp)
    return [op for op in anchor.body.block.ops if isinstance(op, ModuleOp)]


def functions_of(module: ModuleOp) -> Iterator[Operation]:
    """Every function of the tree, in source order, parents before children."""
    for op in module.body.block.ops:
        if isinstance(op, FunctionLike):
            yield cast(Operation, op)
    for op in module.body.block.ops:
        if isinstance(op, ModuleOp):
            yield from functions_of(op)


def symbol_uses(function: Operation) -> Iterator[tuple[Operation, SymbolRefAttr]]:
    """Each symbol a function uses to call another: (the using op, the symbol)."""
    for op in function.walk():
        if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr):
            yield op, op.callee
        elif isinstance(op, DispatchOp):
            for callee in op.callees:
                yield op, callee


def callees(function: Operation) -> list[Operation]:
    """The functions a function calls, in order of first use."""
    found: dict[Operation, None] = {}
    for op, ref in symbol_uses(function):
        callee = lookup_symbol(op, ref)
        if isinstance(callee, FunctionLike):
            found.setdefault(callee)
    return list(found)


def reachable_from(function: Operation) -> set[Operation]:
    """The functions a function reaches through calls (itself included)."""
    seen = {function}
    work = [function]
    while work:
        for callee in callees(work.pop()):
            if callee not in seen:
                seen.add(callee)
                work.append(callee)
    return seen
