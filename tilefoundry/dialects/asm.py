"""Shared pieces of the custom assembly formats: semantic SSA names and `{const}`-style
argument attributes.

A function parameter's name is semantic (weights and callables are keyed by it), so it is
printed exactly, even when it ends in `_<digits>`, which xDSL's printer otherwise treats as a
uniquing suffix and strips from name hints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import DictionaryAttr, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer

__all__ = ["ParsedParam", "parse_param", "print_named_value", "print_param_attrs"]

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
    printer._ssa_values[value] = name  # noqa: SLF001 - xDSL has no public way to pin a name
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
