"""`tf-lower`, `tf-lower{function=layer0.mlp}`: HIR → TIR, the spec's `tilefoundry.lower`.

Each root becomes what `tilefoundry.transforms.lowering.lower_module` makes of it: only the functions its
entry reaches (with `function=`, the function a path names, as `tf-select` takes it: the root is
then that function's module re-rooted at it), every `hir.func` a `tir.prim_func` of the same
name and signature whose statements anchor its expressions in order, and a function with
variants a `tir.dispatch` over prim functions made from them (`f$v0`, ..., `f$base`). A module
without an entry, and a variant whose range names a DimVar no parameter carries or leaves its
envelope, are refused in one line (at the variant); nothing is changed then. After it, every
pass sees TIR only.

```mlir
// before
tf.module @m target #tf.target<"h100"> entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
}
// after
tf.module @m target #tf.target<"h100"> entry @main {
  tir.prim_func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return %y : tensor<4xf32>
  }
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.ir import Operation

from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.support.diagnostics import PassError
from tilefoundry.transforms.lowering import LoweringError, lower_module
from tilefoundry.transforms.pass_base import Anchors, RootPass

__all__ = ["TfLower"]


@dataclass(frozen=True)
class TfLower(RootPass):
    """Lower each root to TIR (see the module docstring)."""

    name = "tf-lower"
    anchors: ClassVar[Anchors] = ("builtin.module",)

    function: str = field(
        default="",
        metadata={
            "help": "lower from the function this path names (layer0.mlp), not from the entry"
        },
    )

    def check_roots(self, anchor: Operation, roots: Sequence[ModuleOp]) -> None:
        if self.function and len(roots) != 1:
            raise PassError(
                self.name,
                f"function= names a path in one root module, but the input holds {len(roots)}",
            )

    def run_on_root(self, root: ModuleOp) -> Operation:
        try:  # every root is lowered before any is replaced (`RootPass`)
            return lower_module(root, self.function or None)
        except LoweringError as err:
            raise PassError(self.name, err.message, err.op) from None
