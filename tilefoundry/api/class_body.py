"""The DSL's class bodies, as the Python surface asks for them: `Module.__init_subclass__`
collects a class body, and a sealed module refuses `@f.variant(...)`, through the loader the
package installs (`tilefoundry/__init__.py`: the DSL's `tilefoundry.dsl.classes`, imported on
first use). The surface is a layer below the DSL, so it never imports it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tilefoundry.api.module import Module

__all__ = ["ClassBody", "class_body", "set_class_body_loader"]


class ClassBody(Protocol):
    """What the surface asks of the DSL's class bodies."""

    def collect(self, cls: type[Module], declared: dict[str, Any]) -> None: ...

    def sealed_variant(self, module: Module) -> Exception: ...


_LOADERS: list[Callable[[], ClassBody]] = []


def set_class_body_loader(loader: Callable[[], ClassBody]) -> None:
    """Install what `class_body()` returns (the package does, when it is imported)."""
    _LOADERS[:] = [loader]


def class_body() -> ClassBody:
    """The DSL's class-body collection, loaded on first use."""
    if not _LOADERS:  # only when a layer below the package is imported without it
        raise RuntimeError(
            "class-body modules need the DSL: import tilefoundry (it wires the DSL in)"
        )
    return _LOADERS[0]()
