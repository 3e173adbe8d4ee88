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
from typing import ClassVar

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.transforms.dead_code_elimination import DeadCodeElimination, region_dce

from tilefoundry.transforms.pass_base import ANY_OP, Anchors, TFPass

__all__ = ["Dce"]


@dataclass(frozen=True)
class Dce(TFPass, DeadCodeElimination):
    """Erase dead ops in every region of the anchor op (see the module docstring).

    A wrapper, not a bare anchor: xDSL's `apply` works on `op.body`, the region of a
    `builtin.module`; this one works on every region of whatever anchor op it is given."""

    name = "dce"
    anchors: ClassVar[Anchors] = ANY_OP

    def apply(self, ctx: Context, op: Operation) -> None:
        for region in op.regions:
            region_dce(region)
