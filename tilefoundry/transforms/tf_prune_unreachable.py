"""`tf-prune-unreachable`: keep only what the root's entry reaches.

The spec's default step: "other functions enter the output only when reachable from entry".
Starting at the root's entry function, a function is kept when it is reached through calls,
dispatch cases or the bodies of variants; every other function of the tree goes, a child
module left with no function and no child goes, and a child whose entry function went keeps no
entry. A root without an entry is left whole: each of its functions stays reachable by name.
A child module pruned on its own (`tf.module(tf.module(tf-prune-unreachable))`) also keeps what
the rest of the file calls in it: a function its parent calls is reachable.

```mlir
// before
tf.module @m entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @layer::@used(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  tf.module @layer {
    hir.func @used(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
    hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  }
  tf.module @other { hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> } }
}
// after
tf.module @m entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { ... }
  tf.module @layer {
    hir.func @used(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  }
}
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

from tilefoundry.dialects.tf.module import ModuleOp, lookup_symbol
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.symbols import rewriter
from tilefoundry.transforms.call_graph import functions_of, reachable_from
from tilefoundry.transforms.pass_base import RootPass

__all__ = ["TfPruneUnreachable", "prune_unreachable"]


def prune_unreachable(root: ModuleOp) -> None:
    """Prune one module tree (see the module docstring)."""
    if root.entry is None:
        return
    entry = SymbolTable.lookup_symbol(root, root.entry)
    assert isinstance(entry, FunctionLike) and isinstance(entry, Operation)
    keep = reachable_from(entry)
    for used in _used_from_outside(root):
        keep |= reachable_from(used)
    for function in list(functions_of(root)):
        if function not in keep:
            module = function.parent_op()
            assert isinstance(module, ModuleOp)
            if (
                module.entry is not None
                and module.entry.root_reference == function.properties["sym_name"]
            ):
                module.entry = None
                rewriter(module).notify_op_modified(module)
            rewriter(function).erase(function, safe_erase=False)
    _drop_empty_children(root)


def _used_from_outside(root: ModuleOp) -> list[Operation]:
    """The functions of `root`'s tree that ops outside the tree call (when `root` is a child
    module, pruned on its own: its parent's calls into it keep their callees).

    A symbol resolves in the nearest enclosing module and down from it (`lookup_symbol`), so
    only the ops of `root`'s ancestors themselves can name a function of its tree: a sibling
    module's ops resolve inside the sibling. Those are the ops walked, not the whole file
    (which, for `tf.module(tf.module(tf-prune-unreachable))`, was the file once per child)."""
    used: dict[Operation, None] = {}
    node: Operation = root
    while (parent := node.parent_op()) is not None:
        for region in parent.regions:
            for block in region.blocks:
                for member in block.ops:
                    if isinstance(member, ModuleOp):
                        continue  # `node` itself, or a sibling tree
                    for op in member.walk():
                        for ref in _symbols_called(op):
                            callee = lookup_symbol(op, ref)
                            if isinstance(callee, FunctionLike) and root.is_ancestor(callee):
                                used.setdefault(callee)
        node = parent
    return list(used)


def _symbols_called(op: Operation) -> list[SymbolRefAttr]:
    if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr):
        return [op.callee]
    if isinstance(op, DispatchOp):
        return list(op.callees)
    return []


def _drop_empty_children(module: ModuleOp) -> None:
    for child in [op for op in module.body.block.ops if isinstance(op, ModuleOp)]:
        _drop_empty_children(child)
        if child.body.block.is_empty:
            rewriter(child).erase(child)


@dataclass(frozen=True)
class TfPruneUnreachable(RootPass):
    """Keep only the functions the root's entry reaches (see the module docstring)."""

    name = "tf-prune-unreachable"

    def run_on_root(self, root: ModuleOp) -> None:
        prune_unreachable(root)
