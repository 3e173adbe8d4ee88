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

from tilefoundry.builtin.types import IRType, TensorType
from tilefoundry.dialects.tf.ops import defining_call
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.composite import (
    layout_sum,
    lowest,
    rounder,
    widened_tensor,
)
from tilefoundry.mlir_builder.reductions import fold, reduced, scan
from tilefoundry.mlir_builder.scalar import float_literal, maximum, narrow, widen
from tilefoundry.mlir_builder.structured import convert_tensor, elementwise, reshape
from tilefoundry.mlir_builder.types import compute_type
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


def _activation_element(b: MlirBuilder, kind: ActivationKind, x: MValue, dtype: str) -> MValue:
    """One element of an activation, numpy's formula op by op (`interpreter/reference_tensor`):
    each step in the dtype's compute type, an f16 one rounded to f16 (numpy's float16 loops);
    `gelu` and `erf` through float64's `erf` (as `math.erf`), converted back as `astype` does."""
    step = rounder(b, dtype)
    wide_type = compute_type(dtype)
    v = widen(b, x, dtype)

    def const(value: float) -> MValue:
        if dtype == "f16":
            return widen(b, float_literal(b, value, "f16"), "f16")
        return float_literal(b, value, wide_type)

    def op(name: str, *operands: MValue) -> MValue:
        return step(b.op(f"{name} {', '.join(map(str, operands))} : {wide_type}", wide_type))

    def from_f64(value: MValue) -> MValue:
        """A float64 result `astype` the array's dtype (bf16: its float32, then rounded)."""
        target = "f32" if dtype == "bf16" else dtype
        if target == "f64":
            return value
        narrowed = b.op(f"arith.truncf {value} : f64 to {target}", target)
        return narrow(b, narrowed, dtype) if dtype == "bf16" else narrowed

    if kind in (ActivationKind.GELU, ActivationKind.ERF):
        wide = v if wide_type == "f64" else b.op(f"arith.extf {v} : {wide_type} to f64", "f64")
        if kind is ActivationKind.ERF:
            return from_f64(b.op(f"math.erf {wide} : f64", "f64"))
        root = float_literal(b, math.sqrt(2.0), "f64")
        scaled = b.op(f"arith.divf {wide}, {root} : f64", "f64")
        erf = b.op(f"math.erf {scaled} : f64", "f64")
        one = b.op(f"arith.addf {float_literal(b, 1.0, 'f64')}, {erf} : f64", "f64")
        half = op("arith.mulf", const(0.5), v)
        half64 = (
            half if wide_type == "f64" else b.op(f"arith.extf {half} : {wide_type} to f64", "f64")
        )
        return from_f64(b.op(f"arith.mulf {half64}, {one} : f64", "f64"))
    if kind is ActivationKind.SILU:
        negated = op("arith.negf", v)
        power = op("math.exp", negated)
        denominator = op("arith.addf", const(1.0), power)
        result = op("arith.divf", v, denominator)
    elif kind is ActivationKind.GELU_TANH:
        cube = op("arith.mulf", op("arith.mulf", op("arith.mulf", const(0.044715), v), v), v)
        inner = op("arith.mulf", const(math.sqrt(2.0 / math.pi)), op("arith.addf", v, cube))
        plus = op("arith.addf", const(1.0), op("math.tanh", inner))
        result = op("arith.mulf", op("arith.mulf", const(0.5), v), plus)
    else:
        result = op(f"math.{kind.value}", v)
    return narrow(b, result, dtype)


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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """The interpreter's formula, step by step (`_activation_element`)."""
        x = _float_tensor(self.kind.value, arg_types[0])
        return elementwise(
            b, values(args), [x], x, lambda s: _activation_element(b, self.kind, s[0], x.dtype)
        )

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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """numpy's steps: the maximum along the axis, `exp(x - max)`, its sum in numpy's order
        (`composite.layout_sum`), the quotient; an f16 value rounded after each."""
        x_type = _float_tensor("softmax", arg_types[0])
        axis = normalize_axis(self.axis, x_type.rank)
        dtype = x_type.dtype
        wide, wide_type = widened_tensor(b, values(args)[0], x_type)
        element = wide_type.dtype
        step = rounder(b, dtype)
        kept = reduced(wide_type, axis, True)

        def larger(acc: MValue, v: MValue) -> MValue:
            return maximum(b, acc, v, ties_to_first=dtype == "f16")

        top = fold(b, wide, wide_type, axis, True, lowest(b, element), larger, element)

        def shifted(s: list[MValue]) -> MValue:
            difference = step(b.op(f"arith.subf {s[0]}, {s[1]} : {element}", element))
            return step(b.op(f"math.exp {difference} : {element}", element))

        exps = elementwise(b, [wide, top], [wide_type, kept], wide_type, shifted)
        total = layout_sum(b, exps, wide_type, axis, dtype)

        def divided(s: list[MValue]) -> MValue:
            quotient = step(b.op(f"arith.divf {s[0]}, {s[1]} : {element}", element))
            return narrow(b, quotient, dtype)

        return elementwise(b, [exps, total], [wide_type, kept], x_type, divided, dtype)

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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """numpy's `mean`: the sum along the axis in numpy's order (`composite.layout_sum`),
        divided by the count (a correctly rounded quotient in the dtype)."""
        x_type = _float_tensor("mean", arg_types[0])
        axis = normalize_axis(self.axis, x_type.rank)
        dtype = x_type.dtype
        wide, wide_type = widened_tensor(b, values(args)[0], x_type)
        element = wide_type.dtype
        total = layout_sum(b, wide, wide_type, axis, dtype)
        size = b.dim(x_type.shape[axis])
        count = b.op(f"arith.index_cast {size} : index to i64", "i64")
        divisor = b.op(f"arith.sitofp {count} : i64 to {element}", element)
        kept = reduced(wide_type, axis, True)

        def mean(s: list[MValue]) -> MValue:
            quotient = b.op(f"arith.divf {s[0]}, {divisor} : {element}", element)
            return narrow(b, quotient, dtype)

        means = elementwise(b, [total], [kept], reduced(x_type, axis, True), mean, dtype)
        assert isinstance(result, TensorType)
        return reshape(b, means, reduced(x_type, axis, True), result)

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(arg_types[0]) + elements(result)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        (x,) = arrays
        if x.shape[self.axis] == 0:  # 0 / 0, NaN: without numpy's "Mean of empty slice"
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.mean(x, axis=self.axis, keepdims=self.keepdims, dtype=x.dtype)
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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """numpy's `cumsum`: the first element, then each next one added in order (f16 rounded
        at each step; bf16 in f32, rounded once; integers wrap)."""
        (x_type,) = tensor_args(arg_types)
        axis = normalize_axis(self.axis, x_type.rank)
        dtype = x_type.dtype
        x = values(args)[0]
        if dtype.startswith("i"):

            def add_int(acc: MValue, v: MValue) -> MValue:
                return b.op(f"arith.addi {acc}, {v} : {dtype}", dtype)

            return scan(b, x, x_type, axis, dtype, lambda v: v, add_int)
        wide, wide_type = widened_tensor(b, x, x_type)
        element = wide_type.dtype
        step = rounder(b, dtype)

        def add(acc: MValue, v: MValue) -> MValue:
            return step(b.op(f"arith.addf {acc}, {v} : {element}", element))

        sums = scan(b, wide, wide_type, axis, element, lambda v: v, add)
        if element == dtype:
            return sums
        return convert_tensor(b, sums, wide_type, dtype, lambda v: narrow(b, v, dtype))

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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise `arith.andi` / `ori` / `xori` on i1."""
        assert isinstance(result, TensorType)
        op = {"and": "arith.andi", "or": "arith.ori", "xor": "arith.xori"}[self.kind.value]
        return elementwise(
            b,
            values(args),
            tensor_args(arg_types),
            result,
            lambda s: b.op(f"{op} {s[0]}, {s[1]} : i1", "i1"),
        )

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

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise `arith.xori` with true."""
        (x,) = tensor_args(arg_types)
        return elementwise(
            b,
            values(args),
            [x],
            x,
            lambda s: b.op(f"arith.xori {s[0]}, {b.int_constant(1, 'i1')} : i1", "i1"),
        )

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
