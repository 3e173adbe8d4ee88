"""The Op registry: `Op`, `ParamDef`, `@register_op`, `@register_alias`, `OpSchema`.

An `Op` is a value class describing an op's signature and attributes; a `Call` carries an `Op`
instance as its target. Parameters are `ParamDef` class attributes, found by reflection in
definition order (base classes first). Input-kind parameters fix the position of `Call.args`;
attribute-kind parameters are the values an instance carries.

```python
@register_op(category="math")
class Binary(Op):
    lhs = ParamDef(kind="input", pattern=Tensor)
    rhs = ParamDef(kind="input", pattern=Tensor)
    kind = ParamDef(kind="attribute", annotation=BinaryKind)

@register_alias(dialect="tf", category="math", name="add", params=[Binary.lhs, Binary.rhs])
def _add() -> Op:
    return Binary(kind=BinaryKind.ADD)
```

Schemas live in buckets keyed by `(dialect, category, name)`, first match first: an alias is
prepended, so it wins over an op class registered under the same name. A registered op is named
`dialect.category.name` in the IR (`tf.math.binary`).
"""

from __future__ import annotations

import difflib
import enum
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NoReturn, TypeVar, cast

from tilefoundry.builtin.types import BufferType, IRType, TensorType, TupleType, UnitType
from tilefoundry.ir.algebra.patterns import Pattern
from tilefoundry.support.arguments import items_of, refuse_type, shown
from tilefoundry.support.caches import CACHES, BoundedMapping
from tilefoundry.support.diagnostics import VerifyError

if TYPE_CHECKING:
    from xdsl.ir import SSAValue

__all__ = [
    "Op",
    "add_library_loader",
    "OpSchema",
    "close_names",
    "did_you_mean",
    "load_libraries",
    "ParamDef",
    "first_op_class",
    "lookup_op_class",
    "op_schemas",
    "register_alias",
    "register_op",
    "schemas_defined_in",
    "check_effect",
    "typeinfer",
]

_MISSING: Any = object()
_SEGMENT = re.compile(r"[a-z_][a-z0-9_]*")


Effect = Literal["read", "write"]
"""What a call does to the buffer passed for an input (`ParamDef.effect`)."""


class ParamDef:
    """One parameter of an Op: an `"input"` (a `Call` argument, matched by `pattern`) or an
    `"attribute"` (a value carried on the Op instance, with `default` and `optional`).

    An input's `effect` says what a call does to the memory passed for it: `"read"` (it takes
    a tensor or a buffer, and reads the buffer), `"write"` (it must be a buffer, written in
    place), or None (it takes a tensor only: a value-form op reads values, never buffers). The
    pattern matches a buffer as the tensor of its shape and dtype."""

    kind: Literal["input", "attribute"]
    annotation: Any
    pattern: Pattern | None
    effect: Effect | None
    default: object
    optional: bool
    name: str

    def __init__(
        self,
        kind: Literal["input", "attribute"],
        annotation: Any = None,
        pattern: Pattern | None = None,
        default: object = _MISSING,
        optional: bool = False,
        effect: Effect | None = None,
    ) -> None:
        if kind not in ("input", "attribute"):
            raise ValueError(f"ParamDef kind must be 'input' or 'attribute', got {shown(kind)}")
        if kind == "input" and (default is not _MISSING or optional):
            raise ValueError("default and optional belong to attribute-kind ParamDefs only")
        if kind == "attribute" and pattern is not None:
            raise ValueError("pattern belongs to input-kind ParamDefs only")
        if pattern is not None and not isinstance(pattern, Pattern):
            raise TypeError(f"ParamDef pattern must be a Pattern, got {shown(pattern)}")
        if effect not in (None, "read", "write"):
            raise ValueError(
                f"ParamDef effect must be 'read', 'write' or None, got {shown(effect)}"
            )
        if kind == "attribute" and effect is not None:
            raise ValueError("effect belongs to input-kind ParamDefs only")
        self.kind = kind
        self.effect = effect
        self.annotation = annotation
        self.pattern = pattern
        self.default = default
        self.optional = optional
        self.name = "<unbound>"

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING

    def __set_name__(self, owner: type, name: str) -> None:
        if self.name == "<unbound>":
            self.name = name

    @typing.overload
    def __get__(self, instance: None, owner: type) -> ParamDef: ...
    @typing.overload
    def __get__(self, instance: Op, owner: type) -> Any: ...
    def __get__(self, instance: Op | None, owner: type) -> Any:
        if instance is None:
            return self
        if self.kind == "input":
            raise AttributeError(
                f"'{self.name}' is an input of {owner.__name__}: its value is a Call argument"
            )
        return instance.attrs[self.name]

    def __repr__(self) -> str:
        return f"ParamDef({self.name}, kind={self.kind!r})"


def _fits_i64(value: int) -> bool:
    """Whether an int attribute value has an IR form (`42 : i64`)."""
    return -(2**63) <= value < 2**63


def _check_value(param: ParamDef, value: object, op_name: str) -> object:
    """The attribute value in canonical form, or a TypeError naming what was expected."""
    if value is None and param.optional:
        return None
    annotation = param.annotation
    expected: str | None = None
    if annotation is None:
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            expected = "a bool"
    elif annotation is int:
        if not isinstance(value, int) or isinstance(value, bool):
            expected = "an int"
        elif not _fits_i64(value):
            expected = "an int of 64 bits (i64)"
    elif annotation is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        expected = "a float"
    elif annotation is str:
        if not isinstance(value, str):
            expected = "a str"
    elif isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        if isinstance(value, annotation):
            return value
        try:
            return annotation(value)
        except ValueError:
            members = ", ".join(str(m.value) for m in annotation)
            expected = f"a {annotation.__name__} ({members})"
    elif typing.get_origin(annotation) is tuple:
        item_type = typing.get_args(annotation)[0]
        if isinstance(value, tuple | list) and all(
            isinstance(v, item_type)
            and not isinstance(v, bool)
            and (item_type is not int or _fits_i64(v))
            for v in value
        ):
            return tuple(value)
        expected = f"a tuple of {item_type.__name__}"
    elif isinstance(annotation, type):
        if not isinstance(value, annotation):
            expected = f"a {annotation.__name__}"
    if expected is not None:
        raise TypeError(
            f"{op_name}: attribute '{param.name}' expects {expected}, got "
            f"{type(value).__name__} {shown(value)}"
        )
    return value


class Op:
    """A value class describing an op's signature and attributes (not an Expr).

    `Op(**attrs)` validates the attribute values against the attribute-kind `ParamDef`s; an Op
    with no attribute parameter is a singleton. An instance is a value: immutable (assigning or
    deleting any attribute raises AttributeError; build another Op instead), equal to and
    hashing as another of the same class with equal attributes, its own copy (`copy.copy`,
    `copy.deepcopy`), pickled as its class and attributes. Subclasses implement
    `infer_type(*arg_types)`.
    """

    op_name: ClassVar[str] = ""
    """`dialect.category.name`, set by `@register_op`."""

    pure: ClassVar[bool] = True
    """Whether a value-form call of this Op has no side effect (most Ops are pure). An Op that
    declares an `effect` on an input, or `allocates`, is not pure."""

    allocates: ClassVar[bool] = False
    """Whether a call's result is a fresh buffer (`tf.memory.alloc`): each call a distinct one,
    anchored by a `tir.let`."""

    matrix_unit: ClassVar[bool] = False
    """Whether its flops run on the device's matrix units (tensor cores), at their peak."""

    builder_name: ClassVar[str] = ""
    """The name of its Python builder in `tilefoundry.ops` (`ops.softmax(x, axis=-1)`), when
    it is not the op's own name (`tf.nn.softmax` -> `softmax`; `tf.reduce.sum` says
    `reduce_sum`)."""

    _params: ClassVar[tuple[ParamDef, ...] | None] = None
    _singleton: ClassVar[Op | None] = None
    _attrs: dict[str, object]

    def __new__(cls, **attrs: object) -> Op:
        if not cls.attribute_params():
            if cls.__dict__.get("_singleton") is None:
                cls._singleton = super().__new__(cls)
            return cast(Op, cls.__dict__["_singleton"])
        return super().__new__(cls)

    def __init__(self, **attrs: object) -> None:
        name = self.op_name or type(self).__name__
        params = {p.name: p for p in self.attribute_params()}
        unknown = sorted(set(attrs) - set(params))
        if unknown:
            known = ", ".join(params) or "none"
            raise TypeError(f"{name}: unknown attribute(s) {', '.join(unknown)}; it has: {known}")
        values: dict[str, object] = {}
        for param in params.values():
            if param.name in attrs:
                values[param.name] = _check_value(param, attrs[param.name], name)
            elif param.has_default:
                values[param.name] = param.default
            elif param.optional:
                values[param.name] = None
            else:
                raise TypeError(f"{name}: missing required attribute '{param.name}'")
        object.__setattr__(self, "_attrs", values)

    def __setattr__(self, name: str, value: object) -> None:
        _immutable(self, name, "assign")

    def __delattr__(self, name: str) -> None:
        _immutable(self, name, "delete")

    def __copy__(self) -> Op:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Op:
        return self

    def __reduce__(self) -> tuple[Callable[..., Op], tuple[type[Op], dict[str, object]]]:
        return (_rebuilt, (type(self), dict(self._attrs)))

    @classmethod
    def params(cls) -> list[ParamDef]:
        """The class-level ParamDefs, in definition order (base classes first)."""
        cached = cls.__dict__.get("_params")
        if cached is None:
            found: dict[str, ParamDef] = {}
            for klass in reversed(cls.__mro__):
                for attr_name, value in vars(klass).items():
                    if isinstance(value, ParamDef):
                        found.pop(attr_name, None)
                        found[attr_name] = value
            cached = tuple(found.values())
            cls._params = cached
        return list(cached)

    @classmethod
    def declares_effects(cls) -> bool:
        """Whether a call touches memory: an input with an `effect`, or an allocated result."""
        return cls.allocates or any(p.effect is not None for p in cls.params())

    @classmethod
    def input_params(cls) -> list[ParamDef]:
        return [p for p in cls.params() if p.kind == "input"]

    @classmethod
    def attribute_params(cls) -> list[ParamDef]:
        return [p for p in cls.params() if p.kind == "attribute"]

    @property
    def attrs(self) -> Mapping[str, object]:
        """The attribute values, in ParamDef order (defaults filled in)."""
        return types.MappingProxyType(self._attrs)

    def infer_type(self, *arg_types: IRType) -> IRType:
        """The result type of a Call of this Op on arguments of these types (raise on misuse)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement infer_type")

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """An existing value that equals the call's result (`x * 1` is `x`), or None.

        The fold hook of `tf.call` (MLIR's `fold`): it must not change the IR, and the value it
        returns must be visible at the call (one of `args`, or a value that dominates the
        call). The canonicalizer replaces the call's uses with it."""
        return None

    def canonicalize(
        self, args: Sequence[SSAValue], result: IRType
    ) -> tuple[Op, Sequence[SSAValue]] | None:
        """A simpler call that computes the same result, as its Op and its operands, or None
        (the op's canonicalization pattern, MLIR's `getCanonicalizationPatterns`).

        Unlike `fold`, the answer is a new call: `canonicalize` (and `tf-simplify`) build it,
        with the call's binding and source span, when its operands are visible at the call and
        its type is the call's, and replace the call with it. It must not change the IR.
        `transpose(transpose(x, p), q)` is `transpose(x, p∘q)` so (`Transpose.canonicalize`)."""
        return None

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        """The floating-point operations of one call on arguments of these static types (what
        `tf-analyze` counts): 0 unless the Op says otherwise."""
        return 0

    def exact_integers(self, arrays: Sequence[Any], value: Any) -> bool | None:
        """The folder's exactness rule for an integer or i1 result: whether `value`, what
        `reference` computed on `arrays`, is the exact result (no wrap-around, no case the docs
        leave to run time), so that it may become a literal. None (the default): no rule of its
        own; the folder then takes an i1 result as exact and judges an integer one by running
        `reference` on unbounded Python integers (`transforms/fold_exactness.py`)."""
        return None

    @classmethod
    def has_reference(cls) -> bool:
        """Whether the op defines `reference` (an op without one does not run)."""
        return cls.reference is not Op.reference

    def reference(self, *arrays: Any) -> Any:
        """The op's numpy reference semantics, what the interpreter runs (`evaluate_op`): the
        result on one numpy array per input (a tuple of arrays for a tuple input), as an array,
        a tuple of them (a tuple result), or None for an effect-form op, which writes its buffer
        arguments in place (a buffer is a writeable array; a tensor's is read-only). A tensor
        result is rounded once to its dtype by the interpreter. Numbers follow
        `tilefoundry.dialects.tf.numerics` (docs/ir.md, "Numeric semantics")."""
        raise NotImplementedError(f"{type(self).__name__} has no reference implementation")

    def _exact_attrs(self) -> object:
        """The attributes as equality sees them (`_exact`), worked out once: an Op is
        immutable, and it keys the `typeinfer` memo."""
        found = self.__dict__.get("_exact")
        if found is None:
            found = _exact(self._attrs)
            object.__setattr__(self, "_exact", found)
        return found

    def __eq__(self, other: object) -> bool:
        return (
            self is other
            or isinstance(other, Op)
            and type(other) is type(self)
            and other._exact_attrs() == self._exact_attrs()
        )

    def __hash__(self) -> int:
        found = self.__dict__.get("_hash")
        if found is None:
            found = hash((type(self), self._exact_attrs()))
            object.__setattr__(self, "_hash", found)
        return cast(int, found)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._attrs.items())
        return f"{type(self).__name__}({fields})"


def _exact(value: Any) -> Any:
    """A value as an Op's equality sees it: a float by its bits (`-0.0` is not `0.0`, as it is
    not to the IR's attributes), in tuples, lists and dicts too."""
    if isinstance(value, float):
        return (float, value.hex())
    if isinstance(value, tuple | list):
        return (type(value), tuple(_exact(item) for item in value))
    if isinstance(value, dict):
        return tuple((key, _exact(item)) for key, item in value.items())
    return value


def _immutable(op: Op, name: str, verb: str) -> NoReturn:
    raise AttributeError(
        f"cannot {verb} attribute '{name}' of {op!r}: an Op is an immutable value; build "
        f"another ({type(op).__name__}(...) with the attributes you want)"
    )


def _rebuilt(cls: type[Op], attrs: dict[str, object]) -> Op:
    """An unpickled Op: made again from its class and attributes (a singleton stays one)."""
    return cls(**attrs)


@dataclass(frozen=True)
class OpSchema:
    """A registry entry. `op_class` is None for an alias, whose `builder` returns a target Op
    with attributes pre-fixed and whose `params` are that Op's own ParamDef objects."""

    dialect: str
    category: str
    name: str
    op_class: type[Op] | None
    params: tuple[ParamDef, ...]
    builder: Callable[..., Op]

    @property
    def input_params(self) -> tuple[ParamDef, ...]:
        return tuple(p for p in self.params if p.kind == "input")

    @property
    def full_name(self) -> str:
        """`dialect.category.name`: an op's IR name, or the name an alias is called by."""
        return f"{self.dialect}.{self.category}.{self.name}"

    @property
    def is_alias(self) -> bool:
        return self.op_class is None


_BUCKETS: dict[tuple[str, str, str], list[OpSchema]] = {}
_OPS_BY_NAME: dict[str, type[Op]] = {}


def _check_coordinates(dialect: str, category: str, name: str) -> None:
    for what, value in (("dialect", dialect), ("category", category), ("name", name)):
        if not isinstance(value, str) or not _SEGMENT.fullmatch(value):
            raise ValueError(f"registry {what} must be a lowercase identifier, got {shown(value)}")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


OpT = TypeVar("OpT", bound=type[Op])


@typing.overload
def register_op(cls: OpT) -> OpT: ...
@typing.overload
def register_op(
    cls: None = None, *, dialect: str = "tf", category: str = "custom", name: str | None = None
) -> Callable[[OpT], OpT]: ...
def register_op(
    cls: OpT | None = None,
    *,
    dialect: str = "tf",
    category: str = "custom",
    name: str | None = None,
) -> OpT | Callable[[OpT], OpT]:
    """Register an Op class under `(dialect, category, name)`; its IR name is
    `dialect.category.name` (name defaults to the class name in snake case)."""

    def register(klass: OpT) -> OpT:
        if not (isinstance(klass, type) and issubclass(klass, Op)):
            raise TypeError(f"@register_op applies to Op subclasses, got {shown(klass)}")
        op_name = name or _snake(klass.__name__)
        _check_coordinates(dialect, category, op_name)
        full = f"{dialect}.{category}.{op_name}"
        if full in _OPS_BY_NAME and _OPS_BY_NAME[full] is not klass:
            raise ValueError(f"an op named '{full}' is already registered")
        for param in klass.params():
            if param.kind == "attribute" and param.has_default:
                _check_value(param, param.default, full)
        klass.op_name = full
        _OPS_BY_NAME[full] = klass
        schema = OpSchema(dialect, category, op_name, klass, tuple(klass.params()), klass)
        _BUCKETS.setdefault((dialect, category, op_name), []).append(schema)
        CACHES.bump()  # an answer remembered before may name this op now
        return klass

    return register if cls is None else register(cls)


def register_alias(
    *, dialect: str, category: str, name: str, params: Sequence[ParamDef]
) -> Callable[[Callable[..., Op]], Callable[..., Op]]:
    """Register a surface alias: a schema with no IR class whose builder returns a target Op with
    attributes pre-fixed. It is prepended to its bucket, so it wins first-match resolution."""
    _check_coordinates(dialect, category, name)
    for param in params:
        if not isinstance(param, ParamDef) or param.name == "<unbound>":
            raise TypeError(
                f"alias '{name}' params must be the target Op's own ParamDefs (e.g. Binary.lhs), "
                f"got {shown(param)}"
            )

    def register(builder: Callable[..., Op]) -> Callable[..., Op]:
        schema = OpSchema(dialect, category, name, None, tuple(params), builder)
        _BUCKETS.setdefault((dialect, category, name), []).insert(0, schema)
        CACHES.bump()
        return builder

    return register


def op_schemas(
    dialect: str | None = None, category: str | None = None, name: str | None = None
) -> tuple[OpSchema, ...]:
    """The schemas registered under these coordinates.

    With all three, the bucket of `(dialect, category, name)`, first match first (empty when
    unknown), as overload resolution reads it. With fewer (`op_schemas()`, `op_schemas("tf")`,
    `op_schemas("tf", "math")`), every schema under that prefix, the op libraries loaded first
    (`add_library_loader`): sorted by `(dialect, category, name)`, each bucket in its own order
    (aliases first). A name needs its category.
    """
    if dialect is not None and category is not None and name is not None:
        return tuple(_BUCKETS.get((dialect, category, name), ()))
    if name is not None:
        raise TypeError("op_schemas: a name needs its dialect and category")
    if category is not None and dialect is None:
        raise TypeError("op_schemas: a category needs its dialect")
    load_libraries()
    prefix = tuple(c for c in (dialect, category) if c is not None)
    return tuple(
        schema
        for key in sorted(_BUCKETS)
        if key[: len(prefix)] == prefix
        for schema in _BUCKETS[key]
    )


def schemas_defined_in(package: str) -> tuple[OpSchema, ...]:
    """The schemas registered so far whose op class (or alias builder) is defined in `package`
    or a module under it, sorted as `op_schemas` sorts them; no op library is loaded for it
    (what `tilefoundry.ops` generates its builders from)."""

    def inside(schema: OpSchema) -> bool:
        module: str = (schema.op_class or schema.builder).__module__
        return module == package or module.startswith(package + ".")

    return tuple(s for key in sorted(_BUCKETS) for s in _BUCKETS[key] if inside(s))


def first_op_class(dialect: str, category: str, name: str) -> type[Op] | None:
    """The first real op class of a bucket, skipping aliases (None when there is none)."""
    return next((s.op_class for s in op_schemas(dialect, category, name) if s.op_class), None)


_LIBRARY_LOADERS: list[Callable[[], object]] = []


def add_library_loader(loader: Callable[[], object]) -> None:
    """Register a loader (e.g. an import) that registers more ops; loaders run, in order, the
    first time a lookup misses, so that a library costs nothing until its ops are named."""
    _LIBRARY_LOADERS.append(loader)


def load_libraries() -> None:
    """Run every pending library loader (what a listing of the registry needs)."""
    while _LIBRARY_LOADERS:
        _LIBRARY_LOADERS.pop(0)()


def lookup_op_class(op_name: str) -> type[Op] | None:
    """The op class registered under an IR name such as `tf.math.binary`."""
    found = _OPS_BY_NAME.get(op_name)
    while found is None and _LIBRARY_LOADERS:
        _LIBRARY_LOADERS.pop(0)()
        found = _OPS_BY_NAME.get(op_name)
    return found


def close_names(name: str, *, aliases: bool) -> list[str]:
    """The registered names nearest to `name` (`difflib`; at most three, nearest first, those
    about as near as the nearest): op IR names, and with `aliases` the names aliases are called
    by too (the Python surface takes both)."""
    load_libraries()
    names = set(_OPS_BY_NAME)
    if aliases:
        names.update(".".join(key) for key, bucket in _BUCKETS.items() if bucket)
    found = difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.75)
    best = [difflib.SequenceMatcher(None, name, f).ratio() for f in found]
    # names share long prefixes (`tf.reduce.`): only those about as near as the nearest
    return [f for f, score in zip(found, best, strict=True) if score >= best[0] - 0.1]


def did_you_mean(names: Sequence[str]) -> str:
    """`; did you mean 'a'?` (or `'a' or 'b'`), empty for no names: the tail of an error."""
    if not names:
        return ""
    return "; did you mean " + " or ".join(f"'{n}'" for n in names) + "?"


def resolve_schema(dialect: str, category: str, name: str, arg_types: Sequence[IRType]) -> OpSchema:
    """Overload resolution: the first schema of the bucket whose input patterns accept the
    argument types."""
    bucket = op_schemas(dialect, category, name)
    if not bucket:
        load_libraries()
        bucket = op_schemas(dialect, category, name)
    if not bucket:
        full = f"{dialect}.{category}.{name}"
        hint = did_you_mean(close_names(full, aliases=True))
        raise VerifyError(f"no op or alias is registered as {full}{hint}")
    for schema in bucket:
        inputs = schema.input_params
        if len(inputs) == len(arg_types) and all(
            p.pattern is None or p.pattern.match(t.tensor if isinstance(t, BufferType) else t)
            for p, t in zip(inputs, arg_types, strict=True)
        ):
            return schema
    shown = ", ".join(str(t) for t in arg_types)
    raise VerifyError(f"no overload of {dialect}.{category}.{name} accepts ({shown})")


_INFERRED: BoundedMapping[tuple[object, ...], IRType] = CACHES.mapping("inferred types")
"""`typeinfer`'s answers, keyed by the Op and the argument types (values: equal Ops are of one
class with the same attributes, bit for bit, and equal types are the same type). The result
type of a call depends on nothing else: `infer_type` is a pure function of the Op's attributes
and the argument types (its contract), and the registry it may consult is the `CACHES`
generation's (a registration empties the memo). Only answers are remembered: a refusal is
worked out, with its message, every time."""


def typeinfer(target: Op, arg_types: Iterable[IRType]) -> IRType:
    """The type of `Call(target, args)`: checks the argument count and each argument's pattern,
    then asks the Op. Raises VerifyError with MLIR-style text. Remembered by value (`_INFERRED`):
    a model asks about the same few (op, types) pairs many times."""
    if not isinstance(target, Op):
        refuse_type("typeinfer target", "an Op", target)
    types_ = items_of(arg_types, "typeinfer arg_types", "an iterable of IRType")
    for index, arg_type in enumerate(types_):
        if not isinstance(arg_type, TensorType | BufferType | TupleType | UnitType):
            refuse_type(f"typeinfer arg_types #{index}", "an IRType", arg_type)
    key = (target, *types_)
    found = _INFERRED.get(key)
    if found is None:
        found = _typeinfer(target, types_)
        _INFERRED.set(key, found)
    return found


def _typeinfer(target: Op, types_: Sequence[IRType]) -> IRType:
    """`typeinfer` worked out: the arity, each argument's pattern and effect, `infer_type`."""
    inputs = type(target).input_params()
    if len(types_) != len(inputs):
        raise VerifyError(
            f"{target.op_name} expects {len(inputs)} argument(s) "
            f"({', '.join(p.name for p in inputs)}), got {len(types_)}"
        )
    for index, (param, arg_type) in enumerate(zip(inputs, types_, strict=True)):
        check_effect(target, index, param, arg_type)
        matched = arg_type.tensor if isinstance(arg_type, BufferType) else arg_type
        if param.pattern is not None and not param.pattern.match(matched):
            raise VerifyError(
                f"{target.op_name} argument #{index} ('{param.name}') expects {param.pattern}, "
                f"got {arg_type}"
            )
    try:
        result = target.infer_type(*types_)
    except (TypeError, ValueError) as err:
        raise VerifyError(f"{target.op_name}: {err}") from None
    if not isinstance(result, TensorType | BufferType | TupleType | UnitType):
        raise VerifyError(f"{target.op_name}.infer_type returned {shown(result)}, not an IRType")
    if isinstance(result, BufferType) and not target.allocates:
        raise VerifyError(f"{target.op_name} returns the buffer {result}, but does not allocate")
    return result


def check_effect(target: Op, index: int, param: ParamDef, arg_type: IRType) -> None:
    """A buffer goes only where the Op declares an effect on it; a write needs a buffer."""
    if param.effect is None and isinstance(arg_type, BufferType):
        raise VerifyError(f"operand #{index} is a buffer ({arg_type}); read it with tf.memory.load")
    if param.effect == "write" and not isinstance(arg_type, BufferType):
        raise VerifyError(
            f"'{target.op_name}' writes operand #{index} in place, which must be a buffer, "
            f"got {arg_type}"
        )
