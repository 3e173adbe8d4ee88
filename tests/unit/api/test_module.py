"""Spec section 1 (Module) and 1.1 (function access): construction, sealing, the one attribute
surface, lookup / function_named / entry_function, the implicit single-function module, weights,
ownership of a child subtree, cloned() / renamed(), and atomicity of a refused construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import StringAttr, UnitAttr

from tilefoundry import (
    Call,
    DimVar,
    DimVarRangePat,
    Module,
    Target,
    TensorType,
    Topology,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
    select,
    structural_equal,
)
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import LetStmt, PrimFunction
from tilefoundry.dialects.tf.module import SURFACE_NAMES
from tilefoundry.dialects.tf.ops import CallOp

T4 = TensorType((4,), "f32")
W44 = TensorType((4, 4), "f32")
N = DimVar("n", 1, 65)
XN = TensorType((N, 4), "f32")
LEVELS = (Topology("cluster", 2), Topology("cta", 4), Topology("warp", 4))


def neg_fn(name: str) -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.neg(x))


def exp_fn(name: str) -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.exp(x))


def affine_fn(name: str, *, const: bool = True) -> Function:
    """x @ w + x, with w a const (weight) param."""
    x = Var("x", XN)
    w = Var("w", W44, is_const=const)
    return Function(name=name, params=[x, w], body=ops.add(ops.matmul(x, w), x))


def mlp_module(name: str = "MLP") -> Module:
    return Module(name=name, functions=[affine_fn("mlp")])


def decoder(prototype: Module, layers: int = 2) -> Module:
    """A root whose entry calls mlp of each layer, all renamed copies of one prototype."""
    children = {f"layer{i}": prototype.renamed(f"layer{i}") for i in range(layers)}
    x = Var("x", XN)
    w = Var("w", W44, is_const=True)
    h: Any = x
    for child in children.values():
        h = Call(child.lookup("mlp"), [h, w])
    step = Function(name="step", params=[x, w], body=h)
    return Module(
        name="decoder",
        functions=[step],
        modules=children,
        target="h100",
        topologies=LEVELS,
        entry="step",
    )


def affine_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x @ w + x


# ---------------------------------------------------------------------------------------------
# Construction


def test_module_holds_its_functions_in_order() -> None:
    f, g = neg_fn("f"), exp_fn("g")
    m = Module(name="m", functions=[f, g])
    assert m.name == "m"
    assert isinstance(m.functions, tuple)
    assert [fn.name for fn in m.functions] == ["f", "g"]
    assert m.functions[0] is f
    assert m.functions[1] is g


def test_module_holds_function_and_prim_function_together() -> None:
    x = Var("x", T4)
    y = LetStmt("y", ops.neg(x))
    k = PrimFunction(name="k", params=[x], body=[y], result=y.var)
    f = neg_fn("f")
    m = Module(name="m", functions=[f, k])
    assert [type(fn) for fn in m.functions] == [Function, PrimFunction]
    assert m.lookup("k") is k


def test_entry_names_a_function() -> None:
    f = neg_fn("f")
    m = Module(name="m", functions=[f, exp_fn("g")], entry="f")
    assert m.entry == "f"
    assert m.entry_function() is f


def test_entry_must_name_a_function_of_the_module() -> None:
    with pytest.raises(VerifyError, match=r"entry '@nope' does not name a function.*'f'"):
        Module(name="m", functions=[neg_fn("f")], entry="nope")


def test_entry_cannot_name_a_child_or_a_method() -> None:
    with pytest.raises(VerifyError, match=r"entry '@c' does not name a function"):
        Module(name="m", functions=[neg_fn("f")], modules={"c": Module(name="c")}, entry="c")
    with pytest.raises(VerifyError, match=r"entry '@fw' does not name a function"):
        Module(name="m", functions=[neg_fn("f")], methods={"fw": lambda self: 0}, entry="fw")


def test_modules_as_a_mapping_name_each_child_by_its_key() -> None:
    child = Module(name="MLP", functions=[neg_fn("mlp")])
    root = Module(name="root", modules={"self_attn": child})
    assert root.modules == (child,)
    assert root.self_attn is child
    assert child.name == "MLP"  # its own name is kept ...
    with pytest.raises(AttributeError):
        _ = root.MLP  # ... but the tree names it by the attribute it is attached under
    assert select(root, "self_attn") is child
    assert "tf.module @self_attn" in print_module(root)


def test_modules_as_an_iterable_name_each_child_by_its_own_name() -> None:
    a = Module(name="attn", functions=[neg_fn("f")])
    b = Module(name="mlp", functions=[neg_fn("f")])
    root = Module(name="root", modules=[a, b])
    assert root.modules == (a, b)
    assert root.attn is a
    assert root.mlp is b


def test_a_child_attachment_name_may_equal_a_grandchild_or_function_name_elsewhere() -> None:
    # The child's own name "mlp" equals a function name of the root: only the attachment name
    # takes part in the attribute surface, so this is no clash.
    child = Module(name="mlp", functions=[neg_fn("k")])
    root = Module(name="r", functions=[exp_fn("mlp")], modules={"block": child})
    assert root.block is child
    out = root.mlp(np.zeros(4, np.float32))
    np.testing.assert_allclose(out, np.ones(4))


def test_metadata_holds_configuration() -> None:
    m = Module(name="m", metadata={"opt_level": 3, "fast_math": True, "target_features": "+ptx80"})
    assert m.metadata == {"opt_level": 3, "fast_math": True, "target_features": "+ptx80"}
    assert Module(name="plain").metadata == {}


@pytest.mark.parametrize("key", ["mesh_axes", "mesh", "topology_levels", "Topologies"])
def test_metadata_refuses_mesh_or_topology_semantics(key: str) -> None:
    with pytest.raises(VerifyError, match=rf"metadata '{key}'.*never mesh or topology"):
        Module(name="m", metadata={key: 2})


def test_metadata_refuses_a_topology_value() -> None:
    with pytest.raises(VerifyError, match=r"(?i)topology"):
        Module(name="m", metadata={"levels": Topology("cta", 4)})


def test_methods_are_collected_and_bound_like_instance_methods() -> None:
    def forward(self: Module, x: np.ndarray) -> np.ndarray:
        return self.f(x) + 1

    m = Module(name="m", functions=[neg_fn("f")], methods={"forward": forward})
    assert dict(m.methods) == {"forward": forward}
    bound = m.forward
    assert bound.__self__ is m
    assert bound.__func__ is forward
    np.testing.assert_allclose(m.forward(np.ones(4, np.float32)), np.zeros(4))


def test_module_name_must_be_a_non_empty_str() -> None:
    with pytest.raises(TypeError, match="non-empty str"):
        Module(name="")
    with pytest.raises(TypeError, match="non-empty str"):
        Module(name=None)


def test_functions_must_be_functions() -> None:
    with pytest.raises(TypeError, match="must be a Function or PrimFunction"):
        Module(name="m", functions=[ops.neg(Var("x", T4))])


# ---------------------------------------------------------------------------------------------
# Sealing


def _square_variant(f: Function, lo: int, hi: int) -> None:
    v = Var("x", XN)
    f.add_variant([DimVarRangePat("n", lo, hi)], [v], ops.mul(v, v))


def test_variants_can_be_added_while_authoring() -> None:
    x = Var("x", XN)
    f = Function(name="f", params=[x], body=ops.neg(x))
    _square_variant(f, 1, 8)
    _square_variant(f, 8, 16)
    assert not f.sealed
    assert f.specializations == ((DimVarRangePat("n", 1, 8),), (DimVarRangePat("n", 8, 16),))
    m = Module(name="m", functions=[f])
    assert m.lookup("f").specializations == f.specializations
    assert len(m.lookup("f").variants) == 2


def test_constructing_a_module_seals_its_functions() -> None:
    x = Var("x", XN)
    f = Function(name="f", params=[x], body=ops.neg(x))
    _square_variant(f, 1, 8)
    Module(name="m", functions=[f])
    assert f.sealed
    with pytest.raises(VerifyError, match=r"function 'f' is sealed"):
        _square_variant(f, 8, 16)
    assert len(f.variants) == 1


def test_a_function_read_from_text_is_sealed() -> None:
    x = Var("x", XN)
    m = parse_module(
        print_module(Module(name="m", functions=[Function(name="f", params=[x], body=ops.neg(x))]))
    )
    with pytest.raises(VerifyError, match="sealed"):
        _square_variant(m.lookup("f"), 1, 8)


def test_the_functions_of_a_copy_are_sealed() -> None:
    x = Var("x", XN)
    m = Module(name="m", functions=[Function(name="f", params=[x], body=ops.neg(x))])
    with pytest.raises(VerifyError, match="sealed"):
        _square_variant(m.cloned().lookup("f"), 1, 8)


# ---------------------------------------------------------------------------------------------
# One attribute surface: function / child / method names are disjoint at one level


def test_function_and_child_names_must_be_disjoint() -> None:
    with pytest.raises(
        VerifyError, match=r"'a' names both a function and a child module.*disjoint"
    ):
        Module(name="m", functions=[neg_fn("a")], modules={"a": Module(name="z")})


def test_function_and_method_names_must_be_disjoint() -> None:
    with pytest.raises(VerifyError, match=r"'a' names both a function and a method.*disjoint"):
        Module(name="m", functions=[neg_fn("a")], methods={"a": lambda self: 0})


def test_child_and_method_names_must_be_disjoint() -> None:
    with pytest.raises(VerifyError, match=r"'a' names both a child module and a method.*disjoint"):
        Module(name="m", modules={"a": Module(name="z")}, methods={"a": lambda self: 0})


def test_two_functions_may_not_share_a_name() -> None:
    with pytest.raises(VerifyError, match=r"'f'"):
        Module(name="m", functions=[neg_fn("f"), exp_fn("f")])


def test_two_children_may_not_share_an_attachment_name() -> None:
    with pytest.raises(VerifyError, match=r"'a'"):
        Module(name="m", modules=[Module(name="a"), Module(name="a")])


@pytest.mark.parametrize(
    "second",
    [
        "hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }",
        "tf.module @f { }",
        "tir.prim_func @f(%x: tensor<4xf32>) -> tensor<4xf32> { tir.return %x : tensor<4xf32> }",
    ],
)
def test_a_parsed_module_keeps_names_disjoint_too(second: str) -> None:
    text = (
        "tf.module @m {\n"
        "  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }\n"
        f"  {second}\n"
        "}\n"
    )
    with pytest.raises(ValueError, match=r'"f"|\'f\''):
        parse_module(text)


def test_the_reserved_names_are_exactly_the_module_api() -> None:
    public = {name for name in dir(Module) if not name.startswith("_")}
    assert public == SURFACE_NAMES


@pytest.mark.parametrize("api", ["weights", "lookup", "target", "name", "cloned", "of"])
@pytest.mark.parametrize("kind", ["function", "child module", "method"])
def test_a_name_that_would_shadow_the_module_api_is_refused(api: str, kind: str) -> None:
    with pytest.raises(VerifyError, match=rf"{kind} name '{api}' shadows the Module API"):
        if kind == "function":
            Module(name="m", functions=[neg_fn(api)])
        elif kind == "child module":
            Module(name="m", modules={api: Module(name="c")})
        else:
            Module(name="m", methods={api: lambda self: 0})


def test_a_child_listed_under_an_api_name_is_refused() -> None:
    with pytest.raises(VerifyError, match=r"child module name 'weights' shadows"):
        Module(name="m", modules=[Module(name="weights")])
    with pytest.raises(VerifyError, match=r"child module name 'lookup' shadows"):
        Module(name="m", modules=[mlp_module().renamed("lookup")])


@pytest.mark.parametrize(
    "entry",
    [
        "hir.func @weights(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }",
        "tir.prim_func @target(%x: tensor<4xf32>) -> tensor<4xf32> { tir.return %x : tensor<4xf32> }",
        "tf.module @lookup { }",
        "tf.module @_hidden { }",
    ],
)
def test_a_parsed_module_refuses_names_the_surface_cannot_reach(entry: str) -> None:
    with pytest.raises(ValueError, match=r"shadows the Module API|begins with '_'"):
        parse_module(f"tf.module @m {{\n  {entry}\n}}\n")


def test_the_same_names_at_different_levels_are_fine() -> None:
    child = Module(name="c", functions=[neg_fn("f")], methods={"forward": lambda self: "child"})
    root = Module(
        name="r",
        functions=[exp_fn("f")],
        modules={"c": child},
        methods={"forward": lambda self: "root"},
    )
    assert root.forward() == "root"
    assert root.c.forward() == "child"
    np.testing.assert_allclose(root.f(np.zeros(4, np.float32)), np.ones(4))
    np.testing.assert_allclose(root.c.f(np.ones(4, np.float32)), -np.ones(4))


def _reach_underscore(kind: str) -> Any:
    """Build a module with an `_`-named entry of `kind`; return what `m._hidden` gives. A
    construction that refuses the name is also in line with the spec (such a name is never a
    function, module or method): then there is nothing to reach."""
    try:
        if kind == "function":
            m = Module(name="m", functions=[neg_fn("_hidden")])
        elif kind == "child":
            m = Module(name="m", modules={"_hidden": Module(name="c")})
        else:
            m = Module(name="m", methods={"_hidden": lambda self: "method"})
    except VerifyError:
        return "refused"
    try:
        return m._hidden
    except AttributeError:
        return "normal attribute rules"


@pytest.mark.parametrize("kind", ["function", "child", "method"])
def test_underscore_names_never_resolve_through_the_surface(kind: str) -> None:
    assert _reach_underscore(kind) in ("refused", "normal attribute rules")


def test_underscore_names_resolve_by_normal_attribute_rules() -> None:
    m = Module(name="m", functions=[neg_fn("f")])
    with pytest.raises(AttributeError):
        _ = m._no_such_attribute
    with pytest.raises(AttributeError):
        _ = m.__array_interface__  # numpy's probe must not hit the function surface
    assert not hasattr(m, "__len__")


# ---------------------------------------------------------------------------------------------
# Attribute access


def test_function_name_resolves_to_a_callable_that_runs_it() -> None:
    f = neg_fn("f")
    m = Module(name="m", functions=[f])
    run = m.f
    assert callable(run)
    assert run is not f
    assert not isinstance(run, Function)
    out = run(np.arange(4, dtype=np.float32))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, -np.arange(4))


def test_prim_function_name_resolves_to_a_callable_that_runs_it() -> None:
    x = Var("x", T4)
    y = LetStmt("y", ops.exp(x))
    m = Module(name="m", functions=[PrimFunction(name="k", params=[x], body=[y], result=y.var)])
    assert not isinstance(m.k, PrimFunction)
    np.testing.assert_allclose(m.k(np.zeros(4, np.float32)), np.ones(4))


def test_the_callable_takes_one_argument_per_param_const_ones_included() -> None:
    m = Module(name="m", functions=[affine_fn("f")])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    w = np.eye(4, dtype=np.float32) * 2
    np.testing.assert_allclose(m.f(x, w), affine_ref(x, w))
    with pytest.raises(ValueError, match=r"takes 2 argument"):
        m.f(x)


def test_child_name_resolves_to_the_child_module() -> None:
    child = mlp_module()
    root = Module(name="root", functions=[neg_fn("f")], modules={"layer0": child})
    assert isinstance(root.layer0, Module)
    assert root.layer0 is child
    x = np.ones((3, 4), np.float32)
    w = np.eye(4, dtype=np.float32)
    np.testing.assert_allclose(root.layer0.mlp(x, w), affine_ref(x, w))


def test_nested_attribute_access_reads_like_the_model() -> None:
    attention = Module(name="Attention", functions=[exp_fn("attention")])
    layer = Module(name="Layer", modules={"self_attn": attention})
    root = Module(name="Decoder", modules={"layer0": layer})
    out = root.layer0.self_attn.attention(np.zeros(4, np.float32))
    np.testing.assert_allclose(out, np.ones(4))


def test_a_function_shadows_nothing_it_does_not_name() -> None:
    # a function, a child and a method each reached by its own name on one module
    m = Module(
        name="m",
        functions=[neg_fn("f")],
        modules={"c": Module(name="c")},
        methods={"forward": lambda self: "fw"},
    )
    assert callable(m.f) and not isinstance(m.f, Module)
    assert isinstance(m.c, Module)
    assert m.forward() == "fw"


def test_unknown_attribute_raises_attribute_error_naming_what_exists() -> None:
    m = Module(
        name="m",
        functions=[neg_fn("kernel_a")],
        modules={"block_b": Module(name="z")},
        methods={"forward_c": lambda self: 0},
    )
    with pytest.raises(AttributeError, match=r"nope") as info:
        _ = m.nope
    message = str(info.value)
    assert "kernel_a" in message
    assert "block_b" in message
    assert "forward_c" in message


# ---------------------------------------------------------------------------------------------
# lookup / function_named / entry_function


def test_lookup_returns_the_function_node_itself() -> None:
    f, k = neg_fn("f"), exp_fn("k")
    m = Module(name="m", functions=[f, k])
    assert m.lookup("f") is f
    assert m.lookup("k") is k
    assert isinstance(m.lookup("f"), Function)


def test_lookup_raises_unless_exactly_one_function_matches() -> None:
    m = Module(
        name="m", functions=[neg_fn("f")], modules={"c": Module(name="c", functions=[neg_fn("g")])}
    )
    with pytest.raises(KeyError, match=r"nope"):
        m.lookup("nope")
    with pytest.raises(KeyError, match=r"'c'"):
        m.lookup("c")  # a child is no function
    with pytest.raises(KeyError, match=r"'g'"):
        m.lookup("g")  # a child's function is not one of this module's


def test_function_named_returns_the_entries_named() -> None:
    f = neg_fn("f")
    m = Module(name="m", functions=[f, exp_fn("g")])
    assert m.function_named("f") == (f,)
    assert m.function_named("nope") == ()


def test_function_named_is_one_entry_even_with_variants() -> None:
    x = Var("x", XN)
    f = Function(name="f", params=[x], body=ops.neg(x))
    _square_variant(f, 1, 8)
    _square_variant(f, 8, 16)
    m = Module(name="m", functions=[f])
    assert m.function_named("f") == (f,)


def test_entry_function_without_entry_is_refused_naming_the_functions() -> None:
    m = Module(name="m", functions=[neg_fn("f"), exp_fn("g")])
    assert m.entry is None
    with pytest.raises(VerifyError, match=r"no entry") as info:
        m.entry_function()
    message = str(info.value)
    assert "'f'" in message and "'g'" in message
    assert "lookup('<name>')" in message


def test_bare_call_without_entry_is_refused_naming_the_functions() -> None:
    m = Module(name="m", functions=[neg_fn("f"), exp_fn("g")])
    with pytest.raises(VerifyError, match=r"no entry") as info:
        m(np.ones(4, np.float32))
    message = str(info.value)
    assert "'f'" in message and "'g'" in message
    assert "lookup('<name>')" in message
    # each function stays reachable by name
    np.testing.assert_allclose(m.g(np.zeros(4, np.float32)), np.ones(4))


def test_bare_call_runs_the_entry() -> None:
    m = Module(name="m", functions=[exp_fn("g"), neg_fn("f")], entry="f")
    np.testing.assert_allclose(m(np.ones(4, np.float32)), -np.ones(4))


def test_a_module_composing_children_in_a_method_has_no_default_step() -> None:
    def forward(self: Module, x: np.ndarray) -> np.ndarray:
        return self.b.f(self.a.f(x))

    root = Module(
        name="r",
        modules={
            "a": Module(name="a", functions=[neg_fn("f")]),
            "b": Module(name="b", functions=[exp_fn("f")]),
        },
        methods={"forward": forward},
    )
    np.testing.assert_allclose(root.forward(np.zeros(4, np.float32)), np.ones(4))
    with pytest.raises(VerifyError, match=r"no entry"):
        root.entry_function()


# ---------------------------------------------------------------------------------------------
# A bare function is an implicit single-function module


BARE_FUNCTION = """\
hir.func @scale(%x: tensor<4xf32>, %w: tensor<4xf32> {const}) -> tensor<4xf32> {
  %y = tf.call tf.math.binary<kind = mul>(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  hir.return %y : tensor<4xf32>
}
"""


def test_a_bare_function_becomes_a_single_function_module_with_it_as_entry() -> None:
    m = parse_module(BARE_FUNCTION)
    assert isinstance(m, Module)
    assert [f.name for f in m.functions] == ["scale"]
    assert m.entry == "scale"
    assert m.entry_function() is m.lookup("scale")
    assert m.modules == ()
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(m(x, np.full(4, 3, np.float32)), 3 * x)
    assert dict(m.weights) == {"w": T4}


# ---------------------------------------------------------------------------------------------
# weights


def _weights_module() -> Module:
    a = Var("a", T4)
    w2 = Var("w2", T4, is_const=True)
    w1 = Var("w1", T4, is_const=True)
    f = Function(name="f", params=[a, w2, w1], body=ops.add(ops.add(a, w2), w1))
    w3 = Var("w3", W44, is_const=True)
    w1b = Var("w1", T4, is_const=True)
    b = Var("b", T4)
    g = Function(name="g", params=[w3, w1b, b], body=ops.mul(b, w1b))
    return Module(name="m", functions=[f, g])


def test_weights_are_the_const_params_in_function_then_param_order() -> None:
    m = _weights_module()
    weights = m.weights
    assert list(weights) == ["w2", "w1", "w3"]
    assert weights["w2"] == T4
    assert weights["w1"] == T4
    assert weights["w3"] == W44
    assert "a" not in weights and "b" not in weights


def test_weights_of_a_module_without_const_params_are_empty() -> None:
    assert dict(Module(name="m", functions=[neg_fn("f")]).weights) == {}


def test_a_weight_name_with_two_types_makes_the_access_raise() -> None:
    w = Var("w", T4, is_const=True)
    f = Function(name="f", params=[w], body=ops.neg(w))
    w_other = Var("w", W44, is_const=True)
    g = Function(name="g", params=[w_other], body=ops.neg(w_other))
    m = Module(name="m", functions=[f, g])  # constructing is fine: the access raises
    with pytest.raises(VerifyError, match=r"weight 'w'.*'f'.*'g'"):
        _ = m.weights


def test_there_is_no_states_field() -> None:
    m = _weights_module()
    assert not hasattr(m, "states")
    assert not hasattr(Module, "states")


def test_a_persistent_tensor_is_an_ordinary_param_passed_and_returned() -> None:
    from tilefoundry import Tuple

    x = Var("x", T4)
    cache = Var("cache", T4)
    new_cache = ops.add(cache, x)
    step = Function(name="step", params=[x, cache], body=Tuple([ops.neg(new_cache), new_cache]))
    m = Module(name="m", functions=[step], entry="step")
    assert dict(m.weights) == {}
    out, cache_out = m(np.ones(4, np.float32), np.full(4, 2, np.float32))
    np.testing.assert_allclose(cache_out, np.full(4, 3))
    np.testing.assert_allclose(out, -np.full(4, 3))


# ---------------------------------------------------------------------------------------------
# Ownership: a child belongs to one owner


def _resolved_view(root: Module) -> tuple[Any, ...]:
    layer = root.layer
    return (
        layer.resolve_target(),
        layer.effective_topologies(),
        layer.owner,
        root.modules,
        print_module(root),
    )


def test_placing_an_owned_child_under_a_second_owner_changes_nothing_in_the_first() -> None:
    child = mlp_module()
    first = Module(name="first", modules={"layer": child}, target="h100", topologies=LEVELS)
    before = _resolved_view(first)
    assert before[0] == Target("h100")

    second = Module(
        name="second", modules={"other": child}, target="mi300x", topologies=(Topology("cta", 8),)
    )

    assert _resolved_view(first) == before
    assert first.layer is child
    assert child.owner == first
    assert child.resolve_target() == Target("h100")
    assert child.effective_topologies() == LEVELS
    # the second owner has a child of its own, resolving through the second owner
    assert second.other.resolve_target() == Target("mi300x")
    assert second.other.effective_topologies() == (Topology("cta", 8),)
    assert second.other.owner == second


def test_the_second_owners_child_is_not_the_first_owners_node() -> None:
    child = mlp_module()
    first = Module(name="first", modules={"layer": child}, target="h100", topologies=LEVELS)
    second = Module(name="second", modules={"other": child}, target="h100", topologies=LEVELS)
    mine = first.layer.lookup("mlp").function_op
    theirs = second.other.lookup("mlp").function_op
    assert mine is not theirs
    theirs.attributes["measured"] = UnitAttr()  # an analysis records its result in place
    assert "measured" not in mine.attributes
    assert "measured" not in print_module(first)


def test_an_owned_child_placed_by_iterable_keeps_the_first_owner_intact() -> None:
    child = mlp_module("blk")
    first = Module(name="first", modules=[child], target="h100", topologies=LEVELS)
    text = print_module(first)
    Module(name="second", modules=[child])
    assert print_module(first) == text
    assert first.blk is child
    assert child.owner == first


def test_placing_a_copy_of_an_owned_child_elsewhere_changes_nothing_in_the_first() -> None:
    child = mlp_module()
    first = Module(name="first", modules={"layer": child}, target="h100", topologies=LEVELS)
    before = _resolved_view(first)
    copy = first.layer.cloned()
    second = Module(name="second", modules={"other": copy}, target="a100", topologies=())
    assert _resolved_view(first) == before
    assert second.other.resolve_target() == Target("a100")
    assert second.other.effective_topologies() == ()


def test_one_child_placed_twice_in_one_module_gives_two_nodes() -> None:
    child = mlp_module()
    root = Module(name="r", modules={"a": child, "b": child}, target="h100", topologies=LEVELS)
    assert root.a.lookup("mlp").function_op is not root.b.lookup("mlp").function_op
    assert root.a.owner == root and root.b.owner == root


# ---------------------------------------------------------------------------------------------
# cloned() / renamed()


def test_cloned_copies_functions_and_bodies() -> None:
    m = Module(name="m", functions=[affine_fn("f"), neg_fn("g")], entry="f")
    copy = m.cloned()
    assert copy is not m
    assert copy != m
    assert copy.name == "m"
    assert copy.entry == "f"
    for original, duplicate in zip(m.functions, copy.functions, strict=True):
        assert duplicate is not original
        assert duplicate.function_op is not original.function_op
        assert duplicate.body is not original.body
        assert structural_equal(duplicate, original)
    assert print_module(copy) == print_module(m)


def test_cloned_copies_children() -> None:
    root = decoder(mlp_module())
    copy = root.cloned()
    assert len(copy.modules) == 2
    for original, duplicate in zip(root.modules, copy.modules, strict=True):
        assert duplicate is not original
        assert duplicate.lookup("mlp").function_op is not original.lookup("mlp").function_op
    assert copy.layer0 is not root.layer0


def test_cloned_redirects_internal_calls_to_the_copies() -> None:
    root = decoder(mlp_module())
    copy = root.cloned()
    calls = [op for op in copy.module_op.walk() if isinstance(op, CallOp) and not _is_op_call(op)]
    assert len(calls) == 2
    targets = [call.target for call in calls]
    assert targets[0] is copy.layer0.lookup("mlp").function_op
    assert targets[1] is copy.layer1.lookup("mlp").function_op
    originals = {root.layer0.lookup("mlp").function_op, root.layer1.lookup("mlp").function_op}
    assert not originals & set(targets)


def _is_op_call(op: CallOp) -> bool:
    from tilefoundry.dialects.tf.op_attr import OpAttr

    return isinstance(op.callee, OpAttr)


def test_cloned_redirects_calls_between_own_functions() -> None:
    g = neg_fn("g")
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=ops.exp(Call(g, [x])))
    m = Module(name="m", functions=[f, g], entry="f")
    copy = m.cloned()
    (call,) = [op for op in copy.module_op.walk() if isinstance(op, CallOp) and not _is_op_call(op)]
    assert call.target is copy.lookup("g").function_op
    assert call.target is not g.function_op
    np.testing.assert_allclose(copy(np.zeros(4, np.float32)), np.ones(4))


def test_an_in_place_change_to_one_copy_does_not_show_in_another() -> None:
    root = decoder(mlp_module())
    copy = root.cloned()
    copy.lookup("step").function_op.attributes["measured"] = StringAttr("12us")
    copy.layer0.lookup("mlp").function_op.attributes["measured"] = StringAttr("3us")
    assert "measured" not in root.lookup("step").function_op.attributes
    assert "measured" not in root.layer0.lookup("mlp").function_op.attributes
    assert "measured" not in print_module(root)


def test_cloned_shares_the_owner_and_context_of_a_child() -> None:
    root = decoder(mlp_module())
    copy = root.layer1.cloned()
    assert copy.owner == root
    assert copy.resolve_target() == Target("h100")
    assert copy.effective_topologies() == LEVELS
    assert copy.target is None and copy.topologies is None  # declares nothing of its own
    assert copy not in root.modules  # a copy is a new node, not a new child


def test_cloned_keeps_the_declared_context_of_a_root() -> None:
    root = decoder(mlp_module())
    copy = root.cloned()
    assert copy.target == root.target == Target("h100")
    assert copy.topologies == root.topologies == LEVELS
    assert copy.owner is None


def test_cloned_keeps_methods() -> None:
    m = Module(name="m", functions=[neg_fn("f")], methods={"forward": lambda self: self.name})
    copy = m.cloned()
    assert copy.forward() == "m"


def test_renamed_is_a_copy_under_another_name() -> None:
    proto = mlp_module()
    copy = proto.renamed("layer7")
    assert copy.name == "layer7"
    assert proto.name == "MLP"
    assert copy.lookup("mlp").function_op is not proto.lookup("mlp").function_op
    assert "tf.module @layer7" in print_module(copy)
    root = Module(name="r", modules=[copy])
    assert root.layer7 is copy


def test_renamed_refuses_an_empty_name() -> None:
    with pytest.raises(TypeError, match="non-empty str"):
        mlp_module().renamed("")


def test_n_layers_from_one_prototype_are_distinct_nodes() -> None:
    proto = mlp_module()
    root = decoder(proto, layers=4)
    ops_ = [getattr(root, f"layer{i}").lookup("mlp").function_op for i in range(4)]
    assert len({id(op) for op in ops_}) == 4
    assert proto.lookup("mlp").function_op not in ops_
    assert proto.owner is None  # the prototype stays a free prototype
    assert [m.name for m in root.modules] == [f"layer{i}" for i in range(4)]
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    w = (np.eye(4) * 0.5).astype(np.float32)
    expected = x
    for _ in range(4):
        expected = affine_ref(expected, w)
    np.testing.assert_allclose(root(x, w), expected, rtol=1e-5)


def test_one_prototype_serves_independent_builds() -> None:
    proto = mlp_module()
    first = decoder(proto)
    second = decoder(proto)
    first.layer0.lookup("mlp").function_op.attributes["measured"] = UnitAttr()
    assert "measured" not in second.layer0.lookup("mlp").function_op.attributes
    assert "measured" not in proto.lookup("mlp").function_op.attributes
    assert print_module(second) != print_module(first)


# ---------------------------------------------------------------------------------------------
# Atomicity: a refused Module(...) leaves its inputs usable


def test_a_disjointness_failure_leaves_the_functions_usable() -> None:
    f, g = neg_fn("f"), exp_fn("g")
    child = Module(name="c", functions=[neg_fn("k")])
    with pytest.raises(VerifyError, match="disjoint"):
        Module(name="m", functions=[f, g], modules={"f": child})
    m = Module(name="m", functions=[f, g], modules={"c": child}, entry="f")
    assert m.lookup("f") is f
    assert m.c is child
    np.testing.assert_allclose(m(np.ones(4, np.float32)), -np.ones(4))


def test_a_refused_entry_leaves_the_functions_and_children_usable() -> None:
    f = neg_fn("f")
    child = Module(name="c", functions=[neg_fn("k")])
    with pytest.raises(VerifyError, match="entry"):
        Module(name="m", functions=[f], modules={"c": child}, entry="nope")
    assert child.owner is None
    assert f.function_op.parent is None
    m = Module(name="m", functions=[f], modules={"c": child}, entry="f")
    assert m.c is child
    assert child.owner == m


def test_a_refused_module_does_not_seal_its_functions() -> None:
    x = Var("x", XN)
    f = Function(name="f", params=[x], body=ops.neg(x))
    with pytest.raises(VerifyError):
        Module(name="m", functions=[f], entry="nope")
    assert not f.sealed
    _square_variant(f, 1, 8)  # still authoring: the function never entered a module
    m = Module(name="m", functions=[f])
    assert len(m.lookup("f").variants) == 1


def test_a_refused_module_leaves_calls_usable() -> None:
    g = neg_fn("g")
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=ops.exp(Call(g, [x])))
    with pytest.raises(VerifyError, match="disjoint"):
        Module(name="m", functions=[f, g], methods={"g": lambda self: 0})
    with pytest.raises(VerifyError, match="does not hold"):
        Module(name="m", functions=[f])  # g is not in the tree
    m = Module(name="m", functions=[f, g], entry="f")
    np.testing.assert_allclose(m(np.zeros(4, np.float32)), np.ones(4))


def test_a_refused_child_with_a_target_stays_a_root_of_its_own() -> None:
    child = Module(name="c", functions=[neg_fn("k")], target="h100", topologies=())
    f = neg_fn("f")
    with pytest.raises(VerifyError, match="only the outermost module may declare"):
        Module(name="m", functions=[f], modules={"c": child}, target="a100")
    assert child.owner is None
    assert child.resolve_target() == Target("h100")
    m = Module(name="m", functions=[f], target="a100")
    assert m.lookup("f") is f


def test_a_refused_second_owner_leaves_the_first_owner_intact() -> None:
    child = mlp_module()
    first = Module(name="first", modules={"layer": child}, target="h100", topologies=LEVELS)
    before = _resolved_view(first)
    with pytest.raises(VerifyError):
        Module(name="second", modules={"other": child}, entry="nope")
    assert _resolved_view(first) == before


def test_module_implicit_wraps_a_bare_function_as_its_entry() -> None:
    x = Var("x", TensorType((4,), "f32"))
    function = Function(name="double", params=[x], body=ops.add(x, x))
    module = Module.implicit(function)
    assert (module.name, module.entry) == ("double", "double")
    assert module.entry_function() == function
    assert function.sealed
    np.testing.assert_array_equal(module(np.ones(4, np.float32)), np.full(4, 2, np.float32))
