"""Literals: a numpy array (as the interpreter holds a dtype's values: bf16 in float32) as an
MLIR tensor value, bit for bit.

Every element of a float is written as its bits; a tensor whose elements all have the same bits
(a splat) is a `linalg.fill` of a scalar constant, never a splat `dense<...>` (mlir-translate-19
drops the sign of a splat `-0.0`: llvm-project issue 160437); any other as a `dense<"0x...">`
of its raw little-endian bytes (`i1` as `true` / `false` lists).
"""

from __future__ import annotations

from typing import Any

from tilefoundry.builtin.types import TensorType
from tilefoundry.mlir_builder.builder import MlirBuilder, MValue
from tilefoundry.mlir_builder.types import is_float, tensor_type

__all__ = ["scalar_constant", "storage_bits", "tensor_constant"]


def storage_bits(array: Any, dtype: str) -> Any:
    """The array as the unsigned integers of its storage bits (bf16: the high half of each
    float32; i1: 0 / 1 bytes)."""
    import numpy as np

    array = np.array(array, order="C")  # a 0-d one stays 0-d
    if dtype == "bf16":
        return (array.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if dtype == "i1":
        return array.astype(np.uint8)
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def scalar_constant(b: MlirBuilder, bits: int, dtype: str) -> MValue:
    """A scalar of `dtype` from its storage bits."""
    if is_float(dtype):
        return b.float_constant(bits, dtype)
    if dtype == "i1":
        return b.int_constant(bits & 1, "i1")
    width = int(dtype[1:])
    value = bits - (1 << width) if bits >= 1 << (width - 1) else bits
    return b.int_constant(value, dtype)


def tensor_constant(b: MlirBuilder, array: Any, type: TensorType) -> MValue:
    """The literal `array` (every element; see the module docstring)."""
    bits = storage_bits(array, type.dtype).reshape(-1)
    text = tensor_type(type)
    if bits.size == 0:
        return b.empty(type)
    if (bits == bits[0]).all():
        return b.fill(scalar_constant(b, int(bits[0]), type.dtype), b.empty(type))
    if type.dtype == "i1":
        return b.constant(f"dense<{_nested(bits.reshape(array.shape))}>", text)
    data = bits.astype(bits.dtype.newbyteorder("<")).tobytes().hex().upper()
    return b.constant(f'dense<"0x{data}">', text)


def _nested(bits: Any) -> str:
    if bits.ndim == 0:
        return "true" if bits else "false"
    return "[" + ", ".join(_nested(part) for part in bits) + "]"
