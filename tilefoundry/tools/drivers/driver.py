"""What the tools' `main`s share: one line for a refusal, a quiet exit on a closed pipe, one
line for a bug (tf-run, tf-tree), and plugins loaded as refusals (tf-opt, tf-run)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable

from tilefoundry.tools.output.output import (
    ErrorStreamFailed,
    OutputClosed,
    OutputError,
    guarded_stderr,
    guarded_stdout,
)
from tilefoundry_client.streams import hold_closed_streams

__all__ = ["load_plugins", "tool_main"]


def tool_main(
    prog: str,
    run: Callable[[], int],
    refusals: tuple[type[Exception], ...],
    refusal_text: Callable[[Exception], str] = str,
    traced_refusals: tuple[type[Exception], ...] = (),
) -> int:
    """The `main` of tf-run and tf-tree: `run()` with a guarded standard output. A refusal (one
    of `refusals`, or an `OutputError`) is one line `<prog>: error: <refusal_text>` and exit 1;
    a closed pipe (`| head -1`) a quiet exit 1; Ctrl-C `<prog>: interrupted` and exit 130; any other exception (a bug) one line
    `<prog>: internal error: ...` and exit 2. With TF_OPT_TRACEBACK set, a bug, or one of
    `traced_refusals`, raises (its traceback) instead. A standard stream closed at start is
    held first (`tilefoundry_client.streams`): a closed stdout fails the first write in one line
    (`Bad file descriptor`), a closed stderr swallows what is written to it; a failed write to
    stderr (full, or a pipe with no reader) ends the run with exit 1, nothing more said."""
    hold_closed_streams()
    try:
        with guarded_stderr():
            return _main(prog, run, refusals, refusal_text, traced_refusals)
    except ErrorStreamFailed:
        return 1


def _main(
    prog: str,
    run: Callable[[], int],
    refusals: tuple[type[Exception], ...],
    refusal_text: Callable[[Exception], str],
    traced_refusals: tuple[type[Exception], ...],
) -> int:
    try:
        with guarded_stdout():  # a full or closed standard output: one line, or quiet
            return run()
    except OutputError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    except OutputClosed:
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status, as tf-opt's
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except refusals as err:
        print(f"{prog}: error: {refusal_text(err)}", file=sys.stderr)
        return 1
    except Exception as err:
        if os.environ.get("TF_OPT_TRACEBACK"):
            raise
        if isinstance(err, traced_refusals):
            print(f"{prog}: error: {refusal_text(err)}", file=sys.stderr)
            return 1
        print(
            f"{prog}: internal error: {type(err).__name__}: {err} (set TF_OPT_TRACEBACK=1)",
            file=sys.stderr,
        )
        return 2


def load_plugins(module_names: Iterable[str], refusal: Callable[[str], Exception]) -> None:
    """`load_plugin` each module (`--plugin`); a `PluginError` is raised as `refusal(its
    line)`, or as it is (its traceback) with TF_OPT_TRACEBACK set."""
    from tilefoundry.context.context import PluginError, load_plugin

    for module_name in module_names:
        try:
            load_plugin(module_name)
        except PluginError as err:
            if os.environ.get("TF_OPT_TRACEBACK"):
                raise
            raise refusal(str(err)) from None
