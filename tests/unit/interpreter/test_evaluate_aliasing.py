"""A buffer argument that shares memory with another argument (a tensor, or another buffer) is
refused at the call: the function writes the buffer in place, so what it reads of the other
would depend on the order of its ops, which a pass (`cse`) may change."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.support.diagnostics import ExecutionError

# %x read twice around a write of %b: with x and b one array, the two reads differ, and `cse`
# (merging the two negations, which the memory model allows as x is a value) changed the answer.
TEXT = """
tf.module @m {
  tir.prim_func @f(%x: tensor<4xf32>, %b: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %n1 = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %z = tir.let tf.call tf.tensor.full<shape = [4], value = 0.0, dtype = f32>() : () -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%b, %z) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    %n2 = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = add>(%n1, %n2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
  tir.prim_func @g(%a: !tf.buffer<4xf32>, %b: !tf.buffer<4xf32>) -> () {
    %z = tir.let tf.call tf.tensor.full<shape = [4], value = 0.0, dtype = f32>() : () -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%a, %z) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}
"""


@pytest.mark.parametrize("pipeline", [None, "cse", "canonicalize,cse"])
def test_a_tensor_sharing_a_buffers_memory_is_refused(pipeline: str | None) -> None:
    m = tf.parse_module(TEXT)
    if pipeline:
        m = tf.run_passes(m, pipeline)
    x = np.arange(1, 5, dtype=np.float32)
    message = re.escape(
        "argument 'b' (a buffer, written in place) shares memory with tensor argument 'x': "
        "pass a copy (`np.copy`) of one of them"
    )
    with pytest.raises(ExecutionError, match=message):
        m.f(x, x)
    with pytest.raises(ExecutionError, match=message):
        m.f(x[:4], x)  # a view of the same memory
    np.testing.assert_array_equal(x, [1, 2, 3, 4])  # refused before anything was written
    # separate memory: the same answer whatever the pipeline
    np.testing.assert_array_equal(m.f(x, x.copy()), [-2, -4, -6, -8])


def test_two_buffers_sharing_memory_are_refused() -> None:
    m = tf.parse_module(TEXT)
    a = np.ones(8, np.float32)
    with pytest.raises(
        ExecutionError, match="argument 'a' .* shares memory with buffer argument 'b'"
    ):
        m.g(a[:4], a[2:6])
    m.g(a[:4], a[4:])  # disjoint halves of one array: fine
    np.testing.assert_array_equal(a, [0, 0, 0, 0, 1, 1, 1, 1])
