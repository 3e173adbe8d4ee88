"""Every op's emission rule, compiled, against the interpreter bit for bit (`op_cases.py`: every
dtype, edge values, every pair for binary ops, every cast pair, reductions over every pairwise
block shape, dynamic dims, indexing, memory).

The interpreter runs with libm's `exp`, `log`, `tanh`, `sin`, `cos`, `pow`
(`testing.native.libm_transcendentals`), which the compiled code calls: what remains is the
emitted code's own numbers. How far libm is from numpy's own versions: `test_bounds.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from native_op_cases import Case, all_cases, module_text  # noqa: E402

from tilefoundry import parse_module  # noqa: E402
from tilefoundry.backends.native.build import NativeProgram, compile_modules  # noqa: E402
from tilefoundry.backends.native.cache import ArtifactCache  # noqa: E402
from tilefoundry.interpreter.evaluate import run_any  # noqa: E402
from tilefoundry.testing.native import difference, libm_transcendentals, outcome  # noqa: E402

CASES = all_cases()
NOT_EMITTED: frozenset[str] = frozenset()
"""The library's ops with no emission rule (yet): the native backend refuses them by name."""


@pytest.fixture(scope="module")
def compiled(session_cache: ArtifactCache) -> tuple[Any, NativeProgram]:
    module = parse_module(module_text(CASES), "ops.mlir")
    (program,) = compile_modules([module.module_op], cache=session_cache)
    return module, program


def test_the_cases_cover_every_registered_op() -> None:
    from tilefoundry.ir.algebra.op_registry import op_schemas

    text = module_text(CASES)
    library = [
        s.op_class
        for s in op_schemas()
        if s.op_class is not None and s.op_class.__module__.startswith("tilefoundry.ops")
    ]
    # an op with no emission rule yet is refused by the native emitter, by name
    assert {c.op_name for c in library if not hasattr(c, "emit")} <= NOT_EMITTED
    names = {c.op_name for c in library if hasattr(c, "emit")}
    missing = sorted(n for n in names if n not in text)
    assert missing == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_matches_the_interpreter(compiled: tuple[Any, NativeProgram], case: Case) -> None:
    module, program = compiled
    op = module.lookup(case.name).function_op
    with libm_transcendentals():
        expected = outcome(lambda *a: run_any(op, list(a)), case.args)
    actual = outcome(program.function(case.name), case.args)
    found = difference(expected, actual)
    assert found is None, f"{case.name}:\n{case.text()}\n{found}"


def test_an_index_out_of_range_is_the_interpreters_error(
    compiled: tuple[Any, NativeProgram],
) -> None:
    module, program = compiled
    refused = [c for c in CASES if "gather<axis = 0>" in c.body]
    assert refused
    for case in refused:
        refusal = outcome(program.function(case.name), case.args)
        assert refusal[:2] == (
            "error",
            "tf.tensor.gather: index 9 is out of range for dim 0 of size 8",
        )


def test_buffers_hold_what_the_interpreter_leaves(compiled: tuple[Any, NativeProgram]) -> None:
    _, program = compiled
    case = next(c for c in CASES if "tf.memory.alloc" in c.body and "bf16" in c.body)
    buffer = np.array(case.args[0], copy=True)
    before = buffer.copy()
    zero, new, saved = program.function(case.name)(buffer, case.args[1])
    assert (buffer.view(np.uint32) == np.asarray(case.args[1]).view(np.uint32)).all()  # written
    assert (saved.view(np.uint32) == before.view(np.uint32)).all()  # the load was a snapshot
    assert not zero.any()  # a fresh buffer is zero
