"""IRDL verification that checks each distinct op signature once, applied by our verifier.

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

Nothing of xDSL is patched or copied: the ops of our dialects are defined with `op_definition`
(xDSL's `irdl_op_definition`, then the class's `verify_` — the hook xDSL's generated one fills —
set to a `MemoizedOpDefVerifier` for its definition and the op's own rules). xDSL's public
`Operation.verify` calls it after its own checks of where the op stands (erased operands,
successors, terminators), so `verify_op_itself` — what `ir/verify/verifier.py` calls for each
op — is `op.verify(verify_nested_ops=False)`, and xDSL's own `op.verify()` (a pass's check
after a rewrite) gets the same memo and the same verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from xdsl.dialects.builtin import SymbolNameConstraint
from xdsl.ir import Operation
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    AnyRange,
    AttrConstraint,
    BaseAttr,
    IRDLOperation,
    OpDef,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    SingleOf,
    irdl_op_definition,
)
from xdsl.traits import OpTrait

from tilefoundry.support.caches import CACHES, BoundedMapping

__all__ = [
    "MemoizedOpDefVerifier",
    "definition_verifier",
    "op_definition",
    "verify_op_itself",
]

_REGION = object()  # separates one region's entry argument types from the next

OpT = TypeVar("OpT", bound=IRDLOperation)


class MemoizedOpDefVerifier:
    """`OpDef.verify` for one op definition, remembering the signatures that verified, and the
    op's own `verify_` rules (run every time, after the definition's)."""

    def __init__(self, op_def: OpDef, own: Callable[[Operation], None] | None) -> None:
        self.op_def = op_def
        self.own = own
        self.property_names = tuple(op_def.properties)
        self.attribute_names = tuple(op_def.attributes)
        # the traits that check anything (the others' `verify` is `OpTrait`'s, which does not)
        self.traits = tuple(t for t in op_def.traits if type(t).verify is not OpTrait.verify)
        self.memo = CACHES.memo(f"verified signatures of {op_def.name}")
        # Where every constraint looks only at the class of what it checks, the signature holds
        # the class, not the object: a model of distinct shapes has few signatures so stated.
        self.operand_classes = all(_by_class(d.constr) for _, d in op_def.operands)
        self.result_classes = all(_by_class(d.constr) for _, d in op_def.results)
        self.property_classes = tuple(_by_class(d.constr) for d in op_def.properties.values())
        # A definition of no regions and no attributes whose every constraint sees classes
        # only (`tf.call`, `tf.constant`, `tf.tuple`): its signature is a tuple of counts and
        # classes, remembered by value (a class outlives its ops).
        self.classes_only = (
            self.operand_classes
            and self.result_classes
            and all(self.property_classes)
            and not op_def.regions
            and not op_def.attributes
        )
        self.class_memo: BoundedMapping[tuple[object, ...], bool] = CACHES.mapping(
            f"verified class signatures of {op_def.name}"
        )

    def __call__(self, op: Operation) -> None:
        """What xDSL's generated `verify_` checks of `op`, the definition's part remembered."""
        if self.classes_only:
            self.by_classes(op)
        else:
            self.by_signature(op)
        if self.own is not None:
            self.own(op)

    def class_key(self, op: Operation) -> tuple[object, ...] | None:
        """The signature of an op of a `classes_only` definition: its operand count, then the
        classes of its operand types, result types and properties (NoneType for one absent);
        None when the op has what the definition does not state (successors, regions, a
        property it does not name: the op is then verified in full)."""
        if op.successors or op.regions:
            return None
        properties = op.properties
        names = self.property_names
        if sum(1 for name in names if name in properties) != len(properties):
            return None
        return (
            len(op.operands),
            *[type(value.type) for value in op.operands],
            None,
            *[type(result.type) for result in op.results],
            None,
            *[type(properties.get(name)) for name in names],
        )

    def by_classes(self, op: Operation) -> None:
        """The definition's part for a `classes_only` definition."""
        key = self.class_key(op)
        if key is not None and self.class_memo.get(key):
            for trait in self.traits:
                trait.verify(op)
            return
        self.op_def.verify(op)
        if key is not None:
            self.class_memo.set(key, True)

    def by_signature(self, op: Operation) -> None:
        """The definition's part, remembered by the identity of the signature's objects."""
        signature = self.signature(op)
        if signature is not None and self.memo.holds(signature):
            for trait in self.traits:
                trait.verify(op)
        else:
            self.op_def.verify(op)
            if signature is not None:
                self.memo.add(signature)

    def signature(self, op: Operation) -> list[object] | None:
        """The objects the definition's constraints look at, or None when they are not all
        stated here (the op is then verified in full)."""
        if op.successors:
            return None
        properties = op.properties
        values: list[object] = [len(op.operands)]
        if self.operand_classes:
            values.extend(type(value.type) for value in op.operands)
        else:
            values.extend(value.type for value in op.operands)
        values.append(len(op.results))
        if self.result_classes:
            values.extend(type(result.type) for result in op.results)
        else:
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
        for name, by_class in zip(self.property_names, self.property_classes, strict=True):
            value = properties.get(name)
            if value is not None:
                present += 1
                values.append(type(value) if by_class else value)
            else:
                values.append(None)
        if present != len(properties):
            return None  # a property the definition does not name: the full verifier says so
        attributes = op.attributes
        values.extend(attributes.get(name) for name in self.attribute_names)
        return values


def _by_class(constraint: AttrConstraint[Any] | RangeConstraint[Any]) -> bool:
    """Whether a constraint's verdict on an attribute (or a range of them, whose length the
    signature holds) depends on nothing but the attribute's class."""
    kind = type(constraint)
    if kind is BaseAttr or kind is AnyAttr or kind is SymbolNameConstraint or kind is AnyRange:
        return True
    if kind is AnyOf:
        return all(_by_class(c) for c in cast(AnyOf[Any], constraint).attr_constrs)
    if kind is RangeOf or kind is SingleOf:
        return _by_class(cast(RangeOf[Any] | SingleOf[Any], constraint).constr)
    if kind is RangeLengthConstraint:
        return _by_class(cast(RangeLengthConstraint[Any], constraint).constraint)
    return False


_VERIFIERS: dict[type[Operation], MemoizedOpDefVerifier] = {}
"""The op classes defined with `op_definition`, each with its verifier (a registry of classes,
filled at import; the memos inside are `CACHES`')."""


def op_definition(cls: type[OpT]) -> type[OpT]:
    """xDSL's `irdl_op_definition`, with the op's `verify_` (what xDSL's `Operation.verify`
    calls after its own checks of where the op stands) the memoized one: the definition's
    constraints once per signature, then the op's own `verify_` rules."""
    own = getattr(cls, "verify_", None)  # what irdl_op_definition reads as the custom verifier
    defined = irdl_op_definition(cls)
    verifier = MemoizedOpDefVerifier(defined.get_irdl_definition(), own)
    _VERIFIERS[defined] = verifier

    def verify_(self: Operation) -> None:
        verifier(self)

    defined.verify_ = verify_  # type: ignore[method-assign]
    return defined


def definition_verifier(cls: type[Operation]) -> MemoizedOpDefVerifier | None:
    """The verifier of an op class defined with `op_definition` (None for any other)."""
    return _VERIFIERS.get(cls)


def verify_op_itself(op: Operation) -> None:
    """What `op.verify(verify_nested_ops=False)` checks — xDSL's own checks of where the op
    stands, then its `verify_` — the definition's constraints checked once per signature for an
    op defined with `op_definition`."""
    op.verify(verify_nested_ops=False)
