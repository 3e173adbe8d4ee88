"""`SymbolTables`: the symbol tables of one verification or one pass, as MLIR's
`SymbolTableCollection`.

A symbol is found by a walk over the ops of its table (`SymbolTable.lookup_symbol`): fine once,
quadratic when every call of a module of thousands of functions looks its callee up. A
`SymbolTables` indexes each table the first time it is asked about it and answers in one dict
lookup after that. It lives as long as the work that made it and no longer: nothing is kept on
the IR objects and nothing in a process-wide table.

Its answers stay right only while it is told of every change to a table's membership, as
MLIR's collection is: a change made through a rewriter that carries `listener()` (an op
inserted, removed, replaced or modified — a rename) forgets the index of the table concerned,
which is rebuilt at the next lookup. Where nothing changes, nothing needs telling:

- one verification (`ir/verify/verifier.py`) opens `SymbolTables().scope()`: verifiers never
  change the IR;
- one pass over module trees (`transforms/pass_base.RootPass`) opens one too, and its changes
  to a module body go through `rewriter()`, whose listener keeps the index right;
- outside a scope (`current()` is None) a lookup walks the table, as xDSL's does (a
  `tf.module` checks the hint of its last walk first: `dialects/tf/module.find_member`).

```python
tables = SymbolTables()
with tables.scope():
    callee = tables.lookup(call, call.callee)
    tables.rewriter(callee).erase(callee)   # the index of callee's table is forgotten
```
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener
from xdsl.traits import SymbolTable

__all__ = ["SymbolTables", "current", "rewriter", "symbol_index"]


def symbol_index(block: Block) -> dict[str, Operation]:
    """The ops of `block` by their `sym_name` property: the first of a name, as a walk finds
    it."""
    index: dict[str, Operation] = {}
    for op in block.ops:
        name = op.properties.get("sym_name")
        if isinstance(name, StringAttr):
            index.setdefault(name.data, op)
    return index


class SymbolTables:
    """The index of each symbol table asked about (see the module docstring). `builds` counts
    the indexes built, for a test to see that a lookup reuses one."""

    def __init__(self) -> None:
        self.tables: dict[Operation, tuple[Block, dict[str, Operation]]] = {}
        self.builds = 0

    def index(self, table: Operation) -> dict[str, Operation]:
        """The symbols of `table` (an op whose first region has one block) by name."""
        block = table.regions[0].block
        known = self.tables.get(table)
        if known is None or known[0] is not block:  # a body block replaced whole: index anew
            self.builds += 1
            known = self.tables[table] = (block, symbol_index(block))
        return known[1]

    def lookup_in(self, table: Operation, name: str) -> Operation | None:
        """The op named `name` directly in `table`, or None."""
        return self.index(table).get(name)

    def lookup(self, op: Operation, ref: SymbolRefAttr) -> Operation | None:
        """What `ref` names where `op` uses it: in the nearest enclosing symbol table, nested
        references through the tables it names (as `SymbolTable.lookup_symbol`)."""
        table = op.parent_op()
        while table is not None and not table.has_trait(SymbolTable):
            table = table.parent_op()
        if table is None:
            return None
        found = self.lookup_in(table, ref.root_reference.data)
        for nested in ref.nested_references:
            if found is None or not found.has_trait(SymbolTable):
                return None
            found = self.lookup_in(found, nested.data)
        return found

    def invalidate(self, table: Operation | None) -> None:
        """Forget the index of `table` (None: nothing); the next lookup builds it again."""
        if table is not None:
            self.tables.pop(table, None)

    def _changed(self, op: Operation) -> None:
        """`op` joins, leaves or changes in its block: the table that holds it forgets its
        index, and so does `op` itself when it is a table that leaves."""
        self.invalidate(op.parent_op())
        self.invalidate(op)

    def listener(self) -> PatternRewriterListener:
        """A rewriter listener that keeps these indexes right through the rewriter's changes."""
        return PatternRewriterListener(
            operation_insertion_handler=[self._changed],
            operation_removal_handler=[self._changed],
            operation_modification_handler=[self._changed],
            operation_replacement_handler=[lambda op, _: self._changed(op)],
        )

    def rewriter(self, op: Operation) -> PatternRewriter:
        """A rewriter at `op` whose changes these indexes are told of."""
        rewriter = PatternRewriter(op)
        rewriter.extend_from_listener(self.listener())
        return rewriter

    @contextmanager
    def scope(self) -> Iterator[SymbolTables]:
        """Make these the tables `current()` answers while the block runs (a scope already
        open inside keeps its own: the outer one is restored after)."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


_CURRENT: ContextVar[SymbolTables | None] = ContextVar("tf_symbol_tables", default=None)


def current() -> SymbolTables | None:
    """The tables of the verification or pass running here (None outside one)."""
    return _CURRENT.get()


def rewriter(op: Operation) -> PatternRewriter:
    """A rewriter at `op` whose changes the current tables (if any) are told of: what a pass
    changes a module body with."""
    tables = current()
    return PatternRewriter(op) if tables is None else tables.rewriter(op)
