"""Translation validation of the IREE backend: the generated programs through `lower → emit (by
value) → iree`, every function run compiled and interpreted (`check_native(...,
backend="iree")`: integers and booleans the same bytes, floats the same bits with any NaN
matching any NaN, refusals the same text; the interpreter with IREE's transcendentals and its
denormals flushed, as IREE's code computes, `tilefoundry/testing/iree.py`).

`make test` runs `SEEDS` seeds (40: IREE compiles a batch in about 40 s); `make validate
IREE_SEEDS=400` more (`TF_VALIDATE_SEEDS`, from `TF_VALIDATE_START`). The programs IREE cannot
compile (f64 `sin`, `cos`, `tanh`, `erf`) are left out, and counted.
"""

from __future__ import annotations

import os

import pytest

from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.testing.iree import iree_programs
from tilefoundry.testing.native import check_native, describe_native
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
    found = check_native(programs, cache=iree_cache, backend="iree")
    if found:
        program = next(p for p in programs if p.seed == found[0].seed)
        pytest.fail(describe_native(program, found[0], shrunk=False, backend="iree"))
