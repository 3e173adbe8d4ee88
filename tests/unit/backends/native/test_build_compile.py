"""`tilefoundry.compile` (backend "native"): the compiled module's attribute surface is the
module's (functions, child modules, methods, a bare call runs the entry), without bindings its
functions take every param, with bindings the non-const ones (checked as `LoadedModule` checks
them); buffers are written in place; arguments refused with the interpreter's text; the
examples compiled against the interpreter (`examples/kernel.mlir`, `examples/decoder.mlir`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.support.diagnostics import ExecutionError, VerifyError

ROOT = Path(__file__).parents[4]
KERNEL = tf.parse_module((ROOT / "examples" / "kernel.mlir").read_text(), "kernel.mlir")
DECODER = tf.parse_module((ROOT / "examples" / "decoder.mlir").read_text(), "decoder.mlir")


def weights(module: tf.Module, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        name: rng.standard_normal([int(d) for d in type.shape]).astype(np.float32) * 0.3
        for name, type in module.weights.items()
    }


@pytest.fixture(scope="module")
def kernel() -> tf.CompiledModule:
    return tf.compile(KERNEL)


@pytest.fixture(scope="module")
def decoder() -> tf.CompiledModule:
    return tf.compile(DECODER, weights(DECODER))


def test_compile_is_a_plain_function() -> None:
    import inspect

    import tilefoundry.api.compiler

    assert inspect.isfunction(tf.compile) and tf.compile is tilefoundry.api.compiler.compile


@pytest.mark.parametrize("rows", [1, 4, 16, 17, 256])
def test_the_kernel_dispatch_and_buffers_match_the_interpreter(kernel: Any, rows: int) -> None:
    rng = np.random.default_rng(rows)
    x, gain = (
        rng.standard_normal((rows, 8)).astype(np.float32),
        rng.standard_normal(8).astype(np.float32),
    )
    out, expected = np.zeros((rows, 8), np.float32), np.zeros((rows, 8), np.float32)
    assert kernel(x, gain, out) is None  # the entry, scale_rows: effect only
    KERNEL.scale_rows(x, gain, expected)
    assert out.tobytes() == expected.tobytes()


def test_a_buffer_is_written_in_place_even_when_it_is_a_strided_view(kernel: Any) -> None:
    acc = np.zeros((2, 8), np.float32)
    x = np.arange(8, dtype=np.float32)
    view = acc[1]
    kernel.accumulate(view, x)
    kernel.accumulate(view, x)
    assert (acc[1] == 2 * x).all() and not acc[0].any()


@pytest.mark.parametrize(
    "name, args",
    [
        (
            "scale_rows",
            (
                np.zeros((300, 8), np.float32),
                np.zeros(8, np.float32),
                np.zeros((300, 8), np.float32),
            ),
        ),
        ("scale_rows", (np.zeros((4, 8), np.float32), np.zeros(8, np.float32))),
        ("accumulate", (np.zeros(8, np.float64), np.zeros(8, np.float32))),
        ("accumulate", (np.zeros(8, np.float32), np.zeros((2, 8), np.float32))),
    ],
)
def test_arguments_are_refused_as_the_interpreter_refuses_them(
    kernel: Any, name: str, args: tuple[Any, ...]
) -> None:
    with pytest.raises(ExecutionError) as compiled:
        getattr(kernel, name)(*args)
    with pytest.raises(ExecutionError) as interpreted:
        getattr(KERNEL, name)(*args)
    assert str(compiled.value) == str(interpreted.value)


def test_the_decoder_matches_the_interpreter(decoder: Any) -> None:
    bound = tf.LoadedModule(DECODER, weights(DECODER))
    for seq in (1, 5, 64):
        x = np.random.default_rng(seq).standard_normal((seq, 16)).astype(np.float32)
        expected = bound.step(x)
        got = decoder.step(x)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(decoder(x), expected, rtol=2e-5, atol=2e-6)  # the entry


def test_the_attribute_surface_is_the_modules(decoder: Any) -> None:
    bound = tf.LoadedModule(DECODER, weights(DECODER))
    x = np.random.default_rng(3).standard_normal((3, 16)).astype(np.float32)
    layer = decoder.layer2
    assert isinstance(layer, tf.CompiledModule)
    block_weights = _block_weights(2)  # a child takes every param: bindings are the root's weights
    np.testing.assert_allclose(
        layer.block(x, *block_weights),
        bound.module.layer2.block(x, *block_weights),
        rtol=2e-5,
        atol=2e-6,
    )
    with pytest.raises(AttributeError, match="has no function, child module or method 'nothing'"):
        _ = decoder.nothing


def _block_weights(index: int) -> list[Any]:
    named = weights(DECODER)
    names = ["norm1", "wq", "wk", "wv", "wo", "norm2", "w_up", "w_down"]
    return [named[f"layer{index}.{n}"] for n in names]


def test_a_function_the_entry_does_not_reach_is_not_compiled() -> None:
    module = tf.parse_module(
        """tf.module @m entry @f {
  hir.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
    hir.return %x : tensor<3xf32>
  }
  hir.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
    hir.return %x : tensor<3xf32>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module)
    assert (compiled.f(np.float32([1, 2, 3])) == [1, 2, 3]).all()
    with pytest.raises(AttributeError, match="function 'g' is not compiled"):
        _ = compiled.g


def test_without_bindings_every_param_is_taken() -> None:
    module = tf.parse_module(
        """tf.module @m entry @f {
  hir.func @f(%x: tensor<3xf32>, %w: tensor<3xf32> {const}) -> tensor<3xf32> {
    %y = tf.call tf.math.binary<kind = mul>(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    hir.return %y : tensor<3xf32>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module)
    x, w = np.float32([1, 2, 3]), np.float32([2, 2, 2])
    assert (compiled.f(x, w) == module.f(x, w)).all()
    bound = tf.compile(module, {"w": w})
    assert (bound.f(x) == module.f(x, w)).all()
    with pytest.raises(
        ExecutionError, match=r"'f' takes 1 argument\(s\) \(x\) once its weights are bound, got 2"
    ):
        bound.f(x, w)
    with pytest.raises(VerifyError, match="no binding for weight"):
        tf.compile(module, {})
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        tf.compile(module, backend="gpu")


def test_a_slice_passed_to_a_call_is_copied_into_memory_of_its_own() -> None:
    """one-shot-bufferize casts a call's operand to the callee's identity layout, which a
    slice's strided view is not cast compatible with (BERT's `position_ids[:, :seq]`)."""
    module = tf.parse_module(
        """tf.module @m entry @f {
  hir.func @f(%x: tensor<2x8xi64>) -> tensor<2x3xi64> {
    %s = tf.call tf.tensor.slice<axis = 1, start = 2, stop = 5>(%x) : (tensor<2x8xi64>) -> tensor<2x3xi64>
    %y = tf.call @g(%s) : (tensor<2x3xi64>) -> tensor<2x3xi64>
    hir.return %y : tensor<2x3xi64>
  }
  hir.func @g(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
    hir.return %y : tensor<2x3xi64>
  }
}
""",
        "m.mlir",
    )
    x = np.arange(16, dtype=np.int64).reshape(2, 8)
    assert tf.compile(module).f(x).tolist() == module.f(x).tolist() == (2 * x[:, 2:5]).tolist()


def test_aliased_arguments_are_refused_as_the_interpreter_refuses_them(kernel: Any) -> None:
    """A buffer sharing memory with a tensor argument (tests/unit/interpreter/test_evaluate_aliasing.py):
    the same refusal, the same text, nothing written."""
    acc = np.ones(8, np.float32)
    with pytest.raises(ExecutionError) as native:
        kernel.accumulate(acc, acc)
    with pytest.raises(ExecutionError) as interpreted:
        KERNEL.accumulate(acc, acc)
    assert str(native.value) == str(interpreted.value)
    assert (
        "argument 'acc' (a buffer, written in place) shares memory with tensor argument 'x'"
        in str(native.value)
    )
    assert (acc == 1).all()


def test_bound_weights_are_checked_once_then_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A weight is checked when bound (`LoadedModule`); each call then checks only the free
    arguments, and reuses the weight's descriptor."""
    from tilefoundry.interpreter.evaluate import check_argument

    module = tf.parse_module(
        """
tf.module @m entry @f {
  hir.func @f(%x: tensor<3xf32>, %w: tensor<3xbf16> {const}) -> tensor<3xf32> {
    %c = tf.call tf.math.cast<dtype = f32>(%w) : (tensor<3xbf16>) -> tensor<3xf32>
    %y = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    hir.return %y : tensor<3xf32>
  }
}
""",
        "m.mlir",
    )
    w = np.array([1.00390625, -2.5, 3.0], np.float32)  # the first is bf16's 1.0 once bound
    bound = tf.compile(module, {"w": w})
    x = np.array([1, 2, 3], np.float32)
    assert bound.f(x).tobytes() == module.f(x, w).tobytes()  # the runner made: `w` trusted
    checked: list[str] = []

    def counting(name: str, *rest: Any) -> Any:
        checked.append(name)
        return check_argument(name, *rest)

    monkeypatch.setattr("tilefoundry.backends.native.abi.check_argument", counting)
    for _ in range(3):
        assert bound.f(x).tobytes() == module.f(x, w).tobytes()
    assert checked == ["x", "x", "x"]
