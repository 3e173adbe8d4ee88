"""The IRDL form (`tilefoundry/ir/text/irdl_form.py`, `irdl_printer.py`): what it adds to the
generic form for mlir-opt-19's IRDL, and that reading drops exactly that."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Operation

from tilefoundry.context.context import make_context
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.ops import TupleOp
from tilefoundry.ir.algebra.structural import structural_equal
from tilefoundry.ir.text.irdl_form import RUNS, SEGMENT_SIZES, segment_sizes
from tilefoundry.ir.text.irdl_printer import irdl_printer
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.tools.drivers.tf_opt import main as tf_opt

SOURCE = """tf.module @m {
  hir.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>> {
    %t = tf.tuple %a, %b, %c, %a : tuple<tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>>
    hir.return %t : tuple<tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xf32>>
  }
}
"""


def parse(text: str) -> Operation:
    """The one top-level op of a text."""
    (op,) = TFParser(make_context(), text, "t.mlir").parse_module().ops
    return op


def irdl_text(root: Operation) -> str:
    stream = io.StringIO()
    irdl_printer(stream).print_op(root)
    return stream.getvalue()


def test_a_list_of_several_types_is_written_as_runs() -> None:
    module = parse(SOURCE)
    (tuple_op,) = [op for op in module.walk() if isinstance(op, TupleOp)]
    sizes = segment_sizes(tuple_op)
    assert isinstance(sizes, DenseArrayBase)
    assert sizes.get_values() == (2, 1, 1) + (0,) * (RUNS - 3)
    text = irdl_text(module)
    assert f"{SEGMENT_SIZES} = array<i32: 2, 1, 1, 0," in text
    assert text.count('"llvm.unreachable"() : () -> ()') == 2  # the hir.func and tf.module blocks
    assert "}, {\n  })" in text  # the absent variants region, written empty


def test_reading_drops_what_the_form_adds() -> None:
    module = parse(SOURCE)
    again = parse(irdl_text(module))
    assert structural_equal(module, again)
    for op in again.walk():
        assert op.name != "llvm.unreachable"
        assert SEGMENT_SIZES not in op.attributes
        if isinstance(op, FuncOp):
            assert op.variants is None


def test_an_explicit_empty_region_of_a_required_slot_is_kept() -> None:
    """Only a trailing optional region may be dropped: a tf.module body stays."""
    module = parse('"tf.module"() ({\n}) {sym_name = "m"} : () -> ()')
    assert len(module.regions) == 1


def test_more_runs_than_the_form_has_is_one_error_line(tmp_path: Path) -> None:
    types = [f"tensor<{n % 2 + 1}xf32>" for n in range(RUNS + 1)]
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    tuple_type = f"tuple<{', '.join(types)}>"
    args = ", ".join(f"%a{i}" for i in range(len(types)))
    path = tmp_path / "wide.mlir"
    path.write_text(
        f"hir.func @f({params}) -> {tuple_type} {{\n"
        f"  %t = tf.tuple {args} : {tuple_type}\n"
        f"  hir.return %t : {tuple_type}\n}}\n"
    )
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = tf_opt([str(path), "--print-irdl-generic"])
    assert code == 1
    assert err.getvalue() == (
        f"tf-opt: error: 'tf.tuple' has {RUNS + 1} runs of operand types; the IRDL form writes "
        f"at most {RUNS} (operands of one type next to each other make one run)\n"
    )
