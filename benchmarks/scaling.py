"""How each stage grows with its input: parse, verify, print and every pass, at 1x / 10x / 100x.

Each input class below is built at a base size times each scale; each stage (parse, verify,
print and the passes that have something to do on that class) is timed in this process, the
best of `--repeat` runs, in CPU seconds of this process (`time.process_time`: on a machine
shared by other jobs, wall time counts their turns too; the minimum of the runs). A pass
runs on a freshly parsed copy each time, untimed parse, as `tf-opt -p NAME` runs it (the garbage
collector paused around parse, verify and the pipeline, as tf-opt has it; print runs with it
on). The table gives the seconds at
each scale and the growth from each scale to the next: a linear stage grows about 10x for 10x
the input; issue 16 §7 asks for at most 12x.

Input classes (`N` is the base size times the scale):

- `chain`: one `hir.func` of 4 constants and N = 1,000 elementwise calls, `generate.py`'s 8-step
  pattern (a duplicate for `cse`, a dead call for `dce`);
- `far-constants`: N = 250 constants (and a 1.0) first, then per constant `c * 1.0` (which
  folds to `c`, far above), `c * c` (which folds to a new constant), their sum (which then
  folds) and a running sum: each fold's value sits far from its use;
- `cse-block`: one `tir.prim_func` block of N = 1,000 loads of one buffer (cse candidates, all
  one), each negated and summed;
- `constants`: N = 500 distinct dense constants, each added into a running sum;
- `nested`: N = 50 child modules, each with a `tir.prim_func` whose statements hold regions
  (`tir.let { ... }`, `tir.evaluate { ... }`), called from the root's entry;
- `tree`: the example decoder with N = 32 layers (`examples/decoder.py`, built through the
  Python surface), under an H100 root.

Usage: `.venv/bin/python benchmarks/scaling.py [--scales 1,10] [--repeat 3] [--only CLASS,...]`.
`--scales 1,10,100` adds the 100x column (several minutes).
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generate import chain_module, tree_module

from tilefoundry.ir.allocation import collection_paused as _paused

T = "tensor<4xf32>"
ADD = "tf.math.binary<kind = add>"
MUL = "tf.math.binary<kind = mul>"
NEG = "tf.math.unary<kind = neg>"


def _binary(kind: str, lhs: str, rhs: str) -> str:
    return f"tf.call {kind}({lhs}, {rhs}) : ({T}, {T}) -> {T}"


def chain(n: int) -> str:
    """`chain`: generate.py's chain of `n` calls."""
    return chain_module(n)


def far_constants(n: int) -> str:
    """`far-constants`: `n` constants and a 1.0 first, then per constant `c * 1.0` (which folds
    to `c`, defined far above), `c * c` (which folds to a new constant) and a running sum."""
    lines = ["tf.module @far {", f"  hir.func @f(%x: {T}) -> {T} {{"]
    lines.append(f"    %one = tf.constant dense<1.0> : {T}")
    lines += [f"    %c{i} = tf.constant dense<{i % 89 + 2}.0> : {T}" for i in range(n)]
    previous = "%x"
    for i in range(n):
        lines.append(f"    %m{i} = {_binary(MUL, f'%c{i}', '%one')}")
        lines.append(f"    %p{i} = {_binary(MUL, f'%c{i}', f'%c{i}')}")
        lines.append(f"    %q{i} = {_binary(ADD, f'%m{i}', f'%p{i}')}")
        lines.append(f"    %s{i} = {_binary(ADD, previous, f'%q{i}')}")
        previous = f"%s{i}"
    lines += [f"    hir.return {previous} : {T}", "  }", "}"]
    return "\n".join(lines) + "\n"


def cse_block(n: int) -> str:
    """`cse-block`: one TIR block of `n` loads of the same buffer, negated and summed."""
    buffer = "!tf.buffer<4xf32>"
    lines = ["tf.module @block {", f"  tir.prim_func @k(%b: {buffer}, %x: {T}) -> {T} {{"]
    previous = "%x"
    for i in range(n):
        lines.append(f"    %l{i} = tir.let tf.call tf.memory.load(%b) : ({buffer}) -> {T}")
        lines.append(f"    %n{i} = tir.let tf.call {NEG}(%l{i}) : ({T}) -> {T}")
        lines.append(f"    %s{i} = tir.let {_binary(ADD, previous, f'%n{i}')}")
        previous = f"%s{i}"
    lines += [f"    tir.return {previous} : {T}", "  }", "}"]
    return "\n".join(lines) + "\n"


def constants(n: int) -> str:
    """`constants`: `n` distinct dense constants, each added into a running sum."""
    lines = ["tf.module @consts {", f"  hir.func @f(%x: {T}) -> {T} {{"]
    previous = "%x"
    for i in range(n):
        values = ", ".join(f"{i + k}.5" for k in range(4))
        lines.append(f"    %c{i} = tf.constant dense<[{values}]> : {T}")
        lines.append(f"    %s{i} = {_binary(ADD, previous, f'%c{i}')}")
        previous = f"%s{i}"
    lines += [f"    hir.return {previous} : {T}", "  }", "}"]
    return "\n".join(lines) + "\n"


def nested(n: int) -> str:
    """`nested`: `n` child modules of a TIR function with region statements, called in turn."""
    lines = ["tf.module @root entry @main {", f"  tir.prim_func @main(%x: {T}) -> {T} {{"]
    previous = "%x"
    for i in range(n):
        lines.append(f"    %r{i} = tir.let tf.call @m{i}::@k({previous}) : ({T}) -> {T}")
        previous = f"%r{i}"
    lines += [f"    tir.return {previous} : {T}", "  }"]
    for i in range(n):
        lines += [
            f"  tf.module @m{i} {{",
            f"    tir.prim_func @k(%x: {T}) -> {T} {{",
            "      %a = tir.let {",
            f"        %e = tf.call {NEG}(%x) : ({T}) -> {T}",
            f"        %f = {_binary(ADD, '%e', '%x')}",
            f"        tir.yield %f : {T}",
            "      }",
            "      %b = tir.let {",
            f"        %g = {_binary(MUL, '%a', '%a')}",
            f"        tir.yield %g : {T}",
            "      }",
            f"    tir.return %b : {T}",
            "    }",
            "  }",
        ]
    lines.append("}")
    return "\n".join(lines) + "\n"


def tree(n: int) -> str:
    """`tree`: the example decoder with `n` layers."""
    return tree_module(n)


@dataclass(frozen=True)
class InputClass:
    name: str
    base: int
    build: Callable[[int], str]
    stages: tuple[str, ...]


TEXT_STAGES = ("parse", "verify", "print")
CLASSES = (
    InputClass(
        "chain",
        1000,
        chain,
        (
            *TEXT_STAGES,
            "cse",
            "dce",
            "canonicalize",
            "tf-simplify",
            "tf-fold-constants",
            "tf-strip-debuginfo",
        ),
    ),
    InputClass(
        "far-constants", 250, far_constants, ("verify", "canonicalize", "tf-fold-constants")
    ),
    InputClass("cse-block", 1000, cse_block, ("verify", "cse", "dce", "canonicalize")),
    InputClass("constants", 500, constants, (*TEXT_STAGES, "dce")),
    InputClass(
        "nested",
        50,
        nested,
        (*TEXT_STAGES, "cse", "canonicalize", "tf-inline", "tf-prune-unreachable"),
    ),
    InputClass(
        "tree",
        32,
        tree,
        (
            *TEXT_STAGES,
            "cse",
            "canonicalize",
            "tf-inline{max-ops=1000000}",
            'tf-analyze{table=""}',
            "tf-prune-unreachable",
            "tf-select{path=layer0}",
            "tf-verify-published",
        ),
    ),
)


def _parse(text: str) -> Any:
    from tilefoundry.context.context import make_context
    from tilefoundry.ir.text.parser import TFParser

    with _paused():
        return TFParser(make_context(), text, "scaling.mlir").parse_module()


def time_stage(stage: str, text: str, repeat: int) -> float:
    """The best of `repeat` runs of one stage on the module `text` reads as, in seconds."""
    from tilefoundry.context.context import make_context
    from tilefoundry.ir.text.printer import TFPrinter
    from tilefoundry.ir.verify.verifier import verify_ir
    from tilefoundry.transforms import PASSES
    from tilefoundry.transforms.instrumentation import standard_instrumentations
    from tilefoundry.transforms.pass_manager import parse_pipeline

    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if stage == "parse":
            started = time.process_time()
            _parse(text)
            best = min(best, time.process_time() - started)
            continue
        module = _parse(text)
        if stage == "verify":
            started = time.process_time()
            with _paused():
                verify_ir(module)
        elif stage == "print":
            started = time.process_time()
            TFPrinter(stream=io.StringIO()).print_op(module)
        else:
            pipeline = parse_pipeline(stage, PASSES)
            ctx = make_context()
            started = time.process_time()
            with _paused():  # as tf-opt runs a pipeline
                pipeline.run(ctx, module, standard_instrumentations(verify=False))
        best = min(best, time.process_time() - started)
        del module
    return best


def _ops(text: str) -> int:
    return sum(1 for _ in _parse(text).walk())


def measure(
    classes: tuple[InputClass, ...], scales: list[int], repeat: int
) -> list[tuple[str, str, list[int], list[float | None]]]:
    """Rows of (class, stage, op counts per scale, seconds per scale or None if it failed)."""
    rows = []
    for kind in classes:
        texts = []
        for scale in scales:
            print(f"building {kind.name} x{scale} ...", file=sys.stderr, flush=True)
            texts.append(kind.build(kind.base * scale))
        counts = [_ops(text) for text in texts]
        for stage in kind.stages:
            seconds: list[float | None] = []
            for scale, text in zip(scales, texts, strict=True):
                runs = repeat if scale < 100 else max(1, repeat // 2)
                print(f"  {kind.name} x{scale} {stage} ...", file=sys.stderr, flush=True)
                try:
                    seconds.append(time_stage(stage, text, runs))
                except Exception as err:  # a stage that fails at a size has no time there
                    print(f"  failed: {type(err).__name__}: {err}", file=sys.stderr)
                    seconds.append(None)
            rows.append((kind.name, stage, counts, seconds))
            print(table(rows[-1:], scales).splitlines()[-1], file=sys.stderr, flush=True)
    return rows


def table(rows: list[tuple[str, str, list[int], list[float | None]]], scales: list[int]) -> str:
    """The Markdown table: seconds at each scale, then the growth from one scale to the next."""
    head = ["input", "stage", *(f"{s}x s" for s in scales)]
    head += [f"{a}x→{b}x" for a, b in zip(scales, scales[1:], strict=False)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, stage, counts, seconds in rows:
        cells = [f"{name} ({counts[0]:,} ops)", f"`{stage}`"]
        cells += [f"{t:.4f}" if t is not None else "-" for t in seconds]
        for i in range(len(scales) - 1):
            small, large = seconds[i], seconds[i + 1]
            if small is None or large is None or small == 0:
                cells.append("-")
                continue
            growth = large / small
            cells.append(f"**{growth:.1f}**" if growth > 12 else f"{growth:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10", help="scales, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage (the best counts)")
    parser.add_argument("--only", default="", help="input classes, comma-separated")
    parser.add_argument("--stages", default="", help="stages, comma-separated (default: all)")
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    chosen = set(args.only.split(",")) if args.only else None
    classes = tuple(c for c in CLASSES if chosen is None or c.name in chosen)
    if args.stages:
        wanted = set(args.stages.split(","))
        classes = tuple(
            InputClass(c.name, c.base, c.build, tuple(s for s in c.stages if s in wanted))
            for c in classes
        )
    rows = measure(classes, scales, args.repeat)
    print(table(rows, scales))
    return 0


if __name__ == "__main__":
    sys.exit(main())
