"""IRDL verification remembered per op signature: a remembered signature still runs the traits,
a failure is never remembered and always carries xDSL's own message."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerType, StringAttr, SymbolRefAttr
from xdsl.irdl import IRDLOperation, OpDef
from xdsl.utils.exceptions import VerifyException

from tilefoundry.context import make_context
from tilefoundry.dialects.hir import HIR
from tilefoundry.dialects.hir import ReturnOp as HirReturnOp
from tilefoundry.dialects.tf import TF, CallOp
from tilefoundry.dialects.tir import TIR
from tilefoundry.ir.asm import TFParser
from tilefoundry.ir.op_verification import MemoizedOpDefVerifier
from tilefoundry.ir.verifier import verify_ir

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


@pytest.mark.parametrize("dialect", [TF, HIR, TIR], ids=lambda d: d.name)
def test_every_irdl_op_of_our_dialects_is_memoized(dialect) -> None:
    for op in dialect.operations:
        assert isinstance(op.get_irdl_definition().verify, MemoizedOpDefVerifier), op.name


def test_a_remembered_signature_still_runs_the_traits() -> None:
    module = TFParser(make_context(), MODULE, "m.mlir").parse_module()
    verify_ir(module)  # remembers hir.return's signature: one tensor<4xf32> operand
    returned = next(op for op in module.walk() if isinstance(op, HirReturnOp))
    returned.detach()
    module.body.block.add_op(returned)  # a hir.return directly in the tf.module
    verifier = HirReturnOp.get_irdl_definition().verify
    assert isinstance(verifier, MemoizedOpDefVerifier)
    signature = verifier.signature(returned)
    assert signature is not None and verifier.memo.holds(signature)
    expected = full_verify_message(returned)
    assert "expects parent op" in expected
    with pytest.raises(VerifyException, match="expects parent op") as caught:
        returned.verify()
    assert expected in str(caught.value)


def test_a_failing_signature_is_never_remembered() -> None:
    bad = CallOp.create(properties={"callee": SymbolRefAttr("g")}, result_types=[IntegerType(32)])
    expected = full_verify_message(bad)
    for _ in range(3):
        with pytest.raises(VerifyException) as caught:
            bad.verify()
        assert expected in str(caught.value)


def test_a_property_the_definition_does_not_name_is_verified_in_full() -> None:
    call = CallOp.create(
        properties={"callee": SymbolRefAttr("g"), "extra": StringAttr("x")}, result_types=[]
    )
    verifier = type(call).get_irdl_definition().verify
    assert isinstance(verifier, MemoizedOpDefVerifier)
    assert verifier.signature(call) is None
    with pytest.raises(VerifyException, match="property 'extra' is not defined"):
        call.verify()


def test_signatures_tell_operand_and_result_counts_apart() -> None:
    verifier = CallOp.get_irdl_definition().verify
    assert isinstance(verifier, MemoizedOpDefVerifier)
    callee = SymbolRefAttr("g")
    with_result = CallOp.create(properties={"callee": callee}, result_types=[IntegerType(32)])
    bare = CallOp.create(properties={"callee": callee}, result_types=[])
    assert verifier.signature(with_result) != verifier.signature(bare)
