"""The op definitions state the types of the values: tensors or tuples (`VALUE_TYPES`), and a
terminator's values of one type (`ONE_VALUE_TYPE`): what `dialects/*.irdl.mlir` says upstream."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType, TupleType, f32, i32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from tilefoundry.dialects.hir import ReturnOp
from tilefoundry.dialects.tf.ops import TupleOp

TENSOR = TensorType(f32, [4])
OTHER = TensorType(f32, [2])


def test_an_operand_that_is_not_a_tensor_or_a_tuple_is_refused() -> None:
    (a, b) = Block(arg_types=[TENSOR, i32]).args
    op = TupleOp.create(operands=[a, b], result_types=[TupleType([TENSOR, i32])])
    with pytest.raises(VerifyException, match="operand 'elements_' .*\n.*Unexpected attribute i32"):
        op.verify()


def test_a_terminator_passes_on_values_of_one_type() -> None:
    (a, b) = Block(arg_types=[TENSOR, OTHER]).args
    ReturnOp(a).verify()
    ReturnOp().verify()
    with pytest.raises(VerifyException, match="expected from variable 'V', but got tensor<2xf32>"):
        ReturnOp(a, b).verify()
