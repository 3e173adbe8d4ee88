"""What the tf-opt server (`tilefoundry/tools/server/server.py`) trusts: only its own user reaches it
(a 0700 directory, a 0600 socket, the peer's SO_PEERCRED uid), only a client of its own
installation is served, a malformed, huge or slow request harms no other client, a run whose
server dies is killed before it writes, and every start-up failure is one line."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tilefoundry.tools.server.server import refusal

ROOT = Path(__file__).resolve().parents[4]
LIT = ROOT / "tests" / "filecheck"
ADD = LIT / "tools" / "Inputs" / "add.mlir"
BIN = Path(sys.executable).parent
NOBODY = 65534
pytestmark = pytest.mark.skipif(
    shutil.which("tf-opt", path=str(BIN)) is None or not hasattr(socket, "SO_PEERCRED"),
    reason="needs the installed tf-opt and Linux's SO_PEERCRED",
)
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a second uid")


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "TF_OPT_SERVER"}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(LIT / "tools"), str(ROOT)])
    env["PYTHONWARNINGS"] = "error::DeprecationWarning,error::RuntimeWarning,error::UserWarning"
    env.update(extra)
    return env


class Server:
    """A server process of its own, started as lit starts it."""

    def __init__(self, sock: Path, cwd: Path | None = None, **env: str) -> None:
        self.sock, self.log = sock, sock.parent.parent / f"{sock.name}.log"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"import sys; sys.path[0] = {str(BIN)!r}; "
                "from tilefoundry.tools.server.server import main; main()",
                "--socket",
                str(sock),
                "--parent-pid",
                str(os.getpid()),
                "--log",
                str(self.log),
            ],
            env=_env(**env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(600):
            if sock.exists() or self.proc.poll() is not None:
                break
            time.sleep(0.05)

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def wait_for(self, count: int) -> list[str]:
        """The log once it has `count` lines (the server writes them as it goes)."""
        for _ in range(1200):
            if len(self.lines()) >= count or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        return self.lines()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(tmp_path / "private" / "tf-opt.sock")
    assert started.proc.poll() is None, "the server did not start"
    yield started
    started.stop()


def _tool(
    args: list[str], sock: Path | None, cwd: Path = LIT, exe: str = "tf-opt", **env: str
) -> subprocess.CompletedProcess[bytes]:
    extra = {"TF_OPT_SERVER": str(sock)} if sock is not None else {}
    return subprocess.run(
        [exe, *args], cwd=cwd, env=_env(**extra, **env), capture_output=True, timeout=300
    )


def _same(
    one: subprocess.CompletedProcess[bytes], other: subprocess.CompletedProcess[bytes]
) -> bool:
    return (one.returncode, one.stdout, one.stderr) == (
        other.returncode,
        other.stdout,
        other.stderr,
    )


# -- who may connect -----------------------------------------------------------------------


def test_the_socket_is_private_whatever_the_umask(tmp_path: Path) -> None:
    """Started with umask 000, the server still makes its directory 0700 and its socket 0600."""
    sock = tmp_path / "made-here" / "tf-opt.sock"
    proc = subprocess.Popen(
        ["bash", "-c", 'umask 000 && exec "$@"', "-", sys.executable, "-m"]
        + ["tilefoundry.tools.server.server", "--socket", str(sock), "--idle", "30"],
        env=_env(),
        stdin=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            if sock.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.lstat(sock).st_mode) == 0o600
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_peer_check() -> None:
    assert refusal(0, 0) is None
    assert refusal(1000, 1000) is None
    assert refusal(NOBODY, 0) == f"refused uid {NOBODY}"
    assert refusal(0, 1000) == "refused uid 0"


_OTHER_USER = r"""
import ctypes, os, socket, sys
sock_path, mode = sys.argv[1], sys.argv[2]
if mode == "fs-root":
    # effective uid nobody (what SO_PEERCRED reports), file-system uid root: the path is
    # reachable, so what answers is the server's own check of the peer
    os.setresgid(65534, 65534, 0)
    os.setresuid(65534, 65534, 0)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.setfsuid(0)
else:
    os.setgid(65534)
    os.setuid(65534)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sock_path)
except PermissionError:
    print("connect: permission denied")
    sys.exit(0)
sys.path.insert(0, sys.argv[3])
import tilefoundry_client
payload = tilefoundry_client.request(
    "tf-opt", ["tf-opt", sys.argv[4]], "/", sys.path, dict(os.environb)
)
r, w = os.pipe()
try:
    socket.send_fds(s, [b"T"], [0, w, 2])
    s.sendall(payload)
except OSError as err:
    print("send:", type(err).__name__)
os.close(w)
reply = b""
try:
    while chunk := s.recv(64):
        reply += chunk
except ConnectionResetError:  # closed with the request unread
    pass
print("reply:", reply)
print("stdout:", os.read(r, 1 << 16))
"""


def _as_other_user(sock: Path, mode: str, target: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _OTHER_USER, str(sock), mode, str(ROOT), str(target)],
        env=_env(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


@as_root
def test_another_user_cannot_reach_the_socket(server: Server, tmp_path: Path) -> None:
    secret = tmp_path / "secret.mlir"
    secret.write_bytes(ADD.read_bytes())
    secret.chmod(0o600)
    assert _as_other_user(server.sock, "plain", secret) == "connect: permission denied\n"


@as_root
def test_another_user_is_refused_by_its_uid(server: Server, tmp_path: Path) -> None:
    """Past the directory (a file-system uid of root), the peer's uid is still nobody's: the
    connection is closed unread and unanswered; the root-only file is not printed."""
    secret = tmp_path / "secret.mlir"
    secret.write_bytes(ADD.read_bytes())
    secret.chmod(0o600)
    out = _as_other_user(server.sock, "fs-root", secret)
    assert "reply: b''" in out and "stdout: b''" in out, out
    assert server.wait_for(1) == [f"refused uid {NOBODY}"]
    # the server lives and serves its own user
    assert _tool([str(ADD)], server.sock).returncode == 0
    assert server.wait_for(2)[1].startswith("served ")


_OTHER_USERS_SERVER = r"""
import os, socket, sys
os.setgid(65534)
os.setuid(65534)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(1)
print("listening", flush=True)
conn, _ = s.accept()
conn.settimeout(60)
got = b""
try:
    while chunk := conn.recv(1 << 16):
        got += chunk
except OSError:
    pass
print(len(got), flush=True)
"""


@as_root
def test_a_client_sends_nothing_to_another_users_server() -> None:
    """A socket named in TF_OPT_SERVER but made by another user gets neither the streams nor
    the environment: the client runs in-process."""
    where = Path(tempfile.mkdtemp(prefix="tf-other-user-"))  # under /tmp: nobody reaches it
    where.chmod(0o777)
    sock = where / "tf-opt.sock"
    fake = subprocess.Popen(
        [sys.executable, "-c", _OTHER_USERS_SERVER, str(sock)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert fake.stdout is not None and fake.stdout.readline() == "listening\n"
    done = _tool([str(ADD)], sock)
    assert _same(done, _tool([str(ADD)], None)) and done.returncode == 0
    assert fake.stdout.readline() == "0\n"
    assert fake.wait(timeout=30) == 0
    fake.stdout.close()
    shutil.rmtree(where)


# -- who is served ---------------------------------------------------------------------------


def test_a_client_of_another_installation_is_declined(server: Server, tmp_path: Path) -> None:
    """A client package imported from elsewhere (a copy beside the script) is not served."""
    copy = tmp_path / "other"
    shutil.copytree(ROOT / "tilefoundry_client", copy / "tilefoundry_client")
    script = copy / "tf-opt"
    script.write_text("import sys\nfrom tilefoundry_client import tf_opt\nsys.exit(tf_opt())\n")
    done = subprocess.run(
        [sys.executable, str(script), str(ADD)],
        env=_env(TF_OPT_SERVER=str(server.sock)),
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0 and b"tf.module @add" in done.stdout, done.stderr
    lines = server.wait_for(1)
    assert len(lines) == 1 and lines[0].startswith("declined (another installation)"), lines


@pytest.mark.skipif(
    shutil.which("python3", path="/usr/bin") is None
    or os.path.realpath("/usr/bin/python3") == os.path.realpath(sys.executable),
    reason="needs a second Python",
)
def test_a_client_of_another_python_is_declined(server: Server) -> None:
    client = (
        "import sys; sys.argv = ['tf-opt', sys.argv[1]]; import tilefoundry_client; "
        "print(tilefoundry_client.served('tf-opt'))"
    )
    done = subprocess.run(
        ["/usr/bin/python3", "-c", client, str(ADD)],
        env=_env(TF_OPT_SERVER=str(server.sock)),
        capture_output=True,
        timeout=120,
    )
    assert done.stdout == b"None\n", done.stderr
    lines = server.wait_for(1)
    assert len(lines) == 1 and lines[0].startswith("declined (another installation)"), lines


def test_a_relative_pythonpath_is_the_clients(tmp_path: Path) -> None:
    """Server and client share PYTHONPATH=plugins:ROOT, from different directories: the
    plugin the client loads is the one under its own cwd, as in-process."""
    for name in ("server-side", "client-side"):
        (tmp_path / name / "plugins").mkdir(parents=True)
        (tmp_path / name / "plugins" / "which.py").write_text(f"raise KeyError({name!r})\n")
    pythonpath = os.pathsep.join(["plugins", str(ROOT)])
    here = Server(
        tmp_path / "private" / "t.sock", cwd=tmp_path / "server-side", PYTHONPATH=pythonpath
    )
    try:
        args = [str(ADD), "--plugin", "which"]
        cwd = tmp_path / "client-side"
        served = _tool(args, here.sock, cwd=cwd, PYTHONPATH=pythonpath)
        assert here.wait_for(1)[0].startswith("served "), here.lines()
        assert _same(served, _tool(args, None, cwd=cwd, PYTHONPATH=pythonpath))
        assert b"'client-side'" in served.stderr, served.stderr
    finally:
        here.stop()


# -- requests that harm nobody else --------------------------------------------------------


def _raw(sock: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(str(sock))
    socket.send_fds(conn, [b"T"], [0, 1, 2])
    return conn


def test_a_huge_length_is_refused_and_the_server_lives(server: Server) -> None:
    with _raw(server.sock) as conn:
        conn.sendall((1 << 63).to_bytes(8, "big"))
        assert conn.recv(64) == b""  # closed, unanswered: such a client would run in-process
    assert server.wait_for(1)[0].startswith("unreadable request: a request of 9223372036854775808")
    assert _tool([str(ADD)], server.sock).returncode == 0
    assert server.wait_for(2)[1].startswith("served ")
    assert server.proc.poll() is None


def test_a_slow_client_stalls_nobody(server: Server) -> None:
    """A client that sends its request a byte at a time (for a minute, were it let) does not
    keep another from being served: the other finishes while the slow one still trickles."""
    trickled = threading.Event()
    stop = threading.Event()

    def trickle() -> None:
        """A minute of one byte every 0.2 s (the server drops it at its deadline; the pace is
        kept regardless), then `trickled`."""
        with _raw(server.sock) as conn:
            for byte in (1000).to_bytes(8, "big") + b"x" * 300:
                if stop.wait(0.2):
                    return
                with contextlib.suppress(OSError):
                    conn.send(bytes([byte]))
            trickled.set()

    slow = threading.Thread(target=trickle)
    slow.start()
    try:
        done = _tool([str(ADD)], server.sock)
        finished_first = not trickled.is_set()
    finally:
        stop.set()
        slow.join()
    assert done.returncode == 0 and b"tf.module @add" in done.stdout
    assert finished_first
    assert any(line.startswith("served ") for line in server.lines())


def test_a_run_whose_server_dies_is_killed_before_it_writes(server: Server, tmp_path: Path) -> None:
    """The run waits for its stdin; the server is killed; the client says the server was
    lost; the run is gone before its input arrives, so it never writes -o."""
    out = tmp_path / "out.mlir"
    client = subprocess.Popen(
        ["tf-opt", "-", "-o", str(out)],
        env=_env(TF_OPT_SERVER=str(server.sock)),
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    line = server.wait_for(1)[0]
    assert line.startswith("served "), line
    worker = int(line.split()[1])
    os.kill(server.proc.pid, 9)
    server.proc.wait(timeout=30)
    assert client.stdin is not None and client.stderr is not None
    for _ in range(1200):  # the worker goes with its server
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    try:
        client.stdin.write(ADD.read_bytes())
        client.stdin.close()
    except BrokenPipeError:
        pass
    assert client.wait(timeout=60) == 2
    assert client.stderr.read() == b"tf-opt: error: the tf-opt server was lost during the run\n"
    client.stderr.close()
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)
    assert not out.exists()


# -- start-up failures are one line --------------------------------------------------------


def _start(sock: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tilefoundry.tools.server.server", "--socket", sock, "--idle", "1"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_stale_socket_is_one_line(tmp_path: Path) -> None:
    where = tmp_path / "d"
    where.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(where / "s.sock"))
    stale.close()  # the file stays; nobody listens
    done = _start(str(where / "s.sock"))
    assert done.returncode == 1
    assert (
        done.stderr
        == f"tf-opt-server: error: cannot listen on '{where}/s.sock': Address already in use\n"
    )


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    done = _start(str(tmp_path / "no" / "such" / "s.sock"))
    assert done.returncode == 1
    assert done.stderr == (
        f"tf-opt-server: error: cannot make the socket's directory '{tmp_path}/no/such': "
        "No such file or directory\n"
    )


def test_an_overlong_path_is_one_line(tmp_path: Path) -> None:
    where = tmp_path / "d"
    where.mkdir(mode=0o700)
    long = str(where / ("x" * 120))
    done = _start(long)
    assert done.returncode == 1
    assert (
        done.stderr == f"tf-opt-server: error: cannot listen on '{long}': AF_UNIX path too long\n"
    )


def test_an_open_directory_is_one_line(tmp_path: Path) -> None:
    where = tmp_path / "open"
    where.mkdir()
    where.chmod(0o755)
    done = _start(str(where / "s.sock"))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "must be this user's and closed to others (mode 0700; it is 0755" in done.stderr


def test_a_stale_client_variable_runs_in_process(tmp_path: Path) -> None:
    for path in (tmp_path / "gone.sock", tmp_path / ("x" * 120), tmp_path):
        done = _tool([str(ADD)], path)
        assert done.returncode == 0 and done.stderr == b"" and b"tf.module @add" in done.stdout


def test_a_fork_holds_no_stream_of_a_request_still_arriving(server: Server) -> None:
    """A pending request's streams (here the write end of a pipe) are not inherited by the
    fork of another: the run reading that pipe gets its end once the writer closes it (the
    `tf-opt a | tf-opt` of every %roundtrip hung when the second request came first)."""
    read_end, write_end = os.pipe()
    pending = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pending.connect(str(server.sock))
    socket.send_fds(pending, [b"T"], [write_end, write_end, write_end])  # and nothing more
    try:
        reader = subprocess.Popen(
            ["tf-opt", "--split-input-file"],
            env=_env(TF_OPT_SERVER=str(server.sock)),
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.close(read_end)
        assert server.wait_for(1)[0].startswith("served "), server.lines()
        os.close(write_end)  # the last writer but for a fork that would have inherited it
        out, err = reader.communicate(timeout=120)  # a hang guard: it ends at once
        assert (reader.returncode, err) == (0, b""), err
        assert out == b""  # an empty input, split: no chunk
    finally:
        pending.close()
