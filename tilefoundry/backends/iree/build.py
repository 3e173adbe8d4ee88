"""Compiling emitted MLIR with IREE and loading it.

`build_vmfb(text)` compiles a module emitted by value (`emit_tree(..., by_value=True)`) with
`iree-compile` for `llvm-cpu` (`IREE_FLAGS`) into a `.vmfb`, from the artifact cache when its
key (the text, the IREE versions and host CPU, the flags) is there (`default_cache("iree")`:
`<key>.vmfb`). With `dump=DIR` the input (`module.mlir`), the module (`module.vmfb`) and IREE's
phases (`phases/`, `--dump-compilation-phases-to`) are kept there. A failure is one line naming
the stage and the kept input (`StageError`); what IREE cannot compile is refused before it runs
(`check_limits`).

`compile_iree(module_op)` emits, builds and loads a tree (an `IreeProgram`, whose functions are
`IreeFunction`s by dotted path); `compile_iree_modules(module_ops)` puts several trees in one
module (each with its own symbol prefix), as the native backend's `compile_modules` does.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tilefoundry.backends.iree.abi import IreeFunction
from tilefoundry.backends.iree.toolchain import IREE_FLAGS, IreeFlags, iree_modules, iree_versions
from tilefoundry.backends.native.cache import ArtifactCache, cache_key, default_cache
from tilefoundry.backends.native.toolchain import StageError
from tilefoundry.codegen.emitter import EmittedModule, emit_tree
from tilefoundry.dialects.tf.module import ModuleOp

__all__ = [
    "IreeLimitError",
    "IreeProgram",
    "build_vmfb",
    "check_limits",
    "compile_iree",
    "compile_iree_modules",
    "load_vmfb",
]

_UNSET = object()

F64_UNLINKED = ("sin", "cos", "tanh", "erf")
"""f64 math functions IREE 3.13's `llvm-cpu` cannot compile (`sin`, `cos`, `tanh` do not link;
`erf` is not legalized): the ops whose emission uses them (`tanh`, `sin`, `cos` of f64, `gelu`
of every dtype: its erf is computed in f64) are refused (`check_limits`)."""

_F64_CALL = re.compile(r"math\.(" + "|".join(F64_UNLINKED) + r") [^:]*: f64(.*)$")


class IreeLimitError(StageError):
    """A module IREE cannot compile (see `F64_UNLINKED`): one line saying where."""


def check_limits(text: str) -> None:
    """Refuse what IREE cannot compile (`IreeLimitError`), naming the op's location."""
    for line in text.splitlines():
        found = _F64_CALL.search(line)
        if found is None:
            continue
        where = found.group(2).strip()
        raise IreeLimitError(
            f"backend 'iree' cannot compile an f64 math.{found.group(1)}"
            + (f" ({where})" if where else "")
            + f": IREE's llvm-cpu has no f64 {', '.join(F64_UNLINKED)} (gelu computes its erf "
            "in f64); use backend 'native'"
        )


def build_vmfb(
    text: str,
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    flags: IreeFlags = IREE_FLAGS,
) -> tuple[bytes, Path]:
    """The compiled module's bytes and where it is (see the module docstring)."""
    compiler, _ = iree_modules()
    check_limits(text)
    store = default_cache("iree", ".vmfb") if cache is _UNSET else cache
    assert store is None or isinstance(store, ArtifactCache)
    key = cache_key(text, iree_versions(), flags.fingerprint(), backend="iree")
    if dump is None and store is not None:
        found = store.lookup(key)
        if found is not None:
            return found.read_bytes(), found
    temporary = None if dump is not None else tempfile.mkdtemp(prefix="tf-iree-")
    directory = Path(dump if dump is not None else str(temporary))
    directory.mkdir(parents=True, exist_ok=True)
    source, output = directory / "module.mlir", directory / "module.vmfb"
    source.write_text(text)
    extra = list(flags.for_module(text))
    if dump is not None:
        extra.append(f"--dump-compilation-phases-to={directory / 'phases'}")
    try:
        try:
            compiler.tools.compile_file(
                str(source),
                output_file=str(output),
                target_backends=[flags.target],
                extra_args=extra,
            )
        except compiler.tools.CompilerToolError as err:
            where = source
            if temporary is not None:
                kept = store.directory / "failed" / f"{key[:16]}.module.mlir" if store else None
                if kept is None:
                    temporary = None  # keep the directory: the diagnostic names its file
                else:
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, kept)
                    where = kept
            lines = [line for line in str(err).splitlines() if "error:" in line]
            first = lines[0] if lines else str(err).splitlines()[0]
            raise StageError(
                f"iree backend: stage 'compile' (iree-compile) failed: {first.strip()} "
                f"(input kept: {where})"
            ) from None
        data = output.read_bytes()
        if store is not None:
            return data, store.store(key, output)
        return data, output
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


_CONFIG: list[Any] = []  # the runtime's host driver, made once per process
HOST_DRIVER = "local-sync"
"""IREE's host driver: `local-sync` runs each call on the caller's thread, as a native call
runs (a tiny Llama's call 0.23 ms against 0.66 ms on `local-task`'s thread pool). Its earlier
difference from `local-task` on the f16 softmax bound case was ours, not a race: results were
returned as views of IREE's mapped result memory that did not keep it alive, which was freed
once the call's `DeviceArray`s went; a result is now a view whose base holds the mapping, and so
the buffer (`abi._Mapped`, docs/decisions.md)."""
_CONFIG_LOCK = threading.Lock()


def _config(runtime: Any) -> Any:
    with _CONFIG_LOCK:
        if not _CONFIG:
            _CONFIG.append(runtime.Config(HOST_DRIVER))
        return _CONFIG[0]


def load_vmfb(data: bytes) -> Any:
    """A compiled module loaded in its own runtime context (on the host driver)."""
    _, runtime = iree_modules()
    context = runtime.SystemContext(config=_config(runtime))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, data))
    return context


@dataclass
class IreeProgram:
    """A compiled tree: its emitted module and each function by dotted path."""

    emitted: EmittedModule
    context: Any
    path: Path

    def function(self, path: str) -> IreeFunction:
        abi = self.emitted.entries[path]
        return IreeFunction(
            self.context.modules.module[abi.symbol].vm_function,
            abi,
            self.emitted.messages,
            self.context.config.device,
            self.context.vm_context,
        )


def compile_iree(
    module_op: ModuleOp,
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    flags: IreeFlags = IREE_FLAGS,
) -> IreeProgram:
    """Emit a tree by value (lowered first when it holds HIR), compile it and load it."""
    iree_modules()
    emitted = emit_tree(module_op, by_value=True)
    data, path = build_vmfb(emitted.text, dump=dump, cache=cache, flags=flags)
    return IreeProgram(emitted, load_vmfb(data), path)


def compile_iree_modules(
    module_ops: Sequence[ModuleOp],
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    flags: IreeFlags = IREE_FLAGS,
) -> list[IreeProgram]:
    """Several trees in one IREE module: tree `i`'s symbols have the prefix `m<i>`."""
    iree_modules()
    emitted = [emit_tree(op, prefix=f"m{i}", by_value=True) for i, op in enumerate(module_ops)]
    bodies = [e.text.strip().removeprefix("module {").removesuffix("}") for e in emitted]
    data, path = build_vmfb(
        "module {" + "".join(bodies) + "}\n", dump=dump, cache=cache, flags=flags
    )
    context = load_vmfb(data)
    return [IreeProgram(e, context, path) for e in emitted]
