"""`tf-inline`: inline calls of functions of the module tree into their callers.

A `tf.call @f(...)` is replaced by a copy of `f`'s body, its parameters bound to the call's
arguments, its returned value standing for the call's. Callees are inlined into their callers
bottom-up, so a caller receives bodies that are already inlined. Each inlined op keeps its own
metadata and records the call site: its location becomes MLIR's `callsite(<its own> at <the
call's>)` (the metadata it reads back is its own; an op with no location gets none). Symbols
the copy uses are rewritten to resolve from the caller's module.

In TIR the callee's statements go before the statement that holds the call, which then uses
the returned value (a `tir.let` left binding only that value is forwarded; a `tir.evaluate` left
running nothing goes).

Inlining is bounded: before anything changes, the ops it could copy into the tree are counted
(an upper bound, bottom-up, stopping at the bound), and past `max-ops` (default 100000, at most
1000000) the pass refuses in one line at the function where the count passes it, so a call graph
that doubles per level is refused in a fraction of a second instead of filling the memory.

A call is left alone, never looped on, when its callee is recursive or can reach its caller, when
the callee has shape-specialization variants (the variant is chosen at run time), when caller
and callee are of different levels (HIR and TIR), when the argument types specialize the
parameter types (a size for a DimVar), when a TIR call's arguments are computed inside its own
statement, when the callee touches memory that an op before the call in its statement writes
(or writes memory such an op touches: the callee's statements would run before it), when the
callee binds a mesh to a level the caller's module does not have, or when
a mesh of the callee would not nest outer to inner in the caller (a `mesh "cta"` in a callee
whose call is inside a `mesh "warp"`): the verifier's rule for meshes holds in the result.

```mlir
// before
hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tf.call @double(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("y"("m.py":9:5))
  hir.return %y : tensor<4xf32>
}
hir.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %d = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("d"("m.py":2:5))
  hir.return %d : tensor<4xf32>
}
// after (main)
hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(callsite("d"("m.py":2:5) at "y"("m.py":9:5)))
  hir.return %d : tensor<4xf32>
}
```
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, SymbolRefAttr, UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import EffectInstance, IsTerminator, MemoryEffectKind, get_effects

from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dialects.tf.module import ModuleOp, declared_in_chain, lookup_symbol
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp, PrimFuncOp, YieldOp
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.expr import dominates, is_defined_within
from tilefoundry.support.diagnostics import PassError
from tilefoundry.transforms.call_graph import callees, functions_of, reachable_from
from tilefoundry.transforms.pass_base import RootPass

__all__ = ["TfInline", "inline_calls"]


DEFAULT_MAX_OPS = 100_000
"""The most ops inlining may copy into the functions of a module tree (`tf-inline{max-ops=N}`):
past it, refused."""

LARGEST_MAX_OPS = 1_000_000
"""The largest `max-ops`: a copied op takes memory (about a kilobyte in xDSL)."""


def inline_calls(
    root: ModuleOp, max_ops: int = DEFAULT_MAX_OPS, pass_name: str = "tf-inline"
) -> int:
    """Inline what can be inlined in one module tree; the number of calls inlined. A
    `PassError`, before anything changes, when it could copy more than `max_ops` ops."""
    _check_growth(root, max_ops, pass_name)
    return _inline_tree(root)


def _call_graph(
    root: ModuleOp,
) -> tuple[list[Operation], set[Operation], dict[Operation, set[Operation]]]:
    """The functions callees first, the recursive ones, and what each one reaches."""
    functions = list(functions_of(root))
    reaches = {f: reachable_from(f) for f in functions}
    recursive = {f for f in functions if any(f in reaches[c] for c in callees(f))}
    return _callees_first(functions), recursive, reaches


def _inline_tree(root: ModuleOp) -> int:
    order, recursive, reaches = _call_graph(root)
    inlined = 0
    for function in order:
        calls = [op for op in function.walk() if isinstance(op, CallOp)]
        for call in calls:
            callee = _callee(call)
            if callee is None or callee in recursive:
                continue
            if _can_inline(call, callee, function, reaches):
                _inline(call, callee, function)
                inlined += 1
    return inlined


def _check_growth(root: ModuleOp, max_ops: int, pass_name: str) -> None:
    """Refuse, before anything is inlined, a tree where inlining could copy more than `max_ops`
    ops in all (a call graph that doubles per level doubles the copies per level). Each
    function's size once inlined is bounded bottom-up (its own ops, and for each call that may
    be inlined the callee's bounded size, less the call and the callee's terminator); the
    copies are what the callees bring. The bound counts every call whose callee is in reach,
    of the same level and types, and the count stops past `max_ops`, so it stays small and
    takes time linear in the input."""
    order, recursive, reaches = _call_graph(root)
    size: dict[Operation, int] = {}
    copies = 0
    for function in order:
        total = sum(1 for _ in function.walk()) - 1
        for call in [op for op in function.walk() if isinstance(op, CallOp)]:
            callee = _callee(call)
            if callee is None or callee in recursive or callee not in size:
                continue
            if _can_inline(call, callee, function, reaches, upper_bound=True):
                copies = min(copies + size[callee] - 1, max_ops + 1)
                total = min(total + size[callee] - 2, max_ops + 1)
        size[function] = total
        if copies > max_ops:
            assert isinstance(function, FunctionLike)
            raise PassError(
                pass_name,
                f"inlining would copy more than {max_ops} ops (max-ops), past it in "
                f"'@{function.function_name()}'; nothing was inlined; raise "
                "tf-inline{max-ops=N} or inline less",
                function,
            )


def _callee(call: CallOp) -> Operation | None:
    if not isinstance(call.callee, SymbolRefAttr):
        return None
    callee = lookup_symbol(call, call.callee)
    return callee if isinstance(callee, FunctionLike) else None


def _callees_first(functions: list[Operation]) -> list[Operation]:
    """The functions in post-order of the call graph (a callee before its callers)."""
    order: list[Operation] = []
    seen: set[Operation] = set()
    for start in functions:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(callees(start)))]
        while stack:
            function, pending = stack[-1]
            following = next((c for c in pending if c not in seen), None)
            if following is None:
                stack.pop()
                order.append(function)
            else:
                seen.add(following)
                stack.append((following, iter(callees(following))))
    return order


def _can_inline(
    call: CallOp,
    callee: Operation,
    caller: Operation,
    reaches: dict[Operation, set[Operation]],
    upper_bound: bool = False,
) -> bool:
    """Whether to inline `call`; with `upper_bound`, only what holds before any inlining (the
    checks that look at the call's statement and the callee's meshes are skipped)."""
    if caller in reaches.get(callee, {callee}):
        return False
    if isinstance(callee, FuncOp):
        if not isinstance(caller, FuncOp) or callee.variant_ops():
            return False
    elif not (isinstance(callee, PrimFuncOp) and isinstance(caller, PrimFuncOp)):
        return False
    assert isinstance(callee, FuncOp | PrimFuncOp)
    if tuple(call.args_.types) != tuple(callee.function_type.inputs.data):
        return False
    if upper_bound:
        return True
    if isinstance(callee, PrimFuncOp):
        statement = call.parent_op()
        if not isinstance(statement, LetOp | EvaluateOp):
            return False
        if not all(dominates(arg, statement) for arg in call.args_):
            return False
        if not _effects_stay_ordered(call, statement):
            return False
    return _mesh_levels_fit(callee, call)


def _touches(effects: AbstractSet[EffectInstance] | None) -> tuple[bool, bool]:
    """Whether effects read and write memory (unknown effects: both)."""
    if effects is None:
        return True, True
    reads = any(e.kind == MemoryEffectKind.READ for e in effects)
    return reads, any(e.kind != MemoryEffectKind.READ for e in effects)


def _effects_stay_ordered(call: CallOp, statement: Operation) -> bool:
    """Whether the callee's statements, which go before the call's statement, may move before
    the ops of that statement that precede the call: not when one of them writes memory the
    other touches (a `tf.memory.load` of a buffer the callee writes would then see the write)."""
    reads, writes = _touches(get_effects(call))
    if not (reads or writes):
        return True
    for op in statement.walk():
        if op is call:
            return True
        if op is statement or op.has_trait(IsTerminator):
            continue
        earlier_reads, earlier_writes = _touches(get_effects(op))
        if writes and (earlier_reads or earlier_writes) or reads and earlier_writes:
            return False
    return True


def _mesh_levels_fit(callee: Operation, call: CallOp) -> bool:
    """Whether every mesh of the callee names a level of the caller's module and, once in the
    caller, nests outer to inner: inside the mesh that holds the call too."""
    module = _module_of(call)
    levels = declared_in_chain(module)
    if levels is None:
        return True
    names = [level.name for level in levels]
    around_call = _enclosing_mesh(call, module)
    for op in callee.walk():
        if not isinstance(op, MeshOp):
            continue
        if op.topology.data not in names:
            return False
        outer = _enclosing_mesh(op, callee) or around_call
        if outer is not None and outer.topology.data in names:
            if names.index(op.topology.data) <= names.index(outer.topology.data):
                return False
    return True


def _enclosing_mesh(op: Operation, limit: Operation) -> MeshOp | None:
    """The closest mesh that holds `op`, below `limit`."""
    parent = op.parent_op()
    while parent is not None and parent is not limit:
        if isinstance(parent, MeshOp):
            return parent
        parent = parent.parent_op()
    return None


def _module_of(op: Operation) -> ModuleOp:
    parent = op.parent_op()
    while not isinstance(parent, ModuleOp):
        assert parent is not None
        parent = parent.parent_op()
    return parent


def _path_between(inner: ModuleOp, outer: ModuleOp) -> list[str]:
    """The symbol path from `outer` down to `inner` (which is in `outer`'s tree)."""
    names: list[str] = []
    node = inner
    while node is not outer:
        names.append(node.sym_name.data)
        node = _module_of(node)
    names.reverse()
    return names


def _prefixed(ref: SymbolRefAttr, prefix: list[str]) -> SymbolRefAttr:
    if not prefix:
        return ref
    names = [*prefix[1:], ref.root_reference.data, *(r.data for r in ref.nested_references)]
    return SymbolRefAttr(prefix[0], names)


def _relocate(ops: Iterable[Operation], call: CallOp, prefix: list[str]) -> None:
    """Record the call site on every inlined op and make its symbols resolve from the caller."""
    site = call.location
    for op in ops:
        for inner in op.walk():
            if not isinstance(site, UnknownLoc) and not isinstance(inner.location, UnknownLoc):
                inner.location = CallSiteLoc(inner.location, site)
            if isinstance(inner, CallOp) and isinstance(inner.callee, SymbolRefAttr):
                inner.callee = _prefixed(inner.callee, prefix)
            elif isinstance(inner, DispatchOp):
                inner.callees = ArrayAttr(_prefixed(c, prefix) for c in inner.callees)


def _inline(call: CallOp, callee: Operation, caller: Operation) -> None:
    assert isinstance(callee, FuncOp | PrimFuncOp)
    prefix = _path_between(_module_of(callee), _module_of(call))
    block = callee.body.block
    mapper: dict[SSAValue, SSAValue] = dict(zip(block.args, call.args_, strict=True))
    body = list(block.ops)
    terminator = body.pop()
    anchor = call if isinstance(callee, FuncOp) else call.parent_op()
    assert anchor is not None
    copies = [op.clone(value_mapper=mapper) for op in body]
    _relocate(copies, call, prefix)
    for copy in copies:
        Rewriter.insert_op(copy, InsertPoint.before(anchor))
    returned = [mapper.get(v, v) for v in terminator.operands]
    Rewriter.replace_op(call, [], returned if call.results else [])
    if isinstance(anchor, LetOp | EvaluateOp):
        _tidy_statement(anchor)


def _tidy_statement(statement: LetOp | EvaluateOp) -> None:
    """A `tir.let` that only yields a value of the enclosing body is that value; a
    `tir.evaluate` that runs no call any more goes."""
    first = statement.body.block.first_op
    if isinstance(statement, LetOp):
        if isinstance(first, YieldOp) and not is_defined_within(first.values[0], statement):
            Rewriter.replace_op(statement, [], [first.values[0]])
        return
    if not any(isinstance(op, CallOp | DispatchOp) and not op.results for op in statement.walk()):
        Rewriter.erase_op(statement, safe_erase=False)


@dataclass(frozen=True)
class TfInline(RootPass):
    """Inline calls of functions of the module tree (see the module docstring)."""

    name = "tf-inline"

    max_ops: int = field(
        default=DEFAULT_MAX_OPS,
        metadata={
            "help": "the most ops inlining may give a function, or a tree in all; past it, refused"
        },
    )

    def __post_init__(self) -> None:
        if not 1 <= self.max_ops <= LARGEST_MAX_OPS:
            raise ValueError(
                f"max-ops must be at least 1 and at most {LARGEST_MAX_OPS} (each copied op is "
                f"held in memory), got {self.max_ops}"
            )

    def check_roots(self, anchor: Operation, roots: Sequence[ModuleOp]) -> None:
        for root in roots:
            _check_growth(root, self.max_ops, self.name)

    def run_on_root(self, root: ModuleOp) -> None:
        _inline_tree(root)
