"""`tf-simplify`: canonicalization without computing literals.

Applies the ops' `fold` hooks and the canonicalization patterns that do not evaluate ops:

- `x + 0`, `x - 0`, `x * 1`, `x / 1`, `x ** 1`, `max(x, x)`, `min(x, x)` are `x` (for floats the
  additive identity is `-0.0`);
- `neg(neg(x))` is `x`; `abs(abs(x))`, `relu(relu(x))` are `abs(x)`, `relu(x)`;
- `tf.tuple.get_item<index = i>` of a `tf.tuple` is the tuple's element `i`;
- `tf.math.cast` to the dtype the value already has is the value;
- `tf.linalg.transpose` with the identity permutation is the value, and two in a row are one
  (or none, when they undo each other);
- a `tir.let` that only binds a value of its enclosing body is that value.

Uses of a removed call see the forwarded value; a new call keeps the replaced call's binding
and source span. Ops left unused are erased. `canonicalize` does all this and folds literals.

```mlir
// before
%t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
%x = tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
%y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// after
%y = tf.call tf.math.unary<kind = exp>(%b) : (tensor<4xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import region_dce

from tilefoundry.transforms.canonicalization import simplification_patterns
from tilefoundry.transforms.pass_base import RegionPass

__all__ = ["TfSimplify"]


class _ByOpName(RewritePattern):
    """Applies the simplification patterns of the op's name."""

    def __init__(self) -> None:
        self.patterns = {name: list(p) for name, p in simplification_patterns().items()}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        patterns = self.patterns.get(op.name)
        if patterns:
            GreedyRewritePatternApplier(patterns).match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class TfSimplify(RegionPass):
    """Fold identities and forward values, without computing literals."""

    name = "tf-simplify"

    def run_on_region(self, ctx: Context, region: Region) -> None:
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier([_ByOpName()], ctx=ctx, folding_enabled=True),
            post_walk_func=region_dce,
        )
        walker.rewrite_region(region)
