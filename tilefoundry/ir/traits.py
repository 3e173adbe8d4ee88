"""The traits that classify TileFoundry ops: what an op *is*, declared on its class, asked with
`op.has_trait(...)`, never by its name.

```python
traits = traits_def(Expression())                  # tf.call, tf.constant, tf.tuple, tf.mesh
traits = traits_def(Expression(in_hir=False))      # tir.dispatch: an expression of TIR only
traits = traits_def(ModuleMember())                # hir.func, tir.prim_func, tf.module
traits = traits_def(AnchorsAllocation())           # tir.let: where a buffer is introduced
is_expression(op)                                  # True for an op declared with Expression
is_expression(op, in_hir=True)                     # ... that an HIR body may hold too
```

An unregistered op has none of these (it is never an expression nor a module member).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait

__all__ = [
    "AnchorsAllocation",
    "Expression",
    "ModuleMember",
    "is_expression",
    "is_module_member",
]


@dataclass(frozen=True)
class Expression(OpTrait):
    """The op is an expression: its value is its result (or nothing). Function and mesh bodies
    hold expressions, as do TIR statement bodies; `in_hir=False` marks one that only a TIR
    statement body holds (`tir.dispatch`)."""

    in_hir: bool = True


@dataclass(frozen=True)
class ModuleMember(OpTrait):
    """The op may stand in a `tf.module` body: a function or a child module."""


@dataclass(frozen=True)
class AnchorsAllocation(OpTrait):
    """The op anchors a call that introduces a buffer (`tir.let`): such a call stands in its
    body, nowhere else."""


def is_expression(op: Operation, *, in_hir: bool = False) -> bool:
    """Whether `op` is an expression (with `in_hir`: one an HIR body may hold)."""
    trait = op.get_trait(Expression)  # an unregistered op declares no traits
    return trait is not None and (trait.in_hir or not in_hir)


def is_module_member(op: Operation) -> bool:
    """Whether `op` may stand in a `tf.module` body."""
    return op.get_trait(ModuleMember) is not None
