"""Wrong Python arguments: every public constructor and helper refuses a wrong-typed or
out-of-range argument with a TypeError, ValueError or VerifyError whose message names the
argument — never an AttributeError from inside, never one of xDSL's own exceptions.

A table-driven fuzz: each entry builds something valid from fresh arguments; every argument in
turn (and the first item of every list argument) is replaced by each value of `WRONG`, and a
seeded random sample replaces two arguments at once. A replacement that happens to be valid
(None for an optional argument) may succeed."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import (
    BindingMetadata,
    BufferType,
    Call,
    Constant,
    DimVar,
    DimVarRangePat,
    IRMetadata,
    LoadedModule,
    Mesh,
    Module,
    SourceSpanMetadata,
    Target,
    TensorType,
    Topology,
    Tuple,
    TupleType,
    Var,
    VerifyError,
    ops,
)
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import DispatchCall, Evaluate, LetStmt, PrimFunction

T4 = TensorType((4,), "f32")
N = DimVar("n", 1, 65)
XN = TensorType((N,), "f32")
M44 = TensorType((4, 4), "f32")

WRONG: tuple[object, ...] = (
    3,
    -1,
    2**70,
    2**20000,
    1.5,
    float("nan"),
    "",
    "a b",
    None,
    True,
    object(),
    [],
    [3],
    ["x"],
    {"a": 3},
    {3: 3},
    lambda: 3,
    b"x",
    np.array([1j]),
    T4,
)
"""Values of the wrong type or out of range for (nearly) every argument."""


@dataclass(frozen=True)
class Metric(IRMetadata):
    """A metadata class of a user's, with an int field."""

    metadata_name = "test.arguments.metric"
    value: int


def neg_fn(name: str = "f") -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.neg(x))


def neg_n_fn() -> Function:
    x = Var("x", XN)
    return Function(name="f", params=[x], body=ops.neg(x))


def identity(name: str) -> PrimFunction:
    x = Var("x", XN)
    return PrimFunction(name=name, params=[x], body=[], result=x)


def _unsealed() -> Function:
    x = Var("x", XN)
    return Function(name="f", params=[x], body=x)


def module() -> Module:
    return Module(name="m", functions=[neg_fn("f")], entry="f")


@dataclass(frozen=True)
class Case:
    """`build(**valid())` succeeds; `labels` maps an argument to the words its refusals may
    name (`a|b`; the argument's own name unless given). A `lookup` may also miss (KeyError)."""

    name: str
    build: Callable[..., Any]
    valid: Callable[[], dict[str, Any]]
    labels: dict[str, str]

    def words(self, argument: str) -> list[str]:
        return self.labels.get(argument, argument).lower().split("|")

    @property
    def allowed(self) -> tuple[type[Exception], ...]:
        return (*ALLOWED, KeyError) if "lookup" in self.labels else ALLOWED


def case(
    title: str,
    build: Callable[..., Any],
    valid: Callable[[], dict[str, Any]],
    /,
    **labels: str,
) -> Case:
    return Case(title, build, valid, labels)


def _mesh_body() -> Any:
    x = Var("x", T4)
    return ops.exp(x)


CASES: tuple[Case, ...] = (
    case(
        "Module",
        Module,
        lambda: {
            "name": "m",
            "functions": [neg_fn("f")],
            "entry": "f",
            "modules": {"c": Module(name="c")},
            "target": "h100",
            "topologies": (Topology("cta", 4),),
            "metadata": {"opt": 1},
            "methods": {"forward": lambda self: 0},
        },
        functions="function",
        modules="module",
        topologies="topolog",
        methods="method",
    ),
    case("Module by list", Module, lambda: {"name": "m", "modules": [Module(name="c")]}),
    case("Module.implicit", Module.implicit, lambda: {"function": neg_fn("f")}),
    case("Module.renamed", lambda name: module().renamed(name), lambda: {"name": "n"}),
    case(
        "Function",
        Function,
        lambda: (lambda x: {"name": "f", "params": [x], "body": ops.neg(x), "metadata": ()})(
            Var("x", T4)
        ),
        params="param",
    ),
    case(
        "PrimFunction",
        PrimFunction,
        lambda: (
            lambda x: {
                "name": "k",
                "params": [x],
                "body": [LetStmt("y", ops.neg(x))],
                "result": x,
                "metadata": (),
            }
        )(Var("x", T4)),
        params="param",
        body="statement",
    ),
    case(
        "Var",
        Var,
        lambda: {"name": "x", "type": T4, "is_const": False, "metadata": ()},
    ),
    case(
        "Call",
        Call,
        lambda: {"target": ops.MatMul(), "args": [Var("a", M44), Var("b", M44)], "metadata": ()},
        args="arg",
    ),
    case(
        "Call of a function",
        Call,
        lambda: {"target": neg_fn("g"), "args": [Var("a", T4)]},
        args="arg",
    ),
    case("Constant", Constant, lambda: {"value": [1.0, 2.0], "dtype": "f32", "metadata": ()}),
    case(
        "Constant with metadata",
        Constant,
        lambda: {"value": 1.0, "metadata": [Metric(3)]},
    ),
    case("Tuple", Tuple, lambda: {"elements": [Var("a", T4)], "metadata": ()}, elements="element"),
    case(
        "Mesh",
        Mesh,
        lambda: {"topology": "cta", "body": _mesh_body, "metadata": ()},
    ),
    case("LetStmt", LetStmt, lambda: {"name": "y", "value": ops.neg(Var("x", T4))}),
    case(
        "Evaluate",
        Evaluate,
        lambda: {
            "op": ops.Copy(),
            "args": [Var("a", BufferType((4,), "f32")), Var("b", T4)],
            "metadata": (),
        },
        args="arg",
    ),
    case(
        "DispatchCall",
        DispatchCall,
        lambda: {
            "targets": [identity("small"), identity("large")],
            "case_patterns": [[DimVarRangePat("n", 1, 8)], [DimVarRangePat("n", 8, 65)]],
            "args": [Var("x", XN)],
        },
        targets="target",
        case_patterns="pattern",
        args="arg",
    ),
    case(
        "Function.add_variant",
        lambda patterns, params, body: _unsealed().add_variant(patterns, params, body),
        lambda: (lambda x: {"patterns": [DimVarRangePat("n", 1, 8)], "params": [x], "body": x})(
            Var("x", XN)
        ),
        patterns="pattern|range",
        params="param",
    ),
    case(
        "typeinfer",
        tf.typeinfer,
        lambda: {"target": ops.MatMul(), "arg_types": [M44, M44]},
        arg_types="arg|operand",
    ),
    case("AndPat", tf.AndPat, lambda: {"parts": [tf.Tensor]}, parts="part"),
    case("Target", Target, lambda: {"name": "h100"}, name="target"),
    case("Topology", Topology, lambda: {"name": "cta", "extent": 4}),
    case("TensorType", TensorType, lambda: {"shape": (N, 4), "dtype": "f32"}, shape="dimension"),
    case("TupleType", TupleType, lambda: {"fields": [T4]}, fields="field"),
    case("DimVar", DimVar, lambda: {"name": "n", "lo": 1, "hi": 8}),
    case("DimVarRangePat", DimVarRangePat, lambda: {"dim_var": "n", "lo": 1, "hi": 8}),
    case("BindingMetadata", BindingMetadata, lambda: {"name": "h"}),
    case(
        "SourceSpanMetadata",
        SourceSpanMetadata,
        lambda: {"file": "f.py", "line": 3, "column": 4, "end_line": 3, "end_column": 9},
        end_line="end|line",
        end_column="end|column",
    ),
    case(
        "replace_metadata",
        tf.replace_metadata,
        lambda: {"expr": Var("x", T4), "value": BindingMetadata("h")},
        value="metadata",
    ),
    case(
        "remove_metadata",
        tf.remove_metadata,
        lambda: {"expr": Var("x", T4), "cls": BindingMetadata},
        cls="IRMetadata",
    ),
    case(
        "get_metadata",
        tf.get_metadata,
        lambda: {"expr": Var("x", T4), "cls": BindingMetadata},
        cls="IRMetadata",
    ),
    case("binding_name", tf.binding_name, lambda: {"expr": Var("x", T4)}),
    case("diagnostic_location", tf.diagnostic_location, lambda: {"expr": Var("x", T4)}),
    case("source_metadata", tf.source_metadata, lambda: {"expr": Var("x", T4)}),
    case(
        "structural_equal",
        tf.structural_equal,
        lambda: {"a": module(), "b": module()},
        a="node",
        b="node",
    ),
    case("structural_hash", tf.structural_hash, lambda: {"node": module()}),
    case("select", tf.select, lambda: {"module": module(), "path": ""}, lookup="yes"),
    case("function_selectors", tf.function_selectors, lambda: {"module": module()}),
    case("print_module", tf.print_module, lambda: {"module": module()}),
    case(
        "parse_module",
        tf.parse_module,
        lambda: {"text": "tf.module @m {}", "name": "m.mlir"},
        text="text|error",
    ),
    case("LoadedModule", LoadedModule, lambda: {"module": module(), "weights": {}}),
    case(
        "run_passes",
        tf.run_passes,
        lambda: {"module": module(), "pipeline": "cse"},
        pipeline="pipeline|column",
    ),
    case(
        "analyze",
        tf.analyze,
        lambda: {
            "module": Module(name="r", functions=[neg_n_fn()], target="h100", topologies=()),
            "dims": {"n": 4},
        },
    ),
    case(
        "an op alias",
        lambda lhs, rhs: ops.add(lhs, rhs),
        lambda: {"lhs": Var("a", T4), "rhs": Var("b", T4)},
        lhs="argument #0",
        rhs="argument #1",
    ),
    case("an op of one argument", lambda x: ops.neg(x), lambda: {"x": Var("a", T4)}, x="argument"),
    case(
        "an op with attributes",
        lambda axis, keepdims: ops.reduce_sum(Var("a", T4), axis, keepdims),
        lambda: {"axis": 0, "keepdims": False},
    ),
    case(
        "Transpose",
        lambda perm: ops.transpose(Var("a", TensorType((2, 3), "f32")), perm),
        lambda: {"perm": (1, 0)},
    ),
)

ALLOWED = (TypeError, ValueError, VerifyError)


def _check(case: Case, arguments: dict[str, Any], replaced: tuple[str, ...]) -> None:
    try:
        case.build(**arguments)
    except case.allowed as err:
        assert not type(err).__module__.startswith("xdsl"), f"xDSL's {type(err).__name__}"
        message = str(err)
        assert message.strip(), f"{type(err).__name__} without a message"
        words = [word for name in replaced for word in case.words(name)]
        assert any(word in message.lower() for word in words), (
            f"{case.name}: {replaced} replaced; the message names none of {words}: {message}"
        )
    except Exception as err:  # noqa: BLE001 - what the test is about
        pytest.fail(
            f"{case.name}: {replaced} replaced by {[arguments[n] for n in replaced]!r} raised "
            f"{type(err).__module__}.{type(err).__name__}: {err}"
        )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_valid_arguments_build(case: Case) -> None:
    case.build(**case.valid())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_argument_replaced_by_a_wrong_value_is_refused_by_name(case: Case) -> None:
    for name in case.valid():
        for wrong in WRONG:
            arguments = case.valid()
            arguments[name] = wrong
            _check(case, arguments, (name,))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_first_item_of_each_list_replaced_by_a_wrong_value_is_refused(case: Case) -> None:
    for name, value in case.valid().items():
        if not isinstance(value, list | tuple) or not value:
            continue
        for wrong in WRONG:
            arguments = case.valid()
            arguments[name] = [wrong, *arguments[name][1:]]
            _check(case, arguments, (name,))


@pytest.mark.parametrize("seed", range(4))
def test_two_arguments_replaced_at_once_are_refused(seed: int) -> None:
    rng = random.Random(seed)
    for case in CASES:
        names = list(case.valid())
        for first, second in itertools.combinations(names, 2):
            if rng.random() < 0.5:
                continue
            arguments = case.valid()
            arguments[first] = rng.choice(WRONG)
            arguments[second] = rng.choice(WRONG)
            _check(case, arguments, (first, second))


# ---------------------------------------------------------------------------------------------
# The cases the issue names, one by one


def test_a_python_number_as_an_op_argument_is_a_type_error_suggesting_a_constant() -> None:
    x = Var("x", T4)
    with pytest.raises(
        TypeError, match=r"'add' argument #1 must be an Expr, got int 3 .*Constant\(\[3\.0\]\)"
    ):
        ops.add(x, 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"'neg' argument #0 must be an Expr, got float 1.5"):
        ops.neg(1.5)  # type: ignore[arg-type]


def test_a_body_that_is_no_expr_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"Function 'f' body must be an Expr, got int 3"):
        Function(name="f", params=[], body=3)  # type: ignore[arg-type]


def test_a_child_that_is_no_module_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"Module 'm' modules #0 must be a Module, got int 3"):
        Module(name="m", modules=[3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"Module 'm' modules keys must be str, got int 3"):
        Module(name="m", modules={3: Module(name="c")})  # type: ignore[dict-item]


def test_an_entry_that_is_no_name_is_a_type_error_not_an_xdsl_exception() -> None:
    with pytest.raises(TypeError, match=r"Module 'm' entry must be the name of one of its"):
        Module(name="m", entry=3)  # type: ignore[arg-type]


def test_an_out_of_range_metadata_integer_is_a_verify_error() -> None:
    with pytest.raises(VerifyError, match=r"Metric.value 1180591620717411303424 does not fit"):
        Constant(1.0, metadata=[Metric(2**70)])
    with pytest.raises(VerifyError, match=r"Module 'm' metadata 'opt' .* does not fit"):
        Module(name="m", metadata={"opt": 2**70})
    with pytest.raises(ValueError, match=r"SourceSpanMetadata.line .* below 2\*\*32"):
        SourceSpanMetadata("f.py", 2**32, 1)


def test_a_dimension_beyond_64_bits_is_refused() -> None:
    with pytest.raises(ValueError, match=r"below 2\*\*63"):
        TensorType((2**63,), "f32")
    with pytest.raises(ValueError, match=r"hi <= 2\*\*63"):
        DimVar("n", 1, 2**63 + 1)


def test_an_op_attribute_without_an_ir_form_is_refused_when_the_op_is_made() -> None:
    with pytest.raises(TypeError, match=r"attribute 'axis' expects an int of 64 bits"):
        ops.ReduceSum(axis=2**70)
    with pytest.raises(TypeError, match=r"attribute 'perm' expects a tuple of int"):
        ops.Transpose(perm=(2**64, 0))


def test_a_number_too_long_to_print_is_still_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"a Constant value <too long to show> does not fit"):
        Constant([2**20000])
    with pytest.raises(TypeError, match=r"'neg' argument #0 must be an Expr"):
        ops.neg(2**20000)  # type: ignore[arg-type]
