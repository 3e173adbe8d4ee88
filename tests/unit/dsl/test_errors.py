"""Every error in DSL code is one `DSLError` at the Python `file:line:col`, with the source line
and a caret (issue 13, item 7), raised from the decorator or the class statement, never from
inside the parser's frames."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import DSLError, Mesh, Tensor, f32

FILE = __file__


def where(marker: str) -> tuple[int, int]:
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if marker in text and "where(" not in text:
            return number, text.index(marker) + 1
    raise AssertionError(marker)


def refused(build: Callable[[], Any], marker: str, message: str) -> DSLError:
    with pytest.raises(DSLError) as info:
        build()
    err = info.value
    line, column = where(marker)
    assert err.location == f"{FILE}:{line}:{column}", str(err)
    assert message in err.message, err.message
    text = str(err)
    assert text.startswith(f"{FILE}:{line}:{column}: error: ")
    source, caret = text.splitlines()[1:3]
    assert marker in source
    assert caret.index("^") == column - 1
    frames = [f.filename for f in traceback.extract_tb(err.__traceback__)]
    inside = ("dsl/parser.py", "dsl/expressions.py", "dsl/values.py", "dsl/source.py")
    assert not any(f.endswith(inside) for f in frames), frames
    return err


def test_unknown_op() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return ops.exp2(x)  # unknown

    refused(build, "ops.exp2(x)", "unknown op or name 'tilefoundry.ops.exp2'")


def test_wrong_arity() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return ops.add(x)  # arity

    refused(build, "ops.add(x)", "add() takes 2 argument(s), got 1")


def test_typeinfer_mismatch() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32], w: Tensor[(8, 8), f32]):
            return x @ w  # mismatch

    refused(build, "x @ w  # mismatch", "tf.linalg.matmul")


def test_returned_type_mismatch() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]) -> Tensor[(8,), f32]:  # returns
            return x

    refused(build, "Tensor[(8,), f32]:  # returns", "typeinfer mismatch")


def test_unsupported_python_syntax() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            while True:  # loop
                pass
            return x

    refused(build, "while True:  # loop", "a while loop is not part of the DSL: write a static")


def test_unsupported_expression() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return {x: x}  # dict

    refused(build, "{x: x}  # dict", "a dict display is not part of the DSL")


def test_a_data_dependent_loop() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            for v in ops.exp(x):  # data
                x = x + v
            return x

    refused(build, "ops.exp(x):  # data", "a for loop over an IR value is data-dependent")


def test_a_data_dependent_if() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            if x > 0.0:  # data
                return x
            return -x

    refused(build, "x > 0.0:  # data", "pick with ops.where(condition, a, b)")


def test_a_data_dependent_conditional_expression() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return x if x < 1.0 else -x  # data

    refused(build, "x < 1.0 else", "a conditional expression on an IR value is data-dependent")


def test_unknown_name() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return ops.exp(w_q)  # noqa: F821

    refused(build, "w_q)", "unknown name 'w_q'")


def test_a_missing_annotation() -> None:
    def build() -> Any:
        @tf.func
        def f(x, y: Tensor[(4,), f32]):  # no annotation
            return y

    refused(build, "x, y: Tensor", "parameter 'x' needs a type")


def test_a_bad_annotation() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), "f31"]):  # noqa: F821, UP037
            return x

    refused(build, 'Tensor[(4,), "f31"]', "unknown dtype 'f31'")


def test_a_mesh_level_not_in_the_hierarchy() -> None:
    def build() -> Any:
        @tf.func(target="h100", topologies=(tf.Topology("cta", 4),))
        def f(x: Tensor[(4,), f32]):
            with Mesh("warp"):  # level
                return ops.exp(x)

    refused(build, 'Mesh("warp")', "mesh level 'warp' is not in the effective hierarchy")


def test_a_name_clash_with_a_function_of_the_module() -> None:
    def build() -> Any:
        class M(tf.Module):
            @tf.func
            def g(x: Tensor[(4,), f32]):
                return x

            @tf.func
            def f(x: Tensor[(4,), f32]):
                g = ops.exp(x)  # clash
                return g

        return M()

    refused(build, "g = ops.exp(x)", "name clash: 'g' names a function or child module")


def test_a_name_clash_between_a_function_and_a_method() -> None:
    def build() -> Any:
        class M(tf.Module):
            @tf.func
            def g(x: Tensor[(4,), f32]):
                return x

            def g(self) -> None:  # noqa: F811 - the clash under test
                return None

    refused(build, "def g(self) -> None:", "names both a function and a method")


def test_two_functions_of_one_name() -> None:
    def build() -> Any:
        class M(tf.Module):
            @tf.func
            def g(x: Tensor[(4,), f32]):
                return x

            @tf.func
            def g(x: Tensor[(4,), f32]):  # noqa: F811 - twice
                return x

    refused(build, "def g(x: Tensor[(4,), f32]):  # noqa: F811 - twice", "two functions")


def test_a_name_clash_with_a_child() -> None:
    class Child(tf.Module):
        @tf.func
        def h(x: Tensor[(4,), f32]):
            return x

    def build() -> Any:
        class M(tf.Module):  # child clash
            def __init__(self) -> None:
                self.g = Child()

            @tf.func
            def g(x: Tensor[(4,), f32]):
                return x

        return M()

    refused(build, "class M(tf.Module):  # child clash", "child module 'g'")


def test_recursion() -> None:
    def build() -> Any:
        class M(tf.Module):
            @tf.func
            def f(self, x: Tensor[(4,), f32]):
                return self.g(x)

            @tf.func
            def g(self, x: Tensor[(4,), f32]):
                return self.f(x)  # cycle

        return M()

    refused(build, "self.f", "function 'f' calls itself (f -> g -> f): annotate its return")


def test_an_expression_statement_in_hir() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            ops.exp(x)  # dropped
            return x

    refused(build, "ops.exp(x)  # dropped", "has no effect")


def test_a_value_statement_in_tir() -> None:
    def build() -> Any:
        @tf.prim_func
        def f(x: Tensor[(4,), f32]):
            ops.exp(x)  # value

    refused(build, "ops.exp(x)  # value", "has a value of type")


def test_a_missing_return() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):  # no return
            y = x  # noqa: F841

    refused(build, "def f(x: Tensor[(4,), f32]):  # no return", "must end with a return")


def test_unreachable_code() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return x
            y = x  # noqa: F841 - unreachable

    refused(build, "y = x  # noqa: F841 - unreachable", "unreachable statement after return")


def test_a_name_assigned_inside_a_mesh_is_not_visible_after() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            with Mesh("cta"):
                inner = ops.exp(x)
                y = inner + x
            return inner * y  # hidden

    refused(build, "inner * y", "is assigned inside the with Mesh(...) block")


def test_a_shadowed_module_api_name() -> None:
    def build() -> Any:
        @tf.func
        def lookup(x: Tensor[(4,), f32]):  # api
            return x

    refused(build, "def lookup(", "shadows the Module API")


def test_a_sealed_function_refuses_a_variant() -> None:
    class M(tf.Module):
        @tf.func
        def f(x: Tensor[(tf.DimVar("n", 1, 9),), f32]):
            return x

    M()
    base = M.__dict__["__tf_class__"].functions["f"]

    def build() -> Any:
        @base.variant(n=(1, 4))
        def f_small(x):  # sealed
            return x

    refused(build, "def f_small(x):  # sealed", "is sealed")


def test_an_uncaught_error_shows_the_source_line_and_a_caret() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            return ops.exp(x, 2)  # extra

    err = refused(build, "ops.exp(x, 2)", "exp() takes 1 argument(s), got 2")
    shown = "".join(traceback.format_exception_only(err))  # what Python prints
    assert "return ops.exp(x, 2)  # extra" in shown and "^^^^^^^^^^^^^" in shown


def test_with_mesh_outside_the_dsl_says_where_it_belongs() -> None:
    with pytest.raises(TypeError, match="is DSL syntax, inside a @tf.func body"):
        with tf.Mesh(topology="cta"):
            pass


def test_an_async_def() -> None:
    def build() -> Any:
        @tf.func
        async def f(x: Tensor[(4,), f32]):  # async
            return x

    refused(build, "async def f(", "reads a plain def")
