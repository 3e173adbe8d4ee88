"""Scalar numerics in `arith` / `math`: the interpreter's numbers (docs/ir.md, "Numeric
semantics"; `tilefoundry.interpreter.numerics`), owned here rather than taken from MLIR's
defaults.

- f16 and bf16 compute in f32 (`widen`) and round once per op (`narrow`); bf16 is converted in
  integers both ways (the CPU's own conversion flushes denormals), with numpy's NaN rule (the
  high payload bits kept, quiet).
- `maximum` / `minimum` keep numpy's rules: a NaN operand is the result (the first one when
  both are), and of two equal operands (`-0.0`, `0.0`) the second (f32 / f64 `np.maximum`); not
  `arith.maximumf`.
- Integers wrap; `div` floor-divides, `x / 0` is 0 and `INT_MIN / -1` is `INT_MIN`; `pow` is
  exact modulo 2^width, a negative exponent truncates toward zero; `i1` compares unsigned
  (`false < true`).
- `convert` is `tf.math.cast`: float to int truncates and saturates (NaN is 0); int to a
  narrower int wraps; anything to `i1` is `x != 0`; a float rounds to nearest even, to bf16
  through a float64 rounded to odd (one correct rounding).

Every function takes the builder and `MValue`s of scalar types and returns the `MValue` it
computed.
"""

from __future__ import annotations

import struct

from tilefoundry.mlir_builder.builder import MlirBuilder, MValue
from tilefoundry.mlir_builder.types import compute_type, is_float, width

__all__ = [
    "compare",
    "convert",
    "float_binary",
    "float_literal",
    "float_unary",
    "int_binary",
    "int_unary",
    "maximum",
    "minimum",
    "narrow",
    "widen",
]


def float_bits(value: float, type: str) -> int:
    """The bits of a Python float rounded to `type` (f32, f64; f16, bf16 through numpy's
    rounding: nearest, ties to even)."""
    if type == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    if type == "f32":
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    if type == "f16":
        return int(struct.unpack("<H", struct.pack("<e", value))[0])
    raise ValueError(f"no literal bits for {type}")


def float_literal(b: MlirBuilder, value: float, type: str) -> MValue:
    """A float constant of `type` (f16 / f32 / f64): the value rounded to it."""
    return b.float_constant(float_bits(value, type), type)


# -- bf16 and f16 ------------------------------------------------------------------------------


def bf16_to_f32(b: MlirBuilder, x: MValue) -> MValue:
    bits = b.op(f"arith.bitcast {x} : bf16 to i16", "i16")
    wide = b.op(f"arith.extui {bits} : i16 to i32", "i32")
    shifted = b.op(f"arith.shli {wide}, {b.int_constant(16, 'i32')} : i32", "i32")
    return b.op(f"arith.bitcast {shifted} : i32 to f32", "f32")


def f32_to_bf16(b: MlirBuilder, x: MValue) -> MValue:
    """Round to nearest, ties to even, in integers; a NaN keeps its high bits, quiet."""
    bits = b.op(f"arith.bitcast {x} : f32 to i32", "i32")
    high = b.op(f"arith.shrui {bits}, {b.int_constant(16, 'i32')} : i32", "i32")
    last = b.op(f"arith.andi {high}, {b.int_constant(1, 'i32')} : i32", "i32")
    biased = b.op(f"arith.addi {bits}, {b.int_constant(0x7FFF, 'i32')} : i32", "i32")
    rounded = b.op(f"arith.addi {biased}, {last} : i32", "i32")
    top = b.op(f"arith.shrui {rounded}, {b.int_constant(16, 'i32')} : i32", "i32")
    quiet = b.op(f"arith.ori {high}, {b.int_constant(0x40, 'i32')} : i32", "i32")
    nan = b.op(f"arith.cmpf uno, {x}, {x} : f32", "i1")
    chosen = b.op(f"arith.select {nan}, {quiet}, {top} : i32", "i32")
    half = b.op(f"arith.trunci {chosen} : i32 to i16", "i16")
    return b.op(f"arith.bitcast {half} : i16 to bf16", "bf16")


def f64_to_f32_odd(b: MlirBuilder, x: MValue) -> MValue:
    """f64 to f32 rounded to odd (truncated, the last bit set when inexact): rounding that to
    bf16 is the correct rounding of the f64 value."""
    near = b.op(f"arith.truncf {x} : f64 to f32", "f32")
    back = b.op(f"arith.extf {near} : f32 to f64", "f64")
    differs = b.op(f"arith.cmpf one, {back}, {x} : f64", "i1")
    absolute_back = b.op(f"math.absf {back} : f64", "f64")
    absolute = b.op(f"math.absf {x} : f64", "f64")
    away = b.op(f"arith.cmpf ogt, {absolute_back}, {absolute} : f64", "i1")
    stepped_down = b.op(f"arith.andi {differs}, {away} : i1", "i1")
    bits = b.op(f"arith.bitcast {near} : f32 to i32", "i32")
    less = b.op(f"arith.subi {bits}, {b.int_constant(1, 'i32')} : i32", "i32")
    toward = b.op(f"arith.select {stepped_down}, {less}, {bits} : i32", "i32")
    odd = b.op(f"arith.ori {toward}, {b.int_constant(1, 'i32')} : i32", "i32")
    chosen = b.op(f"arith.select {differs}, {odd}, {toward} : i32", "i32")
    return b.op(f"arith.bitcast {chosen} : i32 to f32", "f32")


def widen(b: MlirBuilder, x: MValue, dtype: str) -> MValue:
    """A value of `dtype` in the type an op computes it in (`compute_type`): f16 and bf16 as
    f32 (exactly), any other as it is."""
    if dtype == "bf16":
        return bf16_to_f32(b, x)
    if dtype == "f16":
        return b.op(f"arith.extf {x} : f16 to f32", "f32")
    return x


def narrow(b: MlirBuilder, x: MValue, dtype: str) -> MValue:
    """A computed value (of `compute_type(dtype)`) rounded to `dtype`."""
    if dtype == "bf16":
        return f32_to_bf16(b, x)
    if dtype == "f16":
        return b.op(f"arith.truncf {x} : f32 to f16", "f16")
    return x


# -- casts -------------------------------------------------------------------------------------


def _to_f64(b: MlirBuilder, x: MValue, src: str) -> MValue:
    if src == "f64":
        return x
    if src == "i1":
        return b.op(f"arith.uitofp {x} : i1 to f64", "f64")
    if not is_float(src):
        return b.op(f"arith.sitofp {x} : {src} to f64", "f64")
    return b.op(f"arith.extf {widen(b, x, src)} : f32 to f64", "f64")


def _float_to_int(b: MlirBuilder, x: MValue, src: str, dst: str) -> MValue:
    """Truncation toward zero, saturated at the dtype's range; NaN is 0 (computed in f64, where
    every f16 / bf16 / f32 value is exact and the bounds are powers of two)."""
    wide = _to_f64(b, x, src)
    truncated = b.op(f"math.trunc {wide} : f64", "f64")
    bits = width(dst)
    top = float(1 << (bits - 1))
    above = b.op(f"arith.cmpf oge, {truncated}, {float_literal(b, top, 'f64')} : f64", "i1")
    below = b.op(f"arith.cmpf olt, {truncated}, {float_literal(b, -top, 'f64')} : f64", "i1")
    inside = b.op(f"arith.cmpf ord, {truncated}, {truncated} : f64", "i1")
    outside = b.op(f"arith.ori {above}, {below} : i1", "i1")
    keep = b.op(f"arith.xori {outside}, {b.int_constant(1, 'i1')} : i1", "i1")
    usable = b.op(f"arith.andi {keep}, {inside} : i1", "i1")
    zero = float_literal(b, 0.0, "f64")
    safe = b.op(f"arith.select {usable}, {truncated}, {zero} : f64", "f64")
    value = b.op(f"arith.fptosi {safe} : f64 to {dst}", dst)
    high = b.int_constant((1 << (bits - 1)) - 1, dst)
    low = b.int_constant(-(1 << (bits - 1)), dst)
    clipped = b.op(f"arith.select {below}, {low}, {value} : {dst}", dst)
    return b.op(f"arith.select {above}, {high}, {clipped} : {dst}", dst)


def convert(b: MlirBuilder, x: MValue, src: str, dst: str) -> MValue:
    """`tf.math.cast` of a scalar stored as `src` to `dst` (see the module docstring)."""
    if src == dst:
        return x
    if dst == "i1":
        if is_float(src):
            wide = widen(b, x, src)
            zero = float_literal(b, 0.0, compute_type(src))
            return b.op(f"arith.cmpf une, {wide}, {zero} : {compute_type(src)}", "i1")
        return b.op(f"arith.cmpi ne, {x}, {b.int_constant(0, src)} : {src}", "i1")
    if not is_float(dst):
        if is_float(src):
            return _float_to_int(b, x, src, dst)
        if src == "i1":
            return b.op(f"arith.extui {x} : i1 to {dst}", dst)
        op = "arith.extsi" if width(dst) > width(src) else "arith.trunci"
        return b.op(f"{op} {x} : {src} to {dst}", dst)
    if dst == "bf16":
        if src == "f32":
            return f32_to_bf16(b, x)
        return f32_to_bf16(b, f64_to_f32_odd(b, _to_f64(b, x, src)))
    if src == "i1":
        return b.op(f"arith.uitofp {x} : i1 to {dst}", dst)
    if not is_float(src):
        return b.op(f"arith.sitofp {x} : {src} to {dst}", dst)
    value, type = (bf16_to_f32(b, x), "f32") if src == "bf16" else (x, src)
    if type == dst:
        return value
    op = "arith.extf" if width(dst) > width(type) else "arith.truncf"
    return b.op(f"{op} {value} : {type} to {dst}", dst)


# -- binary and unary ops ----------------------------------------------------------------------


def maximum(b: MlirBuilder, x: MValue, y: MValue, ties_to_first: bool = False) -> MValue:
    """numpy's `maximum` of two floats: a NaN `x` is the result, else a NaN `y`, else the
    larger; of two equal values the second (`ties_to_first`: the first, as numpy's float16
    loop keeps)."""
    return _extremum(b, x, y, "oge" if ties_to_first else "ogt")


def minimum(b: MlirBuilder, x: MValue, y: MValue, ties_to_first: bool = False) -> MValue:
    """numpy's `minimum`, as `maximum`."""
    return _extremum(b, x, y, "ole" if ties_to_first else "olt")


def _extremum(b: MlirBuilder, x: MValue, y: MValue, predicate: str) -> MValue:
    type = x.type
    wins = b.op(f"arith.cmpf {predicate}, {x}, {y} : {type}", "i1")
    nan = b.op(f"arith.cmpf uno, {x}, {x} : {type}", "i1")
    first = b.op(f"arith.ori {wins}, {nan} : i1", "i1")
    return b.op(f"arith.select {first}, {x}, {y} : {type}", type)


_FLOAT_ARITH = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf"}
_INT_ARITH = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli"}

_FLOAT_PREDICATES = {
    "cmp_eq": "oeq",
    "cmp_ne": "une",
    "cmp_lt": "olt",
    "cmp_le": "ole",
    "cmp_gt": "ogt",
    "cmp_ge": "oge",
}
_INT_PREDICATES = {
    "cmp_eq": "eq",
    "cmp_ne": "ne",
    "cmp_lt": "lt",
    "cmp_le": "le",
    "cmp_gt": "gt",
    "cmp_ge": "ge",
}


def float_binary(b: MlirBuilder, kind: str, x: MValue, y: MValue) -> MValue:
    """`add` ... `pow`, `max`, `min` of two floats of one compute type (f32 / f64)."""
    type = x.type
    if kind in _FLOAT_ARITH:
        return b.op(f"{_FLOAT_ARITH[kind]} {x}, {y} : {type}", type)
    if kind == "max":
        return maximum(b, x, y)
    if kind == "min":
        return minimum(b, x, y)
    if kind == "pow":
        return b.op(f"math.powf {x}, {y} : {type}", type)
    raise ValueError(f"no float binary op '{kind}'")


def compare(b: MlirBuilder, kind: str, x: MValue, y: MValue, dtype: str) -> MValue:
    """A `cmp_*` kind of two values of `dtype` (floats compared in their compute type: `x` and
    `y` widened already); i1 compares unsigned (`false < true`, as numpy's bools)."""
    if is_float(dtype):
        return b.op(f"arith.cmpf {_FLOAT_PREDICATES[kind]}, {x}, {y} : {x.type}", "i1")
    predicate = _INT_PREDICATES[kind]
    if predicate not in ("eq", "ne"):
        predicate = ("u" if dtype == "i1" else "s") + predicate
    return b.op(f"arith.cmpi {predicate}, {x}, {y} : {x.type}", "i1")


def int_binary(b: MlirBuilder, kind: str, x: MValue, y: MValue) -> MValue:
    """`add` ... `pow`, `max`, `min` of two integers (wrapping; see the module docstring)."""
    type = x.type
    if kind in _INT_ARITH:
        return b.op(f"{_INT_ARITH[kind]} {x}, {y} : {type}", type)
    if kind == "max":
        return b.op(f"arith.maxsi {x}, {y} : {type}", type)
    if kind == "min":
        return b.op(f"arith.minsi {x}, {y} : {type}", type)
    if kind == "div":
        return floor_divide(b, x, y)
    if kind == "pow":
        return int_power(b, x, y)
    raise ValueError(f"no integer binary op '{kind}'")


def floor_divide(b: MlirBuilder, x: MValue, y: MValue) -> MValue:
    """Floor division; `x / 0` is 0, `x / -1` is `-x` (wrapping: `INT_MIN / -1` is `INT_MIN`)."""
    type = x.type
    zero = b.int_constant(0, type)
    one = b.int_constant(1, type)
    minus_one = b.int_constant(-1, type)
    by_zero = b.op(f"arith.cmpi eq, {y}, {zero} : {type}", "i1")
    by_minus_one = b.op(f"arith.cmpi eq, {y}, {minus_one} : {type}", "i1")
    special = b.op(f"arith.ori {by_zero}, {by_minus_one} : i1", "i1")
    divisor = b.op(f"arith.select {special}, {one}, {y} : {type}", type)
    quotient = b.op(f"arith.floordivsi {x}, {divisor} : {type}", type)
    negated = b.op(f"arith.subi {zero}, {x} : {type}", type)
    signed = b.op(f"arith.select {by_minus_one}, {negated}, {quotient} : {type}", type)
    return b.op(f"arith.select {by_zero}, {zero}, {signed} : {type}", type)


def int_power(b: MlirBuilder, x: MValue, y: MValue) -> MValue:
    """`x ** y` modulo 2^width for `y >= 0` (square and multiply over the exponent's bits); a
    negative `y` gives the exact value truncated toward zero (1 for 1, +-1 for -1, else 0)."""
    type = x.type
    bits = width(type)
    zero = b.int_constant(0, type)
    one = b.int_constant(1, type)

    def step(i: MValue, carried: list[MValue]) -> list[MValue]:
        result, base, exponent = carried
        low = b.op(f"arith.andi {exponent}, {b.int_constant(1, type)} : {type}", type)
        odd = b.op(f"arith.cmpi ne, {low}, {b.int_constant(0, type)} : {type}", "i1")
        times = b.op(f"arith.muli {result}, {base} : {type}", type)
        new_result = b.op(f"arith.select {odd}, {times}, {result} : {type}", type)
        squared = b.op(f"arith.muli {base}, {base} : {type}", type)
        shifted = b.op(f"arith.shrui {exponent}, {b.int_constant(1, type)} : {type}", type)
        return [new_result, squared, shifted]

    powered, _, _ = b.for_(b.index(0), b.index(bits), [one, x, y], step)
    negative = b.op(f"arith.cmpi slt, {y}, {zero} : {type}", "i1")
    is_one = b.op(f"arith.cmpi eq, {x}, {one} : {type}", "i1")
    minus_one = b.int_constant(-1, type)
    is_minus_one = b.op(f"arith.cmpi eq, {x}, {minus_one} : {type}", "i1")
    low = b.op(f"arith.andi {y}, {one} : {type}", type)
    odd = b.op(f"arith.cmpi ne, {low}, {zero} : {type}", "i1")
    sign = b.op(f"arith.select {odd}, {minus_one}, {one} : {type}", type)
    of_minus_one = b.op(f"arith.select {is_minus_one}, {sign}, {zero} : {type}", type)
    truncated = b.op(f"arith.select {is_one}, {one}, {of_minus_one} : {type}", type)
    return b.op(f"arith.select {negative}, {truncated}, {powered} : {type}", type)


def float_unary(b: MlirBuilder, kind: str, x: MValue) -> MValue:
    """A `tf.math.unary` kind of a float in its compute type, as numpy computes it (`rsqrt` is
    `1 / sqrt(x)`, `sigmoid` `1 / (1 + exp(-x))`, `relu` `maximum(x, 0)`)."""
    type = x.type
    if kind == "neg":
        return b.op(f"arith.negf {x} : {type}", type)
    if kind == "abs":
        return b.op(f"math.absf {x} : {type}", type)
    if kind in ("exp", "log", "sqrt", "tanh"):
        return b.op(f"math.{kind} {x} : {type}", type)
    one = float_literal(b, 1.0, type)
    if kind == "rsqrt":
        root = b.op(f"math.sqrt {x} : {type}", type)
        return b.op(f"arith.divf {one}, {root} : {type}", type)
    if kind == "sigmoid":
        negated = b.op(f"arith.negf {x} : {type}", type)
        power = b.op(f"math.exp {negated} : {type}", type)
        denominator = b.op(f"arith.addf {one}, {power} : {type}", type)
        return b.op(f"arith.divf {one}, {denominator} : {type}", type)
    if kind == "relu":
        return maximum(b, x, float_literal(b, 0.0, type))
    raise ValueError(f"no float unary op '{kind}'")


def int_unary(b: MlirBuilder, kind: str, x: MValue) -> MValue:
    """`neg`, `abs` (both wrapping: `abs(INT_MIN)` is `INT_MIN`), `relu` of an integer."""
    type = x.type
    zero = b.int_constant(0, type)
    if kind == "relu":
        return b.op(f"arith.maxsi {x}, {zero} : {type}", type)
    negated = b.op(f"arith.subi {zero}, {x} : {type}", type)
    if kind == "neg":
        return negated
    if kind == "abs":
        below = b.op(f"arith.cmpi slt, {x}, {zero} : {type}", "i1")
        return b.op(f"arith.select {below}, {negated}, {x} : {type}", type)
    raise ValueError(f"no integer unary op '{kind}'")
