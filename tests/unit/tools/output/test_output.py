"""Where tf-opt and tf-run write (`tools/output/output.py`), as the console scripts do it: `-o` and
`--output` through devices, FIFOs and symlinks, `-` as standard output, a full or closed
standard output, and a failed write that leaves the previous file as it was."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent
HANG_GUARD = 600
"""Seconds: only a hang takes this long (a run takes about a second here, tens of seconds on a
machine short of memory and CPU)."""

MODULE = """tf.module @m entry @f {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  hir.func @wide(%x: tensor<16384xf32>) -> tensor<16384xf32> {
    hir.return %x : tensor<16384xf32>
  }
}
"""


def tool(name: str, *args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    kwargs.setdefault("capture_output", True)
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [str(BIN / name), *(str(a) for a in args)], timeout=HANG_GUARD, **kwargs
    )


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    return path


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A module whose printed form is far larger than a pipe's buffer (64 KiB)."""
    functions = "".join(
        f"  hir.func @f{i}(%x: tensor<4xf32>) -> tensor<4xf32> {{\n"
        "    hir.return %x : tensor<4xf32>\n  }\n"
        for i in range(2000)
    )
    path = tmp_path / "big.mlir"
    path.write_text(f"tf.module @big {{\n{functions}}}\n")
    return path


def only(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# -- -o / --output: devices, FIFOs, symlinks, '-' --------------------------------------------------


@pytest.mark.parametrize("name", ["tf-opt", "tf-run"])
def test_a_device_is_written_in_place_never_replaced(source: Path, name: str) -> None:
    # Run as root, a rename over /dev/null would replace the device with a regular file.
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    flag = "-o" if name == "tf-opt" else "--output"
    result = tool(name, source, flag, os.devnull)
    assert (result.returncode, result.stderr) == (0, b"")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("name", ["tf-opt", "tf-run"])
def test_a_full_device_is_one_line(source: Path, name: str) -> None:
    flag = "-o" if name == "tf-opt" else "--output"
    result = tool(name, source, flag, "/dev/full")
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"{name}: error: cannot write output file '/dev/full': No space left on device\n"
    )


def test_a_fifo_is_written_in_place(source: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # The reading end is open first (not blocking), so the tool's open does not wait; the
    # output fits in the pipe's buffer, so the tool ends before anything is read.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = tool("tf-opt", source, "-o", fifo)
        assert (result.returncode, result.stderr) == (0, b"")
        assert os.read(reader, 1 << 16).decode() == MODULE
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert only(tmp_path) == ["m.mlir", "pipe"]


def test_a_symlink_s_target_is_replaced_and_the_link_kept(source: Path, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target, link = tmp_path / "real" / "out.mlir", tmp_path / "link.mlir"
    target.write_text("previous\n")
    target.chmod(0o640)
    link.symlink_to(target)
    result = tool("tf-opt", source, "-o", link)
    assert (result.returncode, result.stderr) == (0, b"")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == MODULE
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the replaced file keeps its mode
    assert only(tmp_path / "real") == ["out.mlir"]  # nothing written aside is left behind
    # tf-run's --output the same way; a dangling link creates its target.
    (tmp_path / "y.npy").symlink_to(tmp_path / "real" / "y.npy")
    result = tool("tf-run", source, "--output", tmp_path / "y.npy")
    assert (result.returncode, result.stderr) == (0, b"")
    assert (tmp_path / "y.npy").is_symlink()
    assert np.load(tmp_path / "real" / "y.npy").shape == (4,)


def test_a_directory_is_one_line(source: Path, tmp_path: Path) -> None:
    result = tool("tf-opt", source, "-o", tmp_path)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"tf-opt: error: cannot write output file '{tmp_path}': Is a directory\n"
    )


def test_dash_is_standard_output(source: Path, tmp_path: Path) -> None:
    result = tool("tf-opt", source, "-o", "-", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == MODULE
    assert only(tmp_path) == ["m.mlir"]  # no file named '-'
    # tf-run: the .npy bytes on stdout, the summary on stderr.
    x = tmp_path / "x.npy"
    np.save(x, np.arange(4, dtype=np.float32))
    result = tool("tf-run", source, "--input", f"x={x}", "--output", "-", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr.decode().splitlines()[:2] == ["f(x[4])", "  -> array[4] float32"]
    (tmp_path / "back.npy").write_bytes(result.stdout)
    np.testing.assert_array_equal(np.load(tmp_path / "back.npy"), np.arange(4, dtype=np.float32))


# -- standard output full or closed ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "flags"),
    [
        ("tf-opt", []),
        ("tf-opt", ["-p", "cse,cse"]),  # the IR dumps between passes go to stderr
        ("tf-opt", ["--list-passes"]),
        ("tf-opt", ["--help"]),
        ("tf-opt", ["--version"]),
        ("tf-run", []),
        ("tf-run", ["--help"]),
    ],
)
def test_a_full_standard_output_is_one_line(source: Path, name: str, flags: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        result = tool(
            name, source, *flags, stdout=full, stderr=subprocess.PIPE, capture_output=False
        )
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"{name}: error: cannot write to standard output: No space left on device\n"
    )


@pytest.mark.parametrize("name", ["tf-opt", "tf-run"])
def test_a_closed_standard_output_ends_quietly(big: Path, name: str) -> None:
    # As `| head -1`: the reader is gone, the write fails with EPIPE, and the tool ends as Unix
    # tools end theirs, with nothing on stderr. The output is larger than the pipe's buffer, so
    # the write fails whenever the reader closes.
    args: list[str | Path] = [big]
    if name == "tf-run":  # a tuple of 1500 tensors: each printed on two lines
        fields = ", ".join(["tensor<1xf32>"] * 1500)
        many = big.with_name("many.mlir")
        many.write_text(
            f"hir.func @many(%t: tuple<{fields}>) -> tuple<{fields}> {{\n"
            f"  hir.return %t : tuple<{fields}>\n}}\n"
        )
        args = [many]
    with subprocess.Popen(
        [str(BIN / name), *(str(a) for a in args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait(timeout=HANG_GUARD) == 1
    assert stderr == b""


# -- a failed write keeps the previous file ----------------------------------------------------


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_tf_run_keeps_the_previous_output_when_the_write_fails(
    source: Path, tmp_path: Path
) -> None:
    output = tmp_path / "y.npy"
    np.save(output, np.array([1.0, 2.0, 3.0], np.float32))
    previous = output.read_bytes()
    # `ulimit -f 4`: the 64 KiB result cannot be written (Python ignores SIGXFSZ: EFBIG).
    result = tool(
        "tf-run", source, "--function", "wide", "--output", output, preexec_fn=_limit_file_size
    )
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"tf-run: error: cannot write output file '{output}': File too large\n"
    )
    assert output.read_bytes() == previous
    assert only(tmp_path) == ["m.mlir", "y.npy"]


def test_tf_opt_keeps_the_previous_output_when_the_write_fails(big: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.mlir"
    output.write_text("previous\n")
    result = tool("tf-opt", big, "-o", output, preexec_fn=_limit_file_size)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"tf-opt: error: cannot write output file '{output}': File too large\n"
    )
    assert output.read_text() == "previous\n"
    assert only(tmp_path) == ["big.mlir", "out.mlir"]


# -- a descriptor's path: written to the descriptor ---------------------------------------------


def test_dev_stdout_writes_to_standard_output_as_the_shell_opened_it(
    source: Path, tmp_path: Path
) -> None:
    piped = tool("tf-opt", source, "-o", "/dev/stdout")
    assert (piped.returncode, piped.stdout.decode(), piped.stderr) == (0, MODULE, b"")
    log = tmp_path / "log.txt"
    log.write_text("previous\n")
    with open(log, "ab") as appended:  # `>> log.txt`: appended, never truncated or replaced
        result = tool("tf-opt", source, "-o", "/dev/stdout", stdout=appended, capture_output=False)
    assert result.returncode == 0
    assert log.read_text() == "previous\n" + MODULE
    # tf-run: the value's file on stdout, the summary on stderr, as with `--output -`.
    result = tool("tf-run", source, "--output", "/dev/stdout")
    assert result.returncode == 0 and result.stdout.startswith(b"\x93NUMPY")
    assert result.stderr.decode().startswith("f(x[4])\n")


def test_dev_fd_n_writes_to_that_descriptor(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "fd.txt"
    with open(target, "wb") as stream:
        fd = stream.fileno()
        result = tool("tf-opt", source, "-o", f"/dev/fd/{fd}", pass_fds=(fd,))
    assert (result.returncode, result.stderr) == (0, b"")
    assert target.read_text() == MODULE
    result = tool("tf-opt", source, "-o", "/dev/fd/9")  # not open in the tool's process
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "tf-opt: error: cannot write output file '/dev/fd/9': Bad file descriptor\n"
    )
