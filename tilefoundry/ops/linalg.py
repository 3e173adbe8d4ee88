"""Linear algebra: batched `MatMul` and `Transpose`.

```mlir
%y = tf.call tf.linalg.matmul(%a, %b) : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
%t = tf.call tf.linalg.transpose<perm = [1, 0]>(%b) : (tensor<8x16xf32>) -> tensor<16x8xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.ir import SSAValue

from tilefoundry.builtin.types import IRType, TensorType
from tilefoundry.dialects.tf.numerics import contiguous, widened
from tilefoundry.dialects.tf.ops import defining_call
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, values
from tilefoundry.mlir_builder.composite import matmul
from tilefoundry.mlir_builder.structured import transpose
from tilefoundry.ops.folding import elements, same_exact, unbounded
from tilefoundry.ops.shapes import broadcast_shapes, same_dtype, tensor_args

__all__ = ["MatMul", "Transpose"]


@register_op(category="linalg", name="matmul")
class MatMul(Op):
    """`[..., M, K] x [..., K, N] -> [..., M, N]`, batch dims broadcast.

    Types: both operands have rank >= 2 and one dtype, which the result has; `lhs`'s last dim
    equals `rhs`'s second to last (K); the batch dims (all but the last two) broadcast as
    numpy's do; the result is `[*batch, M, N]`.

    FLOPs: `2 * M * K * N` per batch element: a multiply and an add per result element and
    contraction step (on the matrix units).

    ```mlir
    %y = tf.call tf.linalg.matmul(%a, %b) : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```
    """

    matrix_unit: ClassVar[bool] = True

    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        lhs, rhs = tensor_args(arg_types)
        if lhs.rank < 2 or rhs.rank < 2:
            raise ValueError(
                f"matmul needs rank >= 2 operands, got ranks {lhs.rank} and {rhs.rank}"
            )
        dtype = same_dtype(lhs, rhs)
        if lhs.shape[-1] != rhs.shape[-2]:
            raise ValueError(
                f"contraction dims differ: lhs {lhs} has K = {lhs.shape[-1]}, "
                f"rhs {rhs} has K = {rhs.shape[-2]}"
            )
        batch = broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2])
        return TensorType((*batch, lhs.shape[-2], rhs.shape[-1]), dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A `linalg.generic` contraction, k innermost and in order (`composite.matmul`)."""
        lhs, rhs = tensor_args(arg_types)
        assert isinstance(result, TensorType)
        x, y = values(args)
        return matmul(b, x, y, lhs, rhs, result)

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        """A multiply and an add per output element and contraction step: `2 * M * K * N`
        (times the batch)."""
        lhs = arg_types[0]
        assert isinstance(lhs, TensorType)
        k = lhs.shape[-1]
        return 2 * elements(result) * (k if isinstance(k, int) else 0)

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """Exact when even the sum of the magnitudes stays within half the range (judged in
        float64, whose relative error is far below that margin), else on Python integers; an
        i1 product (`or` of `and`s) is exact."""
        import numpy as np

        if value.dtype.kind == "b":
            return True
        lhs, rhs = arrays
        bound = np.matmul(np.abs(lhs.astype(np.float64)), np.abs(rhs.astype(np.float64)))
        if float(bound.max()) < 2.0 ** (value.dtype.itemsize * 8 - 2):
            return True
        if value.size * lhs.shape[-1] > _EXACT_MATMUL_STEPS:
            return False
        return same_exact(np.matmul(unbounded(lhs), unbounded(rhs)), value)

    def reference(self, *arrays: Any) -> Any:
        """Accumulates in the dtype's compute type (f16 / bf16 in float32), rounded once; the
        operands contiguous, so the product does not depend on their layout."""
        import numpy as np

        lhs, rhs = arrays
        return np.matmul(np.ascontiguousarray(widened(lhs)), np.ascontiguousarray(widened(rhs)))


_EXACT_MATMUL_STEPS = 1 << 20
"""The most multiply-adds the exact (Python integer) check of a matmul makes; past it, a matmul
whose bound does not settle the question is not folded."""


@register_op(category="linalg", name="transpose")
class Transpose(Op):
    """Permutes the dims: result dim `i` is input dim `perm[i]`.

    Types: `perm` is a permutation of the input's dims; the result has the permuted shape and
    the input's dtype.

    FLOPs: none (it moves data).

    ```mlir
    %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%b) : (tensor<8x16xf32>) -> tensor<16x8xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    perm = ParamDef(kind="attribute", annotation=tuple[int, ...])

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        if sorted(self.perm) != list(range(x.rank)):
            raise ValueError(f"perm {list(self.perm)} is not a permutation of the {x.rank} dims")
        return TensorType(tuple(x.shape[p] for p in self.perm), x.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A `linalg.generic` copy through the permuted map."""
        (x,) = tensor_args(arg_types)
        return transpose(b, values(args)[0], x, self.perm)

    @property
    def is_identity(self) -> bool:
        return list(self.perm) == list(range(len(self.perm)))

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """The identity permutation is the value; two transposes that undo each other are the
        first one's input."""
        if self.is_identity:
            return args[0]
        inner = defining_call(args[0])
        if inner is not None and isinstance(first := inner[0], Transpose):
            if [first.perm[p] for p in self.perm] == list(range(len(self.perm))):
                return inner[1].args_[0]
        return None

    def canonicalize(
        self, args: Sequence[SSAValue], result: IRType
    ) -> tuple[Op, Sequence[SSAValue]] | None:
        """Two transposes in a row are one, with the composed permutation:
        `transpose(transpose(x, p), q)` is `transpose(x, [p[i] for i in q])` (one that undoes
        the other folds to `x`, in `fold`).

        ```mlir
        // before
        %t = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%a) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
        %u = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%t) : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
        // after
        %u = tf.call tf.linalg.transpose<perm = [2, 0, 1]>(%a) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
        ```
        """
        inner = defining_call(args[0])
        if inner is None or not isinstance(first := inner[0], Transpose):
            return None  # an op of no operand, tensor.full, included
        return Transpose(perm=tuple(first.perm[p] for p in self.perm)), (inner[1].args_[0],)

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """It moves values: nothing to overflow."""
        return True

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        return contiguous(np.transpose(arrays[0], self.perm))
