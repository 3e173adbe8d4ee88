"""What the IREE backend refuses or does differently, each shown (docs/compile.md, "The IREE
backend"): a missing `[iree]` extra is one line; f64 `sin`, `cos`, `tanh` and `erf` (so `gelu`
and `erf` of every dtype) are refused before IREE runs, naming the op; a call passing one buffer
twice is refused (buffers are values there), and so are two buffer arguments sharing memory at
the call; denormals are flushed; f32 sin of a large argument leaves [-1, 1]."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.backends.iree.build import IreeLimitError
from tilefoundry.backends.iree.toolchain import MISSING
from tilefoundry.backends.native.toolchain import ToolchainError
from tilefoundry.mlir_builder import EmitError
from tilefoundry.support.diagnostics import ExecutionError


def _module(body: str) -> tf.Module:
    return tf.parse_module(f"tf.module @m entry @f {{\n{body}\n}}\n", "m.mlir")


def _unary(op: str, dtype: str) -> tf.Module:
    t = f"tensor<4x{dtype}>"
    return _module(
        f"""  tir.prim_func @f(%x: {t}) -> {t} {{
    %y = tir.let tf.call {op}(%x) : ({t}) -> {t} loc("model.py":7:3)
    tir.return %y : {t}
  }}"""
    )


def test_a_missing_iree_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_iree(name: str, *args: Any) -> Any:
        if name.startswith("iree"):
            raise ImportError(f"No module named '{name}'")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_iree)
    with pytest.raises(ToolchainError) as missing:
        tf.compile(_unary("tf.math.unary<kind = neg>", "f32"), backend="iree")
    assert str(missing.value) == MISSING
    assert MISSING == "backend 'iree' needs the [iree] extra: pip install 'tilefoundry[iree]'"


@pytest.mark.parametrize(
    "op, dtype",
    [
        ("tf.math.unary<kind = tanh>", "f64"),
        ("tf.nn.activation<kind = sin>", "f64"),
        ("tf.nn.activation<kind = cos>", "f64"),
        ("tf.nn.activation<kind = gelu>", "f32"),
        ("tf.nn.activation<kind = erf>", "f16"),
    ],
)
def test_what_iree_cannot_link_is_refused_naming_the_op(op: str, dtype: str) -> None:
    with pytest.raises(IreeLimitError) as refused:
        tf.compile(_unary(op, dtype), backend="iree")
    message = str(refused.value)
    assert message.startswith("backend 'iree' cannot compile an f64 math.")
    assert '"model.py":7:3' in message and "use backend 'native'" in message


def test_f32_sin_is_unbounded_for_large_arguments() -> None:
    """IREE's f32 sin (and cos) reduce the argument with an f32 pi: fine for moderate |x|
    (`test_bounds.py`), outside [-1, 1] from about 2^30 (docs/ir.md states it)."""
    compiled = tf.compile(_unary("tf.nn.activation<kind = sin>", "f32"), backend="iree")
    x = np.float32([0.0, 0.5, 1.0, -2.0])
    np.testing.assert_allclose(compiled.f(x), np.sin(x), rtol=2e-7, atol=1e-7)
    large = compiled.f(np.float32([1e12, -4.7e11, 1e20, 3e38]))
    assert (np.abs(large) > 1).any()


def test_a_call_passing_one_buffer_twice_is_refused() -> None:
    module = _module(
        """  tir.prim_func @g(%a: !tf.buffer<4xf32>, %b: !tf.buffer<4xf32>) -> () {
    tir.return
  }
  tir.prim_func @f(%b: !tf.buffer<4xf32>) -> () {
    tir.evaluate tf.call @g(%b, %b) : (!tf.buffer<4xf32>, !tf.buffer<4xf32>) -> ()
    tir.return
  }"""
    )
    with pytest.raises(EmitError, match="passes one buffer as two parameters of '@g'"):
        tf.compile(module, backend="iree")


def test_buffers_sharing_memory_are_refused_at_the_call() -> None:
    module = _module(
        """  tir.prim_func @f(%a: !tf.buffer<4xf32>, %b: !tf.buffer<4xf32>, %x: tensor<4xf32>) -> () {
    tir.evaluate tf.call tf.memory.copy(%a, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }"""
    )
    compiled = tf.compile(module, backend="iree")
    a, b = np.zeros(4, np.float32), np.zeros(4, np.float32)
    compiled.f(a, b, np.float32([1, 2, 3, 4]))
    assert a.tolist() == [1, 2, 3, 4] and not b.any()
    with pytest.raises(
        ExecutionError,
        match="argument 'a' \\(a buffer, written in place\\) shares memory with buffer argument 'b'",
    ):
        compiled.f(a, a, np.float32([1, 2, 3, 4]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_denormals_are_flushed(dtype: Any) -> None:
    """IREE's CPU code reads denormal inputs as zero and writes denormal results as zero (the
    interpreter and the native backend keep them): `testing/iree.py` models it."""
    name = "f32" if dtype == np.float32 else "f64"
    t = f"tensor<3x{name}>"
    module = _module(
        f"""  tir.prim_func @f(%x: {t}) -> {t} {{
    %y = tir.let tf.call tf.math.binary<kind = add>(%x, %x) : ({t}, {t}) -> {t}
    tir.return %y : {t}
  }}"""
    )
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.array([tiny, -tiny * 4, 1.5], dtype)
    assert module.f(x).tolist() == (x + x).tolist()  # the interpreter: denormal sums
    got = tf.compile(module, backend="iree").f(x)
    assert got.tolist() == [0.0, 0.0, 3.0] and np.signbit(got[1])


def test_f64_is_kept_not_demoted() -> None:
    """IREE demotes f64 to f32 unless told not to (`--iree-input-demote-f64-to-f32=false`)."""
    t = "tensor<2xf64>"
    module = _module(
        f"""  tir.prim_func @f(%x: {t}, %y: {t}) -> {t} {{
    %z = tir.let tf.call tf.math.binary<kind = div>(%x, %y) : ({t}, {t}) -> {t}
    tir.return %z : {t}
  }}"""
    )
    x, y = np.float64([1.0, 1e300]), np.float64([3.0, 1e10])
    got = tf.compile(module, backend="iree").f(x, y)
    assert got.dtype == np.float64 and got.tobytes() == (x / y).tobytes()
