"""`tf-simplify`: local algebraic simplifications of op calls.

- `tf.tuple.get_item<index = i>` of a `tf.tuple` is the tuple's element `i`;
- `tf.math.cast` to the dtype the value already has is the value;
- `tf.linalg.transpose` with the identity permutation is the value;
- two `tf.linalg.transpose` in a row are one, with the composed permutation.

Uses of the removed call see the forwarded value; a new call keeps the replaced call's binding
and source span. Ops left unused are erased.

```mlir
// before
%t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
%x = tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
// after: uses of %x use %b
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilefoundry.dialects.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf import CallOp, TupleOp
from tilefoundry.ir.expr import source_metadata
from tilefoundry.ops.linalg import Transpose
from tilefoundry.ops.math import Cast
from tilefoundry.ops.structure import TupleGetItem

__all__ = ["TfSimplify"]


def _op_of(call: CallOp) -> object:
    return attr_to_op(call.callee) if isinstance(call.callee, OpAttr) else None


class ForwardTupleElement(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        target = _op_of(op)
        if not isinstance(target, TupleGetItem):
            return
        source = op.args_[0].owner
        if isinstance(source, TupleOp):
            rewriter.replace(op, [], [source.elements_[target.index]])


class DropNoOpCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        if isinstance(_op_of(op), Cast) and op.args_[0].type == op.results[0].type:
            rewriter.replace(op, [], [op.args_[0]])


class SimplifyTranspose(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        target = _op_of(op)
        if not isinstance(target, Transpose):
            return
        if list(target.perm) == list(range(len(target.perm))):
            rewriter.replace(op, [], [op.args_[0]])
            return
        inner = op.args_[0].owner
        if isinstance(inner, CallOp) and isinstance(first := _op_of(inner), Transpose):
            perm = tuple(first.perm[p] for p in target.perm)
            composed = CallOp(Transpose(perm=perm), inner.args, metadata=source_metadata(op))
            rewriter.replace(op, composed)


@dataclass(frozen=True)
class TfSimplify(ModulePass):
    """Local simplifications of op calls (see the module docstring)."""

    name = "tf-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [ForwardTupleElement(), DropNoOpCast(), SimplifyTranspose()]
            )
        ).rewrite_module(op)
