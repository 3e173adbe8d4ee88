"""The traits that classify ops (`tilefoundry.ir.traits`): declared on the op classes, and the
wording of the diagnostics that list them agrees with the declarations."""

from __future__ import annotations

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

from tilefoundry.dialects.function import BODY_TEXT
from tilefoundry.dialects.hir import HIR
from tilefoundry.dialects.tf.module import MEMBERS_TEXT
from tilefoundry.dialects.tf.ops import TF, ConstantOp
from tilefoundry.dialects.tir import TIR, DispatchOp, LetOp
from tilefoundry.ir.traits import AnchorsAllocation, Expression, ModuleMember, is_expression


def _ops(*dialects: Dialect) -> list[type[IRDLOperation]]:
    return [
        op for dialect in dialects for op in dialect.operations if issubclass(op, IRDLOperation)
    ]


def test_the_hir_body_wording_names_the_expressions_an_hir_body_holds() -> None:
    named = [op.name for op in _ops(TF, HIR, TIR) if (t := op.get_trait(Expression)) and t.in_hir]
    assert BODY_TEXT == ", ".join(named)


def test_the_module_body_wording_names_the_module_members() -> None:
    members = {op.name for op in _ops(TF, HIR, TIR) if op.has_trait(ModuleMember)}
    assert set(MEMBERS_TEXT.split(", ")) == members


def test_dispatch_is_an_expression_of_tir_only() -> None:
    assert DispatchOp.get_trait(Expression) == Expression(in_hir=False)
    assert ConstantOp.get_trait(Expression) == Expression()
    assert [op.name for op in _ops(TF, HIR, TIR) if op.has_trait(AnchorsAllocation)] == [LetOp.name]


def test_an_unregistered_op_is_no_expression() -> None:
    op = UnregisteredOp.with_name("foo.bar").create()
    assert not is_expression(op) and not is_expression(op, in_hir=True)
