"""Reductions along one axis.

```mlir
%s = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32>
%m = tf.call tf.reduce.max<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from tilefoundry.builtin.types import IRType, TensorType
from tilefoundry.dialects.tf.numerics import widened
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.composite import lowest, widened_tensor, zero
from tilefoundry.mlir_builder.reductions import fold, pairwise_sum
from tilefoundry.mlir_builder.scalar import maximum, narrow, widen
from tilefoundry.mlir_builder.structured import convert_tensor
from tilefoundry.mlir_builder.types import is_float
from tilefoundry.ops.folding import elements, same_exact, unbounded
from tilefoundry.ops.shapes import normalize_axis, tensor_args

__all__ = ["ReduceMax", "ReduceSum", "reduce_last"]


def reduce_last(reduce: Callable[..., Any], x: Any, axis: int, keepdims: bool, **kw: Any) -> Any:
    """`reduce` along `axis`, always over a contiguous last axis: the order in which numpy
    combines the elements (pairwise for a float sum) is then the same for every layout."""
    import numpy as np

    axis = normalize_axis(axis, x.ndim)
    result = reduce(np.ascontiguousarray(np.moveaxis(x, axis, -1)), axis=-1, **kw)
    return np.expand_dims(result, axis) if keepdims else result


class _Reduce(Op):
    """A reduction along one axis.

    Types: `axis` is a dim of the input (negative counts from the end); the result drops that
    dim, or keeps it with size 1 under `keepdims`, and has the input's dtype.

    FLOPs: one per input element.
    """

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)
    keepdims = ParamDef(kind="attribute", annotation=bool, default=False)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        axis = normalize_axis(self.axis, x.rank)
        if self.keepdims:
            shape = (*x.shape[:axis], 1, *x.shape[axis + 1 :])
        else:
            shape = (*x.shape[:axis], *x.shape[axis + 1 :])
        return TensorType(shape, x.dtype)

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        """One operation per input element."""
        return elements(arg_types[0])


@register_op(category="reduce", name="sum")
class ReduceSum(_Reduce):
    """The sum along `axis` (kept as a size-1 dim with `keepdims`).

    ```mlir
    %s = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
    """

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Floats: numpy's pairwise sum of the axis made the last one (the interpreter's order),
        in f32 for f16 / bf16, rounded once; integers wrap; i1 is a logical or."""
        (x_type,) = tensor_args(arg_types)
        (x,) = values(args)
        axis = normalize_axis(self.axis, x_type.rank)
        dtype = x_type.dtype
        if is_float(dtype):
            wide, wide_type = widened_tensor(b, x, x_type)
            total = pairwise_sum(b, wide, wide_type, axis, self.keepdims)
            if wide_type.dtype == dtype:
                return total
            assert isinstance(result, TensorType)
            summed = TensorType(result.shape, wide_type.dtype)
            return convert_tensor(b, total, summed, dtype, lambda v: narrow(b, v, dtype))
        op = "arith.ori" if dtype == "i1" else "arith.addi"

        def add(acc: MValue, v: MValue) -> MValue:
            return b.op(f"{op} {acc}, {v} : {dtype}", dtype)

        return fold(b, x, x_type, axis, self.keepdims, zero(b, dtype), add, dtype)

    builder_name: ClassVar[str] = "reduce_sum"

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """Exact on unbounded integers; an i1 sum (an `or`) is exact."""
        import numpy as np

        if value.dtype.kind == "b":
            return True
        (x,) = arrays
        exact = np.sum(unbounded(x), axis=self.axis, keepdims=self.keepdims)
        return same_exact(exact, value)

    def reference(self, *arrays: Any) -> Any:
        """Accumulates in the dtype's compute type (f16 / bf16 in float32), rounded once."""
        import numpy as np

        x = widened(arrays[0])
        return reduce_last(np.sum, x, self.axis, self.keepdims, dtype=x.dtype)


@register_op(category="reduce", name="max")
class ReduceMax(_Reduce):
    """The maximum along `axis` (kept as a size-1 dim with `keepdims`).

    ```mlir
    %m = tf.call tf.reduce.max<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
    ```
    """

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """In order from the lowest value, with numpy's `maximum` (a NaN wins; of equal values
        the later one, the earlier for f16: numpy's float16 loop); i1 is a logical or."""
        (x_type,) = tensor_args(arg_types)
        (x,) = values(args)
        axis = normalize_axis(self.axis, x_type.rank)
        dtype = x_type.dtype

        def combine(acc: MValue, v: MValue) -> MValue:
            if dtype == "i1":
                return b.op(f"arith.ori {acc}, {v} : i1", "i1")
            if not is_float(dtype):
                return b.op(f"arith.maxsi {acc}, {v} : {dtype}", dtype)
            wide = maximum(
                b, widen(b, acc, dtype), widen(b, v, dtype), ties_to_first=dtype == "f16"
            )
            return narrow(b, wide, dtype)

        return fold(b, x, x_type, axis, self.keepdims, lowest(b, dtype), combine, dtype)

    builder_name: ClassVar[str] = "reduce_max"

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """It selects a value: nothing to overflow."""
        return True

    def reference(self, *arrays: Any) -> Any:
        """A NaN is the maximum; an empty axis gives the dtype's lowest value (-inf for
        floats)."""
        import numpy as np

        (x,) = arrays
        if x.dtype.kind == "f":
            lowest: Any = -np.inf
        elif x.dtype.kind == "b":
            lowest = False
        else:
            lowest = np.iinfo(x.dtype).min
        return reduce_last(np.max, x, self.axis, self.keepdims, initial=lowest)
