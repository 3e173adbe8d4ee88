"""One-step readers of the parser's most common texts, each building exactly what the token-by-
token reading builds, and giving up (None, the parser back where it was) on any other text, so
that the full reading reports what is wrong:

- `read_generic_op`: an op in the generic form without regions or successors, as upstream
  `mlir-opt` and `--print-op-generic` print nearly every op of a module:

  ```mlir
  %v0 = "tf.call"(%a, %c0) <{callee = #tf.op<tf.math.binary<kind = add>>}> : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  ```

  its properties and attribute dictionaries read once per distinct text (attributes are
  immutable, and a text means the same throughout one parse);
- `read_tensor_type`: `tensor<4x?xf32>` and `tensor<?x8xf32, #tf.dims<...>>` (the encoding read
  once per distinct text), so that a model whose layers each have their own shapes reads each
  new spelling cheaply;
- `read_dense`: `dense<[[1.5, 2.0], [3.0, -4.0]]>` and splats `dense<1.5>`, decimal numbers of
  an integer or float tensor, read in one step (`json`) instead of a token per element;
  `read_plain_constant` reads a whole `%c = tf.constant dense<...> : tensor<...>` line with it
  (the plain form of `tf.constant`, see `register_plain_form`).

`tests/unit/ir/test_fast_forms.py` reads generated inputs both ways and compares the IR.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

from tilefoundry.ir.text.literals import canonical_dense

if TYPE_CHECKING:
    from tilefoundry.ir.text.asm import TFParser

__all__ = [
    "GenericOp",
    "PlainParameter",
    "properties_end",
    "read_dense",
    "read_function_type",
    "read_generic_op",
    "read_plain_constant",
    "read_signature",
    "read_tensor_type",
]

_OPERAND = r"%(?:[0-9]+|[A-Za-z$._-][A-Za-z0-9$._-]*)"
_GENERIC_HEAD = re.compile(
    rf"(?:({_OPERAND}) = )?\"([a-z_][a-z0-9_$.]*)\"\((?: *{_OPERAND} *(?:, *{_OPERAND} *)*)?\) *"
)
"""`%r = "dialect.op"(%a, %b) ` or `"dialect.op"(%a) `: one result at most, plain operands."""
_OPERAND_NAME = re.compile(_OPERAND)
_COLON = re.compile(r" *: *")
_BRACKETS = re.compile(r'[<>{}()\[\]"\n]')
_STRING_REST = re.compile(r'(?:[^"\\\n]|\\.)*"')
_OPENS = {"<": ">", "{": "}", "(": ")", "[": "]"}
_MAX_DIMENSION = (1 << 63) - 1


class GenericOp(NamedTuple):
    """What `read_generic_op` read: the op (operands resolved, results not yet defined), the
    `%name` of its result (or None), and the attributes the nesting limit checks."""

    op: Operation
    name: str | None
    bound: tuple[Attribute, ...]


def balanced_end(text: str, start: int) -> int:
    """The end of the bracketed text opening at `start` (`<{...}>`, `{...}`): brackets of every
    kind balanced, strings skipped, `->` not a bracket; -1 on a line end or a mismatch."""
    stack: list[str] = []
    position = start
    while (special := _BRACKETS.search(text, position)) is not None:
        char, position = special.group(), special.end()
        if char in _OPENS:
            stack.append(_OPENS[char])
        elif char == '"':
            string = _STRING_REST.match(text, position)
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


def properties_end(text: str, start: int) -> int:
    """The end of the properties `<{...}>` on one line at `start`, or -1."""
    return balanced_end(text, start) if text.startswith("<{", start) else -1


def _dictionary(
    parser: TFParser, table: str, position: int, opener: str
) -> tuple[dict[str, Attribute], int] | None:
    """The dictionary (`<{...}>` or `{...}`) at `position`, read once per distinct text, and
    where what follows it starts; ({}, `position`) when there is none; None when its text
    does not end where its brackets say."""
    source = parser.source
    if not source.startswith(opener, position):
        return {}, position
    end = balanced_end(source, position)
    if end < 0:
        return None
    parser.resume_from(position)
    if opener == "<{":  # memoized by the parser
        read = parser.parse_optional_properties_dict()
    else:
        read = parser.memoized(table, end, parser.parse_optional_attr_dict)
    after = _spaces_end(source, end)
    return (read, after) if parser.pos == after else None


def _spaces_end(text: str, position: int) -> int:
    while text.startswith(" ", position):
        position += 1
    return position


def read_generic_op(parser: TFParser, start: int) -> GenericOp | None:
    """The op at `start` in the generic form without regions or successors (see the module
    docstring), or None (the parser back at `start`) for any other text: what the full reading
    of the generic form builds, every error it would report at the same place reported here
    (the text before each part is checked by the expressions above, the parts read by the
    parser itself)."""
    source = parser.source
    head = _GENERIC_HEAD.match(source, start)
    if head is None:
        return None
    op_type = parser.ctx.get_optional_op(head.group(2))
    if op_type is None:
        return None
    operands_start = source.index("(", head.end(2))
    known = _remembered_parts(parser, head.end())
    if known is not None:
        read_properties, read_attributes, function_type, type_start = known
    else:
        read = _read_parts(parser, head.end())
        if read is None:
            return _give_up(parser, start)
        read_properties, read_attributes, function_type, type_start = read
    if len(function_type.outputs) != (head.group(1) is not None):
        return _give_up(parser, start)  # the full reading reports the count
    location = parser.parse_optional_location()
    lexed = parser.lexer.input
    operands = [
        UnresolvedOperand(Span(name.start(), name.end(), lexed), 0)
        for name in _OPERAND_NAME.finditer(source, operands_start, head.end())
    ]
    values = parser.resolve_operands(operands, function_type.inputs.data, type_start)
    properties, attributes = dict(read_properties), dict(read_attributes)
    if attributes and issubclass(op_type, IRDLOperation):  # as xDSL: properties given as
        for name in op_type.get_irdl_definition().properties:  # attributes are moved
            if name in attributes and name not in properties:
                properties[name] = attributes.pop(name)
    op = op_type.create(
        operands=values,
        result_types=function_type.outputs.data,
        properties=properties,
        attributes=attributes,
        location=location,
    )
    bound = (function_type, *properties.values(), *attributes.values(), op.location)
    return GenericOp(op, head.group(1), bound)


_Parts = tuple[dict[str, Attribute], dict[str, Attribute], FunctionType, int]
"""An op's properties, attributes and function type, and where the type starts."""


def _remembered_parts(parser: TFParser, position: int) -> _Parts | None:
    """The parts after the operands when each is a text read in full before, the parser moved
    past the function type; None (nothing consumed) otherwise. The common case: no text is
    scanned for its brackets, the texts are looked up whole."""
    source = parser.source
    properties: Any = _NO_ENTRIES
    if source.startswith("<{", position):
        close = source.find("}>", position) + 2
        properties = parser.remembered("properties", source[position:close])
        if properties is None:
            return None
        position = _spaces_end(source, close)
    if not source.startswith(": (", position):
        return None
    type_start = position + 2
    line_end = source.find("\n", type_start)
    type_text = source[type_start : len(source) if line_end < 0 else line_end].rstrip()
    type_end = type_start + len(type_text)
    function_type = parser.function_type_between(type_start, type_end)
    if not isinstance(function_type, FunctionType):
        return None
    parser.resume_from(type_end)
    return properties, _NO_ENTRIES, function_type, type_start


def _read_parts(parser: TFParser, position: int) -> _Parts | None:
    """The parts after the operands read by the parser, the parser moved past the function
    type; None when the text is not of the plain shape."""
    source = parser.source
    read_properties = _dictionary(parser, "", position, "<{")
    if read_properties is None:
        return None
    read_attributes = _dictionary(parser, "attribute dictionary", read_properties[1], "{")
    if read_attributes is None:
        return None
    colon = _COLON.match(source, read_attributes[1])
    if colon is None or not source.startswith("(", colon.end()):
        return None
    parser.resume_from(colon.end())
    function_type = parser.parse_function_type()
    return read_properties[0], read_attributes[0], function_type, colon.end()


_NO_ENTRIES: dict[str, Attribute] = {}


def _give_up(parser: TFParser, start: int) -> GenericOp | None:
    """None, the parser back at `start`."""
    parser.resume_from(start)
    return None


_FLOATS: dict[str, TypeAttribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
}
_ELEMENTS: dict[str, TypeAttribute] = {
    **_FLOATS,
    **{f"i{width}": IntegerType(width) for width in (1, 8, 16, 32, 64)},
    "index": IndexType(),
}
_TENSOR = re.compile(
    r"tensor<((?:(?:0|[1-9][0-9]{0,18}|\?)x)*)(" + "|".join(_ELEMENTS) + r")(?:, (#.*))?>"
)


def read_tensor_type(parser: TFParser, end: int) -> TypeAttribute | None:
    """The ranked tensor type from the parser's position to `end` (`tensor<4x?xf32>`, perhaps
    with an encoding, read once per distinct text), or None (the parser where it was) for any
    other text."""
    start = parser.pos
    read = _tensor_type(parser, start, end)
    if read is not None:
        parser.resume_from(end)
    elif parser.pos != start:
        parser.resume_from(start)
    return read


def _tensor_type(parser: TFParser, start: int, end: int) -> TypeAttribute | None:
    """`read_tensor_type` of the text from `start` to `end`; the parser moves (somewhere)
    only when the text has an encoding not read before."""
    found = _TENSOR.fullmatch(parser.source, start, end)
    if found is None:
        return None
    shape = [DYNAMIC_INDEX if d == "?" else int(d) for d in found.group(1).split("x")[:-1]]
    if any(d > _MAX_DIMENSION for d in shape):
        return None
    element = _ELEMENTS[found.group(2)]
    if found.group(3) is None:
        return TensorType(element, shape)
    known = parser.remembered("encoding", found.group(3))
    if known is not None:
        return TensorType(element, shape, known)
    if parser.pos != start:
        parser.resume_from(start)
    counted = parser._enter()
    try:
        parser.resume_from(found.start(3))
        encoding = parser.memoized("encoding", end - 1, parser.parse_attribute)
        if parser.pos != end - 1:
            return None
        return TensorType(element, shape, encoding)
    except VerifyException:  # the full reading reports it
        return None
    finally:
        parser._leave(counted)


_TYPE_ITEM = r"tensor<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>"
_TYPE_LIST = rf"(?:{_TYPE_ITEM}(?:, {_TYPE_ITEM})*)?"
_FUNCTION_TYPE = re.compile(rf"\(({_TYPE_LIST})\) -> (?:({_TYPE_ITEM})|\(({_TYPE_LIST})\))")
"""`(A, B) -> R` or `(A) -> (R, S)` of tensor types, spelled as the printer spells it."""
_TYPE_ITEMS = re.compile(_TYPE_ITEM)


def read_function_type(parser: TFParser, start: int, end: int) -> FunctionType | None:
    """The function type of tensor types from `start` to `end` (see `_FUNCTION_TYPE`), each
    type read once per distinct text (the parser's `type` memo, as the full reading reads
    them), or None for any other text. The parser is back where it was."""
    source = parser.source
    found = _FUNCTION_TYPE.fullmatch(source, start, end)
    if found is None:
        return None
    at = parser.pos
    try:
        inputs = _types(parser, found.start(1), found.end(1))
        single = found.group(2) is not None
        outputs = _types(parser, *(found.span(2) if single else found.span(3)))
    except ParseError:  # an encoding nested too deep: the full reading reports it
        return None
    finally:
        if parser.pos != at:
            parser.resume_from(at)
    if inputs is None or outputs is None:
        return None
    return FunctionType.from_lists(inputs, outputs)


_PARAMETER = re.compile(rf"({_OPERAND}): ({_TYPE_ITEM})(?: \{{([a-z_]+)\}})?(, |\))")
"""`%x: tensor<...>` perhaps with one unit attribute `{const}`, then `, ` or the list's `)`."""
_RESULT = re.compile(rf" -> (?:({_TYPE_ITEM})|\(\))")
_ARROW_AHEAD = re.compile(r"\s*->")


class PlainParameter(NamedTuple):
    """A parameter `read_signature` read: its name's span, its type, its unit attribute."""

    name: Span
    type: Attribute
    attribute: str | None


PlainSignature = tuple[list[PlainParameter], list[Attribute]]
"""What `read_signature` read: the parameters and the result types."""


def read_signature(parser: TFParser, allowed: tuple[str, ...]) -> PlainSignature | None:
    """A function signature `(%x: T {const}, ...) -> R` (or `-> ()`, or no result) of tensor
    types at the parser's position, read in one step, the parser moved past it; None (the
    parser where it was) for any other text (a location, another type, other attributes),
    which the full reading reads."""
    source, start = parser.source, parser.pos
    if not source.startswith("(", start):
        return None
    position = start + 1
    parameters: list[PlainParameter] = []
    lexed = parser.lexer.input
    try:
        if source.startswith(")", position):
            position += 1
        else:
            while True:
                found = _PARAMETER.match(source, position)
                if found is None or (found.group(3) is not None and found.group(3) not in allowed):
                    return _back(parser, start)
                type = _remembered_type(parser, found.start(2), found.end(2))
                if type is None:
                    return _back(parser, start)
                name = Span(found.start(1), found.end(1), lexed)
                parameters.append(PlainParameter(name, type, found.group(3)))
                position = found.end()
                if found.group(4) == ")":
                    break
        results: list[Attribute] = []
        arrow = _RESULT.match(source, position)
        if arrow is not None:
            if arrow.group(1) is not None:
                result = _remembered_type(parser, arrow.start(1), arrow.end(1))
                if result is None:
                    return _back(parser, start)
                results.append(result)
            position = arrow.end()
        elif _ARROW_AHEAD.match(source, position):  # a result spelled otherwise
            return _back(parser, start)
    except ParseError:  # an encoding nested too deep: the full reading reports it
        return _back(parser, start)
    parser.resume_from(position)
    return parameters, results


def _back(parser: TFParser, start: int) -> PlainSignature | None:
    """None, the parser back at `start`."""
    if parser.pos != start:
        parser.resume_from(start)
    return None


def _remembered_type(parser: TFParser, start: int, end: int) -> Attribute | None:
    """The tensor type from `start` to `end`, read once per distinct text (the parser's
    `type` memo, as the full reading reads it); None for any other text."""
    text = parser.source[start:end]
    known: Attribute | None = parser.remembered("type", text)
    if known is None:
        known = _tensor_type(parser, start, end)
        if known is not None:
            parser.remember("type", text, known)
    return known


def _types(parser: TFParser, start: int, end: int) -> list[Attribute] | None:
    """The tensor types of a list `A, B` from `start` to `end`, or None if one is not read."""
    types: list[Attribute] = []
    source = parser.source
    for item in _TYPE_ITEMS.finditer(source, start, end):
        known = _remembered_type(parser, item.start(), item.end())
        if known is None:
            return None
        types.append(known)
    return types


_MAX_RANK = 8
"""Literals of more dimensions (nested deeper) are left to the full reading and its limit."""
_NUMBER = r"-?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?"
_DENSE = re.compile(rf"<((?:[ \[\],]|{_NUMBER})*+)>")
"""`<` a literal of decimal numbers (an MLIR float has a `.`: `1e5` is not one), `>`."""


def read_dense(parser: TFParser, given: Attribute | None) -> DenseIntOrFPElementsAttr | None:
    """`<literal>` (and `: type` when `type` is None) at the parser's position, the literal of
    decimal numbers of an integer or float tensor, or None (the parser where it was) for any
    other text or a literal the full reading refuses (it reports why)."""
    start = parser.pos
    found = _DENSE.match(parser.source, start)
    if found is None:
        return None
    try:
        literal = json.loads(found.group(1))
    except ValueError:
        return None
    dense_type = given
    if dense_type is None:
        parser.resume_from(found.end())
        if parser.parse_optional_punctuation(":") is None:
            parser.resume_from(start)
            return None
        dense_type = parser.parse_optional_type()
    if not isinstance(dense_type, TensorType):
        parser.resume_from(start)
        return None
    data = _dense_data(literal, dense_type)
    if data is None:
        parser.resume_from(start)
        return None
    if given is not None:
        parser.resume_from(found.end())
    return canonical_dense(dense_type, data)


_PLAIN_CONSTANT = re.compile(r"dense<[-0-9.eE+, \[\]]*> : tensor<[^\n{}()/]*>[ \t]*$", re.M)
"""`dense<decimal literal> : tensor<...>` alone on the rest of its line (no attributes, no
location, no comment)."""


def read_plain_constant(
    parser: TFParser, position: int, make: Callable[[DenseIntOrFPElementsAttr], Operation]
) -> tuple[Operation, int, tuple[Attribute, ...]] | None:
    """A constant's `dense<...> : tensor<...>` from `position` to its line's end read in one
    step, and the op `make` builds of it (what its full reading builds: the literal as its
    value, its type as the result's), where its text ends, and what it uses; None (the parser
    where it was) for any other text."""
    line = _PLAIN_CONSTANT.match(parser.source, position)
    if line is None:
        return None
    start = parser.pos
    parser.resume_from(position + len("dense"))
    value = read_dense(parser, None)
    if value is None:
        parser.resume_from(start)
        return None
    return make(value), line.end(), (value,)


def _flatten(literal: Any, shape: list[int], depth: int, into: list[Any]) -> bool:
    """Append the numbers of a rectangular nested list to `into`; whether it was one of
    `shape`."""
    if depth == len(shape):
        if type(literal) is int or type(literal) is float:
            into.append(literal)
            return True
        return False
    if type(literal) is not list or len(literal) != shape[depth]:
        return False
    return all(_flatten(item, shape, depth + 1, into) for item in literal)


def _dense_data(literal: Any, dense_type: TensorType[Any]) -> bytes | None:
    """The bytes the full reading stores for `literal` of `dense_type`, or None where it would
    do anything else (refuse it, or read it some other way)."""
    shape = list(dense_type.get_shape())
    if not shape or len(shape) > _MAX_RANK or any(d <= 0 for d in shape):
        return None
    values: list[Any] = []
    if type(literal) is list:
        if not _flatten(literal, shape, 0, values):
            return None
    elif not _flatten(literal, [], 0, values):
        return None
    element = dense_type.element_type
    if isinstance(element, IntegerType | IndexType):
        return _int_data(values, element)
    if not isinstance(element, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return None
    floats = [float(v) for v in values]
    try:
        raw = element.pack(floats)
    except (OverflowError, ValueError, NotImplementedError):
        return None
    back = element.unpack(raw, len(floats))
    return None if any(math.isinf(v) or math.isnan(v) for v in back) else raw


def _int_data(values: list[Any], element: IntegerType | IndexType) -> bytes | None:
    if any(type(v) is not int for v in values):
        return None
    if isinstance(element, IndexType):
        if any(not -(1 << 63) <= v < 1 << 64 for v in values):
            return None
        stored = values
    else:
        normalized = [element.normalized_value(v) for v in values]
        if any(v is None for v in normalized):
            return None
        stored = normalized
    try:
        return element.pack(stored)
    except (OverflowError, ValueError, NotImplementedError):
        return None
