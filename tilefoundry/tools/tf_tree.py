"""`tf-tree`: the tree of a TileFoundry module: each module with its target and topologies, its
functions with their parameter and op counts, and its children, indented.

    tf-tree model.mlir              # the whole tree
    tf-tree model.mlir --depth 1    # the root and its children's headers only
    cat model.mlir | tf-tree -      # from standard input (also: no file)

For example (`examples/decoder.mlir`):

    @decoder: target h100, topologies cluster[2], cta[4], warp[4], entry @step
      hir.func @step: 33 params, 5 ops
      @layer0: target h100 (inherited), topologies cluster[2], cta[4], warp[4] (inherited)
        hir.func @block: 9 params, 3 ops
        ...

A module is shown by the symbol it is attached under, its own name when that differs
(`name "MLP"`), the target and hierarchy it resolves (`(inherited)` when an owner declares them),
and its entry. A function's op count is every operation inside it: its body, nested regions
(meshes, statement bodies) and variants, terminators included. Failures are one line, as in
tf-run; a parse error shows the source line and a caret.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from tilefoundry.tools.driver import tool_main
from tilefoundry.tools.module_input import parsed_module
from tilefoundry.tools.run_values import RunError

__all__ = ["main", "module_tree"]

PROG = "tf-tree"


def _symbol(name: str) -> str:
    """`@name` as the IR prints it (`@"c d"` quoted)."""
    from io import StringIO

    from xdsl.dialects.builtin import SymbolRefAttr

    from tilefoundry.ir.asm import TFPrinter

    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(SymbolRefAttr(name))
    return stream.getvalue()


def _target(module: Any) -> str:
    from tilefoundry.dialects.tf_module import resolve_target

    if module.target is not None:
        return f"target {module.target}"
    target = resolve_target(module.module_op, required=False)
    return "no target" if target is None else f"target {target} (inherited)"


def _topologies(module: Any) -> str:
    from tilefoundry.dialects.tf_module import declared_in_chain

    declared = module.topologies
    levels = declared if declared is not None else declared_in_chain(module.module_op)
    if levels is None:
        return "no topologies"
    shown = ", ".join(str(t) for t in levels) if levels else "none"
    return f"topologies {shown}" + (" (inherited)" if declared is None else "")


def _module_line(module: Any) -> str:
    parts = [_target(module), _topologies(module)]
    if module.entry is not None:
        parts.append(f"entry {_symbol(module.entry)}")
    name = _symbol(module.attached_name)
    if module.name != module.attached_name:
        name += f' name "{module.name}"'
    return f"{name}: {', '.join(parts)}"


def _function_line(function: Any) -> str:
    op = function.function_op
    count = sum(1 for _ in op.walk()) - 1  # every op inside, not the function itself
    params = len(function.params)
    parts = [f"{params} param{'s' * (params != 1)}", f"{count} op{'s' * (count != 1)}"]
    variants = getattr(function, "variants", None)
    if variants:
        parts.append(f"{len(variants)} variant{'s' * (len(variants) != 1)}")
    return f"{op.name} {_symbol(function.name)}: {', '.join(parts)}"


def module_tree(module: Any, depth: int | None = None) -> list[str]:
    """The lines of the tree of `module`, `depth` levels of children deep (None: all; a module
    below the last shown level is its header line and `...`)."""
    lines: list[str] = []

    def visit(node: Any, level: int) -> None:
        indent = "  " * level
        lines.append(indent + _module_line(node))
        if depth is not None and level >= depth:
            if node.functions or node.modules:
                lines.append(f"{indent}  ...")
            return
        lines.extend(f"{indent}  {_function_line(f)}" for f in node.functions)
        for child in node.modules:
            visit(child, level + 1)

    visit(module, 0)
    return lines


def _depth(text: str) -> int:
    if not text.isdigit():
        raise RunError(f"--depth takes a number of levels (0, 1, ...), got '{text}'")
    return int(text)


def run(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG, description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument(
        "input_file", nargs="?", default="-", help="the module ('-' or none: standard input)"
    )
    parser.add_argument(
        "--depth", type=_depth, default=None, help="levels of child modules shown in full"
    )

    def one_line_error(message: str) -> NoReturn:
        raise RunError(message)

    setattr(parser, "error", one_line_error)  # noqa: B010 - one line, not usage + exit
    from tilefoundry.tools.tf_opt_args import help_through_stdout

    help_through_stdout(parser)
    args = parser.parse_args(argv)
    module = parsed_module(args.input_file)
    if module is None:
        return 1
    for line in module_tree(module, args.depth):
        print(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return tool_main(PROG, lambda: run(argv), (RunError,))


if __name__ == "__main__":
    sys.exit(main())
