"""`@reference(OpClass)`: a library's reference written apart from its class becomes the class's
`reference` method, which the interpreter runs; a class with its own is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import Call, ParamDef, TensorType, Var, VerifyError
from tilefoundry.api.hir import Function
from tilefoundry.interpreter.evaluate import ExecutionError
from tilefoundry.interpreter.reference import reference
from tilefoundry.ir.algebra.op_registry import Op, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ops import Softmax


@register_op(dialect="test", category="reference", name="triple")
class Triple(Op):
    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: Any) -> Any:
        return arg_types[0]


@register_op(dialect="test", category="reference", name="unrun")
class Unrun(Op):
    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: Any) -> Any:
        return arg_types[0]


def test_a_reference_written_apart_becomes_the_method_the_interpreter_runs() -> None:
    assert not Triple.has_reference()

    @reference(Triple)
    def _triple(op: Triple, x: Any) -> Any:
        return x * 3

    assert Triple.has_reference()
    x = Var("x", TensorType((3,), "f32"))
    f = Function(name="f", params=[x], body=Call(Triple(), [x]))
    got = tf.Module.implicit(f).f(np.float32([1, 2, 3]))
    np.testing.assert_array_equal(got, np.float32([3, 6, 9]))
    assert Triple().reference(np.int32([2]))[0] == 6


def test_an_op_without_a_reference_does_not_run() -> None:
    x = Var("x", TensorType((3,), "f32"))
    f = Function(name="f", params=[x], body=Call(Unrun(), [x]))
    with pytest.raises(ExecutionError, match="test.reference.unrun has no reference"):
        tf.Module.implicit(f).f(np.float32([1, 2, 3]))


def test_an_op_that_defines_its_reference_keeps_it() -> None:
    with pytest.raises(TypeError, match="Softmax defines its own reference method"):
        reference(Softmax)
    with pytest.raises(TypeError, match="applies to an Op class"):
        reference(VerifyError)  # type: ignore[arg-type]
