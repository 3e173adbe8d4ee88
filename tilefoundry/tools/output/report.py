"""Diagnostics as mlir-opt prints them: `file:line:col: kind: message`, then the source line and a
caret under the column, then each attached note the same way.

```
model.mlir:6:3: error: redefinition of symbol named 'f'
  hir.func @f() -> () {
  ^
model.mlir:2:3: note: see existing symbol definition here
  hir.func @f() -> () {
  ^
```

A diagnostic without a place in the input is the first line alone (`model.mlir: error: ...`).

On a terminal (`color=True`) it is coloured as LLVM's `SourceMgr` colours mlir-opt's: the place
and the message bold, the kind in its colour (error red, warning magenta, note black (grey),
remark blue, all bold), the caret green; the source line plain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Diagnostic", "format_diagnostic", "mlir_style"]

_KIND_COLORS = {"error": "31", "warning": "35", "note": "30", "remark": "34"}
"""LLVM's `raw_ostream` colours by diagnostic kind (ANSI 3x: red, magenta, black, blue)."""

_BOLD, _RESET, _GREEN = "\x1b[1m", "\x1b[0m", "\x1b[0;1;32m"

_SHOWN_WIDTH = 160
"""Source lines longer than this are shown as a window of this width around the column."""


@dataclass(frozen=True)
class Diagnostic:
    """A reported diagnostic: its 1-based line and column in the input (None when it has
    none), and the notes attached to it."""

    kind: str
    line: int | None
    column: int | None
    message: str
    notes: tuple[Diagnostic, ...] = ()

    def all(self) -> tuple[Diagnostic, ...]:
        """This diagnostic and its notes, in order."""
        return (self, *self.notes)


def mlir_style(message: str) -> str:
    """A message as MLIR shows one: its first line, without a trailing period (xDSL ends some
    of its messages with one)."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    text = lines[0] if lines else "error"
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _source_lines(line_text: str, column: int) -> list[str]:
    start = 0
    if len(line_text) > _SHOWN_WIDTH:
        start = max(0, min(column - 1 - _SHOWN_WIDTH // 2, len(line_text) - _SHOWN_WIDTH))
        line_text = line_text[start : start + _SHOWN_WIDTH]
    prefix = line_text[: max(0, column - 1 - start)]
    caret = "".join(c if c == "\t" else " " for c in prefix) + "^"
    return [line_text, caret]


def _heading(place: str, kind: str, message: str, color: bool) -> str:
    if not color:
        return f"{place}: {kind}: {message}"
    shade = _KIND_COLORS.get(kind, "39")
    return f"{_BOLD}{place}: {_RESET}\x1b[0;1;{shade}m{kind}: {_RESET}{_BOLD}{message}{_RESET}"


def format_diagnostic(
    diagnostic: Diagnostic, file_name: str, source: Sequence[str], *, color: bool = False
) -> str:
    """The diagnostic and its notes as mlir-opt prints them; `source` is the input's lines;
    `color`: with a terminal's colours (see the module docstring)."""
    out: list[str] = []
    for item in diagnostic.all():
        if item.line is None:
            out.append(_heading(file_name, item.kind, item.message, color))
            continue
        column = item.column or 1
        place = f"{file_name}:{item.line}:{column}"
        out.append(_heading(place, item.kind, item.message, color))
        if 0 < item.line <= len(source):
            line, caret = _source_lines(source[item.line - 1], column)
            out.extend([line, f"{_GREEN}{caret}{_RESET}" if color else caret])
    return "\n".join(out)
