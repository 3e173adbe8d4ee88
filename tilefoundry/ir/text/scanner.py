"""What the text looks like: the lexer `TFParser` reads with, the one bracket scanner, and the
patterns of the texts the parser reads in one step, all built on one operand pattern and one
string pattern.

- `TFLexer`: xDSL 0.74's MLIR lexer with what it gets wrong fixed (`xdsl_adapter/lexer.py`,
  written as patches xDSL could take), and a one-step path for the common tokens;
- `balanced_end`: where a bracketed text ends (every kind of bracket balanced, strings skipped,
  `->` not a bracket), and what is built on it: `bracketed_end` (`name` or `name<...>`),
  `function_type_end`;
- the patterns of the parser's fast path (`ir/text/parser.py`): an op's head, a plain call or
  constant line, a tensor type, a function type of tensor types, a signature, a dense literal.

Nothing here builds IR: a pattern says where a text is and what its parts are; the parser
reads them.
"""

from __future__ import annotations

import re
from typing import cast

from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from tilefoundry.xdsl_adapter.lexer import MAX_INTEGER_DIGITS, FixedMLIRLexer

__all__ = [
    "BYTE_ORDER_MARK",
    "MAX_INTEGER_DIGITS",
    "OPERAND",
    "OPERAND_NAME",
    "TFLexer",
    "balanced_end",
    "bracketed_end",
    "function_type_end",
    "spaces_end",
]

BYTE_ORDER_MARK = "\ufeff"
"""A character the lexer refuses; `TFParser` names it in the diagnostic."""

OPERAND = r"%(?:[0-9]+|[A-Za-z$._-][A-Za-z0-9$._-]*)"
"""An operand or result name, as a regular expression: where xDSL's lexer ends it."""
OPERAND_NAME = re.compile(OPERAND)

STRING_REST = re.compile(r'(?:[^"\\\n]|\\.)*"')
"""The rest of a string literal on one line after its opening `"`, up to its closing `"`."""

BARE_NAME = r"[A-Za-z_][A-Za-z0-9_$.]*"
"""A bare identifier (an op name's parts, a keyword, a symbol name after `@`)."""

# -- the lexer --------------------------------------------------------------------------------

_FAST_TOKEN = re.compile(
    r"[ \t\n\r]*(?:"
    rf"(?P<bare>{BARE_NAME})"
    rf"|(?P<percent>{OPERAND})"
    rf"|(?P<at>@{BARE_NAME})"
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
    """xDSL's MLIR lexer with the fixes of `xdsl_adapter/lexer.py`, and a one-step path for the
    common tokens (`_FAST_TOKEN`)."""

    def lex(self) -> MLIRToken:
        found = _FAST_TOKEN.match(self.input.content, self.pos)
        if found is None or found.lastgroup is None:
            return super().lex()
        group = found.lastgroup
        start, self.pos = found.start(group), found.end()
        kind = _PUNCTUATION[found.group(group)] if group == "punctuation" else _KINDS[group]
        return Token(kind, Span(start, self.pos, self.input))


# -- the bracket scanner ----------------------------------------------------------------------

_BRACKETS = re.compile(r'[<>{}()\[\]"\n]')
_BRACKETS_AND_COMMAS = re.compile(r'[<>{}()\[\],"\n]')
_CLOSES = {"<": ">", "{": "}", "(": ")", "[": "]"}
_NAME = re.compile(r"[A-Za-z0-9_.$-]+")
_ARROW = re.compile(r" *-> *")


def balanced_end(text: str, start: int, commas: list[int] | None = None, depth: int = 1) -> int:
    """The end of the bracketed text opening at `start` (`<{...}>`, `(...)`, `<...>`):
    brackets of every kind balanced, strings skipped, `->` not a bracket; -1 on a line end, a
    mismatch or an unterminated string. With `commas`, the positions of the commas `depth`
    brackets deep are appended to it (the separators of `<{a = 1, b = [2, 3]}>`'s entries at
    depth 2). The one bracket scanner: every fast path finds the end of what it looks up with
    it, and any text it refuses is read token by token."""
    stack: list[str] = []
    position = start
    brackets = _BRACKETS if commas is None else _BRACKETS_AND_COMMAS
    while (special := brackets.search(text, position)) is not None:
        char, position = special.group(), special.end()
        if char in _CLOSES:
            stack.append(_CLOSES[char])
        elif char == ",":
            if len(stack) == depth:
                cast(list[int], commas).append(position - 1)
        elif char == '"':
            string = STRING_REST.match(text, position)
            if string is None:
                return -1
            position = string.end()
        elif char == "\n":
            return -1
        elif char == ">" and text[position - 2] == "-":
            continue
        elif not stack or stack.pop() != char:
            return -1
        elif not stack:
            return position
    return -1


def bracketed_end(text: str, start: int) -> int:
    """The end of `name` or `name<...>` at `start` (a type such as `tensor<4xf32>`, an op
    target such as `tf.math.binary<kind = add>`), or -1 when the text has another shape."""
    name = _NAME.match(text, start)
    if name is None:
        return -1
    position = name.end()
    if not text.startswith("<", position):
        return position
    return balanced_end(text, position)


def function_type_end(text: str, start: int) -> int:
    """The end of the function type `(T, ...) -> R` or `(T, ...) -> (R, ...)` at `start`, or
    -1 when the text has another shape."""
    position = balanced_end(text, start) if text.startswith("(", start) else -1
    arrow = _ARROW.match(text, position) if position >= 0 else None
    if arrow is None:
        return -1
    if text.startswith("(", arrow.end()):
        return balanced_end(text, arrow.end())
    return bracketed_end(text, arrow.end())


def spaces_end(text: str, position: int) -> int:
    """Where the spaces at `position` end."""
    while text.startswith(" ", position):
        position += 1
    return position


# -- the patterns of the fast path ------------------------------------------------------------

OP_NAME = r"[a-z_][a-z0-9_$.]*"
"""An op's name as the fast path reads it (`tf.call`, `hir.return`)."""

PLAIN_HEAD = re.compile(rf"({OPERAND}) = ({OP_NAME}) ")
"""`%name = dialect.op ` at the start of an op in the custom form."""

_OPERAND_LIST = rf"\((?: *{OPERAND} *(?:, *{OPERAND} *)*)?\)"

GENERIC_HEAD = re.compile(rf'(?:({OPERAND}) = )?"({OP_NAME})"{_OPERAND_LIST} *')
"""`%r = "dialect.op"(%a, %b) ` or `"dialect.op"(%a) `: one result at most, plain operands."""

PLAIN_CALL = re.compile(
    rf"([^(\n]+)({_OPERAND_LIST}) : (\([^\n]*?)(?:[ \t]+(?=loc\()|[ \t]*$)", re.M
)
"""A call on one line: its callee, its operand list of plain names, its function type (up to a
location on the line, which the parser reads)."""

PLAIN_SYMBOL = re.compile(rf"@{BARE_NAME}(?:::@{BARE_NAME})*")
"""A callee `@f` or `@a::@b` of bare names."""

PLAIN_OP_END = re.compile(r"\s*(?:[^\s/l]|\Z)")
"""What may follow a plain op without a location on its line: anything but a location on a
later line (`loc(...)`, perhaps after a comment), which belongs to the op."""

PLAIN_CONSTANT = re.compile(r"dense<[-0-9.eE+, \[\]]*> : tensor<[^\n{}()/]*>[ \t]*$", re.M)
"""`dense<decimal literal> : tensor<...>` alone on the rest of its line (no attributes, no
location, no comment)."""

COLON = re.compile(r" *: *")

ENTRY_NAME = re.compile(rf" *({BARE_NAME}) *= *")
"""The name of a dictionary entry and its `=`, up to its value."""

PLAIN_STRING = re.compile(r'"[^"\\\n]*"')
"""A string literal without escapes."""

ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index")
"""The element types a tensor type read in one step may have."""

TENSOR = re.compile(
    r"tensor<((?:(?:0|[1-9][0-9]{0,18}|\?)x)*)(" + "|".join(ELEMENT_TYPES) + r")(?:, (#.*))?>"
)
"""A ranked tensor type of a plain element type, perhaps with an encoding."""

TYPE_ITEM = r"tensor<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>"
"""A tensor type in a list (its encoding nests one `<...>` deep at most)."""
_TYPE_LIST = rf"(?:{TYPE_ITEM}(?:, {TYPE_ITEM})*)?"
FUNCTION_TYPE = re.compile(rf"\(({_TYPE_LIST})\) -> (?:({TYPE_ITEM})|\(({_TYPE_LIST})\))")
"""`(A, B) -> R` or `(A) -> (R, S)` of tensor types, spelled as the printer spells it."""
TYPE_ITEMS = re.compile(TYPE_ITEM)

PARAMETER = re.compile(rf"({OPERAND}): ({TYPE_ITEM})(?: \{{([a-z_]+)\}})?(, |\))")
"""`%x: tensor<...>` perhaps with one unit attribute `{const}`, then `, ` or the list's `)`."""
RESULT = re.compile(rf" -> (?:({TYPE_ITEM})|\(\))")
ARROW_AHEAD = re.compile(r"\s*->")

_NUMBER = r"-?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?"
DENSE = re.compile(rf"<((?:[ \[\],]|{_NUMBER})*+)>")
"""`<` a literal of decimal numbers (an MLIR float has a `.`: `1e5` is not one), `>`."""
