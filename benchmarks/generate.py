"""Write the benchmark inputs of `benchmarks/run.py` into a directory.

Four files, each free of locations (xdsl-opt cannot parse range locations, and none are needed):

- `trivial.mlir`: `tf.module @m {}`, the cost of starting a tool;
- `large.mlir`: a `tf.module` of F `hir.func`s, each C `tf.constant`s and a chain of N elementwise
  `tf.call`s on `tensor<16x16xf32>`, in the custom form (tf-opt's input);
- `trivial.generic.mlir`, `large.generic.mlir`: the same, printed by `tf-opt --print-op-generic`
  (the input of xdsl-opt, which knows tf/hir through TileFoundry's `xdsl.universe` entry point, and
  of mlir-opt `--allow-unregistered-dialect`).

Each chain repeats an 8-step pattern that gives `cse` and `dce` something to do, so a pass run
is not a plain parse and print:

```mlir
%v0 = tf.call tf.math.binary<kind = add>(%a, %c0) : (...) -> tensor<16x16xf32>
%v1 = tf.call tf.math.unary<kind = neg>(%v0) : (...) -> tensor<16x16xf32>
%v2 = tf.call tf.math.unary<kind = neg>(%v0) : (...) -> tensor<16x16xf32>   // same as %v1: cse
%v3 = tf.call tf.math.binary<kind = add>(%v1, %v2) : (...) -> tensor<16x16xf32>
%v4 = tf.call tf.math.binary<kind = add>(%v3, %b) : (...) -> tensor<16x16xf32>
%v5 = tf.call tf.math.unary<kind = neg>(%v4) : (...) -> tensor<16x16xf32>   // unused: dce
%v6 = tf.call tf.math.unary<kind = neg>(%v4) : (...) -> tensor<16x16xf32>   // same as %v5: cse
%v7 = tf.call tf.math.binary<kind = add>(%v6, %v3) : (...) -> tensor<16x16xf32>
```

Usage: `python benchmarks/generate.py DIR [--functions F] [--chain N] [--constants C]`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Inputs", "LargeShape", "find_tool", "generate", "large_module", "main"]

TENSOR = "tensor<16x16xf32>"
TRIVIAL = "tf.module @m {}\n"
ADD = "tf.math.binary<kind = add>"
NEG = "tf.math.unary<kind = neg>"


@dataclass(frozen=True)
class LargeShape:
    """The size of `large.mlir`: `functions` x (`constants` + `chain` + 2) + 1 ops in all."""

    functions: int = 100
    chain: int = 494
    constants: int = 4

    @property
    def op_count(self) -> int:
        """Every op of the module: the module, and per function the func, its body and return."""
        return 1 + self.functions * (self.constants + self.chain + 2)


@dataclass(frozen=True)
class Inputs:
    """The files written by `generate`; a generic form is None when tf-opt could not write it."""

    trivial: Path
    large: Path
    trivial_generic: Path | None
    large_generic: Path | None
    shape: LargeShape
    generic_error: str = ""


def find_tool(name: str) -> str | None:
    """A tool's path: on PATH, else next to the running interpreter (a venv's `bin`)."""
    found = shutil.which(name)
    if found:
        return found
    sibling = Path(sys.executable).parent / name
    return str(sibling) if sibling.is_file() else None


def _binary(lhs: str, rhs: str) -> str:
    return f"tf.call {ADD}({lhs}, {rhs}) : ({TENSOR}, {TENSOR}) -> {TENSOR}"


def _unary(operand: str) -> str:
    return f"tf.call {NEG}({operand}) : ({TENSOR}) -> {TENSOR}"


def _chain_step(i: int, constants: int) -> str:
    """The right-hand side of `%v<i>`, following the 8-step pattern of the module docstring."""
    prev = f"%v{i - 1}" if i else "%a"
    step = i % 8
    if step == 0:
        return _binary(prev, f"%c{(i // 8) % constants}" if constants else "%b")
    if step in (1, 2):  # %v2 repeats %v1
        return _unary(f"%v{i - step}")
    if step == 3:
        return _binary(f"%v{i - 2}", prev)
    if step == 4:
        return _binary(prev, "%b")
    if step in (5, 6):  # %v5 is dead, %v6 repeats it
        return _unary(f"%v{i - step + 4}")
    return _binary(prev, f"%v{i - 4}")


def _function(index: int, shape: LargeShape) -> list[str]:
    """One `hir.func` as lines of text, indented for the module body."""
    lines = [f"  hir.func @f{index}(%a: {TENSOR}, %b: {TENSOR}) -> {TENSOR} {{"]
    for k in range(shape.constants):
        value = f"{index % 97 + k + 1}.5"
        lines.append(f"    %c{k} = tf.constant dense<{value}> : {TENSOR}")
    for i in range(shape.chain):
        lines.append(f"    %v{i} = {_chain_step(i, shape.constants)}")
    result = _live_result(shape.chain)
    lines.append(f"    hir.return {result} : {TENSOR}")
    lines.append("  }")
    return lines


def _live_result(chain: int) -> str:
    """The value a function returns: its last step, unless that step is the dead `%v5` kind."""
    if chain == 0:
        return "%a"
    last = chain - 1
    return f"%v{last - 1}" if last % 8 == 5 else f"%v{last}"


def chain_module(calls: int) -> str:
    """One `hir.func` holding a chain of `calls` elementwise calls (the 8-step pattern) on
    `tensor<16x16xf32>` after 4 constants: the text of `chain.mlir`."""
    lines = ["tf.module @chain {"]
    lines.extend(_function(0, LargeShape(functions=1, chain=calls, constants=4)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def tree_module(layers: int) -> str:
    """A model tree built through the Python surface: the example decoder with `layers` layers
    (each a child module of three functions, cloned from one prototype) under an H100 root."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    try:
        from decoder import build_decoder
    finally:
        sys.path.pop(0)
    import tilefoundry as tf

    return tf.print_module(build_decoder(layers))


def large_module(shape: LargeShape) -> str:
    """The text of `large.mlir` in the custom form."""
    lines = ["tf.module @bench {"]
    for index in range(shape.functions):
        lines.extend(_function(index, shape))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _write_generic(tf_opt: str, source: Path, target: Path) -> str:
    """Print `source` with `tf-opt --print-op-generic` into `target`; an error line or ''."""
    done = subprocess.run(
        [tf_opt, "--print-op-generic", str(source), "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
        first = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0]
        return f"tf-opt --print-op-generic {source.name}: {first}"
    return ""


def generate(directory: Path, shape: LargeShape, tf_opt: str | None) -> Inputs:
    """Write the four inputs into `directory` (created if needed) and return their paths.

    `tf_opt` is the tool that prints the generic forms; without one, only the custom forms exist.
    """
    directory.mkdir(parents=True, exist_ok=True)
    trivial = directory / "trivial.mlir"
    large = directory / "large.mlir"
    trivial.write_text(TRIVIAL, encoding="utf-8")
    large.write_text(large_module(shape), encoding="utf-8")
    if tf_opt is None:
        return Inputs(trivial, large, None, None, shape, "tf-opt not found")
    generic: list[Path | None] = []
    errors: list[str] = []
    for source in (trivial, large):
        target = directory / f"{source.stem}.generic.mlir"
        error = _write_generic(tf_opt, source, target)
        generic.append(None if error else target)
        if error:
            errors.append(error)
    return Inputs(trivial, large, generic[0], generic[1], shape, "; ".join(errors))


def main() -> int:
    """Command line: write the inputs into the given directory and list them."""
    defaults = LargeShape()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="where to write the inputs")
    parser.add_argument("--functions", type=int, default=defaults.functions, help="F")
    parser.add_argument("--chain", type=int, default=defaults.chain, help="N calls per function")
    parser.add_argument("--constants", type=int, default=defaults.constants, help="per function")
    parser.add_argument("--tf-opt", default="tf-opt", help="the tf-opt that prints generic forms")
    args = parser.parse_args()
    shape = LargeShape(args.functions, args.chain, args.constants)
    inputs = generate(args.directory, shape, find_tool(args.tf_opt))
    for path in (inputs.trivial, inputs.large, inputs.trivial_generic, inputs.large_generic):
        if path is not None:
            print(f"{path} ({path.stat().st_size} bytes)")
    print(f"large module: {shape.op_count} ops")
    if inputs.generic_error:
        print(f"error: {inputs.generic_error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
