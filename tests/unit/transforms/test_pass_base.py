"""`pass_base`: every pass declares its anchors (cse, dce and canonicalize too: no table of
exceptions), `RootPass` checks every root before changing any and replaces the roots it is
asked to, `RegionPass` runs on every region of its anchor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass

import tilefoundry as tf
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.support.diagnostics import PassError
from tilefoundry.transforms import PASSES
from tilefoundry.transforms.pass_base import (
    ANY_OP,
    ROOT_ONLY,
    Anchors,
    RegionPass,
    RootPass,
    TFPass,
    anchors_of,
)
from tilefoundry.transforms.pass_manager import PipelineError, parse_pipeline

VARIANTS = Path(__file__).parents[2] / "filecheck" / "transforms" / "anchor-every-region.mlir"


def _roots(*names: str) -> BuiltinModuleOp:
    roots = [tf.parse_module(f"tf.module @{n} {{\n}}\n").module_op.clone() for n in names]
    return BuiltinModuleOp(roots)


def _names(root: BuiltinModuleOp) -> list[str]:
    return [op.properties["sym_name"].data for op in root.body.block.ops]


def test_every_registered_pass_is_an_ordinary_tf_pass() -> None:
    for name, load in PASSES.items():
        assert issubclass(load(), TFPass), name
    for name in ("canonicalize", "cse", "dce"):
        assert anchors_of(PASSES[name]()) is ANY_OP
    parse_pipeline("tf.module(hir.func(canonicalize,cse,dce)),any(cse)", PASSES)


def test_a_plain_xdsl_pass_runs_on_the_root_only(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass(frozen=True)
    class Plain(ModulePass):
        name = "test-plain"

        def apply(self, ctx: Context, op: Any) -> None:
            pass

    assert anchors_of(Plain) == ROOT_ONLY
    monkeypatch.setitem(PASSES, "test-plain", lambda: Plain)
    parse_pipeline("test-plain", PASSES)
    with pytest.raises(PipelineError, match="runs on builtin.module"):
        parse_pipeline("tf.module(test-plain)", PASSES)


@dataclass(frozen=True)
class Renames(RootPass):
    """Replaces each root by an empty module named after it; refuses a root named `bad`."""

    name = "test-renames"
    anchors: ClassVar[Anchors] = ("builtin.module",)
    checked: ClassVar[list[str]] = []

    def check_roots(self, anchor: Operation, roots: Sequence[ModuleOp]) -> None:
        for root in roots:
            if root.sym_name.data == "bad":
                raise PassError(self.name, "bad root", root)

    def run_on_root(self, root: ModuleOp) -> Operation | None:
        if root.sym_name.data == "keep":
            return None
        return ModuleOp(root.sym_name.data + "_new")


def test_a_root_pass_replaces_the_roots_it_returns_others_for() -> None:
    root = _roots("a", "keep", "b")
    Renames().apply(make_context(), root)
    assert _names(root) == ["a_new", "keep", "b_new"]


def test_a_root_pass_checks_every_root_before_changing_any() -> None:
    root = _roots("a", "bad")
    with pytest.raises(PassError, match="bad root"):
        Renames().apply(make_context(), root)
    assert _names(root) == ["a", "bad"]  # the first root was not replaced


def test_a_root_pass_on_a_tf_module_runs_on_it_alone() -> None:
    seen: list[str] = []

    @dataclass(frozen=True)
    class Looks(RootPass):
        name = "test-looks"

        def run_on_root(self, root: ModuleOp) -> None:
            seen.append(root.sym_name.data)

    root = _roots("a", "b")
    Looks().apply(make_context(), root)
    (first, _) = root.body.block.ops
    Looks().apply(make_context(), first)
    assert seen == ["a", "b", "a"]


def test_a_region_pass_runs_on_every_region_of_its_anchor() -> None:
    seen: list[Region] = []

    @dataclass(frozen=True)
    class Regions(RegionPass):
        name = "test-regions"

        def run_on_region(self, ctx: Context, region: Region) -> None:
            seen.append(region)

    text = VARIANTS.read_text()
    function = tf.parse_module(text[text.index("tf.module @") :]).module_op.body.block.first_op
    assert function is not None and len(function.regions) == 2
    Regions().apply(make_context(), function)
    assert seen == list(function.regions)
