"""The tensor and nn ops (`ops/tensor.py`, `ops/nn.py`): type inference and its refusals,
reference semantics against numpy, folders (through `canonicalize`) and FLOP counts."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import Call, DimVar, TensorType, Tuple, Var, VerifyError
from tilefoundry.api.hir import Function
from tilefoundry.ops import (
    Activation,
    BroadcastTo,
    Concat,
    Cumsum,
    Full,
    Gather,
    Index,
    Iota,
    Logical,
    LogicalNot,
    ReduceMean,
    Reshape,
    Slice,
    Softmax,
    Where,
)

N = DimVar("n", 1, 65)
RNG = np.random.default_rng(0)


def _dtype(array: Any) -> str:
    return {"float32": "f32", "int64": "i64", "bool": "i1"}[str(array.dtype)]


def run(build: Any, *arrays: Any) -> Any:
    """`build(*vars)` as the body of a function of the arrays' types, run on the arrays."""
    params = [Var(f"a{i}", TensorType(a.shape, _dtype(a))) for i, a in enumerate(arrays)]
    body = build(*params)
    module = tf.Module.implicit(Function(name="f", params=params, body=body))
    return module.f(*arrays)


def x48() -> Any:
    return RNG.standard_normal((4, 8)).astype(np.float32)


def test_reshape() -> None:
    x = x48()
    np.testing.assert_array_equal(
        run(lambda a: Call(Reshape(shape=(2, -1)), [a]), x), x.reshape(2, 16)
    )
    dyn = Var("x", TensorType((N, 4, 16), "f32"))
    assert Call(Reshape(shape=(1, -1, 64)), [dyn]).type == TensorType((1, N, 64), "f32")
    with pytest.raises(
        VerifyError, match="cannot reshape tensor<4x8xf32> .32 elements. to .3, -1."
    ):
        Call(Reshape(shape=(3, -1)), [Var("x", TensorType((4, 8), "f32"))])
    with pytest.raises(VerifyError, match="may hold one -1"):
        Call(Reshape(shape=(-1, -1)), [Var("x", TensorType((4, 8), "f32"))])


def test_broadcast_to_and_where() -> None:
    x = x48()
    got = run(lambda a: Call(BroadcastTo(shape=(3, -1, 8)), [a]), x)
    np.testing.assert_array_equal(got, np.broadcast_to(x, (3, 4, 8)))
    with pytest.raises(VerifyError, match="cannot broadcast"):
        Call(BroadcastTo(shape=(5, 8)), [Var("x", TensorType((4, 8), "f32"))])
    m = RNG.standard_normal((4, 8)) > 0
    y = RNG.standard_normal((8,)).astype(np.float32)
    np.testing.assert_array_equal(
        run(lambda c, a, b: Call(Where(), [c, a, b]), m, x, y), np.where(m, x, y)
    )
    with pytest.raises(VerifyError, match="the condition must be i1, got f32"):
        Call(Where(), [Var("c", TensorType((4,), "f32"))] * 3)


def test_concat_slice() -> None:
    x = x48()
    both = run(
        lambda a: Call(
            Concat(axis=1),
            [Tuple([Call(Slice(axis=1, start=4, stop=8), [a]), Call(Slice(axis=1, stop=4), [a])])],
        ),
        x,
    )
    np.testing.assert_array_equal(both, np.concatenate([x[:, 4:], x[:, :4]], axis=1))
    every = run(lambda a: Call(Slice(axis=-1, start=1, stop=2**63 - 1, step=3), [a]), x)
    np.testing.assert_array_equal(every, x[:, 1::3])
    dyn = Var("x", TensorType((N, 8), "f32"))
    assert Call(Slice(axis=0, stop=2**63 - 1), [dyn]).type == dyn.type
    with pytest.raises(VerifyError, match="a slice of the dynamic dim n must take all of it"):
        Call(Slice(axis=0, stop=3), [dyn])
    # a reshape keeping two DimVars names the input dims its -1 entries take
    both = Var("y", TensorType((N, DimVar("m", 1, 9), 64), "f32"))
    split = Call(Reshape(shape=(-1, -1, 4, 16), dims=(0, 1)), [both])
    assert split.type == TensorType((N, DimVar("m", 1, 9), 4, 16), "f32")
    swapped = Call(Reshape(shape=(-1, 64, -1), dims=(1, 0)), [both])
    assert swapped.type == TensorType((DimVar("m", 1, 9), 64, N), "f32")
    data = np.arange(3 * 5 * 64, dtype=np.float32).reshape(3, 5, 64)
    np.testing.assert_array_equal(
        Reshape(shape=(-1, -1, 4, 16), dims=(0, 1)).reference(data), data.reshape(3, 5, 4, 16)
    )
    with pytest.raises(VerifyError, match="one -1 entry per dim"):
        Call(Reshape(shape=(-1, 4, 16), dims=(0, 1)), [both])
    with pytest.raises(VerifyError, match="keeping dims"):
        Call(Reshape(shape=(-1, -1, 8), dims=(0, 1)), [both])
    with pytest.raises(VerifyError, match="may hold one -1"):
        Call(Reshape(shape=(-1, -1, 64)), [both])
    # a slice that stops within the dim's least size is static
    assert Call(Slice(axis=0, stop=N.lo), [dyn]).type == TensorType((N.lo, 8), "f32")
    with pytest.raises(VerifyError, match="concat parts differ in dim 0"):
        Call(
            Concat(axis=1),
            [Tuple([Var("a", TensorType((4, 2), "f32")), Var("b", TensorType((3, 2), "f32"))])],
        )


def test_index_and_gather() -> None:
    w = RNG.standard_normal((16, 4)).astype(np.float32)
    ids = np.array([[3, 0, 15, -1]], dtype=np.int64)
    got = run(lambda a, i: Call(Index(), [a, Tuple([i])]), w, ids)
    np.testing.assert_array_equal(got, w[ids])
    rows = np.array([[0], [1]], dtype=np.int64)
    cols = np.array([[2, 3]], dtype=np.int64)
    got = run(lambda a, i, j: Call(Index(), [a, Tuple([i, j])]), w, rows, cols)
    np.testing.assert_array_equal(got, w[rows, cols])
    idx = np.array([[1, 0], [3, 3], [0, 2], [2, 1]], dtype=np.int64)
    x = x48()
    got = run(lambda a, i: Call(Gather(axis=1), [a, i]), x, idx)
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx, axis=1))
    with pytest.raises(VerifyError, match="an index is an integer tensor, got tensor<4xf32>"):
        Call(
            Index(),
            [Var("w", TensorType((4, 2), "f32")), Tuple([Var("i", TensorType((4,), "f32"))])],
        )


def test_an_index_out_of_range_is_refused_naming_it() -> None:
    from tilefoundry.interpreter.evaluate import ExecutionError

    w = RNG.standard_normal((16, 4)).astype(np.float32)
    ids = np.array([[3, 16]], dtype=np.int64)
    with pytest.raises(
        ExecutionError, match="tf.tensor.index: index 16 is out of range for dim 0 of size 16"
    ):
        run(lambda a, i: Call(Index(), [a, Tuple([i])]), w, ids)
    idx = np.array([[0], [-5]], dtype=np.int64)
    with pytest.raises(
        ExecutionError, match="tf.tensor.gather: index -5 is out of range for dim 1 of size 4"
    ):
        run(lambda a, i: Call(Gather(axis=-1), [a, i]), w[:2], idx)


def test_iota_and_full() -> None:
    np.testing.assert_array_equal(
        run(lambda: Call(Iota(start=2, step=3, size=4), [])), [2, 5, 8, 11]
    )
    full = run(lambda: Call(Full(shape=(2, 3), value=1.0, dtype="i1"), []))
    assert full.dtype == np.bool_ and full.all() and full.shape == (2, 3)
    with pytest.raises(TypeError, match="Full: unknown dtype 'u8'"):
        Full(shape=(2,), value=0.0, dtype="u8")


def test_activations_softmax_mean_cumsum() -> None:
    x = x48()
    silu = run(lambda a: Call(Activation(kind="silu"), [a]), x)
    np.testing.assert_allclose(silu, x / (1 + np.exp(-x)), rtol=1e-6)
    gelu = run(lambda a: Call(Activation(kind="gelu"), [a]), x)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(gelu, 0.5 * x * (1 + erf(x / math.sqrt(2))), rtol=1e-6, atol=1e-7)
    probs = run(lambda a: Call(Softmax(axis=-1), [a]), x)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-6)
    mean = run(lambda a: Call(ReduceMean(axis=0, keepdims=True), [a]), x)
    np.testing.assert_allclose(mean, x.mean(0, keepdims=True), rtol=1e-6)
    ints = np.arange(8, dtype=np.int64).reshape(2, 4)
    np.testing.assert_array_equal(run(lambda a: Call(Cumsum(axis=1), [a]), ints), ints.cumsum(1))
    with pytest.raises(VerifyError, match="silu needs a float tensor, got i64"):
        Call(Activation(kind="silu"), [Var("i", TensorType((4,), "i64"))])


def test_logical() -> None:
    p = RNG.standard_normal((4, 8)) > 0
    q = RNG.standard_normal((8,)) > 0
    np.testing.assert_array_equal(run(lambda a, b: Call(Logical(kind="and"), [a, b]), p, q), p & q)
    np.testing.assert_array_equal(run(lambda a, b: Call(Logical(kind="xor"), [a, b]), p, q), p ^ q)
    np.testing.assert_array_equal(run(lambda a: Call(LogicalNot(), [a]), p), ~p)
    with pytest.raises(VerifyError, match="and needs i1 operands, got f32"):
        Call(Logical(kind="and"), [Var("a", TensorType((4,), "f32"))] * 2)


def _canonical_body(build: Any, *types: TensorType) -> str:
    params = [Var(f"a{i}", t) for i, t in enumerate(types)]
    module = tf.Module.implicit(Function(name="f", params=params, body=build(*params)))
    return tf.print_module(tf.run_passes(module, "canonicalize"))


@pytest.mark.parametrize(
    "build",
    [
        lambda a: Call(Reshape(shape=(4, -1)), [a]),
        lambda a: Call(BroadcastTo(shape=(-1, 8)), [a]),
        lambda a: Call(Slice(axis=1, start=0, stop=8), [a]),
        lambda a: Call(Where(), [Call(Full(shape=(8,), value=1.0, dtype="i1"), []), a, a]),
        lambda a: Call(
            LogicalNot(), [Call(LogicalNot(), [Call(Full(shape=(8,), value=0.0, dtype="i1"), [])])]
        ),
    ],
)
def test_identities_fold_away(build: Any) -> None:
    text = _canonical_body(build, TensorType((4, 8), "f32"))
    assert "tensor.reshape" not in text and "broadcast_to" not in text and "slice" not in text
    assert "tensor.where" not in text and "logic.not" not in text


def test_flops() -> None:
    def cost(build: Any, *types: TensorType) -> int:
        params = [Var(f"a{i}", t) for i, t in enumerate(types)]
        module = tf.Module(
            name="m",
            functions=[Function(name="f", params=params, body=build(*params))],
            target="h100",
        )
        return tf.analyze(module)["f"].flops

    t = TensorType((4, 8), "f32")
    assert cost(lambda a: Call(Activation(kind="silu"), [a]), t) == 4 * 32
    assert cost(lambda a: Call(Softmax(axis=-1), [a]), t) == 5 * 32
    assert cost(lambda a: Call(ReduceMean(axis=-1), [a]), t) == 32 + 4
    assert cost(lambda a: Call(Reshape(shape=(32,)), [a]), t) == 0
    assert cost(lambda a: Call(Slice(axis=0, stop=2), [a]), t) == 0
