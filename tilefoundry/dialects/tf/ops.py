"""The `tf` dialect: the core IR's expressions (`tf.constant`, `tf.tuple`, `tf.call`) and its
execution domain (`tf.module`).

`Constant`, `Tuple` and `Call` in the spec are these operations: each is an `Expr` whose type is
its result's (a `tf.call` with no result is an effect-form call of type `UnitType`), and whose
metadata lives in its location. A `tf.call` targets either a registered `Op` (`#tf.op`) or a
function of the module tree by symbol; its verifier checks the argument count, each argument's
pattern, and that the result type is the one `typeinfer` computes.

The `tf.module` op lives in `tilefoundry.dialects.tf.module`; this file's `TF` dialect holds both.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from io import StringIO
from typing import Any, ClassVar, Protocol, cast, runtime_checkable

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    SymbolRefAttr,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.builtin import TupleType as BuiltinTupleType
from xdsl.ir import Attribute, Dialect, Operation, OpResult, SSAValue, TypeAttribute
from xdsl.irdl import (
    BaseAttr,
    IRDLOperation,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConditionallySpeculatable,
    ConstantLike,
    EffectInstance,
    HasFolder,
    MemoryEffect,
    Pure,
    SymbolUserOpInterface,
)

from tilefoundry.builtin.metadata import (
    IRMetadata,
    MetaAttr,
    SpanEndAttr,
    check_metadata,
    metadata_context,
    metadata_to_location,
)
from tilefoundry.builtin.target import TargetAttr, TopologyAttr
from tilefoundry.builtin.types import (
    VALUE_TYPES,
    BufferAttr,
    DimsAttr,
    IRType,
    TensorType,
    UnitType,
    from_attr,
    to_attr,
)
from tilefoundry.dialects.canonicalization_trait import Canonicalization
from tilefoundry.dialects.syntax import DeclaredFormat
from tilefoundry.dialects.tf.dense import array_to_dense, dense_to_array
from tilefoundry.dialects.tf.dim_range import DimRangeAttr
from tilefoundry.dialects.tf.effects import function_call_effects, op_call_effects
from tilefoundry.dialects.tf.mesh import MeshOp, YieldOp
from tilefoundry.dialects.tf.module import ModuleOp, OwnerContextAttr, lookup_symbol
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op, canonical, op_to_attr, parse_op_body
from tilefoundry.dialects.tf.op_attr import print_op_body as _print_op_body
from tilefoundry.ir.algebra.callable import FunctionLike, fits
from tilefoundry.ir.algebra.expr import Expr, ExprOp, Var, dominates, expr_value
from tilefoundry.ir.algebra.op_registry import Op, typeinfer
from tilefoundry.ir.state import Slot
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.ir.traits import AnchorsAllocation, Expression
from tilefoundry.ir.verify.op_verification import op_definition
from tilefoundry.support.arguments import items_of, refuse_type
from tilefoundry.support.caches import CACHES
from tilefoundry.support.diagnostics import VerifyError, with_context

__all__ = [
    "CALLEE_FUNCTION",
    "TF",
    "CallOp",
    "ConstantOp",
    "HasFunctionOp",
    "MeshOp",
    "ModuleOp",
    "TupleOp",
    "YieldOp",
    "arg_expr",
    "constant_value",
    "defining_call",
    "produced_value",
]


def _types_of(values: Sequence[SSAValue]) -> list[IRType]:
    return [from_attr(v.type) for v in values]


def arg_expr(value: SSAValue) -> Expr:
    """The Expr that an operand stands for: the op that defines it, or a Var."""
    if isinstance(value, OpResult) and isinstance(value.owner, ExprOp):
        return value.owner
    return Var.view(value)


def produced_value(value: SSAValue) -> SSAValue:
    """The value that produces `value`, seen through ops that only pass on what their region
    yields (a `tir.let` binding, a `tf.mesh` result): the yielded value, repeatedly."""
    while isinstance(value, OpResult):
        owner = value.op
        if len(owner.regions) != 1 or len(owner.regions[0].blocks) != 1:
            break
        terminator = owner.regions[0].block.last_op
        if terminator is None or len(terminator.operands) != len(owner.results):
            break
        value = terminator.operands[value.index]
    return value


def constant_value(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    """The literal a value is known to hold: a `ConstantLike` op's, seen through bindings."""
    constant = ConstantLike.get_constant_value(produced_value(value))
    return constant if isinstance(constant, DenseIntOrFPElementsAttr) else None


def defining_call(value: SSAValue) -> tuple[Op, CallOp] | None:
    """The registered Op and the `tf.call` that produce a value (seen through bindings)."""
    produced = produced_value(value)
    if isinstance(produced, OpResult) and isinstance(call := produced.op, CallOp):
        if isinstance(call.callee, OpAttr):
            return attr_to_op(call.callee), call
    return None


# ---------------------------------------------------------------------------------------------
# tf.constant


class ConstantFolder(HasFolder):
    """A constant folds to its literal (what `ConstantLike.get_constant_value` reads)."""

    @classmethod
    def fold(cls, op: Operation) -> Sequence[SSAValue | Attribute] | None:
        return (cast(ConstantOp, op).value_attr,)


@op_definition
class ConstantOp(ExprOp, IRDLOperation):
    """A literal tensor (`Constant` in the spec); a scalar is a rank-0 tensor.

    ```mlir
    %c = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %s = tf.constant dense<0.5> : tensor<f32>
    ```
    """

    name = "tf.constant"

    value_attr = prop_def(DenseIntOrFPElementsAttr, prop_name="value")
    result = result_def(BuiltinTensorType)

    traits = traits_def(Expression(), Pure(), ConstantLike(), ConstantFolder())

    def __init__(
        self,
        value: object,
        *,
        dtype: str | None = None,
        metadata: Iterable[IRMetadata] = (),
    ) -> None:
        attr = (
            value if isinstance(value, DenseIntOrFPElementsAttr) else array_to_dense(value, dtype)
        )
        super().__init__(properties={"value": attr}, result_types=[attr.type])
        self._init_metadata(metadata)

    @property
    def value(self) -> Any:
        """The literal as a numpy array (a 0-d array for a scalar)."""
        return dense_to_array(self.value_attr)

    def verify_(self) -> None:
        self.verify_metadata()
        if self.value_attr.type != self.result.type:
            raise VerifyError(
                f"value type {self.value_attr.type} does not match result type {self.result.type}"
            )
        type = from_attr(self.result.type)
        if not isinstance(type, TensorType) or not type.is_static:
            raise VerifyError(f"a constant has a static tensor type, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        position = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("expected a dense<...> : tensor<...> literal", position)
        attributes = parser.parse_optional_attr_dict()
        op = cls.create(properties={"value": value}, result_types=[value.type])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value_attr)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# tf.tuple


@op_definition
class TupleOp(DeclaredFormat, ExprOp, IRDLOperation):
    """The value-level multi-output aggregate (`Tuple` in the spec); its type is a `TupleType`.

    ```mlir
    %t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<2xi32>>
    ```
    """

    name = "tf.tuple"

    ASSEMBLY_FORMAT: ClassVar[str] = (
        "$elements_ attr-dict `:` custom<TupleFields>(type($elements_), type($result))"
    )

    elements_ = var_operand_def(VALUE_TYPES)
    result = result_def(BuiltinTupleType)

    traits = traits_def(Expression(), Pure())

    def __init__(self, elements: Iterable[Expr], *, metadata: Iterable[IRMetadata] = ()) -> None:
        items = items_of(elements, "Tuple elements", "an iterable of Expr")
        values = [expr_value(e, f"tuple element #{i}") for i, e in enumerate(items)]
        super().__init__(
            operands=[values],
            result_types=[BuiltinTupleType(ArrayAttr(cast(TypeAttribute, v.type) for v in values))],
        )
        self._init_metadata(metadata)

    @property
    def elements(self) -> tuple[Expr, ...]:
        return tuple(arg_expr(v) for v in self.elements_)

    def verify_(self) -> None:
        self.verify_metadata()
        operand_types = tuple(self.elements_.types)
        if tuple(self.result.type.types) != operand_types:
            shown = ", ".join(str(t) for t in operand_types)
            raise VerifyError(
                f"result type {self.result.type} does not match the element types ({shown})"
            )
        from_attr(self.result.type)


# ---------------------------------------------------------------------------------------------
# tf.call


@runtime_checkable
class HasFunctionOp(Protocol):
    """Something that stands for a function op (the `hir.Function` / `tir.PrimFunction` views)."""

    @property
    def function_op(self) -> Operation: ...


class CallSymbolUse(SymbolUserOpInterface):
    """A symbol call must name a function of the module tree, with fitting argument types and
    the callee's result type."""

    def verify(self, op: Operation) -> None:
        call = cast(CallOp, op)
        if not isinstance(call.callee, SymbolRefAttr):
            return
        callee = lookup_symbol(op, call.callee)
        if callee is None:
            raise VerifyError(
                f"'{_symbol_text(call.callee)}' does not reference a function in the module tree"
            )
        if not isinstance(callee, FunctionLike):
            raise VerifyError(
                f"'{_symbol_text(call.callee)}' references a '{callee.name}', not a function"
            )
        # Within one verification, a call of this function on these very argument and result
        # types is checked once (the IR does not change while it is verified, so the ids are
        # its objects'; the memo goes with the verification).
        memo = CACHES.scope()
        key: tuple[object, ...] | None = None
        if memo is not None:
            result = op.results[0].type if op.results else None
            key = (_FITTING_CALL, id(callee), id(result), *[id(v.type) for v in op.operands])
            if key in memo:
                return
        _check_function_call(callee, _types_of(call.args_), call.type, _symbol_text(call.callee))
        if memo is not None:
            memo[key] = True


_FITTING_CALL = object()
"""Marks the keys of `CallSymbolUse`'s entries in a verification's memo."""


@CACHES.owns
@functools.lru_cache(maxsize=4096)
def _symbol_text(ref: SymbolRefAttr) -> str:
    """`@a::@b`, each name quoted where it is not an identifier (`@"a b"`), as printed."""
    stream = StringIO()
    _print_symbol_ref(Printer(stream=stream), ref)
    return stream.getvalue()


def _print_symbol_ref(printer: Printer, ref: SymbolRefAttr) -> None:
    printer.print_symbol_name(ref.root_reference.data)
    for nested in ref.nested_references:
        printer.print_string("::")
        printer.print_symbol_name(nested.data)


def _check_function_call(
    callee: FunctionLike, arg_types: Sequence[IRType], result: IRType | None, shown: str
) -> IRType:
    params = callee.param_types()
    if len(params) != len(arg_types):
        raise VerifyError(f"{shown} expects {len(params)} argument(s), got {len(arg_types)}")
    for index, (param, arg) in enumerate(zip(params, arg_types, strict=True)):
        if not fits(param, arg):
            raise VerifyError(f"{shown} argument #{index} expects {param}, got {arg}")
    expected = callee.result_type()
    if result is not None and result != expected:
        raise VerifyError(f"result type {result} does not match {shown}'s result type {expected}")
    return expected


class CallEffects(MemoryEffect):
    """The memory effects of a call (`tilefoundry.dialects.tf.effects`): a pure op's value-form
    call has none; a memory op reads or writes the buffers its `ParamDef`s say (an alloc
    allocates its result); a function call has its callee's (None, all effects, when unknown)."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance] | None:
        call = cast(CallOp, op)
        if isinstance(call.callee, SymbolRefAttr):
            return function_call_effects(call, call.callee, call.args_)
        try:
            target = attr_to_op(call.callee)
        except VerifyError:
            return None
        return op_call_effects(target, call)


class CallSpeculation(ConditionallySpeculatable):
    @classmethod
    def is_speculatable(cls, op: Operation) -> bool:
        return cast(CallOp, op).is_pure_value_call()


class CallFolder(HasFolder):
    """A pure op call folds to the existing value its Op's `fold` names (`x * 1` is `x`)."""

    @classmethod
    def fold(cls, op: Operation) -> Sequence[SSAValue | Attribute] | None:
        call = cast(CallOp, op)
        if not call.is_pure_value_call():
            return None
        assert isinstance(call.callee, OpAttr)
        result = call.results[0]
        folded = attr_to_op(call.callee).fold(tuple(call.args_), from_attr(result.type))
        if folded is None or folded.type != result.type:
            return None
        # an argument is visible at the call; only another value needs the (linear) scan
        if folded not in call.operands and not dominates(folded, call):
            return None
        return (folded,)


CALLEE_FUNCTION: Slot[Operation] = Slot("callee_function")
"""On a call built from Python with a function object as target: that function, until the
module that holds the call fixes the callee's symbol path (relative to the calling module). It
is state of the call object itself; the text only ever holds fixed paths."""


@op_definition
class CallOp(ExprOp, IRDLOperation):
    """A call of a registered Op, or of a function of the module tree (`Call` in the spec).

    The result type is `typeinfer(target, args)`: a tensor, a tuple (multi-output ops; project a
    field with `tf.tuple.get_item`), or no result at all for an effect-form op (`UnitType`).

    ```mlir
    %y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %h = tf.call @layer0::@mlp(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    ```
    """

    name = "tf.call"

    callee = prop_def(BaseAttr(OpAttr) | BaseAttr(SymbolRefAttr))
    args_ = var_operand_def(VALUE_TYPES)
    res = opt_result_def(VALUE_TYPES)

    traits = traits_def(
        Expression(),
        CallSymbolUse(),
        CallEffects(),
        CallSpeculation(),
        CallFolder(),
        Canonicalization(),
    )

    def __init__(
        self,
        target: Op | FunctionLike | HasFunctionOp,
        args: Iterable[Expr],
        *,
        metadata: Iterable[IRMetadata] = (),
    ) -> None:
        items = check_metadata(metadata, what="'tf.call' metadata")
        arguments = items_of(args, "Call args", "an iterable of Expr")
        try:
            values = [expr_value(a, f"argument #{i}") for i, a in enumerate(arguments)]
            arg_types = [from_attr(v.type) for v in values]
            if isinstance(target, Op):
                result = typeinfer(target, arg_types)
                callee: Attribute = op_to_attr(target)
            else:
                function = target.function_op if isinstance(target, HasFunctionOp) else target
                if not isinstance(function, FunctionLike) or not isinstance(function, Operation):
                    refuse_type("Call target", "an Op or a function", target)
                sym_name = function.properties["sym_name"]
                shown = f"@{cast(Any, sym_name).data}"
                result = _check_function_call(function, arg_types, None, shown)
                callee = SymbolRefAttr(cast(Any, sym_name))
        except VerifyError as err:
            binding, span = metadata_context(items)
            raise VerifyError(with_context(f"'tf.call' op {err}", binding, span)) from None
        result_types = [] if isinstance(result, UnitType) else [to_attr(result)]
        # One variadic operand group and an optional result: the generic constructor takes
        # them as they are (as `create` does), without the IRDL builder's normalisation; the
        # location of the metadata given (checked above) at once.
        Operation.__init__(
            self,
            operands=values,
            result_types=result_types,
            properties={"callee": callee},
            location=metadata_to_location(items),
        )
        if not isinstance(target, Op):
            CALLEE_FUNCTION.set(self, cast(Operation, function))
        self._init_checked_metadata(items)

    @property
    def args(self) -> tuple[Expr, ...]:
        return tuple(arg_expr(v) for v in self.args_)

    @property
    def target(self) -> Op | Operation | SymbolRefAttr:
        """The Op for an op call; for a function call, the function op it resolves to (the
        symbol itself while it cannot be resolved)."""
        if isinstance(self.callee, OpAttr):
            return attr_to_op(self.callee)
        pending = CALLEE_FUNCTION.get(self)
        if pending is not None:
            return pending
        if self.parent_op() is not None:
            found = lookup_symbol(self, self.callee)
            if found is not None:
                return found
        return self.callee

    def carry_python_state(self, copy: Operation) -> None:
        CALLEE_FUNCTION.set(copy, CALLEE_FUNCTION.get(self))

    def is_pure_value_call(self) -> bool:
        if not isinstance(self.callee, OpAttr) or not self.results:
            return False
        try:
            target = attr_to_op(self.callee)
        except VerifyError:
            return False
        return bool(getattr(target, "pure", True)) and not target.declares_effects()

    def verify_(self) -> None:
        self.verify_metadata()
        if isinstance(self.callee, OpAttr):
            # `args_` is the only operand group: the operands are the arguments
            arg_types = tuple([value.type for value in self.operands])
            result_types = tuple([result.type for result in self.results])
            signature = (self.callee, *arg_types, None, *result_types)
            if not _CHECKED_CALLS.holds(signature):
                _check_op_call(self.callee, arg_types, result_types)
                _CHECKED_CALLS.add(signature)
            parent = self.parent_op()
            if self.results and parent is not None and attr_to_op(self.callee).allocates:
                if not parent.has_trait(AnchorsAllocation, value_if_unregistered=False):
                    raise VerifyError(
                        f"{self.callee.op_name.data} introduces a buffer: it is anchored by a "
                        f"tir.let (`%buf = tir.let tf.call {self.callee.op_name.data}<...>() "
                        f": () -> ...`), not in a '{parent.name}'"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee: Attribute
        if (root := parser.parse_optional_symbol_name()) is not None:
            nested = []
            while parser.parse_optional_punctuation(":") is not None:  # `::` is two tokens
                parser.parse_punctuation(":", " (nested symbol references are @a::@b)")
                nested.append(parser.parse_symbol_name())
            callee = SymbolRefAttr(root, nested)
        else:
            callee = canonical(*parse_op_body(parser))
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        position = parser.pos
        function_type = parser.parse_function_type()
        values = parser.resolve_operands(operands, function_type.inputs.data, position)
        if len(function_type.outputs) > 1:
            parser.raise_error("a tf.call has at most one result", position)
        op = cls.create(
            operands=values,
            result_types=list(function_type.outputs.data),
            properties={"callee": callee},
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if isinstance(self.callee, SymbolRefAttr):
            _print_symbol_ref(printer, self.callee)
        else:
            printer.print_string(_op_body_text(self.callee))
        printer.print_string("(")
        printer.print_list(self.args_, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if isinstance(printer, TFPrinter):
            printer.print_string(printer.function_type_text(self.args_.types, self.result_types))
        else:
            printer.print_function_type(self.args_.types, self.result_types)


@CACHES.owns
@functools.lru_cache(maxsize=1024)
def _op_body_text(callee: OpAttr) -> str:
    """The custom text of a call's op target (`tf.math.binary<kind = add>`): the same few
    targets are printed many times, and print alike in every printer: cached (until the op
    registry changes: the defaults left out are those of the op registered under the name)."""
    stream = io.StringIO()
    _print_op_body(TFPrinter(stream=stream), callee)
    return stream.getvalue()


_CHECKED_CALLS = CACHES.memo("verified op calls")
"""The signatures (callee, argument types, result types) of op calls that verified: a module
repeats a few signatures thousands of times."""


def _check_op_call(
    callee: OpAttr, arg_types: tuple[Attribute, ...], result_types: tuple[Attribute, ...]
) -> None:
    """The rules of a call of a registered op (arity, patterns, `typeinfer`), decided once per
    signature: a pure function of immutable attributes (a refusal is not remembered)."""
    result = from_attr(result_types[0]) if result_types else UnitType()
    expected = typeinfer(attr_to_op(callee), [from_attr(t) for t in arg_types])
    if result != expected:
        raise VerifyError(
            f"result type {_shown(result)} does not match the type inferred for "
            f"{callee.op_name.data}: {_shown(expected)}"
        )


def _shown(type: IRType) -> str:
    return str(type) if not isinstance(type, UnitType) else "() (no result)"


TF = Dialect(
    "tf",
    [ModuleOp, CallOp, ConstantOp, TupleOp, MeshOp, YieldOp],
    [
        OpAttr,
        DimsAttr,
        BufferAttr,
        DimRangeAttr,
        SpanEndAttr,
        MetaAttr,
        TargetAttr,
        TopologyAttr,
        OwnerContextAttr,
    ],
)
