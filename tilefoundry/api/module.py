"""`Module`: the Python surface of a `tf.module` operation.

A `Module` is a thin view over its `tf.module` op (one view per op), like `hir.Function`. The op
holds everything the IR says (name, functions, child modules, entry, target, topologies,
metadata, the owner context of a copy); what is Python only — the orchestration `methods`, the
sealing of functions, a copy's owner — is kept on the op object itself
(`tilefoundry.ir.state`), never in a process-wide table.

```python
layer = Module(name="MLP", functions=[mlp])
root = Module(
    name="decoder",
    functions=[step],
    modules={f"layer{i}": layer.renamed(f"layer{i}") for i in range(4)},
    target="h100",
    topologies=(Topology("cluster", 2), Topology("cta", 4), Topology("warp", 4)),
    entry="step",
)
root.step(x, *weights)     # runs the entry function on numpy arrays
root.layer0                # the child named by the attribute it is attached under
root.resolve_target()      # Target("h100"), found over the owner chain
```

The attribute surface: `mod.<name>` resolves, in order, a function (a callable that runs it), a
child module, or a method (bound like an instance method). Function, child and method names are
disjoint at one level, and none of them is a name of this class's own API (`name`, `lookup`,
`weights`, ...; `SURFACE_NAMES`) or begins with `_`: those resolve by normal attribute rules, so
such an entry would be unreachable, and construction refuses it.
"""

from __future__ import annotations

import contextlib
import contextvars
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from xdsl.dialects.builtin import DictionaryAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, Region

from tilefoundry.api.class_body import class_body
from tilefoundry.api.hir import Function, seal
from tilefoundry.api.tir import PrimFunction
from tilefoundry.builtin.target import Target, Topology, check_distinct
from tilefoundry.builtin.types import TensorType
from tilefoundry.context.module_text import parse_root, print_op
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import (
    RECORDED_OWNER,
    ModuleOp,
    check_surface_name,
    effective_topologies,
    no_entry_message,
    owner_of,
    resolve_target,
)
from tilefoundry.dialects.tf.op_attr import attr_to_value, value_to_attr
from tilefoundry.dialects.tf.ops import CALLEE_FUNCTION, CallOp
from tilefoundry.dialects.tf.selection import check_published, detached_copy
from tilefoundry.dialects.tir import PrimFuncOp
from tilefoundry.interpreter.evaluate import function_runner
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.view import OpView
from tilefoundry.ir.state import Slot
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.support.arguments import items_of, mapping_of, refuse_type, text_of
from tilefoundry.support.caches import shared
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["Module"]

_FUNCTIONS = "an iterable of Function / PrimFunction"
_MODULES = "an iterable of Module or a mapping from attachment name to Module"

METHODS: Slot[dict[str, Callable[..., Any]]] = Slot("methods")
"""A module op's orchestration methods (Python only: never printed, a parsed module has none)."""


def _function_view(op: Operation | FunctionLike) -> Function | PrimFunction:
    if isinstance(op, FuncOp):
        return Function.of(op)
    assert isinstance(op, PrimFuncOp)
    return PrimFunction.of(op)


def _as_target(module: str, target: Target | str | None) -> Target | None:
    if target is None or isinstance(target, Target):
        return target
    if not isinstance(target, str):
        refuse_type(f"Module '{module}' target", "a Target or a device / backend name", target)
    return Target(target)


def _as_topologies(
    module: str, topologies: Iterable[Topology] | None
) -> tuple[Topology, ...] | None:
    if topologies is None:
        return None
    what = f"Module '{module}' topologies"
    levels = items_of(topologies, what, "an iterable of Topology values (or None)")
    for index, level in enumerate(levels):
        if not isinstance(level, Topology):
            refuse_type(f"{what} #{index}", "a Topology", level)
    check_distinct(levels)
    return levels


PENDING: Slot[dict[str, Any]] = Slot("pending_children")
"""On an instance of a class-body module while its `__init__` runs: the children assigned so
far, by attribute name (the module is built from them when `__init__` returns)."""


_DEFERRED: contextvars.ContextVar[list[ModuleOp] | None] = contextvars.ContextVar(
    "tilefoundry_deferred_verification", default=None
)
"""Inside `verified_once()`: the modules built so far, whose verification waits."""


@contextlib.contextmanager
def verified_once() -> Iterator[None]:
    """Inside, a Module construction defers its verification; on leaving (without an error),
    the tree each module built ended up in is verified once: a layer built for a model (a
    class-body child) is verified with the model, in its final context, not once alone and
    again in the model. Nested uses are the outermost's."""
    if _DEFERRED.get() is not None:
        yield
        return
    built: list[ModuleOp] = []
    token = _DEFERRED.set(built)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
    roots: dict[int, Operation] = {}
    for op in built:
        root: Operation = op
        while (parent := root.parent_op()) is not None:
            root = parent
        roots.setdefault(id(root), root)
    for root in roots.values():
        verify_ir(root)


def verify_later(op: ModuleOp) -> None:
    """Verify a new module now, or, inside `verified_once()`, with the tree it ends up in."""
    deferred = _DEFERRED.get()
    if deferred is None:
        verify_ir(op)
    else:
        deferred.append(op)


class Module(OpView[ModuleOp]):
    """The top-level compilation unit and the execution domain of the functions it owns.

    A subclass is a class-body module (`class Decoder(tilefoundry.Module)`, docs/dsl.md): its
    decorated functions, the children its `__init__` assigns and its plain methods make each
    instance's module."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__()
        class_body().collect(cls, kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        """Names beginning with `_` follow normal attribute rules. A Module assigned under any
        other name is a child: recorded while a class-body `__init__` runs, attached (as torch
        does) to a built module. A list or tuple of Modules is a layer list: each is a child
        named `name.<index>` (`layers.0`, ..., as torch's `ModuleList`), and `module.name` is
        the tuple of them. Anything else is refused, never silently dropped."""
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        pending = PENDING.get(self)
        if isinstance(value, list | tuple) and value and all(isinstance(v, Module) for v in value):
            for index, child in enumerate(value):  # a layer list: `layers.0`, `layers.1`, ...
                self.__setattr__(f"{name}.{index}", child)
            return
        if not isinstance(value, Module):
            raise AttributeError(
                f"cannot assign '{name}' to a module: its public attributes are its functions, "
                f"child modules and methods (got {type(value).__name__}; assign a Module to "
                "attach a child, or use a name beginning with '_' for Python state)"
            )
        if pending is not None:
            if name in pending:
                raise VerifyError(f"child module '{name}' is assigned twice")
            pending[name] = value
            return
        self._attach_child(name, value)

    def _attach_child(self, name: str, child: Module) -> None:
        op = self._op
        functions = [f.function_op for f in self.functions]
        children = [(m.attached_name, m._op) for m in self.modules]
        checked = _children(self.name, {name: child})
        _check_names(self.name, functions, [*children, *checked], dict(self.methods))
        undo: list[Callable[[], None]] = []
        try:
            _attach(op.body.block, name, checked[0][1], undo)
            verify_ir(op)
        except BaseException:
            for step in reversed(undo):
                step()
            raise

    def __new__(
        cls,
        name: str | None = None,
        functions: Iterable[Any] = (),
        entry: str | None = None,
        modules: Iterable[Module] | Mapping[str, Module] = (),
        target: Target | str | None = None,
        topologies: Iterable[Topology] | None = None,
        metadata: Mapping[str, object] | None = None,
        methods: Mapping[str, Callable[..., Any]] | None = None,
    ) -> Module:
        name = text_of(name, "Module name")
        function_ops = _function_ops(name, functions)
        children = _children(name, modules)
        method_table: dict[str, Any] = {}
        if methods is not None:
            method_table = mapping_of(methods, f"Module '{name}' methods", "a mapping of functions")
        _check_names(name, function_ops, children, method_table)
        if entry is not None:
            text_of(entry, f"Module '{name}' entry", "the name of one of its functions (a str)")
        config = None
        if metadata is not None:
            values = mapping_of(metadata, f"Module '{name}' metadata", "a mapping from str")
            config = DictionaryAttr(
                {k: value_to_attr(v, f"Module '{name}' metadata '{k}'") for k, v in values.items()}
            )
        op = ModuleOp(
            name,
            entry=entry,
            target=_as_target(name, target),
            topologies=_as_topologies(name, topologies),
            metadata=config,
            body=Region(Block()),
        )
        paths = _pending_paths(function_ops, children)
        undo: list[Callable[[], None]] = []
        try:
            block = op.body.block
            for function in function_ops:
                block.add_op(function)
                undo.append(function.detach)
            for attach_name, child in children:
                _attach(block, attach_name, child, undo)
            for call, path in paths.items():
                undo.append(_restore_callee(call))
                call.callee = path
            verify_later(op)
        except BaseException:
            for step in reversed(undo):  # a refused module leaves its inputs as they were
                step()
            raise
        for call in paths:
            CALLEE_FUNCTION.set(call, None)
        for function in function_ops:
            seal(function)
        if method_table:
            METHODS.set(op, method_table)
        return cls.of(op)

    @classmethod
    def implicit(cls, function: Function | PrimFunction) -> Module:
        """The implicit single-function module of a bare function: named after it, with it as
        the entry (what a bare `@func` / `@prim_func` becomes)."""
        if not isinstance(function, Function | PrimFunction):
            refuse_type("Module.implicit function", "a Function or PrimFunction", function)
        return cls(name=function.name, functions=[function], entry=function.name)

    # -- what the module declares ----------------------------------------------------------

    @property
    def module_op(self) -> ModuleOp:
        return self._op

    @property
    def name(self) -> str:
        """The module's own name (a child is attached under `attached_name`, maybe another)."""
        return self._op.own_name

    @property
    def attached_name(self) -> str:
        """The name this module is attached under (its symbol)."""
        return self._op.sym_name.data

    @property
    def functions(self) -> tuple[Any, ...]:
        return tuple(
            _function_view(op) for op in self._op.body.block.ops if isinstance(op, FunctionLike)
        )

    @property
    def modules(self) -> tuple[Module, ...]:
        """The child modules, in order (each named by `attached_name`)."""
        return tuple(Module.of(op) for op in self._op.body.block.ops if isinstance(op, ModuleOp))

    @property
    def entry(self) -> str | None:
        return None if self._op.entry is None else self._op.entry.root_reference.data

    @property
    def target(self) -> Target | None:
        """The declared target (None inherits from the owner)."""
        return self._op.declared_target

    @property
    def topologies(self) -> tuple[Topology, ...] | None:
        """The declared hierarchy: None inherits, () declares none."""
        return self._op.declared_topologies

    @property
    def metadata(self) -> dict[str, object]:
        config = self._op.metadata
        return {} if config is None else {k: attr_to_value(v) for k, v in config.data.items()}

    @property
    def methods(self) -> Mapping[str, Callable[..., Any]]:
        return types.MappingProxyType(METHODS.get(self._op) or {})

    @property
    def owner(self) -> Module | None:
        owner = owner_of(self._op)
        return None if owner is None else Module.of(owner)

    # -- what it resolves to -----------------------------------------------------------------

    def resolve_target(self) -> Target:
        """This module's target if it declares one, else the nearest owner's; refused when no
        module of the owner chain declares one."""
        target = resolve_target(self._op)
        assert target is not None
        return target

    def effective_topologies(self) -> tuple[Topology, ...]:
        """The hierarchy in effect: the nearest declaration over the owner chain."""
        return effective_topologies(self._op)

    def resolve_topology(self, name: str) -> Topology:
        """The one effective level named exactly `name`; refused, naming the available ones."""
        levels = self.effective_topologies()
        found = [t for t in levels if t.name == name]
        if len(found) != 1:
            available = ", ".join(t.name for t in levels) or "none"
            raise VerifyError(
                f"module '{self.name}' has no topology level '{name}' (available: {available})"
            )
        return found[0]

    @property
    def weights(self) -> Mapping[str, TensorType]:
        """Every function's const params, in (function order, param order); a name used in two
        functions must carry an identical TensorType."""
        found: dict[str, TensorType] = {}
        origin: dict[str, str] = {}
        for function in self.functions:
            for param in function.params:
                if not param.is_const:
                    continue
                type = param.type
                assert isinstance(type, TensorType)
                known = found.setdefault(param.name, type)
                if known != type:
                    raise VerifyError(
                        f"weight '{param.name}' is {known} in function '{origin[param.name]}' but "
                        f"{type} in function '{function.name}'"
                    )
                origin.setdefault(param.name, function.name)
        return types.MappingProxyType(found)

    # -- access -------------------------------------------------------------------------------

    def function_named(self, name: str) -> tuple[Any, ...]:
        """The functions named `name` (length 0 or 1 in a verified module): `ModuleOp.member`
        (a walk over the body outside a verification or pass)."""
        found = self._op.member(name) if isinstance(name, str) else None
        return (_function_view(found),) if isinstance(found, FunctionLike) else ()

    def lookup(self, name: str) -> Any:
        """The function named `name` (the node itself); raises unless exactly one matches."""
        found = self.function_named(name)
        if len(found) != 1:
            names = ", ".join(f"'{f.name}'" for f in self.functions) or "none"
            raise KeyError(f"module '{self.name}' has no function '{name}' (functions: {names})")
        return found[0]

    def entry_function(self) -> Any:
        """The function named by `entry`; refused when the module has no default step."""
        if self.entry is None:
            raise VerifyError(_no_entry_message(self))
        return self.lookup(self.entry)

    def __call__(self, *args: Any) -> Any:
        """Run the entry function (refused when there is none)."""
        if self.entry is None:
            raise VerifyError(_no_entry_message(self))
        return getattr(self, self.entry)(*args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        method = self.methods.get(name)  # first: a dict lookup (names are disjoint, `_check_names`)
        if method is not None:
            return types.MethodType(method, self)
        member = self._op.member(name)
        if isinstance(member, FunctionLike):
            return function_runner(_function_view(member))
        if isinstance(member, ModuleOp):
            return Module.of(member)
        layers = _layer_list(self, name)
        if layers:
            return layers
        if name == "variant":  # `@f.variant(...)` on a bare @func: the module is built
            raise class_body().sealed_variant(self)
        raise AttributeError(
            f"module '{self.name}' has no function, child module or method '{name}' "
            f"(functions: {_names(f.name for f in self.functions)}; "
            f"modules: {_names(m.attached_name for m in self.modules)}; "
            f"methods: {_names(self.methods)})"
        )

    def __dir__(self) -> list[str]:
        own = [f.name for f in self.functions] + [m.attached_name for m in self.modules]
        return sorted({*object.__dir__(self), *own, *self.methods})

    # -- copies -------------------------------------------------------------------------------

    def cloned(self) -> Module:
        """An independent copy: functions, bodies, children and calls between them are copies
        (calls inside the copy reach the copies); the owner, target and topologies around it
        stay shared. Methods are shared too (they are plain Python functions)."""
        # The context stays shared: the copy records, in its IR, what its original's owner
        # provides (so it resolves the same, printed and parsed back too), and, for Python,
        # which module that owner is.
        copy = detached_copy(self._op)
        for original, duplicate in zip(self._op.walk(), copy.walk(), strict=True):
            if isinstance(original, ModuleOp) and (methods := METHODS.get(original)):
                METHODS.set(duplicate, dict(methods))
            if isinstance(original, FuncOp):
                seal(cast(FuncOp, duplicate))
        _keep_classes(self._op, copy)
        return Module.of(copy)

    def __copy__(self) -> Module:
        """`copy.copy`: an independent copy, as `copy.deepcopy` (a view has no shallow copy)."""
        return self.__deepcopy__({})

    def __deepcopy__(self, memo: dict[int, object]) -> Module:
        """`copy.deepcopy`: an independent copy through the text form with debug info (all the
        IR says, metadata included), the orchestration methods of each module of the tree
        shared (they are plain Python functions). A copy of a child records the context its
        owner provides, as `cloned()` does, but has no owner object (as after text)."""
        text, methods = self._text_and_methods()
        copy = _from_text(text, methods)
        _keep_classes(self._op, copy._op)
        return Module.of(copy._op)

    def __reduce__(self) -> tuple[Callable[..., Module], tuple[Any, ...]]:
        """`pickle`: the text form with debug info, the methods of each module of the tree, and
        the class and `_` Python state of each class-body module of it (a copy is an instance of
        the same class, as `cloned()` and `copy.deepcopy` make it). Methods and classes pickle by
        reference (defined at a module's top level), the state by value; what cannot be pickled
        (a lambda method, a class defined inside a function, an open file in the state) is
        refused with a TypeError that names it."""
        import pickle

        text, methods = self._text_and_methods()
        for _, table in methods:
            for method_name, method in table.items():
                try:
                    pickle.dumps(method)
                except Exception as err:  # pickle raises PicklingError, AttributeError, ...
                    raise TypeError(
                        f"cannot pickle module '{self.name}': its method '{method_name}' "
                        f"({method!r}) cannot be pickled ({err}); a method pickles by reference, "
                        "so it must be a function defined at a module's top level"
                    ) from None
        classes = self._classes()
        for _, cls, state in classes:
            try:
                pickle.dumps(cls)
            except Exception as err:  # noqa: BLE001 - a local class: PicklingError, ...
                raise TypeError(
                    f"cannot pickle module '{self.name}': its class {cls.__qualname__} cannot be "
                    f"pickled ({err}); a class pickles by reference, so it must be defined at a "
                    "module's top level (a copy keeps its class: copy.deepcopy works)"
                ) from None
            for key, value in state.items():
                try:
                    pickle.dumps(value)
                except Exception as err:  # noqa: BLE001
                    raise TypeError(
                        f"cannot pickle module '{self.name}': the Python state '{key}' of its "
                        f"{cls.__qualname__} instance cannot be pickled ({err})"
                    ) from None
        return (_from_text, (text, methods, classes))

    def _classes(self) -> list[tuple[int, type[Module], dict[str, Any]]]:
        """Each class-body module of the tree (by its index in walk order): its class and the
        `_` Python state its `__init__` set."""
        found: list[tuple[int, type[Module], dict[str, Any]]] = []
        for index, op in enumerate(_module_ops(self._op)):
            view = Module._view.get(op)
            if view is not None and type(view) is not Module:
                state = {k: v for k, v in vars(view).items() if k != "_op"}
                found.append((index, type(view), state))
        return found

    def _text_and_methods(self) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
        """The text of this module as a root (a child is first `cloned()`, so that its text
        records the context its owner provides) with debug info, and the methods of the tree's
        modules, each by the module's index in walk order."""
        source = self if self._op.parent is None else self.cloned()
        modules = [op for op in source._op.walk() if isinstance(op, ModuleOp)]
        methods = [
            (index, dict(table)) for index, op in enumerate(modules) if (table := METHODS.get(op))
        ]
        return print_op(source._op, debuginfo=True), methods

    def renamed(self, name: str) -> Module:
        """`cloned()` under another name."""
        text_of(name, "Module name")
        copy = self.cloned()
        copy._op.sym_name = StringAttr(name)
        copy._op.module_name = None
        return copy

    def publish(self) -> Module:
        """Check that this module is an independently analysable root: it declares its target
        and its topology levels, and its device can have those levels. Returns the module."""
        check_published(self._op)
        return self

    # -- the rest ------------------------------------------------------------------------------

    def verify(self) -> None:
        verify_ir(self._op)

    def __repr__(self) -> str:
        """`Module(decoder: step, layer0/(block, attention, mlp), ...)`: functions, then child
        modules with their members, two levels deep (`(...)` below), at most 8 members a level."""
        return f"Module({self.name}: {_members(self, _REPR_DEPTH)})"

    def __str__(self) -> str:
        return print_op(self._op)


# ---------------------------------------------------------------------------------------------


def _from_text(
    text: str,
    methods: list[tuple[int, dict[str, Any]]],
    classes: Sequence[tuple[int, type[Module], dict[str, Any]]] = (),
) -> Module:
    """A module read back from `Module._text_and_methods`: its text, then its methods, then
    (a pickled copy) the class and Python state of each class-body module (`Module._classes`)."""
    module = Module.of(parse_root(text, "<copy of a Module>"))
    modules = [op for op in module._op.walk() if isinstance(op, ModuleOp)]
    for index, table in methods:
        METHODS.set(modules[index], dict(table))
    for index, cls, state in classes:
        twin = object.__new__(cls)
        for key, value in state.items():
            object.__setattr__(twin, key, value)
        object.__setattr__(twin, "_op", modules[index])
        Module._view.set(modules[index], twin)
        cls._view.set(modules[index], twin)
    return Module.of(module._op)


def _keep_classes(original: ModuleOp, copy: ModuleOp) -> None:
    """A copy of a class-body module is an instance of its class too (its `_helper` methods
    work on it), with a shallow copy of the Python state (`_` attributes) `__init__` set; the
    children likewise."""
    for before, after in zip(_module_ops(original), _module_ops(copy), strict=True):
        view = Module._view.get(before)
        if view is None or type(view) is Module:
            continue
        cls: type[Module] = type(view)
        twin = object.__new__(cls)
        for key, value in vars(view).items():
            object.__setattr__(twin, key, value)
        object.__setattr__(twin, "_op", after)
        Module._view.set(after, twin)
        cls._view.set(after, twin)


def _module_ops(root: ModuleOp) -> Iterator[ModuleOp]:
    """The module ops of a tree in walk order (modules nest only in module bodies)."""
    yield root
    for op in root.body.block.ops:
        if isinstance(op, ModuleOp):
            yield from _module_ops(op)


def _layer_list(module: Module, name: str) -> tuple[Module, ...]:
    """The children attached as `name.0`, `name.1`, ... (a layer list, torch's `ModuleList`
    naming), in index order; empty when `name.0` is not a child."""
    found: list[Module] = []
    while isinstance(member := module._op.member(f"{name}.{len(found)}"), ModuleOp):
        found.append(Module.of(member))
    return tuple(found)


def _names(names: Iterable[str]) -> str:
    listed = ", ".join(f"'{n}'" for n in names)
    return listed or "none"


_REPR_DEPTH = 2
"""The levels of members `repr(Module)` shows: the module's own, and its children's."""

_REPR_MEMBERS = 8
"""The most members `repr(Module)` shows of one module (then how many more)."""


def _members(module: Module, depth: int) -> str:
    parts = [f.name for f in module.functions]
    for child in module.modules:
        if not (child.functions or child.modules):
            parts.append(f"{child.attached_name}/")
        elif depth > 1:
            parts.append(f"{child.attached_name}/({_members(child, depth - 1)})")
        else:
            parts.append(f"{child.attached_name}/(...)")
    if len(parts) > _REPR_MEMBERS:
        parts[_REPR_MEMBERS:] = [f"... ({len(parts) - _REPR_MEMBERS} more)"]
    return ", ".join(parts)


def _no_entry_message(module: Module) -> str:
    return no_entry_message(module.module_op)


def _function_ops(module_name: str, functions: Iterable[Any]) -> list[Operation]:
    what = f"Module '{module_name}' functions"
    ops: list[Operation] = []
    for index, function in enumerate(items_of(functions, what, _FUNCTIONS)):
        if not isinstance(function, Function | PrimFunction):
            refuse_type(f"{what} #{index}", "a Function or PrimFunction", function)
        op = function.function_op
        if op.parent is not None:
            raise VerifyError(
                f"module '{module_name}': function '{function.name}' already belongs to a module"
            )
        if op in ops:
            raise VerifyError(f"module '{module_name}': function '{function.name}' is given twice")
        ops.append(op)
    return ops


def _children(
    module_name: str, modules: Iterable[Module] | Mapping[str, Module]
) -> list[tuple[str, ModuleOp]]:
    what = f"Module '{module_name}' modules"
    pairs: list[tuple[str, object]]
    if isinstance(modules, Mapping):
        pairs = list(mapping_of(modules, what, _MODULES).items())
    else:
        pairs = []
        for index, item in enumerate(items_of(modules, what, _MODULES)):
            if not isinstance(item, Module):
                refuse_type(f"{what} #{index}", "a Module", item)
            pairs.append((item.name, item))
    children: list[tuple[str, ModuleOp]] = []
    for attach_name, child in pairs:
        if not attach_name:
            raise ValueError(f"{what}: an attachment name must be a non-empty str, got ''")
        if not isinstance(child, Module):
            refuse_type(f"{what} '{attach_name}'", "a Module", child)
        if child.target is not None:
            raise VerifyError(
                f"module '{module_name}': child '{attach_name}' declares target "
                f"'{child.target.name}'; only the outermost module may declare one (a child "
                "inherits its owner's)"
            )
        children.append((attach_name, child._op))
    return children


def _check_names(
    name: str,
    function_ops: list[Operation],
    children: list[tuple[str, ModuleOp]],
    methods: Mapping[str, Callable[..., Any]],
) -> None:
    kinds: dict[str, str] = {}
    entries = [
        (cast(StringAttr, op.properties["sym_name"]).data, "function") for op in function_ops
    ]
    entries += [(attach_name, "child module") for attach_name, _ in children]
    entries += [(method, "method") for method in methods]
    for entry, kind in entries:
        check_surface_name(entry, kind, f"module '{name}': ")
        if entry in kinds:
            raise VerifyError(
                f"module '{name}': '{entry}' names both a {kinds[entry]} and a {kind}; function, "
                "child module and method names must be disjoint"
            )
        kinds[entry] = kind
    for method_name, method in methods.items():
        if not callable(method):
            raise TypeError(f"module '{name}': method '{method_name}' must be callable")


def _attach(
    block: Block, attach_name: str, child: ModuleOp, undo: list[Callable[[], None]]
) -> None:
    """Attach a child under a name. A child that already belongs to another tree is copied, so
    that tree resolves exactly as before; the child resolves through its new owner (a detached
    copy's owner context and recorded owner are dropped)."""
    if child.parent is not None:
        child = Module.of(child).cloned()._op
    old_sym, old_name, old_context = child.sym_name, child.module_name, child.owner_context
    old_owner = RECORDED_OWNER.get(child)
    own_name = child.own_name
    child.sym_name = shared(StringAttr(attach_name))
    child.module_name = None if own_name == attach_name else shared(StringAttr(own_name))
    child.owner_context = None
    RECORDED_OWNER.set(child, None)
    block.add_op(child)

    def restore() -> None:
        block.detach_op(child)
        child.sym_name, child.module_name = old_sym, old_name
        child.owner_context = old_context
        RECORDED_OWNER.set(child, old_owner)

    undo.append(restore)


def _restore_callee(call: CallOp) -> Callable[[], None]:
    old = call.callee

    def restore() -> None:
        call.callee = old

    return restore


def _unreachable_callee(callee: Operation) -> str:
    name = cast(StringAttr, callee.properties["sym_name"]).data
    return (
        f"a call of function '{name}' is in a module whose tree does not hold that function "
        "(give the module the function, or the child module that holds it)"
    )


def _pending_paths(
    function_ops: list[Operation], children: list[tuple[str, ModuleOp]]
) -> dict[CallOp, SymbolRefAttr]:
    """For each call (in the new module's own functions) built with a function object: the
    symbol path from the new module to that function, which must be one of its own functions
    or a function of one of its children's trees."""
    attached = {child: attach_name for attach_name, child in children}
    paths: dict[CallOp, SymbolRefAttr] = {}
    for function in function_ops:
        for op in function.walk():
            if not isinstance(op, CallOp) or (callee := CALLEE_FUNCTION.get(op)) is None:
                continue
            names: list[str] = [cast(StringAttr, callee.properties["sym_name"]).data]
            if callee not in function_ops:
                node = callee.parent_op()
                while node is not None and node not in attached:
                    if isinstance(node, ModuleOp):
                        names.append(node.sym_name.data)
                    node = node.parent_op()
                if node is None:
                    raise VerifyError(_unreachable_callee(callee))
                names.append(attached[cast(ModuleOp, node)])
            names.reverse()
            paths[op] = shared(SymbolRefAttr(names[0], names[1:]))
    return paths
