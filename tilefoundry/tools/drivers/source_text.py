"""How the tools read their input text: a file, or standard input for `-` (closed, unreadable
or not UTF-8: one line, as mlir-opt's `cannot open input file '-': Bad file descriptor`).
Newlines are read as `open` reads a file's (`\\r\\n` and `\\r` are `\\n`), from either."""

from __future__ import annotations

import errno
import os
import sys

__all__ = ["SourceError", "read_source"]


class SourceError(Exception):
    """The input cannot be read: one line."""


def read_source(path: str) -> str:
    """The text of `path`, or (`-`) of standard input; SourceError when it cannot be read."""
    if path == "-":
        if sys.stdin is None:  # fd 0 was closed when Python started
            raise SourceError(f"cannot open input file '-': {os.strerror(errno.EBADF)}")
        try:
            data = sys.stdin.buffer.read()
        except OSError as err:
            raise SourceError(f"cannot read standard input: {err.strerror}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise SourceError(f"standard input is not UTF-8 text: {err.reason}") from None
        return text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except OSError as err:
        raise SourceError(f"cannot open input file '{path}': {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise SourceError(f"input file '{path}' is not UTF-8 text: {err.reason}") from None
