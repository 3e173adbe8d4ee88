"""Translation validation of the native backend: generated programs through `lower → emit →
native`, against the interpreter.

`check_native(programs)` lowers every function a program runs (`lower_module(root, path)`),
emits all of them into one shared library (`compile_modules`: a batch is one run of the tools),
runs each `RunCase` compiled and interpreted, and compares each result and each argument after
the run (buffers written in place):

- integers and booleans: the same bytes; floats: the same bits, except that a NaN matches any
  NaN (its sign and payload are not promised, docs/ir.md "Numeric semantics");
- a run the interpreter refuses (`ExecutionError`) is refused compiled with the same text.

The interpreter runs with `libm_transcendentals()`: its `exp`, `log`, `tanh`, `sin`, `cos` and
float `pow` are the C library's, which compiled code calls, instead of numpy's own SIMD versions.
Everything else is numpy's, so the comparison checks every rounding, order of operations, NaN
and signed-zero rule of the emitted code bit for bit; how far libm's functions are from numpy's
is a bound per op and dtype, measured separately (`tests/unit/backends/native/test_build_bounds.py`,
docs/ir.md). A mismatch gives `NativeMismatch`; `describe_native` shrinks the program.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from tilefoundry.testing.program_generator import GeneratedProgram, RunCase
from tilefoundry.testing.validation import shrink

__all__ = [
    "NativeMismatch",
    "check_native",
    "describe_native",
    "libm_transcendentals",
    "same_values",
]


@dataclass(frozen=True)
class NativeMismatch:
    seed: int
    path: str
    what: str


# -- the C library's functions in place of numpy's ------------------------------------------------

_LIBM: ctypes.CDLL | None = None


def _libm() -> ctypes.CDLL:
    global _LIBM
    if _LIBM is None:
        _LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    return _LIBM


def _c_function(name: str, single: bool, arity: int) -> Callable[..., float]:
    function = getattr(_libm(), name + ("f" if single else ""))
    kind = ctypes.c_float if single else ctypes.c_double
    function.restype = kind
    function.argtypes = [kind] * arity
    result: Callable[..., float] = function
    return result


def _elementwise(name: str, original: Any) -> Callable[..., Any]:
    """A numpy-like function computing `name` with libm: float64 in double, float32 and float16
    in float (float16 rounded once, as numpy's float16 loops and the compiled code do)."""

    def apply(*arrays: Any, **kwargs: Any) -> Any:
        values = [np.asarray(a) for a in arrays]
        if kwargs or not all(v.dtype.kind == "f" for v in values):
            return original(*arrays, **kwargs)
        dtype = np.result_type(*values)
        single = dtype != np.float64
        work = np.float32 if single else np.float64
        function = _c_function(name, single, len(values))
        broadcast = np.broadcast_arrays(*(v.astype(work) for v in values))
        out = np.empty(broadcast[0].shape, work)
        flat = [b.reshape(-1) for b in broadcast]
        target = out.reshape(-1)
        for i in range(target.size):
            target[i] = function(*(float(f[i]) for f in flat))
        return out.astype(dtype)

    return apply


@contextmanager
def libm_transcendentals() -> Iterator[None]:
    """numpy's `exp`, `log`, `tanh`, `sin`, `cos` and `power` (of floats) computed by the C
    library while inside (what the op references call; see the module docstring)."""
    names = {"exp": "exp", "log": "log", "tanh": "tanh", "sin": "sin", "cos": "cos", "power": "pow"}
    with numpy_replaced(names, _elementwise):
        yield


@contextmanager
def numpy_replaced(
    names: dict[str, str], make: Callable[[str, Any], Callable[..., Any]]
) -> Iterator[None]:
    """Inside, numpy's function `attr` of `names` is `make(name, numpy's own)`; restored on
    leaving."""
    saved = {attr: getattr(np, attr) for attr in names}
    try:
        for attr, name in names.items():
            setattr(np, attr, make(name, saved[attr]))
        yield
    finally:
        for attr, original in saved.items():
            setattr(np, attr, original)


# -- comparing ------------------------------------------------------------------------------------


def same_values(expected: Any, actual: Any, flushed: bool = False) -> str | None:
    """Why two results differ (see the module docstring), or None; `flushed` (the IREE check,
    `testing/iree.py`): an f32 / f64 denormal matches a zero of either sign."""
    if isinstance(expected, tuple) or isinstance(actual, tuple):
        if not (isinstance(expected, tuple) and isinstance(actual, tuple)) or len(expected) != len(
            actual
        ):
            return f"expected {_shown(expected)}, got {_shown(actual)}"
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = same_values(e, a, flushed)
            if found is not None:
                return f"field {index}: {found}"
        return None
    if expected is None or actual is None:
        return None if expected is actual else f"expected {_shown(expected)}, got {_shown(actual)}"
    e, a = np.asarray(expected), np.asarray(actual)
    if e.dtype != a.dtype or e.shape != a.shape:
        return f"expected {e.dtype}{list(e.shape)}, got {a.dtype}{list(a.shape)}"
    if e.dtype.kind == "f":
        unsigned = f"u{e.itemsize}"
        same = (e.view(unsigned) == a.view(unsigned)) | (np.isnan(e) & np.isnan(a))
        if flushed and e.dtype != np.float16:
            tiny = np.finfo(e.dtype).tiny
            same |= (np.abs(e) < tiny) & (np.abs(a) < tiny)
    else:
        same = e == a
    if bool(np.all(same)):
        return None
    return f"expected {_shown(e)}, got {_shown(a)}"


def _shown(value: Any) -> str:
    if isinstance(value, np.ndarray):
        bits = value.tobytes().hex()
        return f"{np.array2string(value, separator=', ')} ({value.dtype}{list(value.shape)}, bytes {bits})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v) for v in value) + ")"
    return repr(value)


def _copied(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    return np.array(value, copy=True)


def outcome(run: Callable[..., Any], args: Sequence[Any]) -> tuple[str, Any, Any]:
    from tilefoundry.support.diagnostics import ExecutionError

    copies = [_copied(a) for a in args]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run(*copies)
    except ExecutionError as error:
        return ("error", str(error), None)
    return ("ok", result, tuple(copies))


def difference(
    expected: tuple[str, Any, Any], actual: tuple[str, Any, Any], flushed: bool = False
) -> str | None:
    if expected[0] == "error" or actual[0] == "error":
        if expected[:2] == actual[:2]:
            return None
        shown = ["refused: " + o[1] if o[0] == "error" else "ran" for o in (expected, actual)]
        return f"interpreter {shown[0]}; compiled {shown[1]}"
    found = same_values(expected[1], actual[1], flushed)
    if found is not None:
        return f"result: {found}"
    for index, (e, a) in enumerate(zip(expected[2], actual[2], strict=True)):
        found = same_values(e, a, flushed)
        if found is not None:
            return f"argument #{index} after the run (written in place): {found}"
    return None


# -- the check ------------------------------------------------------------------------------------


def lowered_tree(module_op: Any) -> Any:
    """A copy of the tree with every `hir.func` lowered (`lower_function`, what
    `lower_module` does to the functions the entry reaches), so that one library holds every
    function a program runs, each once."""
    from xdsl.dialects.builtin import StringAttr

    from tilefoundry.dialects.hir import FuncOp
    from tilefoundry.dialects.tf.module import ModuleOp
    from tilefoundry.dialects.tf.selection import detached_copy
    from tilefoundry.transforms.call_graph import functions_of
    from tilefoundry.transforms.lowering.functions import lower_function

    lowered = detached_copy(module_op)
    for op in list(functions_of(lowered)):
        if not isinstance(op, FuncOp):
            continue
        module = op.parent_op()
        assert isinstance(module, ModuleOp)
        taken = {
            cast(StringAttr, o.properties["sym_name"]).data
            for o in module.body.block.ops
            if isinstance(o.properties.get("sym_name"), StringAttr)
        }
        for made in lower_function(op, taken):
            module.body.block.insert_op_before(made, op)
        module.body.block.erase_op(op, safe_erase=False)
    return lowered


def _tree(program: GeneratedProgram) -> tuple[Any, Any]:
    """The program's module view and its lowered tree."""
    from tilefoundry import parse_module

    module = parse_module(program.text, f"seed{program.seed}")
    return module, lowered_tree(module.module_op)


Differ = Callable[[Callable[..., Any], Callable[..., Any], Sequence[Any]], "str | None"]
"""How a check compares one run: given the interpreted function, the compiled one and the
arguments, what differs (or None)."""


def check_runs(
    programs: Sequence[GeneratedProgram],
    compile_trees: Callable[[list[Any]], Sequence[Any]],
    differ: Differ,
) -> list[NativeMismatch]:
    """Every run of every program, the lowered trees compiled together (`compile_trees`: one
    program per tree, with `function(path)`) and compared by `differ`; the mismatches."""
    from tilefoundry.interpreter.evaluate import run_any
    from tilefoundry.testing.validation import functions_by_path

    modules = [_tree(program) for program in programs]
    compiled = compile_trees([tree for _, tree in modules])
    found: list[NativeMismatch] = []
    for program, (module, _), native in zip(programs, modules, compiled, strict=True):
        interpreted = functions_by_path(module.module_op)
        for run in program.runs:
            if any(m.seed == program.seed and m.path == run.path for m in found):
                continue
            op = interpreted[run.path]
            interpret = lambda *a, op=op: run_any(op, list(a))  # noqa: E731
            what = differ(interpret, native.function(run.path), run.args)
            if what is not None:
                found.append(NativeMismatch(program.seed, run.path, what))
    return found


def _native_difference(
    interpret: Callable[..., Any], compiled: Callable[..., Any], args: Sequence[Any]
) -> str | None:
    with libm_transcendentals():
        expected = outcome(interpret, args)
    return difference(expected, outcome(compiled, args))


def check_native(
    programs: Sequence[GeneratedProgram], cache: Any = None, pipeline: Any = None
) -> list[NativeMismatch]:
    """Every run of every program, compiled in one library and interpreted (see the module
    docstring); the mismatches. The pipeline is `UNFUSED_PIPELINE` unless given: the reference
    backend's schedules, a float matmul's multiply and add rounded each (the FMAs of
    `NATIVE_PIPELINE` are within docs/ir.md's matmul bound, not bit for bit:
    `tests/unit/backends/native/test_schedule.py`)."""
    from tilefoundry.backends.native.build import compile_modules
    from tilefoundry.backends.native.pipeline import UNFUSED_PIPELINE

    chosen = pipeline or UNFUSED_PIPELINE
    return check_runs(
        programs,
        lambda trees: compile_modules(trees, cache=cache, pipeline=chosen),
        _native_difference,
    )


def describe_native(
    program: GeneratedProgram,
    mismatch: NativeMismatch,
    shrunk: bool = True,
    check: Callable[[Sequence[GeneratedProgram]], list[NativeMismatch]] = check_native,
) -> str:
    """The failure report: seed, function, what differs, and a small program that shows it."""
    text = program.text
    if shrunk:
        runs = [r for r in program.runs if r.path == mismatch.path]

        def still_fails(candidate: str) -> bool:
            trial = GeneratedProgram(program.seed, candidate, runs, program.functions)
            return any(m.path == mismatch.path for m in check([trial]))

        text = shrink(text, still_fails, budget=150)
    return (
        f"seed {program.seed}: compiled '{mismatch.path}' differs from the interpreter:\n"
        f"  {mismatch.what}\nprogram:\n{text}\n"
    )


__all__ += ["RunCase"]
