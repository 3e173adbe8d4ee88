"""Types carried by `Expr.type`: `TensorType`, `BufferType`, `TupleType`, `UnitType`, and `DimVar`.

These are small immutable values (like `Pattern`s), and each has exactly one form in the IR:

| type | IR form |
|---|---|
| `TensorType((4, 8), "f32")` | `tensor<4x8xf32>` |
| `TensorType((DimVar("n", 1, 1025), 8), "bf16")` | `tensor<?x8xbf16, #tf.dims<n: 1 to 1025>>` |
| `BufferType((4, DimVar("n", 1, 9)), "f32")` | `!tf.buffer<4x?xf32, #tf.dims<n: 1 to 9>>` |
| `TupleType((a, b))` | `tuple<a, b>` |
| `UnitType()` | no result (an effect-form call); `none` where a type must be written |

A tensor is a value: it never changes. A buffer (TIR only: a `tir.prim_func` parameter or a
`tir.let` of `tf.memory.alloc`) is memory that ops read and write in place (`tf.memory.copy`
writes it, `tf.memory.load` reads it into a tensor): see docs/ir.md, "Buffers".

A `DimVar(name, lo, hi)` is a named dynamic dimension whose envelope is the half-open interval
`[lo, hi)`, written `name: lo to hi` in the `#tf.dims` encoding (one entry per `?`, in order).
`to_attr` and `from_attr` convert between the two forms; `from_attr` refuses anything that is not a
TileFoundry type with a `VerifyError` that says why.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias, cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    StringAttr,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.builtin import TupleType as BuiltinTupleType
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import AttrConstraint, BaseAttr, VarConstraint, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from tilefoundry.support.arguments import items_of, refuse_type, shown
from tilefoundry.support.caches import CACHES, IdentityMapping
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute

__all__ = [
    "DTYPES",
    "ONE_VALUE_TYPE",
    "VALUE_TYPES",
    "SIZE_LIMIT",
    "BufferAttr",
    "BufferType",
    "DimVar",
    "DimsAttr",
    "IRType",
    "TensorType",
    "TupleType",
    "UnitType",
    "from_attr",
    "to_attr",
]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")

DTYPES: dict[str, Attribute] = {
    "i1": IntegerType(1),
    "i8": IntegerType(8),
    "i16": IntegerType(16),
    "i32": IntegerType(32),
    "i64": IntegerType(64),
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
}
"""The element types a tensor may have, by the name used in Python and in text."""

_DTYPE_OF_ATTR: dict[Attribute, str] = {attr: name for name, attr in DTYPES.items()}

SIZE_LIMIT = 2**63
"""Sizes are 64-bit signed integers in MLIR: a dimension (and a DimVar envelope) stays below."""


def _check_plain_int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        refuse_type(what, "an int", value)
    return value


@dataclass(frozen=True)
class DimVar:
    """A named dynamic dimension with the envelope `[lo, hi)` (lo inclusive, hi exclusive)."""

    name: str
    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"DimVar name must be an identifier ([A-Za-z_][A-Za-z0-9_$.]*), got {shown(self.name)}"
            )
        _check_plain_int(self.lo, "DimVar lo")
        _check_plain_int(self.hi, "DimVar hi")
        if not 0 <= self.lo < self.hi <= SIZE_LIMIT:
            raise ValueError(
                f"DimVar '{self.name}' needs 0 <= lo < hi <= 2**63, got [{shown(self.lo)}, {shown(self.hi)})"
            )

    def contains(self, size: int) -> bool:
        """Whether a concrete size lies in the envelope."""
        return self.lo <= size < self.hi

    def __str__(self) -> str:
        return f"{self.name}: {self.lo} to {self.hi}"


class _Shaped:
    """What a tensor and a buffer type share: dims (ints and `DimVar`s) and a dtype."""

    shape: tuple[int | DimVar, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    @property
    def dim_vars(self) -> tuple[DimVar, ...]:
        return tuple(d for d in self.shape if isinstance(d, DimVar))

    def __str__(self) -> str:
        return str(to_attr(cast("TensorType | BufferType", self)))


@dataclass(frozen=True)
class TensorType(_Shaped):
    """A tensor of `dtype` elements; each dim is a non-negative int or a `DimVar`. Rank 0 is a scalar."""

    shape: tuple[int | DimVar, ...]
    dtype: str

    def __init__(self, shape: Iterable[int | DimVar], dtype: str) -> None:
        dims = items_of(shape, "TensorType shape", "an iterable of dimensions (int or DimVar)")
        by_name: dict[str, DimVar] = {}
        for dim in dims:
            if isinstance(dim, DimVar):
                if by_name.setdefault(dim.name, dim) != dim:
                    raise ValueError(
                        f"dim '{dim.name}' appears with two envelopes: "
                        f"[{by_name[dim.name].lo}, {by_name[dim.name].hi}) and [{dim.lo}, {dim.hi})"
                    )
            elif not 0 <= _check_plain_int(dim, "a tensor dimension") < SIZE_LIMIT:
                raise ValueError(
                    f"a tensor dimension must be >= 0 and below 2**63, got {shown(dim)}"
                )
        if not isinstance(dtype, str) or dtype not in DTYPES:
            raise ValueError(f"unknown dtype {shown(dtype)}; expected one of {', '.join(DTYPES)}")
        object.__setattr__(self, "shape", dims)
        object.__setattr__(self, "dtype", dtype)


@dataclass(frozen=True)
class BufferType(_Shaped):
    """A TIR buffer of `dtype` elements: memory that ops read and write in place (see the module
    docstring). Its dims are a tensor's (ints and `DimVar`s); `tensor` is the type of a load."""

    shape: tuple[int | DimVar, ...]
    dtype: str

    def __init__(self, shape: Iterable[int | DimVar], dtype: str) -> None:
        tensor = TensorType(shape, dtype)
        object.__setattr__(self, "shape", tensor.shape)
        object.__setattr__(self, "dtype", tensor.dtype)

    @property
    def tensor(self) -> TensorType:
        """The tensor type of the same shape and dtype (the value a `tf.memory.load` gives)."""
        return TensorType(self.shape, self.dtype)


@dataclass(frozen=True)
class TupleType:
    """The type of a multi-output value: an ordered tuple of field types."""

    fields: tuple[IRType, ...]

    def __init__(self, fields: Iterable[IRType]) -> None:
        items = items_of(fields, "TupleType fields", "an iterable of IRType")
        for field in items:
            if isinstance(field, BufferType):
                raise ValueError(f"a tuple holds values (tensors, tuples), not the buffer {field}")
            if not isinstance(field, TensorType | TupleType | UnitType):
                refuse_type("a TupleType field", "an IRType", field)
        object.__setattr__(self, "fields", items)

    def __len__(self) -> int:
        return len(self.fields)

    def __str__(self) -> str:
        return str(to_attr(self))


@dataclass(frozen=True)
class UnitType:
    """The type of an effect-form call: it produces no readable value."""

    def __str__(self) -> str:
        return "()"


IRType: TypeAlias = TensorType | BufferType | TupleType | UnitType


@irdl_attr_definition
class DimsAttr(IRDLFormAttribute):
    """The tensor encoding that names each dynamic dimension by its `DimVar`, in order.

    ```mlir
    tensor<?x?x64xbf16, #tf.dims<batch: 1 to 9, seq: 1 to 4097>>
    ```
    """

    name = "tf.dims"

    names: ArrayAttr[StringAttr]
    los: ArrayAttr[IntAttr]
    his: ArrayAttr[IntAttr]

    @staticmethod
    def from_dim_vars(dim_vars: Sequence[DimVar]) -> DimsAttr:
        return DimsAttr(
            ArrayAttr(StringAttr(d.name) for d in dim_vars),
            ArrayAttr(IntAttr(d.lo) for d in dim_vars),
            ArrayAttr(IntAttr(d.hi) for d in dim_vars),
        )

    def dim_vars(self) -> tuple[DimVar, ...]:
        return tuple(
            DimVar(n.data, lo.data, hi.data)
            for n, lo, hi in zip(self.names, self.los, self.his, strict=True)
        )

    def verify(self) -> None:
        if not len(self.names) == len(self.los) == len(self.his):
            raise VerifyError("#tf.dims needs one name, lo and hi per dimension")
        for n, lo, hi in zip(self.names, self.los, self.his, strict=True):
            try:
                DimVar(n.data, lo.data, hi.data)
            except (TypeError, ValueError) as err:
                raise VerifyError(str(err)) from None

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        def parse_entry() -> tuple[str, int, int]:
            name = parser.parse_identifier(" for a DimVar name")
            parser.parse_punctuation(":")
            lo = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_keyword("to")
            hi = parser.parse_integer(allow_boolean=False, allow_negative=False)
            return name, lo, hi

        entries = parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_entry)
        return [
            ArrayAttr(StringAttr(n) for n, _, _ in entries),
            ArrayAttr(IntAttr(lo) for _, lo, _ in entries),
            ArrayAttr(IntAttr(hi) for _, _, hi in entries),
        ]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(str(d) for d in self.dim_vars()) + ">")


@irdl_attr_definition
class BufferAttr(IRDLFormAttribute, TypeAttribute):
    """The type of a TIR buffer: memory of a tensor's shape and dtype that ops write in place.

    Its text is a tensor's, shape and `#tf.dims` encoding included:

    ```mlir
    !tf.buffer<4x8xf32>
    !tf.buffer<?x8xbf16, #tf.dims<n: 1 to 4097>>
    ```
    """

    name = "tf.buffer"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute

    @staticmethod
    def of_tensor(tensor: BuiltinTensorType[Attribute]) -> BufferAttr:
        """The buffer of a tensor type's shape, element type and encoding."""
        return BufferAttr(tensor.shape, tensor.element_type, tensor.encoding)

    def tensor(self) -> BuiltinTensorType[Attribute]:
        """The tensor type of the same shape, element type and encoding (what a load gives)."""
        return BuiltinTensorType(
            self.element_type, [d.data for d in self.shape.data], self.encoding
        )

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        dims, element_type = parser.parse_ranked_shape()
        encoding: Attribute = NoneAttr()
        if parser.parse_optional_punctuation(",") is not None:
            encoding = parser.parse_attribute()
        return [ArrayAttr(IntAttr(d) for d in dims), element_type, encoding]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for dim in self.shape.data:
            printer.print_string("?x" if dim.data == DYNAMIC_INDEX else f"{dim.data}x")
        printer.print_attribute(self.element_type)
        if not isinstance(self.encoding, NoneAttr):
            printer.print_string(", ")
            printer.print_attribute(self.encoding)
        printer.print_string(">")


VALUE_TYPES: AttrConstraint = (
    BaseAttr(BuiltinTensorType) | BaseAttr(BuiltinTupleType) | BaseAttr(BufferAttr)
)
"""The constraint on the type of every SSA value the ops define or use: a tensor, a tuple or a
buffer (`UnitType` is the absence of a value: an effect-form call has no result). Where a
buffer may stand (TIR only) is the verifiers' rule."""

ONE_VALUE_TYPE: AttrConstraint = VarConstraint("V", VALUE_TYPES)
"""The values a terminator passes on (`hir.return`, `tf.yield`, ...): at most one in valid IR,
so all of one type, which IRDL states with a single binding (`dialects/*.irdl.mlir`)."""


@CACHES.owns
@functools.lru_cache(maxsize=4096)
def to_attr(type: IRType) -> Attribute:
    """The IR form of a type (see the module docstring). Both directions are pure functions
    of immutable values, cached: a model names few distinct types many times."""
    if isinstance(type, TensorType):
        shape = [DYNAMIC_INDEX if isinstance(d, DimVar) else d for d in type.shape]
        dim_vars = type.dim_vars
        encoding: Attribute = DimsAttr.from_dim_vars(dim_vars) if dim_vars else NoneAttr()
        return BuiltinTensorType(DTYPES[type.dtype], shape, encoding)
    if isinstance(type, BufferType):
        return BufferAttr.of_tensor(cast(BuiltinTensorType[Attribute], to_attr(type.tensor)))
    if isinstance(type, TupleType):
        return BuiltinTupleType(ArrayAttr(cast(TypeAttribute, to_attr(f)) for f in type.fields))
    if isinstance(type, UnitType):
        return NoneType()
    raise TypeError(f"expected a TensorType, BufferType, TupleType or UnitType, got {shown(type)}")


_SEEN: IdentityMapping[IRType] = CACHES.identity_mapping("from_attr by identity")
"""`from_attr`'s answers by the identity of the attribute: the IR shares its type attributes
(a parse, `to_attr`, the builders), and an attribute's hash walks its parameters (xDSL does
not keep it), each time it is asked."""


def from_attr(attr: Attribute) -> IRType:
    """The type an IR type attribute stands for; a `VerifyError` says why when it is none.
    Memoized: a module converts the same few types thousands of times."""
    found = _SEEN.get(attr)
    if found is None:
        found = _from_attr(attr)
        _SEEN.set(attr, found)
    return found


@CACHES.owns
@functools.lru_cache(maxsize=4096)
def _from_attr(attr: Attribute) -> IRType:
    """`from_attr` by value."""
    if isinstance(attr, BuiltinTensorType):
        dtype = _DTYPE_OF_ATTR.get(attr.element_type)
        if dtype is None:
            raise VerifyError(
                f"unsupported element type {attr.element_type} in {attr}; "
                f"expected one of {', '.join(DTYPES)}"
            )
        shape = attr.get_shape()
        n_dynamic = sum(1 for d in shape if d == DYNAMIC_INDEX)
        encoding = attr.encoding
        dim_vars: tuple[DimVar, ...] = ()
        if isinstance(encoding, DimsAttr):
            dim_vars = encoding.dim_vars()
        elif not isinstance(encoding, NoneAttr):
            raise VerifyError(f"unsupported tensor encoding {encoding} in {attr}")
        if len(dim_vars) != n_dynamic:
            raise VerifyError(
                f"{attr} has {n_dynamic} dynamic dimension(s) but names {len(dim_vars)} DimVar(s); "
                "each '?' needs an entry in #tf.dims<name: lo to hi, ...>"
            )
        pending = iter(dim_vars)
        dims = [next(pending) if d == DYNAMIC_INDEX else d for d in shape]
        try:
            return TensorType(dims, dtype)
        except ValueError as err:
            raise VerifyError(f"invalid type {attr}: {err}") from None
    if isinstance(attr, BufferAttr):
        if not isinstance(attr.element_type, TypeAttribute):
            raise VerifyError(f"unsupported element type {attr.element_type} in {attr}")
        try:
            tensor = from_attr(attr.tensor())
        except VerifyError as err:
            raise VerifyError(str(err).replace(str(attr.tensor()), str(attr))) from None
        assert isinstance(tensor, TensorType)
        return BufferType(tensor.shape, tensor.dtype)
    if isinstance(attr, BuiltinTupleType):
        fields = [from_attr(f) for f in attr.types]
        try:
            return TupleType(fields)
        except ValueError as err:
            raise VerifyError(f"invalid type {attr}: {err}") from None
    if isinstance(attr, NoneType):
        return UnitType()
    raise VerifyError(f"unsupported type {attr}; expected a tensor, a buffer, a tuple or none")
