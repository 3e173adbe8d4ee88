"""MLIR's `--verify-diagnostics`: `expected-error` annotations checked against what was reported.

An annotation is a comment `// expected-error {{text}}` that expects a diagnostic whose message
contains `text`, on the annotation's own line, or on the line `@+N` / `@-N` away, or on the
next / previous line holding code (`@below` / `@above`). `expected-warning`, `-note` and
`-remark` are read too (tf-opt reports errors only, so they can only fail to be produced).
Every expectation must be met and every diagnostic expected, as in `mlir-opt`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Diagnostic", "Expectation", "check_expectations", "read_expectations"]

_ANNOTATION = re.compile(
    r"expected-(?P<kind>error|warning|note|remark)\s*(?:@(?P<where>[+-]\d+|above|below))?"
    r"\s*\{\{(?P<text>.*?)\}\}"
)


@dataclass
class Expectation:
    kind: str
    line: int
    text: str
    annotation_line: int
    met: bool = False


@dataclass(frozen=True)
class Diagnostic:
    """A reported diagnostic: its 1-based line in the input (None when it has none)."""

    kind: str
    line: int | None
    message: str


def read_expectations(text: str, first_line: int = 1) -> list[Expectation]:
    """The annotations of a chunk whose first line is `first_line` of the file."""
    lines = text.split("\n")
    code_lines = [
        i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")
    ]
    found: list[Expectation] = []
    for index, line in enumerate(lines):
        for match in _ANNOTATION.finditer(line):
            where = match.group("where")
            target = index
            if where == "above":
                target = max((i for i in code_lines if i < index), default=index)
            elif where == "below":
                target = min((i for i in code_lines if i > index), default=index)
            elif where is not None:
                target = index + int(where)
            found.append(
                Expectation(
                    match.group("kind"),
                    target + first_line,
                    match.group("text"),
                    index + first_line,
                )
            )
    return found


def check_expectations(expectations: list[Expectation], diagnostics: list[Diagnostic]) -> list[str]:
    """The failures, as messages: unexpected diagnostics and unmet expectations."""
    failures: list[str] = []
    for diagnostic in diagnostics:
        match = next(
            (
                e
                for e in expectations
                if not e.met
                and e.kind == diagnostic.kind
                and e.line == diagnostic.line
                and e.text in diagnostic.message
            ),
            None,
        )
        if match is None:
            where = f"line {diagnostic.line}" if diagnostic.line is not None else "no line"
            failures.append(f"unexpected {diagnostic.kind} at {where}: {diagnostic.message}")
        else:
            match.met = True
    for expectation in expectations:
        if not expectation.met:
            failures.append(
                f'expected {expectation.kind} "{expectation.text}" at line {expectation.line} '
                f"(annotated at line {expectation.annotation_line}) was not produced"
            )
    return failures
