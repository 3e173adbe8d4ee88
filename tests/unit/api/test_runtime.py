"""Spec section 1.1 (a function name resolves to a callable that runs it) and DESIGN section 3
(runtime): reference execution on numpy arrays, argument checks, variants, LoadedModule."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tilefoundry import (
    Call,
    DimVar,
    DimVarRangePat,
    LoadedModule,
    Module,
    TensorType,
    Tuple,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
)
from tilefoundry.api.hir import Function

N = DimVar("n", 1, 65)
D, H = 8, 16
X = TensorType((N, D), "f32")
W1 = TensorType((D, H), "f32")
B1 = TensorType((H,), "f32")
W2 = TensorType((H, D), "f32")
RNG = np.random.default_rng(7)


def arrays(n: int = 5) -> dict[str, np.ndarray]:
    return {
        "x": RNG.standard_normal((n, D)).astype(np.float32),
        "w1": (RNG.standard_normal((D, H)) * 0.3).astype(np.float32),
        "b1": (RNG.standard_normal(H) * 0.1).astype(np.float32),
        "w2": (RNG.standard_normal((H, D)) * 0.3).astype(np.float32),
    }


def softmax_rows(y: np.ndarray) -> np.ndarray:
    e = np.exp(y)
    return e / e.sum(axis=1, keepdims=True)


def mlp_model() -> Module:
    """step(x, w1, b1, w2) = (y, rowsum(y)) with y = norm(relu(x @ w1 + b1) @ w2), where norm
    is a function of the same module and the hidden projection lives in a child module."""
    # child: proj(h, w2) = h @ w2
    h = Var("h", TensorType((N, H), "f32"))
    w2 = Var("w2", W2, is_const=True)
    proj = Function(name="proj", params=[h, w2], body=ops.matmul(h, w2))
    child = Module(name="Projection", functions=[proj])
    # norm(y) = exp(y) / sum(exp(y), axis=1, keepdims)
    y = Var("y", X)
    e = ops.exp(y)
    norm = Function(name="norm", params=[y], body=ops.div(e, ops.reduce_sum(e, 1, keepdims=True)))
    # step
    x = Var("x", X)
    w1 = Var("w1", W1, is_const=True)
    b1 = Var("b1", B1, is_const=True)
    w2s = Var("w2", W2, is_const=True)
    hidden = ops.relu(ops.add(ops.matmul(x, w1), b1))
    out = Call(norm, [Call(proj, [hidden, w2s])])
    step = Function(name="step", params=[x, w1, b1, w2s], body=Tuple([out, ops.reduce_sum(out, 1)]))
    return Module(name="mlp", functions=[step, norm], modules={"down": child}, entry="step")


def mlp_reference(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> tuple[Any, Any]:
    hidden = np.maximum(x @ w1 + b1, 0)
    y = softmax_rows(hidden @ w2)
    return y, y.sum(axis=1)


# ---------------------------------------------------------------------------------------------
# Running a function on numpy arrays


def test_a_function_runs_and_matches_numpy() -> None:
    m = mlp_model()
    a = arrays()
    y, s = m.step(a["x"], a["w1"], a["b1"], a["w2"])
    ref_y, ref_s = mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == (5, D)
    np.testing.assert_allclose(y, ref_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, ref_s, rtol=1e-5)
    np.testing.assert_allclose(s, np.ones(5), rtol=1e-5)


def test_the_entry_runs_with_a_bare_call() -> None:
    m = mlp_model()
    a = arrays(3)
    y, _ = m(a["x"], a["w1"], a["b1"], a["w2"])
    np.testing.assert_allclose(
        y, mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])[0], rtol=1e-5, atol=1e-6
    )


def test_a_tuple_result_is_a_python_tuple() -> None:
    m = mlp_model()
    a = arrays(2)
    result = m.step(a["x"], a["w1"], a["b1"], a["w2"])
    assert isinstance(result, tuple) and len(result) == 2


def test_a_called_function_runs_on_its_own() -> None:
    m = mlp_model()
    y = RNG.standard_normal((4, D)).astype(np.float32)
    np.testing.assert_allclose(m.norm(y), softmax_rows(y), rtol=1e-5)


def test_a_child_function_runs_through_the_child() -> None:
    m = mlp_model()
    h = RNG.standard_normal((3, H)).astype(np.float32)
    w2 = RNG.standard_normal((H, D)).astype(np.float32)
    np.testing.assert_allclose(m.down.proj(h, w2), h @ w2, rtol=1e-5)


def test_a_call_into_a_grandchild_runs() -> None:
    x = Var("x", X)
    k = Function(name="k", params=[x], body=ops.neg(x))
    leaf = Module(name="Leaf", functions=[k])
    mid = Module(name="Mid", modules={"leaf": leaf})
    y = Var("y", X)
    step = Function(name="step", params=[y], body=ops.exp(Call(k, [y])))
    root = Module(name="root", functions=[step], modules={"mid": mid}, entry="step")
    assert "@mid::@leaf::@k" in print_module(root)
    np.testing.assert_allclose(root(np.zeros((2, D), np.float32)), np.ones((2, D)))
    np.testing.assert_allclose(root.mid.leaf.k(np.ones((2, D), np.float32)), -np.ones((2, D)))


@pytest.mark.parametrize("n", [1, 17, 64])
def test_a_dynamic_dim_runs_at_every_size_of_its_envelope(n: int) -> None:
    m = mlp_model()
    a = arrays(n)
    y, _ = m.step(a["x"], a["w1"], a["b1"], a["w2"])
    assert y.shape == (n, D)
    np.testing.assert_allclose(
        y, mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])[0], rtol=1e-5, atol=1e-6
    )


def test_a_parsed_module_runs_the_same() -> None:
    m = mlp_model()
    again = parse_module(print_module(m))
    a = arrays(4)
    args = (a["x"], a["w1"], a["b1"], a["w2"])
    np.testing.assert_allclose(again.step(*args)[0], m.step(*args)[0], rtol=1e-6)


def test_constants_and_integer_math_run() -> None:
    from tilefoundry import Constant

    x = Var("x", TensorType((3,), "i32"))
    f = Function(
        name="f", params=[x], body=ops.mul(ops.add(x, Constant(np.array([1, 2, 3], np.int32))), x)
    )
    m = Module(name="m", functions=[f])
    out = m.f(np.array([1, 2, 3], np.int32))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.array([2, 8, 18]))


# ---------------------------------------------------------------------------------------------
# Argument checks


def test_the_argument_count_is_checked() -> None:
    m = mlp_model()
    a = arrays()
    with pytest.raises(ValueError, match=r"'step' takes 4 argument.*x, w1, b1, w2.*got 3"):
        m.step(a["x"], a["w1"], a["b1"])


def test_the_rank_is_checked() -> None:
    m = mlp_model()
    a = arrays()
    with pytest.raises(ValueError, match=r"argument 'b1' has rank 2.*rank 1"):
        m.step(a["x"], a["w1"], a["b1"][None, :], a["w2"])


def test_a_static_size_is_checked() -> None:
    m = mlp_model()
    a = arrays()
    with pytest.raises(ValueError, match=r"argument 'w1' dim 1 is 15, expected 16"):
        m.step(a["x"], a["w1"][:, :15], a["b1"], a["w2"])


@pytest.mark.parametrize("n", [0, 65, 100])
def test_a_dimvar_size_outside_its_envelope_is_refused(n: int) -> None:
    x = Var("x", X)
    m = Module(name="m", functions=[Function(name="f", params=[x], body=ops.neg(x))])
    with pytest.raises(
        ValueError, match=rf"argument 'x' dim 0 is {n}, outside n's envelope \[1, 65\)"
    ):
        m.f(np.zeros((n, D), np.float32))


def test_one_dimvar_takes_one_size_per_call() -> None:
    a = Var("a", X)
    b = Var("b", X)
    m = Module(name="m", functions=[Function(name="f", params=[a, b], body=ops.add(a, b))])
    np.testing.assert_allclose(m.f(np.ones((3, D)), np.ones((3, D))), np.full((3, D), 2))
    with pytest.raises(ValueError, match=r"argument 'b' dim 0 is 4, but n is already 3"):
        m.f(np.ones((3, D), np.float32), np.ones((4, D), np.float32))


def test_a_float_array_for_an_integer_param_is_refused() -> None:
    x = Var("x", TensorType((3,), "i32"))
    m = Module(name="m", functions=[Function(name="f", params=[x], body=ops.neg(x))])
    with pytest.raises(ValueError, match=r"argument 'x' has dtype float32.*i32"):
        m.f(np.ones(3, np.float32))


def test_a_complex_array_for_a_float_param_is_refused() -> None:
    x = Var("x", TensorType((3,), "f32"))
    m = Module(name="m", functions=[Function(name="f", params=[x], body=ops.neg(x))])
    with pytest.raises(ValueError, match=r"argument 'x' has dtype complex64.*f32"):
        m.f(np.ones(3, np.complex64))


# ---------------------------------------------------------------------------------------------
# Variants


def variant_module() -> Module:
    """f(x) = -x, with variants n in [1, 8) -> exp(x) and n in [4, 16) -> x * x."""
    x = Var("x", X)
    f = Function(name="f", params=[x], body=ops.neg(x))
    v1 = Var("x", X)
    f.add_variant([DimVarRangePat("n", 1, 8)], [v1], ops.exp(v1))
    v2 = Var("x", X)
    f.add_variant([DimVarRangePat("n", 4, 16)], [v2], ops.mul(v2, v2))
    return Module(name="m", functions=[f])


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, np.exp(-2.0)),  # first variant
        (5, np.exp(-2.0)),  # both variants hold 5: the first wins
        (8, 4.0),  # second variant
        (15, 4.0),
        (16, 2.0),  # no variant: the base body
        (64, 2.0),
    ],
)
def test_the_first_variant_whose_ranges_hold_the_sizes_runs(n: int, expected: float) -> None:
    out = variant_module().f(np.full((n, D), -2.0, np.float32))
    np.testing.assert_allclose(out, np.full((n, D), expected), rtol=1e-6)


def test_variants_survive_the_text_round_trip_and_run() -> None:
    again = parse_module(print_module(variant_module()))
    np.testing.assert_allclose(again.f(np.full((9, D), -2.0, np.float32)), np.full((9, D), 4.0))


# ---------------------------------------------------------------------------------------------
# LoadedModule


def weights_of(a: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: a[k] for k in ("w1", "b1", "w2")}


def test_loaded_module_binds_weights_by_name() -> None:
    m = mlp_model()
    a = arrays()
    loaded = LoadedModule(m, weights_of(a))
    y, s = loaded.step(a["x"])
    ref_y, ref_s = mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])
    np.testing.assert_allclose(y, ref_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, ref_s, rtol=1e-5)


def test_loaded_module_bindings_are_matched_by_name_not_order() -> None:
    m = mlp_model()
    a = arrays()
    reordered = {"w2": a["w2"], "w1": a["w1"], "b1": a["b1"]}
    y, _ = LoadedModule(m, reordered).step(a["x"])
    np.testing.assert_allclose(
        y, mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])[0], rtol=1e-5, atol=1e-6
    )


def test_loaded_module_bare_call_runs_the_entry() -> None:
    m = mlp_model()
    a = arrays()
    y, _ = LoadedModule(m, weights_of(a))(a["x"])
    np.testing.assert_allclose(
        y, mlp_reference(a["x"], a["w1"], a["b1"], a["w2"])[0], rtol=1e-5, atol=1e-6
    )


def test_loaded_module_callables_take_only_the_non_const_params() -> None:
    m = mlp_model()
    a = arrays()
    loaded = LoadedModule(m, weights_of(a))
    with pytest.raises(ValueError, match=r"'step' takes 1 argument.*\(x\)"):
        loaded.step(a["x"], a["w1"], a["b1"], a["w2"])
    # a function without const params takes all of them
    y = RNG.standard_normal((2, D)).astype(np.float32)
    np.testing.assert_allclose(loaded.norm(y), softmax_rows(y), rtol=1e-5)


def test_loaded_module_refuses_a_missing_binding() -> None:
    a = arrays()
    bindings = weights_of(a)
    del bindings["b1"]
    with pytest.raises(VerifyError, match=r"no binding for weight.*b1"):
        LoadedModule(mlp_model(), bindings)


def test_loaded_module_refuses_an_extra_binding() -> None:
    a = arrays()
    bindings = weights_of(a) | {"w3": a["w2"]}
    with pytest.raises(VerifyError, match=r"w3 is not a weight.*w1, b1, w2"):
        LoadedModule(mlp_model(), bindings)


def test_loaded_module_refuses_a_misshapen_binding() -> None:
    a = arrays()
    with pytest.raises(VerifyError, match=r"weight.*'w1' dim 0 is 7, expected 8"):
        LoadedModule(mlp_model(), weights_of(a) | {"w1": a["w1"][:7]})
    with pytest.raises(VerifyError, match=r"weight.*'b1' has rank 2"):
        LoadedModule(mlp_model(), weights_of(a) | {"b1": a["b1"][None, :]})


def test_loaded_module_refuses_a_binding_of_the_wrong_kind() -> None:
    w = Var("w", TensorType((3,), "i32"), is_const=True)
    x = Var("x", TensorType((3,), "i32"))
    m = Module(name="m", functions=[Function(name="f", params=[x, w], body=ops.add(x, w))])
    with pytest.raises(VerifyError, match=r"weight.*'w' has dtype float32"):
        LoadedModule(m, {"w": np.ones(3, np.float32)})
    loaded = LoadedModule(m, {"w": np.array([1, 2, 3], np.int32)})
    np.testing.assert_array_equal(loaded.f(np.array([1, 1, 1], np.int32)), [2, 3, 4])


def test_loaded_module_of_a_module_without_weights() -> None:
    x = Var("x", TensorType((3,), "f32"))
    m = Module(name="m", functions=[Function(name="f", params=[x], body=ops.exp(x))])
    loaded = LoadedModule(m, {})
    np.testing.assert_allclose(loaded.f(np.zeros(3, np.float32)), np.ones(3))
    with pytest.raises(VerifyError, match=r"'w' is not a weight|w is not a weight"):
        LoadedModule(m, {"w": np.zeros(3)})


def test_loaded_module_unknown_name_raises_attribute_error() -> None:
    a = arrays()
    loaded = LoadedModule(mlp_model(), weights_of(a))
    with pytest.raises(AttributeError, match=r"nope"):
        _ = loaded.nope
