"""tf-opt as a user meets it: exit codes, diagnostics as mlir-opt prints them, no traceback,
whatever the input (the fuzzing is in test_fuzz.py), and output that a failure never damages.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from tilefoundry.tools.drivers.tf_opt import TfOptMain, main


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_an_unterminated_string_is_a_diagnostic_not_a_hang(tmp_path: Path) -> None:
    # xDSL 0.74's lexer takes exponential time on this; TFParser's does not.
    path = tmp_path / "typo.mlir"
    path.write_text(
        'tf.module @m {\n  %c = tf".constant dense<2.0> : tensor<4xf32> tensor<4xf32>\n}\n'
    )
    code, _, err = run([str(path)])
    assert code == 1
    assert err.startswith(f"{path}:2:")
    assert "closing string literal" in err


def test_a_good_file_prints_and_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "good.mlir"
    path.write_text(
        "tf.module @m {\n  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    hir.return %x : tensor<4xf32>\n  }\n}\n"
    )
    code, out, err = run([str(path)])
    assert (code, err) == (0, "")
    assert out.startswith("tf.module @m {")


def test_the_console_script_reports_a_missing_file_in_one_line(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "tf-opt"
    result = subprocess.run(
        [str(script), str(tmp_path / "missing.mlir")], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"tf-opt: error: cannot open input file '{tmp_path / 'missing.mlir'}': "
        "No such file or directory\n"
    )


def test_the_console_script_flushes_all_its_output_before_it_exits(tmp_path: Path) -> None:
    # tf-opt ends with os._exit (no teardown): every byte must be out by then, pipe or file.
    body = "".join(
        f"    %v{i} = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
        for i in range(2000)
    )
    path = tmp_path / "wide.mlir"
    path.write_text(
        "tf.module @m {\n  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        f"{body}    hir.return %x : tensor<4xf32>\n  }}\n}}\n"
    )
    script = Path(sys.executable).parent / "tf-opt"
    piped = subprocess.run([str(script), str(path)], capture_output=True, text=True)
    assert (piped.returncode, piped.stderr) == (0, "")
    assert piped.stdout == path.read_text()
    written = subprocess.run([str(script), str(path), "-o", str(tmp_path / "out.mlir")])
    assert written.returncode == 0
    assert (tmp_path / "out.mlir").read_text() == path.read_text()


def test_a_failing_pass_leaves_no_output(tmp_path: Path) -> None:
    # A verifier failure after parsing prints nothing on stdout: no half-made IR.
    path = tmp_path / "bad.mlir"
    path.write_text(
        "tf.module @m {\n  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xi32>\n"
        "    hir.return %x : tensor<4xf32>\n  }\n}\n"
    )
    code, out, err = run([str(path), "-p", "cse"])
    assert code == 1
    assert out == ""
    assert err.startswith(f"{path}:3:5: error: 'tf.call' op result type tensor<4xi32>")


def test_a_byte_order_mark_is_a_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "bom.mlir"
    path.write_bytes("\ufefftf.module @m {}\n".encode())
    code, out, err = run([str(path)])
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        f"{path}:1:1: error: unexpected byte-order mark (U+FEFF); save the file as UTF-8 "
        "without one"
    )


def test_an_internal_error_in_one_chunk_leaves_the_others_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = TfOptMain._process

    def process(self: TfOptMain, chunk: str, name: str, first_line: int) -> str:
        if "@boom" in chunk:
            raise RuntimeError("a bug")
        return original(self, chunk, name, first_line)

    monkeypatch.setattr(TfOptMain, "_process", process)
    path = tmp_path / "chunks.mlir"
    path.write_text("tf.module @a {}\n// -----\ntf.module @boom {}\n// -----\ntf.module @c {}\n")
    code, out, err = run([str(path), "--split-input-file"])
    assert code == 2
    assert err == (
        "tf-opt: internal error: RuntimeError: a bug (set TF_OPT_TRACEBACK=1 for the traceback)\n"
    )
    assert "tf.module @a" in out and "tf.module @c" in out


def test_a_failing_run_leaves_the_output_file_as_it_was(tmp_path: Path) -> None:
    path, output = tmp_path / "bad.mlir", tmp_path / "out.mlir"
    path.write_text("tf.module @m {\n  frob.nicate\n}\n")
    output.write_text("previous\n")
    code, out, _ = run([str(path), "-o", str(output)])
    assert (code, out) == (1, "")
    assert output.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "out.mlir"]


def test_timing_reports_each_stage() -> None:
    """`--timing`: MLIR's execution time report on stderr, one row per stage, passes by name."""
    source = Path(__file__).parents[3] / "filecheck" / "tools" / "Inputs" / "add.mlir"
    code, out, err = run([str(source), "-p", "cse,canonicalize", "--timing"])
    assert code == 0 and "tf.module" in out
    assert "... Execution time report ..." in err
    rows = [line.split(")")[-1].strip() for line in err.splitlines() if "%)" in line]
    assert rows == ["parse", "verify", "pass cse", "pass canonicalize", "print", "Total"]
