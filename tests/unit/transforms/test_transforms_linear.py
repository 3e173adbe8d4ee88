"""Passes do work linear in their input (issue 16 §7): counts of the work, never times.

`benchmarks/scaling.py` measures the times; each test here states the count that made a pass
superlinear before its fix (a dominance scan per fold, ...), on a real module.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dialects.tf import ops as tf_dialect

T = "tensor<4xf32>"


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of `owner.name` (the real function still runs)."""
    real: Callable[..., Any] = getattr(owner, name)
    calls = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def _identities(n: int) -> str:
    """`n` constants, then `c * 1.0` of each: every fold names a constant far above the call."""
    lines = ["tf.module @m {", f"  hir.func @f(%x: {T}) -> {T} {{"]
    lines.append(f"    %one = tf.constant dense<1.0> : {T}")
    lines += [f"    %c{i} = tf.constant dense<{i + 2}.0> : {T}" for i in range(n)]
    previous = "%x"
    for i in range(n):
        mul = f"tf.call tf.math.binary<kind = mul>(%c{i}, %one) : ({T}, {T}) -> {T}"
        lines.append(f"    %m{i} = {mul}")
        add = f"tf.call tf.math.binary<kind = add>({previous}, %m{i}) : ({T}, {T}) -> {T}"
        lines.append(f"    %s{i} = {add}")
        previous = f"%s{i}"
    lines += [f"    hir.return {previous} : {T}", "  }", "}"]
    return "\n".join(lines) + "\n"


def test_an_identity_fold_onto_an_argument_scans_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    scans = _spy(monkeypatch, tf_dialect, "dominates")
    module = tf.run_passes(tf.parse_module(_identities(100)), "canonicalize")
    text = tf.print_module(module)
    assert "kind = mul" not in text  # every `c * 1.0` folded to `c`
    assert text.count("kind = add") == 100
    assert scans[0] == 0  # before: one scan per fold, back over the block to `c` (N²/2 ops)


def test_a_fold_onto_another_value_still_checks_dominance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scans = _spy(monkeypatch, tf_dialect, "dominates")
    x = tf.Var("x", tf.TensorType((4,), "f32"))
    body = ops.tuple_get_item(tf.Tuple([ops.exp(x), ops.neg(x)]), 0)
    function = tf.hir.Function(name="f", params=[x], body=body)
    module = tf.run_passes(tf.Module(name="m", functions=[function]), "canonicalize")
    assert "tuple" not in tf.print_module(module)
    assert scans[0] >= 1


def test_tf_opt_runs_the_pipeline_without_the_collector(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A pass's clones (tf-inline) triggered full collections of the whole heap: the tool
    # pauses the collector around the pipeline, as around parse and verify.
    import gc
    from dataclasses import dataclass

    from xdsl.context import Context
    from xdsl.passes import ModulePass

    from tilefoundry.tools.drivers import tf_opt
    from tilefoundry.transforms import PASSES

    seen: list[bool] = []

    @dataclass(frozen=True)
    class Probe(ModulePass):
        name = "gc-probe"

        def apply(self, ctx: Context, op: Any) -> None:
            seen.append(gc.isenabled())

    monkeypatch.setitem(PASSES, "gc-probe", lambda: Probe)
    source = tmp_path / "m.mlir"
    source.write_text("tf.module @m {}\n", encoding="utf-8")
    assert gc.isenabled()
    assert tf_opt.main([str(source), "-p", "gc-probe"]) == 0
    assert seen == [False]
    assert gc.isenabled()
    assert "tf.module @m" in capsys.readouterr().out


def _children(n: int) -> str:
    """A root whose entry calls `@f` of each of `n` children; each child's own entry is
    `@unused`, which calls nothing, so `@f` stays only because the root calls it."""
    lines = ["tf.module @root entry @main {", f"  hir.func @main(%x: {T}) -> {T} {{"]
    previous = "%x"
    for i in range(n):
        lines.append(f"    %r{i} = tf.call @c{i}::@f({previous}) : ({T}) -> {T}")
        previous = f"%r{i}"
    lines += [f"    hir.return {previous} : {T}", "  }"]
    for i in range(n):
        lines += [
            f"  tf.module @c{i} entry @unused {{",
            f"    hir.func @f(%x: {T}) -> {T} {{ hir.return %x : {T} }}",
            f"    hir.func @unused(%x: {T}) -> {T} {{ hir.return %x : {T} }}",
            "  }",
        ]
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_a_child_pruned_on_its_own_reads_only_its_ancestors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tilefoundry.transforms import tf_prune_unreachable

    n = 20
    looked_at = _spy(monkeypatch, tf_prune_unreachable, "_symbols_called")
    module = tf.run_passes(
        tf.parse_module(_children(n)), "tf.module(tf.module(tf-prune-unreachable))"
    )
    text = tf.print_module(module)
    assert text.count("hir.func @f") == n  # kept: the root calls them
    # each child's run reads the root's own ops (main: n calls and a return, and main itself);
    # before, it walked the whole file (every child's functions too)
    assert looked_at[0] <= n * (n + 3)


def test_a_pass_nested_on_each_child_looks_for_costs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`costs_kept_fresh` asked "does the tree hold a tf.cost?" of the whole tree once per
    anchor: a pass nested on each of n children read the tree n times (quadratic)."""
    from tilefoundry.transforms import stale_costs

    n = 20
    real = stale_costs._has_cost
    trees: list[str] = []

    def counted(tree: Any) -> bool:
        trees.append(tree.properties["sym_name"].data)
        return bool(real(tree))

    monkeypatch.setattr(stale_costs, "_has_cost", counted)
    tf.run_passes(tf.parse_module(_children(n)), "tf.module(tf.module(tf-prune-unreachable))")
    # the whole tree once; then each child alone, the anchor its pass ran on (it may have
    # recorded a cost there); before, the whole tree once per child
    assert trees.count("root") == 1
    assert sorted(trees) == sorted(["root", *(f"c{i}" for i in range(n))])


def test_a_cost_recorded_inside_a_nested_run_is_still_kept_fresh() -> None:
    """What `CostsSeen` knows is never wrong: a tree seen without a cost, in which a nested
    pass then records one, is looked at again, so a later pass drops the stale cost."""
    from xdsl.dialects.builtin import StringAttr

    from tilefoundry.dialects.tf.module import ModuleOp
    from tilefoundry.transforms.cost import COST_ATTR
    from tilefoundry.transforms.stale_costs import CostsSeen, costs_kept_fresh

    root = tf.parse_module(_children(2)).module_op
    child = next(op for op in root.body.block.ops if isinstance(op, ModuleOp))
    function = next(iter(child.body.block.ops))
    seen = CostsSeen()
    assert not seen.holds(root)
    with costs_kept_fresh(function, seen):  # a pass that records a cost on @f
        function.attributes[COST_ATTR] = StringAttr("measured")
    assert seen.holds(root)
    with costs_kept_fresh(function, seen):  # a pass that changes @f: its cost is stale
        function.attributes["tf.touched"] = StringAttr("yes")
    assert COST_ATTR not in function.attributes


def test_a_nested_pass_verifies_its_anchor_and_the_input_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a pass on an anchor, the anchor is verified (as MLIR does), not the whole input:
    a pass nested on each of n children verified the whole tree n times (quadratic); the
    whole input is verified once more at the end."""
    from tilefoundry.transforms import instrumentation

    n = 20
    real = instrumentation.verify_pass_output
    roots: list[str] = []

    def counted(module_pass: Any, root: Any) -> None:
        roots.append(root.name)
        real(module_pass, root)

    monkeypatch.setattr(instrumentation, "verify_pass_output", counted)
    tf.run_passes(tf.parse_module(_children(n)), "tf.module(tf.module(tf-prune-unreachable))")
    assert roots.count("builtin.module") == 1  # the input, once, at the end
    assert roots.count("tf.module") == n  # each child, after its pass


def test_a_nested_pass_that_breaks_a_use_outside_its_anchor_is_still_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass on a child that renames the function its parent calls: the child alone
    verifies, the input does not, and the error is the pass's."""
    from dataclasses import dataclass

    from xdsl.context import Context
    from xdsl.dialects.builtin import StringAttr

    from tilefoundry.transforms import PASSES, PassOutputError
    from tilefoundry.transforms.pass_base import TFPass

    @dataclass(frozen=True)
    class RenameF(TFPass):
        name = "test-rename-f"
        anchors = ("tf.module",)

        def apply(self, ctx: Context, op: Any) -> None:
            for member in op.body.block.ops:
                if member.properties["sym_name"].data == "f":
                    member.properties["sym_name"] = StringAttr("g")

    monkeypatch.setitem(PASSES, "test-rename-f", lambda: RenameF)
    with pytest.raises(PassOutputError, match="test-rename-f"):
        tf.run_passes(tf.parse_module(_children(2)), "tf.module(tf.module(test-rename-f))")
