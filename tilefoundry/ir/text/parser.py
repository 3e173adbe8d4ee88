"""The TileFoundry parser: xDSL's, plus what the core IR needs of the text, and its fast path.

`TFParser` adds
- MLIR's range locations, `loc("f.py":3:4 to 3:10)` and `loc("f.py":3:4 to :10)` (xDSL 0.74
  parses neither), and fused locations with metadata, `loc(fused<#tf.meta<...>>[...])`;
- the source position of every operation, so that diagnostics can name `file:line:col`;
- authored SSA names as binding metadata: `%h = tf.call ...` binds `h` (see `builtin/metadata.py`);
- a diagnostic, never an exception, for any text: numeric literals checked against their types
  (`ir/text/literals.py`), the nesting limit (`ir/text/nesting.py`), the lexer's mistakes fixed
  (`ir/text/scanner.py`, `xdsl_adapter/lexer.py`), line and column numbers and dimensions in
  range, and what TileFoundry IR does not have refused by name (resource blocks `{-# ... #-}`,
  affine maps).

The fast path is the parser's own: no dialect registers a reader. It reads the texts a module
is mostly made of in one step, and builds exactly what the token-by-token reading builds; on
any other text it gives up (nothing consumed) and the full reading reads it and reports what
is wrong:

- a memo of texts read before, per parse (`memoized`): types, function types, op targets,
  properties and attribute dictionaries, encodings; what they parse to is immutable and means
  the same throughout one parse;
- learned op shapes (`read_learned_op`): once an op in the custom form has been read in full
  from a call line `%r = name callee(%a, ...) : (A, ...) -> R` or a constant line
  `%c = name dense<...> : tensor<...>`, the next line of that op and callee (or that op) is
  built from what was learned, its operand names, function type and literal read from its
  text (the key is the op's text with SSA names and types masked);
- one-step readers of new texts: an op in the generic form without regions
  (`read_generic_op`), a tensor type (`read_tensor_type`), a function type of tensor types
  (`read_function_type`), a function signature (`read_signature`), a dense literal of decimal
  numbers (`read_dense`). Their patterns are in `ir/text/scanner.py`.

`tests/unit/ir/text/test_parser_fast_forms.py` and `test_plain_forms.py` read inputs both ways, with the
fast path and without, and compare output and diagnostics.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn, TypeVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, Region, SSAValue, TypeAttribute
from xdsl.ir.affine import AffineMap, AffineSet
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    SpanEndAttr,
    location_to_metadata,
)
from tilefoundry.ir.algebra.expr import ExprOp, VarOwner
from tilefoundry.ir.text import scanner
from tilefoundry.ir.text.irdl_form import read_irdl_form
from tilefoundry.ir.text.literals import LiteralParser, canonical_dense
from tilefoundry.ir.text.loc_aliases import (
    AliasCycle,
    AliasesTooDeep,
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
from tilefoundry.ir.text.scanner import (
    BYTE_ORDER_MARK,
    OPERAND_NAME,
    PLAIN_HEAD,
    TFLexer,
    balanced_end,
    bracketed_end,
    function_type_end,
    spaces_end,
)
from tilefoundry.support.diagnostics import VerifyError

__all__ = [
    "GenericOp",
    "PlainOp",
    "PlainParameter",
    "SourcePosition",
    "TFParser",
    "read_dense",
    "read_function_type",
    "read_generic_op",
    "read_learned_op",
    "read_signature",
    "read_tensor_type",
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
        self.depths = AttributeDepths()
        self._memo: dict[str, dict[str, object]] = {}
        self._learned: dict[tuple[str, str], _LearnedOp] = {}
        self.dimensions: dict[str, IntAttr] = {}
        """The dimensions of the tensor types read in one step, by their text."""
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
            if level + self.depths.deepest(operation_attributes(op)) > MAX_NESTING:
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
        (the fast path, below), any other token by token."""
        if end >= 0 and (read := read_function_type(self, self.pos, end)) is not None:
            self.resume_from(end)
            return read
        return super().parse_optional_function_type()

    def read_plain_signature(
        self, allowed: tuple[str, ...]
    ) -> tuple[list[PlainParameter], list[Attribute]] | None:
        """A function signature of tensor types read in one step (the fast path, below),
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
        """A type not read before: a plain tensor type in one step (the fast path, below), any
        other token by token."""
        if end >= 0 and (tensor := read_tensor_type(self, end)) is not None:
            return tensor
        return self._parse_type_here()

    def parse_optional_properties_dict(self) -> dict[str, Attribute]:
        """xDSL's, each distinct text on one line read once, each distinct entry value too
        (attributes are immutable; the caller gets its own dict)."""
        source, start = self.source, self.pos
        if not source.startswith("<{", start):
            return super().parse_optional_properties_dict()
        close = source.find("}>", start) + 2  # a text read before, looked up whole
        known = self.remembered("properties", source[start:close])
        if known is not None:
            self.resume_from(close)
            return dict(known)
        separators: list[int] = []
        end = balanced_end(source, start, separators, 2)
        if end < 0:
            return super().parse_optional_properties_dict()
        separators.append(end - 2)
        read = self._read_entries(start + 2, separators)
        if read is None:  # read token by token, which reports what is wrong
            self.resume_from(start)
            return dict(self.memoized("properties", end, super().parse_optional_properties_dict))
        self.remember("properties", source[start:end], read)
        self.resume_from(end)
        return dict(read)

    def _read_entries(self, position: int, separators: list[int]) -> dict[str, Attribute] | None:
        """The entries `name = value` of a dictionary from `position`, each ending at its
        separator (`,` or the closing `}`), each value read once per distinct text (a string
        without escapes and a function type of tensor types in one step); None for any other
        text (a key spelled as a string, a unit entry, a key twice, a value not all of its
        text)."""
        source = self.source
        entries: dict[str, Attribute] = {}
        for separator in separators:
            entry = scanner.ENTRY_NAME.match(source, position, separator)
            if entry is None or entry.group(1) in entries:
                return None
            start = entry.end()
            text = source[start:separator].rstrip()
            value: Attribute | None = self.remembered("attribute", text)
            if value is None:
                value = self._read_value(start, start + len(text), separator)
                if value is None:
                    return None
                self.remember("attribute", text, value)
            entries[entry.group(1)] = value
            position = separator + 1
        return entries

    def _read_value(self, start: int, end: int, separator: int) -> Attribute | None:
        """The attribute whose text runs from `start` to `end` (followed by `separator`), or
        None."""
        source = self.source
        first = source[start] if start < end else ""
        if first == '"':
            if scanner.PLAIN_STRING.fullmatch(source, start, end) is None:
                return None
            return StringAttr(source[start + 1 : end - 1])
        if first == "(":
            return self.function_type_between(start, end)
        if source.startswith("dense<", start):
            self.resume_from(start + len("dense"))
            dense = read_dense(self, None)
            if dense is not None and self.pos == separator:
                return dense
        self.resume_from(start)
        value = self.parse_optional_attribute()
        return value if self.pos == separator else None

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> DenseIntOrFPElementsAttr:
        """A literal of decimal numbers in one step (the fast path, below), any other token by
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
        token = self.current_token
        counted = self._enter()
        try:
            if token.kind is MLIRTokenKind.BARE_IDENT and token.text in _MEMOIZED_TYPES:
                # xDSL tries each builtin attribute in turn and ends at the type for these
                # (a block argument's type is read as an attribute): straight to it
                return self.parse_optional_type()
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
        if self._op_level + 1 + self.depths.deepest(operation_attributes(op)) > MAX_NESTING:
            raise _OpParseError(Span(start, start + 1, self.lexer.input), nesting_message())
        if len(op.results) == 1 and not op.regions and not op.attributes:
            head = PLAIN_HEAD.match(self.source, start)
            if head is not None and head.group(2) == op.name:  # what the fast path learns
                learn_op(self, head.end(), op)
        if isinstance(op, ExprOp | VarOwner) and len(op.results) == 1:
            self._bind_ssa_name(op, start)
        return op

    def _parse_plain_operation(self, start: int) -> Operation | None:
        """`%name = op ...` in the custom form of a shape learned before (`read_learned_op`),
        read in one step; None (nothing consumed or defined; operands looked up stay looked
        up, as the full reading looks them up) when the text has another shape, names
        something not read before, or nests too deep: the op is then read token by token,
        which reports whatever is wrong. What the fast path builds is what the full reading
        builds."""
        head = PLAIN_HEAD.match(self.source, start)
        if head is None:
            return None
        parsed = read_learned_op(self, head.group(2), head.end())
        if parsed is None:
            return None
        op, end, bound = parsed
        if len(op.results) != 1 or self._op_level + 1 + self.depths.deepest(bound) > MAX_NESTING:
            return None
        self.resume_from(end)
        if self.current_token.text == "loc":  # a location on the line, read as in full
            location = self._plain_location(start)
            if location is None or self._op_level + 1 + self.depths.deepest((location,)) > (
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
        (the fast path, below); None (nothing consumed) for any other text."""
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
        if level + self.depths.deepest(bound) > MAX_NESTING:  # `bound` holds what op uses
            if level + self.depths.deepest(operation_attributes(op)) > MAX_NESTING:
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
_NOTHING: dict[str, object] = {}
_NO_ATTRIBUTE = NoneAttr()


# -- the fast path ----------------------------------------------------------------------------


class PlainOp(NamedTuple):
    """What the fast path read of an op in the custom form: the op (operands resolved, nothing
    else defined), where its text ends, and attributes at least as deep as each one the op uses
    (for the nesting limit: the function type that holds its operand and result types, say)."""

    op: Operation
    end: int
    bound: Sequence[Attribute]


@dataclass(frozen=True)
class _LearnedOp:
    """What the full reading of an op's line taught the fast path: the op's class and its
    properties (a call's callee), or the property that holds a constant's literal."""

    op: type[Operation]
    properties: dict[str, Attribute]
    literal: str | None = None


def learn_op(parser: TFParser, position: int, op: Operation) -> None:
    """Remember what `op`, read in full from `position` (after `%r = name `), is built from,
    when its line has one of the shapes `read_learned_op` reads and the op is exactly what that
    shape says: a call whose operand and result types are its function type's, a constant whose
    one property is its literal and whose result type is the literal's."""
    source = parser.source
    if source.startswith("dense<", position):
        if op.operands or len(op.properties) != 1:
            return
        ((key, value),) = op.properties.items()
        line = scanner.PLAIN_CONSTANT.match(source, position)
        if line is None or not isinstance(value, DenseIntOrFPElementsAttr):
            return
        if value.type != op.results[0].type:
            return
        at = parser.pos
        parser.resume_from(position + len("dense"))
        read = read_dense(parser, None)
        parser.resume_from(at)
        if read != value:
            return
        parser._learned[(op.name, "dense")] = _LearnedOp(type(op), {}, key)
        return
    line = scanner.PLAIN_CALL.match(source, position)
    if line is None:
        return
    callee = line.group(1)
    if callee.startswith("@"):
        if scanner.PLAIN_SYMBOL.fullmatch(callee) is None:
            return
    elif bracketed_end(source, position) != line.end(1):  # the callee is not all the text
        return
    function_type = parser.function_type_between(line.start(3), line.end(3))
    if not isinstance(function_type, FunctionType):
        return
    if tuple(function_type.inputs.data) != tuple(op.operand_types) or tuple(
        function_type.outputs.data
    ) != tuple(op.result_types):
        return
    parser._learned[(op.name, callee)] = _LearnedOp(type(op), dict(op.properties))


def read_learned_op(parser: TFParser, name: str, position: int) -> PlainOp | None:
    """The op `name` whose text starts at `position` (after `%r = name `) in a shape learned
    from an op read in full before (`learn_op`), read in one step: a call line
    `callee(%a, ...) : (A, ...) -> R`, the callee's text the same, or a constant line
    `dense<...> : tensor<...>` (nothing else on the rest of the line); None when the text has
    another shape or names a callee or function type not read before."""
    source = parser.source
    learned = parser._learned
    if not learned:
        return None
    if source.startswith("dense<", position):
        constant = learned.get((name, "dense"))
        line = scanner.PLAIN_CONSTANT.match(source, position) if constant else None
        if constant is None or line is None or constant.literal is None:
            return None
        at = parser.pos
        parser.resume_from(position + len("dense"))
        value = read_dense(parser, None)
        if value is None:
            parser.resume_from(at)
            return None
        op = constant.op.create(properties={constant.literal: value}, result_types=[value.type])
        return PlainOp(op, line.end(), (value,))
    line = scanner.PLAIN_CALL.match(source, position)
    if line is None:
        return None
    if not source.startswith("loc(", line.end()) and not scanner.PLAIN_OP_END.match(
        source, line.end()
    ):
        return None
    call = learned.get((name, line.group(1)))
    if call is None:
        return None
    function_type = parser.function_type_between(line.start(3), line.end(3))
    if not isinstance(function_type, FunctionType) or len(function_type.outputs) != 1:
        return None
    lexed = parser.lexer.input
    operands = [
        UnresolvedOperand(Span(found.start(), found.end(), lexed), 0)
        for found in OPERAND_NAME.finditer(source, line.start(2), line.end(2))
    ]
    values = parser.resolve_operands(operands, function_type.inputs.data, line.start(3))
    properties = dict(call.properties)
    op = call.op.create(
        operands=values, result_types=[function_type.outputs.data[0]], properties=properties
    )
    return PlainOp(op, line.end(), (*properties.values(), function_type))


class GenericOp(NamedTuple):
    """What `read_generic_op` read: the op (operands resolved, results not yet defined), the
    `%name` of its result (or None), and the attributes the nesting limit checks."""

    op: Operation
    name: str | None
    bound: tuple[Attribute, ...]


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
    after = spaces_end(source, end)
    return (read, after) if parser.pos == after else None


def read_generic_op(parser: TFParser, start: int) -> GenericOp | None:
    """The op at `start` in the generic form without regions or successors (see the module
    docstring), or None (the parser back at `start`) for any other text: what the full reading
    of the generic form builds, every error it would report at the same place reported here
    (the text before each part is checked by the expressions above, the parts read by the
    parser itself)."""
    source = parser.source
    head = scanner.GENERIC_HEAD.match(source, start)
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
        for name in OPERAND_NAME.finditer(source, operands_start, head.end())
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
        position = spaces_end(source, close)
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
    colon = scanner.COLON.match(source, read_attributes[1])
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
    found = scanner.TENSOR.fullmatch(parser.source, start, end)
    if found is None:
        return None
    shape = _shape(parser, found.group(1))
    if shape is None:
        return None
    element = _ELEMENTS[found.group(2)]
    if found.group(3) is None:
        tensor = TensorType.new((shape, element, _NO_ATTRIBUTE))
        depths = parser.depths  # its depth, from its parts' (see ir/text/nesting.py)
        depths.record(tensor, 1 + max(2 if shape.data else 1, depths.depth(element)))
        return tensor
    known = parser.remembered("encoding", found.group(3))
    if known is not None:
        return TensorType.new((shape, element, known))
    if parser.pos != start:
        parser.resume_from(start)
    counted = parser._enter()
    try:
        parser.resume_from(found.start(3))
        encoding = parser.memoized("encoding", end - 1, parser.parse_attribute)
        if parser.pos != end - 1:
            return None
        return TensorType.new((shape, element, encoding))
    except VerifyException:  # the full reading reports it
        return None
    finally:
        parser._leave(counted)


def _shape(parser: TFParser, text: str) -> ArrayAttr[IntAttr] | None:
    """The shape of a tensor type from its text (`4x?x`), read once per distinct text, each
    dimension's `IntAttr` made once; None for a dimension out of range."""
    known: ArrayAttr[IntAttr] | None = parser.remembered("shape", text)
    if known is None:
        dimensions = parser.dimensions
        shape = []
        for digits in text.split("x")[:-1]:
            dimension = dimensions.get(digits)
            if dimension is None:
                value = DYNAMIC_INDEX if digits == "?" else int(digits)
                if value > _MAX_DIMENSION:
                    return None
                dimension = dimensions[digits] = IntAttr(value)
            shape.append(dimension)
        known = ArrayAttr(tuple(shape))
        parser.remember("shape", text, known)
    return known


def read_function_type(parser: TFParser, start: int, end: int) -> FunctionType | None:
    """The function type of tensor types from `start` to `end` (see `_FUNCTION_TYPE`), each
    type read once per distinct text (the parser's `type` memo, as the full reading reads
    them), or None for any other text. The parser is back where it was."""
    source = parser.source
    found = scanner.FUNCTION_TYPE.fullmatch(source, start, end)
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
                found = scanner.PARAMETER.match(source, position)
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
        arrow = scanner.RESULT.match(source, position)
        if arrow is not None:
            if arrow.group(1) is not None:
                result = _remembered_type(parser, arrow.start(1), arrow.end(1))
                if result is None:
                    return _back(parser, start)
                results.append(result)
            position = arrow.end()
        elif scanner.ARROW_AHEAD.match(source, position):  # a result spelled otherwise
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
    for item in scanner.TYPE_ITEMS.finditer(source, start, end):
        known = _remembered_type(parser, item.start(), item.end())
        if known is None:
            return None
        types.append(known)
    return types


_MAX_RANK = 8
"""Literals of more dimensions (nested deeper) are left to the full reading and its limit."""


def read_dense(parser: TFParser, given: Attribute | None) -> DenseIntOrFPElementsAttr | None:
    """`<literal>` (and `: type` when `type` is None) at the parser's position, the literal of
    decimal numbers of an integer or float tensor, or None (the parser where it was) for any
    other text or a literal the full reading refuses (it reports why)."""
    start = parser.pos
    found = scanner.DENSE.match(parser.source, start)
    if found is None:
        return None
    try:
        literal = json.loads(found.group(1))
    except ValueError:
        return None
    dense_type = given
    colon = scanner.COLON.match(parser.source, found.end()) if given is None else None
    if colon is not None:  # a tensor type read before, or read now in one step
        type_end = bracketed_end(parser.source, colon.end())
        if type_end >= 0:
            dense_type = _remembered_type(parser, colon.end(), type_end)
            if dense_type is not None:
                parser.resume_from(type_end)
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
