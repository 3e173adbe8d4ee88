"""The project's verification error, and the refusal of a reference run.

`VerifyError` is what every TileFoundry rule raises when it is broken, from Python and from
the verifiers of the `tf`, `hir` and `tir` dialects alike. It subclasses xDSL's
`VerifyException`, so `tf-opt --verify-diagnostics` and xDSL's own verification report it like
any other verifier failure. When the failing node carries a binding name or a source span, the
message says so (`... (bound to 'h' at model.py:3:4)`). `ExecutionError` is what a run on the
reference interpreter refuses (an argument of the wrong type, an op with no reference, an index
out of range), raised by the interpreter and by the ops' `reference` methods.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from xdsl.utils.exceptions import DiagnosticException, VerifyException

if TYPE_CHECKING:
    from xdsl.ir import Operation

__all__ = [
    "ExecutionError",
    "PassError",
    "PassOutputError",
    "VerifyError",
    "raised_recursion_limit",
    "with_context",
]


class VerifyError(VerifyException):
    """A broken TileFoundry rule, with the binding / source span of the failing node when known."""


class ExecutionError(ValueError):
    """A reference run refused: a bad argument, or an op without a reference implementation."""


class PassError(DiagnosticException):
    """A pass refused its input: one line, at `op` when the pass names one. The IR is left as
    the pass found it (a pass checks before it changes anything)."""

    def __init__(self, pass_name: str, message: str, op: Operation | None = None) -> None:
        self.pass_name = pass_name
        self.message = message
        self.op = op
        super().__init__(f"pass '{pass_name}' failed: {message}")


class PassOutputError(VerifyError):
    """A pass produced IR that fails the verifier: the pass's bug, not the input's. `op` is the
    op that fails (often one the pass made), `message` the verifier's text, `notes` its notes."""

    def __init__(
        self,
        pass_name: str,
        op: Operation,
        message: str,
        notes: tuple[tuple[Operation, str], ...] = (),
    ) -> None:
        self.pass_name = pass_name
        self.op = op
        self.message = message
        self.notes = notes
        super().__init__(f"pass '{pass_name}' produced invalid IR: {message}")


def with_context(message: str, binding: str | None, span: str | None) -> str:
    """Append `(bound to 'h' at f.py:3:4)` to a message, for whatever part of it is known."""
    parts: list[str] = []
    if binding is not None:
        parts.append(f"bound to '{binding}'")
    if span is not None:
        parts.append(f"at {span}")
    return f"{message} ({' '.join(parts)})" if parts else message


@contextlib.contextmanager
def raised_recursion_limit(limit: int, refusal: Callable[[int], Exception]) -> Iterator[None]:
    """Run with Python's recursion limit raised to `limit` (never lowered); a `RecursionError`
    that still happens becomes `refusal(the limit in effect)`, raised without the traceback of
    its thousands of frames: what the DSL reading source and the interpreter running calls
    share."""
    old = sys.getrecursionlimit()
    if old < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    except RecursionError:
        raise refusal(max(old, limit)).with_traceback(None) from None
    finally:
        if old < limit:
            sys.setrecursionlimit(old)
