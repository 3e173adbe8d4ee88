"""Reductions along one axis.

```mlir
%s = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32>
%m = tf.call tf.reduce.max<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefoundry.dialects.tf.types import IRType, TensorType
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ops.folding import elements
from tilefoundry.ops.shapes import normalize_axis, tensor_args

__all__ = ["ReduceMax", "ReduceSum"]


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


@register_op(category="reduce", name="max")
class ReduceMax(_Reduce):
    """The maximum along `axis` (kept as a size-1 dim with `keepdims`).

    ```mlir
    %m = tf.call tf.reduce.max<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
    ```
    """
