"""The declared assembly formats (issue 16, section 4): the terminators' plain fast path reads
and prints what xDSL's program for `ValuesFormat.ASSEMBLY_FORMAT` does, on every terminator of
the dialects' lit inputs; the program is built on first use, so that a file without these ops
never imports xDSL's declarative-format machinery (docs/decisions.md). The byte-identical
custom and generic forms are the lit round trips'."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import FormatProgram

import tilefoundry as tf
from tilefoundry.api.text import TextError, print_module
from tilefoundry.dialects import hir, tir
from tilefoundry.dialects.declared_formats import format_program
from tilefoundry.dialects.syntax import DeclaredFormat, ValuesFormat
from tilefoundry.dialects.tf import mesh as tf_mesh
from tilefoundry.ir.text.printer import TFPrinter

TERMINATORS: tuple[type[IRDLOperation], ...] = (
    hir.ReturnOp,
    tir.ReturnOp,
    tir.YieldOp,
    tf_mesh.YieldOp,
)
LIT = Path(__file__).parents[2] / "filecheck"
INPUTS = [
    *sorted((LIT / "dialects").glob("*/ops*.mlir")),
    LIT / "dialects" / "tf" / "module.mlir",
    LIT / "transforms" / "Inputs" / "tree.mlir",
]
WITH_ATTRIBUTES = """
hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  hir.return {note = "kept"} %x : tensor<4xf32>
}
"""


def _program(cls: type[IRDLOperation]) -> FormatProgram:
    assert issubclass(cls, DeclaredFormat)
    return format_program(cls, cls.ASSEMBLY_FORMAT)


def _printed(op: IRDLOperation, program: FormatProgram | None) -> str:
    stream = io.StringIO()
    printer = TFPrinter(stream=stream)
    if program is None:
        assert isinstance(op, ValuesFormat)
        op.print_plain(printer)
    else:
        program.print(printer, op)
    return stream.getvalue()


def _terminators(text: str) -> list[IRDLOperation]:
    found: list[IRDLOperation] = []
    for chunk in text.split("// -----"):
        try:
            module = tf.parse_module(chunk).module_op
        except TextError:
            continue  # a chunk that is not one module (a bare op list, or two modules)
        found.extend(op for op in module.walk() if isinstance(op, TERMINATORS))
    return found


@pytest.mark.parametrize("cls", TERMINATORS, ids=lambda c: c.name)
def test_terminators_use_the_values_format(cls: type[IRDLOperation]) -> None:
    assert issubclass(cls, ValuesFormat)
    _program(cls)


def test_fast_path_prints_what_the_program_prints() -> None:
    ops = [op for path in INPUTS for op in _terminators(path.read_text())]
    assert {type(op) for op in ops} == set(TERMINATORS)
    assert any(op.operands for op in ops) and any(not op.operands for op in ops)
    for op in ops:
        assert not op.attributes  # the fast path prints an op without attributes
        assert _printed(op, None) == _printed(op, _program(type(op))), op.name


_TERMINATOR = re.compile(r"\b(hir\.return|tir\.return|tir\.yield|tf\.yield)\b")


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_fast_path_reads_what_the_program_reads(path: Path) -> None:
    """The same text read through the fast path and, with an empty `{}` after each terminator's
    name (the declared program reads an op with an attribute dictionary), through the program."""
    text = path.read_text()
    for chunk in text.split("// -----"):
        try:
            fast = tf.parse_module(chunk)
        except TextError:
            continue
        declared = tf.parse_module(_TERMINATOR.sub(r"\1 {}", chunk))
        assert print_module(declared, generic=True) == print_module(fast, generic=True)


def test_program_prints_and_reads_attributes() -> None:
    module = tf.parse_module(WITH_ATTRIBUTES)
    (op,) = [op for op in module.module_op.walk() if isinstance(op, hir.ReturnOp)]
    assert dict(op.attributes) and 'hir.return {note = "kept"} %x : tensor<4xf32>' in print_module(
        module
    )


PROBE = """
import sys
import tilefoundry as tf
tf.print_module(tf.parse_module(sys.argv[1]))
print("xdsl.irdl.declarative_assembly_format" in sys.modules)
"""
ONE_FUNCTION = """
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}
"""
WITH_TUPLE = """
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tuple<tensor<4xf32>> {
    %t = tf.tuple %x : tuple<tensor<4xf32>>
    hir.return %t : tuple<tensor<4xf32>>
  }
}
"""


@pytest.mark.parametrize(
    ("text", "imported"),
    [("tf.module @m {}", False), (ONE_FUNCTION, False), (WITH_TUPLE, True)],
    ids=["empty", "one-function", "tuple"],
)
def test_declarative_machinery_is_imported_on_first_use(text: str, imported: bool) -> None:
    """Start-up does not import xDSL's declarative-format machinery; the first op that needs
    its program does."""
    found = subprocess.run(
        [sys.executable, "-c", PROBE, text], capture_output=True, text=True, check=True
    ).stdout.split()
    assert found == [str(imported)]
