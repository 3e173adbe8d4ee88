"""`costs_kept_fresh`: no pass leaves a `tf.cost` that no longer describes its function.

A `tf.cost` (see `tf-analyze`) describes the IR it was measured on: a function's own ops, its
callees (its cost includes theirs) and the target its module resolves. So every pass runs with
the `CostFreshness` instrumentation (`instrumentation.py`), which watches it (`CostWatch`;
`costs_kept_fresh(anchor)` does the same around any code). When the module tree around the
anchor holds a `tf.cost` (each root, for a pass on the input), it fingerprints what the pass can change — the
anchor, isolated from above, or each root — before and after the pass: each function's ops in
order, by identity, with their name, properties, attributes other than `tf.cost`, operands,
result and block argument types; and each module's own data and the ops of its body. Then:

- a function that changed loses its `tf.cost`, and so does every function of the tree that
  reaches it through calls or dispatches (a caller's cost includes its callees');
- when a module itself changed (its target, its topologies, a function or a child added or
  removed), or the pass put a new root in the input, every `tf.cost` of the tree goes.

A pass that changes nothing (or only records costs, as `tf-analyze` does) keeps them; without
a `tf.cost` the check reads only the module bodies (no function body). A pass that fails
changes nothing and is not looked at.

```mlir
// tf-opt -p 'tf-analyze,canonicalize': canonicalize removed `x * 1`, so @f's cost goes
hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  hir.return %x : tensor<4xf32>
}
```
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.ir import Operation

from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.transforms.call_graph import callees, functions_of
from tilefoundry.transforms.cost import COST_ATTR

__all__ = ["CostWatch", "CostsSeen", "costs_kept_fresh", "drop_costs"]


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


class CostsSeen:
    """Which module trees hold a `tf.cost`, known for one pipeline run, so that a pass nested
    on each of N children does not scan the whole tree N times. Conservative, never wrong: a
    tree seen without a cost is looked at again only in the anchor a pass ran on (a pass
    changes nothing outside its anchor, which is isolated from above); a tree seen with one
    stays so (a dropped cost only makes the next check read what it would have read); a pass
    on the input itself forgets everything (it may add or replace roots)."""

    def __init__(self) -> None:
        self._held: dict[Operation, bool] = {}

    def holds(self, tree: Operation) -> bool:
        held = self._held.get(tree)
        if held is None:
            held = self._held[tree] = _has_cost(tree)
        return held

    def ran_on(self, anchor: Operation, tree: Operation) -> None:
        """A pass ran on `anchor`, inside `tree`: it may have recorded a cost there."""
        if isinstance(anchor, BuiltinModuleOp):
            self._held.clear()
        elif self._held.get(tree) is False and _has_cost(anchor):
            self._held[tree] = True


def _fingerprint_op(op: Operation) -> tuple[object, ...]:
    """What a pass can change on one op (the op itself is held, so an identity is never
    reused while the fingerprint lives)."""
    return (
        op,
        op.name,
        tuple(op.properties.items()),
        tuple(item for item in op.attributes.items() if item[0] != COST_ATTR),
        tuple(id(v) for v in op.operands),
        tuple(op.result_types),
        tuple(tuple(b.arg_types) for r in op.regions for b in r.blocks),
    )


def _fingerprint(tree: Operation) -> list[tuple[object, ...]]:
    """Each op of the tree, in order (`_fingerprint_op`)."""
    return [_fingerprint_op(op) for op in tree.walk()]


def _parts(scope: Operation) -> tuple[list[tuple[object, ...]], dict[Operation, object]]:
    """The scope's structure outside its functions (each module's own data and the ops of its
    body, by identity; any other op of a module body in full), and each function's
    fingerprint."""
    if isinstance(scope, FunctionLike):
        return [], {scope: _fingerprint(scope)}
    outer: list[tuple[object, ...]] = []
    functions: dict[Operation, object] = {}
    pending = [scope]
    while pending:
        module = pending.pop()
        if not isinstance(module, ModuleOp):
            outer.append(tuple(_fingerprint(module)))
            continue
        outer.append((*_fingerprint_op(module), tuple(module.body.block.ops)))
        for op in module.body.block.ops:
            if isinstance(op, FunctionLike):
                functions[cast(Operation, op)] = _fingerprint(cast(Operation, op))
            else:
                pending.append(op)
    return outer, functions


def _stale(tree: Operation, changed: set[Operation]) -> set[Operation]:
    """The changed functions and every function of the tree that reaches one through calls
    (its cost includes theirs)."""
    callers: dict[Operation, list[Operation]] = {}
    functions = list(functions_of(tree)) if isinstance(tree, ModuleOp) else []
    for function in functions:
        for callee in callees(function):
            callers.setdefault(callee, []).append(function)
    stale = set(changed)
    work = list(changed)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in stale:
                stale.add(caller)
                work.append(caller)
    return stale


def drop_costs(tree: Operation) -> None:
    """Remove every `tf.cost` in the tree."""
    for op in tree.walk():
        if COST_ATTR in op.attributes:
            del op.attributes[COST_ATTR]


class CostWatch:
    """What a pass on `anchor` may change, looked at before it runs (made before the pass);
    `finish()` after it drops the costs it made stale (see the module docstring). `seen`
    carries what one pipeline run already knows of which trees hold a cost."""

    def __init__(self, anchor: Operation, seen: CostsSeen) -> None:
        self.anchor, self.seen = anchor, seen
        self.scopes = _scopes(anchor)
        self.before: dict[Operation, tuple[list[tuple[object, ...]], dict[Operation, object]]]
        self.before = {}
        self.watching = any(seen.holds(tree) for _, tree in self.scopes)
        if self.watching:
            self.before = {scope: _parts(scope) for scope, _ in self.scopes}

    def finish(self) -> None:
        """The pass ran: drop what it made stale."""
        anchor = self.anchor
        if not self.watching:
            for _, tree in self.scopes:
                self.seen.ran_on(anchor, tree)
            return
        for scope, tree in _scopes(anchor):
            if scope not in self.before:
                drop_costs(tree)
                continue
            outer, functions = self.before[scope]
            outer_now, functions_now = _parts(scope)
            if outer_now != outer:
                drop_costs(tree)
                continue
            changed = {f for f, fp in functions_now.items() if functions.get(f) != fp}
            if not changed:
                continue
            for function in _stale(tree, changed):
                if COST_ATTR in function.attributes:
                    del function.attributes[COST_ATTR]


@contextmanager
def costs_kept_fresh(anchor: Operation, seen: CostsSeen | None = None) -> Iterator[None]:
    """Run a pass on `anchor` inside this: what it changed loses its `tf.cost`, and so do
    their callers (see the module docstring); a pass that raises is not looked at. The pass
    manager does the same through the `CostFreshness` instrumentation (`instrumentation.py`)."""
    watch = CostWatch(anchor, CostsSeen() if seen is None else seen)
    yield
    watch.finish()
