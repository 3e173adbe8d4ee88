"""`LoadedModule`: a Module with its weights bound.

`module.f(*arrays)` takes one array per declared parameter, const ones included (a Module holds
no constants). `LoadedModule(module, weights).f(*arrays)` takes only the non-const parameters
and fills the const ones from the bindings by name. Both run the reference interpreter
(`tilefoundry.interpreter`); a function with variants runs the first variant whose DimVar ranges
hold the argument sizes, else its own body.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

from tilefoundry.api.module import Module
from tilefoundry.interpreter.evaluate import ExecutionError, check_argument, run_any
from tilefoundry.support.arguments import mapping_of, shown
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["LoadedModule", "bound_method", "bound_runner"]


class LoadedModule:
    """A Module with its weights bound (name -> array): its functions take only the non-const
    parameters. Every weight of the module needs a binding that fits its type; a binding for a
    name that is no weight is refused, except the checkpoint's other names the module's
    metadata lists (as the torch frontend records them): a tied name (`tied_weights`: (name,
    weight) pairs), whose binding must hold its weight's values, and a name the program never
    reads (`unused_weights`), whose binding is ignored."""

    def __init__(self, module: Module, weights: Mapping[str, Any]) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"LoadedModule takes a Module, got {shown(module)}")
        weights = mapping_of(weights, "LoadedModule weights", "a mapping from weight name to array")
        expected = module.weights
        missing = [name for name in expected if name not in weights]
        if missing:
            raise VerifyError(
                f"module '{module.name}': no binding for weight(s) {', '.join(missing)}"
            )
        tied = _tied_weights(module)
        listed = module.metadata.get("unused_weights") or ()
        unused = {str(name) for name in listed} if isinstance(listed, tuple) else set()
        extra = [
            name
            for name in weights
            if name not in expected and name not in tied and name not in unused
        ]
        if extra:
            raise VerifyError(
                f"module '{module.name}': {', '.join(extra)} is not a weight of it "
                f"(weights: {', '.join(expected) or 'none'})"
            )
        bound: dict[str, Any] = {}
        for name, type in expected.items():
            try:
                bound[name] = check_argument(name, type, weights[name], {})
            except ExecutionError as err:
                raise VerifyError(f"module '{module.name}': weight {err}") from None
        for alias, name in tied.items():
            if alias in weights and not _same_values(weights[alias], bound[name]):
                raise VerifyError(
                    f"module '{module.name}': '{alias}' is tied to weight '{name}' but its "
                    "binding holds other values"
                )
        self.module = module
        self.bindings: Mapping[str, Any] = types.MappingProxyType(bound)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        functions = self.module.function_named(name)
        if functions:
            return self._runner(functions[0])
        return bound_method(self, self.module, name, "loaded module", "function or method")

    def __call__(self, *args: Any) -> Any:
        return getattr(self, self.module.entry_function().name)(*args)

    def _runner(self, function: Any) -> Callable[..., Any]:
        op = function.function_op
        return bound_runner(function, self.bindings, lambda *values: run_any(op, list(values)))


def bound_method(holder: object, module: Module, name: str, kind: str, members: str) -> Any:
    """The method `name` of `module` bound to `holder` (a loaded or compiled stand-in for it),
    or the AttributeError that `holder` has none of its `members` so named."""
    method = module.methods.get(name)
    if method is not None:
        return types.MethodType(method, holder)
    raise AttributeError(f"{kind} '{module.name}' has no {members} '{name}'")


def bound_runner(
    function: Any, bindings: Mapping[str, Any], call: Callable[..., Any]
) -> Callable[..., Any]:
    """A callable of `function` (a function view) that takes its non-const parameters only:
    `call` is given every parameter, the const ones from `bindings` by name."""
    params = [(p.name, p.is_const) for p in function.params]
    free = [name for name, const in params if not const]

    def run(*args: Any) -> Any:
        if len(args) != len(free):
            raise ExecutionError(
                f"'{function.name}' takes {len(free)} argument(s) ({', '.join(free)}) once its "
                f"weights are bound, got {len(args)}"
            )
        supplied = iter(args)
        return call(*(bindings[name] if const else next(supplied) for name, const in params))

    run.__name__ = run.__qualname__ = function.name
    return run


def _tied_weights(module: Module) -> dict[str, str]:
    """The module's tied names -> the weight each stands for (`tied_weights` metadata)."""
    pairs = module.metadata.get("tied_weights") or ()
    assert isinstance(pairs, tuple)
    return {str(alias): str(name) for alias, name in pairs if name in module.weights}


def _same_values(value: Any, bound: Any) -> bool:
    import numpy as np

    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return bool(array.shape == bound.shape and np.array_equal(array, bound, equal_nan=True))
