"""One numeric semantics: for every dtype and every op kind, on edge values (-0.0, +-inf, NaN,
denormals, the largest finite values, the smallest and largest integers, 0, 1, -1), the literal
the folder bakes in is bit for bit what the interpreter computes, and `canonicalize` /
`tf-fold-constants` never fail (docs/ir.md, "Numeric semantics").

Each case is checked twice: the whole call run before and after `canonicalize,tf-fold-constants`
(and after a text round trip), and each element alone through the folder (`evaluate_exactly`
on one-element literals, as `FoldConstantCall` sees them), against the interpreter's element.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import Constant, Module, Op, ParamDef, Tensor, ops, register_op
from tilefoundry.api.hir import Function
from tilefoundry.builtin.types import DTYPES, TensorType, from_attr
from tilefoundry.dialects.tf.dense import array_to_dense, dense_to_array, numpy_dtype
from tilefoundry.dialects.tf.numerics import cast_array, held_as, round_bf16
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.interpreter.reference import reference
from tilefoundry.ops.math import BinaryKind, UnaryKind
from tilefoundry.transforms.canonicalization import evaluate_exactly

FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("i8", "i16", "i32", "i64")
ALL = (*INTS, "i1", *FLOATS)
assert set(ALL) == set(DTYPES), "a new dtype needs its edge values here"

_BF16_BITS = [
    0x8000,  # -0.0
    0x0000,
    0x7F80,  # +inf
    0xFF80,
    0x7FC0,  # NaN
    0x0001,  # the smallest denormal
    0x8001,
    0x007F,  # the largest denormal
    0x0080,  # the smallest normal
    0x7F7F,  # the largest finite
    0xFF7F,
    0x3F80,  # 1
    0xBF80,  # -1
    0x3F81,  # 1 + 2^-7
    0x3B80,  # 2^-8
    0x4040,  # 3
]


def stored(values: Any, dtype: str) -> Any:
    """Values as a literal of `dtype` holds them (what the interpreter and the folder read)."""
    return dense_to_array(array_to_dense(values, dtype))


def edge_values(dtype: str) -> Any:
    if dtype == "i1":
        return np.array([False, True])
    if dtype[0] == "i":
        info = np.iinfo(numpy_dtype(dtype))
        lo, hi = int(info.min), int(info.max)
        return stored(np.array([lo, lo + 1, -2, -1, 0, 1, 2, 3, hi - 1, hi], np.int64), dtype)
    if dtype == "bf16":
        return stored((np.array(_BF16_BITS, np.uint32) << 16).view(np.float32), dtype)
    t = numpy_dtype(dtype)
    fi = np.finfo(t)
    values = [-0.0, 0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal, -fi.smallest_subnormal]
    values += [fi.tiny, fi.max, -fi.max, 1.0, -1.0, 0.1, 3.0, fi.eps / 2]
    return stored(np.array(values, t), dtype)


def bits(array: Any) -> Any:
    array = np.asarray(array)
    if array.dtype.kind == "b":
        return array.view(np.uint8)
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def same_bits(found: Any, expected: Any) -> bool:
    found, expected = np.asarray(found), np.asarray(expected)
    return (
        found.dtype == expected.dtype
        and found.shape == expected.shape
        and bool(np.array_equal(bits(found), bits(expected)))
    )


def assert_bf16_exact(array: Any, dtype: str) -> None:
    if dtype == "bf16":
        assert not np.any(bits(array) & np.uint32(0xFFFF)), "a bf16 value with low bits set"


Build = Callable[..., CallOp]


def result_dtype(call: CallOp) -> str:
    type = from_attr(call.results[0].type)
    assert isinstance(type, TensorType)
    return type.dtype


def run_before_and_after(call: CallOp) -> Any:
    """The call's value by the interpreter, and the same after `canonicalize,tf-fold-constants`
    (and a text round trip): bit for bit equal. Returns the value."""
    module = Module(name="m", functions=[Function(name="f", params=[], body=call)])
    before = module.f()
    folded = tf.run_passes(module, "canonicalize,tf-fold-constants")
    after = folded.f()
    reread = tf.parse_module(str(folded)).f()
    assert same_bits(after, before), (before, after)
    assert same_bits(reread, before), (before, reread)
    assert_bf16_exact(before, result_dtype(call))
    return before


def fold_each(build: Build, arrays: Sequence[Any], dtypes: Sequence[str], expected: Any) -> int:
    """Each element alone through the folder: where it folds, the literal's bits are the
    interpreter's element (`expected`). The number of elements that folded."""
    one = build(*[Constant(a[:1], dtype=d) for a, d in zip(arrays, dtypes, strict=True)])
    dtype = result_dtype(one)
    folds = 0
    for i in range(len(arrays[0])):
        value = evaluate_exactly(one, [a[i : i + 1] for a in arrays])
        if value is None:
            continue
        literal = dense_to_array(array_to_dense(value, dtype))
        assert same_bits(literal, expected[i : i + 1]), (i, [a[i] for a in arrays], literal)
        folds += 1
    return folds


def check_elementwise(build: Build, arrays: Sequence[Any], dtypes: Sequence[str]) -> int:
    call = build(*[Constant(a, dtype=d) for a, d in zip(arrays, dtypes, strict=True)])
    expected = run_before_and_after(call)
    return fold_each(build, arrays, dtypes, expected)


def binary_dtypes(kind: BinaryKind) -> tuple[str, ...]:
    return ALL if kind.is_comparison else (*INTS, *FLOATS)


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [(k, d) for k in BinaryKind for d in binary_dtypes(k)],
    ids=lambda p: p.value if isinstance(p, BinaryKind) else p,
)
def test_binary_folds_to_the_interpreters_bits(kind: BinaryKind, dtype: str) -> None:
    values = edge_values(dtype)
    lhs, rhs = np.repeat(values, len(values)), np.tile(values, len(values))
    build = getattr(ops, kind.value)
    assert check_elementwise(build, [lhs, rhs], [dtype, dtype]) > 0


def unary_dtypes(kind: UnaryKind) -> tuple[str, ...]:
    return FLOATS if kind.needs_float else (*INTS, *FLOATS)


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [(k, d) for k in UnaryKind for d in unary_dtypes(k)],
    ids=lambda p: p.value if isinstance(p, UnaryKind) else p,
)
def test_unary_folds_to_the_interpreters_bits(kind: UnaryKind, dtype: str) -> None:
    build = getattr(ops, kind.value)
    assert check_elementwise(build, [edge_values(dtype)], [dtype]) > 0


@pytest.mark.parametrize(("source", "target"), [(s, t) for s in ALL for t in ALL if s != t])
def test_cast_folds_to_the_interpreters_bits(source: str, target: str) -> None:
    values = edge_values(source)
    if source[0] == "f":  # fractions and values past every integer dtype
        values = np.concatenate([values, stored(np.array([2.5, -2.5, 0.5, 1e4]), source)])
    assert check_elementwise(lambda x: ops.cast(x, target), [values], [source]) > 0


def reduction_rows(dtype: str, width: int = 4, rows: int = 12) -> Any:
    """Rows of edge values (a seeded draw), and rows that overflow or round when summed."""
    values = edge_values(dtype)
    drawn = np.random.default_rng(12).choice(values, size=(rows, width))
    if dtype[0] == "i":
        ones = np.ones((1, width), values.dtype)  # (float64 ones made i64 max 2^63, wrapped)
        return np.concatenate([drawn, np.full((2, width), values[-1]), ones])
    finite = values[np.isfinite(values)]
    small = np.random.default_rng(13).choice(finite[np.abs(finite) <= 3], size=(rows, width))
    return np.concatenate([drawn, small.astype(values.dtype)])


def fold_each_row(build: Build, rows: Any, dtype: str, expected: Any) -> int:
    """Each case (a row of `rows`, or of each array) alone through the folder."""
    one = build(Constant(rows[:1], dtype=dtype))
    folds = 0
    for i in range(len(rows)):
        value = evaluate_exactly(one, [rows[i : i + 1]])
        if value is not None:
            literal = dense_to_array(array_to_dense(value, result_dtype(one)))
            assert same_bits(literal, expected[i : i + 1]), (i, rows[i], literal)
            folds += 1
    return folds


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("reduce", ["sum", "max"])
def test_reductions_fold_to_the_interpreters_bits(dtype: str, reduce: str) -> None:
    rows = stored(reduction_rows(dtype), dtype)
    build = getattr(ops, f"reduce_{reduce}")

    def by_row(x: Any) -> CallOp:
        return build(x, axis=1)

    expected = run_before_and_after(by_row(Constant(rows, dtype=dtype)))
    assert fold_each_row(by_row, rows, dtype, expected) > 0


@pytest.mark.parametrize("dtype", ALL)
def test_matmul_folds_to_the_interpreters_bits(dtype: str) -> None:
    values = edge_values(dtype)
    rng = np.random.default_rng(14)
    cases = [rng.choice(values, size=(2, 3, 3)) for _ in range(10)]
    cases.append(np.ones((2, 3, 3), values.dtype))
    folds = 0
    for case in cases:
        lhs, rhs = stored(case[0], dtype), stored(case[1], dtype)
        call = ops.matmul(Constant(lhs, dtype=dtype), Constant(rhs, dtype=dtype))
        expected = run_before_and_after(call)
        value = evaluate_exactly(call, [lhs, rhs])
        if value is not None:
            assert same_bits(dense_to_array(array_to_dense(value, dtype)), expected)
            folds += 1
    assert folds > 0


# -- the rules themselves ------------------------------------------------------------------


def test_bf16_rounds_to_nearest_even() -> None:
    x = np.float32([1 + 2**-8, 1 + 3 * 2**-8, 3 + 2**-7, -(1 + 2**-8), 1 + 2**-8 + 2**-20])
    np.testing.assert_array_equal(round_bf16(x), [1.0, 1 + 2**-6, 3.0, -1.0, 1 + 2**-7])


def test_bf16_rounding_keeps_signs_nans_and_overflows_to_inf() -> None:
    x = np.float32([-0.0, np.inf, -np.inf, 3.4e38, -3.4e38, 3.3e38, np.nan])
    r = round_bf16(x)
    assert np.signbit(r[0]) and r[0] == 0
    np.testing.assert_array_equal(r[1:5], [np.inf, -np.inf, np.inf, -np.inf])
    assert np.isfinite(r[5]) and np.isnan(r[6])
    snan = np.uint32([0x7F800001]).view(np.float32)
    assert np.isnan(round_bf16(snan)[0])  # a NaN whose payload is only in the low bits


def test_bf16_from_f64_rounds_once() -> None:
    """1 + 2^-8 + 2^-30 is above the tie: f64 -> f32 would round it onto the tie, then to 1."""
    assert cast_array(np.float64([1 + 2**-8 + 2**-30]), "bf16")[0] == 1 + 2**-7


def test_bf16_sum_accumulates_in_f32_and_rounds_once() -> None:
    """Rounded after each add, 1 + 2^-8 + 2^-8 would be 1; the sum rounds once, at the end."""
    x = stored(np.array([[1.0, 2**-8, 2**-8]]), "bf16")
    call = ops.reduce_sum(Constant(x, dtype="bf16"), axis=1)
    assert run_before_and_after(call)[0] == 1 + 2**-7


def test_bf16_matmul_accumulates_in_f32_and_rounds_once() -> None:
    lhs = stored(np.array([[1.0, 2**-8, 2**-8]]), "bf16")
    rhs = stored(np.ones((3, 1)), "bf16")
    call = ops.matmul(Constant(lhs, dtype="bf16"), Constant(rhs, dtype="bf16"))
    assert run_before_and_after(call)[0, 0] == 1 + 2**-7


def test_bf16_arguments_are_rounded() -> None:
    x = tf.Var("x", TensorType((2,), "bf16"))
    module = Module(name="m", functions=[Function(name="f", params=[x], body=x)])
    result = module.f(np.float32([1 + 2**-8, 1 + 3 * 2**-8]))
    np.testing.assert_array_equal(result, [1.0, 1 + 2**-6])
    np.testing.assert_array_equal(module.f(np.float64([1 + 2**-8 + 2**-30, 0.0])), [1 + 2**-7, 0])


def test_float_to_int_truncates_and_saturates() -> None:
    values = np.float64([np.nan, np.inf, -np.inf, 1e10, -1e10, 2.9, -2.9, -0.0])
    np.testing.assert_array_equal(cast_array(values, "i8"), [0, 127, -128, 127, -128, 2, -2, 0])
    edges = np.float64([2.0**63, -(2.0**63), 2.0**62])
    np.testing.assert_array_equal(cast_array(edges, "i64"), [2**63 - 1, -(2**63), 2**62])
    np.testing.assert_array_equal(cast_array(np.float32([np.nan, 0.0, -0.0]), "i1"), [1, 0, 0])


def test_integer_overflow_wraps_in_the_interpreter_and_is_not_folded() -> None:
    big = np.int64([2**62])
    call = ops.add(Constant(big), Constant(big))
    assert run_before_and_after(call)[0] == -(2**63)
    assert evaluate_exactly(call, [big, big]) is None
    largest = np.int64([2**62 - 1])
    exact = ops.add(Constant(largest), Constant(big))
    np.testing.assert_array_equal(evaluate_exactly(exact, [largest, big]), [2**63 - 1])


@pytest.mark.parametrize(
    ("build", "arrays", "expected"),
    [
        (ops.div, ([7, -7, 5], [0, 0, 2]), [0, 0, 2]),
        (ops.div, ([-(2**31)], [-1]), [-(2**31)]),
        (ops.pow, ([2, 1, -1, -1, 0], [-1, -5, -3, -2, -1]), [0, 1, -1, 1, 0]),
        (ops.neg, ([-(2**31)],), [-(2**31)]),
        (ops.abs, ([-(2**31)],), [-(2**31)]),
        (ops.pow, ([2, 3], [2**30, 40]), [0, (3**40 + 2**31) % 2**32 - 2**31]),
    ],
    ids=["div-by-zero", "min-div-minus-one", "negative-power", "neg-min", "abs-min", "pow"],
)
def test_undefined_integer_results_are_defined_and_not_folded(
    build: Build, arrays: tuple[list[int], ...], expected: list[int]
) -> None:
    values = [np.array(a, np.int32) for a in arrays]
    call = build(*[Constant(v) for v in values])
    np.testing.assert_array_equal(run_before_and_after(call), np.array(expected, np.int32))
    assert evaluate_exactly(call, values) is None


def test_huge_integer_powers_are_checked_without_computing_them() -> None:
    base, exponent = np.int64([1, -1, 2, 0]), np.int64([2**62, 2**62 + 1, 2**62, 2**62])
    call = ops.pow(Constant(base), Constant(exponent))
    assert evaluate_exactly(call, [base, exponent]) is None  # 2 ** 2^62 overflows
    ones = np.int64([1, -1, 0])
    call = ops.pow(Constant(ones), Constant(exponent[:3]))
    np.testing.assert_array_equal(evaluate_exactly(call, [ones, exponent[:3]]), [1, -1, 0])


def test_tf_opt_never_fails_on_edge_values(tmp_path: Any) -> None:
    """Every elementwise op and cast on every dtype's edge values, through the command line."""
    functions = []
    for dtype in ALL:
        values = edge_values(dtype)
        lhs, rhs = np.repeat(values, len(values)), np.tile(values, len(values))
        calls = [getattr(ops, k.value) for k in BinaryKind if dtype in binary_dtypes(k)]
        bodies = [b(Constant(lhs, dtype=dtype), Constant(rhs, dtype=dtype)) for b in calls]
        unary = [getattr(ops, k.value) for k in UnaryKind if dtype in unary_dtypes(k)]
        bodies += [u(Constant(values, dtype=dtype)) for u in unary]
        bodies += [ops.cast(Constant(values, dtype=dtype), t) for t in ALL if t != dtype]
        functions += [
            Function(name=f"{dtype}_{i}", params=[], body=body) for i, body in enumerate(bodies)
        ]
    path = tmp_path / "edges.mlir"
    path.write_text(str(Module(name="edges", functions=functions)))
    tf_opt = [sys.executable, "-m", "tilefoundry.tools.drivers.tf_opt"]
    done = subprocess.run(
        [*tf_opt, str(path), "-p", "canonicalize,tf-fold-constants"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr and done.stderr == ""
    assert "tf.constant" in done.stdout


def test_an_argument_already_of_its_dtype_is_the_callers_array() -> None:
    exact = np.float32([1.0, -0.0, np.nan])
    assert held_as(exact, "bf16") is exact and held_as(exact, "f32") is exact
    ints = np.int32([1, 2])
    assert held_as(ints, "i32") is ints
    assert held_as(np.float32([1 + 2**-8]), "bf16")[0] == 1.0


def test_an_identity_keeps_the_bits_of_a_signaling_nan_argument() -> None:
    """`x * 1` folds to `x`: the interpreter quiets a NaN argument as `x * 1` would."""
    x = tf.Var("x", TensorType((2,), "f32"))
    one = Constant(np.ones(2, np.float32))
    module = Module(name="m", functions=[Function(name="f", params=[x], body=ops.mul(x, one))])
    snan = np.uint32([0x7F800001, 0xFF800123]).view(np.float32)
    before = module.f(snan)
    folded = tf.run_passes(module, "canonicalize")
    assert "tf.call" not in str(folded)
    assert same_bits(folded.f(snan), before)


def test_integer_matmul_overflow_is_not_folded() -> None:
    big = np.full((2, 2), 2**31, np.int64)
    call = ops.matmul(Constant(big), Constant(big))
    assert run_before_and_after(call)[0, 0] == -(2**63)  # 2^62 + 2^62 wraps
    assert evaluate_exactly(call, [big, big]) is None
    near = np.full((4, 4), 2**30, np.int64)
    near[0, 0] = 2**31  # past the float64 bound's margin: the exact check decides
    call = ops.matmul(Constant(near), Constant(near))
    assert evaluate_exactly(call, [near, near])[0, 0] == 2**62 + 3 * 2**60


@pytest.mark.parametrize("axis", [0, 1])
def test_a_float_sum_is_the_same_for_every_layout(axis: int) -> None:
    """The order of accumulation is the reduction's, not the memory layout's: a transposed
    (Fortran-ordered) argument sums to the same bits as its contiguous copy."""
    x = np.random.default_rng(15).standard_normal((300, 300)).astype(np.float32) * 1e4
    v = tf.Var("x", TensorType((300, 300), "f32"))
    body = ops.reduce_sum(v, axis=axis)
    module = Module(name="m", functions=[Function(name="f", params=[v], body=body)])
    assert same_bits(module.f(np.asfortranarray(x)), module.f(x))
    folded = run_before_and_after(ops.reduce_sum(Constant(x), axis=axis))
    assert same_bits(folded, module.f(x))


def float64_samples() -> Any:
    """float64 values in every bf16 / f16 range: random, and ties (a value and a half ulp)."""
    rng = np.random.default_rng(16)
    random = rng.standard_normal(400) * np.exp2(rng.integers(-140, 120, 400))
    bf16 = round_bf16(random.astype(np.float32)).astype(np.float64)
    ties = bf16 * (1 + 2.0**-8)
    return np.concatenate([random, ties, ties * (1 + 2.0**-40), ties * (1 - 2.0**-40)])


@pytest.mark.parametrize("dtype", FLOATS)
def test_literals_round_as_casts_do(dtype: str) -> None:
    """A literal written for a dtype (from Python, or as text) holds what a cast to it gives."""
    values = float64_samples()
    limit = 65504.0 if dtype == "f16" else 3.3895313892515355e38
    values = values[np.abs(values) <= limit]
    expected = cast_array(values, dtype)
    assert same_bits(stored(values, dtype), expected)
    text = ", ".join(repr(float(v)) for v in values)
    source = (
        f"tf.module @m {{\n  hir.func @f() -> tensor<{len(values)}x{dtype}> {{\n"
        f"    %0 = tf.constant dense<[{text}]> : tensor<{len(values)}x{dtype}>\n"
        f"    hir.return %0 : tensor<{len(values)}x{dtype}>\n  }}\n}}\n"
    )
    assert same_bits(tf.parse_module(source).f(), expected)


@register_op(dialect="test", category="numerics", name="double")
class Double(Op):
    """A library op the folder has no exactness rule for: `x + x`."""

    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: Any) -> Any:
        return arg_types[0]


@register_op(dialect="test", category="numerics", name="clamp_low")
class ClampLow(Op):
    """A kernel that needs a numpy dtype (it cannot run on Python integers)."""

    input = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: Any) -> Any:
        return arg_types[0]


@reference(Double)
def _double(op: Double, x: Any) -> Any:
    return x + x


@reference(ClampLow)
def _clamp_low(op: ClampLow, x: Any) -> Any:
    return np.maximum(x, np.iinfo(x.dtype).min + 1)


def test_an_op_without_a_rule_folds_integers_only_when_exact() -> None:
    """Judged by its own reference on Python integers: no overflow baked in, no error."""
    small, big = np.int32([1, -3]), np.int32([2**30, 1])
    assert same_bits(evaluate_exactly(tf.Call(Double(), [Constant(small)]), [small]), small * 2)
    assert evaluate_exactly(tf.Call(Double(), [Constant(big)]), [big]) is None
    assert run_before_and_after(tf.Call(Double(), [Constant(big)]))[0] == -(2**31)
    assert evaluate_exactly(tf.Call(ClampLow(), [Constant(small)]), [small]) is None
    floats = np.float32([1.5])
    assert evaluate_exactly(tf.Call(Double(), [Constant(floats)]), [floats])[0] == 3.0


def test_the_python_surface_runs_ieee_and_integer_edge_cases_without_warnings() -> None:
    """Overflow, 0/0, integer division by zero, NaN to an integer: defined values, and no numpy
    warning (pytest turns a warning into an error)."""
    h = tf.Var("h", TensorType((2,), "f16"))
    square = ops.div(ops.mul(h, h), h)
    module = Module(name="m", functions=[Function(name="f", params=[h], body=square)])
    result = module.f(np.array([6e4, 0], np.float16))
    assert np.isposinf(result[0]) and np.isnan(result[1])
    i = tf.Var("i", TensorType((2,), "i32"))
    module = Module(name="m", functions=[Function(name="f", params=[i], body=ops.div(i, i))])
    np.testing.assert_array_equal(module.f(np.int32([3, 0])), [1, 0])
    g = tf.Var("g", TensorType((2,), "f32"))
    to_int = ops.cast(ops.exp(g), "i8")
    module = Module(name="m", functions=[Function(name="f", params=[g], body=to_int)])
    np.testing.assert_array_equal(module.f(np.float32([np.nan, 100.0])), [0, 127])


@pytest.mark.parametrize(
    ("dtype", "largest", "infinite"),
    [
        ("bf16", 3.3961e38, 2.0**128 - 2.0**119),
        ("f16", 65519.0, 65520.0),
        ("f32", 2.0**128 - 2.0**104 + 2.0**102, 2.0**128 - 2.0**103),
    ],
)
def test_a_literal_is_refused_only_when_it_would_round_to_infinity(
    dtype: str, largest: float, infinite: float
) -> None:
    """Below the largest finite value plus half its ulp, a literal rounds to the largest finite
    value (in Python as in text); from there up, it would be an infinity, and is refused."""
    top = stored(np.array([largest]), dtype)
    assert np.isfinite(top[0]) and same_bits(top, cast_array(np.float64([largest]), dtype))
    with pytest.raises(ValueError, match="does not fit"):
        array_to_dense(np.array([infinite]), dtype)
    for value, finite in ((largest, True), (infinite, False)):
        source = (
            f"tf.module @m {{\n  hir.func @f() -> tensor<{dtype}> {{\n"
            f"    %0 = tf.constant dense<{value!r}> : tensor<{dtype}>\n"
            f"    hir.return %0 : tensor<{dtype}>\n  }}\n}}\n"
        )
        if finite:
            assert same_bits(tf.parse_module(source).f(), top.reshape(()))
        else:
            with pytest.raises(tf.TextError, match="out of range"):
                tf.parse_module(source)


@pytest.mark.parametrize("dtype", ALL)
def test_a_scalar_result_keeps_its_rank(dtype: str) -> None:
    """A reduction to a rank-0 tensor: a 0-d array, folded to the interpreter's bits."""
    values = edge_values(dtype)
    finite = values[np.isfinite(values)] if dtype[0] == "f" else values
    for build in (ops.reduce_sum, ops.reduce_max):
        literal = stored(finite[:3], dtype)
        call = build(Constant(literal, dtype=dtype), axis=0)
        value = run_before_and_after(call)
        assert value.shape == ()
        folded = evaluate_exactly(call, [literal])
        assert folded is None or same_bits(folded, value)
    x = tf.Var("x", TensorType((2,), dtype))
    body = ops.reduce_max(x, axis=0)
    module = Module(name="m", functions=[Function(name="f", params=[x], body=body)])
    assert module.f(stored(values[:2], dtype)).shape == ()
