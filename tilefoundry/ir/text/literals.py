"""Numeric literals in text: each value checked against its type, floats kept bit for bit.

`LiteralParser` reads `dense<...>` literals and `value : type` attributes; `print_dense` and
`print_float` print them. What they keep that xDSL 0.74 does not:

- An integer out of its type's range is a diagnostic at the literal (`dense<300> : tensor<i8>`),
  as in MLIR, not an exception. A float literal out of its type's range (`1.0e10` as f16) is a
  diagnostic too: MLIR silently makes it an infinity, which no one means by writing a number.
- A hexadecimal literal of a float type is the float's bits (`0x7F800000` is +inf as f32), in
  dense literals as in scalar attributes; xDSL read it as an integer value in dense literals.
  Non-finite floats print so, as MLIR prints them (`0x7FC00000`), from the stored bits.
- A splat stays one element (`dense<1.0> : tensor<50000000xf32>` holds four bytes), and a literal
  whose elements are all equal is stored as a splat, so equal constants compare equal however
  they were written. xDSL expanded every splat to its full size.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn, Protocol, cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    RankedStructure,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import base
from xdsl.printer import Printer
from xdsl.utils.lexer import Position, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tilefoundry.xdsl_adapter.parser import AdaptedParser

__all__ = ["LiteralParser", "canonical_dense", "print_dense", "print_float"]

_INDEX_RANGE = (-(1 << 63), 1 << 64)
_HEX_ELEMENTS_OVER = 100
"""Dense literals with more elements than this print as a hex string of their bytes (as xDSL)."""

_DENSE_LITERAL_TYPE = base(
    cast(Any, RankedStructure)[IntegerType | IndexType | AnyFloat | ComplexType]
)
"""What xDSL's dense-literal parser checks a literal's type against (a generic alias, which
mypy does not subscript)."""


class _Element(Protocol):
    """An element of a tensor literal as xDSL's reader returns it (its value, sign and span)."""

    is_negative: bool
    value: int | float | bool | tuple[int, int] | tuple[float, float]
    span: Span

    def to_type(self, parser: Any, type: Any) -> Any: ...


# -- values against their types ----------------------------------------------------------------


def _int_value(value: int, type: IntegerType | IndexType) -> int | None:
    """The stored value of an integer literal (a signless one normalized to its signed value,
    as xDSL and MLIR print it); None when the type cannot hold it."""
    if isinstance(type, IndexType):
        lo, hi = _INDEX_RANGE
        return value if lo <= value < hi else None
    return type.normalized_value(value)


def _int_range_text(type: IntegerType | IndexType) -> str:
    lo, hi = _INDEX_RANGE if isinstance(type, IndexType) else type.value_range()
    return f"[{lo}, {hi - 1}]"


def _float_bytes(value: float, type: AnyFloat) -> bytes | None:
    """`value` rounded to `type`, as bytes; None when it does not fit (rounds to infinity)."""
    try:
        raw = type.pack([value])
    except (OverflowError, ValueError):  # struct refuses values past the largest finite one
        return None
    (back,) = type.unpack(raw, 1)
    return None if math.isinf(back) or math.isnan(back) else raw


def _is_hex(text: str) -> bool:
    return text.lstrip("-").lstrip()[:2] in ("0x", "0X")


def _element_size(type: IntegerType | IndexType | AnyFloat) -> int:
    return type.compile_time_size


# -- parsing -----------------------------------------------------------------------------------


class LiteralParser(AdaptedParser):
    """xDSL's parser with numeric literals checked (see the module docstring)."""

    def parse_dense_literal_type(self) -> Any:
        """The type of a dense literal, as xDSL's `_parse_dense_literal_type` reads it, with its
        type constraint built once rather than for every literal (which took most of the time
        of reading a constant)."""
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not _DENSE_LITERAL_TYPE.verifies(type):
            self.raise_error(
                "Expected memref, vector or tensor type of integer, index, float, or complex type"
            )
        if any(dim == DYNAMIC_INDEX for dim in cast(Any, type).get_shape()):
            self.raise_error("Dense literal attribute should have a static shape.")
        return type

    def _literal_error(self, message: str, start: Position, end: Position) -> NoReturn:
        self.raise_error(message, start, max(end, start + 1))

    def _check_packable(self, type: Attribute, what: str, position: Position) -> None:
        if isinstance(type, ComplexType):
            return
        try:
            cast(Any, type).pack([0])
        except NotImplementedError:
            self.raise_error(f"{what} of {type} are not supported", position)

    def _element_bytes(self, element: _Element, type: IntegerType | IndexType | AnyFloat) -> bytes:
        span = element.span
        text = span.text
        value = element.value
        if isinstance(type, IntegerType | IndexType):
            if isinstance(value, bool):
                if type != IntegerType(1):
                    self._literal_error(
                        f"'{text}' is an i1 literal, not {type}", span.start, span.end
                    )
                value = int(value)
            if not isinstance(value, int):
                self._literal_error(
                    f"expected an integer literal of {type}, got '{text}'", span.start, span.end
                )
            stored = _int_value(value, type)
            if stored is None:
                self._literal_error(
                    f"integer constant {text} out of range for {type} "
                    f"(expected {_int_range_text(type)})",
                    span.start,
                    span.end,
                )
            return type.pack([stored])
        if isinstance(value, tuple):
            self._literal_error(
                f"expected a float literal of {type}, got '{text}'", span.start, span.end
            )
        if _is_hex(text):
            return self._hex_float_bytes(text, element.is_negative, type, span.start, span.end)
        raw = _float_bytes(float(value), type)
        if raw is None:
            self._literal_error(
                f"float constant {text} out of range for {type} (write an infinity or a NaN as "
                "its bits, e.g. 0x7F800000 for f32 +inf)",
                span.start,
                span.end,
            )
        return raw

    def _hex_float_bytes(
        self, text: str, negative: bool, type: AnyFloat, start: Position, end: Position
    ) -> bytes:
        if negative:
            self._literal_error(
                "hexadecimal float literal should not have a leading minus", start, end
            )
        bits = int(text, 16)
        if bits >= 1 << type.bitwidth:
            self._literal_error(
                f"hexadecimal float constant {text} out of range for {type} "
                f"(at most {type.bitwidth} bits)",
                start,
                end,
            )
        return bits.to_bytes(_element_size(type), "little")

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> DenseIntOrFPElementsAttr:
        self.parse_punctuation("<", " in dense attribute")
        start = self.pos
        hex_string: str | None = None
        literal: tuple[list[_Element], list[int]] | None = None
        if self.parse_optional_punctuation(">") is None:
            hex_string = self.parse_optional_str_literal()
            if hex_string is None:
                literal = cast(Any, self.parse_tensor_literal())
            self.parse_punctuation(">", " in dense attribute")
        end = self.pos
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self.parse_dense_literal_type()
        element_type = type.element_type
        self._check_packable(element_type, "dense literals", start)
        shape = list(type.get_shape())
        count = math.prod(shape)
        if hex_string is not None:
            data = self._hex_string_bytes(hex_string, element_type, count, start, end)
        elif literal is None:
            if count:
                self._literal_error(
                    f"dense literal has no elements, but {type} has {count}", start, end
                )
            data = b""
        else:
            elements, literal_shape = literal
            if literal_shape and literal_shape != shape:
                self._literal_error(
                    f"dense literal has shape {literal_shape}, but the type has shape {shape}",
                    start,
                    end,
                )
            if not count:
                elements = []
            if isinstance(element_type, ComplexType):
                values = [e.to_type(self, element_type) for e in elements]
                data = cast(Any, element_type).pack(values)
            else:
                data = b"".join(self._element_bytes(e, element_type) for e in elements)
        return canonical_dense(type, data)

    def _hex_string_bytes(
        self, text: str, element_type: Attribute, count: int, start: Position, end: Position
    ) -> bytes:
        try:
            if not text.startswith("0x"):
                raise ValueError
            data = bytes.fromhex(text[2:])
        except ValueError:
            self._literal_error("expected a hex string of the data, '0x...'", start, end)
        size = cast(Any, element_type).compile_time_size
        if len(data) not in (size * count, size):
            self._literal_error(
                f"hex string has {len(data)} bytes; {count} element(s) of {element_type} take "
                f"{size * count} (or {size} for a splat)",
                start,
                end,
            )
        return data

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        if (boolean := self.try_parse_builtin_boolean_attr()) is not None:
            return boolean
        start = self.pos
        negative = self.current_token.kind is MLIRTokenKind.MINUS
        value = self.parse_optional_number()
        if value is None:
            return None
        end = self._last_end(start)
        text = self.lexer.input.content[start:end]
        if self.current_token.kind is not MLIRTokenKind.COLON:
            if isinstance(value, float):
                if math.isinf(value):
                    self._literal_error(f"float constant {text} out of range for f64", start, end)
                return FloatAttr(value, f64)
            return IntegerAttr(self._checked_int(value, i64, text, start, end), i64)
        self.parse_characters(":", " in attribute type")
        type = self.parse_type()
        if isinstance(type, AnyFloat):
            self._check_packable(type, "float attributes", start)
            if _is_hex(text):
                raw = self._hex_float_bytes(text, negative, type, start, end)
                return FloatAttr(type.unpack(raw, 1)[0], type)
            if _float_bytes(float(value), type) is None:
                self._literal_error(f"float constant {text} out of range for {type}", start, end)
            return FloatAttr(float(value), type)
        if isinstance(type, IntegerType | IndexType):
            if isinstance(value, float):
                self._literal_error(
                    f"expected an integer literal of {type}, got '{text}'", start, end
                )
            return IntegerAttr(self._checked_int(value, type, text, start, end), type)
        self._literal_error(
            f"expected an integer or float type for '{text}', got {type}", start, end
        )

    def _checked_int(
        self, value: int, type: IntegerType | IndexType, text: str, start: Position, end: Position
    ) -> int:
        stored = _int_value(value, type)
        if stored is None:
            self._literal_error(
                f"integer constant {text} out of range for {type} "
                f"(expected {_int_range_text(type)})",
                start,
                end,
            )
        return stored

    def _last_end(self, start: Position) -> Position:
        """The end of the literal that ended just before the current token."""
        content = self.lexer.input.content
        end = self.pos
        while end > start and content[end - 1].isspace():
            end -= 1
        return end


def canonical_dense(type: Any, data: bytes) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `type` holding `data` (every element, or one for a splat), a literal
    whose elements are all equal (bit for bit) held as one element: a splat."""
    count = math.prod(type.get_shape())
    size = type.element_type.compile_time_size
    if count > 1 and len(data) == count * size:
        view = memoryview(data)
        if view[size:] == view[:-size]:
            data = bytes(view[:size])
    return DenseIntOrFPElementsAttr(type, BytesAttr(data))


# -- printing ----------------------------------------------------------------------------------


def print_float(printer: Printer, value: float, type: AnyFloat, bits: int | None = None) -> None:
    """Print a float as MLIR does: in exponent form when that reads back exactly, else in a
    longer decimal form with a '.', else (and for an infinity or a NaN) as its bits in hex."""
    if math.isfinite(value):
        text = f"{value:.6e}"
        if type.unpack(type.pack([float(text)]), 1)[0] == value:
            printer.print_string(text)
            return
        digits = {32: 9, 64: 17}.get(type.bitwidth)
        text = f"{value:.{digits}g}" if digits else repr(value)
        if "." in text:  # MLIR's float literals have one
            printer.print_string(text)
            return
    if bits is None:
        bits = int.from_bytes(type.pack([value]), "little")
    printer.print_string(f"0x{bits:X}")


def _print_element(printer: Printer, raw: bytes, type: IntegerType | IndexType | AnyFloat) -> None:
    (value,) = type.unpack(raw, 1)
    if isinstance(type, IntegerType | IndexType):
        printer.print_int(int(value), type)
    else:
        print_float(printer, float(value), type, int.from_bytes(raw, "little"))


def print_dense(printer: Printer, attr: DenseIntOrFPElementsAttr) -> bool:
    """Print `dense<...> : type` from the stored bytes; False for what xDSL should print
    (complex elements)."""
    element_type = attr.get_element_type()
    if isinstance(element_type, ComplexType):
        return False
    size = _element_size(element_type)
    data = attr.data.data
    stored = len(data) // size
    view = memoryview(data)
    shape = list(attr.get_shape())
    printer.print_string("dense<")
    if stored == 1 or (stored > 1 and view[size:] == view[:-size]):
        _print_element(printer, data[:size], element_type)
    elif stored > _HEX_ELEMENTS_OVER:
        printer.print_string(f'"0x{data.hex().upper()}"')
    elif stored:
        elements = [data[i : i + size] for i in range(0, len(data), size)]
        if math.prod(shape) != stored:
            shape = [stored]
        _print_nested(printer, elements, shape, element_type)
    printer.print_string("> : ")
    getattr(printer, "print_type", printer.print_attribute)(attr.type)  # TFPrinter: from its text
    return True


def _print_nested(
    printer: Printer,
    elements: list[bytes],
    shape: list[int],
    type: IntegerType | IndexType | AnyFloat,
) -> None:
    printer.print_string("[")
    if len(shape) > 1:
        step = len(elements) // shape[0]
        for index in range(shape[0]):
            if index:
                printer.print_string(", ")
            _print_nested(printer, elements[index * step : (index + 1) * step], shape[1:], type)
    else:
        for index, raw in enumerate(elements):
            if index:
                printer.print_string(", ")
            _print_element(printer, raw, type)
    printer.print_string("]")
