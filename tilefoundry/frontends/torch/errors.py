"""The one-line refusal of the torch frontend."""

from __future__ import annotations

import os
from typing import Any

from tilefoundry.diagnostics import VerifyError

__all__ = ["TorchImportError", "source_line"]


class TorchImportError(VerifyError):
    """A torch program the frontend cannot import: one line naming the op, the submodule and
    the Python source line it came from."""


def source_line(node: Any) -> str:
    """`file.py:LINE` of the innermost frame of a node's stack trace ('' when unknown)."""
    trace = node.meta.get("stack_trace") or ""
    frames = [line.strip() for line in trace.splitlines() if line.strip().startswith("File ")]
    if not frames:
        return ""
    last = frames[-1]  # File "path", line N, in fn
    try:
        path = last.split('"')[1]
        line = last.split(", line ")[1].split(",")[0]
    except IndexError:
        return ""
    return f"{os.path.basename(path)}:{line}"
