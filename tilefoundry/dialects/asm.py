"""Shared pieces of the custom assembly formats: semantic SSA names and `{const}`-style
argument attributes.

A function parameter's name is semantic (weights and callables are keyed by it), so it is
printed exactly, even when it ends in `_<digits>`, which xDSL's printer otherwise treats as a
uniquing suffix and strips from name hints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, cast

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, UnitAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer

from tilefoundry.xdsl_adapter.printer import pin_ssa_name

__all__ = [
    "ParsedParam",
    "ValuesFormat",
    "parse_param",
    "parse_signature",
    "print_named_value",
    "print_param_attrs",
    "print_signature",
]

_SUFFIXED = re.compile(r"(.*)_(\d+)")


def print_named_value(printer: Printer, value: SSAValue, name: str) -> None:
    """Print `%name` for a value that has to keep its exact name in this scope.

    The printer is told the name (so uses print it too), and the counter for its stem is moved
    past it, so that no later value is uniqued onto the same name.
    """
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
        self.name = argument.name.text[1:]
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
    printer.print_string("(")
    for index, arg in enumerate(args):
        if index:
            printer.print_string(", ")
        print_named_value(printer, arg, names[index])
        printer.print_string(": ")
        printer.print_attribute(arg.type)
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
        printer.print_attribute(outputs[0])
    else:
        printer.print_string("()")


class ValuesFormat:
    """The format `ASSEMBLY_FORMAT` of the terminators (`hir.return`, `tir.return`, `tir.yield`,
    `tf.yield`), declared here and written by hand: xDSL's declarative-format machinery costs
    tf-opt 20 ms of start-up (a tenth of what it takes on a small file) on every run, since every
    file ends a body with one of them, so building it lazily would not save it (see
    docs/decisions.md). `tests/unit/dialects/test_declared_formats.py` checks that xDSL's
    program for `ASSEMBLY_FORMAT` prints every terminator of the lit inputs as this does."""

    ASSEMBLY_FORMAT: ClassVar[str] = "attr-dict ($values^ `:` type($values))?"

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        attributes = parser.parse_optional_attr_dict()
        operands = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        types: list[Attribute] = []
        if operands:
            parser.parse_punctuation(":")
            position = parser.pos
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            values = parser.resolve_operands(operands, types, position)
        else:
            values = []
        op = cast(Any, cls).create(operands=values)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        op = cast(Operation, self)
        printer.print_op_attributes(op.attributes)
        if op.operands:
            printer.print_string(" ")
            printer.print_list(op.operands, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(op.operand_types, printer.print_attribute)
