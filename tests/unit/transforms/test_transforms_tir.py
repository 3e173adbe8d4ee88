"""TIR survives every pass (issue: the standard passes broke every tir.let).

Kernels built through `tilefoundry.api.tir` (LetStmt, Evaluate, DispatchCall) go through each pass
three ways: `tf-opt -p <pass>` on their text, `run_passes` from Python, and xDSL's own pass
classes (which know nothing of TIR). Each result must verify and compute what the original
computes, on random inputs.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

import tilefoundry as tf
from tilefoundry import (
    BufferType,
    Call,
    Constant,
    DimVar,
    DimVarRangePat,
    Module,
    TensorType,
    Var,
    ops,
)
from tilefoundry.api.tir import DispatchCall, Evaluate, LetStmt, PrimFunction
from tilefoundry.context.context import make_context
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.ops import Copy
from tilefoundry.tools.drivers.tf_opt import main as tf_opt

T = TensorType((4,), "f32")
B = BufferType((4,), "f32")
N = DimVar("n", 1, 65)
TN = TensorType((N,), "f32")

PASSES = [
    "cse",
    "dce",
    "canonicalize",
    "tf-simplify",
    "tf-fold-constants",
    "tf-strip-debuginfo",
    "tf-inline",
    "tf-prune-unreachable",
    "cse,canonicalize,dce",
    "tf-inline,canonicalize,cse,dce,tf-prune-unreachable",
]


def kernels() -> Module:
    """A module of kernels with every statement form: literals, duplicates, identities, dead
    statements, multi-op statement bodies, effect-form calls, same-module calls, a dispatch."""
    x, out = Var("x", T), Var("out", B)
    one = LetStmt("one", Constant(np.ones(4, np.float32)))
    two = LetStmt("two", Constant(np.full(4, 2.0, np.float32)))
    four = LetStmt("four", ops.add(two.var, two.var))
    a = LetStmt("a", ops.exp(x))
    b = LetStmt("b", ops.exp(x))
    m = LetStmt("m", ops.mul(a.var, one.var))
    unused = LetStmt("unused", ops.log(a.var))
    fused = LetStmt("fused", ops.add(ops.mul(m.var, four.var), ops.neg(ops.neg(b.var))))
    store = Evaluate(Copy(), [out, ops.tanh(fused.var)])
    main = PrimFunction(
        name="main",
        params=[x, out],
        body=[one, two, four, a, b, m, unused, fused, store],
        result=fused.var,
    )

    y = Var("y", T)
    sq = LetStmt("sq", ops.mul(y, y))
    square = PrimFunction(name="square", params=[y], body=[sq], result=sq.var)

    z, o = Var("z", T), Var("o", B)
    called = LetStmt("called", Call(square, [z]))
    again = LetStmt("again", Call(square, [called.var]))
    write = Evaluate(Copy(), [o, again.var])
    caller = PrimFunction(name="caller", params=[z, o], body=[called, again, write], result=z)

    small_x, large_x = Var("x", TN), Var("x", TN)
    small = PrimFunction(name="small", params=[small_x], body=[], result=small_x)
    negated = LetStmt("negated", ops.neg(large_x))
    large = PrimFunction(name="large", params=[large_x], body=[negated], result=negated.var)
    p = Var("p", TN)
    picked = LetStmt(
        "picked",
        DispatchCall(
            [small, large], [[DimVarRangePat("n", 1, 8)], [DimVarRangePat("n", 8, 65)]], [p]
        ),
    )
    pick = PrimFunction(name="pick", params=[p], body=[picked], result=picked.var)
    return Module(
        name="kernels",
        functions=[main, square, caller, small, large, pick],
        target="h100",
        topologies=(),
    )


def outputs(module: Module, seed: int = 0) -> dict[str, object]:
    """What each kernel computes on fixed random inputs (results and written buffers)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(4).astype(np.float32)
    found: dict[str, object] = {}
    out = np.zeros(4, np.float32)
    found["main"] = (module.main(x, out), out.copy())
    out = np.zeros(4, np.float32)
    found["caller"] = (module.caller(x, out), out.copy())
    found["square"] = module.square(x)
    for size in (3, 8, 40):
        found[f"pick{size}"] = module.pick(rng.standard_normal(size).astype(np.float32))
    return found


def flat(value: object) -> np.ndarray:
    parts = value if isinstance(value, tuple) else (value,)
    return np.concatenate([np.ravel(np.asarray(p, dtype=np.float64)) for p in parts])


def assert_same(got: dict[str, object], want: dict[str, object]) -> None:
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_allclose(flat(got[name]), flat(want[name]), rtol=1e-6, err_msg=name)


def test_the_kernels_run() -> None:
    found = outputs(kernels())
    assert found["pick3"] is not None


@pytest.mark.parametrize("pipeline", PASSES)
def test_tf_opt_keeps_tir_valid_and_its_numbers(pipeline: str, tmp_path: object) -> None:
    module = kernels()
    text = tf.print_module(module, debuginfo=True)
    stdout, stderr = io.StringIO(), io.StringIO()
    path = f"{tmp_path}/kernels.mlir"
    with open(path, "w") as stream:
        stream.write(text)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = tf_opt([path, "-p", pipeline, "--print-debuginfo"])
    assert code == 0, stderr.getvalue()
    result = tf.parse_module(stdout.getvalue())
    assert_same(outputs(result), outputs(module))


@pytest.mark.parametrize("pipeline", PASSES)
def test_run_passes_keeps_tir_valid_and_its_numbers(pipeline: str) -> None:
    module = kernels()
    before = tf.print_module(module)
    result = tf.run_passes(module, pipeline)
    assert tf.print_module(module) == before, "run_passes changed its input"
    assert_same(outputs(result), outputs(module))


@pytest.mark.parametrize(
    "passes",
    [
        [CommonSubexpressionElimination()],
        [DeadCodeElimination()],
        [CanonicalizePass()],
        [CommonSubexpressionElimination(), CanonicalizePass(), DeadCodeElimination()],
    ],
    ids=["cse", "dce", "canonicalize", "cse-canonicalize-dce"],
)
def test_xdsl_passes_that_know_nothing_of_tir_keep_it_valid(passes: list[ModulePass]) -> None:
    """xDSL's pass classes, as stock xdsl-opt runs them: use-def and traits alone."""
    module = kernels()
    want = outputs(module)
    copy = module.cloned()
    holder = BuiltinModuleOp([copy.module_op])
    ctx: Context = make_context()
    for module_pass in passes:
        module_pass.apply(ctx, holder)
        verify_ir(holder)
    copy.module_op.detach()
    assert_same(outputs(Module.of(copy.module_op)), want)


def test_canonicalize_shrinks_the_kernels() -> None:
    module = kernels()
    result = tf.run_passes(module, "tf-inline,canonicalize,cse,tf-prune-unreachable")
    before = sum(1 for _ in module.module_op.walk())
    after = sum(1 for _ in result.module_op.walk())
    assert after < before
    text = tf.print_module(result)
    assert "tf.math.unary<kind = log>" not in text  # the dead statement went
    assert "kind = neg" not in text.split("@main")[1].split("tir.prim_func")[0]  # neg(neg(b))
