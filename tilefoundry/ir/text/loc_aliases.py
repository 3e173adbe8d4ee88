"""Location aliases used before their definition, as upstream mlir-opt prints them.

MLIR prints debug info through aliases defined at the end of the file (`loc(#loc3)` ...
`#loc3 = loc("m.py":2:5)`); its parser allows these forward references for locations only.
xDSL's parser wants every alias defined first, so `TFParser` reads an undefined `#alias` in a
location as a placeholder (`forward_alias`) and, once the whole input is read, puts the
definition in its place (`resolve_forward_aliases`), each distinct location once (a location
shared 2^40 times through a chain of aliases is read in linear time); aliases that refer to
themselves (`#loc1 = loc(callsite(#loc2 at ...))`, `#loc2 = loc(callsite(... at #loc1))`) are
refused.

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

__all__ = [
    "AliasCycle",
    "AliasesTooDeep",
    "LocationAliases",
    "UndefinedAlias",
    "forward_alias",
    "resolve_forward_aliases",
]

_MARK = "\0forward-alias "

_MAX_ALIAS_DEPTH = 256
"""How deep aliases may refer to aliases, through placeholders (each level one frame of the
resolver; the resolved location's own depth is the nesting limit's, checked by the parser)."""


class UndefinedAlias(Exception):
    """A location names an alias that the input never defines."""

    def __init__(self, alias: str) -> None:
        super().__init__(alias)
        self.alias = alias


class AliasCycle(Exception):
    """Location aliases that refer to themselves: `chain` from the first back to it."""

    def __init__(self, chain: list[str]) -> None:
        super().__init__(" -> ".join(chain))
        self.alias = chain[0]
        self.chain = chain


class AliasesTooDeep(Exception):
    """Aliases that refer to aliases deeper than the resolver goes."""

    def __init__(self, alias: str) -> None:
        super().__init__(alias)
        self.alias = alias


def forward_alias(alias: str) -> LocationAttr:
    """A placeholder for the location alias `alias` (e.g. `#loc3`), defined later."""
    return NameLoc(StringAttr(_MARK + alias), NoneAttr())


class _Resolver:
    """Placeholders replaced by definitions, each location object resolved once (a location
    shared N times, as a chain of `callsite(#locN-1 at #locN-1)` shares, is visited once, so
    resolving takes time linear in the distinct locations, not in their expansion)."""

    def __init__(self, aliases: Mapping[str, Attribute]) -> None:
        self.aliases = aliases
        self.done: dict[int, Attribute] = {}
        self.keep: list[Attribute] = []  # ids stay unique while the locations are alive
        self.by_alias: dict[str, Attribute] = {}
        self.active: list[str] = []
        # a definition read after its alias's own: the parser put the object itself in place
        self.alias_of = {id(value): name for name, value in aliases.items()}

    def resolve(self, location: Attribute) -> Attribute:
        known = self.done.get(id(location))
        if known is not None:
            return known
        name = self.alias_of.get(id(location))
        resolved = self._alias(name) if name is not None else self._resolve(location)
        self.done[id(location)] = resolved
        self.keep.append(location)
        return resolved

    def _alias(self, alias: str) -> Attribute:
        known = self.by_alias.get(alias)
        if known is not None:
            return known
        if alias in self.active:
            raise AliasCycle([*self.active[self.active.index(alias) :], alias])
        if alias not in self.aliases:
            raise UndefinedAlias(alias)
        if len(self.active) >= _MAX_ALIAS_DEPTH:
            raise AliasesTooDeep(alias)
        self.active.append(alias)
        resolved = self._resolve(self.aliases[alias])
        self.active.pop()
        self.by_alias[alias] = resolved
        return resolved

    def _resolve(self, location: Attribute) -> Attribute:
        if isinstance(location, NameLoc):
            if location.desc.data.startswith(_MARK):
                return self._alias(location.desc.data[len(_MARK) :])
            child = self.resolve(location.location)
            return location if child is location.location else NameLoc(location.desc, child)
        if isinstance(location, CallSiteLoc):
            callee, caller = self.resolve(location.callee), self.resolve(location.caller)
            if callee is location.callee and caller is location.caller:
                return location
            return CallSiteLoc(callee, caller)
        if isinstance(location, FusedLoc):
            locations = cast(ArrayAttr[Attribute], location.locations).data
            inner = [self.resolve(loc) for loc in locations]
            if all(a is b for a, b in zip(inner, locations, strict=True)):
                return location
            return FusedLoc(ArrayAttr(inner), location.metadata)
        return location


def resolve_forward_aliases(root: Operation, aliases: Mapping[str, Attribute]) -> list[Operation]:
    """Put each alias's definition in place of its placeholders, in the locations of `root`'s
    ops and block arguments; the ops whose own location changed. `UndefinedAlias` when an alias
    has no definition, `AliasCycle` when aliases refer to themselves, `AliasesTooDeep` when they
    refer to aliases more than 256 deep."""
    resolver = _Resolver(aliases)
    changed: list[Operation] = []
    for op in root.walk():
        location = resolver.resolve(op.location)
        if location is not op.location:
            assert isinstance(location, LocationAttr)
            op.location = location
            changed.append(op)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    resolved = resolver.resolve(arg.location)
                    if resolved is not arg.location:
                        assert isinstance(resolved, LocationAttr)
                        arg.location = resolved
    return changed


# ---------------------------------------------------------------------------------------------
# Printing: a location that shares parts prints each once, through `#loc` aliases

_ALIAS_PAST = 256
"""A location that expands to more parts than this, and to more than twice its distinct parts,
prints through aliases."""


def _parts(location: Attribute) -> tuple[Attribute, ...]:
    """The locations a location is made of (a source range, `fused<#tf.span_end>`, is one)."""
    if isinstance(location, CallSiteLoc):
        return (location.callee, location.caller)
    if isinstance(location, NameLoc):
        return () if isinstance(location.location, NoneAttr) else (location.location,)
    if isinstance(location, FusedLoc):
        return tuple(cast(ArrayAttr[Attribute], location.locations).data)
    return ()


class LocationAliases:
    """Which locations a printer prints as `#locN` aliases, and their definitions.

    Most locations print inline, as they are. One whose text would repeat shared parts (it
    expands to more than 256 parts and to more than twice its distinct parts, as a chain of
    `callsite(#locN-1 at #locN-1)` does, 2^N parts) prints as `loc(#locK)`, and so does each
    part it shares; each alias is defined once, after the operations (`#locK = loc(...)`), as
    mlir-opt prints debug info. Sizes are counted per distinct location object, so deciding
    takes time linear in the distinct parts."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.pending: list[Attribute] = []  # aliased, not yet defined (in order of naming)
        self.keep: list[Attribute] = []
        self._checked: set[int] = set()
        self._aliased: set[int] = set()

    def alias(self, location: Attribute, defining: Attribute | None) -> str | None:
        """The alias to print for `location` (None: print it inline). `defining` is the
        location whose definition is being printed (it prints its own text)."""
        if location is defining or not _parts(location):
            return None
        name = self.names.get(id(location))
        if name is not None:
            return name
        if id(location) not in self._checked:
            self._examine(location)
        if id(location) not in self._aliased:
            return None
        return self._name(location)

    def _name(self, location: Attribute) -> str:
        name = "#loc" if not self.names else f"#loc{len(self.names)}"
        self.names[id(location)] = name
        self.pending.append(location)
        return name

    def definitions(self) -> list[tuple[str, Attribute]]:
        """The aliases named so far and those their definitions name, each after the aliases
        it uses (upstream mlir-opt reads an alias only after its definition), then forgotten
        as pending."""
        order: list[Attribute] = []
        visited: set[int] = set()
        stack: list[tuple[Attribute, bool]] = [(n, False) for n in reversed(self.pending)]
        while stack:
            node, finished = stack.pop()
            if finished:
                if id(node) in self.names or id(node) in self._aliased:
                    order.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in reversed(_parts(node)) if id(p) not in visited)
        for node in order:
            if id(node) not in self.names:
                self._name(node)
        self.pending.clear()
        return [(self.names[id(n)], n) for n in order]

    def _examine(self, root: Attribute) -> None:
        """Count the parts of a location printed at the top; mark what to alias."""
        uses: dict[int, int] = {id(root): 1}  # how many locations use each part
        visited: set[int] = set()
        order: list[Attribute] = []  # each part after the parts it is made of
        stack: list[tuple[Attribute, bool]] = [(root, False)]
        while stack:
            node, finished = stack.pop()
            if finished:
                order.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            for part in _parts(node):
                uses[id(part)] = uses.get(id(part), 0) + 1
                if id(part) not in visited:
                    stack.append((part, False))
        expanded: dict[int, int] = {}
        for node in order:
            total = 1 + sum(expanded[id(p)] for p in _parts(node))
            expanded[id(node)] = min(total, 1 << 62)
        self._checked.update(uses)
        self.keep.extend(order)
        if expanded[id(root)] > _ALIAS_PAST and expanded[id(root)] > 2 * len(order):
            self._aliased.add(id(root))
            self._aliased.update(id(n) for n in order if uses[id(n)] > 1 and _parts(n))
