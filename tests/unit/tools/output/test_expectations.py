"""MLIR's --verify-diagnostics semantics, on synthetic diagnostics: kinds, notes, places."""

from __future__ import annotations

from tilefoundry.tools.output.expectations import check_expectations, read_expectations
from tilefoundry.tools.output.report import Diagnostic


def failures(text: str, *diagnostics: Diagnostic) -> list[str]:
    expectations, errors = read_expectations(text)
    return [d.message for d in errors + check_expectations(expectations, list(diagnostics))]


def test_a_warning_a_note_and_a_remark_are_expected_like_errors() -> None:
    text = "op  // expected-warning {{w}}\nop  // expected-remark {{r}}\n"
    warning = Diagnostic("warning", 1, 1, "a w here")
    remark = Diagnostic("remark", 2, 1, "an r")
    assert failures(text, warning, remark) == []


def test_notes_are_checked_where_they_point() -> None:
    text = "first  // expected-note {{see here}}\nsecond  // expected-error {{twice}}\n"
    error = Diagnostic("error", 2, 1, "defined twice", (Diagnostic("note", 1, 1, "see here"),))
    assert failures(text, error) == []
    assert failures(text.replace("expected-note", "expected-remark"), error) == [
        "'note' diagnostic emitted when expecting a 'remark'",
        'expected remark "see here" was not produced',
    ]


def test_unknown_matches_only_diagnostics_without_a_place() -> None:
    text = "// expected-error @unknown {{pass failed}}\n"
    assert failures(text, Diagnostic("error", None, None, "pass failed")) == []
    assert failures(text, Diagnostic("error", 1, 1, "pass failed")) == [
        "unexpected error: pass failed",
        'expected error "pass failed" was not produced',
    ]


def test_one_expectation_meets_every_matching_diagnostic_as_in_mlir() -> None:
    text = "op  // expected-error {{bad}}\n"
    assert failures(text, Diagnostic("error", 1, 1, "bad"), Diagnostic("error", 1, 9, "bad")) == []


def test_above_and_below_skip_annotation_lines() -> None:
    text = "op\n// expected-error @below {{x}}\n// expected-error @above {{y}}\nop\n"
    found, errors = read_expectations(text, first_line=10)
    assert errors == []
    assert [(e.text, e.line) for e in found] == [("x", 13), ("y", 10)]


def test_regex_text_outside_braces_is_literal() -> None:
    text = "op  // expected-error-re {{a.b {{[0-9]+}}}}\n"
    assert failures(text, Diagnostic("error", 1, 1, "a.b 42")) == []
    assert failures(text, Diagnostic("error", 1, 1, "axb 42")) == [
        "unexpected error: axb 42",
        'expected error "a.b {{[0-9]+}}" was not produced',
    ]


def test_text_that_only_mentions_an_annotation_is_not_one() -> None:
    found, errors = read_expectations("// CHECK: error: expected-error in prose\n")
    assert (found, errors) == ([], [])
