"""Linear algebra: batched `MatMul` and `Transpose`.

```mlir
%y = tf.call tf.linalg.matmul(%a, %b) : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
%t = tf.call tf.linalg.transpose<perm = [1, 0]>(%b) : (tensor<8x16xf32>) -> tensor<16x8xf32>
```
"""

from __future__ import annotations

from tilefoundry.ir.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.patterns import Tensor
from tilefoundry.ops.shapes import broadcast_shapes, same_dtype
from tilefoundry.types import IRType, TensorType

__all__ = ["MatMul", "Transpose"]


@register_op(category="linalg", name="matmul")
class MatMul(Op):
    """`[..., M, K] x [..., K, N] -> [..., M, N]`, batch dims broadcast."""

    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        lhs, rhs = arg_types
        assert isinstance(lhs, TensorType) and isinstance(rhs, TensorType)
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


@register_op(category="linalg", name="transpose")
class Transpose(Op):
    """Permutes the dims: result dim `i` is input dim `perm[i]`."""

    input = ParamDef(kind="input", pattern=Tensor)
    perm = ParamDef(kind="attribute", annotation=tuple[int, ...])

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = arg_types
        assert isinstance(x, TensorType)
        if sorted(self.perm) != list(range(x.rank)):
            raise ValueError(f"perm {list(self.perm)} is not a permutation of the {x.rank} dims")
        return TensorType(tuple(x.shape[p] for p in self.perm), x.dtype)
