"""`xdsl.parser.Parser` with public names for what TileFoundry's parser needs of its inside.

`AdaptedParser` is xDSL's parser with:

- a lexer of the caller's (`Parser.__init__` builds an `MLIRLexer` itself), and the parser
  state it reads kept as the public `state`: `current_token`, `resume_from` and
  `consume_token` then go through xDSL's public `ParserState` and `Lexer.pos`;
- `define_ssa_values`, xDSL's registration of a `%name = ...` definition;
- public hooks where xDSL's grammar calls a private method: `parse_tensor_literal` (every
  level of a `dense<[[...]]>` literal) and `parse_file_metadata_dictionary` (`{-# ... #-}`);
- xDSL's complex literal reader with a missing `)` reported, not asserted (a plain bug fix).

`current_token(parser)` peeks at any xDSL parser's next token (xDSL has no public peek).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.context import Context
from xdsl.ir import SSAValue
from xdsl.parser import AttrParser, Parser, ParserState
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

__all__ = ["AdaptedParser", "current_token"]


def current_token(parser: AttrParser) -> MLIRToken:
    """The next token of any xDSL parser, not consumed."""
    return parser._current_token  # private: xDSL has no public peek at the next token


class AdaptedParser(Parser):
    """xDSL's parser with the public names listed in the module docstring."""

    state: ParserState[MLIRTokenKind, str]
    """The state the parser reads (its lexer and next token)."""

    def __init__(
        self,
        ctx: Context,
        input: str,
        name: str = "<unknown>",
        lexer: Callable[[Input], MLIRLexer] = MLIRLexer,
    ) -> None:
        Parser.__init__(self, ctx, "", name)  # xDSL's fields, as xDSL sets them
        self.state = ParserState(lexer(Input(input, name)))
        # private: Parser.__init__ builds its own MLIRLexer; no public way to read with another.
        self._parser_state = self.state

    @property
    def current_token(self) -> MLIRToken:
        """The next token, not consumed."""
        return self.state.current_token

    def resume_from(self, position: Position) -> None:
        """Read on from `position` of the input."""
        lexer = self.state.lexer
        lexer.pos = position
        self.state.current_token = lexer.lex()

    def consume_token(self) -> MLIRToken:
        """Consume the next token and return it."""
        token = self.state.current_token
        self.state.current_token = self.state.lexer.lex()
        return token

    def define_ssa_values(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        """Define `%name` (without the `%`) as `values`, resolving its forward uses."""
        # private: how `%name = ...` is defined; xDSL has no public way to define a name.
        self._register_ssa_definition(name, values, span)

    # -- hooks -----------------------------------------------------------------------------------

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # private: xDSL reads each level of a tensor literal through this method (no public
        # hook); bound to the public one without a frame more (the stack holds the nesting).
        cls._parse_tensor_literal = cls.parse_tensor_literal  # type: ignore[method-assign]

    # private: xDSL's reading of a tensor literal's level, as it is.
    parse_tensor_literal = Parser._parse_tensor_literal
    """A tensor literal's level (`[...]` or an element): its elements and shape."""

    # private: xDSL reads a `{-# ... #-}` block here; no public hook.
    def _parse_file_metadata_dictionary(self) -> None:
        self.parse_file_metadata_dictionary()

    def parse_file_metadata_dictionary(self) -> None:
        """A `{-# ... #-}` block at the top level of the input."""
        super()._parse_file_metadata_dictionary()  # private: xDSL's reading, as it is

    # -- fixes -----------------------------------------------------------------------------------

    # private: a fix of xDSL's `_parse_optional_complex`, which asserts (an AssertionError, not
    # a diagnostic) on a complex literal without its `)`: `dense<(1, 2]> : tensor<complex<i32>>`.
    def _parse_optional_complex(self) -> Any:
        """Fix of xDSL's complex literal reader, which asserts (an `AssertionError`, not a
        diagnostic) on a complex literal without its `)`: the `)` is expected, and reported."""
        if self.state.current_token.kind is not MLIRTokenKind.L_PAREN:
            return None
        start = self.pos
        self.parse_punctuation("(")
        real, _ = self._parse_bool_int_or_float()  # private: xDSL's element reader
        self.parse_punctuation(",", " in complex literal")
        imaginary, _ = self._parse_bool_int_or_float()  # private: xDSL's element reader
        if type(real) is not type(imaginary):
            self.raise_error("complex value must be either (float, float) or (int, int)", start)
        end = self.pos
        self.parse_punctuation(")", " in complex literal")
        return (real, imaginary), Span(start, end + 1, self.lexer.input)
