"""A pass whose output fails the verifier, from Python: `run_passes` raises `PassOutputError`
naming the pass and the op, and the input Module is unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilefoundry as tf
from tilefoundry.transforms import PASSES, PassOutputError

sys.path.insert(0, str(Path(__file__).parents[2] / "filecheck" / "tools"))
import broken_pass  # noqa: E402

TEXT = """tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
    hir.return %s : tensor<f32>
  }
}
"""


def test_run_passes_blames_the_pass_and_leaves_the_input() -> None:
    assert PASSES["test-break-return"]() is broken_pass.BreakReturn
    module = tf.parse_module(TEXT)
    before = str(module)
    with pytest.raises(PassOutputError) as caught:
        tf.run_passes(module, "test-break-return")
    assert str(caught.value) == (
        "pass 'test-break-return' produced invalid IR: 'hir.return' op returns tensor<4xf32>, "
        "but function '@f' returns tensor<f32>"
    )
    assert caught.value.pass_name == "test-break-return"
    assert caught.value.op.name == "hir.return"
    assert str(module) == before
    assert isinstance(caught.value, tf.VerifyError)
