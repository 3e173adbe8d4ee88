"""Neural-network building blocks: activations, softmax, mean, cumulative sum, logical ops.

```mlir
%a = tf.call tf.nn.activation<kind = silu>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
%p = tf.call tf.nn.softmax<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
%m = tf.call tf.reduce.mean<axis = -1, keepdims = true>(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32>
%c = tf.call tf.reduce.cumsum<axis = 1>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
%l = tf.call tf.logic.binary<kind = and>(%p, %q) : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
%n = tf.call tf.logic.not(%p) : (tensor<4x8xi1>) -> tensor<4x8xi1>
```
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.ir import SSAValue

from tilefoundry.dialects.tf.ops import defining_call
from tilefoundry.dialects.tf.types import IRType, TensorType
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ops.folding import elements
from tilefoundry.ops.shapes import broadcast_shapes, normalize_axis, tensor_args

__all__ = [
    "Activation",
    "ActivationKind",
    "Cumsum",
    "Logical",
    "LogicalKind",
    "LogicalNot",
    "ReduceMean",
    "Softmax",
]


def _float_tensor(op: str, t: IRType) -> TensorType:
    assert isinstance(t, TensorType)
    if not t.dtype.startswith(("f", "bf")):
        raise ValueError(f"{op} needs a float tensor, got {t.dtype}")
    return t


class ActivationKind(enum.Enum):
    SILU = "silu"
    GELU = "gelu"
    GELU_TANH = "gelu_tanh"
    SIN = "sin"
    COS = "cos"
    ERF = "erf"


_ACTIVATION_FLOPS = {
    ActivationKind.SILU: 4,  # x / (1 + exp(-x))
    ActivationKind.GELU: 5,  # x / 2 * (1 + erf(x / sqrt 2))
    ActivationKind.GELU_TANH: 9,  # x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))
    ActivationKind.SIN: 1,
    ActivationKind.COS: 1,
    ActivationKind.ERF: 1,
}


@register_op(category="nn")
class Activation(Op):
    """An elementwise float function: `silu`, `gelu` (erf form), `gelu_tanh` (the tanh
    approximation), `sin`, `cos`, `erf`.

    Types: the input is a float tensor; the result has its type.

    FLOPs: the operations of its formula per element.

    ```mlir
    %a = tf.call tf.nn.activation<kind = silu>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=ActivationKind)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return _float_tensor(self.kind.value, arg_types[0])

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return _ACTIVATION_FLOPS[self.kind] * elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        return np.asarray(_activation(self.kind, x)).astype(x.dtype, copy=False)


def _erf(x: Any) -> Any:
    import numpy as np

    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _activation(kind: ActivationKind, x: Any) -> Any:
    import numpy as np

    if kind is ActivationKind.SILU:
        return x / (1 + np.exp(-x))
    if kind is ActivationKind.GELU:
        return 0.5 * x * (1 + _erf(x.astype(np.float64) / math.sqrt(2.0)))
    if kind is ActivationKind.GELU_TANH:
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    if kind is ActivationKind.SIN:
        return np.sin(x)
    if kind is ActivationKind.COS:
        return np.cos(x)
    return _erf(x.astype(np.float64))


@register_op(category="nn")
class Softmax(Op):
    """`exp(x - max) / sum(exp(x - max))` along `axis`.

    Types: the input is a float tensor and `axis` one of its dims; the result has its type.

    FLOPs: max, subtract, exp, sum and divide, five per element.

    ```mlir
    %p = tf.call tf.nn.softmax<axis = -1>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        x = _float_tensor("softmax", arg_types[0])
        normalize_axis(self.axis, x.rank)
        return x

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return 5 * elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        shifted = np.exp(x - np.max(x, axis=self.axis, keepdims=True))
        return (shifted / np.sum(shifted, axis=self.axis, keepdims=True)).astype(
            x.dtype, copy=False
        )


@register_op(category="reduce", name="mean")
class ReduceMean(Op):
    """The mean along `axis` (kept as a size-1 dim with `keepdims`).

    Types: the input is a float tensor and `axis` one of its dims; the result drops that dim,
    or keeps it with size 1 under `keepdims`, in the input's dtype.

    FLOPs: one per input element, and a divide per output element.

    ```mlir
    %m = tf.call tf.reduce.mean<axis = -1, keepdims = true>(%x) : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
    """

    builder_name: ClassVar[str] = "reduce_mean"

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)
    keepdims = ParamDef(kind="attribute", annotation=bool, default=False)

    def infer_type(self, *arg_types: IRType) -> IRType:
        x = _float_tensor("mean", arg_types[0])
        axis = normalize_axis(self.axis, x.rank)
        kept = (1,) if self.keepdims else ()
        return TensorType((*x.shape[:axis], *kept, *x.shape[axis + 1 :]), x.dtype)

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(arg_types[0]) + elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        return np.mean(x, axis=self.axis, keepdims=self.keepdims, dtype=x.dtype)


@register_op(category="reduce")
class Cumsum(Op):
    """The running sum along `axis`.

    Types: the input is not `i1` (cast it to an integer first) and `axis` is one of its dims;
    the result has its type.

    FLOPs: one add per element.

    ```mlir
    %c = tf.call tf.reduce.cumsum<axis = 1>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        if x.dtype == "i1":
            raise ValueError("cumsum is not defined on i1 (cast it to an integer first)")
        normalize_axis(self.axis, x.rank)
        return x

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        return np.cumsum(x, axis=self.axis, dtype=x.dtype)


class LogicalKind(enum.Enum):
    AND = "and"
    OR = "or"
    XOR = "xor"


def _bool_tensor(op: str, t: IRType) -> TensorType:
    assert isinstance(t, TensorType)
    if t.dtype != "i1":
        raise ValueError(f"{op} needs i1 operands, got {t.dtype}")
    return t


@register_op(category="logic", name="binary")
class Logical(Op):
    """Elementwise `and` / `or` / `xor` of two `i1` tensors, with broadcasting.

    Types: both operands are `i1` and their shapes broadcast; the result is `i1` of the
    broadcast shape.

    FLOPs: one per result element.

    ```mlir
    %l = tf.call tf.logic.binary<kind = and>(%p, %q) : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
    ```
    """

    builder_name: ClassVar[str] = "logical"

    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=LogicalKind)

    def infer_type(self, *arg_types: IRType) -> IRType:
        lhs = _bool_tensor(self.kind.value, arg_types[0])
        rhs = _bool_tensor(self.kind.value, arg_types[1])
        return TensorType(broadcast_shapes(lhs.shape, rhs.shape), "i1")

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """`x and x`, `x or x` are `x`."""
        lhs, rhs = args
        if self.kind is not LogicalKind.XOR and lhs is rhs:
            return lhs
        return None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        lhs, rhs = arrays
        if self.kind is LogicalKind.AND:
            return np.logical_and(lhs, rhs)
        if self.kind is LogicalKind.OR:
            return np.logical_or(lhs, rhs)
        return np.logical_xor(lhs, rhs)


@register_op(category="logic", name="not")
class LogicalNot(Op):
    """Elementwise negation of an `i1` tensor.

    Types: the input is `i1`; the result has its type.

    FLOPs: one per element.

    ```mlir
    %n = tf.call tf.logic.not(%p) : (tensor<4x8xi1>) -> tensor<4x8xi1>
    ```
    """

    builder_name: ClassVar[str] = "logical_not"

    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return _bool_tensor("not", arg_types[0])

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """`not(not(x))` is `x`."""
        inner = defining_call(args[0])
        if inner is not None and isinstance(inner[0], LogicalNot):
            value: SSAValue = inner[1].args_[0]
            return value
        return None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        return np.logical_not(arrays[0])
