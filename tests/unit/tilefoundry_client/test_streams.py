"""Each command (tf-opt, tf-run, tf-tree, and tf-opt's tf-analyze, whose table goes to stderr)
with a standard stream closed, full or broken, as a real process started through the entry
point pyproject.toml installs (`tilefoundry_client`), never the server (`TF_OPT_SERVER` unset):

- stdout closed (`>&-`): one line, `cannot write to standard output: Bad file descriptor`,
  exit 1 (mlir-opt: `IO failure on output stream: Bad file descriptor`, exit 1);
- stdout a pipe with no reader (`| head -1` once head is gone): a quiet exit 1;
- stderr closed (`2>&-`): what would go there goes nowhere (not into stdout, not into a file
  opened later), the exit status is the run's own (mlir-opt's too);
- stderr full (`2>/dev/full`) or a pipe with no reader: a run that writes nothing there is
  untouched; one that must (a diagnostic, tf-analyze's table) exits 1, nothing written;
- Ctrl-C while the command is still importing: `<tool>: interrupted`, exit 130.

No traceback and no hang in any of them: every process has a timeout, and stderr is compared
whole where it can be read."""

from __future__ import annotations

import errno
import io
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
ADD = ROOT / "tests" / "filecheck" / "tools" / "Inputs" / "add.mlir"
ANALYZED = """tf.module @m target #tf.target<"h100"> topologies [] {
  hir.func @act(%x: tensor<16xf32>) -> tensor<16xf32> {
    %y = tf.call tf.math.unary<kind = relu>(%x) : (tensor<16xf32>) -> tensor<16xf32>
    hir.return %y : tensor<16xf32>
  }
}
"""
BAD = "tf.module @add {\n  hir.func @f( {\n"


def _entries() -> dict[str, str]:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    return {name: str(target) for name, target in scripts.items()}


def test_every_command_starts_in_the_client() -> None:
    """The installed scripts import `tilefoundry_client` (standard library only), whose entry
    catches a Ctrl-C and holds closed streams before `tilefoundry` and xDSL are imported; an
    entry in `tilefoundry.tools` would be imported by the script before any of it could."""
    assert _entries() == {
        "tf-opt": "tilefoundry_client:tf_opt",
        "tf-run": "tilefoundry_client:tf_run",
        "tf-tree": "tilefoundry_client:tf_tree",
    }


def _script(tool: str, prelude: str = "") -> str:
    module, function = _entries()[tool].split(":")
    return (
        f"import sys\n{prelude}\nsys.argv = [{tool!r}, *sys.argv[1:]]\n"
        f"from {module} import {function}\n{function}()\n"
    )


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TF_OPT_SERVER", "TF_OPT_TRACEBACK")}
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("streams")
    (where / "add.mlir").write_bytes(ADD.read_bytes())
    (where / "an.mlir").write_text(ANALYZED)
    (where / "bad.mlir").write_text(BAD)
    return where


# each case: the tool, its arguments (a run that succeeds, one that fails on its input)
GOOD = {
    "tf-opt": ("tf-opt", ["add.mlir"]),
    "tf-run": ("tf-run", ["add.mlir"]),
    "tf-tree": ("tf-tree", ["add.mlir"]),
    "tf-analyze": ("tf-opt", ["an.mlir", "-p", "tf-analyze"]),
}
FAILING = {
    "tf-opt": ("tf-opt", ["bad.mlir"]),
    "tf-run": ("tf-run", ["bad.mlir"]),
    "tf-tree": ("tf-tree", ["bad.mlir"]),
    "tf-analyze": ("tf-opt", ["bad.mlir", "-p", "tf-analyze"]),
}


def _run(
    tool: str, args: list[str], cwd: Path, shell: str = "", **streams: object
) -> subprocess.CompletedProcess[bytes]:
    """The command, its streams as `streams` say (subprocess's), `shell` a redirection bash
    applies before it starts (`>&-`, `2>&-`)."""
    command = [sys.executable, "-c", _script(tool), *args]
    if shell:
        command = ["bash", "-c", f'exec "$@" {shell}', "bash", *command]
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    options.update(streams)
    done: subprocess.CompletedProcess[bytes] = subprocess.run(
        command, cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, timeout=120, check=False, **options
    )
    return done


def _normal(case: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    tool, args = GOOD[case]
    return _run(tool, args, cwd)


@pytest.mark.parametrize("case", sorted(GOOD))
def test_a_closed_stdout_is_one_line(case: str, inputs: Path) -> None:
    tool, args = GOOD[case]
    done = _run(tool, args, inputs, shell=">&-")
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert lines[-1] == f"{tool}: error: cannot write to standard output: Bad file descriptor"
    if case == "tf-analyze":  # the table was written before the module was printed
        assert lines[:-1] == _normal(case, inputs).stderr.decode().splitlines()
    else:
        assert len(lines) == 1


def test_a_closed_stdout_is_no_failure_when_nothing_goes_there(inputs: Path) -> None:
    done = _run("tf-opt", ["add.mlir", "-o", "out.mlir"], inputs, shell=">&-")
    assert (done.returncode, done.stderr) == (0, b"")
    assert (inputs / "out.mlir").read_bytes() == _normal("tf-opt", inputs).stdout


@pytest.mark.parametrize("case", sorted(GOOD))
def test_a_stdout_pipe_with_no_reader_is_a_quiet_exit(case: str, inputs: Path) -> None:
    tool, args = GOOD[case]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write: EPIPE, as after `head -1`
    try:
        done = _run(tool, args, inputs, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 1
    expected = _normal(case, inputs).stderr if case == "tf-analyze" else b""  # the table
    assert done.stderr == expected


@pytest.mark.parametrize("case", sorted(GOOD))
def test_a_closed_stderr_swallows_what_goes_there(case: str, inputs: Path) -> None:
    normal = _normal(case, inputs)
    tool, args = GOOD[case]
    done = _run(tool, args, inputs, shell="2>&-")
    assert (done.returncode, done.stdout) == (0, normal.stdout)
    tool, args = FAILING[case]
    failed = _run(tool, args, inputs, shell="2>&-")
    assert (failed.returncode, failed.stdout) == (1, b"")  # the diagnostic is not in stdout


def test_a_closed_stderr_is_held_so_no_file_takes_its_number(tmp_path: Path) -> None:
    """Without it, the next file opened would be descriptor 2, and a child's error output
    (opt, llc) would be written into it."""
    script = (
        "import os, subprocess, sys\n"
        "from tilefoundry_client.streams import hold_closed_streams\n"
        "assert sys.stderr is None\n"
        "hold_closed_streams()\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n"
        "subprocess.run(['sh', '-c', 'echo child >&2'], check=True)\n"
        "print('said', file=sys.stderr)\n"
        "os.write(fd, b'file')\n"
        "print(fd)\n"
    )
    target = tmp_path / "out"
    done = subprocess.run(
        ["bash", "-c", 'exec "$@" 2>&-', "bash", sys.executable, "-c", script, str(target)],
        env=_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert int(done.stdout) > 2
    assert target.read_bytes() == b"file"


@pytest.mark.parametrize("case", sorted(GOOD))
@pytest.mark.parametrize("stderr", ["full", "no reader"])
def test_a_failing_stderr_is_exit_1_when_something_must_go_there(
    case: str, stderr: str, inputs: Path
) -> None:
    """A run that writes nothing to stderr is untouched; a diagnostic or tf-analyze's table
    that cannot be written ends the run with exit 1 (and nothing in stdout)."""

    def run(tool: str, args: list[str]) -> subprocess.CompletedProcess[bytes]:
        if stderr == "full":
            with open("/dev/full", "wb") as full:
                return _run(tool, args, inputs, stderr=full)
        read, write = os.pipe()
        os.close(read)
        try:
            return _run(tool, args, inputs, stderr=write)
        finally:
            os.close(write)

    if not os.path.exists("/dev/full") and stderr == "full":
        pytest.skip("needs /dev/full")
    normal = _normal(case, inputs)
    done = run(*GOOD[case])
    if case == "tf-analyze":  # its table is its product: it could not be written
        assert (done.returncode, done.stdout) == (1, b"")
    else:
        assert (done.returncode, done.stdout) == (0, normal.stdout)
    failed = run(*FAILING[case])
    assert (failed.returncode, failed.stdout) == (1, b"")


class _Full(io.TextIOBase):
    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("case", sorted(GOOD))
def test_a_failing_stderr_is_exit_1_not_an_exception(
    case: str, inputs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same in-process, where an exception would show: each `main` returns 1 when what it
    must write to stderr cannot be written (the error that says so would fail in turn)."""
    from tilefoundry.tools.drivers import tf_opt, tf_run, tf_tree

    mains = {"tf-opt": tf_opt.main, "tf-run": tf_run.main, "tf-tree": tf_tree.main}
    monkeypatch.chdir(inputs)
    monkeypatch.setattr(sys, "stderr", _Full())
    tool, args = FAILING[case]
    assert mains[tool](args) == 1
    if case == "tf-analyze":
        tool, args = GOOD[case]
        assert mains[tool](args) == 1


INTERRUPT_ON_IMPORT = """
import os, signal
class Interrupt:  # Ctrl-C as the command starts importing xDSL
    def find_spec(self, name, path=None, target=None):
        if name == "xdsl":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Interrupt())
"""


@pytest.mark.parametrize("tool", ["tf-opt", "tf-run", "tf-tree"])
def test_ctrl_c_while_importing_is_one_line(tool: str, inputs: Path) -> None:
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN  # else the test proves nothing
    done = subprocess.run(
        [sys.executable, "-c", _script(tool, INTERRUPT_ON_IMPORT), "add.mlir"],
        cwd=inputs,
        env=_env(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr, done.stdout) == (
        130,
        f"{tool}: interrupted\n".encode(),
        b"",
    )
