"""IRDL verification that checks each distinct op signature once.

xDSL verifies an IRDL op by re-deriving, for every op, how its operands, results, regions and
successors divide among its definitions, and checking each type and property against its
constraint. All of that is a pure function of the op's signature: its operand and result types,
its regions' block counts and entry argument types, its successors, and the values of the
properties and attributes its definition names. A module of thousands of `tf.call`s has a few
dozen signatures, and parsed types and attributes are shared objects, so the answer is
remembered by the identity of those objects (`IdentityMemo`): the first op of a signature is
verified by xDSL's `OpDef.verify` in full; later ones run only the definition's traits, which
may look at anything (parents, symbols, uses) and so run every time. An op whose signature was
not seen, or cannot be stated (successors, a region of several blocks, a property its
definition does not name), is verified in full, and every failure comes from the full verifier
with its own message.

`memoize_verification(dialect)` installs this on a dialect's IRDL ops; the dialects do it where
they are defined.
"""

from __future__ import annotations

from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation, OpDef

from tilefoundry.ir.caches import CACHES

__all__ = ["MemoizedOpDefVerifier", "memoize_verification"]

_REGION = object()  # separates one region's entry argument types from the next


class MemoizedOpDefVerifier:
    """`OpDef.verify` for one op definition, remembering the signatures that verified."""

    def __init__(self, op_def: OpDef) -> None:
        self.op_def = op_def
        self.full = OpDef.verify.__get__(op_def)
        self.property_names = tuple(op_def.properties)
        self.attribute_names = tuple(op_def.attributes)
        self.traits = tuple(op_def.traits)
        self.memo = CACHES.memo()

    def __call__(self, op: Operation) -> None:
        signature = self.signature(op)
        if signature is not None and self.memo.holds(signature):
            for trait in self.traits:
                trait.verify(op)
            return
        self.full(op)
        if signature is not None:
            self.memo.add(signature)

    def signature(self, op: Operation) -> list[object] | None:
        """The objects the definition's constraints look at, or None when they are not all
        stated here (the op is then verified in full)."""
        if op.successors:
            return None
        properties = op.properties
        values: list[object] = [len(op.operands)]
        values.extend(value.type for value in op.operands)
        values.append(len(op.results))
        values.extend(result.type for result in op.results)
        values.append(len(op.regions))
        for region in op.regions:
            blocks = region.blocks
            if len(blocks) > 1:
                return None
            values.append(_REGION)
            values.append(len(blocks))
            if blocks:
                block = blocks.first
                assert block is not None
                values.append(len(block.args))
                values.extend(arg.type for arg in block.args)
        present = 0
        for name in self.property_names:
            value = properties.get(name)
            present += value is not None
            values.append(value)
        if present != len(properties):
            return None  # a property the definition does not name: the full verifier says so
        attributes = op.attributes
        values.extend(attributes.get(name) for name in self.attribute_names)
        return values


def memoize_verification(dialect: Dialect) -> Dialect:
    """Install `MemoizedOpDefVerifier` on the IRDL ops of `dialect`; return the dialect."""
    for op in dialect.operations:
        if issubclass(op, IRDLOperation):
            op_def = op.get_irdl_definition()
            if not isinstance(op_def.__dict__.get("verify"), MemoizedOpDefVerifier):
                op_def.verify = MemoizedOpDefVerifier(op_def)  # type: ignore[method-assign]
    return dialect
