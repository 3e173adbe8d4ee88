"""`Module`: the Python surface of a `tf.module` operation.

A `Module` is a thin view over its `tf.module` op (one view per op), like `hir.Function`. The op
holds everything the IR says (name, functions, child modules, entry, metadata); what is Python
only — the orchestration `methods` and the sealing of functions — is kept beside it.

```python
m = Module(name="mlp", functions=[f], entry="f")
m.lookup("f")          # the Function node
m.f(x_array, w_array)  # runs it on numpy arrays
```
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import Any, cast

from xdsl.dialects.builtin import DictionaryAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, Region

from tilefoundry.diagnostics import VerifyError
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf import PENDING_CALLEES, CallOp, ModuleOp
from tilefoundry.dialects.op_attr import attr_to_value, value_to_attr
from tilefoundry.hir import Function
from tilefoundry.ir.callable import FunctionLike
from tilefoundry.ir.verifier import verify_ir

__all__ = ["Module"]

_VIEWS: weakref.WeakKeyDictionary[ModuleOp, Module] = weakref.WeakKeyDictionary()


def _function_view(op: Operation) -> Any:
    assert isinstance(op, FuncOp)
    return Function.of(op)


class Module:
    """The top-level compilation unit and the execution domain of the functions it owns."""

    __slots__ = ("_op", "__weakref__")

    _op: ModuleOp

    def __new__(
        cls,
        name: str | None = None,
        functions: Iterable[Any] = (),
        entry: str | None = None,
        modules: Iterable[Module] | Mapping[str, Module] = (),
        metadata: Mapping[str, object] | None = None,
    ) -> Module:
        if not isinstance(name, str) or not name:
            raise TypeError(f"Module name must be a non-empty str, got {name!r}")
        function_ops = []
        for index, function in enumerate(functions):
            op = getattr(function, "function_op", None)
            if not isinstance(op, FunctionLike) or not isinstance(op, Operation):
                raise TypeError(f"Module '{name}' function #{index} must be a Function, got {function!r}")
            if op.parent is not None:
                raise VerifyError(f"module '{name}': function '{function.name}' already belongs to a module")
            function_ops.append(op)
        config = None
        if metadata is not None:
            config = DictionaryAttr({k: value_to_attr(v) for k, v in dict(metadata).items()})
        op = ModuleOp(name, entry=entry, metadata=config, body=Region(Block(function_ops)))
        _resolve_pending_calls(op)
        verify_ir(op)
        return cls.of(op)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def of(cls, op: ModuleOp) -> Module:
        view = _VIEWS.get(op)
        if view is None:
            view = object.__new__(cls)
            view._op = op
            _VIEWS[op] = view
        return view

    @property
    def module_op(self) -> ModuleOp:
        return self._op

    @property
    def name(self) -> str:
        return self._op.own_name

    @property
    def functions(self) -> tuple[Any, ...]:
        return tuple(
            _function_view(op) for op in self._op.body.block.ops if isinstance(op, FunctionLike)
        )

    @property
    def entry(self) -> str | None:
        return None if self._op.entry is None else self._op.entry.root_reference.data

    @property
    def metadata(self) -> dict[str, object]:
        config = self._op.metadata
        return {} if config is None else {k: attr_to_value(v) for k, v in config.data.items()}

    def function_named(self, name: str) -> tuple[Any, ...]:
        """The functions named `name` (length 0 or 1 in a verified module)."""
        return tuple(f for f in self.functions if f.name == name)

    def lookup(self, name: str) -> Any:
        """The function named `name`; raises unless exactly one matches."""
        found = self.function_named(name)
        if len(found) != 1:
            names = ", ".join(f"'{f.name}'" for f in self.functions) or "none"
            raise KeyError(f"module '{self.name}' has no function '{name}' (functions: {names})")
        return found[0]

    def entry_function(self) -> Any:
        """The function named by `entry`; refused when the module has no default step."""
        if self.entry is None:
            names = ", ".join(f"'{f.name}'" for f in self.functions) or "none"
            raise VerifyError(
                f"module '{self.name}' has no entry, so no default step; its functions are "
                f"{names}: select one with lookup('<name>')"
            )
        return self.lookup(self.entry)

    def verify(self) -> None:
        verify_ir(self._op)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Module) and other._op is self._op

    def __hash__(self) -> int:
        return id(self._op)

    def __repr__(self) -> str:
        return f"Module({self.name}: {', '.join(f.name for f in self.functions)})"

    def __str__(self) -> str:
        from tilefoundry.text import print_module

        return print_module(self)


def _resolve_pending_calls(module: ModuleOp) -> None:
    """Give every call built with a function object the symbol path from its own module."""
    for op in module.walk():
        if not isinstance(op, CallOp):
            continue
        callee = PENDING_CALLEES.get(op)
        if callee is None:
            continue
        path = _path_from(op, callee)
        if path is None:
            name = callee.properties["sym_name"]
            raise VerifyError(
                f"a call of '{getattr(name, 'data', name)}' is in a module whose tree does not "
                "hold that function"
            )
        op.callee = path
        del PENDING_CALLEES[op]


def _path_from(call: Operation, callee: Operation) -> SymbolRefAttr | None:
    """The symbol reference from the module that holds `call` down to `callee`."""
    holder = call.parent_op()
    while holder is not None and not isinstance(holder, ModuleOp):
        holder = holder.parent_op()
    names: list[StringAttr] = []
    node: Operation | None = callee
    while node is not None and node is not holder:
        names.append(cast(StringAttr, node.properties["sym_name"]))
        node = node.parent_op()
    if node is None:
        return None
    names.reverse()
    return SymbolRefAttr(names[0], names[1:])
