"""`tf-run`: run a function of a TileFoundry module with the reference interpreter, and print
what it returns.

    tf-run model.mlir                          # the entry function, on random inputs
    tf-run model.mlir --function layer0.mlp    # another one, by path (or @layer0::@mlp)
    tf-run model.mlir --dim seq=16 --seed 3    # DimVar sizes (default: each one's lower bound)
    tf-run model.mlir --input x=x.npy --output y.npy
    tf-run kernel.mlir --output out=out.npy    # a buffer parameter's contents after the run
    cat model.mlir | tf-run -                  # the module from standard input (also: no file)

Arguments not given with `--input` are drawn at random: floats from a normal distribution,
integers and booleans from small ranges. The output shows the call, which arguments were drawn,
which variant or dispatch case each choice took, and the result as numpy prints it (elided
when large):

    f(x[7, 4])
      drawn at random (--seed 0): x
      ran @f: variant #0 [n: 1 to 8]
      -> array[7, 4] float32
         [[...]]

A buffer parameter (`!tf.buffer`) is written in place: each one's contents after the run are
printed after the result, and `--output NAME=FILE` saves one. A module without an entry needs
`--function` (the error lists the functions).

Failures are one line and a non-zero exit, as in tf-opt: a bad flag, a parse or verifier error
(with the source line and a caret), a recursive function (the interpreter runs no recursion),
an argument that does not fit its parameter.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, NoReturn

from tilefoundry.ir.allocation import collection_paused
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.tools.drivers.driver import load_plugins, tool_main
from tilefoundry.tools.drivers.module_input import parsed_module
from tilefoundry.tools.drivers.run_values import (
    RunError,
    check_output_path,
    draw,
    exact_value,
    format_value,
    load_value,
    save_value,
    value_summary,
)
from tilefoundry.tools.drivers.tf_opt_args import help_through_stdout
from tilefoundry.tools.output.output import names_stdout

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
        if not (value.isascii() and value.isdigit()):  # not ١٢, as the text grammar
            raise RunError(f"--dim takes NAME=SIZE, got '{name}={value}'")
        sizes[name] = int(value)
    return sizes


def _path(text: str) -> list[str]:
    """The names of a `--function` path: `layer0.mlp` or `@layer0::@mlp` (quoted names too),
    as `tilefoundry.select` reads it."""
    from tilefoundry.dialects.tf.selection import path_names

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


class _Param(NamedTuple):
    name: str
    type: Any


def _params(function: Any) -> list[_Param]:
    """A function op's parameters: each one's name and type."""
    return [
        _Param(name.data, type)
        for name, type in zip(function.param_names, function.param_types(), strict=True)
    ]


def _functions(module: Any) -> list[Any]:
    from tilefoundry.ir.algebra.callable import FunctionLike

    return [op for op in module.body.block.ops if isinstance(op, FunctionLike)]


def _children(module: Any) -> list[Any]:
    from tilefoundry.dialects.tf.module import ModuleOp

    return [op for op in module.body.block.ops if isinstance(op, ModuleOp)]


def _lookup(module: Any, name: str) -> Any:
    """The function named `name` of `module`; KeyError naming the ones it has."""
    from tilefoundry.ir.algebra.callable import FunctionLike

    found = module.member(name)
    if not isinstance(found, FunctionLike):
        names = ", ".join(f"'{f.function_name()}'" for f in _functions(module)) or "none"
        raise KeyError(f"module '{module.own_name}' has no function '{name}' (functions: {names})")
    return found


def _function(module: Any, names: list[str], text: str) -> Any:
    """The function a path names: its children as `tilefoundry.select` reads them (a dotted
    path reaches a layer list's `layers.0` too), then the function of the last."""
    from tilefoundry.dialects.tf.selection import child_at

    node, index, path = module, 0, names[:-1]
    while index < len(path):
        try:
            found = child_at(node, path, index, not text.startswith("@"), text)
        except KeyError as err:
            raise RunError(str(err.args[0])) from None
        if found is None:
            reached = ".".join(names[:index]) or "the root module"
            shown = ", ".join(m.sym_name.data for m in _children(node)) or "none"
            raise RunError(
                f"'{path[index]}' names no child module of {reached} (children: {shown})"
            )
        node, index = found[0], index + found[1]
    return _lookup(node, names[-1])


def _dim_vars(types: Sequence[Any]) -> dict[str, Any]:
    from tilefoundry.builtin.types import BufferType, TensorType, TupleType

    found: dict[str, Any] = {}
    for type in types:
        if isinstance(type, TupleType):
            found.update(_dim_vars(type.fields))
        elif isinstance(type, TensorType | BufferType):
            found.update((d.name, d) for d in type.dim_vars)
    return found


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__.split("\n\n")[0].replace("`", ""),
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # a prefix of a flag is refused, as mlir-opt refuses it
    )
    parser.add_argument(
        "input_file", nargs="?", default="-", help="the module ('-' or none: standard input)"
    )
    parser.add_argument(
        "--function", help="a dotted path (layer0.mlp) or @layer0::@mlp (default: the entry)"
    )
    parser.add_argument(
        "--dim",
        action="append",
        default=[],
        metavar="NAME=SIZE",
        help="the size of DimVar NAME (repeatable; default: each one's lower bound, or what an "
        "--input gives it)",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="parameter NAME's value from a .npy file (.npz for a tuple; repeatable); a "
        "parameter without one is drawn at random, and the output says which",
    )
    parser.add_argument(
        "--output",
        action="append",
        default=[],
        metavar="FILE | NAME=FILE",
        help="write the result (.npy, or .npz for a tuple), or with NAME=FILE the contents of "
        "buffer parameter NAME after the run (.npy); '-': standard output, and the summary goes "
        "to stderr",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the seed of the random arguments (default 0)"
    )
    parser.add_argument(
        "--backend",
        choices=("interpreter", "native", "iree"),
        default="interpreter",
        help="run with the reference interpreter (default), or compiled by the native backend "
        "(upstream MLIR 19 / LLVM 19) or the IREE backend (the [iree] extra; docs/compile.md): "
        "the same output where the numbers are, without the 'ran' lines (compiled code does "
        "not record its choices)",
    )
    parser.add_argument(
        "--dump",
        metavar="DIR",
        help="with --backend=native or iree: keep every stage's file in DIR",
    )
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a Python module that registers ops or metadata classes (repeatable)",
    )

    def one_line_error(message: str) -> NoReturn:
        raise RunError(message)

    setattr(parser, "error", one_line_error)  # noqa: B010 - one line, not usage + exit
    help_through_stdout(parser)
    return parser


_LISTED_FUNCTIONS = 20
"""The most function paths the advice for a module without an entry lists."""


def _function_paths(module: Any, prefix: tuple[str, ...] = ()) -> list[str]:
    """Every function of the tree (prim functions too), by the path `--function` takes."""
    from tilefoundry.dialects.tf.selection import path_of

    paths = [path_of([*prefix, f.function_name()]) for f in _functions(module)]
    for child in _children(module):
        paths += _function_paths(child, (*prefix, child.sym_name.data))
    return paths


def _chosen_function(module: Any, spec: str | None) -> Any:
    """The function `--function` names, else the module's entry."""
    if spec is not None:
        return _function(module, _path(spec), spec)
    if module.entry is not None:
        return _lookup(module, module.entry.root_reference.data)
    paths = _function_paths(module)
    shown = ", ".join(paths[:_LISTED_FUNCTIONS]) or "none"
    if len(paths) > _LISTED_FUNCTIONS:
        shown += f", ... ({len(paths) - _LISTED_FUNCTIONS} more)"
    raise RunError(
        f"module '{module.own_name}' has no entry: choose a function with --function NAME "
        f"(functions: {shown})"
    )


def _check_not_recursive(function: Any) -> None:
    from tilefoundry.interpreter.recursion import call_cycle

    cycle = call_cycle(function)
    if cycle is not None:
        chain = " -> ".join(f"@{name}" for name in cycle)
        raise RunError(
            f"'{function.function_name()}' is recursive ({chain}); the reference interpreter runs no recursion"
        )


def _check_names(function: Any, sizes: dict[str, int], inputs: dict[str, str]) -> None:
    """Each `--dim` names a DimVar of the function, each `--input` a parameter."""
    params = [p.name for p in _params(function)]
    dim_vars = _dim_vars([p.type for p in _params(function)])
    for name in sizes:
        if name not in dim_vars:
            shown = ", ".join(dim_vars) or "none"
            raise RunError(
                f"--dim '{name}' names no DimVar of '{function.function_name()}' (DimVars: {shown})"
            )
    for name in inputs:
        if name not in params:
            shown = ", ".join(params) or "none"
            raise RunError(
                f"--input '{name}' names no parameter of '{function.function_name()}' (parameters: {shown})"
            )


def _buffer_params(function: Any) -> dict[str, Any]:
    from tilefoundry.builtin.types import BufferType

    return {p.name: p for p in _params(function) if isinstance(p.type, BufferType)}


def _is_buffer_spec(spec: str) -> bool:
    """`NAME=FILE` (a name before the first `=`, no `/` in it); anything else is a path."""
    name, sep, _ = spec.partition("=")
    return bool(sep and name and "/" not in name)


def _outputs(specs: Sequence[str], function: Any) -> tuple[str | None, dict[str, str]]:
    """Where `--output` writes: the result's path (or None), and a path per buffer parameter;
    each checked before the run."""
    from tilefoundry.builtin.types import UnitType

    buffers = _buffer_params(function)
    shown = ", ".join(buffers) or "none"
    result_path: str | None = None
    buffer_paths: dict[str, str] = {}
    for spec in specs:
        if _is_buffer_spec(spec):
            name, _, path = spec.partition("=")
            if name not in buffers:
                raise RunError(
                    f"--output '{name}' names no buffer parameter of '{function.function_name()}' "
                    f"(buffers: {shown})"
                )
            if not path:
                raise RunError(f"--output takes NAME=FILE, got '{spec}'")
            if name in buffer_paths:
                raise RunError(f"--output '{name}' is given twice")
            check_output_path(path, buffers[name].type.tensor, f"buffer '{name}'")
            buffer_paths[name] = path
            continue
        if result_path is not None:
            raise RunError(f"--output of the result is given twice ('{result_path}', '{spec}')")
        result_type = function.result_type()
        if isinstance(result_type, UnitType):
            hint = f" (a buffer is written with --output NAME=FILE; buffers: {shown})"
            raise RunError(
                f"'{function.function_name()}' returns nothing (an effect-only function): there is "
                f"nothing to write to '{spec}'" + (hint if buffers else "")
            )
        check_output_path(spec, result_type)
        result_path = spec
    paths = [result_path, *buffer_paths.values()]
    if sum(names_stdout(path) for path in paths if path is not None) > 1:
        raise RunError("--output writes at most one value to standard output")
    _refuse_one_file_twice(result_path, buffer_paths)
    return result_path, buffer_paths


def _refuse_one_file_twice(result_path: str | None, buffer_paths: dict[str, str]) -> None:
    """Two values written to one file: the second would silently replace the first."""
    import os

    named = [("the result", result_path)] if result_path is not None else []
    named += [(f"buffer '{name}'", path) for name, path in buffer_paths.items()]
    seen: dict[str, str] = {}
    for what, path in named:
        if names_stdout(path) or path == os.devnull:
            continue
        where = os.path.realpath(path)
        if where in seen:
            raise RunError(
                f"--output writes {seen[where]} and {what} to one file ('{path}'): the second "
                "would replace the first"
            )
        seen[where] = what


def _arguments(
    function: Any, inputs: dict[str, str], sizes: dict[str, int], seed: int
) -> list[Any]:
    """The values of the function's parameters: read from `--input` files, the rest drawn."""
    import numpy as np

    from tilefoundry.interpreter.evaluate import check_argument

    params = {p.name: p for p in _params(function)}
    given = dict(sizes)
    values: dict[str, Any] = {}
    for name, path in inputs.items():
        what = f"input '{name}'"
        loaded = exact_value(load_value(path, params[name].type, what), params[name].type, what)
        seen: dict[str, int] = {}
        values[name] = check_argument(name, params[name].type, loaded, seen)
        for dim, size in seen.items():
            if given.setdefault(dim, size) != size:
                raise RunError(
                    f"input '{name}' has {dim} = {size}, but {dim} is {given[dim]} "
                    "(--dim or another input)"
                )
    rng = np.random.default_rng(seed)
    return [
        values[p.name] if p.name in values else draw(p.type, given, rng) for p in _params(function)
    ]


@contextlib.contextmanager
def _run_errors(function: Any) -> Iterator[None]:
    """What reading the arguments or running the function refuses: one line naming it."""
    from tilefoundry.interpreter.evaluate import ExecutionError

    try:
        yield
    except ExecutionError as err:
        raise RunError(f"'{function.function_name()}': {err}") from None
    except RecursionError:
        raise RunError(
            f"'{function.function_name()}': the run nested too deep for the interpreter"
        ) from None
    except MemoryError as err:  # a tensor too large to hold: the input's doing, not a bug
        raise RunError(f"'{function.function_name()}': out of memory: {err}") from None


def _execute_compiled(
    backend: str,
    module: Any,
    function: Any,
    path: str | None,
    arguments: list[Any],
    dump: str | None,
) -> tuple[Any, list[str]]:
    """The function compiled by a backend (`native`, `iree`; the tree lowered from it), run on
    `arguments`; it records no choices."""
    import numpy as np

    from tilefoundry.transforms.lowering import lower_module

    lowered = lower_module(module, path)  # from the entry when no --function
    program: Any
    if backend == "iree":
        from tilefoundry.backends.iree.build import compile_iree

        program = compile_iree(lowered, dump=dump)
    else:
        from tilefoundry.backends.native.build import compile_native

        program = compile_native(lowered, dump=dump)
    with np.errstate(all="ignore"):
        result = program.function(function.function_name())(*arguments)
    return result, []


def _execute(function: Any, arguments: list[Any]) -> tuple[Any, list[str]]:
    """The function's result on `arguments` (buffers written in place), and the choices the
    run made, in order."""
    import numpy as np

    from tilefoundry.interpreter.evaluate import recording_selections, run_any

    # IEEE results (inf, nan) are the values the run computes: numpy's warnings about them are
    # not shown (nor turned into errors by -W error).
    with recording_selections() as selections, np.errstate(all="ignore"):
        result = run_any(function, arguments)
    return result, list(selections)


def _print_value(heading: str, value: Any) -> None:
    print(f"{heading} -> {value_summary(value)}")
    for line in format_value(value, "     "):
        print(line)


def _report(
    function: Any, arguments: list[Any], result: Any, selections: list[str], drawn: str
) -> None:
    """The call, which arguments were drawn at random (`drawn`), the choices it made, the
    result and each buffer's contents after the run."""
    import numpy as np

    shown = ", ".join(
        f"{p.name}{list(np.asarray(value).shape) if not isinstance(value, tuple) else ''}"
        for p, value in zip(_params(function), arguments, strict=True)
    )
    print(f"{function.function_name()}({shown})")
    if drawn:
        print(f"  {drawn}")
    for selection, count in Counter(selections).items():
        print(f"  ran {selection}" + (f" ({count} times)" if count > 1 else ""))
    _print_value(" ", result)
    buffers = _buffer_params(function)
    for param, value in zip(_params(function), arguments, strict=True):
        if param.name in buffers:  # written in place: its contents after the run
            _print_value(f"  buffer {param.name}", value)


def run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    sizes = _sizes(args.dim)
    inputs = _pairs(args.input, "--input", "FILE")
    load_plugins(args.plugin, RunError)
    module = parsed_module(args.input_file)
    if module is None:
        return 1
    function = _chosen_function(module, args.function)
    _check_not_recursive(function)
    _check_names(function, sizes, inputs)
    result_path, buffer_paths = _outputs(args.output, function)
    if args.dump is not None and args.backend == "interpreter":
        raise RunError(
            "--dump keeps a compiling backend's files: use it with --backend=native or iree"
        )
    with _run_errors(function):
        arguments = _arguments(function, inputs, sizes, args.seed)
        if args.backend != "interpreter":
            result, selections = _execute_compiled(
                args.backend, module, function, args.function, arguments, args.dump
            )
        else:
            result, selections = _execute(function, arguments)
    if result_path is not None:
        save_value(result_path, result)
    values = dict(zip((p.name for p in _params(function)), arguments, strict=True))
    for buffer, path in buffer_paths.items():
        save_value(path, values[buffer])
    if any(names_stdout(path) for path in [result_path, *buffer_paths.values()] if path):
        sys.stdout = sys.stderr  # it holds a value: the summary goes to stderr (main restores it)
    drawn = [p.name for p in _params(function) if p.name not in inputs]
    note = f"drawn at random (--seed {args.seed}): {', '.join(drawn)}" if drawn else ""
    _report(function, arguments, result, selections, note)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from tilefoundry.backends.native.toolchain import StageError, ToolchainError
    from tilefoundry.mlir_builder import EmitError

    refusals = (RunError, KeyError, ValueError, ToolchainError, StageError, EmitError)
    return tool_main(PROG, lambda: _paused_run(argv), refusals, _refusal_text, (VerifyError,))


def _paused_run(argv: Sequence[str] | None) -> int:
    with collection_paused():  # a tool's run: see ir/allocation.py
        return run(argv)


def _refusal_text(err: Exception) -> str:
    """A KeyError's or ValueError's own message (a KeyError's str() would quote it)."""
    if isinstance(err, KeyError | ValueError) and err.args:
        return str(err.args[0])
    return str(err)


if __name__ == "__main__":
    sys.exit(main())
