"""Translation validation: every pass, and random pipelines of several, keep what generated
programs compute, bit for bit (issue 12, section 3).

For each seed, `tilefoundry.testing.program_generator` makes a random valid module tree (HIR and
TIR, calls, child modules, every op and dtype, edge values, meshes, variants, dispatch, in-place
copies) with inputs; `tilefoundry.testing.validation` runs every function with the interpreter,
runs a pass and a random pipeline, checks the output verifies, prints and re-parses to the same
module, and runs every function again: results and in-place-written arguments compared as bytes.
A failure prints the seed, the pipeline and a shrunk program.

`make test` runs `SEEDS` seeds (below); `make validate SEEDS=5000` runs more
(`TF_VALIDATE_SEEDS`, from `TF_VALIDATE_START`). Nothing is left out of the programs: each bug
found is fixed and has a lit test under tests/filecheck/transforms/validation/.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.passes import ModulePass

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dialects.tf.ops import ConstantOp
from tilefoundry.testing.program_generator import (
    ACTIVATION_KINDS,
    ALL_DTYPES,
    generate_program,
)
from tilefoundry.testing.validation import (
    PIPELINE_PASSES,
    Validator,
    describe,
    random_pipeline,
)
from tilefoundry.transforms import PASSES

SEEDS = int(os.environ.get("TF_VALIDATE_SEEDS", "160"))
START = int(os.environ.get("TF_VALIDATE_START", "0"))


def pipelines_of(seed: int) -> list[str]:
    """One pass by itself (each in turn) and a random pipeline of several."""
    return [PIPELINE_PASSES[seed % len(PIPELINE_PASSES)], random_pipeline(random.Random(seed))]


@pytest.mark.parametrize("seed", range(START, START + SEEDS))
def test_passes_keep_what_programs_compute(seed: int) -> None:
    program = generate_program(seed)
    validator = Validator(program)
    for pipeline in pipelines_of(seed):
        mismatch = validator.check(pipeline)
        if mismatch is not None:
            pytest.fail(describe(program, mismatch), pytrace=False)


def test_generated_programs_verify_and_run() -> None:
    """The generator makes valid programs only, whose every run the interpreter completes."""
    for seed in range(40):
        program = generate_program(seed)
        module = tf.parse_module(program.text, f"seed{seed}")
        module.verify()
        observed = Validator(program).before
        refused = [run.path for run, seen in zip(program.runs, observed, strict=True)
                   if seen[0] in ("error", "missing")]  # fmt: skip
        assert not refused, f"seed {seed}: runs refused: {refused}\n{program.text}"


def test_the_generator_is_deterministic() -> None:
    assert generate_program(11).text == generate_program(11).text
    assert generate_program(11).text != generate_program(12).text


COVERED = [
    "hir.func",
    "tir.prim_func",
    "tir.let -> ",
    "tir.evaluate {",
    "tir.evaluate tf.call tf.memory.copy",
    "tf.call tf.memory.load",
    "tf.call tf.memory.alloc<shape = [",
    ": (!tf.buffer<",
    "tir.dispatch",
    "hir.variant",
    'tf.mesh "cta"',
    'tf.mesh "warp"',
    "topologies []",
    "::@",
    "tf.tuple ",
    "tf.tuple.get_item<index = -",
    "tf.shape.split",
    "tf.linalg.matmul",
    "tf.linalg.transpose",
    "tf.reduce.sum",
    "tf.reduce.max",
    "keepdims = true",
    *(f"tf.nn.activation<kind = {k}>" for k in ACTIVATION_KINDS),
    "tf.nn.softmax<axis = ",
    "tf.reduce.mean<axis = ",
    "tf.reduce.cumsum<axis = ",
    *(f"tf.logic.binary<kind = {k}>" for k in ("and", "or", "xor")),
    "tf.logic.not",
    "tf.tensor.where",
    "tf.tensor.reshape<shape = [",
    "tf.tensor.broadcast_to<shape = [",
    "tf.tensor.slice<axis = ",
    "tf.tensor.concat<axis = ",
    "tf.tensor.iota<start = ",
    "tf.tensor.full<shape = [",
    'loc("gen.py"',
    *(f"kind = {k}>" for k in ops.BINARY_ALIASES),
    *(f"kind = {k}>" for k in ops.UNARY_ALIASES),
    *(f"tf.math.cast<dtype = {d}>" for d in ALL_DTYPES),
    *(f"x{d}>" for d in ALL_DTYPES),
    # edge values, as bits: -0.0, +inf, NaN, the smallest denormal (f32); integer extremes
    "0x80000000",
    "0x7F800000",
    "0x7FC00000",
    "0x00000001",
    "0x7F80",
    "0xFC00",
    "-9223372036854775808",
    "2147483647",
    "-128",
]


def test_the_programs_cover_every_op_dtype_and_form() -> None:
    """Over the seeds `make test` runs, the programs hold every op, kind, dtype, statement
    form and edge value the generator promises (the promise cannot rot unnoticed)."""
    text = "\n".join(generate_program(seed).text for seed in range(SEEDS))
    missing = [item for item in COVERED if item not in text]
    assert not missing, f"never generated: {missing}"
    assert re.search(r"dense<0x[0-9A-F]+> : tensor<\d+x", text), "no splat of a multi-element type"


@dataclass(frozen=True)
class FlipConstants(ModulePass):
    """A deliberately wrong pass: every f32 literal becomes its negation."""

    name = "test-flip-constants"
    anchors: ClassVar[tuple[str, ...] | None] = None

    def apply(self, ctx: Context, op: Operation) -> None:
        from tilefoundry.dialects.tf.dense import array_to_dense

        for inner in list(op.walk()):
            if isinstance(inner, ConstantOp) and "f32" in str(inner.result.type):
                inner.value_attr = array_to_dense(-inner.value, "f32")


def test_a_miscompile_is_reported_with_seed_pipeline_and_a_small_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness fails on a pass that changes results: its report names the seed and the
    pipeline, and the program it prints is shrunk (and still shows the mismatch)."""
    monkeypatch.setitem(PASSES, "test-flip-constants", lambda: FlipConstants)
    for seed in range(200):
        program = generate_program(seed)
        mismatch = Validator(program).check("cse,test-flip-constants")
        if mismatch is not None and mismatch.path is not None:
            break
    else:
        pytest.fail("no generated program noticed a pass that negates f32 literals")
    report = describe(program, mismatch)
    assert report.startswith(f"seed {seed}: pipeline 'cse,test-flip-constants' changed")
    shown = report.split("program:\n", 1)[1]
    assert len(shown.splitlines()) < len(program.text.splitlines())
    runs = [r for r in program.runs if r.path == mismatch.path]
    assert Validator(program, runs, shown).check(mismatch.pipeline) is not None
