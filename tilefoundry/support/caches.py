"""`CACHES`: the one owner of the answers verification and parsing remember.

Verification and parsing ask the same questions of the same few immutable objects many times
(does this op signature verify, what Op does this attribute stand for, is this location's
metadata valid), and remember the answers. An answer depends on the objects asked about and on
the registries (the op registry, the metadata classes, the dialects' op definitions): every
change to a registry calls `CACHES.bump()`, which advances the generation and empties every
cache, so that a cache never changes an answer.

Two kinds of cache, each bounded, none holding a dropped module's objects for good:

- A pure function of values (`CACHES.mapping()`, `CACHES.owns` on a `functools.lru_cache`d
  function): process-wide, keyed by value, at most `limit` entries (a mapping empties itself
  when full, an `lru_cache` drops its least recently used entry). It keeps one representative
  of each value it was asked about, never more, however often the same text is parsed.
- A fact about these very objects (`CACHES.memo()`, an `IdentityMemo`: this op signature
  verified): keyed by identity, process-wide, at most `limit` entries. An entry holds its
  objects weakly and goes when the first of them does, so it lives no longer than the IR that
  uses them: parsing the same text again and again keeps no verdict on a dropped module's
  attributes (only the value caches' one representative of each value), while copies of a
  module (which share its attributes) share its entries.

A cache is made through `CACHES`, never as a module-level dict of its own. `clear_caches()`
(`tilefoundry.clear_caches`) empties them all; `CACHES.sizes()` counts their entries.

An answer that depends on the IR itself (what a module's owner chain resolves) is remembered
only while the IR cannot change: `CACHES.unchanging()` opens a scope for one verification
(verifiers never change the IR), `CACHES.scope()` is its memo (None outside one), and the memo
is dropped when the scope ends, so no IR answer outlives the verification that found it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, Protocol, TypeVar, cast

__all__ = [
    "CACHES",
    "BoundedMapping",
    "Caches",
    "IdentityMapping",
    "IdentityMemo",
    "Interner",
    "clear_caches",
    "shared",
]

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


class _CacheInfo(Protocol):
    @property
    def currsize(self) -> int: ...


class _LRUCached(Protocol):
    __qualname__: str

    def cache_clear(self) -> None: ...

    def cache_info(self) -> _CacheInfo: ...


F = TypeVar("F", bound=_LRUCached)

DEFAULT_LIMIT = 1 << 16
"""The bound of an `IdentityMemo` (a module of 20,000 ops has as many locations to remember)."""

MAPPING_LIMIT = 1 << 14
"""The bound of a `BoundedMapping` (a value-keyed cache: few distinct values)."""


class IdentityMemo:
    """A set of tuples of objects, compared by identity: what was found to hold for these very
    objects. An entry refers weakly to each object that allows it (strongly to the others:
    ints, None, tuples) and is dropped when one of them is collected, so an id in a live entry
    is still its object's; only answers that held are remembered (a refusal is raised again,
    with its message, every time)."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.entries: dict[tuple[int, ...], list[object]] = {}

    def holds(self, objects: Sequence[object]) -> bool:
        """Whether these very objects were `add`ed (and not forgotten since)."""
        return tuple(map(id, objects)) in self.entries

    def add(self, objects: Sequence[object]) -> None:
        entries = self.entries
        if len(entries) >= self.limit:
            entries.clear()
        key = tuple(map(id, objects))

        def forget(_: object, key: tuple[int, ...] = key) -> None:
            entries.pop(key, None)

        kept: list[object] = []
        for item in objects:
            try:
                kept.append(weakref.ref(item, forget))
            except TypeError:
                kept.append(item)
        entries[key] = kept

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()


class IdentityMapping(Generic[V]):
    """Answers about these very objects, by identity: an entry refers weakly to its object and
    goes when the object does (so an id in a live entry is still its object's), and the
    mapping empties itself when it grows past `limit`. For a pure function of an immutable
    object whose hash is costly (an xDSL attribute's walks its parameters each time): the
    answer is the function's, only found without hashing."""

    def __init__(self, limit: int = MAPPING_LIMIT) -> None:
        self.limit = limit
        self.entries: dict[int, tuple[weakref.ref[object], V]] = {}

    def get(self, obj: object) -> V | None:
        found = self.entries.get(id(obj))
        if found is not None and found[0]() is obj:
            return found[1]
        return None

    def set(self, obj: object, value: V) -> None:
        entries = self.entries
        if len(entries) >= self.limit:
            entries.clear()
        key = id(obj)

        def forget(ref: weakref.ref[object], key: int = key) -> None:
            found = entries.get(key)
            if found is not None and found[0] is ref:
                del entries[key]

        try:
            entries[key] = (weakref.ref(obj, forget), value)
        except TypeError:  # an object without weak references: not remembered
            pass

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        self.entries.clear()


class BoundedMapping(Generic[K, V]):
    """A dict that empties itself when it grows past `limit`."""

    def __init__(self, limit: int = MAPPING_LIMIT) -> None:
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


class Interner(BoundedMapping[object, object]):
    """One representative of each immutable value (an attribute) built from Python: calling it
    with a value gives the first equal value it was given. Equal attributes are
    interchangeable, so this never changes what the IR says; it makes the IR built by code
    share its objects as a parse does, which is what the verifier's identity memos recognise
    (the second `q_proj` of a model then verifies as the first did)."""

    def __call__(self, value: T) -> T:
        found = self.entries.get(value)
        if found is None:
            self.set(value, value)
            return value
        return cast(T, found)


class Caches:
    """The caches of verification and parsing, and the generation of the registries they
    depend on (see the module docstring)."""

    def __init__(self) -> None:
        self.generation = 0
        self.clearers: list[Callable[[], None]] = []
        self.counters: dict[str, Callable[[], int]] = {}

    def memo(self, name: str, limit: int = DEFAULT_LIMIT) -> IdentityMemo:
        """A new `IdentityMemo` that every `bump` empties."""
        memo = IdentityMemo(limit)
        self.clearers.append(memo.clear)
        self.counters[name] = memo.__len__
        return memo

    def mapping(self, name: str, limit: int = MAPPING_LIMIT) -> BoundedMapping[K, V]:
        """A new `BoundedMapping` that every `bump` empties."""
        mapping: BoundedMapping[K, V] = BoundedMapping(limit)
        self.clearers.append(mapping.clear)
        self.counters[name] = mapping.__len__
        return mapping

    def identity_mapping(self, name: str, limit: int = MAPPING_LIMIT) -> IdentityMapping[V]:
        """A new `IdentityMapping` that every `bump` empties."""
        mapping: IdentityMapping[V] = IdentityMapping(limit)
        self.clearers.append(mapping.clear)
        self.counters[name] = mapping.__len__
        return mapping

    def interner(self, name: str, limit: int = MAPPING_LIMIT) -> Interner:
        """A new `Interner` that every `bump` empties."""
        interner = Interner(limit)
        self.clearers.append(interner.clear)
        self.counters[name] = interner.__len__
        return interner

    def owns(self, cached: F) -> F:
        """Have every `bump` empty a `functools.lru_cache`d function too; return it."""
        self.clearers.append(cached.cache_clear)
        name = f"{getattr(cached, '__module__', '')}.{cached.__qualname__}"
        self.counters[name] = lambda: cached.cache_info().currsize
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

    def sizes(self) -> dict[str, int]:
        """How many entries each cache holds now, by name."""
        return {name: count() for name, count in self.counters.items()}

    def clear(self) -> None:
        """Forget every remembered answer (each is found again when next asked)."""
        for clear in self.clearers:
            clear()

    def bump(self) -> None:
        """A registry changed: advance the generation and forget every remembered answer."""
        self.generation += 1
        self.clear()


_SCOPE: ContextVar[dict[object, object] | None] = ContextVar("tf_unchanging_ir", default=None)

CACHES = Caches()
"""The caches of this process (registries are per process, so their caches are too)."""

shared = CACHES.interner("shared attributes")
"""The one representative of a built attribute (a symbol name, a signature, a symbol path):
what the builders of modules and functions store, so that a model's repeated layers share
their attributes (see `Interner`)."""


def clear_caches() -> None:
    """Empty every cache of the library (`CACHES`): what verification, parsing and printing
    remember. Nothing changes but the time the next calls take; the native backend's compiled
    libraries on disk are not touched (`TF_CACHE_DIR`, docs/compile.md)."""
    CACHES.clear()
