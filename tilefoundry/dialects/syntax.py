"""Shared pieces of the custom assembly formats: the declared formats (`DeclaredFormat`), semantic
SSA names and `{const}`-style argument attributes.

A function parameter's name is semantic (weights and callables are keyed by it), so it is
printed exactly, even when it ends in `_<digits>`, which xDSL's printer otherwise treats as a
uniquing suffix and strips from name hints. A name that is no SSA name (a `state_dict` key such
as `0.weight`) is escaped: `%$0.weight` (`escape_param_name`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar, cast

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, UnitAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from tilefoundry.builtin.types import ONE_VALUE_TYPE
from tilefoundry.ir.algebra.expr import escape_param_name, unescape_param_name
from tilefoundry.xdsl_adapter.printer import pin_ssa_name

__all__ = [
    "DeclaredFormat",
    "ParsedParam",
    "ValuesFormat",
    "ValuesTerminator",
    "parse_param",
    "with_attributes",
    "parse_signature",
    "print_named_value",
    "print_param_attrs",
    "print_signature",
]

OpT = TypeVar("OpT", bound=Operation)

_SUFFIXED = re.compile(r"(.*)_(\d+)")


def print_named_value(printer: Printer, value: SSAValue, name: str) -> None:
    """Print `%name` for a value that has to keep its exact name in this scope (a name that is
    no SSA name escaped: `%$0.weight` for `0.weight`, `escape_param_name`).

    The printer is told the name (so uses print it too), and the counter for its stem is moved
    past it, so that no later value is uniqued onto the same name.
    """
    name = escape_param_name(name)
    names = printer.ssa_names
    match = _SUFFIXED.fullmatch(name)
    stem, suffix = (match.group(1), int(match.group(2))) if match else (name, 0)
    names[stem] = max(names.get(stem, 0), suffix + 1)
    names[name] = max(names.get(name, 0), 1)
    pin_ssa_name(printer, value, name)
    printer.print_string(f"%{name}")


class ParsedParam:
    """A parsed `%name: type {attrs} loc(...)` parameter."""

    def __init__(self, argument: Parser.Argument, attrs: dict[str, Attribute]) -> None:
        self.argument = argument
        self.name = unescape_param_name(argument.name.text[1:])
        self.attrs = attrs


def parse_param(parser: Parser, allowed_attrs: Sequence[str]) -> ParsedParam:
    """Parse `%name: type`, optional `{key, ...}` unit attributes, optional `loc(...)`."""
    argument = parser.parse_argument()
    attrs: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation("{") is not None:

        def parse_key() -> None:
            key_position = parser.pos
            key = parser.parse_identifier()
            if key not in allowed_attrs:
                parser.raise_error(
                    f"unknown parameter attribute '{key}'; expected one of: "
                    + ", ".join(allowed_attrs),
                    key_position,
                )
            attrs[key] = UnitAttr()

        parse_key()
        while parser.parse_optional_punctuation(",") is not None:
            parse_key()
        parser.parse_punctuation("}")
    location = parser.parse_optional_location()
    if location is not None:
        argument.location = location
    return ParsedParam(argument, attrs)


def print_param_attrs(printer: Printer, attrs: DictionaryAttr | None) -> None:
    if attrs is not None and attrs.data:
        printer.print_string(" {" + ", ".join(attrs.data) + "}")


def parse_signature(
    parser: Parser, allowed_attrs: Sequence[str]
) -> tuple[list[ParsedParam], list[Attribute]]:
    """`(%x: T {const}, ...) -> R` (or `-> ()`): the parameters and the result types."""
    # TileFoundry's parser reads a signature of tensor types in one step
    read_plain = getattr(parser, "read_plain_signature", None)
    plain = None if read_plain is None else read_plain(tuple(allowed_attrs))
    if plain is not None:
        read, read_results = plain
        return [
            ParsedParam(
                Parser.Argument(p.name, p.type),
                {} if p.attribute is None else {p.attribute: UnitAttr()},
            )
            for p in read
        ], read_results
    params = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parse_param(parser, allowed_attrs)
    )
    results: list[Attribute] = []
    if parser.parse_optional_punctuation("->") is not None:
        if parser.parse_optional_punctuation("(") is not None:
            parser.parse_punctuation(")", " (a function returns one value or nothing: `()`)")
        else:
            results.append(parser.parse_type())
    return params, results


def print_signature(
    printer: Printer,
    args: Sequence[BlockArgument],
    names: Sequence[str],
    arg_attrs: ArrayAttr[DictionaryAttr] | None,
    outputs: Sequence[Attribute] | None,
) -> None:
    """Print `(%x: T {const} loc(..), ...)` and, when `outputs` is given, ` -> R`."""
    # TileFoundry's printer prints a type from its text, worked out once per type object
    print_type = getattr(printer, "print_type", printer.print_attribute)
    printer.print_string("(")
    for index, arg in enumerate(args):
        if index:
            printer.print_string(", ")
        print_named_value(printer, arg, names[index])
        printer.print_string(": ")
        print_type(arg.type)
        if arg_attrs is not None:
            print_param_attrs(printer, arg_attrs.data[index])
        if printer.print_debuginfo:
            printer.print_string(" ")
            printer.print_attribute(arg.location)
    printer.print_string(")")
    if outputs is None:
        return
    printer.print_string(" -> ")
    if outputs:
        print_type(outputs[0])
    else:
        printer.print_string("()")


class DeclaredFormat:
    """An op whose custom syntax is its `ASSEMBLY_FORMAT`, an xDSL declarative assembly format
    (with the custom directives of `dialects.declared_formats`), read and printed by xDSL's
    program for it. The program is built on the first parse or print of such an op, not when
    the class is defined (as `assembly_format` would): importing xDSL's declarative-format
    machinery costs tf-opt 12-15 ms of start-up, which a file without these ops does not pay
    (docs/decisions.md)."""

    ASSEMBLY_FORMAT: ClassVar[str]

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        return _program(cls).parse(parser, cast(Any, cls))

    def print(self, printer: Printer) -> None:
        _program(type(self)).print(printer, cast(Any, self))


def _program(op_class: type[DeclaredFormat]) -> Any:
    """The declared format's program of `op_class` (`declared_formats.format_program`)."""
    # Imported here, on first use, to keep xDSL's declarative-format machinery out of start-up.
    from tilefoundry.dialects.declared_formats import format_program

    return format_program(cast(Any, op_class), op_class.ASSEMBLY_FORMAT)


class ValuesFormat(DeclaredFormat):
    """The format of the terminators (`hir.return`, `tir.return`, `tir.yield`, `tf.yield`):
    `{attrs} %a, %b : T, U`, each part optional. The declared program reads and prints a
    terminator with attributes; the plain shape, without (every terminator of a usual file),
    has a hand-written fast path, so that a file does not pay for the program's import just by
    ending a body. `tests/unit/dialects/test_declared_formats.py` checks that the fast path
    reads and prints what the program does."""

    ASSEMBLY_FORMAT: ClassVar[str] = "attr-dict ($values^ `:` type($values))?"

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        if parser.lexer.input.content.startswith("{", parser.pos):
            return super().parse(parser)
        return cls.parse_plain(parser)

    @classmethod
    def parse_plain(cls, parser: Parser) -> Any:
        """The fast path: `%a, %b : T, U` or nothing, without an attribute dictionary."""
        operands = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        values: Sequence[SSAValue] = ()
        if operands:
            parser.parse_punctuation(":")
            position = parser.pos
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            values = parser.resolve_operands(operands, types, position)
        return cast(Any, cls).create(operands=values)

    def print(self, printer: Printer) -> None:
        op = cast(Operation, self)
        if op.attributes:
            super().print(printer)
        else:
            self.print_plain(printer)

    def print_plain(self, printer: Printer) -> None:
        """The fast path: `%a, %b : T, U` or nothing, for an op without attributes."""
        op = cast(Operation, self)
        if op.operands:
            printer.print_string(" ")
            printer.print_list(op.operands, printer.print_operand)
            printer.print_string(" : ")  # TileFoundry's printer prints a type from its text
            printer.print_list(
                op.operand_types, getattr(printer, "print_type", printer.print_attribute)
            )


class ValuesTerminator(ValuesFormat, IRDLOperation):
    """What the terminators that pass values on (`hir.return`, `tir.return`, `tir.yield`,
    `tf.yield`) declare alike: their operands are the values, of one value type each, printed
    by `ValuesFormat`. Each op adds its name, traits and verifier."""

    values = var_operand_def(ONE_VALUE_TYPE)

    def __init__(self, *values: SSAValue) -> None:
        # One variadic operand group and nothing else: the generic constructor takes it as it
        # is (as `create` does), without the IRDL builder's normalisation (as `tf.call`'s).
        Operation.__init__(self, operands=values)


def with_attributes(op: OpT, attributes: DictionaryAttr | None) -> OpT:
    """`op` given the discardable attributes of its custom form (`attributes {...}`, as
    `parse_optional_attr_dict_with_keyword` reads them; None: there were none)."""
    if attributes is not None:
        op.attributes |= attributes.data
    return op
