"""A resident fork server for `tf-opt` and `tf-run`: each request runs in a fresh fork of a
parent that has imported xDSL, the dialects, the passes and numpy but has run nothing.

lit starts one per run (`tests/filecheck/lit.cfg`) and names its socket to the RUN lines in
`TF_OPT_SERVER`; the commands (`tilefoundry_client`) then send their argv, working directory,
environment and standard streams (SCM_RIGHTS) and exit with the status of the fork, which has
run the very entry point the command runs in-process (`tf_opt.entry`, `tf_run.main`):

```
$ python -m tilefoundry.tools.server.server --socket /tmp/x/tf-opt.sock --parent-pid $$ &
$ TF_OPT_SERVER=/tmp/x/tf-opt.sock tf-opt in.mlir -p canonicalize
```

The parent accepts (only a peer of its own uid, `SO_PEERCRED`), reads each request as it
arrives (bounded, with a deadline, never blocking on one client), forks and reaps: the fork
takes the client's umask, resource limits, cwd, streams as 0/1/2, environment, `sys.path` and
argv, and runs; it dies with the server (`PR_SET_PDEATHSIG`). The parent sends its wait status
to the client (`X` and a signed 4-byte number: the exit code, or minus the signal). A Ctrl-C
of the client (`I`) is a SIGINT to the fork; a client that goes away kills its fork. A request
of another installation (`tilefoundry_client.installation`) or whose interpreter-level
environment (`PYTHON*`, `LANG`, `LC_*`) differs from the server's is declined (`D`), and the
client runs in-process. The socket's directory is 0700 and the socket 0600. The server exits
when its parent dies, after `--idle` seconds without a request, or on SIGTERM; a failure to
start is one line.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import os
import resource
import select
import signal
import socket
import stat
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn, cast

from tilefoundry_client.protocol import PROTOCOL, installation, peer_uid

__all__ = ["MAX_REQUEST", "PRELOAD", "ServerError", "main", "refusal", "serve"]

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
    "tilefoundry.tools.drivers.tf_opt",
    "tilefoundry.tools.drivers.tf_run",
    "tilefoundry.dialects.tf.ops",
    "tilefoundry.dialects.hir",
    "tilefoundry.dialects.tir",
    "tilefoundry.dialects.tf.module",
    "tilefoundry.dialects.declared_formats",
    "tilefoundry.transforms",
    "tilefoundry.transforms.pass_manager",
    "tilefoundry.builtin.target",
    "tilefoundry.dialects.tf.numerics",
    "tilefoundry.tools.output.expectations",
    "tilefoundry.tools.output.report",
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
            from tilefoundry.tools.drivers.tf_opt import entry

            entry()
        else:
            from tilefoundry.tools.drivers.tf_run import main as tf_run

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


class ServerError(Exception):
    """A start-up failure, in one line (`tf-opt-server: error: ...`)."""


class _Refused(Exception):
    """A request the server will not run; the client runs it in-process."""


MAX_REQUEST = 16 << 20  # bytes after the length field: argv and environment fit many times
REQUEST_DEADLINE = 10.0  # seconds from accept to the whole request; a slower client is dropped
MAX_PENDING = 64  # connections whose request is still arriving


def refusal(peer_uid: int, own_uid: int) -> str | None:
    """Why a peer may not be served (it is another user), or None."""
    if peer_uid != own_uid:
        return f"refused uid {peer_uid}"
    return None


class _Request:
    """What a client sends (`tilefoundry_client.request`): its installation, the tool, its cwd,
    umask, resource limits, `sys.path`, argv, environment, and its three streams."""

    def __init__(self, payload: bytes) -> None:
        self.fds: list[int] = []
        fields = payload.split(b"\0")
        if fields[0] != PROTOCOL:
            raise _Refused("another protocol")
        self.installation = fields[1]
        self.tool = fields[2].decode()
        self.cwd = fields[3]
        self.umask = int(fields[4])
        at = 5
        count = int(fields[at])
        self.limits = [
            tuple(int(n) for n in item.split(b":")) for item in fields[at + 1 : at + 1 + count]
        ]
        at += 1 + count
        count = int(fields[at])
        self.path = [os.fsdecode(entry) for entry in fields[at + 1 : at + 1 + count]]
        at += 1 + count
        count = int(fields[at])
        self.argv = [os.fsdecode(arg) for arg in fields[at + 1 : at + 1 + count]]
        if len(self.argv) != count or not 0 <= self.umask <= 0o777:
            raise ValueError("a short request")
        self.env = dict(item.split(b"=", 1) for item in fields[at + 1 + count :] if b"=" in item)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


class _Pending:
    """A connection whose request is still arriving: read as it comes, never waited for."""

    def __init__(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        self.conn = conn
        self.deadline = time.monotonic() + REQUEST_DEADLINE
        self.fds: list[int] | None = None
        self.data = b""

    def read(self) -> _Request | None:
        """Take what has arrived: the request once whole, else None. Raises EOFError (gone),
        OSError, ValueError (malformed or over `MAX_REQUEST`)."""
        if self.fds is None:
            marker, fds, _, _ = socket.recv_fds(self.conn, 1, 3)
            if not marker:
                raise EOFError
            self.fds = fds
            if marker != b"T" or len(fds) != 3:
                raise ValueError("no streams")
        while True:
            want = 8 if len(self.data) < 8 else 8 + self._size() - len(self.data)
            if want <= 0:
                req = _Request(self.data[8:])  # raises before it owns the streams
                req.fds = self._take_fds()
                return req
            try:
                chunk = self.conn.recv(min(want, 1 << 20))
            except BlockingIOError:
                return None
            if not chunk:
                raise EOFError
            self.data += chunk

    def _size(self) -> int:
        size = int.from_bytes(self.data[:8], "big")
        if size > MAX_REQUEST:
            raise ValueError(f"a request of {size} bytes")
        return size

    def _take_fds(self) -> list[int]:
        fds, self.fds = self.fds or [], []
        return fds

    def close(self) -> None:
        for fd in self._take_fds():
            os.close(fd)
        self.conn.close()


def _pdeathsig() -> Callable[[], None]:
    """What makes a fork die with the server (Linux `PR_SET_PDEATHSIG`), loaded before any
    fork; elsewhere nothing, and a fork's client seeing the end of its run is what is left."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None
    pr_set_pdeathsig = 1

    def die_with_server() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL)

    return die_with_server


def _child(
    conn: socket.socket, req: _Request, server_pid: int, die_with_server: Callable[[], None]
) -> NoReturn:
    """The fork: become the client's process (umask, limits, cwd, streams, environment,
    `sys.path`, argv), run."""
    die_with_server()
    if os.getppid() != server_pid:  # the server died before the line above took effect
        os._exit(0)
    try:
        os.umask(req.umask)
        for number, soft, hard in req.limits:
            if resource.getrlimit(number) != (soft, hard):
                resource.setrlimit(number, (soft, hard))
        os.chdir(req.cwd)
    except (OSError, ValueError):  # a limit above this process's, a lost cwd: not served
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
    sys.path[:] = req.path  # the client's, relative PYTHONPATH entries resolved in its cwd
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
        raise ServerError(f"the preload imported {', '.join(leaked)}")


def _private_dir(path: str) -> None:
    """The socket's directory: made 0700 when missing; else it must be this user's and
    closed to everyone else, so that nobody else can reach, replace or remove the socket."""
    where = os.path.dirname(os.path.abspath(path))
    try:
        os.mkdir(where, 0o700)
    except FileExistsError:
        pass
    except OSError as err:
        raise ServerError(f"cannot make the socket's directory '{where}': {err.strerror}") from None
    try:
        info = os.stat(where)
    except OSError as err:
        raise ServerError(f"cannot stat '{where}': {err.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise ServerError(f"'{where}' is not a directory")
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise ServerError(
            f"the socket's directory '{where}' must be this user's and closed to others "
            f"(mode 0700; it is {stat.S_IMODE(info.st_mode):04o}, uid {info.st_uid})"
        )


def _listen(path: str) -> socket.socket:
    _private_dir(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    umask = os.umask(0o177)  # the socket is born 0600, whatever the caller's umask
    try:
        listener.bind(path)
        os.chmod(path, 0o600)
        listener.listen(128)
    except (OSError, ValueError) as err:
        listener.close()
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ServerError(f"cannot listen on '{path}': {reason}") from None
    finally:
        os.umask(umask)
    return listener


def serve(path: str, parent_pid: int | None, idle: float, log: str | None = None) -> None:
    """Listen on `path` (before the imports, so that early clients queue), preload, and
    serve until the parent dies, `idle` seconds pass without a request, or SIGTERM. `log`
    gets a line per request served (its pid, tool and argv), declined or refused. Raises
    ServerError when it cannot start."""
    listener = _listen(path)
    try:
        _Server(listener, log).loop(parent_pid, idle)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


class _Server:
    def __init__(self, listener: socket.socket, log: str | None) -> None:
        self.listener = listener
        self.log = log
        self.startup_env = _interpreter_env(dict(os.environb))
        _preload()
        self.installation = installation()
        self.die_with_server = _pdeathsig()
        self.pid = os.getpid()
        self.uid = os.geteuid()
        gc.collect()
        gc.freeze()  # the forks share the imported objects' pages instead of copying them
        self.wake_r, self.wake_w = os.pipe()
        self.pending: dict[socket.socket, _Pending] = {}
        self.children: dict[int, socket.socket] = {}  # pid -> its client
        self.clients: dict[socket.socket, int] = {}

    def loop(self, parent_pid: int | None, idle: float) -> None:
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        last = time.monotonic()
        while True:
            if parent_pid is not None and os.getppid() != parent_pid:
                return
            now = time.monotonic()
            if not self.children and not self.pending and now - last > idle:
                return
            timeout = min([1.0, *(p.deadline - now for p in self.pending.values())])
            try:
                waiting: list[socket.socket | int] = [self.listener, self.wake_r]
                waiting += [*self.clients, *self.pending]
                ready, _, _ = select.select(waiting, [], [], max(timeout, 0.0))
            except InterruptedError:
                ready = []
            if self.wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_r, 512)
            self._reap()
            for conn in ready:
                if isinstance(conn, int):
                    continue
                if conn in self.clients:
                    self._from_client(conn)
                elif conn in self.pending:
                    self._note(self._arrived(self.pending[conn]))
            self._expire()
            if self.listener in ready:
                last = time.monotonic()
                self._note(self._accept())

    def _note(self, line: str | None) -> None:
        if self.log is not None and line:
            with open(self.log, "a", encoding="utf-8") as stream:
                stream.write(line + "\n")

    def _accept(self) -> str | None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return None
        try:
            why = refusal(peer_uid(conn), self.uid)
        except OSError:
            why = "refused: no peer credentials"
        if why is None and len(self.pending) >= MAX_PENDING:
            why = "refused: too many requests arriving"
        if why is not None:
            conn.close()  # nothing read, nothing sent: the client runs in-process
            return why
        self.pending[conn] = _Pending(conn)
        return None

    def _expire(self) -> None:
        now = time.monotonic()
        for conn, pending in list(self.pending.items()):
            if pending.deadline <= now:
                del self.pending[conn]
                pending.close()
                self._note("dropped: the request did not arrive in time")

    def _arrived(self, pending: _Pending) -> str | None:
        """Read what a pending client sent; once its request is whole, decline or run it."""
        conn = pending.conn
        try:
            req = pending.read()
        except (OSError, EOFError, ValueError, UnicodeDecodeError, IndexError, _Refused) as err:
            del self.pending[conn]
            if isinstance(err, _Refused):
                with contextlib.suppress(OSError):
                    conn.sendall(b"D")
            pending.close()
            return f"unreadable request: {err}" if str(err) else "unreadable request"
        if req is None:
            return None
        del self.pending[conn]
        return self._start(conn, req)

    def _start(self, conn: socket.socket, req: _Request) -> str:
        why = None
        if req.tool not in ("tf-opt", "tf-run"):
            why = "another tool"
        elif req.installation != self.installation:
            why = "another installation"
        elif _interpreter_env(req.env) != self.startup_env:
            why = "another interpreter environment"
        if why is not None:
            req.close()
            with contextlib.suppress(OSError):
                conn.sendall(b"D")
            conn.close()
            return f"declined ({why}) {req.tool} {req.argv[1:]}"
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            for fd in (self.listener.fileno(), self.wake_r, self.wake_w):
                os.close(fd)
            for other in self.clients:
                other.close()
            for pending in self.pending.values():  # its streams too: a pipe's write end
                pending.close()  # held here would keep this run's stdin from its end (a hang)
            gc.unfreeze()
            _child(conn, req, self.pid, self.die_with_server)
        req.close()
        self.children[pid] = conn
        self.clients[conn] = pid
        return f"served {pid} {req.tool} {req.argv[1:]}"

    def _from_client(self, conn: socket.socket) -> None:
        """A byte from a waiting client: `I` is its Ctrl-C; an end means it has gone."""
        pid = self.clients[conn]
        try:
            data = conn.recv(64, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        with contextlib.suppress(ProcessLookupError):
            if not data:
                os.kill(pid, signal.SIGKILL)
                del self.clients[conn]  # reaped later; nobody to tell
            elif b"I" in data:
                os.kill(pid, signal.SIGINT)

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.clients.pop(conn, None)
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
    try:
        serve(args.socket, args.parent_pid, args.idle, args.log)
    except ServerError as err:
        sys.stderr.write(f"tf-opt-server: error: {err}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
