"""Selecting a node of a module tree by path: `select` and `function_selectors`.

```python
select(root, "")               # root itself
select(root, "layer0")         # the child attached as layer0 (resolving through its owners)
select(root, "layer0.mlp")     # layer0 re-entried at its function mlp: an independent root that
                               # declares the target and topology hierarchy layer0 resolves
select(root, "@layer0::@mlp")  # the same path, as a symbol reference
select(root, "@a.b")           # the function named a.b of the root (not a.b: child a, function b)
function_selectors(root)       # [("step", <Function step>), ("layer0.mlp", <Function mlp>), ...]
```

A path has two spellings. Dotted, `layer0.mlp`: the names between the dots, none of them
empty; a name cannot hold a dot there. A symbol reference, as MLIR writes one, `@layer0::@mlp`:
it names every node, quoting a name that is not an identifier (`@"c d"::@g`); a bare symbol
name may hold dots, so `@a.b` (or `@"a.b"`) is the one name `a.b`. A path that starts with `@`
is a symbol reference. `function_selectors` gives the dotted spelling when
it names the function (no name on the path is empty or holds a dot, the first does not start
with `@`), else the symbol reference: so two functions never share a path (`@"a.b"` and `a.b`),
and each path is the one `select`, `tf-select{path=...}` and `tf-run --function` resolve.

A selected function's module must verify as a root: a `tf.mesh` over a level that its owners do
not declare (a tree that declares a target and no topologies) is refused, as `tf-select` refuses
it, never answered with a module that fails its own `verify()`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr

from tilefoundry.arguments import refuse_type, shown
from tilefoundry.diagnostics import VerifyError
from tilefoundry.dialects.tf_module import RECORDED_OWNER
from tilefoundry.hir import Function
from tilefoundry.ir.verifier import OpVerifyError, verify_ir
from tilefoundry.module import Module
from tilefoundry.target import TargetAttr, TopologyAttr

__all__ = ["function_selectors", "path_names", "path_of", "published", "select"]


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
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tilefoundry.context import make_context
    from tilefoundry.ir.asm import TFParser

    parser = TFParser(make_context(), path, "path")
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
    from io import StringIO

    from tilefoundry.ir.asm import TFPrinter

    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(SymbolRefAttr(names[0], names[1:]))
    return stream.getvalue()


def select(module: Module, path: str) -> Module:
    """The module a path names relative to `module` (see the module docstring)."""
    if not isinstance(module, Module):
        refuse_type("select module", "a Module", module)
    segments = path_names(path)
    if not segments:
        return module
    node = module
    for index, segment in enumerate(segments):
        children = [m for m in node.modules if m.attached_name == segment]
        if children:
            node = children[0]
            continue
        if index == len(segments) - 1 and node.function_named(segment):
            return _reentered(node, segment, path)
        reached = path_of(segments[:index]) or "<root>"
        children_names = ", ".join(m.attached_name for m in node.modules) or "none"
        function_names = ", ".join(f.name for f in node.functions) or "none"
        raise KeyError(
            f"path '{path}': '{segment}' names no child module of {reached} (children: "
            f"{children_names}){'' if index < len(segments) - 1 else f', nor a function (functions: {function_names})'}"
        )
    return node


def _reentered(module: Module, function: str, path: str) -> Module:
    """A copy of `module` that is a root: entry `function`, and the target and topologies it
    resolves declared on it."""
    return _as_root(module, function, path)


def _as_root(module: Module, entry: str | None, path: str) -> Module:
    """A published copy of `module` that declares the target and topologies it resolves (and
    `entry`, when given); refused when that copy does not verify as a root."""
    target = module.resolve_target()
    levels = module.effective_topologies()
    root = module.cloned()
    op = root.module_op
    op.owner_context = None  # it declares what it resolved instead
    RECORDED_OWNER.set(op, None)
    if entry is not None:
        op.entry = SymbolRefAttr(entry)
    op.target = TargetAttr(StringAttr(target.name))
    op.topologies = ArrayAttr(TopologyAttr.of(level) for level in levels)
    try:
        verify_ir(op)
    except OpVerifyError as err:
        undeclared = all(m.topologies is None for m in _owner_chain(module))
        hint = (
            " (no module of its owner chain declares topologies: declare them, e.g. on the root)"
            if undeclared
            else ""
        )
        raise VerifyError(
            f"path '{path}': as a root, module '{module.attached_name}' does not verify: "
            f"{err}{hint}"
        ) from None
    return root.publish()


def _owner_chain(module: Module) -> list[Module]:
    chain: list[Module] = []
    node: Module | None = module
    while node is not None:
        chain.append(node)
        node = node.owner
    return chain


def published(module: Module, path: str) -> Module:
    """What `select(module, path)` answers, as an independently analysable root: itself when it
    is already a root that declares its target and topologies, else a copy that declares what
    it resolves (what `tf-select` outputs)."""
    node = select(module, path)
    if node.owner is None and node.target is not None and node.topologies is not None:
        return node.publish()
    return _as_root(node, None, path)


def function_selectors(module: Module) -> list[tuple[str, Function]]:
    """Every HIR function of the tree with the path `select` resolves for it, in source order,
    parents before children (a PrimFunction implements a function; it is not one of these)."""
    if not isinstance(module, Module):
        refuse_type("function_selectors module", "a Module", module)
    found: list[tuple[str, Function]] = []

    def visit(node: Module, prefix: list[str]) -> None:
        for function in node.functions:
            if isinstance(function, Function):
                found.append((path_of([*prefix, function.name]), function))
        for child in node.modules:
            visit(child, [*prefix, child.attached_name])

    visit(module, [])
    return found
