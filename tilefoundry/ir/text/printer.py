"""The TileFoundry printer: xDSL's, plus what the core IR needs of the text.

`TFPrinter` prints a span's end in MLIR's range form, numeric literals from their bits
(`ir/text/literals.py`), locations that share parts through aliases (`ir/text/loc_aliases.py`),
types from their texts (worked out once per type object), and no SSA name MLIR cannot read
(`%naïve`). What it prints, `TFParser` (`ir/text/parser.py`) reads back.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FunctionType,
    FusedLoc,
    LocationAttr,
    NameLoc,
    NoneAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, OpResult, SSAValue
from xdsl.printer import Printer

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    location_to_metadata,
    print_span_end_location,
)
from tilefoundry.ir.algebra.expr import ExprOp, VarOwner
from tilefoundry.ir.text.literals import print_dense, print_float
from tilefoundry.ir.text.loc_aliases import LocationAliases
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.xdsl_adapter.printer import new_ssa_number, pin_ssa_name, printed_ssa_name

__all__ = ["TFPrinter"]


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
