"""`dim_var_carrier` (dialects/function.py): where a DimVar's size is read at run time, the
spec's "runtime ShapeOf(param, axis) by walking the enclosing function signature" — what the
lowering resolves a variant's `dim_var` to, and what the emitter reads a dispatch's sizes from."""

from __future__ import annotations

import numpy as np

import tilefoundry as tf
from tilefoundry.builtin.types import BufferType, DimVar, TensorType, TupleType
from tilefoundry.dialects.function import DimVarCarrier, dim_var_carrier

n = DimVar("n", 1, 9)
m = DimVar("m", 2, 5)


def test_the_first_parameter_and_axis_that_carry_the_dim_var() -> None:
    params = [TensorType((4,), "f32"), TensorType((3, n), "f32"), TensorType((n, m), "f32")]
    assert dim_var_carrier(params, "n") == DimVarCarrier(param=1, axis=1, dim_var=n)
    assert dim_var_carrier(params, "m") == DimVarCarrier(param=2, axis=1, dim_var=m)
    assert dim_var_carrier(params, "k") is None
    assert dim_var_carrier([], "n") is None


def test_tuple_fields_depth_first_and_buffers_carry_dims_too() -> None:
    nested = TupleType([TensorType((2,), "i32"), TupleType([TensorType((m, n), "f32")])])
    assert dim_var_carrier([nested], "n") == DimVarCarrier(0, 1, n, fields=(1, 0))
    buffer = BufferType((n,), "f32")
    assert dim_var_carrier([TensorType((4,), "f32"), buffer], "n") == DimVarCarrier(1, 0, n)


def test_a_function_op_resolves_its_own_parameters() -> None:
    module = tf.parse_module(
        """
tf.module @m entry @f {
  hir.func @f(%a: tensor<4xf32>, %b: tensor<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>> {
    hir.return %b : tensor<?x2xf32, #tf.dims<n: 1 to 9>>
  }
}""",
        "f",
    )
    function = module.lookup("f").function_op
    carrier = function.dim_var_carrier("n")
    assert carrier == DimVarCarrier(param=1, axis=0, dim_var=n)
    b = np.zeros((6, 2), np.float32)  # the size the run gives n is that axis of that argument
    assert module.f(np.zeros(4, np.float32), b).shape[0] == b.shape[carrier.axis]
