"""`tf-opt`'s command line: xdsl-opt's options that tf-opt implements, with what they do in
tf-opt, and tf-opt's own. A mistake is one line (`tf-opt: error: ...`), never usage + exit.

Its own argparse, not `xDSLOptMain`'s: importing `xdsl.xdsl_opt_main` costs tf-opt a tenth of its
start-up, for options it does not have (frontends, targets, shrinking).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Sequence
from typing import NoReturn

__all__ = ["help_through_stdout", "parse_arguments", "pass_flags"]

_DESCRIPTION = (
    "tf-opt: parse, verify, transform and print TileFoundry IR (the tf, hir, tir dialects)"
)


class _Version(argparse.Action):
    """`--version`: the version line, read only when asked (importlib.metadata is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import version

        from tilefoundry.tools.output.output import write_stdout

        ours = version("tilefoundry")
        write_stdout(f"tf-opt {ours} (TileFoundry core IR, xdsl {version('xdsl')})\n")
        parser.exit()


def _boolean(text: str) -> bool:
    """An LLVM boolean option's value: `--verify-each=false`."""
    if text.lower() in ("true", "1", "yes", "on"):
        return True
    if text.lower() in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expects true or false, got '{text}'")


def _color(text: str) -> str:
    """`--color` / `--color=always|never|auto` (also LLVM's `-color=true|false`)."""
    choice = {"true": "always", "1": "always", "false": "never", "0": "never"}.get(
        text.lower(), text.lower()
    )
    if choice not in ("always", "never", "auto"):
        raise argparse.ArgumentTypeError(f"expects always, never or auto, got '{text}'")
    return choice


def help_through_stdout(
    parser: argparse.ArgumentParser, more: Callable[[], str] | None = None
) -> None:
    """`--help` written as the tools' other output is (`tools/output/output.py`): a full standard output
    is one line, a closed one a quiet exit. `more()` is text after argparse's."""

    def print_help(file: object = None) -> None:
        from tilefoundry.tools.output.output import write_stdout

        write_stdout(parser.format_help() + (more() if more is not None else ""))

    setattr(parser, "print_help", print_help)  # noqa: B010


def _pass_flags_help() -> str:
    """The pass flags `--help` lists: one per registered pass, with its one-line summary."""
    from tilefoundry.transforms import PASSES, describe_passes

    lines = describe_passes(PASSES).splitlines()
    summaries = {
        name: summary.strip()
        for name, summary in zip(lines, lines[1:], strict=False)
        if name in PASSES and summary.startswith("    ")
    }
    width = max(len(name) for name in summaries) + 3
    out = [
        "",
        "pass flags (mlir-opt's: -NAME, or --NAME='OPT=V OPT=V' with options; each a pass, in",
        "command-line order, not with -p; --list-passes gives the options):",
    ]
    out += [f"  -{name:<{width}}{summary}" for name, summary in sorted(summaries.items())]
    return "\n".join(out) + "\n"


def parse_arguments(
    argv: Sequence[str] | None, error: Callable[[str], NoReturn]
) -> argparse.Namespace:
    """The parsed command line; `error(message)` reports a mistake (it does not return).

    What argparse does not know is left in `extra`, in order: mlir-opt's pass flags (`-cse`,
    `--tf-inline=max-ops=5`), which only the pass registry can tell from a mistake, once the
    plugins are loaded (`pass_flags`)."""
    parser = argparse.ArgumentParser(
        prog="tf-opt",
        description=_DESCRIPTION,
        allow_abbrev=False,  # `--split-input` is refused, as mlir-opt refuses it
    )
    setattr(parser, "error", error)  # noqa: B010 - one line, not usage + exit
    help_through_stdout(parser, _pass_flags_help)
    option_strings: list[str] = []

    def add(*names: str, **kwargs: object) -> None:
        option_strings.extend(n for n in names if n.startswith("-"))
        parser.add_argument(*names, **kwargs)  # type: ignore[arg-type]

    add("input_file", nargs="?", help="the input (default: stdin)")
    add("-o", "--output-file", help="write the output here (only when the run succeeds)")
    add(
        "-p",
        "--passes",
        "--pass-pipeline",
        dest="passes",
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
        "--list-ops",
        action="store_true",
        help="list every registered op and alias (with --plugin's): its inputs, attributes, "
        "typing rule, FLOPs, whether it folds, an example call; then exit (docs/ops.md)",
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
    add(
        "--print-op-generic",
        "--mlir-print-op-generic",
        action="store_true",
        help="print the generic form",
    )
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
    add(
        "--emit",
        choices=("mlir",),
        help="print the output as another IR instead of TileFoundry's: 'mlir' is upstream MLIR "
        "(func, linalg, tensor, arith, math, scf, memref, bufferization; lowered to TIR first), "
        "what the native backend compiles (docs/compile.md)",
    )
    add(
        "--print-debuginfo",
        "--mlir-print-debuginfo",
        action="store_true",
        help="print locations: all the metadata",
    )
    add(
        "--print-between-passes",
        action="store_true",
        help="print the IR after each pass but the last (stderr)",
    )
    dumps = parser.add_argument_group(
        "IR dumps (stderr, headed as mlir-opt heads them: "
        "'// -----// IR Dump After CommonSubexpressionElimination (cse) //----- //')"
    )

    def dump(*names: str, **kwargs: object) -> None:
        option_strings.extend(names)
        dumps.add_argument(*names, **kwargs)  # type: ignore[arg-type]

    dump("--mlir-print-ir-before-all", action="store_true", help="before every pass")
    dump("--mlir-print-ir-after-all", action="store_true", help="after every pass")
    dump(
        "--mlir-print-ir-after-change",
        action="store_true",
        help="after a pass only when it changed the IR (with --mlir-print-ir-after-all: the "
        "passes that changed it)",
    )
    dump(
        "--mlir-print-ir-after-failure",
        action="store_true",
        help="after the pass that failed, the IR it left",
    )
    dump(
        "--mlir-print-ir-before",
        action="append",
        default=[],
        metavar="PASS",
        help="before each run of these passes (comma-separated, repeatable)",
    )
    dump(
        "--mlir-print-ir-after",
        action="append",
        default=[],
        metavar="PASS",
        help="after each run of these passes (comma-separated, repeatable)",
    )
    add(
        "--dump-pass-pipeline",
        action="store_true",
        help="print the pipeline in full, every option with its value (stderr)",
    )
    add(
        "--show-dialects",
        action="store_true",
        help="list the dialects tf-opt knows, then exit",
    )
    add(
        "--verify-each",
        nargs="?",
        const=True,
        default=True,
        type=_boolean,
        metavar="BOOL",
        help="verify the IR after each pass (default true; --verify-each=false does not)",
    )
    add(
        "--verify-roundtrip",
        action="store_true",
        help="check that the output reads back and prints the same, in the custom and the "
        "generic form",
    )
    add(
        "--mlir-elide-elementsattrs-if-larger",
        type=int,
        metavar="N",
        help="print a dense literal of more than N elements as dense_resource<__elided__>",
    )
    add(
        "--output-split-marker",
        default="// -----",
        metavar="MARKER",
        help="with --split-input-file, the line between the chunks of the output",
    )
    add(
        "--color",
        nargs="?",
        const="always",
        default="auto",
        type=_color,
        metavar="WHEN",
        help="colour the diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never",
    )
    add("--time-passes", action="store_true", help="print the time each pass took (stderr)")
    add(
        "--timing",
        "--mlir-timing",
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
    args, extra = parser.parse_known_args(argv)
    args.extra = extra
    args.option_strings = ["-h", "--help", *option_strings]
    return args


def pass_flags(
    args: argparse.Namespace, passes: Collection[str], error: Callable[[str], NoReturn]
) -> str:
    """The pipeline that mlir-opt's pass flags say (`-cse --tf-inline=max-ops=5` is
    `cse,tf-inline{max-ops=5}`), in command-line order; anything else left over is refused,
    with the nearest flag or pass ("did you mean")."""
    elements: list[str] = []
    for text in args.extra:
        name, _, value = text.lstrip("-").partition("=")
        if text.startswith("-") and name in passes:
            elements.append(f"{name}{{{value}}}" if value else name)
            continue
        from tilefoundry.transforms.pass_manager import did_you_mean

        known = [*args.option_strings, *(f"--{p}" for p in passes)]
        guess = did_you_mean(text.partition("=")[0] if text.startswith("--") else text, known)
        error(f"unrecognized arguments: {text}{guess}")
    if elements and args.passes:
        error(
            "the pass pipeline (-p, --pass-pipeline) cannot be given with pass flags ("
            + " ".join(args.extra)
            + ")"
        )
    return ",".join(elements)
