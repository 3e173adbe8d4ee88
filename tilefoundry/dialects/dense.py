"""Literals: Python / numpy values <-> `dense<...>` attributes (numpy is imported on first use)."""

from __future__ import annotations

import math
from typing import Any, cast

from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType

from tilefoundry.types import DTYPES, TensorType, from_attr, to_attr

__all__ = ["array_to_dense", "dense_to_array", "numpy_dtype", "uniform_value"]

_LITTLE_ENDIAN = {
    "i8": "<i1",
    "i16": "<i2",
    "i32": "<i4",
    "i64": "<i8",
    "f16": "<f2",
    "f32": "<f4",
    "f64": "<f8",
}


def numpy_dtype(dtype: str) -> Any:
    """The numpy dtype that holds a TileFoundry dtype (bf16 is computed in float32)."""
    import numpy as np

    return np.dtype({"i1": "bool", "bf16": "float32"}.get(dtype) or _LITTLE_ENDIAN[dtype])


def _default_dtype(value: object, array: Any) -> str:
    import numpy as np

    kind = array.dtype.kind
    if kind == "b":
        return "i1"
    if isinstance(value, np.ndarray | np.generic):
        if kind in "iuf":
            return f"{'f' if kind == 'f' else 'i'}{array.dtype.itemsize * 8}"
    elif kind in "iu":
        return "i32"
    elif kind == "f":
        return "f32"
    raise TypeError(f"a Constant value must be numeric, got {type(value).__name__} {value!r}")


def array_to_dense(value: object, dtype: str | None = None) -> DenseIntOrFPElementsAttr:
    """A literal as a dense attribute. Python scalars and lists default to f32 / i32 / i1,
    numpy values keep their dtype; `dtype` overrides both."""
    import numpy as np

    array = np.asarray(value)
    dtype = dtype or _default_dtype(value, array)
    if dtype not in DTYPES:
        raise TypeError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    type = cast(BuiltinTensorType[Any], to_attr(TensorType(array.shape, dtype)))
    if dtype in _LITTLE_ENDIAN:
        data = np.ascontiguousarray(array, dtype=_LITTLE_ENDIAN[dtype]).tobytes()
        return DenseIntOrFPElementsAttr(type, BytesAttr(data))
    elements = array.reshape(-1).tolist()
    if dtype == "i1":
        elements = [int(bool(e)) for e in elements]
    return DenseIntOrFPElementsAttr.from_list(
        type, [float(e) for e in elements] if dtype == "bf16" else elements
    )


def dense_to_array(attr: DenseIntOrFPElementsAttr) -> Any:
    """A dense attribute as a numpy array of its shape (a splat is broadcast)."""
    import numpy as np

    type = from_attr(attr.type)
    assert isinstance(type, TensorType)
    shape = attr.get_shape()
    values = np.asarray(attr.get_values(), dtype=numpy_dtype(type.dtype))
    size = int(np.prod(shape, dtype=np.int64))
    if values.size == 1 and size != 1:
        return np.broadcast_to(values, shape).copy()
    return values.reshape(shape)


def uniform_value(attr: DenseIntOrFPElementsAttr) -> int | float | None:
    """The value every element of a literal holds (a splat's), or None when they differ."""
    values = cast("tuple[int | float, ...]", attr.get_values())
    if not values:
        return None
    first = values[0]
    if any(v != first or _is_negative_zero(v) != _is_negative_zero(first) for v in values):
        return None
    return first


def _is_negative_zero(value: int | float) -> bool:
    return isinstance(value, float) and value == 0.0 and math.copysign(1.0, value) < 0
