"""The private xDSL members the parser's one-step readers use (`ir/fast_forms.py`).

A one-step reader matches an op's or a literal's text with a regular expression and builds what
xDSL's token-by-token reading builds; to do that it must move the parser past the text it read
and define the SSA names it read, which xDSL's public `Parser` API has no call for.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.utils.lexer import Position, Span

__all__ = ["define_values", "resume_at"]


def resume_at(parser: Parser, position: Position) -> None:
    """Continue reading at `position` (the next token is lexed there)."""
    # Private: xDSL has no public call to move a parser to a position of its input.
    parser._resume_from(position)  # pyright: ignore[reportPrivateUsage]


def define_values(parser: Parser, name: str, values: Sequence[SSAValue], span: Span) -> None:
    """Define the SSA name `name` (without `%`) as `values`, as the parser's own reading of an
    op result list does (forward references to it resolved, a redefinition refused)."""
    # Private: the public API defines SSA names only while it reads an op's result list itself.
    parser._register_ssa_definition(name, values, span)  # pyright: ignore[reportPrivateUsage]
