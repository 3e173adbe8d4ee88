"""`@func` and `@prim_func`: a decorated Python function read as a `hir.func` / `tir.prim_func`.

```python
@tf.func
def mlp(x: Tensor[(n, 64), "f32"], w: ConstTensor[(64, 64), "f32"]):
    h = x @ w                      # bound to 'h', with the span of `x @ w`
    return ops.relu(h)

mlp                                # a Module: the implicit single-function module, entry 'mlp'

@tf.func(target="h100", topologies=(tf.Topology("cta", 4),))
def kernel(x: Tensor[(4,), "f32"]):
    with tf.Mesh("cta"):
        return ops.exp(x)
```

A bare `@func` / `@prim_func` becomes an implicit single-function Module whose entry is that
function; with `target=` / `topologies=` (or `name=`, `metadata=`) it declares the module's
execution context. Inside the body of a `class M(tilefoundry.Module)` it is a function of that
module instead (see `tilefoundry.dsl.classes`), built when the class is instantiated; there
`@f.variant(n=(1, 64))` adds a shape-specialization variant to `f`.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from tilefoundry.api.hir import Function
from tilefoundry.api.module import Module
from tilefoundry.api.tir import PrimFunction
from tilefoundry.builtin.target import Target, Topology
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.parser import Cycle, FunctionParser, Pending, arrange
from tilefoundry.dsl.source import (
    MISSING,
    RECURSION_LIMIT,
    PythonScope,
    Source,
    decorating_frames,
    deep_recursion,
    read_source,
)
from tilefoundry.dsl.values import child_lists
from tilefoundry.ir.algebra.expr import building
from tilefoundry.ir.algebra.patterns import DimVarRangePat

__all__ = ["CLASS_SOURCES", "FunctionSource", "ModuleSymbols", "VariantSource", "func", "prim_func"]


CLASS_SOURCES = "__tf_sources__"
"""The key under which a class body's namespace lists the functions decorated in it, in order
(so that a later `def` of the same name is a clash, not a silent replacement)."""


@dataclass
class VariantSource:
    """A variant's Python function and its patterns (`@f.variant(n=(1, 64))`)."""

    fn: types.FunctionType
    patterns: tuple[DimVarRangePat, ...]
    source: Source
    scope: PythonScope


@dataclass
class FunctionSource:
    """A decorated function of a class body, read but not yet built (each instance of the
    class builds its own)."""

    fn: types.FunctionType
    kind: str
    source: Source
    scope: PythonScope
    variants: list[VariantSource] = field(default_factory=list)
    sealed: bool = False
    ir_name: str | None = None
    """The function's IR name when it is not the def's (`@tf.func(name="a b")` in a class)."""

    @property
    def name(self) -> str:
        """The function's IR name (its symbol in the module)."""
        return self.ir_name or self.fn.__name__

    @property
    def python_name(self) -> str:
        """The def's name (the class body attribute)."""
        return self.fn.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"'{self.name}' is a function of a class body: it becomes a function of the module "
            "when the class (a subclass of tilefoundry.Module) is instantiated; run it as "
            f"instance.{self.name}(...)"
        )

    def __repr__(self) -> str:
        return f"<@{'func' if self.kind == 'hir' else 'prim_func'} {self.fn.__qualname__}>"

    def variant(self, **ranges: tuple[int, int]) -> Callable[[Any], VariantSource]:
        """Add a shape-specialization variant: `@f.variant(n=(1, 64))` over a def with the
        same parameters (annotations may be left out: the base's are used); each keyword is a
        `DimVarRangePat` of that DimVar."""
        frames = decorating_frames(1)

        def add(fn: Any) -> VariantSource:
            try:
                return added(fn)
            except DSLError as err:
                raise err.with_traceback(None) from None

        def added(fn: Any) -> VariantSource:
            fn = unwrapped(fn)
            source = _source(fn, "variant")
            if self.sealed:
                raise source.error(
                    source.tree,
                    f"function '{self.name}' is sealed (its module is built); add variants "
                    "before the module is constructed",
                )
            patterns: list[DimVarRangePat] = []
            for name, bounds in ranges.items():
                try:
                    lo, hi = bounds
                    patterns.append(DimVarRangePat(name, lo, hi))
                except (TypeError, ValueError) as err:
                    raise source.error(source.tree, f"variant range '{name}': {err}") from None
            found = VariantSource(fn, tuple(patterns), source, PythonScope.of(fn, frames))
            self.variants.append(found)
            return found

        return add

    def build(self, symbols: ModuleSymbols) -> Function | PrimFunction:
        metadata = (self.source.span(self.source.tree),)
        parser = FunctionParser(self.source, self.scope, self.kind, symbols, symbols.levels)
        function = parser.build(self.name, metadata)
        for variant in self.variants:
            assert isinstance(function, Function)
            _add_variant(function, self, variant, symbols)
        return function


def _add_variant(
    function: Function, base: FunctionSource, variant: VariantSource, symbols: ModuleSymbols
) -> None:
    tree = variant.source.tree
    if base.kind != "hir":
        raise variant.source.error(tree, "variants are added to @func (HIR) functions")
    base_args = _tensor_args(base.source.tree.args.args)
    args = _tensor_args(tree.args.args)
    if [a.arg for a in args] != [a.arg for a in base_args]:
        raise variant.source.error(
            tree,
            f"a variant of '{base.name}' has its parameters "
            f"({', '.join(a.arg for a in base_args)})",
        )
    base_parser = FunctionParser(base.source, base.scope, "hir", symbols, symbols.levels)
    given = {
        a.arg: base_parser.annotation(a.annotation) for a in base_args if a.annotation is not None
    }
    parser = FunctionParser(variant.source, variant.scope, "hir", symbols, symbols.levels)
    params = parser.params(given)
    with building() as built:
        body = parser.body_value(f"variant of '{base.name}'")
    try:
        function.add_variant(variant.patterns, params, body)
    except Exception as err:  # noqa: BLE001 - the refusal is a diagnostic at the variant
        raise variant.source.error(tree, str(err)) from None
    arrange(function.function_op.variant_ops()[-1].body.block, built)


def _tensor_args(args: list[ast.arg]) -> list[ast.arg]:
    """The parameters without a leading, unannotated `self` (the module)."""
    if args and args[0].arg == "self" and args[0].annotation is None:
        return args[1:]
    return args


def _source(fn: Any, what: str) -> Source:
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"@{what} decorates a Python function, got {type(fn).__name__}")
    return read_source(fn, f"@{what}")


def too_deep(fn: Any) -> DSLError:
    """The diagnostic of source nested beyond what the DSL reads, at the def of `fn`."""
    code = getattr(unwrapped(fn), "__code__", None)
    file = code.co_filename if code is not None else "<unknown>"
    line = code.co_firstlineno if code is not None else 1
    text = linecache.getline(file, line).rstrip("\n")
    return DSLError(
        "the source nests deeper than the DSL reads (an expression or a chain of calls "
        f"beyond the recursion limit {RECURSION_LIMIT}): name some intermediate values",
        file,
        line,
        len(text) - len(text.lstrip()) + 1,
        text,
    )


def unwrapped(fn: Any) -> Any:
    """The function the user wrote, under `functools.wraps` decorators (its source, globals
    and closure are what the DSL reads)."""
    inner = inspect.unwrap(fn) if callable(fn) else fn
    return inner if isinstance(inner, types.FunctionType) else fn


class ModuleSymbols:
    """The symbol table of a module being built from the DSL: its function sources (each
    built once, on first use) and its child modules."""

    def __init__(
        self,
        module: str,
        sources: Mapping[str, FunctionSource],
        children: Mapping[str, Module],
        levels: tuple[str, ...] | None,
        instance: Any = None,
    ) -> None:
        self.module = module
        self.instance = instance
        self.personal = False
        self.sources = dict(sources)
        self.children = dict(children)
        self.levels = levels
        self.built: dict[str, Function | PrimFunction] = {}
        self.building: list[str] = []
        self.lists = child_lists(self.children)

    def has(self, name: str) -> bool:
        return name in self.sources or name in self.children or name in self.lists

    def get(self, name: str) -> Any:
        if name in self.built:
            return self.built[name]
        if name in self.sources:
            return self.build(name)
        found = self.children.get(name, MISSING)
        return self.lists.get(name, MISSING) if found is MISSING else found

    def build(self, name: str) -> Any:
        if name in self.building:
            source = self.sources[name]
            parser = FunctionParser(source.source, source.scope, source.kind, self, self.levels)
            result = parser.declared_result()
            if result is not None:  # called through its symbol, with the declared type
                return Pending(name, result)
            path = " -> ".join([*self.building[self.building.index(name) :], name])
            raise Cycle(
                f"function '{name}' calls itself ({path}): annotate its return type "
                "(-> Tensor[...]) to call it recursively"
            )
        self.building.append(name)
        try:
            with building():  # its ops are its own, not those of a mesh around the call
                function = self.sources[name].build(self)
        finally:
            self.building.pop()
        self.built[name] = function
        return function

    def build_all(self) -> list[Function | PrimFunction]:
        return [self.get(name) for name in self.sources]


def _decorator(kind: str, what: str) -> Callable[..., Any]:
    def decorate(
        fn: Any = None,
        *,
        name: str | None = None,
        target: Target | str | None = None,
        topologies: Iterable[Topology] | None = None,
        metadata: Mapping[str, object] | None = None,
    ) -> Any:
        frames = decorating_frames(1)
        context = {"name": name, "target": target, "topologies": topologies, "metadata": metadata}

        def apply(fn: Any) -> Any:
            try:
                with deep_recursion(lambda: too_deep(fn)):
                    return read(fn)
            except DSLError as err:  # one diagnostic, raised from here: no parser frames
                raise err.with_traceback(None) from None

        def read(fn: Any) -> Any:
            fn = unwrapped(fn)
            source = _source(fn, what)
            scope = PythonScope.of(fn, frames)
            found = FunctionSource(fn, kind, source, scope)
            if _in_class_body(fn):
                if any(v is not None for k, v in context.items() if k != "name"):
                    raise source.error(
                        source.tree,
                        f"@{what}(...) in a class body declares only the function's name: "
                        "declare target, topologies and metadata on the class (class "
                        "M(tf.Module, target=...))",
                    )
                if name is not None and (not isinstance(name, str) or not name):
                    raise source.error(source.tree, f"@{what}(name=...) is a non-empty str")
                found.ir_name = name
                if frames:  # the class body's namespace: the collection checks it
                    namespace = cast(dict[str, Any], frames[0])
                    namespace.setdefault(CLASS_SOURCES, []).append(found)
                return found
            return _single_function_module(found, context)

        return apply if fn is None else apply(fn)

    decorate.__name__ = decorate.__qualname__ = what
    return decorate


def _in_class_body(fn: types.FunctionType) -> bool:
    parts = fn.__qualname__.split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


def _single_function_module(found: FunctionSource, context: dict[str, Any]) -> Module:
    topologies = context["topologies"]
    levels = None if topologies is None else tuple(getattr(t, "name", t) for t in topologies)
    symbols = ModuleSymbols(context["name"] or found.name, {found.name: found}, {}, levels)
    function = symbols.build(found.name)
    found.sealed = True
    try:
        if all(v is None for v in context.values()):
            return Module.implicit(function)
        return Module(
            name=context["name"] or found.name,
            functions=[function],
            entry=found.name,
            target=context["target"],
            topologies=topologies,
            metadata=context["metadata"],
        )
    except Exception as err:  # noqa: BLE001 - the module's refusal, at the decorated def
        raise found.source.refusal(found.source.tree, str(err)) from None


func = _decorator("hir", "func")
"""`@func`: a `hir.func` (see the module docstring)."""

prim_func = _decorator("tir", "prim_func")
"""`@prim_func`: a `tir.prim_func` (see the module docstring)."""
