"""The native backend's pipeline, as data: the `mlir-opt-19` passes and each later tool's flags.

`NATIVE_PIPELINE` is the one the backend runs. Each of its passes is needed (measured: remove
one and a test of `tests/unit/backends/native/` fails; docs/decisions.md, "The native pipeline"):

- `one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=
  identity-layout-map}`: tensors to memrefs, across function boundaries, identity layouts at
  them (what the entry wrappers' C ABI takes);
- `canonicalize, cse`: after bufferization (without them a hidden result argument of a function
  crashes the call), `drop-equivalent-buffer-results`;
- `buffer-deallocation-pipeline`, `convert-bufferization-to-memref`: every allocation freed;
- `convert-linalg-to-loops`, `arith-expand` (`arith.floordivsi`), `convert-scf-to-cf`,
  `expand-strided-metadata`, `lower-affine`, `finalize-memref-to-llvm`, `convert-math-to-llvm`,
  `convert-math-to-libm` (`tanh`, `erf`, ... as libm calls), `convert-to-llvm`,
  `reconcile-unrealized-casts`.

`NATIVE_PIPELINE` is `UNSCHEDULED_PIPELINE` with the schedules (`schedule.py`) added:
`transform-interpreter, canonicalize, cse` before bufferization (the transform library, loaded by
`transform-preload-library` from the build directory's `schedule.mlir`, tiles and vectorizes the
ops the emitter tagged), `convert-vector-to-scf{full-unroll=true}` (unrolled: the default keeps
a vector transfer's temporaries in an `alloca` inside the loop, and the stack overflows) and
`convert-vector-to-llvm`; `opt-19` and `llc-19` with `-mcpu=native` (AVX-512 and FMA where the
host has them).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefoundry.backends.native.schedule import schedule_library

__all__ = ["NATIVE_PIPELINE", "UNFUSED_PIPELINE", "UNSCHEDULED_PIPELINE", "NativePipeline"]

_BUFFERIZE = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}"
)


@dataclass(frozen=True)
class NativePipeline:
    """What turns emitted MLIR into a shared library: the `mlir-opt-19` passes (in order), the
    flags of `opt-19`, `llc-19` and the C compiler's link. Part of every artifact's cache key."""

    passes: tuple[str, ...]
    opt_flags: tuple[str, ...] = ("-O3",)
    llc_flags: tuple[str, ...] = ("-O3", "--relocation-model=pic")
    link_flags: tuple[str, ...] = ("-shared",)
    transform_library: str = ""
    """The text of the transform library `transform-interpreter` applies (`schedule.py`),
    written as `schedule.mlir` beside the build's files; empty: none."""

    def pass_pipeline(self, library: Path | None = None, scheduled_only: bool = False) -> str:
        """The `--pass-pipeline` argument of mlir-opt; `library` is the file that holds
        `transform_library` (loaded just before `transform-interpreter`). `scheduled_only`:
        the passes before bufferization (the schedules' output, still in tensors: `--dump`'s
        `module.scheduled.mlir`)."""
        passes: list[str] = []
        chosen = (
            self.passes[: self._position("one-shot-bufferize")] if scheduled_only else self.passes
        )
        for item in chosen:
            if item == "transform-interpreter":
                if library is None:
                    raise ValueError("the pipeline's transform-interpreter needs its library file")
                passes.append(f"transform-preload-library{{transform-library-paths={library}}}")
            passes.append(item)
        return f"builtin.module({','.join(passes)})"

    def _position(self, name: str) -> int:
        for index, item in enumerate(self.passes):
            if item == name or item.split("{", 1)[0] == name:
                return index
        raise ValueError(f"the pipeline has no pass '{name}' (passes: {', '.join(self.passes)})")

    def inserted_before(self, name: str, passes: Sequence[str]) -> NativePipeline:
        """This pipeline with `passes` run just before the pass `name`."""
        at = self._position(name)
        return dataclasses.replace(self, passes=(*self.passes[:at], *passes, *self.passes[at:]))

    def inserted_after(self, name: str, passes: Sequence[str]) -> NativePipeline:
        """This pipeline with `passes` run just after the pass `name`."""
        at = self._position(name) + 1
        return dataclasses.replace(self, passes=(*self.passes[:at], *passes, *self.passes[at:]))

    def without(self, name: str) -> NativePipeline:
        """This pipeline without the pass `name` (to measure what each pass is for)."""
        at = self._position(name)
        return dataclasses.replace(self, passes=(*self.passes[:at], *self.passes[at + 1 :]))

    def fingerprint(self) -> str:
        text = "\n".join(
            [*self.passes, "--", *self.opt_flags, "--", *self.llc_flags, "--", *self.link_flags]
            + ["--", self.transform_library]
        )
        return hashlib.sha256(text.encode()).hexdigest()


KEEP_LIBM_CALLS = tuple(
    f"-disable-builtin={name}{suffix}"
    for name in ("tanh", "erf", "exp", "log", "sin", "cos", "pow")
    for suffix in ("f", "")
)
"""`opt-19` flags that keep a call of libm's transcendentals a call: `-O3` otherwise folds a
call on a constant with the compiler's own double-precision function, correctly rounded, so
`tanhf(0.125)` would differ by an ULP from the same call at run time (the result would depend
on whether the input was a constant)."""

UNSCHEDULED_PIPELINE = NativePipeline(
    passes=(
        _BUFFERIZE,
        "canonicalize",
        "cse",
        "buffer-deallocation-pipeline",
        "convert-bufferization-to-memref",
        "convert-linalg-to-loops",
        "arith-expand",
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "convert-math-to-llvm",
        "convert-math-to-libm",
        "convert-to-llvm",
        "reconcile-unrealized-casts",
    ),
    opt_flags=("-O3", *KEEP_LIBM_CALLS),
)
"""The pipeline without schedules: every linalg op as scalar loops, code for any x86-64."""

NATIVE_PIPELINE = dataclasses.replace(
    UNSCHEDULED_PIPELINE.inserted_before(
        "one-shot-bufferize", ("transform-interpreter", "canonicalize", "cse")
    )
    .inserted_before("convert-scf-to-cf", ("convert-vector-to-scf{full-unroll=true}",))
    .inserted_after("lower-affine", ("convert-vector-to-llvm",)),
    opt_flags=("-O3", "-mcpu=native", *KEEP_LIBM_CALLS),
    llc_flags=("-O3", "-mcpu=native", "--relocation-model=pic"),
    transform_library=schedule_library(),
)
"""The reference backend's pipeline (see the module docstring): the schedules, and code for
the host's CPU (`-mcpu=native`; the cache key holds the tools' `--version` text, which names
the host CPU). A float matmul's multiply-adds are FMAs: within docs/ir.md's matmul bound."""

UNFUSED_PIPELINE = dataclasses.replace(NATIVE_PIPELINE, transform_library=schedule_library(False))
"""`NATIVE_PIPELINE` with a float matmul's multiply and add rounded each (no FMA): the same
tiles and vectors, the bits of the scalar loops (what translation validation compares bit for
bit with the interpreter; the fused pipeline's matmul is checked against the bound)."""
