"""The IREE compiler and runtime (`iree-base-compiler`, `iree-base-runtime`: the `[iree]`
extra), found in this Python, and the flags the backend compiles with.

A missing one is one line (`ToolchainError`): "backend 'iree' needs the [iree] extra: pip install
'tilefoundry[iree]'". `IREE_FLAGS` are part of every artifact's cache key, with the packages'
versions and the host CPU (`--iree-llvmcpu-target-cpu=host` compiles for this machine's).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import platform
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tilefoundry.backends.native.toolchain import ToolchainError

__all__ = ["IREE_FLAGS", "MISSING", "IreeFlags", "iree_modules", "iree_versions"]

MISSING = "backend 'iree' needs the [iree] extra: pip install 'tilefoundry[iree]'"


@dataclass(frozen=True)
class IreeFlags:
    """What `iree-compile` is told: the target backend and its flags."""

    target: str = "llvm-cpu"
    flags: tuple[str, ...] = (
        "--iree-llvmcpu-target-cpu=host",
        # IREE demotes f64 to f32 by default: the IR's f64 is kept
        "--iree-input-demote-f64-to-f32=false",
        # a zero-size or placeholder tensor.empty is read on purpose: no warning on stderr
        "--iree-global-opt-enable-warn-on-uninitialized-values=false",
    )

    def fingerprint(self) -> str:
        return hashlib.sha256("\n".join([self.target, *self.flags]).encode()).hexdigest()


IREE_FLAGS = IreeFlags()
"""The backend's flags (see the module docstring)."""


def iree_modules() -> tuple[ModuleType, ModuleType]:
    """`iree.compiler` and `iree.runtime`, or `ToolchainError` (`MISSING`)."""
    try:
        compiler = importlib.import_module("iree.compiler")
        runtime = importlib.import_module("iree.runtime")
    except ImportError:
        raise ToolchainError(MISSING) from None
    return compiler, runtime


def _host_cpu() -> str:
    """The host CPU's model and features (what `target-cpu=host` compiles for)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.machine()
    wanted = [line for line in lines if line.split(":")[0].strip() in ("model name", "flags")]
    return "\n".join([platform.machine(), *dict.fromkeys(wanted)])


def iree_versions() -> str:
    """The installed IREE packages' versions and the host CPU (part of the cache key)."""
    iree_modules()
    parts = []
    for package in ("iree-base-compiler", "iree-base-runtime"):
        try:
            parts.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{package} (no distribution metadata)")
    return "\n".join([*parts, _host_cpu()])
