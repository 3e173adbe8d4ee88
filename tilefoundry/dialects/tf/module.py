"""`tf.module`: the execution domain that owns HIR / TIR functions and child modules.

The symbol (`@layer0`) is the name the module is attached under; `name` records the module's own
name when it differs (torch / HuggingFace naming: a child is named by its attribute, not by
itself). Functions and child modules share one symbol table, so a function and a child never
share a name at one level.

A module *declares* its `target` and `topologies`; what it *resolves* to is found lexically over
its owner chain (`resolve_target`, `effective_topologies`), never copied onto it. Only the
outermost module may declare a target. `topologies` absent inherits, `[]` declares none, and a
list replaces the inherited hierarchy whole. A root whose owner is outside the IR (a detached
copy of an owned module) records what that owner provides, `within #tf.context<...>`: the
chain ends there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolOpInterface, SymbolTable

from tilefoundry.builtin.target import (
    Target,
    TargetAttr,
    Topology,
    TopologyAttr,
    check_distinct,
    check_levels,
)
from tilefoundry.dialects.syntax import with_attributes
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.state import Slot
from tilefoundry.ir.symbols import current as current_symbol_tables
from tilefoundry.ir.traits import ModuleMember, is_module_member
from tilefoundry.ir.verify.op_verification import op_definition
from tilefoundry.ir.verify.verifier import OpVerifyError
from tilefoundry.support.caches import CACHES, shared
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute

__all__ = [
    "lookup_symbol",
    "MEMBERS_TEXT",
    "no_entry_message",
    "RECORDED_OWNER",
    "SURFACE_NAMES",
    "check_surface_name",
    "ModuleOp",
    "OwnerContextAttr",
    "declared_in_chain",
    "effective_topologies",
    "function_names",
    "inherited_context",
    "owner_of",
    "parent_module",
    "resolve_target",
]

MEMBERS_TEXT = "hir.func, tir.prim_func, tf.module"
"""How a diagnostic names what a module body holds (the ops declared with the `ModuleMember`
trait; a test checks that the two agree)."""


@irdl_attr_definition
class OwnerContextAttr(IRDLFormAttribute):
    """The execution context an owner outside the IR provides to a module: the target and the
    topology hierarchy that module resolves through that owner (`none`: the owner chain
    declares none). A detached copy of an owned module (`Module.cloned()` of a child) carries
    it, so that it resolves, in Python and in text, what its original resolves.

    ```mlir
    tf.module @layer1 name "MLP" within #tf.context<target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4>]> { }
    ```
    """

    name = "tf.context"

    target: TargetAttr | NoneAttr
    topologies: ArrayAttr[TopologyAttr] | NoneAttr

    @staticmethod
    def of(target: Target | None, topologies: tuple[Topology, ...] | None) -> OwnerContextAttr:
        return OwnerContextAttr(
            NoneAttr() if target is None else TargetAttr(StringAttr(target.name)),
            NoneAttr() if topologies is None else ArrayAttr(TopologyAttr.of(t) for t in topologies),
        )

    @property
    def resolved_target(self) -> Target | None:
        return None if isinstance(self.target, NoneAttr) else self.target.target

    @property
    def resolved_topologies(self) -> tuple[Topology, ...] | None:
        if isinstance(self.topologies, NoneAttr):
            return None
        return tuple(t.topology for t in self.topologies)

    def verify(self) -> None:
        levels = self.resolved_topologies
        if levels is not None:
            check_distinct(levels)
            if (target := self.resolved_target) is not None:
                check_levels(target, levels)

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        values: dict[str, Attribute] = {}

        def parse_entry(key: str | None = None, position: int | None = None) -> bool | None:
            if key is None or position is None:
                position = parser.pos
                key = parser.parse_identifier(" (target or topologies)")
            if key not in ("target", "topologies"):
                parser.raise_error(f"expected target or topologies, got '{key}'", position)
            if key in values:
                parser.raise_error(f"'{key}' is given twice", position)
            parser.parse_punctuation("=")
            values[key] = parser.parse_attribute()
            return True

        def parse_optional_entry() -> bool | None:  # `<>` declares nothing
            position = parser.pos
            key = parser.parse_optional_identifier()
            return None if key is None else parse_entry(key, position)

        parser.parse_optional_undelimited_comma_separated_list(parse_optional_entry, parse_entry)
        return [values.get("target", NoneAttr()), values.get("topologies", NoneAttr())]

    def print_parameters(self, printer: Printer) -> None:
        entries: list[tuple[str, Attribute]] = [
            (key, value)
            for key, value in (("target", self.target), ("topologies", self.topologies))
            if not isinstance(value, NoneAttr)
        ]
        with printer.in_angle_brackets():
            for index, (key, value) in enumerate(entries):
                printer.print_string(f"{', ' if index else ''}{key} = ")
                printer.print_attribute(value)


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
one (a test keeps this set equal to `tilefoundry.api.module.Module`'s public names)."""


def check_surface_name(name: str, kind: str, where: str = "") -> None:
    """Refuse a function, child module or method name that `module.<name>` could not reach: a
    name of the Module API, or one that begins with '_'."""
    if name.startswith("_"):
        raise VerifyError(
            f"{where}{kind} name '{name}' begins with '_'; such names are never functions, "
            "modules or methods (rename it)"
        )
    if name in SURFACE_NAMES:
        raise VerifyError(
            f"{where}{kind} name '{name}' shadows the Module API '{name}'; functions, child "
            "modules and methods are reached through one attribute surface, where the API comes "
            "first (rename it)"
        )


class SymbolMember:
    """What a module body may hold as a member (`hir.func`, `tir.prim_func`, `tf.module`).

    `ModuleOp.member` finds a member by symbol: in the index of the verification or pass
    running (`ir/symbols.py`, kept right by the rewriter's listener, as MLIR's
    `SymbolTableCollection`); outside one (the Python surface), in the body's last index
    (`_MEMBERS`), which is only a hint: a hit counts only while the op is still in that block
    under that name, and a miss walks the body and indexes it anew. No hook on the IR tells it
    of changes, and none is needed: no answer is stale. Only these ops are members: any other
    op in a module body is refused by the module's verifier."""


_MEMBERS: Slot[dict[str, Operation]] = Slot("members")
"""The last index of a module body block, by `find_member` (a hint, checked at each hit)."""


def find_member(block: Block, name: str) -> Operation | None:
    """The member of `block` named `name` (None): the last index's op while it is still in
    `block` under `name`, else found by a walk that indexes the block anew."""
    index = _MEMBERS.get(block)
    if index is not None:
        found = index.get(name)
        if found is not None and found.parent is block:
            symbol = found.properties.get("sym_name")
            if isinstance(symbol, StringAttr) and symbol.data == name:
                return found
    index = {}
    for op in block.ops:
        symbol = op.properties.get("sym_name")
        if isinstance(symbol, StringAttr) and isinstance(op, SymbolMember):
            index.setdefault(symbol.data, cast(Operation, op))
    _MEMBERS.set(block, index)
    return index.get(name)


@op_definition
class ModuleOp(SymbolMember, IRDLOperation):
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
    owner_context = opt_prop_def(OwnerContextAttr)
    body = region_def("single_block")

    traits = traits_def(
        ModuleMember(), SymbolOpInterface(), SymbolTable(), IsolatedFromAbove(), NoTerminator()
    )

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
            "sym_name": shared(StringAttr(sym_name)),
            "module_name": None
            if module_name in (None, sym_name)
            else shared(StringAttr(module_name)),
            "target": None if target is None else TargetAttr(StringAttr(target.name)),
            "topologies": None
            if topologies is None
            else ArrayAttr(TopologyAttr.of(t) for t in topologies),
            "entry": None if entry is None else shared(SymbolRefAttr(entry)),
            "metadata": metadata,
        }
        super().__init__(
            properties={k: v for k, v in properties.items() if v is not None},
            regions=[body if body is not None else _empty_body()],
        )

    def member(self, name: str) -> Operation | None:
        """The function or child module of this module named `name` (they share one symbol
        table), or None: one dict lookup in the symbol tables of the verification or pass
        running (`ir/symbols.py`), else `find_member`."""
        tables = current_symbol_tables()
        if tables is None:
            return find_member(self.body.block, name)
        found = tables.lookup_in(self, name)
        return found if isinstance(found, SymbolMember) else None

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
        """The module's own rules, then its members' rules that depend on where they stand
        (`verify_members`): no op reaches up its owner chain to verify itself, and what the
        chain resolves is looked up once per module (`resolve_target`)."""
        if self.target is not None and self.owner_context is not None:
            if self.owner_context.resolved_target is not None:
                raise VerifyError(
                    f"module '{self.sym_name.data}' declares target "
                    f"'{self.target.target_name.data}' within an owner that declares one; only "
                    "the outermost module may declare one (a copy of a child inherits its owner's)"
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
            if not is_module_member(op):
                raise VerifyError(
                    f"'{op.name}' cannot be in a module body; it holds only " + MEMBERS_TEXT
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
        self.verify_members()

    def verify_members(self) -> None:
        """What a function or child module must be as a member of this module, reported at the
        member: a name `module.<name>` reaches; for a child module, no owner context of its own
        and no target (only the outermost module declares one)."""
        for op in self.body.block.ops:
            name = op.properties.get("sym_name")
            if not isinstance(name, StringAttr):
                continue  # a broken member: its own verifier says so
            try:
                if isinstance(op, FunctionLike):
                    check_surface_name(name.data, "function")
                elif isinstance(op, ModuleOp):
                    check_surface_name(name.data, "child module")
                    op.verify_as_child()
            except VerifyError as err:
                raise OpVerifyError(op, str(err)) from None

    def verify_as_child(self) -> None:
        """The rules of a module held by another (checked by its parent, `verify_members`)."""
        if self.owner_context is not None:
            raise VerifyError(
                f"child module '{self.sym_name.data}' has an owner context (within); a "
                "child resolves through the module that holds it"
            )
        if self.target is not None:
            raise VerifyError(
                f"child module '{self.sym_name.data}' declares target '{self.target.target_name.data}'; "
                "only the outermost module may declare one (a child inherits its owner's)"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        properties: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
        for field in _HEADER:
            if parser.parse_optional_keyword(field.keyword) is not None:
                properties[field.name] = field.read(parser)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body = _empty_body()
        return with_attributes(cls.create(properties=properties, regions=[body]), attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        for field in _HEADER:
            value = self.properties.get(field.name)
            if value is not None:
                printer.print_string(f" {field.keyword} ")
                field.write(printer, value)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False)


def _checked(
    fits: Callable[[Attribute], bool], refusal: Callable[[Attribute], str]
) -> Callable[[Parser], Attribute]:
    """A reader of an attribute that is refused (at it) with `refusal` unless it `fits`."""

    def read(parser: Parser) -> Attribute:
        position = parser.pos
        value = parser.parse_attribute()
        if not fits(value):
            parser.raise_error(refusal(value), position)
        return value

    return read


class _HeaderField(NamedTuple):
    """A `keyword <value>` of a module's header: the property it sets, how its value reads and
    prints."""

    keyword: str
    name: str
    read: Callable[[Parser], Attribute]
    write: Callable[[Printer, Attribute], None] = Printer.print_attribute


_HEADER = (
    _HeaderField(
        "name",
        "module_name",
        lambda parser: StringAttr(parser.parse_str_literal()),
        lambda printer, a: printer.print_string_literal(cast(StringAttr, a).data),
    ),
    _HeaderField(
        "target",
        "target",
        _checked(
            lambda a: isinstance(a, TargetAttr), lambda a: f"expected #tf.target<...>, got {a}"
        ),
    ),
    _HeaderField(
        "topologies",
        "topologies",
        _checked(
            lambda a: isinstance(a, ArrayAttr) and all(isinstance(t, TopologyAttr) for t in a),
            lambda a: f"expected [#tf.topology<...>, ...], got {a}",
        ),
    ),
    _HeaderField(
        "entry",
        "entry",
        lambda parser: SymbolRefAttr(parser.parse_symbol_name()),
        lambda printer, a: printer.print_symbol_name(cast(SymbolRefAttr, a).root_reference.data),
    ),
    _HeaderField(
        "metadata",
        "metadata",
        _checked(
            lambda a: isinstance(a, DictionaryAttr),
            lambda a: "module metadata must be a dictionary",
        ),
    ),
    _HeaderField(
        "within",
        "owner_context",
        _checked(
            lambda a: isinstance(a, OwnerContextAttr),
            lambda a: f"expected #tf.context<...>, got {a}",
        ),
    ),
)
"""A module's header after its symbol, in order."""


def _empty_body() -> Region:
    return Region(Block())


def function_names(module: ModuleOp) -> list[str]:
    """The names of the functions a module holds directly, in order."""
    return [op.function_name() for op in module.body.block.ops if isinstance(op, FunctionLike)]


def no_entry_message(module: ModuleOp) -> str:
    """Why a module without an entry has no default step (spec §1): what `entry_function()`, a
    bare call and `tilefoundry.lower` answer, naming its functions and how one is selected."""
    names = ", ".join(f"'{n}'" for n in function_names(module)) or "none"
    return (
        f"module '{module.own_name}' has no entry, so no default step; its functions are "
        f"{names}: select one with lookup('<name>')"
    )


def lookup_symbol(op: Operation, ref: SymbolRefAttr) -> Operation | None:
    """What `ref` names where `op` uses it, as `SymbolTable.lookup_symbol` resolves it (in the
    nearest enclosing symbol table, nested references through child modules): in constant time
    per name inside a verification or pass (`ir/symbols.py`), else by a walk."""
    tables = current_symbol_tables()
    if tables is not None:
        return tables.lookup(op, ref)
    table = op.parent_op()
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op()
    if not isinstance(table, ModuleOp):
        return SymbolTable.lookup_symbol(op, ref)
    found = table.member(ref.root_reference.data)
    for nested in ref.nested_references:
        if not isinstance(found, ModuleOp):
            return None
        found = found.member(nested.data)
    return found


RECORDED_OWNER: Slot[ModuleOp] = Slot("owner")
"""On a detached copy of an owned module: the module that owns its original (what
`Module.owner` answers). Only a Python answer: what the copy resolves is in its IR, the
`owner_context` property, which the text keeps."""


def parent_module(module: ModuleOp) -> ModuleOp | None:
    """The module that holds this one in the IR (None for a root)."""
    parent = module.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    return parent


def owner_of(module: ModuleOp) -> ModuleOp | None:
    """The module that owns this one: its parent, or for a detached copy of an owned module,
    its original's owner (None when that owner is not known, as after text)."""
    return parent_module(module) or RECORDED_OWNER.get(module)


Resolution = tuple[Target | None, tuple[Topology, ...] | None]


def _resolution(module: ModuleOp) -> Resolution:
    """What the owner chain of `module` resolves: the nearest declared target and the nearest
    topology declaration (innermost first; last, for a root with an owner context, what its
    owner outside the IR provides). Inside a verification (`CACHES.unchanging`) each module's
    answer is remembered, so the modules of a tree are resolved in one pass down it."""
    memo = CACHES.scope()
    chain: list[ModuleOp] = []
    node = module
    target: Target | None = None
    levels: tuple[Topology, ...] | None = None
    while True:
        known = None if memo is None else memo.get(node)
        if known is not None:
            target, levels = cast(Resolution, known)
            break
        chain.append(node)
        parent = parent_module(node)
        if parent is None:
            if node.owner_context is not None:
                target = node.owner_context.resolved_target
                levels = node.owner_context.resolved_topologies
            break
        node = parent
    for node in reversed(chain):
        declared = node.declared_target
        target = declared if declared is not None else target
        own = node.declared_topologies
        levels = own if own is not None else levels
        if memo is not None:
            memo[node] = (target, levels)
    return target, levels


def resolve_target(module: ModuleOp, *, required: bool = True) -> Target | None:
    """The declared target of the module or of its nearest owner that declares one."""
    found = _resolution(module)[0]
    if found is None and required:
        raise VerifyError(
            f"module '{module.own_name}' has no target: neither it nor any owner declares one; "
            'declare it on the root module, e.g. Module(..., target="h100")'
        )
    return found


def declared_in_chain(module: ModuleOp) -> tuple[Topology, ...] | None:
    """The nearest topology declaration over the owner chain; None when no module declares one
    (the hierarchy is then unknown until the module is placed under an owner)."""
    return _resolution(module)[1]


def effective_topologies(module: ModuleOp) -> tuple[Topology, ...]:
    """The hierarchy in effect: the nearest declaration over the owner chain (none: `()`)."""
    return declared_in_chain(module) or ()


def inherited_context(module: ModuleOp) -> OwnerContextAttr | None:
    """What the owner of `module` provides it — the target and hierarchy it resolves above its
    own declarations — as the context a detached copy of it carries (None: nothing)."""
    parent = parent_module(module)
    if parent is None:
        return module.owner_context
    target, levels = resolve_target(parent, required=False), declared_in_chain(parent)
    if target is None and levels is None:
        return None
    return OwnerContextAttr.of(target, levels)
