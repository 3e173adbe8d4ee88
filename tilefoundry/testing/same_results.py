"""`python -m tilefoundry.testing.same_results FILE -p PIPELINE`: whether a pipeline keeps what
every function of a module computes, for lit tests of translation validation.

Every function of the tree (children too) runs on seeded inputs, edge values included (a
DimVar at its lower bound and at the middle of its envelope), before and after the pipeline;
results and arguments after the run are compared bit for bit (`validation.Validator`). It prints
`same results: N runs` and exits 0, or prints what differs and exits 1.

```sh
python -m tilefoundry.testing.same_results kernel.mlir -p cse
```
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import Any

from tilefoundry.testing.program_generator import GeneratedProgram, Literals, RunCase
from tilefoundry.testing.validation import Validator, functions_by_path

__all__ = ["main", "runs_of"]


def _input(literals: Literals, type: Any, sizes: dict[str, int]) -> Any:
    from tilefoundry.builtin.types import DimVar, TupleType

    if isinstance(type, TupleType):
        return tuple(_input(literals, f, sizes) for f in type.fields)
    shape = tuple(sizes[d.name] if isinstance(d, DimVar) else d for d in type.shape)
    count = 1
    for d in shape:
        count *= d
    return literals.array(type.dtype, shape, literals.elements(type.dtype, count))


def runs_of(text: str, seed: int = 0) -> list[RunCase]:
    """Runs of every function of the module in `text`, on seeded inputs."""
    from tilefoundry import parse_module
    from tilefoundry.builtin.types import DimVar, TensorType, TupleType, from_attr

    literals = Literals(random.Random(seed))
    module = parse_module(text, "input")
    runs = []
    for path, op in functions_by_path(module.module_op).items():
        types = [from_attr(t) for t in op.function_type.inputs.data]  # type: ignore[attr-defined]
        dims: dict[str, DimVar] = {}
        for t in types:
            fields = t.fields if isinstance(t, TupleType) else (t,)
            for f in fields:
                if isinstance(f, TensorType):
                    dims.update({d.name: d for d in f.shape if isinstance(d, DimVar)})
        choices = [{n: d.lo for n, d in dims.items()}]
        if dims:
            choices.append({n: (d.lo + d.hi) // 2 for n, d in dims.items()})
        for sizes in choices:
            runs.append(RunCase(path, tuple(_input(literals, t, sizes) for t in types)))
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="same_results", description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("-p", "--pipeline", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with open(args.file, encoding="utf-8") as handle:
        text = handle.read()
    runs = runs_of(text, args.seed)
    program = GeneratedProgram(args.seed, text, runs, [])
    mismatch = Validator(program).check(args.pipeline)
    if mismatch is not None:
        where = f" in run of '{mismatch.path}'" if mismatch.path else ""
        print(f"pipeline '{mismatch.pipeline}' changed what the module computes{where}:")
        print(f"  {mismatch.what}")
        return 1
    print(f"same results: {len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
