"""`tf-select{path=a.b.f}`: the node a path names, published as a root.

The output is what `tilefoundry.select(module, path)` answers (both resolve it on the IR,
`tilefoundry.dialects.tf.selection`), as a root that declares the
target and topology hierarchy it resolved through its owners: a path to a child module gives a
copy of that child; a path whose last segment names a function gives a copy of the module that
holds it, re-entried at that function. An empty path is the root itself. Empty segments and
missing names are refused in one line naming what is available, as is a root that resolves no
target.

```mlir
// before: tf-select{path=layer0.mlp}
tf.module @decoder target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @step {
  hir.func @step(...) -> ... { ... }
  tf.module @layer0 name "MLP" {
    hir.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> { ... }
  }
}
// after
tf.module @layer0 name "MLP" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @mlp {
  hir.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> { ... }
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.ir import Operation

from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import published
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.transforms.pass_base import Anchors, RootPass
from tilefoundry.transforms.pass_manager import PassError

__all__ = ["TfSelect"]


@dataclass(frozen=True)
class TfSelect(RootPass):
    """Replace the root with the node a path names, published (see the module docstring)."""

    name = "tf-select"
    anchors: ClassVar[Anchors] = ("builtin.module",)

    path: str = field(
        default="",
        metadata={"help": "dotted path from the root: child modules, then maybe a function"},
    )

    def check_roots(self, anchor: Operation, roots: Sequence[ModuleOp]) -> None:
        if len(roots) != 1:
            raise PassError(self.name, f"the input holds {len(roots)} root modules, not one")

    def run_on_root(self, root: ModuleOp) -> Operation:
        try:
            return published(root, self.path)
        except (KeyError, ValueError, VerifyError) as err:
            message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
            raise PassError(self.name, str(message), root) from None
