"""What the DSL parser works with besides syntax: the module's symbol table as it sees it,
the `self` of a class-body function, a function being built (reached by a recursive call), and
the metadata it stores on the ops it builds."""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    FusedLoc,
    LocationAttr,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    IRMetadata,
    SourceSpanMetadata,
    SpanEndAttr,
    check_metadata,
    location_to_metadata,
    metadata_to_location,
    remember_location,
)
from tilefoundry.builtin.types import UnitType, to_attr
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.algebra.expr import Expr, ExprOp, Var
from tilefoundry.support.caches import CACHES

__all__ = [
    "Cycle",
    "Pending",
    "Return",
    "SelfRef",
    "Symbols",
    "child_lists",
    "describe",
    "fresh",
    "is_value",
    "name_value",
    "set_metadata",
    "span_location",
]


T = TypeVar("T")


class Symbols(Protocol):
    """A module's symbol table as the parser sees it: its functions (each built on demand, so
    that a function defined later in the class resolves too) and its child modules."""

    module: str
    instance: Any
    """The instance of a class-body module whose functions are being built (its `_` Python
    attributes, which `__init__` set, read as `self._name`), or None."""
    personal: bool
    """Whether the build read the instance's Python state (so it is not the class's alone)."""

    def has(self, name: str) -> bool: ...

    def get(self, name: str) -> Any:
        """The function (a `Function` / `PrimFunction`) or child `Module` named `name`, or
        `MISSING`; raises `Cycle` when the function is being built (recursion)."""


class SelfRef:
    """The value of a `self` parameter: the module under construction (`self.mlp`)."""

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols


class Cycle(Exception):
    """Raised by a symbol table when a function is needed while it is being built."""


class Pending:
    """A function of the module that is being built (a recursive call reaches it): called
    through its symbol, with the result type its return annotation declares."""

    def __init__(self, name: str, result: Any) -> None:
        self.name = name
        self.result = result

    def call(self, args: list[Any]) -> CallOp:
        values = [a.value if isinstance(a, Var) else cast(Operation, a).results[0] for a in args]
        types = [] if isinstance(self.result, UnitType) else [to_attr(self.result)]
        call = CallOp.create(
            operands=values, result_types=types, properties={"callee": SymbolRefAttr(self.name)}
        )
        call._init_metadata(())
        return call


class Return(Exception):
    """A `return` statement: unwinds the statements with its value."""

    def __init__(self, value: Any) -> None:
        self.value = value


def describe(node: ast.AST) -> str:
    names = {
        "If": "an if statement",
        "For": "a for loop",
        "While": "a while loop",
        "Lambda": "a lambda",
        "IfExp": "a conditional expression",
        "ListComp": "a list comprehension",
        "GeneratorExp": "a generator expression",
        "DictComp": "a dict comprehension",
        "AugAssign": "an augmented assignment",
        "Try": "a try statement",
        "Raise": "a raise statement",
        "Assert": "an assert statement",
        "Import": "an import",
        "ImportFrom": "an import",
        "FunctionDef": "a nested def",
        "ClassDef": "a nested class",
        "Global": "a global statement",
        "Nonlocal": "a nonlocal statement",
        "Delete": "a del statement",
        "BoolOp": "and / or",
        "NamedExpr": "the walrus operator",
        "Await": "await",
        "Yield": "yield",
        "Starred": "a starred expression",
        "Dict": "a dict display",
        "Set": "a set display",
    }
    kind = type(node).__name__
    return names.get(kind, f"'{kind}'")


_KINDS: dict[type, int] = {}
"""Per Python type: 1 for an IR value (an `Expr`), 2 for an Expr op, 0 for anything else.
`Expr` is an abstract base class, whose `isinstance` runs Python code; the parser asks it of
every value of every expression, and the answer depends on the type alone."""


def _kind(value: object) -> int:
    cls = type(value)
    kind = _KINDS.get(cls)
    if kind is None:
        expr_op = isinstance(value, ExprOp) and isinstance(value, Operation)
        kind = _KINDS[cls] = 2 if expr_op else 1 if isinstance(value, Expr) else 0
    return kind


def is_value(value: object) -> bool:
    return _kind(value) != 0


def fresh(value: object) -> bool:
    """An op the parser has just built (detached, no metadata yet)."""
    return (
        _kind(value) == 2
        and cast(Operation, value).parent is None
        and isinstance(cast(Operation, value).location, UnknownLoc)
    )


@CACHES.owns
@functools.lru_cache(maxsize=16384)
def _location(items: tuple[IRMetadata, ...]) -> LocationAttr:
    """The location of a metadata tuple: the same for each instance of a class body (the
    spans are its source's), so built once (locations are immutable attributes), and
    remembered, so that verification reads its metadata back at once."""
    location = metadata_to_location(check_metadata(items, context=False))
    remember_location(location, items)
    return location


def span_location(span: SourceSpanMetadata) -> LocationAttr:
    """The location that holds a span (as `metadata_to_location((span,))`), remembered."""
    return _location((span,))


def set_metadata(op: Operation, items: tuple[IRMetadata, ...]) -> None:
    """Store metadata on an op the parser built (its location, and the binding as SSA name)."""
    op.location = _location(items)
    binding = next((m.name for m in items if type(m) is BindingMetadata), None)
    if binding is not None and len(op.results) == 1:
        op.results[0].name_hint = binding if SSAValue.is_valid_name(binding) else None


def name_value(value: object, name: str) -> None:
    """Bind a value the body just built to an assignment's name, unless it has a binding."""
    if not (isinstance(value, ExprOp) and isinstance(value, Operation)):
        return
    if value.parent is not None:
        return
    location = value.location
    if _one_span(location):  # the binding around the span: as metadata_to_location makes it
        value.location = named = NameLoc(StringAttr(name), location)
        remember_location(named, (BindingMetadata(name), *location_to_metadata(location)))
        if len(value.results) == 1:
            value.results[0].name_hint = name if SSAValue.is_valid_name(name) else None
        return
    items = location_to_metadata(location)
    if any(type(m) is BindingMetadata for m in items):
        return
    set_metadata(value, (BindingMetadata(name), *items))


def _one_span(location: Attribute) -> bool:
    """Whether a location holds one source span and nothing else (what the parser records on
    an op it builds: `metadata_to_location((span,))`)."""
    if isinstance(location, FileLineColLoc):
        return True
    if not (isinstance(location, FusedLoc) and isinstance(location.metadata, SpanEndAttr)):
        return False
    parts = cast(ArrayAttr[Attribute], location.locations).data
    return len(parts) == 1 and isinstance(parts[0], FileLineColLoc)


def child_lists(children: Mapping[str, T]) -> dict[str, tuple[T, ...]]:
    """The layer lists among children: `layers` for children attached as `layers.0`,
    `layers.1`, ... (torch's `ModuleList` naming), each a tuple in index order."""
    found: dict[str, dict[int, T]] = {}
    for attached, child in children.items():
        head, dot, index = attached.rpartition(".")
        if dot and index.isdigit() and head:
            found.setdefault(head, {})[int(index)] = child
    return {
        head: tuple(items[i] for i in sorted(items))
        for head, items in found.items()
        if sorted(items) == list(range(len(items)))
    }
