"""A rank-0 result of a data-moving op (a reshape to `[]`, an index by 0-d index tensors) stays
rank 0 in the interpreter, so a function taking a `tensor<f32>` accepts it (the reference once
went through `np.ascontiguousarray`, which makes a 0-d array shape `(1,)`)."""

from __future__ import annotations

import numpy as np

import tilefoundry as tf
from tilefoundry.dialects.tf.numerics import contiguous

RANK_ZERO = """
tf.module @m {
  hir.func @take(%s: tensor<f32>) -> tensor<f32> {
    hir.return %s : tensor<f32>
  }
  hir.func @reshaped(%x: tensor<1xf32>) -> tensor<f32> {
    %r = tf.call tf.tensor.reshape<shape = []>(%x) : (tensor<1xf32>) -> tensor<f32>
    %y = tf.call @take(%r) : (tensor<f32>) -> tensor<f32>
    hir.return %y : tensor<f32>
  }
  hir.func @indexed(%w: tensor<4xf32>, %i: tensor<i64>) -> tensor<f32> {
    %t = tf.tuple %i : tuple<tensor<i64>>
    %r = tf.call tf.tensor.index(%w, %t) : (tensor<4xf32>, tuple<tensor<i64>>) -> tensor<f32>
    %y = tf.call @take(%r) : (tensor<f32>) -> tensor<f32>
    hir.return %y : tensor<f32>
  }
}
"""


def test_a_reshape_to_rank_zero_passes_to_a_function_taking_a_scalar_tensor() -> None:
    got = np.asarray(tf.parse_module(RANK_ZERO).reshaped(np.float32([3.5])))
    assert got.shape == () and got.dtype == np.float32 and got == 3.5


def test_an_index_by_rank_zero_indices_passes_to_a_function_taking_a_scalar_tensor() -> None:
    got = np.asarray(tf.parse_module(RANK_ZERO).indexed(np.float32([1, 2, 3, 4]), np.int64(-2)))
    assert got.shape == () and got == 3.0


def test_contiguous_keeps_a_zero_d_value_zero_d() -> None:
    assert contiguous(np.float32(2)).shape == ()
    assert contiguous(np.zeros((), np.int8)).shape == ()
    strided = np.arange(12, dtype=np.float32).reshape(3, 4).T
    made = contiguous(strided)
    assert made.flags.c_contiguous and made.shape == (4, 3)
    np.testing.assert_array_equal(made, strided)
