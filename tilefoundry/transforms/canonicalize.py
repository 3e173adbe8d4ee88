"""`canonicalize`: xDSL's canonicalizer (folding, every op's canonicalization patterns, dead
code removal), on any anchor op.

The tf and tir ops take part through their traits: `tf.call` folds through its Op's `fold`
hook (`x * 1` is `x`) and its patterns fold literal calls into `tf.constant`s (up to
`canonicalization.DEFAULT_MAX_ELEMENTS` elements; `tf-fold-constants` is the bounded, explicit
folder), `tir.let` forwards an alias. See `tilefoundry.transforms.canonicalization`.

```mlir
// before
%one = tf.constant dense<1.0> : tensor<4xf32>
%y = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
hir.return %y : tensor<4xf32>
// after
hir.return %x : tensor<4xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.ir import Region
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from tilefoundry.transforms.pass_base import RegionPass

__all__ = ["Canonicalize"]


@dataclass(frozen=True)
class Canonicalize(RegionPass):
    """Canonicalize every region of the anchor op (see the module docstring).

    Not xDSL's pass: its `apply` works on `op.body` only, where MLIR's pass works on every
    region of the anchor op (a `hir.func`'s `variants` too)."""

    name = "canonicalize"

    def run_on_region(self, ctx: Context, region: Region) -> None:
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_region(region)
