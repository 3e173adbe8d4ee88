"""`dialects/*.irdl.mlir` is what the exporter writes from the xDSL definitions (fresh), and the
exporter states each xDSL constraint in IRDL as far as mlir-opt-19's IRDL can."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    i32,
)
from xdsl.irdl import AnyAttr, AttrConstraint, BaseAttr, EqAttrConstraint, base

from tilefoundry.dialects.dim_range import DimRangeAttr
from tilefoundry.tools.irdl_export import constraint_of, dialects, main, render
from tilefoundry.types import VALUE_TYPES


def test_the_irdl_files_are_fresh() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["--check"])
    assert code == 0, f"{err.getvalue()} (run `make dialects` and commit the result)"


def test_check_names_a_stale_file(tmp_path: Path) -> None:
    (tmp_path / "tf.irdl.mlir").write_text("// stale\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["--check", "--out", str(tmp_path)]) == 1
    assert "tf.irdl.mlir" in err.getvalue() and "make dialects" in err.getvalue()
    assert main(["--out", str(tmp_path)]) == 0
    assert main(["--check", "--out", str(tmp_path)]) == 0


def test_each_file_holds_one_dialect_at_the_top_level() -> None:
    for dialect in dialects():
        lines = render(dialect).splitlines()
        top = [line for line in lines if line and not line.startswith((" ", "//"))]
        assert top == [f"irdl.dialect @{dialect.name} {{", "}"]


@pytest.mark.parametrize(
    ("constraint", "summary"),
    [
        (AnyAttr(), "any"),
        (BaseAttr(StringAttr), "#builtin.string"),
        (SymbolNameConstraint(), "#builtin.string"),
        (BaseAttr(IntAttr), "#builtin.integer"),
        (BaseAttr(NoneAttr), "none"),
        (VALUE_TYPES, "!builtin.tensor | !builtin.tuple"),
        (EqAttrConstraint(i32), "i32"),
        (BaseAttr(DimRangeAttr), "#tf.range"),
        (base(ArrayAttr[DimRangeAttr]), "#builtin.array of #tf.range"),
    ],
)
def test_constraints_in_irdl(constraint: AttrConstraint, summary: str) -> None:
    assert constraint_of(constraint).summary() == summary


def test_a_constraint_variable_is_one_binding() -> None:
    text = render(next(d for d in dialects() if d.name == "hir"))
    body = text[text.index("irdl.operation @return") :]
    assert body.count("irdl.any_of") == 1  # all the values of a hir.return: one type


def test_a_constraint_the_exporter_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="no IRDL base for MemRefType"):
        constraint_of(BaseAttr(MemRefType))


def test_a_constant_in_irdl() -> None:
    text = render(next(d for d in dialects() if d.name == "tf"))
    start = text.index("  irdl.operation @constant")
    assert text[start : text.index("  }\n", start)] == (
        "  irdl.operation @constant {\n"
        '    %result = irdl.base "!builtin.tensor"\n'
        "    irdl.results(%result)\n"
        '    %value = irdl.base "#builtin.dense_int_or_fp_elements"\n'
        '    irdl.attributes {"value" = %value}\n'
    )
