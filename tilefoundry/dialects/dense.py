"""Literals: Python / numpy values <-> `dense<...>` attributes (numpy is imported on first use).

A literal whose elements are all equal is held as one element, a splat, as the parser holds it
(`ir/literals.py`), so equal constants are equal attributes however they were made.
"""

from __future__ import annotations

from typing import Any, cast

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType

from tilefoundry.ir.literals import canonical_dense
from tilefoundry.types import DTYPES, TensorType, from_attr, to_attr

__all__ = ["array_to_dense", "dense_to_array", "numpy_dtype"]

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
        return canonical_dense(type, data)
    elements = array.reshape(-1).tolist()
    if dtype == "i1":
        elements = [int(bool(e)) for e in elements]
    listed = DenseIntOrFPElementsAttr.from_list(
        type, [float(e) for e in elements] if dtype == "bf16" else elements
    )
    return canonical_dense(type, listed.data.data)


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
