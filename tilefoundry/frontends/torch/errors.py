"""The refusals of the torch frontend: one line naming the op, the submodule and the user's
source line, and the refusal of a program with ops the table lacks (every one, at once)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tilefoundry.support.diagnostics import VerifyError

__all__ = ["TorchImportError", "missing_ops", "source_line"]


class TorchImportError(VerifyError):
    """A torch program the frontend cannot import: one line naming the op, the submodule and
    the Python source line it came from."""


def _torch_dir() -> str:
    import torch

    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def source_line(node: Any) -> str:
    """`file.py:LINE` of the innermost frame of a node's stack trace outside torch (the user's
    line that called into `torch.nn`, not torch's own); '' when unknown."""
    trace = node.meta.get("stack_trace") or ""
    frames = [line.strip() for line in trace.splitlines() if line.strip().startswith("File ")]
    torch_dir = _torch_dir()
    found: tuple[str, str] | None = None
    for frame in frames:  # File "path", line N, in fn
        try:
            path = frame.split('"')[1]
            line = frame.split(", line ")[1].split(",")[0]
        except IndexError:
            continue
        if not os.path.abspath(path).startswith(torch_dir) or found is None:
            found = (path, line)
    return "" if found is None else f"{os.path.basename(found[0])}:{found[1]}"


def submodule_of(node: Any) -> str:
    """The path of the innermost submodule a node of the flat program ran in ('' the root)."""
    stack = node.meta.get("nn_module_stack") or {}
    path = ""
    for entry in stack.values():
        path = str(entry[0])
    return path


@dataclass
class _Missing:
    count: int
    first: Any


def missing_ops(nodes: Iterable[Any], known: Mapping[str, Any]) -> TorchImportError | None:
    """The refusal of the ops of a flat program the table lacks, each with its count, the first
    call's submodule and source line (None when every op is known)."""
    import operator

    found: dict[str, _Missing] = {}
    for node in nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        name = str(node.target)
        if name in known:
            continue
        entry = found.setdefault(name, _Missing(0, node))
        entry.count += 1
    if not found:
        return None

    def where(node: Any) -> str:
        line = source_line(node)
        return f"submodule '{submodule_of(node) or '<root>'}'" + (f" ({line})" if line else "")

    if len(found) == 1:
        ((name, entry),) = found.items()
        calls = "" if entry.count == 1 else f" ({entry.count} calls, the first)"
        return TorchImportError(f"unsupported op '{name}'{calls} in {where(entry.first)}")
    parts = [
        f"'{name}' ({entry.count} call{'s' if entry.count > 1 else ''}, "
        f"{'the first ' if entry.count > 1 else ''}in {where(entry.first)})"
        for name, entry in found.items()
    ]
    return TorchImportError(f"{len(found)} unsupported ops: " + "; ".join(parts))
