"""A test plugin: an op and an alias that document nothing (`tf-opt --list-ops` says what to add)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from tilefoundry.builtin.types import IRType
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_alias, register_op


@register_op(dialect="test", category="plugin", name="bare")
class Bare(Op):
    value = ParamDef(kind="input")
    scale = ParamDef(kind="attribute", annotation=float, default=1.0)
    label = ParamDef(kind="attribute", annotation=str, optional=True)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        return args[0] if self.scale == 1.0 else None


@register_alias(dialect="test", category="plugin", name="scaled", params=[Bare.value])
def _scaled(scale: float) -> Op:
    return Bare(scale=scale)
