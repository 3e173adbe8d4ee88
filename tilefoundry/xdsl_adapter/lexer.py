"""Fixes to xDSL 0.74's `MLIRLexer`, each written as a patch to the method it replaces.

Each is a plain xDSL bug, and each override is xDSL's method with the bug fixed, so it can go
upstream as it is (``tests/unit/xdsl_adapter/test_lexer.py`` shows stock xDSL's wrong answer
beside this one):

- String literals are matched by a pattern that cannot backtrack. xDSL's nests a `+` inside a
  `*`, which takes exponential time on an unterminated string (a one-character typo hung tf-opt).
- A string literal whose escapes spell UTF-8 (`"caf\\C3\\A9"`, as MLIR and xDSL print `"café"`) is
  a string, as in MLIR; xDSL calls every non-ASCII escaped literal a byte string and then refuses
  it where a string is expected, so it cannot read back what it printed.
- Digits are ASCII digits: xDSL starts a number at any Unicode numeric character (`²`) and then
  fails to convert it (a `ValueError`, not a diagnostic).
- A decimal integer literal has at most `MAX_INTEGER_DIGITS` digits: Python converts no more,
  and xDSL's `int(...)` of a longer one raises a `ValueError`, not a diagnostic.
"""

from __future__ import annotations

import re

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Position, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

__all__ = ["MAX_INTEGER_DIGITS", "FixedMLIRLexer"]

MAX_INTEGER_DIGITS = 4300
"""The longest decimal integer literal read (Python's own limit on converting digits)."""


class FixedMLIRLexer(MLIRLexer):
    """xDSL's MLIR lexer with the bugs listed in the module docstring fixed."""

    # private: the string pattern is a class attribute xDSL's `_lex_string_literal` reads; a
    # possessive `*+` (no nested `+`) cannot backtrack.
    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')
    """Fix of xDSL's string pattern, which nests a `+` inside a `*` and so backtracks
    exponentially on an unterminated string: the same language, matched possessively."""

    # private: the method the lexer calls for a `"`; no public hook classifies a string token.
    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        """Fix of xDSL's string lexing, which calls every literal with a non-ASCII escape a
        byte string (`"caf\\C3\\A9"`, as xDSL itself prints `"café"`): one whose escapes
        spell UTF-8 is a string, as in MLIR."""
        token = super()._lex_string_literal(start_pos)  # private: the method being fixed
        if token.kind is MLIRTokenKind.BYTES_LIT:
            try:
                StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
            except UnicodeDecodeError:
                return token
            return Token(MLIRTokenKind.STRING_LIT, token.span)
        return token

    # private: the method the lexer calls for a numeric character; no public hook for numbers.
    def _lex_number(self, start_pos: Position) -> MLIRToken:
        """Fix of xDSL's number lexing, which starts a number at any Unicode numeric character
        (`²`, then a `ValueError`) and converts a decimal literal of any length (a
        `ValueError` past Python's limit): ASCII digits only, at most `MAX_INTEGER_DIGITS`."""
        first = self.input.at(start_pos)
        if not isinstance(first, str) or not "0" <= first <= "9":
            raise ParseError(
                Span(start_pos, start_pos + 1, self.input), f"unexpected character '{first}'"
            )
        token = super()._lex_number(start_pos)  # private: the method being fixed
        text = token.text
        if token.kind is MLIRTokenKind.INTEGER_LIT and not text.startswith(("0x", "0X")):
            if len(text) > MAX_INTEGER_DIGITS:
                raise ParseError(
                    token.span,
                    f"integer literal of {len(text)} digits is too long "
                    f"(tf-opt reads at most {MAX_INTEGER_DIGITS})",
                )
        return token
