"""`dialects/*.irdl.mlir` is what the exporter writes from the xDSL definitions (fresh): one
dialect per file, each op as IRDL states it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from tilefoundry.tools.generators.irdl_export import dialects, main, render


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


def test_a_constraint_variable_is_one_binding() -> None:
    text = render(next(d for d in dialects() if d.name == "hir"))
    body = text[text.index("irdl.operation @return") :]
    assert body.count("irdl.any_of") == 1  # all the values of a hir.return: one type


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
