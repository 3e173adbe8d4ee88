"""The IREE compiler and runtime (`iree-base-compiler`, `iree-base-runtime`: the `[iree]`
extra), found in this Python, and the flags the backend compiles with.

A missing one is one line (`ToolchainError`): "backend 'iree' needs the [iree] extra: pip install
'tilefoundry[iree]'". `IREE_FLAGS` are part of every artifact's cache key, with the packages'
versions and the host CPU (`--iree-llvmcpu-target-cpu=host` compiles for this machine's); the
flags a module is compiled with are a function of its text and `IREE_FLAGS` (`for_module`: data
tiling for large matmuls), so the key still decides them.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import math
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tilefoundry.backends.native.toolchain import ToolchainError

__all__ = [
    "IREE_FLAGS",
    "MISSING",
    "IreeFlags",
    "iree_modules",
    "iree_versions",
    "largest_matmul_operand",
]

MISSING = "backend 'iree' needs the [iree] extra: pip install 'tilefoundry[iree]'"


_MATMUL_OPERANDS = re.compile(r'tf_schedule = "matmul\d*"\} ins\([^:]*: ([^)]*)\)')
_TENSOR = re.compile(r"tensor<([^>]*)>")


def largest_matmul_operand(text: str) -> int:
    """The most elements a matmul operand of the emitted module has (its static dims: a dynamic
    dim counts 1); 0 when it has no matmul (the emitter tags each: `tf_schedule = "matmul<B>"`)."""
    largest = 0
    for operands in _MATMUL_OPERANDS.findall(text):
        for shape in _TENSOR.findall(operands):
            largest = max(largest, math.prod(int(d) for d in shape.split("x")[:-1] if d != "?"))
    return largest


@dataclass(frozen=True)
class IreeFlags:
    """What `iree-compile` is told: the target backend and its flags, and data tiling for a
    module whose matmuls are large (`for_module`)."""

    target: str = "llvm-cpu"
    flags: tuple[str, ...] = (
        "--iree-llvmcpu-target-cpu=host",
        # IREE demotes f64 to f32 by default: the IR's f64 is kept
        "--iree-input-demote-f64-to-f32=false",
        # a zero-size or placeholder tensor.empty is read on purpose: no warning on stderr
        "--iree-global-opt-enable-warn-on-uninitialized-values=false",
    )
    data_tiling: tuple[str, ...] = ("--iree-global-opt-data-tiling",)
    """Packing matmul operands into the CPU's tile layout (`linalg.mmt4d`): faster for large
    matmuls, a cost of three more dispatches a matmul for small ones (docs/decisions.md)."""
    data_tiling_elements: int = 1 << 16
    """A module is data-tiled when a matmul operand has at least this many elements (static)."""

    def for_module(self, text: str) -> tuple[str, ...]:
        """The flags an emitted module is compiled with: `flags`, and `data_tiling` when one of
        its matmuls has an operand of `data_tiling_elements` or more (`largest_matmul_operand`)."""
        if self.data_tiling and largest_matmul_operand(text) >= self.data_tiling_elements:
            return (*self.flags, *self.data_tiling)
        return self.flags

    def fingerprint(self) -> str:
        parts = [self.target, *self.flags, "data tiling:", *self.data_tiling]
        return hashlib.sha256(
            "\n".join([*parts, str(self.data_tiling_elements)]).encode()
        ).hexdigest()


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
