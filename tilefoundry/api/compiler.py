"""The compile stages on the Python surface (docs/compile.md): `lower` (HIR → TIR),
`emit_mlir` (upstream MLIR text) and `compile` (machine code you call from Python).

```python
lowered = tilefoundry.lower(decoder)                       # from the entry: a new Module
kernel = tilefoundry.lower(decoder, function="layer0.mlp")  # that function, re-rooted at it
lowered.step(x, *weights)       # runs as the HIR did: the same bits (the interpreter)
print(tilefoundry.emit_mlir(decoder))    # what the backends start from
compiled = tilefoundry.compile(decoder)  # the native backend: mlir-opt-19 ... cc -> .so
y = compiled.step(x, *weights)           # as decoder.step(...), natively
```

`lower` is `tilefoundry.transforms.lowering.lower_module` (what the `tf-lower` pass runs) over a `Module`:
the input is never changed, the output is verified, and each module of the output that was a
module of the input keeps its orchestration methods (Python only, as `cloned()` shares them). A
refusal (no entry and no `function`, a variant it cannot lower, a path that names no function)
is a `VerifyError` (`LoweringError`) whose text says what to do.

`compile` returns a `CompiledModule` (`compiled.py`), which has its module's attribute
surface; the backend (`backends/native`, `backends/iree`) makes its program.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tilefoundry.api.compiled import CompiledModule
from tilefoundry.api.module import METHODS, Module
from tilefoundry.api.runtime import LoadedModule
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import path_names
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.support.arguments import refuse_type, shown
from tilefoundry.transforms.lowering import lower_module

__all__ = ["BACKENDS", "CompiledModule", "compile", "emit_mlir", "lower"]


def lower(module: Module, function: str | None = None) -> Module:
    """The module lowered to TIR: from its entry, or from the function `function` names (a
    path, as `select` takes it); see the module docstring."""
    if not isinstance(module, Module):
        refuse_type("lower module", "a Module", module)
    if function is not None and not isinstance(function, str):
        refuse_type("lower function", "a path (a str) or None", function)
    lowered = lower_module(module.module_op, function)
    verify_ir(lowered)
    start = module.module_op
    if function is not None:  # the module that holds the function, re-rooted at it
        for name in path_names(function)[:-1]:
            child = start.member(name)
            assert isinstance(child, ModuleOp)
            start = child
    _carry_methods(start, lowered)
    return Module.of(lowered)


def _carry_methods(original: ModuleOp, lowered: ModuleOp) -> None:
    """Give each module of `lowered` the methods of the module of `original` at its path."""
    methods = METHODS.get(original)
    if methods:
        METHODS.set(lowered, dict(methods))
    for op in lowered.body.block.ops:
        if isinstance(op, ModuleOp):
            source = original.member(op.sym_name.data)
            if isinstance(source, ModuleOp):
                _carry_methods(source, op)


BACKENDS = ("native", "iree")
"""The backends `compile` knows: `native` (the upstream MLIR 19 / LLVM 19 tools, the reference
the tests run) and `iree` (the optional `[iree]` extra, for speed); docs/decisions.md."""


def _module(module: Any, what: str) -> Module:
    if not isinstance(module, Module):
        raise TypeError(f"{what} takes a Module, got {shown(module)}")
    return module


def emit_mlir(module: Module) -> str:
    """The upstream MLIR of a module (lowered to TIR first when it holds HIR): what `mlir-opt-19`
    verifies with no unregistered dialect, and the backends compile."""
    from tilefoundry.codegen.emitter import emit_tree

    return emit_tree(_module(module, "emit_mlir").module_op).text


def compile(
    module: Module,
    bindings: Mapping[str, Any] | None = None,
    backend: str = "native",
    *,
    dump: str | Path | None = None,
) -> CompiledModule:
    """Compile a module for a backend (`native`: the upstream MLIR 19 / LLVM 19 tools; `iree`:
    IREE for the host CPU, the `[iree]` extra); `dump` keeps every stage's file in that
    directory. See the module docstring."""
    module = _module(module, "compile")
    loaded = None if bindings is None else LoadedModule(module, bindings)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {shown(backend)} (backends: {', '.join(BACKENDS)})")
    program: Any
    if backend == "iree":
        from tilefoundry.backends.iree.build import compile_iree

        program = compile_iree(module.module_op, dump=dump)
    else:
        from tilefoundry.backends.native.build import compile_native

        program = compile_native(module.module_op, dump=dump)
    return CompiledModule(module, program, (), None if loaded is None else loaded.bindings)
