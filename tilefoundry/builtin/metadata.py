"""IRMetadata: the typed annotations an Expr carries, stored as MLIR debug information.

An Expr's metadata is an ordered tuple holding at most one value of each exact metadata class.
It lives in the node's *location*, where MLIR keeps debug info, so it never takes part in
equality, hashing or `repr`. The encoding is a bijection on valid tuples:

| metadata | location |
|---|---|
| `()` | `loc(unknown)` |
| `BindingMetadata("h")` | `loc("h")`, and the SSA name `%h` |
| `SourceSpanMetadata("f.py", 3, 4)` | `loc("f.py":3:4)` |
| `SourceSpanMetadata("f.py", 3, 4, 3, 10)` | `loc("f.py":3:4 to 3:10)` (`to :10` when `end_line` is None) |
| any other `IRMetadata` | `loc(fused<#tf.meta<"name", {field = value}>>[unknown])` |
| `(BindingMetadata, x)` | `loc("h"(x))` |
| `(a, b, ...)` otherwise | `loc(fused[a, b, ...])` |

A span with an end is held as `fused<#tf.span_end<line, col>>["f.py":3:4]` (xDSL 0.74 has no
range location) and printed in MLIR's range form by the TileFoundry printer.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer

from tilefoundry.support.arguments import items_of, refuse_type, shown
from tilefoundry.support.caches import CACHES, BoundedMapping
from tilefoundry.support.diagnostics import VerifyError, with_context
from tilefoundry.support.irdl_syntax import IRDLFormAttribute
from tilefoundry.support.values import attr_to_python, python_to_attr

__all__ = [
    "BindingMetadata",
    "IRMetadata",
    "MetaAttr",
    "SourceSpanMetadata",
    "SpanEndAttr",
    "check_metadata",
    "location_to_metadata",
    "metadata_context",
    "metadata_to_location",
    "remember_location",
    "span_text",
]

_METADATA_CLASSES: dict[str, type[IRMetadata]] = {}

_LOCATION_LIMIT = 2**32
"""MLIR keeps a location's line and column as unsigned 32-bit integers."""


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True)
class IRMetadata:
    """The immutable base of every typed annotation stored on an Expr.

    A subclass is a frozen dataclass whose fields are `str`, `int`, `float`, `bool`, `None` or
    tuples of those; it is written in text under its `metadata_name` (by default the class's
    qualified name), so text can name it only once the class has been imported.
    """

    metadata_name: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("metadata_name") or f"{cls.__module__}.{cls.__qualname__}"
        taken = _METADATA_CLASSES.get(name)
        if taken is not None and _qualified(taken) != _qualified(cls):
            # Replacing it would change what text already printed means (and what the caches
            # remember); the same class defined again (a module reloaded) replaces itself.
            raise TypeError(
                f"metadata name '{name}' is already taken by {_qualified(taken)}; "
                f"give {_qualified(cls)} a metadata_name of its own"
            )
        cls.metadata_name = name
        _METADATA_CLASSES[name] = cls
        CACHES.bump()

    def format_comment(self) -> str | None:
        """A printable comment for this value; None unless a concrete class provides one."""
        return None


@dataclass(frozen=True)
class BindingMetadata(IRMetadata):
    """The authored SSA label of an Expr: shown as its SSA name (`%h`), kept as `loc("h")`."""

    metadata_name: ClassVar[str] = "binding"
    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"BindingMetadata.name must be a non-empty str, got {shown(self.name)}")


@dataclass(frozen=True)
class SourceSpanMetadata(IRMetadata):
    """The parser's source range of an Expr, recorded before type inference.

    `end_line` None with an `end_column` means the span ends on its start line.
    """

    metadata_name: ClassVar[str] = "source_span"
    file: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.file, str):
            refuse_type("SourceSpanMetadata.file", "a str", self.file)
        for field in ("line", "column", "end_line", "end_column"):
            value = getattr(self, field)
            if value is None and field.startswith("end_"):
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                refuse_type(f"SourceSpanMetadata.{field}", "a non-negative int", value)
            if not 0 <= value < _LOCATION_LIMIT:
                raise ValueError(
                    f"SourceSpanMetadata.{field} must be a non-negative int below 2**32 (a line "
                    f"or column of an MLIR location), got {shown(value)}"
                )
        if self.end_line is not None and self.end_column is None:
            raise ValueError("SourceSpanMetadata with an end_line needs an end_column")
        if self.end_column is not None:
            end = (self.line if self.end_line is None else self.end_line, self.end_column)
            if end < (self.line, self.column):
                raise ValueError(
                    f"SourceSpanMetadata ends at {end[0]}:{end[1]}, "
                    f"before it starts at {self.line}:{self.column}"
                )

    def __str__(self) -> str:
        return span_text(self)


def span_text(span: SourceSpanMetadata) -> str:
    """`f.py:3:4`, `f.py:3:4-10` or `f.py:3:4-5:2`: the span as a diagnostic shows it."""
    text = f"{span.file}:{span.line}:{span.column}"
    if span.end_column is None:
        return text
    if span.end_line is None:
        return f"{text}-{span.end_column}"
    return f"{text}-{span.end_line}:{span.end_column}"


# ---------------------------------------------------------------------------------------------
# The two attributes the encoding needs.


@irdl_attr_definition
class SpanEndAttr(IRDLFormAttribute):
    """Where a source span ends: the metadata of the fused location that holds a range.

    ```mlir
    loc(fused<#tf.span_end<3, 10>>["f.py":3:4])   // printed by tf-opt as loc("f.py":3:4 to 3:10)
    ```
    """

    name = "tf.span_end"

    end_line: IntAttr | NoneAttr
    end_column: IntAttr

    def verify(self) -> None:
        for value in (self.end_line, self.end_column):
            if isinstance(value, IntAttr) and value.data < 0:
                raise VerifyError(
                    f"a span ends at a non-negative line and column, got {value.data}"
                )

    def print_parameters(self, printer: Printer) -> None:
        line = "none" if isinstance(self.end_line, NoneAttr) else str(self.end_line.data)
        printer.print_string(f"<{line}, {self.end_column.data}>")


@irdl_attr_definition
class MetaAttr(IRDLFormAttribute):
    """A metadata value of a class other than binding and source span, by class name and fields.

    ```mlir
    loc(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown])
    ```
    """

    name = "tf.meta"

    kind: StringAttr
    fields: DictionaryAttr

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.kind.data)
            printer.print_string(", ")
            printer.print_attribute(self.fields)


# ---------------------------------------------------------------------------------------------
# Validation.


def metadata_context(metadata: Iterable[object]) -> tuple[str | None, str | None]:
    """The binding name and the source span (as text) a metadata tuple names, when it does:
    what a diagnostic about the node says in `(bound to 'h' at f.py:3:4)`."""
    items = tuple(metadata)
    binding = next((m.name for m in items if type(m) is BindingMetadata), None)
    span = next((span_text(m) for m in items if type(m) is SourceSpanMetadata), None)
    return binding, span


def check_metadata(
    metadata: Iterable[object], *, what: str = "metadata", context: bool = True
) -> tuple[IRMetadata, ...]:
    """The metadata as a tuple, or a VerifyError (with binding / span context, unless the caller
    adds its own) when it is invalid: every entry an `IRMetadata`, at most one per exact class.
    Not an iterable at all is a TypeError."""
    if type(metadata) is tuple and not metadata:  # none, what most constructors are given
        return ()
    items = items_of(metadata, what, "an iterable of IRMetadata values")
    binding, span = metadata_context(items) if context else (None, None)
    seen: set[type] = set()
    for item in items:
        if not isinstance(item, IRMetadata):
            raise VerifyError(
                with_context(
                    f"{what} must hold only IRMetadata values, got {type(item).__name__} {shown(item)}",
                    binding,
                    span,
                )
            )
        if type(item) in seen:
            raise VerifyError(
                with_context(f"{what} holds more than one {type(item).__name__}", binding, span)
            )
        seen.add(type(item))
    return cast(tuple[IRMetadata, ...], items)


# ---------------------------------------------------------------------------------------------
# Metadata <-> location.


def _item_location(item: IRMetadata) -> LocationAttr:
    if type(item) is BindingMetadata:
        return NameLoc(StringAttr(item.name), NoneAttr())
    if type(item) is SourceSpanMetadata:
        return _span_location(item)
    if not dataclasses.is_dataclass(item):
        raise VerifyError(f"{type(item).__name__} is not a dataclass and cannot be debug info")
    fields = {
        f.name: python_to_attr(getattr(item, f.name), f"{type(item).__name__}.{f.name}")
        for f in dataclasses.fields(item)
    }
    kind = StringAttr(type(item).metadata_name)
    return FusedLoc(ArrayAttr((UnknownLoc(),)), MetaAttr(kind, DictionaryAttr(fields)))


def _span_location(item: SourceSpanMetadata) -> LocationAttr:
    """A span's location, made without the attributes' generic verification: the span's own
    checks (a str file, ints in range, an end after the start) are all the location's
    parameters need (tests/unit/builtin/test_metadata.py compares it with the verified one)."""
    start = _trusted(
        FileLineColLoc, _file_attr(item.file), _int_attr(item.line), _int_attr(item.column)
    )
    if item.end_column is None:
        return start
    end_line = _NONE if item.end_line is None else _int_attr(item.end_line)
    end = _trusted(SpanEndAttr, end_line, _int_attr(item.end_column))
    return _trusted(FusedLoc, ArrayAttr((start,)), end)


_A = TypeVar("_A", bound=ParametrizedAttribute)


def _trusted(cls: type[_A], *params: Attribute) -> _A:
    """`cls(*params)` for parameters known to satisfy its definition: as `new` sets them,
    without `__post_init__`'s verification (a span's location is made for every op the DSL
    reads)."""
    attr = cls.__new__(cls)
    for (field, _), param in zip(cls.get_irdl_definition().parameters, params, strict=True):
        object.__setattr__(attr, field, param)
    return attr


@functools.lru_cache(maxsize=1024)
def _file_attr(file: str) -> StringAttr:
    """A file name's attribute (immutable: one serves every span of the file)."""
    return StringAttr(file)


def _int_attr(value: int) -> IntAttr:
    """A line's or column's attribute, made as `_trusted` makes the others (the span checked
    that it is a non-negative int): the columns of a long line are as many as its names."""
    attr = IntAttr.__new__(IntAttr)
    object.__setattr__(attr, "data", value)
    return attr


_NONE = NoneAttr()

_UNKNOWN = UnknownLoc()
"""The location of no metadata (attributes are immutable values: one serves every node)."""


def metadata_to_location(metadata: Iterable[IRMetadata]) -> LocationAttr:
    """The location that holds a (valid) metadata tuple."""
    items = tuple(metadata)
    if not items:
        return _UNKNOWN
    if len(items) == 1:
        return _item_location(items[0])
    if type(items[0]) is BindingMetadata and len(items) == 2:
        return NameLoc(StringAttr(items[0].name), _item_location(items[1]))
    return FusedLoc(ArrayAttr(_item_location(i) for i in items), NoneAttr())


_MADE: BoundedMapping[int, tuple[weakref.ref[Attribute], tuple[IRMetadata, ...]]] = CACHES.mapping(
    "locations made from metadata", 1 << 16
)
"""By the identity of a location made from bindings and spans (`remember_location`): a weak
reference to it, and the metadata it was made from. An entry goes with its location."""


def remember_location(location: LocationAttr, items: tuple[IRMetadata, ...]) -> None:
    """Record that `location` is `metadata_to_location(items)` (or an equal location) for a
    valid tuple (`check_metadata`) of bindings and spans, so that `location_to_metadata` of
    that very object answers `items` at once: the DSL makes a location for each op and
    parameter it reads, and verification reads each back (hashing a location walks all of
    it). Other metadata is not recorded (its values need not be immutable)."""
    if not items or any(type(m) not in _PLAIN for m in items):
        return
    key = id(location)
    entries = _MADE.entries

    def forget(ref: weakref.ref[Attribute], key: int = key) -> None:
        found = entries.get(key)
        if found is not None and found[0] is ref:
            del entries[key]

    _MADE.set(key, (weakref.ref(location, forget), items))


def location_to_metadata(location: Attribute) -> tuple[IRMetadata, ...]:
    """The metadata a location holds (any MLIR location: a call site gives its callee's);
    `VerifyError` for one that holds none valid (`loc("")`, a range that ends before it starts)."""
    if isinstance(location, UnknownLoc | NoneAttr):
        return ()
    made = _MADE.entries.get(id(location))
    if made is not None and made[0]() is location:
        return made[1]
    try:
        if _shallow(location):
            known = _plain_metadata(location)
            if known is not None:
                return known
        return _location_metadata(location)
    except (TypeError, ValueError) as err:
        raise VerifyError(f"invalid location {location}: {err}") from None


def _shallow(location: Attribute) -> bool:
    """Whether a location is a span, or a binding of one (what the DSL and the printer make
    per op): the ones `_plain_metadata` remembers. Hashing an attribute walks all of it, and
    a fused location of shared parts (`#loc` aliases) is a DAG whose walk is exponential."""
    if isinstance(location, NameLoc):
        location = location.location
    if isinstance(location, FileLineColLoc | UnknownLoc | NoneAttr):
        return True
    if isinstance(location, FusedLoc) and isinstance(location.metadata, SpanEndAttr):
        parts = cast(ArrayAttr[Attribute], location.locations).data
        return len(parts) == 1 and isinstance(parts[0], FileLineColLoc)
    return False


_PLAIN = (BindingMetadata, SourceSpanMetadata)
"""The metadata classes whose values hold only str and int (immutable all through)."""


@CACHES.owns
@functools.lru_cache(maxsize=65536)
def _plain_metadata(location: Attribute) -> tuple[IRMetadata, ...] | None:
    """The metadata of a location that holds only bindings and spans, or None: read once per
    location (an immutable attribute, as the values are; each layer of N repeats its spans, and
    each verification reads every parameter's)."""
    found = _location_metadata(location)
    return found if all(type(m) in _PLAIN for m in found) else None


_MAX_LOCATION_METADATA = 4096
"""The most metadata one location may hold: a fused location that uses one part twice, at
every level of a chain of aliases, would hold 2^N."""


def _location_metadata(location: Attribute) -> tuple[IRMetadata, ...]:
    if isinstance(location, UnknownLoc | NoneAttr):
        return ()
    if isinstance(location, FileLineColLoc):
        return (
            SourceSpanMetadata(location.filename.data, location.line.data, location.column.data),
        )
    if isinstance(location, NameLoc):
        return (BindingMetadata(location.desc.data), *_location_metadata(location.location))
    if isinstance(location, CallSiteLoc):
        return _location_metadata(location.callee)
    if isinstance(location, FusedLoc):
        meta = location.metadata
        locations = cast(ArrayAttr[Attribute], location.locations)
        parts = [_location_metadata(loc) for loc in locations]
        if sum(len(p) for p in parts) > _MAX_LOCATION_METADATA:
            raise VerifyError(
                f"a location holds more than {_MAX_LOCATION_METADATA} metadata values "
                "(a fused location that repeats its parts)"
            )
        inner = tuple(m for part in parts for m in part)
        if isinstance(meta, SpanEndAttr) and len(inner) == 1:
            (start,) = inner
            if type(start) is SourceSpanMetadata:
                end_line = None if isinstance(meta.end_line, NoneAttr) else meta.end_line.data
                return (
                    dataclasses.replace(start, end_line=end_line, end_column=meta.end_column.data),
                )
        if isinstance(meta, MetaAttr):
            cls = _METADATA_CLASSES.get(meta.kind.data)
            if cls is None:
                raise VerifyError(
                    f"unknown metadata class '{meta.kind.data}' (import the module that defines it)"
                )
            fields = {k: attr_to_python(v) for k, v in meta.fields.data.items()}
            try:
                return (cls(**fields), *inner)
            except (TypeError, ValueError) as err:
                raise VerifyError(f"invalid {meta.kind.data} metadata: {err}") from None
        return inner
    raise VerifyError(f"unsupported location {location}")


def print_span_end_location(printer: Printer, location: FusedLoc) -> bool:
    """Print `fused<#tf.span_end<..>>["f":l:c]` in MLIR's range form; False if it is not one."""
    meta = location.metadata
    locations = cast(ArrayAttr[Attribute], location.locations)
    if not (isinstance(meta, SpanEndAttr) and len(locations) == 1):
        return False
    start = locations.data[0]
    if not isinstance(start, FileLineColLoc):
        return False
    with printer.in_location():
        printer.print_string_literal(start.filename.data)
        printer.print_string(f":{start.line.data}:{start.column.data} to ")
        if not isinstance(meta.end_line, NoneAttr):
            printer.print_string(str(meta.end_line.data))
        printer.print_string(f":{meta.end_column.data}")
    return True
