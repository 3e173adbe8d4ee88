"""`costs_kept_fresh`: no pass leaves a `tf.cost` that no longer describes its function.

A `tf.cost` (see `tf-analyze`) describes the IR it was measured on: a function's own ops, its
callees (its cost includes theirs) and the target its module resolves. So the pass manager runs
every pass inside `costs_kept_fresh(anchor)`: when the module tree around the anchor (each root,
for a pass on the input) holds a `tf.cost` before the pass, it takes a structural fingerprint
of what the pass can change — the anchor, isolated from above, or each root — (each op's name,
properties, attributes other than `tf.cost`, operands, result and block argument types, in
order, by identity) before and after the pass; when it changed, or the pass put a new root in
the input, every `tf.cost` of that tree is dropped. A pass that changes nothing (or only
records costs, as `tf-analyze` does) keeps them; without a `tf.cost` the check reads only the
module bodies (no function body). A pass that fails changes nothing and is not looked at.

```mlir
// tf-opt -p 'tf-analyze,canonicalize': canonicalize removed `x * 1`, so the cost goes
hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  hir.return %x : tensor<4xf32>
}
```
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.ir import Operation

from tilefoundry.dialects.tf import ModuleOp
from tilefoundry.transforms.cost import COST_ATTR

__all__ = ["costs_kept_fresh", "drop_costs"]


def _scopes(anchor: Operation) -> list[tuple[Operation, Operation]]:
    """What a pass on `anchor` can change, each with the tree whose costs that change makes
    stale: each root when it runs on the input itself; else the anchor (isolated from above,
    so a pass changes nothing outside it) and the outermost `tf.module` around it, whose
    callers may include it."""
    if isinstance(anchor, BuiltinModuleOp):
        return [(root, root) for root in anchor.body.block.ops]
    outermost: Operation = anchor
    op: Operation | None = anchor
    while op is not None:
        if isinstance(op, ModuleOp):
            outermost = op
        op = op.parent_op()
    return [(anchor, outermost)]


def _has_cost(tree: Operation) -> bool:
    """Whether a function (or a module) of the tree holds a `tf.cost`: module bodies only,
    where `tf-analyze` records them."""
    pending = [tree]
    while pending:
        op = pending.pop()
        if COST_ATTR in op.attributes:
            return True
        if isinstance(op, ModuleOp):
            pending.extend(op.body.block.ops)
    return False


def _fingerprint(tree: Operation) -> list[tuple[object, ...]]:
    """Each op of the tree in order, with what a pass can change on it (the ops themselves
    are held, so an identity is never reused while the fingerprint lives)."""
    return [
        (
            op,
            op.name,
            tuple(sorted(op.properties.items())),
            tuple(sorted((k, v) for k, v in op.attributes.items() if k != COST_ATTR)),
            tuple(id(v) for v in op.operands),
            tuple(op.result_types),
            tuple(tuple(b.arg_types) for r in op.regions for b in r.blocks),
        )
        for op in tree.walk()
    ]


def drop_costs(tree: Operation) -> None:
    """Remove every `tf.cost` in the tree."""
    for op in tree.walk():
        if COST_ATTR in op.attributes:
            del op.attributes[COST_ATTR]


@contextmanager
def costs_kept_fresh(anchor: Operation) -> Iterator[None]:
    """Run a pass on `anchor` inside this: a tree it changed loses its `tf.cost`s (see the
    module docstring)."""
    scopes = _scopes(anchor)
    if not any(_has_cost(tree) for _, tree in scopes):
        yield
        return
    before = {scope: _fingerprint(scope) for scope, _ in scopes}
    yield
    for scope, tree in _scopes(anchor):
        fingerprint = before.get(scope)
        if fingerprint is None or _fingerprint(scope) != fingerprint:
            drop_costs(tree)
