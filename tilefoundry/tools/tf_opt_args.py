"""`tf-opt`'s command line: xdsl-opt's options that tf-opt implements, with what they do in
tf-opt, and tf-opt's own. A mistake is one line (`tf-opt: error: ...`), never usage + exit.

Its own argparse, not `xDSLOptMain`'s: importing `xdsl.xdsl_opt_main` costs tf-opt a tenth of its
start-up, for options it does not have (frontends, targets, shrinking).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import NoReturn

__all__ = ["help_through_stdout", "parse_arguments"]

_DESCRIPTION = (
    "tf-opt: parse, verify, transform and print TileFoundry IR (the tf, hir, tir dialects)"
)


class _Version(argparse.Action):
    """`--version`: the version line, read only when asked (importlib.metadata is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import version

        from tilefoundry.tools.output import write_stdout

        write_stdout(f"tf-opt (TileFoundry core IR, xdsl {version('xdsl')})\n")
        parser.exit()


def help_through_stdout(parser: argparse.ArgumentParser) -> None:
    """`--help` written as the tools' other output is (`tools/output.py`): a full standard output
    is one line, a closed one a quiet exit."""

    def print_help(file: object = None) -> None:
        from tilefoundry.tools.output import write_stdout

        write_stdout(parser.format_help())

    setattr(parser, "print_help", print_help)  # noqa: B010


def parse_arguments(
    argv: Sequence[str] | None, error: Callable[[str], NoReturn]
) -> argparse.Namespace:
    """The parsed command line; `error(message)` reports a mistake (it does not return)."""
    parser = argparse.ArgumentParser(prog="tf-opt", description=_DESCRIPTION)
    setattr(parser, "error", error)  # noqa: B010 - one line, not usage + exit
    help_through_stdout(parser)
    add = parser.add_argument
    add("input_file", nargs="?", help="the input (default: stdin)")
    add("-o", "--output-file", help="write the output here (only when the run succeeds)")
    add(
        "-p",
        "--passes",
        default="",
        help="the pass pipeline, as mlir-opt writes it: 'a,b{opt=v}', 'builtin.module(a,b)', "
        "op-anchored 'tf.module(hir.func(cse))' (see --list-passes)",
    )
    add(
        "--list-passes",
        action="store_true",
        help="list every pass with a one-line description and its options, then exit",
    )
    add(
        "--split-input-file",
        action="store_true",
        help="process each chunk between '// -----' lines on its own",
    )
    add(
        "--verify-diagnostics",
        action="store_true",
        help="MLIR's diagnostic checking: every '// expected-error {{...}}' annotation must be "
        "met by a diagnostic on its line (@+N, @-N, @above, @below), and no other diagnostic may "
        "be reported; exit 1 otherwise",
    )
    add("--print-op-generic", action="store_true", help="print the generic form")
    add(
        "--print-no-properties",
        action="store_true",
        help="print properties as attributes (in the generic form)",
    )
    add(
        "--print-irdl-generic",
        action="store_true",
        help="print the generic form that upstream mlir-opt verifies with the dialects of "
        "dialects/*.irdl.mlir (--irdl-file): inherent data as attributes, tf attributes in "
        "IRDL's parameter syntax, each block of a tf/hir/tir op ended by llvm.unreachable",
    )
    add("--print-debuginfo", action="store_true", help="print locations: all the metadata")
    add(
        "--print-between-passes",
        action="store_true",
        help="print the IR after each pass but the last",
    )
    add("--time-passes", action="store_true", help="print the time each pass took (stderr)")
    add(
        "--timing",
        action="store_true",
        help="print a table of the time spent reading, verifying, in each pass, and printing "
        "(stderr), as mlir-opt --mlir-timing",
    )
    add(
        "--disable-verify", action="store_true", help="do not verify the IR (after parsing, passes)"
    )
    add(
        "--allow-unregistered-dialect",
        action="store_true",
        help="read ops of dialects tf-opt does not know (the verifier refuses them in bodies)",
    )
    add(
        "--no-implicit-module",
        action="store_true",
        help="do not wrap the input in a builtin.module",
    )
    add(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a Python module that registers ops, metadata classes or passes (repeatable)",
    )
    add("-v", "--version", action=_Version, nargs=0, help="print the version and exit")
    return parser.parse_args(argv)
