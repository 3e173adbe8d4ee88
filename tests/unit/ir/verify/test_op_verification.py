"""IRDL verification remembered per op signature, applied by our verifier: a remembered signature
still runs the traits, a failure is never remembered and always carries xDSL's own message, and
nothing of xDSL is patched (xDSL's own `op.verify()` gives the same verdicts)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerType, StringAttr, SymbolRefAttr, TensorType, f32
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, OpDef
from xdsl.utils.exceptions import VerifyException

from tilefoundry.context.context import make_context
from tilefoundry.dialects.hir import HIR
from tilefoundry.dialects.hir import FuncOp as HirFuncOp
from tilefoundry.dialects.hir import ReturnOp as HirReturnOp
from tilefoundry.dialects.tf.ops import TF, CallOp
from tilefoundry.dialects.tir import TIR
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.ir.verify.op_verification import MemoizedOpDefVerifier, definition_verifier
from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir

MODULE = """\
tf.module @m {
  hir.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %a : tensor<4xf32>
  }
}
"""


def full_verify_message(op: IRDLOperation) -> str:
    """What xDSL's own `OpDef.verify` says of `op`."""
    with pytest.raises(VerifyException) as caught:
        OpDef.verify(type(op).get_irdl_definition(), op)
    return str(caught.value)


def _verifier(cls: type[IRDLOperation]) -> MemoizedOpDefVerifier:
    verifier = definition_verifier(cls)
    assert verifier is not None, cls.name
    return verifier


@pytest.mark.parametrize("dialect", [TF, HIR, TIR], ids=lambda d: d.name)
def test_every_irdl_op_of_our_dialects_is_memoized_by_the_verifier(dialect) -> None:
    for op in dialect.operations:
        assert _verifier(op).op_def is op.get_irdl_definition(), op.name


@pytest.mark.parametrize("dialect", [TF, HIR, TIR], ids=lambda d: d.name)
def test_no_op_definition_of_xdsl_is_patched(dialect) -> None:
    for op in dialect.operations:
        op_def = op.get_irdl_definition()
        assert "verify" not in vars(op_def), op.name  # OpDef.verify, xDSL's own
        assert type(op_def).verify is OpDef.verify


def test_a_remembered_signature_still_runs_the_traits() -> None:
    module = TFParser(make_context(), MODULE, "m.mlir").parse_module()
    verify_ir(module)  # remembers hir.return's signature: one tensor<4xf32> operand
    returned = next(op for op in module.walk() if isinstance(op, HirReturnOp))
    returned.detach()
    module.body.block.add_op(returned)  # a hir.return directly in the tf.module
    verifier = _verifier(HirReturnOp)
    signature = verifier.signature(returned)
    assert signature is not None and verifier.memo.holds(signature)
    expected = full_verify_message(returned)
    assert "expects parent op" in expected
    with pytest.raises(OpVerifyError, match="expects parent op") as ours:
        verify_ir(returned)  # the memo holds the signature: the traits still run
    assert expected in str(ours.value)
    with pytest.raises(VerifyException, match="expects parent op") as caught:
        returned.verify()  # xDSL's own path, in full: the same verdict
    assert expected in str(caught.value)


def test_xdsl_verify_agrees_with_the_verifier_on_a_remembered_module() -> None:
    module = TFParser(make_context(), MODULE, "m.mlir").parse_module()
    verify_ir(module)
    verify_ir(module)  # every signature remembered now
    module.verify()  # xDSL's walk over the same ops: no patched verifier, the same answer
    returned = next(op for op in module.walk() if isinstance(op, HirReturnOp))
    returned.detach()  # the body has no terminator now: both refuse it
    with pytest.raises(OpVerifyError):
        verify_ir(module)
    with pytest.raises(VerifyException):
        module.verify()


def test_a_failing_signature_is_never_remembered() -> None:
    bad = CallOp.create(properties={"callee": SymbolRefAttr("g")}, result_types=[IntegerType(32)])
    expected = full_verify_message(bad)
    for _ in range(3):
        with pytest.raises(VerifyException) as caught:
            verify_ir(bad)
        assert expected in str(caught.value)


def test_a_property_the_definition_does_not_name_is_verified_in_full() -> None:
    call = CallOp.create(
        properties={"callee": SymbolRefAttr("g"), "extra": StringAttr("x")}, result_types=[]
    )
    assert _verifier(CallOp).signature(call) is None
    with pytest.raises(VerifyException, match="property 'extra' is not defined"):
        verify_ir(call)


def test_signatures_tell_operand_and_result_counts_apart() -> None:
    verifier = _verifier(CallOp)
    callee = SymbolRefAttr("g")
    with_result = CallOp.create(properties={"callee": callee}, result_types=[IntegerType(32)])
    bare = CallOp.create(properties={"callee": callee}, result_types=[])
    assert verifier.signature(with_result) != verifier.signature(bare)


def test_signatures_hold_the_class_where_the_constraints_see_only_classes() -> None:
    """`tf.call`'s operand, result and callee constraints are `BaseAttr`s: calls of other
    shapes share a signature, calls of another class of type do not, and a type its
    constraint refuses is still refused after a tensor of any shape verified."""
    verifier = _verifier(CallOp)
    callee = SymbolRefAttr("g")

    def call(result: Attribute) -> CallOp:
        return CallOp.create(properties={"callee": callee}, result_types=[result])

    assert verifier.signature(call(TensorType(f32, [2]))) == verifier.signature(
        call(TensorType(f32, [3, 5]))
    )
    assert verifier.signature(call(TensorType(f32, [2]))) != verifier.signature(
        call(IntegerType(32))
    )
    verifier.memo.add(verifier.signature(call(TensorType(f32, [2]))) or [])  # as if verified
    with pytest.raises(VerifyException, match="Unexpected attribute i32"):
        verifier(call(IntegerType(32)))


def test_a_constraint_that_relates_values_keeps_them_in_the_signature() -> None:
    """`hir.return`'s operands share a type variable: their types themselves are the
    signature, as are properties whose constraint looks into them (a function's names)."""
    returned = _verifier(HirReturnOp)
    assert not returned.operand_classes
    first = HirReturnOp.create(operands=[])
    assert returned.signature(first) is not None
    function = _verifier(HirFuncOp)
    names = dict(zip(function.property_names, function.property_classes, strict=True))
    assert names["function_type"] and names["sym_name"]
    assert not names["param_names"]
