"""The emitter (`tilefoundry.codegen`): what every module it writes promises (upstream MLIR that
mlir-opt-19 verifies with no unregistered dialect; the stage contract of docs/compile.md), the
refusal of an op with no emission rule, a custom op library's own rule, injective symbols."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.builtin.types import IRType, TensorType
from tilefoundry.codegen.symbols import inner_symbol, mangle
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import EmitError, Emitted, MlirBuilder, values
from tilefoundry.mlir_builder.structured import elementwise

MLIR_OPT = shutil.which("mlir-opt-19")


@register_op(dialect="emittest", category="math")
class Twice(Op):
    """A custom op with no emission rule: `2 * x`.

    ```mlir
    %y = tf.call emittest.math.twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]

    def reference(self, *arrays: Any) -> Any:
        return arrays[0] * 2


@register_op(dialect="emittest", category="math")
class Thrice(Op):
    """A custom op with its own emission rule: `3 * x`.

    ```mlir
    %y = tf.call emittest.math.thrice(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        assert isinstance(result, TensorType)
        three = b.float_constant(0x40400000, "f32")
        return elementwise(
            b,
            values(args),
            [result],
            result,
            lambda s: b.op(f"arith.mulf {s[0]}, {three} : f32", "f32"),
        )

    def reference(self, *arrays: Any) -> Any:
        return arrays[0] * 3


def _module(op: str) -> tf.Module:
    return tf.parse_module(
        f"""tf.module @m entry @f {{
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %y = tf.call emittest.math.{op}(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }}
}}
""",
        "custom.mlir",
    )


def test_an_op_without_a_rule_is_refused_in_one_line_naming_it_and_the_function() -> None:
    with pytest.raises(EmitError) as caught:
        tf.emit_mlir(_module("twice"))
    message = str(caught.value)
    assert message == (
        "emittest.math.twice has no emission rule (in function '@f'): declare an `emit` method "
        "on its op class (docs/compile.md)"
    )
    assert caught.value.op is not None


def test_a_custom_op_library_gives_its_op_a_rule() -> None:
    module = _module("thrice")
    compiled = tf.compile(module)
    x = np.float32([1, -2, 0.5, 3])
    assert (compiled.f(x) == module.f(x)).all()


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-19 is not installed")
def test_the_emitted_module_is_upstream_mlir() -> None:
    text = tf.emit_mlir(_module("thrice"))
    assert MLIR_OPT is not None
    done = subprocess.run([MLIR_OPT, "-"], input=text, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_symbols_are_injective_in_the_path() -> None:
    assert mangle(("a.b_1c",)) != mangle(("a_1b", "c"))
    assert mangle(("ab", "c")) != mangle(("a", "bc"))
    assert mangle(("layer0", "mlp")) == "tf_6layer0_3mlp"
    assert inner_symbol(("layer0", "mlp")) == "tfi_6layer0_3mlp"
    assert mangle(("f",), prefix="m3") == "tfm3_1f"
