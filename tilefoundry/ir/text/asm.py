"""The TileFoundry parser and printer: xDSL's, plus what the core IR needs of the text.

`TFParser` adds
- MLIR's range locations, `loc("f.py":3:4 to 3:10)` and `loc("f.py":3:4 to :10)` (xDSL 0.74
  parses neither), and fused locations with metadata, `loc(fused<#tf.meta<...>>[...])`;
- the source position of every operation, so that diagnostics can name `file:line:col`;
- authored SSA names as binding metadata: `%h = tf.call ...` binds `h` (see `dialects/tf/metadata.py`);
- a diagnostic, never an exception, for any text: numeric literals checked against their types
  (`ir/text/literals.py`), the nesting limit (`ir/text/nesting.py`), the lexer's mistakes fixed
  (`ir/text/lexer.py`), line and column numbers and dimensions in range, and what TileFoundry IR
  does not have refused by name (resource blocks `{-# ... #-}`, affine maps).

`TFPrinter` prints a span's end in MLIR's range form, numeric literals from their bits, and
no SSA name MLIR cannot read (`%naïve`).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, NoReturn, Protocol, TypeVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FunctionType,
    FusedLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, OpResult, Region, SSAValue, TypeAttribute
from xdsl.ir.affine import AffineMap, AffineSet
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tilefoundry.diagnostics import VerifyError
from tilefoundry.dialects.tf.metadata import (
    BindingMetadata,
    SpanEndAttr,
    location_to_metadata,
    print_span_end_location,
)
from tilefoundry.ir.algebra.expr import ExprOp, VarOwner
from tilefoundry.ir.text.fast_forms import (
    PlainParameter,
    properties_end,
    read_dense,
    read_function_type,
    read_generic_op,
    read_signature,
    read_tensor_type,
)
from tilefoundry.ir.text.irdl_form import read_irdl_form
from tilefoundry.ir.text.lexer import BYTE_ORDER_MARK, TFLexer
from tilefoundry.ir.text.literals import LiteralParser, print_dense, print_float
from tilefoundry.ir.text.loc_aliases import (
    AliasCycle,
    AliasesTooDeep,
    LocationAliases,
    UndefinedAlias,
    forward_alias,
    resolve_forward_aliases,
)
from tilefoundry.ir.text.nesting import (
    MAX_NESTING,
    AttributeDepths,
    nesting_message,
    operation_attributes,
)
from tilefoundry.xdsl_adapter.printer import new_ssa_number, pin_ssa_name, printed_ssa_name

__all__ = [
    "PlainForm",
    "OPERAND",
    "PlainOp",
    "SourcePosition",
    "TFParser",
    "TFPrinter",
    "bracketed_end",
    "function_type_end",
    "plain_operand_names",
    "register_plain_form",
]

_T = TypeVar("_T")

_MAX_LINE_OR_COLUMN = (1 << 32) - 1  # MLIR's are unsigned 32-bit
_MAX_DIMENSION = (1 << 63) - 1  # MLIR's are int64_t


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


class TFParser(LiteralParser):
    """xDSL's parser with range locations, operation positions, SSA-name bindings, and a
    diagnostic for any text (see the module docstring)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        # The lexer lexes the first token as the parser is made: a lexing error in it is raised
        # by parse_module.
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._first_token_error: ParseError | None = None
        try:
            super().__init__(ctx, text, name, TFLexer)
        except ParseError as err:
            self._first_token_error = err
            super().__init__(ctx, "", name, TFLexer)
        self.source = text
        self.file_name = name
        self.op_offsets: dict[Operation, int] = {}
        self.first_uses: dict[str, Span] = {}
        self.forward_aliases: dict[str, Span] = {}
        self._depths = AttributeDepths()
        self._memo: dict[str, dict[str, object]] = {}
        self._plain_forms: dict[str, PlainForm | None] = {}
        self._text_depth = 0
        self._open: list[int] = []
        self._op_level = 0

    def position_of(self, offset: int) -> SourcePosition:
        text = self.source
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return SourcePosition(self.file_name, line, column)

    def op_position(self, op: Operation) -> SourcePosition | None:
        offset = self.op_offsets.get(op)
        return None if offset is None else self.position_of(offset)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            if self._first_token_error is not None:
                raise self._first_token_error
            module = super().parse_module(allow_implicit_module)
        except RecursionError:  # a path the nesting limit does not guard: still a diagnostic
            self.raise_error(nesting_message(), self.pos)
        except ParseError as err:
            undefined = [n for n in self.forward_ssa_references if n in self.first_uses]
            if undefined and err.msg.startswith("values used but not defined"):
                name = undefined[0]
                self.raise_error(f"use of undefined value '%{name}'", self.first_uses[name])
            if err.span.text == BYTE_ORDER_MARK:
                self.raise_error(
                    "unexpected byte-order mark (U+FEFF); save the file as UTF-8 without one",
                    err.span,
                )
            raise
        if self.forward_aliases:  # a location used an alias before its definition
            self._resolve_forward_aliases(module)
        read_irdl_form(module)
        return module

    def _resolve_forward_aliases(self, module: ModuleOp) -> None:
        try:
            rebound = resolve_forward_aliases(module, self.attribute_aliases)
        except UndefinedAlias as err:
            self.raise_error(
                f"undefined symbol alias '{err.alias}'", self.forward_aliases[err.alias]
            )
        except AliasCycle as err:
            used = next(a for a in err.chain if a in self.forward_aliases)
            self.raise_error(
                f"location alias '{err.alias}' refers to itself ({' -> '.join(err.chain)})",
                self.forward_aliases[used],
            )
        except AliasesTooDeep as err:
            self.raise_error(nesting_message(), self.forward_aliases[err.alias])
        levels: dict[Operation, int] = {module: 0}  # the implicit top module is not a level
        for op in module.walk():  # the aliases in place: as deep as what they stand for
            parent = op.parent_op()
            level = levels[op] = 0 if parent is None else levels[parent] + 1
            if level + self._depths.deepest(operation_attributes(op)) > MAX_NESTING:
                self.raise_error(nesting_message(), self.op_offsets.get(op, 0))
        for op in rebound:
            if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
                self._bind_ssa_name(op, self.op_offsets.get(op, 0))

    # -- nesting (see ir/text/nesting.py) -------------------------------------------------------------

    def _enter(self) -> bool:
        """Open a construct at the current token; whether it counts as a level (a construct
        read again at the same token, an attribute that is a type, is the same level)."""
        position = self.pos
        counted = not self._open or self._open[-1] != position
        if counted:
            if self._text_depth >= MAX_NESTING:
                self.raise_error(nesting_message(), position)
            self._text_depth += 1
        self._open.append(position)
        return counted

    def _leave(self, counted: bool) -> None:
        self._open.pop()
        if counted:
            self._text_depth -= 1

    def parse_optional_type(self) -> TypeAttribute | None:
        token = self.current_token
        if token.kind is MLIRTokenKind.BARE_IDENT and token.text in _MEMOIZED_TYPES:
            end = bracketed_end(self.source, token.span.start)
            return self.memoized("type", end, lambda: self._parse_new_type(end))
        return self._parse_type_here()

    def parse_optional_function_type(self) -> FunctionType | None:
        if self.current_token.kind is not MLIRTokenKind.L_PAREN:
            return None
        end = function_type_end(self.source, self.pos)
        return self.memoized("function type", end, lambda: self._parse_new_function_type(end))

    def _parse_new_function_type(self, end: int) -> FunctionType | None:
        """A function type not read before: one of tensor types in one step
        (`ir/text/fast_forms.py`), any other token by token."""
        if end >= 0 and (read := read_function_type(self, self.pos, end)) is not None:
            self.resume_from(end)
            return read
        return super().parse_optional_function_type()

    def read_plain_signature(
        self, allowed: tuple[str, ...]
    ) -> tuple[list[PlainParameter], list[Attribute]] | None:
        """A function signature of tensor types read in one step (`ir/text/fast_forms.py`),
        or None (nothing consumed) for the full reading (`dialects/syntax.py`)."""
        return read_signature(self, allowed)

    def function_type_between(self, start: int, end: int) -> FunctionType | None:
        """The function type whose text runs from `start` to `end`: one read before, or one
        of tensor types read now (then remembered); None for any other text. The parser stays
        where it is."""
        text = self.source[start:end]
        known = self.remembered("function type", text)
        if known is None:
            known = read_function_type(self, start, end)
            if known is not None:
                self.remember("function type", text, known)
        return cast(FunctionType | None, known)

    def memoized(self, table: str, end: int, parse: Callable[[], _T]) -> _T:
        """What `parse` reads from here to `end`, read once per distinct text: the same types,
        function types and op targets recur thousands of times in a module, and what they
        parse to is immutable (and means the same throughout one parse). `end` < 0: no memo."""
        start = self.pos
        if end < 0:
            return parse()
        text = self.source[start:end]
        cache = self._memo.setdefault(table, {})
        if text in cache:
            self.resume_from(end)
            return cast(_T, cache[text])
        value = parse()
        if self.source[start : self.pos].rstrip() == text:
            cache[text] = value
        return value

    def _parse_new_type(self, end: int) -> TypeAttribute | None:
        """A type not read before: a plain tensor type in one step (`ir/text/fast_forms.py`), any
        other token by token."""
        if end >= 0 and (tensor := read_tensor_type(self, end)) is not None:
            return tensor
        return self._parse_type_here()

    def parse_optional_properties_dict(self) -> dict[str, Attribute]:
        """xDSL's, each distinct text on one line read once (attributes are immutable; the
        caller gets its own dict)."""
        source, start = self.source, self.pos
        if source.startswith("<{", start):  # a text read before, looked up whole
            close = source.find("}>", start) + 2
            known = self.remembered("properties", source[start:close])
            if known is not None:
                self.resume_from(close)
                return dict(known)
        end = properties_end(source, start)
        return dict(self.memoized("properties", end, super().parse_optional_properties_dict))

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> DenseIntOrFPElementsAttr:
        """A literal of decimal numbers in one step (`ir/text/fast_forms.py`), any other token by
        token."""
        read = read_dense(self, type)
        return read if read is not None else super().parse_dense_int_or_fp_elements_attr(type)

    def _parse_type_here(self) -> TypeAttribute | None:
        start = self.pos
        counted = self._enter()
        try:
            return super().parse_optional_type()
        except VerifyException as err:  # a parameter its verifier refuses, at the type
            self.raise_error(str(err), start, self.pos)
        finally:
            self._leave(counted)

    def parse_optional_attribute(self) -> Attribute | None:
        start = self.pos
        counted = self._enter()
        try:
            return super().parse_optional_attribute()
        except VerifyException as err:  # a parameter its verifier refuses, at the attribute
            self.raise_error(str(err), start, self.pos)
        finally:
            self._leave(counted)

    def parse_tensor_literal(self) -> Any:
        counted = self._enter()
        try:
            return super().parse_tensor_literal()
        finally:
            self._leave(counted)

    # -- what TileFoundry IR does not have --------------------------------------------------------

    def parse_file_metadata_dictionary(self) -> NoReturn:
        self.raise_error(
            "resource blocks ({-# ... #-}) are not supported: TileFoundry IR has no dialect "
            "resources"
        )

    def parse_affine_map(self) -> AffineMap:
        self.raise_error("affine maps are not supported: TileFoundry IR has none")

    def parse_affine_set(self) -> AffineSet:
        self.raise_error("affine sets are not supported: TileFoundry IR has none")

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        token = self.current_token
        dimension = super().parse_shape_dimension(allow_dynamic)
        if dimension > _MAX_DIMENSION:
            self.raise_error(
                f"dimension {dimension} out of range (at most {_MAX_DIMENSION})", token.span
            )
        return dimension

    # -- operations ---------------------------------------------------------------------------------

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self.first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_optional_region(
        self, arguments: Iterable[Parser.Argument] | None = None
    ) -> Region | None:
        # A value defined in a region is not visible outside it, so a definition in the region
        # must not resolve a use that came before the region (xDSL resolved it: the body of a
        # function could use the argument of a variant defined after it). Uses in the region of
        # names still undefined stay pending in the enclosing region.
        outer = self.forward_ssa_references
        self.forward_ssa_references = {}
        try:
            region = super().parse_optional_region(arguments)
        finally:
            inner, self.forward_ssa_references = self.forward_ssa_references, outer
        for name, references in inner.items():
            pending = outer.setdefault(name, {})
            for index, value in references.items():
                known = pending.setdefault(index, value)
                if known is value:
                    continue
                if known.type != value.type:
                    self.raise_error(
                        f"operand is used with type {value.type}, but has been previously used "
                        f"with type {known.type}",
                        self.first_uses.get(name),
                    )
                value.replace_all_uses_with(known)
        return region

    def parse_operation(self) -> Operation:
        start = self.pos
        plain = self._parse_plain_operation(start) or self._parse_plain_generic(start)
        if plain is not None:
            return plain
        counted = self._enter()
        self._op_level += 1
        try:
            op = super().parse_operation()
        except ParseError as err:
            if isinstance(err, _OpParseError) or not err.msg.endswith("is not registered"):
                raise
            raise _OpParseError(Span(start, start + 1, self.lexer.input), err.msg) from None
        finally:
            self._op_level -= 1
            self._leave(counted)
        self.op_offsets[op] = start
        if self._op_level + 1 + self._depths.deepest(operation_attributes(op)) > MAX_NESTING:
            raise _OpParseError(Span(start, start + 1, self.lexer.input), nesting_message())
        if self._plain_forms.get(op.name) is not None:  # learn what the plain form looks up
            head = _PLAIN_HEAD.match(self.source, start)
            if head is not None and head.group(2) == op.name:
                cast(PlainForm, self._plain_forms[op.name]).learn(self, head.end(), op)
        if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
            self._bind_ssa_name(op, start)
        return op

    def _parse_plain_operation(self, start: int) -> Operation | None:
        """`%name = op ...` in the plain form its op registered (`register_plain_form`), read
        in one step; None (nothing consumed or defined; operands looked up stay looked up, as
        the full reading looks them up) when the text has another shape, names something not
        read before, or nests too deep: the op is then read token by token, which reports
        whatever is wrong. What the plain form builds is what the full reading builds."""
        head = _PLAIN_HEAD.match(self.source, start)
        if head is None:
            return None
        op_name = head.group(2)
        if op_name not in self._plain_forms:  # only for the op this parser's context registers
            op_class, registered = _PLAIN_FORMS.get(op_name, (None, None))
            known = op_class is not None and self.ctx.get_optional_op(op_name) is op_class
            self._plain_forms[op_name] = registered if known else None
        form = self._plain_forms[op_name]
        if form is None:
            return None
        parsed = form(self, head.end())
        if parsed is None:
            return None
        op, end, bound = parsed
        if len(op.results) != 1 or self._op_level + 1 + self._depths.deepest(bound) > MAX_NESTING:
            return None
        self.resume_from(end)
        if self.current_token.text == "loc":  # a location on the line, read as in full
            location = self._plain_location(start)
            if location is None or self._op_level + 1 + self._depths.deepest((location,)) > (
                MAX_NESTING
            ):
                self.resume_from(start)
                return None
            op.location = location
        name = head.group(1)
        self.define_ssa_values(
            name[1:], op.results, Span(start, start + len(name), self.lexer.input)
        )
        self.op_offsets[op] = start
        if isinstance(op, ExprOp | VarOwner):
            self._bind_ssa_name(op, start)
        return op

    def _parse_plain_generic(self, start: int) -> Operation | None:
        """An op in the generic form without regions or successors, read in one step
        (`ir/text/fast_forms.py`); None (nothing consumed) for any other text."""
        if not self.source.startswith(('"', "%"), start):
            return None
        counted = self._enter()
        self._op_level += 1
        try:
            read = read_generic_op(self, start)
        finally:
            self._op_level -= 1
            self._leave(counted)
        if read is None:
            return None
        op, name, bound = read
        if name is not None:
            self.define_ssa_values(
                name[1:], op.results, Span(start, start + len(name), self.lexer.input)
            )
        self.op_offsets[op] = start
        level = self._op_level + 1
        if level + self._depths.deepest(bound) > MAX_NESTING:  # `bound` holds what op uses
            if level + self._depths.deepest(operation_attributes(op)) > MAX_NESTING:
                raise _OpParseError(Span(start, start + 1, self.lexer.input), nesting_message())
        if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
            self._bind_ssa_name(op, start)
        return op

    def _plain_location(self, start: int) -> LocationAttr | None:
        """The location after a plain op, read at the levels the full reading reads it at
        (inside the op that starts at `start`)."""
        self._open.append(start)
        self._text_depth += 1
        self._op_level += 1
        try:
            return self.parse_optional_location()
        finally:
            self._op_level -= 1
            self._text_depth -= 1
            self._open.pop()

    def remembered(self, table: str, text: str) -> Any:
        """What `memoized` (or `remember`) found `text` to mean in `table`, or None."""
        return self._memo.get(table, _NOTHING).get(text)

    def remember(self, table: str, text: str, value: object) -> None:
        """Record that `text` means `value` in `table` (see `memoized`)."""
        self._memo.setdefault(table, {})[text] = value

    def _bind_ssa_name(self, op: Operation, start: int) -> None:
        """Keep the binding (the location) and the SSA name hint in agreement: a location that
        names a binding sets the SSA name; otherwise the SSA name becomes the binding, wrapped
        around whatever location the op has (as MLIR's name locations do)."""
        result = op.results[0]
        if isinstance(op.location, UnknownLoc):  # the common case: the SSA name is the binding
            if result.name_hint is not None:
                op.location = NameLoc(StringAttr(result.name_hint), _NO_ATTRIBUTE)
            return
        try:
            metadata = location_to_metadata(op.location)
        except VerifyError as err:
            self.raise_error(str(err), start)
        binding = next((m for m in metadata if type(m) is BindingMetadata), None)
        if binding is not None:
            if result.is_valid_name(binding.name):
                result.name_hint = binding.name
        elif result.name_hint is not None:
            child = NoneAttr() if isinstance(op.location, UnknownLoc) else op.location
            op.location = NameLoc(StringAttr(result.name_hint), child)

    # -- locations ----------------------------------------------------------------------------------

    def parse_optional_location(self) -> LocationAttr | None:
        if not self.parse_optional_characters("loc"):
            return None
        with self.in_parens():
            return self._location()

    def _location(self) -> LocationAttr:
        counted = self._enter()
        try:
            return self._parse_location_body()
        finally:
            self._leave(counted)

    def _parse_line_or_column(self, what: str) -> int:
        token = self.current_token
        value = self.parse_integer(allow_boolean=False, allow_negative=False)
        if value > _MAX_LINE_OR_COLUMN:
            self.raise_error(
                f"{what} number {value} out of range (at most {_MAX_LINE_OR_COLUMN})", token.span
            )
        return value

    def _parse_location_body(self) -> LocationAttr:
        if self.parse_optional_keyword("unknown"):
            return UnknownLoc()
        if (text := self.parse_optional_str_literal()) is not None:
            if self.parse_optional_punctuation(":") is None:
                child: Attribute = NoneAttr()
                if self.parse_optional_punctuation("(") is not None:
                    child = self._location()
                    self.parse_punctuation(")")
                return NameLoc(StringAttr(text), child)
            line = self._parse_line_or_column("line")
            self.parse_punctuation(":")
            column = self._parse_line_or_column("column")
            start = FileLineColLoc(StringAttr(text), IntAttr(line), IntAttr(column))
            range_at = self.pos
            if self.parse_optional_keyword("to") is None:
                return start
            end_line: IntAttr | NoneAttr = NoneAttr()
            if self.parse_optional_punctuation(":") is None:
                end_line = IntAttr(self._parse_line_or_column("line"))
                self.parse_punctuation(":")
            end_column = self._parse_line_or_column("column")
            end = (line if isinstance(end_line, NoneAttr) else end_line.data, end_column)
            if end < (line, column):
                self.raise_error(
                    f"source range ends at {end[0]}:{end[1]}, before it starts at {line}:{column}",
                    range_at,
                    self.pos,
                )
            return FusedLoc(ArrayAttr((start,)), SpanEndAttr(end_line, IntAttr(end_column)))
        if self.parse_optional_keyword("callsite") is not None:
            self.parse_punctuation("(")
            callee = self._location()
            self.parse_keyword("at")
            caller = self._location()
            self.parse_punctuation(")")
            return CallSiteLoc(callee, caller)
        if self.parse_optional_keyword("fused") is not None:
            metadata: Attribute = NoneAttr()
            if self.parse_optional_punctuation("<") is not None:
                metadata = self.parse_attribute()
                self.parse_punctuation(">")
            locations = self.parse_comma_separated_list(
                self.Delimiter.SQUARE, self._location, " in fused location"
            )
            return FusedLoc(ArrayAttr(locations), metadata)
        position = self.pos
        alias = self.current_token
        if alias.kind == MLIRTokenKind.HASH_IDENT and alias.text not in self.attribute_aliases:
            self.consume_token()  # an alias defined later in the input, as mlir-opt prints it
            self.forward_aliases.setdefault(alias.text, alias.span)
            return forward_alias(alias.text)
        attr = self.parse_optional_attribute()
        if isinstance(attr, LocationAttr):
            return attr
        self.raise_error("expected a location", position)


_MEMOIZED_TYPES = frozenset(("tensor", "tuple"))


_NAME = re.compile(r"[A-Za-z0-9_.$-]+")
OPERAND = r"%(?:[0-9]+|[A-Za-z$._-][A-Za-z0-9$._-]*)"
"""An operand or result name, as a regular expression: where xDSL's lexer ends it."""
_OPERAND_NAME = re.compile(OPERAND)
_PLAIN_HEAD = re.compile(rf"({OPERAND}) = ([a-z_][a-z0-9_$.]*) ")
"""`%name = dialect.op ` at the start of an op that may have a plain form."""
_NOTHING: dict[str, object] = {}
_NO_ATTRIBUTE = NoneAttr()


class PlainOp(NamedTuple):
    """What a plain form read: the op (operands resolved, nothing else defined), where its
    text ends, and attributes at least as deep as each one the op uses (for the nesting
    limit: the function type that holds its operand and result types, say)."""

    op: Operation
    end: int
    bound: Sequence[Attribute]


class PlainForm(Protocol):
    """Reads an op's most common spelling in one step, from `position` (after `%r = name `),
    or returns None when the text is not in that spelling (`ir/text/plain_call.py`). See
    `TFParser._parse_plain_operation`."""

    def __call__(self, parser: TFParser, position: int, /) -> PlainOp | None: ...

    def learn(self, parser: TFParser, position: int, op: Operation, /) -> None:
        """Told of `op`, read in full from `position` (after `%r = name `): what the form may
        remember of it for the next reading."""


_PLAIN_FORMS: dict[str, tuple[type[Operation], PlainForm]] = {}


def register_plain_form(op: type[Operation], form: PlainForm) -> None:
    """Let `TFParser` read `op` through `form` when its text has that shape (and the parser's
    context registers `op` under its name)."""
    _PLAIN_FORMS[op.name] = (op, form)


def plain_operand_names(parser: TFParser, start: int, end: int) -> list[UnresolvedOperand]:
    """The operands of a plain operand list `(%a, %b)` (each name ending where xDSL's lexer ends
    it, at the `,` or `)` that follows) from `start` to `end`."""
    source = parser.lexer.input
    return [
        UnresolvedOperand(Span(name.start(), name.end(), source), 0)
        for name in _OPERAND_NAME.finditer(parser.source, start, end)
    ]


_ANGLE_SPECIALS = re.compile(r'[<>"\n]')
_PAREN_SPECIALS = re.compile(r'[()"\n]')
_STRING_REST = re.compile(r'(?:[^"\\\n]|\\.)*"')
_ARROW = re.compile(r" *-> *")


def bracketed_end(text: str, start: int) -> int:
    """The end of `name` or `name<...>` at `start` (a type such as `tensor<4xf32>`, an op
    target such as `tf.math.binary<kind = add>`): brackets balanced, strings skipped. -1 when
    the text has another shape (the memo is then not used)."""
    name = _NAME.match(text, start)
    if name is None:
        return -1
    position = name.end()
    if not text.startswith("<", position):
        return position
    depth = 0
    while (special := _ANGLE_SPECIALS.search(text, position)) is not None:
        char, position = special.group(), special.end()
        if char == "<":
            depth += 1
        elif char == ">":
            if text[position - 2] != "-":
                depth -= 1
                if depth == 0:
                    return position
        elif char == '"':
            string = _STRING_REST.match(text, position)
            if string is None:
                return -1
            position = string.end()
        else:
            return -1
    return -1


def _parenthesized_end(text: str, position: int) -> int:
    depth = 0
    while (special := _PAREN_SPECIALS.search(text, position)) is not None:
        char, position = special.group(), special.end()
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return position
        else:
            return -1
    return -1


def function_type_end(text: str, start: int) -> int:
    """The end of the function type `(T, ...) -> R` or `(T, ...) -> (R, ...)` at `start`, or
    -1 when the text has another shape."""
    position = _parenthesized_end(text, start)
    arrow = _ARROW.match(text, position) if position >= 0 else None
    if arrow is None:
        return -1
    if text.startswith("(", arrow.end()):
        return _parenthesized_end(text, arrow.end())
    return bracketed_end(text, arrow.end())


def _elided(attribute: DenseIntOrFPElementsAttr, limit: int) -> bool:
    """Whether a dense literal holds more than `limit` elements and is not a splat (one stored
    element, or all equal), as MLIR elides them."""
    if math.prod(attribute.get_shape()) <= limit:
        return False
    element_type = attribute.get_element_type()
    size = getattr(element_type, "compile_time_size", 0)
    data = memoryview(attribute.data.data)
    return not size or len(data) > size and data[size:] != data[:-size]


@dataclass(eq=False, repr=False)
class TFPrinter(Printer):
    """xDSL's printer, with a source span's end printed as MLIR's `to line:col`, numeric
    literals printed from their bits (`ir/text/literals.py`), and the SSA name of an expression's
    value taken from its binding metadata (the location), not from the name hint a rewrite may
    have carried over (xDSL's `replace_all_uses_with` gives a value without a hint the hint of
    the value it replaces)."""

    _signatures: dict[tuple[int, ...], tuple[str, tuple[Attribute, ...]]] = field(
        default_factory=dict[tuple[int, ...], tuple[str, tuple[Attribute, ...]]], init=False
    )

    _type_texts: dict[int, tuple[str, Attribute]] = field(
        default_factory=dict[int, tuple[str, Attribute]], init=False
    )

    _locations: LocationAliases = field(default_factory=LocationAliases, init=False)
    _defining: Attribute | None = field(default=None, init=False)
    elide_elements_over: int | None = None
    """A dense literal of more elements (not a splat) prints as `dense_resource<__elided__>`,
    as mlir-opt's `--mlir-elide-elementsattrs-if-larger=N` prints it."""

    def print_location_alias(self, attribute: Attribute) -> bool:
        """Print a location that shares its parts as its alias (`loc(#loc3)`, or `#loc3`
        inside a location); False for anything else, printed as it is."""
        if not (self.print_debuginfo and isinstance(attribute, LocationAttr)):
            return False
        alias = self._locations.alias(attribute, self._defining)
        if alias is None:
            return False
        self.print_string(alias if self.printing_location else f"loc({alias})")
        return True

    def print_attribute(self, attribute: Attribute) -> None:
        if (
            self.elide_elements_over is not None
            and isinstance(attribute, DenseIntOrFPElementsAttr)
            and _elided(attribute, self.elide_elements_over)
        ):
            self.print_string("dense_resource<__elided__> : ")
            self.print_attribute(attribute.type)
            return
        if self.print_location_alias(attribute):
            return
        if isinstance(attribute, FusedLoc) and print_span_end_location(self, attribute):
            return
        if isinstance(attribute, DenseIntOrFPElementsAttr) and print_dense(self, attribute):
            return
        super().print_attribute(attribute)

    def print_location_aliases(self) -> None:
        """Define the location aliases printed so far (`#loc3 = loc(...)`, one a line), as
        mlir-opt does after the operations: a location that shares parts prints each once
        (`ir/text/loc_aliases.py`)."""
        for name, location in self._locations.definitions():
            self.print_string(f"{name} = ")
            self._defining = location
            try:
                self.print_attribute(location)
            finally:
                self._defining = None
            self.print_string("\n")

    def print_float(self, value: float, type: Any) -> None:
        print_float(self, value, type)

    def function_type_text(self, inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> str:
        """What `print_function_type` prints for these types, worked out once per distinct
        pair of type objects in this printer (a module names few distinct signatures many
        times; types print alike in every printer), from each type's `type_text`. The cache
        keeps the types alive, so their ids stay theirs."""
        key = (*map(id, inputs), -1, *map(id, outputs))
        known = self._signatures.get(key)
        if known is None:
            text = f"({', '.join(map(self.type_text, inputs))}) -> "
            if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
                text += self.type_text(outputs[0])
            else:
                text += f"({', '.join(map(self.type_text, outputs))})"
            known = (text, (*inputs, *outputs))
            self._signatures[key] = known
        return known[0]

    def print_type(self, type: Attribute) -> None:
        """Print a type as `print_attribute` prints it, from its `type_text`."""
        self.print_string(self.type_text(type))

    def type_text(self, type: Attribute) -> str:
        """What xDSL's printer prints for a type (or any attribute that prints alike in every
        printer), worked out once per type object in this printer: a ranked tensor type from
        its shape and its parts' texts (a model of distinct shapes has a new one on nearly
        every line, its element types and encodings few), any other by xDSL's printer."""
        known = self._type_texts.get(id(type))
        if known is None:
            if type.__class__ is TensorType:
                dims = "".join(f"{d:d}x" if d != DYNAMIC_INDEX else "?x" for d in type.get_shape())
                text = f"tensor<{dims}{self.type_text(type.element_type)}"
                if not isinstance(type.encoding, NoneAttr):
                    text += f", {self.type_text(type.encoding)}"
                text += ">"
            else:
                stream = io.StringIO()
                Printer(stream=stream).print_attribute(type)
                text = stream.getvalue()
            known = (text, type)
            self._type_texts[id(type)] = known
        return known[0]

    def print_ssa_value(self, value: SSAValue) -> str:
        if printed_ssa_name(self, value) is not None:
            return super().print_ssa_value(value)
        hint = _name_of(value)
        if hint is not None and not hint.isascii():
            # xDSL takes any Unicode word as a name hint (`%naïve`), which no MLIR lexer reads
            # back: such a value is numbered instead (its binding stays in its location).
            name = new_ssa_number(self)
            pin_ssa_name(self, value, name)
            self.print_string(f"%{name}")
            return name
        # xDSL keeps the hint of a name such as `_0` as "" (it strips the `_N` suffix), which
        # its own setter then refuses: "" is no hint.
        if hint == (value.name_hint or None):
            return super().print_ssa_value(value)
        # Named as xDSL names a value from its hint (`extract_valid_name`, as its setter keeps
        # it), without writing the hint onto the value: printing never changes the IR.
        hint = SSAValue.extract_valid_name(hint) if hint is not None else None
        if hint:
            count = self.ssa_names.get(hint, 0)
            name = f"{hint}_{count}" if count else hint
            self.ssa_names[hint] = count + 1
        else:
            name = new_ssa_number(self)
        pin_ssa_name(self, value, name)
        self.print_string(f"%{name}")
        return name


def _name_of(value: SSAValue) -> str | None:
    """The SSA name a value prints with: an expression's binding (None: no binding), else its
    name hint."""
    if not isinstance(value, OpResult):
        return value.name_hint
    op = value.op
    if not isinstance(op, ExprOp | VarOwner) or len(op.results) != 1:
        return value.name_hint
    location = op.location
    if isinstance(location, UnknownLoc):
        return None
    if isinstance(location, NameLoc) and isinstance(location.location, NoneAttr | UnknownLoc):
        name = location.desc.data  # the common case: a binding, nothing more
        return name if _printable(name) else None
    try:
        metadata = location_to_metadata(location)
    except VerifyError:
        return value.name_hint
    binding = next((m.name for m in metadata if type(m) is BindingMetadata), None)
    return binding if binding is not None and _printable(binding) else None


def _printable(name: str) -> bool:
    """Whether a binding can be an SSA name: valid, and not empty once xDSL strips a `_N`
    suffix from it (`_0` would be; such a value is numbered, its binding kept in its
    location)."""
    return bool(SSAValue.is_valid_name(name)) and SSAValue.extract_valid_name(name) != ""
