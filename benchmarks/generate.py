"""Write the benchmark inputs of `benchmarks/run.py` into a directory.

Each input in the custom form (tf-opt's input) and in the generic form `tf-opt
--print-op-generic` prints (the input of xdsl-opt, which knows tf/hir through TileFoundry's
`xdsl.universe` entry point, and of mlir-opt `--allow-unregistered-dialect`), free of locations:

- `trivial.mlir`: `tf.module @m {}`, the cost of starting a tool;
- `tree.mlir`: a model tree built through the Python surface, the example decoder with L layers
  (64 by default; each layer a child module of three functions, cloned from one prototype) under
  an H100 root;
- `chain.mlir`: one `hir.func` of 4 `tf.constant`s and a chain of N elementwise `tf.call`s on
  `tensor<16x16xf32>` (20,000 by default);
- `shapes.mlir`: a model of 160 layers (the decoder's layer) that each have their own shapes
  (`d_model` 8, 9, ..., `d_ff` twice it), so that few `tensor<...>` texts repeat;
- `constants.mlir`: one `hir.func` of 5,000 `tf.constant`s, each a dense literal of its own
  (8 elements, `f32`, `i32` and `f16` in turn, shapes `2x4` and `8`);
- `distinct.mlir`: 1,600 functions, each with its own shapes (function `i` on
  `tensor<(i+1)xNxf32>`, N in 2..17), so that no op's signature, type or constant repeats: an
  imported model or a shape-specialised kernel library (issue 23 §2);
- `large.mlir` (with `--large`): F functions of such chains, 50,001 ops.

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

Usage: `python benchmarks/generate.py DIR [--layers L] [--calls N] [--shape-layers S]
[--constants C] [--functions F]`.
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
    """The files written by `generate`, by case name: each a custom form (tf-opt's input) and a
    generic form (xdsl-opt's and mlir-opt's; None when tf-opt could not write it)."""

    custom: dict[str, Path]
    generic: dict[str, Path | None]
    ops: dict[str, int]
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


def shapes_module(layers: int) -> str:
    """A model of `layers` layers, each the decoder's layer with its own `d_model` (8 + its
    index) and `d_ff` (twice that): the text of `shapes.mlir`."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
    try:
        from decoder import _layer_prototype
    finally:
        sys.path.pop(0)
    import tilefoundry as tf

    seq = tf.DimVar("seq", 1, 513)
    modules = {
        f"layer{i}": _layer_prototype(seq, 8 + i, 2 * (8 + i)).renamed(f"layer{i}")
        for i in range(layers)
    }
    return tf.print_module(tf.Module(name="shapes", modules=modules, target="h100"))


_CONSTANT_TYPES = (("f32", "2x4"), ("i32", "8"), ("f16", "2x4"))


def constants_module(count: int) -> str:
    """One `hir.func` of `count` dense constants, each of its own 8 values (the text of
    `constants.mlir`); it returns the first."""
    lines = ["tf.module @constants {", "  hir.func @f() -> tensor<2x4xf32> {"]
    for i in range(count):
        element, shape = _CONSTANT_TYPES[i % len(_CONSTANT_TYPES)]
        if element == "i32":
            values = ", ".join(str(i * 8 + k - 1000) for k in range(8))
        else:
            values = ", ".join(f"{(i * 8 + k) * 0.25 - 7.5}" for k in range(8))
        if shape == "2x4":
            items = values.split(", ")
            values = f"[{', '.join(items[:4])}], [{', '.join(items[4:])}]"
        lines.append(f"    %k{i} = tf.constant dense<[{values}]> : tensor<{shape}x{element}>")
    lines.append("    hir.return %k0 : tensor<2x4xf32>")
    lines.extend(["  }", "}"])
    return "\n".join(lines) + "\n"


def _distinct_function(index: int) -> list[str]:
    """Function `index` of `distinct.mlir`: a matmul, a bias, a negation, a scale by a constant
    of its own and a row sum, on shapes no other function has (`index + 1` rows)."""
    m, n, k = index + 1, 2 + index % 16, 2 + (index * 7) % 16
    x, w, b = f"tensor<{m}x{n}xf32>", f"tensor<{n}x{k}xf32>", f"tensor<{k}xf32>"
    y, one, row = f"tensor<{m}x{k}xf32>", "tensor<1xf32>", f"tensor<{m}x1xf32>"
    return [
        f"  hir.func @f{index}(%x: {x}, %w: {w} {{const}}, %b: {b} {{const}}) -> {row} {{",
        f"    %0 = tf.call tf.linalg.matmul(%x, %w) : ({x}, {w}) -> {y}",
        f"    %1 = tf.call {ADD}(%0, %b) : ({y}, {b}) -> {y}",
        f"    %2 = tf.call {NEG}(%1) : ({y}) -> {y}",
        f"    %c = tf.constant dense<{index}.5> : {one}",
        f"    %3 = tf.call tf.math.binary<kind = mul>(%2, %c) : ({y}, {one}) -> {y}",
        f"    %4 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%3) : ({y}) -> {row}",
        f"    hir.return %4 : {row}",
        "  }",
    ]


def distinct_module(functions: int) -> str:
    """`functions` functions of their own shapes (see `_distinct_function`): the text of
    `distinct.mlir`."""
    lines = ["tf.module @distinct {"]
    for index in range(functions):
        lines.extend(_distinct_function(index))
    lines.append("}")
    return "\n".join(lines) + "\n"


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


def generate(
    directory: Path,
    layers: int,
    calls: int,
    tf_opt: str | None,
    shape: LargeShape | None = None,
    shape_layers: int = 160,
    constants: int = 5000,
    functions: int = 1600,
) -> Inputs:
    """Write the inputs into `directory` (created if needed): `trivial`, `tree` (the decoder
    with `layers` layers, built through the Python surface), `chain` (`calls` calls in one
    function), `shapes` (`shape_layers` layers of their own shapes), `constants` (`constants`
    dense literals), `distinct` (`functions` functions of their own shapes) and, when `shape` is given, `large`; each also in the generic form that
    `tf_opt` prints (without a tf-opt, only the custom forms exist)."""
    directory.mkdir(parents=True, exist_ok=True)
    texts = {
        "trivial": TRIVIAL,
        "tree": tree_module(layers),
        "chain": chain_module(calls),
        "shapes": shapes_module(shape_layers),
        "constants": constants_module(constants),
        "distinct": distinct_module(functions),
    }
    if shape is not None:
        texts["large"] = large_module(shape)
    custom: dict[str, Path] = {}
    generic: dict[str, Path | None] = {}
    errors: list[str] = []
    for name, text in texts.items():
        custom[name] = directory / f"{name}.mlir"
        custom[name].write_text(text, encoding="utf-8")
        generic[name] = None
        if tf_opt is None:
            continue
        target = directory / f"{name}.generic.mlir"
        error = _write_generic(tf_opt, custom[name], target)
        generic[name] = None if error else target
        if error:
            errors.append(error)
    ops = {name: _count_ops(path) for name, path in custom.items()}
    if tf_opt is None:
        errors.append("tf-opt not found")
    return Inputs(custom, generic, ops, "; ".join(errors))


def _count_ops(path: Path) -> int:
    """The ops of a module, counted by tf-opt itself (the text's lines are not ops)."""
    import tilefoundry as tf

    module = tf.parse_module(path.read_text(encoding="utf-8"), str(path))
    return sum(1 for _ in module.module_op.walk())


def main() -> int:
    """Command line: write the inputs into the given directory and list them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="where to write the inputs")
    parser.add_argument("--layers", type=int, default=64, help="layers of the tree")
    parser.add_argument("--calls", type=int, default=20000, help="calls of the chain")
    parser.add_argument("--shape-layers", type=int, default=160, help="layers of `shapes`")
    parser.add_argument("--constants", type=int, default=5000, help="constants of `constants`")
    parser.add_argument("--functions", type=int, default=1600, help="functions of `distinct`")
    parser.add_argument("--tf-opt", default="tf-opt", help="the tf-opt that prints generic forms")
    args = parser.parse_args()
    inputs = generate(
        args.directory,
        args.layers,
        args.calls,
        find_tool(args.tf_opt),
        shape_layers=args.shape_layers,
        constants=args.constants,
        functions=args.functions,
    )
    for name, path in inputs.custom.items():
        print(f"{path} ({path.stat().st_size} bytes, {inputs.ops[name]} ops)")
        if (generic := inputs.generic[name]) is not None:
            print(f"{generic} ({generic.stat().st_size} bytes)")
    if inputs.generic_error:
        print(f"error: {inputs.generic_error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
