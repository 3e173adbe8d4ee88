"""Selecting a node of a `tf.module` tree by path, on the IR: what `tilefoundry.select`, the
`tf-select` and `tf-verify-published` passes and `tf-run --function` all resolve.

```python
select(root, "")               # root itself
select(root, "layer0")         # the child attached as layer0 (resolving through its owners)
select(root, "layer0.mlp")     # layer0 re-entried at its function mlp: an independent root that
                               # declares the target and topology hierarchy layer0 resolves
select(root, "@layer0::@mlp")  # the same path, as a symbol reference
select(root, "@a.b")           # the function named a.b of the root (not a.b: child a, function b)
function_selectors(root)       # [("step", <hir.func @step>), ("layer0.mlp", <hir.func @mlp>), ...]
check_published(root)          # refused unless root declares its target and topology levels
```

Each takes and answers `ModuleOp`s (the Python surface, `tilefoundry.api.selection`, wraps them in
`Module` views). A path has two spellings. Dotted, `layer0.mlp`: the names between the dots, none
of them empty (a function's name cannot hold a dot there; a child's can, below). A symbol
reference, as MLIR writes one, `@layer0::@mlp`: it names every node, quoting a name that is not
an identifier (`@"c d"::@g`); a bare symbol name may hold dots, so `@a.b` (or `@"a.b"`) is the
one name `a.b`. A path that starts with `@` is a symbol reference. A dotted path reaches a child
whose name holds dots (a layer list's `layers.0`, torch's `ModuleList` naming) by its segments,
`layers.0.attn`, unless another child answers a prefix of them too (a child `layers` with a
child `0`): that path is refused as ambiguous. `function_selectors` gives the dotted spelling
when it names the function (no name on the path is empty or holds a dot, the first does not
start with `@`), else the symbol reference: so two functions never share a path (`@"a.b"` and
`a.b`).

A selected function's module must verify as a root: a `tf.mesh` over a level that its owners do
not declare (a tree that declares a target and no topologies) is refused, as `tf-select` refuses
it, never answered with a module that fails its own verifier.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tilefoundry.builtin.target import TargetAttr, TopologyAttr, check_levels
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import (
    RECORDED_OWNER,
    ModuleOp,
    effective_topologies,
    inherited_context,
    owner_of,
    resolve_target,
)
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir
from tilefoundry.support.arguments import refuse_type, shown
from tilefoundry.support.diagnostics import VerifyError

__all__ = [
    "Copier",
    "check_published",
    "child_at",
    "detached_copy",
    "function_selectors",
    "path_names",
    "path_of",
    "published",
    "select",
]

Copier = Callable[[ModuleOp], ModuleOp]
"""How a selection copies a module it re-roots (the surface's copy keeps its Python state too)."""


def detached_copy(module: ModuleOp) -> ModuleOp:
    """An independent copy of `module` (bodies, children and the calls between them copied)
    that records, in its IR, what its original's owner provides, so that it resolves the same
    target and topologies, and, for Python, which module that owner is."""
    copy = module.clone()
    copy.owner_context = inherited_context(module)
    RECORDED_OWNER.set(copy, owner_of(module))
    return copy


def path_names(path: str) -> list[str]:
    """The names a path spells, dotted (`layer0.mlp`) or as a symbol reference
    (`@layer0::@mlp`, `@"a.b"`); ValueError when it spells none. The empty path is `[]`."""
    if not isinstance(path, str):
        raise TypeError(f"a path is a dotted str, got {shown(path)}")
    if path == "":
        return []
    if not path.startswith("@"):
        segments = path.split(".")
        if "" in segments:
            raise ValueError(
                f"path '{path}' has an empty segment; dropping it would make two paths name one "
                "node"
            )
        return segments
    parser = TFParser(Context(), path, "path")  # a symbol reference is builtin syntax
    try:
        ref = parser.parse_attribute()
    except (ParseError, DiagnosticException):
        ref = None
    if not isinstance(ref, SymbolRefAttr) or parser.pos < len(path):  # nothing may follow
        raise ValueError(
            f"path '{path}' starts with '@' but is not a symbol reference (@layer0::@mlp, @\"a.b\")"
        )
    return [ref.root_reference.data, *(r.data for r in ref.nested_references)]


def path_of(names: list[str]) -> str:
    """The spelling of a path: dotted when that names it, else a symbol reference."""
    if not names:
        return ""
    if all(name and "." not in name for name in names) and not names[0].startswith("@"):
        return ".".join(names)
    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(SymbolRefAttr(names[0], names[1:]))
    return stream.getvalue()


def _children(module: ModuleOp) -> list[ModuleOp]:
    return [op for op in module.body.block.ops if isinstance(op, ModuleOp)]


def _functions(module: ModuleOp) -> list[FunctionLike]:
    return [op for op in module.body.block.ops if isinstance(op, FunctionLike)]


def select(module: ModuleOp, path: str, *, copy: Copier = detached_copy) -> ModuleOp:
    """The module a path names relative to `module` (see the module docstring): a module of
    the tree itself, or a re-entried copy made by `copy` when the path ends at a function."""
    if not isinstance(module, ModuleOp):
        refuse_type("select module", "a tf.module", module)
    segments = path_names(path)
    dotted = not path.startswith("@")
    node = module
    index = 0
    while index < len(segments):
        segment = segments[index]
        found = child_at(node, segments, index, dotted, path)
        if found is not None:
            node, index = found[0], index + found[1]
            continue
        if index == len(segments) - 1 and isinstance(node.member(segment), FunctionLike):
            return _as_root(node, segment, path, copy)
        reached = path_of(segments[:index]) or "<root>"
        children_names = ", ".join(m.sym_name.data for m in _children(node)) or "none"
        function_names = ", ".join(f.function_name() for f in _functions(node)) or "none"
        raise KeyError(
            f"path '{path}': '{segment}' names no child module of {reached} (children: "
            f"{children_names}){'' if index < len(segments) - 1 else f', nor a function (functions: {function_names})'}"
        )
    return node


def child_at(
    node: ModuleOp, segments: list[str], index: int, dotted: bool, path: str
) -> tuple[ModuleOp, int] | None:
    """The child of `node` that the path names from `segments[index]` on, and how many
    segments its name takes. A symbol reference names each node by one name; in a dotted path
    a child whose name holds dots (`layers.0`, a layer list's item) is named by as many
    segments, and a path two children could answer (`layers.0` and `layers` → `0`) is refused."""
    children = {m.sym_name.data: m for m in reversed(_children(node))}
    if not dotted:
        child = children.get(segments[index])
        return None if child is None else (child, 1)
    matches = [
        (children[name], taken)
        for taken in range(1, len(segments) - index + 1)
        if (name := ".".join(segments[index : index + taken])) in children
    ]
    if len(matches) > 1:
        names = " and ".join(f"'{child.sym_name.data}'" for child, _ in matches)
        raise KeyError(
            f"path '{path}' is ambiguous: children {names} of module '{node.own_name}' both "
            f"answer it; write it as a symbol reference (the one child: "
            f"{path_of([matches[-1][0].sym_name.data])})"
        )
    return matches[0] if matches else None


def _as_root(module: ModuleOp, entry: str | None, path: str, copy: Copier) -> ModuleOp:
    """A published copy of `module` that declares the target and topologies it resolves (and
    `entry`, when given); refused when that copy does not verify as a root."""
    target = resolve_target(module)
    assert target is not None
    levels = effective_topologies(module)
    op = copy(module)
    op.owner_context = None  # it declares what it resolved instead
    RECORDED_OWNER.set(op, None)
    if entry is not None:
        op.entry = SymbolRefAttr(entry)
    op.target = TargetAttr(StringAttr(target.name))
    op.topologies = ArrayAttr(TopologyAttr.of(level) for level in levels)
    try:
        verify_ir(op)
    except OpVerifyError as err:
        undeclared = all(m.declared_topologies is None for m in _owner_chain(module))
        hint = (
            " (no module of its owner chain declares topologies: declare them, e.g. on the root)"
            if undeclared
            else ""
        )
        raise VerifyError(
            f"path '{path}': as a root, module '{module.sym_name.data}' does not verify: "
            f"{err}{hint}"
        ) from None
    return check_published(op)


def _owner_chain(module: ModuleOp) -> list[ModuleOp]:
    chain: list[ModuleOp] = []
    node: ModuleOp | None = module
    while node is not None:
        chain.append(node)
        node = owner_of(node)
    return chain


def check_published(module: ModuleOp) -> ModuleOp:
    """Check that `module` is an independently analysable root (spec §1): it declares its
    target and its topology levels, and its device can have those levels. Returns it."""
    if module.target is None:
        raise VerifyError(
            f"module '{module.own_name}' is published as a root but declares no target "
            '(naming the device is enough, e.g. target="h100")'
        )
    if module.topologies is None:
        raise VerifyError(
            f"module '{module.own_name}' is published as a root but declares no topology levels "
            "(topologies=() declares that it has none)"
        )
    target = resolve_target(module)
    assert target is not None
    check_levels(target, effective_topologies(module))
    return module


def published(module: ModuleOp, path: str, *, copy: Copier = detached_copy) -> ModuleOp:
    """What `select(module, path)` answers, as an independently analysable root: itself when it
    is already a root that declares its target and topologies, else a copy that declares what
    it resolves (what `tf-select` outputs)."""
    node = select(module, path, copy=copy)
    if owner_of(node) is None and node.target is not None and node.topologies is not None:
        return check_published(node)
    return _as_root(node, None, path, copy)


def function_selectors(module: ModuleOp) -> list[tuple[str, FuncOp]]:
    """Every HIR function of the tree with the path `select` resolves for it, in source order,
    parents before children (a `tir.prim_func` implements a function; it is not one of these)."""
    if not isinstance(module, ModuleOp):
        refuse_type("function_selectors module", "a tf.module", module)
    found: list[tuple[str, FuncOp]] = []

    def visit(node: ModuleOp, prefix: list[str]) -> None:
        for op in node.body.block.ops:
            if isinstance(op, FuncOp):
                found.append((path_of([*prefix, op.sym_name.data]), op))
        for child in _children(node):
            visit(child, [*prefix, child.sym_name.data])

    visit(module, [])
    return found
