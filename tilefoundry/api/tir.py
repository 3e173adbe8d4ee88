"""`tilefoundry.api.tir`: the Python surface of TIR — `PrimFunction` and its statements.

```python
x = Var("x", TensorType((4,), "f32"))
out = Var("out", BufferType((4,), "f32"))                     # memory, written in place
y = LetStmt("y", Call(Binary(kind=BinaryKind.MUL), [x, x]))   # a value-form call, anchored
k = PrimFunction(name="square", params=[x, out], body=[y, Evaluate(Copy(), [out, y.var])])
```

A buffer (`BufferType`) is a parameter or the Var of a `LetStmt` of `ops.alloc(shape, dtype)`;
`ops.load(buf)` reads it into a tensor, `Evaluate(Copy(), [buf, src])` writes it (docs/ir.md,
"Buffers"). A statement list holds `LetStmt`s and `Evaluate`s only: a bare `Call` is refused, whatever its
form. Same-module calls of other prim functions resolve through the module's symbol table (a
call names its callee by symbol), and `DispatchCall` picks among them by `case_patterns`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    IRMetadata,
    check_metadata,
    metadata_to_location,
)
from tilefoundry.builtin.types import BufferType, IRType, UnitType, from_attr, to_attr
from tilefoundry.dialects.function import signature_properties
from tilefoundry.dialects.tf.dim_range import DimRangeAttr
from tilefoundry.dialects.tf.ops import CallOp, HasFunctionOp
from tilefoundry.dialects.tir import (
    DispatchOp,
    EvaluateOp,
    LetOp,
    PrimFuncOp,
    ReturnOp,
    YieldOp,
    statement_values,
)
from tilefoundry.ir.algebra.callable import FunctionLike, fits
from tilefoundry.ir.algebra.expr import (
    Expr,
    ExprOp,
    Var,
    adopt_params,
    check_expr,
    check_new_params,
    check_var_name,
    collect_expression,
    expr_value,
)
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.ir.algebra.view import FunctionView
from tilefoundry.support.arguments import items_of, refuse_type, shown, text_of
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["DispatchCall", "Evaluate", "LetStmt", "PrimFunction"]


def LetStmt(name: str, value: Expr, *, metadata: Iterable[IRMetadata] = ()) -> LetOp:  # noqa: N802 - the spec's name
    """Anchor a value-form expression and bind its value to the Var `name` (the statement's
    `var`). The expression's detached ops move into the statement; the Vars it uses (parameters,
    earlier statements' Vars) stay outside."""
    check_var_name(name)
    check_expr(value, f"LetStmt '{name}' value")
    if isinstance(value, Operation) and not value.results:
        raise VerifyError(
            f"LetStmt '{name}' anchors a value-form expression; this '{value.name}' has no value "
            "(use Evaluate for an effect-form op)"
        )
    if isinstance(value.type, BufferType) and not (
        isinstance(value, CallOp) and isinstance(value.target, Op) and value.target.allocates
    ):
        raise VerifyError(
            f"LetStmt '{name}' binds a buffer ({value.type}) only from ops.alloc; a buffer has "
            "one name (use the buffer itself)"
        )
    items = check_metadata((BindingMetadata(name), *metadata), what=f"LetStmt '{name}' metadata")
    block = _statement_block(f"LetStmt '{name}'", value)
    block.add_op(YieldOp(expr_value(value, f"LetStmt '{name}'")))
    let = LetOp.create(regions=[Region(block)], result_types=[to_attr(value.type)])
    let.location = metadata_to_location(items)
    let.results[0].name_hint = name if SSAValue.is_valid_name(name) else None
    return let


def Evaluate(op: Op, args: Iterable[Expr], *, metadata: Iterable[IRMetadata] = ()) -> EvaluateOp:  # noqa: N802
    """Run an effect-form op (one whose call has no value) as a statement; the detached
    expressions among its arguments move into the statement."""
    if not isinstance(op, Op):
        refuse_type("Evaluate op", "an Op (an effect-form op such as Copy())", op)
    call = CallOp(op, args, metadata=metadata)
    if call.results:
        raise VerifyError(
            f"Evaluate runs an effect-form op; {op.op_name} has a value of type {call.type} "
            "(anchor it with LetStmt)"
        )
    block = _statement_block(f"Evaluate of {op.op_name}", call)
    block.add_op(YieldOp())
    return EvaluateOp.create(regions=[Region(block)])


def _statement_block(where: str, value: Expr) -> Block:
    """A block holding the detached expression ops that `value` needs (checked first)."""
    ops = collect_expression(where, value, _is_given)
    return Block(ops)


def _is_given(value: SSAValue) -> bool:
    """A value a statement takes from outside: anything but a detached expression's result
    (whether it is a parameter or an earlier Var is checked when the function is built)."""
    return not (
        isinstance(value, OpResult)
        and isinstance(value.owner, ExprOp)
        and value.owner.parent is None
    )


def DispatchCall(  # noqa: N802 - the spec's name
    targets: Sequence[Any],
    case_patterns: Sequence[Sequence[DimVarRangePat]],
    args: Iterable[Expr],
    *,
    metadata: Iterable[IRMetadata] = (),
) -> DispatchOp:
    """A call of the first target whose `case_patterns` hold the runtime DimVar sizes; the
    targets are functions of the module that will hold the call (named by their symbols)."""
    functions = [
        t.function_op if isinstance(t, HasFunctionOp) else t
        for t in items_of(targets, "DispatchCall targets", "an iterable of functions")
    ]
    cases = _case_patterns(case_patterns)
    if not functions or len(functions) != len(cases):
        raise VerifyError(
            f"DispatchCall needs one case pattern list per target, got {len(functions)} target(s) "
            f"and {len(cases)} list(s)"
        )
    arguments = items_of(args, "DispatchCall args", "an iterable of Expr")
    values = [expr_value(a, f"DispatchCall argument #{i}") for i, a in enumerate(arguments)]
    arg_types = [from_attr(v.type) for v in values]
    results: set[IRType] = set()
    for function in functions:
        if not isinstance(function, FunctionLike) or not isinstance(function, Operation):
            refuse_type("DispatchCall targets", "functions (Function / PrimFunction)", function)
        params = function.param_types()
        if len(params) != len(arg_types) or not all(
            fits(p, a) for p, a in zip(params, arg_types, strict=True)
        ):
            raise VerifyError("DispatchCall: the arguments do not fit every target's parameters")
        results.add(function.result_type())
    if len(results) != 1:
        raise VerifyError("DispatchCall targets must return one type")
    (result,) = results
    ranges = ArrayAttr(ArrayAttr(DimRangeAttr.of(p) for p in case) for case in cases)
    callees = ArrayAttr(
        SymbolRefAttr(cast(StringAttr, f.properties["sym_name"])) for f in functions
    )
    dispatch = DispatchOp.create(
        operands=values,
        result_types=[] if isinstance(result, UnitType) else [to_attr(result)],
        properties={"callees": callees, "case_patterns": ranges},
    )
    dispatch._init_metadata(metadata)
    return dispatch


def _case_patterns(
    case_patterns: Sequence[Sequence[DimVarRangePat]],
) -> list[tuple[DimVarRangePat, ...]]:
    what = "DispatchCall case_patterns"
    cases: list[tuple[DimVarRangePat, ...]] = []
    for index, case in enumerate(items_of(case_patterns, what, "a list of pattern lists")):
        patterns = items_of(case, f"{what} #{index}", "a list of DimVarRangePat")
        for pattern in patterns:
            if not isinstance(pattern, DimVarRangePat):
                refuse_type(f"{what} #{index} items", "DimVarRangePat values", pattern)
        cases.append(patterns)
    return cases


class PrimFunction(FunctionView[PrimFuncOp]):
    """A TIR function (a Stmt): `name`, `params` (Vars), `body` (statements), optional result.

    A thin view over its `tir.prim_func` op, like `hir.Function`. Construction checks first, so
    a refused call changes nothing: statements must be detached `LetStmt` / `Evaluate`, and
    each uses only the parameters and the Vars of earlier `LetStmt`s.
    """

    def __new__(
        cls,
        name: str | None = None,
        params: Iterable[Var] = (),
        body: Iterable[Operation] = (),
        result: Expr | None = None,
        *,
        metadata: Iterable[IRMetadata] = (),
    ) -> PrimFunction:
        name = text_of(name, "PrimFunction name")
        param_list = list(items_of(params, f"PrimFunction '{name}' params", "an iterable of Var"))
        statements = list(
            items_of(body, f"PrimFunction '{name}' body", "an iterable of statements")
        )
        if result is not None:
            check_expr(result, f"PrimFunction '{name}' result")
            if isinstance(result.type, BufferType):
                raise VerifyError(
                    f"PrimFunction '{name}' returns the buffer {result.type}; a buffer does not "
                    "escape its function: return a load of it (ops.load)"
                )
        return cls.of(_build(name, param_list, statements, result, check_metadata(metadata)))

    @property
    def body(self) -> tuple[Operation, ...]:
        """The statements, `tir.return` excluded."""
        return tuple(op for op in self._op.body.block.ops if not isinstance(op, ReturnOp))

    @property
    def type(self) -> IRType:
        return self._op.result_type()

    def __repr__(self) -> str:
        params = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        return f"PrimFunction(@{self.name}({params}) -> {self.type})"


def _build(
    name: str,
    params: list[Var],
    body: list[Operation],
    result: Expr | None,
    metadata: tuple[IRMetadata, ...],
) -> PrimFuncOp:
    check_new_params(name, params)
    available: set[SSAValue] = {p.value for p in params}
    for index, statement in enumerate(body):
        if isinstance(statement, CallOp):
            raise VerifyError(
                f"prim function '{name}' statement #{index} is a bare Call: anchor a value-form "
                "call with LetStmt, or run an effect-form op with Evaluate"
            )
        if not isinstance(statement, LetOp | EvaluateOp):
            raise TypeError(
                f"prim function '{name}' statement #{index} must be a LetStmt or Evaluate, "
                f"got {shown(statement)}"
            )
        if statement.parent is not None:
            raise VerifyError(
                f"prim function '{name}' statement #{index} already belongs to a function"
            )
        for value in statement_values(statement):
            if value not in available:
                used = Var.view(value).name if isinstance(value, BlockArgument | OpResult) else "?"
                raise VerifyError(
                    f"prim function '{name}' statement #{index} uses '{used}', which is neither a "
                    "parameter nor the Var of an earlier LetStmt"
                )
        available.update(statement.results)
    returned: list[SSAValue] = []
    if result is not None:
        value = expr_value(result, "the result")
        if value not in available:
            raise VerifyError(
                f"prim function '{name}' returns a value that is neither a parameter nor a Var of "
                "its statements"
            )
        returned.append(value)
    names = [p.name for p in params]
    consts = [p.is_const for p in params]
    block = adopt_params(params)
    for statement in body:
        block.add_op(statement)
    if result is not None:  # the value again: a parameter Var now views its block argument
        returned = [expr_value(result, "the result")]
    block.add_op(ReturnOp(*returned))
    properties = signature_properties(
        name, names, consts, block.arg_types, [v.type for v in returned]
    )
    op = PrimFuncOp.create(properties=properties, regions=[Region(block)])
    op.location = metadata_to_location(metadata)
    return op
