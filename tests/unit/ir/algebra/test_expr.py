"""Spec section 2 / 2.1 / 2.2: Expr, Call, Var, Constant, Tuple built from Python as detached
objects, and DESIGN section 4: `hir.Function(name=..., params=[...], body=...)` assembles them."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pytest

from tilefoundry import (
    BindingMetadata,
    BufferType,
    Call,
    Constant,
    DimVar,
    Expr,
    Module,
    SourceSpanMetadata,
    TensorType,
    Tuple,
    TupleType,
    UnitType,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
    typeinfer,
)
from tilefoundry.api.hir import Function
from tilefoundry.ops import Binary, BinaryKind, MatMul, ReduceSum

T4 = TensorType((4,), "f32")
M48 = TensorType((4, 8), "f32")
M816 = TensorType((8, 16), "f32")
CONTEXT = (BindingMetadata("h"), SourceSpanMetadata("model.py", 3, 4))
IR_TYPES = (TensorType, TupleType, UnitType)


# ---------------------------------------------------------------------------------------------
# Every Expr has a type


def test_every_expr_has_an_ir_type() -> None:
    x = Var("x", M48)
    w = Var("w", M816)
    exprs: list[Expr] = [
        x,
        Constant(1.0),
        Tuple([x, w]),
        ops.matmul(x, w),
        ops.split(x, 1, 2),
        ops.copy(Var("b", BufferType((4, 8), "f32")), x),
        Function(name="f", params=[Var("a", T4)], body=Constant(2.0)),
    ]
    for expr in exprs:
        assert isinstance(expr, Expr)
        assert isinstance(expr.type, IR_TYPES)


def test_value_producing_ops_are_all_calls() -> None:
    x = Var("x", M48)
    w = Var("w", M816)
    for expr in (ops.matmul(x, w), ops.add(x, x), ops.exp(x), ops.reduce_sum(x, 0)):
        assert type(expr) is Call


# ---------------------------------------------------------------------------------------------
# Call


def test_call_fields() -> None:
    x = Var("x", M48)
    w = Var("w", M816)
    c = Call(target=MatMul(), args=[x, w])
    assert c.target == MatMul()
    assert c.args == (x, w)
    assert isinstance(c.args, tuple)
    assert c.args[0] is x
    assert c.args[1] is w


def test_call_args_keep_nested_calls() -> None:
    x = Var("x", M48)
    inner = ops.neg(x)
    outer = ops.add(inner, x)
    assert outer.args[0] is inner
    assert outer.args[1] is x


def test_call_type_is_typeinfer_of_target_and_args() -> None:
    x = Var("x", M48)
    w = Var("w", M816)
    for target, args in [
        (MatMul(), [x, w]),
        (Binary(kind=BinaryKind.CMP_LT), [x, x]),
        (ReduceSum(axis=1, keepdims=True), [x]),
    ]:
        c = Call(target, args)
        assert c.type == typeinfer(target, [a.type for a in args])
    assert Call(MatMul(), [x, w]).type == TensorType((4, 16), "f32")


def test_call_with_too_few_args_is_refused() -> None:
    with pytest.raises(VerifyError, match=r"2 argument.*got 1"):
        Call(MatMul(), [Var("x", M48)])


def test_call_with_too_many_args_is_refused() -> None:
    x = Var("x", M48)
    with pytest.raises(VerifyError, match=r"1 argument.*got 2"):
        Call(ReduceSum(axis=0), [x, x])


def test_typeinfer_checks_the_arg_count() -> None:
    with pytest.raises(VerifyError, match=r"2 argument.*got 3"):
        typeinfer(MatMul(), [M48, M816, M816])


def test_call_arg_must_satisfy_its_pattern() -> None:
    # ReduceSum's input is `Tensor` (non-scalar); a rank-0 Constant does not match.
    with pytest.raises(VerifyError, match=r"tensor<f32>"):
        Call(ReduceSum(axis=0), [Constant(1.0)])


def test_call_arg_pattern_is_checked_per_position() -> None:
    with pytest.raises(VerifyError, match=r"tensor<f32>"):
        Call(Binary(kind=BinaryKind.ADD), [Var("x", T4), Constant(1.0)])


def test_call_refusal_names_binding_and_span() -> None:
    with pytest.raises(VerifyError, match=r"2 argument") as err:
        Call(MatMul(), [Var("x", M48)], metadata=CONTEXT)
    assert "'h'" in str(err.value)
    assert "model.py:3:4" in str(err.value)


def test_pattern_refusal_names_binding_and_span() -> None:
    with pytest.raises(VerifyError, match=r"tensor<f32>") as err:
        Call(ReduceSum(axis=0), [Constant(1.0)], metadata=CONTEXT)
    assert "'h'" in str(err.value)
    assert "model.py:3:4" in str(err.value)


def test_type_inference_refusal_names_binding_and_span() -> None:
    with pytest.raises(VerifyError, match=r"dtype") as err:
        Call(MatMul(), [Var("x", M48), Var("w", TensorType((8, 16), "bf16"))], metadata=CONTEXT)
    assert "'h'" in str(err.value)
    assert "model.py:3:4" in str(err.value)


def test_call_refusal_with_only_a_binding() -> None:
    with pytest.raises(VerifyError, match=r"2 argument") as err:
        Call(MatMul(), [Var("x", M48)], metadata=(BindingMetadata("only_label"),))
    assert "only_label" in str(err.value)


def test_call_args_must_be_exprs() -> None:
    with pytest.raises(TypeError, match="Expr"):
        Call(Binary(kind=BinaryKind.ADD), [Var("x", T4), cast(Any, 1.0)])


# ---------------------------------------------------------------------------------------------
# Var


def test_var_fields() -> None:
    v = Var(name="x", type=M48, is_const=False)
    assert (v.name, v.type, v.is_const) == ("x", M48, False)
    assert Var("w", M48, True).is_const is True
    assert Var("y", M48).is_const is False


def test_var_type_must_be_an_ir_type() -> None:
    with pytest.raises(TypeError, match="type"):
        Var("x", cast(Any, "tensor<4xf32>"))


def test_var_accepts_tuple_and_dim_var_types() -> None:
    n = DimVar("n", 1, 9)
    assert Var("t", TupleType((T4, M48))).type == TupleType((T4, M48))
    assert Var("d", TensorType((n, 4), "bf16")).type == TensorType((n, 4), "bf16")


def test_const_var_keeps_its_tensor_type() -> None:
    w = Var("w", M816, is_const=True)
    assert w.type == M816
    assert type(w.type) is TensorType
    assert w.type == Var("w2", M816).type


def test_is_const_is_preserved_as_a_function_param() -> None:
    x = Var("x", M48)
    w = Var("w", M816, is_const=True)
    f = Function(name="mlp", params=[x, w], body=ops.matmul(x, w))
    assert [p.name for p in f.params] == ["x", "w"]
    assert [p.is_const for p in f.params] == [False, True]
    assert f.params[1].type == M816
    assert w.is_const is True


def test_is_const_survives_text() -> None:
    x = Var("x", M48)
    w = Var("w", M816, is_const=True)
    f = Function(name="mlp", params=[x, w], body=ops.matmul(x, w))
    parsed = parse_module(print_module(Module(name="m", functions=[f]))).lookup("mlp")
    assert [(p.name, p.type, p.is_const) for p in parsed.params] == [
        ("x", M48, False),
        ("w", M816, True),
    ]


def test_const_param_embeds_no_payload() -> None:
    w = Var("w", M816, is_const=True)
    f = Function(name="f", params=[w], body=ops.neg(w))
    text = print_module(Module(name="m", functions=[f]))
    assert "dense" not in text
    assert "tf.constant" not in text


# ---------------------------------------------------------------------------------------------
# Constant


def test_constant_of_a_scalar_is_rank_0() -> None:
    assert Constant(1.5).type == TensorType((), "f32")
    assert Constant(3).type == TensorType((), "i32")
    assert Constant(True).type == TensorType((), "i1")
    assert Constant(value=2.5).type.rank == 0


def test_constant_of_a_list_is_a_tensor() -> None:
    c = Constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert c.type == TensorType((2, 3), "f32")
    assert np.array_equal(c.value, np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


def test_constant_value_is_kept() -> None:
    assert float(Constant(1.5).value) == 1.5
    assert int(Constant(7).value) == 7


# ---------------------------------------------------------------------------------------------
# Tuple


def test_tuple_is_an_expr_distinct_from_tuple_type() -> None:
    a = Var("a", T4)
    b = Var("b", TensorType((2,), "i32"))
    t = Tuple(elements=[a, b])
    assert isinstance(t, Expr)
    assert not isinstance(t, TupleType)
    assert not isinstance(t.type, Expr)
    assert t.type == TupleType((a.type, b.type))
    assert t.elements == (a, b)
    assert t.elements[0] is a


def test_tuple_of_calls() -> None:
    x = Var("x", M48)
    e = ops.exp(x)
    n = ops.neg(x)
    t = Tuple([e, n])
    assert t.elements[0] is e
    assert t.elements[1] is n
    assert t.type == TupleType((M48, M48))


def test_empty_tuple() -> None:
    assert Tuple([]).type == TupleType(())


def test_tuple_refuses_an_effect_form_element() -> None:
    x = Var("x", T4)
    with pytest.raises(VerifyError, match="effect"):
        Tuple([ops.copy(Var("b", BufferType((4,), "f32")), x)])


def test_multi_output_op_is_a_single_call_of_tuple_type() -> None:
    x = Var("x", M48)
    s = ops.split(x, 1, 2)
    assert type(s) is Call
    assert s.type == TupleType((TensorType((4, 4), "f32"), TensorType((4, 4), "f32")))
    first = ops.tuple_get_item(s, 0)
    assert type(first) is Call
    assert first.args[0] is s
    assert first.type == TensorType((4, 4), "f32")


# ---------------------------------------------------------------------------------------------
# Equality and hashing are identity


def test_var_equality_is_identity() -> None:
    a = Var("x", T4)
    b = Var("x", T4)
    assert a == a
    assert a != b
    assert len({a, b}) == 2
    assert hash(a) == hash(a)


def test_call_equality_is_identity() -> None:
    x = Var("x", T4)
    a = ops.add(x, x)
    b = ops.add(x, x)
    assert a == a
    assert a != b
    assert len({a, b}) == 2


def test_constant_and_tuple_equality_is_identity() -> None:
    assert Constant(1.0) != Constant(1.0)
    x = Var("x", T4)
    assert Tuple([x]) != Tuple([x])
    c = Constant(1.0)
    assert len({c, c}) == 1


def test_function_equality_is_identity() -> None:
    def make() -> Function:
        x = Var("x", T4)
        return Function(name="f", params=[x], body=ops.neg(x))

    assert make() != make()


# ---------------------------------------------------------------------------------------------
# Function assembles detached exprs


def test_function_fields() -> None:
    x = Var("x", M48)
    w = Var("w", M816, is_const=True)
    body = ops.relu(ops.matmul(x, w))
    f = Function(name="mlp", params=[x, w], body=body)
    assert isinstance(f, Expr)
    assert f.name == "mlp"
    assert f.params == (x, w)
    assert f.body is body
    assert f.type == TensorType((4, 16), "f32")


def test_function_of_an_effect_form_body_has_unit_type() -> None:
    """HIR has no buffers: an effect-only HIR function is one that returns nothing."""
    module = parse_module(
        "tf.module @m {\n  hir.func @none(%x: tensor<4xf32>) -> () {\n    hir.return\n  }\n}"
    )
    assert module.lookup("none").type == UnitType()


def test_an_hir_function_refuses_a_buffer() -> None:
    d = Var("d", BufferType((4,), "f32"))
    s = Var("s", T4)
    with pytest.raises(VerifyError, match="buffers belong to TIR"):
        Function(name="store", params=[d, s], body=ops.copy(d, s))


def test_function_returning_a_param() -> None:
    x = Var("x", T4)
    f = Function(name="ident", params=[x], body=x)
    assert f.body == x
    assert f.type == T4


def test_function_refuses_a_free_var() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    with pytest.raises(VerifyError, match=r"'y'"):
        Function(name="f", params=[x], body=ops.add(x, y))


def test_function_refuses_a_free_var_as_body() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    with pytest.raises(VerifyError, match=r"'y'"):
        Function(name="f", params=[x], body=y)


def test_free_var_refusal_names_the_failing_node() -> None:
    """DESIGN section 1: a VerifyError names the binding / source span of the failing node when
    known; here the failing node is the call that uses the free Var."""
    x = Var("x", T4)
    y = Var("y", T4)
    with pytest.raises(VerifyError, match=r"'y'") as err:
        Function(name="f", params=[x], body=ops.add(x, y, metadata=CONTEXT))
    assert "'h'" in str(err.value)
    assert "model.py:3:4" in str(err.value)


def test_refused_free_var_changes_nothing() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    inner = ops.exp(y)
    body = ops.add(ops.neg(x), inner)
    with pytest.raises(VerifyError, match=r"'y'"):
        Function(name="f", params=[x], body=body)
    # everything is still detached and usable
    assert body.args[1] is inner
    assert inner.args[0] is y
    f = Function(name="f", params=[x, y], body=body)
    assert f.body is body
    assert f.params == (x, y)
    assert f.body.args[1] is inner


def test_function_refuses_an_expr_of_another_function() -> None:
    x = Var("x", T4)
    shared = ops.exp(x)
    Function(name="f", params=[x], body=shared)
    z = Var("z", T4)
    with pytest.raises(VerifyError, match="function"):
        Function(name="g", params=[z], body=Tuple([shared, z]))


def test_refused_expr_of_another_function_changes_nothing() -> None:
    x = Var("x", T4)
    shared = ops.exp(x)
    f = Function(name="f", params=[x], body=shared)
    z = Var("z", T4)
    own = ops.neg(z)
    with pytest.raises(VerifyError, match="function"):
        Function(name="g", params=[z], body=Tuple([shared, own]))
    assert f.body is shared
    assert f.params == (x,)
    g = Function(name="g", params=[z], body=own)  # z and own are still detached
    assert g.body is own
    assert g.params == (z,)


def test_function_refuses_a_param_of_another_function() -> None:
    x = Var("x", T4)
    Function(name="f", params=[x], body=ops.neg(x))
    with pytest.raises(VerifyError, match="'x'"):
        Function(name="g", params=[x], body=x)


def test_function_refuses_a_var_of_another_function_in_its_body() -> None:
    x = Var("x", T4)
    Function(name="f", params=[x], body=ops.neg(x))
    w = Var("w", T4)
    body = ops.add(x, w)
    with pytest.raises(VerifyError, match="'x'"):
        Function(name="g", params=[w], body=body)
    g = Function(name="g", params=[w], body=ops.exp(w))
    assert g.params == (w,)


def test_function_refuses_two_params_of_one_name() -> None:
    a = Var("x", T4)
    b = Var("x", T4)
    with pytest.raises(VerifyError, match="'x'"):
        Function(name="f", params=[a, b], body=ops.add(a, b))
    f = Function(name="f", params=[a, Var("y", T4)], body=ops.neg(a))
    assert f.params[0] == a
