"""The standard streams of a tool started with one of them closed (`tf-opt x.mlir 2>&-`,
`tf-run k.mlir >&-`, `tf-tree <&-`). Standard library only: the commands call it before they
import anything (`tilefoundry_client`), the tools' `main`s again (`tilefoundry.tools`).

Python starts such a process with `sys.stdin`, `sys.stdout` or `sys.stderr` set to None, and the
descriptor's number free: the next file opened takes it, so what a child process (or a C
library) writes to its standard error would land in that file, and `print(..., file=None)`
writes to standard output. `hold_closed_streams()` makes each of them what mlir-opt makes it:

- the number is held by the null device (inherited by child processes, as a standard
  descriptor is), so no file opened later takes it;
- a closed standard error swallows what is written to it (mlir-opt's diagnostics go nowhere,
  its exit status unchanged);
- a closed standard output fails each write with EBADF, so a tool that has something to print
  says `cannot write to standard output: Bad file descriptor` (one line) and exits 1, as
  mlir-opt's `IO failure on output stream: Bad file descriptor`; one that writes only to `-o`
  is not disturbed;
- a closed standard input stays None: reading `-` is refused in one line
  (`cannot open input file '-': Bad file descriptor`).

```python
hold_closed_streams()   # first thing in a command; nothing to do when all three are open
```
"""

from __future__ import annotations

import errno
import io
import os
import sys

__all__ = ["ClosedOutput", "hold_closed_streams"]


def _bad_descriptor() -> OSError:
    return OSError(errno.EBADF, os.strerror(errno.EBADF))


class _ClosedBinary(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise _bad_descriptor()


class ClosedOutput(io.TextIOBase):
    """Standard output that was closed when the process started: every write (text, or bytes
    through `.buffer`) raises EBADF, as writing to a closed descriptor does; there is never
    anything to flush."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = _ClosedBinary()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise _bad_descriptor()


def hold_closed_streams() -> None:
    """Hold each closed standard descriptor with the null device and give Python a stream for
    a closed standard output or error (see the module docstring); idempotent."""
    for fd, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, flags)
        if null != fd:
            os.dup2(null, fd)  # inheritable, as a standard descriptor is
            os.close(null)
        else:  # os.open's descriptors are close-on-exec: a child would find it closed
            os.set_inheritable(fd, True)
    if sys.stdout is None:
        sys.stdout = ClosedOutput()
    if sys.stderr is None:  # the null device, now at descriptor 2, for the process's life
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace", buffering=1)  # noqa: SIM115
