"""`with Mesh(...)` in a @func body (issue 13, item 5) and shape-specialization variants with
sealing (item 4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dsl import DSLError, Mesh, Tensor, f32

FILE = __file__
LEVELS = (tf.Topology("cta", 4), tf.Topology("warp", 4))
N = tf.DimVar("n", 1, 65)
T4 = tf.TensorType((4,), "f32")


def where(marker: str) -> tuple[int, int]:
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if marker in text and "where(" not in text:
            return number, text.index(marker) + 1
    raise AssertionError(marker)


@tf.func(target="h100", topologies=LEVELS)
def meshes(x: Tensor[(4,), f32]):
    with Mesh("cta") as outer:  # MARK-outer
        e = ops.exp(x)
        with tf.Mesh(topology="warp", loc="inner"):
            y = e * x
        h = y + e  # noqa: F841 - the block's value; `outer` names it after the block
    return ops.neg(outer)


def by_constructors() -> tf.Module:
    x = tf.Var("x", T4)

    def outer() -> tf.Expr:
        e = ops.exp(x)
        y = MeshOp("warp", lambda: ops.mul(e, x))
        return ops.add(y, e)

    f = Function("meshes", [x], ops.neg(MeshOp("cta", outer)))
    return tf.Module(name="meshes", functions=[f], entry="meshes", target="h100", topologies=LEVELS)


def test_a_with_mesh_block_is_a_tf_mesh_over_its_statements() -> None:
    assert tf.structural_equal(meshes, by_constructors())
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(meshes(x), -(np.exp(x) * x + np.exp(x)), rtol=1e-6)


def test_the_mesh_is_named_and_spanned() -> None:
    (f,) = meshes.functions
    found = {tf.binding_name(op): op for op in f.function_op.walk() if isinstance(op, MeshOp)}
    assert set(found) == {"outer", "inner"}
    assert found["outer"].topology.data == "cta" and found["inner"].topology.data == "warp"
    line, column = where('Mesh("cta") as outer')
    span = tf.get_metadata(found["outer"], tf.SourceSpanMetadata)
    assert span is not None and (span.line, span.column) == (line, column)
    text = tf.print_module(meshes)
    assert '%outer = tf.mesh "cta"' in text and '%inner = tf.mesh "warp"' in text


@tf.func
def returned(x: Tensor[(4,), f32]):
    with Mesh("cta"):
        return ops.exp(x)


def test_a_block_that_returns_is_the_functions_value() -> None:
    x = tf.Var("x", T4)
    expected = tf.Module.implicit(Function("returned", [x], MeshOp("cta", lambda: ops.exp(x))))
    assert tf.structural_equal(returned, expected)


class Proto(tf.Module):
    @tf.func
    def k(x: Tensor[(4,), f32]):
        with Mesh("block"):
            return ops.exp(x)


def test_a_prototype_is_checked_when_placed() -> None:
    proto = Proto()  # no hierarchy yet: nothing to check against
    assert proto.topologies is None

    class Holder(tf.Module, target="h100", topologies=LEVELS):  # placed
        def __init__(self) -> None:
            self.p = Proto()

    with pytest.raises(DSLError) as info:
        Holder()
    line, column = where('Mesh("block")')
    assert (info.value.line, info.value.column) == (line, column)
    assert "mesh names topology level 'block'" in info.value.message


class Varied(tf.Module, entry="f"):
    @tf.func
    def f(x: Tensor[(N,), f32]):
        return ops.exp(x)

    @f.variant(n=(1, 8))
    def f_small(x):
        return ops.exp(x) * 1.0

    @f.variant(n=(8, 16))
    def f_mid(x: Tensor[(N,), f32]):
        return ops.exp(x) + 0.0


def test_variants_are_added_while_authoring() -> None:
    module = Varied()
    (f,) = module.functions
    assert f.specializations == (
        (tf.DimVarRangePat("n", 1, 8),),
        (tf.DimVarRangePat("n", 8, 16),),
    )
    assert not hasattr(Varied, "f_small")  # the variant is no name of the module
    x = tf.Var("x", tf.TensorType((N,), "f32"))
    base = Function("f", [x], ops.exp(x))
    small = tf.Var("x", tf.TensorType((N,), "f32"))
    base.add_variant(
        [tf.DimVarRangePat("n", 1, 8)], [small], ops.mul(ops.exp(small), tf.Constant([1.0]))
    )
    mid = tf.Var("x", tf.TensorType((N,), "f32"))
    base.add_variant(
        [tf.DimVarRangePat("n", 8, 16)], [mid], ops.add(ops.exp(mid), tf.Constant([0.0]))
    )
    assert tf.structural_equal(module, tf.Module(name="Varied", functions=[base], entry="f"))
    values = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(module(values), np.exp(values), rtol=1e-6)


def test_once_built_the_base_refuses_a_variant() -> None:
    Varied()
    base = Varied.__dict__["__tf_class__"].functions["f"]
    with pytest.raises(DSLError, match="function 'f' is sealed"):

        @base.variant(n=(16, 32))
        def f_late(x):
            return x


def test_a_variant_out_of_its_envelope_is_refused_at_the_variant() -> None:
    class Bad(tf.Module):
        @tf.func
        def g(x: Tensor[(N,), f32]):
            return x

        @g.variant(n=(1, 100))
        def g_wide(x):  # wide
            return x

    with pytest.raises(DSLError) as info:
        Bad()
    assert info.value.line == where("def g_wide(x):  # wide")[0]
