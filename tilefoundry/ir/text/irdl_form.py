"""What the IRDL form (see `irdl_printer`) adds to the generic form, and how reading drops it.

MLIR 19 gives an op defined in IRDL no traits, a fixed number of regions, and one binding per
constraint variable:
- no op of ours is a terminator upstream (`tf.yield`, `hir.return`, ...), and none lets its
  block go without one (`tf.module`), so every block of a tf, hir or tir op ends in an
  upstream terminator, `llvm.unreachable` (as in MLIR's own IRDL tests);
- an optional region that is absent (`hir.func` without variants) is written as an empty
  region, so the op always has all its regions;
- a variadic operand group binds one type, so a list whose values may differ in type (the
  arguments of `tf.call`, `tf.tuple`, `tir.dispatch`) is defined as `RUNS` variadic groups and
  written with `operand_segment_sizes`: how many operands of each run of one type.

```mlir
"hir.func"() ({
^bb0(%x: tensor<4xf32>):
  "hir.return"(%x) : (tensor<4xf32>) -> ()
  "llvm.unreachable"() : () -> ()
}, {
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"], sym_name = "f"} : () -> ()
"tf.call"(%x, %y, %w) {callee = @g, operand_segment_sizes = array<i32: 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

import functools
import itertools

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    RangeOf,
    SingleOf,
    VarConstraint,
    VariadicDef,
)

from tilefoundry.support.irdl_syntax import IRDL_DIALECTS

__all__ = [
    "BLOCK_END",
    "RUNS",
    "SEGMENT_SIZES",
    "IRDLFormError",
    "absent_regions",
    "in_irdl_dialect",
    "read_irdl_form",
    "segment_sizes",
    "segmented_group",
]

BLOCK_END = "llvm.unreachable"
"""The upstream terminator that ends every block of a tf, hir or tir op in the IRDL form."""


RUNS = 16
"""How many runs of one type a heterogeneous operand list may have in the IRDL form."""

SEGMENT_SIZES = "operand_segment_sizes"
"""The attribute by which upstream MLIR splits the operands of an op into its groups."""


class IRDLFormError(Exception):
    """An op the IRDL form cannot write (more than `RUNS` runs of operand types)."""


def in_irdl_dialect(op: Operation | None) -> bool:
    """Whether an op belongs to a dialect that `dialects/*.irdl.mlir` defines."""
    return op is not None and op.name.split(".", 1)[0] in IRDL_DIALECTS


@functools.cache
def _optional_tail(op_class: type[Operation]) -> int:
    """How many regions at the end of an op's definition are optional."""
    if not issubclass(op_class, IRDLOperation):
        return 0
    count = 0
    for _, region in reversed(op_class.get_irdl_definition().regions):
        if not isinstance(region, OptionalDef):
            break
        count += 1
    return count


def absent_regions(op: Operation) -> int:
    """How many optional regions at the end of an op are absent (written as empty ones)."""
    if not in_irdl_dialect(op) or not isinstance(op, IRDLOperation):
        return 0
    return max(0, len(op.get_irdl_definition().regions) - len(op.regions))


@functools.cache
def segmented_group(op_class: type[Operation]) -> int | None:
    """The index of the operand group that the IRDL form writes as `RUNS` groups: a variadic
    one whose values may differ in type (one not bound to a single type by a `VarConstraint`).
    The op's other operand groups are single operands."""
    if not issubclass(op_class, IRDLOperation):
        return None
    operands = op_class.get_irdl_definition().operands
    found = [
        index
        for index, (_, definition) in enumerate(operands)
        if isinstance(definition, VariadicDef)
        and not (
            isinstance(definition.constr, RangeOf)
            and isinstance(definition.constr.constr, VarConstraint)
        )
    ]
    if not found:
        return None
    others = [d for i, (_, d) in enumerate(operands) if i != found[0]]
    if len(found) > 1 or not all(isinstance(d.constr, SingleOf) for d in others):
        raise IRDLFormError(
            f"'{op_class.name}': the IRDL form splits one variadic operand group, beside "
            "single operands only"
        )
    return found[0]


def segment_sizes(op: Operation) -> DenseArrayBase | None:
    """The `operand_segment_sizes` of an op in the IRDL form (None: it has none): one per
    single operand, then the lengths of the runs of one type of its segmented group, padded
    with zeros to `RUNS`."""
    index = segmented_group(type(op)) if in_irdl_dialect(op) else None
    if index is None or not isinstance(op, IRDLOperation):
        return None
    after = len(op.get_irdl_definition().operands) - index - 1
    group = op.operands[index : len(op.operands) - after]
    runs = [len(list(run)) for _, run in itertools.groupby(v.type for v in group)]
    if len(runs) > RUNS:
        raise IRDLFormError(
            f"'{op.name}' has {len(runs)} runs of operand types; the IRDL form writes at most "
            f"{RUNS} (operands of one type next to each other make one run)"
        )
    sizes = [1] * index + runs + [0] * (RUNS - len(runs)) + [1] * after
    return DenseArrayBase.from_list(i32, sizes)


def read_irdl_form(root: Operation) -> None:
    """Undo what the IRDL form adds: the `llvm.unreachable` that ends a block of a tf, hir or
    tir op, an empty region in the place of an absent optional one, `operand_segment_sizes`."""
    for op in root.walk():
        if not in_irdl_dialect(op):
            continue
        if SEGMENT_SIZES in op.attributes and segmented_group(type(op)) is not None:
            del op.attributes[SEGMENT_SIZES]
        for region in op.regions:
            for block in region.blocks:
                last = block.last_op
                if (
                    last is not None
                    and last.name == BLOCK_END
                    and not (last.operands or last.results or last.regions)
                ):
                    block.erase_op(last)
        optional = _optional_tail(type(op))
        defined = len(op.get_irdl_definition().regions) if isinstance(op, IRDLOperation) else 0
        while optional and len(op.regions) == defined and not op.regions[-1].blocks:
            op.detach_region(op.regions[-1])
            optional -= 1
            defined -= 1
