"""Reading a decorated Python function: its syntax tree, where each node is in the file, and
the Python scope its names resolve in.

Positions are 1-based lines and columns of the file (Python's `ast` counts columns from 0; the
DSL adds 1, as MLIR and `SyntaxError` show them). A span's end column is the column of its last
character (inclusive), so a one-character name spans `col` to `col`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import textwrap
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from tilefoundry.dialects.tf.metadata import SourceSpanMetadata
from tilefoundry.dsl.errors import DSLError

__all__ = ["MISSING", "PythonScope", "Source", "read_source"]

MISSING: Any = object()
"""What a scope lookup gives for a name it does not hold."""


@dataclass
class Source:
    """A function's syntax tree and the offsets that place its nodes in `file`."""

    file: str
    tree: ast.FunctionDef
    line_offset: int
    col_offset: int

    def position(self, node: ast.AST) -> tuple[int, int, int, int]:
        """`(line, column, end_line, end_column)` of a node in the file (1-based, inclusive)."""
        start: int = getattr(node, "lineno", 1)
        line = start + self.line_offset
        column = int(getattr(node, "col_offset", 0)) + self.col_offset + 1
        end_line = int(getattr(node, "end_lineno", None) or start) + self.line_offset
        end_col = getattr(node, "end_col_offset", None)
        end_column = column if end_col is None else max(column, end_col + self.col_offset)
        return line, column, end_line, end_column

    def span(self, node: ast.AST) -> SourceSpanMetadata:
        line, column, end_line, end_column = self.position(node)
        return SourceSpanMetadata(self.file, line, column, end_line, end_column)

    def error(self, node: ast.AST, message: str) -> DSLError:
        line, column, end_line, end_column = self.position(node)
        text = linecache.getline(self.file, line)
        last = end_column + 1 if end_line == line else len(text.rstrip()) + 1
        return DSLError(message, self.file, line, column, text.rstrip("\n"), last)


def read_source(fn: Callable[..., Any], what: str) -> Source:
    """The syntax tree of `fn` (a function defined in a file)."""
    try:
        lines, start = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as err:
        raise TypeError(
            f"{what} '{getattr(fn, '__name__', fn)}': cannot read its Python source ({err}); "
            "the DSL reads functions defined in a file"
        ) from None
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    text = textwrap.dedent("".join(lines))
    module = ast.parse(text, filename=file)
    tree = module.body[0]
    if not isinstance(tree, ast.FunctionDef):  # an async def, a lambda
        node = tree if isinstance(tree, ast.AsyncFunctionDef) else module
        where = Source(file, cast(ast.FunctionDef, node), start - 1, indent)
        raise where.error(node, f"{what} reads a plain def; this is not one")
    return Source(file, tree, start - 1, indent)


@dataclass
class PythonScope:
    """Where a name that is not a value of the body resolves: the function's closure, the
    frames it was decorated in (a class body, the function that defines the class), its module
    globals, then the builtins."""

    closure: dict[str, Any]
    frames: list[Mapping[str, Any]]
    globals: Mapping[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, fn: types.FunctionType, frames: list[Mapping[str, Any]]) -> PythonScope:
        closure: dict[str, Any] = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                continue
        return cls(closure, frames, fn.__globals__)

    def lookup(self, name: str) -> Any:
        for mapping in (self.extra, self.closure, *self.frames, self.globals):
            if name in mapping:
                return mapping[name]
        return getattr(builtins, name, MISSING)


def decorating_frames(depth: int) -> list[Mapping[str, Any]]:
    """The locals of the frame that applies a decorator (`depth` frames above the caller) and,
    when that frame is a class body, of the frame that runs the class statement."""
    frame = inspect.currentframe()
    try:
        for _ in range(depth + 1):
            frame = frame.f_back if frame is not None else None
        found: list[Mapping[str, Any]] = []
        while frame is not None and frame.f_code.co_name != "<module>" and len(found) < 3:
            found.append(frame.f_locals)
            if "__qualname__" not in frame.f_locals or "__module__" not in frame.f_locals:
                break  # not a class body: its own locals are enough
            frame = frame.f_back
        return found
    finally:
        del frame
