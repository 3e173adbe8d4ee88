"""The function and call ops declare what xDSL declares (issue 16, section 4): `hir.func` and
`tir.prim_func` implement xDSL's `CallableOpInterface`, `tf.call` and `tir.dispatch` its
`SymbolUserOpInterface`, and `hir.return` / `tir.return` share one verifier."""

from __future__ import annotations

import pytest
from xdsl.ir import Operation
from xdsl.traits import CallableOpInterface, SymbolUserOpInterface

import tilefoundry as tf
from tilefoundry.api.text import TextError
from tilefoundry.dialects import hir, tir
from tilefoundry.dialects.function import FunctionReturn

TD = "tensor<?xf32, #tf.dims<n: 1 to 4097>>"
TEXT = f"""
tf.module @m {{
  hir.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {{const}}) -> tensor<4xf32> {{
    %y = tf.call tf.math.binary<kind = add>(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }}
  tir.prim_func @small(%x: {TD}) -> {TD} {{
    tir.return %x : {TD}
  }}
  tir.prim_func @pick(%x: {TD}) -> {TD} {{
    %y = tir.let tir.dispatch [@small: [n: 1 to 4097]](%x) : ({TD}) -> {TD}
    tir.return %y : {TD}
  }}
  tir.prim_func @effect() -> () {{
    tir.return
  }}
}}
"""


def _ops() -> dict[str, Operation]:
    module = tf.parse_module(TEXT).module_op
    found: dict[str, Operation] = {}
    for op in module.walk():
        found.setdefault(op.name, op)
        sym_name = op.properties.get("sym_name")
        if sym_name is not None:
            found[f"@{sym_name.data}"] = op  # type: ignore[attr-defined]
    return found


def test_functions_are_xdsl_callables() -> None:
    ops = _ops()
    for symbol in ("@f", "@small", "@pick", "@effect"):
        op = ops[symbol]
        callable_ = op.get_trait(CallableOpInterface)
        assert callable_ is not None, symbol
        assert callable_.get_callable_region(op) is op.regions[0]
        signature = op.properties["function_type"]
        assert callable_.get_argument_types(op) == signature.inputs.data  # type: ignore[attr-defined]
        assert callable_.get_result_types(op) == signature.outputs.data  # type: ignore[attr-defined]
    f = ops["@f"]
    assert isinstance(f, hir.FuncOp)
    f_callable = f.get_trait(CallableOpInterface)
    assert f_callable is not None
    assert [str(t) for t in f_callable.get_argument_types(f)] == ["tensor<4xf32>"] * 2
    assert [str(t) for t in f_callable.get_result_types(f)] == ["tensor<4xf32>"]
    last = f_callable.get_callable_region(f).block.last_op
    assert isinstance(last, hir.ReturnOp)
    assert f_callable.get_result_types(ops["@effect"]) == ()
    # the home-made view (`FunctionLike`) reads its types through the interface
    pick = ops["@pick"]
    assert isinstance(pick, tir.PrimFuncOp)
    assert str(pick.result_type()) == TD
    assert [str(t) for t in pick.param_types()] == [TD]


def test_call_ops_are_symbol_users() -> None:
    ops = _ops()
    for name in ("tf.call", "tir.dispatch"):
        assert ops[name].get_trait(SymbolUserOpInterface) is not None, name


def test_return_ops_share_one_verifier() -> None:
    assert issubclass(hir.ReturnOp, FunctionReturn)
    assert issubclass(tir.ReturnOp, FunctionReturn)
    for func, ret in (("hir.func", "hir.return"), ("tir.prim_func", "tir.return")):
        text = f"{func} @g(%x: tensor<4xf32>) -> () {{\n  {ret} %x : tensor<4xf32>\n}}\n"
        with pytest.raises(
            TextError, match="returns tensor<4xf32>, but function '@g' returns nothing"
        ):
            tf.parse_module(text)
