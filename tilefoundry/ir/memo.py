"""`IdentityMemo`: what was found to hold for given immutable objects, by their identity.

Verification asks the same questions of the same few attribute objects thousands of times (is
this location's metadata valid, does this op accept these argument types); hashing the
attributes anew for each question costs more than answering it. An entry keeps its objects
alive, so their ids stay theirs; the memo empties itself when it grows past `limit`, so it never
holds a program's attributes for good. Only answers that held are remembered (a refusal is
raised again, with its message, every time).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["IdentityMemo"]


class IdentityMemo:
    """A set of tuples of objects, compared by identity (see the module docstring)."""

    def __init__(self, limit: int = 1 << 16) -> None:
        self.limit = limit
        self._entries: dict[tuple[int, ...], Sequence[object]] = {}

    def holds(self, objects: Sequence[object]) -> bool:
        """Whether these very objects were `add`ed (and not forgotten since)."""
        return tuple(map(id, objects)) in self._entries

    def add(self, objects: Sequence[object]) -> None:
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[tuple(map(id, objects))] = objects
