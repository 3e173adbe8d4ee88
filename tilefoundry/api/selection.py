"""Selecting a node of a module tree by path, on the Python surface: `select`, `published` and
`function_selectors` over `Module` views. The selection itself lives on the IR
(`tilefoundry.dialects.tf.selection`, over `ModuleOp`s), which the `tf-select` and
`tf-verify-published` passes and `tf-run --function` use too; see its docstring for the paths.

```python
select(root, "layer0")         # the child attached as layer0
select(root, "layer0.mlp")     # layer0 re-entried at its function mlp, as an independent root
function_selectors(root)       # [("step", <Function step>), ("layer0.mlp", <Function mlp>), ...]
```

A re-entried copy is a `Module.cloned()` copy: its orchestration methods come along.
"""

from __future__ import annotations

from tilefoundry.api.hir import Function
from tilefoundry.api.module import Module
from tilefoundry.dialects.tf import selection as tf_selection
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import path_names, path_of
from tilefoundry.support.arguments import refuse_type

__all__ = ["function_selectors", "path_names", "path_of", "published", "select"]


def _cloned(op: ModuleOp) -> ModuleOp:
    return Module.of(op).cloned().module_op


def select(module: Module, path: str) -> Module:
    """The module a path names relative to `module` (see `tf_selection`)."""
    if not isinstance(module, Module):
        refuse_type("select module", "a Module", module)
    return Module.of(tf_selection.select(module.module_op, path, copy=_cloned))


def published(module: Module, path: str) -> Module:
    """What `select(module, path)` answers, as an independently analysable root (what
    `tf-select` outputs)."""
    if not isinstance(module, Module):
        refuse_type("select module", "a Module", module)
    return Module.of(tf_selection.published(module.module_op, path, copy=_cloned))


def function_selectors(module: Module) -> list[tuple[str, Function]]:
    """Every HIR function of the tree with the path `select` resolves for it, in source order,
    parents before children (a PrimFunction implements a function; it is not one of these)."""
    if not isinstance(module, Module):
        refuse_type("function_selectors module", "a Module", module)
    return [
        (path, Function.of(op)) for path, op in tf_selection.function_selectors(module.module_op)
    ]
