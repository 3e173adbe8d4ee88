"""`CACHES`: the one owner of the answers verification and parsing remember.

Verification and parsing ask the same questions of the same few immutable objects many times
(does this op signature verify, what Op does this attribute stand for, is this location's
metadata valid), and remember the answers. An answer depends on the objects asked about and on
the registries (the op registry, the metadata classes, the dialects' op definitions): every
change to a registry calls `CACHES.bump()`, which advances the generation and empties every
cache, so that a cache never changes an answer. Each cache is bounded (it empties itself when
it grows past its limit), so none holds a program's objects for good.

A cache is made through `CACHES` (`CACHES.memo()`, `CACHES.mapping()`, or `CACHES.owns` on a
`functools.lru_cache`d function whose answer depends on a registry), never as a module-level
dict of its own.

An answer that depends on the IR itself (what a module's owner chain resolves) is remembered
only while the IR cannot change: `CACHES.unchanging()` opens a scope for one verification
(verifiers never change the IR), `CACHES.scope()` is its memo (None outside one), and the memo
is dropped when the scope ends, so no IR answer outlives the verification that found it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, Protocol, TypeVar

__all__ = ["CACHES", "BoundedMapping", "Caches", "IdentityMemo"]

K = TypeVar("K")
V = TypeVar("V")


class _LRUCached(Protocol):
    def cache_clear(self) -> None: ...


F = TypeVar("F", bound=_LRUCached)

DEFAULT_LIMIT = 1 << 16


class IdentityMemo:
    """A set of tuples of objects, compared by identity: what was found to hold for these very
    objects. An entry keeps its objects alive, so their ids stay theirs; only answers that held
    are remembered (a refusal is raised again, with its message, every time)."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.entries: dict[tuple[int, ...], Sequence[object]] = {}

    def holds(self, objects: Sequence[object]) -> bool:
        """Whether these very objects were `add`ed (and not forgotten since)."""
        return tuple(map(id, objects)) in self.entries

    def add(self, objects: Sequence[object]) -> None:
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[tuple(map(id, objects))] = objects

    def clear(self) -> None:
        self.entries.clear()


class BoundedMapping(Generic[K, V]):
    """A dict that empties itself when it grows past `limit`."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.entries: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        return self.entries.get(key)

    def set(self, key: K, value: V) -> None:
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[key] = value

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()


class Caches:
    """The caches of verification and parsing, and the generation of the registries they
    depend on (see the module docstring)."""

    def __init__(self) -> None:
        self.generation = 0
        self.clearers: list[Callable[[], None]] = []

    def memo(self, limit: int = DEFAULT_LIMIT) -> IdentityMemo:
        """A new `IdentityMemo` that every `bump` empties."""
        memo = IdentityMemo(limit)
        self.clearers.append(memo.clear)
        return memo

    def mapping(self, limit: int = DEFAULT_LIMIT) -> BoundedMapping[K, V]:
        """A new `BoundedMapping` that every `bump` empties."""
        mapping: BoundedMapping[K, V] = BoundedMapping(limit)
        self.clearers.append(mapping.clear)
        return mapping

    def owns(self, cached: F) -> F:
        """Have every `bump` empty a `functools.lru_cache`d function too; return it."""
        self.clearers.append(cached.cache_clear)
        return cached

    @contextmanager
    def unchanging(self) -> Iterator[dict[object, object]]:
        """A scope in which the IR does not change (one verification): its memo, shared by the
        scopes opened inside it, dropped when the outermost ends."""
        memo = _SCOPE.get()
        if memo is not None:
            yield memo
            return
        memo = {}
        token = _SCOPE.set(memo)
        try:
            yield memo
        finally:
            _SCOPE.reset(token)

    def scope(self) -> dict[object, object] | None:
        """The memo of the `unchanging` scope in effect (None outside one)."""
        return _SCOPE.get()

    def bump(self) -> None:
        """A registry changed: advance the generation and forget every remembered answer."""
        self.generation += 1
        for clear in self.clearers:
            clear()


_SCOPE: ContextVar[dict[object, object] | None] = ContextVar("tf_unchanging_ir", default=None)

CACHES = Caches()
"""The caches of this process (registries are per process, so their caches are too)."""
