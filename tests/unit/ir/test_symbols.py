"""`SymbolTables` (ir/symbols.py): the symbol tables of one verification or one pass, kept right
by the rewriter's listener; outside a scope a lookup walks the table, and nothing is kept on the
IR, so no change of a module body can leave a stale answer."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint, Rewriter

from tilefoundry import Module, TensorType, Var, ops, parse_module
from tilefoundry.api.hir import Function
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp, SymbolMember, lookup_symbol
from tilefoundry.ir import symbols
from tilefoundry.ir.symbols import SymbolTables
from tilefoundry.ir.verify.verifier import verify_ir

T4 = TensorType((4,), "f32")

TEXT = """\
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  tf.module @child {
    hir.func @h(%x: tensor<4xf32>) -> tensor<4xf32> { hir.return %x : tensor<4xf32> }
  }
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


# -- inside a scope: one index per table, reused -------------------------------------------------


def test_a_table_is_indexed_once_per_scope() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        for _ in range(100):
            assert module.member("nothing") is None
            assert module.member("g") is not None
    assert tables.builds == 1


def test_nested_references_resolve_through_child_tables() -> None:
    module = _module_op()
    f = module.member("f")
    assert isinstance(f, FuncOp)
    user = f.body.block.first_op
    assert user is not None
    ref = SymbolRefAttr("child", ["h"])
    tables = SymbolTables()
    with tables.scope():
        found = lookup_symbol(user, ref)
    assert isinstance(found, FuncOp) and found.sym_name.data == "h"
    assert lookup_symbol(user, ref) is found  # outside the scope: the walk finds the same
    assert tables.builds == 2  # the module and its child


def test_a_scope_ends_with_its_block() -> None:
    assert symbols.current() is None
    with SymbolTables().scope() as tables:
        assert symbols.current() is tables
        with SymbolTables().scope() as inner:
            assert symbols.current() is inner
        assert symbols.current() is tables
    assert symbols.current() is None


def test_a_verification_opens_its_own_scope() -> None:
    module = _module_op()
    seen: list[SymbolTables | None] = []
    original = ModuleOp.verify_members

    def spy(self: ModuleOp) -> None:
        seen.append(symbols.current())
        original(self)

    ModuleOp.verify_members = spy  # type: ignore[method-assign]
    try:
        verify_ir(module)
    finally:
        ModuleOp.verify_members = original  # type: ignore[method-assign]
    assert seen and all(isinstance(t, SymbolTables) for t in seen)
    assert len({id(t) for t in seen}) == 1  # one for the whole verification
    assert symbols.current() is None


# -- invalidated through the rewriter's listener ------------------------------------------------


def test_an_erase_through_the_rewriter_forgets_the_index() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        found = module.member("f")
        assert found is not None
        tables.rewriter(found).erase(found)
        assert module.member("f") is None
    assert tables.builds == 2


def test_an_insert_through_the_rewriter_is_found() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        assert module.member("k") is None
        first = module.body.block.first_op
        assert first is not None
        tables.rewriter(first).insert(_function("k"), InsertPoint.before(first))
        assert isinstance(module.member("k"), FuncOp)


def test_a_replaced_member_is_not_answered_stale() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        old = module.member("g")
        assert old is not None
        new = _function("g")
        tables.rewriter(old).replace(old, new)
        assert module.member("g") is new


def test_a_rename_notified_to_the_rewriter_is_found_by_its_new_name_only() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        found = module.member("f")
        assert isinstance(found, FuncOp)
        found.sym_name = StringAttr("renamed")
        tables.rewriter(found).notify_op_modified(found)
        assert module.member("f") is None
        assert module.member("renamed") is found


def test_a_body_block_replaced_whole_is_indexed_anew() -> None:
    module = _module_op()
    tables = SymbolTables()
    with tables.scope():
        assert module.member("f") is not None
        old = module.body.block
        module.body.detach_block(old)
        module.body.add_block(Block([_function("k")]))
        assert module.member("f") is None
        assert isinstance(module.member("k"), FuncOp)


# -- outside a scope: a walk, never stale -------------------------------------------------------


def test_outside_a_scope_every_change_is_seen() -> None:
    module = _module_op()
    found = module.member("f")
    assert found is not None
    found.detach()
    assert module.member("f") is None
    module.body.block.add_op(found)
    assert module.member("f") is found
    assert isinstance(found, FuncOp)
    found.properties["sym_name"] = StringAttr("again")  # the properties dict itself
    assert module.member("f") is None
    assert module.member("again") is found
    child = module.member("child")
    assert isinstance(child, ModuleOp)
    Rewriter.erase_op(child)
    assert module.member("child") is None


def test_a_shadowed_name_is_found_again_when_the_first_leaves() -> None:
    module = _module_op()
    second = _function("f")
    module.body.block.add_op(second)  # a second @f (the verifier refuses it)
    first = module.member("f")
    assert first is not None and first is not second
    first.detach()
    assert module.member("f") is second


def test_a_moved_region_is_found_where_it_lands() -> None:
    source, target = _module_op(), ModuleOp("other", body=Region(Block()))
    assert target.member("f") is None
    source.body.move_blocks(target.body)
    target.body.detach_block(target.body.blocks[0])
    assert isinstance(target.member("f"), FuncOp)


def test_members_hold_no_hooks() -> None:
    """No `__setattr__` interception and no properties subclass on the IR's objects."""
    assert "__setattr__" not in vars(SymbolMember)
    module = _module_op()
    found = module.member("f")
    assert found is not None
    assert type(found.properties) is dict


def test_outside_a_scope_a_hit_is_checked_against_the_ir() -> None:
    """The body's last index is a hint: an op renamed, moved out or replaced behind its back
    (no rewriter, no notification) is never answered under its old name."""
    module = _module_op()
    f, g = module.member("f"), module.member("g")
    assert isinstance(f, FuncOp) and isinstance(g, FuncOp)
    f.properties["sym_name"] = StringAttr("g2")
    g.properties["sym_name"] = StringAttr("f")
    assert module.member("f") is g
    assert module.member("g") is None
    assert module.member("g2") is f
    other = ModuleOp("other", body=Region(Block()))
    f.detach()
    other.body.block.add_op(f)
    assert module.member("g2") is None
    assert other.member("g2") is f


def test_a_root_pass_keeps_its_tables_right_through_the_rewriter() -> None:
    """A `RootPass` run is one scope: a lookup after an erase through `symbols.rewriter` does
    not find the erased function, and the scope ends with the run."""
    from dataclasses import dataclass

    from xdsl.context import Context

    from tilefoundry.transforms.pass_base import RootPass

    seen: list[object] = []

    @dataclass(frozen=True)
    class EraseF(RootPass):
        name = "test-erase-f"

        def run_on_root(self, root: ModuleOp) -> None:
            found = root.member("f")
            assert found is not None
            seen.append(symbols.current())
            symbols.rewriter(found).erase(found, safe_erase=False)
            seen.append(root.member("f"))

    module = _module_op()
    EraseF().apply(Context(), module)
    assert isinstance(seen[0], SymbolTables) and seen[1] is None
    assert symbols.current() is None
    assert module.member("f") is None and module.member("g") is not None
