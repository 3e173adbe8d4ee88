"""`#tf.op`: a registered Op instance as an attribute (the target of a `tf.call`).

The attribute names the op (`dialect.category.name`) and holds its attribute values, defaults
included. Values are integers, floats, `true`/`false`, strings (bare when they are identifiers,
as enum members are), `none`, and `[...]` lists. `op_to_attr` and `attr_to_op` convert between
the attribute and the `Op` value; `attr_to_op` checks the values against the Op's `ParamDef`s.

```mlir
#tf.op<tf.math.binary<kind = add>>
#tf.op<tf.reduce.sum<axis = 1, keepdims = false>>
#tf.op<tf.linalg.matmul>
```
"""

from __future__ import annotations

import contextlib
import enum
import io
import math
import re
from collections.abc import Callable

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from tilefoundry.ir.algebra.op_registry import (
    Op,
    close_names,
    did_you_mean,
    lookup_op_class,
    op_schemas,
)
from tilefoundry.support.caches import CACHES, BoundedMapping
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute
from tilefoundry.support.values import attr_to_python, python_to_attr

__all__ = [
    "OpAttr",
    "attr_to_op",
    "attr_to_value",
    "canonical",
    "op_to_attr",
    "print_op_text",
    "value_to_attr",
]

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_KEYWORDS = frozenset({"true", "false", "none"})


def value_to_attr(value: object, what: str = "an op attribute value") -> Attribute:
    """The attribute of an op attribute (or module metadata) value, an enum member by its
    value; a VerifyError naming `what` for a value that has none."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, float) and not math.isfinite(value):
        raise VerifyError(f"{what} must be finite, got {value}")
    return python_to_attr(value, what)


def attr_to_value(attr: Attribute) -> object:
    return attr_to_python(attr)


def _print_value(printer: Printer, attr: Attribute) -> None:
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            printer.print_string("true" if attr.value.data else "false")
        else:
            printer.print_string(str(attr.value.data))
    elif isinstance(attr, FloatAttr):
        text = repr(float(attr.value.data))
        if "." not in text:  # MLIR needs a dot in a float literal: 1e-07 -> 1.0e-07
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
        printer.print_string(text)
    elif isinstance(attr, StringAttr):
        if _BARE.fullmatch(attr.data) and attr.data not in _KEYWORDS:
            printer.print_string(attr.data)
        else:
            printer.print_string_literal(attr.data)
    elif isinstance(attr, NoneAttr):
        printer.print_string("none")
    elif isinstance(attr, ArrayAttr):
        printer.print_string("[")
        printer.print_list(attr.data, lambda a: _print_value(printer, a))
        printer.print_string("]")
    else:  # pragma: no cover - value_to_attr never builds another kind
        printer.print_attribute(attr)


def _parse_value(parser: AttrParser) -> Attribute:
    if parser.parse_optional_punctuation("[") is not None:
        if parser.parse_optional_punctuation("]") is not None:
            return ArrayAttr(())
        items = [_parse_value(parser)]
        while parser.parse_optional_punctuation(",") is not None:
            items.append(_parse_value(parser))
        parser.parse_punctuation("]")
        return ArrayAttr(items)
    if (text := parser.parse_optional_str_literal()) is not None:
        return StringAttr(text)
    if (flag := parser.parse_optional_boolean()) is not None:
        return BoolAttr.from_bool(flag)
    if parser.parse_optional_keyword("none") is not None:
        return NoneAttr()
    if (number := parser.parse_optional_number()) is not None:
        return FloatAttr(number, f64) if isinstance(number, float) else IntegerAttr(number, i64)
    if (ident := parser.parse_optional_identifier()) is not None:
        return StringAttr(ident)
    parser.raise_error("expected an op attribute value (number, true/false, string, none or [...])")


@irdl_attr_definition
class OpAttr(IRDLFormAttribute):
    """A registered Op with its attribute values: the target of a value- or effect-form call.

    ```mlir
    %y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // generic: "tf.call"(%a, %b) <{callee = #tf.op<tf.math.binary<kind = add>>}> : ...
    ```
    """

    name = "tf.op"

    op_name: StringAttr
    values: DictionaryAttr

    def verify(self) -> None:
        # Only the shape of the data here: whether the op is registered, and whether the values
        # fit it, is the call verifier's job (the library may be imported after parsing).
        for key in self.values.data:
            if not _BARE.fullmatch(key):
                raise VerifyError(f"op attribute name '{key}' is not an identifier")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        name, values = super().parse_parameters(parser)  # either form, then its canonical values
        assert isinstance(name, StringAttr) and isinstance(values, DictionaryAttr)
        return list(canonical(name, values).parameters)

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        return list(parse_op_body(parser))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_op_body(printer, self)


def parse_op_body(parser: AttrParser) -> tuple[StringAttr, DictionaryAttr]:
    """`name` or `name<key = value, ...>`: the text of an op target (in `#tf.op<...>` and in the
    custom form of `tf.call`)."""
    name = parser.parse_identifier(" (a registered op name such as tf.math.binary)")
    values: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation("<") is not None:

        def parse_entry() -> None:
            position = parser.pos
            key = parser.parse_identifier(" for an op attribute name")
            if key in values:
                parser.raise_error(f"op attribute '{key}' is given twice", position)
            parser.parse_punctuation("=")
            values[key] = _parse_value(parser)

        parse_entry()
        while parser.parse_optional_punctuation(",") is not None:
            parse_entry()
        parser.parse_punctuation(">")
    return StringAttr(name), DictionaryAttr(values)


def print_op_body(printer: Printer, attr: OpAttr) -> None:
    """Print an op target, leaving out attribute values equal to their ParamDef default."""
    printer.print_string(attr.op_name.data)
    shown = dict(attr.values.data)
    op_class = lookup_op_class(attr.op_name.data)
    if op_class is not None:
        for param in op_class.attribute_params():
            value = shown.get(param.name)
            if param.has_default and value is not None and value == value_to_attr(param.default):
                del shown[param.name]
    if shown:
        printer.print_string("<")
        for index, (key, value) in enumerate(shown.items()):
            if index:
                printer.print_string(", ")
            printer.print_string(f"{key} = ")
            _print_value(printer, value)
        printer.print_string(">")


def op_to_attr(op: Op) -> OpAttr:
    """The attribute form of a registered Op instance (every attribute value written out);
    cached, like `attr_to_op`, for the Op values that hash."""
    try:
        cached = _ATTRS.get(op)
    except TypeError:  # an attribute value that does not hash (an unannotated list)
        cached = None
    if cached is not None:
        return cached
    if not op.op_name:
        raise VerifyError(f"{type(op).__name__} is not registered (decorate it with @register_op)")
    values = {key: value_to_attr(value) for key, value in op.attrs.items()}
    attr = OpAttr(StringAttr(op.op_name), DictionaryAttr(values))
    with contextlib.suppress(TypeError):
        _ATTRS.set(op, attr)
    return attr


_ATTRS: BoundedMapping[Op, OpAttr] = CACHES.mapping("op_to_attr")
"""`op_to_attr`'s answers: bounded, and emptied when a registry changes (`support/caches.py`)."""


def canonical(name: StringAttr, values: DictionaryAttr) -> OpAttr:
    """The attribute as `op_to_attr` would build it (defaults written out, values converted to
    their annotation) when the op is registered and the values fit; as given otherwise, so that
    the verifier can say what is wrong."""
    attr = OpAttr(name, values)
    try:
        return op_to_attr(attr_to_op(attr))
    except VerifyError:
        return attr


_OPS: BoundedMapping[OpAttr, Op] = CACHES.mapping("attr_to_op")
"""`attr_to_op`'s answers: bounded, and emptied when a registry changes (`support/caches.py`)."""


def attr_to_op(attr: OpAttr) -> Op:
    """The Op an attribute stands for; a VerifyError when the op is unknown or a value is off."""
    cached = _OPS.get(attr)
    if cached is not None:
        return cached
    name = attr.op_name.data
    op_class = lookup_op_class(name)
    values = {key: attr_to_value(value) for key, value in attr.values.data.items()}
    if op_class is None:
        raise VerifyError(_unknown_op(name, values))
    try:
        op = op_class(**values)
    except TypeError as err:
        raise VerifyError(str(err)) from None
    _OPS.set(attr, op)
    return op


def _unknown_op(name: str, values: dict[str, object]) -> str:
    """Why a name is no op: an alias (a Python surface name) gets the spelling of the op it
    builds; any other name the registered names nearest to it, as the text writes them."""
    coordinates = name.split(".")
    aliases = [s for s in op_schemas(*coordinates) if s.is_alias] if len(coordinates) == 3 else []
    if aliases:
        try:
            return f"'{name}' is an alias; write {_alias_text(aliases[0].builder, values)}"
        except Exception:  # a builder is any code; its refusal is said below
            try:
                shown = _alias_text(aliases[0].builder, {})
            except Exception:  # (any code)
                return f"'{name}' is an alias (a Python surface name), not an op"
            return f"'{name}' is an alias of {shown}, not an op: write the op itself"
    hint = did_you_mean(_spellings(close_names(name, aliases=True)))
    if hint:
        return f"unknown op '{name}'{hint}"
    return (
        f"unknown op '{name}' (is the library that registers it imported? "
        "tf-opt takes --plugin MODULE)"
    )


def _spellings(names: list[str]) -> list[str]:
    """Names as the text writes them: an op's name, or for an alias the op it builds."""
    found: list[str] = []
    for name in names:
        spelling: str | None = name
        if lookup_op_class(name) is None:
            spelling = None
            for schema in op_schemas(*name.split(".")):
                try:
                    spelling = _alias_text(schema.builder, {})
                    break
                except Exception:  # an alias that needs attributes: not suggested
                    continue
        if spelling is not None and spelling not in found:
            found.append(spelling)
    return found


def _alias_text(builder: Callable[..., Op], values: dict[str, object]) -> str:
    return print_op_text(op_to_attr(builder(**values)))


def print_op_text(attr: OpAttr) -> str:
    """The custom text of an op target, `tf.math.binary<kind = add>` (defaults left out)."""
    stream = io.StringIO()
    print_op_body(Printer(stream=stream), attr)
    return stream.getvalue()
