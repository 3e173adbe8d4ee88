"""`tf-strip-debuginfo`: drop all metadata (every location becomes `loc(unknown)`).

Binding names go with it: results keep no SSA name hint (a `tir.let` Var included; parameter
names are semantic and stay). Like MLIR's `strip-debuginfo`.

```mlir
// before
%h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("h"("m.py":3:4))
// after
%0 = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(unknown)
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation

from tilefoundry.transforms.pass_base import Anchors, TFPass

__all__ = ["TfStripDebuginfo"]


@dataclass(frozen=True)
class TfStripDebuginfo(TFPass):
    """Set every location to unknown and drop the binding names (see the module docstring)."""

    name = "tf-strip-debuginfo"
    anchors: ClassVar[Anchors] = None

    def apply(self, ctx: Context, op: Operation) -> None:
        unknown = UnknownLoc()
        for inner in op.walk():
            inner.location = unknown
            for result in inner.results:
                result.name_hint = None
            for region in inner.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.location = unknown
