"""The canonicalization patterns of the tf and tir ops (what `canonicalize` applies to them,
through their `Canonicalization` trait), and the constant folder they share with
`tf-fold-constants`.

- `tf.call` of a pure op on literal arguments becomes a `tf.constant` of the value the
  interpreter computes (`evaluate_op`: bf16 / f16 rounded to their type), unless that value is
  not one to bake in (`fold_exactness`: an inf or a NaN, integer overflow, an integer division by
  zero, a negative integer power, a cast into an integer type that changes a value, a call on an
  empty tensor) or is larger than `max_elements`;
- a `tf.call` becomes the simpler call its Op's `canonicalize` hook names (two `tf.call`s of
  `tf.linalg.transpose` in a row are one, with the composed permutation: `Transpose.canonicalize`);
- a `tir.let` whose body only yields a value of the enclosing body is that value.

The identities (`x * 1`, `cast` to the same dtype, `tuple_get_item(tuple(...))`, ...) are the
ops' `fold` hooks (`Op.fold`), which `canonicalize` and `tf-simplify` apply. A new op keeps the
binding and source span of the op it replaces. The folder's before/after is in
`tf_fold_constants`, the transposes' in `Transpose.canonicalize` (ops/linalg.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilefoundry.builtin.types import TensorType, from_attr
from tilefoundry.dialects.tf.dense import array_to_dense, dense_to_array, numpy_dtype
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, arg_expr, constant_value
from tilefoundry.dialects.tir import LetOp, YieldOp
from tilefoundry.ir.algebra.expr import dominates, is_defined_within, source_metadata
from tilefoundry.ir.algebra.op_registry import Op, typeinfer
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.transforms.fold_exactness import exact_result

__all__ = [
    "DEFAULT_MAX_ELEMENTS",
    "CanonicalizeCall",
    "FoldConstantCall",
    "ForwardLetValue",
    "canonicalization_patterns",
    "simplification_patterns",
]

DEFAULT_MAX_ELEMENTS = 1 << 16
"""The largest result (and argument), in elements, that canonicalization folds."""


def evaluate_exactly(call: CallOp, arrays: Sequence[Any]) -> Any | None:
    """The call's result on these literal arrays, exactly as the interpreter computes it, or
    None when it is not a defined value the folder may bake in (`fold_exactness`)."""
    import numpy as np

    from tilefoundry.interpreter.evaluate import ExecutionError, evaluate_op

    result_type = from_attr(call.results[0].type)
    assert isinstance(result_type, TensorType)
    if any(a.size == 0 for a in arrays):
        return None
    op = _op_of(call)
    if not isinstance(op, Op):
        return None
    try:
        value = np.asarray(evaluate_op(call, arrays))
        if value.shape != result_type.shape or value.dtype != numpy_dtype(result_type.dtype):
            return None
        return value if exact_result(op, arrays, value) else None
    except (ExecutionError, ArithmeticError, ValueError, TypeError):
        return None


@dataclass
class FoldConstantCall(RewritePattern):
    """A pure op call on literals becomes the literal it computes (see the module docstring)."""

    max_elements: int = DEFAULT_MAX_ELEMENTS

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        if not op.is_pure_value_call():
            return
        result_type = from_attr(op.results[0].type)
        if not isinstance(result_type, TensorType) or not result_type.is_static:
            return
        literals = [constant_value(v) for v in op.args_]
        if any(c is None for c in literals):
            return
        sizes = [math.prod(c.get_shape()) for c in literals if c is not None]
        if max([*sizes, math.prod(d for d in result_type.shape if isinstance(d, int))]) > (
            self.max_elements
        ):
            return
        value = evaluate_exactly(op, [dense_to_array(c) for c in literals if c is not None])
        if value is None:
            return
        folded = ConstantOp(array_to_dense(value, result_type.dtype), metadata=source_metadata(op))
        rewriter.replace(op, folded)


class CanonicalizeCall(RewritePattern):
    """A pure op call becomes the simpler call its Op's `canonicalize` hook names (each op's
    canonicalization rule is on its class: `Transpose.canonicalize` composes two transposes),
    when the new call's operands are visible at the call and its type is the call's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        if not op.is_pure_value_call():
            return
        target = _op_of(op)
        if not isinstance(target, Op):
            return
        result = from_attr(op.results[0].type)
        found = target.canonicalize(tuple(op.args_), result)
        if found is None:
            return
        new_op, operands = found
        if not all(v in op.operands or dominates(v, op) for v in operands):
            return
        try:
            same_type = typeinfer(new_op, [from_attr(v.type) for v in operands]) == result
        except VerifyError:
            same_type = False
        if not same_type:
            return
        simpler = CallOp(new_op, [arg_expr(v) for v in operands], metadata=source_metadata(op))
        rewriter.replace(op, simpler)


def _op_of(call: CallOp) -> object:
    return attr_to_op(call.callee) if isinstance(call.callee, OpAttr) else None


class ForwardLetValue(RewritePattern):
    """A `tir.let` whose body only yields a value defined outside it binds an alias: its uses
    use the value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LetOp, rewriter: PatternRewriter) -> None:
        terminator = op.body.block.first_op
        if not isinstance(terminator, YieldOp) or len(terminator.values) != 1:
            return
        value = terminator.values[0]
        if is_defined_within(value, op):
            return
        rewriter.replace(op, [], [value])


def simplification_patterns() -> Mapping[str, Sequence[RewritePattern]]:
    """The patterns that rewrite without computing literals (`tf-simplify`)."""
    return {"tf.call": (CanonicalizeCall(),), "tir.let": (ForwardLetValue(),)}


def canonicalization_patterns() -> Mapping[str, Sequence[RewritePattern]]:
    """Every op's canonicalization patterns, by op name (the `Canonicalization` trait's)."""
    patterns = dict(simplification_patterns())
    patterns["tf.call"] = (FoldConstantCall(), *patterns["tf.call"])
    return patterns
