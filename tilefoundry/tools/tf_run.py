"""`tf-run`: run a function of a TileFoundry module on random inputs with the reference
interpreter, and print what it returns.

    tf-run model.mlir                       # the entry function
    tf-run model.mlir --function mlp        # another one (a path: layer0.mlp)
    tf-run model.mlir --dim seq=16 --seed 3 # DimVar sizes (default: each DimVar's lower bound)

Every argument, const (weights) included, is drawn from a normal distribution (integers and
booleans from small ranges). Failures are one line and a non-zero exit, as in tf-opt.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

PROG = "tf-run"


class _Usage(Exception):
    pass


def _sizes(specs: Sequence[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not value.isdigit():
            raise _Usage(f"--dim takes NAME=SIZE, got '{spec}'")
        sizes[name] = int(value)
    return sizes


def _describe(value: Any) -> str:
    import numpy as np

    if value is None:
        return "nothing (an effect-only function)"
    if isinstance(value, tuple):
        return "(" + ", ".join(_describe(v) for v in value) + ")"
    array = np.asarray(value)
    summary = f"sum {float(array.sum()):.6g}" if array.size else "empty"
    return f"array{list(array.shape)} {array.dtype}: {summary}"


def run(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("input_file")
    parser.add_argument("--function", help="function name or dotted path (default: the entry)")
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE")

    def one_line_error(message: str) -> NoReturn:
        raise _Usage(message)

    setattr(parser, "error", one_line_error)  # noqa: B010 - one line, not usage + exit
    args = parser.parse_args(argv)
    sizes = _sizes(args.dim)

    import numpy as np

    from tilefoundry.context import load_plugin
    from tilefoundry.interpreter.evaluate import ExecutionError, run_any
    from tilefoundry.selection import select
    from tilefoundry.text import TextError, parse_module
    from tilefoundry.types import DimVar, TensorType, TupleType

    for plugin in args.plugin:
        load_plugin(plugin)
    try:
        with open(args.input_file, encoding="utf-8") as stream:
            module = parse_module(stream.read(), args.input_file)
    except OSError as err:
        raise _Usage(f"cannot open input file '{args.input_file}': {err.strerror}") from None
    except TextError as err:
        print(err, file=sys.stderr)
        return 1
    path = args.function
    if path is None:
        function = module.entry_function()
    else:
        owner_path, _, name = path.rpartition(".")
        function = select(module, owner_path).lookup(name)
    rng = np.random.default_rng(args.seed)

    def draw(type: Any) -> Any:
        if isinstance(type, TupleType):
            return tuple(draw(t) for t in type.fields)
        assert isinstance(type, TensorType)
        shape = [sizes.get(d.name, d.lo) if isinstance(d, DimVar) else d for d in type.shape]
        if type.dtype == "i1":
            return rng.integers(0, 2, shape).astype(bool)
        if type.dtype.startswith("i"):
            return rng.integers(-8, 8, shape).astype(f"int{type.dtype[1:]}")
        return rng.standard_normal(shape).astype("float16" if type.dtype == "f16" else "float32")

    inputs = [draw(p.type) for p in function.params]
    try:
        result = run_any(function.function_op, inputs)
    except ExecutionError as err:
        raise _Usage(f"'{function.name}': {err}") from None
    shown = ", ".join(
        f"{p.name}{list(np.asarray(v).shape) if not isinstance(v, tuple) else ''}"
        for p, v in zip(function.params, inputs, strict=True)
    )
    print(f"{function.name}({shown})")
    print(f"  -> {_describe(result)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except _Usage as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    except (KeyError, ValueError) as err:
        print(f"{PROG}: error: {err.args[0] if err.args else err}", file=sys.stderr)
        return 1
    except Exception as err:
        if os.environ.get("TF_OPT_TRACEBACK"):
            raise
        from tilefoundry.diagnostics import VerifyError

        if isinstance(err, VerifyError):
            print(f"{PROG}: error: {err}", file=sys.stderr)
            return 1
        print(
            f"{PROG}: internal error: {type(err).__name__}: {err} (set TF_OPT_TRACEBACK=1)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
