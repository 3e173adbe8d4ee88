"""The DSL's @func / @prim_func (issue 13, items 1-4): each one builds the same module as the
constructors do (`structural_equal`), names its values after the assignments and records the
Python source span of every expression."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import DispatchCall, Evaluate, LetStmt, PrimFunction
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tir import EvaluateOp, LetOp
from tilefoundry.dsl import Buffer, ConstTensor, Tensor, f32, i32
from tilefoundry.ops import Binary, BinaryKind, Copy

FILE = __file__
N = tf.DimVar("n", 1, 65)
XN = tf.TensorType((N, 8), "f32")
W = tf.TensorType((8, 8), "f32")
T4 = tf.TensorType((4,), "f32")


def where(marker: str, occurrence: int = 1) -> tuple[int, int]:
    """The 1-based (line, column) of `marker` in this file (its `occurrence`-th line)."""
    seen = 0
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if marker in text:
            seen += 1
            if seen == occurrence:
                return number, text.index(marker) + 1
    raise AssertionError(marker)


@tf.func
def mlp(x: Tensor[(N, 8), f32], w: ConstTensor[(8, 8), f32]):
    h = x @ w  # MARK-h
    y = ops.relu(h + 1.0, loc="act")  # MARK-act
    return -y


def mlp_by_constructors() -> tf.Module:
    x, w = tf.Var("x", XN), tf.Var("w", W, is_const=True)
    h = ops.matmul(x, w)
    y = ops.relu(ops.add(h, tf.Constant([1.0])))
    return tf.Module.implicit(Function(name="mlp", params=[x, w], body=ops.neg(y)))


def test_a_bare_func_is_the_implicit_single_function_module() -> None:
    assert isinstance(mlp, tf.Module)
    assert mlp.name == "mlp" and mlp.entry == "mlp"
    assert [f.name for f in mlp.functions] == ["mlp"]
    assert tf.structural_equal(mlp, mlp_by_constructors())
    (f,) = mlp.functions
    assert [(p.name, p.type, p.is_const) for p in f.params] == [("x", XN, False), ("w", W, True)]


def test_it_runs_on_numpy() -> None:
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    w = np.eye(8, dtype=np.float32)
    np.testing.assert_array_equal(mlp(x, w), -np.maximum(x + 1.0, 0))


def test_assignments_name_values_and_loc_overrides() -> None:
    text = tf.print_module(mlp)
    assert "%h = tf.call tf.linalg.matmul(%x, %w)" in text
    assert "%act = tf.call tf.math.unary<kind = relu>" in text
    assert "%y" not in text  # loc="act" names the value instead of the assignment


def test_every_expression_records_its_source_span() -> None:
    (f,) = mlp.functions
    ops_by_name = {tf.binding_name(op): op for op in f.function_op.walk() if isinstance(op, CallOp)}
    line, column = where("x @ w  # MARK-h")
    assert tf.get_metadata(ops_by_name["h"], tf.SourceSpanMetadata) == tf.SourceSpanMetadata(
        FILE, line, column, line, column + len("x @ w") - 1
    )
    line, column = where("ops.relu(h + 1.0")
    act = tf.get_metadata(ops_by_name["act"], tf.SourceSpanMetadata)
    text = 'ops.relu(h + 1.0, loc="act")'
    assert act == tf.SourceSpanMetadata(FILE, line, column, line, column + len(text) - 1)
    constant = next(op for op in f.function_op.walk() if isinstance(op, ConstantOp))
    one = tf.get_metadata(constant, tf.SourceSpanMetadata)
    assert one is not None and (one.line, one.column) == (line, column + len("ops.relu(h + "))
    param_line, param_column = where("def mlp(x")
    x_span = tf.get_metadata(f.params[0], tf.SourceSpanMetadata)
    assert x_span is not None and (x_span.line, x_span.column) == (param_line, param_column + 8)


def test_debuginfo_shows_the_python_file_and_lines() -> None:
    line, column = where("x @ w  # MARK-h")
    text = tf.print_module(mlp, debuginfo=True)
    assert f'loc("h"("{FILE}":{line}:{column} to {line}:{column + 4}))' in text


def test_the_text_parses_back() -> None:
    again = tf.parse_module(tf.print_module(mlp, debuginfo=True))
    assert tf.structural_equal(again, mlp)


@tf.func(target="h100", topologies=(tf.Topology("cta", 4), tf.Topology("warp", 4)))
def kernel(x: Tensor[(4,), f32]):
    return ops.exp(x)


def test_func_with_context_is_a_module_declaring_it() -> None:
    assert kernel.target == tf.Target("h100")
    assert [t.name for t in kernel.topologies or ()] == ["cta", "warp"]
    assert kernel.entry == "kernel"


@tf.func
def operators(a: Tensor[(4,), f32], b: Tensor[(4,), f32]):
    s = a + b - a * b / a
    p = a**b
    c = a < b
    d = (a <= b, a > b, a >= b, a == b, a != b)
    return (s, p, c, d[2], 2.0 * a)


def test_python_operators_are_the_aliases() -> None:
    a, b = tf.Var("a", T4), tf.Var("b", T4)
    s = ops.sub(ops.add(a, b), ops.div(ops.mul(a, b), a))
    d = tf.Tuple(
        [ops.cmp_le(a, b), ops.cmp_gt(a, b), ops.cmp_ge(a, b), ops.cmp_eq(a, b), ops.cmp_ne(a, b)]
    )
    body = tf.Tuple(
        [
            s,
            ops.pow(a, b),
            ops.cmp_lt(a, b),
            ops.tuple_get_item(d, 2),
            ops.mul(tf.Constant([2.0]), a),
        ]
    )
    expected = tf.Module.implicit(Function(name="operators", params=[a, b], body=body))
    assert tf.structural_equal(operators, expected)


@tf.func
def numbers(x: Tensor[(4,), i32]):
    scale = 1 + 2  # plain Python: no op
    return x * scale


def test_numbers_are_constants_of_the_other_operands_dtype() -> None:
    x = tf.Var("x", tf.TensorType((4,), "i32"))
    body = ops.mul(x, tf.Constant([3], dtype="i32"))
    assert tf.structural_equal(numbers, tf.Module.implicit(Function("numbers", [x], body)))


@tf.register_op(category="math")
class Scale(tf.Op):
    """A user op: x * factor."""

    x = tf.ParamDef(kind="input", pattern=tf.Tensor)
    factor = tf.ParamDef(kind="attribute", annotation=float)

    def infer_type(self, x: tf.TensorType) -> tf.TensorType:
        return x


@tf.func
def user_ops(x: Tensor[(4, 8), f32]):
    s = ops.ReduceSum(axis=1)(x)  # the body holds its ops in the order the statements build them
    u = tf.Call(ops.MatMul(), [x, ops.transpose(x, (1, 0))])
    t = Scale(factor=2.0)(x)
    first, second = ops.split(t, 1, 2)
    return (s, u, first, second)


def test_registered_ops_and_their_instances_are_called() -> None:
    x = tf.Var("x", tf.TensorType((4, 8), "f32"))
    t = tf.Call(Scale(factor=2.0), [x])
    parts = ops.split(t, 1, 2)
    body = tf.Tuple(
        [
            tf.Call(ops.ReduceSum(axis=1), [x]),
            ops.matmul(x, ops.transpose(x, (1, 0))),
            ops.tuple_get_item(parts, 0),
            ops.tuple_get_item(parts, 1),
        ]
    )
    expected = tf.Module.implicit(Function("user_ops", [x], body))
    assert tf.structural_equal(user_ops, expected)
    text = tf.print_module(user_ops)
    assert "%first = tf.call tf.tuple.get_item<index = 0>" in text
    assert "%second = tf.call tf.tuple.get_item<index = 1>" in text


@tf.func
def inline_dim(x: Tensor[(tf.DimVar("m", 1, 9), 4), f32]):
    return x


def test_a_dim_var_may_be_declared_inline() -> None:
    (f,) = inline_dim.functions
    assert f.params[0].type == tf.TensorType((tf.DimVar("m", 1, 9), 4), "f32")


@tf.func
def dotted(w: ConstTensor[(4,), f32].named("layer0.w")):
    return w


def test_a_parameter_name_that_is_no_identifier() -> None:
    (f,) = dotted.functions
    assert f.params[0].name == "layer0.w" and f.params[0].is_const


@tf.prim_func
def square(x: Tensor[(4,), f32], out: Buffer[(4,), f32]):
    y = x * x
    ops.copy(out, y)


def test_prim_func_statements_are_let_evaluate_and_return() -> None:
    x, out = tf.Var("x", T4), tf.Var("out", tf.BufferType((4,), "f32"))
    y = LetStmt("y", tf.Call(Binary(kind=BinaryKind.MUL), [x, x]))
    expected = PrimFunction(
        name="square", params=[x, out], body=[y, Evaluate(Copy(), [out, y.var])]
    )
    assert tf.structural_equal(square, tf.Module.implicit(expected))
    (f,) = square.functions
    assert [type(s) for s in f.body] == [LetOp, EvaluateOp]
    assert f.body[0].var.name == "y"
    value = np.arange(4, dtype=np.float32)
    out_value = np.zeros(4, np.float32)
    square(value, out_value)
    np.testing.assert_array_equal(out_value, value * value)  # the buffer, written in place


@tf.prim_func
def scratch(x: Tensor[(4,), f32]):
    buf = ops.alloc((4,), "f32")
    ops.copy(buf, ops.exp(x))
    t = ops.load(buf)
    return t + x


def test_memory_ops_in_a_prim_func() -> None:
    x = tf.Var("x", T4)
    buf = LetStmt("buf", ops.alloc((4,), "f32"))
    copy = Evaluate(Copy(), [buf.var, ops.exp(x)])
    t = LetStmt("t", ops.load(buf.var))
    result = LetStmt("v", ops.add(t.var, x))
    expected = PrimFunction("scratch", [x], [buf, copy, t, result], result=result.var)
    assert tf.structural_equal(scratch, tf.Module.implicit(expected))
    value = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(scratch(value), np.exp(value) + value, rtol=1e-6)


class Dispatching(tf.Module, entry="pick"):
    @tf.prim_func
    def pick(self, x: Tensor[(N,), f32]):
        y = DispatchCall(
            [self.small, self.large],
            [[tf.DimVarRangePat("n", 1, 8)], [tf.DimVarRangePat("n", 8, 65)]],
            [x],
        )
        return y

    @tf.prim_func
    def small(x: Tensor[(N,), f32]):
        return x

    @tf.prim_func
    def large(x: Tensor[(N,), f32]):
        y = -x
        return y


def test_dispatch_and_symbol_refs_in_prim_funcs() -> None:
    module = Dispatching()
    assert [f.name for f in module.functions] == ["pick", "small", "large"]
    np.testing.assert_array_equal(module(np.ones(3, np.float32)), np.ones(3))
    np.testing.assert_array_equal(module(np.ones(9, np.float32)), -np.ones(9))
    assert "tir.dispatch" in tf.print_module(module)
    assert tf.structural_equal(tf.parse_module(tf.print_module(module)), module)


@tf.func
def tuples(a: Tensor[(4,), f32]):
    t = (a, ops.exp(a))
    return t[1]


def test_tuples_and_indexing() -> None:
    a = tf.Var("a", T4)
    body = ops.tuple_get_item(tf.Tuple([a, ops.exp(a)]), 1)
    assert tf.structural_equal(tuples, tf.Module.implicit(Function("tuples", [a], body)))
    (f,) = tuples.functions
    assert any(
        isinstance(op, TupleOp) and tf.binding_name(op) == "t" for op in f.function_op.walk()
    )


class Recursive(tf.Module, entry="f"):
    @tf.func
    def f(self, x: Tensor[(4,), f32]) -> Tensor[(4,), f32]:
        return self.g(x)

    @tf.func
    def g(self, x: Tensor[(4,), f32]):
        return ops.neg(self.f(x))  # f is being read: called through its symbol, typed by -> ...


def test_a_recursive_call_goes_through_the_symbol_with_the_declared_type() -> None:
    module = Recursive()
    text = tf.print_module(module)
    assert "tf.call @g(%x)" in text and "tf.call @f(%x)" in text
    assert tf.structural_equal(tf.parse_module(text), module)


def test_a_class_body_function_is_run_through_its_instance() -> None:
    source = Recursive.__dict__["__tf_class__"].functions["f"]
    with pytest.raises(TypeError, match="run it as instance.f"):
        source(np.zeros(4, np.float32))


@tf.func
def accumulate(x: Tensor[(4,), f32]):
    h = x
    h += x
    h *= 2.0
    return h


def test_augmented_assignment_is_a_new_value() -> None:
    x = tf.Var("x", T4)
    body = ops.mul(ops.add(x, x), tf.Constant([2.0]))
    assert tf.structural_equal(accumulate, tf.Module.implicit(Function("accumulate", [x], body)))
    (f,) = accumulate.functions
    bound = [op for op in f.function_op.walk() if isinstance(op, CallOp)]
    assert [tf.binding_name(op) for op in bound] == ["h", "h"]
