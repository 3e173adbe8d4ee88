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
from xdsl.ir import Region
from xdsl.transforms.dead_code_elimination import region_dce

from tilefoundry.transforms.pass_base import RegionPass

__all__ = ["Dce"]


@dataclass(frozen=True)
class Dce(RegionPass):
    """Erase dead ops in every region of the anchor op (see the module docstring).

    Not xDSL's pass (its `region_dce` is what it runs): xDSL's `apply` works on `op.body`
    only, where MLIR's pass works on every region of the anchor op (a `hir.func`'s `variants`
    too)."""

    name = "dce"

    def run_on_region(self, ctx: Context, region: Region) -> None:
        region_dce(region)
