"""`tf.module`: the execution domain that owns HIR / TIR functions and child modules.

The symbol (`@layer0`) is the name the module is attached under; `name` records the module's own
name when it differs (torch / HuggingFace naming: a child is named by its attribute, not by
itself). Functions and child modules share one symbol table, so a function and a child never
share a name at one level.

A module *declares* its `target` and `topologies`; what it *resolves* to is found lexically over
its owner chain (`resolve_target`, `effective_topologies`), never copied onto it. Only the
outermost module may declare a target. `topologies` absent inherits, `[]` declares none, and a
list replaces the inherited hierarchy whole.
"""

from __future__ import annotations

import weakref

from xdsl.dialects.builtin import (
    ArrayAttr,
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
from tilefoundry.target import (
    Target,
    TargetAttr,
    Topology,
    TopologyAttr,
    check_distinct,
    check_levels,
)

__all__ = [
    "CONTEXT_OWNERS",
    "MODULE_BODY_OPS",
    "SURFACE_NAMES",
    "check_surface_name",
    "ModuleOp",
    "declared_in_chain",
    "effective_topologies",
    "function_names",
    "owner_of",
    "resolve_target",
]

MODULE_BODY_OPS = ("hir.func", "tir.prim_func", "tf.module")

SURFACE_NAMES = frozenset(
    {
        "attached_name",
        "cloned",
        "effective_topologies",
        "entry",
        "entry_function",
        "function_named",
        "functions",
        "implicit",
        "lookup",
        "metadata",
        "methods",
        "module_op",
        "modules",
        "name",
        "of",
        "owner",
        "publish",
        "renamed",
        "resolve_target",
        "resolve_topology",
        "target",
        "topologies",
        "verify",
        "weights",
    }
)
"""The names of the Python `Module`'s own API. Functions, child modules and methods are all
reached through `module.<name>`, where these names come first, so none of the three may take
one (a test keeps this set equal to `tilefoundry.module.Module`'s public names)."""


def check_surface_name(name: str, kind: str, where: str = "") -> None:
    """Refuse a function, child module or method name that `module.<name>` could not reach: a
    name of the Module API, or one that begins with '_'."""
    if name.startswith("_"):
        raise VerifyError(
            f"{where}{kind} name '{name}' begins with '_'; such names are never functions, modules or "
            "methods (rename it)"
        )
    if name in SURFACE_NAMES:
        raise VerifyError(
            f"{where}{kind} name '{name}' shadows the Module API '{name}'; functions, child modules "
            "and methods are reached through one attribute surface, where the API comes first "
            "(rename it)"
        )


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """A module: functions, child modules, an optional entry, its execution domain (target,
    topologies), configuration metadata.

    ```mlir
    tf.module @decoder name "Decoder" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @step metadata {opt_level = 2 : i64} {
      hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> { hir.return %x : tensor<8xf32> }
      tf.module @layer0 name "MLP" { }
    }
    ```
    """

    name = "tf.module"

    sym_name = prop_def(SymbolNameConstraint())
    module_name = opt_prop_def(StringAttr)
    entry = opt_prop_def(SymbolRefAttr)
    target = opt_prop_def(TargetAttr)
    topologies = opt_prop_def(ArrayAttr[TopologyAttr])
    metadata = opt_prop_def(DictionaryAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedFromAbove(), NoTerminator())

    def __init__(
        self,
        sym_name: str,
        *,
        module_name: str | None = None,
        entry: str | None = None,
        target: Target | None = None,
        topologies: tuple[Topology, ...] | None = None,
        metadata: DictionaryAttr | None = None,
        body: Region | None = None,
    ) -> None:
        properties: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "module_name": None if module_name in (None, sym_name) else StringAttr(module_name),
            "target": None if target is None else TargetAttr(StringAttr(target.name)),
            "topologies": None
            if topologies is None
            else ArrayAttr(TopologyAttr.of(t) for t in topologies),
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

    @property
    def declared_target(self) -> Target | None:
        return None if self.target is None else self.target.target

    @property
    def declared_topologies(self) -> tuple[Topology, ...] | None:
        if self.topologies is None:
            return None
        return tuple(t.topology for t in self.topologies)

    def verify_(self) -> None:
        if isinstance(self.parent_op(), ModuleOp):
            check_surface_name(self.sym_name.data, "child module")
        if self.target is not None and isinstance(self.parent_op(), ModuleOp):
            raise VerifyError(
                f"child module '{self.sym_name.data}' declares target '{self.target.target_name.data}'; "
                "only the outermost module may declare one (a child inherits its owner's)"
            )
        declared = self.declared_topologies
        if declared is not None:
            check_distinct(declared)
            target = resolve_target(self, required=False)
            if target is not None:
                check_levels(target, declared)
        if self.metadata is not None:
            for key in self.metadata.data:
                if "mesh" in key.lower() or "topolog" in key.lower():
                    raise VerifyError(
                        f"module metadata '{key}': metadata carries target / compiler-option "
                        "configuration, never mesh or topology semantics (declare levels with "
                        "topologies, bind a mesh with tf.mesh)"
                    )
                if isinstance(self.metadata.data[key], TopologyAttr | TargetAttr):
                    raise VerifyError(
                        f"module metadata '{key}' holds a {self.metadata.data[key].name}; declare "
                        "the target and topologies as the module's own fields"
                    )
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
                    if isinstance(op, FunctionLike) and op.function_name() == name
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
        if parser.parse_optional_keyword("target") is not None:
            position = parser.pos
            target = parser.parse_attribute()
            if not isinstance(target, TargetAttr):
                parser.raise_error(f"expected #tf.target<...>, got {target}", position)
            properties["target"] = target
        if parser.parse_optional_keyword("topologies") is not None:
            position = parser.pos
            levels = parser.parse_attribute()
            if not isinstance(levels, ArrayAttr) or not all(
                isinstance(level, TopologyAttr) for level in levels
            ):
                parser.raise_error(f"expected [#tf.topology<...>, ...], got {levels}", position)
            properties["topologies"] = levels
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
        if self.target is not None:
            printer.print_string(" target ")
            printer.print_attribute(self.target)
        if self.topologies is not None:
            printer.print_string(" topologies ")
            printer.print_attribute(self.topologies)
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
    return [op.function_name() for op in module.body.block.ops if isinstance(op, FunctionLike)]


CONTEXT_OWNERS: weakref.WeakKeyDictionary[ModuleOp, ModuleOp] = weakref.WeakKeyDictionary()
"""The owner a detached copy shares with its original (`Module.cloned()`): a copy is a new node,
but the immutable context around the node (owner, target, topologies) stays the original's."""


def owner_of(module: ModuleOp) -> ModuleOp | None:
    """The module that owns this one: its parent, or for a detached copy, its original's owner."""
    parent = module.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    if parent is not None:
        return parent
    return CONTEXT_OWNERS.get(module)


def resolve_target(module: ModuleOp, *, required: bool = True) -> Target | None:
    """The declared target of the module or of its nearest owner that declares one."""
    node: ModuleOp | None = module
    while node is not None:
        if node.target is not None:
            return node.target.target
        node = owner_of(node)
    if required:
        raise VerifyError(
            f"module '{module.own_name}' has no target: neither it nor any owner declares one; "
            'declare it on the root module, e.g. Module(..., target="h100")'
        )
    return None


def declared_in_chain(module: ModuleOp) -> tuple[Topology, ...] | None:
    """The nearest topology declaration over the owner chain; None when no module declares one
    (the hierarchy is then unknown until the module is placed under an owner)."""
    node: ModuleOp | None = module
    while node is not None:
        declared = node.declared_topologies
        if declared is not None:
            return declared
        node = owner_of(node)
    return None


def effective_topologies(module: ModuleOp) -> tuple[Topology, ...]:
    """The hierarchy in effect: the nearest declaration over the owner chain (none: `()`)."""
    return declared_in_chain(module) or ()
