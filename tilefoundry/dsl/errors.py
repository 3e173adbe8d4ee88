"""`DSLError`: the one diagnostic an error in DSL code raises.

It is a `SyntaxError` (so Python shows the source line and a caret when it is not caught) whose
`str` is the MLIR form the rest of the project prints:

```text
model.py:12:9: error: unknown name 'w_q'
    h = ops.matmul(x, w_q)
                      ^~~
```

Lines and columns are 1-based, as MLIR and Python's own `SyntaxError` count them.
"""

from __future__ import annotations

__all__ = ["DSLError"]


class DSLError(SyntaxError):
    """An error in DSL code, at `file:line:col` (the position of the Python source)."""

    def __init__(
        self,
        message: str,
        file: str,
        line: int,
        column: int,
        source_line: str = "",
        end_column: int | None = None,
    ) -> None:
        end = end_column if end_column is not None and end_column > column else column + 1
        super().__init__(message, (file, line, column, source_line, line, end))
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.source_line = source_line
        self.end_column = end

    @property
    def location(self) -> str:
        """`file:line:col`."""
        return f"{self.file}:{self.line}:{self.column}"

    def __str__(self) -> str:
        text = f"{self.location}: error: {self.message}"
        if self.source_line:
            width = max(1, self.end_column - self.column)
            caret = " " * (self.column - 1) + "^" + "~" * (width - 1)
            text += f"\n{self.source_line.rstrip()}\n{caret}"
        return text

    def __reduce__(self) -> tuple[object, ...]:
        return (
            DSLError,
            (
                self.message,
                self.file,
                self.line,
                self.column,
                self.source_line,
                self.end_column,
            ),
        )
