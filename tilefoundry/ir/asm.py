"""The TileFoundry parser and printer: xDSL's, plus what the core IR needs of the text.

`TFParser` adds
- MLIR's range locations, `loc("f.py":3:4 to 3:10)` and `loc("f.py":3:4 to :10)` (xDSL 0.74
  parses neither), and fused locations with metadata, `loc(fused<#tf.meta<...>>[...])`;
- the source position of every operation, so that diagnostics can name `file:line:col`;
- authored SSA names as binding metadata: `%h = tf.call ...` binds `h` (see `ir/metadata.py`).

`TFPrinter` prints a span's end in MLIR's range form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, OpResult, SSAValue
from xdsl.parser import AttrParser, Parser, ParserState, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from tilefoundry.diagnostics import VerifyError
from tilefoundry.ir.expr import ExprOp, VarOwner
from tilefoundry.ir.irdl_form import read_irdl_form
from tilefoundry.ir.loc_aliases import UndefinedAlias, forward_alias, resolve_forward_aliases
from tilefoundry.ir.metadata import (
    BindingMetadata,
    SpanEndAttr,
    location_to_metadata,
    print_span_end_location,
)

__all__ = ["SourcePosition", "TFParser", "TFPrinter"]


@dataclass(frozen=True)
class SourcePosition:
    """A 1-based line and column in a named input."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class _OpParseError(ParseError):
    """A parse error already placed at the operation it is about."""


class _Lexer(MLIRLexer):
    """xDSL 0.74's lexer, with a string-literal pattern that cannot backtrack. The original
    nests a `+` inside a `*`, which takes exponential time on an unterminated string: a
    one-character typo hung the parser. This one matches one character per step."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


class TFParser(Parser):
    """xDSL's parser with range locations, operation positions and SSA-name bindings."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        # Parser.__init__, with the lexer above (xDSL builds its MLIRLexer inside __init__).
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        AttrParser.__init__(self, ParserState(_Lexer(Input(text, name))), ctx)
        self.ssa_values = {}
        self.blocks = {}
        self.forward_block_references = defaultdict(list)
        self.forward_ssa_references = {}
        self.file_name = name
        self.op_offsets: dict[Operation, int] = {}
        self.first_uses: dict[str, Span] = {}
        self.forward_aliases: dict[str, Span] = {}

    def position_of(self, offset: int) -> SourcePosition:
        text = self.lexer.input.content
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return SourcePosition(self.file_name, line, column)

    def op_position(self, op: Operation) -> SourcePosition | None:
        offset = self.op_offsets.get(op)
        return None if offset is None else self.position_of(offset)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as err:
            undefined = [n for n in self.forward_ssa_references if n in self.first_uses]
            if undefined and err.msg.startswith("values used but not defined"):
                name = undefined[0]
                self.raise_error(f"use of undefined value '%{name}'", self.first_uses[name])
            raise
        try:
            rebound = resolve_forward_aliases(module, self.attribute_aliases)
        except UndefinedAlias as err:
            self.raise_error(
                f"undefined symbol alias '{err.alias}'", self.forward_aliases[err.alias]
            )
        for op in rebound:
            if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
                self._bind_ssa_name(op, self.op_offsets.get(op, 0))
        read_irdl_form(module)
        return module

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self.first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_operation(self) -> Operation:
        start = self.pos
        try:
            op = super().parse_operation()
        except ParseError as err:
            if isinstance(err, _OpParseError) or not err.msg.endswith("is not registered"):
                raise
            raise _OpParseError(Span(start, start + 1, self.lexer.input), err.msg) from None
        self.op_offsets[op] = start
        if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
            self._bind_ssa_name(op, start)
        return op

    def _bind_ssa_name(self, op: Operation, start: int) -> None:
        """Keep the binding (the location) and the SSA name hint in agreement: a location that
        names a binding sets the SSA name; otherwise the SSA name becomes the binding, wrapped
        around whatever location the op has (as MLIR's name locations do)."""
        try:
            metadata = location_to_metadata(op.location)
        except VerifyError as err:
            self.raise_error(str(err), start)
        binding = next((m for m in metadata if type(m) is BindingMetadata), None)
        result = op.results[0]
        if binding is not None:
            if result.is_valid_name(binding.name):
                result.name_hint = binding.name
        elif result.name_hint is not None:
            child = NoneAttr() if isinstance(op.location, UnknownLoc) else op.location
            op.location = NameLoc(StringAttr(result.name_hint), child)

    def _parse_location(self) -> LocationAttr:
        if self.parse_optional_keyword("unknown"):
            return UnknownLoc()
        if (text := self.parse_optional_str_literal()) is not None:
            if self.parse_optional_punctuation(":") is None:
                child: Attribute = NoneAttr()
                if self.parse_optional_punctuation("(") is not None:
                    child = self._parse_location()
                    self.parse_punctuation(")")
                return NameLoc(StringAttr(text), child)
            line = self.parse_integer(allow_boolean=False, allow_negative=False)
            self.parse_punctuation(":")
            column = self.parse_integer(allow_boolean=False, allow_negative=False)
            start = FileLineColLoc(StringAttr(text), IntAttr(line), IntAttr(column))
            if self.parse_optional_keyword("to") is None:
                return start
            end_line: IntAttr | NoneAttr = NoneAttr()
            if self.parse_optional_punctuation(":") is None:
                end_line = IntAttr(self.parse_integer(allow_boolean=False, allow_negative=False))
                self.parse_punctuation(":")
            end_column = IntAttr(self.parse_integer(allow_boolean=False, allow_negative=False))
            return FusedLoc(ArrayAttr((start,)), SpanEndAttr(end_line, end_column))
        if self.parse_optional_keyword("callsite") is not None:
            self.parse_punctuation("(")
            callee = self._parse_location()
            self.parse_keyword("at")
            caller = self._parse_location()
            self.parse_punctuation(")")
            return CallSiteLoc(callee, caller)
        if self.parse_optional_keyword("fused") is not None:
            metadata: Attribute = NoneAttr()
            if self.parse_optional_punctuation("<") is not None:
                metadata = self.parse_attribute()
                self.parse_punctuation(">")
            locations = self.parse_comma_separated_list(
                self.Delimiter.SQUARE, self._parse_location, " in fused location"
            )
            return FusedLoc(ArrayAttr(locations), metadata)
        position = self.pos
        alias = self._current_token
        if alias.kind == MLIRTokenKind.HASH_IDENT and alias.text not in self.attribute_aliases:
            self._consume_token()  # an alias defined later in the input, as mlir-opt prints it
            self.forward_aliases.setdefault(alias.text, alias.span)
            return forward_alias(alias.text)
        attr = self.parse_optional_attribute()
        if isinstance(attr, LocationAttr):
            return attr
        self.raise_error("expected a location", position)


class TFPrinter(Printer):
    """xDSL's printer, with a source span's end printed as MLIR's `to line:col`, and the SSA
    name of an expression's value taken from its binding metadata (the location), not from
    the name hint a rewrite may have carried over (xDSL's `replace_all_uses_with` gives a
    value without a hint the hint of the value it replaces)."""

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, FusedLoc) and print_span_end_location(self, attribute):
            return
        super().print_attribute(attribute)

    def print_ssa_value(self, value: SSAValue) -> str:
        if value in self._ssa_values or not isinstance(value, OpResult):
            return super().print_ssa_value(value)
        op = value.op
        if not isinstance(op, ExprOp | VarOwner) or len(op.results) != 1:
            return super().print_ssa_value(value)
        hint = _binding_hint(op)
        if hint == value.name_hint:
            return super().print_ssa_value(value)
        carried, value.name_hint = value.name_hint, hint
        try:
            return super().print_ssa_value(value)
        finally:
            value.name_hint = carried


def _binding_hint(op: Operation) -> str | None:
    """The SSA name an expression's binding metadata gives its value (None: no binding)."""
    if isinstance(op.location, UnknownLoc):
        return None
    try:
        metadata = location_to_metadata(op.location)
    except VerifyError:
        return op.results[0].name_hint
    binding = next((m.name for m in metadata if type(m) is BindingMetadata), None)
    return binding if binding is not None and SSAValue.is_valid_name(binding) else None
