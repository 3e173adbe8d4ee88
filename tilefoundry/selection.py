"""Selecting a node of a module tree by path: `select` and `function_selectors`.

```python
select(root, "")               # root itself
select(root, "layer0")         # the child attached as layer0 (resolving through its owners)
select(root, "layer0.mlp")     # layer0 re-entried at its function mlp: an independent root that
                               # declares the target and topology hierarchy layer0 resolves
function_selectors(root)       # [("step", <Function step>), ("layer0.mlp", <Function mlp>), ...]
```
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr

from tilefoundry.arguments import refuse_type, shown
from tilefoundry.dialects.tf_module import RECORDED_OWNER
from tilefoundry.hir import Function
from tilefoundry.module import Module
from tilefoundry.target import TargetAttr, TopologyAttr

__all__ = ["function_selectors", "published", "select"]


def select(module: Module, path: str) -> Module:
    """The module a dotted path names relative to `module` (see the module docstring)."""
    if not isinstance(module, Module):
        refuse_type("select module", "a Module", module)
    if not isinstance(path, str):
        raise TypeError(f"a path is a dotted str, got {shown(path)}")
    if path == "":
        return module
    segments = path.split(".")
    if "" in segments:
        raise ValueError(
            f"path '{path}' has an empty segment; dropping it would make two paths name one node"
        )
    node = module
    for index, segment in enumerate(segments):
        children = [m for m in node.modules if m.attached_name == segment]
        if children:
            node = children[0]
            continue
        if index == len(segments) - 1 and node.function_named(segment):
            return _reentered(node, segment)
        reached = ".".join(segments[:index]) or "<root>"
        children_names = ", ".join(m.attached_name for m in node.modules) or "none"
        function_names = ", ".join(f.name for f in node.functions) or "none"
        raise KeyError(
            f"path '{path}': '{segment}' names no child module of {reached} (children: "
            f"{children_names}){'' if index < len(segments) - 1 else f', nor a function (functions: {function_names})'}"
        )
    return node


def _reentered(module: Module, function: str) -> Module:
    """A copy of `module` that is a root: entry `function`, and the target and topologies it
    resolves declared on it."""
    return _as_root(module, function)


def _as_root(module: Module, entry: str | None) -> Module:
    """A published copy of `module` that declares the target and topologies it resolves (and
    `entry`, when given)."""
    target = module.resolve_target()
    levels = module.effective_topologies()
    root = module.cloned()
    op = root.module_op
    op.owner_context = None  # it declares what it resolved instead
    RECORDED_OWNER.set(op, None)
    if entry is not None:
        op.entry = SymbolRefAttr(entry)
    op.target = TargetAttr(StringAttr(target.name))
    op.topologies = ArrayAttr(TopologyAttr.of(level) for level in levels)
    return root.publish()


def published(module: Module, path: str) -> Module:
    """What `select(module, path)` answers, as an independently analysable root: itself when it
    is already a root that declares its target and topologies, else a copy that declares what
    it resolves (what `tf-select` outputs)."""
    node = select(module, path)
    if node.owner is None and node.target is not None and node.topologies is not None:
        return node.publish()
    return _as_root(node, None)


def function_selectors(module: Module) -> list[tuple[str, Function]]:
    """Every HIR function of the tree with the path `select` resolves for it, in source order,
    parents before children (a PrimFunction implements a function; it is not one of these)."""
    if not isinstance(module, Module):
        refuse_type("function_selectors module", "a Module", module)
    found: list[tuple[str, Function]] = []

    def visit(node: Module, prefix: str) -> None:
        for function in node.functions:
            if isinstance(function, Function):
                found.append((prefix + function.name, function))
        for child in node.modules:
            visit(child, f"{prefix}{child.attached_name}.")

    visit(module, "")
    return found
