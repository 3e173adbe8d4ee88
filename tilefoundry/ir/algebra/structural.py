"""Structural equality and hashing: same structure, whatever the identity and the metadata.

Two nodes are structurally equal when their ops have the same names, properties, discardable
attributes and result types, their operands are defined by structurally equal nodes (positionally:
the n-th parameter of one function matches the n-th of the other), and their regions match op by
op. Locations (all metadata) and SSA names are ignored. A free `Var` compares by name, type and
const-ness. `structural_hash` agrees with `structural_equal`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

from tilefoundry.arguments import shown
from tilefoundry.ir.algebra.expr import Expr, Var

__all__ = ["structural_equal", "structural_hash"]


def _root(node: object) -> Operation | Var:
    inner = getattr(node, "function_op", None) or getattr(node, "module_op", None)
    if isinstance(inner, Operation):
        return inner
    if isinstance(node, Operation | Var):
        return node
    raise TypeError(f"expected an IR node (an Expr, a Function or a Module), got {shown(node)}")


class _Attrs:
    """Attribute equality and hashing, each answer remembered by the objects' identity for one
    comparison or hash: xDSL attributes are immutable, and the ops of one model share few
    distinct ones (a type, a callee), so each is hashed or compared in depth once."""

    def __init__(self) -> None:
        self.hashes: dict[int, int] = {}
        self.equal: dict[tuple[int, int], bool] = {}
        self.keep: list[Attribute] = []
        """The attributes remembered, kept alive so that their identities stay theirs."""

    def hash(self, attr: Attribute) -> int:
        key = id(attr)
        found = self.hashes.get(key)
        if found is None:
            found = self.hashes[key] = hash(attr)
            self.keep.append(attr)
        return found

    def same(self, a: Attribute, b: Attribute) -> bool:
        if a is b:
            return True
        key = (id(a), id(b))
        found = self.equal.get(key)
        if found is None:
            found = self.equal[key] = a == b
            self.keep += (a, b)
        return found

    def same_mapping(self, a: Mapping[str, Attribute], b: Mapping[str, Attribute]) -> bool:
        if len(a) != len(b):
            return False
        if not a:
            return True
        same = self.same
        for name, value in a.items():
            other = b.get(name)
            if other is not value and (other is None or not same(value, other)):
                return False
        return True

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


def _ops_of(block: Block) -> list[Operation]:
    ops = []
    op = block.first_op
    while op is not None:
        ops.append(op)
        op = op.next_op
    return ops


class _Equal:
    """A one-to-one pairing of the ops (and values) of `a` with those of `b`, grown from the
    roots; every paired op is then compared locally. Iterative: a chain of any depth. The first
    difference found ends the comparison. Ops, values and blocks are keyed by identity (`id`:
    they stay alive in the IR while it is compared)."""

    def __init__(self) -> None:
        self.values: dict[int, SSAValue] = {}
        self.blocks: dict[int, Block] = {}
        self.ops: dict[int, Operation] = {}
        self.matched: set[int] = set()
        """The ops of `b` already paired: the pairing is one-to-one, so one node used twice
        differs from two equal nodes."""
        self.pending: list[tuple[Operation, Operation]] = []
        self.attrs = _Attrs()

    def run(self, a: Operation, b: Operation) -> bool:
        if not self.pair(a, b):
            return False
        pending, local = self.pending, self.local
        while pending:
            if not local(*pending.pop()):
                return False
        return True

    def pair(self, a: Operation, b: Operation) -> bool:
        """Pair two ops (compared later); False when either is paired with another op."""
        paired = self.ops.get(id(a))
        if paired is not None:
            return paired is b
        if id(b) in self.matched:
            return False
        self.ops[id(a)] = b
        self.matched.add(id(b))
        self.pending.append((a, b))
        return True

    def value(self, a: SSAValue, b: SSAValue) -> bool:
        paired = self.values.get(id(a))
        if paired is not None:
            return paired is b
        type_a, type_b = a.type, b.type
        if type_a is not type_b and type_a != type_b:
            return False
        if isinstance(a, OpResult) and isinstance(b, OpResult):
            ok = a.index == b.index and self.pair(a.op, b.op)
        elif isinstance(a, BlockArgument) and isinstance(b, BlockArgument):
            block = self.blocks.get(id(a.block))
            if block is not None:
                ok = block is b.block and a.index == b.index
            else:  # a value from outside what is compared: compare as free Vars
                va, vb = Var.view(a), Var.view(b)
                ok = (va.name, va.is_const) == (vb.name, vb.is_const)
        else:
            ok = False
        if ok:
            self.values[id(a)] = b
        return ok

    def local(self, a: Operation, b: Operation) -> bool:
        """The op's own data, its operands' pairing, and its regions op by op. Dictionaries
        and tuples compare their items by identity first (in C), so a shared type costs
        nothing."""
        attrs = self.attrs
        results_a, results_b = a.results, b.results
        operands_a, operands_b = tuple(a.operands), tuple(b.operands)
        regions_a, regions_b = a.regions, b.regions
        if (
            a.name != b.name
            or len(results_a) != len(results_b)
            or len(operands_a) != len(operands_b)
            or len(regions_a) != len(regions_b)
            or not attrs.same_mapping(a.properties, b.properties)
            or not attrs.same_mapping(a.attributes, b.attributes)
        ):
            return False
        same = attrs.same
        for ra, rb in zip(results_a, results_b, strict=True):
            if not same(ra.type, rb.type):
                return False
        if regions_a and not self.regions(regions_a, regions_b):
            return False
        value = self.value
        for x, y in zip(operands_a, operands_b, strict=True):
            if not value(x, y):
                return False
        return True

    def regions(self, regions_a: Sequence[Region], regions_b: Sequence[Region]) -> bool:
        pair, values = self.pair, self.values
        for ra, rb in zip(regions_a, regions_b, strict=True):
            blocks_a, blocks_b = _blocks_of(ra), _blocks_of(rb)
            if len(blocks_a) != len(blocks_b):
                return False
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                args_a, args_b = ba.args, bb.args
                if len(args_a) != len(args_b) or ba.arg_types != bb.arg_types:
                    return False
                self.blocks[id(ba)] = bb
                for xa, xb in zip(args_a, args_b, strict=True):
                    values[id(xa)] = xb
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                x, y = ba.first_op, bb.first_op
                while x is not None and y is not None:
                    if not pair(x, y):
                        return False
                    x, y = x.next_op, y.next_op
                if x is not None or y is not None:
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


def _hash_op(root: Operation) -> int:
    """Each op's hash from its own data, its regions' ops and its operands' producers, computed
    operands first. Blocks are numbered in the order the ops holding them are first reached,
    which structure alone decides. Iterative: a chain of any depth. Ops and blocks are keyed by
    identity (`id`: they stay alive in the IR while it is hashed)."""
    attrs = _Attrs()
    attr_hash, hash_mapping = attrs.hash, attrs.hash_mapping
    hashes: dict[int, int] = {}  # id(op) -> its hash, once computed
    inner: dict[int, list[tuple[list[Block], list[list[Operation]]]]] = {}
    """Each expanded op's regions: its blocks and their ops (read once)."""
    block_ids: dict[int, int] = {}
    stack: list[tuple[Operation, bool]] = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        op, done = pop()
        if not done:
            if id(op) in inner:
                continue
            regions = []
            needed: list[Operation] = []
            for region in op.regions:
                blocks = _blocks_of(region)
                block_ops = []
                for block in blocks:
                    block_ids[id(block)] = len(block_ids)
                    ops = _ops_of(block)
                    block_ops.append(ops)
                    needed += ops
                regions.append((blocks, block_ops))
            inner[id(op)] = regions
            push((op, True))
            needed += [v.op for v in op.operands if isinstance(v, OpResult)]
            stack.extend([(x, False) for x in reversed(needed) if id(x) not in inner])
            continue
        parts: list[object] = [
            op.name,
            hash_mapping(op.properties),
            hash_mapping(op.attributes),
            tuple([attr_hash(r.type) for r in op.results]),
        ]
        for blocks, block_ops in inner[id(op)]:
            for block in blocks:
                parts.append(tuple([attr_hash(arg.type) for arg in block.args]))
            for ops in block_ops:
                parts.append(tuple([hashes[id(x)] for x in ops]))
        for v in op.operands:
            if isinstance(v, OpResult):
                parts.append(("result", v.index, hashes[id(v.op)]))
            else:
                assert isinstance(v, BlockArgument)
                block_id = block_ids.get(id(v.block))
                if block_id is not None:
                    parts.append(("arg", block_id, v.index))
                else:
                    var = Var.view(v)
                    parts.append(("free", var.name, attr_hash(v.type), var.is_const))
        hashes[id(op)] = hash(tuple(parts))
    return hashes[id(root)]


def structural_hash(node: Expr | object) -> int:
    """A hash that agrees with `structural_equal`."""
    root = _root(node)
    if isinstance(root, Var):
        return hash(("var", root.name, root.type, root.is_const))
    return _hash_op(root)
