"""MLIR's `--verify-diagnostics`: `expected-*` annotations checked against what was reported.

As MLIR's `SourceMgrDiagnosticVerifierHandler` reads them, one per line:

    // expected-error {{text}}            a diagnostic on this line whose message contains text
    // expected-error @+1 {{text}}        ... on the line N after (`@-N`: before)
    // expected-error @above {{text}}     ... on the last line above without an annotation
    // expected-error @below {{text}}     ... on the next line below without an annotation
    // expected-error @unknown {{text}}   ... a diagnostic with no place in the input
    // expected-error-re {{a {{[0-9]+}} b}}  text outside `{{ }}` literal, inside a regex
                                          (`tools/output/safe_regex.py`: a bounded subset of POSIX
                                          ERE, matched in linear time)

`expected-warning`, `expected-note` and `expected-remark` likewise; a note attached to an error
is checked as a diagnostic of its own. An expectation may be met by several diagnostics; every
expectation must be met and every diagnostic expected. Unlike MLIR, an annotation that does not
parse (`// expected-error {{text}`, `// expected-eror`, a bad regex) is an error, not a
comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefoundry.tools.output.report import Diagnostic
from tilefoundry.tools.output.safe_regex import Regex, compile_regex, escape

__all__ = ["Expectation", "check_expectations", "read_expectations"]

KINDS = ("error", "warning", "note", "remark")

_ANNOTATION = re.compile(
    r"expected-(?P<kind>error|note|remark|warning)(?P<re>-re)? *"
    r"(?:@(?P<where>[+-][0-9]+|above|below|unknown))? *\{\{(?P<text>.*)\}\}$"
)
_MENTION = re.compile(r"//\s*(?P<mention>expected-(?P<kind>[A-Za-z]+))")
"""A comment that starts as an annotation does (`// expected-...`): one that does not parse is
malformed. (Text that merely mentions one, `// CHECK: ... expected-error`, is not.)"""


@dataclass
class Expectation:
    """An annotation: the diagnostic it expects (`line` None: one with no place in the input),
    and where the annotation itself is (1-based line and column)."""

    kind: str
    line: int | None
    text: str
    at: tuple[int, int]
    pattern: Regex | None = None
    met: bool = False

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message)
        return self.text in message


def _regex(text: str) -> Regex:
    """The regex of an `expected-*-re` text (`tools/output/safe_regex.py`: bounded, and matched in
    linear time); ValueError saying what is wrong."""
    parts: list[str] = []
    rest = text
    while rest:
        start = rest.find("{{")
        if start < 0:
            parts.append(escape(rest))
            break
        parts.append(escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        compile_regex(rest[:end])  # each piece on its own: the message names the piece
        parts.append(f"(?:{rest[:end]})")
        rest = rest[end + 2 :]
    return compile_regex("".join(parts))


def _malformed(line: str) -> str | None:
    """Why a line that mentions an annotation does not parse as one (None: it does, or it
    mentions none)."""
    mention = _MENTION.search(line)
    if mention is None:
        return None
    kind = mention.group("kind")
    if kind not in KINDS:
        return f"unknown annotation 'expected-{kind}'; expected one of " + ", ".join(
            f"expected-{k}" for k in KINDS
        )
    if "{{" not in line[mention.end("mention") :]:
        return f"expected-{kind} needs its text in '{{{{...}}}}'"
    return (
        f"malformed expected-{kind} annotation; expected `expected-{kind}[-re] "
        "[@+N|@-N|@above|@below|@unknown] {{text}}` at the end of the line"
    )


def read_expectations(text: str, first_line: int = 1) -> tuple[list[Expectation], list[Diagnostic]]:
    """The annotations of a chunk whose first line is `first_line` of the file, and an error
    for each annotation that does not parse."""
    lines = text.split("\n")
    found: list[Expectation] = []
    errors: list[Diagnostic] = []
    last_plain = 0  # the last line (0-based) without an annotation
    below: list[Expectation] = []
    for index, raw in enumerate(lines):
        line = raw.rstrip()
        match = _ANNOTATION.search(line)
        if match is None:
            problem = _malformed(line) if "expected-" in line else None
            if problem is None:
                for expectation in below:
                    expectation.line = index + first_line
                below.clear()
                last_plain = index
                continue
            mention = _MENTION.search(line)
            column = (mention.start("mention") if mention else 0) + 1
            errors.append(Diagnostic("error", index + first_line, column, problem))
            continue
        at = (index + first_line, match.start() + 1)
        kind = match.group("kind")
        expectation = Expectation(kind, index + first_line, match.group("text"), at)
        if match.group("re"):
            try:
                expectation.pattern = _regex(expectation.text)
            except ValueError as err:
                errors.append(Diagnostic("error", at[0], at[1], str(err)))
                continue
        where = match.group("where")
        if where == "unknown":
            expectation.line = None
        elif where == "above":
            expectation.line = last_plain + first_line
        elif where == "below":
            expectation.line = len(lines) - 1 + first_line  # if nothing follows
            below.append(expectation)
        elif where is not None:
            expectation.line = index + first_line + int(where)
        found.append(expectation)
    return found, errors


def _process(expectations: list[Expectation], diagnostic: Diagnostic) -> Diagnostic | None:
    near_miss: Expectation | None = None
    for expectation in expectations:
        if expectation.line != diagnostic.line:
            continue
        if expectation.matches(diagnostic.message):
            if expectation.kind == diagnostic.kind:
                expectation.met = True
                return None
            near_miss = expectation
    if near_miss is not None:
        return Diagnostic(
            "error",
            near_miss.at[0],
            near_miss.at[1],
            f"'{diagnostic.kind}' diagnostic emitted when expecting a '{near_miss.kind}'",
        )
    return Diagnostic(
        "error",
        diagnostic.line,
        diagnostic.column,
        f"unexpected {diagnostic.kind}: {diagnostic.message}",
    )


def check_expectations(
    expectations: list[Expectation], diagnostics: list[Diagnostic]
) -> list[Diagnostic]:
    """The failures, as errors to report: unexpected diagnostics (and their notes) and unmet
    expectations."""
    failures: list[Diagnostic] = []
    for diagnostic in diagnostics:
        for item in diagnostic.all():
            failure = _process(expectations, item)
            if failure is not None:
                failures.append(failure)
    for expectation in expectations:
        if not expectation.met:
            failures.append(
                Diagnostic(
                    "error",
                    expectation.at[0],
                    expectation.at[1],
                    f'expected {expectation.kind} "{expectation.text}" was not produced',
                )
            )
    return failures
