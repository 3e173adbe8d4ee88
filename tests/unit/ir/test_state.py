"""State lives in the IR, or on the objects the user holds — never in process-wide tables.

What a module resolves (callee paths, the context around a detached copy) is in its IR, so
printing it and parsing it back changes nothing; what is Python only (the function object a
call was built with, a copy's owner, methods, the `Mesh` builder scope) is kept on the objects
themselves or in a context variable, so two threads building modules do not interfere."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pytest

from tilefoundry import (
    BindingMetadata,
    Call,
    Mesh,
    Module,
    Target,
    TensorType,
    Topology,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
    replace_metadata,
    select,
    structural_equal,
)
from tilefoundry.api.hir import Function
from tilefoundry.dialects.tf.ops import CALLEE_FUNCTION, CallOp

T4 = TensorType((4,), "f32")
LEVELS = (Topology("cta", 4), Topology("warp", 4))


def neg_fn(name: str) -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.neg(x))


def warp_fn(name: str) -> Function:
    """A function whose body is a mesh over the 'warp' level."""
    x = Var("x", T4)
    return Function(name=name, params=[x], body=Mesh("warp", lambda: ops.exp(x)))


def decoder() -> Module:
    layer = Module(name="MLP", functions=[warp_fn("mlp")])
    x = Var("x", T4)
    step = Function(name="step", params=[x], body=Call(layer.lookup("mlp"), [x]))
    return Module(
        name="decoder",
        functions=[step],
        modules={"layer0": layer},
        entry="step",
        target="h100",
        topologies=LEVELS,
    )


def round_trip(module: Module, generic: bool = False) -> Module:
    return parse_module(print_module(module, generic=generic, debuginfo=True))


# ---------------------------------------------------------------------------------------------
# A copy of an owned module: its context is in its IR


@pytest.mark.parametrize("generic", [False, True])
def test_a_copy_of_a_child_resolves_the_same_after_text(generic: bool) -> None:
    copy = decoder().layer0.cloned()
    again = round_trip(copy, generic)
    for module in (copy, again):
        assert module.resolve_target() == Target("h100")
        assert module.effective_topologies() == LEVELS
        assert module.resolve_topology("warp") == Topology("warp", 4)
        assert module.target is None and module.topologies is None  # it declares nothing
    assert structural_equal(again, copy)
    assert 'within #tf.context<target = #tf.target<"h100">' in print_module(copy)


def test_a_copy_keeps_its_owner_as_python_state_only() -> None:
    root = decoder()
    copy = root.layer0.cloned()
    assert copy.owner == root
    assert round_trip(copy).owner is None  # the owner itself is not in the text


def test_a_copy_of_a_copy_keeps_the_context() -> None:
    copy = decoder().layer0.cloned().cloned()
    assert round_trip(copy).resolve_target() == Target("h100")


def test_a_copy_placed_under_another_owner_resolves_through_it() -> None:
    copy = decoder().layer0.cloned()
    other = Module(name="other", modules={"l": copy}, target="a100", topologies=LEVELS)
    assert other.l.resolve_target() == Target("a100")
    assert "within" not in print_module(other)
    assert round_trip(other).l.resolve_target() == Target("a100")


def test_a_refused_placement_leaves_the_copy_as_it_was() -> None:
    copy = decoder().layer0.cloned()
    text = print_module(copy)
    with pytest.raises(VerifyError, match="mesh names topology level 'warp'"):
        Module(name="other", modules={"l": copy}, target="h100", topologies=(Topology("cta"),))
    assert print_module(copy) == text
    assert copy.resolve_target() == Target("h100")


def test_a_copy_within_its_owners_hierarchy_checks_its_meshes_after_text() -> None:
    text = print_module(decoder().layer0.cloned())
    assert parse_module(text).mlp(np.zeros(4, np.float32)).tolist() == [1.0] * 4
    bad = text.replace('#tf.topology<"warp", 4>', '#tf.topology<"lane", 4>')
    with pytest.raises(ValueError, match="h100 .* has no 'lane' level"):
        parse_module(bad)


def test_a_selected_function_declares_what_it_resolved_and_no_context() -> None:
    picked = select(decoder(), "layer0.mlp")
    assert picked.module_op.owner_context is None
    assert (picked.target, picked.topologies) == (Target("h100"), LEVELS)
    assert round_trip(picked).publish().resolve_target() == Target("h100")


# ---------------------------------------------------------------------------------------------
# Calls built with function objects: the module fixes the symbol path, in the IR


def test_the_module_fixes_each_callee_path_and_keeps_no_python_state() -> None:
    root = decoder()
    calls = [op for op in root.module_op.walk() if isinstance(op, CallOp)]
    assert all(CALLEE_FUNCTION.get(call) is None for call in calls)
    (call,) = [c for c in calls if not c.is_pure_value_call()]
    assert str(call.callee) == "@layer0::@mlp"
    assert call.target is root.layer0.lookup("mlp").function_op


@pytest.mark.parametrize("generic", [False, True])
def test_callees_resolve_the_same_after_text(generic: bool) -> None:
    root = decoder()
    again = round_trip(root, generic)
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(again.step(x), root.step(x))
    (call,) = [
        op
        for op in again.module_op.walk()
        if isinstance(op, CallOp) and not op.is_pure_value_call()
    ]
    assert call.target is again.layer0.lookup("mlp").function_op


def test_a_copy_of_a_call_keeps_the_function_it_was_built_with() -> None:
    g = neg_fn("g")
    x = Var("x", T4)
    call = Call(g, [x])
    copy = cast(Any, replace_metadata(call, BindingMetadata("c")))
    assert copy.target is g.function_op
    f = replace_metadata(Function(name="f", params=[x], body=call), BindingMetadata("f"))
    m = Module(name="m", functions=[f, g], entry="f")
    assert m.f(np.ones(4, np.float32)).tolist() == [-1.0] * 4


def test_a_call_of_a_function_of_another_tree_is_refused_whatever_its_name() -> None:
    g = neg_fn("g")
    Module(name="elsewhere", functions=[g])
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=Call(g, [x]))
    with pytest.raises(VerifyError, match="does not hold that function"):
        Module(name="m", functions=[f, neg_fn("g")])


# ---------------------------------------------------------------------------------------------
# Two threads building modules at once


def _in_threads(*work: Callable[[], Any]) -> list[Any]:
    """Run each callable in a thread of its own; their results (or their exceptions)."""
    results: list[Any] = [None] * len(work)

    def run(index: int) -> None:
        try:
            results[index] = work[index]()
        except BaseException as err:  # noqa: BLE001 - reported by the test
            results[index] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)  # a hang guard only
    return results


def test_a_mesh_collects_only_what_its_own_thread_builds() -> None:
    """Thread A is inside its `Mesh` lambda while thread B builds detached expressions: B's
    expressions stay B's (with one process-wide builder stack, A's mesh took them)."""
    a_inside, b_built, a_done = threading.Event(), threading.Event(), threading.Event()

    def thread_a() -> Module:
        x = Var("x", T4)

        def body() -> Any:
            h = ops.exp(x)
            a_inside.set()
            assert b_built.wait(timeout=600)
            return ops.neg(h)

        mesh = Mesh("cta", body)
        a_done.set()
        f = Function(name="f", params=[x], body=mesh)
        return Module(name="a", functions=[f], entry="f", topologies=(Topology("cta"),))

    def thread_b() -> Module:
        assert a_inside.wait(timeout=600)
        y = Var("y", T4)
        body = ops.add(ops.exp(y), y)
        b_built.set()
        assert a_done.wait(timeout=600)
        g = Function(name="g", params=[y], body=body)
        return Module(name="b", functions=[g], entry="g")

    a, b = _in_threads(thread_a, thread_b)
    assert isinstance(a, Module), a
    assert isinstance(b, Module), b
    mesh_ops = [op.name for op in cast(Any, a.lookup("f").body).body.block.ops]
    assert mesh_ops == ["tf.call", "tf.call", "tf.yield"]
    assert a(np.zeros(4, np.float32)).tolist() == [-1.0] * 4
    assert b(np.zeros(4, np.float32)).tolist() == [1.0] * 4


def _build_and_check(tag: int) -> int:
    """Build a decoder with meshes, calls of function objects and copies; check it."""
    for _ in range(10):
        root = decoder()
        copy = root.layer0.cloned()
        assert round_trip(copy).resolve_target() == Target("h100")
        again = round_trip(root)
        x = np.full(4, float(tag), np.float32)
        np.testing.assert_allclose(again.step(x), np.exp(x), rtol=1e-6)
    return tag


def test_two_threads_building_modules_do_not_interfere() -> None:
    assert _in_threads(lambda: _build_and_check(1), lambda: _build_and_check(2)) == [1, 2]
