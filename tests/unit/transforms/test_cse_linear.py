"""`cse` makes xDSL's decisions (its `CSEDriver`) in linear work (issue 16 §7).

The driver of `tilefoundry.transforms.cse` is compared with xDSL 0.74's own on the lit inputs
and on generated programs (the same output, op for op), and its work is counted on a block of
N reads of one buffer: the searches for a write between two reads look at each op once, and no
two `tir.let`s are compared in full unless they are equal (xDSL's look at N²/2 ops and compare
each `tir.let` with all earlier ones).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.transforms.common_subexpression_elimination import CSEDriver

from tilefoundry.context.context import make_context
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.testing.program_generator import generate_program
from tilefoundry.transforms.cse import CseCounts, cse

LIT = Path(__file__).parents[2] / "filecheck"
T = "tensor<4xf32>"
B = "!tf.buffer<4xf32>"


def _parse(text: str):  # type: ignore[no-untyped-def]
    return TFParser(make_context(), text, "cse.mlir").parse_module()


def _printed(op: object) -> str:
    import io

    stream = io.StringIO()
    TFPrinter(stream=stream).print_op(op)  # type: ignore[arg-type]
    return stream.getvalue()


def _both(text: str) -> tuple[str, str]:
    ours, theirs = _parse(text), _parse(text)
    cse(ours)
    CSEDriver().simplify(theirs)
    return _printed(ours), _printed(theirs)


def _chunks() -> list[str]:
    chunks = []
    for name in ("transforms/cse-dce.mlir", "transforms/memory-effects.mlir"):
        text = (LIT / name).read_text(encoding="utf-8")
        chunks += [c for c in text.split("// -----") if "tf.module" in c]
    return chunks


@pytest.mark.parametrize("index", range(len(_chunks())))
def test_same_as_xdsl_on_the_lit_inputs(index: int) -> None:
    ours, theirs = _both(_chunks()[index])
    assert ours == theirs


@pytest.mark.parametrize("seed", range(40))
def test_same_as_xdsl_on_generated_programs(seed: int) -> None:
    ours, theirs = _both(generate_program(seed).text)
    assert ours == theirs


def _reads(n: int, write_at: int | None = None) -> str:
    lines = ["tf.module @m {", f"  tir.prim_func @k(%b: {B}, %x: {T}) -> {T} {{"]
    previous = "%x"
    for i in range(n):
        if i == write_at:
            lines.append(f"    tir.evaluate tf.call tf.memory.copy(%b, %x) : ({B}, {T}) -> ()")
        lines.append(f"    %l{i} = tir.let tf.call tf.memory.load(%b) : ({B}) -> {T}")
        lines.append(f"    %n{i} = tir.let tf.call tf.math.unary<kind = neg>(%l{i}) : ({T}) -> {T}")
        lines.append(
            f"    %s{i} = tir.let tf.call tf.math.binary<kind = add>({previous}, %n{i}) "
            f": ({T}, {T}) -> {T}"
        )
        previous = f"%s{i}"
    lines += [f"    tir.return {previous} : {T}", "  }", "}"]
    return "\n".join(lines) + "\n"


def test_a_block_of_reads_is_linear_work() -> None:
    n = 300
    module = _parse(_reads(n))
    counts = CseCounts()
    cse(module, counts)
    text = _printed(module)
    assert text.count("tf.memory.load") == 1
    assert text.count("kind = neg") == 1
    assert counts.scanned <= 4 * n  # xDSL's walks: about 3 * n * n / 2 ops
    assert counts.comparisons <= 2 * n  # only equal lets (xDSL's: every pair of a type)


def test_a_write_between_reads_still_separates_them() -> None:
    ours, theirs = _both(_reads(20, write_at=10))
    assert ours == theirs
    assert ours.count("tf.memory.load") == 2
