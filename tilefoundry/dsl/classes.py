"""Class-body modules: `class Decoder(tilefoundry.Module)`.

The collection rule (the spec's parser §2.7, decided here):

- **functions**: the `@func` / `@prim_func` functions of the class body (and of DSL base
  classes), in definition order. Calls between them resolve through the module's symbol table,
  so a function may call one defined later in the class.
- **modules**: the `Module`s that `__init__` assigns to attributes (`self.attn = Attention()`),
  each named by its attribute (torch's naming), in assignment order.
- **methods**: the plain functions (`def`) of the class body: bound like instance methods
  (`m.forward(x)`), also on copies.
- Names beginning with `_` are none of these (`__init__`, `_helper`, `self._cache = ...`
  follow normal attribute rules). The three name sets are disjoint, and none shadows the Module
  API (`name`, `lookup`, ...).
- The class declares its module's context in the class statement:
  `class Decoder(tf.Module, name="decoder", entry="step", target="h100", topologies=(...),
  metadata={...})`; the module's name defaults to the class name. `symbol="layer0"` gives a
  root the symbol it is known under when that is not its name (what `select` makes; a child
  takes its attribute's name as its symbol anyway).

Each instantiation builds a new module (N instances are N distinct trees): the instance is the
Module (it prints, parses back, selects, clones, runs and goes through passes like any other).
Assigning a Module to an attribute of a built module attaches it as a child; any other public
attribute assignment is refused.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import StringAttr

from tilefoundry.api.module import PENDING, Module, verified_once, verify_later
from tilefoundry.dialects.tf.module import SURFACE_NAMES
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.functions import (
    CLASS_SOURCES,
    FunctionSource,
    ModuleSymbols,
    VariantSource,
)
from tilefoundry.dsl.source import READS, RECURSION_LIMIT, Read, deep_recursion
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["ClassSpec", "collect", "instantiate", "sealed_variant"]

_DECLARATIONS = ("name", "symbol", "entry", "target", "topologies", "metadata")
_DEEP = (
    f"the source nests deeper than the DSL reads (beyond the recursion limit {RECURSION_LIMIT})"
    ": name some intermediate values"
)


@dataclass
class ClassSpec:
    """What a class body declares (collected once, when the class statement runs)."""

    name: str
    declared: dict[str, Any]
    functions: dict[str, FunctionSource] = field(default_factory=dict)
    methods: dict[str, types.FunctionType] = field(default_factory=dict)
    template: tuple[Module, list[Read]] | None = None
    """A childless instance's module as built, and the Python names its build read: another
    childless instance whose build would read the same values is a copy of it."""


def _class_error(cls: type, message: str, node_line: int | None = None) -> DSLError:
    try:
        file = inspect.getsourcefile(cls) or "<unknown>"
        _, line = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        file, line = "<unknown>", 1
    line = node_line or line
    text = linecache.getline(file, line).rstrip("\n")
    column = len(text) - len(text.lstrip()) + 1
    return DSLError(message, file, line, column, text, len(text.rstrip()) + 1)


def _def_error(fn: types.FunctionType, message: str) -> DSLError:
    code = fn.__code__
    file = code.co_filename
    line = code.co_firstlineno
    text = linecache.getline(file, line).rstrip("\n")
    while text.lstrip().startswith("@"):  # the def line, after its decorators
        line += 1
        text = linecache.getline(file, line).rstrip("\n")
    column = len(text) - len(text.lstrip()) + 1
    return DSLError(message, file, line, column, text, len(text.rstrip()) + 1)


def _attribute_line(cls: type, name: str) -> int | None:
    """The line of the class body that assigns `name`, if it can be found."""
    try:
        lines, start = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None
    pattern = re.compile(rf"^\s+{re.escape(name)}\s*(:[^=]*)?=")
    for offset, text in enumerate(lines):
        if pattern.match(text):
            return start + offset
    return None


def collect(cls: type[Module], declared: dict[str, Any]) -> None:
    """Collect a class body (run by `Module.__init_subclass__`)."""
    unknown = [k for k in declared if k not in _DECLARATIONS]
    if unknown:
        raise _class_error(
            cls,
            f"class {cls.__name__}: unknown declaration '{unknown[0]}' (a class declares "
            f"{', '.join(_DECLARATIONS)})",
        ).with_traceback(None)
    inherited: ClassSpec | None = None
    for base in cls.__mro__[1:]:
        inherited = base.__dict__.get("__tf_class__")
        if inherited is not None:
            break
    spec = ClassSpec(
        name=declared.get("name") or cls.__name__,
        declared={**(inherited.declared if inherited else {}), **declared},
        functions=dict(inherited.functions) if inherited else {},
        methods=dict(inherited.methods) if inherited else {},
    )
    for decorated in vars(cls).get(CLASS_SOURCES, ()):
        now = vars(cls).get(decorated.python_name)
        if now is not decorated:
            kind = "two functions" if isinstance(now, FunctionSource) else "a function and a method"
            fn = now.fn if isinstance(now, FunctionSource) else now
            raise _def_error(
                fn if isinstance(fn, types.FunctionType) else decorated.fn,
                f"name clash: '{decorated.python_name}' names both {kind} of class {cls.__name__}",
            ).with_traceback(None)
    if CLASS_SOURCES in vars(cls):
        delattr(cls, CLASS_SOURCES)
    for name, value in vars(cls).items():
        if name in SURFACE_NAMES and not isinstance(value, FunctionSource | types.FunctionType):
            hint = (
                f"declare it in the class statement: class {cls.__name__}(tf.Module, {name}=...)"
                if name in _DECLARATIONS
                else "rename it, or begin it with '_' for Python state"
            )
            raise _class_error(
                cls,
                f"class {cls.__name__}: class attribute '{name}' shadows the Module API "
                f"'{name}'; {hint}",
                _attribute_line(cls, name),
            ).with_traceback(None)
    own: set[str] = set()
    for name, value in list(vars(cls).items()):
        if isinstance(value, FunctionSource):
            if name.startswith("_"):
                raise _def_error(
                    value.fn, f"function '{name}': a function name may not begin with '_'"
                ).with_traceback(None)
            if value.name in own:
                raise _def_error(
                    value.fn,
                    f"name clash: two functions of class {cls.__name__} are named '{value.name}'",
                ).with_traceback(None)
            own.add(value.name)
            spec.functions[value.name] = value
            delattr(cls, name)  # reached through the module's attribute surface instead
        elif isinstance(value, VariantSource):
            delattr(cls, name)
        elif isinstance(value, types.FunctionType) and not name.startswith("_"):
            spec.methods[name] = value
    for name, method in spec.methods.items():
        if name in spec.functions:
            raise _def_error(
                method,
                f"name clash: '{name}' names both a function and a method of class {cls.__name__}",
            ).with_traceback(None)
    init = vars(cls).get("__init__")
    if isinstance(init, types.FunctionType):
        type.__setattr__(cls, "__init__", _wrapped_init(init))
    type.__setattr__(cls, "__tf_class__", spec)
    type.__setattr__(cls, "__new__", _new)


def _wrapped_init(init: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(init)
    def __init__(self: Module, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        if PENDING.get(self) is None:  # Python's call after the module is built: done already
            return
        init(self, *args, **kwargs)

    return __init__


def _new(cls: type[Module], *args: Any, **kwargs: Any) -> Module:
    return instantiate(cls, args, kwargs)


def instantiate(cls: type[Module], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Module:
    """A new instance: run `__init__` (collecting the children it assigns), build the
    functions, then the module; the instance becomes the module's view. The tree is verified
    once, when the outermost instantiation ends (`verified_once`): each layer with its model."""
    built = False
    try:
        with verified_once():
            module = _instantiate(cls, args, kwargs)
            built = True
    except VerifyError as err:
        if not built:
            raise
        raise _refusal(cls, str(err)).with_traceback(None) from None
    return module


def _instantiate(cls: type[Module], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Module:
    spec: ClassSpec | None = cls.__dict__.get("__tf_class__")
    if spec is None:
        base = next((b for b in cls.__mro__[1:] if "__init_subclass__" in vars(b)), Module)
        raise _class_error(
            cls,
            f"class {cls.__name__} was not collected as a module: {base.__name__}."
            "__init_subclass__ must call super().__init_subclass__(**kwargs)",
        ).with_traceback(None)
    self = object.__new__(cls)
    PENDING.set(self, {})
    try:
        cls.__init__(self, *args, **kwargs)
        children: dict[str, Module] = dict(PENDING.get(self) or {})
    finally:
        PENDING.set(self, None)
    try:
        module = _module(cls, spec, children, self)
    except DSLError as err:
        raise err.with_traceback(None) from None
    op = module.module_op
    symbol = spec.declared.get("symbol")
    if symbol is not None and symbol != spec.name:  # a root known under another symbol
        op.sym_name = StringAttr(symbol)
        op.module_name = StringAttr(spec.name)
    object.__setattr__(self, "_op", op)
    Module._view.set(op, self)
    cls._view.set(op, self)
    return self


def _module(
    cls: type[Module], spec: ClassSpec, children: dict[str, Module], instance: Module
) -> Module:
    """The instance's module: built, or (a childless class whose build read no instance state
    and whose Python names still resolve as they did) a copy of the one built before, so that
    N layers of one class are read once."""
    template = spec.template
    if not children and template is not None and all(s.still(n, v) for s, n, v in template[1]):
        module = template[0].cloned()
        verify_later(module.module_op)
        return module
    reads: list[Read] = []
    token = READS.set(reads)
    try:
        with deep_recursion(lambda: _class_error(cls, f"class {cls.__name__}: {_DEEP}")):
            module, personal = _build(cls, spec, children, instance)
    finally:
        READS.reset(token)
    if not children and not personal:
        spec.template = (module.cloned(), reads)
    return module


def _build(
    cls: type[Module], spec: ClassSpec, children: dict[str, Module], instance: Module
) -> tuple[Module, bool]:
    for name in children:
        if name in spec.functions or name in spec.methods:
            kind = "function" if name in spec.functions else "method"
            raise _class_error(
                cls,
                f"name clash: __init__ assigns child module '{name}', which names a {kind} of "
                f"class {cls.__name__}",
            )
    declared = spec.declared
    topologies = declared.get("topologies")
    levels = None if topologies is None else tuple(getattr(t, "name", t) for t in topologies)
    symbols = ModuleSymbols(spec.name, spec.functions, children, levels, instance)
    functions = symbols.build_all()
    for source in spec.functions.values():
        source.sealed = True
    try:
        module = Module(
            name=spec.name,
            functions=functions,
            entry=declared.get("entry"),
            modules=children,
            target=declared.get("target"),
            topologies=topologies,
            metadata=declared.get("metadata"),
            methods=spec.methods or None,
        )
    except Exception as err:  # noqa: BLE001 - the module's refusal, at the class statement
        raise _refusal(cls, str(err)) from None
    return module, symbols.personal


_AT = re.compile(r" \((?:bound to '[^']*' )?at ([^\s()]+):(\d+):(\d+)[-\d:]*\)$")


def _refusal(cls: type, message: str) -> DSLError:
    """A module's refusal: at the DSL expression it names (a span in its message), else at the
    class statement."""
    found = _AT.search(message)
    if found is not None and linecache.getline(found.group(1), int(found.group(2))):
        file, line, column = found.group(1), int(found.group(2)), int(found.group(3))
        text = linecache.getline(file, line).rstrip("\n")
        return DSLError(
            f"{message[: found.start()]} (when class {cls.__name__} is built)",
            file,
            line,
            column,
            text,
        )
    return _class_error(cls, f"class {cls.__name__}: {message}")


def sealed_variant(module: Module) -> DSLError:
    """`@f.variant(...)` where `f` is a Module (a bare `@func`): its function is sealed. At
    the line that asks for `.variant` (the caller of `Module.__getattr__`)."""
    frame = sys._getframe(2)
    file, line = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(file, line).rstrip("\n")
    end = text.find(".variant")
    begin = end
    while begin > 0 and (text[begin - 1].isidentifier() or text[begin - 1].isdigit()):
        begin -= 1
    names = ", ".join(f"'{f.name}'" for f in module.functions) or "none"
    return DSLError(
        f"module '{module.name}' is built and its functions ({names}) are sealed: a bare @func "
        "is a module at once, so it takes no variants; add variants to a @func of a class "
        "body (class M(tf.Module)) before the class is instantiated",
        file,
        line,
        begin + 1 if end >= 0 else len(text) - len(text.lstrip()) + 1,
        text,
        end + len(".variant") + 1 if end >= 0 else None,
    ).with_traceback(None)
