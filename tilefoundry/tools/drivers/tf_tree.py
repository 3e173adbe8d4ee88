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
from typing import TYPE_CHECKING, NoReturn

from tilefoundry.tools.drivers.driver import tool_main
from tilefoundry.tools.drivers.module_input import parsed_module
from tilefoundry.tools.drivers.run_values import RunError

__all__ = ["main", "module_tree"]

if TYPE_CHECKING:
    from tilefoundry.dialects.tf.module import ModuleOp
    from tilefoundry.ir.algebra.callable import FunctionLike

PROG = "tf-tree"


def _symbol(name: str) -> str:
    """`@name` as the IR prints it (`@"c d"` quoted)."""
    from io import StringIO

    from xdsl.dialects.builtin import SymbolRefAttr

    from tilefoundry.ir.text.printer import TFPrinter

    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(SymbolRefAttr(name))
    return stream.getvalue()


def _target(module: ModuleOp) -> str:
    from tilefoundry.dialects.tf.module import resolve_target

    if module.declared_target is not None:
        return f"target {module.declared_target}"
    target = resolve_target(module, required=False)
    return "no target" if target is None else f"target {target} (inherited)"


def _topologies(module: ModuleOp) -> str:
    from tilefoundry.dialects.tf.module import declared_in_chain

    declared = module.declared_topologies
    levels = declared if declared is not None else declared_in_chain(module)
    if levels is None:
        return "no topologies"
    shown = ", ".join(str(t) for t in levels) if levels else "none"
    return f"topologies {shown}" + (" (inherited)" if declared is None else "")


def _module_line(module: ModuleOp) -> str:
    parts = [_target(module), _topologies(module)]
    if module.entry is not None:
        parts.append(f"entry {_symbol(module.entry.root_reference.data)}")
    attached = module.sym_name.data
    name = _symbol(attached)
    if module.own_name != attached:
        name += f' name "{module.own_name}"'
    return f"{name}: {', '.join(parts)}"


def _function_line(op: FunctionLike) -> str:
    from xdsl.ir import Operation

    from tilefoundry.dialects.hir import FuncOp

    assert isinstance(op, Operation)
    count = sum(1 for _ in op.walk()) - 1  # every op inside, not the function itself
    params = len(op.param_types())
    parts = [f"{params} param{'s' * (params != 1)}", f"{count} op{'s' * (count != 1)}"]
    variants = op.variant_ops() if isinstance(op, FuncOp) else ()
    if variants:
        parts.append(f"{len(variants)} variant{'s' * (len(variants) != 1)}")
    return f"{op.name} {_symbol(op.function_name())}: {', '.join(parts)}"


def module_tree(module: ModuleOp, depth: int | None = None) -> list[str]:
    """The lines of the tree of `module`, `depth` levels of children deep (None: all; a module
    below the last shown level is its header line and `...`)."""
    from tilefoundry.dialects.tf.module import ModuleOp
    from tilefoundry.ir.algebra.callable import FunctionLike

    lines: list[str] = []

    def visit(node: ModuleOp, level: int) -> None:
        indent = "  " * level
        lines.append(indent + _module_line(node))
        functions = [op for op in node.body.block.ops if isinstance(op, FunctionLike)]
        children = [op for op in node.body.block.ops if isinstance(op, ModuleOp)]
        if depth is not None and level >= depth:
            if functions or children:
                lines.append(f"{indent}  ...")
            return
        lines.extend(f"{indent}  {_function_line(f)}" for f in functions)
        for child in children:
            visit(child, level + 1)

    visit(module, 0)
    return lines


def _depth(text: str) -> int:
    if not (text.isascii() and text.isdigit()):  # not ١٢, as the text grammar
        raise RunError(f"--depth takes a number of levels (0, 1, ...), got '{text}'")
    return int(text)


def run(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=" ".join(__doc__.split("\n\n")[0].split()),
        allow_abbrev=False,  # a prefix of a flag is refused, as mlir-opt refuses it
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
    from tilefoundry.tools.drivers.tf_opt_args import help_through_stdout

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
