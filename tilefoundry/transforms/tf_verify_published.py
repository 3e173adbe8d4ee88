"""`tf-verify-published`: a root meant for independent analysis declares its execution domain.

Spec §1: "A Module published as an independently analysable root MUST declare both its target
and the topology levels it is aimed at". Each root must declare a target (a device name is
enough) and its topology levels (`topologies []` declares that it has none), and its device
must be able to have those levels. A missing declaration is one line naming it; the IR is not
changed.

```mlir
// refused: no topologies
tf.module @m target #tf.target<"h100"> { }
// accepted
tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] { }
```
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import check_published
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.transforms.pass_base import RootPass
from tilefoundry.transforms.pass_manager import PassError

__all__ = ["TfVerifyPublished"]


@dataclass(frozen=True)
class TfVerifyPublished(RootPass):
    """Check that each root declares its target and topology levels (see the module docstring)."""

    name = "tf-verify-published"

    def run_on_root(self, root: ModuleOp) -> None:
        try:
            check_published(root)
        except VerifyError as err:
            raise PassError(self.name, str(err), root) from None
