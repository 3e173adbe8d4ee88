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

`lower` is `tilefoundry.lowering.lower_module` (what the `tf-lower` pass runs) over a `Module`:
the input is never changed, the output is verified, and each module of the output that was a
module of the input keeps its orchestration methods (Python only, as `cloned()` shares them). A
refusal (no entry and no `function`, a variant it cannot lower, a path that names no function)
is a `VerifyError` (`LoweringError`) whose text says what to do.

A `CompiledModule` has its module's attribute surface: a function name gives a callable of the
compiled function (taking every param, as a `Module`'s; with `bindings`, the non-const params,
as a `LoadedModule`'s), a child module name the compiled child, a method name the method bound
to the compiled module. Arguments are checked as the interpreter checks them (the same
`ExecutionError` text); a buffer parameter's array is written in place; results are numpy
arrays as the interpreter returns them (tuples as tuples, bf16 held in float32).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tilefoundry.arguments import refuse_type, shown
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import path_names
from tilefoundry.interpreter.evaluate import ExecutionError
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.lowering import lower_module
from tilefoundry.module import METHODS, Module
from tilefoundry.runtime import LoadedModule

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


BACKENDS = ("native",)
"""The backends `compile` knows."""


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
    """Compile a module for a backend (`native`: the upstream MLIR 19 / LLVM 19 tools); `dump`
    keeps every stage's file in that directory. See the module docstring."""
    module = _module(module, "compile")
    loaded = None if bindings is None else LoadedModule(module, bindings)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {shown(backend)} (backends: {', '.join(BACKENDS)})")
    from tilefoundry.backends.native.build import compile_native

    program = compile_native(module.module_op, dump=dump)
    return CompiledModule(module, program, (), None if loaded is None else loaded.bindings)


class CompiledModule:
    """A compiled module tree, reached as the module is (see the module docstring)."""

    def __init__(
        self,
        module: Module,
        program: Any,
        path: tuple[str, ...],
        bindings: Mapping[str, Any] | None,
    ) -> None:
        self.module = module
        self.program = program
        self._path = path
        self.bindings = bindings

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        functions = self.module.function_named(name)
        if functions:
            runner = self._runner(functions[0])
            self.__dict__[name] = runner  # made once: later lookups do not come here
            return runner
        children = [m for m in self.module.modules if m.attached_name == name]
        if children:
            # bindings are the weights of the module they were given for (its own functions'
            # const params, `Module.weights`): a child's functions take every param
            return CompiledModule(children[0], self.program, (*self._path, name), None)
        method = self.module.methods.get(name)
        if method is not None:
            return types.MethodType(method, self)
        raise AttributeError(
            f"compiled module '{self.module.name}' has no function, child module or method '{name}'"
        )

    def __call__(self, *args: Any) -> Any:
        return getattr(self, self.module.entry_function().name)(*args)

    def _runner(self, function: Any) -> Callable[..., Any]:
        dotted = ".".join((*self._path, function.name))
        if dotted not in self.program.emitted.entries:
            raise AttributeError(
                f"function '{dotted}' is not compiled: only what the entry reaches is lowered "
                "and emitted (compile a module whose entry reaches it)"
            )
        native = self.program.function(dotted)
        bindings = self.bindings
        if bindings is None:
            native_call: Callable[..., Any] = native
            return native_call
        params = [(p.name, p.is_const) for p in function.params]
        free = [name for name, const in params if not const]
        native.trust(bindings)  # checked when bound: each call reuses that check

        def run(*args: Any) -> Any:
            if len(args) != len(free):
                raise ExecutionError(
                    f"'{function.name}' takes {len(free)} argument(s) ({', '.join(free)}) once its "
                    f"weights are bound, got {len(args)}"
                )
            supplied = iter(args)
            return native(*(bindings[name] if const else next(supplied) for name, const in params))

        run.__name__ = run.__qualname__ = function.name
        return run

    def __repr__(self) -> str:
        return f"<CompiledModule '{self.module.name}' ({self.program.path.name})>"


class _CallableModule(types.ModuleType):
    """`tilefoundry.compile` names both this module and its function `compile`: once the module
    is imported, the package's attribute is the module (the import system sets it), so calling
    the module calls the function."""

    def __call__(self, *args: Any, **kwargs: Any) -> CompiledModule:
        return compile(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
