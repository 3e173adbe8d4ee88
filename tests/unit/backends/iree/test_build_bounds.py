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
from test_build_bounds import CASES, _args, inputs, ulps  # noqa: E402

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

IREE_ULP_BOUNDS: dict[str, dict[str, int]] = {
    # op: {dtype: the largest difference in ULPs}; an op or dtype not listed is exact
    "exp": {"bf16": 1, "f32": 2, "f64": 1},
    "log": {"f32": 2, "f64": 1},
    "tanh": {"f32": 4},
    "sigmoid": {"f16": 1, "f32": 4, "f64": 2},
    "silu": {"f16": 1, "f32": 4, "f64": 2},
    "softmax": {"f32": 4, "f64": 2},
    "pow": {"f16": 1, "bf16": 1, "f32": 128, "f64": 1024},
}
"""The measured bound of each approximate op on IREE (docs/ir.md repeats this table); an op or
dtype not listed is exact. `sin` and `cos` are bounded absolutely (`SIN_COS_BOUND`)."""

EPS = {"f16": 2.0**-10, "bf16": 2.0**-7, "f32": 2.0**-23, "f64": 2.0**-52}

SIN_COS_LIMIT = 2.0**26
"""`sin`, `cos`: for |x| < 2^26, |compiled - interpreted| <= 2 eps(dtype) + (2 + |x| / 2)
2^-23 (IREE computes them in f32 and reduces the argument with an f32 pi: the error grows with
|x|); beyond, no bound (IREE's values leave [-1, 1], up to ±inf: `test_limits.py`)."""

GELU_TANH_IREE = {"f16": 0.0, "bf16": 1.0, "f32": 4.0}
"""`gelu_tanh`: |compiled - interpreted| <= bound * eps(dtype) * |x| (as the native test)."""


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
    """f32 / f64 / bf16 (held in float32) denormals as zeros of their sign, and (results) the
    smallest normal numbers too: one a flushed step of IREE's made zero."""
    if dtype == "f16":
        return value
    array = flush(np.asarray(value))
    small = np.abs(array) < 2 * np.finfo(array.dtype).tiny
    return np.where(small, np.copysign(np.zeros((), array.dtype), array), array).astype(array.dtype)


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


@pytest.mark.parametrize(
    "case", [c for c in IREE_CASES if c[1] not in ("gelu_tanh", "sin", "cos")], ids=lambda c: c[0]
)
def test_an_op_is_within_its_stated_bound(compiled: tuple[Any, IreeProgram], case: Any) -> None:
    name, kind, dtype, _, _ = case
    expected, actual = _run(compiled, name, _args(kind, dtype), dtype)
    assert (np.isnan(expected) == np.isnan(actual.astype(np.float64))).all(), (
        "a NaN where the other is not"
    )
    worst = int(max(ulps(expected, actual, dtype), default=0))
    assert worst <= IREE_ULP_BOUNDS.get(kind, {}).get(dtype, 0), f"{name}: {worst} ULPs"


@pytest.mark.parametrize(
    "case", [c for c in IREE_CASES if c[1] in ("sin", "cos")], ids=lambda c: c[0]
)
def test_sin_and_cos_are_within_their_absolute_bound(
    compiled: tuple[Any, IreeProgram], case: Any
) -> None:
    name, kind, dtype, _, _ = case
    x = _flushed(inputs(dtype), dtype)
    expected, actual = _run(compiled, name, [x], dtype)
    with np.errstate(invalid="ignore"):  # the NaN inputs
        held = np.abs(x.astype(np.float64)) < SIN_COS_LIMIT
    error = np.abs(expected[held].astype(np.float64) - actual[held].astype(np.float64))
    bound = 2 * EPS[dtype] + (2 + np.abs(x[held].astype(np.float64)) / 2) * 2.0**-23
    assert (error <= bound).all(), f"{name}: {float(np.max(error / bound))} of the bound"
    assert (np.isnan(expected[held]) == np.isnan(actual[held])).all()


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
def test_gelu_tanh_is_within_its_bound(compiled: tuple[Any, IreeProgram], dtype: str) -> None:
    x = _flushed(inputs(dtype), dtype)
    expected, actual = _run(compiled, f"gelu_tanh_{dtype}", [x], dtype)
    finite = np.isfinite(expected) & np.isfinite(x)
    error = np.abs(expected[finite].astype(np.float64) - actual[finite].astype(np.float64))
    scale = np.maximum(np.abs(x[finite].astype(np.float64)), np.finfo(np.float64).tiny)
    worst = float(np.max(error / (EPS[dtype] * scale), initial=0.0))
    assert worst <= GELU_TANH_IREE[dtype], worst
    assert (np.isnan(expected) == np.isnan(actual)).all()
