"""The stated bounds of the IREE backend (docs/ir.md "Numeric semantics", its IREE column): how
far IREE's code is from the interpreter on the ops whose numbers come from IREE's own
approximations of transcendental functions (compiled) and numpy's SIMD functions
(interpreted), over the native bounds test's inputs (`tests/unit/backends/native/
test_bounds.py`: f16 and bf16 every value, f32 and f64 20,000 values over the whole range).
Denormal inputs and results are flushed on both sides (IREE flushes them: `testing/iree.py`);
the ops IREE cannot compile (f64 `tanh`, `sin`, `cos`; `gelu`, `erf`) are left out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "native"))
from test_bounds import CASES, _args, ulps  # noqa: E402

from tilefoundry import parse_module  # noqa: E402
from tilefoundry.backends.iree.build import (  # noqa: E402
    IreeLimitError,
    IreeProgram,
    check_limits,
    compile_iree_modules,
)
from tilefoundry.backends.native.cache import ArtifactCache  # noqa: E402
from tilefoundry.codegen.emitter import emit_tree  # noqa: E402
from tilefoundry.interpreter.evaluate import run_any  # noqa: E402
from tilefoundry.testing.iree import flush  # noqa: E402

IREE_ULP_BOUNDS: dict[str, dict[str, int]] = {}
"""The measured bound of each approximate op on IREE (docs/ir.md repeats this table); an op or
dtype not listed is exact."""


def _compilable(case: Any) -> bool:
    module = parse_module("tf.module @b {\n" + case[3] + "\n}\n", case[0])
    try:
        check_limits(emit_tree(module.module_op, by_value=True).text)
    except IreeLimitError:
        return False
    return True


IREE_CASES = [c for c in CASES if _compilable(c)]


@pytest.fixture(scope="module")
def compiled(iree_cache: ArtifactCache) -> tuple[Any, IreeProgram]:
    text = "tf.module @bounds {\n" + "\n".join(c[3] for c in IREE_CASES) + "\n}\n"
    module = parse_module(text, "bounds.mlir")
    (program,) = compile_iree_modules([module.module_op], cache=iree_cache)
    return module, program


def _flushed(value: Any, dtype: str) -> Any:
    """f32 / f64 / bf16 (held in float32) denormals as zeros of their sign."""
    return value if dtype == "f16" else flush(np.asarray(value))


def _run(compiled: tuple[Any, IreeProgram], name: str, args: list[Any], dtype: str) -> Any:
    module, program = compiled
    args = [_flushed(a, dtype) for a in args]
    with np.errstate(all="ignore"):
        expected = run_any(module.lookup(name).function_op, [a.copy() for a in args])
    actual = program.function(name)(*[a.copy() for a in args])
    return (
        _flushed(np.asarray(expected).ravel(), dtype),
        _flushed(np.asarray(actual).ravel(), dtype),
    )


@pytest.mark.parametrize("case", [c for c in IREE_CASES if c[1] != "gelu_tanh"], ids=lambda c: c[0])
def test_an_op_is_within_its_stated_bound(compiled: tuple[Any, IreeProgram], case: Any) -> None:
    name, kind, dtype, _, _ = case
    expected, actual = _run(compiled, name, _args(kind, dtype), dtype)
    assert (np.isnan(expected) == np.isnan(actual.astype(np.float64))).all(), (
        "a NaN where the other is not"
    )
    worst = int(max(ulps(expected, actual, dtype), default=0))
    print(f"MEASURED {kind} {dtype} {worst}")
    assert worst <= IREE_ULP_BOUNDS.get(kind, {}).get(dtype, 0), f"{name}: {worst} ULPs"
