"""`cse`: xDSL's common subexpression elimination, on any anchor op.

Two pure ops with the same name, operands, properties and result types are one. A `tir.let`
has the effects of its body and a call of a function those of its callee's: two reads of a
buffer are one only when nothing may write between them; writes and allocs are never merged
(docs/ir.md, "Buffers").

```mlir
// before
%a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%b = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// after
%a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%y = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
    cse,
)

__all__ = ["Cse"]


class Cse(CommonSubexpressionElimination):
    """Eliminate common subexpressions in the anchor op (see the module docstring)."""

    name = "cse"
    anchors: ClassVar[tuple[str, ...] | None] = None

    def apply(self, ctx: Context, op: Operation) -> None:
        cse(op)
