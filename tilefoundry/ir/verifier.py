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
from xdsl.ir import Block, Operation
from xdsl.traits import NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from tilefoundry.diagnostics import VerifyError, with_context
from tilefoundry.ir.metadata import location_to_metadata, metadata_context

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
    left as the caller has it (the tools pause it: `ir/allocation.py`)."""
    _verify_all(root)


def _verify_all(root: Operation) -> None:
    for op in root.walk():
        if op.regions and op.has_trait(SymbolTable) and any(len(r.blocks) != 1 for r in op.regions):
            _verify_op(op)  # a symbol table that is not one block, before a lookup into it
    for op in root.walk():
        if op.regions:
            _check_symbols(op)
        _verify_op(op)
        for region in op.regions:
            if len(region.blocks) == 1 and not region.block.ops and not op.has_trait(NoTerminator):
                raise OpVerifyError(op, "has an empty block; it needs at least a terminator")
            for block in region.blocks:
                _check_dominance(block)


def _verify_op(op: Operation) -> None:
    try:
        op.verify(verify_nested_ops=False)
    except OpVerifyError:
        raise
    except VerifyException as err:
        raise OpVerifyError(op, _bare(str(err))) from None


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


def _check_dominance(block: Block) -> None:
    # `pending` holds the results of the ops not yet passed: an operand among them is used
    # before (or by) its definition. By identity: an SSA value's `__hash__` is a Python call.
    pending = {id(r) for op in block.ops for r in op.results}
    for op in block.ops:
        for inner in op.walk() if op.regions else (op,):
            for index, operand in enumerate(inner.operands):
                if id(operand) in pending:
                    raise OpVerifyError(inner, f"operand #{index} does not dominate this use")
        pending.difference_update(map(id, op.results))
