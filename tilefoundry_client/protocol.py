"""What the client and the server (`tilefoundry.tools.server.server`) must agree on: the protocol's
name, what an installation is, whose a connection is. Standard library only, so the server (a
lower layer than the client's commands) imports it without importing the commands."""

from __future__ import annotations

import os
import socket
import sys

__all__ = ["PROTOCOL", "__version__", "installation", "peer_uid"]

PROTOCOL = b"tf-opt-server/2"
__version__ = "0.1.0"  # the distribution's (pyproject.toml); a server of another declines


def installation() -> bytes:
    """What makes two processes run the same code: where `tilefoundry` and this package are
    imported from, their version, the interpreter and its version. A server declines a
    client whose installation differs from its own."""
    import importlib.util

    spec = importlib.util.find_spec("tilefoundry")
    origin = spec.origin if spec is not None and spec.origin else ""
    parts = [
        os.path.realpath(origin) if origin else "",
        os.path.realpath(os.path.dirname(__file__)),  # this package
        __version__,
        os.path.realpath(sys.executable),
        sys.version,
    ]
    return "\n".join(parts).encode()


def peer_uid(sock: socket.socket) -> int:
    """The effective uid of the process at the other end of a connected Unix socket."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)  # pid, uid, gid
    return int.from_bytes(creds[4:8], sys.byteorder)
