"""The symbol index of a `tf.module` body (`ModuleOp.member`): valid by construction, so a miss
costs one dict lookup (no rebuild), and every change of membership is seen by the next lookup."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Region
from xdsl.rewriter import Rewriter

from tilefoundry import Module, TensorType, Var, ops, parse_module
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp, member_index
from tilefoundry.hir import Function

T4 = TensorType((4,), "f32")

TEXT = """\
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  tf.module @child { }
}
"""


def _module_op() -> ModuleOp:
    return parse_module(TEXT).module_op


def _function(name: str) -> FuncOp:
    x = Var("x", T4)
    op = Module(name="tmp", functions=[Function(name=name, params=[x], body=ops.exp(x))])
    found = op.module_op.member(name)
    assert isinstance(found, FuncOp)
    found.detach()
    return found


def test_a_miss_does_not_rebuild_the_index() -> None:
    module = _module_op()
    assert module.member("f") is not None  # builds the index once
    index = member_index(module.body.block)
    for _ in range(100):
        assert module.member("nothing") is None
        assert module.member("g") is not None
    assert member_index(module.body.block) is index  # the same one: never rebuilt


def test_a_method_access_does_not_rebuild_the_index() -> None:
    x = Var("x", T4)
    module = Module(
        name="m",
        functions=[Function(name=f"f{i}", params=[x], body=ops.exp(x)) for i in range(1)],
        methods={"go": lambda self: 1},
    )
    module.go  # noqa: B018 - builds the index: `go` is not a member, then a method
    index = member_index(module.module_op.body.block)
    for _ in range(10):
        module.go  # noqa: B018
    assert member_index(module.module_op.body.block) is index


def test_an_added_member_is_found() -> None:
    module = _module_op()
    assert module.member("h") is None
    module.body.block.add_op(_function("h"))
    assert isinstance(module.member("h"), FuncOp)


def test_a_member_inserted_before_another_is_found() -> None:
    module = _module_op()
    assert module.member("h") is None
    first = module.body.block.first_op
    assert first is not None
    module.body.block.insert_op_before(_function("h"), first)
    assert isinstance(module.member("h"), FuncOp)


def test_a_removed_member_is_not_found() -> None:
    module = _module_op()
    found = module.member("f")
    assert found is not None
    found.detach()
    assert module.member("f") is None
    module.body.block.add_op(found)
    assert module.member("f") is found


def test_an_erased_member_is_not_found() -> None:
    module = _module_op()
    child = module.member("child")
    assert isinstance(child, ModuleOp)
    Rewriter.erase_op(child)
    assert module.member("child") is None


def test_a_renamed_member_is_found_by_its_new_name_only() -> None:
    module = _module_op()
    found = module.member("f")
    assert isinstance(found, FuncOp)
    found.sym_name = StringAttr("renamed")  # through the property accessor
    assert module.member("f") is None
    assert module.member("renamed") is found
    found.properties["sym_name"] = StringAttr("again")  # the properties dict itself
    assert module.member("renamed") is None
    assert module.member("again") is found


def test_a_shadowed_name_is_found_again_when_the_first_leaves() -> None:
    module = _module_op()
    second = _function("f")
    module.body.block.add_op(
        second
    )  # a second @f (the verifier refuses it; lookup finds the first)
    first = module.member("f")
    assert first is not None and first is not second
    first.detach()
    assert module.member("f") is second


def test_a_body_block_replaced_whole_is_indexed_anew() -> None:
    module = _module_op()
    assert module.member("f") is not None
    old = module.body.block
    module.body.detach_block(old)
    module.body.add_block(Block([_function("k")]))
    assert module.member("f") is None
    assert isinstance(module.member("k"), FuncOp)
    assert member_index(old).get("f") is not None  # the old block keeps its own members


def test_a_moved_region_is_indexed_where_it_lands() -> None:
    source, target = _module_op(), ModuleOp("other", body=Region(Block()))
    assert target.member("f") is None
    source.body.move_blocks(target.body)  # the ops keep their block: the block moves
    target.body.detach_block(target.body.blocks[0])  # the empty block `target` had
    assert isinstance(target.member("f"), FuncOp)
