"""The layering (docs/architecture.md), read from the source by AST: a folder is a layer.

Each top-level folder of `tilefoundry` is one layer, in the order `LAYERS` declares (lowest
first); the package root holds only the public surface (`__init__.py`, a layer above the folders
whose names it exposes, and `py.typed`). Nothing imports a module of a higher layer, and no
modules import each other in a cycle, function-local imports included (an import under
`if TYPE_CHECKING:` never runs: it counts for the layers, not for the cycles). An
`importlib.import_module` of a literal name (or of an f-string's literal package) is an import
like any other: there is no way around the layers.

`tilefoundry_client` is a package of its own (the commands import nothing of `tilefoundry` until
they run a tool in-process): its modules, the words the client and the server share, sit below
every layer, and its `__init__`, the commands, above them all."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PACKAGE = "tilefoundry"
CLIENT = "tilefoundry_client"
CLIENT_MODULES = "tilefoundry_client.*"

LAYERS: tuple[tuple[str, str], ...] = (
    (CLIENT_MODULES, "the words the client and the server share, streams closed at start"),
    ("tilefoundry.support", "arguments, diagnostics, caches, attribute <-> Python values"),
    ("tilefoundry.xdsl_adapter", "the private xDSL uses"),
    ("tilefoundry.builtin", "TensorType, #tf.target, metadata: what types the IR core"),
    ("tilefoundry.ir", "the op-independent core: algebra, text, verification, traits"),
    ("tilefoundry.dialects", "the tf, hir and tir dialects"),
    ("tilefoundry.mlir_builder", "writing upstream MLIR text"),
    ("tilefoundry.ops", "the op library"),
    ("tilefoundry.interpreter", "numpy reference semantics"),
    ("tilefoundry.transforms", "the pass manager, the passes, HIR -> TIR lowering"),
    ("tilefoundry.codegen", "TIR to upstream MLIR"),
    ("tilefoundry.backends", "upstream MLIR to a loaded artifact"),
    ("tilefoundry.context", "the xDSL context, a root's text, xdsl-opt's universe"),
    ("tilefoundry.tools", "tf-opt, tf-run, tf-tree, the server, the generators"),
    ("tilefoundry.api", "the Python surface"),
    ("tilefoundry.dsl", "@tf.func, class-body modules"),
    ("tilefoundry.frontends", "from_torch"),
    (PACKAGE, "the package's __init__: the public names, and the wiring of the layers"),
    ("tilefoundry.testing", "translation validation, over the public names"),
    (CLIENT, "the client's __init__: the commands"),
)
"""Lowest first: each top-level folder of `tilefoundry` once, and the two packages' roots."""

INDEX = {name: index for index, (name, _) in enumerate(LAYERS)}


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
            elif isinstance(child, ast.Call) and (name := _imported_by_name(child)):
                while name and name not in modules:
                    name = name.rpartition(".")[0]
                if name:
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


def _imported_by_name(call: ast.Call) -> str:
    """The module an `importlib.import_module(...)` (or `__import__`) call names: a literal, or
    the literal package an f-string begins with; "" for any other call."""
    if ast.unparse(call.func) not in ("importlib.import_module", "import_module", "__import__"):
        return ""
    if not call.args:
        return ""
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, ast.JoinedStr) and first.values:
        head = first.values[0]
        if isinstance(head, ast.Constant) and isinstance(head.value, str):
            return head.value.rpartition(".")[0]
    return ""


def layer_of(module: str) -> int | None:
    """A module's layer: its top-level folder's (`tilefoundry.<folder>...`), or a root's."""
    parts = module.split(".")
    if parts[0] == CLIENT:
        return INDEX[CLIENT] if len(parts) == 1 else INDEX[CLIENT_MODULES]
    if parts[0] != PACKAGE:
        return None
    return INDEX.get(PACKAGE if len(parts) == 1 else f"{PACKAGE}.{parts[1]}")


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


def test_every_folder_is_one_declared_layer() -> None:
    folders = {
        f"{PACKAGE}.{path.name}"
        for path in (ROOT / PACKAGE).iterdir()
        if path.is_dir() and any(path.rglob("*.py"))
    }
    declared = {name for name, _ in LAYERS if name.startswith(PACKAGE + ".")}
    assert sorted(folders ^ declared) == []


def test_the_package_root_holds_only_the_public_surface() -> None:
    loose = {path.name for path in (ROOT / PACKAGE).iterdir() if path.is_file()}
    assert sorted(loose - {"__init__.py", "py.typed"}) == []


def test_passes_and_tools_never_import_the_python_surface() -> None:
    _, imports = all_imports(ROOT, PACKAGES)
    below = ("tilefoundry.transforms", "tilefoundry.tools", "tilefoundry.dialects")
    assert [
        f"{i.source}:{i.line} -> {i.target}"
        for i in imports
        if i.source.startswith(below) and i.target.startswith("tilefoundry.api")
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
    (package / "ir" / "d.py").write_text(
        "import importlib\n\ndef g():\n    return importlib.import_module('tilefoundry.tools.c')\n"
    )
    (package / "ir" / "b.py").write_text("def g():\n    from tilefoundry.ir import a\n")
    (package / "tools" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tilefoundry.ir.b import x\n"
    )
    _, imports = all_imports(tmp_path, ("tilefoundry",))
    assert cycles(imports) == [["tilefoundry.ir.a", "tilefoundry.ir.b"]]
    assert upward_imports(imports) == [
        "tilefoundry.ir.a:4 (tilefoundry.ir) imports tilefoundry.tools.c (tilefoundry.tools)",
        "tilefoundry.ir.d:4 (tilefoundry.ir) imports tilefoundry.tools.c (tilefoundry.tools)",
    ]
