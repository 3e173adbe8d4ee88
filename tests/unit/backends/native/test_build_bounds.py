"""The stated bounds (docs/ir.md "Numeric semantics", docs/compile.md "Numbers"): how far compiled
code is from the interpreter on the ops whose numbers come from libm (compiled) and numpy's own
SIMD functions (interpreted), and on float matmul (a sequential k loop against BLAS).

Measured here, against the plain interpreter: f16 and bf16 over every value of the dtype (65,536
each), f32 and f64 over 20,000 values spread over the whole range; the error in ULPs of the
dtype (a NaN matches any NaN; a zero and an infinity count exactly). `gelu_tanh` near its zero
(`1 + tanh` cancels) is bounded relative to `|x|` instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tilefoundry import parse_module
from tilefoundry.backends.native.build import NativeProgram, compile_modules
from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.dialects.tf.numerics import cast_array
from tilefoundry.interpreter.evaluate import run_any
from tilefoundry.ops.conv import Conv

ULP_BOUNDS: dict[str, dict[str, int]] = {
    # op: {dtype: the largest difference in ULPs}; an op or dtype not listed is exact
    "exp": {"bf16": 1, "f32": 2, "f64": 1},
    "log": {"f16": 1, "f32": 2, "f64": 1},
    "tanh": {"f32": 2, "f64": 2},
    "sigmoid": {"f16": 1, "f32": 4, "f64": 2},
    "silu": {"f16": 1, "f32": 4, "f64": 2},
    "sin": {"f16": 1, "f32": 1},
    "cos": {"f16": 1, "f32": 1},
    "softmax": {"f32": 4, "f64": 2},
    "pow": {"f32": 1, "f64": 1},
}
"""The measured bound of each approximate op (docs/ir.md repeats this table)."""

GELU_TANH_BOUND = {"f16": 0.0, "bf16": 1.0, "f32": 2.0, "f64": 1.0}
"""`gelu_tanh`: |compiled - interpreted| <= bound * eps(dtype) * |x| (its `1 + tanh(...)`
cancels for x < 0, so an ULP of tanh is many ULPs of the result)."""

UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")
ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "sin", "cos", "erf")
DTYPES = ("f16", "bf16", "f32", "f64")
SAMPLE = 20000


def inputs(dtype: str) -> Any:
    if dtype == "f16":
        return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    if dtype == "bf16":
        return (np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    rng = np.random.default_rng(0)
    top = 300 if dtype == "f64" else 38
    x = np.sign(rng.standard_normal(SAMPLE)) * 10.0 ** rng.uniform(-top, top, SAMPLE)
    x[: SAMPLE // 4] = rng.uniform(-30, 30, SAMPLE // 4)
    x[SAMPLE // 4 : SAMPLE // 2] = rng.uniform(-3, 3, SAMPLE // 4)
    return cast_array(x, dtype)


def _function(name: str, op: str, type: str, params: int = 1) -> str:
    args = ", ".join(f"%a{i}: {type}" for i in range(params))
    operands = ", ".join(f"%a{i}" for i in range(params))
    types = ", ".join([type] * params)
    return (
        f"  tir.prim_func @{name}({args}) -> {type} {{\n"
        f"    %r = tir.let tf.call {op}({operands}) : ({types}) -> {type}\n"
        f"    tir.return %r : {type}\n  }}"
    )


def _cases() -> list[tuple[str, str, str, str, int]]:
    cases = []
    for dtype in DTYPES:
        n = inputs(dtype).size
        flat = f"tensor<{n}x{dtype}>"
        for kind in UNARY:
            cases.append(
                (
                    f"{kind}_{dtype}",
                    kind,
                    dtype,
                    _function(f"{kind}_{dtype}", f"tf.math.unary<kind = {kind}>", flat),
                    1,
                )
            )
        for kind in ACTIVATIONS:
            cases.append(
                (
                    f"{kind}_{dtype}",
                    kind,
                    dtype,
                    _function(f"{kind}_{dtype}", f"tf.nn.activation<kind = {kind}>", flat),
                    1,
                )
            )
        rows = f"tensor<{n // 8}x8x{dtype}>"
        cases.append(
            (
                f"softmax_{dtype}",
                "softmax",
                dtype,
                _function(f"softmax_{dtype}", "tf.nn.softmax<axis = -1>", rows),
                1,
            )
        )
        cases.append(
            (
                f"pow_{dtype}",
                "pow",
                dtype,
                _function(f"pow_{dtype}", "tf.math.binary<kind = pow>", flat, 2),
                2,
            )
        )
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def compiled(session_cache: ArtifactCache) -> tuple[Any, NativeProgram]:
    text = "tf.module @bounds {\n" + "\n".join(c[3] for c in CASES) + "\n}\n"
    module = parse_module(text, "bounds.mlir")
    (program,) = compile_modules([module.module_op], cache=session_cache)
    return module, program


def ulps(expected: Any, actual: Any, dtype: str) -> Any:
    """|expected - actual| in ULPs of the dtype (0 where both are NaN)."""
    if dtype == "bf16":
        ordered = [
            (np.asarray(v, np.float32).view(np.int32) >> 16).astype(np.int64)
            for v in (expected, actual)
        ]
        bits = 16
    else:
        width = (
            np.dtype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[dtype]).itemsize * 8
        )
        ordered = [
            np.asarray(v).view(f"i{width // 8}").astype(np.int64) for v in (expected, actual)
        ]
        bits = width
    keys = []
    for value in ordered:  # sign-magnitude to a monotonic integer line
        magnitude = value & ((1 << (bits - 1)) - 1) if bits < 64 else value & 0x7FFFFFFFFFFFFFFF
        keys.append(np.where(value < 0, -magnitude, magnitude).astype(object))
    difference = np.abs(np.array(keys[0] - keys[1], dtype=object))
    both_nan = np.isnan(np.asarray(expected, np.float64)) & np.isnan(np.asarray(actual, np.float64))
    return np.where(both_nan, 0, difference)


def _run(compiled: tuple[Any, NativeProgram], name: str, args: list[Any]) -> tuple[Any, Any]:
    module, program = compiled
    with np.errstate(all="ignore"):
        expected = run_any(module.lookup(name).function_op, [a.copy() for a in args])
    actual = program.function(name)(*[a.copy() for a in args])
    return np.asarray(expected).ravel(), np.asarray(actual).ravel()


def _args(kind: str, dtype: str) -> list[Any]:
    x = inputs(dtype)
    if kind == "softmax":
        return [x[: x.size // 8 * 8].reshape(-1, 8)]
    if kind == "pow":
        rng = np.random.default_rng(1)
        with np.errstate(all="ignore"):
            return [
                cast_array(np.abs(x.astype(np.float64)) % 8, dtype),
                cast_array(rng.uniform(-4, 4, x.size), dtype),
            ]
    return [x]


@pytest.mark.parametrize("case", [c for c in CASES if c[1] != "gelu_tanh"], ids=lambda c: c[0])
def test_an_op_is_within_its_stated_bound(compiled: tuple[Any, NativeProgram], case: Any) -> None:
    name, kind, dtype, _, _ = case
    expected, actual = _run(compiled, name, _args(kind, dtype))
    assert (np.isnan(expected) == np.isnan(actual.astype(np.float64))).all(), (
        "a NaN where the other is not"
    )
    worst = int(max(ulps(expected, actual, dtype), default=0))
    assert worst <= ULP_BOUNDS.get(kind, {}).get(dtype, 0), f"{name}: {worst} ULPs"


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_tanh_is_within_its_bound(compiled: tuple[Any, NativeProgram], dtype: str) -> None:
    x = inputs(dtype)
    expected, actual = _run(compiled, f"gelu_tanh_{dtype}", [x])
    finite = np.isfinite(expected) & np.isfinite(x)
    eps = {"f16": 2.0**-10, "bf16": 2.0**-7, "f32": 2.0**-23, "f64": 2.0**-52}[dtype]
    error = np.abs(expected[finite].astype(np.float64) - actual[finite].astype(np.float64))
    scale = np.maximum(np.abs(x[finite].astype(np.float64)), np.finfo(np.float64).tiny)
    assert float(np.max(error / (eps * scale), initial=0.0)) <= GELU_TANH_BOUND[dtype]
    assert (np.isnan(expected) == np.isnan(actual)).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_float_matmul_is_within_the_summation_bound(
    session_cache: ArtifactCache, dtype: str
) -> None:
    """A k loop in order (in f32 for f16 / bf16) against BLAS: |error| <= K eps sum|a||b|,
    plus one rounding of the result to the dtype."""
    m, k, n = 7, 300, 5
    t = lambda *s: f"tensor<{'x'.join(map(str, s))}x{dtype}>"  # noqa: E731
    text = (
        f"tf.module @mm {{\n  tir.prim_func @mm(%a: {t(m, k)}, %b: {t(k, n)}) -> {t(m, n)} {{\n"
        f"    %r = tir.let tf.call tf.linalg.matmul(%a, %b) : ({t(m, k)}, {t(k, n)}) -> {t(m, n)}\n"
        f"    tir.return %r : {t(m, n)}\n  }}\n}}\n"
    )
    module = parse_module(text, "mm.mlir")
    (program,) = compile_modules([module.module_op], cache=session_cache)
    rng = np.random.default_rng(2)
    a = cast_array(rng.standard_normal((m, k)), dtype)
    b = cast_array(rng.standard_normal((k, n)), dtype)
    expected = np.asarray(module.mm(a, b), np.float64)
    actual = np.asarray(program.function("mm")(a, b), np.float64)
    accumulate = 2.0**-52 if dtype == "f64" else 2.0**-23
    result = {"f16": 2.0**-11, "bf16": 2.0**-8, "f32": 0.0, "f64": 0.0}[dtype]
    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    bound = 2 * k * accumulate * magnitude + 2 * result * np.abs(expected)
    assert (np.abs(expected - actual) <= bound).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_float_conv_is_within_the_summation_bound(session_cache: ArtifactCache, dtype: str) -> None:
    """A convolution's taps in order (in f32 for f16 / bf16) against the reference's BLAS
    product: the matmul bound with `K = (C / groups) * prod(kernel)` and the magnitudes those
    of the zero-padded windows (docs/ir.md)."""
    x_shape, w_shape, out = (2, 8, 9, 9), (6, 4, 3, 3), (2, 6, 5, 5)
    attrs = "stride = [2, 2], padding = [1, 1], groups = 2"
    t = lambda s: f"tensor<{'x'.join(map(str, s))}x{dtype}>"  # noqa: E731
    text = (
        f"tf.module @cv {{\n  tir.prim_func @cv(%a: {t(x_shape)}, %b: {t(w_shape)}) -> {t(out)} {{\n"
        f"    %r = tir.let tf.call tf.nn.conv<{attrs}>(%a, %b) : ({t(x_shape)}, {t(w_shape)}) -> {t(out)}\n"
        f"    tir.return %r : {t(out)}\n  }}\n}}\n"
    )
    module = parse_module(text, "cv.mlir")
    (program,) = compile_modules([module.module_op], cache=session_cache)
    rng = np.random.default_rng(3)
    x = cast_array(rng.standard_normal(x_shape), dtype)
    w = cast_array(rng.standard_normal(w_shape), dtype)
    expected = np.asarray(module.cv(x, w), np.float64)
    actual = np.asarray(program.function("cv")(x, w), np.float64)
    taps = 4 * 3 * 3
    accumulate = 2.0**-52 if dtype == "f64" else 2.0**-23
    result = {"f16": 2.0**-11, "bf16": 2.0**-8, "f32": 0.0, "f64": 0.0}[dtype]
    # the same convolution of the magnitudes: sum |x| |w| per output
    magnitude = Conv(stride=(2, 2), padding=(1, 1), groups=2).reference(
        np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64))
    )
    bound = 2 * taps * accumulate * magnitude + 2 * result * np.abs(expected)
    assert (np.abs(expected - actual) <= bound).all()
