"""Literals: Python / numpy values <-> `dense<...>` attributes (numpy is imported on first use).

A literal whose elements are all equal is held as one element, a splat, as the parser holds it
(`ir/text/literals.py`), so equal constants are equal attributes however they were made.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn, cast

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType

from tilefoundry.builtin.types import DTYPES, TensorType, from_attr, to_attr
from tilefoundry.ir.text.literals import canonical_dense
from tilefoundry.support.arguments import described, shown

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
    """The numpy dtype that holds a TileFoundry dtype (bf16: float32 holding bf16 values exactly,
    see `tilefoundry.dialects.tf.numerics`)."""
    import numpy as np

    return np.dtype({"i1": "bool", "bf16": "float32"}.get(dtype) or _LITTLE_ENDIAN[dtype])


_SIGNED_FOR_UNSIGNED = {1: "i16", 2: "i32", 4: "i64", 8: "i64"}
"""An unsigned numpy array becomes the signed dtype that holds its whole range (a uint64 one,
i64: its values must fit), so its values are kept, never read back as negative numbers."""

_ROUNDS_TO_INFINITY = {
    "bf16": 2**128 - 2**119,
    "f16": 65520,
    "f32": 2**128 - 2**103,
    "f64": 2**1024 - 2**970,
}
"""From this magnitude up, a float rounds to an infinity in the dtype (the largest finite value
plus half its ulp: a tie rounds to even, away from the largest finite, whose last bit is 1)."""


def _default_dtype(value: object, array: Any) -> str:
    import numpy as np

    kind = array.dtype.kind
    if kind == "b":
        return "i1"
    if isinstance(value, np.ndarray | np.generic):
        if kind == "u":
            return _SIGNED_FOR_UNSIGNED[array.dtype.itemsize]
        if kind in "if":
            return f"{'f' if kind == 'f' else 'i'}{array.dtype.itemsize * 8}"
    elif kind in "iu":
        return "i32"
    elif kind == "O":  # Python integers beyond 64 bits: no dtype holds them
        return "i64"
    elif kind == "f":
        return "f32"
    raise TypeError(f"a Constant value must be numeric, got {described(value)}")


def _as_array(value: object) -> Any:
    """The literal as a numpy array of bools, integers or floats (Python integers beyond 64
    bits stay exact, in an object array, for the range check to refuse or convert them)."""
    import numpy as np

    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # a ragged nested list
        raise ValueError(
            "a Constant value must be a number or a rectangular nested list of numbers, "
            f"got {described(value)}"
        ) from None
    kind = array.dtype.kind
    if (
        kind == "O"
        and array.size
        and all(isinstance(v, int) and not isinstance(v, bool) for v in array.reshape(-1))
    ):
        return array
    if kind not in "biuf":
        raise TypeError(f"a Constant value must be numeric, got {described(value)}")
    return array


def _check_fits(array: Any, dtype: str) -> None:
    """Refuse a literal with a value its dtype cannot hold: an integer out of range, a
    fraction or a non-finite value for an integer dtype, a finite value that would become an
    infinity. (Rounding to a narrower float is not a change of value it refuses.)"""
    import numpy as np

    if array.size == 0:
        return
    flat = array.reshape(-1)
    exact = flat.dtype.kind == "O"  # Python integers beyond 64 bits
    if dtype[0] == "i":
        width = int(dtype[1:])
        lo, hi = (0, 1) if width == 1 else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
        if flat.dtype.kind == "f":
            # hi + 1 is a power of two, exact as a float (hi itself is not, for i64)
            bad = (
                ~np.isfinite(flat)
                | (flat != np.floor(flat))
                | (flat < float(lo))
                | (flat >= float(hi + 1))
            )
            if bad.any():
                _refuse_value(flat[bad][0], dtype)
            return
        for extreme in (min(flat), max(flat)) if exact else (flat.min(), flat.max()):
            if not lo <= int(extreme) <= hi:
                _refuse_value(extreme, dtype)
        return
    limit = _ROUNDS_TO_INFINITY[dtype]
    if exact:
        for item in flat:
            if abs(item) >= limit:
                _refuse_value(item, dtype)
        return
    with np.errstate(all="ignore"):
        values = flat.astype(np.float64)
    # every finite float64 is below the f64 limit, which float64 cannot hold
    bound = math.inf if dtype == "f64" else float(limit)
    bad = np.isfinite(values) & (np.abs(values) >= bound)
    if bad.any():
        _refuse_value(flat[bad][0], dtype)


def _refuse_value(value: Any, dtype: str) -> NoReturn:
    value = value.item() if hasattr(value, "item") else value  # a numpy scalar, as Python's
    hint = "" if dtype[0] == "f" or dtype in ("i64", "bf16") else "; pass a wider dtype"
    raise ValueError(f"a Constant value {shown(value)} does not fit {dtype}{hint}")


def array_to_dense(value: object, dtype: str | None = None) -> DenseIntOrFPElementsAttr:
    """A literal as a dense attribute. Python scalars and lists default to f32 / i32 / i1,
    numpy values keep their dtype (an unsigned one becomes the signed dtype that holds its
    range); `dtype` overrides both. A value the dtype cannot hold is refused."""
    import numpy as np

    if dtype is not None and (not isinstance(dtype, str) or dtype not in DTYPES):
        raise TypeError(
            f"a Constant dtype must be one of {', '.join(DTYPES)}, got {described(dtype)}"
        )
    array = _as_array(value)
    dtype = dtype or _default_dtype(value, array)
    _check_fits(array, dtype)
    type = cast(BuiltinTensorType[Any], to_attr(TensorType(array.shape, dtype)))
    if dtype in _LITTLE_ENDIAN:
        with np.errstate(all="ignore"):  # a float narrowed to f16 / f32 may round to zero
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
