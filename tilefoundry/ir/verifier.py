"""Verification that knows which operation failed.

xDSL's `Operation.verify()` raises the first failure without saying where it happened. `verify_ir`
visits the operations itself (parents before children, like MLIR), verifies each one's own
invariants, and raises an `OpVerifyError` that names the op: the driver turns that into
`file:line:col: error: 'tf.call' op ...`, a Python caller reads `str(err)`.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from tilefoundry.diagnostics import VerifyError, with_context
from tilefoundry.ir.metadata import location_to_metadata, metadata_context

__all__ = ["OpVerifyError", "op_context", "verify_ir"]


class OpVerifyError(VerifyError):
    """A verifier failure of one operation: `op` is the failing op, `message` the bare text."""

    def __init__(self, op: Operation, message: str) -> None:
        self.op = op
        self.message = message
        binding, span = op_context(op)
        super().__init__(with_context(f"'{op.name}' op {message}", binding, span))


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
    definition (dominance, in the single-block regions this IR has)."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as err:
            raise OpVerifyError(op, _bare(str(err))) from None
        for region in op.regions:
            if len(region.blocks) == 1 and not region.block.ops and not op.has_trait(NoTerminator):
                raise OpVerifyError(op, "has an empty block; it needs at least a terminator")
            for block in region.blocks:
                _check_dominance(block)


def _check_dominance(block: Block) -> None:
    defined: set[SSAValue] = set(block.args)
    local = {r for op in block.ops for r in op.results}
    for op in block.ops:
        for inner in op.walk():
            for index, operand in enumerate(inner.operands):
                if operand in local and operand not in defined:
                    raise OpVerifyError(inner, f"operand #{index} does not dominate this use")
        defined.update(op.results)
