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

from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

__all__ = ["Cse"]

Cse = CommonSubexpressionElimination
"""xDSL's pass itself: its `cse(op)` already works on any anchor op (`FOREIGN_ANCHORS`)."""
