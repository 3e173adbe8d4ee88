"""The layering (docs/architecture.md), read from the source by AST: every module of
`tilefoundry` and `tilefoundry_client` has a declared layer, nothing imports a module of a higher
layer, and no modules import each other in a cycle, function-local imports included (an import
under `if TYPE_CHECKING:` never runs: it counts for the layers, not for the cycles)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "support",
        (
            "tilefoundry.support.arguments",
            "tilefoundry.support.diagnostics",
            "tilefoundry.xdsl_adapter",
            "tilefoundry.support.caches",
            "tilefoundry.support.values",
            "tilefoundry.support.irdl_syntax",
            "tilefoundry_client.protocol",  # the server's and the client's shared words
            "tilefoundry_client.streams",  # standard streams closed at start: commands and mains
        ),
    ),
    (
        "tf types and attributes",
        (
            "tilefoundry.builtin.types",
            "tilefoundry.builtin.target",
            "tilefoundry.builtin.metadata",
        ),
    ),
    ("ir", ("tilefoundry.ir",)),
    ("dialects", ("tilefoundry.dialects",)),
    ("codegen builder", ("tilefoundry.mlir_builder",)),
    ("ops", ("tilefoundry.ops",)),
    ("interpreter", ("tilefoundry.interpreter",)),
    ("transforms", ("tilefoundry.transforms", "tilefoundry.transforms.lowering")),
    ("codegen", ("tilefoundry.codegen",)),
    ("backends", ("tilefoundry.backends",)),
    (
        "context",
        (
            "tilefoundry.context.context",
            "tilefoundry.context.module_text",
            "tilefoundry.context.universe",
        ),
    ),
    ("tools", ("tilefoundry.tools",)),
    (
        "surface",
        (
            "tilefoundry.api.module",
            "tilefoundry.api.hir",
            "tilefoundry.api.tir",
            "tilefoundry.api.text",
            "tilefoundry.api.selection",
            "tilefoundry.api.runtime",
            "tilefoundry.api.pipeline",
            "tilefoundry.api.analysis",
            "tilefoundry.api.compiled",
            "tilefoundry.api.compiler",
        ),
    ),
    ("dsl and frontends", ("tilefoundry.dsl", "tilefoundry.frontends")),
    ("package", ("tilefoundry",)),  # the package's __init__ only: the public names
    ("testing", ("tilefoundry.testing",)),
    ("client", ("tilefoundry_client",)),
)
"""Lowest first. A module's layer is that of the longest prefix naming it; `tilefoundry` itself
names only the package's `__init__`."""


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    runs: bool  # False under `if TYPE_CHECKING:`


def modules_of(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import of a module of `modules` that `module` makes, at any depth: `from a.b import
    c` imports `a.b.c` when that is a module, else `a.b`. The parent packages a module's import
    runs implicitly are not counted, but a package named outright is (`from tilefoundry import
    parse_module` imports the package's `__init__`)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[Import] = []

    def add(target: str, line: int, runs: bool) -> None:
        if target != module:
            found.append(Import(module, target, line, runs))

    def visit(node: ast.AST, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    name = alias.name
                    while name and name not in modules:
                        name = name.rpartition(".")[0]
                    if name and not module.startswith(name + "."):
                        add(name, child.lineno, runs)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - (child.level - 1)]
                    origin = ".".join(base + ([child.module] if child.module else []))
                else:
                    origin = child.module or ""
                for alias in child.names:
                    if f"{origin}.{alias.name}" in modules:
                        add(f"{origin}.{alias.name}", child.lineno, runs)
                    elif origin in modules:
                        add(origin, child.lineno, runs)
            checking = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            visit(child, runs and not checking)

    visit(ast.parse(path.read_text(), str(path)), True)
    return found


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact_only = prefix == "tilefoundry"
            if module == prefix or (not exact_only and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), index)
    return None if best is None else best[1]


def upward_imports(imports: list[Import]) -> list[str]:
    found = []
    for item in imports:
        source, target = layer_of(item.source), layer_of(item.target)
        if source is not None and target is not None and target > source:
            found.append(
                f"{item.source}:{item.line} ({LAYERS[source][0]}) imports {item.target} "
                f"({LAYERS[target][0]})"
            )
    return found


def cycles(imports: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), over the imports
    that run."""
    graph: dict[str, set[str]] = {}
    for item in imports:
        if item.runs:
            graph.setdefault(item.source, set()).add(item.target)
            graph.setdefault(item.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def all_imports(root: Path, packages: tuple[str, ...]) -> tuple[dict[str, Path], list[Import]]:
    modules = modules_of(root, packages)
    return modules, [i for m, p in modules.items() for i in imports_of(m, p, modules)]


PACKAGES = ("tilefoundry", "tilefoundry_client")


def test_every_module_has_a_layer() -> None:
    modules, _ = all_imports(ROOT, PACKAGES)
    assert [m for m in modules if layer_of(m) is None] == []


def test_nothing_imports_upward() -> None:
    _, imports = all_imports(ROOT, PACKAGES)
    assert upward_imports(imports) == []


def test_no_import_cycles_not_even_through_a_function() -> None:
    _, imports = all_imports(ROOT, PACKAGES)
    assert cycles(imports) == []


def test_passes_and_tools_never_import_the_python_surface() -> None:
    surface = dict(LAYERS)["surface"]
    _, imports = all_imports(ROOT, PACKAGES)
    below = ("tilefoundry.transforms", "tilefoundry.tools", "tilefoundry.dialects")
    assert [
        f"{i.source}:{i.line} -> {i.target}"
        for i in imports
        if i.source.startswith(below) and i.target in surface
    ] == []


def test_the_checks_find_a_hidden_cycle_and_an_upward_import(tmp_path: Path) -> None:
    package = tmp_path / "tilefoundry"
    (package / "ir").mkdir(parents=True)
    (package / "tools").mkdir()
    for init in ("__init__.py", "ir/__init__.py", "tools/__init__.py"):
        (package / init).write_text("")
    (package / "ir" / "a.py").write_text(
        "from tilefoundry.ir.b import x\n\ndef f():\n    from tilefoundry.tools.c import y\n"
    )
    (package / "ir" / "b.py").write_text("def g():\n    from tilefoundry.ir import a\n")
    (package / "tools" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tilefoundry.ir.b import x\n"
    )
    _, imports = all_imports(tmp_path, ("tilefoundry",))
    assert cycles(imports) == [["tilefoundry.ir.a", "tilefoundry.ir.b"]]
    assert upward_imports(imports) == [
        "tilefoundry.ir.a:4 (ir) imports tilefoundry.tools.c (tools)"
    ]
