"""Translation validation: a pass pipeline keeps what every function of a program computes.

`validate(program, pipeline)` runs every `RunCase` of a generated program with the reference
interpreter, runs the pipeline (`tilefoundry.run_passes`, which verifies after every pass), checks
that the result prints and re-parses to a structurally equal module (custom and generic form),
runs the cases again and compares, bit for bit, each result and each argument after the run
(buffers written in place): dtype, shape and bytes, NaN payloads and the sign of zero included.
It gives None, or a `Mismatch` that says what differs. `shrink(...)` deletes lines and blocks of
the program while the mismatch stays, for a small reproducer.

```python
from tilefoundry.testing.program_generator import generate_program
from tilefoundry.testing.validation import validate
assert validate(generate_program(7), "tf-inline,canonicalize,cse") is None
```
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Operation

from tilefoundry.testing.program_generator import GeneratedProgram, RunCase

__all__ = [
    "LOWER",
    "PIPELINE_PASSES",
    "Mismatch",
    "Validator",
    "check_text",
    "describe",
    "functions_by_path",
    "random_pipeline",
    "shrink",
    "validate",
]

PIPELINE_PASSES: tuple[str, ...] = (
    "canonicalize",
    "cse",
    "dce",
    "tf-fold-constants",
    "tf-fold-constants{max-elements=4}",
    "tf-simplify",
    "tf-inline",
    "tf-strip-debuginfo",
    "tf-prune-unreachable",
    "tf-analyze",
    "tf-verify-published",
    "tf-lower",
)
"""Every registered pass that takes a whole tree (`tf-select` re-roots it: its own tests;
`tf-lower{function=...}` too: `Validator.check_lower` runs it)."""

ROOT_ONLY = ("tf-lower",)
"""The passes that run on the input only (never nested under `tf.module(...)`)."""

LOWER = "lower"
"""The check of `tilefoundry.lower` (`Validator.check_lower`), by the name a `Mismatch` reports
it under in place of a pipeline."""

DROPS_FUNCTIONS = ("tf-prune-unreachable", "tf-lower")
"""The passes after which a function the entry does not reach is gone (its run is not made)."""

ANCHORED: tuple[str, ...] = (
    "tf.module({})",
    "tf.module(hir.func({}))",
    "tf.module(tir.prim_func({}))",
)
"""Nestings a pass runs under (`docs/passes.md`): on the roots, on their functions."""

NESTABLE = ("canonicalize", "cse", "dce", "tf-fold-constants", "tf-simplify", "tf-strip-debuginfo")
"""The passes that run on a function anchor."""


CHILD_PASSES = (*NESTABLE, "tf-inline", "tf-prune-unreachable")
"""The passes that run on the children as roots (`tf.module(tf.module(...))`); a child declares
no target, so `tf-analyze` and `tf-verify-published` refuse it, rightly."""


def random_pipeline(rng: random.Random) -> str:
    """2 to 4 passes, some of them under an anchor."""
    parts = []
    for _ in range(rng.randint(2, 4)):
        name = rng.choice(PIPELINE_PASSES)
        if name in NESTABLE and rng.random() < 0.2:
            name = rng.choice(ANCHORED).format(name)
        elif rng.random() < 0.1 and name not in ROOT_ONLY:
            name = f"tf.module({name})"
        elif name in CHILD_PASSES and rng.random() < 0.1:
            name = f"tf.module(tf.module({name}))"  # the children as roots
        parts.append(name)
    return ",".join(parts)


@dataclass(frozen=True)
class Mismatch:
    """What differs after a pipeline, for one run (or for the module as a whole)."""

    pipeline: str
    what: str
    path: str | None = None


_MISSING = ("missing",)


def _encoded(value: Any) -> Any:
    """A value as comparable data: dtype, shape and bytes of each array."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return ("tuple", tuple(_encoded(v) for v in value))
    array = np.asarray(value)
    return (array.dtype.str, array.shape, array.tobytes())


def _shown(encoded: Any) -> str:
    if encoded is None:
        return "nothing"
    if encoded[0] == "tuple":
        return "(" + ", ".join(_shown(e) for e in encoded[1]) + ")"
    if encoded[0] in ("missing", "error"):
        return " ".join(map(str, encoded))
    dtype, shape, data = encoded
    array = np.frombuffer(data, np.dtype(dtype)).reshape(shape)
    bits = data.hex()
    return f"{np.array2string(array, separator=', ')} ({dtype}{list(shape)}, bytes {bits})"


def functions_by_path(module_op: Operation) -> dict[str, Operation]:
    """The functions of a tree by dotted path (`c0.f`)."""
    from tilefoundry.dialects.hir import FuncOp
    from tilefoundry.dialects.tf.module import ModuleOp
    from tilefoundry.dialects.tir import PrimFuncOp

    found: dict[str, Operation] = {}

    def visit(module: Operation, prefix: str) -> None:
        for op in module.regions[0].block.ops:
            if isinstance(op, FuncOp | PrimFuncOp):
                found[prefix + op.sym_name.data] = op
            elif isinstance(op, ModuleOp):
                visit(op, f"{prefix}{op.sym_name.data}.")

    visit(module_op, "")
    return found


def _copied(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    return np.array(value, copy=True)


def observe(module: Any, runs: Sequence[RunCase]) -> list[Any]:
    """Each run's result and arguments after it (or why it did not run)."""
    from tilefoundry.interpreter.evaluate import ExecutionError, run_any

    functions = functions_by_path(module.module_op)
    seen: list[Any] = []
    for run in runs:
        op = functions.get(run.path)
        if op is None:
            seen.append(_MISSING)
            continue
        args = [_copied(a) for a in run.args]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = run_any(op, args)
        except ExecutionError as error:
            seen.append(("error", str(error)))
            continue
        seen.append((_encoded(result), tuple(_encoded(a) for a in args)))
    return seen


def check_text(module: Any) -> str | None:
    """Why a module does not print and re-parse to a structurally equal one, or None: its
    custom form with locations, and its generic form."""
    from tilefoundry import parse_module, print_module, structural_equal

    for generic, debuginfo in ((False, True), (True, False)):
        text = print_module(module, generic=generic, debuginfo=debuginfo)
        try:
            again = parse_module(text, "printed")
        except Exception as error:  # noqa: BLE001 - reported, with the text
            return f"the printed module does not parse back: {error}\n{text}"
        if not structural_equal(module, again):
            form = "generic" if generic else "custom"
            return f"the {form} form re-parses to a different module:\n{text}"
    return None


class Validator:
    """One program, parsed and run once, checked against any number of pipelines."""

    def __init__(
        self,
        program: GeneratedProgram,
        runs: Sequence[RunCase] | None = None,
        text: str | None = None,
    ) -> None:
        from tilefoundry import parse_module

        self.program = program
        self.runs = program.runs if runs is None else list(runs)
        self.module = parse_module(program.text if text is None else text, f"seed{program.seed}")
        self.before = observe(self.module, self.runs)

    def check(self, pipeline: str, text_forms: bool = True) -> Mismatch | None:
        """None when the pipeline keeps every run (see the module docstring); `LOWER` is the
        check of `tilefoundry.lower` (`check_lower`)."""
        from tilefoundry import run_passes

        if pipeline == LOWER:
            return self.check_lower()
        try:
            after_module = run_passes(self.module, pipeline)
        except Exception as error:  # noqa: BLE001 - every refusal of a valid program is a finding
            return Mismatch(pipeline, f"the pipeline failed: {type(error).__name__}: {error}")
        if text_forms:
            broken = check_text(after_module)
            if broken is not None:
                return Mismatch(pipeline, broken)
        after = observe(after_module, self.runs)
        pruning = any(name in pipeline for name in DROPS_FUNCTIONS)
        for run, old, new in zip(self.runs, self.before, after, strict=True):
            if old == new:
                continue
            if new == _MISSING and pruning and run.path != "main":
                continue
            return Mismatch(pipeline, _difference(old, new), run.path)
        return None

    def check_lower(self) -> Mismatch | None:
        """None when `tilefoundry.lower` keeps every run: each function the root's entry reaches
        runs in the lowered module, at its path; each other one (every one, for a root without
        an entry) in the module that `lower(module, function=path)` makes (re-rooted at it).
        Each lowered module holds TIR only; the first prints and re-parses to itself (custom
        form with locations, generic form)."""
        from tilefoundry import lower

        lowered: dict[str | None, Any] = {}

        def lowered_for(path: str | None) -> Any:
            if path not in lowered:
                lowered[path] = lower(self.module, function=path)
            return lowered[path]

        reached: dict[str, Operation] = {}
        if self.module.entry is not None:
            try:
                reached = functions_by_path(lowered_for(None).module_op)
            except Exception as error:  # noqa: BLE001 - every refusal of a valid program is a finding
                return Mismatch(LOWER, f"lower failed: {type(error).__name__}: {error}")
        for run, old in zip(self.runs, self.before, strict=True):
            try:
                module = lowered_for(None if run.path in reached else run.path)
            except Exception as error:  # noqa: BLE001
                return Mismatch(
                    LOWER,
                    f"lower(function='{run.path}') failed: {type(error).__name__}: {error}",
                    run.path,
                )
            path = run.path if run.path in reached else run.path.rsplit(".", 1)[-1]
            (new,) = observe(module, [RunCase(path, run.args)])
            if old != new:
                where = "" if run.path in reached else f" (lowered with function='{run.path}')"
                return Mismatch(LOWER, _difference(old, new) + where, run.path)
        for function, module in lowered.items():
            shown = "lower" if function is None else f"lower(function='{function}')"
            left = _hir_ops(module.module_op)
            if left:
                return Mismatch(LOWER, f"{shown} left HIR ops: {', '.join(left)}")
        if lowered:  # the others are made by the same code: their text once
            broken = check_text(next(iter(lowered.values())))
            if broken is not None:
                return Mismatch(LOWER, f"lower: {broken}")
        return None


def _hir_ops(module_op: Operation) -> list[str]:
    """The names of the `hir` ops in a module tree (none after lowering)."""
    return sorted({op.name for op in module_op.walk() if op.name.startswith("hir.")})


def validate(
    program: GeneratedProgram,
    pipeline: str,
    runs: Sequence[RunCase] | None = None,
    text: str | None = None,
) -> Mismatch | None:
    """None when the pipeline keeps every run of the program (see the module docstring)."""
    return Validator(program, runs, text).check(pipeline)


def _seen(observed: Any) -> str:
    """A run's observation: its result, or why it did not run."""
    if observed[0] in ("missing", "error"):
        return " ".join(map(str, observed))
    return f"result {_shown(observed[0])}"


def _difference(old: Any, new: Any) -> str:
    if new == _MISSING or old[0] == "error" or new[0] == "error":
        return f"before: {_seen(old)}; after: {_seen(new)}"
    (old_result, old_args), (new_result, new_args) = old, new
    if old_result != new_result:
        return f"result before: {_shown(old_result)}\n  result after:  {_shown(new_result)}"
    for index, (a, b) in enumerate(zip(old_args, new_args, strict=True)):
        if a != b:
            return (
                f"argument #{index} after the run (written in place) before: {_shown(a)}\n"
                f"  after: {_shown(b)}"
            )
    return "the runs differ"


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Candidate deletions: each line, and each line opening a `{` with its body."""
    spans = [(i, i + 1) for i in range(len(lines))]
    stack: list[int] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("}"):
            if stack:
                start = stack.pop()
                spans.append((start, i + 1))
            if stripped.endswith("{"):
                stack.append(i)
        elif stripped.endswith("{"):
            stack.append(i)
    spans.sort(key=lambda s: s[0] - s[1])
    return spans


def shrink(text: str, still_fails: Callable[[str], bool], budget: int = 300) -> str:
    """Delete lines and blocks of `text` while `still_fails` holds (at most `budget` tries)."""
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        lines = text.splitlines()
        for start, end in _blocks(lines):
            if tries >= budget:
                break
            candidate = "\n".join(lines[:start] + lines[end:])
            tries += 1
            if _fails(still_fails, candidate):
                text, changed = candidate, True
                break
    return text


def _fails(still_fails: Callable[[str], bool], text: str) -> bool:
    try:
        return still_fails(text)
    except Exception:  # noqa: BLE001 - a candidate that does not parse or run is no reproducer
        return False


def describe(program: GeneratedProgram, mismatch: Mismatch, shrunk: bool = True) -> str:
    """The failure report: seed, pipeline, what differs, and a small program that shows it."""
    text = program.text
    if shrunk:
        runs = [r for r in program.runs if r.path == mismatch.path] or program.runs

        def still_fails(candidate: str) -> bool:
            found = validate(program, mismatch.pipeline, runs=runs, text=candidate)
            return found is not None and found.path == mismatch.path

        text = shrink(text, still_fails)
    where = f" in run of '{mismatch.path}'" if mismatch.path else ""
    return (
        f"seed {program.seed}: pipeline '{mismatch.pipeline}' changed what the program "
        f"computes{where}:\n  {mismatch.what}\nprogram:\n{text}\n"
    )
