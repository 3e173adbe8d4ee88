"""Pass instrumentations (`transforms/instrumentation.py`): the order the pass manager calls
them in, the failure hook, and the three the house gives (output verification, effect
summaries, cost freshness) each doing its one job when given, and nothing when not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

import tilefoundry as tf
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf import effects
from tilefoundry.dialects.tf.effects import EffectSummaryScope
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.support.diagnostics import PassOutputError
from tilefoundry.transforms import PASSES
from tilefoundry.transforms.cost import COST_ATTR
from tilefoundry.transforms.instrumentation import (
    CostFreshness,
    EffectSummaries,
    OutputVerification,
    PassInstrumentation,
    standard_instrumentations,
)
from tilefoundry.transforms.pass_base import ANY_OP, Anchors, TFPass
from tilefoundry.transforms.pass_manager import parse_pipeline

TEXT = """tf.module @m target #tf.target<"h100"> {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %y = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}
"""


def _input() -> BuiltinModuleOp:
    return BuiltinModuleOp([tf.parse_module(TEXT).module_op.clone()])


def _module(root: BuiltinModuleOp) -> ModuleOp:
    (module,) = root.body.block.ops
    assert isinstance(module, ModuleOp)
    return module


class Log(PassInstrumentation):
    def __init__(self, tag: str, log: list[str]) -> None:
        self.tag, self.log = tag, log

    def before_pipeline(self, root: Operation) -> None:
        self.log.append(f"{self.tag} before pipeline")

    def before_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.log.append(f"{self.tag} before {module_pass.name} on {anchor.name}")

    def after_pass(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.log.append(f"{self.tag} after {module_pass.name} on {anchor.name}")

    def after_pass_failed(self, module_pass: ModulePass, anchor: Operation) -> None:
        self.log.append(f"{self.tag} failed {module_pass.name} on {anchor.name}")

    def after_pipeline(self, root: Operation) -> None:
        self.log.append(f"{self.tag} after pipeline")


def test_before_hooks_in_order_after_hooks_in_reverse_around_each_anchor() -> None:
    log: list[str] = []
    pipeline = parse_pipeline("tf.module(hir.func(dce))", PASSES)
    pipeline.run(make_context(), _input(), [Log("a", log), Log("b", log)])
    each = [
        "a before dce on hir.func",
        "b before dce on hir.func",
        "b after dce on hir.func",
        "a after dce on hir.func",
    ]
    assert log == [
        "a before pipeline",
        "b before pipeline",
        *each,
        *each,  # @f, then @g
        "b after pipeline",
        "a after pipeline",
    ]


@dataclass(frozen=True)
class Refuses(TFPass):
    name = "test-refuses"
    anchors: ClassVar[Anchors] = ANY_OP

    def apply(self, ctx: Context, op: Any) -> None:
        raise RuntimeError("refused")


def test_a_pass_that_raises_gets_the_failure_hooks_then_the_error_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PASSES, "test-refuses", lambda: Refuses)
    log: list[str] = []
    pipeline = parse_pipeline("dce,test-refuses,cse", PASSES)
    with pytest.raises(RuntimeError, match="refused"):
        pipeline.run(make_context(), _input(), [Log("a", log), Log("b", log)])
    assert log[-4:] == [
        "a before test-refuses on builtin.module",
        "b before test-refuses on builtin.module",
        "b failed test-refuses on builtin.module",
        "a failed test-refuses on builtin.module",
    ]


def test_without_instrumentations_a_pipeline_only_runs_passes() -> None:
    """No verification, no cost freshness: the pass manager wires nothing in itself."""
    root = _input()
    f = _module(root).body.block.ops.first
    assert f is not None
    f.attributes[COST_ATTR] = StringAttr("measured")
    parse_pipeline("canonicalize", PASSES).run(make_context(), root)
    assert "tf.math.binary" not in str(f)  # canonicalize ran
    assert COST_ATTR in f.attributes  # nobody dropped the stale cost
    parse_pipeline("canonicalize", PASSES).run(make_context(), root, [CostFreshness()])
    assert COST_ATTR in f.attributes  # nothing changed this time: the cost stays


def test_cost_freshness_drops_the_cost_of_what_a_pass_changed() -> None:
    root = _input()
    f, g = _module(root).body.block.ops
    for function in (f, g):
        function.attributes[COST_ATTR] = StringAttr("measured")
    parse_pipeline("canonicalize", PASSES).run(make_context(), root, [CostFreshness()])
    assert COST_ATTR not in f.attributes  # `x * 1` went
    assert COST_ATTR in g.attributes  # untouched


@dataclass(frozen=True)
class BreaksReturn(TFPass):
    """Erases every function's return: invalid output."""

    name = "test-breaks-return"
    anchors: ClassVar[Anchors] = ANY_OP

    def apply(self, ctx: Context, op: Any) -> None:
        for inner in list(op.walk()):
            if inner.name == "hir.return":
                inner.detach()
                inner.erase()


def test_output_verification_blames_the_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PASSES, "test-breaks-return", lambda: BreaksReturn)
    pipeline = parse_pipeline("test-breaks-return", PASSES)
    pipeline.run(make_context(), _input())  # not verified: the pass manager does not verify
    with pytest.raises(PassOutputError, match="test-breaks-return"):
        pipeline.run(make_context(), _input(), [OutputVerification()])
    with pytest.raises(PassOutputError, match="test-breaks-return"):
        pipeline.run(make_context(), _input(), standard_instrumentations())
    pipeline.run(make_context(), _input(), standard_instrumentations(verify=False))


def test_effect_summaries_are_kept_for_one_pass_only() -> None:
    seen: list[object] = []

    @dataclass(frozen=True)
    class Looks(TFPass):
        name = "test-looks"

        def apply(self, ctx: Context, op: Any) -> None:
            seen.append(effects._SCOPE.get())

    pipeline = parse_pipeline("dce", PASSES)
    summaries = EffectSummaries()
    looks = Looks()
    root = _input()
    for _ in range(2):
        summaries.before_pass(looks, root)
        looks.apply(make_context(), root)
        summaries.after_pass(looks, root)
    assert seen[0] == {} and seen[1] == {} and seen[0] is not seen[1]  # a memo per pass
    assert effects._SCOPE.get() is None  # none after
    pipeline.run(make_context(), root, [summaries])
    assert effects._SCOPE.get() is None


def test_a_scope_inside_another_shares_its_memo() -> None:
    with EffectSummaryScope():
        outer = effects._SCOPE.get()
        with EffectSummaryScope():
            assert effects._SCOPE.get() is outer
        assert effects._SCOPE.get() is outer
    assert effects._SCOPE.get() is None


def test_run_passes_verifies_and_keeps_costs_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PASSES, "test-breaks-return", lambda: BreaksReturn)
    module = tf.parse_module(TEXT)
    with pytest.raises(PassOutputError, match="test-breaks-return"):
        tf.run_passes(module, "test-breaks-return")
    analyzed = tf.run_passes(module, "tf-analyze")
    kept = tf.run_passes(analyzed, "canonicalize")
    costs = {
        op.properties["sym_name"].data: COST_ATTR in op.attributes
        for op in kept.module_op.body.block.ops
        if not isinstance(op, ModuleOp)
    }
    assert costs == {"f": False, "g": True}
