"""Spec section 1.2: select(module, path) and function_selectors(module)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tilefoundry import (
    Module,
    Target,
    TensorType,
    Topology,
    Var,
    function_selectors,
    ops,
    parse_module,
    print_module,
    select,
    structural_equal,
)
from tilefoundry.api.hir import Function
from tilefoundry.api.tir import LetStmt, PrimFunction

T4 = TensorType((4,), "f32")
LEVELS = (Topology("cluster", 2), Topology("cta", 4), Topology("warp", 4))


def neg_fn(name: str) -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.neg(x))


def exp_fn(name: str) -> Function:
    x = Var("x", T4)
    return Function(name=name, params=[x], body=ops.exp(x))


def prim_fn(name: str) -> PrimFunction:
    x = Var("x", T4)
    y = LetStmt("y", ops.neg(x))
    return PrimFunction(name=name, params=[x], body=[y], result=y.var)


def tree() -> Module:
    """root(step, embed) > attn(moe, score) + mlp(moe) > mlp.inner(k) + host(topologies=())."""
    attn = Module(name="Attention", functions=[exp_fn("moe"), neg_fn("score")])
    inner = Module(name="Inner", functions=[neg_fn("k")])
    mlp = Module(name="MLP", functions=[neg_fn("moe")], modules={"inner": inner})
    host = Module(name="Host", functions=[neg_fn("h")], topologies=())
    return Module(
        name="root",
        functions=[neg_fn("step"), exp_fn("embed")],
        modules={"attn": attn, "mlp": mlp, "host": host},
        target="h100",
        topologies=LEVELS,
        entry="step",
    )


# ---------------------------------------------------------------------------------------------
# The public names


def test_the_public_names_are_the_functions() -> None:
    """`from tilefoundry import function_selectors, select` (DESIGN section 4) gives the
    functions, whatever the order of the names and in a fresh interpreter."""
    for names in ("function_selectors, select", "select, function_selectors"):
        code = (
            f"from tilefoundry import {names}\n"
            "import types\n"
            "assert callable(select) and not isinstance(select, types.ModuleType), select\n"
            "assert callable(function_selectors), function_selectors\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, f"from tilefoundry import {names}: {done.stderr.strip()}"


# ---------------------------------------------------------------------------------------------
# select: children


def test_the_empty_path_is_the_module_itself() -> None:
    root = tree()
    assert select(root, "") is root
    child = root.mlp
    assert select(child, "") is child


def test_a_path_of_children_reaches_the_child_node() -> None:
    root = tree()
    assert select(root, "attn") is root.attn
    assert select(root, "mlp.inner") is root.mlp.inner
    assert select(root.mlp, "inner") is root.mlp.inner


def test_a_selected_child_still_resolves_through_its_owners() -> None:
    root = tree()
    inner = select(root, "mlp.inner")
    assert inner.target is None
    assert inner.resolve_target() == Target("h100")
    assert inner.effective_topologies() == LEVELS


# ---------------------------------------------------------------------------------------------
# select: a function as the last segment


def test_a_function_segment_gives_a_root_entried_at_that_function() -> None:
    root = tree()
    picked = select(root, "mlp.inner.k")
    assert isinstance(picked, Module)
    assert picked.entry == "k"
    assert picked.entry_function().name == "k"
    assert structural_equal(picked.entry_function(), root.mlp.inner.lookup("k"))
    assert picked.owner is None
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(picked(x), root.mlp.inner.k(x))


def test_the_selected_root_declares_what_it_resolved_through_its_owners() -> None:
    root = tree()
    picked = select(root, "attn.score")
    assert picked.target == Target("h100")
    assert picked.topologies == LEVELS
    assert picked.resolve_target().arch == "sm_90a"
    text = print_module(picked)
    assert '#tf.target<"h100">' in text
    assert '#tf.topology<"cta", 4>' in text
    assert picked.publish() is picked


def test_the_selected_root_declares_a_topology_free_domain_it_resolved() -> None:
    picked = select(tree(), "host.h")
    assert picked.target == Target("h100")
    assert picked.topologies == ()


def test_the_selected_root_keeps_a_childs_own_replacing_levels() -> None:
    inner = Module(name="inner", functions=[neg_fn("k")], topologies=(Topology("warp", 2),))
    root = Module(name="r", modules={"inner": inner}, target="h100", topologies=LEVELS)
    picked = select(root, "inner.k")
    assert picked.topologies == (Topology("warp", 2),)


def test_selecting_a_function_of_the_module_itself() -> None:
    root = tree()
    picked = select(root, "embed")
    assert picked.entry == "embed"
    assert picked.target == Target("h100")
    assert picked.topologies == LEVELS
    assert root.entry == "step"  # the original keeps its entry


def test_selecting_a_function_leaves_the_tree_unchanged() -> None:
    root = tree()
    before = print_module(root)
    picked = select(root, "mlp.moe")
    assert print_module(root) == before
    assert root.mlp.entry is None
    assert root.mlp.target is None
    assert root.mlp.topologies is None
    assert picked is not root.mlp
    assert picked.lookup("moe").function_op is not root.mlp.lookup("moe").function_op


def test_a_selected_root_survives_a_text_round_trip_with_its_context() -> None:
    picked = select(tree(), "attn.moe")
    again = parse_module(print_module(picked))
    assert again.target == Target("h100")
    assert again.topologies == LEVELS
    assert again.entry == "moe"


def test_a_function_segment_must_be_last() -> None:
    root = tree()
    with pytest.raises(KeyError, match=r"'step'"):
        select(root, "step.x")
    with pytest.raises(KeyError, match=r"'moe'"):
        select(root, "mlp.moe.inner")


# ---------------------------------------------------------------------------------------------
# select: refusals


@pytest.mark.parametrize("path", ["mlp..inner", ".mlp", "mlp.", ".", "..", "mlp.inner."])
def test_an_empty_segment_is_refused(path: str) -> None:
    with pytest.raises(ValueError, match=r"empty segment"):
        select(tree(), path)


def test_an_unknown_child_is_refused_naming_the_children() -> None:
    with pytest.raises(KeyError, match=r"'nope'.*children: attn, mlp, host"):
        select(tree(), "nope.k")


def test_an_unknown_last_segment_is_refused_naming_children_and_functions() -> None:
    with pytest.raises(KeyError, match=r"'nope'.*children: inner.*functions: moe"):
        select(tree(), "mlp.nope")


def test_an_unknown_nested_segment_names_where_it_was_looked_for() -> None:
    with pytest.raises(KeyError, match=r"'zzz'.*mlp"):
        select(tree(), "mlp.zzz.k")


def test_a_path_must_be_a_str() -> None:
    with pytest.raises(TypeError, match=r"dotted str"):
        select(tree(), ["mlp"])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# function_selectors


def test_function_selectors_names_every_hir_function_with_its_path() -> None:
    root = tree()
    found = function_selectors(root)
    assert [path for path, _ in found] == [
        "step",
        "embed",
        "attn.moe",
        "attn.score",
        "mlp.moe",
        "mlp.inner.k",
        "host.h",
    ]


def test_function_selectors_pairs_each_path_with_the_function_node() -> None:
    root = tree()
    found = dict(function_selectors(root))
    assert found["step"] is root.lookup("step")
    assert found["attn.moe"] is root.attn.lookup("moe")
    assert found["mlp.moe"] is root.mlp.lookup("moe")
    assert found["mlp.inner.k"] is root.mlp.inner.lookup("k")


def test_two_children_may_each_define_the_same_name() -> None:
    found = function_selectors(tree())
    moes = [(path, fn) for path, fn in found if fn.name == "moe"]
    assert [path for path, _ in moes] == ["attn.moe", "mlp.moe"]
    assert moes[0][1] is not moes[1][1]


def test_function_selectors_paths_are_the_ones_select_resolves() -> None:
    root = tree()
    for path, function in function_selectors(root):
        picked = select(root, path)
        assert picked.entry == function.name
        assert structural_equal(picked.entry_function(), function), path
        assert picked.target == Target("h100")


def test_function_selectors_excludes_prim_functions() -> None:
    kernels = Module(name="kernels", functions=[prim_fn("k0"), neg_fn("f"), prim_fn("k1")])
    root = Module(name="r", functions=[prim_fn("p")], modules={"kernels": kernels}, target="cuda")
    found = function_selectors(root)
    assert [path for path, _ in found] == ["kernels.f"]
    assert all(isinstance(fn, Function) for _, fn in found)


def test_function_selectors_of_an_empty_tree_is_empty() -> None:
    assert list(function_selectors(Module(name="empty"))) == []


def test_function_selectors_names_children_by_attachment_not_own_name() -> None:
    child = Module(name="MLP", functions=[neg_fn("mlp")])
    root = Module(name="r", modules={"layer3": child}, target="h100")
    assert [path for path, _ in function_selectors(root)] == ["layer3.mlp"]
