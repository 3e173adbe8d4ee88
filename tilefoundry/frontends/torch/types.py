"""torch dtypes, shapes and symbolic sizes as TileFoundry types."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.frontends.torch.errors import TorchImportError

__all__ = ["DimTable", "Where", "dtype_of", "tensor_type"]

Where = str | Callable[[], str]
"""Where a refused size sits, for the message: the text, or what makes it (only when a size
is refused: finding a node's source line is not free)."""

_DTYPES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.float64": "f64",
    "torch.int64": "i64",
    "torch.int32": "i32",
    "torch.int16": "i16",
    "torch.int8": "i8",
    "torch.bool": "i1",
}


def dtype_of(dtype: Any) -> str:
    """The TileFoundry dtype of a torch dtype (refused when it has none)."""
    found = _DTYPES.get(str(dtype))
    if found is None:
        raise TorchImportError(f"dtype {dtype} has no TileFoundry dtype")
    return found


class DimTable:
    """torch's symbolic sizes (`s0`) as DimVars: the range torch records, the name the
    `Dim` was given (else the symbol)."""

    def __init__(self, ranges: Mapping[Any, Any], names: Mapping[str, str]) -> None:
        self._vars: dict[str, DimVar] = {}
        self.static: dict[tuple[tuple[int, ...], Any], TensorType] = {}
        """(shape, torch dtype) -> its TensorType, for the static shapes met so far: one import
        names a few distinct types many times (a value, not a cache of IR)."""
        for symbol, bounds in ranges.items():
            key = str(symbol)
            lo = max(_bound(bounds.lower, 0), 0)
            hi = _bound(bounds.upper, 2**31 - 1) + 1
            if hi > lo:
                self._vars[key] = DimVar(names.get(key, key), lo, hi)

    def named(self, expr: Any) -> str:
        """A sympy expression of torch's symbols (`s0*s1`) with each symbol the name of its
        DimVar (`batch*seq`)."""
        import sympy

        names = {
            symbol: sympy.Symbol(self._vars[str(symbol)].name)
            for symbol in expr.free_symbols
            if str(symbol) in self._vars
        }
        return str(expr.subs(names))

    def dim(self, size: Any, where: Where) -> int | DimVar:
        if isinstance(size, int):
            return size
        expr = str(size.node.expr) if hasattr(size, "node") else str(size)
        found = self._vars.get(expr)
        if found is None:
            raise TorchImportError(
                f"the size {expr} is not a dynamic dim of its own (only a plain Dim maps to a "
                f"DimVar) in {where if isinstance(where, str) else where()}"
            )
        return found


def _bound(value: Any, default: int) -> int:
    """A range end as an int; an infinite one (torch's `int_oo`, which calls itself finite)
    is `default`."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return default


def tensor_type(value: Any, dims: DimTable, where: Where) -> TensorType:
    """The TensorType of a (fake) tensor. A rank-0 tensor is carried as shape (1,): op
    arguments have rank >= 1, and a (1,) broadcasts against any other shape as a scalar does."""
    sizes = tuple(value.shape)
    if all(type(s) is int for s in sizes):
        key = (sizes, value.dtype)
        found = dims.static.get(key)
        if found is None:
            found = dims.static[key] = TensorType(sizes or (1,), dtype_of(value.dtype))
        return found
    shape = tuple(dims.dim(s, where) for s in sizes)
    return TensorType(shape or (1,), dtype_of(value.dtype))
