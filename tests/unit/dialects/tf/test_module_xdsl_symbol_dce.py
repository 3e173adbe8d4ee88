"""xDSL's symbol interfaces are enough for a pass that knows nothing of TileFoundry (issue 16,
section 4). xDSL 0.74 has no symbol-dce pass and no inliner (nor a `CallOpInterface`), so
`symbol_dce` below is MLIR's `-symbol-dce` written over xDSL's public interfaces only:
`SymbolOpInterface` marks a symbol, `SymbolUserOpInterface` an op whose symbol references
are uses, `SymbolTable.lookup_symbol` resolves one (nested `@a::@b` too) and
`CallableOpInterface` names a function. On every input of tf-prune-unreachable's lit tests it
keeps exactly the functions tf-prune-unreachable keeps, the root's entry being the one public
symbol (a root without an entry: every function is)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.traits import (
    CallableOpInterface,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)

import tilefoundry as tf
from tilefoundry.api.text import TextError
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.transforms.tf_prune_unreachable import prune_unreachable

LIT = Path(__file__).parents[3] / "filecheck" / "transforms"
INPUTS = sorted(LIT.glob("tf-prune-unreachable*.mlir"))


def _refs(attribute: Attribute) -> Iterator[SymbolRefAttr]:
    if isinstance(attribute, SymbolRefAttr):
        yield attribute
    elif isinstance(attribute, ArrayAttr):
        for element in attribute:
            yield from _refs(element)


def _functions(root: Operation) -> list[Operation]:
    return [op for op in root.walk() if op.get_trait(CallableOpInterface) is not None]


def symbol_dce(root: Operation, public: list[Operation]) -> None:
    """Erase every function that no live symbol reaches; `public` are live to begin with."""
    live: set[Operation] = set()
    work = list(public)
    while work:
        symbol = work.pop()
        if symbol in live:
            continue
        live.add(symbol)
        for op in symbol.walk():
            if op.get_trait(SymbolUserOpInterface) is None:
                continue
            for value in (*op.properties.values(), *op.attributes.values()):
                for ref in _refs(value):
                    found = SymbolTable.lookup_symbol(op, ref)
                    if found is not None and found.get_trait(SymbolOpInterface) is not None:
                        work.append(found)
    for function in _functions(root):
        if function not in live:
            parent = function.parent_block()
            assert parent is not None
            parent.erase_op(function, safe_erase=False)


def _path(function: Operation) -> str:
    names: list[str] = []
    op: Operation | None = function
    while op is not None:
        sym_name = op.properties.get("sym_name")
        if isinstance(sym_name, StringAttr):
            names.append(sym_name.data)
        op = op.parent_op()
    return "::".join(reversed(names))


CHUNKS = [
    (f"{path.stem}#{index}", chunk)
    for path in INPUTS
    for index, chunk in enumerate(path.read_text().split("// -----"))
]


@pytest.mark.parametrize(("name", "chunk"), CHUNKS, ids=[name for name, _ in CHUNKS])
def test_xdsl_symbol_dce_keeps_what_prune_unreachable_keeps(name: str, chunk: str) -> None:
    try:
        ours = tf.parse_module(chunk).module_op
        generic = tf.parse_module(chunk).module_op
    except TextError:
        pytest.fail(f"{name} does not parse")
    assert isinstance(ours, ModuleOp) and isinstance(generic, ModuleOp)
    prune_unreachable(ours)
    if generic.entry is None:
        public = _functions(generic)
    else:
        public = [SymbolTable.lookup_symbol(generic, generic.entry)]  # type: ignore[list-item]
    symbol_dce(generic, public)
    kept = [_path(f) for f in _functions(generic)]
    assert kept == [_path(f) for f in _functions(ours)], name
    assert len(kept) < len(_functions(tf.parse_module(chunk).module_op)) or generic.entry is None


def test_a_called_function_stays_and_an_uncalled_one_goes() -> None:
    text = """
tf.module @m entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @layer::@used(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @layer {
    hir.func @used(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}
"""
    root = tf.parse_module(text).module_op
    assert isinstance(root, ModuleOp) and root.entry is not None
    entry = SymbolTable.lookup_symbol(root, root.entry)
    assert entry is not None
    symbol_dce(root, [entry])
    assert [_path(f) for f in _functions(root)] == ["m::main", "m::layer::used"]
