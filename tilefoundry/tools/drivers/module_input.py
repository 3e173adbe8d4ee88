"""How tf-run and tf-tree read their module: a file, or standard input for `-`; a text that
does not parse is one MLIR-style diagnostic (the source line and a caret) on stderr."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tilefoundry.tools.drivers.run_values import RunError

if TYPE_CHECKING:
    from tilefoundry.dialects.tf.module import ModuleOp

__all__ = ["parsed_module", "read_text", "source_name"]


def source_name(path: str) -> str:
    """The name diagnostics give the input: the path, `<stdin>` for `-`."""
    return "<stdin>" if path == "-" else path


def read_text(path: str) -> str:
    """The module's text, from `path` or (`-`) from standard input (UTF-8; else RunError)."""
    from tilefoundry.tools.drivers.source_text import SourceError, read_source

    try:
        return read_source(path)
    except SourceError as err:
        raise RunError(str(err)) from None


def parsed_module(path: str) -> ModuleOp | None:
    """The root `tf.module` read from `path`, or None when its text does not parse (the
    diagnostic is printed to stderr)."""
    from tilefoundry.context.module_text import TextError, parse_root
    from tilefoundry.tools.output.report import Diagnostic, format_diagnostic

    text, name = read_text(path), source_name(path)
    try:
        return parse_root(text, name)
    except TextError as err:
        at = err.position
        diagnostic = Diagnostic(
            "error", at.line if at else None, at.column if at else None, err.message
        )
        print(format_diagnostic(diagnostic, name, text.split("\n")), file=sys.stderr)
        return None
