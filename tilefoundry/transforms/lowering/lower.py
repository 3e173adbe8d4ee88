"""`lower_module`: a module tree lowered to TIR, as the spec's default step says.

- **Where it starts.** At the module's entry (spec §1: `tilefoundry.lower` "MUST start there");
  or, with `function=`, at the function a path names, as `tf-select` resolves it (`layer0.mlp`,
  `@layer0::@mlp`): the output is then that function's module re-rooted at it, declaring the
  target and topologies it resolves (`tf-select{path=P},tf-lower` gives the same, where
  `tf-select` accepts the path: here only what the function reaches must verify as a root). A
  module with no entry and no function named is refused as `entry_function()` refuses it.
- **What is in the output.** Only the functions the start reaches, through `tf.call`s of
  functions and `tir.dispatch` cases (in bodies and variants, across child modules,
  transitively); a child module left with nothing goes, a child whose entry function is not
  reached keeps no entry (`tf-prune-unreachable`'s rule). The tree's names, paths, target,
  topologies, metadata, entries and owner context are kept; `weights` too (the parameters and
  their `{const}` are).
- **What each function becomes.** Every reached `hir.func` a `tir.prim_func` (`functions.py`);
  every reached `tir.prim_func` stays as it is. Results cross the boundary as returned tensors,
  as in HIR; buffers stay buffers. A `tf.cost` goes when the tree changed (it described HIR).
- **What is refused, before anything is made** (`LoweringError`, at the variant): a variant
  whose range names a DimVar that no parameter carries (a dispatch reads each size from its
  arguments: `dim_var_carrier`), or leaves that DimVar's envelope. The patterns' fields are read
  (`dim_var`, `lo`, `hi`); `DimVarRangePat.match` is never called.

The input is never changed: the output is a copy (`detached_copy`, or `select`'s re-rooted copy)
that is rewritten once every check has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint

from tilefoundry.builtin.metadata import location_to_metadata, metadata_context
from tilefoundry.builtin.types import BufferType, DimVar, IRType, TensorType, TupleType
from tilefoundry.dialects.function import dim_var_carrier
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp, no_entry_message
from tilefoundry.dialects.tf.selection import Copier, detached_copy, path_names, select
from tilefoundry.ir import symbols
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.support.arguments import refuse_type, shown
from tilefoundry.support.diagnostics import VerifyError, with_context
from tilefoundry.transforms.call_graph import functions_of, reachable_from
from tilefoundry.transforms.lowering.functions import lower_function
from tilefoundry.transforms.stale_costs import drop_costs
from tilefoundry.transforms.tf_prune_unreachable import prune_unreachable

__all__ = ["LoweringError", "check_variants", "lower_module"]


class LoweringError(VerifyError):
    """A module the lowering refuses: `message`, at `op` (the module, or the variant whose
    range it cannot lower). Its text adds the op's source span when it has one."""

    def __init__(self, message: str, op: Operation | None = None) -> None:
        self.message = message
        self.op = op
        context: tuple[str | None, str | None] = (None, None)
        if op is not None:
            try:
                context = metadata_context(location_to_metadata(op.location))
            except VerifyError:
                pass
        super().__init__(with_context(message, *context))


def lower_module(module_op: ModuleOp, function: str | None = None) -> ModuleOp:
    """The lowered copy of `module_op`'s tree (see the module docstring); `LoweringError` when
    it is refused, the input left as it was."""
    if not isinstance(module_op, ModuleOp):
        refuse_type("lower module", "a tf.module", module_op)
    if function is not None and not isinstance(function, str):
        raise TypeError(f"lower function is a path (a str) or None, got {shown(function)}")
    start = _start(module_op, function)
    for reached in reachable_from(start):
        if isinstance(reached, FuncOp):
            check_variants(reached)
    holder = module_op if function is None else start.parent_op()
    assert isinstance(holder, ModuleOp)
    taken = _symbols_by_path(holder)  # the made names avoid every symbol the input has there
    count = sum(1 for _ in functions_of(holder))
    if function is None:
        lowered = detached_copy(module_op)
        prune_unreachable(lowered)
    else:
        lowered = _selected(module_op, function, _pruned_copy(start))
    changed = sum(1 for _ in functions_of(lowered)) != count
    for op in list(functions_of(lowered)):
        if not isinstance(op, FuncOp):
            continue
        module = op.parent_op()
        assert isinstance(module, ModuleOp)
        rewriter = symbols.rewriter(op)  # a pass's symbol tables see the change
        for made in lower_function(op, taken[_path(module, lowered)]):
            rewriter.insert(made, InsertPoint.before(op))
        rewriter.erase(op, safe_erase=False)
        changed = True
    if changed:
        drop_costs(lowered)
    return lowered


def _start(root: ModuleOp, function: str | None) -> Operation:
    """The function the lowering starts at: the entry, or the one `function` names."""
    if function is None:
        if root.entry is None:
            raise LoweringError(
                f"{no_entry_message(root)}, or lower it by its path (function='<path>')", root
            )
        entry = root.member(root.entry.root_reference.data)
        if not isinstance(entry, FunctionLike):  # what the verifier refuses (not run, maybe)
            raise LoweringError(
                f"entry '@{root.entry.root_reference.data}' names no function of module "
                f"'{root.own_name}'",
                root,
            )
        return cast(Operation, entry)
    try:
        names = path_names(function)
    except ValueError as err:
        raise LoweringError(str(err), root) from None
    node = root
    for name in names[:-1]:
        child = node.member(name)
        if not isinstance(child, ModuleOp):
            _selected(root, function)  # refused, as tf-select words it
        assert isinstance(child, ModuleOp)
        node = child
    found = node.member(names[-1]) if names else root
    if found is None:
        _selected(root, function)
    if not isinstance(found, FunctionLike):
        assert isinstance(found, ModuleOp)
        functions = [op for op in found.body.block.ops if isinstance(op, FunctionLike)]
        listed = ", ".join(f"'{f.function_name()}'" for f in functions) or "none"
        raise LoweringError(
            f"function='{function}' names the module '{found.sym_name.data}', not a function; "
            f"name one of its functions ({listed}), or lower from its entry without function=",
            root,
        )
    return cast(Operation, found)


def _symbols_by_path(root: ModuleOp) -> dict[tuple[str, ...], set[str]]:
    """The symbols (functions and children) of each module of the tree, by its path."""
    found: dict[tuple[str, ...], set[str]] = {}

    def visit(module: ModuleOp, path: tuple[str, ...]) -> None:
        names = found.setdefault(path, set())
        for op in module.body.block.ops:
            name = op.properties.get("sym_name")
            if isinstance(name, StringAttr):
                names.add(name.data)
            if isinstance(op, ModuleOp):
                visit(op, (*path, op.sym_name.data))

    visit(root, ())
    return found


def _path(module: ModuleOp, root: ModuleOp) -> tuple[str, ...]:
    names: list[str] = []
    while module is not root:
        names.append(module.sym_name.data)
        parent = module.parent_op()
        assert isinstance(parent, ModuleOp)
        module = parent
    return tuple(reversed(names))


def _pruned_copy(function: Operation) -> Callable[[ModuleOp], ModuleOp]:
    """How `select` copies the module it re-roots at `function`: only what the function
    reaches (so that only what is in the output must verify as a root)."""
    name = cast(FunctionLike, function).function_name()

    def copy(module: ModuleOp) -> ModuleOp:
        made = detached_copy(module)
        made.entry = SymbolRefAttr(name)
        prune_unreachable(made)
        return made

    return copy


def _selected(root: ModuleOp, function: str, copy: Copier = detached_copy) -> ModuleOp:
    """`select(root, function, copy=copy)`, its refusals as `LoweringError`s."""
    try:
        return select(root, function, copy=copy)
    except (KeyError, ValueError, VerifyError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        raise LoweringError(str(message), root) from None


def check_variants(function: FuncOp) -> None:
    """Each range of each variant names a DimVar that a parameter carries and lies inside its
    envelope (`LoweringError` at the variant otherwise); read from the fields, never `match`."""
    params = function.param_types()
    names = [n.data for n in function.param_names]
    for index, variant in enumerate(function.variant_ops()):
        where = f"variant #{index} of function '@{function.sym_name.data}'"
        for pattern in variant.patterns():
            carrier = dim_var_carrier(params, pattern.dim_var)
            if carrier is None:
                known = ", ".join(dict.fromkeys(d.name for t in params for d in _dim_vars(t)))
                raise LoweringError(
                    f"{where} ranges over DimVar '{pattern.dim_var}', which no parameter "
                    f"carries (the parameters carry: {known or 'none'}); a lowered function "
                    "picks its variant by the sizes of its arguments, so a variant ranges over "
                    "a DimVar of a parameter",
                    variant,
                )
            envelope = carrier.dim_var
            if not (envelope.lo <= pattern.lo and pattern.hi <= envelope.hi):
                raise LoweringError(
                    f"{where}: range [{pattern.lo}, {pattern.hi}) of DimVar '{pattern.dim_var}' "
                    f"is not inside its envelope [{envelope.lo}, {envelope.hi}) (parameter "
                    f"'{names[carrier.param]}', axis {carrier.axis}); narrow the range",
                    variant,
                )


def _dim_vars(type: IRType) -> list[DimVar]:
    if isinstance(type, TensorType):
        return list(type.dim_vars)
    if isinstance(type, TupleType):
        return [d for field in type.fields for d in _dim_vars(field)]
    if isinstance(type, BufferType):
        return list(type.tensor.dim_vars)
    return []
