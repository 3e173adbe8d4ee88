"""Plain Python values <-> builtin attributes, for op attribute values and metadata fields.

| Python | attribute |
|---|---|
| `bool` | `true` / `false` (i1) |
| `int` | `42 : i64` (a value outside i64 is refused) |
| `float` | `1.5 : f64` |
| `str` | `"s"` |
| `None` | `none` |
| `tuple` / `list` | `[...]` (read back as a tuple) |
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute

from tilefoundry.support.arguments import shown
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["attr_to_python", "python_to_attr"]


def python_to_attr(value: object, what: str) -> Attribute:
    """The attribute of a plain value; a VerifyError naming `what` for any other value."""
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise VerifyError(f"{what} {shown(value)} does not fit a 64-bit integer (i64)")
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if value is None:
        return NoneAttr()
    if isinstance(value, tuple | list):
        return ArrayAttr(python_to_attr(v, what) for v in value)
    raise VerifyError(
        f"{what} has no IR form: {type(value).__name__} {shown(value)} "
        "(values are str, int, float, bool, None or tuples of those)"
    )


def attr_to_python(attr: Attribute) -> object:
    """The plain value of an attribute `python_to_attr` makes (`none` parses as the type)."""
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(attr.value.data)
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, NoneAttr | NoneType):
        return None
    if isinstance(attr, ArrayAttr):
        return tuple(attr_to_python(a) for a in attr)
    raise VerifyError(f"unsupported value {attr}")
