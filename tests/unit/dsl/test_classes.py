"""Class-body modules (issue 13, item 6): the collection rule (decorated functions, children
assigned in `__init__`, plain methods; `_` names are none of these), the class declaring entry /
target / topologies, and each instance being a real Module: it prints, parses back, selects,
clones, runs and goes through passes; attribute assignment attaches or is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function
from tilefoundry.dsl import ConstTensor, DSLError, Tensor, f32

SEQ = tf.DimVar("seq", 1, 33)
X = tf.TensorType((SEQ, 4), "f32")
W = tf.TensorType((4, 4), "f32")
LEVELS = (tf.Topology("cta", 4), tf.Topology("warp", 4))


class Mlp(tf.Module):
    @tf.func
    def mlp(self, x: Tensor[(SEQ, 4), f32], w: ConstTensor[(4, 4), f32]):
        return x + self.act(x @ w)  # `act` is defined below: the symbol table resolves it

    @tf.func
    def act(x: Tensor[(SEQ, 4), f32]):
        return ops.relu(x)


class Layer(tf.Module, entry="block"):
    def __init__(self) -> None:
        self.ffn = Mlp()
        self._note = "python state"  # a `_` name: normal attribute rules

    @tf.func
    def block(self, x: Tensor[(SEQ, 4), f32], w: ConstTensor[(4, 4), f32]):
        h = self.ffn.mlp(x, w)
        return self.ffn.mlp(h, w)

    def forward(self, x: Any, w: Any) -> Any:
        return self.block(x, w)

    def _helper(self) -> None:
        return None


class Root(tf.Module, name="root", entry="step", target="h100", topologies=LEVELS):
    def __init__(self, layers: int) -> None:
        for i in range(layers):
            setattr(self, f"layer{i}", Layer())

    @tf.func
    def step(self, x: Tensor[(SEQ, 4), f32], w: ConstTensor[(4, 4), f32]):
        h = self.layer0.block(x, w)
        return layer1.block(h, w)  # noqa: F821 - a bare name resolves through the symbol table


def by_constructors() -> tf.Module:
    def mlp_module() -> tf.Module:
        x = tf.Var("x", X)
        act = Function("act", [x], ops.relu(x))
        x, w = tf.Var("x", X), tf.Var("w", W, is_const=True)
        mlp = Function("mlp", [x, w], ops.add(x, tf.Call(act, [ops.matmul(x, w)])))
        return tf.Module(name="Mlp", functions=[mlp, act])

    def layer() -> tf.Module:
        ffn = mlp_module()
        x, w = tf.Var("x", X), tf.Var("w", W, is_const=True)
        mlp = ffn.lookup("mlp")
        body = tf.Call(mlp, [tf.Call(mlp, [x, w]), w])
        return tf.Module(
            name="Layer",
            functions=[Function("block", [x, w], body)],
            modules={"ffn": ffn},
            entry="block",
        )

    layers = {"layer0": layer(), "layer1": layer()}
    x, w = tf.Var("x", X), tf.Var("w", W, is_const=True)
    h = tf.Call(layers["layer0"].lookup("block"), [x, w])
    step = Function("step", [x, w], tf.Call(layers["layer1"].lookup("block"), [h, w]))
    return tf.Module(
        name="root",
        functions=[step],
        modules=layers,
        entry="step",
        target="h100",
        topologies=LEVELS,
    )


def reference(x: Any, w: Any, layers: int) -> Any:
    for _ in range(2 * layers):
        x = x + np.maximum(x @ w, 0)
    return x


def test_the_collection_rule() -> None:
    layer = Layer()
    assert isinstance(layer, Layer) and isinstance(layer, tf.Module)
    assert [f.name for f in layer.functions] == ["block"]
    assert [m.attached_name for m in layer.modules] == ["ffn"]
    assert layer.ffn.name == "Mlp" and isinstance(layer.ffn, Mlp)
    assert set(layer.methods) == {"forward"}
    assert layer.entry == "block" and layer.name == "Layer"
    assert layer._note == "python state"
    assert [f.name for f in Mlp().functions] == ["mlp", "act"]


def test_a_class_module_equals_the_one_built_by_constructors() -> None:
    root = Root(2)
    assert tf.structural_equal(root, by_constructors())
    assert root.resolve_target() == tf.Target("h100") and root.topologies == LEVELS


def test_it_runs_its_functions_and_methods() -> None:
    root = Root(2)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    w = (np.eye(4) * 0.5).astype(np.float32)
    np.testing.assert_allclose(root.step(x, w), reference(x, w, 2), rtol=1e-6)
    np.testing.assert_allclose(root(x, w), reference(x, w, 2), rtol=1e-6)
    np.testing.assert_allclose(root.layer1.forward(x, w), reference(x, w, 1), rtol=1e-6)


def test_it_prints_parses_back_selects_clones_and_passes() -> None:
    root = Root(2)
    text = tf.print_module(root)
    assert 'tf.module @layer1 name "Layer"' in text
    assert tf.structural_equal(tf.parse_module(text), root)
    kernel = tf.select(root, "layer1.ffn.mlp")
    assert kernel.entry == "mlp"
    copy = root.cloned()
    assert tf.structural_equal(copy, root) and copy.module_op is not root.module_op
    x = np.ones((2, 4), np.float32)
    w = np.eye(4, dtype=np.float32)
    np.testing.assert_allclose(copy.layer0.forward(x, w), root.layer0.forward(x, w))
    inlined = tf.run_passes(root, "tf-inline,canonicalize")
    np.testing.assert_allclose(inlined.step(x, w), root.step(x, w), rtol=1e-6)


def test_n_instances_are_n_distinct_trees() -> None:
    a, b = Layer(), Layer()
    assert a.module_op is not b.module_op
    assert a.ffn.module_op is not b.ffn.module_op
    assert tf.structural_equal(a, b)


def test_assigning_a_module_to_a_built_module_attaches_it() -> None:
    layer = Layer()
    layer.extra = Mlp()
    assert [m.attached_name for m in layer.modules] == ["ffn", "extra"]
    assert isinstance(layer.extra, Mlp)
    layer.verify()


def test_assigning_anything_else_is_refused() -> None:
    layer = Layer()
    with pytest.raises(AttributeError, match="cannot assign 'size'"):
        layer.size = 3
    with pytest.raises(tf.VerifyError, match="names both a function and a child module"):
        layer.block = Mlp()
    assert [m.attached_name for m in layer.modules] == ["ffn"]

    class Config(tf.Module):
        def __init__(self) -> None:
            self.size = 3

    with pytest.raises(AttributeError, match="cannot assign 'size'"):
        Config()


def test_an_unknown_class_declaration_is_refused() -> None:
    with pytest.raises(DSLError, match="unknown declaration 'targets'"):

        class Wrong(tf.Module, targets="h100"):
            pass


def test_a_class_with_a_declared_hierarchy_checks_its_meshes() -> None:
    with pytest.raises(DSLError, match="mesh level 'block' is not in the effective hierarchy"):

        class Kernel(tf.Module, topologies=LEVELS):
            @tf.func
            def k(x: Tensor[(4,), f32]):
                with tf.Mesh("block"):
                    return ops.exp(x)

        Kernel()
