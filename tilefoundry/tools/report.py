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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Diagnostic", "format_diagnostic", "mlir_style"]

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


def format_diagnostic(diagnostic: Diagnostic, file_name: str, source: Sequence[str]) -> str:
    """The diagnostic and its notes as mlir-opt prints them; `source` is the input's lines."""
    out: list[str] = []
    for item in diagnostic.all():
        if item.line is None:
            out.append(f"{file_name}: {item.kind}: {item.message}")
            continue
        column = item.column or 1
        out.append(f"{file_name}:{item.line}:{column}: {item.kind}: {item.message}")
        if 0 < item.line <= len(source):
            out.extend(_source_lines(source[item.line - 1], column))
    return "\n".join(out)
