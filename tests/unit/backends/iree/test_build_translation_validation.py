"""Translation validation of the IREE backend: the generated programs through `lower → emit (by
value) → iree`, every function run compiled and interpreted (`check_iree`: integers and booleans
the same bytes, floats the same bits with any NaN matching any NaN, refusals the same text; the
interpreter with IREE's transcendentals, each element as IEEE computes it or with denormals
flushed, as IREE's code computes: `tilefoundry/testing/iree.py`).

`make test` runs `SEEDS` seeds (40: IREE compiles a batch in about 40 s); `make validate
IREE_SEEDS=400` more (`TF_VALIDATE_SEEDS`, from `TF_VALIDATE_START`). The programs IREE cannot
compile (f64 `sin`, `cos`, `tanh`, `erf`) are left out, and counted.
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
from tilefoundry.testing.iree import check_iree, iree_programs
from tilefoundry.testing.native import describe_native
from tilefoundry.testing.program_generator import generate_program

SEEDS = int(os.environ.get("TF_VALIDATE_SEEDS", "40"))
START = int(os.environ.get("TF_VALIDATE_START", "0"))
BATCH = 40


@pytest.mark.parametrize("first", range(START, START + SEEDS, BATCH))
def test_iree_programs_compute_what_the_interpreter_does(
    first: int, iree_cache: ArtifactCache
) -> None:
    generated = [generate_program(s) for s in range(first, min(first + BATCH, START + SEEDS))]
    programs, left = iree_programs(generated)
    assert len(programs) >= 0.75 * len(generated), f"left out: {left}"
    assert all("cannot compile an f64 math." in why for why in left.values())
    found = check_iree(programs, cache=iree_cache)
    if found:
        program = next(p for p in programs if p.seed == found[0].seed)
        pytest.fail(describe_native(program, found[0], shrunk=False, check=check_iree))


def test_the_check_finds_a_wrong_rule(
    monkeypatch: pytest.MonkeyPatch, iree_cache: ArtifactCache
) -> None:
    """The native check's wrong rule (an integer `div` emitted truncating, not flooring) is
    caught on IREE too: its comparison of IEEE and flushed runs hides no integer bit."""
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
    generated = [generate_program(s) for s in range(0, 120)]
    programs, _ = iree_programs([p for p in generated if dividing.search(p.text)])
    found = check_iree(programs[:8], cache=iree_cache)
    assert found, "the wrong div rule went unnoticed"
    program = next(p for p in programs if p.seed == found[0].seed)
    report = describe_native(program, found[0], shrunk=False, check=check_iree)
    assert f"seed {program.seed}: compiled '{found[0].path}' differs" in report
