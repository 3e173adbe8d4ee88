"""Diagnostics printed as mlir-opt prints them."""

from __future__ import annotations

from tilefoundry.tools.output.report import Diagnostic, format_diagnostic, mlir_style


def test_the_first_line_then_the_source_line_and_a_caret_then_the_notes() -> None:
    source = ["tf.module @m {", "\thir.func @f() -> () {", "  tf.module @f {}", "}"]
    note = Diagnostic("note", 2, 2, "see existing symbol definition here")
    error = Diagnostic("error", 3, 3, "redefinition of symbol named 'f'", (note,))
    assert format_diagnostic(error, "m.mlir", source).splitlines() == [
        "m.mlir:3:3: error: redefinition of symbol named 'f'",
        "  tf.module @f {}",
        "  ^",
        "m.mlir:2:2: note: see existing symbol definition here",
        "\thir.func @f() -> () {",
        "\t^",
    ]


def test_a_diagnostic_without_a_place_is_one_line() -> None:
    error = Diagnostic("error", None, None, "pass 'x' failed")
    assert format_diagnostic(error, "m.mlir", []) == "m.mlir: error: pass 'x' failed"


def test_a_long_line_is_shown_around_the_column() -> None:
    line = "x" * 5000 + "^here" + "y" * 5000
    shown, caret = format_diagnostic(
        Diagnostic("error", 1, 5001, "bad"), "m.mlir", [line]
    ).splitlines()[1:]
    assert len(shown) <= 160 and shown[len(caret) - 1 :].startswith("^here")


def test_messages_lose_a_trailing_period_and_keep_one_line() -> None:
    assert mlir_style("End of file reached.\nmore") == "End of file reached"
    assert mlir_style("DimVar 'n' needs 0 <= lo < hi") == "DimVar 'n' needs 0 <= lo < hi"
