"""Verification that knows which operation failed.

xDSL's `Operation.verify()` raises the first failure without saying where it happened. `verify_ir`
visits the operations itself (parents before children, like MLIR), verifies each one's own
invariants, and raises an `OpVerifyError` that names the op: the driver turns that into
`file:line:col: error: 'tf.call' op ...`, a Python caller reads `str(err)`. A verifier that finds
the fault in another op (a body that holds a foreign op) raises `OpVerifyError` for that op
itself. An error may carry notes that point at other ops, as MLIR's do: a symbol defined twice
is reported at the second definition, with a note at the first.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr, UnregisteredOp
from xdsl.ir import Block, Operation, OpResult
from xdsl.traits import NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from tilefoundry.builtin.metadata import location_to_metadata, metadata_context
from tilefoundry.ir.symbols import SymbolTables
from tilefoundry.ir.verify.op_verification import verify_op_itself
from tilefoundry.support.caches import CACHES
from tilefoundry.support.diagnostics import VerifyError, with_context

__all__ = ["OpVerifyError", "op_context", "op_name", "verify_ir"]


class OpVerifyError(VerifyError):
    """A verifier failure of one operation: `op` is the failing op, `message` the bare text,
    `notes` what other ops to look at, with a message each. The text starts `'name' op` unless
    `prefixed` is False (MLIR words some errors without it)."""

    def __init__(
        self,
        op: Operation,
        message: str,
        *,
        notes: Sequence[tuple[Operation, str]] = (),
        prefixed: bool = True,
    ) -> None:
        self.op = op
        self.message = message
        self.notes = tuple(notes)
        binding, span = op_context(op)
        text = f"'{op_name(op)}' op {message}" if prefixed else message
        super().__init__(with_context(text, binding, span))


def op_name(op: Operation) -> str:
    """The op's name as written: an unregistered op's own (`foo.bar`), not xDSL's stand-in."""
    name = op.attributes.get("op_name__") if isinstance(op, UnregisteredOp) else None
    return name.data if isinstance(name, StringAttr) else op.name


def op_context(op: Operation) -> tuple[str | None, str | None]:
    """The binding name and source span an op's metadata names, when it has them."""
    try:
        metadata = location_to_metadata(op.location)
    except VerifyError:
        return None, None
    return metadata_context(metadata)


def _bare(message: str) -> str:
    prefix = "Operation does not verify: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def verify_ir(root: Operation) -> None:
    """Verify `root` and everything nested in it; raise `OpVerifyError` at the first failure.

    Besides each op's own verifier: a value defined in a block is used only after its
    definition (dominance, in the single-block regions this IR has). The garbage collector is
    left as the caller has it (the tools pause it: `ir/allocation.py`). The cost is linear in
    the number of ops, however deep they nest: one walk, one dominance check per operand, and
    what an owner chain resolves found once per module (`CACHES.unchanging`), each symbol
    table indexed once (`SymbolTables`: verifiers never change the IR)."""
    with CACHES.unchanging(), SymbolTables().scope():
        _verify_all(root)


def _verify_all(root: Operation) -> None:
    walk = _Walk(root)
    for op in walk.ops:
        if op.regions and op.has_trait(SymbolTable) and any(len(r.blocks) != 1 for r in op.regions):
            _verify_op(op)  # a symbol table that is not one block, before a lookup into it
    for position, op in enumerate(walk.ops):
        if op.regions:
            _check_symbols(op)
        _verify_op(op)
        for region in op.regions:
            if len(region.blocks) == 1 and not region.block.ops and not op.has_trait(NoTerminator):
                raise OpVerifyError(op, "has an empty block; it needs at least a terminator")
        if op.operands:
            walk.check_dominance(op, position)


def _verify_op(op: Operation) -> None:
    try:
        verify_op_itself(op)
    except OpVerifyError:
        raise
    except VerifyException as err:
        raise OpVerifyError(op, _bare(str(err))) from None


class _Walk:
    """The ops under a root in pre-order (parents before children, as `Operation.walk`), and
    for each the position of its last descendant: an op is complete, its regions included,
    once the walk has passed that position. Iterative, so its cost does not grow with depth."""

    def __init__(self, root: Operation) -> None:
        self.ops: list[Operation] = []
        self.last: dict[int, int] = {}  # id(op) -> position of its last descendant
        pending: list[Operation | int] = [root]
        while pending:
            item = pending.pop()
            if isinstance(item, int):  # leaving the op at position `item`
                self.last[id(self.ops[item])] = len(self.ops) - 1
                continue
            position = len(self.ops)
            self.ops.append(item)
            if not item.regions:
                self.last[id(item)] = position
                continue
            pending.append(position)
            children = [child for region in item.regions for b in region.blocks for child in b.ops]
            pending.extend(reversed(children))

    def check_dominance(self, op: Operation, position: int) -> None:
        """Each operand of `op` (at `position`) is defined before it, where the definition's
        block encloses `op`: the defining op is complete before `op` in the walk. A definition
        outside the root is not this walk's to judge; one in a block that does not enclose the
        use (another op's region) is left to the other checks, as before."""
        last = self.last
        for index, operand in enumerate(op.operands):
            if not isinstance(operand, OpResult):
                continue
            done = last.get(id(operand.op))
            if done is None or done < position:
                continue
            if _encloses(operand.op.parent, op):
                raise OpVerifyError(op, f"operand #{index} does not dominate this use")


def _encloses(block: Block | None, op: Operation) -> bool:
    """Whether `op` is in `block` or nested in one of its ops (a walk up: only for a use that
    already looks wrong)."""
    if block is None:
        return False  # the root's own result: not in a block of this walk
    node: Operation | None = op
    while node is not None:
        if node.parent is block:
            return True
        node = node.parent_op()
    return False


def _check_symbols(op: Operation) -> None:
    """A symbol table defines each name once: a second definition is the error, with a note at
    the first (as MLIR reports it)."""
    if not op.has_trait(SymbolTable) or len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return
    seen: dict[str, Operation] = {}
    for child in op.regions[0].block.ops:
        name = child.get_attr_or_prop("sym_name")
        if not child.has_trait(SymbolOpInterface) or not isinstance(name, StringAttr):
            continue  # not a symbol, or a broken one (its own verifier says so)
        first = seen.setdefault(name.data, child)
        if first is not child:
            raise OpVerifyError(
                child,
                f"redefinition of symbol named '{name.data}'",
                notes=[(first, "see existing symbol definition here")],
                prefixed=False,
            )
