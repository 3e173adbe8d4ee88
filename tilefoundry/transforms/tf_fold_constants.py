"""`tf-fold-constants`: the explicit, bounded constant folder.

A value-form call of a pure registered op whose arguments are all literals (`tf.constant`s,
or Vars bound to them) becomes a `tf.constant` of exactly the bits the interpreter computes
(`evaluate_op`: bf16 / f16 rounded to their type), unless the result or an argument has more
than `max-elements` elements (at most 1048576: a fold computes its result in memory), or the
value is not one the IR promises (`fold_exactness`: an inf or a NaN, integer overflow judged
exactly, an integer division by zero, a negative integer power, a cast into an integer type
that changes a value, a call on an empty tensor). The new constant keeps the call's binding and
source span. Unused constants are left for `dce`. `canonicalize` folds the same way, up to
a fixed bound.

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

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.ir import Region
from xdsl.pattern_rewriter import PatternRewriteWalker

from tilefoundry.transforms.canonicalization import DEFAULT_MAX_ELEMENTS, FoldConstantCall
from tilefoundry.transforms.pass_base import RegionPass

__all__ = ["MAX_FOLD_ELEMENTS", "TfFoldConstants"]

MAX_FOLD_ELEMENTS = 1 << 20
"""The largest `max-elements` (1048576): a folded result and its arguments are computed and
held in memory, element by element, so the bound is what one fold may allocate."""


@dataclass(frozen=True)
class TfFoldConstants(RegionPass):
    """Fold op calls on literals, up to a size (see the module docstring)."""

    name = "tf-fold-constants"

    max_elements: int = field(
        default=DEFAULT_MAX_ELEMENTS,
        metadata={"help": "leave a call alone when its result or an argument is larger"},
    )

    def __post_init__(self) -> None:
        if self.max_elements < 0:
            raise ValueError(f"max-elements must be >= 0, got {self.max_elements}")
        if self.max_elements > MAX_FOLD_ELEMENTS:
            raise ValueError(
                f"max-elements must be at most {MAX_FOLD_ELEMENTS} (a fold computes its result "
                f"in memory), got {self.max_elements}"
            )

    def run_on_region(self, ctx: Context, region: Region) -> None:
        PatternRewriteWalker(FoldConstantCall(self.max_elements)).rewrite_region(region)
