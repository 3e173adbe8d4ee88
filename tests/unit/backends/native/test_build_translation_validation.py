"""Translation validation of the native backend (issue 20, item 4): the generated programs
through `lower → emit → native`, every function run compiled and interpreted
(`tilefoundry.testing.native.check_native`: integers and booleans the same bytes, floats the same
bits with any NaN matching any NaN, refusals the same text; the interpreter with libm's
transcendentals, whose distance from numpy's is `test_bounds.py`'s).

`make test` runs `SEEDS` seeds in batches of `BATCH` (one shared library each); `make validate
SEEDS=2000` more (`TF_VALIDATE_SEEDS`, from `TF_VALIDATE_START`). A mismatch prints the seed, the
function and a shrunk program; each bug found is fixed with a test.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import pytest

from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.mlir_builder import Emitted, MlirBuilder, MValue, values
from tilefoundry.mlir_builder.structured import elementwise
from tilefoundry.ops.math import Binary, BinaryKind
from tilefoundry.testing.native import check_native, describe_native
from tilefoundry.testing.program_generator import generate_program

SEEDS = int(os.environ.get("TF_VALIDATE_SEEDS", "160"))
START = int(os.environ.get("TF_VALIDATE_START", "0"))
BATCH = 40


@pytest.mark.parametrize("first", range(START, START + SEEDS, BATCH))
def test_compiled_programs_compute_what_the_interpreter_does(
    first: int, session_cache: ArtifactCache
) -> None:
    programs = [generate_program(s) for s in range(first, min(first + BATCH, START + SEEDS))]
    found = check_native(programs, cache=session_cache)
    if found:
        program = next(p for p in programs if p.seed == found[0].seed)
        pytest.fail(describe_native(program, found[0]))


def test_the_check_finds_a_wrong_rule(
    monkeypatch: pytest.MonkeyPatch, session_cache: ArtifactCache
) -> None:
    """An integer `div` emitted as MLIR's `arith.divsi` (truncating, not numpy's floor; guarded
    against 0 and -1 so that it cannot trap) is caught, with a shrunk program."""
    original = Binary.emit

    def truncating(
        self: Binary, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[Any], result: Any
    ) -> Emitted:
        if self.kind is not BinaryKind.DIV or not result.dtype.startswith("i"):
            return original(self, b, args, arg_types, result)

        def element(s: list[MValue]) -> MValue:
            type = s[0].type
            one = b.int_constant(1, type)
            small = b.op(f"arith.cmpi sle, {s[1]}, {b.int_constant(0, type)} : {type}", "i1")
            divisor = b.op(f"arith.select {small}, {one}, {s[1]} : {type}", type)
            return b.op(f"arith.divsi {s[0]}, {divisor} : {type}", type)

        return elementwise(b, values(args), arg_types, result, element)

    monkeypatch.setattr(Binary, "emit", truncating)
    # the programs of the first 120 seeds that divide integers (the rule under test)
    dividing = re.compile(r"kind = div>\([^)]*\) : \(tensor<[^>]*xi(8|16|32|64)")
    programs = [p for p in map(generate_program, range(120)) if dividing.search(p.text)]
    assert len(programs) >= 5
    found = check_native(programs, cache=session_cache)
    assert found, "the wrong div rule went unnoticed"
    report = describe_native(next(p for p in programs if p.seed == found[0].seed), found[0])
    assert "kind = div" in report and report.count("\n") < 60
