"""`TFPass`: the base of TileFoundry's passes, an xDSL `ModulePass` that declares where it runs.

```python
@dataclass(frozen=True)
class TfInline(TFPass):
    name = "tf-inline"
    anchors: ClassVar[Anchors] = ("builtin.module", "tf.module")
```

`anchors` names the ops a pipeline may nest the pass on (`tf.module(tf-inline)`); `ANY_OP` (None)
lets it run on any anchor op, `any(...)` included. The pass manager reads `anchors_of(cls)`: a
`TFPass`'s declaration, else the `FOREIGN_ANCHORS` table for a pass written elsewhere (xDSL's
`canonicalize`, `cse`, `dce`), else `builtin.module` only. Options are xDSL's: the dataclass fields, kebab-case.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from xdsl.passes import ModulePass

__all__ = ["ANY_OP", "FOREIGN_ANCHORS", "Anchors", "TFPass", "anchors_of"]

Anchors: TypeAlias = tuple[str, ...] | None
"""The op names a pass runs on; None: any op."""

ANY_OP: Anchors = None

ROOT_ONLY: Anchors = ("builtin.module",)

FOREIGN_ANCHORS: dict[str, Anchors] = {
    "canonicalize": ANY_OP,  # xDSL's, on every region of the anchor (`canonicalize.py`)
    "cse": ANY_OP,  # xDSL's class itself: its `cse(op)` works on whatever op it is given
    "dce": ANY_OP,  # xDSL's, on every region of the anchor (`dce.py`)
}
"""Where the passes that are not `TFPass`es run, by pass name: xDSL's, declared here rather than
by subclassing them for a class variable (a plugin may add entries)."""


@dataclass(frozen=True)
class TFPass(ModulePass):
    """A TileFoundry pass: an xDSL `ModulePass` with declared anchors."""

    anchors: ClassVar[Anchors] = ROOT_ONLY


def anchors_of(pass_class: type[ModulePass]) -> Anchors:
    """The ops a pass runs on (None: any op)."""
    if issubclass(pass_class, TFPass):
        return pass_class.anchors
    return FOREIGN_ANCHORS.get(pass_class.name, ROOT_ONLY)
