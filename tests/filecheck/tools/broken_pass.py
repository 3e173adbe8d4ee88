"""A pass that breaks the IR it is given, for the tests: `tf-opt --plugin broken_pass -p
test-break-return`. It changes each `hir.return` to return its function's first parameter,
whatever its type: the verifier refuses the result, and tf-opt reports the pass, not the input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.ir import Operation

from tilefoundry.dialects.hir import FuncOp, ReturnOp
from tilefoundry.transforms import PASSES
from tilefoundry.transforms.pass_base import Anchors, TFPass


@dataclass(frozen=True)
class BreakReturn(TFPass):
    """Return the first parameter of every function (a test of tf-opt's report)."""

    name = "test-break-return"
    anchors: ClassVar[Anchors] = None

    def apply(self, ctx: Context, op: Operation) -> None:
        for function in [f for f in op.walk() if isinstance(f, FuncOp)]:
            block = function.body.block
            terminator = block.last_op
            assert isinstance(terminator, ReturnOp) and block.args
            block.erase_op(terminator)
            block.add_op(ReturnOp(block.args[0]))


PASSES["test-break-return"] = lambda: BreakReturn
