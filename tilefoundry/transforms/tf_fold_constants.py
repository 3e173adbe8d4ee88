"""`tf-fold-constants`: evaluate op calls whose arguments are all constants.

A value-form call of a pure registered op, whose arguments are all `tf.constant` and whose result
is a static tensor of at most `max-elements` elements, becomes a `tf.constant` computed with the
op's numpy reference. The new constant keeps the call's binding and source span. Unused
constants are left for `dce`.

```mlir
// before
%a = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
%s = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// after
%a = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
%s = tf.constant dense<[2.0, 4.0]> : tensor<2xf32>
```
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilefoundry.dialects.dense import array_to_dense
from tilefoundry.dialects.op_attr import OpAttr
from tilefoundry.dialects.tf import CallOp, ConstantOp
from tilefoundry.ir.expr import source_metadata
from tilefoundry.types import TensorType, from_attr

__all__ = ["TfFoldConstants"]


@dataclass
class FoldConstantCall(RewritePattern):
    max_elements: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.callee, OpAttr) or not op.is_pure_value_call():
            return
        constants = [v.owner for v in op.args_]
        if not all(isinstance(c, ConstantOp) for c in constants):
            return
        result_type = from_attr(op.results[0].type)
        if not isinstance(result_type, TensorType) or not result_type.is_static:
            return
        if math.prod(d for d in result_type.shape if isinstance(d, int)) > self.max_elements:
            return
        # The numpy reference is imported only once there is something to fold.
        from tilefoundry.interpreter.evaluate import ExecutionError, evaluate_op

        try:
            value = evaluate_op(op, [c.value for c in constants if isinstance(c, ConstantOp)])
        except ExecutionError:
            return
        folded = ConstantOp(array_to_dense(value, result_type.dtype), metadata=source_metadata(op))
        rewriter.replace(op, folded)


@dataclass(frozen=True)
class TfFoldConstants(ModulePass):
    """Fold op calls on constants (see the module docstring)."""

    name = "tf-fold-constants"

    max_elements: int = 1 << 16
    """Leave a call alone when its result has more elements than this."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldConstantCall(self.max_elements)).rewrite_module(op)
