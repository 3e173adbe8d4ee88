"""Each xDSL bug the adapter fixes: stock xDSL 0.74's wrong answer, beside the fixed one.

When one of the stock answers here turns right (an xDSL upgrade took the fix), its test fails:
the fix can then leave the adapter.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from tilefoundry.xdsl_adapter.lexer import MAX_INTEGER_DIGITS, FixedMLIRLexer
from tilefoundry.xdsl_adapter.parser import AdaptedParser

# Python's own pattern parser (`sre_parse` before 3.11, deprecated since).
_RE = "re._" if sys.version_info >= (3, 11) else "sre_"
sre_constants: Any = importlib.import_module(_RE + "constants")
sre_parse: Any = importlib.import_module(_RE + "parse" if _RE == "sre_" else _RE + "parser")


def lex(lexer: type[MLIRLexer], text: str) -> Any:
    return lexer(Input(text, "x.mlir")).lex()


def _repeats(items: Any, inside: bool) -> bool:
    """Whether a parsed pattern holds a backtracking repetition inside another one."""
    for op, av in items:
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            if inside or _repeats(av[2], True):
                return True
        elif op == sre_constants.SUBPATTERN and _repeats(av[3], inside):
            return True
        elif op == sre_constants.BRANCH and any(_repeats(b, inside) for b in av[1]):
            return True
    return False


def nests_repetitions(pattern: re.Pattern[str]) -> bool:
    """A repetition of a repetition: what makes a backtracking match take exponential time."""
    return _repeats(sre_parse.parse(pattern.pattern), False)


def test_the_string_pattern_cannot_backtrack() -> None:
    # `(?:[^"...]+|...)*`: exponential on an unterminated string (no timed test: the shape).
    assert nests_repetitions(MLIRLexer._unescaped_characters_regex)
    assert not nests_repetitions(FixedMLIRLexer._unescaped_characters_regex)
    assert lex(FixedMLIRLexer, r'"a\"b\0A"').text == r'"a\"b\0A"'


def test_a_string_whose_escapes_spell_utf8_is_a_string() -> None:
    text = r'"caf\C3\A9"'  # what MLIR and xDSL print for "café"
    assert lex(MLIRLexer, text).kind is MLIRTokenKind.BYTES_LIT
    assert lex(FixedMLIRLexer, text).kind is MLIRTokenKind.STRING_LIT
    assert lex(FixedMLIRLexer, r'"\FF"').kind is MLIRTokenKind.BYTES_LIT  # not UTF-8: bytes


def stock_parse(text: str) -> None:
    context = Context()
    context.load_dialect(Builtin)
    Parser(context, text).parse_module()


def fixed_parse(text: str) -> None:
    context = Context()
    context.load_dialect(Builtin)
    AdaptedParser(context, text, "x.mlir", FixedMLIRLexer).parse_module()


def module_attribute(value: str) -> str:
    return f"builtin.module attributes {{a = {value}}} {{}}"


def test_a_numeric_character_that_is_not_a_digit_is_a_diagnostic() -> None:
    text = module_attribute("²")
    with pytest.raises(ValueError, match="invalid literal for int"):
        stock_parse(text)
    with pytest.raises(ParseError, match="unexpected character '²'"):
        fixed_parse(text)


def test_an_integer_literal_too_long_to_convert_is_a_diagnostic() -> None:
    text = module_attribute("1" * (MAX_INTEGER_DIGITS + 1) + " : i64")
    with pytest.raises(ValueError, match="integer string conversion"):
        stock_parse(text)
    with pytest.raises(ParseError, match=f"{MAX_INTEGER_DIGITS + 1} digits is too long"):
        fixed_parse(text)
    fixed_parse(module_attribute("1" * 19 + " : i64"))


def test_a_complex_literal_without_its_parenthesis_is_a_diagnostic() -> None:
    text = module_attribute("dense<(1, 2]> : tensor<complex<i32>>")
    with pytest.raises(AssertionError):
        stock_parse(text)
    with pytest.raises(ParseError, match="in complex literal") as error:
        fixed_parse(text)
    assert error.value.span.text == "]"
    fixed_parse(module_attribute("dense<(1, 2)> : tensor<complex<i32>>"))
