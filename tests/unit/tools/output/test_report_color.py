"""Diagnostics coloured as mlir-opt colours them on a terminal (a pty here), plain when piped,
with NO_COLOR, or with `--color=never`; `--color=always` colours a pipe too."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tilefoundry.tools.output.report import Diagnostic, format_diagnostic

BIN = Path(sys.executable).parent
HANG_GUARD = 600
BAD = "tf.module @m {\n  hir.func @f() -> () {\n    hir.return %nope : tensor<f32>\n  }\n}\n"
RED_ERROR = "\x1b[0;1;31merror: \x1b[0m"


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    return path


def stderr_on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """tf-opt's stderr when stderr is a pseudo-terminal."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(BIN / "tf-opt"), *args],
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env=env,
            timeout=HANG_GUARD,
            check=False,
        )
        os.close(follower)
        follower = -1
        assert done.returncode == 1
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower side is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode().replace("\r\n", "\n")
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "NO_COLOR"}


def test_a_terminal_gets_colours(bad: Path) -> None:
    err = stderr_on_a_terminal([str(bad)], plain_env())
    assert RED_ERROR in err
    assert f"\x1b[1m{bad}:3:16: \x1b[0m" in err  # the place, bold
    assert "\x1b[0;1;32m" in err  # the caret, green


def test_no_color_keeps_a_terminal_plain(bad: Path) -> None:
    err = stderr_on_a_terminal([str(bad)], {**plain_env(), "NO_COLOR": "1"})
    assert "\x1b[" not in err and f"{bad}:3:16: error: " in err
    err = stderr_on_a_terminal([str(bad), "--color=never"], plain_env())
    assert "\x1b[" not in err


def test_a_pipe_is_plain_unless_asked(bad: Path) -> None:
    run = [str(BIN / "tf-opt"), str(bad)]
    piped = subprocess.run(run, capture_output=True, text=True, env=plain_env(), timeout=HANG_GUARD)
    assert piped.returncode == 1 and "\x1b[" not in piped.stderr
    assert piped.stderr.startswith(f"{bad}:3:16: error: ")
    asked = subprocess.run(
        [*run, "--color=always"],
        capture_output=True,
        text=True,
        env=plain_env(),
        timeout=HANG_GUARD,
    )
    assert RED_ERROR in asked.stderr


@pytest.mark.parametrize(
    ("kind", "code"), [("error", "31"), ("warning", "35"), ("note", "30"), ("remark", "34")]
)
def test_each_kind_has_llvm_s_colour(kind: str, code: str) -> None:
    text = format_diagnostic(Diagnostic(kind, 1, 3, "m"), "f.mlir", ["abcd"], color=True)
    heading, line, caret = text.split("\n")
    assert heading == f"\x1b[1mf.mlir:1:3: \x1b[0m\x1b[0;1;{code}m{kind}: \x1b[0m\x1b[1mm\x1b[0m"
    assert line == "abcd" and caret == "\x1b[0;1;32m  ^\x1b[0m"
    assert format_diagnostic(Diagnostic(kind, 1, 3, "m"), "f.mlir", ["abcd"]) == (
        f"f.mlir:1:3: {kind}: m\nabcd\n  ^"
    )
