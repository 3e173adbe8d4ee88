"""Find every use of a private xDSL member in Python source, by AST.

A *private xDSL member* is a name ``_x`` (one leading underscore, not a dunder)
that xDSL defines, used from TileFoundry code. Counted uses:

- ``from xdsl.m import _x`` and imports of a private xDSL module;
- ``obj._x`` (or ``getattr(obj, "_x")``) on anything but ``self``/``cls``, when
  xDSL defines ``_x`` and TileFoundry does not define it in a class of its own
  (a class that does not derive from xDSL) or at module level;
- in a class deriving from an xDSL class: ``def _x``, ``self._x``, ``cls._x``
  and ``super()._x`` when a class of xDSL in its MRO defines ``_x``.

Classes are resolved by importing the module (or, for a snippet, by running
it), so the MRO is xDSL's own.  Run ``python -m tilefoundry.xdsl_adapter.audit``
to list the uses in ``tilefoundry/``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xdsl

XDSL_ROOT = Path(xdsl.__file__).parent
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
ADAPTER_ROOT = Path(__file__).resolve().parent


@dataclass(frozen=True)
class PrivateUse:
    """One use of a private xDSL member."""

    path: str
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.how} {self.name}"


def is_private(name: str) -> bool:
    """A single-underscore name (not a dunder, not ``_`` alone)."""
    return name.startswith("_") and name != "_" and not name.endswith("__")


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {n for n in names if is_private(n)}


@functools.cache
def xdsl_private_names() -> frozenset[str]:
    """Every private name xDSL's source defines (functions, classes, attributes)."""
    names: set[str] = set()
    for path in XDSL_ROOT.rglob("*.py"):
        names |= _defined_names(ast.parse(path.read_text(), str(path)))
    return frozenset(names)


@functools.cache
def _class_private_names(cls: type) -> frozenset[str]:
    names = {n for n in vars(cls) if is_private(n)}
    names |= {n for n in getattr(cls, "__annotations__", {}) if is_private(n)}
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return frozenset(names)
    return frozenset(names | _defined_names(ast.parse(source)))


def _is_xdsl(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "xdsl"


def xdsl_base_defines(cls: type, name: str) -> bool:
    """Whether a class of xDSL in ``cls``'s MRO defines ``name``."""
    return any(_is_xdsl(k) and name in _class_private_names(k) for k in cls.__mro__)


def _derives_from_xdsl(cls: type) -> bool:
    return any(_is_xdsl(k) for k in cls.__mro__[1:])


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str, namespace: Mapping[str, Any], own: frozenset[str]) -> None:
        self.path = path
        self.namespace = namespace
        self.own = own
        self.classes: list[type | None] = []
        self.uses: list[PrivateUse] = []

    def _add(self, node: ast.AST, name: str, how: str) -> None:
        self.uses.append(PrivateUse(self.path, getattr(node, "lineno", 0), name, how))

    def _resolve(self, node: ast.ClassDef) -> type | None:
        found = self.namespace.get(node.name)
        if isinstance(found, type) and found.__qualname__.split(".")[-1] == node.name:
            return found
        bases: list[type] = []
        for base in node.bases:
            try:
                value = eval(ast.unparse(base), dict(self.namespace))  # noqa: S307 - own source
            except Exception:
                continue
            if isinstance(value, type):
                bases.append(value)
        return type(node.name, tuple(bases), {}) if bases else None

    def _xdsl_class(self) -> type | None:
        cls = self.classes[-1] if self.classes else None
        return cls if cls is not None and _derives_from_xdsl(cls) else None

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(self._resolve(node))
        cls = self._xdsl_class()
        for stmt in node.body:
            if cls is None:
                break
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            if isinstance(stmt, ast.AnnAssign):
                targets = [stmt.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else ""
                if is_private(name) and xdsl_base_defines(cls, name):
                    self._add(stmt, name, "overrides")
        self.generic_visit(node)
        self.classes.pop()

    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        cls = self._xdsl_class()
        if cls is not None and is_private(node.name) and xdsl_base_defines(cls, node.name):
            self._add(node, node.name, "overrides")
        self.generic_visit(node)

    visit_FunctionDef = _visit_def
    visit_AsyncFunctionDef = _visit_def

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] == "xdsl":
            if any(is_private(part) for part in module.split(".")):
                self._add(node, module, "imports private module")
            for alias in node.names:
                if is_private(alias.name):
                    self._add(node, alias.name, "imports")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "xdsl" and any(is_private(p) for p in parts):
                self._add(node, alias.name, "imports private module")

    def _on_self(self, value: ast.expr) -> bool:
        if isinstance(value, ast.Name):
            return value.id in ("self", "cls")
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
        )

    def _check(self, node: ast.AST, value: ast.expr, name: str) -> None:
        if not is_private(name):
            return
        if self._on_self(value):
            cls = self._xdsl_class()
            if cls is not None and xdsl_base_defines(cls, name):
                self._add(node, name, "uses inherited")
        elif name in xdsl_private_names() and name not in self.own:
            self._add(node, name, "accesses")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            self._check(node, node.args[0], node.args[1].value)
        self.generic_visit(node)


def own_private_names(trees: list[tuple[ast.AST, Mapping[str, Any]]]) -> frozenset[str]:
    """Private names the project defines itself: at module level or in its own classes."""
    names: set[str] = set()
    for tree, namespace in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                cls = namespace.get(node.name)
                if isinstance(cls, type) and not _derives_from_xdsl(cls):
                    names |= _defined_names(node)
        for stmt in getattr(tree, "body", []):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if is_private(stmt.name):
                    names.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                names |= _defined_names(stmt)
    return frozenset(names)


def find_in_source(
    source: str,
    namespace: Mapping[str, Any],
    path: str = "<snippet>",
    own: frozenset[str] = frozenset(),
) -> list[PrivateUse]:
    """Private xDSL uses in ``source``, whose classes resolve in ``namespace``."""
    finder = _Finder(path, namespace, own)
    finder.visit(ast.parse(source, path))
    return finder.uses


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE_ROOT.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_files(root: Path = PACKAGE_ROOT) -> Iterator[Path]:
    """The Python files of the package, in a stable order."""
    yield from sorted(root.rglob("*.py"))


def find_in_package(root: Path = PACKAGE_ROOT) -> list[PrivateUse]:
    """Private xDSL uses in every module of ``tilefoundry/``."""
    modules: list[tuple[Path, str, ast.AST, Mapping[str, Any]]] = []
    for path in package_files(root):
        source = path.read_text()
        namespace: Mapping[str, Any] = vars(importlib.import_module(_module_name(path)))
        modules.append((path, source, ast.parse(source, str(path)), namespace))
    own = own_private_names([(tree, ns) for _, _, tree, ns in modules])
    uses: list[PrivateUse] = []
    for path, source, _, namespace in modules:
        rel = str(path.relative_to(root.parent))
        uses += find_in_source(source, namespace, rel, own)
    return uses


def is_in_adapter(use: PrivateUse) -> bool:
    """Whether the use sits inside the adapter package."""
    return use.path.startswith(str(ADAPTER_ROOT.relative_to(PACKAGE_ROOT.parent)) + "/")


def main() -> None:
    """List the private xDSL uses of ``tilefoundry/``, outside the adapter first."""
    uses = find_in_package()
    outside = [u for u in uses if not is_in_adapter(u)]
    for use in outside + [u for u in uses if is_in_adapter(u)]:
        print(use)
    print(f"{len(uses) - len(outside)} in the adapter, {len(outside)} outside it")


if __name__ == "__main__":
    main()
