"""`tf-run`: run a function of a TileFoundry module with the reference interpreter, and print
what it returns.

    tf-run model.mlir                          # the entry function, on random inputs
    tf-run model.mlir --function layer0.mlp    # another one, by path (or @layer0::@mlp)
    tf-run model.mlir --dim seq=16 --seed 3    # DimVar sizes (default: each one's lower bound)
    tf-run model.mlir --input x=x.npy --output y.npy

Arguments not given with `--input` are drawn at random: floats from a normal distribution,
integers and booleans from small ranges. The output shows the call, which variant or dispatch
case each choice took, and the result as numpy prints it (elided when large):

    f(x[7, 4])
      ran @f: variant #0 [n: 1 to 8]
      -> array[7, 4] float32
         [[...]]

Failures are one line and a non-zero exit, as in tf-opt: a bad flag, a parse or verifier error
(with the source line and a caret), a recursive function (the interpreter runs no recursion),
an argument that does not fit its parameter.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any, NoReturn

from tilefoundry.ir.allocation import collection_paused
from tilefoundry.tools.output import OutputClosed, OutputError, guarded_stdout, names_stdout
from tilefoundry.tools.run_values import (
    RunError,
    check_output_path,
    draw,
    exact_value,
    format_value,
    load_value,
    save_value,
    value_summary,
)
from tilefoundry.tools.tf_opt_args import help_through_stdout

PROG = "tf-run"


def _pairs(specs: Sequence[str], flag: str, value: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for spec in specs:
        name, sep, given = spec.partition("=")
        if not sep or not name or not given:
            raise RunError(f"{flag} takes NAME={value}, got '{spec}'")
        if name in found:
            raise RunError(f"{flag} '{name}' is given twice")
        found[name] = given
    return found


def _sizes(specs: Sequence[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for name, value in _pairs(specs, "--dim", "SIZE").items():
        if not value.isdigit():
            raise RunError(f"--dim takes NAME=SIZE, got '{name}={value}'")
        sizes[name] = int(value)
    return sizes


def _path(text: str) -> list[str]:
    """The names of a `--function` path: `layer0.mlp` or `@layer0::@mlp` (quoted names too),
    as `tilefoundry.select` reads it."""
    from tilefoundry.selection import path_names

    usage = (
        f"--function takes a dotted path (layer0.mlp) or a symbol reference (@layer0::@mlp), "
        f"got '{text}'"
    )
    try:
        names = path_names(text)
    except ValueError:
        raise RunError(usage) from None
    if not names:
        raise RunError(usage)
    return names


def _function(module: Any, names: list[str]) -> Any:
    node = module
    for index, name in enumerate(names[:-1]):
        children = [m for m in node.modules if m.attached_name == name]
        if not children:
            reached = ".".join(names[:index]) or "the root module"
            shown = ", ".join(m.attached_name for m in node.modules) or "none"
            raise RunError(f"'{name}' names no child module of {reached} (children: {shown})")
        node = children[0]
    return node.lookup(names[-1])


def _dim_vars(types: Sequence[Any]) -> dict[str, Any]:
    from tilefoundry.types import BufferType, TensorType, TupleType

    found: dict[str, Any] = {}
    for type in types:
        if isinstance(type, TupleType):
            found.update(_dim_vars(type.fields))
        elif isinstance(type, TensorType | BufferType):
            found.update((d.name, d) for d in type.dim_vars)
    return found


def run(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("input_file")
    parser.add_argument(
        "--function", help="a dotted path (layer0.mlp) or @layer0::@mlp (default: the entry)"
    )
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the result (.npy, or .npz for a tuple; '-': standard output, and the "
        "summary goes to stderr)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE")

    def one_line_error(message: str) -> NoReturn:
        raise RunError(message)

    setattr(parser, "error", one_line_error)  # noqa: B010 - one line, not usage + exit
    help_through_stdout(parser)
    args = parser.parse_args(argv)

    import numpy as np

    from tilefoundry.context import PluginError, load_plugin
    from tilefoundry.interpreter.call_graph import call_cycle
    from tilefoundry.interpreter.evaluate import (
        ExecutionError,
        check_argument,
        recording_selections,
        run_any,
    )
    from tilefoundry.text import TextError, parse_module
    from tilefoundry.tools.report import Diagnostic, format_diagnostic
    from tilefoundry.types import BufferType, UnitType

    sizes = _sizes(args.dim)
    inputs = _pairs(args.input, "--input", "FILE")
    for plugin in args.plugin:
        try:
            load_plugin(plugin)
        except PluginError as err:
            if os.environ.get("TF_OPT_TRACEBACK"):
                raise
            raise RunError(str(err)) from None
    try:
        with open(args.input_file, encoding="utf-8") as stream:
            text = stream.read()
    except OSError as err:
        raise RunError(f"cannot open input file '{args.input_file}': {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise RunError(f"input file '{args.input_file}' is not UTF-8 text: {err.reason}") from None
    try:
        module = parse_module(text, args.input_file)
    except TextError as err:
        at = err.position
        diagnostic = Diagnostic(
            "error", at.line if at else None, at.column if at else None, err.message
        )
        print(format_diagnostic(diagnostic, args.input_file, text.split("\n")), file=sys.stderr)
        return 1
    function = (
        module.entry_function()
        if args.function is None
        else _function(module, _path(args.function))
    )
    cycle = call_cycle(function.function_op)
    if cycle is not None:
        chain = " -> ".join(f"@{name}" for name in cycle)
        raise RunError(
            f"'{function.name}' is recursive ({chain}); the reference interpreter runs no recursion"
        )
    params = {p.name: p for p in function.params}
    dim_vars = _dim_vars([p.type for p in function.params])
    for name in sizes:
        if name not in dim_vars:
            shown = ", ".join(dim_vars) or "none"
            raise RunError(
                f"--dim '{name}' names no DimVar of '{function.name}' (DimVars: {shown})"
            )
    for name in inputs:
        if name not in params:
            shown = ", ".join(params) or "none"
            raise RunError(
                f"--input '{name}' names no parameter of '{function.name}' (parameters: {shown})"
            )
    result_type = function.function_op.result_type()
    if args.output is not None:
        if isinstance(result_type, UnitType):
            raise RunError(
                f"'{function.name}' returns nothing (an effect-only function): there is "
                f"nothing to write to '{args.output}'"
            )
        check_output_path(args.output, result_type)

    given = dict(sizes)
    values: dict[str, Any] = {}
    try:
        for name, path in inputs.items():
            loaded = exact_value(
                load_value(path, params[name].type, f"input '{name}'"),
                params[name].type,
                f"input '{name}'",
            )
            seen: dict[str, int] = {}
            values[name] = check_argument(name, params[name].type, loaded, seen)
            for dim, size in seen.items():
                if given.setdefault(dim, size) != size:
                    raise RunError(
                        f"input '{name}' has {dim} = {size}, but {dim} is {given[dim]} "
                        "(--dim or another input)"
                    )
        rng = np.random.default_rng(args.seed)
        arguments = [
            values[p.name] if p.name in values else draw(p.type, given, rng)
            for p in function.params
        ]
        # IEEE results (inf, nan) are the values the run computes: numpy's warnings about
        # them are not shown (nor turned into errors by -W error).
        with recording_selections() as selections, np.errstate(all="ignore"):
            result = run_any(function.function_op, arguments)
    except ExecutionError as err:
        raise RunError(f"'{function.name}': {err}") from None
    except RecursionError:
        raise RunError(f"'{function.name}': the run nested too deep for the interpreter") from None
    except MemoryError as err:  # a tensor too large to hold: the input's doing, not a bug
        raise RunError(f"'{function.name}': out of memory: {err}") from None
    if args.output is not None:
        save_value(args.output, result)
        if names_stdout(args.output):  # it holds the value: the summary goes to stderr
            sys.stdout = sys.stderr  # (main's guarded_stdout restores it)
    shown = ", ".join(
        f"{name}{list(np.asarray(value).shape) if not isinstance(value, tuple) else ''}"
        for name, value in zip(params, arguments, strict=True)
    )
    print(f"{function.name}({shown})")
    for selection, count in Counter(selections).items():
        print(f"  ran {selection}" + (f" ({count} times)" if count > 1 else ""))
    print(f"  -> {value_summary(result)}")
    for line in format_value(result, "     "):
        print(line)
    for param, value in zip(function.params, arguments, strict=True):
        if isinstance(param.type, BufferType):  # written in place: its contents after the run
            print(f"  buffer {param.name} -> {value_summary(value)}")
            for line in format_value(value, "     "):
                print(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with guarded_stdout():  # a full or closed standard output: one line, or quiet
            with collection_paused():  # a tool's run: see ir/allocation.py
                return run(argv)
    except (RunError, OutputError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    except OutputClosed:  # a closed pipe (`| head -1`): a quiet exit
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
