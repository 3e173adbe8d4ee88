"""Canonicalization of tf ops, from Python: the ops' fold hooks and literal folding.

Folding never produces an undefined or inexact value; the cases MLIR users expect fold."""

from __future__ import annotations

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import Constant, Module, TensorType, Var, ops
from tilefoundry.api.hir import Function
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp
from tilefoundry.transforms.canonicalization import evaluate_exactly

T = TensorType((4,), "f32")


def canonical(body: object, *params: Var) -> Module:
    f = Function(name="f", params=list(params), body=body)  # type: ignore[arg-type]
    return tf.run_passes(Module(name="m", functions=[f]), "canonicalize")


def body_ops(module: Module) -> list[str]:
    return [op.name for op in module.lookup("f").function_op.body.block.ops]


@pytest.mark.parametrize(
    "build",
    [
        lambda x: ops.mul(x, Constant(np.ones(4, np.float32))),
        lambda x: ops.mul(Constant(np.ones(4, np.float32)), x),
        lambda x: ops.add(x, Constant(np.full(4, -0.0, np.float32))),
        lambda x: ops.sub(x, Constant(np.zeros(4, np.float32))),
        lambda x: ops.div(x, Constant(np.ones(4, np.float32))),
        lambda x: ops.pow(x, Constant(np.ones(4, np.float32))),
        lambda x: ops.max(x, x),
        lambda x: ops.neg(ops.neg(x)),
        lambda x: ops.cast(x, "f32"),
        lambda x: ops.tuple_get_item(tf.Tuple([x, ops.exp(x)]), 0),
    ],
    ids=["x*1", "1*x", "x+-0", "x-0", "x/1", "x**1", "max(x,x)", "neg(neg(x))", "cast", "tuple"],
)
def test_identities_fold_to_the_value(build: object) -> None:
    x = Var("x", T)
    result = canonical(build(x), x)  # type: ignore[operator]
    assert body_ops(result) == ["hir.return"]


def test_x_plus_positive_zero_is_not_x() -> None:
    """-0.0 + 0.0 is 0.0: the float additive identity is -0.0 only."""
    x = Var("x", T)
    result = canonical(ops.add(x, Constant(np.zeros(4, np.float32))), x)
    assert "tf.call" in body_ops(result)
    np.testing.assert_array_equal(np.signbit(result.f(np.full(4, -0.0, np.float32))), False)


def test_an_identity_that_would_broadcast_is_not_folded() -> None:
    s = Var("s", TensorType((1,), "f32"))
    result = canonical(ops.mul(s, Constant(np.ones(4, np.float32))), s)
    assert "tf.call" in body_ops(result)


def test_integer_identities_use_integer_zero() -> None:
    i = Var("i", TensorType((4,), "i32"))
    result = canonical(ops.add(Constant(np.zeros(4, np.int32)), i), i)
    assert body_ops(result) == ["hir.return"]


def test_literal_expressions_fold_into_one_constant() -> None:
    two = Constant(np.full(4, 2.0, np.float32))
    result = canonical(ops.exp(ops.mul(two, two)))
    assert body_ops(result) == ["tf.constant", "hir.return"]
    np.testing.assert_allclose(result.f(), np.exp(np.full(4, 4.0)), rtol=1e-6)


def call(op_builder: object, *values: object) -> CallOp:
    consts = [Constant(v) for v in values]
    built = op_builder(*consts)  # type: ignore[operator]
    assert isinstance(built, CallOp)
    return built


@pytest.mark.parametrize(
    ("build", "arrays"),
    [
        (ops.div, (np.array([1, 2], np.int32), np.array([1, 0], np.int32))),
        (ops.pow, (np.array([2, 2], np.int32), np.array([1, -1], np.int32))),
        (ops.add, (np.array([2**31 - 1], np.int32), np.array([1], np.int32))),
        (ops.mul, (np.array([2**62], np.int64), np.array([4], np.int64))),
        (lambda a: ops.cast(a, "i8"), (np.array([300], np.int32),)),
        (lambda a: ops.cast(a, "i32"), (np.array([np.nan], np.float32),)),
        (ops.div, (np.array([1.0], np.float32), np.array([0.0], np.float32))),
        (ops.log, (np.array([-1.0], np.float32),)),
        (ops.exp, (np.array([1000.0], np.float32),)),
        (lambda a: ops.reduce_max(a, axis=0), (np.zeros((0, 2), np.float32),)),
        (lambda a: ops.reduce_sum(a, axis=0), (np.zeros((0, 2), np.float32),)),
    ],
    ids=[
        "int-div-by-zero",
        "negative-int-power",
        "i32-overflow",
        "i64-overflow",
        "narrowing-cast",
        "nan-to-int",
        "float-div-by-zero",
        "log-of-negative",
        "float-overflow",
        "max-of-empty",
        "sum-of-empty",
    ],
)
def test_undefined_or_inexact_results_are_not_folded(
    build: object, arrays: tuple[object, ...]
) -> None:
    assert evaluate_exactly(call(build, *arrays), [np.asarray(a) for a in arrays]) is None


def test_exact_results_are_folded() -> None:
    a = np.array([7, -7], np.int32)
    b = np.array([2, 2], np.int32)
    value = evaluate_exactly(call(ops.div, a, b), [a, b])
    np.testing.assert_array_equal(value, [3, -4])  # floor division, as the interpreter does
    c = np.array([300], np.int32)
    np.testing.assert_array_equal(evaluate_exactly(call(lambda x: ops.cast(x, "i16"), c), [c]), c)


def test_folding_keeps_the_binding_and_span() -> None:
    two = Constant(np.full(4, 2.0, np.float32))
    folded_from = ops.mul(two, two)
    renamed = tf.replace_metadata(folded_from, tf.BindingMetadata("four"))
    located = tf.replace_metadata(renamed, tf.SourceSpanMetadata("m.py", 3, 5))
    result = canonical(located)
    (constant,) = [op for op in result.module_op.walk() if isinstance(op, ConstantOp)]
    assert tf.binding_name(constant) == "four"
    assert tf.diagnostic_location(constant) == "m.py:3:5"
