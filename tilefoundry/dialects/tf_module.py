"""`tf.module`: the execution domain that owns HIR / TIR functions and child modules.

The symbol (`@layer0`) is the name the module is attached under; `name` records the module's own
name when it differs (torch / HuggingFace naming: a child is named by its attribute, not by
itself). Functions and child modules share one symbol table, so a function and a child never
share a name at one level.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import (
    DictionaryAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolOpInterface, SymbolTable

from tilefoundry.diagnostics import VerifyError
from tilefoundry.ir.callable import FunctionLike

__all__ = ["ModuleOp", "MODULE_BODY_OPS"]

MODULE_BODY_OPS = ("hir.func", "tir.prim_func", "tf.module")


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """A module: functions, child modules, an optional entry, configuration metadata.

    ```mlir
    tf.module @decoder name "Decoder" entry @step metadata {opt_level = 2 : i64} {
      hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> { hir.return %x : tensor<8xf32> }
      tf.module @layer0 name "MLP" { }
    }
    ```
    """

    name = "tf.module"

    sym_name = prop_def(SymbolNameConstraint())
    module_name = opt_prop_def(StringAttr)
    entry = opt_prop_def(SymbolRefAttr)
    metadata = opt_prop_def(DictionaryAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedFromAbove(), NoTerminator())

    def __init__(
        self,
        sym_name: str,
        *,
        module_name: str | None = None,
        entry: str | None = None,
        metadata: DictionaryAttr | None = None,
        body: Region | None = None,
    ) -> None:
        properties: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "module_name": None if module_name in (None, sym_name) else StringAttr(module_name),
            "entry": None if entry is None else SymbolRefAttr(entry),
            "metadata": metadata,
        }
        super().__init__(
            properties={k: v for k, v in properties.items() if v is not None},
            regions=[body if body is not None else _empty_body()],
        )

    @property
    def own_name(self) -> str:
        """The module's own name (its symbol unless `name` says otherwise)."""
        return (self.module_name or self.sym_name).data

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if op.name not in MODULE_BODY_OPS:
                raise VerifyError(
                    f"'{op.name}' cannot be in a module body; it holds only "
                    + ", ".join(MODULE_BODY_OPS)
                )
        if self.entry is not None:
            if self.entry.nested_references:
                raise VerifyError("entry must name a function of this module itself, not a child's")
            name = self.entry.root_reference.data
            found = next(
                (
                    op
                    for op in self.body.block.ops
                    if isinstance(op, FunctionLike)
                    and op.properties["sym_name"] == StringAttr(name)
                ),
                None,
            )
            if found is None:
                functions = ", ".join(f"'{n}'" for n in function_names(self)) or "none"
                raise VerifyError(
                    f"entry '@{name}' does not name a function of this module (functions: {functions})"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        properties: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
        if parser.parse_optional_keyword("name") is not None:
            properties["module_name"] = StringAttr(parser.parse_str_literal())
        if parser.parse_optional_keyword("entry") is not None:
            properties["entry"] = SymbolRefAttr(parser.parse_symbol_name())
        if parser.parse_optional_keyword("metadata") is not None:
            position = parser.pos
            metadata = parser.parse_attribute()
            if not isinstance(metadata, DictionaryAttr):
                parser.raise_error("module metadata must be a dictionary", position)
            properties["metadata"] = metadata
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body = _empty_body()
        op = cls.create(properties=properties, regions=[body])
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.module_name is not None:
            printer.print_string(" name ")
            printer.print_string_literal(self.module_name.data)
        if self.entry is not None:
            printer.print_string(" entry ")
            printer.print_symbol_name(self.entry.root_reference.data)
        if self.metadata is not None:
            printer.print_string(" metadata ")
            printer.print_attribute(self.metadata)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False)


def _empty_body() -> Region:
    return Region(Block())


def function_names(module: ModuleOp) -> list[str]:
    """The names of the functions a module holds directly, in order."""
    return [
        cast(StringAttr, op.properties["sym_name"]).data
        for op in module.body.block.ops
        if isinstance(op, FunctionLike)
    ]
