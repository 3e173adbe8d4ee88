"""The `tir` dialect: TIR functions (`tir.prim_func`) and their statements.

A prim function's body is a list of statements, never bare expressions:
- `tir.let` anchors a value-form expression and binds its value to a Var;
- `tir.evaluate` runs an effect-form call (one with no value, `UnitType`);
- `tir.return` ends the body.
A `tf.call` standing alone as a statement is refused. `tir.dispatch` (a `DispatchCall`) calls one
of several same-module functions, the first whose `case_patterns` hold the runtime DimVar sizes.

A statement holds its expression in a region that ends in `tir.yield`, so the value reaches the
statement through use-def: passes that know nothing of TIR (`cse`, `dce`, `canonicalize`) see
ordinary SSA values, erase what nothing uses, and keep every statement valid. A `tir.let` and a
`tir.evaluate` have the memory effects of their bodies (`tilefoundry.dialects.tf.effects`): a read
of a buffer is not merged with another across a write of it, an unused pure or read-only one
may go, a write stays.

Buffers (`!tf.buffer`) appear only as parameters and as `tir.let` bindings of
`tf.memory.alloc`; a prim function never returns one (docs/ir.md, "Buffers").
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any, ClassVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    SymbolRefAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, OpResult, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    lazy_traits_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsTerminator,
    MemoryEffect,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    SymbolUserOpInterface,
)

from tilefoundry.builtin.metadata import BindingMetadata, location_to_metadata
from tilefoundry.builtin.types import VALUE_TYPES, BufferAttr, from_attr
from tilefoundry.dialects.canonicalization_trait import Canonicalization
from tilefoundry.dialects.function import (
    FunctionOpMixin,
    FunctionReturn,
    check_dim_vars,
)
from tilefoundry.dialects.syntax import DeclaredFormat, ValuesTerminator
from tilefoundry.dialects.tf.dim_range import DimRangeAttr, check_ranges
from tilefoundry.dialects.tf.effects import function_call_effects
from tilefoundry.dialects.tf.mesh import MeshOp, check_meshes
from tilefoundry.dialects.tf.module import lookup_symbol
from tilefoundry.dialects.tf.ops import CallOp, arg_expr
from tilefoundry.ir.algebra.callable import FunctionLike, fits
from tilefoundry.ir.algebra.expr import Expr, ExprOp, Var, VarOwner, is_defined_within
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.ir.traits import AnchorsAllocation, Expression, is_expression
from tilefoundry.ir.verify.op_verification import op_definition
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["TIR", "DispatchOp", "EvaluateOp", "LetOp", "PrimFuncOp", "ReturnOp", "YieldOp"]


@op_definition
class PrimFuncOp(FunctionOpMixin):
    """A TIR function: named parameters and a body of statements.

    ```mlir
    tir.prim_func @square(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
      %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.return
    }
    ```
    """

    name = "tir.prim_func"

    def verify_(self) -> None:
        where = f"function '@{self.sym_name.data}'"
        self.verify_signature()
        for result in self.function_type.outputs.data:
            if isinstance(result, BufferAttr):
                raise VerifyError(
                    f"{where} returns the buffer {result}; a buffer does not escape its "
                    "function: return a tf.memory.load of it"
                )
        for op in self.body.block.ops:
            if isinstance(op, LetOp | EvaluateOp | ReturnOp):
                continue
            if isinstance(op, CallOp):
                raise VerifyError(
                    "a tf.call cannot be a statement: anchor a value-form call with tir.let, or "
                    "run an effect-form call with tir.evaluate"
                )
            raise VerifyError(
                f"'{op.name}' cannot be a statement of {where}; statements are tir.let, "
                "tir.evaluate and tir.return"
            )
        if not isinstance(self.body.block.last_op, ReturnOp):
            raise VerifyError("body must end with tir.return")
        check_meshes(self)  # the meshes of its statements, at any depth


def _expression_of(block: Block, results: int) -> Operation | None:
    """The expression a statement body holds in the short form: one expression op with
    `results` results, which the body's `tir.yield` (at an unknown location) yields; else None."""
    inner, terminator = block.first_op, block.last_op
    if (
        inner is None
        or inner.next_op is not terminator
        or not isinstance(terminator, YieldOp)
        or not isinstance(terminator.location, UnknownLoc)
        or not is_expression(inner)
        or len(inner.results) != results
        or tuple(terminator.values) != tuple(inner.results)
    ):
        return None
    return inner


def _parse_body(parser: Parser) -> tuple[Region, list[Attribute]]:
    """A statement body and its value types: `-> T { ... }` or `{ ... }` (a region ending in
    `tir.yield`), or the short form, one expression op whose results a `tir.yield` yields."""
    if parser.parse_optional_punctuation("->") is not None:
        position = parser.pos
        types: list[Attribute] = [parser.parse_type()]
        region = parser.parse_region()
        return region, _check_yielded(parser, region, types, position)
    position = parser.pos
    braced = parser.parse_optional_region()
    if braced is not None:
        return braced, _check_yielded(parser, braced, None, position)
    inner = parser.parse_operation()
    block = Block([inner])
    block.add_op(YieldOp(*inner.results))
    return Region(block), [r.type for r in inner.results]


def _check_yielded(
    parser: Parser, region: Region, declared: list[Attribute] | None, position: int
) -> list[Attribute]:
    """The types the region's `tir.yield` yields (which must be the declared ones)."""
    terminator = region.block.last_op if region.blocks else None
    if not isinstance(terminator, YieldOp):
        parser.raise_error("a statement body ends with tir.yield", position)
    yielded = list(terminator.values.types)
    if declared is not None and yielded != declared:
        shown = ", ".join(str(t) for t in yielded) or "nothing"
        parser.raise_error(
            f"the body yields {shown}, but the statement says {declared[0]}", position
        )
    return yielded


def _print_body(printer: Printer, op: Operation, results: int) -> None:
    body = op.regions[0]
    inner = _expression_of(body.block, results) if len(body.blocks) == 1 else None
    if inner is None:
        if op.results:
            printer.print_string(" -> ")
            printer.print_attribute(op.results[0].type)
        printer.print_string(" ")
        printer.print_region(body, print_entry_block_args=False)
        return
    printer.print_string(" " + inner.name)
    inner.print(printer)
    if printer.print_debuginfo:
        printer.print_string(" ")
        printer.print_attribute(inner.location)


def _check_body(op: Operation, statement: str) -> tuple[list[Operation], YieldOp]:
    """The rules a statement body keeps: no block arguments, expression ops only, tir.yield
    last. Returns the ops before the yield, and the yield."""
    block = op.regions[0].block
    if block.args:
        raise VerifyError(f"the body of {statement} has no block arguments")
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        raise VerifyError(f"the body of {statement} must end with tir.yield")
    ops = list(block.ops)[:-1]
    for inner in ops:
        if not is_expression(inner):
            raise VerifyError(
                f"'{inner.name}' cannot be in the body of {statement}; it holds expressions "
                "(tf.call, tf.constant, tf.tuple, tir.dispatch)"
            )
    return ops, terminator


class StatementFormat:
    """What `tir.let` (`VALUES` 1) and `tir.evaluate` (`VALUES` 0) share: the body region and
    the custom form `_parse_body` reads and `_print_body` writes, of `VALUES` values (the op's
    results)."""

    VALUES: ClassVar[int]

    body = region_def("single_block")

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        position = parser.pos
        region, types = _parse_body(parser)
        if len(types) != cls.VALUES:
            parser.raise_error(
                f"tir.evaluate runs an effect-form call; this one has a value of type {types[0]} "
                "(bind it with tir.let)"
                if cls.VALUES == 0
                else "tir.let anchors a value-form expression; this one has no value (run an "
                "effect-form call with tir.evaluate)",
                position,
            )
        return cast(Any, cls).create(regions=[region], result_types=types)

    def print(self, printer: Printer) -> None:
        _print_body(printer, cast(Operation, self), self.VALUES)


@op_definition
class LetOp(StatementFormat, VarOwner, IRDLOperation):
    """`LetStmt`: anchors a value-form expression and binds its value to a Var.

    The body computes the value and yields it; the result is the bound Var. An expression of
    one op prints in the short form:

    ```mlir
    %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %z = tir.let -> tensor<4xf32> {
      %c = tf.constant dense<2.0> : tensor<4xf32>
      %m = tf.call tf.math.binary<kind = mul>(%y, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tir.yield %m : tensor<4xf32>
    }
    ```
    """

    name = "tir.let"

    VALUES: ClassVar[int] = 1

    binding = result_def(VALUE_TYPES)

    traits = lazy_traits_def(
        lambda: (
            AnchorsAllocation(),
            HasParent(PrimFuncOp),
            RecursiveMemoryEffect(),
            Canonicalization(),
        )
    )

    @property
    def value(self) -> Expr:
        """The expression the statement anchors (the Expr whose value it yields)."""
        terminator = self.body.block.last_op
        assert isinstance(terminator, YieldOp)
        return arg_expr(terminator.values[0])

    @property
    def var(self) -> Var:
        """The Var the statement binds."""
        return Var.view(self.binding)

    def var_name(self, value: SSAValue) -> str:
        metadata = location_to_metadata(self.location)
        binding = next((m.name for m in metadata if type(m) is BindingMetadata), None)
        return binding or value.name_hint or f"v{id(value) & 0xFFFF:x}"

    def var_is_const(self, value: SSAValue) -> bool:
        return False

    def verify_(self) -> None:
        ops, terminator = _check_body(self, "tir.let")
        for inner in ops:
            if not inner.results:
                raise VerifyError(
                    f"tir.let anchors a value-form expression; this '{inner.name}' has no value "
                    "(run an effect-form call with tir.evaluate)"
                )
        if len(terminator.values) != 1:
            raise VerifyError(f"tir.let yields one value, got {len(terminator.values)}")
        yielded = terminator.values[0].type
        if yielded != self.binding.type:
            raise VerifyError(
                f"binds type {self.binding.type}, but its body yields a value of type {yielded}"
            )
        if isinstance(yielded, BufferAttr):
            source = terminator.values[0]
            owner = source.owner if isinstance(source, OpResult) else None
            if not (
                isinstance(owner, CallOp)
                and owner.parent is self.body.block
                and isinstance(owner.target, Op)
                and owner.target.allocates
            ):
                raise VerifyError(
                    f"tir.let binds a buffer ({yielded}) only from a tf.memory.alloc in its "
                    "body; a buffer has one name (use the buffer itself)"
                )


@op_definition
class EvaluateOp(StatementFormat, IRDLOperation):
    """`Evaluate(op, args)`: runs an effect-form call as a statement.

    The body's last op before `tir.yield` is the effect-form call (or dispatch, or a `tf.mesh`
    of no value: what an HIR body's mesh of no value lowers to); the ops before it compute its
    arguments. A call alone prints in the short form:

    ```mlir
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    ```
    """

    name = "tir.evaluate"

    VALUES: ClassVar[int] = 0

    traits = lazy_traits_def(lambda: (HasParent(PrimFuncOp), RecursiveMemoryEffect()))

    @property
    def call(self) -> Operation | None:
        """The effect-form call the statement runs."""
        terminator = self.body.block.last_op
        return None if terminator is None else terminator.prev_op

    def verify_(self) -> None:
        ops, terminator = _check_body(self, "tir.evaluate")
        if terminator.values:
            raise VerifyError("the tir.yield of a tir.evaluate yields nothing")
        call = ops[-1] if ops else None
        if not isinstance(call, CallOp | DispatchOp | MeshOp):
            raise VerifyError(
                "tir.evaluate runs a call: its body ends with an effect-form call (or a tf.mesh "
                "of no value)"
            )
        if call.results:
            raise VerifyError(
                f"tir.evaluate runs an effect-form call; this one has a value of type "
                f"{call.results[0].type} (bind it with tir.let)"
            )
        for inner in ops[:-1]:
            if not inner.results:
                raise VerifyError(
                    f"tir.evaluate runs one effect-form call; run this '{inner.name}' with a "
                    "tir.evaluate of its own"
                )


@op_definition
class YieldOp(ValuesTerminator):
    """Ends a statement body: the value a `tir.let` binds, nothing for a `tir.evaluate`.

    ```mlir
    tir.yield %m : tensor<4xf32>
    ```
    """

    name = "tir.yield"

    traits = traits_def(IsTerminator(), Pure(), HasParent(LetOp, EvaluateOp))


class DispatchSymbolUse(SymbolUserOpInterface):
    """Each case of a dispatch names a function of the module tree that the arguments fit and
    that returns the dispatch's type; each case's ranges name DimVars of the arguments."""

    def verify(self, op: Operation) -> None:
        dispatch = cast(DispatchOp, op)
        dispatch.verify_cases()
        arg_types = [from_attr(v.type) for v in dispatch.args]
        dim_vars = check_dim_vars(arg_types, "the dispatch arguments")
        result = dispatch.type
        for index, (callee_ref, ranges) in enumerate(
            zip(dispatch.callees, dispatch.case_ranges, strict=True)
        ):
            callee = lookup_symbol(op, callee_ref)
            shown = "::".join(
                f"@{r.data}" for r in (callee_ref.root_reference, *callee_ref.nested_references)
            )
            if not isinstance(callee, FunctionLike):
                raise VerifyError(f"case #{index}: '{shown}' does not reference a function")
            params = callee.param_types()
            if len(params) != len(arg_types) or not all(
                fits(p, a) for p, a in zip(params, arg_types, strict=True)
            ):
                raise VerifyError(f"case #{index}: the arguments do not fit {shown}'s parameters")
            if callee.result_type() != result:
                raise VerifyError(
                    f"case #{index}: {shown} returns {callee.result_type()}, the dispatch {result}"
                )
            check_ranges([r.pattern for r in ranges], dim_vars, f"case #{index} ({shown})")


class DispatchEffects(MemoryEffect):
    """A dispatch has the effects of every case it may call (None when one is unknown)."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance] | None:
        dispatch = cast(DispatchOp, op)
        effects: set[EffectInstance] = set()
        for callee in dispatch.callees:
            found = function_call_effects(op, callee, dispatch.args)
            if found is None:
                return None
            effects.update(found)
        return effects


@op_definition
class DispatchOp(DeclaredFormat, ExprOp, IRDLOperation):
    """`DispatchCall`: calls the first case whose `case_patterns` hold the runtime DimVar sizes.

    ```mlir
    %y = tir.let tir.dispatch [@small: [n: 1 to 128], @large: [n: 128 to 4097]](%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    ```
    """

    name = "tir.dispatch"

    ASSEMBLY_FORMAT: ClassVar[str] = (
        "custom<DispatchCases>($callees, $case_patterns) `(` $args `)` attr-dict `:` "
        "custom<CallSignature>(type($args), type($res))"
    )

    callees = prop_def(ArrayAttr[SymbolRefAttr])
    case_ranges = prop_def(ArrayAttr[ArrayAttr[DimRangeAttr]], prop_name="case_patterns")
    args = var_operand_def(VALUE_TYPES)
    res = opt_result_def(VALUE_TYPES)

    traits = traits_def(Expression(in_hir=False), DispatchSymbolUse(), DispatchEffects())

    @property
    def case_patterns(self) -> tuple[tuple[DimVarRangePat, ...], ...]:
        return tuple(tuple(r.pattern for r in ranges) for ranges in self.case_ranges)

    def verify_(self) -> None:
        self.verify_metadata()
        self.verify_cases()

    def verify_cases(self) -> None:
        if not self.callees.data:
            raise VerifyError("a dispatch needs at least one case")
        if len(self.callees) != len(self.case_ranges):
            raise VerifyError(
                f"{len(self.callees)} callee(s) for {len(self.case_ranges)} case pattern list(s)"
            )


@op_definition
class ReturnOp(FunctionReturn, ValuesTerminator):
    """Ends a prim function's body, with its value when it has one.

    ```mlir
    tir.return
    ```
    """

    name = "tir.return"

    traits = traits_def(IsTerminator(), ReturnLike(), HasParent(PrimFuncOp))


def statement_values(op: Operation) -> Sequence[SSAValue]:
    """The values a statement uses, its anchored expression's included."""
    return [v for inner in op.walk() for v in inner.operands if not is_defined_within(v, op)]


TIR = Dialect("tir", [PrimFuncOp, LetOp, EvaluateOp, YieldOp, DispatchOp, ReturnOp], [])
