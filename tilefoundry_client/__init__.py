"""The `tf-opt`, `tf-run` and `tf-tree` commands: for the first two, a client of the resident
server when there is one; for all three, a Ctrl-C while they import is one line and exit 130,
and a standard stream closed at start is held (`streams.py`) before anything is imported.

When `TF_OPT_SERVER` names the Unix socket of a running `tilefoundry.tools.server.server` (lit starts
one per run, `tests/filecheck/lit.cfg`), the command sends its argv, working directory,
environment, `sys.path`, umask and resource limits, passes its standard input, output and
error (SCM_RIGHTS), and exits as the server's fresh fork of a pristine, pre-imported parent
exited: same bytes, same status. It imports only the standard library (`os`, `socket`, `sys`,
`resource`, `io`), so that a RUN line costs a Python start-up, not the import of xDSL. Without the variable, or
when the server cannot be reached, is another user's, or declines the request (another
installation, another interpreter environment), the tool runs in this process, as it always
has:

```
$ TF_OPT_SERVER=/tmp/x/tf-opt.sock tf-opt in.mlir -p canonicalize   # served, or in-process
```

This is a package of its own (not `tilefoundry.tools`) because importing anything under
`tilefoundry` imports xDSL (`tilefoundry/__init__.py` wires the layers).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import NoReturn

from tilefoundry_client.protocol import PROTOCOL, installation, peer_uid
from tilefoundry_client.protocol import __version__ as __version__
from tilefoundry_client.streams import hold_closed_streams

__all__ = [
    "ENV",
    "PROTOCOL",
    "installation",
    "peer_uid",
    "request",
    "served",
    "tf_opt",
    "tf_run",
    "tf_tree",
]

ENV = "TF_OPT_SERVER"
TOOLS = ("tf-opt", "tf-run")


def _limits() -> list[bytes]:
    """`number:soft:hard` for each resource limit of this process (-1 is unlimited)."""
    import resource

    out = []
    for number in range(
        getattr(resource, "RLIMIT_RTTIME", 15) + 1
    ):  # Linux's 16 limits; fewer elsewhere
        try:
            soft, hard = resource.getrlimit(number)
        except (ValueError, OSError):
            continue
        out.append(f"{number}:{soft}:{hard}".encode())
    return out


def request(
    tool: str, argv: list[str], cwd: str, path: list[str], env: dict[bytes, bytes]
) -> bytes:
    """The request, after its 8-byte length: NUL-separated fields (none holds a NUL)."""
    umask = os.umask(0o077)
    os.umask(umask)
    limits = _limits()
    fields = [PROTOCOL, installation(), tool.encode(), os.fsencode(cwd), str(umask).encode()]
    fields += [str(len(limits)).encode(), *limits]
    fields += [str(len(path)).encode(), *(os.fsencode(entry) for entry in path)]
    fields += [str(len(argv)).encode(), *(os.fsencode(arg) for arg in argv)]
    fields += [key + b"=" + value for key, value in env.items()]
    payload = b"\0".join(fields)
    return len(payload).to_bytes(8, "big") + payload


def served(tool: str) -> int | None:
    """Run `tool` in the server named by `TF_OPT_SERVER`: its exit status (a negative number
    is a signal), or None when it did not run there (no server, another user's, declined)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    try:
        for fd in (0, 1, 2):  # a closed one: the socket below would take its number
            os.fstat(fd)
    except OSError:
        return None
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    with sock:
        try:
            sock.connect(path)
            if peer_uid(sock) != os.geteuid():  # another user's server gets nothing of ours
                return None
            payload = request(tool, sys.argv, os.getcwd(), sys.path, dict(os.environb))
            socket.send_fds(sock, [b"T"], [0, 1, 2])
            sock.sendall(payload)
        except (OSError, ValueError):  # no server (stale), a closed stream, a lost cwd
            return None
        return _wait(sock, tool)


def _wait(sock: socket.socket, tool: str) -> int | None:
    reply = b""
    while True:
        try:
            chunk = sock.recv(64)
        except KeyboardInterrupt:  # Ctrl-C reaches this process only: pass it on
            try:
                sock.sendall(b"I")
            except OSError:
                pass
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        reply += chunk
    if not reply.startswith(b"S"):
        return None  # declined, or the server went away before the run started
    marker = reply.find(b"X")
    if marker < 0 or len(reply) < marker + 5:  # the run started, so it cannot run here too
        sys.stderr.write(f"{tool}: error: the tf-opt server was lost during the run\n")
        return 2
    return int.from_bytes(reply[marker + 1 : marker + 5], "big", signed=True)


def _exit(status: int) -> NoReturn:
    if status < 0:  # the run was killed by a signal: so is this process
        import signal

        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)


def _interrupted(tool: str) -> NoReturn:
    """Ctrl-C before the tool's own `main` could catch it (while importing): one line."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(f"{tool}: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or broken standard error: the status says it
            pass
    os._exit(130)


def tf_opt() -> NoReturn:
    """The `tf-opt` command."""
    try:
        status = served("tf-opt")
        if status is not None:
            _exit(status)
        hold_closed_streams()  # after `served`, which runs in-process when one is closed
        from tilefoundry.tools.drivers.tf_opt import entry
    except KeyboardInterrupt:
        _interrupted("tf-opt")
    entry()


def tf_run() -> NoReturn:
    """The `tf-run` command."""
    try:
        status = served("tf-run")
        if status is not None:
            _exit(status)
        hold_closed_streams()
        from tilefoundry.tools.drivers.tf_run import main
    except KeyboardInterrupt:
        _interrupted("tf-run")
    sys.exit(main())


def tf_tree() -> NoReturn:
    """The `tf-tree` command (never served: it is not run by lit's RUN lines in bulk)."""
    try:
        hold_closed_streams()
        from tilefoundry.tools.drivers.tf_tree import main
    except KeyboardInterrupt:
        _interrupted("tf-tree")
    sys.exit(main())
