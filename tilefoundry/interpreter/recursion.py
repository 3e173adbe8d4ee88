"""The calls a function makes, and whether they come back to it: the reference interpreter runs
no recursion (a function that calls itself, directly or through others, would recurse until
Python's stack ran out), so a run refuses it up front, naming the cycle.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation

from tilefoundry.dialects.tf.module import lookup_symbol
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp
from tilefoundry.ir.algebra.callable import FunctionLike

__all__ = ["call_cycle", "callees"]


def callees(function: Operation) -> Iterator[Operation]:
    """The functions `function` calls (tf.call of a symbol, each case of a tir.dispatch)."""
    for op in function.walk():
        refs: list[SymbolRefAttr] = []
        if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr):
            refs.append(op.callee)
        elif isinstance(op, DispatchOp):
            refs.extend(op.callees)
        for ref in refs:
            callee = lookup_symbol(op, ref)
            if isinstance(callee, FunctionLike) and callee is not None:
                yield callee


def call_cycle(function: Operation) -> list[str] | None:
    """The names along a chain of calls from `function` that comes back to a function on it
    (first and last the same), or None when no call made from `function` recurses."""
    path: list[Operation] = []
    on_path: set[Operation] = set()
    done: set[Operation] = set()
    stack: list[tuple[Operation, Iterator[Operation]]] = [(function, callees(function))]
    path.append(function)
    on_path.add(function)
    while stack:
        node, pending = stack[-1]
        callee = next(pending, None)
        if callee is None:
            stack.pop()
            path.pop()
            on_path.discard(node)
            done.add(node)
            continue
        if callee in on_path:
            return [_name(op) for op in [*path[path.index(callee) :], callee]]
        if callee not in done:
            stack.append((callee, callees(callee)))
            path.append(callee)
            on_path.add(callee)
    return None


def _name(function: Operation) -> str:
    return function.function_name() if isinstance(function, FunctionLike) else function.name
