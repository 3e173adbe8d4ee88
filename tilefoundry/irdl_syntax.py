"""IRDL's positional parameter syntax, the second text form of every TileFoundry attribute.

Upstream MLIR reads an attribute of a dialect it registered from IRDL (`mlir-opt --irdl-file`)
as its parameters, each a builtin attribute, in order. Every `tf` attribute has this form
besides its readable custom one: `tf-opt --print-irdl-generic` prints it (`IRDLPrinter`), and
each attribute's parser reads both (`parse_irdl_parameters`). xDSL's `IntAttr`, which MLIR does
not have, is written as an `i64` integer; `none` is read back as `NoneAttr`.

```mlir
#tf.range<n: 1 to 128>                              // custom
#tf.range<"n", 1 : i64, 128 : i64>                  // IRDL
tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    i64,
)
from xdsl.ir import Attribute, BuiltinAttribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import VerificationContext
from xdsl.parser import AttrParser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tilefoundry.xdsl_adapter.parser import current_token

__all__ = [
    "IRDL_DIALECTS",
    "from_irdl_parameter",
    "irdl_form_follows",
    "is_irdl_attribute",
    "keyword_follows",
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


def irdl_form_follows(parser: AttrParser, *kinds: MLIRTokenKind) -> bool:
    """Whether the parameters at the parser (just inside `<`) start with a token of one of
    `kinds`: how an attribute whose custom form starts otherwise tells its IRDL form."""
    return current_token(parser).kind in kinds


def keyword_follows(parser: AttrParser, *keywords: str) -> bool:
    """Whether the next token is one of these bare identifiers (without consuming it): how an
    attribute whose custom form starts with a keyword tells it from its IRDL form."""
    token = current_token(parser)
    return token.kind is MLIRTokenKind.BARE_IDENT and token.text in keywords


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
        for candidate in (value, from_irdl_parameter(value)):
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
