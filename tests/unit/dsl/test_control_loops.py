"""Static loops, static conditions, layer lists and macros (issue 24, item 1): unrolled while
the function is read, checked against numpy; data-dependent control flow is refused (see
test_diagnostics.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import LetOp
from tilefoundry.dsl import ConstTensor, DSLError, Tensor, f32
from tilefoundry.dsl.control import LOOP_LIMIT, MACRO_DEPTH

N = tf.DimVar("n", 1, 17)


def swish(v: Any, scale: float = 1.0) -> Any:
    """A macro: operators on IR values, a default argument."""
    return v * ops.sigmoid(v) * scale


def clamp01(v: Any) -> Any:
    """A macro with comparisons and a static loop."""
    for bound, low in ((0.0, True), (1.0, False)):
        edge = v * 0.0 + bound
        v = ops.where(v < bound, edge, v) if low else ops.where(v > bound, edge, v)
    return v


def run_layers(self: Any, h: Any, w: Any, count: int) -> Any:
    """A macro over `self`: getattr with a computed name, a layer list indexed."""
    for i in range(count):
        h = getattr(self, f"layer{i}").block(h, w)
        h = self.layers[i].block(h, w)
    return h


def np_swish(v: np.ndarray, scale: float = 1.0) -> np.ndarray:
    return v / (1.0 + np.exp(-v)) * scale


class Layer(tf.Module, entry="block"):
    @tf.func
    def block(x: Tensor[(N, 4), f32], w: ConstTensor[(4, 4), f32]):
        return swish(x @ w, scale=0.5) + x


class Stack(tf.Module, entry="step"):
    def __init__(self, depth: int) -> None:
        self.layers = [Layer() for _ in range(depth)]
        for i in range(depth):
            setattr(self, f"layer{i}", Layer())

    @tf.func
    def step(self, x: Tensor[(N, 4), f32], w: ConstTensor[(4, 4), f32]):
        for layer in self.layers:
            x = layer.block(x, w)
        return run_layers(self, x, w, len(self.layers))


def np_layer(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np_swish(x @ w, 0.5) + x


def test_a_loop_over_a_layer_list_and_a_macro_over_self() -> None:
    model = Stack(3)
    names = [m.attached_name for m in model.modules]
    assert names == ["layers.0", "layers.1", "layers.2", "layer0", "layer1", "layer2"]
    assert [m.attached_name for m in model.layers] == ["layers.0", "layers.1", "layers.2"]
    assert all(isinstance(m, Layer) for m in model.layers)
    step = model.entry_function()
    calls = [
        op for op in step.function_op.walk() if isinstance(op, CallOp) and op.callee is not None
    ]
    assert len(calls) == 9  # 3 + 2 * 3 unrolled calls
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    w = (rng.standard_normal((4, 4)) / 4).astype(np.float32)
    want = x
    for _ in range(9):
        want = np_layer(want, w)
    np.testing.assert_allclose(model.step(x, w), want, rtol=1e-5, atol=1e-5)
    assert tf.structural_equal(tf.parse_module(tf.print_module(model)), model)


def test_a_layer_list_attached_to_a_built_module() -> None:
    model = Stack(1)
    model.extra = [Layer(), Layer()]
    assert [m.attached_name for m in model.extra] == ["extra.0", "extra.1"]
    assert model.lookup("step") is not None


def test_static_if_break_continue_and_conditional_expressions() -> None:
    use_bias = True

    @tf.func
    def f(x: Tensor[(4,), f32]):
        for i in range(10):
            if i % 2 == 1:
                continue
            elif i >= 6:
                break
            x = x + float(i)  # i = 0, 2, 4
        if not use_bias:
            return x
        x = x * (2.0 if use_bias else 3.0)
        return clamp01(x / 100.0)

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.clip((x + 6.0) * 2.0 / 100.0, 0.0, 1.0), rtol=1e-6)


def test_a_loop_over_values_and_a_tuple_target() -> None:
    @tf.func
    def f(a: Tensor[(4,), f32], b: Tensor[(4,), f32]):
        total = a - a
        for scale, v in zip((1.0, 2.0), [a, b], strict=True):
            total = total + v * scale
        for v in (a, b):  # a tuple of IR values in a loop header: the values, not a tf.Tuple
            total = total + v
        return total

    a, b = np.ones(4, np.float32), np.full(4, 3.0, np.float32)
    np.testing.assert_allclose(f(a, b), a + 2 * b + a + b)


def test_a_static_loop_in_a_prim_func() -> None:
    @tf.prim_func
    def f(x: Tensor[(4,), f32]):
        for _ in range(3):
            x = swish(x)
        return x

    lets = [s for s in f.entry_function().function_op.walk() if isinstance(s, LetOp)]
    assert len(lets) == 3
    want = np.arange(4, dtype=np.float32)
    for _ in range(3):
        want = np_swish(want)
    np.testing.assert_allclose(f(np.arange(4, dtype=np.float32)), want, rtol=1e-6)


def test_a_macro_with_a_mesh_and_keywords() -> None:
    def tile(x: Any, *, level: str) -> Any:
        with tf.Mesh(level):
            return ops.exp(x) - 1.0

    @tf.func(topologies=(tf.Topology("cta", 2),))
    def f(x: Tensor[(4,), f32]):
        return tile(x, level="cta")

    assert "tf.mesh" in tf.print_module(f)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.expm1(x), rtol=1e-5)


def test_a_recursive_macro_stops_on_a_python_condition() -> None:
    def power(x: Any, n: int) -> Any:
        return x if n == 1 else x * power(x, n - 1)

    @tf.func
    def f(x: Tensor[(4,), f32]):
        return power(x, 5)

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(f(x), x**5)


def where(marker: str) -> tuple[int, int]:
    for number, text in enumerate(Path(__file__).read_text().splitlines(), start=1):
        if marker in text and "where(" not in text and '"' + marker not in text:
            return number, text.index(marker) + 1
    raise AssertionError(marker)


def test_a_macro_without_end_is_one_diagnostic() -> None:
    def forever(x: Any) -> Any:
        return forever(x + 1.0)  # endless

    with pytest.raises(DSLError) as info:

        @tf.func
        def f(x: Tensor[(4,), f32]):
            return forever(x)

    assert f"more than {MACRO_DEPTH} levels deep" in info.value.message
    line, column = where("forever(x + 1.0)  # endless")
    assert (info.value.line, info.value.column) == (line, column)


def test_too_long_a_static_loop_is_one_diagnostic() -> None:
    with pytest.raises(DSLError) as info:

        @tf.func
        def f(x: Tensor[(4,), f32]):
            for _ in range(LOOP_LIMIT + 1):  # long
                x = -x
            return x

    assert f"at most {LOOP_LIMIT} iterations" in info.value.message
    assert info.value.line == where("range(LOOP_LIMIT + 1):  # long")[0]


def test_a_loop_variable_may_not_shadow_a_child() -> None:
    with pytest.raises(DSLError, match="name clash: 'layers'"):

        class Bad(tf.Module, entry="step"):
            def __init__(self) -> None:
                self.layers = [Layer()]

            @tf.func
            def step(self, x: Tensor[(N, 4), f32], w: ConstTensor[(4, 4), f32]):
                for layers in range(2):  # noqa: B007
                    x = x + 1.0
                return x

        Bad()


def test_a_macro_call_with_wrong_arguments_is_one_diagnostic() -> None:
    with pytest.raises(DSLError, match="macro 'swish': too many positional arguments"):

        @tf.func
        def f(x: Tensor[(4,), f32]):
            return swish(x, 1.0, 2.0)


class Configured(tf.Module, entry="f"):
    def __init__(self, bias: bool) -> None:
        self._bias = bias

    @tf.func
    def f(self, x: Tensor[(4,), f32]):
        if self._bias:  # the Python state __init__ set: a static condition
            return x + 1.0
        return x - self._missing if False else x


def test_a_static_condition_on_python_state_of_the_instance() -> None:
    x = np.zeros(4, np.float32)
    np.testing.assert_array_equal(Configured(True).f(x), x + 1.0)
    np.testing.assert_array_equal(Configured(False).f(x), x)
    with pytest.raises(DSLError, match="has no Python attribute '_other'"):

        class Unset(tf.Module, entry="f"):
            @tf.func
            def f(self, x: Tensor[(4,), f32]):
                return x if self._other else -x

        Unset()


READ_COUNT: list[int] = []
GAIN = 1.0


def counted(v: Any) -> Any:
    """A macro that counts how often a body that calls it is read."""
    READ_COUNT.append(1)
    return v * GAIN


class Counted(tf.Module, entry="f"):
    @tf.func
    def f(x: Tensor[(4,), f32]):
        return counted(x) + 1.0


class ManyCounted(tf.Module, entry="step"):
    def __init__(self, n: int) -> None:
        self.layers = [Counted() for _ in range(n)]

    @tf.func
    def step(self, x: Tensor[(4,), f32]):
        for layer in self.layers:
            x = layer.f(x)
        return x


def test_n_layers_of_one_class_are_read_once() -> None:
    global GAIN
    Counted.__dict__["__tf_class__"].template = None  # as if never instantiated
    READ_COUNT.clear()
    model = ManyCounted(5)
    assert len(READ_COUNT) == 1  # one read, four copies
    ops_of = [m.module_op for m in model.layers]
    assert len(set(map(id, ops_of))) == 5
    assert all(type(m) is Counted for m in model.layers)
    x = np.zeros(4, np.float32)
    np.testing.assert_array_equal(model.step(x), np.full(4, 5.0))
    GAIN = 2.0  # a name the body read resolves otherwise: read again
    try:
        again = Counted()
        assert len(READ_COUNT) == 2
        np.testing.assert_array_equal(again.f(np.ones(4, np.float32)), np.full(4, 3.0))
    finally:
        GAIN = 1.0
    Configured(True)
    Configured(True)  # reads the instance's state: each instance is read
    lone = Counted()  # a copy that is a root: verified on its own
    assert lone.module_op.parent is None and len(READ_COUNT) == 3


class WithHelper(tf.Module, entry="f"):
    def __init__(self, gain: float) -> None:
        self._gain = gain

    def _scaled(self, v: Any) -> Any:  # a method read as a macro over `self`
        return v * self._gain + self.g(v)

    @tf.func
    def g(x: Tensor[(4,), f32]):
        return -x

    @tf.func
    def f(self, x: Tensor[(4,), f32]):
        return self._scaled(x)


def test_a_helper_method_is_a_macro_over_self() -> None:
    x = np.ones(4, np.float32)
    np.testing.assert_array_equal(WithHelper(3.0).f(x), np.full(4, 2.0))
    np.testing.assert_array_equal(WithHelper(5.0).f(x), np.full(4, 4.0))


class Targeted(Stack, target="h100", topologies=()):
    """The stack as a root that declares its context: its layers' functions can be selected."""


def test_a_dotted_path_selects_into_a_layer_list() -> None:
    model = Targeted(2)
    assert tf.select(model, "layers.1") is model.layers[1]
    for i in range(2):
        kernel = tf.select(model, f"layers.{i}.block")
        assert kernel.entry == "block"
        assert tf.structural_equal(kernel, tf.select(model, f'@"layers.{i}"::@block'))
    x = np.ones((2, 4), np.float32)
    w = np.eye(4, dtype=np.float32)
    assert np.allclose(tf.select(model, "layers.0.block")(x, w), np_layer(x, w))
    with pytest.raises(KeyError, match="'layers' names no child module"):
        tf.select(model, "layers.2.block")
