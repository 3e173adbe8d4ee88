"""Location aliases used before their definition, as upstream mlir-opt prints them.

MLIR prints debug info through aliases defined at the end of the file (`loc(#loc3)` ...
`#loc3 = loc("m.py":2:5)`); its parser allows these forward references for locations only.
xDSL's parser wants every alias defined first, so `TFParser` reads an undefined `#alias` in a
location as a placeholder (`forward_alias`) and, once the whole input is read, puts the
definition in its place (`resolve_forward_aliases`).

```mlir
%0 = "tf.call"(%arg0) {callee = #tf.op<tf.math.unary<kind = exp>>} : (tensor<4xf32>) -> tensor<4xf32> loc(#loc1)
#loc1 = loc("h"("m.py":2:5))
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FusedLoc,
    LocationAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation

__all__ = ["UndefinedAlias", "forward_alias", "resolve_forward_aliases"]

_MARK = "\0forward-alias "


class UndefinedAlias(Exception):
    """A location names an alias that the input never defines."""

    def __init__(self, alias: str) -> None:
        super().__init__(alias)
        self.alias = alias


def forward_alias(alias: str) -> LocationAttr:
    """A placeholder for the location alias `alias` (e.g. `#loc3`), defined later."""
    return NameLoc(StringAttr(_MARK + alias), NoneAttr())


def _resolve(location: Attribute, aliases: Mapping[str, Attribute]) -> Attribute:
    if isinstance(location, NameLoc):
        if location.desc.data.startswith(_MARK):
            alias = location.desc.data[len(_MARK) :]
            if alias not in aliases:
                raise UndefinedAlias(alias)
            return _resolve(aliases[alias], aliases)
        child = _resolve(location.location, aliases)
        return location if child is location.location else NameLoc(location.desc, child)
    if isinstance(location, CallSiteLoc):
        callee, caller = _resolve(location.callee, aliases), _resolve(location.caller, aliases)
        if callee is location.callee and caller is location.caller:
            return location
        return CallSiteLoc(callee, caller)
    if isinstance(location, FusedLoc):
        locations = cast(ArrayAttr[Attribute], location.locations).data
        inner = [_resolve(loc, aliases) for loc in locations]
        if all(a is b for a, b in zip(inner, locations, strict=True)):
            return location
        return FusedLoc(ArrayAttr(inner), location.metadata)
    return location


def resolve_forward_aliases(root: Operation, aliases: Mapping[str, Attribute]) -> list[Operation]:
    """Put each alias's definition in place of its placeholders, in the locations of `root`'s
    ops and block arguments; the ops whose own location changed. `UndefinedAlias` when an alias
    has no definition."""
    changed: list[Operation] = []
    for op in root.walk():
        location = _resolve(op.location, aliases)
        if location is not op.location:
            assert isinstance(location, LocationAttr)
            op.location = location
            changed.append(op)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    resolved = _resolve(arg.location, aliases)
                    if resolved is not arg.location:
                        assert isinstance(resolved, LocationAttr)
                        arg.location = resolved
    return changed
