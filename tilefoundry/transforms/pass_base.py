"""`TFPass`: the base of TileFoundry's passes, an xDSL `ModulePass` that declares where it runs;
`RootPass` and `RegionPass`: the two loops passes repeat, written once.

```python
@dataclass(frozen=True)
class TfPruneUnreachable(RootPass):
    name = "tf-prune-unreachable"

    def run_on_root(self, root: ModuleOp) -> None:
        prune_unreachable(root)
```

`anchors` names the ops a pipeline may nest the pass on (`tf.module(tf-inline)`); `ANY_OP` (None)
lets it run on any anchor op, `any(...)` included; by default a pass runs on `builtin.module`
only. Every pass is one of these, `canonicalize`, `cse` and `dce` included: the pass manager
reads `anchors_of(cls)`, the class's declaration (a plain xDSL `ModulePass` from a plugin runs
on `builtin.module` only). Options are xDSL's: the dataclass fields, kebab-case.

- `RootPass`: a pass over the module trees of its anchor (`call_graph.roots_of`: the anchor
  itself when it is a `tf.module`, else each `tf.module` of the input), on `builtin.module`
  and `tf.module`. Every root is checked (`check_roots`) before any is changed; then
  `run_on_root` runs on each in order, and a root it returns another op for is replaced by it
  once every root has been run on (a pass that replaces roots runs on `builtin.module` only).
  The run is one scope of symbol tables (`ir/symbols.py`): a pass changes a module body
  through `symbols.rewriter(op)`, whose listener keeps the tables' indexes right.
- `RegionPass`: a pass over every region of its anchor (`run_on_region`), as MLIR's passes
  work on every region of the op they are nested on (a `hir.func`'s `variants` too), on any
  anchor op.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass

from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.ir.symbols import SymbolTables, rewriter
from tilefoundry.transforms.call_graph import roots_of

__all__ = ["ANY_OP", "ROOT_ONLY", "Anchors", "RegionPass", "RootPass", "TFPass", "anchors_of"]

Anchors: TypeAlias = tuple[str, ...] | None
"""The op names a pass runs on; None: any op."""

ANY_OP: Anchors = None

ROOT_ONLY: Anchors = ("builtin.module",)


@dataclass(frozen=True)
class TFPass(ModulePass):
    """A TileFoundry pass: an xDSL `ModulePass` with declared anchors."""

    anchors: ClassVar[Anchors] = ROOT_ONLY


def anchors_of(pass_class: type[ModulePass]) -> Anchors:
    """The ops a pass runs on (None: any op): a `TFPass`'s declaration, else the root only."""
    if issubclass(pass_class, TFPass):
        return pass_class.anchors
    return ROOT_ONLY


@dataclass(frozen=True)
class RootPass(TFPass):
    """A pass over each module tree of its anchor (see the module docstring)."""

    anchors: ClassVar[Anchors] = ("builtin.module", "tf.module")

    def check_roots(self, anchor: Operation, roots: Sequence[ModuleOp]) -> None:
        """Refuse the input (`PassError`) before any root is changed; by default nothing."""

    @abstractmethod
    def run_on_root(self, root: ModuleOp) -> Operation | None:
        """Rewrite one root; an op returned, other than the root, replaces it."""

    def apply(self, ctx: Context, op: Operation) -> None:
        with SymbolTables().scope():  # the pass's symbol lookups; changes go through `rewriter`
            roots = roots_of(op)
            self.check_roots(op, roots)
            made = [self.run_on_root(root) for root in roots]
            for root, new in zip(roots, made, strict=True):
                if new is None or new is root:
                    continue
                assert isinstance(op, BuiltinModuleOp), "only a pass on the input replaces a root"
                rewriter(root).replace(root, new, safe_erase=False)


@dataclass(frozen=True)
class RegionPass(TFPass):
    """A pass over every region of its anchor, on any anchor op (see the module docstring)."""

    anchors: ClassVar[Anchors] = ANY_OP

    @abstractmethod
    def run_on_region(self, ctx: Context, region: Region) -> None:
        """Rewrite one region of the anchor."""

    def apply(self, ctx: Context, op: Operation) -> None:
        for region in op.regions:
            self.run_on_region(ctx, region)
