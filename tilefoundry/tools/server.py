"""A resident fork server for `tf-opt` and `tf-run`: each request runs in a fresh fork of a
parent that has imported xDSL, the dialects, the passes and numpy but has run nothing.

lit starts one per run (`tests/filecheck/lit.cfg`) and names its socket to the RUN lines in
`TF_OPT_SERVER`; the commands (`tilefoundry_client`) then send their argv, working directory,
environment and standard streams (SCM_RIGHTS) and exit with the status of the fork, which has
run the very entry point the command runs in-process (`tf_opt.entry`, `tf_run.main`):

```
$ python -m tilefoundry.tools.server --socket /tmp/x/tf-opt.sock --parent-pid $$ &
$ TF_OPT_SERVER=/tmp/x/tf-opt.sock tf-opt in.mlir -p canonicalize
```

The parent only accepts, forks and reaps: the fork reads the request, takes the streams as
0/1/2, chdirs, takes the environment and argv, and runs; the parent sends its wait status to
the client (`X` and a signed 4-byte number: the exit code, or minus the signal). A Ctrl-C of
the client (`I`) is a SIGINT to the fork; a client that goes away kills its fork. A request
whose interpreter-level environment (`PYTHON*`, `LANG`, `LC_*`) differs from the server's is
declined (`D`), and the client runs in-process. The server exits when its parent dies, after
`--idle` seconds without a request, or on SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import NoReturn, cast

__all__ = ["PRELOAD", "main", "serve"]

# What a run imports anyway, whose import has no effect on what it prints: xDSL's core and
# standard dialects, numpy, TileFoundry's dialects, passes and interpreter. Not the op library
# (`tilefoundry.ops`), which registers ops: it stays loaded on first use, after any --plugin,
# in the order an in-process run loads it.
PRELOAD = (
    "numpy",
    "xdsl.dialects",
    "xdsl.dialects.builtin",
    "xdsl.passes",
    "xdsl.pattern_rewriter",
    "xdsl.transforms.canonicalize",
    "xdsl.irdl.declarative_assembly_format",  # what a declared format's first use imports
    "tilefoundry.tools.tf_opt",
    "tilefoundry.tools.tf_run",
    "tilefoundry.dialects.tf.ops",
    "tilefoundry.dialects.hir",
    "tilefoundry.dialects.tir",
    "tilefoundry.dialects.tf.module",
    "tilefoundry.dialects.declared_formats",
    "tilefoundry.transforms",
    "tilefoundry.transforms.pass_manager",
    "tilefoundry.dialects.tf.target",
    "tilefoundry.dialects.tf.numerics",
    "tilefoundry.tools.expectations",
    "tilefoundry.tools.report",
)
NOT_PRELOADED = ("tilefoundry.ops",)


def _interpreter_env(env: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """The variables read once, at interpreter start-up: a fork cannot take other values."""
    return {
        key: value
        for key, value in env.items()
        if key.startswith((b"PYTHON", b"LC_")) or key == b"LANG"
    }


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _stdio(fd: int, write: bool, name: str, like: io.TextIOWrapper) -> io.TextIOWrapper:
    """A standard stream as CPython makes it at start-up (`create_stdio`), on this fd."""
    raw = io.FileIO(fd, "w" if write else "r", closefd=False)
    raw.name = name
    size = os.fstat(fd).st_blksize  # as `open` sizes the buffer
    size = size if size > 1 else io.DEFAULT_BUFFER_SIZE
    buffered: io.BufferedWriter | io.BufferedReader = (
        io.BufferedWriter(raw, size) if write else io.BufferedReader(raw, size)
    )
    stream = io.TextIOWrapper(
        buffered,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",
        line_buffering=raw.isatty() or fd == 2,
    )
    stream.mode = "w" if write else "r"  # type: ignore[misc]
    return stream


def _run(tool: str) -> NoReturn:
    """The console script's body, then the exit Python's own would make."""
    code: object = 0
    try:
        if tool == "tf-opt":
            from tilefoundry.tools.tf_opt import entry

            entry()
        else:
            from tilefoundry.tools.tf_run import main as tf_run

            code = tf_run()
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:  # noqa: BLE001 - what an uncaught exception does to python
        sys.excepthook(*sys.exc_info())
        code = 1
    status = 0
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = 120 if stream is sys.stdout else status
    os._exit(status)


class _Request:
    """What a client sends: the tool, its cwd, `sys.path[0]`, argv, environment, streams."""

    def __init__(self, conn: socket.socket) -> None:
        conn.settimeout(10.0)  # the client sends it all at once, right after connecting
        _, fds, _, _ = socket.recv_fds(conn, 1, 3)
        self.fds = fds
        size = int.from_bytes(_recv_exact(conn, 8), "big")
        fields = _recv_exact(conn, size).split(b"\0")
        conn.setblocking(True)
        self.tool = fields[0].decode()
        self.cwd = fields[1]
        self.path0 = os.fsdecode(fields[2])
        count = int(fields[3])
        self.argv = [os.fsdecode(arg) for arg in fields[4 : 4 + count]]
        self.env = dict(item.split(b"=", 1) for item in fields[4 + count :] if b"=" in item)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


def _child(conn: socket.socket, req: _Request) -> NoReturn:
    """The fork: become the client's process (cwd, streams, environment, argv), run."""
    try:
        os.chdir(req.cwd)
    except OSError:
        with contextlib.suppress(OSError):
            conn.sendall(b"D")
        os._exit(0)
    conn.sendall(b"S")  # from here on, the run is this process's, whatever happens
    conn.close()
    for target, fd in enumerate(req.fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environb.clear()
    os.environb.update(req.env)
    sys.argv = req.argv
    sys.path[0] = req.path0
    streams = [
        _stdio(fd, fd > 0, f"<{name}>", cast(io.TextIOWrapper, like))
        for fd, (name, like) in enumerate(
            [("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr)]
        )
    ]
    sys.stdin, sys.stdout, sys.stderr = streams
    # what `sys.__stdout__` and the like name, for code that asks them
    vars(sys).update(__stdin__=streams[0], __stdout__=streams[1], __stderr__=streams[2])
    _run(req.tool)


def _preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)
    leaked = [name for name in NOT_PRELOADED if name in sys.modules]
    if leaked:  # a change made the preload register ops: say so, serve nothing
        raise SystemExit(f"tf-opt server: the preload imported {', '.join(leaked)}")


def serve(path: str, parent_pid: int | None, idle: float, log: str | None = None) -> None:
    """Listen on `path` (before the imports, so that early clients queue), preload, and
    serve until the parent dies, `idle` seconds pass without a request, or SIGTERM. `log`
    gets a line per request served (its pid, tool and argv) or declined."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    try:
        _serve(listener, parent_pid, idle, log)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _serve(listener: socket.socket, parent_pid: int | None, idle: float, log: str | None) -> None:
    startup_env = _interpreter_env(dict(os.environb))
    _preload()
    gc.collect()
    gc.freeze()  # the forks share the imported objects' pages instead of copying them
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    children: dict[int, socket.socket] = {}  # pid -> its client
    clients: dict[socket.socket, int] = {}
    last = time.monotonic()
    while True:
        if parent_pid is not None and os.getppid() != parent_pid:
            return
        if not children and time.monotonic() - last > idle:
            return
        try:
            waiting: list[socket.socket | int] = [listener, wake_r, *clients]
            ready, _, _ = select.select(waiting, [], [], 1.0)
        except InterruptedError:
            ready = []
        if wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 512)
        _reap(children, clients)
        for conn in ready:
            if conn is listener or conn is wake_r or conn not in clients:
                continue
            _from_client(conn, clients)
        if listener in ready:
            conn, _ = listener.accept()
            last = time.monotonic()
            note = _accept(
                conn, startup_env, children, clients, (listener.fileno(), wake_r, wake_w)
            )
            if log is not None and note:
                with open(log, "a", encoding="utf-8") as stream:
                    stream.write(note + "\n")


def _accept(
    conn: socket.socket,
    startup_env: dict[bytes, bytes],
    children: dict[int, socket.socket],
    clients: dict[socket.socket, int],
    own_fds: tuple[int, ...],
) -> str:
    """Read a request; decline it, or fork the child that runs it. What happened, in a line."""
    try:
        req = _Request(conn)
    except (OSError, EOFError, ValueError, UnicodeDecodeError):
        conn.close()
        return "unreadable request"
    if (
        len(req.fds) != 3
        or req.tool not in ("tf-opt", "tf-run")
        or _interpreter_env(req.env) != startup_env
    ):
        req.close()
        with contextlib.suppress(OSError):
            conn.sendall(b"D")
        conn.close()
        return f"declined {req.tool} {req.argv[1:]}"
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in own_fds:
            os.close(fd)
        for other in clients:
            other.close()
        gc.unfreeze()
        _child(conn, req)
    req.close()
    children[pid] = conn
    clients[conn] = pid
    return f"served {pid} {req.tool} {req.argv[1:]}"


def _from_client(conn: socket.socket, clients: dict[socket.socket, int]) -> None:
    """A byte from a waiting client: `I` is its Ctrl-C; an end means it has gone."""
    pid = clients[conn]
    try:
        data = conn.recv(64, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return
    except OSError:
        data = b""
    with contextlib.suppress(ProcessLookupError):
        if not data:
            os.kill(pid, signal.SIGKILL)
            del clients[conn]  # reaped later; nobody to tell
        elif b"I" in data:
            os.kill(pid, signal.SIGINT)


def _reap(children: dict[int, socket.socket], clients: dict[socket.socket, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        clients.pop(conn, None)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        with contextlib.suppress(OSError):
            conn.sendall(b"X" + code.to_bytes(4, "big", signed=True))
        conn.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tf-opt-server", description=__doc__.split("\n")[0])
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    parser.add_argument("--parent-pid", type=int, help="exit when this process is gone")
    parser.add_argument("--idle", type=float, default=900.0, help="exit after this many idle s")
    parser.add_argument("--log", help="append a line per request to this file")
    args = parser.parse_args(argv)
    serve(args.socket, args.parent_pid, args.idle, args.log)


if __name__ == "__main__":
    main()
