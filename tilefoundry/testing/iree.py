"""Translation validation of the IREE backend: the generated programs through `lower → emit (by
value) → iree`, against the interpreter, within the native check's bounds where IREE keeps them
(`check_iree(programs)`, docs/ir.md "Numeric semantics"; `testing/native.py`'s check with
IREE's comparison).

IREE's code differs from the native backend's in two ways, which the check models rather than
hides:

- **Denormals may be flushed** (f32, f64, and bf16, which computes in f32): IREE's CPU code
  runs with denormal inputs of float arithmetic read as zero and denormal results written as
  zero, but what LLVM turned into integer operations (a bf16 cast, a compare of a widened
  bf16) keeps them. So the interpreter runs twice, as IEEE does and under `flushed_denormals()`
  (each op's float inputs and results flushed to a zero of their sign), and each element of
  IREE's result may be either's (`iree_difference`); a denormal matches a zero of either sign
  (`same_values(..., flushed=True)`). Every other bit is compared as the native check compares
  it. f16 is not flushed (its values are normal f32 numbers where the emitted code computes).
- **Its transcendentals are its own** polynomial approximations, not libm's. As the native check
  runs the interpreter with libm's (`libm_transcendentals`), this one runs it with IREE's
  (`iree_transcendentals`: numpy's `exp`, `log`, `tanh`, `sin`, `cos`, `power` of floats
  computed by a small IREE module of `math` ops), so what remains is the emitted code's own
  numbers, bit for bit; how far IREE's functions are from numpy's is a bound per op and dtype
  (`tests/unit/backends/iree/test_build_bounds.py`, docs/ir.md). A program IREE cannot compile
  (`check_limits`: f64 `sin`, `cos`, `tanh`, `erf`; `gelu` and `erf` of every dtype) is left
  out (`iree_programs` says which and why).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from tilefoundry.testing.native import numpy_replaced
from tilefoundry.testing.program_generator import GeneratedProgram

__all__ = [
    "check_iree",
    "flush",
    "flushed_denormals",
    "iree_difference",
    "iree_outcomes",
    "iree_programs",
    "iree_transcendentals",
]


def flush(value: Any) -> Any:
    """A value with each f32 / f64 denormal replaced by a zero of its sign (tuples field by
    field; other values as they are)."""
    if isinstance(value, tuple):
        return tuple(flush(v) for v in value)
    if isinstance(value, np.ndarray | np.generic) and value.dtype in (np.float32, np.float64):
        array = np.asarray(value)
        tiny = np.finfo(array.dtype).tiny
        denormal = (array != 0) & (np.abs(array) < tiny)
        if bool(np.any(denormal)):
            array = np.where(denormal, np.copysign(np.zeros((), array.dtype), array), array)
            return array.astype(value.dtype)
    return value


@contextmanager
def flushed_denormals() -> Iterator[None]:
    """The interpreter with every op's float inputs and results flushed (`flush`), as IREE's
    code computes them (see the module docstring)."""
    from tilefoundry.interpreter import evaluate

    original = evaluate.evaluate_op

    def flushed(op: Any, values: Sequence[Any]) -> Any:
        from tilefoundry.builtin.types import BufferType, from_attr

        inputs = [
            v if isinstance(from_attr(o.type), BufferType) else flush(v)  # written in place
            for o, v in zip(op.operands, values, strict=True)
        ]
        return flush(original(op, inputs))

    evaluate.evaluate_op = flushed
    try:
        yield
    finally:
        evaluate.evaluate_op = original


def iree_programs(
    programs: Sequence[GeneratedProgram],
) -> tuple[list[GeneratedProgram], dict[int, str]]:
    """The programs the IREE check runs, and why each other one (by seed) is left out."""
    from tilefoundry import parse_module
    from tilefoundry.backends.iree.build import IreeLimitError, check_limits
    from tilefoundry.codegen.emitter import emit_tree
    from tilefoundry.testing.native import lowered_tree

    kept: list[GeneratedProgram] = []
    left: dict[int, str] = {}
    for program in programs:
        tree = lowered_tree(parse_module(program.text, f"seed{program.seed}").module_op)
        try:
            check_limits(emit_tree(tree, by_value=True).text)
        except IreeLimitError as err:
            left[program.seed] = str(err)
            continue
        kept.append(program)
    return kept, left


# -- IREE's transcendental functions in place of numpy's -----------------------------------------

_UNARY = ("exp", "log", "tanh", "sin", "cos")
_NAMES = {"exp": "exp", "log": "log", "tanh": "tanh", "sin": "sin", "cos": "cos", "power": "powf"}


def _probe_text() -> str:
    """One function per function and float type: `math.<f>` over a 1-D tensor (f64 only where
    IREE compiles it)."""
    lines = ["module {"]
    for type in ("f32", "f64"):
        for name in (*_UNARY, "powf"):
            if type == "f64" and name in ("tanh", "sin", "cos"):
                continue
            arity = 2 if name == "powf" else 1
            tensor = f"tensor<?x{type}>"
            args = ", ".join(f"%a{i}: {tensor}" for i in range(arity))
            ins = ", ".join(f"%a{i}" for i in range(arity))
            maps = ", ".join(["affine_map<(d0) -> (d0)>"] * (arity + 1))
            scalars = ", ".join(f"%x{i}: {type}" for i in range(arity))
            operands = ", ".join(f"%x{i}" for i in range(arity))
            lines += [
                f"  func.func @{name}_{type}({args}) -> {tensor} {{",
                "    %c0 = arith.constant 0 : index",
                f"    %n = tensor.dim %a0, %c0 : {tensor}",
                f"    %e = tensor.empty(%n) : {tensor}",
                f"    %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = "
                f'["parallel"]}} ins({ins} : {", ".join([tensor] * arity)}) outs(%e : {tensor}) {{',
                f"    ^bb0({scalars}, %o: {type}):",
                f"      %y = math.{name} {operands} : {type}",
                f"      linalg.yield %y : {type}",
                f"    }} -> {tensor}",
                f"    func.return %r : {tensor}",
                "  }",
            ]
    return "\n".join([*lines, "}", ""])


_PROBE: list[Any] = []  # the probe module's functions by name, compiled once per process


def _probe() -> Any:
    if not _PROBE:
        from tilefoundry.backends.iree.build import build_vmfb, load_vmfb

        data, _ = build_vmfb(_probe_text(), cache=None)
        _PROBE.append(load_vmfb(data).modules.module)
    return _PROBE[0]


def _iree_elementwise(name: str, original: Any) -> Any:
    """A numpy-like function computing `name` with IREE: float64 in f64 (where IREE has it),
    float32, float16 and bfloat16 (held in float32) in f32, float16 rounded once."""

    def apply(*arrays: Any, **kwargs: Any) -> Any:
        values = [np.asarray(a) for a in arrays]
        if kwargs or not all(v.dtype.kind == "f" for v in values):
            return original(*arrays, **kwargs)
        dtype = np.result_type(*values)
        wide = dtype == np.float64
        if wide and name in ("tanh", "sin", "cos"):
            return original(*arrays)  # IREE refuses these programs (`check_limits`)
        work = np.float64 if wide else np.float32
        broadcast = np.broadcast_arrays(*(v.astype(work) for v in values))
        flat = [np.ascontiguousarray(b.reshape(-1)) for b in broadcast]
        if flat[0].size == 0:
            return original(*arrays)
        function = _probe()[f"{name}_{'f64' if wide else 'f32'}"]
        out = np.asarray(function(*(flush(f) for f in flat)).to_host())
        return out.reshape(broadcast[0].shape).astype(dtype)

    return apply


@contextmanager
def iree_transcendentals() -> Iterator[None]:
    """numpy's `exp`, `log`, `tanh`, `sin`, `cos` and `power` (of floats) computed by IREE
    while inside (what the op references call; see the module docstring)."""
    with numpy_replaced(_NAMES, _iree_elementwise):
        yield


# -- comparing: each element as IEEE computes it, or flushed -------------------------------------


def iree_outcomes(run: Any, args: Sequence[Any]) -> tuple[Any, Any]:
    """The interpreter's outcome (`testing.native.outcome`) of a run with IREE's functions:
    flushed, and as IEEE computes it."""
    from tilefoundry.testing.native import outcome

    with iree_transcendentals():
        with flushed_denormals():
            flushed = outcome(run, args)
        ieee = outcome(run, args)
    return flushed, ieee


def _matches(expected: Any, actual: Any) -> Any:
    """Elementwise: the same bits, both NaN, or (floats) both a denormal or a zero."""
    e, a = np.asarray(expected), np.asarray(actual)
    if e.dtype.kind != "f":
        return e == a
    unsigned = f"u{e.itemsize}"
    same = (e.view(unsigned) == a.view(unsigned)) | (np.isnan(e) & np.isnan(a))
    if e.dtype != np.float16:
        tiny = np.finfo(e.dtype).tiny
        same |= (np.abs(e) < tiny) & (np.abs(a) < tiny)
    return same


def _merged(flushed: Any, ieee: Any, actual: Any) -> Any:
    """`flushed` with each element that `actual` has as `ieee` has it taken from `ieee`."""
    if isinstance(flushed, tuple) and isinstance(ieee, tuple) and isinstance(actual, tuple):
        if len(flushed) == len(ieee) == len(actual):
            return tuple(_merged(f, i, a) for f, i, a in zip(flushed, ieee, actual, strict=True))
        return flushed
    if not all(isinstance(v, np.ndarray | np.generic) for v in (flushed, ieee, actual)):
        return flushed
    f, i, a = (np.asarray(v) for v in (flushed, ieee, actual))
    if not (f.dtype == i.dtype == a.dtype and f.shape == i.shape == a.shape):
        return flushed
    return np.where(_matches(i, a), i, f).astype(f.dtype)


def iree_difference(
    flushed: tuple[str, Any, Any], ieee: tuple[str, Any, Any], actual: tuple[str, Any, Any]
) -> str | None:
    """Why IREE's outcome differs from the interpreter's, each element allowed to be as IEEE
    computes it or flushed (see the module docstring), or None."""
    from tilefoundry.testing.native import difference

    if difference(ieee, actual, flushed=True) is None:
        return None
    if "error" in (flushed[0], ieee[0], actual[0]):
        return difference(flushed, actual, flushed=True)
    merged = (
        "ok",
        _merged(flushed[1], ieee[1], actual[1]),
        _merged(flushed[2], ieee[2], actual[2]),
    )
    return difference(merged, actual, flushed=True)


def _iree_run_difference(interpret: Any, compiled: Any, args: Sequence[Any]) -> str | None:
    from tilefoundry.testing.native import outcome

    actual = outcome(compiled, args)
    return iree_difference(*iree_outcomes(interpret, args), actual)


def check_iree(programs: Sequence[GeneratedProgram], cache: Any = None) -> list[Any]:
    """Every run of every program, compiled by IREE in one module and interpreted, compared as
    the module docstring says; the mismatches (`NativeMismatch`)."""
    from tilefoundry.backends.iree.build import compile_iree_modules
    from tilefoundry.testing.native import check_runs

    return check_runs(
        programs, lambda trees: compile_iree_modules(trees, cache=cache), _iree_run_difference
    )
