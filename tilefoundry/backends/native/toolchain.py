"""The upstream tools of the native backend, found on this machine, and running them.

`mlir-opt-19`, `mlir-translate-19` (Debian `mlir-19-tools`), `opt-19`, `llc-19` (`llvm-19`),
the C compiler `cc` and `libmlir_c_runner_utils.so.19.1` (`libmlir-19`, it supplies
`memrefCopy`). The image's own `llc` is LLVM 14 and refuses LLVM 19's output: only the
versioned tools are used (on PATH, else in `/usr/lib/llvm-19/bin`). A missing one is one line
naming its package (`ToolchainError`); a failing one is one line naming the stage and the input
it failed on, which is kept (`StageError`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["StageError", "Toolchain", "ToolchainError", "find_toolchain"]

LLVM_BIN = Path("/usr/lib/llvm-19/bin")
RUNNER_UTILS = Path("/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so.19.1")

_PACKAGES = {
    "mlir-opt-19": "mlir-19-tools",
    "mlir-translate-19": "mlir-19-tools",
    "opt-19": "llvm-19",
    "llc-19": "llvm-19",
    "cc": "gcc",
}


class ToolchainError(Exception):
    """A tool of the backend is missing (one line naming the Debian package to install)."""


class StageError(Exception):
    """A tool failed: the stage, its first error line, and where its input is kept."""


def _which(tool: str) -> str | None:
    found = shutil.which(tool)
    if found is None and tool.endswith("-19"):
        candidate = LLVM_BIN / tool.removesuffix("-19")
        found = str(candidate) if candidate.exists() else None
    return found


@dataclass(frozen=True)
class Toolchain:
    """Paths of the tools, and their versions (part of every artifact's cache key)."""

    mlir_opt: str
    mlir_translate: str
    opt: str
    llc: str
    cc: str
    runner_utils: str

    def versions(self) -> str:
        """The tools' version text, read once per process for each tool file (a bounded memo:
        one entry per tool, keyed by its path, size and modification time)."""
        parts = [
            _version(t) for t in (self.mlir_opt, self.mlir_translate, self.opt, self.llc, self.cc)
        ]
        stat = os.stat(self.runner_utils)
        parts.append(f"{self.runner_utils} {stat.st_size} {stat.st_mtime_ns}")
        return "\n".join(parts)


_VERSIONS: dict[tuple[str, int, int], str] = {}


def _version(tool: str) -> str:
    stat = os.stat(tool)
    key = (os.path.realpath(tool), stat.st_size, stat.st_mtime_ns)
    found = _VERSIONS.get(key)
    if found is None:
        done = subprocess.run(
            [tool, "--version"], capture_output=True, text=True, check=False, timeout=60
        )
        found = f"{key[0]}: {(done.stdout + done.stderr).strip()}"
        if len(_VERSIONS) >= 16:  # the tools of a machine; a new set replaces the old
            _VERSIONS.clear()
        _VERSIONS[key] = found
    return found


def find_toolchain() -> Toolchain:
    """The tools, or `ToolchainError` naming the first missing one's package."""
    paths: dict[str, str] = {}
    for tool, package in _PACKAGES.items():
        found = _which(tool)
        if found is None:
            raise ToolchainError(
                f"the native backend needs {tool}, which is not installed: "
                f"apt-get install {package}"
            )
        paths[tool] = found
    if not RUNNER_UTILS.exists():
        raise ToolchainError(
            f"the native backend needs {RUNNER_UTILS.name}, which is not installed: "
            "apt-get install libmlir-19"
        )
    return Toolchain(
        paths["mlir-opt-19"],
        paths["mlir-translate-19"],
        paths["opt-19"],
        paths["llc-19"],
        paths["cc"],
        str(RUNNER_UTILS),
    )


def run_stage(stage: str, command: Sequence[str], input: Path, kept: Path | None) -> None:
    """Run one tool on `input`; on failure, `StageError` naming the stage and the kept input
    (copied to `kept` when the input itself is not kept)."""
    done = subprocess.run(list(command), capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return
    where = input
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(input, kept)
        where = kept
    lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    first = next((line for line in lines if "error" in line), lines[0] if lines else "")
    raise StageError(
        f"native backend: stage '{stage}' ({Path(command[0]).name}) failed: {first.strip()} "
        f"(input kept: {where})"
    )
