"""What `hir.func` and `tir.prim_func` share: a signature of named parameters.

Both ops hold `sym_name`, `function_type` (at most one result), `param_names` (semantic: weights
and callables are keyed by them, so they are printed exactly) and `arg_attrs` (`{const}` marks an
external constant tensor). `FunctionOpMixin` gives them the `Var` and `FunctionLike` answers,
`verify_signature` the rules, `parse_header` / `print_header` the text
`@name(%x: T {const}, ...) -> R attributes {...}`, and `signature_properties` the properties for
a function built from Python. `FunctionCallable` is xDSL's `CallableOpInterface` on both ops (so
xDSL's own utilities read their body and signature); `FunctionLike`'s types are read through it.
`FunctionReturn` is the one verifier of their return ops (`hir.return`, `tir.return`).

`dim_var_carrier` says where a DimVar's size is read at run time: the first parameter (and
axis) whose type carries it, what the HIR→TIR lowering and the emitter resolve a
`DimVarRangePat.dim_var` to (the spec's "runtime ShapeOf(param, axis)").

`check_body_ops` says what a body holds: expressions (ops with the `Expression` trait that an
HIR body may hold: `tf.call`, `tf.constant`, `tf.tuple`, `tf.mesh`) and its terminator; never a foreign op (a module, a
function, an op of another dialect or an unregistered one). `hir.func`, `hir.variant` and
`tf.mesh` bodies are checked so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, opt_prop_def, prop_def, region_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    IsolatedFromAbove,
    NoTerminator,
    SymbolOpInterface,
)

from tilefoundry.builtin.metadata import check_metadata, location_to_metadata
from tilefoundry.builtin.types import (
    BufferType,
    DimVar,
    IRType,
    TensorType,
    TupleType,
    UnitType,
    from_attr,
)
from tilefoundry.dialects.syntax import (
    ParsedParam,
    parse_signature,
    print_signature,
    with_attributes,
)
from tilefoundry.dialects.tf.module import SymbolMember
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.expr import VarOwner, check_param_name
from tilefoundry.ir.traits import ModuleMember, is_expression
from tilefoundry.ir.verify.verifier import OpVerifyError
from tilefoundry.support.caches import CACHES, BoundedMapping, shared
from tilefoundry.support.diagnostics import VerifyError

__all__ = [
    "BODY_TEXT",
    "PARAM_ATTRS",
    "DimVarCarrier",
    "FunctionCallable",
    "FunctionOpMixin",
    "FunctionReturn",
    "check_body_ops",
    "check_dim_vars",
    "dim_var_carrier",
    "parse_header",
    "print_header",
    "signature_properties",
    "verify_signature",
]

PARAM_ATTRS = ("const",)

BODY_TEXT = "tf.call, tf.constant, tf.tuple, tf.mesh"
"""How a diagnostic names the expressions an HIR body holds (the ops declared with the
`Expression` trait an HIR body may hold; a test checks that the two agree)."""


def check_body_ops(block: Block, where: str, terminator: type[Operation]) -> None:
    """Every op of a body is an expression an HIR body may hold (`is_expression`) or
    `terminator` (where it stands is its own `IsTerminator` check); the first that is neither is
    the error, reported at that op: another dialect's terminator, and an unregistered op, too."""
    for op in block.ops:
        if not is_body_op(op, terminator):
            raise foreign_body_op(op, where, terminator)


def is_body_op(op: Operation, terminator: type[Operation]) -> bool:
    """Whether `op` may stand in a body that `terminator` ends (see `check_body_ops`)."""
    return is_expression(op, in_hir=True) or isinstance(op, terminator)


def foreign_body_op(op: Operation, where: str, terminator: type[Operation]) -> OpVerifyError:
    """The error `check_body_ops` raises for an op a body may not hold."""
    return OpVerifyError(
        op,
        f"cannot be in the body of {where}; a body holds {BODY_TEXT} and ends "
        f"with {terminator.name}",
    )


class _Signature(Protocol):
    """The properties a function op holds (declared by `FunctionOpMixin`), for the code that
    reads them from an `Operation`."""

    sym_name: StringAttr
    function_type: FunctionType
    param_names: ArrayAttr[StringAttr]
    arg_attrs: ArrayAttr[DictionaryAttr] | None
    body: Region


class FunctionCallable(CallableOpInterface):
    """xDSL's `CallableOpInterface` for `hir.func` / `tir.prim_func`: the body region and the
    `function_type`'s inputs and outputs."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        return cast(_Signature, op).body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        return cast(_Signature, op).function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        return cast(_Signature, op).function_type.outputs.data


class FunctionOpMixin(SymbolMember, VarOwner, FunctionLike, IRDLOperation):
    """What `hir.func` and `tir.prim_func` declare alike (the signature's properties, the body,
    the traits, the custom form), and their `Var` and `FunctionLike` answers (see the module
    docstring). A subclass that adds a region declares `body` again before it (regions are in
    declaration order, a subclass's first)."""

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    param_names = prop_def(ArrayAttr[StringAttr])
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    # The body's return is checked by each op's verify_ (hir.func's variants need none).
    traits = traits_def(
        ModuleMember(), SymbolOpInterface(), FunctionCallable(), IsolatedFromAbove(), NoTerminator()
    )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        """The custom form: `print_header`'s text, the body, and the regions after it."""
        properties, params, attributes = parse_header(parser)
        body = parser.parse_region([p.argument for p in params])
        regions = [body, *cls.parse_regions_after_body(parser)]
        return with_attributes(cls.create(properties=properties, regions=regions), attributes)

    @classmethod
    def parse_regions_after_body(cls, parser: Parser) -> list[Region]:
        """The regions an op declares after `body`, in its custom form (none here)."""
        return []

    def print(self, printer: Printer) -> None:
        print_header(printer, self)
        printer.print_region(self.body, print_entry_block_args=False)

    def _signature(self) -> _Signature:
        return cast(_Signature, self)

    def var_name(self, value: SSAValue) -> str:
        assert isinstance(value, BlockArgument)
        return self._signature().param_names.data[value.index].data

    def var_is_const(self, value: SSAValue) -> bool:
        assert isinstance(value, BlockArgument)
        return "const" in self.param_attrs(value.index)

    def param_attrs(self, index: int) -> dict[str, Attribute]:
        arg_attrs = self._signature().arg_attrs
        return {} if arg_attrs is None else dict(arg_attrs.data[index].data)

    def function_name(self) -> str:
        return self._signature().sym_name.data

    def param_types(self) -> tuple[IRType, ...]:
        op = cast(Operation, self)
        return tuple(from_attr(t) for t in FunctionCallable.get_argument_types(op))

    def result_type(self) -> IRType:
        outputs = FunctionCallable.get_result_types(cast(Operation, self))
        return from_attr(outputs[0]) if outputs else UnitType()

    def dim_var_carrier(self, name: str) -> DimVarCarrier | None:
        """The first parameter and axis of this function that carries the DimVar `name`
        (`dim_var_carrier`), or None."""
        return dim_var_carrier(self.param_types(), name)

    def verify_signature(self) -> dict[str, DimVar]:
        """The signature's rules (see `verify_signature`); the function's name as a member of
        a module is the module's to check (`ModuleOp.verify_members`)."""
        signature = self._signature()
        return verify_signature(
            signature.body.block.args,
            signature.function_type,
            signature.param_names,
            signature.arg_attrs,
            f"function '@{signature.sym_name.data}'",
        )


class FunctionReturn:
    """The verifier `hir.return` and `tir.return` share: the values returned are the types the
    enclosing function declares (its results, or nothing). The function is the return's parent, or
    the parent's parent when the return ends a body nested in the function (a `hir.variant`);
    where the return may stand is each op's `HasParent` trait."""

    def verify_(self) -> None:
        op = cast(Operation, self)
        function = op.parent_op()
        if function is not None and not isinstance(function, FunctionOpMixin):
            function = function.parent_op()
        if not isinstance(function, FunctionOpMixin):
            return
        expected = FunctionCallable.get_result_types(function)
        actual = tuple(op.operand_types)  # the returned values are its only operands
        if actual != expected:
            shown = ", ".join(str(t) for t in expected) or "nothing"
            got = ", ".join(str(t) for t in actual) or "nothing"
            raise VerifyError(
                f"returns {got}, but function '@{function.function_name()}' returns {shown}"
            )


def verify_signature(
    args: Sequence[BlockArgument],
    function_type: FunctionType,
    param_names: ArrayAttr[StringAttr],
    arg_attrs: ArrayAttr[DictionaryAttr] | None,
    where: str,
) -> dict[str, DimVar]:
    """The rules every function signature keeps; its DimVars by name."""
    inputs = function_type.inputs.data
    names = [n.data for n in param_names]
    if len(args) != len(inputs):
        raise VerifyError(
            f"entry block has {len(args)} argument(s) for {len(inputs)} parameter type(s)"
        )
    for index, (arg, declared) in enumerate(zip(args, inputs, strict=True)):
        if arg.type != declared:
            raise VerifyError(
                f"parameter #{index} has type {arg.type}, but the signature says {declared}"
            )
        check_metadata(location_to_metadata(arg.location), what=f"parameter #{index} metadata")
    if len(names) != len(inputs):
        raise VerifyError(f"{len(names)} parameter name(s) for {len(inputs)} parameter(s)")
    seen: set[str] = set()
    for name in names:
        try:
            check_param_name(name)
        except ValueError as err:
            raise VerifyError(str(err)) from None
        if name in seen:
            raise VerifyError(f"parameter name '{name}' is used twice")
        seen.add(name)
    consts = [False] * len(inputs)
    if arg_attrs is not None:
        if len(arg_attrs) != len(inputs):
            raise VerifyError(
                f"{len(arg_attrs)} parameter attribute dictionaries for {len(inputs)} parameter(s)"
            )
        for index, attrs in enumerate(arg_attrs):
            for key, value in attrs.data.items():
                if key not in PARAM_ATTRS or not isinstance(value, UnitAttr):
                    raise VerifyError(
                        f"parameter '{names[index]}' has unknown attribute '{key}'; "
                        f"expected one of: {', '.join(PARAM_ATTRS)}"
                    )
            consts[index] = "const" in attrs.data
    outputs = function_type.outputs.data
    if len(outputs) > 1:
        raise VerifyError(
            f"a function returns one value (use a tuple for several), got {len(outputs)} results"
        )
    params = [from_attr(t) for t in inputs]
    for name, type, const in zip(names, params, consts, strict=True):
        if const and not isinstance(type, TensorType):
            raise VerifyError(f"const parameter '{name}' must be a tensor, got {type}")
    results = [from_attr(t) for t in outputs]
    return check_dim_vars([*params, *results], where)


def check_dim_vars(types: Sequence[IRType], where: str) -> dict[str, DimVar]:
    """Every DimVar name has one envelope throughout the types; the DimVars by name."""
    found: dict[str, DimVar] = {}

    def visit(type: IRType) -> None:
        if isinstance(type, TensorType):
            for dim in type.dim_vars:
                known = found.setdefault(dim.name, dim)
                if known != dim:
                    raise VerifyError(
                        f"DimVar '{dim.name}' has two envelopes in {where}: "
                        f"[{known.lo}, {known.hi}) and [{dim.lo}, {dim.hi})"
                    )
        elif isinstance(type, TupleType):
            for field in type.fields:
                visit(field)

    for type in types:
        visit(type)
    return found


@dataclass(frozen=True)
class DimVarCarrier:
    """Where a DimVar's size is read at run time: axis `axis` of parameter `param` (for a tuple
    parameter, of the tensor reached through the field indices `fields`, outermost first), whose
    dim there is `dim_var` (the DimVar with its envelope)."""

    param: int
    axis: int
    dim_var: DimVar
    fields: tuple[int, ...] = ()


def dim_var_carrier(param_types: Sequence[IRType], name: str) -> DimVarCarrier | None:
    """The first parameter and axis whose type carries the DimVar `name` (parameters in order;
    in a parameter, its axes in order, a tuple's fields depth first; a buffer's dims count, as a
    tensor's), or None when no parameter carries it. What the lowering resolves a variant's
    `DimVarRangePat.dim_var` to, and what a `tir.dispatch` reads its sizes from (its arguments'
    types are its cases' parameter types).

    ```python
    dim_var_carrier([TensorType((4,), "f32"), TensorType((8, n), "f32")], "n")
    # DimVarCarrier(param=1, axis=1, dim_var=n)
    ```
    """

    def find(type: IRType, fields: tuple[int, ...]) -> tuple[int, DimVar, tuple[int, ...]] | None:
        if isinstance(type, BufferType):
            type = type.tensor
        if isinstance(type, TensorType):
            for axis, dim in enumerate(type.shape):
                if isinstance(dim, DimVar) and dim.name == name:
                    return axis, dim, fields
        elif isinstance(type, TupleType):
            for index, field in enumerate(type.fields):
                found = find(field, (*fields, index))
                if found is not None:
                    return found
        return None

    for param, type in enumerate(param_types):
        found = find(type, ())
        if found is not None:
            axis, dim, path = found
            return DimVarCarrier(param, axis, dim, path)
    return None


_CONST_PARAM = DictionaryAttr({"const": UnitAttr()})
_PLAIN_PARAM = DictionaryAttr({})
"""A parameter's `arg_attrs` entry, one object each (attributes are immutable): shared, a
model's thousands of parameters compare by identity and are built once."""


def signature_properties(
    name: str,
    names: Sequence[str],
    consts: Sequence[bool],
    inputs: Sequence[Attribute],
    outputs: Sequence[Attribute],
) -> dict[str, Attribute]:
    """The signature properties of a function op (`arg_attrs` only when a param is const)."""
    properties: dict[str, Attribute] = {
        "sym_name": shared(StringAttr(name)),
        "function_type": _function_type(inputs, outputs),
        "param_names": shared(ArrayAttr(StringAttr(n) for n in names)),
    }
    if any(consts):
        const_attrs = ArrayAttr(_CONST_PARAM if c else _PLAIN_PARAM for c in consts)
        properties["arg_attrs"] = shared(const_attrs)
    return properties


_FUNCTION_TYPES: BoundedMapping[tuple[int, ...], FunctionType] = CACHES.mapping(
    "function types by their parts' identity"
)
"""The shared function type of these very input and output types (by their ids, which stay
theirs while the entry's function type holds them): a model's signatures are built from the
few type attributes `to_attr` shares, and a function type's hash walks every type in it."""


def _function_type(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> FunctionType:
    """`shared(FunctionType.from_lists(inputs, outputs))`, found by its parts' identity first."""
    key = (*map(id, inputs), -1, *map(id, outputs))
    found = _FUNCTION_TYPES.get(key)
    if (
        found is not None
        and all(a is b for a, b in zip(found.inputs.data, inputs, strict=True))
        and all(a is b for a, b in zip(found.outputs.data, outputs, strict=True))
    ):
        return found
    made = shared(FunctionType.from_lists(inputs, outputs))
    if all(a is b for a, b in zip(made.inputs.data, inputs, strict=True)) and all(
        a is b for a, b in zip(made.outputs.data, outputs, strict=True)
    ):
        _FUNCTION_TYPES.set(key, made)  # it holds these very parts: their ids stay theirs
    return made


def parse_header(parser: Parser) -> tuple[dict[str, Attribute], list[ParsedParam], Any]:
    """`@name(%x: T {const}, ...) -> R attributes {...}`: the signature properties, the parsed
    parameters (for the body region's arguments), and the discardable attributes (or None)."""
    sym_name = parser.parse_symbol_name()
    params, results = parse_signature(parser, PARAM_ATTRS)
    attributes = parser.parse_optional_attr_dict_with_keyword()
    properties = signature_properties(
        sym_name.data,
        [p.name for p in params],
        [],
        [p.argument.type for p in params],
        results,
    )
    if any(p.attrs for p in params):
        properties["arg_attrs"] = ArrayAttr(DictionaryAttr(p.attrs) for p in params)
    return properties, params, attributes


def print_header(printer: Printer, op: Operation) -> None:
    """Print `@name(%x: T {const}, ...) -> R attributes {...} `, up to the body."""
    signature = cast(_Signature, op)
    printer.print_string(" ")
    printer.print_symbol_name(signature.sym_name.data)
    print_signature(
        printer,
        signature.body.block.args,
        [n.data for n in signature.param_names],
        signature.arg_attrs,
        signature.function_type.outputs.data,
    )
    if op.attributes:
        printer.print_op_attributes(op.attributes, print_keyword=True)
    printer.print_string(" ")
