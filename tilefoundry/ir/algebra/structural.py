"""Structural equality and hashing: same structure, whatever the identity and the metadata.

Two nodes are structurally equal when their ops have the same names, properties, discardable
attributes and result types, their operands are defined by structurally equal nodes (positionally:
the n-th parameter of one function matches the n-th of the other), and their regions match op by
op. Locations (all metadata) and SSA names are ignored. A free `Var` compares by name, type and
const-ness. `structural_hash` agrees with `structural_equal`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

from tilefoundry.ir.algebra.expr import Expr, Var
from tilefoundry.support.arguments import shown
from tilefoundry.xdsl_adapter.structure import (
    block_ops,
    operands_of,
    pair_results,
    result_types_of,
)

__all__ = ["structural_equal", "structural_hash"]


def _root(node: object) -> Operation | Var:
    # Looked up on the class: a Module's instance lookup of a missing name searches its members.
    for name in ("function_op", "module_op"):
        if getattr(type(node), name, None) is not None:
            inner = getattr(node, name)
            if isinstance(inner, Operation):
                return inner
    if isinstance(node, Operation | Var):
        return node
    raise TypeError(f"expected an IR node (an Expr, a Function or a Module), got {shown(node)}")


class _AttrHashes:
    """Attribute hashes remembered by the object's identity for one `structural_hash`: xDSL
    attributes are immutable and the ops of a model share few distinct ones (a type, a callee),
    so each is hashed in depth once. A function type (a dataclass: equal when its input and
    output types are) hashes from its types' remembered hashes, not theirs again."""

    def __init__(self) -> None:
        self.hashes: dict[int, int] = {}
        self.keep: list[Attribute] = []
        """The attributes remembered, kept alive so that their identities stay theirs."""

    def hash(self, attr: Attribute) -> int:
        key = id(attr)
        found = self.hashes.get(key)
        if found is None:
            if type(attr) is FunctionType:  # its types are shared: each hashed once
                assert isinstance(attr, FunctionType)
                hashed = self.hash
                inputs = tuple([hashed(t) for t in attr.inputs.data])
                found = hash((FunctionType, inputs, tuple([hashed(t) for t in attr.outputs])))
            else:
                found = hash(attr)
            self.hashes[key] = found
            self.keep.append(attr)
        return found

    def hash_mapping(self, mapping: Mapping[str, Attribute]) -> int:
        """Independent of the order the names were set in (as dict equality is)."""
        if not mapping:
            return 0
        hashed = self.hash
        if len(mapping) == 1:
            ((name, value),) = mapping.items()
            return hash((name, hashed(value)))
        return hash(tuple(sorted([(name, hashed(value)) for name, value in mapping.items()])))


def _blocks_of(region: Region) -> list[Block]:
    blocks = []
    block = region.first_block
    while block is not None:
        blocks.append(block)
        block = block.next_block
    return blocks


class _Equal:
    """A one-to-one pairing of the ops (and values) of `a` with those of `b`, grown from the
    roots; every paired op is then compared locally. Iterative: a chain of any depth. The first
    difference found ends the comparison. Ops and values are keyed by identity (`id`: they stay
    alive in the IR while it is compared); an op's results are paired with the op, so that an
    operand is checked by one lookup. Dictionaries and tuples compare their items by identity
    first (in C), so a shared type or callee costs nothing."""

    def __init__(self) -> None:
        self.values: dict[int, SSAValue] = {}
        self.blocks: dict[int, Block] = {}
        self.ops: dict[int, Operation] = {}
        self.matched: set[int] = set()
        """The ops of `b` already paired: the pairing is one-to-one, so one node used twice
        differs from two equal nodes."""
        self.pending: list[tuple[Operation, Operation]] = []

    def run(self, a: Operation, b: Operation) -> bool:
        """Pair the roots, then compare each pair of ops in turn: its own data, its regions
        op by op (pairing their ops), its operands' pairing."""
        if not self.pair(a, b):
            return False
        pending, same_op = self.pending, self.same_op
        while pending:
            if not same_op(*pending.pop()):
                return False
        return True

    def same_op(self, a: Operation, b: Operation) -> bool:
        """Two paired ops: their own data, their regions op by op (pairing their ops), their
        operands' pairing."""
        operands_a, operands_b = operands_of(a), operands_of(b)
        regions_a, regions_b = a.regions, b.regions
        if (
            a.name != b.name
            or len(operands_a) != len(operands_b)
            or len(regions_a) != len(regions_b)
            or a.properties != b.properties
            or a.attributes != b.attributes
            or (regions_a and not self.regions(regions_a, regions_b))
        ):
            return False
        values = self.values
        for x, y in zip(operands_a, operands_b, strict=True):
            paired = values.get(id(x))
            if paired is None:
                if not self.value(x, y):
                    return False
            elif paired is not y:
                return False
        return True

    def pair(self, a: Operation, b: Operation) -> bool:
        """Pair two ops and their results (the rest compared later); False when either is
        paired with another op, or their result types differ."""
        paired = self.ops.get(id(a))
        if paired is not None:
            return paired is b
        if id(b) in self.matched or not pair_results(a, b, self.values):
            return False
        self.ops[id(a)] = b
        self.matched.add(id(b))
        self.pending.append((a, b))
        return True

    def value(self, a: SSAValue, b: SSAValue) -> bool:
        """An operand not paired yet: a result of an op not reached yet, or a value from
        outside what is compared."""
        if isinstance(a, OpResult) and isinstance(b, OpResult):
            return a.index == b.index and self.pair(a.op, b.op)
        if not (isinstance(a, BlockArgument) and isinstance(b, BlockArgument)):
            return False
        if id(a.block) in self.blocks:
            return False  # its block's arguments are all paired: `a` is paired with another
        type_a, type_b = a.type, b.type
        if type_a is not type_b and type_a != type_b:
            return False
        va, vb = Var.view(a), Var.view(b)  # compared as free Vars
        if (va.name, va.is_const) != (vb.name, vb.is_const):
            return False
        self.values[id(a)] = b
        return True

    def regions(self, regions_a: Sequence[Region], regions_b: Sequence[Region]) -> bool:
        """Pair the blocks and ops of two ops' regions; an op without regions is compared at
        once (its operands defined before it are paired by then), one with regions later."""
        values, blocks, ops, matched = self.values, self.blocks, self.ops, self.matched
        pending, same_op = self.pending, self.same_op
        for ra, rb in zip(regions_a, regions_b, strict=True):
            blocks_a, blocks_b = _blocks_of(ra), _blocks_of(rb)
            if len(blocks_a) != len(blocks_b):
                return False
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                args_a, args_b = ba.args, bb.args
                if len(args_a) != len(args_b) or ba.arg_types != bb.arg_types:
                    return False
                blocks[id(ba)] = bb
                for xa, xb in zip(args_a, args_b, strict=True):
                    values[id(xa)] = xb
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                ops_a, ops_b = block_ops(ba), block_ops(bb)
                if len(ops_a) != len(ops_b):
                    return False
                for x, y in zip(ops_a, ops_b, strict=True):  # `pair`, written out
                    if id(x) in ops:
                        if ops[id(x)] is not y:
                            return False
                        continue
                    if id(y) in matched or not pair_results(x, y, values):
                        return False
                    ops[id(x)] = y
                    matched.add(id(y))
                    if x.regions:
                        pending.append((x, y))  # compared later: no recursion into regions
                    elif not same_op(x, y):
                        return False
        return True


def structural_equal(a: Expr | object, b: Expr | object) -> bool:
    """Whether two IR nodes have the same structure (metadata and identity ignored). A node is
    equal to itself without a walk; the first difference found ends the walk."""
    ra, rb = _root(a), _root(b)
    if isinstance(ra, Var) or isinstance(rb, Var):
        if not (isinstance(ra, Var) and isinstance(rb, Var)):
            return False
        return (ra.name, ra.type, ra.is_const) == (rb.name, rb.type, rb.is_const)
    if ra is rb:
        return True
    return _Equal().run(ra, rb)


def _types_hash(attrs: _AttrHashes, types: Sequence[Attribute]) -> object:
    """One type's hash (most results), or the tuple of several."""
    if len(types) == 1:
        found = attrs.hashes.get(id(types[0]))
        return attrs.hash(types[0]) if found is None else found
    return tuple([attrs.hash(t) for t in types])


_Regions = list[tuple[list[Block], list[list[Operation]]]]
"""An op's regions as read once: each region's blocks and their ops."""


class _Hash:
    """Each op's hash from its own data, its regions' ops and its operands' producers; a block
    argument hashes as (block number, index), a result as (its op's hash, index), each computed
    once. The ops under the root are hashed in post-order of their regions (an op after what
    it holds, a block's ops in order: a verified body defines a value before its uses); an
    operand whose producer is not hashed by then (a producer outside the root, as an Expr's
    operands are) is hashed first, operands before users. Both orders, and the numbering of
    blocks in the order their ops are read, are decided by structure alone. Iterative: a chain
    or a nesting of any depth. Ops and values are keyed by identity (`id`: they stay alive in
    the IR while it is hashed)."""

    def __init__(self) -> None:
        self.attrs = _AttrHashes()
        self.hashes: dict[int, int] = {}  # id(op) -> its hash, once computed
        self.values: dict[int, int] = {}  # id(value) -> its hash as an operand
        self.inner: dict[int, _Regions] = {}  # id(op) -> its regions, once read
        self.block_count = 0

    def expand(self, op: Operation) -> _Regions:
        """Read `op`'s regions, numbering its blocks and their arguments."""
        regions: _Regions = []
        values = self.values
        for region in op.regions:
            blocks = _blocks_of(region)
            all_ops = []
            for block in blocks:
                number = self.block_count
                for arg in block.args:
                    values[id(arg)] = hash(("arg", number, arg.index))
                self.block_count = number + 1
                all_ops.append(block_ops(block))
            regions.append((blocks, all_ops))
        self.inner[id(op)] = regions
        return regions

    def run(self, root: Operation) -> int:
        order: list[Operation] = []  # the ops under root, children in reverse: reversed, post-order
        pending = [root]
        expand = self.expand
        while pending:
            op = pending.pop()
            order.append(op)
            if op.regions:
                for _, all_ops in expand(op):
                    for ops in all_ops:
                        pending += ops
        hashes, own = self.hashes, self.own
        for op in reversed(order):
            if id(op) not in hashes and not own(op):
                self.producers_first(op)
        return hashes[id(root)]

    def producers_first(self, start: Operation) -> None:
        """Hash `start` after its operands' producers, in depth-first order."""
        hashes, inner = self.hashes, self.inner
        stack: list[tuple[Operation, bool]] = [(start, False)]
        visited: set[int] = set()
        while stack:
            op, done = stack.pop()
            if done:
                hashed = self.own(op)
                assert hashed  # its producers were hashed first
                continue
            if id(op) in hashes or id(op) in visited:
                continue
            visited.add(id(op))
            regions = inner.get(id(op))
            if regions is None:
                regions = self.expand(op)
            needed = [x for _, all_ops in regions for ops in all_ops for x in ops]
            needed += [v.op for v in operands_of(op) if isinstance(v, OpResult)]
            stack.append((op, True))
            stack.extend([(x, False) for x in reversed(needed) if id(x) not in hashes])

    def own(self, op: Operation) -> bool:
        """`op`'s hash, its regions' ops hashed; False (nothing done) when the producer of an
        operand is not hashed yet."""
        values = self.values
        operands: list[int] = []
        for v in operands_of(op):
            found = values.get(id(v))
            if found is None:
                if isinstance(v, OpResult):
                    return False
                assert isinstance(v, BlockArgument)  # a value from outside: a free Var
                var = Var.view(v)
                found = hash(("free", var.name, self.attrs.hash(v.type), var.is_const))
            operands.append(found)
        attrs, hashes = self.attrs, self.hashes
        attr_hash, known = attrs.hash, attrs.hashes
        properties, results = op.properties, op.results
        if len(properties) == 1:  # most ops: one property, its value's hash known
            ((name, value),) = properties.items()
            found = known.get(id(value))
            own = hash((name, attr_hash(value) if found is None else found))
        else:
            own = attrs.hash_mapping(properties)
        types = result_types_of(op)
        if len(types) == 1:
            found = known.get(id(types[0]))
            result_hash: object = attr_hash(types[0]) if found is None else found
        else:
            result_hash = _types_hash(attrs, types)
        discardable = op.attributes
        head = (
            op.name,
            own,
            attrs.hash_mapping(discardable) if discardable else 0,
            result_hash,
            tuple(operands),
        )
        regions = self.inner.get(id(op)) if op.regions else None
        if regions:
            parts: list[object] = [head]
            for blocks, all_ops in regions:
                for block in blocks:
                    parts.append(_types_hash(attrs, block.arg_types))
                for ops in all_ops:
                    parts.append(tuple([hashes[id(x)] for x in ops]))
            mine = hash(tuple(parts))
        else:
            mine = hash(head)
        hashes[id(op)] = mine
        if len(results) == 1:  # unpacked: `SSAValues.__getitem__` is a Python call
            (result,) = results
            values[id(result)] = hash((mine, 0))
        else:
            for result in results:
                values[id(result)] = hash((mine, result.index))
        return True


def structural_hash(node: Expr | object) -> int:
    """A hash that agrees with `structural_equal`."""
    root = _root(node)
    if isinstance(root, Var):
        return hash(("var", root.name, root.type, root.is_const))
    return _Hash().run(root)
