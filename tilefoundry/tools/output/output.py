"""Where tf-opt and tf-run write: `-o FILE` / `--output FILE`, and standard output.

- `-` is standard output.
- A regular file, or a name that does not exist yet, is written aside (a hidden file in the
  same directory) and renamed over it only once the whole write succeeded, so a failure (a full
  disk, `ulimit -f`) leaves it as it was. A symlink is followed: its target is replaced and the
  link stays (a dangling link creates its target, as `open` would).
- Anything else that exists, a device (`/dev/null`), a FIFO or a socket, is opened and written
  in place, as mlir-opt writes it (it cannot be replaced, only written).
- `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` are written to that descriptor
  of the process, as the shell opened it (`>> log` appends), never reopened or replaced.
- A write to standard output that fails is one line (`cannot write to standard output: No space
  left on device`); a closed pipe (EPIPE: `tf-opt big.mlir | head -1`) ends the run quietly,
  as Unix tools end theirs.
- A write to standard error that fails (a full disk, `2>/dev/full`, a reader gone: `2>&1 | head
  -1`) ends the run with exit 1 and nothing more said: nothing can be (`guarded_stderr`,
  `ErrorStreamFailed`). mlir-opt exits 74 or 1 there; a closed standard error
  (`2>&-`) is not a failure: it swallows what is written (`tilefoundry_client.streams`).

```python
write_file("out.mlir", lambda stream: stream.write(text.encode()))   # OutputError on failure
write_stdout(text)                                                   # OutputError / OutputClosed
```
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, TextIO, cast

__all__ = [
    "ErrorStreamFailed",
    "OutputClosed",
    "OutputError",
    "guarded_stderr",
    "guarded_stdout",
    "names_stdout",
    "write_file",
    "write_stdout",
]


class OutputError(Exception):
    """An output that cannot be written: one line (`cannot write output file 'x': ...`)."""


class OutputClosed(Exception):
    """Standard output is a closed pipe (EPIPE): the run ends quietly."""


class ErrorStreamFailed(BaseException):
    """A write to standard error failed: the run ends with exit 1, saying nothing (it cannot).
    A BaseException, as KeyboardInterrupt: no `except Exception` of a pass or of the pass
    manager may turn it into a diagnostic, which would fail to be written in turn."""


def _silence(stream: Any) -> None:
    """Point `stream`'s descriptor at the null device, so that what is still buffered in it is
    not written again (and reported again) when the process exits."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError):  # no file descriptor (a test's captured stream): nothing to do
        pass


def _silence_stdout() -> None:
    _silence(sys.stdout)


def write_stdout(data: str | bytes) -> None:
    """Write to standard output and flush it, so that a failure is seen here, not at exit."""

    def write() -> None:
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()

    _guarded(write)


class _GuardedStdout:
    """Standard output whose `write` and `flush` fail as `write_stdout` does (`OutputError`,
    `OutputClosed`), so that a plain `print` fails in one line too."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return cast(int, _guarded(lambda: self._stream.write(text)))

    def flush(self) -> None:
        _guarded(self._stream.flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _GuardedStderr:
    """Standard error whose failed `write` or `flush` raises `ErrorStreamFailed` (standard
    error silenced first, so the exit is quiet)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def _step(self, step: Callable[[], object]) -> object:
        try:
            return step()
        except (OSError, ValueError):  # EPIPE, ENOSPC, EIO; a stream closed under us
            _silence(self._stream)
            raise ErrorStreamFailed from None

    def write(self, text: str) -> int:
        return cast(int, self._step(lambda: self._stream.write(text)))

    def flush(self) -> None:
        self._step(self._stream.flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _guarded(step: Callable[[], object]) -> object:
    """`step()`, a failure to write to standard output raised as `OutputClosed` (a closed pipe)
    or `OutputError` (with standard output silenced either way)."""
    try:
        return step()
    except BrokenPipeError:
        _silence_stdout()
        raise OutputClosed from None
    except OSError as err:
        _silence_stdout()
        raise OutputError(f"cannot write to standard output: {err.strerror or err}") from None


@contextmanager
def guarded_stdout() -> Iterator[None]:
    """Within it, `sys.stdout` fails as `write_stdout` does, and it is flushed at the end (so a
    failure is seen there, not at exit); `sys.stdout` is restored afterwards, whatever it was
    set to within."""
    original = sys.stdout
    sys.stdout = cast(TextIO, _GuardedStdout(original))
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = original


@contextmanager
def guarded_stderr() -> Iterator[None]:
    """Within it, a failed write to `sys.stderr` raises `ErrorStreamFailed`, and it is flushed
    at the end (so a failure is seen there, not at exit); restored afterwards."""
    original = sys.stderr
    guarded = _GuardedStderr(original)
    sys.stderr = cast(TextIO, guarded)
    try:
        yield
        guarded.flush()
    finally:
        sys.stderr = original


def _failed(path: str, err: OSError) -> OutputError:
    return OutputError(f"cannot write output file '{path}': {err.strerror or err}")


def write_file(path: str, write: Callable[[BinaryIO], object]) -> None:
    """Write `path` through `write(stream)` (see the module docstring for what goes where)."""
    if path == "-":
        buffer = io.BytesIO()
        write(buffer)
        write_stdout(buffer.getvalue())
        return
    try:
        status: os.stat_result | None = os.stat(path)  # what the path leads to, links followed
    except FileNotFoundError:
        status = None
    except OSError as err:  # e.g. a symlink loop
        raise _failed(path, err) from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(f"cannot write output file '{path}': Is a directory")
    descriptor = _descriptor(path)
    if descriptor is not None:
        _write_descriptor(path, descriptor, write)
        return
    if status is not None and not stat.S_ISREG(status.st_mode):
        try:  # a device, a FIFO, a socket: written in place
            with open(path, "wb") as stream:
                write(stream)
        except OSError as err:
            raise _failed(path, err) from None
        return
    _replace(path, os.path.realpath(path), status, write)


_DESCRIPTOR = re.compile(r"/dev/(?:fd/(\d+)|(stdout)|(stderr))|/proc/(?:self|(\d+))/fd/(\d+)")


def names_stdout(path: str) -> bool:
    """Whether an output path is standard output (`-`, `/dev/stdout`, `/dev/fd/1`, ...)."""
    return path == "-" or _descriptor(path) == 1


def _descriptor(path: str) -> int | None:
    """The file descriptor of this process that `path` names (`/dev/stdout`, `/dev/stderr`,
    `/dev/fd/N`, `/proc/self/fd/N`), else None."""
    found = _DESCRIPTOR.fullmatch(os.path.abspath(path))
    if found is None:
        return None
    fd, stdout, stderr, pid, proc_fd = found.groups()
    if stdout or stderr:
        return 1 if stdout else 2
    if pid is not None and int(pid) != os.getpid():
        return None  # another process's descriptor: a path like any other
    return int(fd if fd is not None else proc_fd)


def _write_descriptor(path: str, descriptor: int, write: Callable[[BinaryIO], object]) -> None:
    """Write to one of this process's descriptors, where it points and as it was opened (the
    shell's `>> log` appends), never reopened, truncated or replaced."""
    if descriptor == 1:
        buffer = io.BytesIO()
        write(buffer)
        write_stdout(buffer.getvalue())
        return
    try:
        if descriptor == 2:
            sys.stderr.flush()
        with open(os.dup(descriptor), "wb") as stream:
            write(stream)
    except OSError as err:
        raise _failed(path, err) from None


def _replace(
    path: str, target: str, status: os.stat_result | None, write: Callable[[BinaryIO], object]
) -> None:
    """Write `target` aside, then rename it over `target` (keeping an existing file's mode)."""
    import secrets  # only when writing a file: it costs start-up

    directory, base = os.path.split(target)
    aside = os.path.join(directory, f".{base}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # Created as `open` would create the file (mode 0666 less the umask), then renamed.
        descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as err:
        raise _failed(path, err) from None
    try:
        with open(descriptor, "wb") as stream:
            write(stream)
        if status is not None:
            os.chmod(aside, status.st_mode & 0o7777)
        os.replace(aside, target)
    except BaseException as err:
        try:
            os.unlink(aside)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise _failed(path, err) from None
        raise
