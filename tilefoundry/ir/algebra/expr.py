"""Expr: the base of every expression node, `Var`, and the metadata helpers.

The expression nodes are IR objects: `Call`, `Constant` and `Tuple` are the `tf.call`,
`tf.constant` and `tf.tuple` operations themselves (they mix in `ExprOp`), and a `Var` is a view
over an SSA value (a function parameter, or a TIR binding). Every Expr has a `type` (a
`TensorType`, `TupleType` or `UnitType`) and a `metadata` tuple, which is read from the node's
location (see `tilefoundry.builtin.metadata`).

Expr nodes are graph nodes: `==` and `hash` are identity (for a `Var`, identity of the value it
views); `structural_equal` compares structure. `repr` never shows metadata.
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NoReturn, TypeVar, cast

from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    IRMetadata,
    SourceSpanMetadata,
    check_metadata,
    location_to_metadata,
    metadata_to_location,
    span_text,
)
from tilefoundry.builtin.types import (
    BufferType,
    IRType,
    TensorType,
    TupleType,
    UnitType,
    from_attr,
    to_attr,
)
from tilefoundry.ir.state import Slot
from tilefoundry.support.arguments import described, refuse_type, shown
from tilefoundry.support.caches import CACHES
from tilefoundry.support.diagnostics import VerifyError, with_context

__all__ = [
    "Expr",
    "adopt_params",
    "check_expr",
    "check_new_params",
    "clone_with_state",
    "building",
    "collect_expression",
    "detached_copy",
    "dominates",
    "ExprOp",
    "Var",
    "VarOwner",
    "binding_name",
    "check_param_name",
    "escape_param_name",
    "is_param_name",
    "unescape_param_name",
    "diagnostic_location",
    "expr_value",
    "get_metadata",
    "is_defined_within",
    "remove_metadata",
    "replace_metadata",
    "source_metadata",
]

_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
"""A name the text spells as itself (an SSA name); any other parameter name is escaped
(`escape_param_name`)."""

T = TypeVar("T", bound=IRMetadata)
E = TypeVar("E", bound="Expr")


class Expr(abc.ABC):
    """The base of every expression node: it has a `type` and a `metadata` tuple."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def type(self) -> IRType: ...

    @property
    @abc.abstractmethod
    def metadata(self) -> tuple[IRMetadata, ...]: ...

    @abc.abstractmethod
    def _copy_with_metadata(self: E, metadata: tuple[IRMetadata, ...]) -> E:
        """A copy of this node that carries other metadata (the input is left unchanged)."""


def _apply_metadata(
    value_holder: Operation | BlockArgument, metadata: tuple[IRMetadata, ...]
) -> None:
    """Store a validated metadata tuple: the location, and the binding as the SSA name hint."""
    value_holder.location = metadata_to_location(metadata)
    binding = next((m.name for m in metadata if type(m) is BindingMetadata), None)
    if isinstance(value_holder, Operation):
        if binding is not None and len(value_holder.results) == 1:
            value_holder.results[0].name_hint = _hint(binding)


def _hint(name: str) -> str | None:
    """The SSA name hint for a label, or None when the label cannot be an SSA name (or is all
    uniquing suffix, `_0`, which xDSL would strip to nothing)."""
    if not SSAValue.is_valid_name(name) or re.fullmatch(r"_\d+", name):
        return None
    return name


class ExprOp(Expr):
    """Mixin for operations that are Exprs: the type is the (single) result's, or `UnitType`
    when the op has no result; the metadata is read from the location."""

    __slots__ = ()

    @property
    def type(self) -> IRType:
        assert isinstance(self, Operation)
        if not self.results:
            return UnitType()
        return from_attr(self.results[0].type)

    @property
    def metadata(self) -> tuple[IRMetadata, ...]:
        assert isinstance(self, Operation)
        return location_to_metadata(self.location)

    def _init_metadata(self, metadata: Iterable[IRMetadata]) -> None:
        """Validate and store the metadata given to a constructor (the last step of every Expr
        op constructor, so it also records the op in the innermost `building()` scope)."""
        assert isinstance(self, Operation)
        self._init_checked_metadata(check_metadata(metadata, what=f"'{self.name}' metadata"))

    def _init_checked_metadata(self, metadata: tuple[IRMetadata, ...]) -> None:
        """`_init_metadata` of metadata `check_metadata` gave: stored only when there is some
        (a new op's location is already the unknown one, which no metadata is)."""
        if metadata:
            _apply_metadata(cast(Operation, self), metadata)
        scopes = _BUILDING.get()
        if scopes:
            scopes[-1].append(cast(Operation, self))

    def carry_python_state(self, copy: Operation) -> None:
        """Give a copy of this op the Python-only state it keeps (`tilefoundry.ir.state`);
        nothing, unless the op keeps some."""

    def _copy_with_metadata(self: E, metadata: tuple[IRMetadata, ...]) -> E:
        assert isinstance(self, Operation)
        copy = detached_copy(self)
        _apply_metadata(copy, metadata)
        if not any(type(m) is BindingMetadata for m in metadata):
            for result in copy.results:
                result.name_hint = None
        return cast(E, copy)

    def verify_metadata(self) -> None:
        """Part of the op's verifier: the location must hold valid metadata."""
        assert isinstance(self, Operation)
        location = (self.location,)
        if not _CHECKED_LOCATIONS.holds(location):
            _check_location(location[0])
            _CHECKED_LOCATIONS.add(location)

    def __repr__(self) -> str:
        assert isinstance(self, Operation)
        return f"<{self.name} : {_type_text(self)}>"


_CHECKED_LOCATIONS = CACHES.memo("verified locations")
"""Locations found to hold valid metadata (locations are immutable)."""


def _check_location(location: Attribute) -> None:
    """A location holds valid metadata. The verifier's error names the op's binding and span
    itself."""
    check_metadata(location_to_metadata(location), what="metadata", context=False)


def _type_text(op: Operation) -> str:
    if not op.results:
        return "()"
    return ", ".join(str(r.type) for r in op.results)


_BUILDING: contextvars.ContextVar[tuple[list[Operation], ...]] = contextvars.ContextVar(
    "tilefoundry_building", default=()
)
"""The open `building()` scopes of the running thread (or asyncio task), innermost last: a
context variable, so a thread sees only the scopes it opened itself."""


@contextlib.contextmanager
def building() -> Iterator[list[Operation]]:
    """Collect, in creation order, the Expr ops constructed inside the `with` block by the
    running thread (how a region-holding Expr such as `Mesh` learns which expressions form its
    body). Scopes nest; an op is collected by the innermost."""
    built: list[Operation] = []
    token = _BUILDING.set((*_BUILDING.get(), built))
    try:
        yield built
    finally:
        _BUILDING.reset(token)


class VarOwner(abc.ABC):
    """An op that defines Vars (a function, a TIR binding) and keeps their names and const-ness:
    value `index` is the block argument `index` of its body, or its result `index`."""

    @abc.abstractmethod
    def var_name(self, value: SSAValue) -> str: ...

    @abc.abstractmethod
    def var_is_const(self, value: SSAValue) -> bool: ...


class Var(Expr):
    """A named value: an HIR function parameter or a TIR binding.

    `Var(name, type, is_const=False)` makes a detached Var; building a function from it makes it
    a parameter (the Var then views the function's block argument). `is_const` marks an external
    constant tensor parameter: it changes neither the type nor embeds a payload.
    """

    __slots__ = ("_value", "_name", "_is_const")

    _value: SSAValue
    _name: str
    _is_const: bool

    def __init__(
        self,
        name: str,
        type: IRType,
        is_const: bool = False,
        *,
        metadata: Iterable[IRMetadata] = (),
    ) -> None:
        check_param_name(name)
        if not isinstance(type, TensorType | BufferType | TupleType | UnitType):
            raise TypeError(f"Var '{name}' type must be an IRType, got {shown(type)}")
        if not isinstance(is_const, bool):
            raise TypeError(f"Var '{name}' is_const must be a bool, got {shown(is_const)}")
        if is_const and not isinstance(type, TensorType):
            raise TypeError(f"Var '{name}' is const, so its type must be a TensorType, got {type}")
        items = check_metadata(metadata, what=f"Var '{name}' metadata")
        block = Block(arg_types=[to_attr(type)])
        arg = block.args[0]
        arg.name_hint = _hint(name)
        arg.location = metadata_to_location(items)
        self._value = arg
        self._name = name
        self._is_const = is_const
        DETACHED_VAR.set(arg, self)

    @classmethod
    def view(cls, value: SSAValue) -> Var:
        """The Var standing for an SSA value: the detached Var that made it, or a view of a
        value defined by a `VarOwner`."""
        detached = DETACHED_VAR.get(value)
        if detached is not None:
            return detached
        var = cls.__new__(cls)
        var._value = value
        var._name = ""
        var._is_const = False
        return var

    @property
    def value(self) -> SSAValue:
        """The SSA value this Var stands for."""
        return self._value

    def owner(self) -> VarOwner | None:
        """The op that defines this Var, None while it is detached."""
        value = self._value
        if isinstance(value, OpResult):
            op: Operation | None = value.op
        else:
            assert isinstance(value, BlockArgument)
            op = value.block.parent_op()
        return op if isinstance(op, VarOwner) else None

    @property
    def name(self) -> str:
        owner = self.owner()
        return owner.var_name(self._value) if owner is not None else self._name

    @property
    def is_const(self) -> bool:
        owner = self.owner()
        return owner.var_is_const(self._value) if owner is not None else self._is_const

    @property
    def type(self) -> IRType:
        return from_attr(self._value.type)

    @property
    def metadata(self) -> tuple[IRMetadata, ...]:
        value = self._value
        location = (
            value.location
            if isinstance(value, BlockArgument)
            else cast(OpResult, value).op.location
        )
        return location_to_metadata(location)

    def _copy_with_metadata(self, metadata: tuple[IRMetadata, ...]) -> Var:
        return Var(self.name, self.type, self.is_const, metadata=metadata)

    def rebind(self, value: SSAValue) -> None:
        """Make this Var view `value` (used when a function adopts it as a parameter)."""
        DETACHED_VAR.set(self._value, None)
        self._value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Var) and other._value is self._value

    def __hash__(self) -> int:
        return id(self._value)

    def __repr__(self) -> str:
        const = ", const" if self.is_const else ""
        return f"Var({self.name}: {self.type}{const})"


DETACHED_VAR: Slot[Var] = Slot("var")
"""On the argument of a detached Var's authoring block: that Var, so that `Call.args` gives it
back (the Var object the user holds) until a function adopts it."""


def check_new_params(function: str, params: list[Var]) -> None:
    """A function's parameters: detached Vars with distinct names."""
    seen_names: set[str] = set()
    for index, param in enumerate(params):
        if not isinstance(param, Var):
            raise TypeError(
                f"function '{function}' param #{index} must be a Var, got {shown(param)}"
            )
        value = param.value
        if not (isinstance(value, BlockArgument) and value.block.parent is None):
            raise VerifyError(f"function '{function}': Var '{param.name}' is already a parameter")
        if param.name in seen_names:
            raise VerifyError(f"function '{function}': parameter name '{param.name}' is used twice")
        seen_names.add(param.name)


def adopt_params(params: list[Var]) -> Block:
    """A block whose arguments the (checked) parameter Vars now view, their uses moved along."""
    block = Block(arg_types=[p.value.type for p in params])
    for param, arg in zip(params, block.args, strict=True):
        value = param.value
        assert isinstance(value, BlockArgument)
        arg.location = value.location
        arg.name_hint = value.name_hint
        value.replace_all_uses_with(arg)
        param.rebind(arg)
    return block


def is_defined_within(value: SSAValue, op: Operation) -> bool:
    """Whether a value is defined inside `op` (by an op nested in it, or as one of its blocks'
    arguments), as opposed to a value a region of `op` uses from outside."""
    owner = (
        value.op if isinstance(value, OpResult) else cast(BlockArgument, value).block.parent_op()
    )
    while owner is not None:
        if owner is op:
            return True
        owner = owner.parent_op()
    return False


def collect_expression(
    where: str, body: Expr, outside: Callable[[SSAValue], bool], params: Sequence[Var] = ()
) -> list[Operation]:
    """The detached expression ops that `body` needs, in definition order (operands first).

    A value for which `outside(value)` holds is given (a parameter, an earlier TIR binding);
    every other value must be the result of a detached expression op, which is collected.
    Anything else is refused, naming the binding and span of the expression that uses it (and
    `params`, when a Var that is not one of them is used). Iterative: a chain of any length.
    """

    def refuse(message: str, user: Operation | None) -> NoReturn:
        if user is None or not isinstance(user, Expr):
            raise VerifyError(f"{where}: {message}")
        raise VerifyError(
            with_context(f"{where}: {message}", binding_name(user), diagnostic_span(user))
        )

    def producer(value: SSAValue, index: int | None, user: Operation | None) -> Operation | None:
        """The op to collect for a value (None when the value is given): argument #`index` of
        `user`, or the body itself (index None)."""
        if outside(value):
            return None
        if isinstance(value, OpResult):
            return value.owner
        what = (
            "the body" if index is None or user is None else f"argument #{index} of '{user.name}'"
        )
        var = Var.view(value)
        if var.owner() is None and isinstance(value, BlockArgument) and value.block.parent is None:
            listed = ", ".join(p.name for p in params) or "none"
            refuse(
                f"{what} uses Var '{var.name}', which is not one of its parameters ({listed})",
                user,
            )
        refuse(f"{what} uses a value of another function ('{var.name}')", user)

    def uses(op: Operation) -> list[Operation]:
        """The producers of the values an op uses (its regions' uses from outside included)."""
        found: list[Operation] = []
        for index, operand in enumerate(op.operands):
            if (inner := producer(operand, index, op)) is not None:
                found.append(inner)
        for region in op.regions:
            for block in region.blocks:
                for nested in block.walk():
                    for index, operand in enumerate(nested.operands):
                        if is_defined_within(operand, op):
                            continue
                        if (inner := producer(operand, index, nested)) is not None:
                            found.append(inner)
        return found

    if isinstance(body, Var):
        root = producer(body.value, None, None)
    elif isinstance(body, Operation):
        root = body
    else:
        raise TypeError(
            f"{where}: the body must be an Expr, got {type(body).__name__} {shown(body)}"
        )
    order: list[Operation] = []
    done: set[Operation] = set()
    stack: list[tuple[Operation, bool]] = [] if root is None else [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if op in done:
            continue
        if expanded:
            done.add(op)
            order.append(op)
            continue
        if not isinstance(op, ExprOp):
            refuse(f"'{op.name}' is not an expression", None)
        if op.parent is not None:
            refuse(
                f"a '{op.name}' expression already belongs to a function; an expression can be "
                "used in one function only",
                op,
            )
        stack.append((op, True))
        stack.extend((inner, False) for inner in reversed(uses(op)) if inner not in done)
    return order


def _is_detached(value: SSAValue) -> bool:
    """Whether a value belongs to no function: a detached Var, or a detached expression's."""
    if isinstance(value, OpResult):
        return value.op.parent is None
    return cast(BlockArgument, value).block.parent is None


def _used_from_outside(op: Operation) -> list[SSAValue]:
    """The values an op uses, its regions' uses of values defined outside it included."""
    found = list(op.operands)
    for region in op.regions:
        for nested in region.walk():
            found.extend(v for v in nested.operands if not is_defined_within(v, op))
    return found


def _free_var(value: SSAValue) -> SSAValue:
    """A new detached Var standing for a value of a function (a parameter, a TIR binding)."""
    var = Var.view(value)
    name = var.name if is_param_name(var.name) else "v"
    return Var(name, var.type, var.is_const, metadata=var.metadata).value


def detached_copy(root: Operation) -> Operation:
    """A copy of an expression op that shares no use-list with IR of a function.

    A detached expression is copied alone: the copy uses the same detached Vars and expressions
    (as building it again would). For an expression that belongs to a function, the copy is a
    detached expression of its own: the expression ops it depends on in that function are
    copied too, and each value it takes from the function (a parameter, a TIR binding) becomes
    a new detached Var of the same name, type, const-ness and metadata. A pass run on the
    function afterwards sees none of it. Iterative: a chain of any length.
    """
    mapping: dict[SSAValue, SSAValue] = {}
    order: list[Operation] = []
    expanded: set[Operation] = set()
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, done = stack.pop()
        if done:
            order.append(op)
            continue
        if op in expanded:
            continue
        expanded.add(op)
        stack.append((op, True))
        for value in _used_from_outside(op):
            if value in mapping or _is_detached(value):
                continue
            producer = value.op if isinstance(value, OpResult) else None
            if isinstance(producer, ExprOp):
                if producer not in expanded:
                    stack.append((producer, False))
            else:
                mapping[value] = _free_var(value)
    copy = root
    for op in order:  # operands first; clone() maps each result to its copy's
        copy = clone_with_state(op, mapping)
    return copy


def clone_with_state(op: Operation, mapping: dict[SSAValue, SSAValue] | None = None) -> Operation:
    """`op.clone(value_mapper=mapping)`, with the Python-only state of every expression in it
    carried over (the function object a call was built with, until a module fixes its path)."""
    copy = op.clone(value_mapper=mapping)
    for original, duplicate in zip(op.walk(), copy.walk(), strict=True):
        if isinstance(original, ExprOp):
            original.carry_python_state(duplicate)
    return copy


def dominates(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is visible at `op`: defined before it in its block or in the block of one
    of its ancestors (dominance, in the single-block regions this IR has)."""
    block: Block | None
    if isinstance(value, BlockArgument):
        block = value.block
    else:
        block = cast(OpResult, value).op.parent
    node: Operation | None = op
    while node is not None and node.parent is not block:
        node = node.parent_op()
    if node is None or block is None:
        return False
    if isinstance(value, BlockArgument):
        return True
    definition = cast(OpResult, value).op
    previous = node.prev_op
    while previous is not None:
        if previous is definition:
            return True
        previous = previous.prev_op
    return False


def is_param_name(name: object) -> bool:
    """Whether `name` may name a parameter (a weight): any non-empty printable string (a
    `state_dict` key such as `0.weight`), the text escaping one that is no SSA name."""
    return isinstance(name, str) and bool(name) and name.isprintable()


def check_param_name(name: object) -> str:
    if not is_param_name(name):
        raise ValueError(
            f"invalid parameter name {shown(name)}: a name is a non-empty printable string"
        )
    assert isinstance(name, str)
    return name


_PLAIN = re.compile(r"[A-Za-z0-9_.\-]")


def escape_param_name(name: str) -> str:
    """The SSA name the text spells a parameter name with: the name itself when it is one
    (`layers.0.weight`), else `$` and the name with each character other than a letter, digit,
    `_`, `.` or `-` written as `$` and the two hex digits of each of its UTF-8 bytes
    (`0.weight` -> `$0.weight`, `a b` -> `$a$20b`). No plain name starts with `$`."""
    if _VAR_NAME.fullmatch(name):
        return name
    parts = [c if _PLAIN.fullmatch(c) else "".join(f"${b:02x}" for b in c.encode()) for c in name]
    return "$" + "".join(parts)


def unescape_param_name(text: str) -> str:
    """The parameter name an SSA name of the text spells (`escape_param_name` undone)."""
    if not text.startswith("$"):
        return text
    out, index, body = bytearray(), 0, text[1:]
    while index < len(body):
        if body[index] == "$" and re.fullmatch(r"[0-9a-fA-F]{2}", body[index + 1 : index + 3]):
            out.append(int(body[index + 1 : index + 3], 16))
            index += 3
        else:
            out.extend(body[index].encode())
            index += 1
    return out.decode("utf-8", "replace")


def check_var_name(name: object) -> str:
    if not isinstance(name, str) or not _VAR_NAME.fullmatch(name):
        raise ValueError(
            f"invalid Var name {shown(name)}: a name starts with a letter or '_' and holds only "
            "letters, digits and _ $ . -"
        )
    return name


def check_expr(value: object, what: str) -> Expr:
    """An argument that must be an Expr; a TypeError naming it otherwise (a Python number is
    not one: write it as a `Constant`)."""
    if not isinstance(value, Expr):
        hint = ""
        if isinstance(value, int | float) and not isinstance(value, bool):
            literal = repr(float(value)) if abs(value) < 1e15 else "..."
            hint = f" (write a number as a Constant of shape (1,), e.g. Constant([{literal}]))"
        raise TypeError(f"{what} must be an Expr, got {described(value)}{hint}")
    return value


def expr_value(expr: Expr, what: str) -> SSAValue:
    """The SSA value an Expr stands for as an operand (refused for an effect-form call)."""
    check_expr(expr, what)
    if isinstance(expr, Var):
        return expr.value
    if isinstance(expr, Operation):
        if len(expr.results) != 1:
            raise VerifyError(
                with_context(
                    f"{what} is an effect-form '{expr.name}' with no value to use",
                    binding_name(expr),
                    diagnostic_span(expr),
                )
            )
        return expr.results[0]
    raise TypeError(f"{what} must be a Var or an expression op, got {described(expr)}")


# ---------------------------------------------------------------------------------------------
# The metadata helpers. All match an exact class and never mutate their input.


def _check_class(cls: object) -> type[IRMetadata]:
    if not (isinstance(cls, type) and issubclass(cls, IRMetadata)):
        refuse_type("the metadata class", "an IRMetadata class", cls)
    return cls


def get_metadata(expr: Expr, cls: type[T]) -> T | None:
    """The unique value of exactly class `cls` in the expr's metadata, or None."""
    check_expr(expr, "get_metadata expr")
    _check_class(cls)
    return next((m for m in expr.metadata if type(m) is cls), None)


def replace_metadata(expr: E, value: IRMetadata) -> E:
    """A copy with the value of `value`'s exact class replaced in place (appended if absent)."""
    check_expr(expr, "replace_metadata expr")
    if not isinstance(value, IRMetadata):
        raise VerifyError(
            with_context(
                f"metadata must be an IRMetadata value, got {type(value).__name__} {shown(value)}",
                binding_name(expr),
                diagnostic_span(expr),
            )
        )
    items = list(expr.metadata)
    for index, item in enumerate(items):
        if type(item) is type(value):
            items[index] = value
            break
    else:
        items.append(value)
    return expr._copy_with_metadata(tuple(items))


def remove_metadata(expr: E, cls: type[IRMetadata]) -> E:
    """A copy without the value of exactly class `cls`; the input itself when it has none."""
    check_expr(expr, "remove_metadata expr")
    _check_class(cls)
    items = expr.metadata
    if not any(type(m) is cls for m in items):
        return expr
    return expr._copy_with_metadata(tuple(m for m in items if type(m) is not cls))


def binding_name(expr: Expr) -> str | None:
    """The authored SSA label: the BindingMetadata name (for a Var, its name when it has none)."""
    check_expr(expr, "binding_name expr")
    binding = get_metadata(expr, BindingMetadata)
    if binding is not None:
        return binding.name
    return expr.name if isinstance(expr, Var) else None


def diagnostic_span(expr: Expr) -> str | None:
    span = get_metadata(expr, SourceSpanMetadata)
    return None if span is None else span_text(span)


def diagnostic_location(expr: Expr) -> str | None:
    """Where a diagnostic about the expr points: its source span, else its binding label."""
    check_expr(expr, "diagnostic_location expr")
    return diagnostic_span(expr) or binding_name(expr)


def source_metadata(expr: Expr) -> tuple[IRMetadata, ...]:
    """The binding and source-span values only, in order: what a pass copies onto the
    expression it synthesizes in place of this one."""
    check_expr(expr, "source_metadata expr")
    return tuple(m for m in expr.metadata if type(m) in (BindingMetadata, SourceSpanMetadata))
