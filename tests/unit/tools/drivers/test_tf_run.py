"""tf-run: a function of a module, run on random or given inputs; refusals in one line."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

from tilefoundry.tools.drivers.tf_run import main

DIMS = "#tf.dims<n: 1 to 64>"
T = f"tensor<?x4xf32, {DIMS}>"
MODULE = f"""tf.module @m entry @f {{
  hir.func @f(%x: {T}) -> {T} {{
    %y = tf.call tf.math.unary<kind = neg>(%x) : ({T}) -> {T}
    hir.return %y : {T}
  }} variants {{
    hir.variant [n: 1 to 8] (%x: {T}) {{
      hir.return %x : {T}
    }}
  }}
  hir.func @r(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %y = tf.call @s(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }}
  hir.func @s(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %y = tf.call @r(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }}
  tir.prim_func @fill(%dst: !tf.buffer<4xf32>, %src: tensor<4xf32>) -> () {{
    tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }}
  tf.module @"c d" {{
    hir.func @g(%t: tuple<tensor<2xi32>, tensor<2xi1>>) -> tuple<tensor<2xi32>, tensor<2xi1>> {{
      hir.return %t : tuple<tensor<2xi32>, tensor<2xi1>>
    }}
  }}
  tir.prim_func @small(%x: {T}) -> {T} {{
    tir.return %x : {T}
  }}
  tir.prim_func @large(%x: {T}) -> {T} {{
    %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : ({T}) -> {T}
    tir.return %y : {T}
  }}
  tir.prim_func @pick(%x: {T}) -> {T} {{
    %y = tir.let tir.dispatch [@small: [n: 1 to 8], @large: [n: 8 to 64]](%x) : ({T}) -> {T}
    tir.return %y : {T}
  }}
}}
"""


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    return path


def run(args: list[str | Path]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def test_prints_the_call_the_variant_that_ran_and_the_values(module: Path) -> None:
    code, out, err = run([module, "--dim", "n=3"])
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "f(x[3, 4])",
        "  drawn at random (--seed 0): x",
        "  ran @f: variant #0 [n: 1 to 8]",
        "  -> array[3, 4] float32",
    ]
    assert len(lines) == 7 and lines[4].startswith("     [[")
    code, out, _ = run([module, "--dim", "n=30"])
    assert "  ran @f: its own body (n = 30: no variant holds them)" in out.splitlines()


def test_an_effect_only_prim_function_prints_its_buffers(module: Path) -> None:
    """A buffer parameter gets a random initial array, written in place: its contents after
    the run are printed (the copy wrote src into dst, so both print the same numbers)."""
    code, out, err = run([module, "--function", "fill", "--seed", "3"])
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "fill(dst[4], src[4])",
        "  drawn at random (--seed 3): dst, src",
        "  -> nothing (an effect-only function)",
        "  buffer dst -> array[4] float32",
    ]
    assert len(lines) == 5 and lines[4].startswith("     [")


def test_large_values_are_elided_as_numpy_does(module: Path) -> None:
    _, out, _ = run([module, "--dim", "n=60"])
    assert "      ..." in out.splitlines() and len(out.splitlines()) < 12


def test_reports_the_dispatch_case_that_ran(module: Path) -> None:
    _, out, _ = run([module, "--function", "pick", "--dim", "n=20"])
    assert "  ran tir.dispatch: case #1 @large [n: 8 to 64] (n = 20)" in out.splitlines()


def test_a_function_by_dotted_path_or_by_symbol_reference(module: Path) -> None:
    for path in ("c d.g", '@"c d"::@g'):
        code, out, err = run([module, "--function", path])
        assert (code, err) == (0, ""), path
        assert out.splitlines()[1:5] == [
            "  drawn at random (--seed 0): t",
            "  -> (array[2] int32, array[2] bool)",
            "     [0] array[2] int32",
            out.splitlines()[4],
        ]


def test_inputs_from_and_outputs_to_npy_files(module: Path, tmp_path: Path) -> None:
    x = np.arange(20, dtype=np.float32).reshape(5, 4)
    np.save(tmp_path / "x.npy", x)
    code, out, err = run(
        [module, "--input", f"x={tmp_path / 'x.npy'}", "--output", tmp_path / "y.npy"]
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == ["f(x[5, 4])", "  ran @f: variant #0 [n: 1 to 8]"]  # none drawn
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), x)  # variant #0 returns x
    code, _, err = run([module, "--function", "c d.g", "--output", tmp_path / "t.npz"])
    assert (code, err) == (0, "")
    code, out, err = run([module, "--function", "c d.g", "--input", f"t={tmp_path / 't.npz'}"])
    with np.load(tmp_path / "t.npz") as saved:
        assert saved.files == ["arr_0", "arr_1"]
        assert f"[{' '.join(str(v) for v in saved['arr_0'])}]" in out


def test_refusals_are_one_line(module: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "big.npy", np.zeros((70, 4), np.float32))
    np.save(tmp_path / "obj.npy", np.array([object()]), allow_pickle=True)
    np.savez(tmp_path / "one.npz", np.zeros(2, np.int32))
    for args, expected in [
        ([tmp_path / "nope.mlir"], "cannot open input file"),
        ([module, "--dim", "n"], "--dim takes NAME=SIZE"),
        ([module, "--dim", "n=99"], "outside n's envelope [1, 64)"),
        ([module, "--dim", "zz=4"], "--dim 'zz' names no DimVar of 'f' (DimVars: n)"),
        ([module, "--function", "zz.g"], "'zz' names no child module of the root module"),
        ([module, "--function", "@zz::"], "--function takes a dotted path (layer0.mlp) or"),
        ([module, "--function", "r"], "'r' is recursive (@r -> @s -> @r); the reference"),
        ([module, "--input", "q=x.npy"], "--input 'q' names no parameter of 'f' (parameters: x)"),
        ([module, "--input", f"x={tmp_path / 'nope.npy'}"], "cannot read input 'x' from"),
        ([module, "--input", f"x={tmp_path / 'obj.npy'}"], "cannot read input 'x' from"),
        ([module, "--input", f"x={tmp_path / 'big.npy'}"], "outside n's envelope"),
        ([module, "--input", f"x={tmp_path / 'big.npy'}", "--dim", "n=4"], "is 70"),
        ([module, "--output", tmp_path / "y.txt"], "write it to a .npy file, got"),
        ([module, "--function", "fill", "--output", "y.npy"], "returns nothing"),
        ([module, "--function", "c d.g", "--output", "t.npy"], "write it to a .npz file"),
        ([module, "--output", tmp_path / "no-dir" / "y.npy"], "cannot write output file"),
        ([module, "--input", "x"], "--input takes NAME=FILE, got 'x'"),
        ([module, "--input", "x=a.npy", "--input", "x=b.npy"], "--input 'x' is given twice"),
        ([module, "--function", "c d.g", "--input", f"t={tmp_path / 'one.npz'}"], "holds arr_0"),
        ([module, "--function", "c d.g", "--input", f"t={tmp_path / 'big.npy'}"], ".npz file"),
    ]:
        code, out, err = run(args)
        assert code == 1, args
        assert err.startswith("tf-run: error:") and err.count("\n") == 1, err
        assert expected in err, (expected, err)
        assert out == ""


def test_what_is_too_large_to_hold_is_refused_in_one_line(tmp_path: Path) -> None:
    huge = tmp_path / "huge.mlir"
    huge.write_text("hir.func @f(%x: tensor<922337203608xf32>) -> () {\n  hir.return\n}\n")
    code, _, err = run([huge])
    assert code == 1 and err.count("\n") == 1
    assert "would have 922337203608 elements; tf-run draws at most 268435456" in err
    splat = tmp_path / "splat.mlir"
    splat.write_text(
        "hir.func @f() -> tensor<922337203608xf32> {\n"
        "  %c = tf.constant dense<1.0> : tensor<922337203608xf32>\n"
        "  hir.return %c : tensor<922337203608xf32>\n}\n"
    )
    code, _, err = run([splat])
    assert code == 1 and err.startswith("tf-run: error: 'f': out of memory:"), err


def test_a_parse_error_shows_the_source_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("tf.module @m {\n  frob.nicate\n}\n")
    code, _, err = run([path])
    assert code == 1
    assert err.splitlines() == [
        f"{path}:2:3: error: Operation frob.nicate is not registered",
        "  frob.nicate",
        "  ^",
    ]
