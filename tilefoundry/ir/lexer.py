"""The lexer `TFParser` reads with: xDSL 0.74's MLIR lexer, with what it gets wrong fixed.

- String literals are matched by a pattern that cannot backtrack. xDSL's nests a `+` inside a
  `*`, which takes exponential time on an unterminated string (a one-character typo hung tf-opt).
- A string literal whose escapes spell UTF-8 (`"caf\\C3\\A9"`, as MLIR and xDSL print `"café"`) is
  a string, as in MLIR; xDSL calls every non-ASCII escaped literal a byte string and then refuses
  it where a string is expected, so tf-opt could not read back what it printed.
- Digits are ASCII digits: xDSL starts a number at any Unicode numeric character (`²`) and then
  fails to convert it.
- A decimal integer literal has at most `MAX_INTEGER_DIGITS` digits (Python converts no more;
  none of TileFoundry's types holds more than 20).
"""

from __future__ import annotations

import re

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Position, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

__all__ = ["BYTE_ORDER_MARK", "MAX_INTEGER_DIGITS", "TFLexer"]

MAX_INTEGER_DIGITS = 4300
"""The longest decimal integer literal read (Python's own limit on converting digits)."""

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


class TFLexer(MLIRLexer):
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

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        token = super()._lex_string_literal(start_pos)
        if token.kind is MLIRTokenKind.BYTES_LIT:
            try:
                StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
            except UnicodeDecodeError:
                return token
            return Token(MLIRTokenKind.STRING_LIT, token.span)
        return token

    def _lex_number(self, start_pos: Position) -> MLIRToken:
        first = self.input.at(start_pos)
        if not isinstance(first, str) or not "0" <= first <= "9":
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input), f"unexpected character '{first}'"
            )
        token = super()._lex_number(start_pos)
        text = token.text
        if token.kind is MLIRTokenKind.INTEGER_LIT and not text.startswith(("0x", "0X")):
            if len(text) > MAX_INTEGER_DIGITS:
                raise ParseError(
                    token.span,
                    f"integer literal of {len(text)} digits is too long "
                    f"(tf-opt reads at most {MAX_INTEGER_DIGITS})",
                )
        return token
