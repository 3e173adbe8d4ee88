"""Translation validation: every pass, random pipelines of several, and `tilefoundry.lower`
(HIR → TIR, issue 20) keep what generated programs compute, bit for bit (issue 12, section 3).

For each seed, `tilefoundry.testing.program_generator` makes a random valid module tree (HIR and
TIR, calls, child modules, every op and dtype, edge values, meshes, variants, dispatch, in-place
copies) with inputs; `tilefoundry.testing.validation` runs every function with the interpreter,
runs a pass and a random pipeline, checks the output verifies, prints and re-parses to the same
module, and runs every function again: results and in-place-written arguments compared as bytes.
Then it lowers the program (every function: those the entry does not reach with `function=`)
and compares the same way. A failure prints the seed, the pipeline (`lower`) and a shrunk
program.

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
    LOWER,
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
    for pipeline in [*pipelines_of(seed), LOWER]:
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


def test_lower_runs_every_function_and_tf_lower_joins_the_pipelines() -> None:
    """Every run of every program is made after `lower` (a function the entry does not reach,
    lowered with `function=`: none is left out), and `tf-lower` is in the random pipelines."""
    from tilefoundry.testing.validation import functions_by_path

    unreached = 0
    for seed in range(20):
        program = generate_program(seed)
        lowered = tf.lower(tf.parse_module(program.text, f"seed{seed}"))
        unreached += sum(
            run.path not in functions_by_path(lowered.module_op) for run in program.runs
        )
    assert unreached > 0, "no generated function is left to function="
    pipelines = [random_pipeline(random.Random(seed)) for seed in range(SEEDS)]
    assert any("tf-lower," in p for p in pipelines), "tf-lower is never followed by a pass"


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
    "dims = [",
    "tf.nn.conv<stride = [",
    "groups = 2",
    "tf.nn.pool<kind = max",
    "tf.nn.pool<kind = avg",
    "count_include_pad = false",
    "dilation = [",
    "tf.tensor.topk<k = ",
    "largest = false",
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
    # statements of no value in HIR (tf-lower makes each a tir.evaluate)
    assert re.search(r'^\s+tf\.mesh "', text, re.MULTILINE), "no mesh of no value"
    assert re.search(r"^\s+tf\.call @", text, re.MULTILINE), "no HIR call of no value"
    assert re.search(r"hir\.variant \[n: [1-3] to [5-8]\]", text), "no variant of a sub-range"


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


def test_a_lowering_without_the_envelope_case_is_reported_with_a_small_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness fails on a lowering whose base case covers only the first variant's range
    (a dispatch then raises where HIR ran its base body): the report names the seed and
    `lower`, and the program it prints is shrunk and still shows the mismatch."""
    from xdsl.dialects.builtin import ArrayAttr

    from tilefoundry.dialects import hir
    from tilefoundry.transforms.lowering import functions

    def first_range(function: hir.FuncOp, variants: list[hir.VariantOp]) -> ArrayAttr:
        return variants[0].ranges

    monkeypatch.setattr(functions, "_envelope", first_range)
    for seed in range(200):
        program = generate_program(seed)
        mismatch = Validator(program).check(LOWER)
        if mismatch is not None and mismatch.path is not None:
            break
    else:
        pytest.fail("no generated program noticed a dispatch with no case for some sizes")
    assert "no dispatch case holds the argument sizes" in mismatch.what
    report = describe(program, mismatch)
    assert report.startswith(f"seed {seed}: pipeline 'lower' changed")
    shown = report.split("program:\n", 1)[1]
    assert len(shown.splitlines()) < len(program.text.splitlines())
    runs = [r for r in program.runs if r.path == mismatch.path]
    assert Validator(program, runs, shown).check(LOWER) is not None
