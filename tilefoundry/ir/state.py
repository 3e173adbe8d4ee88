"""Python-only state kept on the IR objects themselves, never in process-wide side tables.

Some of what the Python surface knows has no place in the text: the function object a call was
built with (until a module fixes the callee's symbol path), the module a detached copy was taken
from, a module's orchestration methods, the view object of an op. Each is a `Slot` on the object
it describes (an op, a block argument), so it lives and dies with that object, two threads that
build different IR never see each other's, and xDSL's `clone()` does not copy it: whoever makes a
copy decides what the copy carries. What decides what a module *resolves* in text (callee paths,
the context around a copy) is in the IR; see `docs/decisions.md`.

```python
CALLEE: Slot[Operation] = Slot("callee")
CALLEE.set(call, function_op)
CALLEE.get(call)          # the function op, or None
```
"""

from __future__ import annotations

from typing import Generic, TypeVar, cast

__all__ = ["Slot"]

T = TypeVar("T")


class Slot(Generic[T]):
    """One named piece of Python-only state on IR objects (see the module docstring)."""

    __slots__ = ("key",)

    def __init__(self, name: str) -> None:
        self.key = f"_tf_{name}"

    def get(self, holder: object) -> T | None:
        return cast("T | None", vars(holder).get(self.key))

    def set(self, holder: object, value: T | None) -> None:
        """Store `value` on `holder` (None removes it)."""
        if value is None:
            vars(holder).pop(self.key, None)
        else:
            vars(holder)[self.key] = value

    def setdefault(self, holder: object, value: T) -> T:
        """The value on `holder`, storing `value` first when there is none (atomically: two
        threads asking at once get one value)."""
        return cast(T, vars(holder).setdefault(self.key, value))
