"""The native backend's schedules (`backends/native/schedule.py`): what they make of a matmul
(tiled loops and vector FMAs, static and dynamic shapes: `--dump`'s `module.scheduled.mlir`)
and of a fold (`reduce.max`, an integer `reduce.sum`: vectors across a kept dim), and what the
scheduled code computes on sizes the tiles do not divide (1, 7, 65, 513 rows; dynamic rows; a
batch): integers the interpreter's bits, a matmul's floats within docs/ir.md's bound
`2 K eps Σ|a||b|` (the FMAs round once where the interpreter's BLAS rounds its own way), the
unfused pipeline's floats the scalar loops' bits, a fold's floats the interpreter's bits (±0,
infinities and NaNs included)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.backends.native.build import compile_native
from tilefoundry.backends.native.pipeline import UNFUSED_PIPELINE, UNSCHEDULED_PIPELINE
from tilefoundry.testing.native import same_values

DYNAMIC = "?x{k}x{t}, #tf.dims<n: 1 to 4097>"


def matmul_module(rows: int | None, k: int, n: int, dtype: str = "f32", batch: str = "") -> Any:
    """`f(a: [batch..., rows, k], b: [k, n])`; `rows=None`: a DimVar `n`."""
    a = (
        f"tensor<{batch}{DYNAMIC.format(k=k, t=dtype)}>"
        if rows is None
        else f"tensor<{batch}{rows}x{k}x{dtype}>"
    )
    b = f"tensor<{k}x{n}x{dtype}>"
    y = a.replace(f"x{k}x{dtype}", f"x{n}x{dtype}")
    text = f"""
tf.module @m entry @f {{
  hir.func @f(%a: {a}, %b: {b}) -> {y} {{
    %y = tf.call tf.linalg.matmul(%a, %b) : ({a}, {b}) -> {y}
    hir.return %y : {y}
  }}
}}
"""
    return tf.parse_module(text, "mm.mlir")


def scheduled(module: Any, tmp_path: Path) -> str:
    compile_native(module.module_op, dump=tmp_path, cache=None)
    return (tmp_path / "module.scheduled.mlir").read_text()


@pytest.mark.parametrize("rows", [512, None], ids=["static", "dynamic"])
def test_a_matmul_becomes_tiled_loops_of_vector_fmas(rows: int | None, tmp_path: Path) -> None:
    text = scheduled(matmul_module(rows, 512, 512), tmp_path)
    inner = text[text.index("func.func private @tfi_") :]
    inner = inner[: inner.index("func.func @tf_")]
    # what keeps a generic is a remainder tile of dynamic rows (fewer than 8: scalar loops)
    left = re.findall(r"linalg\.generic .* outs\(\S+ : (tensor<[^>]*>)\)", inner)
    assert all(t.startswith("tensor<?x") for t in left), left
    assert (rows is None) == bool(left)
    assert len(re.findall(r"scf\.for .* step %c8\b", inner)) >= 1  # the register tile's rows
    assert re.search(r"vector\.fma .*: vector<32xf32>", inner)  # a row of the register tile
    # the accumulators stay in registers across the contraction loop
    assert re.search(r"scf\.for .*iter_args\(.*\) -> \(vector<8x32xf32>\)", inner)


def test_an_i1_matmul_keeps_its_loops(tmp_path: Path) -> None:
    """A vector of i1 in memory is packed bits, a memref of i1 holds bytes: not vectorized."""
    text = scheduled(matmul_module(8, 8, 32, "i1"), tmp_path)
    assert "linalg.generic" in text and "vector." not in text


def test_the_unfused_pipeline_multiplies_and_adds(tmp_path: Path) -> None:
    compile_native(
        matmul_module(64, 64, 64).module_op, dump=tmp_path, cache=None, pipeline=UNFUSED_PIPELINE
    )
    text = (tmp_path / "module.scheduled.mlir").read_text()
    assert "vector.fma" not in text
    assert re.search(r"arith\.mulf .*vector<", text) and re.search(r"arith\.addf .*vector<", text)


def _operands(rng: Any, shape_a: tuple[int, ...], k: int, n: int, dtype: str) -> list[Any]:
    if dtype == "i32":
        return [
            rng.integers(-(2**31), 2**31, size=s, dtype=np.int64).astype(np.int32)
            for s in (shape_a, (k, n))
        ]
    return [rng.standard_normal(s).astype(np.float32) for s in (shape_a, (k, n))]


def _within_the_matmul_bound(a: Any, b: Any, actual: Any, expected: Any) -> None:
    """`|actual - expected| <= 2 K eps (|a| @ |b|)`, docs/ir.md's bound for each of them."""
    k = a.shape[-1]
    bound = 2 * k * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(b)).astype(np.float64)
    error = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    assert bool(np.all(error <= bound)), float(np.max(error - bound))


@pytest.mark.parametrize("dtype", ["f32", "i32"])
@pytest.mark.parametrize(
    "rows, k, n",
    [(1, 1, 1), (7, 7, 7), (65, 65, 65), (513, 513, 513), (7, 513, 65), (65, 1, 513)],
)
def test_odd_sizes_match_the_interpreter(rows: int, k: int, n: int, dtype: str) -> None:
    module = matmul_module(rows, k, n, dtype)
    compiled = tf.compile(module)
    a, b = _operands(np.random.default_rng(rows * 7 + k), (rows, k), k, n, dtype)
    actual, expected = compiled.f(a, b), module.f(a, b)
    if dtype == "i32":  # wraps: the same bits in any order
        assert actual.tobytes() == expected.tobytes()
    else:
        _within_the_matmul_bound(a, b, actual, expected)


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_dynamic_rows_match_the_interpreter_at_every_size(dtype: str) -> None:
    module = matmul_module(None, 65, 40, dtype)
    compiled = tf.compile(module)
    rng = np.random.default_rng(3)
    for rows in (1, 7, 8, 9, 64, 65, 513):
        a, b = _operands(rng, (rows, 65), 65, 40, dtype)
        actual, expected = compiled.f(a, b), module.f(a, b)
        if dtype == "i32":
            assert actual.tobytes() == expected.tobytes(), rows
        else:
            _within_the_matmul_bound(a, b, actual, expected)


def test_a_batched_matmul_with_dynamic_rows_matches_the_interpreter() -> None:
    module = matmul_module(None, 33, 47, "f32", batch="3x")
    compiled = tf.compile(module)
    rng = np.random.default_rng(5)
    for rows in (1, 9, 70):
        a, b = _operands(rng, (3, rows, 33), 33, 47, "f32")
        _within_the_matmul_bound(a, b, compiled.f(a, b), module.f(a, b))


def test_the_unfused_schedule_has_the_scalar_loops_bits() -> None:
    """Tiles and vectors without FMAs: each element's contraction in order, multiply and add
    rounded each, exactly as the unscheduled scalar loops."""
    module = matmul_module(None, 129, 70)
    op = module.module_op
    vectors = compile_native(op, cache=None, pipeline=UNFUSED_PIPELINE).function("f")
    loops = compile_native(op, cache=None, pipeline=UNSCHEDULED_PIPELINE).function("f")
    rng = np.random.default_rng(9)
    for rows in (3, 8, 67):
        a, b = _operands(rng, (rows, 129), 129, 70, "f32")
        assert vectors(a, b).tobytes() == loops(a, b).tobytes(), rows


def reduce_module(op: str, shape: str, axis: int, result: str, dtype: str = "f32") -> Any:
    x, y = f"tensor<{shape}x{dtype}{{dims}}>", f"tensor<{result}x{dtype}{{dims}}>"
    dims = ", #tf.dims<n: 1 to 4097>" if "?" in shape else ""
    x, y = x.format(dims=dims), y.format(dims=dims if "?" in result else "")
    text = f"""
tf.module @m entry @f {{
  hir.func @f(%x: {x}) -> {y} {{
    %y = tf.call tf.reduce.{op}<axis = {axis}>(%x) : ({x}) -> {y}
    hir.return %y : {y}
  }}
}}
"""
    return tf.parse_module(text, "reduce.mlir")


@pytest.mark.parametrize(
    "shape, axis, result, lanes",
    [("512x512", 0, "512", 64), ("?x512", 0, "512", 64), ("512x512", 1, "512", 16)],
    ids=["columns", "columns-dynamic", "rows"],
)
def test_a_fold_runs_on_vectors_across_a_kept_dim(
    shape: str, axis: int, result: str, lanes: int, tmp_path: Path
) -> None:
    text = scheduled(reduce_module("max", shape, axis, result), tmp_path)
    # the accumulators: a vector carried by the loop along the axis, combined lane by lane
    assert re.search(rf"scf\.for .*iter_args\(.*\) -> \(vector<{lanes}xf32>\)", text)
    assert re.search(rf"arith\.select .*vector<{lanes}xi1>, vector<{lanes}xf32>", text)


def _edge_values(rng: Any, shape: tuple[int, ...], dtype: str) -> Any:
    """Values with ties, ±0, infinities and NaNs (floats), or the integer range's ends."""
    if dtype == "i32":
        pool = np.array([-(2**31), -1, 0, 1, 7, 2**31 - 1], np.int32)
    else:
        pool = np.array([-np.inf, -1.5, -0.0, 0.0, 0.0, 2.5, 2.5, np.inf, np.nan], np.float32)
    return rng.choice(pool, size=shape)


# a float sum is numpy's pairwise order (reductions.pairwise_sum), not a fold: not a case here
@pytest.mark.parametrize(("op", "dtype"), [("max", "f32"), ("max", "i32"), ("sum", "i32")])
@pytest.mark.parametrize("axis", [0, 1])
def test_scheduled_folds_have_the_interpreters_bits(op: str, axis: int, dtype: str) -> None:
    module = reduce_module(op, "?x67", axis, "67" if axis == 0 else "?", dtype)
    compiled = tf.compile(module)
    rng = np.random.default_rng(axis)
    for rows in (1, 15, 16, 17, 70):
        x = _edge_values(rng, (rows, 67), dtype)
        # the same bits, a NaN matching any NaN (docs/compile.md "Numbers")
        assert same_values(module.f(x), compiled.f(x)) is None, rows


def test_a_fold_that_keeps_its_dim_is_scheduled_too(tmp_path: Path) -> None:
    """keepdims is a reshape of the fold (a constant index in the fold's output map stalled
    the schedule: mlir-opt never finished)."""
    text = """
tf.module @m entry @f {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x1xf32, #tf.dims<n: 1 to 4097>> {
    %y = tf.call tf.reduce.max<axis = 1, keepdims = true>(%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x1xf32, #tf.dims<n: 1 to 4097>>
    hir.return %y : tensor<?x1xf32, #tf.dims<n: 1 to 4097>>
  }
}
"""
    module = tf.parse_module(text, "keepdims.mlir")
    assert "vector<16xf32>" in scheduled(module, tmp_path)
    compiled = tf.compile(module)
    x = _edge_values(np.random.default_rng(0), (37, 8), "f32")
    assert same_values(module.f(x), compiled.f(x)) is None


@pytest.mark.parametrize(
    "shape, perm", [("35x40", (1, 0)), ("?x33", (1, 0)), ("2x?x4x33", (0, 2, 3, 1))]
)
def test_a_transpose_moves_vector_tiles_and_keeps_every_bit(
    shape: str, perm: tuple[int, ...], tmp_path: Path
) -> None:
    dims = shape.split("x")
    encoding = ", #tf.dims<n: 1 to 4097>" if "?" in shape else ""
    x = f"tensor<{shape}xf32{encoding}>"
    y = f"tensor<{'x'.join(dims[p] for p in perm)}xf32{encoding}>"
    text = f"""
tf.module @m entry @f {{
  hir.func @f(%x: {x}) -> {y} {{
    %y = tf.call tf.linalg.transpose<perm = [{", ".join(map(str, perm))}]>(%x) : ({x}) -> {y}
    hir.return %y : {y}
  }}
}}
"""
    module = tf.parse_module(text, "transpose.mlir")
    assert re.search(r"vector\.transfer_write .*vector<16x16xf32>", scheduled(module, tmp_path))
    compiled = tf.compile(module)
    sizes = [int(d) if d != "?" else 37 for d in dims]
    a = _edge_values(np.random.default_rng(2), tuple(sizes), "f32")
    assert compiled.f(a).tobytes() == module.f(a).tobytes()
