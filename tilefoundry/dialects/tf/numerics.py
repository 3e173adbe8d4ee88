"""The numeric semantics of every dtype, in one place: what the interpreter computes and what
the folder bakes into a literal (docs/ir.md, "Numeric semantics").

- `round_bf16(x)`: float32 values rounded to bfloat16 (round to nearest, ties to even, as
  hardware stores them; a NaN stays a NaN, quiet), still held in float32, as every bf16 array is.
- `cast_array(x, dtype)`: the values of `x` as `dtype` (`tf.math.cast`, and the conversion of
  every op's result and every argument to its type). A float rounds to nearest even (bf16 and
  f16 directly, with no double rounding from f64; every NaN is quiet); a float to an integer
  truncates toward zero and saturates at the dtype's range, NaN is 0; an integer to a narrower
  one wraps; anything to i1 is `x != 0`.
- `number_as(value, dtype)`: a number (an attribute's, as `tf.tensor.full`'s `value`) as `dtype`
  holds it: the float64 `value` through `cast_array`, the one conversion rule (docs/ir.md,
  "Numeric semantics").
- `held_as(x, dtype)`: `x` as the interpreter holds a value of `dtype` (an argument entering a
  function): `x` itself when it already is exactly that (so an in-place write reaches the
  caller's array), else `cast_array(x, dtype)`.
- `widened(x)`: the array an op computes in: f16 (and bf16, already float32) in float32, any
  other dtype as it is. An op on f16 / bf16 computes in float32 and its result is rounded once to
  its dtype (`cast_array`), reductions and matmul included.

```python
round_bf16(np.float32([1.00390625]))   # array([1.], dtype=float32): a tie, to even
cast_array(np.float32([3.4e38]), "bf16")  # array([inf], dtype=float32): past the largest bf16
cast_array(np.float32([np.nan, -1e10, 2.7]), "i8")  # array([0, -128, 2], dtype=int8)
```
"""

from __future__ import annotations

from typing import Any

from tilefoundry.dialects.tf.dense import numpy_dtype

__all__ = ["cast_array", "held_as", "int_range", "number_as", "round_bf16", "widened"]


def round_bf16(x: Any) -> Any:
    """float32 values rounded to the nearest bfloat16 (ties to even), as a float32 array."""
    import numpy as np

    bits = np.array(x, dtype=np.float32, order="C", copy=None).view(np.uint32)  # a 0-d one too
    rounded = np.asarray(bits >> np.uint32(16))  # an array even for a 0-d one
    rounded &= np.uint32(1)  # the last bit kept: a tie rounds to make it 0
    rounded += np.uint32(0x7FFF)
    rounded += bits
    rounded &= np.uint32(0xFFFF0000)
    nan = np.isnan(bits.view(np.float32))
    if nan.any():  # kept a NaN (its payload's high bits), quiet
        quiet = (bits & np.uint32(0xFFFF0000)) | np.uint32(0x00400000)
        rounded = np.asarray(np.where(nan, quiet, rounded)).astype(np.uint32)
    return rounded.view(np.float32)


def _f64_to_f32_odd(x: Any) -> Any:
    """float64 values rounded to float32 to odd (truncate, then set the last bit when inexact):
    rounding that to bf16 is the correct rounding of the float64 value, with no double rounding."""
    import numpy as np

    with np.errstate(all="ignore"):
        rounded = x.astype(np.float32)
        back = rounded.astype(np.float64)
    bits = rounded.view(np.uint32)
    inexact = (back != x) & ~np.isnan(x)
    away = inexact & (np.abs(back) > np.abs(x))
    bits = np.where(away, bits - np.uint32(1), bits)
    bits = np.where(inexact, bits | np.uint32(1), bits)
    return bits.astype(np.uint32).view(np.float32)


def int_range(dtype: str) -> tuple[int, int]:
    """The smallest and largest value of an integer dtype (i1: 0 and 1)."""
    width = int(dtype[1:])
    return (0, 1) if width == 1 else (-(1 << (width - 1)), (1 << (width - 1)) - 1)


def _float_to_int(x: Any, dtype: str) -> Any:
    """Truncation toward zero, saturated at the dtype's range; NaN is 0."""
    import numpy as np

    lo, hi = int_range(dtype)
    t = np.trunc(x.astype(np.float64))
    above = t >= float(hi) + 1.0  # hi + 1 is a power of two: exact in float64
    below = t < float(lo)
    inside = np.where(above | below | np.isnan(t), 0.0, t).astype(np.int64)
    return np.where(above, hi, np.where(below, lo, inside)).astype(numpy_dtype(dtype))


def cast_array(x: Any, dtype: str) -> Any:
    """`x` (an array of any dtype's numpy form) as `dtype` (see the module docstring)."""
    import numpy as np

    x = np.asarray(x)
    target = numpy_dtype(dtype)
    if dtype == "i1":
        return x if x.dtype == target else np.asarray(x != 0)
    if dtype[0] == "i":
        if x.dtype.kind == "f":
            return _float_to_int(x, dtype)
        return x.astype(target, copy=False)  # an integer wraps; a bool is 0 or 1
    if dtype == "bf16":
        if x.dtype == np.float32:
            return round_bf16(x)
        return round_bf16(_f64_to_f32_odd(x.astype(np.float64)))
    if x.dtype != target:
        with np.errstate(all="ignore"):  # past the largest finite value is an infinity
            x = x.astype(target)
    return _quieted(x)


def number_as(value: float, dtype: str) -> Any:
    """`value` (a float64) as `dtype` holds it, a 0-d array: as `tf.math.cast` converts it."""
    import numpy as np

    return cast_array(np.float64(value), dtype)


def _quieted(x: Any) -> Any:
    """A float array with each NaN quiet (its quiet bit set), as every arithmetic result is, so
    that an identity (`x * 1` is `x`) keeps the bits of a NaN argument."""
    import numpy as np

    nan = np.isnan(x)
    if not nan.any():
        return x
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    quiet = np.array(1 << (np.finfo(x.dtype).nmant - 1), dtype=unsigned)
    bits = x.view(unsigned)
    return np.where(nan, bits | quiet, bits).astype(unsigned).view(x.dtype)


def widened(x: Any) -> Any:
    """The array an op computes in: f16 as float32, any other dtype as it is."""
    import numpy as np

    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == np.float16 else x


def held_as(x: Any, dtype: str) -> Any:
    """`x` itself when `cast_array(x, dtype)` would not change a bit of it, else that."""
    import numpy as np

    x = np.asarray(x)
    converted = cast_array(x, dtype)
    if converted is x:  # nothing to change (no copy made: no bytes to compare)
        return x
    if converted.dtype == x.dtype and converted.tobytes() == x.tobytes():
        return x
    return converted
