"""Pass instrumentations: what runs around each pass, as MLIR's `PassInstrumentation`.

The pass manager (`pass_manager.py`) only runs passes where the pipeline nests them; whatever
else should happen around a pass is an instrumentation registered with the run
(`Pipeline.run(ctx, root, instrumentations)`):

- `before_pipeline(root)` and `after_pipeline(root)`, once per run, around the whole pipeline;
- `before_pass(pass, anchor)`, in the order the instrumentations are given, before a pass runs
  on one anchor; `after_pass(pass, anchor)`, in the reverse order, after it; when the pass
  raises, `after_pass_failed(pass, anchor)` instead, in the reverse order, then the error goes
  on (a later instrumentation sits closer to the pass, as MLIR's `PassInstrumentor` orders
  them).

Three come with the house, and `standard_instrumentations` gives them in the order tf-opt and
`run_passes` use:

- `OutputVerification`: the op a pass ran on is verified after it, as MLIR's pass manager
  does; after a pipeline that nested, the whole input once more (a pass isolated on its anchor
  can still break a use outside it, a renamed callee). A failure is the pass's:
  `PassOutputError`.
- `EffectSummaries`: the functions' effect summaries (`dialects/tf/effects.py`) are kept for
  the duration of one pass, and dropped after it.
- `CostFreshness`: no pass leaves a `tf.cost` that no longer describes its function
  (`stale_costs.py`); which module trees hold a cost is known for one run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tilefoundry.dialects.tf.effects import EffectSummaryScope
from tilefoundry.support.diagnostics import PassOutputError
from tilefoundry.transforms.stale_costs import CostsSeen, CostWatch

__all__ = [
    "CostFreshness",
    "EffectSummaries",
    "OutputVerification",
    "PassHooks",
    "PassInstrumentation",
    "standard_instrumentations",
    "verify_pass_output",
]


class PassInstrumentation:
    """Hooks the pass manager calls around a pipeline and around each pass on each anchor
    (see the module docstring); each does nothing unless overridden."""

    def before_pipeline(self, root: Operation) -> None:
        """The pipeline is about to run on `root`."""

    def before_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        """`module_pass` is about to run on `anchor`."""

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        """`module_pass` ran on `anchor`."""

    def after_pass_failed(self, module_pass: ModulePass, anchor: Operation) -> None:
        """`module_pass` raised on `anchor` (the error goes on after every instrumentation)."""

    def after_pipeline(self, root: Operation) -> None:
        """The whole pipeline ran on `root`."""


PassHook = Callable[[ModulePass, Operation], None]


@dataclass
class PassHooks(PassInstrumentation):
    """An instrumentation made of two functions: `before(pass, anchor)` and `after(pass,
    anchor)`, either optional (a tool's dumps and timers)."""

    before: PassHook | None = None
    after: PassHook | None = None

    def before_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        if self.before is not None:
            self.before(module_pass, anchor)

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        if self.after is not None:
            self.after(module_pass, anchor)


def verify_pass_output(module_pass: ModulePass, root: Operation) -> None:
    """Verify `root` after `module_pass` ran; a failure is the pass's: `PassOutputError`."""
    from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir

    try:
        verify_ir(root)
    except OpVerifyError as err:
        raise PassOutputError(module_pass.name, err.op, str(err), err.notes) from None


class OutputVerification(PassInstrumentation):
    """Verifies what passes made, as MLIR's pass manager does: after a pass, the op it ran on;
    at the end of a pipeline that nested, the whole input once more, since a pass isolated on
    its anchor can still break a use outside it (a renamed callee). Verifying the whole input
    after every nested pass made a pass nested on N children quadratic. `timed()` wraps each
    verification (a tool's timer)."""

    def __init__(self, timed: Callable[[], AbstractContextManager[None]] = nullcontext) -> None:
        self.timed = timed
        self.root: Operation | None = None
        self.last_nested: ModulePass | None = None

    def before_pipeline(self, root: Operation) -> None:
        self.root, self.last_nested = root, None

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        with self.timed():
            verify_pass_output(module_pass, anchor)
        if anchor is not self.root:
            self.last_nested = module_pass

    def after_pipeline(self, root: Operation) -> None:
        if self.last_nested is not None:
            with self.timed():
                verify_pass_output(self.last_nested, root)


class EffectSummaries(PassInstrumentation):
    """Keeps the functions' effect summaries from one question to the next for the duration of
    one pass (`dialects/tf/effects.py`, `EffectSummaryScope`): without it a pass asks about
    every call anew, and a chain of N calls costs N² summaries. The next pass starts afresh."""

    def __init__(self) -> None:
        self.scopes: list[EffectSummaryScope] = []

    def before_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        scope = EffectSummaryScope()
        scope.open()
        self.scopes.append(scope)

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.scopes.pop().close()

    after_pass_failed = after_pass


class CostFreshness(PassInstrumentation):
    """Drops the `tf.cost` of what a pass changed, and of their callers (`stale_costs.py`); a
    pass that fails changed nothing and is not looked at. What one run learns of which trees
    hold a cost is kept for the run (`CostsSeen`)."""

    def __init__(self) -> None:
        self.seen = CostsSeen()
        self.watches: list[CostWatch] = []

    def before_pipeline(self, root: Operation) -> None:
        self.seen = CostsSeen()

    def before_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.watches.append(CostWatch(anchor, self.seen))

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.watches.pop().finish()

    def after_pass_failed(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.watches.pop()


def standard_instrumentations(
    *,
    verify: bool = True,
    timed: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> list[PassInstrumentation]:
    """What tf-opt and `run_passes` run a pipeline with, outermost first: output verification
    (unless `verify` is false; `timed` wraps each check), then the effect summaries and the
    cost freshness (innermost: a pass's output is verified with its stale costs gone)."""
    kept: Sequence[PassInstrumentation] = [EffectSummaries(), CostFreshness()]
    return [*([OutputVerification(timed)] if verify else []), *kept]
