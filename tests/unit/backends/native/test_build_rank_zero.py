"""A compiled module returns the rank-0 results the interpreter does (a reshape to `[]`, an
index by 0-d index tensors, each passed on to a function taking a `tensor<f32>`)."""

from __future__ import annotations

import numpy as np

import tilefoundry as tf

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


def test_compiled_rank_zero_results_match_the_interpreter() -> None:
    x, w, i = np.float32([3.5]), np.float32([1, 2, 3, 4]), np.int64(-2)
    for name, args in [("reshaped", (x,)), ("indexed", (w, i))]:
        module = tf.parse_module(RANK_ZERO.replace("tf.module @m", f"tf.module @m entry @{name}"))
        compiled = tf.compile(module)
        want = np.asarray(getattr(module, name)(*args))
        got = np.asarray(getattr(compiled, name)(*args))
        assert want.shape == got.shape == ()
        np.testing.assert_array_equal(got, want)
