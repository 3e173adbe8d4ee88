"""Reading a decorated Python function: its syntax tree, where each node is in the file, and
the Python scope its names resolve in.

Positions are 1-based lines and columns of the file (Python's `ast` counts columns from 0; the
DSL adds 1, as MLIR and `SyntaxError` show them). A span's end column is the column of its last
character (inclusive), so a one-character name spans `col` to `col`.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import contextvars
import inspect
import linecache
import re
import types
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from tilefoundry.builtin.metadata import SourceSpanMetadata
from tilefoundry.dsl.errors import DSLError
from tilefoundry.support.caches import CACHES, BoundedMapping
from tilefoundry.support.diagnostics import raised_recursion_limit

__all__ = ["MISSING", "RECURSION_LIMIT", "PythonScope", "Source", "deep_recursion", "read_source"]

_AT = re.compile(r" \((?:bound to '[^']*' )?at ([^\s()]+):(\d+):(\d+)((?:-[\d:]+)?)\)$")
"""The span a verifier's message names (`... (at f.py:3:4-3:9)`)."""

MISSING: Any = object()
"""What a scope lookup gives for a name it does not hold."""


@dataclass
class Source:
    """A function's syntax tree and the offsets that place its nodes in `file`: the line
    offset, and for each line of the function the indentation taken off before parsing."""

    file: str
    tree: ast.FunctionDef
    line_offset: int
    col_offset: int
    stripped: list[int] = field(default_factory=list)
    lines: dict[int, bytes | int] = field(default_factory=dict, repr=False, compare=False)
    """Per file line read so far: its length when it is ASCII (a byte offset is then its
    character offset), else its UTF-8 bytes. A def's signature may be one line of thousands
    of parameters, each placed twice: the line is read and encoded once, not per parameter."""

    def _column(self, line: int, offset: int) -> int:
        """The 1-based character column of `ast`'s 0-based UTF-8 byte offset on file line
        `line` (of the dedented text)."""
        index = line - self.line_offset - 1
        indent = self.stripped[index] if 0 <= index < len(self.stripped) else self.col_offset
        known = self.lines.get(line)
        if known is None:
            text = linecache.getline(self.file, line)
            known = self.lines[line] = len(text) if text.isascii() else text.encode()
        if isinstance(known, int):
            return min(offset + indent, known) + 1
        return len(known[: offset + indent].decode(errors="ignore")) + 1

    def text(self, node: ast.AST) -> str | None:
        """The source text of a node on one line of ASCII text (None otherwise)."""
        start = getattr(node, "lineno", None)
        if start is None or getattr(node, "end_lineno", None) != start:
            return None
        line = start + self.line_offset
        self._column(line, 0)  # the line's kind, read once
        if not isinstance(self.lines.get(line), int):
            return None
        index = start - 1
        indent = self.stripped[index] if 0 <= index < len(self.stripped) else self.col_offset
        text = linecache.getline(self.file, line)
        begin, end = int(getattr(node, "col_offset", 0)), int(getattr(node, "end_col_offset", 0))
        return text[begin + indent : end + indent]

    def position(self, node: ast.AST) -> tuple[int, int, int, int]:
        """`(line, column, end_line, end_column)` of a node in the file (1-based, in
        characters; the end column inclusive)."""
        start: int = getattr(node, "lineno", 1)
        line = start + self.line_offset
        column = self._column(line, int(getattr(node, "col_offset", 0)))
        end_line = int(getattr(node, "end_lineno", None) or start) + self.line_offset
        end_col = getattr(node, "end_col_offset", None)
        if end_col is None:
            return line, column, end_line, column
        end_column = self._column(end_line, int(end_col)) - 1
        if end_line == line:
            end_column = max(column, end_column)
        return line, column, end_line, end_column

    def span(self, node: ast.AST) -> SourceSpanMetadata:
        line, column, end_line, end_column = self.position(node)
        return SourceSpanMetadata(self.file, line, column, end_line, end_column)

    def refusal(self, node: ast.AST, message: str) -> DSLError:
        """A constructor's refusal: at the expression whose span its message names (the
        verifier's `(at file:line:col-...)`), else at `node`."""
        found = _AT.search(message)
        if found is not None and found.group(1) == self.file:
            line, column = int(found.group(2)), int(found.group(3))
            text = linecache.getline(self.file, line).rstrip("\n")
            end = found.group(4)
            stop = int(end.split(":")[-1]) + 1 if end and end.count(":") <= 1 else None
            if stop is not None and end.count(":") == 1 and int(end.split(":")[0][1:]) != line:
                stop = None
            return DSLError(message[: found.start()], self.file, line, column, text, stop)
        return self.error(node, message)

    def error(self, node: ast.AST, message: str) -> DSLError:
        line, column, end_line, end_column = self.position(node)
        text = linecache.getline(self.file, line)
        last = end_column + 1 if end_line == line else len(text.rstrip()) + 1
        return DSLError(message, self.file, line, column, text.rstrip("\n"), last)


_FILES: BoundedMapping[str, tuple[list[str], dict[tuple[int, str], ast.FunctionDef | None]]] = (
    CACHES.mapping("dsl source files", limit=64)
)
"""Per file: the lines (as `linecache` holds them) its syntax tree was parsed from, and its
plain defs by (first line: the first decorator's, or the `def`'s; name), None where two share
one. A file's defs are parsed once, whichever of them is read, and again when its text changes;
at most 64 files are kept, and `clear_caches()` empties it with the others (`CACHES`)."""


def _current_lines(fn: types.FunctionType) -> tuple[types.CodeType, str, list[str]]:
    """`fn`'s code, its file's name and the file's lines as they are now (as `inspect` reads
    them: the linecache checked first)."""
    code = fn.__code__
    file = code.co_filename
    linecache.checkcache(file)
    return code, file, linecache.getlines(file, fn.__globals__)


def _file_def(fn: types.FunctionType) -> Source | None:
    """`fn`'s def from its file's syntax tree, parsed once per file text: the positions are
    the file's own (no offsets). None when the file's text is not at hand, does not parse, or
    holds no single plain def of `fn`'s name at its first line (`read_source` then reads it
    as `inspect` finds it)."""
    code, file, lines = _current_lines(fn)
    if not lines:
        return None
    known = _FILES.get(file)
    if known is None or not (known[0] is lines or known[0] == lines):
        try:
            module = ast.parse("".join(lines), filename=file)
        except (SyntaxError, ValueError):
            return None
        defs: dict[tuple[int, str], ast.FunctionDef | None] = {}
        for node in _statements(module.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                key = (first, node.name)
                plain = node if isinstance(node, ast.FunctionDef) else None
                defs[key] = None if key in defs else plain
        known = (lines, defs)
        _FILES.set(file, known)
    tree = known[1].get((code.co_firstlineno, code.co_name))
    return None if tree is None else Source(file, tree, 0, 0)


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a statement that hold statements (a def is a statement: it is in none of
the expressions, whose nodes are most of a file's)."""


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The statements of `body` and, depth first, of every statement nested in them."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for name in _BODIES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                stack.extend(reversed(inner))


_DEFS: weakref.WeakKeyDictionary[types.CodeType, tuple[list[str], Source]] = (
    weakref.WeakKeyDictionary()
)
"""Per function code: the file lines its def was parsed from, and the def (a def run again,
a `@func` in a function called N times, is parsed once per file text)."""


def _own_def(fn: types.FunctionType) -> Source | None:
    """`fn`'s def parsed alone: its lines of the file (from its first decorator to the last
    line its code, or a nested function's, spans, and the lines after it indented deeper than
    the `def`), its indentation taken off. None when that text is not one plain def of `fn`'s
    name (`_file_def` then reads the file)."""
    code, file, lines = _current_lines(fn)
    if not lines:
        return None
    known = _DEFS.get(code)
    if known is not None and (known[0] is lines or known[0] == lines):
        found = known[1]
        return Source(file, found.tree, found.line_offset, found.col_offset, found.stripped)
    first = code.co_firstlineno
    last = _last_line(code)
    if not 0 < first <= last <= len(lines):
        return None
    head = lines[first - 1]
    indent = head[: len(head) - len(head.lstrip())]
    while last < len(lines):  # trailing lines that make no code (`pass`, a comment)
        text = lines[last]
        if (
            text.strip()
            and not text.startswith(indent + " ")
            and not text.startswith(indent + "\t")
        ):
            break
        last += 1
    chunk = lines[first - 1 : last]
    stripped = [len(indent) if line.startswith(indent) else 0 for line in chunk]
    try:
        module = ast.parse(
            "".join(line[n:] for line, n in zip(chunk, stripped, strict=True)), filename=file
        )
    except (SyntaxError, ValueError):
        return None
    tree = module.body[0] if len(module.body) == 1 else None
    if not isinstance(tree, ast.FunctionDef) or tree.name != code.co_name:
        return None
    if (tree.decorator_list[0].lineno if tree.decorator_list else tree.lineno) != 1:
        return None
    found = Source(file, tree, first - 1, len(indent), stripped)
    _DEFS[code] = (lines, found)
    return Source(file, tree, found.line_offset, found.col_offset, found.stripped)


def _last_line(code: types.CodeType) -> int:
    """The last line any instruction of `code` (or of a function nested in it) spans."""
    last = code.co_firstlineno
    for _, end, _, _ in code.co_positions():
        if end is not None and end > last:
            last = end
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType):
            last = max(last, _last_line(inner))
    return last


def read_source(fn: Callable[..., Any], what: str) -> Source:
    """The syntax tree of `fn` (a function defined in a file; under `functools.wraps`
    decorators, the function they wrap): its def parsed alone, else found in its file's
    syntax tree, else as `inspect` finds it."""
    inner = inspect.unwrap(fn)
    fn = inner if isinstance(inner, types.FunctionType) else fn
    if isinstance(fn, types.FunctionType):
        found = _own_def(fn) or _file_def(fn)
        if found is not None:
            return found
    try:
        lines, start = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as err:
        raise TypeError(
            f"{what} '{getattr(fn, '__name__', fn)}': cannot read its Python source ({err}); "
            "the DSL reads functions defined in a file"
        ) from None
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    # the def's own indentation off each line that has it (a docstring or a bracketed line
    # may continue at a smaller indentation: left as it is)
    stripped = [len(indent) if line.startswith(indent) else 0 for line in lines]
    text = "".join(line[n:] for line, n in zip(lines, stripped, strict=True))
    try:
        module = ast.parse(text, filename=file)
    except SyntaxError as err:
        raise TypeError(
            f"{what} '{getattr(fn, '__name__', fn)}': cannot parse its Python source ({err})"
        ) from None
    tree = module.body[0]
    if not isinstance(tree, ast.FunctionDef):  # an async def, a lambda
        node = tree if isinstance(tree, ast.AsyncFunctionDef) else module
        where = Source(file, cast(ast.FunctionDef, node), start - 1, len(indent), stripped)
        raise where.error(node, f"{what} reads a plain def; this is not one")
    return Source(file, tree, start - 1, len(indent), stripped)


@dataclass
class PythonScope:
    """Where a name that is not a value of the body resolves: the function's closure, the
    frames it was decorated in (a class body, the function that defines the class), its module
    globals, then the builtins."""

    closure: dict[str, Any]
    frames: list[Mapping[str, Any]]
    globals: Mapping[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    fn: types.FunctionType | None = None
    annotations: dict[Any, tuple[Any, list[Any]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """The annotations read in this scope, by spelling, with the names each read
    (`Expressions.cached_annotation`): a memo of one function read, gone with the scope."""

    @classmethod
    def of(cls, fn: types.FunctionType, frames: list[Mapping[str, Any]]) -> PythonScope:
        """The scope of the function the user wrote: through `functools.wraps` decorators
        (`inspect.unwrap`) to its own globals and closure."""
        inner = inspect.unwrap(fn)
        if isinstance(inner, types.FunctionType):
            fn = inner
        closure: dict[str, Any] = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                continue
        return cls(closure, frames, fn.__globals__, fn=fn)

    def lookup(self, name: str) -> Any:
        found = self._lookup(name)
        reads = READS.get()
        if reads is not None:
            reads.append((self, name, found))
        return found

    def _lookup(self, name: str) -> Any:
        for mapping in (self.extra, self.closure, *self.frames, self.globals):
            if name in mapping:
                return mapping[name]
        return getattr(builtins, name, MISSING)

    def still(self, name: str, value: Any) -> bool:
        """Whether `name` still resolves to `value` (the same object; an immutable scalar or
        a tuple of them, equal), as when it was read."""
        if self.fn is not None and name in self.closure:  # the cell as it is now
            cells = dict(zip(self.fn.__code__.co_freevars, self.fn.__closure__ or (), strict=False))
            try:
                return _same(cells[name].cell_contents, value)
            except ValueError:
                return False
        return _same(self._lookup(name), value)


Read = tuple["PythonScope", str, Any]

READS: contextvars.ContextVar[list[Read] | None] = contextvars.ContextVar(
    "tilefoundry_dsl_reads", default=None
)
"""While set: each Python name a DSL body resolves (`PythonScope.lookup`), with its value."""

_SCALARS = (int, float, str, bool, bytes, type(None))


def _same(now: Any, then: Any) -> bool:
    if now is then:
        return True
    if isinstance(then, tuple) and isinstance(now, tuple) and len(now) == len(then):
        return all(_same(a, b) for a, b in zip(now, then, strict=True))
    return type(now) is type(then) and isinstance(then, _SCALARS) and bool(now == then)


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


RECURSION_LIMIT = 60_000
"""The recursion limit while the DSL reads source: above any nesting Python's own compiler
accepts (an expression of thousands of terms, a chain of hundreds of functions each calling the
next, read on demand), which Python 3.11+ runs without the C stack."""


def deep_recursion(where: Callable[[], DSLError]) -> contextlib.AbstractContextManager[None]:
    """Read with the recursion limit raised; what still exhausts it is one `DSLError`
    (`where()`), not a `RecursionError`."""
    return raised_recursion_limit(RECURSION_LIMIT, lambda _: where())
