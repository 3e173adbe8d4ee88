"""How deep the reference interpreter's calls may nest: it runs a `tf.call` of a function as a
Python call (a few frames each), so a run raises Python's recursion limit, as the DSL does while
reading; what still exhausts it is one `ExecutionError`, never a `RecursionError`."""

from __future__ import annotations

import contextlib

from xdsl.ir import Operation

from tilefoundry.interpreter.recursion import call_cycle
from tilefoundry.support.diagnostics import ExecutionError, raised_recursion_limit

__all__ = ["RECURSION_LIMIT", "deep_calls"]

RECURSION_LIMIT = 60_000
"""The recursion limit during a run: thousands of nested function calls (Python 3.11+ runs
Python-to-Python calls without the C stack)."""


def deep_calls(function: Operation) -> contextlib.AbstractContextManager[None]:
    """Run `function` with the recursion limit raised (never lowered); a `RecursionError`
    becomes an `ExecutionError` naming the cycle when the calls recurse."""
    return raised_recursion_limit(RECURSION_LIMIT, lambda limit: _too_deep(function, limit))


def _too_deep(function: Operation, limit: int) -> ExecutionError:
    cycle = call_cycle(function)
    if cycle is not None:
        chain = " -> ".join(f"@{name}" for name in cycle)
        return ExecutionError(
            f"the calls recurse ({chain}); the reference interpreter runs no recursion"
        )
    return ExecutionError(
        f"the function calls nest deeper than the reference interpreter runs (beyond Python's "
        f"recursion limit {limit}): inline some of the functions"
    )
