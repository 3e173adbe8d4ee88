"""`dce`: xDSL's dead code elimination, on every region of any anchor op.

An op whose results nothing uses and that has no effect beyond them is erased (a pure
`tf.call`, a `tf.constant`, a `tir.let` of a pure expression or of a load, a call of a function
whose body has no effect); a write of a buffer and its statement stay, as does anything whose
effects are unknown (docs/ir.md, "Buffers").

```mlir
// before
%unused = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
hir.return %x : tensor<4xf32>
// after
hir.return %x : tensor<4xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.transforms.dead_code_elimination import DeadCodeElimination, region_dce

__all__ = ["Dce"]


@dataclass(frozen=True)
class Dce(DeadCodeElimination):
    """Erase dead ops in every region of the anchor op (see the module docstring).

    Not xDSL's class itself: its `apply` works on `op.body` only, where MLIR's pass works on
    every region of the anchor op (a `hir.func`'s `variants` too). It runs on any anchor op
    (`pass_base.FOREIGN_ANCHORS`)."""

    name = "dce"

    def apply(self, ctx: Context, op: Operation) -> None:
        for region in op.regions:
            region_dce(region)
