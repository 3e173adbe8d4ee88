"""A pass whose output fails the verifier, from Python: `run_passes` raises `PassOutputError`
naming the pass and the op, and the input Module is unchanged."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tilefoundry as tf
from tilefoundry.transforms import PASSES, PassOutputError

TOOLS = Path(__file__).parents[2] / "filecheck" / "tools"

TEXT = """tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
    hir.return %s : tensor<f32>
  }
}
"""


@pytest.fixture
def broken_pass() -> Iterator[None]:
    """The test plugin's pass, registered for one test (the registry is shared)."""
    sys.path.insert(0, str(TOOLS))
    try:
        plugin = importlib.import_module("broken_pass")
    finally:
        sys.path.remove(str(TOOLS))
    PASSES["test-break-return"] = lambda: plugin.BreakReturn
    yield
    del PASSES["test-break-return"]


@pytest.mark.usefixtures("broken_pass")
def test_run_passes_blames_the_pass_and_leaves_the_input() -> None:
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
