"""`CompiledModule`: a compiled module tree, reached as the module is (docs/compile.md).

It has its module's attribute surface: a function name gives a callable of the compiled
function (taking every param, as a `Module`'s; with `bindings`, the non-const params, as a
`LoadedModule`'s), a child module name the compiled child, a method name the method bound to
the compiled module. Arguments are checked as the interpreter checks them (the same
`ExecutionError` text); a buffer parameter's array is written in place; results are numpy
arrays as the interpreter returns them (tuples as tuples, bf16 held in float32). The backend's
program (`program`) gives each function by dotted path: `program.function(path)`, and the
emitted module: `program.emitted`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tilefoundry.api.module import Module
from tilefoundry.api.runtime import bound_method, bound_runner

__all__ = ["CompiledModule"]


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
        return bound_method(
            self, self.module, name, "compiled module", "function, child module or method"
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
        trust = getattr(native, "trust", None)
        if trust is not None:  # checked when bound: each call reuses that check
            trust(bindings)
        return bound_runner(function, bindings, native)

    def __repr__(self) -> str:
        return f"<CompiledModule '{self.module.name}' ({self.program.path.name})>"
