"""What a `tf.call` needs to know of the function it calls, whatever dialect defines it.

`hir.func` and `tir.prim_func` implement `FunctionLike`; the call verifier resolves its symbol,
checks it lands on a `FunctionLike`, and compares the argument types with `fits`.
"""

from __future__ import annotations

import abc

from tilefoundry.builtin.types import BufferType, DimVar, IRType, TensorType, TupleType

__all__ = ["FunctionLike", "fits"]


class FunctionLike(abc.ABC):
    """An op that a `tf.call` may target through the symbol table."""

    @abc.abstractmethod
    def function_name(self) -> str:
        """The function's symbol."""

    @abc.abstractmethod
    def param_types(self) -> tuple[IRType, ...]: ...

    @abc.abstractmethod
    def result_type(self) -> IRType: ...


def _dim_fits(param: int | DimVar, arg: int | DimVar) -> bool:
    if isinstance(param, int):
        return param == arg
    if isinstance(arg, int):
        return param.contains(arg)
    return arg.name == param.name and param.lo <= arg.lo and arg.hi <= param.hi


def fits(param: IRType, arg: IRType) -> bool:
    """Whether a value of type `arg` may be passed for a parameter of type `param`: equal types,
    except that a `DimVar` dim accepts a size, or a same-named DimVar, inside its envelope (for
    a buffer's dims too: a buffer of 4 elements is passed for `!tf.buffer<?xf32, #tf.dims<n: ...>>`)."""
    if isinstance(param, TensorType) and isinstance(arg, TensorType):
        return (
            param.dtype == arg.dtype
            and param.rank == arg.rank
            and all(_dim_fits(p, a) for p, a in zip(param.shape, arg.shape, strict=True))
        )
    if isinstance(param, BufferType) and isinstance(arg, BufferType):
        return fits(param.tensor, arg.tensor)
    if isinstance(param, TupleType) and isinstance(arg, TupleType):
        return len(param) == len(arg) and all(
            fits(p, a) for p, a in zip(param.fields, arg.fields, strict=True)
        )
    return param == arg
