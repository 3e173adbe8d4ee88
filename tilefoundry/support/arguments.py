"""Checks of Python arguments: a wrong-typed argument is a `TypeError` that names it.

Every public constructor checks what it is given before it builds anything, so a mistake is
reported where it is made, in one wording, and never as an `AttributeError` from inside or as an
exception of xDSL's:

```text
Module 'm' entry must be the name of one of its functions (a str), got int 3
function 'f' params must be an iterable of Var, got int 3
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["described", "items_of", "mapping_of", "refuse_type", "shown", "text_of"]


def shown(value: object) -> str:
    """A short repr of a value, as a message shows it (at most 60 characters)."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        return "<too long to show>"
    return text if len(text) <= 60 else text[:57] + "..."


def described(value: object) -> str:
    """`int 3`: the type and a short repr of a value, as a message shows what it got."""
    return f"{type(value).__name__} {shown(value)}"


def refuse_type(what: str, expected: str, value: object) -> NoReturn:
    """Raise `TypeError: <what> must be <expected>, got <type> <value>`."""
    raise TypeError(f"{what} must be {expected}, got {described(value)}")


def items_of(value: object, what: str, expected: str) -> tuple[Any, ...]:
    """The items of an iterable argument; a str, bytes or mapping is not one (its items would be
    characters or keys)."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        refuse_type(what, expected, value)
    return tuple(value)


def mapping_of(value: object, what: str, expected: str) -> dict[str, Any]:
    """A mapping argument keyed by str, as a dict (insertion order kept)."""
    if not isinstance(value, Mapping):
        refuse_type(what, expected, value)
    found: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            refuse_type(f"{what} keys", "str", key)
        found[key] = item
    return found


def text_of(value: object, what: str, expected: str = "a non-empty str") -> str:
    """A non-empty str argument."""
    if not isinstance(value, str) or not value:
        refuse_type(what, expected, value)
    return value
