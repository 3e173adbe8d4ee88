"""The lexer `TFParser` reads with: xDSL 0.74's MLIR lexer, with what it gets wrong fixed
(`xdsl_adapter/lexer.py`), and a one-step path for the common tokens.

The fixes (non-backtracking string literals, UTF-8 escapes read as strings, ASCII digits,
bounded integer literals) are listed in `xdsl_adapter/lexer.py`, as patches xDSL could take.
"""

from __future__ import annotations

import re

from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from tilefoundry.xdsl_adapter.lexer import MAX_INTEGER_DIGITS, FixedMLIRLexer

__all__ = ["BYTE_ORDER_MARK", "MAX_INTEGER_DIGITS", "TFLexer"]

BYTE_ORDER_MARK = "\ufeff"
"""A character the lexer refuses; `TFParser` names it in the diagnostic."""


_FAST_TOKEN = re.compile(
    r"[ \t\n\r]*(?:"
    r"(?P<bare>[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<percent>%(?:[0-9]+|[A-Za-z$._-][A-Za-z0-9$._-]*))"
    r"|(?P<at>@[A-Za-z_][A-Za-z0-9_$.]*)"
    r"|(?P<arrow>->)"
    r"|(?P<punctuation>[:,()}\[\]<>=])"
    r")"
)
"""The tokens most of a module is made of, lexed in one step: bare, `%` and `@` identifiers and
the common punctuation. Anything else (comments, numbers, strings, `#` and `!` names, `{`,
the end of the input) goes through xDSL's lexer, which this matches token for token."""

_PUNCTUATION = {
    ":": MLIRTokenKind.COLON,
    ",": MLIRTokenKind.COMMA,
    "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN,
    "}": MLIRTokenKind.R_BRACE,
    "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE,
    "<": MLIRTokenKind.LESS,
    ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL,
}
_KINDS = {
    "bare": MLIRTokenKind.BARE_IDENT,
    "percent": MLIRTokenKind.PERCENT_IDENT,
    "at": MLIRTokenKind.AT_IDENT,
    "arrow": MLIRTokenKind.ARROW,
}


class TFLexer(FixedMLIRLexer):
    """xDSL's MLIR lexer with the fixes listed in the module docstring, and a one-step path for
    the common tokens (`_FAST_TOKEN`)."""

    def lex(self) -> MLIRToken:
        found = _FAST_TOKEN.match(self.input.content, self.pos)
        if found is None or found.lastgroup is None:
            return super().lex()
        group = found.lastgroup
        start, self.pos = found.start(group), found.end()
        kind = _PUNCTUATION[found.group(group)] if group == "punctuation" else _KINDS[group]
        return Token(kind, Span(start, self.pos, self.input))
