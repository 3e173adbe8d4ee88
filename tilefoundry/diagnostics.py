"""The project's verification error.

`VerifyError` is what every TileFoundry rule raises when it is broken, from Python and from
the verifiers of the `tf`, `hir` and `tir` dialects alike. It subclasses xDSL's
`VerifyException`, so `tf-opt --verify-diagnostics` and xDSL's own verification report it like
any other verifier failure. When the failing node carries a binding name or a source span, the
message says so (`... (bound to 'h' at model.py:3:4)`).
"""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException

__all__ = ["VerifyError", "with_context"]


class VerifyError(VerifyException):
    """A broken TileFoundry rule, with the binding / source span of the failing node when known."""


def with_context(message: str, binding: str | None, span: str | None) -> str:
    """Append `(bound to 'h' at f.py:3:4)` to a message, for whatever part of it is known."""
    parts: list[str] = []
    if binding is not None:
        parts.append(f"bound to '{binding}'")
    if span is not None:
        parts.append(f"at {span}")
    return f"{message} ({' '.join(parts)})" if parts else message
