"""Structural equality and hashing: same structure, whatever the identity and the metadata.

Two nodes are structurally equal when their ops have the same names, properties, discardable
attributes and result types, their operands are defined by structurally equal nodes (positionally:
the n-th parameter of one function matches the n-th of the other), and their regions match op by
op. Locations (all metadata) and SSA names are ignored. A free `Var` compares by name, type and
const-ness. `structural_hash` agrees with `structural_equal`.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

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


class _Equal:
    """A one-to-one pairing of the ops (and values) of `a` with those of `b`, grown from the
    roots; every paired op is then compared locally. Iterative: a chain of any depth."""

    def __init__(self) -> None:
        self.values: dict[SSAValue, SSAValue] = {}
        self.blocks: dict[Block, Block] = {}
        self.ops: dict[Operation, Operation] = {}
        self.matched: set[Operation] = set()
        """The ops of `b` already paired: the pairing is one-to-one, so one node used twice
        differs from two equal nodes."""
        self.pending: list[tuple[Operation, Operation]] = []

    def run(self, a: Operation, b: Operation) -> bool:
        if not self.pair(a, b):
            return False
        while self.pending:
            if not self.local(*self.pending.pop()):
                return False
        return True

    def pair(self, a: Operation, b: Operation) -> bool:
        """Pair two ops (compared later); False when either is paired with another op."""
        if a in self.ops:
            return self.ops[a] is b
        if b in self.matched:
            return False
        self.ops[a] = b
        self.matched.add(b)
        self.pending.append((a, b))
        return True

    def value(self, a: SSAValue, b: SSAValue) -> bool:
        if a in self.values:
            return self.values[a] is b
        if a.type != b.type:
            return False
        if isinstance(a, OpResult) and isinstance(b, OpResult):
            ok = a.index == b.index and self.pair(a.owner, b.owner)
        elif isinstance(a, BlockArgument) and isinstance(b, BlockArgument):
            if a.block in self.blocks:
                ok = self.blocks[a.block] is b.block and a.index == b.index
            else:  # a value from outside what is compared: compare as free Vars
                va, vb = Var.view(a), Var.view(b)
                ok = (va.name, va.is_const) == (vb.name, vb.is_const)
        else:
            ok = False
        if ok:
            self.values[a] = b
        return ok

    def local(self, a: Operation, b: Operation) -> bool:
        """The op's own data, its operands' pairing, and its regions op by op."""
        if (
            a.name != b.name
            or a.properties != b.properties
            or a.attributes != b.attributes
            or a.result_types != b.result_types
            or len(a.operands) != len(b.operands)
            or len(a.regions) != len(b.regions)
        ):
            return False
        for ra, rb in zip(a.regions, b.regions, strict=True):
            blocks_a, blocks_b = list(ra.blocks), list(rb.blocks)
            if len(blocks_a) != len(blocks_b):
                return False
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                if ba.arg_types != bb.arg_types:
                    return False
                self.blocks[ba] = bb
                for xa, xb in zip(ba.args, bb.args, strict=True):
                    self.values[xa] = xb
            for ba, bb in zip(blocks_a, blocks_b, strict=True):
                ops_a, ops_b = list(ba.ops), list(bb.ops)
                if len(ops_a) != len(ops_b):
                    return False
                if not all(self.pair(x, y) for x, y in zip(ops_a, ops_b, strict=True)):
                    return False
        return all(self.value(x, y) for x, y in zip(a.operands, b.operands, strict=True))


def structural_equal(a: Expr | object, b: Expr | object) -> bool:
    """Whether two IR nodes have the same structure (metadata and identity ignored)."""
    ra, rb = _root(a), _root(b)
    if isinstance(ra, Var) or isinstance(rb, Var):
        if not (isinstance(ra, Var) and isinstance(rb, Var)):
            return False
        return (ra.name, ra.type, ra.is_const) == (rb.name, rb.type, rb.is_const)
    return _Equal().run(ra, rb)


class _Hash:
    """Each op's hash from its own data, its regions' ops and its operands' producers, computed
    operands first. Blocks are numbered in the order the ops holding them are first reached,
    which structure alone decides. Iterative: a chain of any depth."""

    def __init__(self) -> None:
        self.ops: dict[Operation, int] = {}
        self.block_ids: dict[Block, int] = {}

    def value(self, v: SSAValue) -> int:
        if isinstance(v, OpResult):
            return hash(("result", v.index, self.ops[v.owner]))
        assert isinstance(v, BlockArgument)
        if v.block in self.block_ids:
            return hash(("arg", self.block_ids[v.block], v.index))
        var = Var.view(v)
        return hash(("free", var.name, v.type, var.is_const))

    def run(self, root: Operation) -> int:
        expanded: set[Operation] = set()
        stack: list[tuple[Operation, bool]] = [(root, False)]
        while stack:
            op, done = stack.pop()
            if done:
                self.ops[op] = self.local(op)
                continue
            if op in expanded:
                continue
            expanded.add(op)
            stack.append((op, True))
            for region in op.regions:
                for block in region.blocks:
                    self.block_ids[block] = len(self.block_ids)
            needed = [
                inner for region in op.regions for block in region.blocks for inner in block.ops
            ]
            needed += [v.owner for v in op.operands if isinstance(v, OpResult)]
            stack.extend((inner, False) for inner in reversed(needed) if inner not in expanded)
        return self.ops[root]

    def local(self, op: Operation) -> int:
        parts: list[object] = [
            op.name,
            tuple(sorted(op.properties.items())),
            tuple(sorted(op.attributes.items())),
            tuple(op.result_types),
        ]
        for region in op.regions:
            for block in region.blocks:
                parts.append(tuple(block.arg_types))
            for block in region.blocks:
                parts.append(tuple(self.ops[inner] for inner in block.ops))
        parts.append(tuple(self.value(v) for v in op.operands))
        return hash(tuple(parts))


def structural_hash(node: Expr | object) -> int:
    """A hash that agrees with `structural_equal`."""
    root = _root(node)
    if isinstance(root, Var):
        return hash(("var", root.name, root.type, root.is_const))
    return _Hash().run(root)
