"""tf-opt as a user meets it: exit codes, one-line diagnostics, no traceback, whatever the input.

The fuzz test mutates the dialect test files deterministically (deleted spans, inserted tokens,
duplicated spans) and runs tf-opt in-process on each mutant: every run must end in success or in
diagnostics (exit 0 or 1), never in an internal error (exit 2) or an uncaught exception.
"""

from __future__ import annotations

import contextlib
import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tilefoundry.tools.tf_opt import main

FILECHECK = Path(__file__).parents[2] / "filecheck"
SOURCES = sorted(FILECHECK.glob("dialects/*/*.mlir"))
TOKENS = [
    "%",
    "@",
    "<",
    ">",
    "(",
    ")",
    "{",
    "}",
    ":",
    ",",
    '"',
    "[",
    "]",
    "0",
    "-1",
    "f16",
    "tensor<?x4xf32>",
    "#tf.op<x>",
    " to ",
    "loc(",
    "dense<",
    "@x::@y",
    "tf.call",
    "->",
]


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def mutants(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    chunks = [c for path in SOURCES for c in path.read_text().split("// -----")]
    found = []
    for _ in range(count):
        text = rng.choice(chunks)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            roll = rng.random()
            if roll < 0.4:
                text = text[:at] + text[at + rng.randint(1, 8) :]
            elif roll < 0.7:
                text = text[:at] + rng.choice(TOKENS) + text[at:]
            else:
                start = rng.randrange(len(text) + 1)
                text = text[:at] + text[start : start + 10] + text[at:]
        found.append(text)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_mutated_inputs_end_in_diagnostics_never_in_a_crash(tmp_path: Path, seed: int) -> None:
    for index, text in enumerate(mutants(40, seed)):
        path = tmp_path / f"mutant{index}.mlir"
        path.write_text(text)
        code, _, err = run([str(path)])
        assert code in (0, 1), f"exit {code} on {path}:\n{text}\n{err}"
        assert "internal error" not in err and "Traceback" not in err, f"{text}\n{err}"
        if code == 1:
            assert err.count("\n") == 1, f"more than one line for one chunk:\n{err}"
            assert err.startswith((str(path), "tf-opt: error:")), err


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
