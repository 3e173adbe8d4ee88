"""Elementwise math: `Binary` / `Unary` with their kinds, `Cast`, and the sugar aliases.

```mlir
%y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
%m = tf.call tf.math.binary<kind = cmp_lt>(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
%e = tf.call tf.math.unary<kind = exp>(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
%h = tf.call tf.math.cast<dtype = bf16>(%a) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
```
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import SSAValue

from tilefoundry.builtin.types import IRType, TensorType, from_attr
from tilefoundry.dialects.tf.numerics import cast_array, int_range, widened
from tilefoundry.dialects.tf.ops import defining_call
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_alias, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.scalar import (
    compare,
    convert,
    float_binary,
    float_unary,
    int_binary,
    int_unary,
    narrow,
    widen,
)
from tilefoundry.mlir_builder.structured import elementwise
from tilefoundry.ops.folding import elements, is_literal, same_exact, unbounded
from tilefoundry.ops.shapes import DtypeOp, broadcast_shapes, same_dtype, tensor_args

__all__ = ["BINARY_ALIASES", "UNARY_ALIASES", "Binary", "BinaryKind", "Cast", "Unary", "UnaryKind"]


class BinaryKind(enum.Enum):
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    MAX = "max"
    MIN = "min"
    POW = "pow"
    CMP_EQ = "cmp_eq"
    CMP_NE = "cmp_ne"
    CMP_LT = "cmp_lt"
    CMP_LE = "cmp_le"
    CMP_GT = "cmp_gt"
    CMP_GE = "cmp_ge"

    @property
    def is_comparison(self) -> bool:
        return self.value.startswith("cmp_")


class UnaryKind(enum.Enum):
    NEG = "neg"
    EXP = "exp"
    LOG = "log"
    SQRT = "sqrt"
    RSQRT = "rsqrt"
    TANH = "tanh"
    ABS = "abs"
    SIGMOID = "sigmoid"
    RELU = "relu"

    @property
    def needs_float(self) -> bool:
        return self not in (UnaryKind.NEG, UnaryKind.ABS, UnaryKind.RELU)


def _is_float(dtype: str) -> bool:
    return dtype.startswith(("f", "bf"))


@register_op(category="math")
class Binary(Op):
    """An elementwise binary op with numpy broadcasting; comparisons give `i1`.

    Types: `lhs` and `rhs` have one dtype and broadcast as numpy's do (right-aligned; a dim var
    only with itself or 1); the result has the broadcast shape and their dtype, `i1` for the
    `cmp_*` kinds. Only comparisons take `i1` operands.

    FLOPs: one per result element.

    ```mlir
    %y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
    """

    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=BinaryKind)

    def infer_type(self, *arg_types: IRType) -> IRType:
        lhs, rhs = tensor_args(arg_types)
        dtype = same_dtype(lhs, rhs)
        if dtype == "i1" and not self.kind.is_comparison:
            raise ValueError(f"{self.kind.value} is not defined on i1")
        shape = broadcast_shapes(lhs.shape, rhs.shape)
        return TensorType(shape, "i1" if self.kind.is_comparison else dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise with broadcasting; f16 / bf16 in f32, rounded once (`scalar`)."""
        lhs, rhs = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        dtype, kind = lhs.dtype, self.kind.value

        def element(s: list[MValue]) -> MValue:
            x, y = (widen(b, v, dtype) for v in s)
            if self.kind.is_comparison:
                return compare(b, kind, x, y, dtype)
            if _is_float(dtype):
                return narrow(b, float_binary(b, kind, x, y), dtype)
            return int_binary(b, kind, x, y)

        return elementwise(b, values(args), [lhs, rhs], result, element)

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """`x + 0`, `x - 0`, `x * 1`, `x / 1`, `x ** 1` (either side where it commutes) and
        `max(x, x)`, `min(x, x)` are `x`. A float's additive identity is `-0.0` (`-0.0 + 0.0`
        is `0.0`); a fold that would broadcast `x` does not apply (the call checks the type)."""
        lhs, rhs = args
        kind = self.kind
        if kind in (BinaryKind.MAX, BinaryKind.MIN) and lhs is rhs:
            return lhs
        zero = -0.0 if isinstance(result, TensorType) and _is_float(result.dtype) else 0
        if kind is BinaryKind.ADD:
            return rhs if is_literal(lhs, zero) else lhs if is_literal(rhs, zero) else None
        if kind is BinaryKind.MUL:
            return rhs if is_literal(lhs, 1) else lhs if is_literal(rhs, 1) else None
        if kind is BinaryKind.SUB:
            return lhs if is_literal(rhs, 0) else None
        if kind in (BinaryKind.DIV, BinaryKind.POW):
            return lhs if is_literal(rhs, 1) else None
        return None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """Exact on unbounded integers; an integer division by zero and a negative power are
        never folded. A comparison is exact."""
        import numpy as np

        kind = self.kind
        if kind.is_comparison:
            return True
        a, b = (unbounded(x) for x in arrays)
        if kind is BinaryKind.ADD:
            return same_exact(a + b, value)
        if kind is BinaryKind.SUB:
            return same_exact(a - b, value)
        if kind is BinaryKind.MUL:
            return same_exact(a * b, value)
        if kind is BinaryKind.DIV:
            return not np.any(arrays[1] == 0) and same_exact(a // b, value)
        if kind is BinaryKind.POW:
            if np.any(arrays[1] < 0):
                return False
            limit = _EXPONENT_LIMIT
            clipped = np.where(b > limit, limit + b % 2, b)
            return same_exact(a**clipped, value)
        return kind in (BinaryKind.MAX, BinaryKind.MIN)

    def reference(self, *arrays: Any) -> Any:
        """f16 / bf16 compute in float32 (`widened`); integers wrap, floor-divide (a division
        by zero is 0) and truncate a negative power toward zero."""
        import numpy as np

        lhs, rhs = widened(arrays[0]), widened(arrays[1])
        result = np.asarray(_binary_kernel(self.kind)(lhs, rhs))
        return result if self.kind.is_comparison else result.astype(lhs.dtype, copy=False)


# The numbers follow `tilefoundry.dialects.tf.numerics` (docs/ir.md, "Numeric semantics"): an op
# on f16 or bf16 computes in float32 (`widened`), and `evaluate_op` rounds every result once to
# its dtype (`cast_array`); integers wrap, and the cases numpy leaves undefined or raises on are
# defined here (an integer division by zero is 0, a negative integer power truncates toward zero).


def _divide(a: Any, b: Any) -> Any:
    """Floats divide (IEEE); integers floor-divide, and a division by zero is 0."""
    import numpy as np

    if a.dtype.kind not in "iub":
        return np.divide(a, b)
    zero = b == 0
    return np.where(zero, 0, np.floor_divide(a, np.where(zero, 1, b)))


def _power(a: Any, b: Any) -> Any:
    """Floats as IEEE `pow`; an integer to a negative power is the exact value truncated toward
    zero (1 for 1, +-1 for -1, else 0, 0 ** -n included)."""
    import numpy as np

    if a.dtype.kind not in "iu":
        return np.power(a, b)
    a, b = np.broadcast_arrays(a, b)
    negative = b < 0
    powered = np.power(a, np.where(negative, 0, b))
    odd = (b % 2) != 0
    truncated = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, truncated, powered).astype(a.dtype)


_BINARY_UFUNCS = {
    BinaryKind.ADD: "add",
    BinaryKind.SUB: "subtract",
    BinaryKind.MUL: "multiply",
    BinaryKind.MAX: "maximum",
    BinaryKind.MIN: "minimum",
    BinaryKind.CMP_EQ: "equal",
    BinaryKind.CMP_NE: "not_equal",
    BinaryKind.CMP_LT: "less",
    BinaryKind.CMP_LE: "less_equal",
    BinaryKind.CMP_GT: "greater",
    BinaryKind.CMP_GE: "greater_equal",
}


def _binary_kernel(kind: BinaryKind) -> Callable[[Any, Any], Any]:
    import numpy as np

    if kind is BinaryKind.DIV:
        return _divide
    if kind is BinaryKind.POW:
        return _power
    kernel: Callable[[Any, Any], Any] = getattr(np, _BINARY_UFUNCS[kind])
    return kernel


_EXPONENT_LIMIT = 64
"""Past this exponent, |base| >= 2 overflows every dtype: the exact power stops growing there
(keeping the exponent's parity), so huge exponents cost nothing."""


@register_op(category="math")
class Unary(Op):
    """An elementwise unary op; the transcendental kinds need a float tensor.

    Types: the result has the input's type. `exp`, `log`, `sqrt`, `rsqrt`, `tanh` and
    `sigmoid` need a float dtype; no kind takes `i1`.

    FLOPs: one per result element.

    ```mlir
    %e = tf.call tf.math.unary<kind = exp>(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=UnaryKind)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        if self.kind.needs_float and not _is_float(x.dtype):
            raise ValueError(f"{self.kind.value} needs a float tensor, got {x.dtype}")
        if x.dtype == "i1":
            raise ValueError(f"{self.kind.value} is not defined on i1")
        return x

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise; f16 / bf16 in f32, rounded once (`scalar.float_unary`)."""
        (x,) = tensor_args(arg_types)
        dtype, kind = x.dtype, self.kind.value

        def element(s: list[MValue]) -> MValue:
            if _is_float(dtype):
                return narrow(b, float_unary(b, kind, widen(b, s[0], dtype)), dtype)
            return int_unary(b, kind, s[0])

        return elementwise(b, values(args), [x], x, element)

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """`neg(neg(x))` is `x`; `abs`, `relu` of their own result are that result."""
        (x,) = args
        inner = defining_call(x)
        if inner is None or inner[0] != self:
            return None
        if self.kind is UnaryKind.NEG:
            return inner[1].args_[0]
        if self.kind in (UnaryKind.ABS, UnaryKind.RELU):
            return x
        return None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        import numpy as np

        (x,) = (unbounded(a) for a in arrays)
        if self.kind is UnaryKind.NEG:
            return same_exact(-x, value)
        if self.kind is UnaryKind.ABS:
            return same_exact(np.abs(x), value)
        return self.kind is UnaryKind.RELU

    def reference(self, *arrays: Any) -> Any:
        """f16 / bf16 compute in float32 (`widened`)."""
        import numpy as np

        x = widened(arrays[0])
        return np.asarray(_unary_kernel(self.kind, x)).astype(x.dtype, copy=False)


def _unary_kernel(kind: UnaryKind, x: Any) -> Any:
    import numpy as np

    if kind is UnaryKind.NEG:
        return np.negative(x)
    if kind is UnaryKind.EXP:
        return np.exp(x)
    if kind is UnaryKind.LOG:
        return np.log(x)
    if kind is UnaryKind.SQRT:
        return np.sqrt(x)
    if kind is UnaryKind.RSQRT:
        return 1 / np.sqrt(x)
    if kind is UnaryKind.TANH:
        return np.tanh(x)
    if kind is UnaryKind.ABS:
        return np.abs(x)
    if kind is UnaryKind.SIGMOID:
        return 1 / (1 + np.exp(-x))
    assert kind is UnaryKind.RELU
    return np.maximum(x, np.zeros((), x.dtype))


@register_op(category="math")
class Cast(DtypeOp):
    """Elementwise conversion to another dtype.

    Types: the result has the input's shape and the dtype `dtype` (any of the IR's dtypes).

    FLOPs: one per result element.

    ```mlir
    %h = tf.call tf.math.cast<dtype = bf16>(%a) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    dtype = ParamDef(kind="attribute", annotation=str)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        return TensorType(x.shape, self.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """Elementwise `scalar.convert` (saturating float to int, NaN 0; bf16 in integers)."""
        (x,) = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        return elementwise(
            b, values(args), [x], result, lambda s: convert(b, s[0], x.dtype, self.dtype)
        )

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A cast to the dtype the value already has is the value."""
        (x,) = args
        return x if result == from_attr(x.type) else None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """A cast into an integer type keeps every value (a float: finite, integral, in range)."""
        import numpy as np

        (source,) = arrays
        if source.dtype.kind == "f":
            lo, hi = int_range(self.dtype)
            wide = source.astype(np.float64)
            ok = np.isfinite(wide) & (wide == np.trunc(wide)) & (wide >= lo) & (wide < hi + 1.0)
            if not np.all(ok):
                return False
            exact = np.array([int(v) for v in wide.reshape(-1)], dtype=object)
            return same_exact(exact.reshape(wide.shape), value)
        return same_exact(unbounded(source.astype(np.int64)), value)

    def reference(self, *arrays: Any) -> Any:
        return cast_array(arrays[0], self.dtype)


BINARY_ALIASES = tuple(kind.value for kind in BinaryKind)
UNARY_ALIASES = tuple(kind.value for kind in UnaryKind)


def _binary_builder(kind: BinaryKind) -> Callable[[], Op]:
    def build() -> Op:
        return Binary(kind=kind)

    result = "i1" if kind.is_comparison else "f32"
    build.__name__ = f"_{kind.value}"
    build.__doc__ = (
        f"`tilefoundry.ops.{kind.value}(a, b)`, a Python name of the op.\n\n```mlir\n"
        f"%y = tf.call tf.math.binary<kind = {kind.value}>(%a, %b) : "
        f"(tensor<4xf32>, tensor<4xf32>) -> tensor<4x{result}>\n```"
    )
    return build


def _unary_builder(kind: UnaryKind) -> Callable[[], Op]:
    def build() -> Op:
        return Unary(kind=kind)

    build.__name__ = f"_{kind.value}"
    build.__doc__ = (
        f"`tilefoundry.ops.{kind.value}(a)`, a Python name of the op.\n\n```mlir\n"
        f"%y = tf.call tf.math.unary<kind = {kind.value}>(%a) : (tensor<4xf32>) -> tensor<4xf32>\n```"
    )
    return build


def _register_aliases() -> None:
    """One alias per kind; each builder fixes the kind, so it takes no kwargs."""
    for binary in BinaryKind:
        register_alias(
            dialect="tf", category="math", name=binary.value, params=[Binary.lhs, Binary.rhs]
        )(_binary_builder(binary))
    for unary in UnaryKind:
        register_alias(dialect="tf", category="math", name=unary.value, params=[Unary.input])(
            _unary_builder(unary)
        )


_register_aliases()
