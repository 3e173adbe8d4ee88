"""IRDL's positional parameter syntax, the second text form of every TileFoundry attribute.

Upstream MLIR reads an attribute of a dialect it registered from IRDL (`mlir-opt --irdl-file`)
as its parameters, each a builtin attribute, in order. Every `tf` attribute has this form
besides its readable custom one: `tf-opt --print-irdl-generic` prints it (`IRDLPrinter`, from
the attribute's parameters), and `IRDLFormAttribute` reads both. Both are derived from the
attribute's definition (its IRDL parameters), so an attribute writes no IRDL-form code: the
text is in the IRDL form when it starts as the first parameter's IRDL text can (`"` for a
string, `[` for an array, ...: `irdl_form_here`), and each parameter is checked against its
definition. xDSL's `IntAttr`, which MLIR does not have, is written as an `i64` integer; `none`
is read back as `NoneAttr`.

```mlir
#tf.range<n: 1 to 128>                              // custom
#tf.range<"n", 1 : i64, 128 : i64>                  // IRDL
tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, BuiltinAttribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    ParamAttrConstraint,
    VerificationContext,
)
from xdsl.parser import AttrParser
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "IRDL_DIALECTS",
    "IRDLFormAttribute",
    "from_irdl_parameter",
    "irdl_form_here",
    "is_irdl_attribute",
    "parse_irdl_parameters",
    "to_irdl_parameter",
]

IRDL_DIALECTS = ("tf", "hir", "tir")
"""The dialects that `dialects/*.irdl.mlir` defines for upstream MLIR."""


def is_irdl_attribute(attr: Attribute) -> bool:
    """Whether an attribute belongs to a dialect defined in IRDL (so has the positional form)."""
    return (
        isinstance(attr, ParametrizedAttribute)
        and not isinstance(attr, BuiltinAttribute)
        and attr.name.split(".", 1)[0] in IRDL_DIALECTS
    )


def to_irdl_parameter(attr: Attribute) -> Attribute:
    """A parameter as upstream MLIR can read it: an `IntAttr` (in arrays too) as an `i64`."""
    if isinstance(attr, IntAttr):
        return IntegerAttr(attr.data, i64)
    if isinstance(attr, ArrayAttr) and any(isinstance(a, IntAttr | ArrayAttr) for a in attr):
        return ArrayAttr(to_irdl_parameter(a) for a in attr)
    return attr


def from_irdl_parameter(attr: Attribute) -> Attribute:
    """The xDSL form of a parameter read in IRDL syntax: an `i64` integer as an `IntAttr`,
    `none` (which parses as the type) as `NoneAttr`, element-wise in arrays."""
    if (
        isinstance(attr, IntegerAttr)
        and isinstance(attr.type, IntegerType)
        and attr.type.width.data == 64
    ):
        return IntAttr(attr.value.data)
    if isinstance(attr, NoneType):
        return NoneAttr()
    if isinstance(attr, ArrayAttr):
        return ArrayAttr(from_irdl_parameter(a) for a in attr)
    return attr


def _sigil(cls: type[ParametrizedAttribute]) -> str:
    return "!" if issubclass(cls, TypeAttribute) else "#"


def parse_irdl_parameters(
    cls: type[ParametrizedAttribute],
    parser: AttrParser,
    defaults: Sequence[Attribute] = (),
) -> list[Attribute]:
    """Parse `p0, p1, ...` inside an attribute's angle brackets, one builtin attribute per
    parameter of `cls`, each checked against its definition. `defaults` fill trailing
    parameters left out (a custom form that omits them, `#tf.topology<"warp">`)."""
    position = parser.pos
    values = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_attribute)
    definitions = cls.get_irdl_definition().parameters
    missing = len(definitions) - len(values)
    if 0 < missing <= len(defaults):
        values = [*values, *defaults[len(defaults) - missing :]]
    if len(values) != len(definitions):
        names = ", ".join(name for name, _ in definitions)
        parser.raise_error(
            f"{_sigil(cls)}{cls.name} has {len(definitions)} parameter(s) ({names}), got "
            f"{len(values)}",
            position,
        )
    checked: list[Attribute] = []
    for (name, definition), value in zip(definitions, values, strict=True):
        reason = "does not verify"
        # the xDSL form first (`none` as NoneAttr, an i64 as IntAttr), as the printer wrote it
        for candidate in dict.fromkeys((from_irdl_parameter(value), value)):
            try:
                definition.constr.verify(candidate, VerificationContext())
            except VerifyException as err:
                reason = str(err).splitlines()[0] if str(err) else reason
                continue
            checked.append(candidate)
            break
        else:
            parser.raise_error(f"parameter '{name}' of {_sigil(cls)}{cls.name}: {reason}", position)
    return checked


_ANY = frozenset({""})
"""The IRDL text of a parameter that may be any attribute: it may start with anything."""


def _irdl_starts(constr: AttrConstraint) -> frozenset[str]:
    """How the IRDL text of a parameter under `constr` may start: each a prefix of the text
    (`none` as a whole word), or `_ANY`."""
    if isinstance(constr, AnyOf):
        return frozenset().union(*(_irdl_starts(c) for c in constr.attr_constrs))
    if isinstance(constr, ArrayOfConstraint):
        return frozenset({"["})
    base: type[Attribute] | None = None
    if isinstance(constr, BaseAttr):
        base = constr.attr
    elif isinstance(constr, ParamAttrConstraint):
        base = constr.base_attr
    elif isinstance(constr, EqAttrConstraint):
        base = type(constr.attr)
    if base is None:
        return _ANY
    if issubclass(base, StringAttr):
        return frozenset({'"'})
    if issubclass(base, ArrayAttr):
        return frozenset({"["})
    if issubclass(base, DictionaryAttr):
        return frozenset({"{"})
    if issubclass(base, IntAttr):  # written as an i64 integer
        return frozenset({"-", *"0123456789"})
    if issubclass(base, NoneAttr):
        return frozenset({"none"})
    if issubclass(base, ParametrizedAttribute) and not issubclass(base, BuiltinAttribute):
        return frozenset({"!" if issubclass(base, TypeAttribute) else "#"})
    return _ANY


def _starts_with(text: str, position: int, prefix: str) -> bool:
    if not text.startswith(prefix, position):
        return False
    if not prefix[-1].isalpha():
        return True
    end = position + len(prefix)  # a keyword: not the start of a longer identifier
    return end == len(text) or not (text[end].isalnum() or text[end] in "_$.")


def irdl_form_here(cls: type[ParametrizedAttribute], parser: AttrParser) -> bool:
    """Whether the parameters at the parser (just inside `<`) are in the IRDL form: they start
    as the first parameter's IRDL text can (derived from its definition). Every custom form
    starts otherwise, or is the IRDL form itself (`IRDLFormAttribute.parse_custom`)."""
    definitions = cls.get_irdl_definition().parameters
    if not definitions:
        return True
    starts = _irdl_starts(definitions[0][1].constr)
    if starts is _ANY or "" in starts:
        return True
    text = parser.lexer.input.content
    position = parser.pos
    return any(_starts_with(text, position, prefix) for prefix in starts)


class IRDLFormAttribute(ParametrizedAttribute):
    """A TileFoundry attribute: its parameters read in IRDL's positional form or in its custom
    one, which `parse_custom` reads (by default the IRDL form again, where a trailing parameter
    may be left out, `IRDL_DEFAULTS`, and an integer need not say `: i64`). Nothing else of the
    IRDL form is written per attribute: see the module docstring.

    ```mlir
    #tf.range<n: 1 to 128>               // custom (parse_custom)
    #tf.range<"n", 1 : i64, 128 : i64>   // IRDL (from the definition)
    ```
    """

    IRDL_DEFAULTS: ClassVar[tuple[Attribute, ...]] = ()
    """What a custom form that leaves out trailing parameters means by them."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            if irdl_form_here(cls, parser):
                return parse_irdl_parameters(cls, parser, cls.IRDL_DEFAULTS)
            return cls.parse_custom(parser)

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The parameters in the custom form, inside the angle brackets."""
        return parse_irdl_parameters(cls, parser, cls.IRDL_DEFAULTS)
