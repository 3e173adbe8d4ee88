"""The tools at the edges of their streams, as real processes: a closed standard input is one
line (as mlir-opt's `cannot open input file '-': Bad file descriptor`), a Ctrl-C one line and
exit 130 (no traceback), a CRLF input on stdin reads as from a file."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
ADD = ROOT / "tests" / "filecheck" / "tools" / "Inputs" / "add.mlir"
BIN = Path(sys.executable).parent
TOOLS = ["tf-opt", "tf-run", "tf-tree"]
MAINS = {
    "tf-opt": "tilefoundry.tools.drivers.tf_opt",
    "tf-run": "tilefoundry.tools.drivers.tf_run",
    "tf-tree": "tilefoundry.tools.drivers.tf_tree",
}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TF_OPT_SERVER"}
    env["PYTHONPATH"] = str(ROOT)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env


@pytest.mark.parametrize("tool", TOOLS)
def test_a_closed_standard_input_is_one_line(tool: str) -> None:
    if shutil.which(tool, path=str(BIN)) is None:
        pytest.skip(f"needs the installed {tool}")
    done = subprocess.run(
        ["bash", "-c", f"{tool} <&-"], env=_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr == f"{tool}: error: cannot open input file '-': Bad file descriptor\n"
    assert done.stdout == ""


@pytest.mark.parametrize("tool", TOOLS)
def test_ctrl_c_is_one_line(tool: str) -> None:
    """The tool waits for its standard input; SIGINT (what Ctrl-C sends) ends it. (`ready` is
    written as the tool starts to read, inside its `main`: a signal before that would be the
    test's.)"""
    script = f"""
import sys, types
from {MAINS[tool]} import main
real = sys.stdin.buffer
def read(*args):
    sys.stderr.write("ready\\n")
    sys.stderr.flush()
    return real.read(*args)
sys.stdin = types.SimpleNamespace(buffer=types.SimpleNamespace(read=read))
sys.exit(main(["-"]))
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    assert proc.stderr.readline() == b"ready\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == f"{tool}: interrupted\n".encode()
    assert out == b""


@pytest.mark.parametrize("tool", ["tf-opt", "tf-tree"])
def test_crlf_on_standard_input_reads_as_from_a_file(tool: str, tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.mlir"
    crlf.write_bytes(ADD.read_bytes().replace(b"\n", b"\r\n"))
    script = f"import sys; from {MAINS[tool]} import main; sys.exit(main(sys.argv[1:]))"

    def run(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-c", script, *args],
            env=_env(),
            input=stdin,
            capture_output=True,
            timeout=120,
        )

    from_file, from_stdin = run([str(crlf)]), run(["-"], crlf.read_bytes())
    assert from_file.returncode == 0 and from_file.stdout
    assert (from_stdin.returncode, from_stdin.stdout) == (from_file.returncode, from_file.stdout)
