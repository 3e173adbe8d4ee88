"""Rewriting one function of a module tree, in place, from HIR to TIR.

- An `hir.func` without variants becomes a `tir.prim_func` of the same properties (name,
  signature, parameter names, `{const}`), attributes and location, holding the same body region:
  each top-level expression op is anchored by a statement, in order — a `tir.let` for an op with
  a value, a `tir.evaluate` for one without (a call of a function that returns nothing, a mesh of
  no value) — and `hir.return` becomes `tir.return`. A `tf.mesh` goes whole into its statement.
- An `hir.func` with variants becomes a prim function of its own name and signature whose body
  is one `tir.dispatch` over new prim functions: one per variant (`f$v0`, `f$v1`, ... in order,
  the case's ranges the variant's `DimVarRangePat` fields), then the base body (`f$base`), its
  case the whole envelope of every DimVar the variants name, so that every size the signature
  admits has a case, as HIR falls back to the base body.

```mlir
// before
hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
  %y = tf.call tf.math.unary<kind = exp>(%x) : (...) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
  hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
} variants {
  hir.variant [n: 1 to 4] (%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) { hir.return %x : ... }
}
// after
tir.prim_func @f(%x: ...) -> ... {
  %0 = tir.let tir.dispatch [@f$v0: [n: 1 to 4], @f$base: [n: 1 to 9]](%x) : (...) -> ...
  tir.return %0 : ...
}
tir.prim_func @f$v0(%x: ...) -> ... { tir.return %x : ... }
tir.prim_func @f$base(%x: ...) -> ... {
  %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (...) -> ...
  tir.return %y : ...
}
```

Locations: a statement takes the binding of the op it anchors (`loc("h")`, so the Var keeps its
name), the op keeps the rest (its source span: `%h = tir.let tf.call ... loc("f.py":3:4)
loc("h")`, what the TIR parser makes of that text); a terminator keeps its location.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region

from tilefoundry.builtin.metadata import BindingMetadata, location_to_metadata
from tilefoundry.dialects import hir, tir
from tilefoundry.dialects.function import dim_var_carrier
from tilefoundry.dialects.tf.dim_range import DimRangeAttr

__all__ = ["lower_function", "variant_names"]


def variant_names(name: str, variants: int, taken: Set[str]) -> tuple[list[str], str]:
    """The names of the prim functions a function `name` with `variants` variants lowers to:
    `name$v0` ... and `name$base` (`$` is an MLIR bare-identifier character, never in a name a
    DSL or frontend makes). When one of them is in `taken` (the symbols of the module, and the
    names made before), the `$` is doubled, then tripled, ... until none is: the names never
    collide with a symbol of the module."""
    marks = "$"
    while True:
        names = [f"{name}{marks}v{index}" for index in range(variants)]
        base = f"{name}{marks}base"
        if not any(n in taken for n in (*names, base)):
            return names, base
        marks += "$"


def lower_function(function: hir.FuncOp, taken: set[str]) -> list[tir.PrimFuncOp]:
    """The prim functions that replace `function` (see the module docstring); its regions move
    into them, so `function` is left empty, to be erased. The names made are added to `taken`."""
    variants = function.variant_ops()
    if not variants:
        return [_prim_function(function, function.properties, function.body)]
    names, base_name = variant_names(function.sym_name.data, len(variants), taken)
    taken.update((*names, base_name))
    made = [
        _prim_function(variant, _renamed(function, name), variant.body)
        for variant, name in zip(variants, names, strict=True)
    ]
    base_args = function.body.block.args
    base = _prim_function(function, _renamed(function, base_name), function.body, attributes={})
    cases = [variant.ranges for variant in variants]
    cases.append(_envelope(function, variants))
    dispatcher = _dispatcher(function, [*names, base_name], cases, base_args)
    return [dispatcher, *made, base]


def _renamed(function: hir.FuncOp, name: str) -> dict[str, Attribute]:
    return {**function.properties, "sym_name": StringAttr(name)}


def _prim_function(
    source: Operation,
    properties: dict[str, Attribute],
    body: Region,
    attributes: dict[str, Attribute] | None = None,
) -> tir.PrimFuncOp:
    """A prim function of `properties` whose body is `body` (moved from `source`, an
    `hir.func` or `hir.variant`), rewritten into statements; `source`'s location and
    attributes (unless `attributes` says otherwise)."""
    parent = body.parent
    assert parent is not None
    region = parent.detach_region(body)
    lower_block(region.block)
    return tir.PrimFuncOp.create(
        properties=dict(properties),
        attributes=dict(source.attributes) if attributes is None else attributes,
        regions=[region],
        location=source.location,
    )


def _envelope(function: hir.FuncOp, variants: Sequence[hir.VariantOp]) -> ArrayAttr[DimRangeAttr]:
    """The last case: the whole envelope of each DimVar the variants name, in order of first
    mention (each carried by a parameter: `lower.check_variants` made sure)."""
    ranges: dict[str, DimRangeAttr] = {}
    for variant in variants:
        for pattern in variant.patterns():
            if pattern.dim_var in ranges:
                continue
            carrier = dim_var_carrier(function.param_types(), pattern.dim_var)
            assert carrier is not None, "checked before lowering"
            envelope = carrier.dim_var
            ranges[pattern.dim_var] = DimRangeAttr(
                StringAttr(envelope.name), IntAttr(envelope.lo), IntAttr(envelope.hi)
            )
    return ArrayAttr(ranges.values())


def _dispatcher(
    function: hir.FuncOp,
    callees: list[str],
    cases: list[ArrayAttr[DimRangeAttr]],
    like: Sequence[BlockArgument],
) -> tir.PrimFuncOp:
    """The prim function named as `function`, of its signature, whose body dispatches its
    parameters to `callees` by `cases` (parameter locations as `like`'s block arguments)."""
    inputs = function.function_type.inputs.data
    outputs = function.function_type.outputs.data
    block = Block(arg_types=inputs)
    for arg, original in zip(block.args, like, strict=True):
        arg.location = original.location
    dispatch = tir.DispatchOp.create(
        operands=list(block.args),
        result_types=list(outputs),
        properties={
            "callees": ArrayAttr(SymbolRefAttr(name) for name in callees),
            "case_patterns": ArrayAttr(cases),
        },
    )
    if outputs:
        statement: Operation = tir.LetOp.create(
            regions=[Region(Block([dispatch, tir.YieldOp(dispatch.results[0])]))],
            result_types=[outputs[0]],
        )
        returned = [statement.results[0]]
    else:
        statement = tir.EvaluateOp.create(regions=[Region(Block([dispatch, tir.YieldOp()]))])
        returned = []
    block.add_ops([statement, tir.ReturnOp(*returned)])
    return tir.PrimFuncOp.create(
        properties=dict(function.properties),
        attributes=dict(function.attributes),
        regions=[Region(block)],
        location=function.location,
    )


def lower_block(block: Block) -> None:
    """An HIR body, in place, as TIR statements: each top-level expression anchored by a
    statement in order, `hir.return` as `tir.return`."""
    for op in list(block.ops):
        if isinstance(op, hir.ReturnOp):
            ret = tir.ReturnOp(*op.operands)
            ret.location = op.location
            block.insert_op_before(ret, op)
            block.erase_op(op)
            continue
        binding, inner = _split_location(op.location)
        if op.results:
            (value,) = op.results
            statement: Operation = tir.LetOp.create(
                regions=[Region(Block())], result_types=[value.type], location=binding
            )
            block.insert_op_before(statement, op)
            value.replace_all_uses_with(statement.results[0])
            block.detach_op(op)
            statement.regions[0].block.add_ops([op, tir.YieldOp(value)])
        else:
            statement = tir.EvaluateOp.create(regions=[Region(Block())], location=binding)
            block.insert_op_before(statement, op)
            block.detach_op(op)
            statement.regions[0].block.add_ops([op, tir.YieldOp()])
        op.location = inner


def _split_location(location: LocationAttr) -> tuple[LocationAttr, LocationAttr]:
    """A statement's location (the binding of the op it anchors, or unknown) and what the op
    keeps: the rest of a `loc("h"(rest))`, else its whole location."""
    if isinstance(location, UnknownLoc):
        return UnknownLoc(), location
    if isinstance(location, NameLoc):
        inner = location.location
        rest = inner if isinstance(inner, LocationAttr) else UnknownLoc()
        return NameLoc(location.desc, NoneAttr()), rest
    binding = next((m for m in location_to_metadata(location) if type(m) is BindingMetadata), None)
    if binding is None:
        return UnknownLoc(), location
    return NameLoc(StringAttr(binding.name), NoneAttr()), location
