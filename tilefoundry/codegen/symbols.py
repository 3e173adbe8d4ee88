"""Symbol names and locations of the emitted MLIR.

A function at path `(s1, ..., sk)` (the child modules it is reached through, then its name: the
path `select` names it by) is emitted as

- `@tfi<P>_<len(s1)><s1>_..._<len(sk)><sk>`: the inner, private function;
- `@tf<P>_<len(s1)><s1>_...`: its exported wrapper (C entry point `_mlir_ciface_tf<P>_...`);

where `<P>` is the module's prefix (empty by default; letters and digits only, so several
modules can share one shared library). Each segment is prefixed by its length, so the name is
injective: `a.b_1c` and `a_1b.c` differ. Helper functions are `@tfh<P>_<name>`.

```python
mangle(("layer0", "mlp"))     # 'tf_6layer0_3mlp'
```
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, NameLoc, NoneAttr, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    SourceSpanMetadata,
    location_to_metadata,
)

__all__ = [
    "check_prefix",
    "inner_symbol",
    "location_text",
    "mangle",
    "mlir_string",
    "span_of",
    "stamp_positions",
]

_PREFIX = re.compile(r"[A-Za-z0-9]*")


def check_prefix(prefix: str) -> str:
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(f"a symbol prefix is letters and digits, got {prefix!r}")
    return prefix


def mangle(path: Sequence[str], prefix: str = "") -> str:
    """The wrapper symbol of the function at `path` (see the module docstring)."""
    return f"tf{prefix}_" + "_".join(f"{len(s)}{s}" for s in path)


def inner_symbol(path: Sequence[str], prefix: str = "") -> str:
    return "tfi" + mangle(path, prefix)[2:]


def mlir_string(text: str) -> str:
    """A string literal of MLIR's syntax."""
    out = []
    for char in text.encode("utf-8"):
        if char in (0x22, 0x5C) or not 0x20 <= char < 0x7F:
            out.append(f"\\{char:02X}")
        else:
            out.append(chr(char))
    return '"' + "".join(out) + '"'


def location_text(location: Attribute) -> str:
    """` loc(...)` for an op's metadata (its binding name and source position), or ''."""
    try:
        metadata: Iterable[object] = location_to_metadata(location)
    except Exception:  # noqa: BLE001 - a location the IR cannot read is left out, not fatal
        return ""
    name = next((m.name for m in metadata if type(m) is BindingMetadata), None)
    span = next((m for m in metadata if type(m) is SourceSpanMetadata), None)
    position = None
    if span is not None:
        position = f"{mlir_string(span.file)}:{span.line}:{span.column}"
    if name is not None and position is not None:
        return f" loc({mlir_string(name)}({position}))"
    if name is not None:
        return f" loc({mlir_string(name)})"
    if position is not None:
        return f" loc({position})"
    return ""


def span_of(op: Operation) -> tuple[int, int] | None:
    """The line and column of an op's source span, if its metadata has one."""
    try:
        metadata = location_to_metadata(op.location)
    except Exception:  # noqa: BLE001 - no readable location: no span
        return None
    span = next((m for m in metadata if type(m) is SourceSpanMetadata), None)
    return None if span is None else (span.line, span.column)


def stamp_positions(
    root: Operation, file: str, position: Callable[[Operation], tuple[int, int] | None]
) -> None:
    """Give each op of `root` without a source span one at `position(op)` (its place in the
    text it was read from), its binding name kept: what `tf-opt --emit=mlir` writes as the
    emitted ops' `loc(...)`."""
    for op in root.walk():
        place = position(op)
        if place is None or span_of(op) is not None:
            continue
        located = FileLineColLoc(StringAttr(file), IntAttr(place[0]), IntAttr(place[1]))
        current = op.location
        if isinstance(current, NameLoc) and isinstance(current.location, UnknownLoc | NoneAttr):
            op.location = NameLoc(current.desc, located)
        elif isinstance(current, UnknownLoc):
            op.location = located
