"""The terminators' hand-written format is their declared one (issue 16, section 4): xDSL's
declarative program for `ValuesFormat.ASSEMBLY_FORMAT` prints every terminator of the dialects'
lit inputs byte for byte as the hand-written printer does (docs/decisions.md says why the hand
one is what tf-opt runs)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import FormatProgram

import tilefoundry as tf
from tilefoundry.dialects import hir, tf_mesh, tir
from tilefoundry.dialects.asm import ValuesFormat
from tilefoundry.ir.asm import TFPrinter
from tilefoundry.text import TextError

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


def _printed(op: IRDLOperation, program: FormatProgram | None) -> str:
    stream = io.StringIO()
    printer = TFPrinter(stream=stream)
    if program is None:
        op.print(printer)
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
    FormatProgram.from_str(ValuesFormat.ASSEMBLY_FORMAT, cls.get_irdl_definition())


def test_hand_printer_is_the_declared_format() -> None:
    programs = {
        cls: FormatProgram.from_str(ValuesFormat.ASSEMBLY_FORMAT, cls.get_irdl_definition())
        for cls in TERMINATORS
    }
    ops = [op for path in INPUTS for op in _terminators(path.read_text())]
    ops += _terminators(WITH_ATTRIBUTES)
    assert {type(op) for op in ops} == set(TERMINATORS)
    assert any(op.attributes for op in ops) and any(not op.operands for op in ops)
    for op in ops:
        assert _printed(op, None) == _printed(op, programs[type(op)]), op.name
