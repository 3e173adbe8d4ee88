"""`tilefoundry.api.hir.Function`: the Python surface of a `hir.func` operation.

A `Function` is a thin view over its `hir.func` op (the op is the IR; `xDSL`'s `Operation.name`
is the op's mnemonic, so the spec's `Function.name` cannot live on the op itself). Build one from
detached expressions:

```python
x = Var("x", TensorType((4, 8), "f32"))
w = Var("w", TensorType((8, 8), "f32"), is_const=True)
f = Function(name="mlp", params=[x, w], body=ops.relu(ops.matmul(x, w)))
```

Construction moves the body's expressions into the function and makes each parameter Var view
the function's block argument. It checks everything first, so a refused call changes nothing:
every Var the body uses must be a parameter, every expression must still be detached.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Block, Operation, Region

from tilefoundry.builtin.metadata import (
    IRMetadata,
    check_metadata,
    location_to_metadata,
    metadata_to_location,
)
from tilefoundry.builtin.types import BufferType, IRType, UnitType, to_attr
from tilefoundry.dialects.function import check_dim_vars, signature_properties
from tilefoundry.dialects.hir import FuncOp, ReturnOp, VariantOp
from tilefoundry.dialects.tf.dim_range import DimRangeAttr, check_ranges
from tilefoundry.dialects.tf.ops import arg_expr
from tilefoundry.ir.algebra.expr import (
    Expr,
    ExprOp,
    Var,
    adopt_params,
    check_expr,
    check_new_params,
    check_var_name,
    clone_with_state,
    collect_expression,
)
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.ir.algebra.view import FunctionView
from tilefoundry.ir.state import Slot
from tilefoundry.support.arguments import items_of, refuse_type, shown, text_of
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["Function", "Variant", "is_sealed", "seal"]

SEALED: Slot[bool] = Slot("sealed")
"""On a function op: sealed by the module it was built into (its variants are final)."""


def seal(function: Operation) -> None:
    """Finalize a function and its variants (constructing a Module seals its functions)."""
    SEALED.set(function, True)


def is_sealed(function: Operation) -> bool:
    """Whether a function is sealed: built into a Module, or read from text."""
    return bool(SEALED.get(function)) or function.parent is not None


@dataclass(frozen=True)
class Variant:
    """A shape-specialization variant of a function: its DimVar sub-ranges and its body."""

    patterns: tuple[DimVarRangePat, ...]
    params: tuple[Var, ...]
    body: Expr | None


class Function(Expr, FunctionView[FuncOp]):
    """An HIR function: `name`, `params` (Vars), `body` (an Expr); its value is the body's."""

    def __new__(
        cls,
        name: str | None = None,
        params: Iterable[Var] = (),
        body: Expr | None = None,
        *,
        metadata: Iterable[IRMetadata] = (),
    ) -> Function:
        name = text_of(name, "Function name")
        check_var_name(name)
        if body is None:
            raise TypeError(f"Function '{name}' needs a body expression")
        check_expr(body, f"Function '{name}' body")
        param_list = list(items_of(params, f"Function '{name}' params", "an iterable of Var"))
        return cls.of(_build(name, param_list, body, check_metadata(metadata)))

    @property
    def body(self) -> Expr | None:
        """The Expr whose value the function returns (its last effect call when it returns
        nothing, None for an empty body)."""
        return _body_of(self._op.body.block)

    @property
    def type(self) -> IRType:
        """The type of the value the function returns."""
        return self._op.result_type()

    @property
    def variants(self) -> tuple[Variant, ...]:
        """The shape-specialization variants, in order."""
        return tuple(
            Variant(
                op.patterns(),
                tuple(Var.view(a) for a in op.body.block.args),
                _body_of(op.body.block),
            )
            for op in self._op.variant_ops()
        )

    @property
    def specializations(self) -> tuple[tuple[DimVarRangePat, ...], ...]:
        """The patterns of each variant, parallel to `variants` (what the HIR->TIR lowering reads
        and what `tir.dispatch` case patterns mirror)."""
        return tuple(op.patterns() for op in self._op.variant_ops())

    @property
    def sealed(self) -> bool:
        return is_sealed(self._op)

    def add_variant(
        self, patterns: Iterable[DimVarRangePat], params: Iterable[Var], body: Expr
    ) -> Variant:
        """Add a variant: `params` are new Vars with the function's parameter names and types,
        `body` an Expr over them, `patterns` the DimVar sub-ranges it covers (each inside its
        DimVar's envelope). Only while authoring: a sealed function refuses."""
        if self.sealed:
            raise VerifyError(
                f"function '{self.name}' is sealed (it belongs to a module); add variants before "
                "the module is constructed"
            )
        ranges = items_of(patterns, "variant patterns", "an iterable of DimVarRangePat")
        for pattern in ranges:
            if not isinstance(pattern, DimVarRangePat):
                raise TypeError(
                    f"variant patterns must be DimVarRangePat values, got {shown(pattern)}"
                )
        variant_params = list(items_of(params, "variant params", "an iterable of Var"))
        for index, param in enumerate(variant_params):
            if not isinstance(param, Var):
                refuse_type(f"variant param #{index}", "a Var", param)
        check_expr(body, "variant body")
        mine = self.params
        if [(p.name, p.type) for p in variant_params] != [(p.name, p.type) for p in mine]:
            raise VerifyError(
                f"function '{self.name}': a variant's params must have the function's names and "
                f"types ({', '.join(f'{p.name}: {p.type}' for p in mine)})"
            )
        dim_vars = check_dim_vars([*(p.type for p in mine), self.type], f"function '{self.name}'")
        check_ranges(ranges, dim_vars, f"a variant of function '{self.name}'")
        if body.type != self.type:
            raise VerifyError(
                f"function '{self.name}': a variant returns {self.type}, its body is {body.type}"
            )
        block = _assemble(self.name, variant_params, body)
        variant = VariantOp.create(
            properties={"ranges": ArrayAttr(DimRangeAttr.of(p) for p in ranges)},
            regions=[Region(block)],
        )
        if self._op.variants is None:
            self._op.add_region(Region(Block()))
        assert self._op.variants is not None
        self._op.variants.block.add_op(variant)
        return self.variants[-1]

    result_type = type

    @property
    def metadata(self) -> tuple[IRMetadata, ...]:
        return location_to_metadata(self._op.location)

    def _copy_with_metadata(self, metadata: tuple[IRMetadata, ...]) -> Function:
        copy = clone_with_state(self._op)
        copy.location = metadata_to_location(metadata)
        return Function.of(copy)

    def __repr__(self) -> str:
        params = ", ".join(
            f"{p.name}: {p.type}{' const' if p.is_const else ''}" for p in self.params
        )
        return f"Function(@{self.name}({params}) -> {self.type})"


def _body_of(block: Block) -> Expr | None:
    terminator = block.last_op
    if isinstance(terminator, ReturnOp) and terminator.values:
        return arg_expr(terminator.values[0])
    previous = terminator.prev_op if terminator is not None else None
    return previous if isinstance(previous, ExprOp) else None


def _assemble(name: str, params: list[Var], body: Expr) -> Block:
    """Check, then build the block: params become its arguments, the body's ops its ops, and
    a hir.return of the body's value ends it. Nothing changes when a check fails."""
    check_new_params(name, params)
    param_values = {p.value for p in params}
    ops = collect_expression(f"function '{name}'", body, param_values.__contains__, params)
    block = adopt_params(params)
    for op in ops:
        block.add_op(op)
    if isinstance(body, Var):
        block.add_op(ReturnOp(body.value))
    elif isinstance(body, Operation) and body.results:
        block.add_op(ReturnOp(body.results[0]))
    else:
        block.add_op(ReturnOp())
    return block


def _build(name: str, params: list[Var], body: Expr, metadata: tuple[IRMetadata, ...]) -> FuncOp:
    check_new_params(name, params)
    for param in params:
        if isinstance(param.type, BufferType):
            raise VerifyError(
                f"Function '{name}': parameter '{param.name}' is a buffer ({param.type}); "
                "buffers belong to TIR (a PrimFunction), HIR takes tensors"
            )
    if isinstance(body.type, BufferType):
        raise VerifyError(f"Function '{name}' returns a buffer ({body.type}); HIR returns values")
    check_dim_vars([*(p.type for p in params), body.type], f"function '{name}'")
    names = [p.name for p in params]
    consts = [p.is_const for p in params]
    result_type = body.type
    block = _assemble(name, params, body)
    outputs = [] if isinstance(result_type, UnitType) else [to_attr(result_type)]
    properties = signature_properties(name, names, consts, block.arg_types, outputs)
    op = FuncOp.create(properties=properties, regions=[Region(block)])
    op.location = metadata_to_location(metadata)
    return op
