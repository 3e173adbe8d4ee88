"""Spec section 1 / 2.1 and DESIGN section 3 (tir): PrimFunction built from Python, LetStmt /
Evaluate, same-module prim_func calls through the symbol table, DispatchCall, and the text round
trip of a module holding prim functions."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import SymbolRefAttr

from tilefoundry import (
    BufferType,
    Call,
    Constant,
    DimVar,
    DimVarRangePat,
    Module,
    TensorType,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
    structural_equal,
)
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import DispatchCall, Evaluate, LetStmt, PrimFunction
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp
from tilefoundry.ops import Binary, BinaryKind, Copy, Unary, UnaryKind

T4 = TensorType((4,), "f32")
B4 = BufferType((4,), "f32")
N = DimVar("n", 1, 4097)
XN = TensorType((N,), "f32")


def square() -> PrimFunction:
    """square(x, out): out <- x * x (no value)."""
    x = Var("x", T4)
    out = Var("out", B4)
    y = LetStmt("y", Call(Binary(kind=BinaryKind.MUL), [x, x]))
    return PrimFunction(name="square", params=[x, out], body=[y, Evaluate(Copy(), [out, y.var])])


def negate(name: str = "negate", type: TensorType = T4) -> PrimFunction:
    x = Var("x", type)
    y = LetStmt("y", ops.neg(x))
    return PrimFunction(name=name, params=[x], body=[y], result=y.var)


def identity(name: str, type: TensorType = XN) -> PrimFunction:
    x = Var("x", type)
    return PrimFunction(name=name, params=[x], body=[], result=x)


def dispatch_module() -> Module:
    small, large = identity("small"), negate("large", XN)
    x = Var("x", XN)
    picked = LetStmt(
        "y",
        DispatchCall(
            [small, large],
            [[DimVarRangePat("n", 1, 128)], [DimVarRangePat("n", 128, 4097)]],
            [x],
        ),
    )
    pick = PrimFunction(name="pick", params=[x], body=[picked], result=picked.var)
    return Module(name="kernels", functions=[small, large, pick])


# ---------------------------------------------------------------------------------------------
# PrimFunction from Python


def test_prim_function_fields() -> None:
    k = square()
    assert k.name == "square"
    assert [p.name for p in k.params] == ["x", "out"]
    assert [type(s) for s in k.body] == [LetOp, EvaluateOp]
    from tilefoundry import UnitType

    assert k.type == UnitType()
    assert negate().type == T4


def test_prim_function_runs_its_statements_in_order() -> None:
    m = Module(name="m", functions=[square()])
    out = np.zeros(4, np.float32)
    assert m.square(np.arange(4, dtype=np.float32), out) is None
    np.testing.assert_allclose(out, [0, 1, 4, 9])


def test_prim_function_returns_its_result() -> None:
    m = Module(name="m", functions=[negate()])
    np.testing.assert_allclose(m.negate(np.arange(4, dtype=np.float32)), -np.arange(4))


# ---------------------------------------------------------------------------------------------
# LetStmt / Evaluate


def test_let_stmt_anchors_a_value_form_call_and_binds_its_var() -> None:
    x = Var("x", T4)
    call = Call(Unary(kind=UnaryKind.EXP), [x])
    let = LetStmt("e", call)
    assert let.value is call
    assert let.var.name == "e"
    assert let.var.type == T4


def test_let_stmt_anchors_a_constant() -> None:
    let = LetStmt("c", Constant(np.full(4, 2.0, np.float32)))
    x = Var("x", T4)
    y = LetStmt("y", ops.mul(x, let.var))
    m = Module(
        name="m", functions=[PrimFunction(name="k", params=[x], body=[let, y], result=y.var)]
    )
    np.testing.assert_allclose(m.k(np.ones(4, np.float32)), np.full(4, 2.0))


def test_let_stmt_refuses_an_effect_form_call() -> None:
    a, b = Var("a", B4), Var("b", T4)
    with pytest.raises(VerifyError, match=r"LetStmt 'z' anchors a value-form.*no value.*Evaluate"):
        LetStmt("z", Call(Copy(), [a, b]))


def test_evaluate_runs_an_effect_form_op() -> None:
    a, b = Var("a", B4), Var("b", T4)
    statement = Evaluate(Copy(), [a, b])
    assert isinstance(statement, EvaluateOp)
    assert isinstance(statement.call, CallOp)
    assert not statement.call.results


def test_evaluate_refuses_a_value_form_op() -> None:
    a, b = Var("a", T4), Var("b", T4)
    with pytest.raises(VerifyError, match=r"Evaluate runs an effect-form op.*has a value.*LetStmt"):
        Evaluate(Binary(kind=BinaryKind.ADD), [a, b])


def test_a_bare_effect_call_as_a_statement_is_refused() -> None:
    a, b = Var("a", B4), Var("b", T4)
    with pytest.raises(VerifyError, match=r"statement #0 is a bare Call"):
        PrimFunction(name="p", params=[a, b], body=[Call(Copy(), [a, b])])


def test_a_bare_value_call_as_a_statement_is_refused() -> None:
    a = Var("a", T4)
    let = LetStmt("z", ops.neg(a))
    with pytest.raises(VerifyError, match=r"statement #1 is a bare Call"):
        PrimFunction(name="p", params=[a], body=[let, ops.exp(let.var)])


def test_a_bare_call_in_text_is_refused() -> None:
    text = """
tf.module @m {
  tir.prim_func @p(%a: tensor<4xf32>) -> () {
    %y = tf.call tf.math.unary<kind = neg>(%a) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return
  }
}
"""
    with pytest.raises(ValueError, match=r"tf.call cannot be a statement"):
        parse_module(text)


def test_statements_use_params_and_earlier_let_vars() -> None:
    a = Var("a", T4)
    first = LetStmt("z", ops.neg(a))
    second = LetStmt("w", ops.exp(first.var))
    third = LetStmt("v", ops.add(second.var, a))
    k = PrimFunction(name="p", params=[a], body=[first, second, third], result=third.var)
    m = Module(name="m", functions=[k])
    np.testing.assert_allclose(m.p(np.zeros(4, np.float32)), np.ones(4))


def test_a_statement_may_not_use_a_later_let_var() -> None:
    a = Var("a", T4)
    first = LetStmt("z", ops.neg(a))
    second = LetStmt("w", ops.exp(first.var))
    with pytest.raises(
        VerifyError,
        match=r"statement #0 uses 'z'.*neither a parameter nor the Var of an earlier LetStmt",
    ):
        PrimFunction(name="p", params=[a], body=[second, first])


def test_a_statement_may_not_use_a_foreign_var() -> None:
    a, b = Var("a", T4), Var("b", T4)
    with pytest.raises(VerifyError, match=r"statement #0 uses 'b'.*neither a parameter"):
        PrimFunction(name="p", params=[a], body=[LetStmt("z", ops.add(a, b))])


def test_the_result_must_be_a_param_or_a_let_var() -> None:
    a = Var("a", T4)
    with pytest.raises(VerifyError, match=r"returns a value that is neither a parameter nor a Var"):
        PrimFunction(name="p", params=[a], body=[], result=Var("q", T4))


def test_a_refused_prim_function_leaves_its_statements_usable() -> None:
    a = Var("a", T4)
    first = LetStmt("z", ops.neg(a))
    second = LetStmt("w", ops.exp(first.var))
    with pytest.raises(VerifyError):
        PrimFunction(name="p", params=[a], body=[second, first])
    k = PrimFunction(name="p", params=[a], body=[first, second], result=second.var)
    np.testing.assert_allclose(
        Module(name="m", functions=[k]).p(np.zeros(4, np.float32)), np.ones(4)
    )


# ---------------------------------------------------------------------------------------------
# Same-module prim_func calls resolve through the symbol table


def caller_module() -> Module:
    callee = negate("neg4")
    x = Var("x", T4)
    r = LetStmt("r", Call(callee, [x]))
    s = LetStmt("s", ops.exp(r.var))
    caller = PrimFunction(name="caller", params=[x], body=[r, s], result=s.var)
    return Module(name="m", functions=[caller, callee])


def test_a_prim_function_call_names_its_callee_by_symbol() -> None:
    m = caller_module()
    (call,) = [
        op
        for op in m.module_op.walk()
        if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr)
    ]
    assert call.callee == SymbolRefAttr("neg4")
    assert isinstance(call.parent_op(), LetOp)
    assert call.target is m.lookup("neg4").function_op
    assert "tir.let tf.call @neg4(%x)" in print_module(m)


def test_a_prim_function_call_runs() -> None:
    m = caller_module()
    np.testing.assert_allclose(m.caller(np.zeros(4, np.float32)), np.ones(4))
    np.testing.assert_allclose(m.caller(np.ones(4, np.float32)), np.exp(-np.ones(4)), rtol=1e-6)


def test_a_copy_calls_its_own_callee() -> None:
    m = caller_module()
    copy = m.cloned()
    (call,) = [
        op
        for op in copy.module_op.walk()
        if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr)
    ]
    assert call.target is copy.lookup("neg4").function_op
    assert call.target is not m.lookup("neg4").function_op


def test_a_call_resolves_by_symbol_not_by_python_object() -> None:
    """The callee is whatever the module's symbol table holds under the name: text naming
    @neg4 reaches the parsed function, which no Python object ever referred to."""
    text = print_module(caller_module()).replace(
        "tf.call tf.math.unary<kind = neg>", "tf.call tf.math.unary<kind = abs>"
    )
    again = parse_module(text)
    np.testing.assert_allclose(again.caller(-np.ones(4, np.float32)), np.exp(np.ones(4)), rtol=1e-6)


def test_a_call_of_a_prim_function_outside_the_module_is_refused() -> None:
    callee = negate("neg4")
    x = Var("x", T4)
    r = LetStmt("r", Call(callee, [x]))
    caller = PrimFunction(name="caller", params=[x], body=[r], result=r.var)
    with pytest.raises(VerifyError, match=r"'neg4'.*does not hold that function"):
        Module(name="m", functions=[caller])
    np.testing.assert_allclose(
        Module(name="m", functions=[caller, callee]).caller(np.ones(4, np.float32)), -np.ones(4)
    )


def test_an_unresolved_symbol_in_text_is_refused() -> None:
    text = """
tf.module @m {
  tir.prim_func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = tir.let tf.call @missing(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return %r : tensor<4xf32>
  }
}
"""
    with pytest.raises(ValueError, match=r"@missing"):
        parse_module(text)


def test_an_hir_function_may_call_a_prim_function() -> None:
    callee = negate("neg4")
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=ops.exp(Call(callee, [x])))
    m = Module(name="m", functions=[f, callee])
    np.testing.assert_allclose(m.f(np.zeros(4, np.float32)), np.ones(4))


# ---------------------------------------------------------------------------------------------
# DispatchCall


def test_dispatch_call_records_callees_and_case_patterns() -> None:
    m = dispatch_module()
    (dispatch,) = [op for op in m.module_op.walk() if isinstance(op, DispatchOp)]
    assert [c.root_reference.data for c in dispatch.callees] == ["small", "large"]
    assert dispatch.case_patterns == (
        (DimVarRangePat("n", 1, 128),),
        (DimVarRangePat("n", 128, 4097),),
    )


@pytest.mark.parametrize(("n", "sign"), [(1, 1.0), (127, 1.0), (128, -1.0), (4096, -1.0)])
def test_dispatch_call_picks_the_case_by_the_runtime_size(n: int, sign: float) -> None:
    m = dispatch_module()
    out = m.pick(np.ones(n, np.float32))
    np.testing.assert_allclose(out, np.full(n, sign))


def test_dispatch_call_with_no_holding_case_is_refused_when_run() -> None:
    small, large = identity("small"), negate("large", XN)
    x = Var("x", XN)
    picked = LetStmt(
        "y",
        DispatchCall(
            [small, large], [[DimVarRangePat("n", 1, 8)], [DimVarRangePat("n", 8, 16)]], [x]
        ),
    )
    pick = PrimFunction(name="pick", params=[x], body=[picked], result=picked.var)
    m = Module(name="k", functions=[small, large, pick])
    np.testing.assert_allclose(m.pick(np.ones(9, np.float32)), -np.ones(9))
    with pytest.raises(ValueError, match=r"no dispatch case holds.*n = 20"):
        m.pick(np.ones(20, np.float32))


def test_dispatch_call_needs_one_pattern_list_per_target() -> None:
    x = Var("x", XN)
    with pytest.raises(VerifyError, match=r"one case pattern list per target"):
        DispatchCall([identity("a"), identity("b")], [[DimVarRangePat("n", 1, 8)]], [x])


def test_dispatch_call_arguments_must_fit_every_target() -> None:
    x = Var("x", TensorType((4,), "i32"))
    with pytest.raises(VerifyError, match=r"do not fit"):
        DispatchCall([identity("a")], [[DimVarRangePat("n", 1, 8)]], [x])


def test_dispatch_call_runs_after_a_text_round_trip() -> None:
    again = parse_module(print_module(dispatch_module()))
    np.testing.assert_allclose(again.pick(np.ones(3, np.float32)), np.ones(3))
    np.testing.assert_allclose(again.pick(np.ones(300, np.float32)), -np.ones(300))


# ---------------------------------------------------------------------------------------------
# Text round trip of a module holding prim functions


def prim_module() -> Module:
    callee = negate("neg4")
    x = Var("x", T4)
    r = LetStmt("r", Call(callee, [x]))
    caller = PrimFunction(name="caller", params=[x], body=[r], result=r.var)
    tree = dispatch_module()
    return Module(
        name="root", functions=[square(), callee, caller], modules={"dispatch": tree}, target="cuda"
    )


@pytest.mark.parametrize("generic", [False, True])
def test_print_then_parse_gives_a_structurally_equal_module(generic: bool) -> None:
    m = prim_module()
    again = parse_module(print_module(m, generic=generic))
    assert again is not m
    assert structural_equal(again, m)
    assert print_module(again) == print_module(m)


def test_structural_equality_sees_a_changed_statement() -> None:
    m = prim_module()
    text = print_module(m)
    changed = text.replace(
        "tf.math.binary<kind = mul>(%x, %x)", "tf.math.binary<kind = add>(%x, %x)"
    )
    assert changed != text
    assert not structural_equal(parse_module(changed), m)


def test_structural_equality_sees_a_changed_dispatch_case() -> None:
    m = prim_module()
    text = print_module(m)
    changed = text.replace(
        "@small: [n: 1 to 128], @large: [n: 128 to 4097]",
        "@small: [n: 1 to 64], @large: [n: 64 to 4097]",
    )
    assert changed != text
    assert not structural_equal(parse_module(changed), m)


def test_a_parsed_prim_module_runs_like_the_original() -> None:
    again = parse_module(print_module(prim_module()))
    out = np.zeros(4, np.float32)
    again.square(np.arange(4, dtype=np.float32), out)
    np.testing.assert_allclose(out, [0, 1, 4, 9])
    np.testing.assert_allclose(again.caller(np.ones(4, np.float32)), -np.ones(4))


def test_a_bare_prim_function_becomes_a_single_function_module() -> None:
    text = """
tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
  tir.return %y : tensor<4xf32>
}
"""
    m = parse_module(text)
    assert isinstance(m, Module)
    assert [f.name for f in m.functions] == ["k"]
    assert isinstance(m.lookup("k"), PrimFunction)
    assert m.entry == "k"
    np.testing.assert_allclose(m(np.ones(4, np.float32)), -np.ones(4))


def test_buffers_from_python_follow_the_ir_rules() -> None:
    """A buffer is a parameter or a LetStmt of ops.alloc; it is never returned nor re-bound, and a
    value-form op reads it only through ops.load."""
    b = Var("b", B4)
    with pytest.raises(VerifyError, match=r"returns the buffer !tf.buffer<4xf32>.*ops.load"):
        PrimFunction(name="p", params=[b], body=[], result=b)
    with pytest.raises(VerifyError, match=r"binds a buffer \(!tf.buffer<4xf32>\) only from"):
        LetStmt("alias", Var("c", B4))
    with pytest.raises(VerifyError, match=r"operand #0 is a buffer.*tf.memory.load"):
        ops.neg(Var("d", B4))
    tmp = LetStmt("tmp", ops.alloc((4,), "f32"))
    x = Var("x", T4)
    out = Var("out", B4)
    copy_in = Evaluate(Copy(), [tmp.var, x])
    copy_out = Evaluate(Copy(), [out, tmp.var])
    loaded = LetStmt("loaded", ops.load(out))
    k = PrimFunction(
        name="k", params=[x, out], body=[tmp, copy_in, copy_out, loaded], result=loaded.var
    )
    m = Module(name="m", functions=[k])
    given = np.zeros(4, np.float32)
    result = m.k(np.arange(4, dtype=np.float32), given)
    np.testing.assert_array_equal(given, np.arange(4))
    np.testing.assert_array_equal(result, np.arange(4))
    assert structural_equal(parse_module(print_module(m)), m)
