"""tf-run: the module read from standard input, buffers written to files, and the command-line
advice for a module without an entry."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import pytest

from tilefoundry.tools.drivers.tf_run import main

KERNEL = """tf.module @k {
  tir.prim_func @scale(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>, %acc: !tf.buffer<4xf32>) -> () {
    %c = tir.let tf.constant dense<2.0> : tensor<4xf32>
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.evaluate tf.call tf.memory.copy(%acc, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
  hir.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @inner {
    hir.func @id(%x: tensor<2xi32>) -> tensor<2xi32> {
      hir.return %x : tensor<2xi32>
    }
  }
}
"""


def run(args: list[str | Path], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in args])
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return path


def test_dash_or_no_file_reads_standard_input(kernel: Path) -> None:
    from_file = run([kernel, "--function", "neg"])
    assert from_file[0] == 0
    assert run(["-", "--function", "neg"], KERNEL.encode()) == from_file
    assert run(["--function", "neg"], KERNEL.encode()) == from_file


def test_standard_input_names_itself_in_diagnostics() -> None:
    code, out, err = run(["-"], b"tf.module @m {\n  frob.nicate\n}\n")
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == "<stdin>:2:3: error: Operation frob.nicate is not registered"
    code, _, err = run(["-"], b"\xff\xfe")
    assert code == 1 and err.startswith("tf-run: error: standard input is not UTF-8 text")


def test_a_module_without_an_entry_gets_the_command_line_advice(kernel: Path) -> None:
    code, out, err = run([kernel])
    assert (code, out) == (1, "")
    assert err == (
        "tf-run: error: module 'k' has no entry: choose a function with --function NAME "
        "(functions: scale, neg, inner.id)\n"
    )
    assert "lookup(" not in err


def test_the_advice_lists_at_most_twenty_functions(tmp_path: Path) -> None:
    funcs = "".join(f"  hir.func @f{i}() -> () {{\n    hir.return\n  }}\n" for i in range(25))
    path = tmp_path / "many.mlir"
    path.write_text(f"tf.module @many {{\n{funcs}}}\n")
    _, _, err = run([path])
    assert err.endswith("f18, f19, ... (5 more))\n") and err.count("\n") == 1


def test_each_written_buffer_is_printed_and_saved(kernel: Path, tmp_path: Path) -> None:
    x = np.array([1, 2, 3, 4], np.float32)
    np.save(tmp_path / "x.npy", x)
    out_path, acc_path = tmp_path / "out.npy", tmp_path / "acc.npy"
    code, out, err = run(
        [
            kernel,
            "--function",
            "scale",
            "--input",
            f"x={tmp_path / 'x.npy'}",
            "--output",
            f"out={out_path}",
            "--output",
            f"acc={acc_path}",
        ]
    )
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "scale(x[4], out[4], acc[4])",
        "  drawn at random (--seed 0): out, acc",
        "  -> nothing (an effect-only function)",
        "  buffer out -> array[4] float32",
        "     [2. 4. 6. 8.]",
        "  buffer acc -> array[4] float32",
        "     [1. 2. 3. 4.]",
    ]
    np.testing.assert_array_equal(np.load(out_path), 2 * x)
    np.testing.assert_array_equal(np.load(acc_path), x)


def test_a_buffer_given_as_input_is_its_initial_contents(kernel: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    np.save(tmp_path / "out.npy", np.full(4, 7, np.float32))
    code, out, _ = run(
        [kernel, "--function", "scale", "--input", f"x={tmp_path / 'x.npy'}"]
        + ["--input", f"out={tmp_path / 'out.npy'}", "--output", f"out={tmp_path / 'o.npy'}"]
    )
    assert code == 0 and "scale(x[4], out[4], acc[4])" in out
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.full(4, 2, np.float32))
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), np.full(4, 7, np.float32))


def test_a_buffer_to_standard_output_sends_the_summary_to_stderr(kernel: Path) -> None:
    code = None
    stdout = io.BytesIO()

    class Stdout(io.TextIOWrapper):
        pass

    out = Stdout(stdout, encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(kernel), "--function", "scale", "--output", "out=-"])
    out.flush()
    assert code == 0
    assert err.getvalue().startswith("scale(x[4], out[4], acc[4])\n")
    value = np.load(io.BytesIO(stdout.getvalue()))
    assert value.shape == (4,) and value.dtype == np.float32


def test_buffer_outputs_are_checked_before_the_run(kernel: Path, tmp_path: Path) -> None:
    for args, expected in [
        (
            ["--output", "q=a.npy"],
            "--output 'q' names no buffer parameter of 'scale' (buffers: out, acc)",
        ),
        (["--output", "x=a.npy"], "--output 'x' names no buffer parameter of 'scale'"),
        (["--output", "out="], "--output takes NAME=FILE, got 'out='"),
        (["--output", "out=a.npy", "--output", "out=b.npy"], "--output 'out' is given twice"),
        (
            ["--output", "out=a.txt"],
            "buffer 'out' is a tensor: write it to a .npy file, got 'a.txt'",
        ),
        (["--output", "out=-", "--output", "acc=-"], "at most one value to standard output"),
        (
            ["--output", "r.npy"],
            "'scale' returns nothing (an effect-only function): there is nothing to write to "
            "'r.npy' (a buffer is written with --output NAME=FILE; buffers: out, acc)",
        ),
        (
            ["--output", str(tmp_path / "no-dir" / "o.npy").join(["out=", ""])],
            "cannot write output file",
        ),
    ]:
        code, out, err = run([kernel, "--function", "scale", *args])
        assert code == 1, args
        assert err.startswith("tf-run: error:") and err.count("\n") == 1, err
        assert expected in err, (expected, err)
        assert out == ""


def test_a_result_is_written_once(kernel: Path, tmp_path: Path) -> None:
    code, _, err = run([kernel, "--function", "neg", "--output", "a.npy", "--output", "b.npy"])
    assert code == 1
    assert err == "tf-run: error: --output of the result is given twice ('a.npy', 'b.npy')\n"
    path = tmp_path / "sub=dir"
    path.mkdir()
    code, _, err = run([kernel, "--function", "neg", "--output", f"{path}/y.npy"])
    assert (code, err) == (0, "")  # a '/' before the '=': a path, not NAME=FILE
    assert np.load(path / "y.npy").shape == (4,)
