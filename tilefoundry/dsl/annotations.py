"""The parameter annotations of the DSL: `Tensor[shape, dtype]` and `ConstTensor[shape, dtype]`.

```python
n = tf.DimVar("n", 1, 4097)

@tf.func
def mlp(x: Tensor[(n, 64), "f32"], w: ConstTensor[(64, 64), "f32"]) -> Tensor[(n, 64), "f32"]:
    return ops.relu(x @ w)
```

The shape is a tuple of ints and `DimVar`s (from the enclosing Python scope, or written inline
as `DimVar("n", 1, 4097)`), the dtype one of `tilefoundry.builtin.types.DTYPES`, written as the name
this module exports (`f32`, `bf16`, `i32`, ...) or as a string (`"f32"`; linters such as ruff
read a string in an annotation as a forward reference, so the names are the lint-clean
spelling). `ConstTensor` marks a const parameter (`Var.is_const`: an external constant such as
a weight). `.named("layer0.wq")` names the parameter when its IR name is not a Python
identifier. `tilefoundry.Tensor` (the pattern) is accepted in place of `Tensor`.
`Buffer[shape, dtype]` is a TIR buffer parameter (`tilefoundry.BufferType`), `TupleOf[Tensor[...],
...]` a parameter of a tuple type.
"""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from typing import Any

from tilefoundry.builtin.types import BufferType, DimVar, TensorType, TupleType
from tilefoundry.dsl.errors import DSLError

__all__ = [
    "Buffer",
    "ConstTensor",
    "ParamType",
    "Tensor",
    "TupleOf",
    "bf16",
    "f16",
    "f32",
    "f64",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
]

f16, bf16, f32, f64 = "f16", "bf16", "f32", "f64"
i1, i8, i16, i32, i64 = "i1", "i8", "i16", "i32", "i64"


@dataclass(frozen=True)
class ParamType:
    """What an annotation says: the parameter's type, const-ness and (optional) IR name."""

    type: TensorType | BufferType | TupleType
    is_const: bool = False
    name: str | None = None

    def named(self, name: str) -> ParamType:
        """The same parameter under the IR name `name` (e.g. `"layer0.wq"`)."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"a parameter name is a non-empty str, got {name!r}")
        return ParamType(self.type, self.is_const, name)


def _param_type(item: Any, is_const: bool, kind: str = "Tensor") -> ParamType:
    try:
        return _checked_param_type(item, is_const, kind)
    except (TypeError, ValueError) as err:
        raise _at_caller(f"{kind}[...]: {err}").with_traceback(None) from None


_HERE = os.path.dirname(os.path.abspath(__file__))


def _at_caller(message: str) -> DSLError:
    """A refused annotation as a `DSLError` at the expression that wrote it: the first frame
    outside the DSL (Python evaluates annotations when the def runs), at the column of the
    subscript it was evaluating; the DSL reading a string annotation places it itself."""
    frame = sys._getframe(1)
    while frame.f_back is not None and os.path.dirname(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    code = frame.f_code
    line, column, end = frame.f_lineno, 1, None
    positions = list(code.co_positions())
    index = frame.f_lasti // 2
    text = linecache.getline(code.co_filename, line).rstrip("\n")
    if 0 <= index < len(positions):
        start, stop, col, end_col = positions[index]
        if start is not None and col is not None:
            line = start
            text = linecache.getline(code.co_filename, line).rstrip("\n")
            column = len(text.encode()[:col].decode(errors="ignore")) + 1
            if stop == start and end_col is not None:
                end = len(text.encode()[:end_col].decode(errors="ignore")) + 1
    return DSLError(message, code.co_filename, line, column, text, end)


def _checked_param_type(item: Any, is_const: bool, kind: str) -> ParamType:
    items = item if isinstance(item, tuple) else (item,)
    if len(items) != 2:
        raise TypeError(f"{kind}[...] takes a shape and a dtype, got {len(items)} item(s)")
    shape, dtype = items
    if isinstance(shape, int | DimVar):
        shape = (shape,)
    if not isinstance(shape, tuple | list):
        raise TypeError(
            f"a tensor shape is a tuple of ints and DimVars, got {type(shape).__name__}"
        )
    if kind == "Buffer":
        return ParamType(BufferType(tuple(shape), dtype))
    return ParamType(TensorType(tuple(shape), dtype), is_const)


class Tensor:
    """`Tensor[shape, dtype]`: a tensor parameter (see the module docstring)."""

    def __class_getitem__(cls, item: Any) -> ParamType:
        return _param_type(item, False)


class ConstTensor:
    """`ConstTensor[shape, dtype]`: a const tensor parameter (a weight)."""

    def __class_getitem__(cls, item: Any) -> ParamType:
        return _param_type(item, True, "ConstTensor")


class Buffer:
    """`Buffer[shape, dtype]`: a TIR buffer parameter (`!tf.buffer`, written in place by the
    memory ops)."""

    def __class_getitem__(cls, item: Any) -> ParamType:
        return _param_type(item, False, "Buffer")


class TupleOf:
    """`TupleOf[Tensor[...], Tensor[...]]`: a parameter of a tuple type (`tuple<...>`), its
    items tensor (or tuple) annotations."""

    def __class_getitem__(cls, item: Any) -> ParamType:
        items = item if isinstance(item, tuple) else (item,)
        types: list[Any] = []
        for index, part in enumerate(items):
            if not isinstance(part, ParamType) or isinstance(part.type, BufferType):
                message = f"TupleOf[...]: item #{index} is a Tensor[...] or TupleOf[...]"
                raise _at_caller(message).with_traceback(None)
            types.append(part.type)
        try:
            return ParamType(TupleType(tuple(types)))
        except (TypeError, ValueError) as err:
            raise _at_caller(f"TupleOf[...]: {err}").with_traceback(None) from None
