"""Selection on the IR (`tilefoundry.dialects.tf.selection`): over `ModuleOp`s, what the surface
`select`, `tf-select`, `tf-verify-published` and `tf-run --function` resolve."""

from __future__ import annotations

import pytest

from tilefoundry.context.module_text import parse_root, print_op
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp, owner_of
from tilefoundry.dialects.tf.selection import (
    check_published,
    detached_copy,
    function_selectors,
    published,
    select,
)
from tilefoundry.support.diagnostics import VerifyError

TREE = """\
tf.module @root target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @f {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @child {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}
"""


def test_a_child_is_the_op_of_the_tree_itself() -> None:
    root = parse_root(TREE)
    child = select(root, "child")
    assert isinstance(child, ModuleOp) and child.parent_op() is root
    assert select(root, "") is root


def test_a_function_path_is_a_published_copy_reentried_at_it() -> None:
    root = parse_root(TREE)
    copy = select(root, "child.g")
    assert copy.parent is None and copy.entry is not None
    assert copy.entry.root_reference.data == "g"
    assert 'target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>]' in print_op(copy)
    assert check_published(copy) is copy


def test_published_declares_what_a_child_resolves() -> None:
    root = parse_root(TREE)
    out = published(root, "child")
    assert out is not select(root, "child") and owner_of(out) is None
    assert out.declared_target is not None and out.declared_topologies is not None


def test_an_unpublishable_root_is_refused() -> None:
    root = parse_root(TREE)
    child = detached_copy(select(root, "child"))
    with pytest.raises(VerifyError, match="declares no target"):
        check_published(child)


def test_function_selectors_name_hir_functions_by_path() -> None:
    root = parse_root(TREE)
    found = function_selectors(root)
    assert [path for path, _ in found] == ["f", "child.g"]
    assert all(isinstance(op, FuncOp) for _, op in found)


def test_a_missing_name_is_refused_naming_what_is_there() -> None:
    with pytest.raises(KeyError, match=r"children: child\), nor a function \(functions: f\)"):
        select(parse_root(TREE), "nope")
