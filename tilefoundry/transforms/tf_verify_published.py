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
from typing import ClassVar

from xdsl.context import Context
from xdsl.ir import Operation

from tilefoundry.diagnostics import VerifyError
from tilefoundry.dialects.tf.selection import check_published
from tilefoundry.transforms.call_graph import roots_of
from tilefoundry.transforms.pass_base import Anchors, TFPass
from tilefoundry.transforms.pass_manager import PassError

__all__ = ["TfVerifyPublished"]


@dataclass(frozen=True)
class TfVerifyPublished(TFPass):
    """Check that each root declares its target and topology levels (see the module docstring)."""

    name = "tf-verify-published"
    anchors: ClassVar[Anchors] = ("builtin.module", "tf.module")

    def apply(self, ctx: Context, op: Operation) -> None:
        for root in roots_of(op):
            try:
                check_published(root)
            except VerifyError as err:
                raise PassError(self.name, str(err), root) from None
