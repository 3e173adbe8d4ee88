"""`cse`: common subexpression elimination, on any anchor op (xDSL's algorithm, in linear time).

Two pure ops with the same name, operands, properties and result types are one. A `tir.let`
has the effects of its body and a call of a function those of its callee's: two reads of a
buffer are one only when nothing may write between them; writes and allocs are never merged
(docs/ir.md, "Buffers").

```mlir
// before
%a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%b = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%y = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// after
%a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
%y = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
```

The driver makes the decisions of xDSL 0.74's `CSEDriver`, op for op (the lit tests and
`tests/unit/transforms/test_cse_linear.py` compare the two), without its three quadratic costs:

- xDSL copies the table of known ops on entering each region (`KnownOps(self._known_ops)`), so
  a block of N `tir.let`s costs N copies of a table of up to N entries; here one table with an
  undo log per scope (MLIR's `ScopedHashTable`);
- xDSL's key hashes an op without its regions, so every `tir.let` of one result type falls in
  one bucket and each lookup compares its region with all of them; here the key hashes the
  regions' structure too (what `is_structurally_equivalent` compares), once per op;
- xDSL walks from the known read to the new one looking for a write, from the start each time
  (`has_other_side_effecting_op_in_between`), so N loads of one buffer walk N²/2 ops; here the
  walk resumes where the last one from the same known op stopped (MLIR's `memEffectsCachedOps`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, Operation, Region, SSAValue, Use
from xdsl.rewriter import Rewriter
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffectKind,
    get_effects,
    is_side_effect_free,
    only_has_effect,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from tilefoundry.transforms.pass_base import ANY_OP, Anchors, TFPass

__all__ = ["CommonSubexpressionElimination", "Cse", "CseCounts", "CseDriver", "cse"]


def _region_hash(op: Operation) -> int:
    """A hash of what `is_structurally_equivalent` compares in `op`'s regions: each inner op's
    name, attributes, properties and result types, and the operands defined outside `op` (an
    operand defined inside is matched by position, so it hashes as 0)."""
    inner_ops = [inner for region in op.regions for inner in region.walk()]
    inside: set[SSAValue] = {
        arg for region in op.regions for block in region.blocks for arg in block.args
    }
    for inner in inner_ops:
        inside.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.args)
    parts = [len(block.args) for region in op.regions for block in region.blocks]
    for inner in inner_ops:
        operands = tuple(0 if v in inside else hash(v) for v in inner.operands)
        parts.append(
            hash(
                (
                    inner.name,
                    sum(hash(i) for i in inner.attributes.items()),
                    sum(hash(i) for i in inner.properties.items()),
                    hash(inner.result_types),
                    operands,
                )
            )
        )
    return hash(tuple(parts))


@dataclass
class CseCounts:
    """A count of a driver's work, for tests (given to `cse` / `CseDriver`)."""

    scanned: int = 0
    """Ops looked at by the searches for a write between two reads."""
    comparisons: int = 0
    """Pairs of ops compared in full because their keys' hashes matched."""


class OpKey:
    """An op as a key of the table of known ops: equal when xDSL's `OperationInfo` says so (name,
    attributes, properties, operands, result types, structurally equivalent regions), its hash
    computed once and covering the regions. `counts`, when given, counts full comparisons."""

    __slots__ = ("counts", "hash", "op")

    def __init__(self, op: Operation, counts: CseCounts | None = None) -> None:
        self.op = op
        self.counts = counts
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        self.hash = hash(
            (
                name,
                sum(hash(i) for i in op.attributes.items()),
                sum(hash(i) for i in op.properties.items()),
                hash(op.result_types),
                hash(op.operands),
                _region_hash(op) if op.regions else 0,
            )
        )

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpKey) or self.hash != other.hash:
            return False
        a, b = self.op, other.op
        if self.counts is not None:
            self.counts.comparisons += 1
        return (
            _name(a) == _name(b)
            and a.attributes == b.attributes
            and a.properties == b.properties
            and a.operands == b.operands
            and a.result_types == b.result_types
            and all(
                s.is_structurally_equivalent(o) for s, o in zip(a.regions, b.regions, strict=True)
            )
        )


def _name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


_MISSING = object()


@dataclass
class _Scan:
    """How far a search for a write from one known op got: `reached`, and whether it found one."""

    reached: Operation
    found_write: bool = False


@dataclass
class CseDriver:
    """xDSL's `CSEDriver`, with a scoped table, region-aware keys and resumable scans; `counts`
    (tests) counts its work."""

    counts: CseCounts | None = None
    rewriter: Rewriter = field(default_factory=Rewriter)
    to_erase: set[Operation] = field(default_factory=set[Operation])
    known: dict[OpKey, Operation] = field(default_factory=dict[OpKey, Operation])
    undo: list[list[tuple[OpKey, object]]] = field(default_factory=list)
    scans: dict[Operation, _Scan] = field(default_factory=dict[Operation, _Scan])

    def _remember(self, op: Operation, key: OpKey | None = None) -> None:
        key = key or OpKey(op, self.counts)
        if self.undo:
            self.undo[-1].append((key, self.known.get(key, _MISSING)))
        self.known[key] = op

    def _write_between(self, existing: Operation, op: Operation) -> bool:
        """Whether an op from `existing` up to `op` (not included) may write memory, as xDSL's
        `has_other_side_effecting_op_in_between`; a later call from the same `existing` starts
        where this one stopped."""
        scan = self.scans.get(existing)
        if scan is None:
            scan = self.scans[existing] = _Scan(existing)
        while not scan.found_write and scan.reached is not op:
            if self.counts is not None:
                self.counts.scanned += 1
            effects = get_effects(scan.reached)
            if effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects):
                scan.found_write = True
                break
            following = scan.reached.next_op
            assert following is not None, "Incorrect order of ops in side-effect search"
            scan.reached = following
        return scan.found_write

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        def was_visited(use: Use) -> bool:
            return OpKey(use.operation, self.counts) not in self.known

        for old, new in zip(op.results, existing.results, strict=True):
            if all(was_visited(u) for u in old.uses):
                old.replace_all_uses_with(new)
        if all(not r.uses for r in op.results):
            self.to_erase.add(op)

    def _simplify_operation(self, op: Operation) -> None:
        if op.has_trait(IsTerminator):
            return
        if is_trivially_dead(op):
            self.to_erase.add(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        key = OpKey(op, self.counts)
        if not is_side_effect_free(op):
            if not only_has_effect(op, MemoryEffectKind.READ):
                return
            if existing := self.known.get(key):
                if op.parent_block() is existing.parent_block() and not self._write_between(
                    existing, op
                ):
                    self._replace_and_delete(op, existing)
                    return
            self._remember(op, key)
            return
        if existing := self.known.get(key):
            self._replace_and_delete(op, existing)
            return
        self._remember(op, key)

    def _simplify_block(self, block: Block) -> None:
        for op in block.ops:
            if op.regions:
                if op.has_trait(IsolatedFromAbove, value_if_unregistered=True):
                    saved = self.known, self.undo
                    self.known, self.undo = {}, []
                    for region in op.regions:
                        self._simplify_region(region)
                    self.known, self.undo = saved
                else:
                    for region in op.regions:
                        self._simplify_region(region)
            self._simplify_operation(op)

    def _simplify_region(self, region: Region) -> None:
        if len(region.blocks) != 1:
            return
        self.undo.append([])
        self._simplify_block(region.block)
        for key, old in reversed(self.undo.pop()):
            if old is _MISSING:
                del self.known[key]
            else:
                assert isinstance(old, Operation)
                self.known[key] = old

    def simplify(self, thing: Operation | Block | Region) -> None:
        """Eliminate the common subexpressions of `thing` (as xDSL's `CSEDriver.simplify`)."""
        if isinstance(thing, Operation):
            for region in thing.regions:
                self._simplify_region(region)
        elif isinstance(thing, Block):
            self._simplify_block(thing)
        else:
            self._simplify_region(thing)
        for erased in self.to_erase:
            if erased.parent is not None:
                self.rewriter.erase_op(erased)


def cse(thing: Operation | Block | Region, counts: CseCounts | None = None) -> None:
    """Common subexpression elimination on `thing` (as xDSL's `cse`); `counts` counts the work."""
    CseDriver(counts).simplify(thing)


@dataclass(frozen=True)
class CommonSubexpressionElimination(TFPass):
    """Common subexpression elimination on the anchor op (see the module docstring).

    Not xDSL's pass: its driver is quadratic on blocks of region ops. It keeps xDSL's class
    name, which IR dumps show (`IR Dump After CommonSubexpressionElimination`)."""

    name = "cse"
    anchors: ClassVar[Anchors] = ANY_OP

    def apply(self, ctx: Context, op: Operation) -> None:
        cse(op)


Cse = CommonSubexpressionElimination
