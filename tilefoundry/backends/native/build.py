"""Building a shared library from emitted MLIR, and loading it.

`build_library(text)` runs the stages, each on the previous one's file:

| stage | tool | output |
|---|---|---|
| `emit` | the emitter | `module.mlir` |
| `schedule` | (with `dump` only) the passes before bufferization: the schedules' output | `module.scheduled.mlir` |
| `lower` | `mlir-opt-19 --pass-pipeline=...` (`NativePipeline.passes`) | `module.llvm.mlir` |
| `translate` | `mlir-translate-19 --mlir-to-llvmir` | `module.ll` |
| `optimize` | `opt-19 -O3` | `module.opt.ll` |
| `codegen` | `llc-19 -O3 --relocation-model=pic` | `module.o` |
| `link` | `cc -shared ... libmlir_c_runner_utils.so.19.1` | `module.so` |

With `dump=DIR` every stage's file is kept there; otherwise they are written in a temporary
directory, removed after the build, and a failing stage's input is kept in
`<cache>/failed/` (or the temporary directory is kept when there is no cache). The library
comes from the artifact cache when its key is there (`cache.py`).

`compile_modules(module_ops)` emits several trees into one library (each with its own symbol
prefix), so a test suite compiles many programs with one run of the tools.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefoundry.backends.native.abi import NativeFunction
from tilefoundry.backends.native.cache import ArtifactCache, cache_key, default_cache
from tilefoundry.backends.native.pipeline import NATIVE_PIPELINE, NativePipeline
from tilefoundry.backends.native.toolchain import StageError, find_toolchain, run_stage
from tilefoundry.codegen.emitter import EmittedModule, emit_tree
from tilefoundry.dialects.tf.module import ModuleOp

__all__ = ["NativeProgram", "build_library", "compile_modules", "compile_native", "load_library"]

_UNSET = object()


@dataclass
class NativeProgram:
    """A compiled tree: its emitted module and each function's entry point by dotted path."""

    emitted: EmittedModule
    library: ctypes.CDLL
    path: Path

    def function(self, path: str) -> NativeFunction:
        abi = self.emitted.entries[path]
        return NativeFunction(self.library, abi, self.emitted.messages)


def build_library(
    text: str,
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    pipeline: NativePipeline = NATIVE_PIPELINE,
) -> Path:
    """The shared library of an emitted module (see the module docstring)."""
    tools = find_toolchain()
    store = default_cache() if cache is _UNSET else cache
    assert store is None or isinstance(store, ArtifactCache)
    key = cache_key(text, tools.versions(), pipeline.fingerprint())
    if dump is None and store is not None:
        found = store.lookup(key)
        if found is not None:
            return found
    if dump is not None:
        directory = Path(dump)
        directory.mkdir(parents=True, exist_ok=True)
        temporary = None
    else:
        temporary = tempfile.mkdtemp(prefix="tf-native-")
        directory = Path(temporary)
    failed = None if dump is not None else (store.directory / "failed" if store else None)
    try:
        files = [directory / name for name in _FILES]
        files[0].write_text(text)
        library = None
        if pipeline.transform_library:
            library = directory / "schedule.mlir"
            library.write_text(pipeline.transform_library)
        commands = [
            [tools.mlir_opt, str(files[0]), f"--pass-pipeline={pipeline.pass_pipeline(library)}", "-o", str(files[1])],
            [tools.mlir_translate, "--mlir-to-llvmir", str(files[1]), "-o", str(files[2])],
            [tools.opt, *pipeline.opt_flags, "-S", str(files[2]), "-o", str(files[3])],
            [tools.llc, *pipeline.llc_flags, "-filetype=obj", str(files[3]), "-o", str(files[4])],
            [tools.cc, *pipeline.link_flags, str(files[4]), "-o", str(files[5]), tools.runner_utils,
             f"-Wl,-rpath,{Path(tools.runner_utils).parent}"],
        ]  # fmt: skip
        stages, sources = list(_STAGES), files[:-1]
        if dump is not None and library is not None:  # the schedules' output, for inspection
            scheduled = pipeline.pass_pipeline(library, scheduled_only=True)
            commands.insert(
                0,
                [tools.mlir_opt, str(files[0]), f"--pass-pipeline={scheduled}", "-o",
                 str(directory / "module.scheduled.mlir")],
            )  # fmt: skip
            stages.insert(0, "schedule")
            sources.insert(0, files[0])
        for stage, command, source in zip(stages, commands, sources, strict=True):
            kept = None if failed is None else failed / f"{key[:16]}.{source.name}"
            try:
                run_stage(stage, command, source, kept)
            except StageError:
                if failed is None and temporary is not None:
                    temporary = None  # keep the directory: the diagnostic names its file
                raise
        built = files[5]
        if store is not None:
            return store.store(key, built)
        if temporary is not None:  # loaded, then deleted (`load_library`)
            handle, name = tempfile.mkstemp(prefix="tf-native-", suffix=".so")
            os.close(handle)
            shutil.copyfile(built, name)
            return Path(name)
        return built
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


_FILES = ("module.mlir", "module.llvm.mlir", "module.ll", "module.opt.ll", "module.o", "module.so")
_STAGES = ("lower", "translate", "optimize", "codegen", "link")


def load_library(path: Path) -> ctypes.CDLL:
    """Load a built library; one built without a cache or dump directory (a temporary file,
    see `build_library`) is deleted once loaded."""
    library = ctypes.CDLL(str(path))
    if path.name.startswith("tf-native-") and path.parent == Path(tempfile.gettempdir()):
        path.unlink(missing_ok=True)
    return library


def compile_native(
    module_op: ModuleOp,
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    pipeline: NativePipeline = NATIVE_PIPELINE,
) -> NativeProgram:
    """Emit a tree (lowered first when it holds HIR), build it and load it."""
    emitted = emit_tree(module_op)
    path = build_library(emitted.text, dump=dump, cache=cache, pipeline=pipeline)
    return NativeProgram(emitted, load_library(path), path)


def compile_modules(
    module_ops: Sequence[ModuleOp],
    *,
    dump: str | Path | None = None,
    cache: ArtifactCache | None | object = _UNSET,
    pipeline: NativePipeline = NATIVE_PIPELINE,
) -> list[NativeProgram]:
    """Several trees in one library: tree `i`'s symbols have the prefix `m<i>`."""
    emitted = [emit_tree(op, prefix=f"m{i}") for i, op in enumerate(module_ops)]
    bodies = [e.text.strip().removeprefix("module {").removesuffix("}") for e in emitted]
    text = "module {" + "".join(bodies) + "}\n"
    path = build_library(text, dump=dump, cache=cache, pipeline=pipeline)
    library = load_library(path)
    return [NativeProgram(e, library, path) for e in emitted]
